/* core/device_ops.h: ops on tensors in device memory, done by the companion that owns the device.
 * Part of tensor.h, which includes it twice: its declarations, then (TH__DEFINING) its definitions.
 *
 * The typed names are the API on every device: th_f32_add(a, b) on two CUDA tensors returns a CUDA tensor.
 * The core stays free of any device API. Each op family's dtype-independent driver (th__elementwise for the
 * elementwise ops) is the one place that looks at where its operands live, and only after its host fast
 * path has said no: when an operand is device memory, the driver hands the call to the table of ops that the
 * device type's companion registered (cuda/ registers one for TH_DEVICE_CUDA). The call names the op ("add",
 * "exp", "where"), its dtype, the result's dtype, the operands and the op's values, so the companion needs
 * no knowledge of the host's row kernels. The reductions' drivers (th__reduce_dim, th__reduce_scan and the
 * _all forms' th__reduce_all_on_device in ops/reduce_erased.h) hand theirs over the same way. */
#ifndef TENSOR_H
#error "core/device_ops.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

/* One elementwise op on device operands. The inputs broadcast together, as on the host. An input may be a
 * 0-d host tensor: a scalar (the _scalar forms pass their value so), read by the host when the op is queued.
 * params points to the op's values in its compute type (float for f16 and bf16, the dtype's own type for the
 * others), as its host row kernel receives them: add_alpha's alpha, addcmul's and addcdiv's value, lerp's
 * weight, clamp's {lo, hi}; NULL for the ops that have none. */
typedef struct th_device_elementwise {
    const char *op;             /* the op's name, as in its typed name: "add" (th_f32_add), "lt", "where" */
    th_dtype dtype;             /* the typed name's dtype; where's a and b (cond is bool) */
    th_dtype out_dtype;         /* dtype, or TH_BOOL for comparisons and logical ops */
    int nin;                    /* 1 to 3 */
    const th_tensor *const *in; /* in[0..nin-1] */
    const void *params;
} th_device_elementwise;

/* One matrix product on device operands: op is the product's kind ("dot", "mv", "mm", "bmm", "matmul",
 * "outer"), with the same shape rules as on the host; the fused forms (addmm: beta*bias + alpha*(a @ b)) pass
 * bias, the plain ones NULL. alpha and beta point to values of the dtype's element type (th_float16 for f16);
 * the plain forms pass 1 and 1, and a beta of 0 means bias is not read (NaN in it does not reach the
 * result). */
typedef struct th_device_product {
    const char *op;
    th_dtype dtype;
    const th_tensor *a, *b;
    const th_tensor *bias;
    const void *alpha, *beta;
} th_device_product;

/* One reduction or scan of a device tensor, named as in its typed name: "sum", "prod", "mean", "var", "std",
 * "logsumexp", "norm", "max", "min", "argmax", "argmin", "all", "any", and the scans "cumsum" and "cumprod".
 * Semantics, results and their dtypes are the host's (docs/reductions.md). The host has already checked what
 * it can without reading memory: the dtype, dim's range, an empty reduction of an op without identity (max,
 * min, arg*, norm with p = -inf), the outs (dtype, shape, writable, no two elements at one address), and that
 * in and every out are on one device. */
typedef struct th_device_reduce {
    const char *op;
    th_dtype dtype;      /* in's: the typed name's */
    th_dtype out_dtype;  /* the values': dtype; bool for all and any; the real dtype of its precision for a
                          * complex norm; int64 for argmax and argmin, whose only result is the indices */
    const th_tensor *in;
    int dim;             /* the reduced dim, 0..ndim-1 (0 for a 0-d in: its one element); -1: every element
                          * (the _all forms, a 0-d result) */
    bool keepdim;        /* dim kept with size 1 (false for dim -1); scans: false, their result has in's shape */
    bool values;         /* the values are wanted (all but argmax and argmin) */
    bool indices;        /* the int64 indices are wanted: argmax, argmin, max_dim and min_dim asked for them;
                          * along dim, or for dim -1 the row-major position; the first occurrence, NaN first */
    double p;            /* norm's order as the user gave it (0, 1, 2, +-INFINITY or any other); else 0 */
    int64_t correction;  /* var's and std's divisor is max(0, n - correction); else 0 */
} th_device_reduce;
/* One indexing op on device operands, named as in its typed name: "index_select", "gather", "scatter",
 * "scatter_add", "masked_fill", "masked_select", "nonzero", "take", "put" (ops/index.h has their semantics).
 * The host has checked what it can without reading memory: index is int64 and mask bool, src of dtype, the
 * shapes and dim (wrapped) as the op requires, out's dtype, shape, writability and self-overlap, every view
 * inside its storage, and that every tensor is on one device (none on the host, not even a 0-d one). The
 * index values are the companion's to check, before anything is written: one outside [-size, size) fails
 * with TH_ERR_RANGE, as on the host. */
