/* ops/nn_erased.h: the NN family's work, written once for f32, f64, f16 and bf16: softmax and log_softmax
 * over a dim, layer_norm and rms_norm over trailing dims. ops/nn.h holds the typed front doors, which check
 * the dtypes and call th__nn_run here. Included twice by tensor.h: declarations (none are public) and, in the
 * implementation, the definitions.
 *
 * The row engine: a call is a set of rows (the dim softmax works along, the trailing dims a norm works over,
 * merged into one stride) and the outer dims that number them. Threads take consecutive runs of rows
 * (core/thread.h); each row is computed alone, so the result is the same bits for any thread count. A row of
 * f32 (f64) with unit stride is worked on in place; any other row is loaded into a float (double) buffer and
 * its result stored back, so f16 and bf16 compute in float. The row kernels are ops/nn_rows.h. */
#ifndef TH__DEFINING

/* The functions are th_<sfx>_softmax and the others in ops/nn.h; the public types are rope's layout and the
 * losses' options. */

/* How th_<sfx>_rope pairs the features it rotates (the first 2h of the last dim; h is cos's last size). */
typedef enum th_rope_layout {
    TH_ROPE_HALVES,     /* feature i with i + h (GPT-NeoX, LLaMA in Hugging Face's rotate_half) */
    TH_ROPE_INTERLEAVED /* feature 2i with 2i + 1 (GPT-J, LLaMA's original complex-number form) */
} th_rope_layout;

/* How nll_loss and cross_entropy reduce the per-element losses (torch's reduction='mean', 'sum', 'none'). */
typedef enum th_reduction {
    TH_REDUCTION_MEAN, /* the sum divided by the sum of the counted targets' class weights (their count) */
    TH_REDUCTION_SUM,
    TH_REDUCTION_NONE  /* one loss per target, in the target's shape */
} th_reduction;

/* The options of nll_loss and cross_entropy; zero (or a NULL pointer) means the default: mean, no target
 * ignored, no label smoothing. PyTorch's default ignore_index -100 is {.use_ignore_index = true,
 * .ignore_index = -100}. */
typedef struct th_loss_opts {
    th_reduction reduction;
    bool use_ignore_index;   /* targets equal to ignore_index count for nothing (loss 0, weight 0) */
    int64_t ignore_index;
    double label_smoothing;  /* cross_entropy only: in [0, 1] */
} th_loss_opts;

#else

#include "activation_math.h" /* the gated units' silu and gelu (tanh form) are the elementwise ops' own */

/* The row kernels' attribute: TH__HOT's -O3 and, for gcc, no trapping math: without it gcc keeps the compares
 * of the clamp and the maximum as branches (a compare might raise an exception nobody tests) and the loops
 * scalar. The results are the same bits. */
#if defined(__GNUC__) && !defined(__clang__)
#define TH__NN_HOT __attribute__((optimize("O3", "no-trapping-math")))
#else
#define TH__NN_HOT TH__HOT
#endif

/* The kernels for each compute type, compiled for the x86-64 baseline and (as core/vecmath.h's loops) for
 * AVX2 and AVX-512, picked per call by th__simd_level(). Without FMA contraction (ISO C mode) every copy gives
 * the same bits but for the exp's own fused or unfused steps. */
#define TH__NN_T float
#define TH__NN_F(x) th__nn_f32_##x
#define TH__NN_TARGET
#define TH__NN_EXP th__vec_exp_f32
#define TH__NN_LOW (-256.0)
#include "nn_rows.h"
#define TH__NN_T double
#define TH__NN_F(x) th__nn_f64_##x
#define TH__NN_TARGET
#define TH__NN_EXP th__vec_exp_f64
#define TH__NN_LOW (-2048.0)
#include "nn_rows.h"
#ifdef TH__VEC_X86
#define TH__NN_T float
#define TH__NN_F(x) th__nn_f32_avx2_##x
#define TH__NN_TARGET TH__VEC_AVX2
#define TH__NN_EXP th__vec_exp_f32
#define TH__NN_LOW (-256.0)
#include "nn_rows.h"
#define TH__NN_T double
#define TH__NN_F(x) th__nn_f64_avx2_##x
#define TH__NN_TARGET TH__VEC_AVX2
#define TH__NN_EXP th__vec_exp_f64
#define TH__NN_LOW (-2048.0)
#include "nn_rows.h"
#define TH__NN_T float
#define TH__NN_F(x) th__nn_f32_avx512_##x
#define TH__NN_TARGET TH__VEC_AVX512
#define TH__NN_EXP th__vec_exp_f32
#define TH__NN_LOW (-256.0)
#include "nn_rows.h"
#define TH__NN_T double
#define TH__NN_F(x) th__nn_f64_avx512_##x
#define TH__NN_TARGET TH__VEC_AVX512
#define TH__NN_EXP th__vec_exp_f64
#define TH__NN_LOW (-2048.0)
#include "nn_rows.h"
#endif

typedef enum th__nn_op { TH__NN_SOFTMAX, TH__NN_LOG_SOFTMAX, TH__NN_LAYER_NORM, TH__NN_RMS_NORM } th__nn_op;

/* One call, as the threads see it. */
typedef struct th__nn_plan {
    th__nn_op op;
    th_dtype dtype;
    size_t es;                                          /* element size, bytes */
    int64_t n;                                          /* row length */
    int64_t xs, ys;                                     /* row strides, elements */
    int nouter;                                         /* outer dims */
    int64_t osize[TH_MAX_DIMS], oxs[TH_MAX_DIMS], oys[TH_MAX_DIMS];
    int64_t nrows;
    char *x, *y;                                        /* the first elements */
    const void *w, *b;                                  /* n contiguous float (double for f64), or NULL */
    double eps;
    int level;                                          /* th__simd_level(): which copy of the kernels */
    _Atomic int failed;                                 /* a thread could not get its buffers */
} th__nn_plan;

/* n elements at byte address src, stride s elements, of dtype dt, into float (f32, f16, bf16). */
/* Where an op that computes in ct (float for f16/bf16) writes: the result itself when it is contiguous and of ct,
 * else a new contiguous scratch tensor of ct and the result's shape, left in *tmp for the caller to copy back from
 * and release. Shared by the nn, conv, attention and resize ops. NULL with the error recorded. */
static th_tensor *th__ct_staging(const char *fn, th_tensor *result, th_dtype ct, th_tensor **tmp)
{
    if (result->dtype == ct && th_tensor_is_contiguous(result)) return result;
    return *tmp = th__tensor_empty(fn, ct, result->ndim, result->sizes);
}

static void th__nn_load_f32(float *restrict dst, const char *src, th_dtype dt, int64_t s, int64_t n)
{
    if (dt == TH_F32)
        for (int64_t i = 0; i < n; i++) dst[i] = ((const float *)(const void *)src)[i * s];
    else if (dt == TH_F16)
        for (int64_t i = 0; i < n; i++) dst[i] = th_float16_to_float(((const th_float16 *)(const void *)src)[i * s]);
    else
        for (int64_t i = 0; i < n; i++) dst[i] = th_bfloat16_to_float(((const th_bfloat16 *)(const void *)src)[i * s]);
}

