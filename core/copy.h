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

/* Transposed copies: after the engine has ordered and merged the dims, dst is contiguous along dim 0 and src
 * along dim 1 (a 2-d transpose), and any dims above those are a batch of such transposes (a permutation of a
 * 3-d or 4-d tensor: NCHW -> NHWC is, per n, a (C, H*W) transpose once H and W have merged). Square tiles keep
 * both the rows read and the rows written in L1, where a row-by-row copy would miss on every element of src;
 * within a tile, blocks are transposed in registers: 8x8 4-byte and 4x4 8-byte blocks in AVX2 registers where
 * the CPU has AVX2 (chosen at run time with vecmath's SIMD level, so TH_SIMD=baseline turns it off), else 4x4
 * and 2x2 in SSE2 ones; 2-byte elements as 8x8 blocks in SSE2 registers; 1- and 16-byte elements, the tiles'
 * edges and other architectures element by element. Tiles split across threads. 128x128 tiles measured best
 * against 16, 32, 64 and 256 (loaded machine: 4096^2 f32 8.2 ms against 12.9 at 32 and 25+ at 16): the
 * register blocks are the cache blocking (an 8-wide strip of a tile's src rows stays in L1 until its second
 * half is read), and the longer runs along dst rows keep the prefetchers ahead. Measured figures: docs/core.md,
 * "Copies and conversions". */
enum { TH__TILE = 128 };

/* The kernel of one tile: dst[i0 * es + i1 * d1] = src[i0 * s0 + i1 * es] for i0 < n0, i1 < n1. */
typedef void (*th__tile_fn)(char *dst, int64_t d1, const char *src, int64_t s0, int64_t n0, int64_t n1);

/* The elements of a tile outside its first b0 x b1 corner, which the register blocks have done. */
static inline void th__tile_rest_sized(char *dst, int64_t d1, const char *src, int64_t s0, int64_t n0,
                                       int64_t n1, int64_t b0, int64_t b1, size_t es)
{
    for (int64_t j1 = 0; j1 < n1; j1++) {
        char *d = dst + j1 * d1;
        const char *s = src + j1 * (int64_t)es;
        for (int64_t j0 = j1 < b1 ? b0 : 0; j0 < n0; j0++) memcpy(d + j0 * (int64_t)es, s + j0 * s0, es);
    }
}

#define TH__TILE_SCALAR(es)                                                                                   \
    static TH__HOT void th__tile_scalar##es(char *dst, int64_t d1, const char *src, int64_t s0, int64_t n0, \
                                            int64_t n1)                                                     \
    {                                                                                                       \
        th__tile_rest_sized(dst, d1, src, s0, n0, n1, 0, 0, es);                                            \
    }
TH__TILE_SCALAR(1)
TH__TILE_SCALAR(2)
TH__TILE_SCALAR(4)
TH__TILE_SCALAR(8)
TH__TILE_SCALAR(16)
#undef TH__TILE_SCALAR

#if defined(__SSE2__)
static TH__HOT void th__tile_sse2_4(char *dst, int64_t d1, const char *src, int64_t s0, int64_t n0, int64_t n1)
{
    const int64_t b0 = n0 & ~(int64_t)3, b1 = n1 & ~(int64_t)3;
    for (int64_t j1 = 0; j1 < b1; j1 += 4)
        for (int64_t j0 = 0; j0 < b0; j0 += 4) {
            const char *s = src + j0 * s0 + j1 * 4;
            char *d = dst + j1 * d1 + j0 * 4;
            __m128 r0 = _mm_loadu_ps((const float *)(const void *)s);
            __m128 r1 = _mm_loadu_ps((const float *)(const void *)(s + s0));
            __m128 r2 = _mm_loadu_ps((const float *)(const void *)(s + 2 * s0));
            __m128 r3 = _mm_loadu_ps((const float *)(const void *)(s + 3 * s0));
            _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
            _mm_storeu_ps((float *)(void *)d, r0);
            _mm_storeu_ps((float *)(void *)(d + d1), r1);
            _mm_storeu_ps((float *)(void *)(d + 2 * d1), r2);
            _mm_storeu_ps((float *)(void *)(d + 3 * d1), r3);
        }
    th__tile_rest_sized(dst, d1, src, s0, n0, n1, b0, b1, 4);
}

static TH__HOT void th__tile_sse2_8(char *dst, int64_t d1, const char *src, int64_t s0, int64_t n0, int64_t n1)
{
    const int64_t b0 = n0 & ~(int64_t)1, b1 = n1 & ~(int64_t)1;
    for (int64_t j1 = 0; j1 < b1; j1 += 2)
        for (int64_t j0 = 0; j0 < b0; j0 += 2) {
            const char *s = src + j0 * s0 + j1 * 8;
            char *d = dst + j1 * d1 + j0 * 8;
            __m128d r0 = _mm_loadu_pd((const double *)(const void *)s);
            __m128d r1 = _mm_loadu_pd((const double *)(const void *)(s + s0));
            _mm_storeu_pd((double *)(void *)d, _mm_unpacklo_pd(r0, r1));
            _mm_storeu_pd((double *)(void *)(d + d1), _mm_unpackhi_pd(r0, r1));
        }
    th__tile_rest_sized(dst, d1, src, s0, n0, n1, b0, b1, 8);
}

