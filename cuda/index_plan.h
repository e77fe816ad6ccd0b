/* cuda/index_plan.h: the indexing ops on the device (index_select, gather, take, scatter, scatter_add,
 * masked_fill), their index math written once in plain C for the host and the device.
 *
 * Every op is a walk over a device iteration plan (cuda/plan.h) plus one step the plan cannot express: an
 * index value k read from memory moves one operand by k elements along a dim (or, for take, to flat position
 * k). The plans are built on the host from the tensors (their sizes and strides only: no memory is read), and
 * the per-element steps below are what the kernels of cuda/index_kernels.cu run; tests/cuda/test_cuda_indexing.c
 * runs the same steps over host buffers against the CPU's ops.
 *
 * scatter and scatter_add: every index element names one target element, and several may name the same one.
 * The CPU writes them in its iteration order, in which the contributors to one target (all in one line of the
 * index along dim: the same coordinates elsewhere) come in increasing position along dim; so a device thread
 * per line, walking its line in order, writes exactly what the CPU writes: the last contributor wins, and a
 * sum adds its terms in the CPU's order, giving the same bits every run without atomics. Distinct lines name
 * distinct target elements, so the threads never touch the same element. The cost: a dim along which the index
 * is long and which has few lines runs on few threads.
 *
 * An index outside [-size, size) is never followed: the per-element steps say so and the kernels then write
 * nothing; before the op's kernel runs, th__cuda_ix_first_bad's kernel finds the first such index, so that the
 * companion refuses the op with nothing written (cuda/index.c). Needs tensor.h's declarations before it. */
#ifndef TH_CUDA_INDEX_PLAN_H
#define TH_CUDA_INDEX_PLAN_H

#include "convert.h"
#include "plan.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- index values (host and device) ---------------------------------------------------------------- */

TH__HD int64_t th__cuda_ix_load(const char *p)
{
#ifdef __CUDA_ARCH__
    return *(const int64_t *)(const void *)p; /* int64 tensors on the device are 8-byte aligned */
#else
    int64_t v;
    memcpy(&v, p, sizeof v);
    return v;
#endif
}

/* Index value v into a dim of bound elements: its position (v, or v + bound for negative v), or -1 when v is
 * outside [-bound, bound). */
TH__HD int64_t th__cuda_ix_wrap(int64_t v, int64_t bound)
{
    if (v < -bound || v >= bound) return -1;
    return v < 0 ? v + bound : v;
}

/* Where position k of a strided walk lives: row-major over sizes (ndim 1: k * strides[0], no division). */
typedef struct th__cuda_ix_flat {
    int32_t ndim;                 /* innermost first; 0: every position at offset 0 */
    int64_t sizes[TH_MAX_DIMS];
    int64_t strides[TH_MAX_DIMS]; /* bytes */
} th__cuda_ix_flat;

TH__HD int64_t th__cuda_ix_flat_offset(const th__cuda_ix_flat *g, int64_t k)
{
    int64_t off = 0;
    const int last = g->ndim - 1;
    for (int q = 0; q < last; q++) {
        const int64_t n = k / g->sizes[q];
        off += (k - n * g->sizes[q]) * g->strides[q];
        k = n;
    }
    if (last >= 0) off += k * g->strides[last];
    return off;
}

/* ---- index_select, gather, take: one result element per plan element ------------------------------------ */

typedef struct th__cuda_ix_pick {
    th__cuda_plan plan;     /* the result (0), the index (1), the source with dim pinned (2; take: none) */
    th__cuda_ix_flat along; /* where index position k lies from the source element: k steps along dim, or
                             * take's flat position k */
    int64_t bound;          /* the size the index values count in */
} th__cuda_ix_pick;

TH__CUDA_STATIC_ASSERT(sizeof(th__cuda_ix_pick) < 4096, "th__cuda_ix_pick is a kernel parameter: under 4 KiB");

/* Plan element i, at offsets off (th__cuda_plan_offsets), reads the source at *src_off; false, with nothing
 * to read, when its index is out of range. */
TH__HD bool th__cuda_ix_pick_at(const th__cuda_ix_pick *p, const int64_t *off, const char *index, int64_t *src_off)
{
    const int64_t k = th__cuda_ix_wrap(th__cuda_ix_load(index + off[1]), p->bound);
    if (k < 0) return false;
    *src_off = off[2] + th__cuda_ix_flat_offset(&p->along, k);
    return true;
}