static void th__nn_store_f32(char *dst, th_dtype dt, int64_t s, const float *restrict src, int64_t n)
{
    if (dt == TH_F32)
        for (int64_t i = 0; i < n; i++) ((float *)(void *)dst)[i * s] = src[i];
    else if (dt == TH_F16)
        for (int64_t i = 0; i < n; i++) ((th_float16 *)(void *)dst)[i * s] = th_float16_from_float(src[i]);
    else
        for (int64_t i = 0; i < n; i++) ((th_bfloat16 *)(void *)dst)[i * s] = th_bfloat16_from_float(src[i]);
}

/* One row through the kernel of the plan's op, in the copy for the plan's SIMD level. */
#define TH__NN_ROW(K)                                                                                                 \
    switch (p->op) {                                                                                                 \
    case TH__NN_SOFTMAX: K##softmax_row(x, y, p->n); break;                                                          \
    case TH__NN_LOG_SOFTMAX: K##log_softmax_row(x, y, p->n); break;                                                  \
    default: K##norm_row(x, y, p->n, w, b, p->eps, p->op == TH__NN_RMS_NORM);                                         \
    }

static void th__nn_f32_row(const th__nn_plan *p, const float *x, float *y)
{
    const float *w = (const float *)p->w, *b = (const float *)p->b;
    switch (p->level) {
#ifdef TH__VEC_X86
    case TH__SIMD_AVX512: TH__NN_ROW(th__nn_f32_avx512_) return;
    case TH__SIMD_AVX2: TH__NN_ROW(th__nn_f32_avx2_) return;
#endif
    default: TH__NN_ROW(th__nn_f32_)
    }
}

static void th__nn_f64_row(const th__nn_plan *p, const double *x, double *y)
{
    const double *w = (const double *)p->w, *b = (const double *)p->b;
    switch (p->level) {
#ifdef TH__VEC_X86
    case TH__SIMD_AVX512: TH__NN_ROW(th__nn_f64_avx512_) return;
    case TH__SIMD_AVX2: TH__NN_ROW(th__nn_f64_avx2_) return;
#endif
    default: TH__NN_ROW(th__nn_f64_)
    }
}
#undef TH__NN_ROW

/* Rows begin..end-1 (threads' body for th__parallel_chunks). */
static void th__nn_rows(void *ctx, int64_t begin, int64_t end)
{
    th__nn_plan *p = (th__nn_plan *)ctx;
    if (begin >= end) return;
    bool f64 = p->dtype == TH_F64, native = p->dtype == TH_F32 || f64;
    size_t cs = f64 ? sizeof(double) : sizeof(float);
    /* Buffers for rows that are not unit-stride rows of the compute type. */
    void *buf = NULL;
    if (!native || p->xs != 1 || p->ys != 1) {
        buf = malloc(2 * (size_t)p->n * cs);
        if (!buf) {
            atomic_store(&p->failed, 1);
            return;
        }
    }
    int64_t idx[TH_MAX_DIMS], ox = 0, oy = 0, r = begin;
    for (int d = p->nouter - 1; d >= 0; d--) {
        idx[d] = r % p->osize[d];
        r /= p->osize[d];
        ox += idx[d] * p->oxs[d];
        oy += idx[d] * p->oys[d];
    }
    for (int64_t row = begin; row < end; row++) {
        char *xp = p->x + ox * (int64_t)p->es, *yp = p->y + oy * (int64_t)p->es;
        bool xd = native && p->xs == 1, yd = native && p->ys == 1;
        if (f64) {
            double *bx = (double *)buf, *by = bx ? bx + p->n : NULL;
            const double *xin = xd ? (const double *)(void *)xp : bx;
            if (!xd)
                for (int64_t i = 0; i < p->n; i++) bx[i] = ((const double *)(void *)xp)[i * p->xs];
            double *yout = yd ? (double *)(void *)yp : by;
            th__nn_f64_row(p, xin, yout);
            if (!yd)
                for (int64_t i = 0; i < p->n; i++) ((double *)(void *)yp)[i * p->ys] = by[i];
        } else {
            float *bx = (float *)buf, *by = bx ? bx + p->n : NULL;
            if (!xd) th__nn_load_f32(bx, xp, p->dtype, p->xs, p->n);
            float *yout = yd ? (float *)(void *)yp : by;
            th__nn_f32_row(p, xd ? (const float *)(void *)xp : bx, yout);
            if (!yd) th__nn_store_f32(yp, p->dtype, p->ys, by, p->n);
        }
        for (int d = p->nouter - 1; d >= 0; d--) { /* the next row */
            ox += p->oxs[d];
            oy += p->oys[d];
            if (++idx[d] < p->osize[d]) break;
            ox -= idx[d] * p->oxs[d];
            oy -= idx[d] * p->oys[d];
            idx[d] = 0;
        }
    }
    free(buf);
}

/* Whether dims first..ndim-1 of t (size-1 dims aside) are one run of a single stride; *stride gets it (1
 * when every one of them has size 1). */
static bool th__nn_merges(const th_tensor *t, int first, int64_t *stride)
{
    int64_t s = 1, span = 0; /* span: the stride the next dim out must have */
    bool seen = false;
    for (int d = t->ndim - 1; d >= first; d--) {
        if (t->sizes[d] == 1) continue;
        if (!seen)
            s = t->strides[d], span = s, seen = true;
        else if (t->strides[d] != span)
            return false;
        span *= t->sizes[d];
    }
    *stride = s;
    return true;
}

/* What each op is called in messages for its parameters. */
static const char *th__nn_what(th__nn_op op) { return op == TH__NN_RMS_NORM ? "rms_norm" : "layer_norm"; }

/* The affine parameter t (weight or bias) as n contiguous elements of the compute type, retained in *keep;
 * its shape must be the normalised shape. */
static int th__nn_param(const char *fn, const char *name, const th_tensor *t, th_dtype dt, int nnorm,
                        const int64_t *nsizes, th_tensor **keep)
{
    *keep = NULL;
    if (!t) return TH_OK;
    if (!th_device_is_host(t->storage->device))
        return th__fail(TH_ERR_DEVICE, fn, "%s is on device type %d, which the host cannot touch", name,
                        (int)t->storage->device.type);
    if (th__check_shape(fn, t, name, nnorm, nsizes, "the normalized shape is")) return th_last_status();
    if (th__check_fits(fn, t)) return th_last_status();
    *keep = th__convert_new(fn, dt == TH_F64 ? TH_F64 : TH_F32, t);
    return *keep ? TH_OK : th_last_status();
}