/* 8x8 2-byte elements: three rounds of interleaving (16-, 32-, then 64-bit pieces) turn rows into columns. */
static TH__HOT void th__tile_sse2_2(char *dst, int64_t d1, const char *src, int64_t s0, int64_t n0, int64_t n1)
{
    const int64_t b0 = n0 & ~(int64_t)7, b1 = n1 & ~(int64_t)7;
    for (int64_t j1 = 0; j1 < b1; j1 += 8)
        for (int64_t j0 = 0; j0 < b0; j0 += 8) {
            const char *s = src + j0 * s0 + j1 * 2;
            char *d = dst + j1 * d1 + j0 * 2;
            __m128i r[8], a[8], b[8];
            for (int k = 0; k < 8; k++) r[k] = _mm_loadu_si128((const __m128i *)(const void *)(s + k * s0));
            for (int k = 0; k < 4; k++) {
                a[2 * k] = _mm_unpacklo_epi16(r[2 * k], r[2 * k + 1]);     /* columns 0-3 of rows 2k, 2k+1 */
                a[2 * k + 1] = _mm_unpackhi_epi16(r[2 * k], r[2 * k + 1]); /* columns 4-7 */
            }
            for (int h = 0; h < 2; h++)     /* h: columns 0-3 or 4-7 */
                for (int q = 0; q < 2; q++) { /* q: rows 0-3 or 4-7 */
                    b[4 * h + 2 * q] = _mm_unpacklo_epi32(a[4 * q + h], a[4 * q + 2 + h]);
                    b[4 * h + 2 * q + 1] = _mm_unpackhi_epi32(a[4 * q + h], a[4 * q + 2 + h]);
                }
            /* b[4h + 2q + p] holds columns 4h + 2p and 4h + 2p + 1 of rows 4q..4q+3 */
            for (int h = 0; h < 2; h++)
                for (int p = 0; p < 2; p++) {
                    __m128i lo = b[4 * h + p], hi = b[4 * h + 2 + p];
                    _mm_storeu_si128((__m128i *)(void *)(d + (4 * h + 2 * p) * d1), _mm_unpacklo_epi64(lo, hi));
                    _mm_storeu_si128((__m128i *)(void *)(d + (4 * h + 2 * p + 1) * d1), _mm_unpackhi_epi64(lo, hi));
                }
        }
    th__tile_rest_sized(dst, d1, src, s0, n0, n1, b0, b1, 2);
}
#endif

#if defined(__GNUC__) && defined(__x86_64__)
#define TH__COPY_AVX2 1
static int th__simd_level(void); /* core/vecmath.h: 0 baseline, 1 AVX2, 2 AVX-512 */

static TH__HOT __attribute__((target("avx2"))) void th__tile_avx2_4(char *dst, int64_t d1, const char *src,
                                                                     int64_t s0, int64_t n0, int64_t n1)
{
    const int64_t b0 = n0 & ~(int64_t)7, b1 = n1 & ~(int64_t)7;
    for (int64_t j1 = 0; j1 < b1; j1 += 8)
        for (int64_t j0 = 0; j0 < b0; j0 += 8) {
            const char *s = src + j0 * s0 + j1 * 4;
            char *d = dst + j1 * d1 + j0 * 4;
            __m256 r[8], t[8], u[8];
            for (int k = 0; k < 8; k++) r[k] = _mm256_loadu_ps((const float *)(const void *)(s + k * s0));
            for (int k = 0; k < 8; k += 2) {
                t[k] = _mm256_unpacklo_ps(r[k], r[k + 1]);     /* per 128-bit lane: columns 0,1 (4,5) */
                t[k + 1] = _mm256_unpackhi_ps(r[k], r[k + 1]); /* columns 2,3 (6,7) */
            }
            for (int k = 0; k < 8; k += 4) { /* u[k + c]: column c | c + 4 of rows k..k+3 */
                u[k] = _mm256_shuffle_ps(t[k], t[k + 2], 0x44);
                u[k + 1] = _mm256_shuffle_ps(t[k], t[k + 2], 0xee);
                u[k + 2] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0x44);
                u[k + 3] = _mm256_shuffle_ps(t[k + 1], t[k + 3], 0xee);
            }
            for (int c = 0; c < 4; c++) {
                _mm256_storeu_ps((float *)(void *)(d + c * d1), _mm256_permute2f128_ps(u[c], u[c + 4], 0x20));
                _mm256_storeu_ps((float *)(void *)(d + (c + 4) * d1), _mm256_permute2f128_ps(u[c], u[c + 4], 0x31));
            }
        }
    th__tile_rest_sized(dst, d1, src, s0, n0, n1, b0, b1, 4);
}

