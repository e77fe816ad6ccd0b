/* ops/linalg.h: linear algebra: dot, mv, addmv, mm, addmm, bmm, baddbmm, matmul, outer, addr.
 * Stamped per dtype through tensor_generic.h, for every dtype but bool.
 *
 * Every function reduces to one batched product C = beta*C + alpha*A@B (shapes and the result come from
 * linalg_erased.h). f32, f64, c64 and c128 go to CBLAS when built with TH_USE_CBLAS; everything else runs the
 * built-in kernel here: blocked and packed, accumulating in accreal (in uint64_t for integers, which wrap
 * modulo 2^bits without undefined behaviour). */
#if !defined(TH_REAL_IS_BOOL)
#ifndef TH__DEFINING

/* Every function here: inputs of any strides (transposed, expanded, negative), any of them may overlap the
 * output (they are read from a copy then). The new forms return a new tensor or NULL; the _out forms write
 * into out, which must have exactly the result's shape and this dtype, and return 0 or a negative status; the
 * _inplace forms write into their first argument. beta == 0 means the added tensor is not read (NaN in it
 * does not reach the result). Errors: NULL (TH_ERR_INVALID), a tensor of another dtype (TH_ERR_DTYPE),
 * device memory (TH_ERR_DEVICE), wrong ndim, inner sizes that differ, batch dims that do not broadcast, an
 * added tensor that does not broadcast to the result, an out of the wrong shape (TH_ERR_SHAPE), an out that
 * is read-only (TH_ERR_READ_ONLY) or whose elements overlap (TH_ERR_INVALID), out of memory. */

#else /* definitions */

/* ---- the type products are computed in ---- */

#if defined(TH_REAL_IS_INTEGER)
typedef uint64_t TH_PRIVATE(mm_t);
#elif defined(TH_REAL_IS_COMPLEX)
typedef th__mm_complex TH_PRIVATE(mm_t);
#else
typedef accreal TH_PRIVATE(mm_t);
#endif

static inline TH_PRIVATE(mm_t) TH_PRIVATE(mm_in)(real x)
{
#if defined(TH_REAL_IS_INTEGER)
    return (uint64_t)x; /* negative values wrap: products and sums modulo 2^64 keep the low bits right */
#elif defined(TH_REAL_IS_COMPLEX)
    th__mm_complex z = {th__c128_real(x), th__c128_imag(x)};
    return z;
#else
    return TH_REAL_TO_ACCREAL(x);
#endif
}

static inline real TH_PRIVATE(mm_back)(TH_PRIVATE(mm_t) v)
{
#if defined(TH_REAL_IS_INTEGER)
    return (real)v; /* modulo 2^bits (gcc and clang define the narrowing to a signed type so) */
#elif defined(TH_REAL_IS_C64)
    return th__c64_make((float)v.re, (float)v.im);
#elif defined(TH_REAL_IS_C128)
    return th__c128_make(v.re, v.im);
#else
    return TH_ACCREAL_TO_REAL(v);
#endif
}

static inline TH_PRIVATE(mm_t) TH_PRIVATE(mm_zero)(void)
{
#if defined(TH_REAL_IS_COMPLEX)
    th__mm_complex z = {0.0, 0.0};
    return z;
#else
    return 0;
#endif
}

static inline bool TH_PRIVATE(mm_is_zero)(TH_PRIVATE(mm_t) x)
{
#if defined(TH_REAL_IS_COMPLEX)
    return x.re == 0.0 && x.im == 0.0;
#else
    return x == 0;
#endif
}

static inline TH_PRIVATE(mm_t) TH_PRIVATE(mm_add)(TH_PRIVATE(mm_t) x, TH_PRIVATE(mm_t) y)
{
#if defined(TH_REAL_IS_COMPLEX)
    th__mm_complex z = {x.re + y.re, x.im + y.im};
    return z;
#else
    return x + y;
#endif
}

static inline TH_PRIVATE(mm_t) TH_PRIVATE(mm_mul)(TH_PRIVATE(mm_t) x, TH_PRIVATE(mm_t) y)
{
#if defined(TH_REAL_IS_COMPLEX)
    th__mm_complex z = {x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re};
    return z;
#else
    return x * y;
#endif
}

/* alpha*acc + beta*c (beta only when use_beta: the old c is then not read), stored as real. */
static inline void TH_PRIVATE(mm_store)(char *c, TH_PRIVATE(mm_t) acc, TH_PRIVATE(mm_t) alpha,
                                        TH_PRIVATE(mm_t) beta, bool use_beta)
{
    TH_PRIVATE(mm_t) v = TH_PRIVATE(mm_mul)(alpha, acc);
    if (use_beta) v = TH_PRIVATE(mm_add)(v, TH_PRIVATE(mm_mul)(beta, TH_PRIVATE(mm_in)(TH_PRIVATE(load)(c))));
    TH_PRIVATE(store)(c, TH_PRIVATE(mm_back)(v));
}