/* The one driver: op over x into out (NULL: a new tensor). softmax and log_softmax take dim; the norms take
 * the normalised shape (nnorm trailing sizes of x), weight, bias (NULL for rms_norm) and eps. Returns the
 * result (out retained), or NULL on error. */
TH__MAYBE_UNUSED static th_tensor *th__nn_run(const char *fn, th__nn_op op, th_tensor *out, const th_tensor *x,
                                              int dim, int nnorm, const int64_t *nsizes, const th_tensor *weight,
                                              const th_tensor *bias, double eps)
{
    if (!x) return th__fail(TH_ERR_INVALID, fn, "NULL x"), NULL;
    if (!th_device_is_host(x->storage->device))
        return th__fail(TH_ERR_DEVICE, fn, "x is on device type %d, which the host cannot touch",
                        (int)x->storage->device.type),
               NULL;
    if (th__check_fits(fn, x)) return NULL;
    bool norm = op == TH__NN_LAYER_NORM || op == TH__NN_RMS_NORM;
    int first = 0; /* the row's dims are first..first+rowdims-1 */
    int rowdims;
    if (!norm) {
        if (th__wrap_dim(fn, dim, x->ndim, &first)) return NULL;
        rowdims = x->ndim > 0 ? 1 : 0;
    } else {
        if (nnorm < 1 || nnorm > x->ndim)
            return th__fail(nnorm < 1 ? TH_ERR_INVALID : TH_ERR_SHAPE, fn,
                            "the normalized shape has %d dims; x has %d and %s needs 1..%d", nnorm, x->ndim,
                            th__nn_what(op), x->ndim),
                   NULL;
        if (!nsizes) return th__fail(TH_ERR_INVALID, fn, "NULL normalized shape"), NULL;
        first = x->ndim - nnorm;
        rowdims = nnorm;
        for (int d = 0; d < nnorm; d++)
            if (nsizes[d] != x->sizes[first + d]) {
                char a[160], b[160];
                th__shape_string(x->ndim, x->sizes, a, sizeof a);
                th__shape_string(nnorm, nsizes, b, sizeof b);
                return th__fail(TH_ERR_SHAPE, fn, "x has shape %s, whose trailing dims are not the normalized shape %s",
                                a, b),
                       NULL;
            }
        if (!(eps >= 0.0) || isinf(eps))
            return th__fail(TH_ERR_INVALID, fn, "eps %g is not a finite number >= 0", eps), NULL;
    }
    th_tensor *result = th__result(fn, out, x->dtype, x->ndim, x->sizes);
    if (!result) return NULL;
    int64_t numel = th__numel(x);
    if (numel == 0) return result;

    th_tensor *w = NULL, *b = NULL, *xin = NULL, *y = result, *tmp = NULL;
    th__nn_plan *p = NULL;
    bool ok = false; /* set once every step went well */
    if (norm && (th__nn_param(fn, "weight", weight, x->dtype, nnorm, nsizes, &w) ||
                 th__nn_param(fn, "bias", bias, x->dtype, nnorm, nsizes, &b)))
        goto done;
    /* x as the rows read it: a copy where it overlaps out otherwise than exactly, or where the norm's dims do
     * not merge into one stride; out through a contiguous temporary where they do not merge there. */
    xin = th__unalias(fn, result, x);
    if (!xin) goto done;
    int64_t xs = 0, ys = 0;
    if (rowdims == 0)
        xs = ys = 0;
    else if (!norm)
        xs = xin->strides[first], ys = result->strides[first];
    else {
        if (!th__nn_merges(xin, first, &xs)) {
            th_tensor *c = th__convert_new(fn, x->dtype, xin);
            if (!c) goto done;
            th_tensor_release(xin);
            xin = c;
            th__nn_merges(xin, first, &xs);
        }
        if (!th__nn_merges(result, first, &ys)) {
            tmp = th__tensor_empty(fn, x->dtype, x->ndim, x->sizes);
            if (!tmp) goto done;
            y = tmp;
            th__nn_merges(y, first, &ys);
        }
    }
    p = (th__nn_plan *)calloc(1, sizeof *p);
    if (!p) {
        th__fail(TH_ERR_NOMEM, fn, "out of memory");
        goto done;
    }
    p->op = op;
    p->dtype = x->dtype;
    p->es = th_dtype_info(x->dtype)->size;
    p->n = 1;
    for (int d = first; d < first + rowdims; d++) p->n *= x->sizes[d];
    p->xs = xs;
    p->ys = ys;
    p->nrows = numel / p->n;
    for (int d = 0; d < x->ndim; d++) {
        if (d >= first && d < first + rowdims) continue;
        p->osize[p->nouter] = x->sizes[d];
        p->oxs[p->nouter] = xin->strides[d];
        p->oys[p->nouter] = y->strides[d];
        p->nouter++;
    }
    p->x = (char *)th_tensor_data(xin);
    p->y = (char *)th_tensor_data(y);
    p->w = w ? th_tensor_data(w) : NULL;
    p->b = b ? th_tensor_data(b) : NULL;
    p->eps = eps;
    p->level = th__simd_level();
    atomic_init(&p->failed, 0);
    th__parallel_chunks(p->nrows, th__threads_for(numel), th__nn_rows, p);
    if (atomic_load(&p->failed)) {
        th__fail(TH_ERR_NOMEM, fn, "out of memory for a row of %lld elements", (long long)p->n);
        goto done;
    }
    ok = true;
done:
    free(p);
    TH__RELEASE(w, b, xin);
    return th__op_end(fn, ok, result, tmp);
}

/* ---- group_norm and batch_norm (inference): per-channel work over (N, C, *) ----
 *
 * x is read as a contiguous copy in the compute type (x itself where it already is one and does not overlap
 * out otherwise than exactly); the result is written where it lies when it is contiguous of the compute type,
 * else into a temporary copied out at the end. Units of work are (n, group) rows for group_norm and (n, c)
 * planes for batch_norm, each computed alone in double and rounded once, taken by threads in consecutive
 * runs, so the bits do not depend on the thread count. */

typedef struct th__cn_plan {
    bool f64, group;                 /* compute type double (f64) or float; group_norm or batch_norm */
    int64_t c, inner, cg;            /* channels, elements per channel plane, channels per group */
    const void *x;                   /* the input, contiguous (N, C, inner) */
    void *y;                         /* the result, likewise */
    const void *w, *b, *m, *v;       /* C elements each (weight, bias, running mean and var) or NULL */
    double eps;
} th__cn_plan;