typedef struct th_device_index {
    const char *op;
    th_dtype dtype;          /* the typed name's: self's, src's and the result's (nonzero's result is int64) */
    const th_tensor *self;   /* the tensor indexed; for scatter, scatter_add and put, the one written (a copy of it
                              * when out is NULL) */
    const th_tensor *index;  /* int64; NULL for masked_fill, masked_select and nonzero */
    const th_tensor *mask;   /* bool: masked_fill and masked_select; else NULL */
    const th_tensor *src;    /* the values of scatter, scatter_add and put; else NULL */
    int dim;                 /* index_select, gather, scatter, scatter_add: 0..ndim-1 (0 for a 0-d self); else 0 */
    const void *value;       /* masked_fill's: one element of dtype in host memory; else NULL */
    bool accumulate;         /* put: add into self (every index counts) rather than write */
} th_device_index;

/* One draw of an elementwise sampler into out, device memory of any strides (the _inplace forms, and the new
 * tensors of a default allocator that hands out device memory). The host has checked the parameters and out
 * (dtype, writable, no two elements at one address) and reserved the draw's blocks from the generator, as for a
 * host tensor: element i of out in row-major order gets the sampler's transform of Philox4x32-10 block
 * offset + i under key seed, computed by ops/philox.h's functions, so the values are the host's for the same
 * generator state. */
typedef struct th_device_random {
    const char *op; /* the sampler, as in its typed name: "uniform" (th_f32_uniform_inplace), "normal",
                     * "exponential", "bernoulli", "randint" */
    th_dtype dtype; /* out's */
    uint64_t seed, offset;
    double a, b;  /* uniform: lo, hi; normal: mean, std; exponential: lambda; bernoulli: p */
    double top;   /* uniform: the largest value of dtype below hi (what a value that rounds up to hi becomes) */
    int64_t lo;   /* randint: the lower bound */
    uint64_t range; /* randint: hi - lo as uint64 (0 stands for 2^64) */
} th_device_random;

/* What a companion does for its device type. Each function records its own errors (naming fn, the public
 * function the user called) and returns NULL on error. A NULL member refuses that family with
 * TH_ERR_UNSUPPORTED. */
typedef struct th_device_ops {
    const char *name; /* "cuda": messages say which companion refused */
    /* out NULL: a new result of call->out_dtype and the broadcast shape on the inputs' device. Otherwise out
     * (on that device, of that shape and dtype; it may be an input, for the _inplace forms) is written and a
     * new reference to it returned. */
    th_tensor *(*elementwise)(void *ctx, const char *fn, th_tensor *out, const th_device_elementwise *call);
    /* out NULL: a new result on the operands' device; else out (for the _inplace forms, the bias) is written.
     * Shapes are the companion's to check, as the host's product checks them. */
    th_tensor *(*product)(void *ctx, const char *fn, th_tensor *out, const th_device_product *call);
    /* outs[0] receives the values (when call->values), outs[1] the indices (when call->indices); a NULL out
     * asks for a new contiguous tensor on in's device. results[0] and results[1] receive a new reference to
     * each result wanted (the out, or the new tensor); on error neither is set. An out may overlap in: the
     * result is that of in as it was before the call. Returns 0 or the status. */
    int (*reduce)(void *ctx, const char *fn, const th_device_reduce *call, th_tensor *const *outs,
                  th_tensor **results);
    void *ctx;
    /* Fills out (on the companion's device; never NULL) with the draw; 0 or the recorded status. */
    int (*random)(void *ctx, const char *fn, th_tensor *out, const th_device_random *call);
    /* out NULL: a new contiguous result on the operands' device (scatter, scatter_add, put: a copy of self with
     * the op applied). Otherwise out is written and a new reference to it returned: the _out forms' out, of the
     * result's shape, or self itself for the _inplace forms. out may overlap the inputs: the result is that of
     * the inputs as they were before the call. */
    th_tensor *(*index)(void *ctx, const char *fn, th_tensor *out, const th_device_index *call);
} th_device_ops;

