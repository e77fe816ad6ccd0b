/* cuda/plan.h: the device iteration plan, the CUDA twin of the CPU engine (core/iter.h), written once in plain
 * C for the host and the device.
 *
 * Elementwise: th__cuda_plan describes a loop over the n elements of an output and up to TH_CUDA_PLAN_MAX_OPS - 1
 * inputs broadcast to it, as the CPU engine plans it: size-1 dims dropped, dims ordered so dim 0 (the innermost)
 * is the output's smallest stride, neighbours contiguous in every operand merged. Element i (0 <= i < numel)
 * of operand op lives at data[op] + off[op], with off from th__cuda_plan_offsets; consecutive i walk the output's
 * memory as closely as its layout allows, which is what coalesces a warp's accesses. The data pointers are not
 * in the plan: the launcher passes them beside it (they are per call; a plan can be kept and reused), each the
 * tensor's th_tensor_data (storage plus offset), which negative strides count back from.
 *
 * Reductions: th__cuda_reduce_plan splits an input into two index spaces: the output space (the kept dims,
 * ordered and merged like an elementwise plan over (out, in)) and the reduced space (the reduced dims, merged but
 * never reordered). A kernel maps output element o to its two base offsets, then walks the reduced elements
 * j = 0, 1, ... numel_red - 1, which is row-major over the reduced dims in the input's logical order whatever
 * the input's strides: one fixed order, so a float reduction gives the same bits on every run and for every
 * layout of the same values.
 *
 * 32-bit index math (use32) when every index and every partial byte offset fits in int32: a 32-bit divide is
 * several times cheaper on a GPU than a 64-bit one, and the 32-bit path replaces even that by a multiply
 * (th__cuda_div32). The host tests (tests/cuda/test_cuda_plan.c) run every function here over host buffers
 * against the CPU library's own results. Needs tensor.h's declarations before it. */
#ifndef TH_CUDA_PLAN_H
#define TH_CUDA_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#ifndef TH__HD
#ifdef __CUDACC__
#define TH__HD static inline __host__ __device__
#else
#define TH__HD static inline
#endif
#endif

/* A constant trip count lets nvcc keep the per-operand offsets in registers rather than local memory. Device
 * passes only: the host compiler under nvcc does not know the pragma. */
#ifdef __CUDA_ARCH__
#define TH__CUDA_UNROLL _Pragma("unroll")
#else
#define TH__CUDA_UNROLL
#endif

/* Operand 0 is the output: 4 fits where(cond, a, b) and addcmul(a, t1, t2) with their out. Fixed (not a user
 * option) because host and device code must agree on the struct's layout. */
#define TH_CUDA_PLAN_MAX_OPS 4

/* A reduction's dims as a mask: bit d for input dim d; this value for every dim. */
#define TH_CUDA_REDUCE_ALL UINT32_MAX

#ifdef __cplusplus
#define TH__CUDA_STATIC_ASSERT(cond, msg) static_assert(cond, msg)
#else
#define TH__CUDA_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#endif

TH__CUDA_STATIC_ASSERT(TH_MAX_DIMS < 32, "a reduction's dims are a 32-bit mask");

/* ---- fast division in 32 bits -------------------------------------------------------------------------- */

/* n / d for 0 <= n <= INT32_MAX and 1 <= d <= INT32_MAX, from d's magic and shift (th__cuda_div32_init): with
 * s = ceil(log2 d) and M = 2^32 + magic = floor(2^(32+s) / d) + 1, n * M / 2^(32+s) exceeds n / d by less than
 * n * d / (d * 2^(32+s)) < 1 / d, too little to reach the next integer; hi + n cannot wrap since hi <= n < 2^31. */
TH__HD uint32_t th__cuda_div32(uint32_t n, uint32_t magic, unsigned shift)
{
#ifdef __CUDA_ARCH__
    uint32_t hi = __umulhi(n, magic);
#else
    uint32_t hi = (uint32_t)(((uint64_t)n * magic) >> 32);
#endif
    return (hi + n) >> shift;
}