/* The body of th__cn_units over the compute type T. */
#define TH__CN_UNITS(T)                                                                                         \
    do {                                                                                                        \
        const T *xs = (const T *)p->x, *w = (const T *)p->w, *b = (const T *)p->b;                              \
        const T *m = (const T *)p->m, *v = (const T *)p->v;                                                     \
        T *ys = (T *)p->y;                                                                                      \
        int64_t per = p->group ? p->cg : 1; /* channels in one unit */                                          \
        for (int64_t u = begin; u < end; u++) {                                                                 \
            const T *xu = xs + u * per * p->inner;                                                              \
            T *yu = ys + u * per * p->inner;                                                                    \
            int64_t c0 = (u * per) % p->c, len = per * p->inner;                                                \
            double mean = 0, r = 1;                                                                             \
            if (p->group) {                                                                                     \
                double acc[4] = {0, 0, 0, 0};                                                                   \
                int64_t i = 0;                                                                                  \
                for (; i + 4 <= len; i += 4)                                                                    \
                    for (int j = 0; j < 4; j++) acc[j] += (double)xu[i + j];                                    \
                for (; i < len; i++) acc[0] += (double)xu[i];                                                   \
                mean = ((acc[0] + acc[2]) + (acc[1] + acc[3])) / (double)len;                                   \
                double sq[4] = {0, 0, 0, 0};                                                                    \
                for (i = 0; i + 4 <= len; i += 4)                                                               \
                    for (int j = 0; j < 4; j++) {                                                               \
                        double d = (double)xu[i + j] - mean;                                                    \
                        sq[j] += d * d;                                                                         \
                    }                                                                                           \
                for (; i < len; i++) {                                                                          \
                    double d = (double)xu[i] - mean;                                                            \
                    sq[0] += d * d;                                                                             \
                }                                                                                               \
                r = 1.0 / sqrt(((sq[0] + sq[2]) + (sq[1] + sq[3])) / (double)len + p->eps);                     \
            }                                                                                                   \
            for (int64_t k = 0; k < per; k++) {                                                                 \
                int64_t c = c0 + k;                                                                             \
                double mu = mean, rs = r;                                                                       \
                if (!p->group) mu = (double)m[c], rs = 1.0 / sqrt((double)v[c] + p->eps);                       \
                double wc = w ? (double)w[c] : 1.0, bc = b ? (double)b[c] : 0.0;                                \
                const T *xc = xu + k * p->inner;                                                                \
                T *yc = yu + k * p->inner;                                                                      \
                for (int64_t i = 0; i < p->inner; i++) yc[i] = (T)(((double)xc[i] - mu) * rs * wc + bc);       \
            }                                                                                                   \
        }                                                                                                       \
    } while (0)

/* Units begin..end-1 (threads' body for th__parallel_chunks). */
static TH__NN_HOT void th__cn_units(void *ctx, int64_t begin, int64_t end)
{
    const th__cn_plan *p = (const th__cn_plan *)ctx;
    if (p->f64)
        TH__CN_UNITS(double);
    else
        TH__CN_UNITS(float);
}
#undef TH__CN_UNITS

/* A per-channel parameter (weight, bias, running mean or var): NULL (allowed unless required), else of shape
 * (C), as a contiguous copy in the compute type ct in *keep. */
static int th__cn_param(const char *fn, const char *name, const th_tensor *t, bool required, int64_t c,
                        th_dtype ct, th_tensor **keep)
{
    *keep = NULL;
    if (!t) return required ? th__fail(TH_ERR_INVALID, fn, "NULL %s", name) : TH_OK;
    if (!th_device_is_host(t->storage->device))
        return th__fail(TH_ERR_DEVICE, fn, "%s is on device type %d, which the host cannot touch", name,
                        (int)t->storage->device.type);
    if (t->ndim != 1 || t->sizes[0] != c) {
        char a[160];
        th__shape_string(t->ndim, t->sizes, a, sizeof a);
        return th__fail(TH_ERR_SHAPE, fn, "%s has shape %s; x's %lld channels need (%lld)", name, a, (long long)c,
                        (long long)c);
    }
    if (th__check_fits(fn, t)) return th_last_status();
    *keep = th__convert_new(fn, ct, t);
    return *keep ? TH_OK : th_last_status();
}

/* group_norm (group: num_groups groups, weight and bias) or batch_norm in inference form (mean and var the
 * running statistics, weight and bias) of x (N, C, *) into out (NULL: a new tensor). Returns the result (out
 * retained), or NULL on error. */
TH__MAYBE_UNUSED static th_tensor *th__cn_run(const char *fn, bool group, th_tensor *out, const th_tensor *x,
                                              int64_t num_groups, const th_tensor *mean, const th_tensor *var,
                                              const th_tensor *weight, const th_tensor *bias, double eps)
{
    const char *what = group ? "group_norm" : "batch_norm";
    if (!x) return th__fail(TH_ERR_INVALID, fn, "NULL x"), NULL;
    if (!th_device_is_host(x->storage->device))
        return th__fail(TH_ERR_DEVICE, fn, "x is on device type %d, which the host cannot touch",
                        (int)x->storage->device.type),
               NULL;
    if (th__check_fits(fn, x)) return NULL;
    if (x->ndim < 2) {
        char a[160];
        th__shape_string(x->ndim, x->sizes, a, sizeof a);
        return th__fail(TH_ERR_SHAPE, fn, "x has shape %s (%d dims); %s takes (N, C, *), at least 2 dims", a, x->ndim,
                        what),
               NULL;
    }
    int64_t c = x->sizes[1];
    if (group) {
        if (num_groups < 1)
            return th__fail(TH_ERR_INVALID, fn, "num_groups is %lld; it must be >= 1", (long long)num_groups), NULL;
        if (c % num_groups)
            return th__fail(TH_ERR_SHAPE, fn, "num_groups %lld does not divide x's %lld channels", (long long)num_groups,
                            (long long)c),
                   NULL;
    }
    if (!(eps >= 0.0) || isinf(eps)) return th__fail(TH_ERR_INVALID, fn, "eps %g is not a finite number >= 0", eps), NULL;
    bool f64 = x->dtype == TH_F64;
    th_dtype ct = f64 ? TH_F64 : TH_F32;
    th_tensor *w = NULL, *b = NULL, *m = NULL, *v = NULL, *xu = NULL, *xc = NULL, *tmp = NULL, *result = NULL, *y;
    th__cn_plan p;
    bool ok = false; /* set once every step went well */
    if ((!group && (th__cn_param(fn, "running_mean", mean, true, c, ct, &m) ||
                    th__cn_param(fn, "running_var", var, true, c, ct, &v))) ||
        th__cn_param(fn, "weight", weight, false, c, ct, &w) || th__cn_param(fn, "bias", bias, false, c, ct, &b))
        goto done;
    if (!(result = th__result(fn, out, x->dtype, x->ndim, x->sizes))) goto done;
    int64_t numel = th__numel(x);
    if (numel == 0) {
        ok = true;
        goto done;
    }
    if (!(xu = th__unalias(fn, result, x))) goto done;
    if (xu->dtype == ct && th_tensor_is_contiguous(xu))
        xc = th_tensor_retain(xu);
    else if (!(xc = th__convert_new(fn, ct, xu)))
        goto done;
    y = result;
    if (!(y = th__ct_staging(fn, result, ct, &tmp))) goto done;
    p.f64 = f64;
    p.group = group;
    p.c = c;
    p.inner = numel / (x->sizes[0] * c);
    p.cg = group ? c / num_groups : 1;
    p.x = th_tensor_data(xc);
    p.y = th_tensor_data(y);
    p.w = w ? th_tensor_data(w) : NULL;
    p.b = b ? th_tensor_data(b) : NULL;
    p.m = m ? th_tensor_data(m) : NULL;
    p.v = v ? th_tensor_data(v) : NULL;
    p.eps = eps;
    int64_t units = group ? x->sizes[0] * num_groups : x->sizes[0] * c;
    th__parallel_chunks(units, th__threads_for(numel), th__cn_units, &p);
    ok = true;
done:
    TH__RELEASE(w, b, m, v, xu, xc);
    return th__op_end(fn, ok, result, tmp);
}