/* ---- scatter, scatter_add: one thread per line of the index along dim ---------------------------------- */

typedef struct th__cuda_ix_scatter {
    th__cuda_plan plan; /* one element per line (the index's shape with dim's size 1): the target (0), the
                         * index (1), src (2), each at the line's first element */
    int64_t len;        /* the index's size along dim: each line's length */
    int64_t step[3];    /* bytes along dim: the target's per index value, the index's and src's per position */
    int64_t bound;      /* the target's size along dim */
} th__cuda_ix_scatter;

TH__CUDA_STATIC_ASSERT(sizeof(th__cuda_ix_scatter) < 4096, "th__cuda_ix_scatter is a kernel parameter: under 4 KiB");

/* Position j (0 <= j < len) of the line at offsets off: the target element it writes (*dst_off) and the src
 * element it writes there (*src_off); false, with nothing to write, when its index is out of range. */
TH__HD bool th__cuda_ix_scatter_at(const th__cuda_ix_scatter *p, const int64_t *off, int64_t j, const char *index,
                                   int64_t *dst_off, int64_t *src_off)
{
    const int64_t k = th__cuda_ix_wrap(th__cuda_ix_load(index + off[1] + j * p->step[1]), p->bound);
    if (k < 0) return false;
    *dst_off = off[0] + k * p->step[0];
    *src_off = off[2] + j * p->step[2];
    return true;
}

/* *dst += *src for one element of dtype dt, as the host's scatter_add adds (ops/index.h): integers wrap, bool
 * is a logical or, float16 and bfloat16 add in float and round once, complex adds its parts. */
TH__HD void th__cuda_ix_add(unsigned char *dst, const unsigned char *src, int dt)
{
    switch (dt) {
    case TH_BOOL: dst[0] = (unsigned char)(dst[0] != 0 || src[0] != 0); break;
    case TH_U8: case TH_I8: dst[0] = (unsigned char)(dst[0] + src[0]); break;
    case TH_I16: { uint16_t a, b; memcpy(&a, dst, 2); memcpy(&b, src, 2); a = (uint16_t)(a + b); memcpy(dst, &a, 2); break; }
    case TH_I32: { uint32_t a, b; memcpy(&a, dst, 4); memcpy(&b, src, 4); a += b; memcpy(dst, &a, 4); break; }
    case TH_I64: { uint64_t a, b; memcpy(&a, dst, 8); memcpy(&b, src, 8); a += b; memcpy(dst, &a, 8); break; }
    case TH_F16: {
        uint16_t a, b;
        memcpy(&a, dst, 2);
        memcpy(&b, src, 2);
        a = th__cv_half_from_float(th__cv_half_to_float(a) + th__cv_half_to_float(b));
        memcpy(dst, &a, 2);
        break;
    }
    case TH_BF16: {
        uint16_t a, b;
        memcpy(&a, dst, 2);
        memcpy(&b, src, 2);
        a = th__cv_bf16_from_float(th__cv_bf16_to_float(a) + th__cv_bf16_to_float(b));
        memcpy(dst, &a, 2);
        break;
    }
    case TH_F32: case TH_C64: {
        const int n = dt == TH_C64 ? 2 : 1;
        for (int c = 0; c < n; c++) {
            float a, b;
            memcpy(&a, dst + 4 * c, 4);
            memcpy(&b, src + 4 * c, 4);
            a += b;
            memcpy(dst + 4 * c, &a, 4);
        }
        break;
    }
    default: { /* f64, c128 */
        const int n = dt == TH_C128 ? 2 : 1;
        for (int c = 0; c < n; c++) {
            double a, b;
            memcpy(&a, dst + 8 * c, 8);
            memcpy(&b, src + 8 * c, 8);
            a += b;
            memcpy(dst + 8 * c, &a, 8);
        }
        break;
    }
    }
}

/* ---- building (host): from the tensors' sizes and strides, reading no memory -------------------------- */

static inline int64_t th__cuda_ix_elsize(const th_tensor *t) { return (int64_t)th_dtype_info(th_tensor_dtype(t))->size; }