/* ---- the built-in kernel ---- */

/* The register block is MR rows by NR columns of accumulators, 64 bytes a row: two AVX registers (four
 * SSE2 ones) a row. The cache blocks: a packed KC x NR panel of B stays in L1, the MC x KC block of A in
 * L2. */
enum {
    TH_PRIVATE(MR) = 4,
    TH_PRIVATE(NR) = 64 / sizeof(TH_PRIVATE(mm_t)),
    TH_PRIVATE(KC) = 256,
    TH_PRIVATE(MC) = 128,
    TH_PRIVATE(NC) = 256
};
#define TH__MR TH_PRIVATE(MR)
#define TH__NR TH_PRIVATE(NR)

/* Rows i0.. of A (mc x kc, byte strides rs, cs) into panels of MR rows, each stored column by column; rows
 * past mc are zeros. */
static TH__HOT void TH_PRIVATE(mm_pack_a)(TH_PRIVATE(mm_t) *restrict dst, const char *a, int64_t rs, int64_t cs,
                                          int64_t mc, int64_t kc)
{
    for (int64_t i0 = 0; i0 < mc; i0 += TH__MR) {
        int64_t rows = mc - i0 < TH__MR ? mc - i0 : TH__MR;
        const char *panel = a + i0 * rs;
        for (int64_t p = 0; p < kc; p++) {
            for (int64_t i = 0; i < rows; i++) dst[i] = TH_PRIVATE(mm_in)(TH_PRIVATE(load)(panel + i * rs + p * cs));
            for (int64_t i = rows; i < TH__MR; i++) dst[i] = TH_PRIVATE(mm_zero)();
            dst += TH__MR;
        }
    }
}

/* Columns of B (kc x nc) into panels of NR columns, each stored row by row; columns past nc are zeros. */
static TH__HOT void TH_PRIVATE(mm_pack_b)(TH_PRIVATE(mm_t) *restrict dst, const char *b, int64_t rs, int64_t cs,
                                          int64_t kc, int64_t nc)
{
    for (int64_t j0 = 0; j0 < nc; j0 += TH__NR) {
        int64_t cols = nc - j0 < TH__NR ? nc - j0 : TH__NR;
        const char *panel = b + j0 * cs;
        for (int64_t p = 0; p < kc; p++) {
            const char *row = panel + p * rs;
            if (cs == (int64_t)sizeof(real))
                for (int64_t j = 0; j < cols; j++)
                    dst[j] = TH_PRIVATE(mm_in)(TH_PRIVATE(load)(row + j * (int64_t)sizeof(real)));
            else
                for (int64_t j = 0; j < cols; j++) dst[j] = TH_PRIVATE(mm_in)(TH_PRIVATE(load)(row + j * cs));
            for (int64_t j = cols; j < TH__NR; j++) dst[j] = TH_PRIVATE(mm_zero)();
            dst += TH__NR;
        }
    }
}

/* c (MR x NR, row stride ldc) += a panel (kc x MR) times b panel (kc x NR). Plain loops of constant trip
 * count: the compiler keeps the tile in registers and vectorises along j. Inlined into the two versions
 * below, each compiled for its instruction set. */
#ifdef TH__MM_AVX2
__attribute__((always_inline))
#endif
static inline void TH_PRIVATE(mm_micro_body)(int64_t kc, const TH_PRIVATE(mm_t) *restrict a,
                                             const TH_PRIVATE(mm_t) *restrict b, TH_PRIVATE(mm_t) *restrict c,
                                             int64_t ldc)
{
    TH_PRIVATE(mm_t) t[TH__MR][TH__NR];
    for (int i = 0; i < TH__MR; i++)
        for (int j = 0; j < TH__NR; j++) t[i][j] = c[i * ldc + j];
    for (int64_t p = 0; p < kc; p++) {
        const TH_PRIVATE(mm_t) *ap = a + p * TH__MR, *bp = b + p * TH__NR;
        for (int i = 0; i < TH__MR; i++)
            for (int j = 0; j < TH__NR; j++) {
#if defined(TH_REAL_IS_COMPLEX)
                t[i][j].re += ap[i].re * bp[j].re - ap[i].im * bp[j].im;
                t[i][j].im += ap[i].re * bp[j].im + ap[i].im * bp[j].re;
#else
                t[i][j] += ap[i] * bp[j];
#endif
            }
    }
    for (int i = 0; i < TH__MR; i++)
        for (int j = 0; j < TH__NR; j++) c[i * ldc + j] = t[i][j];
}