static inline void th__cuda_div32_init(uint32_t d, uint32_t *magic, uint8_t *shift)
{
    unsigned s = 0;
    while (s < 31 && ((uint32_t)1 << s) < d) s++;
    /* 2^s - d < d <= 2^31, so the product stays below 2^63 and the quotient below 2^32 - 1. */
    *magic = (uint32_t)((((uint64_t)1 << s) - d) * ((uint64_t)1 << 32) / d + 1);
    *shift = (uint8_t)s;
}

/* ---- the plans ----------------------------------------------------------------------------------------- */

/* 744 bytes with TH_MAX_DIMS 16: kernel parameters must stay under CUDA's 4 KiB. */
typedef struct th__cuda_plan {
    int32_t ndim; /* after merging, dim 0 innermost; 0 when numel is 0 or 1 */
    int32_t nops;
    bool use32; /* numel, and every operand's byte offsets, fit in int32 */
    int64_t numel;
    int64_t sizes[TH_MAX_DIMS];
    int64_t strides[TH_MAX_DIMS][TH_CUDA_PLAN_MAX_OPS]; /* bytes; 0 in broadcast dims and for unused operands */
    uint32_t magic[TH_MAX_DIMS];                        /* division by sizes[k] when use32 */
    uint8_t shift[TH_MAX_DIMS];
} th__cuda_plan;

TH__CUDA_STATIC_ASSERT(sizeof(th__cuda_plan) < 4096, "th__cuda_plan is a kernel parameter: under 4 KiB");

/* 496 bytes with TH_MAX_DIMS 16. Both spaces share the arrays: a dim is kept or reduced, never both. */
typedef struct th__cuda_reduce_plan {
    int32_t ndim_out; /* dims [0, ndim_out): the output space, dim 0 innermost */
    int32_t ndim_red; /* dims [ndim_out, ndim_out + ndim_red): the reduced space, its first dim innermost */
    bool use32;
    int64_t numel_out, numel_red; /* numel_red 0: every output is the reduction's identity */
    int64_t sizes[TH_MAX_DIMS];
    int64_t in_strides[TH_MAX_DIMS];  /* bytes */
    int64_t out_strides[TH_MAX_DIMS]; /* bytes; 0 in the reduced space */
    uint32_t magic[TH_MAX_DIMS];
    uint8_t shift[TH_MAX_DIMS];
} th__cuda_reduce_plan;

TH__CUDA_STATIC_ASSERT(sizeof(th__cuda_reduce_plan) < 4096, "th__cuda_reduce_plan is a kernel parameter: under 4 KiB");

/* ---- offsets (host and device) ------------------------------------------------------------------------- */

/* The byte offset of element i (0 <= i < numel) in every operand; off[op] is 0 for op >= nops. The outermost
 * dim takes what is left of i without a divide. */
TH__HD void th__cuda_plan_offsets(const th__cuda_plan *p, int64_t i, int64_t *off)
{
    TH__CUDA_UNROLL
    for (int op = 0; op < TH_CUDA_PLAN_MAX_OPS; op++) off[op] = 0;
    const int last = p->ndim - 1;
    for (int k = 0; k < last; k++) {
        const int64_t q = i / p->sizes[k];
        const int64_t idx = i - q * p->sizes[k];
        i = q;
        TH__CUDA_UNROLL
        for (int op = 0; op < TH_CUDA_PLAN_MAX_OPS; op++) off[op] += idx * p->strides[k][op];
    }
    if (last >= 0) {
        TH__CUDA_UNROLL
        for (int op = 0; op < TH_CUDA_PLAN_MAX_OPS; op++) off[op] += i * p->strides[last][op];
    }
}

/* The same in 32 bits, for plans with use32: no product or partial sum can leave int32 then, since the sum of
 * every |stride| * (size - 1) is in range. */
