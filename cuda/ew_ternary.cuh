// cuda/ew_ternary.cuh: the device functor of one of ops/ternary.h's ops, stamped per dtype and per op in
// device mode (cuda/ew_kernels.cu). ternary.h says which op (TH_OP) and either TH_OP_WHERE (cond ? a : b, a
// byte copy as on the host) or its inputs (TH_OP_NIN) and values (TH_OP_NPARAMS, in the compute type); the
// element function is the host's own (TH_PRIVATE(<op>_elem)).
struct TH__OP_PRIVATE(_dev) {
    typedef real out_t;
#ifdef TH_OP_WHERE
    static const int nin = 3, params_bytes = 0;
    static constexpr size_t in_bytes[3] = {sizeof(bool), sizeof(real), sizeof(real)};
    __device__ out_t operator()(const char *const *x, const unsigned char *params) const
    {
        (void)params;
        return *(const bool *)(const void *)x[0] ? *(const real *)(const void *)x[1] : *(const real *)(const void *)x[2];
    }
#else
    static const int nin = TH_OP_NIN, params_bytes = TH_OP_NPARAMS * (int)sizeof(TH_PRIVATE(ct));
    static constexpr size_t in_bytes[3] = {sizeof(real), TH_OP_NIN > 1 ? sizeof(real) : 0,
                                           TH_OP_NIN > 2 ? sizeof(real) : 0};
    __device__ out_t operator()(const char *const *x, const unsigned char *params) const
    {
        const TH_PRIVATE(ct) *p = (const TH_PRIVATE(ct) *)(const void *)params;
#define TH__EW_IN(k) TH_PRIVATE(to_ct)(*(const real *)(const void *)x[k])
#if TH_OP_NIN == 1
        return TH_PRIVATE(from_ct)(TH__OP_PRIVATE(_elem)(TH__EW_IN(0), p));
#elif TH_OP_NIN == 2
        return TH_PRIVATE(from_ct)(TH__OP_PRIVATE(_elem)(TH__EW_IN(0), TH__EW_IN(1), p));
#else
        return TH_PRIVATE(from_ct)(TH__OP_PRIVATE(_elem)(TH__EW_IN(0), TH__EW_IN(1), TH__EW_IN(2), p));
#endif
#undef TH__EW_IN
    }
#endif
};
static const th__cuda_ew_register TH__OP_PRIVATE(_dev_reg)(TH__EW_STR(TH_OP), TH_DT_ENUM, TH_DT_ENUM,
                                                          TH__OP_PRIVATE(_dev)::nin,
                                                          th__cuda_ew_launch<TH__OP_PRIVATE(_dev)>);
#undef TH_OP
#undef TH_OP_WHERE
#undef TH_OP_NIN
#undef TH_OP_NPARAMS