typedef void (*TH_PRIVATE(mm_micro_fn))(int64_t kc, const TH_PRIVATE(mm_t) *restrict a,
                                        const TH_PRIVATE(mm_t) *restrict b, TH_PRIVATE(mm_t) *restrict c,
                                        int64_t ldc);

static TH__HOT void TH_PRIVATE(mm_micro)(int64_t kc, const TH_PRIVATE(mm_t) *restrict a,
                                         const TH_PRIVATE(mm_t) *restrict b, TH_PRIVATE(mm_t) *restrict c,
                                         int64_t ldc)
{
    TH_PRIVATE(mm_micro_body)(kc, a, b, c, ldc);
}

#ifdef TH__MM_AVX2
static TH__HOT __attribute__((target("avx2"))) void
TH_PRIVATE(mm_micro_avx2)(int64_t kc, const TH_PRIVATE(mm_t) *restrict a, const TH_PRIVATE(mm_t) *restrict b,
                          TH_PRIVATE(mm_t) *restrict c, int64_t ldc)
{
    TH_PRIVATE(mm_micro_body)(kc, a, b, c, ldc);
}
#endif

typedef struct TH_PRIVATE(mm_ctx) {
    const th__mm *p;
    TH_PRIVATE(mm_t) alpha, beta;
    bool use_beta;
    int64_t mblocks, nblocks, total; /* output blocks per batch entry along m and n, and in all */
    int nthreads;
    TH_PRIVATE(mm_t) *scratch; /* per thread: packed A, packed B, the block's accumulators */
    int64_t per_thread;
    TH_PRIVATE(mm_micro_fn) micro;
} TH_PRIVATE(mm_ctx);

/* One MC x NC block of C: every k panel accumulates into acc, which is written once at the end, so an
 * output element is rounded to real once. */
static void TH_PRIVATE(mm_block)(const TH_PRIVATE(mm_ctx) *x, TH_PRIVATE(mm_t) *work, int64_t block)
{
    const th__mm *p = x->p;
    const int64_t es = (int64_t)p->es;
    int64_t per_batch = x->mblocks * x->nblocks;
    int64_t bi = block / per_batch, ib = block % per_batch / x->nblocks, jb = block % x->nblocks;
    char *c, *a, *b;
    th__mm_batch_data(p, bi, &c, &a, &b);
    int64_t i0 = ib * TH_PRIVATE(MC), j0 = jb * TH_PRIVATE(NC);
    int64_t mc = p->m - i0 < TH_PRIVATE(MC) ? p->m - i0 : TH_PRIVATE(MC);
    int64_t nc = p->n - j0 < TH_PRIVATE(NC) ? p->n - j0 : TH_PRIVATE(NC);
    int64_t mcp = (mc + TH__MR - 1) / TH__MR * TH__MR, ncp = (nc + TH__NR - 1) / TH__NR * TH__NR;
    TH_PRIVATE(mm_t) *apack = work, *bpack = apack + (int64_t)TH_PRIVATE(MC) * TH_PRIVATE(KC),
                     *acc = bpack + (int64_t)TH_PRIVATE(KC) * TH_PRIVATE(NC);
    for (int64_t i = 0; i < mcp * ncp; i++) acc[i] = TH_PRIVATE(mm_zero)();
    for (int64_t p0 = 0; p0 < p->k; p0 += TH_PRIVATE(KC)) {
        int64_t kc = p->k - p0 < TH_PRIVATE(KC) ? p->k - p0 : TH_PRIVATE(KC);
        TH_PRIVATE(mm_pack_a)(apack, a + (i0 * p->a.rs + p0 * p->a.cs) * es, p->a.rs * es, p->a.cs * es, mc, kc);
        TH_PRIVATE(mm_pack_b)(bpack, b + (p0 * p->b.rs + j0 * p->b.cs) * es, p->b.rs * es, p->b.cs * es, kc, nc);
        for (int64_t jr = 0; jr < ncp; jr += TH__NR)
            for (int64_t ir = 0; ir < mcp; ir += TH__MR)
                x->micro(kc, apack + ir * kc, bpack + jr * kc, acc + ir * ncp + jr, ncp);
    }
    char *cb = c + (i0 * p->c.rs + j0 * p->c.cs) * es;
    for (int64_t i = 0; i < mc; i++)
        for (int64_t j = 0; j < nc; j++)
            TH_PRIVATE(mm_store)(cb + (i * p->c.rs + j * p->c.cs) * es, acc[i * ncp + j], x->alpha, x->beta,
                                 x->use_beta);
}

/* Chunk t of th__parallel_chunks(nthreads, nthreads, ...) is thread t: its own scratch, its share of the
 * blocks. */