TH__HD void th__cuda_plan_offsets32(const th__cuda_plan *p, int32_t i, int32_t *off)
{
    TH__CUDA_UNROLL
    for (int op = 0; op < TH_CUDA_PLAN_MAX_OPS; op++) off[op] = 0;
    uint32_t n = (uint32_t)i;
    const int last = p->ndim - 1;
    for (int k = 0; k < last; k++) {
        const uint32_t q = th__cuda_div32(n, p->magic[k], p->shift[k]);
        const int32_t idx = (int32_t)(n - q * (uint32_t)p->sizes[k]);
        n = q;
        TH__CUDA_UNROLL
        for (int op = 0; op < TH_CUDA_PLAN_MAX_OPS; op++) off[op] += idx * (int32_t)p->strides[k][op];
    }
    if (last >= 0) {
        TH__CUDA_UNROLL
        for (int op = 0; op < TH_CUDA_PLAN_MAX_OPS; op++) off[op] += (int32_t)n * (int32_t)p->strides[last][op];
    }
}

/* Output element o (0 <= o < numel_out): its byte offset in the output and where its reduced elements start in
 * the input. */
TH__HD void th__cuda_reduce_out_offsets(const th__cuda_reduce_plan *p, int64_t o, int64_t *out_off, int64_t *in_off)
{
    int64_t oo = 0, io = 0;
    const int last = p->ndim_out - 1;
    for (int k = 0; k < last; k++) {
        const int64_t q = o / p->sizes[k];
        const int64_t idx = o - q * p->sizes[k];
        o = q;
        oo += idx * p->out_strides[k];
        io += idx * p->in_strides[k];
    }
    if (last >= 0) {
        oo += o * p->out_strides[last];
        io += o * p->in_strides[last];
    }
    *out_off = oo;
    *in_off = io;
}

/* Reduced element j (0 <= j < numel_red, the fixed order): its byte offset from the output element's in_off. */
TH__HD int64_t th__cuda_reduce_in_offset(const th__cuda_reduce_plan *p, int64_t j)
{
    int64_t io = 0;
    const int first = p->ndim_out, last = p->ndim_out + p->ndim_red - 1;
    for (int k = first; k < last; k++) {
        const int64_t q = j / p->sizes[k];
        io += (j - q * p->sizes[k]) * p->in_strides[k];
        j = q;
    }
    if (last >= first) io += j * p->in_strides[last];
    return io;
}

TH__HD void th__cuda_reduce_out_offsets32(const th__cuda_reduce_plan *p, int32_t o, int32_t *out_off, int32_t *in_off)
{
    int32_t oo = 0, io = 0;
    uint32_t n = (uint32_t)o;
    const int last = p->ndim_out - 1;
    for (int k = 0; k < last; k++) {
        const uint32_t q = th__cuda_div32(n, p->magic[k], p->shift[k]);
        const int32_t idx = (int32_t)(n - q * (uint32_t)p->sizes[k]);
        n = q;
        oo += idx * (int32_t)p->out_strides[k];
        io += idx * (int32_t)p->in_strides[k];
    }
    if (last >= 0) {
        oo += (int32_t)n * (int32_t)p->out_strides[last];
        io += (int32_t)n * (int32_t)p->in_strides[last];
    }
    *out_off = oo;
    *in_off = io;
}

TH__HD int32_t th__cuda_reduce_in_offset32(const th__cuda_reduce_plan *p, int32_t j)
{
    int32_t io = 0;
    uint32_t n = (uint32_t)j;
    const int first = p->ndim_out, last = p->ndim_out + p->ndim_red - 1;
    for (int k = first; k < last; k++) {
        const uint32_t q = th__cuda_div32(n, p->magic[k], p->shift[k]);
        io += (int32_t)(n - q * (uint32_t)p->sizes[k]) * (int32_t)p->in_strides[k];
        n = q;
    }
    if (last >= first) io += (int32_t)n * (int32_t)p->in_strides[last];
    return io;
}

/* ---- building (host) ----------------------------------------------------------------------------------- */

/* One operand as plain arrays, so the builders' decisions can be tested on shapes no memory could hold. The
 * strides count elements (as a tensor's do) and must describe memory that exists: every byte offset in int64. */
