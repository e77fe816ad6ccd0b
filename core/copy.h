/* core/copy.h: copies and conversions between any two dtypes (th_tensor_copy), through the per-dtype row
 * kernels.
 * Part of tensor.h, which includes it twice: its declarations, then (TH__DEFINING) its definitions. */
#ifndef TENSOR_H
#error "core/copy.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

/* Copies src into dst converting between any two dtypes; src broadcasts to dst's shape; any strides, and
 * src may overlap dst. Conversions: to bool, nonzero (NaN included) is true; floating to integer
 * truncates toward zero, saturates at the integer's range, NaN gives 0; integer to a narrower integer
 * wraps modulo 2^bits; complex to real keeps the real part; everything else rounds to nearest even.
 * Errors: shapes that do not broadcast, a dst whose elements overlap (a stride-0 dim), device memory,
 * a dtype not compiled in. */
TH_API int th_tensor_copy(th_tensor *dst, const th_tensor *src);

#else /* TH__DEFINING */

/* The per-dtype loops that copies between dtypes go through: each dtype reads into and writes from the
 * three wide types (int64, double, double complex), so N dtypes need 6N loops, not N^2. */
typedef struct th__kernels {
    void (*load_i64)(const char *src, int64_t stride, int64_t n, int64_t *out);
    void (*load_f64)(const char *src, int64_t stride, int64_t n, double *out);
    void (*load_c128)(const char *src, int64_t stride, int64_t n, th_complex128 *out);
    void (*store_i64)(const int64_t *in, char *dst, int64_t stride, int64_t n);
    void (*store_f64)(const double *in, char *dst, int64_t stride, int64_t n);
    void (*store_c128)(const th_complex128 *in, char *dst, int64_t stride, int64_t n);
} th__kernels;

/* Each dtype's table is stamped later, by tensor_generic.h; these tentative definitions let the table of
 * tables be built here. th__kernels_of gives NULL for a dtype this build did not stamp. */
#define TH__X(sfx, ...) TH__IF_##sfx(static const th__kernels th__##sfx##_kernels;)
TH_FOREACH_DTYPE(TH__X)
#undef TH__X

static const th__kernels *th__kernels_of(th_dtype dtype)
{
    static const th__kernels *const table[TH_NUM_DTYPES] = {
#define TH__X(sfx, ENUM, ...) TH__IF_##sfx([TH_##ENUM] = &th__##sfx##_kernels, )
        TH_FOREACH_DTYPE(TH__X)
#undef TH__X
    };
    return th__dtype_valid(dtype) ? table[dtype] : NULL;
}

static int th__need_kernels(const char *fn, th_dtype dtype, const th__kernels **out)
{
    *out = th__kernels_of(dtype);
    if (!*out)
        return th__fail(TH_ERR_DTYPE, fn, "dtype %s is not compiled into this build (see TH_SELECT_DTYPES)",
                        th_dtype_name(dtype));
    return TH_OK;
}

/* Constant es after inlining, so each call site becomes plain loads and stores of that width. */
static inline void th__copy_row_sized(char *dst, int64_t ds, const char *src, int64_t ss, int64_t n, size_t es)
{
    for (int64_t i = 0; i < n; i++) memcpy(dst + i * ds, src + i * ss, es);
}

static TH__HOT void th__copy_row(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    size_t es = *(const size_t *)ctx;
    if (strides[0] == (int64_t)es && strides[1] == (int64_t)es) {
        memcpy(data[0], data[1], (size_t)n * es);
        return;
    }
    TH__DISPATCH_ELSIZE(es, th__copy_row_sized, data[0], strides[0], data[1], strides[1], n);
}

/* A 2-d copy where dst is contiguous along dim 0 and src along dim 1 (a transpose): square tiles keep both
 * the rows read and the rows written in L1, where a row-by-row copy would miss on every element of src.
 * Within a tile, 4-byte elements move as 4x4 blocks and 8-byte ones as 2x2 blocks transposed in SSE2
 * registers (every x86-64 CPU has SSE2): a 4096^2 f32 transposed copy took 76-92 ms element by element and
 * 27-32 ms so on this machine (loaded), against 10 ms for a memcpy of the same bytes. 16x16 tiles measured
 * best against 32 and 64. Large copies split their tile rows across threads. */
