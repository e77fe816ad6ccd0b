// cuda/ew_binary.cuh: one binary op's device functor, stamped per dtype and per op where ops/binary_op.h is
// included in device mode (ops/pointwise.h, TH__DEVICE_ELEMS; cuda/ew_kernels.cu stamps it). The element
// function is the host's own, compiled for the device; the result type and store are binary_op.h's.
struct TH__OP_PRIVATE(_dev) {
    typedef TH__RES_ELEM out_t;
    static const int nin = 2, params_bytes = 0;
    static constexpr size_t in_bytes[3] = {sizeof(real), sizeof(real), 0};
    __device__ out_t operator()(const char *const *x, const unsigned char *params) const
    {
        (void)params;
        return TH__RES_STORE(TH__OP_PRIVATE(_elem)(TH_PRIVATE(to_ct)(*(const real *)(const void *)x[0]),
                                                   TH_PRIVATE(to_ct)(*(const real *)(const void *)x[1])));
    }
};
static const th__cuda_ew_register TH__OP_PRIVATE(_dev_reg)(TH__EW_STR(TH_OP), TH_DT_ENUM, TH__RES_DT, 2,
                                                          th__cuda_ew_launch<TH__OP_PRIVATE(_dev)>);