typedef struct th__cuda_plan_operand {
    int ndim;
    const int64_t *sizes;
    const int64_t *strides;
    int64_t elsize; /* bytes */
} th__cuda_plan_operand;

/* reach + |stride| * (size - 1), saturated at 2^31: only whether the total stays within int32 matters, and a
 * saturated sum cannot overflow however many dims are added. */
static inline int64_t th__cuda_reach_add(int64_t reach, int64_t size, int64_t stride)
{
    const int64_t cap = (int64_t)INT32_MAX + 1;
    const uint64_t a = stride < 0 ? 0 - (uint64_t)stride : (uint64_t)stride;
    if (size <= 1 || a == 0) return reach;
    if (reach >= cap || a >= (uint64_t)cap || size - 1 >= cap) return cap;
    const int64_t r = reach + (int64_t)a * (size - 1);
    return r > cap ? cap : r;
}

static inline int64_t th__cuda_abs64(int64_t v) { return v < 0 ? -v : v; }

/* Whether dim a belongs inside dim b: the first operand whose strides there are both nonzero and differ
 * decides, smaller inside (the CPU engine's rule, so both walk the elements in the same order). */
static inline bool th__cuda_plan_inner(const int64_t *sa, const int64_t *sb, int nops)
{
    for (int op = 0; op < nops; op++) {
        const int64_t a = th__cuda_abs64(sa[op]), b = th__cuda_abs64(sb[op]);
        if (a == 0 || b == 0 || a == b) continue;
        return a < b;
    }
    return false;
}

/* Orders dims [0, n) innermost first when sort (a stable insertion sort: equal dims keep their order), then
 * merges each dim into the one inside it when every operand steps contiguously across the two. Returns the
 * number of dims left; the rows past it are zeroed. */
static inline int th__cuda_plan_coalesce(int n, int nops, int64_t *sizes, int64_t (*strides)[TH_CUDA_PLAN_MAX_OPS],
                                         bool sort)
{
    for (int i = 1; sort && i < n; i++) {
        for (int j = i; j > 0 && th__cuda_plan_inner(strides[j], strides[j - 1], nops); j--) {
            int64_t t = sizes[j];
            sizes[j] = sizes[j - 1];
            sizes[j - 1] = t;
            for (int op = 0; op < TH_CUDA_PLAN_MAX_OPS; op++) {
                t = strides[j][op];
                strides[j][op] = strides[j - 1][op];
                strides[j - 1][op] = t;
            }
        }
    }
    int m = 0;
    for (int i = 0; i < n; i++) {
        bool merge = m > 0;
        for (int op = 0; merge && op < nops; op++) merge = strides[i][op] == strides[m - 1][op] * sizes[m - 1];
        if (merge) {
            sizes[m - 1] *= sizes[i];
            continue;
        }
        sizes[m] = sizes[i];
        for (int op = 0; op < TH_CUDA_PLAN_MAX_OPS; op++) strides[m][op] = strides[i][op];
        m++;
    }
    for (int i = m; i < n; i++) {
        sizes[i] = 0;
        for (int op = 0; op < TH_CUDA_PLAN_MAX_OPS; op++) strides[i][op] = 0;
    }
    return m;
}

static inline void th__cuda_div32_init_dims(int n, const int64_t *sizes, uint32_t *magic, uint8_t *shift)
{
    for (int k = 0; k < n; k++) th__cuda_div32_init((uint32_t)sizes[k], &magic[k], &shift[k]);
}

/* The plan of ops[0] (the output, which sets the shape) and ops[1..nops-1] broadcast to it (NumPy's rules: dims
 * align right, size 1 broadcasts with stride 0, a 0-d operand is a scalar). False, with nothing recorded, when
 * nops is outside 1..TH_CUDA_PLAN_MAX_OPS, a size is negative, or an input does not broadcast. */