static void TH_PRIVATE(mm_blocks)(void *ctx, int64_t begin, int64_t end)
{
    const TH_PRIVATE(mm_ctx) *x = (const TH_PRIVATE(mm_ctx) *)ctx;
    for (int64_t t = begin; t < end; t++) {
        TH_PRIVATE(mm_t) *work = x->scratch + t * x->per_thread;
        for (int64_t blk = x->total * t / x->nthreads; blk < x->total * (t + 1) / x->nthreads; blk++)
            TH_PRIVATE(mm_block)(x, work, blk);
    }
}

/* s + x*y for elements at x and y. */
static inline TH_PRIVATE(mm_t) TH_PRIVATE(mm_madd)(TH_PRIVATE(mm_t) s, const char *x, const char *y)
{
    TH_PRIVATE(mm_t) xv = TH_PRIVATE(mm_in)(TH_PRIVATE(load)(x)), yv = TH_PRIVATE(mm_in)(TH_PRIVATE(load)(y));
    return TH_PRIVATE(mm_add)(s, TH_PRIVATE(mm_mul)(xv, yv));
}

/* a . b over k elements (byte strides) in eight running sums, added up in a fixed order: the compiler
 * vectorises independent sums but may not reorder one. Unit strides get their own loop, whose constant
 * stride the compiler turns into vector loads. */
static TH__HOT TH_PRIVATE(mm_t) TH_PRIVATE(mm_dot)(const char *a, int64_t as, const char *b, int64_t bs, int64_t k)
{
    TH_PRIVATE(mm_t) s[8];
    for (int u = 0; u < 8; u++) s[u] = TH_PRIVATE(mm_zero)();
    int64_t p = 0;
    const int64_t es = (int64_t)sizeof(real);
    if (as == es && bs == es) {
        for (; p + 8 <= k; p += 8)
            for (int u = 0; u < 8; u++) s[u] = TH_PRIVATE(mm_madd)(s[u], a + (p + u) * es, b + (p + u) * es);
    } else {
        for (; p + 8 <= k; p += 8)
            for (int u = 0; u < 8; u++) s[u] = TH_PRIVATE(mm_madd)(s[u], a + (p + u) * as, b + (p + u) * bs);
    }
    for (; p < k; p++) s[0] = TH_PRIVATE(mm_madd)(s[0], a + p * as, b + p * bs);
    for (int u = 1; u < 8; u++) s[0] = TH_PRIVATE(mm_add)(s[0], s[u]);
    return s[0];
}

/* Products with one output row or column whose long operand runs along its small stride: one dot per
 * output element, no packing. */
static void TH_PRIVATE(mm_dots)(void *ctx, int64_t begin, int64_t end)
{
    const TH_PRIVATE(mm_ctx) *x = (const TH_PRIVATE(mm_ctx) *)ctx;
    const th__mm *p = x->p;
    const int64_t es = (int64_t)p->es, mn = p->m * p->n;
    for (int64_t o = begin; o < end; o++) {
        char *c, *a, *b;
        th__mm_batch_data(p, o / mn, &c, &a, &b);
        int64_t i = o % mn / p->n, j = o % p->n;
        TH_PRIVATE(mm_t) d = TH_PRIVATE(mm_dot)(a + i * p->a.rs * es, p->a.cs * es, b + j * p->b.cs * es,
                                                p->b.rs * es, p->k);
        TH_PRIVATE(mm_store)(c + (i * p->c.rs + j * p->c.cs) * es, d, x->alpha, x->beta, x->use_beta);
    }
}

/* C = beta*C (zeros without use_beta): the product of an empty inner dim. */
static void TH_PRIVATE(mm_scale)(const th__mm *p, TH_PRIVATE(mm_t) beta, bool use_beta)
{
    const int64_t es = (int64_t)p->es;
    TH_PRIVATE(mm_t) one = TH_PRIVATE(mm_in)(TH_PRIVATE(from_i64)(1));
    for (int64_t bi = 0; bi < p->batch; bi++) {
        char *c;
        th__mm_batch_data(p, bi, &c, NULL, NULL);
        for (int64_t i = 0; i < p->m; i++)
            for (int64_t j = 0; j < p->n; j++)
                TH_PRIVATE(mm_store)(c + (i * p->c.rs + j * p->c.cs) * es, TH_PRIVATE(mm_zero)(), one, beta, use_beta);
    }
}

static int64_t TH_PRIVATE(mm_work)(const th__mm *p)
{
    int64_t outs = p->batch * p->m * p->n; /* the result's element count: it exists, so no overflow */
    return p->k > 0 && outs > INT64_MAX / p->k ? INT64_MAX : outs * p->k;
}