/* ---- glu, swiglu, geglu: x halved along a dim into a (first half) and b (second half) ----
 *
 * glu a * sigmoid(b) (torch.nn.functional.glu), swiglu silu(a) * b, geglu gelu(a) * b (exact, or with
 * GELU's tanh approximation). Elementwise in double over contiguous copies in the compute type, rounded
 * once; threads over consecutive runs of elements. */

typedef enum th__gate_op { TH__GATE_GLU, TH__GATE_SWIGLU, TH__GATE_GEGLU, TH__GATE_GEGLU_TANH } th__gate_op;

typedef struct th__gate_plan {
    th__gate_op op;
    bool f64;
    int64_t half, inner;    /* the halved dim's new size, elements after it */
    const void *x;          /* contiguous (outer, 2 * half, inner) */
    void *y;                /* contiguous (outer, half, inner) */
} th__gate_plan;

static double th__gate_elem(th__gate_op op, double a, double b)
{
    switch (op) {
    case TH__GATE_GLU: return a / (1.0 + exp(-b));
    case TH__GATE_SWIGLU: return th__act_silu(a) * b;
    case TH__GATE_GEGLU:
        if (a < -1.0) { /* erfc magnifies its argument's rounding ~2t^2 times: put it back to first order */
            const double c_hi = 0.70710678118654757, c_lo = -4.8336466567264567e-17; /* 1/sqrt(2) */
            double t = -a * c_hi, lo = fma(-a, c_hi, -t) + -a * c_lo;
            return 0.5 * a * (erfc(t) - lo * 1.12837916709551257390 * exp(-t * t)) * b; /* 2 / sqrt(pi) */
        }
        return 0.5 * a * erfc(-a * 0.70710678118654752440) * b;
    default: return th__act_gelu_tanh(a) * b;
    }
}

#define TH__GATE_ELEMS(T)                                                                                       \
    do {                                                                                                        \
        const T *xs = (const T *)p->x;                                                                          \
        T *ys = (T *)p->y;                                                                                      \
        int64_t len = p->half * p->inner;                                                                       \
        for (int64_t e = begin; e < end; e++) {                                                                 \
            int64_t o = e / len, j = e % len;                                                                   \
            const T *a = xs + o * 2 * len + j;                                                                  \
            ys[e] = (T)th__gate_elem(p->op, (double)a[0], (double)a[len]);                                      \
        }                                                                                                       \
    } while (0)

static TH__HOT void th__gate_elems(void *ctx, int64_t begin, int64_t end)
{
    const th__gate_plan *p = (const th__gate_plan *)ctx;
    if (p->f64)
        TH__GATE_ELEMS(double);
    else
        TH__GATE_ELEMS(float);
}
#undef TH__GATE_ELEMS

/* op of x halved along dim into out (NULL: a new tensor). Returns the result (out retained), or NULL. */
TH__MAYBE_UNUSED static th_tensor *th__gate_run(const char *fn, th__gate_op op, th_tensor *out, const th_tensor *x,
                                                int dim)
{
    static const char *names[4] = {"glu", "swiglu", "geglu", "geglu"};
    if (!x) return th__fail(TH_ERR_INVALID, fn, "NULL x"), NULL;
    if (!th_device_is_host(x->storage->device))
        return th__fail(TH_ERR_DEVICE, fn, "x is on device type %d, which the host cannot touch",
                        (int)x->storage->device.type),
               NULL;
    if (th__check_fits(fn, x)) return NULL;
    if (x->ndim == 0) return th__fail(TH_ERR_SHAPE, fn, "x is 0-d; %s halves a dim", names[op]), NULL;
    int d = 0;
    if (th__wrap_dim(fn, dim, x->ndim, &d)) return NULL;
    if (x->sizes[d] % 2)
        return th__fail(TH_ERR_SHAPE, fn, "dim %d of x has size %lld, which is odd; %s halves it", d,
                        (long long)x->sizes[d], names[op]),
               NULL;
    int64_t rs[TH_MAX_DIMS];
    for (int i = 0; i < x->ndim; i++) rs[i] = x->sizes[i];
    rs[d] /= 2;
    th_tensor *result = th__result(fn, out, x->dtype, x->ndim, rs);
    if (!result) return NULL;
    int64_t numel = th__numel(result);
    if (numel == 0) return result;
    bool f64 = x->dtype == TH_F64;
    th_dtype ct = f64 ? TH_F64 : TH_F32;
    th_tensor *xu = NULL, *xc = NULL, *tmp = NULL, *y = result;
    bool ok = false; /* set once every step went well */
    th__gate_plan p;
    if (!(xu = th__unalias(fn, result, x))) goto done;
    if (xu->dtype == ct && th_tensor_is_contiguous(xu))
        xc = th_tensor_retain(xu);
    else if (!(xc = th__convert_new(fn, ct, xu)))
        goto done;
    if (!(y = th__ct_staging(fn, result, ct, &tmp))) goto done;
    p.op = op;
    p.f64 = f64;
    p.half = rs[d];
    p.inner = 1;
    for (int i = d + 1; i < x->ndim; i++) p.inner *= rs[i];
    p.x = th_tensor_data(xc);
    p.y = th_tensor_data(y);
    th__parallel_chunks(numel, th__threads_for(numel), th__gate_elems, &p);
    ok = true;
done:
    TH__RELEASE(xu, xc);
    return th__op_end(fn, ok, result, tmp);
}

/* ---- embedding: rows of weight picked by i64 indices of any shape ---- */

/* weight (num, dim) rows at indices (any shape, i64) into out (NULL: a new tensor) of shape indices.shape +
 * (dim). Every index is checked before anything is written. Returns the result (out retained), or NULL. */