/* Installs ops (NULL removes them) for every tensor whose memory is on device_type, for the whole process;
 * ops must stay valid while any thread may run an op. Returns 0, or TH_ERR_INVALID for a host device type
 * (the host needs none) or one outside 0..63. A companion registers itself (cuda/: th_cuda_init, which its
 * functions call on first use). */
TH_API int th_register_device_ops(int32_t device_type, const th_device_ops *ops);
/* The ops registered for device_type, or NULL. */
TH_API const th_device_ops *th_device_ops_of(int32_t device_type);

#else /* TH__DEFINING */

/* Process-wide, as the device memory checks: a companion serves every thread; atomic, so any thread may
 * register while others run ops. */
static _Atomic(const th_device_ops *) th__device_ops[TH__DEVICE_TYPES];

TH_API int th_register_device_ops(int32_t device_type, const th_device_ops *ops)
{
    const char *fn = "th_register_device_ops";
    if (device_type < 0 || device_type >= TH__DEVICE_TYPES)
        return th__fail(TH_ERR_INVALID, fn, "device type %d is outside 0..%d", (int)device_type, TH__DEVICE_TYPES - 1);
    if (th_device_is_host((th_device){device_type, 0}))
        return th__fail(TH_ERR_INVALID, fn, "device type %d is host memory, which the host's own ops serve",
                        (int)device_type);
    atomic_store(&th__device_ops[device_type], ops);
    return TH_OK;
}

TH_API const th_device_ops *th_device_ops_of(int32_t device_type)
{
    if (device_type < 0 || device_type >= TH__DEVICE_TYPES) return NULL;
    return atomic_load(&th__device_ops[device_type]);
}

/* Whether operand t takes part on the device: device memory does; a 0-d host tensor beside device operands
 * is a scalar; any other host tensor cannot be read by a device kernel. */
TH__MAYBE_UNUSED static bool th__is_host_scalar(const th_tensor *t) { return t->ndim == 0 && th_device_is_host(t->storage->device); }

/* The device every operand of an op is on, or an error: two devices, or a host tensor (other than a 0-d
 * scalar input) among device ones. out may be NULL. Inputs are non-NULL. */
TH__MAYBE_UNUSED static int th__device_of_operands(const char *fn, const th_tensor *out, int nin, const th_tensor *const *in,
                                  th_device *where)
{
    const th_tensor *first = out;
    int first_index = 0; /* 0: out, i + 1: input i */
    for (int i = 0; !first && i < nin; i++)
        if (!th__is_host_scalar(in[i])) {
            first = in[i];
            first_index = i + 1;
        }
    if (!first) first = in[0], first_index = 1;
    const th_device d = first->storage->device;
    for (int i = -1; i < nin; i++) {
        const th_tensor *t = i < 0 ? out : in[i];
        if (!t || (i >= 0 && th__is_host_scalar(t) && !th_device_is_host(d))) continue;
        th_device e = t->storage->device;
        if (e.type != d.type || e.index != d.index) {
            char a[24] = "out", b[24] = "out";
            if (first_index) snprintf(a, sizeof a, "operand %d", first_index);
            if (i >= 0) snprintf(b, sizeof b, "operand %d", i + 1);
            return th__fail(TH_ERR_DEVICE, fn, "%s is on device %d:%d and %s on device %d:%d: an op's tensors must "
                            "share one device (copy one over first)", a, (int)d.type, (int)d.index, b, (int)e.type,
                            (int)e.index);
        }
    }
    *where = d;
    return TH_OK;
}

/* The registered ops of device d for fn, or NULL with the error recorded. */
TH__MAYBE_UNUSED static const th_device_ops *th__device_ops_for(const char *fn, th_device d)
{
    const th_device_ops *ops = th_device_ops_of(d.type);
    if (!ops)
        th__fail(TH_ERR_DEVICE, fn, "the tensors are on device type %d, which the host cannot touch and no "
                 "companion has registered ops for (link cuda/'s th_cuda and call th_cuda_init for CUDA memory)",
                 (int)d.type);
    return ops;
}

#endif /* TH__DEFINING */