static inline bool th__cuda_plan_elementwise_arrays(th__cuda_plan *p, int nops, const th__cuda_plan_operand *ops)
{
    if (nops < 1 || nops > TH_CUDA_PLAN_MAX_OPS) return false;
    const int nd = ops[0].ndim;
    const int64_t *osz = ops[0].sizes;
    if (nd < 0 || nd > TH_MAX_DIMS) return false;
    int64_t numel = 1;
    for (int d = 0; d < nd; d++) {
        if (osz[d] < 0) return false;
        numel *= osz[d];
    }
    for (int op = 1; op < nops; op++) {
        const th__cuda_plan_operand *t = &ops[op];
        if (t->ndim < 0 || t->ndim > nd) return false;
        for (int d = 1; d <= t->ndim; d++) {
            const int64_t have = t->sizes[t->ndim - d], want = osz[nd - d];
            if (have != want && have != 1) return false;
        }
    }
    memset(p, 0, sizeof *p);
    p->nops = nops;
    p->numel = numel;
    if (numel == 0) {
        p->use32 = true;
        return true;
    }
    int n = 0;
    for (int d = nd - 1; d >= 0; d--) { /* the tensors' last dim is the plan's first */
        if (osz[d] == 1) continue;
        p->sizes[n] = osz[d];
        for (int op = 0; op < nops; op++) {
            const th__cuda_plan_operand *t = &ops[op];
            const int od = d - (nd - t->ndim);
            p->strides[n][op] = od < 0 || t->sizes[od] == 1 ? 0 : t->strides[od] * t->elsize;
        }
        n++;
    }
    p->ndim = th__cuda_plan_coalesce(n, nops, p->sizes, p->strides, true);
    bool fits = numel <= INT32_MAX;
    for (int op = 0; fits && op < nops; op++) {
        int64_t reach = 0;
        for (int k = 0; k < p->ndim; k++) reach = th__cuda_reach_add(reach, p->sizes[k], p->strides[k][op]);
        fits = reach + ops[op].elsize <= INT32_MAX;
    }
    p->use32 = fits;
    if (fits) th__cuda_div32_init_dims(p->ndim, p->sizes, p->magic, p->shift);
    return true;
}

/* The plan of reducing in over the dims in mask (bit d for dim d, or TH_CUDA_REDUCE_ALL) into out, which holds
 * the kept dims in order, with the reduced ones either removed or kept with size 1 (keepdim: told apart by out's
 * ndim). False, with nothing recorded, for a mask bit past in's dims or an out whose shape is not the result's. */