/* t as a plan operand of ndim (at most t's) dims and these sizes, with t's strides but dim d's (d < 0: none)
 * replaced by stride. */
static inline th__cuda_plan_operand th__cuda_ix_operand(const th_tensor *t, int ndim, const int64_t *sizes,
                                                        int64_t *strides, int d, int64_t stride)
{
    th__cuda_plan_operand o;
    for (int k = 0; k < ndim; k++) strides[k] = k == d ? stride : th_tensor_strides(t)[k];
    o.ndim = ndim;
    o.sizes = sizes;
    o.strides = strides;
    o.elsize = th__cuda_ix_elsize(t);
    return o;
}

/* Moving along dim d of t one element at a time (0-d t: no dim, one element). */
static inline void th__cuda_ix_along_dim(th__cuda_ix_flat *g, const th_tensor *t, int d)
{
    memset(g, 0, sizeof *g);
    if (th_tensor_ndim(t) == 0) return;
    g->ndim = 1;
    g->sizes[0] = th_tensor_sizes(t)[d];
    g->strides[0] = th_tensor_strides(t)[d] * th__cuda_ix_elsize(t);
}

/* t's flat (row-major) positions: size-1 dims dropped, and each dim merged into the one inside it where the
 * two step as one, so a contiguous t is one dim (no division per element). */
static inline void th__cuda_ix_flat_of(th__cuda_ix_flat *g, const th_tensor *t)
{
    memset(g, 0, sizeof *g);
    const int64_t es = th__cuda_ix_elsize(t);
    int n = 0;
    for (int d = th_tensor_ndim(t) - 1; d >= 0; d--) {
        const int64_t size = th_tensor_sizes(t)[d], stride = th_tensor_strides(t)[d] * es;
        if (size == 1) continue;
        if (n > 0 && stride == g->strides[n - 1] * g->sizes[n - 1]) {
            g->sizes[n - 1] *= size;
            continue;
        }
        g->sizes[n] = size;
        g->strides[n] = stride;
        n++;
    }
    g->ndim = n;
}

/* index_select: out has t's shape with dim d's size numel(index); index is 0-d or 1-d. The index becomes an
 * operand of out's shape that moves along dim d only. False when the shapes disagree (the core checked them). */
static inline bool th__cuda_ix_plan_index_select(th__cuda_ix_pick *p, const th_tensor *out, const th_tensor *t, int d,
                                                 const th_tensor *index)
{
    const int nd = th_tensor_ndim(out);
    if (nd != th_tensor_ndim(t)) return false;
    int64_t ostr[TH_MAX_DIMS], xstr[TH_MAX_DIMS], sstr[TH_MAX_DIMS];
    const int64_t xstep = th_tensor_ndim(index) > 0 ? th_tensor_strides(index)[0] : 0;
    th__cuda_plan_operand o[3];
    o[0] = th__cuda_ix_operand(out, nd, th_tensor_sizes(out), ostr, -1, 0);
    for (int k = 0; k < nd; k++) xstr[k] = k == d ? xstep : 0;
    o[1].ndim = nd; /* index's own dims are not out's: built by hand */
    o[1].sizes = th_tensor_sizes(out);
    o[1].strides = xstr;
    o[1].elsize = 8;
    o[2] = th__cuda_ix_operand(t, nd, th_tensor_sizes(out), sstr, d, 0);
    th__cuda_ix_along_dim(&p->along, t, d);
    p->bound = nd > 0 ? th_tensor_sizes(t)[d] : 1;
    return th__cuda_plan_elementwise_arrays(&p->plan, 3, o);
}

/* gather: out and index have one shape; t is read with dim d pinned, over index's shape. */
static inline bool th__cuda_ix_plan_gather(th__cuda_ix_pick *p, const th_tensor *out, const th_tensor *t, int d,
                                           const th_tensor *index)
{
    const int nd = th_tensor_ndim(index);
    if (nd != th_tensor_ndim(t)) return false;
    int64_t ostr[TH_MAX_DIMS], xstr[TH_MAX_DIMS], sstr[TH_MAX_DIMS];
    th__cuda_plan_operand o[3];
    o[0] = th__cuda_ix_operand(out, th_tensor_ndim(out), th_tensor_sizes(out), ostr, -1, 0);
    o[1] = th__cuda_ix_operand(index, nd, th_tensor_sizes(index), xstr, -1, 0);
    o[2] = th__cuda_ix_operand(t, nd, th_tensor_sizes(index), sstr, d, 0);
    th__cuda_ix_along_dim(&p->along, t, d);
    p->bound = nd > 0 ? th_tensor_sizes(t)[d] : 1;
    return th__cuda_plan_elementwise_arrays(&p->plan, 3, o);
}