static int TH_PRIVATE(mm_builtin)(const char *fn, const th__mm *p, TH_PRIVATE(mm_t) beta, TH_PRIVATE(mm_t) alpha,
                                  bool use_beta)
{
    TH_PRIVATE(mm_ctx) x = {p, alpha, beta, use_beta, 0, 0, 0, 1, NULL, 0, TH_PRIVATE(mm_micro)};
#ifdef TH__MM_AVX2
    if (th__mm_have_avx2()) x.micro = TH_PRIVATE(mm_micro_avx2);
#endif
    int nthreads = th__threads_for(TH_PRIVATE(mm_work)(p));
    bool column = p->n == 1 && (p->m == 1 || llabs(p->a.cs) <= llabs(p->a.rs));
    bool row = p->m == 1 && (p->n == 1 || llabs(p->b.rs) <= llabs(p->b.cs));
    if (column || row) {
        int64_t outs = p->batch * p->m * p->n;
        th__parallel_chunks(outs, nthreads, TH_PRIVATE(mm_dots), &x);
        return TH_OK;
    }
    x.mblocks = (p->m + TH_PRIVATE(MC) - 1) / TH_PRIVATE(MC);
    x.nblocks = (p->n + TH_PRIVATE(NC) - 1) / TH_PRIVATE(NC);
    x.total = p->batch * x.mblocks * x.nblocks;
    x.nthreads = (int64_t)nthreads < x.total ? nthreads : (int)x.total;
    x.per_thread = (int64_t)TH_PRIVATE(MC) * TH_PRIVATE(KC) + (int64_t)TH_PRIVATE(KC) * TH_PRIVATE(NC) +
                   (int64_t)TH_PRIVATE(MC) * TH_PRIVATE(NC);
    th_storage *scratch = th_storage_new(x.per_thread * x.nthreads * (int64_t)sizeof(TH_PRIVATE(mm_t)), NULL, NULL);
    if (!scratch) return th__fail(TH_ERR_NOMEM, fn, "no memory for the packed blocks of a product");
    x.scratch = (TH_PRIVATE(mm_t) *)th_storage_raw_data(scratch);
    th__parallel_chunks(x.nthreads, x.nthreads, TH_PRIVATE(mm_blocks), &x);
    th_storage_release(scratch);
    return TH_OK;
}

#undef TH__MR
#undef TH__NR

/* ---- CBLAS ---- */

#if defined(TH_USE_CBLAS) && (defined(TH_REAL_IS_F32) || defined(TH_REAL_IS_F64) || defined(TH_REAL_IS_COMPLEX))
#define TH__LINALG_BLAS 1

/* BLAS takes a matrix as a pointer, an order and a leading dimension. */
typedef struct TH_PRIVATE(blas_mat) {
    char *data;
    bool trans; /* column-major */
    int ld;
} TH_PRIVATE(blas_mat);