static inline bool th__cuda_plan_reduce_arrays(th__cuda_reduce_plan *p, const th__cuda_plan_operand *in, uint32_t mask,
                                               const th__cuda_plan_operand *out)
{
    const int n = in->ndim;
    if (n < 0 || n > TH_MAX_DIMS) return false;
    const uint32_t every = ((uint32_t)1 << n) - 1;
    if (mask == TH_CUDA_REDUCE_ALL) mask = every;
    if (mask & ~every) return false;
    int nred = 0;
    for (int d = 0; d < n; d++) nred += (int)((mask >> d) & 1);
    const bool keepdim = out->ndim == n;
    if (!keepdim && out->ndim != n - nred) return false;
    int odim[TH_MAX_DIMS]; /* out's dim for each kept dim of in */
    int64_t numel_out = 1, numel_red = 1;
    for (int d = 0, od = 0; d < n; d++) {
        if (in->sizes[d] < 0) return false;
        if ((mask >> d) & 1) {
            numel_red *= in->sizes[d];
            if (keepdim && out->sizes[od++] != 1) return false;
            continue;
        }
        numel_out *= in->sizes[d];
        if (out->sizes[od] != in->sizes[d]) return false;
        odim[d] = od++;
    }
    memset(p, 0, sizeof *p);
    p->numel_out = numel_out;
    p->numel_red = numel_red;
    /* Each space is gathered innermost first as an elementwise plan's dims: (out, in) for the output space,
     * (in) alone for the reduced one, which is merged but not sorted so that its walk stays row-major. */
    int64_t sizes[TH_MAX_DIMS], strides[TH_MAX_DIMS][TH_CUDA_PLAN_MAX_OPS];
    int64_t rsizes[TH_MAX_DIMS], rstrides[TH_MAX_DIMS][TH_CUDA_PLAN_MAX_OPS];
    memset(strides, 0, sizeof strides);
    memset(rstrides, 0, sizeof rstrides);
    int no = 0, nr = 0;
    for (int d = n - 1; d >= 0; d--) {
        if (in->sizes[d] == 1) continue;
        if ((mask >> d) & 1) {
            rsizes[nr] = in->sizes[d];
            rstrides[nr++][0] = in->strides[d] * in->elsize;
        } else {
            sizes[no] = in->sizes[d];
            strides[no][0] = out->strides[odim[d]] * out->elsize;
            strides[no++][1] = in->strides[d] * in->elsize;
        }
    }
    if (numel_out > 0) {
        p->ndim_out = th__cuda_plan_coalesce(no, 2, sizes, strides, true);
        for (int k = 0; k < p->ndim_out; k++) {
            p->sizes[k] = sizes[k];
            p->out_strides[k] = strides[k][0];
            p->in_strides[k] = strides[k][1];
        }
    }
    if (numel_red > 0) {
        p->ndim_red = th__cuda_plan_coalesce(nr, 1, rsizes, rstrides, false);
        for (int k = 0; k < p->ndim_red; k++) {
            p->sizes[p->ndim_out + k] = rsizes[k];
            p->in_strides[p->ndim_out + k] = rstrides[k][0];
        }
    }
    const int total = p->ndim_out + p->ndim_red;
    int64_t in_reach = 0, out_reach = 0;
    for (int k = 0; k < total; k++) {
        in_reach = th__cuda_reach_add(in_reach, p->sizes[k], p->in_strides[k]);
        out_reach = th__cuda_reach_add(out_reach, p->sizes[k], p->out_strides[k]);
    }
    p->use32 = numel_out <= INT32_MAX && numel_red <= INT32_MAX && in_reach + in->elsize <= INT32_MAX &&
               out_reach + out->elsize <= INT32_MAX;
    if (p->use32) th__cuda_div32_init_dims(total, p->sizes, p->magic, p->shift);
    return true;
}

/* ---- from tensors -------------------------------------------------------------------------------------- */

static inline th__cuda_plan_operand th__cuda_plan_operand_of(const th_tensor *t)
{
    th__cuda_plan_operand o;
    o.ndim = th_tensor_ndim(t);
    o.sizes = th_tensor_sizes(t);
    o.strides = th_tensor_strides(t);
    o.elsize = (int64_t)th_dtype_info(th_tensor_dtype(t))->size;
    return o;
}

/* The elementwise plan of ops[0] (the output) and the inputs ops[1..nops-1], of any dtypes; offsets count from
 * each tensor's th_tensor_data. False (no error recorded) when the shapes do not broadcast: the caller, which
 * knows the op's name, records the error. */
static inline bool th__cuda_plan_elementwise(th__cuda_plan *p, int nops, const th_tensor *const *ops)
{
    th__cuda_plan_operand o[TH_CUDA_PLAN_MAX_OPS];
    if (nops < 1 || nops > TH_CUDA_PLAN_MAX_OPS) return false;
    for (int op = 0; op < nops; op++) o[op] = th__cuda_plan_operand_of(ops[op]);
    return th__cuda_plan_elementwise_arrays(p, nops, o);
}

/* The plan of reducing in over the dims in mask (non-negative dims; TH_CUDA_REDUCE_ALL for all) into out. */
static inline bool th__cuda_plan_reduce(th__cuda_reduce_plan *p, const th_tensor *in, uint32_t mask,
                                        const th_tensor *out)
{
    const th__cuda_plan_operand i = th__cuda_plan_operand_of(in), o = th__cuda_plan_operand_of(out);
    return th__cuda_plan_reduce_arrays(p, &i, mask, &o);
}

#endif