/* take: out and index have one shape; index values are flat positions in t. */
static inline bool th__cuda_ix_plan_take(th__cuda_ix_pick *p, const th_tensor *out, const th_tensor *t,
                                         const th_tensor *index)
{
    int64_t ostr[TH_MAX_DIMS], xstr[TH_MAX_DIMS];
    th__cuda_plan_operand o[2];
    o[0] = th__cuda_ix_operand(out, th_tensor_ndim(out), th_tensor_sizes(out), ostr, -1, 0);
    o[1] = th__cuda_ix_operand(index, th_tensor_ndim(index), th_tensor_sizes(index), xstr, -1, 0);
    th__cuda_ix_flat_of(&p->along, t);
    p->bound = th_tensor_numel(t);
    return th__cuda_plan_elementwise_arrays(&p->plan, 2, o);
}

/* scatter and scatter_add into target along dim d: index and src have target's ndim (the core checked the
 * sizes). */
static inline bool th__cuda_ix_plan_scatter(th__cuda_ix_scatter *p, const th_tensor *target, int d,
                                            const th_tensor *index, const th_tensor *src)
{
    const int nd = th_tensor_ndim(index);
    if (nd != th_tensor_ndim(target) || nd != th_tensor_ndim(src)) return false;
    int64_t lines[TH_MAX_DIMS], tstr[TH_MAX_DIMS], xstr[TH_MAX_DIMS], sstr[TH_MAX_DIMS];
    memcpy(lines, th_tensor_sizes(index), (size_t)nd * sizeof *lines);
    if (nd > 0) lines[d] = 1;
    th__cuda_plan_operand o[3];
    o[0] = th__cuda_ix_operand(target, nd, lines, tstr, -1, 0);
    o[1] = th__cuda_ix_operand(index, nd, lines, xstr, -1, 0);
    o[2] = th__cuda_ix_operand(src, nd, lines, sstr, -1, 0);
    p->len = nd > 0 ? th_tensor_sizes(index)[d] : 1;
    p->step[0] = nd > 0 ? th_tensor_strides(target)[d] * th__cuda_ix_elsize(target) : 0;
    p->step[1] = nd > 0 ? th_tensor_strides(index)[d] * 8 : 0;
    p->step[2] = nd > 0 ? th_tensor_strides(src)[d] * th__cuda_ix_elsize(src) : 0;
    p->bound = nd > 0 ? th_tensor_sizes(target)[d] : 1;
    return th__cuda_plan_elementwise_arrays(&p->plan, 3, o);
}

/* ---- the kernels' launchers (cuda/index_kernels.cu) ------------------------------------------------------
 * Each queues its work on stream (a cudaStream_t) and returns 0 or the launch's cudaError_t value. */

/* *first_bad (device memory, set to UINT64_MAX before) becomes the lowest plan element of index (a plan of the
 * index alone) whose value is outside [-bound, bound), if any. */
int th__cuda_ix_launch_check(const th__cuda_plan *plan, const void *index, int64_t bound, unsigned long long *first_bad,
                             void *stream);
/* out[i] = the source element picked by index[i], for elsize-byte elements (src unused by take). */
int th__cuda_ix_launch_pick(const th__cuda_ix_pick *p, void *out, const void *index, const void *src, int elsize,
                            void *stream);
/* target[index[j]] = src[j] along each line, or (add) += by th__cuda_ix_add for dtype. */
int th__cuda_ix_launch_scatter(const th__cuda_ix_scatter *p, void *target, const void *index, const void *src, int dtype,
                               bool add, void *stream);
/* out[i] = value (elsize bytes, host memory, passed with the launch) where mask[i] is not 0: plan (out, mask). */
int th__cuda_ix_launch_masked_fill(const th__cuda_plan *plan, void *out, const void *mask, const void *value, int elsize,
                                   void *stream);

#ifdef __cplusplus
}
#endif

#endif