enum { TH__TILE = 16 };

typedef struct th__tiles {
    char *dst;
    const char *src;
    int64_t n0, n1, d1, s0; /* dst[i0 * es + i1 * d1] = src[i0 * s0 + i1 * es] */
    size_t es;
} th__tiles;

static inline void th__tile_sized(const th__tiles *t, int64_t i0, int64_t e0, int64_t i1, int64_t e1, size_t es)
{
    for (int64_t j1 = i1; j1 < e1; j1++) {
        char *dst = t->dst + j1 * t->d1;
        const char *src = t->src + j1 * (int64_t)es;
        for (int64_t j0 = i0; j0 < e0; j0++) memcpy(dst + j0 * (int64_t)es, src + j0 * t->s0, es);
    }
}

static TH__HOT void th__tile(const th__tiles *t, int64_t i0, int64_t e0, int64_t i1, int64_t e1)
{
#if defined(__SSE2__)
    if (t->es == 4 && e0 - i0 == TH__TILE && e1 - i1 == TH__TILE) {
        for (int64_t j1 = i1; j1 < e1; j1 += 4)
            for (int64_t j0 = i0; j0 < e0; j0 += 4) {
                const float *s = (const float *)(const void *)(t->src + j0 * t->s0 + j1 * 4);
                float *d = (float *)(void *)(t->dst + j1 * t->d1 + j0 * 4);
                const int64_t ss = t->s0 / 4, ds = t->d1 / 4; /* both multiples of 4 bytes: a view's strides */
                __m128 r0 = _mm_loadu_ps(s), r1 = _mm_loadu_ps(s + ss);
                __m128 r2 = _mm_loadu_ps(s + 2 * ss), r3 = _mm_loadu_ps(s + 3 * ss);
                _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
                _mm_storeu_ps(d, r0);
                _mm_storeu_ps(d + ds, r1);
                _mm_storeu_ps(d + 2 * ds, r2);
                _mm_storeu_ps(d + 3 * ds, r3);
            }
        return;
    }
    if (t->es == 8 && e0 - i0 == TH__TILE && e1 - i1 == TH__TILE) {
        for (int64_t j1 = i1; j1 < e1; j1 += 2)
            for (int64_t j0 = i0; j0 < e0; j0 += 2) {
                const double *s = (const double *)(const void *)(t->src + j0 * t->s0 + j1 * 8);
                double *d = (double *)(void *)(t->dst + j1 * t->d1 + j0 * 8);
                const int64_t ss = t->s0 / 8, ds = t->d1 / 8;
                __m128d r0 = _mm_loadu_pd(s), r1 = _mm_loadu_pd(s + ss);
                _mm_storeu_pd(d, _mm_unpacklo_pd(r0, r1));
                _mm_storeu_pd(d + ds, _mm_unpackhi_pd(r0, r1));
            }
        return;
    }
#endif
    TH__DISPATCH_ELSIZE(t->es, th__tile_sized, t, i0, e0, i1, e1);
}

/* Tile rows [begin, end) of dim 1. */
static void th__tiles_run(void *ctx, int64_t begin, int64_t end)
{
    const th__tiles *t = (const th__tiles *)ctx;
    for (int64_t b1 = begin; b1 < end; b1++) {
        int64_t i1 = b1 * TH__TILE, e1 = i1 + TH__TILE < t->n1 ? i1 + TH__TILE : t->n1;
        for (int64_t i0 = 0; i0 < t->n0; i0 += TH__TILE)
            th__tile(t, i0, i0 + TH__TILE < t->n0 ? i0 + TH__TILE : t->n0, i1, e1);
    }
}

static void th__copy_tiled(const th__iter *it, size_t es)
{
    th__tiles t = {it->data[0], it->data[1], it->shape[0], it->shape[1], it->strides[0][1], it->strides[1][0], es};
    int64_t rows = (t.n1 + TH__TILE - 1) / TH__TILE;
    th__parallel_chunks(rows, th__threads_for(it->numel), th__tiles_run, &t);
}

typedef enum th__wide { TH__WIDE_I64, TH__WIDE_F64, TH__WIDE_C128 } th__wide;

