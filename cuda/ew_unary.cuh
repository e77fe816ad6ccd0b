// cuda/ew_unary.cuh: one unary op's device functor, stamped per dtype and per op where ops/unary_op.h is
// included in device mode (ops/pointwise.h, TH__DEVICE_ELEMS; cuda/ew_kernels.cu stamps it). The element
// function is the host's own, compiled for the device; the result type and store are unary_op.h's; an op's
// values (TH_OP_NPARAMS doubles: leaky_relu's slope) come as the host's front doors pass them.
struct TH__OP_PRIVATE(_dev) {
    typedef TH__RES_ELEM out_t;
#ifdef TH_OP_NPARAMS
    static const int nin = 1, params_bytes = TH_OP_NPARAMS * (int)sizeof(double);
#else
    static const int nin = 1, params_bytes = 0;
#endif
    static constexpr size_t in_bytes[3] = {sizeof(real), 0, 0};
    __device__ out_t operator()(const char *const *x, const unsigned char *params) const
    {
#ifdef TH_OP_NPARAMS
        const void *ctx = params; /* TH__ELEM_PARAMS passes it on */
#else
        (void)params;
#endif
        return TH__RES_STORE(TH__OP_PRIVATE(_elem)(TH_PRIVATE(to_ct)(*(const real *)(const void *)x[0]) TH__ELEM_PARAMS));
    }
};
static const th__cuda_ew_register TH__OP_PRIVATE(_dev_reg)(TH__EW_STR(TH_OP), TH_DT_ENUM, TH__RES_DT, 1,
                                                          th__cuda_ew_launch<TH__OP_PRIVATE(_dev)>);