static void TH_PRIVATE(blas_gemm)(bool col_major, bool ta, bool tb, int m, int n, int k, real alpha, const void *a,
                                  int lda, const void *b, int ldb, real beta, void *c, int ldc)
{
    const enum CBLAS_ORDER order = col_major ? CblasColMajor : CblasRowMajor;
    const enum CBLAS_TRANSPOSE opa = ta ? CblasTrans : CblasNoTrans, opb = tb ? CblasTrans : CblasNoTrans;
#if defined(TH_REAL_IS_F32)
    cblas_sgemm(order, opa, opb, m, n, k, alpha, (const float *)a, lda, (const float *)b, ldb, beta, (float *)c, ldc);
#elif defined(TH_REAL_IS_F64)
    cblas_dgemm(order, opa, opb, m, n, k, alpha, (const double *)a, lda, (const double *)b, ldb, beta, (double *)c,
                ldc);
#elif defined(TH_REAL_IS_C64)
    cblas_cgemm(order, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
#else
    cblas_zgemm(order, opa, opb, m, n, k, &alpha, a, lda, b, ldb, &beta, c, ldc);
#endif
}

static bool TH_PRIVATE(blas_aligned)(const char *p) { return (uintptr_t)p % _Alignof(real) == 0; }

/* BLAS's vector kernels for real dtypes only. Debian's OpenBLAS 0.3.21 reads past the end of complex vectors: cdotu /
 * zdotu with an increment other than 1 read one element beyond either vector, and cgemv_n / zgemv_n beyond theirs
 * (upstream issue #4013: a segfault where a vector ends at the end of a page, as a mapped file's tensor may). Complex
 * products of vector shape go through gemm, which reads only its operands; a strided vector is a one-column matrix
 * whose leading dim is its increment, so nothing is copied for it. */
#if !defined(TH_REAL_IS_COMPLEX)

/* y = alpha * op(A) x + beta * y, A stored rows x cols row-major. */
static void TH_PRIVATE(blas_gemv)(bool trans, int rows, int cols, real alpha, const void *a, int lda, const void *x,
                                  int incx, real beta, void *y, int incy)
{
    const enum CBLAS_TRANSPOSE op = trans ? CblasTrans : CblasNoTrans;
#if defined(TH_REAL_IS_F32)
    cblas_sgemv(CblasRowMajor, op, rows, cols, alpha, (const float *)a, lda, (const float *)x, incx, beta, (float *)y,
                incy);
#else
    cblas_dgemv(CblasRowMajor, op, rows, cols, alpha, (const double *)a, lda, (const double *)x, incx, beta,
                (double *)y, incy);
#endif
}

static real TH_PRIVATE(blas_dot)(int n, const void *x, int incx, const void *y, int incy)
{
#if defined(TH_REAL_IS_F32)
    return cblas_sdot(n, (const float *)x, incx, (const float *)y, incy);
#else
    return cblas_ddot(n, (const double *)x, incx, (const double *)y, incy);
#endif
}

/* A vector's BLAS increment: its stride, or 1 for fewer than two elements; false when BLAS cannot take it. */
static bool TH_PRIVATE(blas_inc)(const char *data, int64_t len, int64_t stride, int *inc)
{
    if (len <= 1) stride = 1;
    if (stride < 1 || stride > INT_MAX || !TH_PRIVATE(blas_aligned)(data)) return false;
    *inc = (int)stride;
    return true;
}

#endif /* !TH_REAL_IS_COMPLEX */

/* Copies a rows x cols matrix between any strides (bytes); same dtype. */
static void TH_PRIVATE(blas_copy)(char *dst, int64_t drs, int64_t dcs, const char *src, int64_t srs, int64_t scs,
                                  int64_t rows, int64_t cols)
{
    for (int64_t i = 0; i < rows; i++)
        for (int64_t j = 0; j < cols; j++)
            memcpy(dst + i * drs + j * dcs, src + i * srs + j * scs, sizeof(real));
}

/* The operand as BLAS takes it: itself when its layout allows, else packed row-major into buf. */
static TH_PRIVATE(blas_mat) TH_PRIVATE(blas_operand)(char *data, int64_t rows, int64_t cols, int64_t rs, int64_t cs,
                                                     char *buf, bool fill)
{
    TH_PRIVATE(blas_mat) mat;
    bool trans;
    int64_t ld;
    if (th__blas_layout(rows, cols, rs, cs, &trans, &ld) && TH_PRIVATE(blas_aligned)(data)) {
        mat.data = data;
        mat.trans = trans;
        mat.ld = (int)ld;
        return mat;
    }
    const int64_t es = (int64_t)sizeof(real);
    if (fill) TH_PRIVATE(blas_copy)(buf, cols * es, es, data, rs * es, cs * es, rows, cols);
    mat.data = buf;
    mat.trans = false;
    mat.ld = cols > 1 ? (int)cols : 1;
    return mat;
}

/* One product of the batch through BLAS: dot, gemv or gemm by shape. */
static void TH_PRIVATE(blas_one)(const th__mm *p, char *c, char *a, char *b, real beta, real alpha, bool use_beta,
                                 char *abuf, char *bbuf, char *cbuf)
{
    const int m = (int)p->m, n = (int)p->n, k = (int)p->k;
    const real zero = TH_PRIVATE(from_i64)(0);
#if !defined(TH_REAL_IS_COMPLEX) /* see blas_gemv */
    int inca = 1, incb = 1, incc = 1;
    if (m == 1 && n == 1 && TH_PRIVATE(blas_inc)(a, k, p->a.cs, &inca) && TH_PRIVATE(blas_inc)(b, k, p->b.rs, &incb)) {
        real d = TH_PRIVATE(blas_dot)(k, a, inca, b, incb);
        TH_PRIVATE(mm_store)(c, TH_PRIVATE(mm_in)(d), TH_PRIVATE(mm_in)(alpha), TH_PRIVATE(mm_in)(beta), use_beta);
        return;
    }
    /* gemv: one output column (A @ x) or one output row (x^T @ B as B^T @ x). BLAS may read y when beta
     * is 0; it is zeroed first so that NaN in it stays out. */
    bool column = n == 1, row = m == 1;
    if ((column || row) && TH_PRIVATE(blas_inc)(c, column ? m : n, column ? p->c.rs : p->c.cs, &incc) &&
        (column ? TH_PRIVATE(blas_inc)(b, k, p->b.rs, &incb) : TH_PRIVATE(blas_inc)(a, k, p->a.cs, &inca))) {
        const int64_t es = (int64_t)sizeof(real);
        if (!use_beta)
            for (int i = 0; i < (column ? m : n); i++) TH_PRIVATE(store)(c + (int64_t)i * incc * es, zero);
        if (column) {
            TH_PRIVATE(blas_mat) A = TH_PRIVATE(blas_operand)(a, m, k, p->a.rs, p->a.cs, abuf, true);
            TH_PRIVATE(blas_gemv)(A.trans, A.trans ? k : m, A.trans ? m : k, alpha, A.data, A.ld, b, incb,
                                  use_beta ? beta : zero, c, incc);
        } else {
            TH_PRIVATE(blas_mat) B = TH_PRIVATE(blas_operand)(b, k, n, p->b.rs, p->b.cs, bbuf, true);
            TH_PRIVATE(blas_gemv)(!B.trans, B.trans ? n : k, B.trans ? k : n, alpha, B.data, B.ld, a, inca,
                                  use_beta ? beta : zero, c, incc);
        }
        return;
    }
#endif
    TH_PRIVATE(blas_mat) A = TH_PRIVATE(blas_operand)(a, m, k, p->a.rs, p->a.cs, abuf, true);
    TH_PRIVATE(blas_mat) B = TH_PRIVATE(blas_operand)(b, k, n, p->b.rs, p->b.cs, bbuf, true);
    TH_PRIVATE(blas_mat) C = TH_PRIVATE(blas_operand)(c, m, n, p->c.rs, p->c.cs, cbuf, use_beta);
    /* Column-major C: the same call in BLAS's column-major order, where a row-major operand reads as
     * transposed. */
    TH_PRIVATE(blas_gemm)(C.trans, A.trans != C.trans, B.trans != C.trans, m, n, k, alpha, A.data, A.ld, B.data, B.ld,
                          use_beta ? beta : zero, C.data, C.ld);
    if (C.data == cbuf) {
        const int64_t es = (int64_t)sizeof(real);
        TH_PRIVATE(blas_copy)(c, p->c.rs * es, p->c.cs * es, cbuf, n * es, es, m, n);
    }
}

/* The product through BLAS; false (nothing done) when a size exceeds BLAS's int. */
static bool TH_PRIVATE(mm_blas)(const char *fn, const th__mm *p, real beta, real alpha, bool use_beta, int *status)
{
    if (p->m > INT_MAX || p->n > INT_MAX || p->k > INT_MAX) return false;
    *status = TH_OK;
    /* Scratch for operands BLAS cannot take as they are (a layout it has no flag for, or memory not aligned
     * for the element type); allocated only when one needs it. */
    bool trans;
    int64_t ld, lens[3] = {p->m * p->k, p->k * p->n, p->m * p->n};
    bool fit = th__blas_layout(p->m, p->k, p->a.rs, p->a.cs, &trans, &ld) &&
               th__blas_layout(p->k, p->n, p->b.rs, p->b.cs, &trans, &ld) &&
               th__blas_layout(p->m, p->n, p->c.rs, p->c.cs, &trans, &ld) && TH_PRIVATE(blas_aligned)(p->a.data) &&
               TH_PRIVATE(blas_aligned)(p->b.data) && TH_PRIVATE(blas_aligned)(p->c.data);
    th_storage *scratch = NULL;
    char *buf[3] = {NULL, NULL, NULL};
    if (!fit) {
        /* expanded operands can be far larger than their memory: leave those to the built-in kernel */
        for (int i = 0; i < 3; i++)
            if (lens[i] > INT64_MAX / 64) return false;
        scratch = th_storage_new((lens[0] + lens[1] + lens[2]) * (int64_t)sizeof(real), NULL, NULL);
        if (!scratch) {
            *status = th__fail(TH_ERR_NOMEM, fn, "no memory to repack an operand for BLAS");
            return true;
        }
        buf[0] = (char *)th_storage_raw_data(scratch);
        buf[1] = buf[0] + lens[0] * (int64_t)sizeof(real);
        buf[2] = buf[1] + lens[1] * (int64_t)sizeof(real);
    }
    for (int64_t bi = 0; bi < p->batch; bi++) {
        char *c, *a, *b;
        th__mm_batch_data(p, bi, &c, &a, &b);
        TH_PRIVATE(blas_one)(p, c, a, b, beta, alpha, use_beta, buf[0], buf[1], buf[2]);
    }
    th_storage_release(scratch);
    return true;
}
#endif

/* ---- the front doors ---- */

static int TH_PRIVATE(mm_exec)(const char *fn, const th__mm *p, real beta, real alpha, bool use_beta)
{
    if (p->batch == 0 || p->m == 0 || p->n == 0) return TH_OK;
    if (p->k == 0) {
        TH_PRIVATE(mm_scale)(p, TH_PRIVATE(mm_in)(beta), use_beta);
        return TH_OK;
    }
#ifdef TH__LINALG_BLAS
    int status;
    if (th_linalg_blas() && TH_PRIVATE(mm_blas)(fn, p, beta, alpha, use_beta, &status)) return status;
#endif
    return TH_PRIVATE(mm_builtin)(fn, p, TH_PRIVATE(mm_in)(beta), TH_PRIVATE(mm_in)(alpha), use_beta);
}

/* Checks, makes or takes the result, runs the product. to_out: out must be given (the _out and _inplace
 * forms); has_bias: the add* forms (bias then must be given). *result gets the result, retained, if asked. */
static int TH_PRIVATE(mm_run)(const char *fn, th__mm_kind kind, bool to_out, TH_NAME(tensor) *out,
                              const TH_NAME(tensor) *bias, bool has_bias, const TH_NAME(tensor) *a,
                              const TH_NAME(tensor) *b, real beta, real alpha, TH_NAME(tensor) **result)
{
    if (to_out && !out) return th__fail(TH_ERR_INVALID, fn, "NULL out");
    if (th__mm_any_on_device(TH__B(out), TH__B(bias), TH__B(a), TH__B(b)))
        return th__mm_on_device(fn, kind, TH_DT_ENUM, TH__B(out), TH__B(bias), has_bias, TH__B(a), TH__B(b), &beta,
                                &alpha, (th_tensor **)result);
    bool use_beta = has_bias && !TH_PRIVATE(mm_is_zero)(TH_PRIVATE(mm_in)(beta));
    th__mm_job job;
    int status = th__mm_prepare(fn, kind, TH_DT_ENUM, TH__B(out), TH__B(bias), has_bias, use_beta, TH__B(a), TH__B(b),
                                &job);
    if (status) return status;
    status = TH_PRIVATE(mm_exec)(fn, &job.plan, beta, alpha, use_beta);
    if (status == TH_OK && result) *result = TH__T(th_tensor_retain(job.result));
    th__mm_job_release(&job);
    return status;
}

static TH_NAME(tensor) *TH_PRIVATE(mm_new)(const char *fn, th__mm_kind kind, const TH_NAME(tensor) *bias,
                                           bool has_bias, const TH_NAME(tensor) *a, const TH_NAME(tensor) *b,
                                           real beta, real alpha)
{
    TH_NAME(tensor) *r = NULL;
    if (TH_PRIVATE(mm_run)(fn, kind, false, NULL, bias, has_bias, a, b, beta, alpha, &r)) return NULL;
    return r;
}

#undef TH__LINALG_BLAS

#endif /* definitions */

/* ---- the products: each stamps product_op.h's front doors (a fused beta*bias + alpha*product form has
 * TH_MM_BIAS) ---- */

/* a . b of two 1-d tensors of one size, as a 0-d tensor (no conjugation for complex). */
#define TH_OP dot
#define TH_MM_KIND TH__MM_DOT
#include "product_op.h"
/* mv(A, x): A (m x k) @ x (k), a vector of m. addmv(y, A, x, beta, alpha): beta*y + alpha*(A @ x); y
 * broadcasts to (m). */
#define TH_OP mv
#define TH_MM_KIND TH__MM_MV
#include "product_op.h"
#define TH_OP addmv
#define TH_MM_KIND TH__MM_MV
#define TH_MM_BIAS "y"
#include "product_op.h"
/* mm(A, B): A (m x k) @ B (k x n). addmm(C, A, B, beta, alpha): beta*C + alpha*(A @ B); C broadcasts to
 * (m, n). */
#define TH_OP mm
#define TH_MM_KIND TH__MM_MM
#include "product_op.h"
#define TH_OP addmm
#define TH_MM_KIND TH__MM_MM
#define TH_MM_BIAS "C"
#include "product_op.h"
/* bmm(A, B): A (b x m x k) @ B (b x k x n), one product per batch entry; the batch sizes must be equal.
 * baddbmm(C, A, B, beta, alpha): beta*C + alpha*bmm(A, B); C broadcasts to (b, m, n). */
#define TH_OP bmm
#define TH_MM_KIND TH__MM_BMM
#include "product_op.h"
#define TH_OP baddbmm
#define TH_MM_KIND TH__MM_BMM
#define TH_MM_BIAS "C"
#include "product_op.h"
/* NumPy's and PyTorch's matmul: 1-d . 1-d is dot (0-d); 2-d @ 2-d is mm; a 1-d a is a row (1 x k) and a 1-d
 * b a column (k x 1), that dim removed from the result; dims before the last two are batch dims and
 * broadcast. */
#define TH_OP matmul
#define TH_MM_KIND TH__MM_MATMUL
#include "product_op.h"
/* outer(x, y): x (m) outer y (n), the m x n matrix x[i]*y[j]. addr(A, x, y, beta, alpha): beta*A +
 * alpha*outer(x, y); A broadcasts to (m, n). */
#define TH_OP outer
#define TH_MM_KIND TH__MM_OUTER
#include "product_op.h"
#define TH_OP addr
#define TH_MM_KIND TH__MM_OUTER
#define TH_MM_BIAS "A"
#include "product_op.h"

#endif /* !TH_REAL_IS_BOOL */