typedef struct th__convert_plan {
    const th__kernels *src, *dst;
    th__wide wide;
    bool dst_is_wide; /* dst's elements are the wide type itself: load straight into it */
} th__convert_plan;

enum { TH__CONVERT_BLOCK = 256 };

static TH__HOT void th__convert_row(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    const th__convert_plan *p = (const th__convert_plan *)ctx;
    union {
        int64_t i[TH__CONVERT_BLOCK];
        double f[TH__CONVERT_BLOCK];
        th_complex128 c[TH__CONVERT_BLOCK];
    } buf;
    const size_t wide_size = p->wide == TH__WIDE_C128 ? sizeof(th_complex128) : 8;
    for (int64_t done = 0; done < n; done += TH__CONVERT_BLOCK) {
        int64_t m = n - done < TH__CONVERT_BLOCK ? n - done : TH__CONVERT_BLOCK;
        char *dst = data[0] + done * strides[0];
        const char *src = data[1] + done * strides[1];
        bool direct = p->dst_is_wide && strides[0] == (int64_t)wide_size && (uintptr_t)dst % wide_size == 0;
        switch (p->wide) {
        case TH__WIDE_I64:
            if (direct) { p->src->load_i64(src, strides[1], m, (int64_t *)(void *)dst); break; }
            p->src->load_i64(src, strides[1], m, buf.i);
            p->dst->store_i64(buf.i, dst, strides[0], m);
            break;
        case TH__WIDE_F64:
            if (direct) { p->src->load_f64(src, strides[1], m, (double *)(void *)dst); break; }
            p->src->load_f64(src, strides[1], m, buf.f);
            p->dst->store_f64(buf.f, dst, strides[0], m);
            break;
        case TH__WIDE_C128:
            if (direct) { p->src->load_c128(src, strides[1], m, (th_complex128 *)(void *)dst); break; }
            p->src->load_c128(src, strides[1], m, buf.c);
            p->dst->store_c128(buf.c, dst, strides[0], m);
            break;
        }
    }
}

/* The byte range [lo, hi) a tensor's elements occupy. */
static void th__byte_range(const th_tensor *t, uintptr_t *lo, uintptr_t *hi)
{
    int64_t l, h;
    th__span(t, &l, &h);
    int64_t es = (int64_t)th__elsize(t);
    uintptr_t base = (uintptr_t)th_tensor_data(t);
    *lo = base + (uintptr_t)(l * es);
    *hi = base + (uintptr_t)((h + 1) * es);
}

static bool th__same_layout(const th_tensor *a, const th_tensor *b)
{
    if (a->dtype != b->dtype || a->ndim != b->ndim || th_tensor_data(a) != th_tensor_data(b)) return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->sizes[d] != b->sizes[d] || (a->sizes[d] > 1 && a->strides[d] != b->strides[d])) return false;
    return true;
}

static th_tensor *th__convert_new(const char *fn, th_dtype dtype, const th_tensor *src);