static TH__HOT __attribute__((target("avx2"))) void th__tile_avx2_8(char *dst, int64_t d1, const char *src,
                                                                     int64_t s0, int64_t n0, int64_t n1)
{
    const int64_t b0 = n0 & ~(int64_t)3, b1 = n1 & ~(int64_t)3;
    for (int64_t j1 = 0; j1 < b1; j1 += 4)
        for (int64_t j0 = 0; j0 < b0; j0 += 4) {
            const char *s = src + j0 * s0 + j1 * 8;
            char *d = dst + j1 * d1 + j0 * 8;
            __m256d r0 = _mm256_loadu_pd((const double *)(const void *)s);
            __m256d r1 = _mm256_loadu_pd((const double *)(const void *)(s + s0));
            __m256d r2 = _mm256_loadu_pd((const double *)(const void *)(s + 2 * s0));
            __m256d r3 = _mm256_loadu_pd((const double *)(const void *)(s + 3 * s0));
            __m256d t0 = _mm256_unpacklo_pd(r0, r1), t1 = _mm256_unpackhi_pd(r0, r1); /* columns 0|2, 1|3 */
            __m256d t2 = _mm256_unpacklo_pd(r2, r3), t3 = _mm256_unpackhi_pd(r2, r3);
            _mm256_storeu_pd((double *)(void *)d, _mm256_permute2f128_pd(t0, t2, 0x20));
            _mm256_storeu_pd((double *)(void *)(d + d1), _mm256_permute2f128_pd(t1, t3, 0x20));
            _mm256_storeu_pd((double *)(void *)(d + 2 * d1), _mm256_permute2f128_pd(t0, t2, 0x31));
            _mm256_storeu_pd((double *)(void *)(d + 3 * d1), _mm256_permute2f128_pd(t1, t3, 0x31));
        }
    th__tile_rest_sized(dst, d1, src, s0, n0, n1, b0, b1, 8);
}
#endif

/* The tile kernel for es-byte elements on this CPU; NULL for a size no dtype has. */
static th__tile_fn th__tile_kernel(size_t es)
{
#ifdef TH__COPY_AVX2
    if (th__simd_level() >= 1 && es == 4) return th__tile_avx2_4;
    if (th__simd_level() >= 1 && es == 8) return th__tile_avx2_8;
#endif
#if defined(__SSE2__)
    if (es == 2) return th__tile_sse2_2;
    if (es == 4) return th__tile_sse2_4;
    if (es == 8) return th__tile_sse2_8;
#endif
    switch (es) {
    case 1: return th__tile_scalar1;
    case 2: return th__tile_scalar2;
    case 4: return th__tile_scalar4;
    case 8: return th__tile_scalar8;
    case 16: return th__tile_scalar16;
    default: return NULL;
    }
}

typedef struct th__tiles {
    const th__iter *it; /* dims 0 and 1 the transpose, 2.. the batch */
    th__tile_fn kernel;
    int64_t rows, cols; /* tiles along dim 1 and dim 0 per batch element */
} th__tiles;

/* Tiles [begin, end), numbered batch-major, then along dim 1, then along dim 0: a thread's share is a run of
 * whole dst rows where it can be. */
static void th__tiles_run(void *ctx, int64_t begin, int64_t end)
{
    const th__tiles *t = (const th__tiles *)ctx;
    const th__iter *it = t->it;
    const int64_t n0 = it->shape[0], n1 = it->shape[1], s0 = it->strides[1][0], d1 = it->strides[0][1];
    const int64_t es = it->strides[0][0];
    for (int64_t w = begin; w < end; w++) {
        const int64_t i0 = w % t->cols * TH__TILE, i1 = w / t->cols % t->rows * TH__TILE;
        int64_t rest = w / t->cols / t->rows;
        char *dst = it->data[0];
        const char *src = it->data[1];
        for (int d = 2; d < it->ndim; d++) {
            int64_t i = rest % it->shape[d];
            rest /= it->shape[d];
            dst += i * it->strides[0][d];
            src += i * it->strides[1][d];
        }
        t->kernel(dst + i1 * d1 + i0 * es, d1, src + i0 * s0 + i1 * es, s0, n0 - i0 < TH__TILE ? n0 - i0 : TH__TILE,
                  n1 - i1 < TH__TILE ? n1 - i1 : TH__TILE);
    }
}

/* Whether the engine's dims are a (batch of) transpose(s) the tiles do better than rows would: dst contiguous
 * along dim 0, src along dim 1, both at least 8 long (a shorter dim 0 is a short row either way). */
static bool th__copy_tiles_fit(const th__iter *it, size_t es)
{
    return it->ndim >= 2 && it->strides[0][0] == (int64_t)es && it->strides[1][1] == (int64_t)es &&
           it->strides[1][0] != (int64_t)es && it->shape[0] >= 8 && it->shape[1] >= 8 && th__tile_kernel(es);
}

static void th__copy_tiled(const th__iter *it, size_t es)
{
    th__tiles t = {it, th__tile_kernel(es), (it->shape[1] + TH__TILE - 1) / TH__TILE,
                   (it->shape[0] + TH__TILE - 1) / TH__TILE};
    int64_t batch = it->numel / (it->shape[0] * it->shape[1]);
    th__parallel_chunks(batch * t.rows * t.cols, th__threads_for(it->numel), th__tiles_run, &t);
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
        if (th__copy_tiles_fit(&it, es))
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