TH__MAYBE_UNUSED static th_tensor *th__embedding_run(const char *fn, th_tensor *out, const th_tensor *weight,
                                                     const th_tensor *indices)
{
    if (!weight || !indices) return th__fail(TH_ERR_INVALID, fn, "NULL %s", weight ? "indices" : "weight"), NULL;
    if (!th_device_is_host(weight->storage->device) || !th_device_is_host(indices->storage->device))
        return th__fail(TH_ERR_DEVICE, fn, "%s is on device type %d, which the host cannot touch",
                        th_device_is_host(weight->storage->device) ? "indices" : "weight",
                        (int)(th_device_is_host(weight->storage->device) ? indices : weight)->storage->device.type),
               NULL;
    if (th__check_fits(fn, weight) || th__check_fits(fn, indices)) return NULL;
    if (weight->ndim != 2) {
        char a[160];
        th__shape_string(weight->ndim, weight->sizes, a, sizeof a);
        return th__fail(TH_ERR_SHAPE, fn, "weight has shape %s (%d dims); embedding takes (num_embeddings, dim)", a,
                        weight->ndim),
               NULL;
    }
    if (indices->ndim + 1 > TH_MAX_DIMS)
        return th__fail(TH_ERR_SHAPE, fn, "indices has %d dims; the result's %d would be over TH_MAX_DIMS (%d)",
                        indices->ndim, indices->ndim + 1, TH_MAX_DIMS),
               NULL;
    int64_t num = weight->sizes[0], dim = weight->sizes[1], count = th__numel(indices);
    th_tensor *ic = NULL, *wc = NULL, *tmp = NULL, *result = NULL, *y;
    bool ok = false; /* set once every step went well */
    /* the indices, contiguous, checked before anything is written */
    if (indices->dtype == TH_I64 && th_tensor_is_contiguous(indices))
        ic = th_tensor_retain((th_tensor *)indices);
    else if (!(ic = th__convert_new(fn, TH_I64, indices)))
        goto done;
    const int64_t *ix = count ? (const int64_t *)th_tensor_data(ic) : NULL;
    for (int64_t i = 0; i < count; i++)
        if (ix[i] < 0 || ix[i] >= num) {
            th__fail(TH_ERR_RANGE, fn, "index %lld (element %lld of indices) is out of range for weight's %lld rows",
                     (long long)ix[i], (long long)i, (long long)num);
            goto done;
        }
    int64_t rs[TH_MAX_DIMS];
    for (int d = 0; d < indices->ndim; d++) rs[d] = indices->sizes[d];
    rs[indices->ndim] = dim;
    if (!(result = th__result(fn, out, weight->dtype, indices->ndim + 1, rs))) goto done;
    if (count == 0 || dim == 0) {
        ok = true;
        goto done;
    }
    /* weight as contiguous rows (a copy where it overlaps out, or is not contiguous) */
    {
        th_tensor *wu = th__unalias(fn, result, weight);
        if (!wu) goto done;
        if (th_tensor_is_contiguous(wu))
            wc = wu;
        else {
            wc = th__convert_new(fn, weight->dtype, wu);
            th_tensor_release(wu);
            if (!wc) goto done;
        }
    }
    y = result;
    if (!th_tensor_is_contiguous(result)) {
        if (!(tmp = th__tensor_empty(fn, weight->dtype, indices->ndim + 1, rs))) goto done;
        y = tmp;
    }
    {
        size_t row = (size_t)dim * th_dtype_info(weight->dtype)->size;
        const char *w = (const char *)th_tensor_data(wc);
        char *yd = (char *)th_tensor_data(y);
        for (int64_t i = 0; i < count; i++) memcpy(yd + (size_t)i * row, w + (size_t)ix[i] * row, row);
    }
    ok = true;
done:
    TH__RELEASE(ic, wc);
    return th__op_end(fn, ok, result, tmp);
}

/* ---- rope: rotary position embedding ---- */

typedef struct th__rope_plan {
    bool f64, interleaved;
    int64_t d, h;                       /* x's last dim; pairs rotated (the first 2h features) */
    int nlead;                          /* x's leading dims */
    int64_t lsize[TH_MAX_DIMS], cstr[TH_MAX_DIMS]; /* their sizes; cos/sin's stride (in rows of h) for each */
    const void *x, *c, *s;              /* x contiguous; cos and sin contiguous (rows of h) */
    void *y;
} th__rope_plan;

#define TH__ROPE_ROWS(T)                                                                                        \
    do {                                                                                                        \
        const T *xs = (const T *)p->x, *cs = (const T *)p->c, *ss = (const T *)p->s;                            \
        T *ys = (T *)p->y;                                                                                      \
        for (int64_t r = begin; r < end; r++) {                                                                 \
            int64_t q = r, crow = 0;                                                                            \
            for (int k = p->nlead - 1; k >= 0; k--) {                                                           \
                crow += (q % p->lsize[k]) * p->cstr[k];                                                         \
                q /= p->lsize[k];                                                                               \
            }                                                                                                   \
            const T *xr = xs + r * p->d, *cr = cs + crow * p->h, *sr = ss + crow * p->h;                         \
            T *yr = ys + r * p->d;                                                                              \
            int64_t step = p->interleaved ? 2 : 1, other = p->interleaved ? 1 : p->h;                           \
            for (int64_t i = 0; i < p->h; i++) {                                                                \
                int64_t i0 = i * step, i1 = i0 + other;                                                         \
                double a = (double)xr[i0], b = (double)xr[i1], c = (double)cr[i], s = (double)sr[i];            \
                yr[i0] = (T)(a * c - b * s);                                                                    \
                yr[i1] = (T)(b * c + a * s);                                                                    \
            }                                                                                                   \
            for (int64_t i = 2 * p->h; i < p->d; i++) yr[i] = xr[i];                                            \
        }                                                                                                       \
    } while (0)

static TH__HOT void th__rope_rows(void *ctx, int64_t begin, int64_t end)
{
    const th__rope_plan *p = (const th__rope_plan *)ctx;
    if (p->f64)
        TH__ROPE_ROWS(double);
    else
        TH__ROPE_ROWS(float);
}
#undef TH__ROPE_ROWS

/* x (..., d) rotated by the cosines and sines (..., h), 2h <= d, broadcast against x's leading dims, pairs laid out as
 * layout says, into out (NULL: a new tensor). Returns the result (out retained), or NULL. */