static int th__copy(const char *fn, th_tensor *dst, const th_tensor *src)
{
    if (!dst || !src) return th__fail(TH_ERR_INVALID, fn, "NULL %s", dst ? "src" : "dst");
    const th__kernels *kd, *ks;
    if (th__need_kernels(fn, dst->dtype, &kd) || th__need_kernels(fn, src->dtype, &ks)) return th_last_status();
    for (int d = 0; d < dst->ndim; d++)
        if (dst->strides[d] == 0 && dst->sizes[d] > 1)
            return th__fail(TH_ERR_INVALID, fn,
                            "dst dim %d has stride 0, so several of its elements are one memory location", d);
    if (th__check_writable(fn, dst->storage)) return th_last_status();
    const th_tensor *ops[2] = {dst, src};
    th__iter it;
    int status = th__iter_init(fn, &it, 2, ops);
    if (status || it.numel == 0) return status;
    if (th__same_layout(dst, src)) return TH_OK;
    uintptr_t dlo, dhi, slo, shi;
    th__byte_range(dst, &dlo, &dhi);
    th__byte_range(src, &slo, &shi);
    if (dlo < shi && slo < dhi) { /* src may change under the copy: copy it out first */
        th_tensor *tmp = th__convert_new(fn, src->dtype, src);
        if (!tmp) return th_last_status();
        status = th__copy(fn, dst, tmp);
        th_tensor_release(tmp);
        return status;
    }
    if (dst->dtype == src->dtype) {
        size_t es = th__elsize(dst);
        bool transposed = it.ndim == 2 && it.strides[0][0] == (int64_t)es && it.strides[1][1] == (int64_t)es &&
                          it.strides[1][0] != (int64_t)es && it.shape[0] >= TH__TILE && it.shape[1] >= TH__TILE;
        if (transposed)
            th__copy_tiled(&it, es);
        else
            th__iter_for_each(&it, th__copy_row, &es);
        return TH_OK;
    }
    th_dtype_kind sk = th__dtype_traits[src->dtype].kind, dk = th__dtype_traits[dst->dtype].kind;
    th__convert_plan plan;
    plan.src = ks;
    plan.dst = kd;
    /* Integers go through int64 even to floating and complex dtypes, so int64 -> float32 or complex64 rounds
     * once, not twice. */
    if (sk == TH_KIND_COMPLEX || (dk == TH_KIND_COMPLEX && sk == TH_KIND_FLOAT))
        plan.wide = TH__WIDE_C128;
    else if (sk == TH_KIND_FLOAT)
        plan.wide = TH__WIDE_F64;
    else
        plan.wide = TH__WIDE_I64;
    plan.dst_is_wide = (plan.wide == TH__WIDE_I64 && dst->dtype == TH_I64) ||
                       (plan.wide == TH__WIDE_F64 && dst->dtype == TH_F64) ||
                       (plan.wide == TH__WIDE_C128 && dst->dtype == TH_C128);
    th__iter_for_each(&it, th__convert_row, &plan);
    return TH_OK;
}

TH_API int th_tensor_copy(th_tensor *dst, const th_tensor *src) { return th__copy("th_tensor_copy", dst, src); }

/* A new contiguous tensor of dtype with src's values. */
static th_tensor *th__convert_new(const char *fn, th_dtype dtype, const th_tensor *src)
{
    TH__NEED(src, fn);
    th_tensor *t = th__tensor_empty(fn, dtype, src->ndim, src->sizes);
    if (!t) return NULL;
    if (th__copy(fn, t, src)) {
        th_tensor_release(t);
        return NULL;
    }
    return t;
}

static th_tensor *th__contiguous(const char *fn, th_tensor *t)
{
    TH__NEED(t, fn);
    if (th_tensor_is_contiguous(t)) return th_tensor_retain(t);
    return th__convert_new(fn, t->dtype, t);
}

/* th__contiguous, for an op that reads the elements on the host: refused (TH_ERR_DEVICE: "<what> is on device
 * type N, which the host cannot <verb>") when they are in device memory. NULL on error. */
TH__MAYBE_UNUSED static th_tensor *th__contiguous_on_host(const char *fn, th_tensor *t, const char *what,
                                                          const char *verb)
{
    th_tensor *c = th__contiguous(fn, t);
    if (!c || th_device_is_host(c->storage->device)) return c;
    const int type = (int)c->storage->device.type;
    th_tensor_release(c);
    th__fail(TH_ERR_DEVICE, fn, "%s is on device type %d, which the host cannot %s", what, type, verb);
    return NULL;
}

static th_tensor *th__reshape(const char *fn, th_tensor *t, int ndim, const int64_t *sizes)
{
    TH__NEED(t, fn);
    int64_t new_sizes[TH_MAX_DIMS], new_strides[TH_MAX_DIMS];
    if (th__infer_size(fn, ndim, sizes, th__numel(t), new_sizes)) return NULL;
    if (th__view_strides(t->ndim, t->sizes, t->strides, ndim, new_sizes, new_strides))
        return th__view_of(fn, t, t->offset, ndim, new_sizes, new_strides);
    th_tensor *copy = th__convert_new(fn, t->dtype, t);
    if (!copy) return NULL;
    th_tensor *v = th__view(fn, copy, ndim, new_sizes);
    th_tensor_release(copy);
    return v;
}

#endif /* TH__DEFINING */