TH__MAYBE_UNUSED static th_tensor *th__rope_run(const char *fn, th_tensor *out, const th_tensor *x,
                                                const th_tensor *cos_t, const th_tensor *sin_t, int layout)
{
    if (!x || !cos_t || !sin_t) return th__fail(TH_ERR_INVALID, fn, "NULL %s", !x ? "x" : !cos_t ? "cosines" : "sines"),
               NULL;
    const th_tensor *ops[3] = {x, cos_t, sin_t};
    static const char *names[3] = {"x", "cosines", "sines"};
    for (int k = 0; k < 3; k++) {
        if (!th_device_is_host(ops[k]->storage->device))
            return th__fail(TH_ERR_DEVICE, fn, "%s is on device type %d, which the host cannot touch", names[k],
                            (int)ops[k]->storage->device.type),
                   NULL;
        if (th__check_fits(fn, ops[k])) return NULL;
    }
    if (layout != TH_ROPE_HALVES && layout != TH_ROPE_INTERLEAVED)
        return th__fail(TH_ERR_INVALID, fn, "layout %d is no th_rope_layout", layout), NULL;
    char a[160], b[160];
    th__shape_string(x->ndim, x->sizes, a, sizeof a);
    th__shape_string(cos_t->ndim, cos_t->sizes, b, sizeof b);
    if (x->ndim < 1) return th__fail(TH_ERR_SHAPE, fn, "x is 0-d; rope rotates pairs along its last dim"), NULL;
    if (!th__shape_equal(cos_t->ndim, cos_t->sizes, sin_t->ndim, sin_t->sizes)) {
        char c[160];
        th__shape_string(sin_t->ndim, sin_t->sizes, c, sizeof c);
        return th__fail(TH_ERR_SHAPE, fn, "cosines have shape %s and sines %s; they must be the same", b, c), NULL;
    }
    int64_t d = x->sizes[x->ndim - 1];
    if (cos_t->ndim < 1 || cos_t->ndim > x->ndim || 2 * cos_t->sizes[cos_t->ndim - 1] > d)
        return th__fail(TH_ERR_SHAPE, fn,
                        "cosines have shape %s; for x of shape %s they must be (..., h) with 2h <= %lld and at most %d dims",
                        b, a, (long long)d, x->ndim),
               NULL;
    th__rope_plan p;
    p.nlead = x->ndim - 1;
    p.d = d;
    p.h = cos_t->sizes[cos_t->ndim - 1];
    /* cos's leading dims, aligned to the right of x's, each 1 (broadcast) or x's size */
    int lead_c = cos_t->ndim - 1;
    int64_t span = 1;
    for (int k = p.nlead - 1; k >= 0; k--) {
        p.lsize[k] = x->sizes[k];
        int kc = k - (p.nlead - lead_c);
        p.cstr[k] = 0;
        if (kc < 0) continue;
        int64_t cs = cos_t->sizes[kc];
        if (cs != 1 && cs != x->sizes[k])
            return th__fail(TH_ERR_SHAPE, fn, "cosines have shape %s, which does not broadcast against x's %s (dim %d: %lld, not %lld)",
                            b, a, kc, (long long)cs, (long long)x->sizes[k]),
                   NULL;
        if (cs != 1) p.cstr[k] = span;
        span *= cs;
    }
    th_tensor *result = th__result(fn, out, x->dtype, x->ndim, x->sizes);
    if (!result) return NULL;
    int64_t numel = th__numel(x);
    if (numel == 0) return result;
    bool f64 = x->dtype == TH_F64;
    th_dtype ct = f64 ? TH_F64 : TH_F32;
    th_tensor *xu = NULL, *xc = NULL, *cc = NULL, *sc = NULL, *tmp = NULL, *y = result;
    bool ok = false; /* set once every step went well */
    if (!(xu = th__unalias(fn, result, x))) goto done;
    if (xu->dtype == ct && th_tensor_is_contiguous(xu))
        xc = th_tensor_retain(xu);
    else if (!(xc = th__convert_new(fn, ct, xu)))
        goto done;
    if (!(cc = th__convert_new(fn, ct, cos_t)) || !(sc = th__convert_new(fn, ct, sin_t))) goto done;
    if (!(y = th__ct_staging(fn, result, ct, &tmp))) goto done;
    p.f64 = f64;
    p.interleaved = layout == TH_ROPE_INTERLEAVED;
    p.x = th_tensor_data(xc);
    p.c = th_tensor_data(cc);
    p.s = th_tensor_data(sc);
    p.y = th_tensor_data(y);
    if (d > 0) th__parallel_chunks(numel / d, th__threads_for(numel), th__rope_rows, &p);
    ok = true;
done:
    TH__RELEASE(xu, xc, cc, sc);
    return th__op_end(fn, ok, result, tmp);
}

/* ---- nll_loss and cross_entropy (class-index targets) ---- */

typedef struct th__loss_plan {
    bool f64, ce;                 /* compute type double (f64) or float; cross_entropy or nll_loss */
    int64_t c, inner;             /* classes; positions per sample (the trailing dims) */
    const void *x;                /* input, contiguous (N, C, inner) */
    const int64_t *t;             /* targets, contiguous (N, inner) */
    const void *w;                /* class weights (C) in the compute type, or NULL */
    bool ignore;
    int64_t ignore_index;
    double smoothing;
    double *loss, *wsum;          /* per position: its loss, and the weight it counts with in a mean */
} th__loss_plan;

#define TH__LOSS_POSITIONS(T)                                                                                   \
    do {                                                                                                        \
        const T *xs = (const T *)p->x, *w = (const T *)p->w;                                                    \
        for (int64_t q = begin; q < end; q++) {                                                                 \
            int64_t n = q / p->inner, j = q % p->inner, t = p->t[q];                                            \
            if (p->ignore && t == p->ignore_index) {                                                            \
                p->loss[q] = 0, p->wsum[q] = 0;                                                                 \
                continue;                                                                                       \
            }                                                                                                   \
            const T *row = xs + n * p->c * p->inner + j; /* class k at row[k * inner] */                        \
            double lse = 0;                                                                                     \
            if (p->ce) { /* log(sum(exp(x))) with the maximum taken out */                                      \
                double m = -INFINITY, s = 0;                                                                    \
                for (int64_t k = 0; k < p->c; k++) m = (double)row[k * p->inner] > m ? (double)row[k * p->inner] : m; \
                for (int64_t k = 0; k < p->c; k++) s += exp((double)row[k * p->inner] - m);                     \
                lse = m + log(s);                                                                               \
            }                                                                                                   \
            double wt = w ? (double)w[t] : 1.0;                                                                 \
            double l = -wt * ((double)row[t * p->inner] - lse);                                                 \
            if (p->smoothing > 0) {                                                                             \
                double sm = 0;                                                                                  \
                for (int64_t k = 0; k < p->c; k++)                                                              \
                    sm -= (w ? (double)w[k] : 1.0) * ((double)row[k * p->inner] - lse);                         \
                l = (1 - p->smoothing) * l + p->smoothing / (double)p->c * sm;                                  \
            }                                                                                                   \
            p->loss[q] = l, p->wsum[q] = wt;                                                                    \
        }                                                                                                       \
    } while (0)

static void th__loss_positions(void *ctx, int64_t begin, int64_t end)
{
    const th__loss_plan *p = (const th__loss_plan *)ctx;
    if (p->f64)
        TH__LOSS_POSITIONS(double);
    else
        TH__LOSS_POSITIONS(float);
}
#undef TH__LOSS_POSITIONS

/* nll_loss (ce false: input holds log-probabilities) or cross_entropy (ce: logits) of input (N, C, *) or (C)
 * against i64 targets (N, *) or () with class weights (NULL or (C)) and opts (NULL: the defaults) into out
 * (NULL: a new tensor): targets' shape for TH_REDUCTION_NONE, else 0-d. Returns the result or NULL. */
TH__MAYBE_UNUSED static th_tensor *th__loss_run(const char *fn, bool ce, th_tensor *out, const th_tensor *input,
                                                const th_tensor *target, const th_tensor *weight,
                                                const th_loss_opts *opts)
{
    const char *what = ce ? "cross_entropy" : "nll_loss";
    if (!input || !target) return th__fail(TH_ERR_INVALID, fn, "NULL %s", input ? "target" : "input"), NULL;
    const th_tensor *ops[3] = {input, target, weight};
    static const char *names[3] = {"input", "target", "weight"};
    for (int k = 0; k < 3; k++) {
        if (!ops[k]) continue;
        if (!th_device_is_host(ops[k]->storage->device))
            return th__fail(TH_ERR_DEVICE, fn, "%s is on device type %d, which the host cannot touch", names[k],
                            (int)ops[k]->storage->device.type),
                   NULL;
        if (th__check_fits(fn, ops[k])) return NULL;
    }
    th_reduction red = opts ? opts->reduction : TH_REDUCTION_MEAN;
    double smoothing = opts ? opts->label_smoothing : 0.0;
    if ((int)red < 0 || (int)red > 2) return th__fail(TH_ERR_INVALID, fn, "reduction %d is no th_reduction", (int)red), NULL;
    if (!(smoothing >= 0.0 && smoothing <= 1.0))
        return th__fail(TH_ERR_INVALID, fn, "label_smoothing %g is not in [0, 1]", smoothing), NULL;
    if (!ce && smoothing != 0.0)
        return th__fail(TH_ERR_INVALID, fn, "label_smoothing %g: nll_loss takes none (cross_entropy does)", smoothing), NULL;
    /* shapes: input (C) with a 0-d target, or (N, C, d...) with target (N, d...) */
    char a[160], b[160];
    th__shape_string(input->ndim, input->sizes, a, sizeof a);
    th__shape_string(target->ndim, target->sizes, b, sizeof b);
    if (input->ndim < 1)
        return th__fail(TH_ERR_SHAPE, fn, "input is 0-d; %s takes (C) or (N, C, *)", what), NULL;
    bool batched = input->ndim >= 2;
    int64_t c = input->sizes[batched ? 1 : 0];
    bool fits = target->ndim == (batched ? input->ndim - 1 : 0);
    for (int d = 0; fits && d < target->ndim; d++) fits = target->sizes[d] == input->sizes[d == 0 ? 0 : d + 1];
    if (!fits)
        return th__fail(TH_ERR_SHAPE, fn, "target has shape %s; input %s needs %s", b, a,
                        batched ? "input's shape without dim 1" : "a 0-d target"),
               NULL;
    if (weight && (weight->ndim != 1 || weight->sizes[0] != c)) {
        char w[160];
        th__shape_string(weight->ndim, weight->sizes, w, sizeof w);
        return th__fail(TH_ERR_SHAPE, fn, "weight has shape %s; input's %lld classes need (%lld)", w, (long long)c,
                        (long long)c),
               NULL;
    }
    bool ignore = opts && opts->use_ignore_index;
    int64_t ignore_index = opts ? opts->ignore_index : 0;
    int64_t count = th__numel(target);
    th_tensor *tc = NULL, *xc = NULL, *wc = NULL, *tmp = NULL, *result = NULL;
    double *buf = NULL;
    int status = TH_OK;
    if (target->dtype == TH_I64 && th_tensor_is_contiguous(target))
        tc = th_tensor_retain((th_tensor *)target);
    else if (!(tc = th__convert_new(fn, TH_I64, target)))
        goto fail;
    const int64_t *tv = count ? (const int64_t *)th_tensor_data(tc) : NULL;
    for (int64_t i = 0; i < count; i++)
        if ((tv[i] < 0 || tv[i] >= c) && !(ignore && tv[i] == ignore_index)) {
            th__fail(TH_ERR_RANGE, fn, "target %lld (element %lld of target) is out of range for %lld classes%s",
                     (long long)tv[i], (long long)i, (long long)c, ignore ? " and is not ignore_index" : "");
            goto fail;
        }
    if (!(result = th__result(fn, out, input->dtype, red == TH_REDUCTION_NONE ? target->ndim : 0, target->sizes)))
        goto fail;
    bool f64 = input->dtype == TH_F64;
    th_dtype ct = f64 ? TH_F64 : TH_F32;
    if (input->dtype == ct && th_tensor_is_contiguous(input))
        xc = th_tensor_retain((th_tensor *)input);
    else if (!(xc = th__convert_new(fn, ct, input)))
        goto fail;
    if (weight && !(wc = th__convert_new(fn, ct, weight))) goto fail;
    if (count > 0 && !(buf = (double *)malloc(2 * (size_t)count * sizeof(double)))) {
        th__fail(TH_ERR_NOMEM, fn, "out of memory for %lld losses", (long long)count);
        goto fail;
    }
    th__loss_plan p;
    p.f64 = f64;
    p.ce = ce;
    p.c = c;
    p.inner = 1;
    for (int d = 2; d < input->ndim; d++) p.inner *= input->sizes[d];
    p.x = th_tensor_data(xc);
    p.t = tv;
    p.w = wc ? th_tensor_data(wc) : NULL;
    p.ignore = ignore;
    p.ignore_index = ignore_index;
    p.smoothing = smoothing;
    p.loss = buf;
    p.wsum = buf ? buf + count : NULL;
    if (count > 0) th__parallel_chunks(count, th__threads_for(count * c), th__loss_positions, &p);
    /* the losses (none) or their reduction, rounded to the compute type, then copied into the result (which
     * rounds f16 and bf16 from float, as every op of the family) */
    int64_t nres = red == TH_REDUCTION_NONE ? count : 1;
    if (red != TH_REDUCTION_NONE) {
        double sum = 0, wsum = 0; /* in order: the same bits for any thread count */
        for (int64_t i = 0; i < count; i++) sum += buf[i], wsum += buf[count + i];
        if (!buf && !(buf = (double *)malloc(sizeof(double)))) {
            th__fail(TH_ERR_NOMEM, fn, "out of memory");
            goto fail;
        }
        buf[0] = red == TH_REDUCTION_SUM ? sum : sum / wsum; /* every target ignored: 0 / 0, NaN, as PyTorch */
    }
    if (nres > 0) {
        if (!(tmp = th__tensor_empty(fn, ct, result->ndim, result->sizes))) goto fail;
        void *td = th_tensor_data(tmp);
        for (int64_t i = 0; i < nres; i++)
            if (f64)
                ((double *)td)[i] = buf[i];
            else
                ((float *)td)[i] = (float)buf[i];
        if (th_tensor_copy(result, tmp)) goto fail;
    }
    goto done;
fail:
    status = th__failed_status(fn);
done:
    free(buf);
    TH__RELEASE(tc, xc, wc, tmp);
    return th__result_or_release(status, result);
}


#endif /* TH__DEFINING */
