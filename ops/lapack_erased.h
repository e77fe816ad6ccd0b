/* ops/lapack_erased.h: dense linear algebra (solve, inv, det, slogdet, cholesky, qr, eigh, svd, svdvals,
 * solve_triangular, cholesky_solve, lu_factor, lu_solve), each written once over th_tensor * and a dtype (f32, f64,
 * c64, c128), dispatching to LAPACKE's s, d, c or z routine when built with TH_USE_LAPACK, else (all but qr, eigh,
 * svd, svdvals) to the small unblocked LU with partial pivoting, Cholesky and triangular substitution here; qr,
 * eigh and svd then refuse, naming the build option. The typed front doors are in
 * ops/lapack.h. Included twice by tensor.h: declarations, then (TH__DEFINING) the definitions.
 *
 * Layout: LAPACK is column-major. Every op copies its input once (LAPACK overwrites it) into a contiguous
 * scratch batch, column-major where the result is read back transposed anyway, row-major where the op is its own
 * transpose's (inv, cholesky, det: the row-major copy is the column-major transpose, and the result is written in
 * place into the result tensor when that is contiguous). A transposed contiguous input is then a straight copy. */
#ifndef TH__DEFINING

/* Whether this build factors through LAPACKE (TH_USE_LAPACK). Without it solve, inv, det, slogdet and cholesky
 * run the built-in unblocked LU / Cholesky; qr, eigh, svd and svdvals refuse with TH_ERR_UNSUPPORTED. */
TH_API bool th_linalg_lapack(void);

/* Which matrix norm matrix_norm and cond take (NumPy's ord, torch.linalg's ord): Frobenius, nuclear (the sum of the
 * singular values), the largest (1) or smallest (-1) column sum of |a|, the largest (2) or smallest (-2) singular
 * value, the largest (inf) or smallest (-inf) row sum of |a|. */
typedef enum th_norm_ord {
    TH_NORM_FRO,
    TH_NORM_NUC,
    TH_NORM_1,
    TH_NORM_NEG_1,
    TH_NORM_2,
    TH_NORM_NEG_2,
    TH_NORM_INF,
    TH_NORM_NEG_INF
} th_norm_ord;

#else

#ifdef TH_USE_LAPACK
/* lapacke.h would include <complex.h> (whose macros complex and I break user code in this translation unit)
 * unless the complex types are named first; every call here passes void pointers, so any definition fits. */
#ifndef lapack_complex_float
typedef struct th__lapack_c64 {
    float re, im;
} th__lapack_c64;
#define lapack_complex_float th__lapack_c64
#endif
#ifndef lapack_complex_double
typedef struct th__lapack_c128 {
    double re, im;
} th__lapack_c128;
#define lapack_complex_double th__lapack_c128
#endif
#include <lapacke.h>
typedef lapack_int th__la_int;
TH_API bool th_linalg_lapack(void) { return true; }
#else
typedef int th__la_int;
TH_API bool th_linalg_lapack(void) { return false; }
#endif

/* ---- elements as pairs of doubles ---- */

TH__MAYBE_UNUSED static bool th__la_complex(th_dtype dt) { return dt == TH_C64 || dt == TH_C128; }

/* The real dtype of the same precision (c64: f32, c128: f64). */
TH__MAYBE_UNUSED static th_dtype th__la_part(th_dtype dt)
{
    return dt == TH_C64 ? TH_F32 : dt == TH_C128 ? TH_F64 : dt;
}

TH__MAYBE_UNUSED static th__mm_complex th__la_get(th_dtype dt, const void *a, int64_t i)
{
    th__mm_complex z = {0.0, 0.0};
    const char *p = (const char *)a;
    float f[2];
    switch (dt) {
    case TH_F32: memcpy(f, p + i * 4, 4); z.re = f[0]; break;
    case TH_F64: memcpy(&z.re, p + i * 8, 8); break;
    case TH_C64: memcpy(f, p + i * 8, 8); z.re = f[0]; z.im = f[1]; break;
    default: memcpy(&z, p + i * 16, 16); break;
    }
    return z;
}

TH__MAYBE_UNUSED static void th__la_put(th_dtype dt, void *a, int64_t i, th__mm_complex z)
{
    char *p = (char *)a;
    float f[2] = {(float)z.re, (float)z.im};
    switch (dt) {
    case TH_F32: memcpy(p + i * 4, f, 4); break;
    case TH_F64: memcpy(p + i * 8, &z.re, 8); break;
    case TH_C64: memcpy(p + i * 8, f, 8); break;
    default: memcpy(p + i * 16, &z, 16); break;
    }
}

TH__MAYBE_UNUSED static th__mm_complex th__la_mul(th__mm_complex x, th__mm_complex y)
{
    th__mm_complex z = {x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re};
    return z;
}

TH__MAYBE_UNUSED static th__mm_complex th__la_div(th__mm_complex x, th__mm_complex y)
{
    th__mm_complex z;
    if (y.im == 0.0) {
        z.re = x.re / y.re;
        z.im = x.im / y.re;
    } else if (fabs(y.re) >= fabs(y.im)) { /* Smith's division: no overflow in |y|^2 */
        double r = y.im / y.re, d = y.re + y.im * r;
        z.re = (x.re + x.im * r) / d;
        z.im = (x.im - x.re * r) / d;
    } else {
        double r = y.re / y.im, d = y.re * r + y.im;
        z.re = (x.re * r + x.im) / d;
        z.im = (x.im * r - x.re) / d;
    }
    return z;
}

TH__MAYBE_UNUSED static double th__la_abs1(th__mm_complex z) { return fabs(z.re) + fabs(z.im); }

/* ---- the built-in kernels: LAPACK's getrf, getrs ('N') and potrf ('U') on one column-major n x n matrix
 * (leading dimension n), unblocked, in double precision whatever the dtype ---- */

/* P A = L U with partial pivoting; ipiv 1-based as LAPACK's. Returns 0, or i + 1 when pivot i is exactly 0 (the
 * factorisation stops there). */
TH__MAYBE_UNUSED static int th__la_getrf_builtin(th_dtype dt, int64_t n, void *a, th__la_int *ipiv)
{
    for (int64_t j = 0; j < n; j++) {
        int64_t p = j;
        double best = -1.0;
        for (int64_t i = j; i < n; i++) {
            double v = th__la_abs1(th__la_get(dt, a, i + j * n));
            if (v > best || v != v) { /* NaN wins, so that it reaches the diagonal check */
                best = v;
                p = i;
                if (v != v) break;
            }
        }
        ipiv[j] = (th__la_int)(p + 1);
        if (best == 0.0) return (int)(j + 1);
        if (p != j)
            for (int64_t k = 0; k < n; k++) {
                th__mm_complex t = th__la_get(dt, a, j + k * n);
                th__la_put(dt, a, j + k * n, th__la_get(dt, a, p + k * n));
                th__la_put(dt, a, p + k * n, t);
            }
        th__mm_complex d = th__la_get(dt, a, j + j * n);
        for (int64_t i = j + 1; i < n; i++) th__la_put(dt, a, i + j * n, th__la_div(th__la_get(dt, a, i + j * n), d));
        for (int64_t k = j + 1; k < n; k++) {
            th__mm_complex u = th__la_get(dt, a, j + k * n);
            if (u.re == 0.0 && u.im == 0.0) continue;
            for (int64_t i = j + 1; i < n; i++) {
                th__mm_complex l = th__la_mul(th__la_get(dt, a, i + j * n), u), x = th__la_get(dt, a, i + k * n);
                x.re -= l.re;
                x.im -= l.im;
                th__la_put(dt, a, i + k * n, x);
            }
        }
    }
    return 0;
}

/* Solves A X = B (B n x nrhs, column-major, leading dimension n) from getrf's factors, in place. */
TH__MAYBE_UNUSED static void th__la_getrs_builtin(th_dtype dt, int64_t n, int64_t nrhs, const void *lu,
                                                  const th__la_int *ipiv, void *b)
{
    for (int64_t c = 0; c < nrhs; c++) {
        int64_t o = c * n;
        for (int64_t i = 0; i < n; i++) {
            int64_t p = ipiv[i] - 1;
            if (p != i) {
                th__mm_complex t = th__la_get(dt, b, o + i);
                th__la_put(dt, b, o + i, th__la_get(dt, b, o + p));
                th__la_put(dt, b, o + p, t);
            }
        }
        for (int64_t j = 0; j < n; j++) { /* L y = P b, L unit lower */
            th__mm_complex y = th__la_get(dt, b, o + j);
            for (int64_t i = j + 1; i < n; i++) {
                th__mm_complex l = th__la_mul(th__la_get(dt, lu, i + j * n), y), x = th__la_get(dt, b, o + i);
                x.re -= l.re;
                x.im -= l.im;
                th__la_put(dt, b, o + i, x);
            }
        }
        for (int64_t j = n - 1; j >= 0; j--) { /* U x = y */
            th__mm_complex x = th__la_div(th__la_get(dt, b, o + j), th__la_get(dt, lu, j + j * n));
            th__la_put(dt, b, o + j, x);
            for (int64_t i = 0; i < j; i++) {
                th__mm_complex u = th__la_mul(th__la_get(dt, lu, i + j * n), x), y = th__la_get(dt, b, o + i);
                y.re -= u.re;
                y.im -= u.im;
                th__la_put(dt, b, o + i, y);
            }
        }
    }
}

/* A = U^H U from A's upper triangle (the strictly lower one is not touched). Returns 0, or i + 1 when the
 * leading minor of order i + 1 is not positive (or not a number). */
TH__MAYBE_UNUSED static int th__la_potrf_builtin(th_dtype dt, int64_t n, void *a)
{
    for (int64_t j = 0; j < n; j++) {
        double s = th__la_get(dt, a, j + j * n).re;
        for (int64_t k = 0; k < j; k++) {
            th__mm_complex u = th__la_get(dt, a, k + j * n);
            s -= u.re * u.re + u.im * u.im;
        }
        if (!(s > 0.0) || isinf(s)) return (int)(j + 1);
        th__mm_complex d = {sqrt(s), 0.0};
        th__la_put(dt, a, j + j * n, d);
        for (int64_t i = j + 1; i < n; i++) {
            th__mm_complex x = th__la_get(dt, a, j + i * n);
            for (int64_t k = 0; k < j; k++) {
                th__mm_complex u = th__la_get(dt, a, k + j * n), v = th__la_get(dt, a, k + i * n);
                u.im = -u.im;
                th__mm_complex p = th__la_mul(u, v);
                x.re -= p.re;
                x.im -= p.im;
            }
            th__la_put(dt, a, j + i * n, th__la_div(x, d));
        }
    }
    return 0;
}

/* ---- the dispatch: LAPACKE's _work routines (no NaN scan of the input, no allocation), else the built-in
 * kernels. A negative return is LAPACKE's complaint about an argument. ---- */

TH__MAYBE_UNUSED static int th__la_getrf(th_dtype dt, int64_t n, void *a, th__la_int *ipiv)
{
#ifdef TH_USE_LAPACK
    lapack_int m = (lapack_int)n;
    switch (dt) {
    case TH_F32: return LAPACKE_sgetrf_work(LAPACK_COL_MAJOR, m, m, (float *)a, m, ipiv);
    case TH_F64: return LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, m, m, (double *)a, m, ipiv);
    case TH_C64: return LAPACKE_cgetrf_work(LAPACK_COL_MAJOR, m, m, a, m, ipiv);
    default: return LAPACKE_zgetrf_work(LAPACK_COL_MAJOR, m, m, a, m, ipiv);
    }
#else
    return th__la_getrf_builtin(dt, n, a, ipiv);
#endif
}

/* Solves A X = B from getrf's factors of A, or (trans) A^T X = B from those of A^T: LAPACK only. */
TH__MAYBE_UNUSED static int th__la_getrs(th_dtype dt, bool trans, int64_t n, int64_t nrhs, const void *lu,
                                         const th__la_int *ipiv, void *b)
{
#ifdef TH_USE_LAPACK
    lapack_int m = (lapack_int)n, k = (lapack_int)nrhs;
    char t = trans ? 'T' : 'N';
    switch (dt) {
    case TH_F32: return LAPACKE_sgetrs_work(LAPACK_COL_MAJOR, t, m, k, (const float *)lu, m, ipiv, (float *)b, m);
    case TH_F64: return LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, t, m, k, (const double *)lu, m, ipiv, (double *)b, m);
    case TH_C64: return LAPACKE_cgetrs_work(LAPACK_COL_MAJOR, t, m, k, lu, m, ipiv, b, m);
    default: return LAPACKE_zgetrs_work(LAPACK_COL_MAJOR, t, m, k, lu, m, ipiv, b, m);
    }
#else
    (void)trans; /* the built-in path factors A itself */
    th__la_getrs_builtin(dt, n, nrhs, lu, ipiv, b);
    return 0;
#endif
}

TH__MAYBE_UNUSED static int th__la_potrf(th_dtype dt, int64_t n, void *a)
{
#ifdef TH_USE_LAPACK
    lapack_int m = (lapack_int)n;
    switch (dt) {
    case TH_F32: return LAPACKE_spotrf_work(LAPACK_COL_MAJOR, 'U', m, (float *)a, m);
    case TH_F64: return LAPACKE_dpotrf_work(LAPACK_COL_MAJOR, 'U', m, (double *)a, m);
    case TH_C64: return LAPACKE_cpotrf_work(LAPACK_COL_MAJOR, 'U', m, a, m);
    default: return LAPACKE_zpotrf_work(LAPACK_COL_MAJOR, 'U', m, a, m);
    }
#else
    return th__la_potrf_builtin(dt, n, a);
#endif
}

TH__MAYBE_UNUSED static const char th__la_no_lapack[] =
    "needs LAPACK, and this build has none (define TH_USE_LAPACK and link -llapacke; Meson: -Dlapack=enabled)";

/* ---- shapes, scratch and errors ---- */

/* " at batch index 3" for a batched op, "" for one matrix. */
TH__MAYBE_UNUSED static const char *th__la_where(int nb, int64_t index, char *buf, size_t len)
{
    if (nb == 0) return "";
    snprintf(buf, len, " at batch index %lld", (long long)index);
    return buf;
}

/* LAPACKE's negative info: an argument it refused (never expected: the sizes are checked here). */
TH__MAYBE_UNUSED static int th__la_refused(const char *fn, const char *routine, int info)
{
#ifdef TH_USE_LAPACK
    if (info == LAPACK_WORK_MEMORY_ERROR || info == LAPACK_TRANSPOSE_MEMORY_ERROR)
        return th__fail(TH_ERR_NOMEM, fn, "LAPACKE's %s ran out of memory", routine);
#endif
    return th__fail(TH_ERR_INVALID, fn, "LAPACK's %s refused argument %d", routine, -info);
}

/* A (on the host, of dtype dt) is a batch of square matrices, each at most INT_MAX wide. */
TH__MAYBE_UNUSED static int th__la_check_square(const char *fn, const char *name, const th_tensor *a, th_dtype dt)
{
    if (th__mm_check_input(fn, name, a, dt)) return th_last_status();
    char s[160];
    if (a->ndim < 2 || a->sizes[a->ndim - 1] != a->sizes[a->ndim - 2]) {
        th__shape_string(a->ndim, a->sizes, s, sizeof s);
        return th__fail(TH_ERR_SHAPE, fn, "%s must be a square matrix or a batch of them (n x n in its last two dims); "
                        "it has shape %s", name, s);
    }
    if (a->sizes[a->ndim - 1] > INT_MAX) {
        th__shape_string(a->ndim, a->sizes, s, sizeof s);
        return th__fail(TH_ERR_SHAPE, fn, "%s has shape %s: LAPACK takes matrices of at most %d rows", name, s,
                        INT_MAX);
    }
    return TH_OK;
}

/* A new contiguous tensor for LAPACK to work in, with a page of slack after its last element: OpenBLAS 0.3.21's
 * complex gemv kernel (Haswell) reads past a matrix's end (valgrind saw 88 bytes past a 33 x 36 c64 matrix under
 * cgesdd); never used, but memory it may touch. NULL on error. */
TH__MAYBE_UNUSED static th_tensor *th__la_scratch(const char *fn, th_dtype dt, int ndim, const int64_t *sizes)
{
    int64_t numel = 1;
    if (th__check_sizes(fn, ndim, sizes, &numel)) return NULL;
    size_t es = th__dtype_traits[dt].size;
    if (numel > (INT64_MAX - 4096) / (int64_t)es) {
        th__fail(TH_ERR_OVERFLOW, fn, "a scratch copy of %lld elements overflows", (long long)numel);
        return NULL;
    }
    th_storage *s = th_storage_new(numel * (int64_t)es + 4096, NULL, NULL);
    if (!s) return NULL;
    th_tensor *t = th__tensor_new_with_storage(fn, dt, s, 0, ndim, sizes, NULL);
    th_storage_release(s);
    return t;
}

/* A contiguous copy of t (broadcast to the batch bs of nb dims, then r x c), each matrix stored column-major
 * (colmajor: the copy's own shape is bs x c x r) or row-major. NULL on error. */
TH__MAYBE_UNUSED static th_tensor *th__la_pack(const char *fn, const th_tensor *t, int nb, const int64_t *bs,
                                               int64_t r, int64_t c, bool colmajor)
{
    int64_t sizes[TH_MAX_DIMS];
    for (int d = 0; d < nb; d++) sizes[d] = bs[d];
    sizes[nb] = r;
    sizes[nb + 1] = c;
    th_tensor *e = th__expand(fn, t, nb + 2, sizes);
    if (!e) return NULL;
    if (colmajor) {
        sizes[nb] = c;
        sizes[nb + 1] = r;
    }
    th_tensor *s = th__la_scratch(fn, t->dtype, nb + 2, sizes);
    th_tensor *v = s && colmajor ? th__transpose(fn, s, nb, nb + 1) : s ? th_tensor_retain(s) : NULL;
    int status = v ? th__copy(fn, v, e) : th_last_status();
    th_tensor_release(v);
    th_tensor_release(e);
    return th__result_or_release(status, s);
}

/* The tensor to compute a result in: the result itself where it is contiguous, else a contiguous scratch of
 * its shape (then copied into it by th__la_finish). */
TH__MAYBE_UNUSED static th_tensor *th__la_work(const char *fn, th_tensor *result)
{
    if (th_tensor_is_contiguous(result)) return th_tensor_retain(result);
    return th__tensor_empty(fn, result->dtype, result->ndim, result->sizes);
}

/* Copies work into result where they differ, and releases work (and, on error, result). Returns result or NULL. */
TH__MAYBE_UNUSED static th_tensor *th__la_finish(const char *fn, th_tensor *work, th_tensor *result, int status)
{
    if (status == TH_OK && work != result) status = th__copy(fn, result, work);
    th_tensor_release(work);
    return th__result_or_release(status, result);
}

/* The batch of nb dims that a's batch (its dims before the last two, or before the last one for a vector) and
 * b's broadcast to. */
TH__MAYBE_UNUSED static int th__la_batch(const char *fn, const th_tensor *a, int nba, const th_tensor *b, int nbb,
                                         int *nb, int64_t *bs)
{
    *nb = nba > nbb ? nba : nbb;
    for (int d = 0; d < *nb; d++) {
        int da = d - (*nb - nba), db = d - (*nb - nbb);
        int64_t x = da >= 0 ? a->sizes[da] : 1, y = db >= 0 ? b->sizes[db] : 1;
        if (x != y && x != 1 && y != 1) {
            char sa[160], sb[160];
            th__shape_string(a->ndim, a->sizes, sa, sizeof sa);
            th__shape_string(b->ndim, b->sizes, sb, sizeof sb);
            return th__fail(TH_ERR_SHAPE, fn, "the batch dims of A %s and B %s do not broadcast (%lld vs %lld)", sa,
                            sb, (long long)x, (long long)y);
        }
        bs[d] = x == 1 ? y : x;
    }
    return TH_OK;
}

/* After getrf of matrix `index`: an error for an exactly zero pivot (info > 0) or a pivot that is not finite
 * (inf or NaN in A, or growth past the range of the dtype). */
TH__MAYBE_UNUSED static int th__la_check_lu(const char *fn, th_dtype dt, int nb, int64_t index, int64_t n,
                                            const void *lu, int info)
{
    char where[64];
    if (info < 0) return th__la_refused(fn, "getrf", info);
    if (info > 0)
        return th__fail(TH_ERR_LINALG, fn, "A is singular%s: pivot %d of its LU factorisation (U[%d, %d]) is 0",
                        th__la_where(nb, index, where, sizeof where), info - 1, info - 1, info - 1);
    for (int64_t i = 0; i < n; i++) {
        th__mm_complex d = th__la_get(dt, lu, i + i * n);
        if (!isfinite(d.re) || !isfinite(d.im))
            return th__fail(TH_ERR_LINALG, fn, "A holds inf or NaN%s: pivot %lld of its LU factorisation is %g%+gi",
                            th__la_where(nb, index, where, sizeof where), (long long)i, d.re, d.im);
    }
    return TH_OK;
}

/* The element of t at row-major index i over its shape. */
TH__MAYBE_UNUSED static char *th__la_at(const th_tensor *t, int64_t i)
{
    int64_t off = 0;
    for (int d = t->ndim - 1; d >= 0; d--) {
        off += (i % t->sizes[d]) * t->strides[d];
        i /= t->sizes[d];
    }
    return (char *)th_tensor_data(t) + off * (int64_t)th__elsize(t);
}

/* ---- the ops ---- */

/* X with A X = B. B is a batch of vectors (B (*, n)) when it has one dim or when its shape is A's without the
 * last dim, else of matrices (*, n, k), as torch.linalg.solve; batch dims broadcast. */
TH__MAYBE_UNUSED static th_tensor *th__la_solve(const char *fn, th_dtype dt, th_tensor *out, const th_tensor *a,
                                                const th_tensor *b)
{
    if (th__la_check_square(fn, "A", a, dt) || th__mm_check_input(fn, "B", b, dt)) return NULL;
    int64_t n = a->sizes[a->ndim - 1];
    bool vector = b->ndim == 1;
    if (!vector && b->ndim == a->ndim - 1) {
        vector = true;
        for (int d = 0; d < b->ndim; d++) vector = vector && b->sizes[d] == a->sizes[d];
    }
    char sa[160], sb[160];
    if (b->ndim == 0 || b->sizes[b->ndim - (vector ? 1 : 2)] != n) {
        th__shape_string(a->ndim, a->sizes, sa, sizeof sa);
        th__shape_string(b->ndim, b->sizes, sb, sizeof sb);
        return th__fail(TH_ERR_SHAPE, fn, "A has shape %s and B %s: B must be (*, %lld) or (*, %lld, k)", sa, sb,
                        (long long)n, (long long)n),
               NULL;
    }
    int64_t k = vector ? 1 : b->sizes[b->ndim - 1];
    if (k > INT_MAX) {
        th__shape_string(b->ndim, b->sizes, sb, sizeof sb);
        return th__fail(TH_ERR_SHAPE, fn, "B has shape %s: LAPACK takes at most %d columns", sb, INT_MAX), NULL;
    }
    int nb = 0;
    int64_t bs[TH_MAX_DIMS + 1];
    if (th__la_batch(fn, a, a->ndim - 2, b, b->ndim - (vector ? 1 : 2), &nb, bs)) return NULL;
    int64_t rsizes[TH_MAX_DIMS + 2];
    for (int d = 0; d < nb; d++) rsizes[d] = bs[d];
    rsizes[nb] = n;
    rsizes[nb + 1] = k;
    th_tensor *result = th__result(fn, out, dt, nb + (vector ? 1 : 2), rsizes);
    if (!result || th__numel(result) == 0) return result;
    th_tensor *bm = vector ? th__unsqueeze(fn, b, b->ndim) : th_tensor_retain((th_tensor *)b);
    /* With LAPACK, A is copied row-major (a straight copy for a contiguous A): that is A^T column-major, which
     * getrs solves with trans; the built-in kernel takes A itself, column-major. */
#ifdef TH_USE_LAPACK
    const bool trans = true;
#else
    const bool trans = false;
#endif
    th_tensor *lu = bm ? th__la_pack(fn, a, nb, bs, n, n, !trans) : NULL;
    th_tensor *x = lu ? th__la_pack(fn, bm, nb, bs, n, k, true) : NULL;
    th__la_int *ipiv = x ? (th__la_int *)malloc((size_t)n * sizeof *ipiv) : NULL;
    int status = ipiv ? TH_OK : x ? th__fail(TH_ERR_NOMEM, fn, "no memory for %lld pivots", (long long)n)
                                  : th_last_status();
    int64_t batch = th__numel(x ? x : result) / (n * k);
    size_t es = th__dtype_traits[dt].size;
    for (int64_t i = 0; status == TH_OK && i < batch; i++) {
        char *m = (char *)th_tensor_data(lu) + (size_t)(i * n * n) * es;
        status = th__la_check_lu(fn, dt, nb, i, n, m, th__la_getrf(dt, n, m, ipiv));
        if (status == TH_OK) {
            int info = th__la_getrs(dt, trans, n, k, m, ipiv, (char *)th_tensor_data(x) + (size_t)(i * n * k) * es);
            if (info) status = th__la_refused(fn, "getrs", info);
        }
    }
    if (status == TH_OK) {
        th_tensor *xt = th__transpose(fn, x, nb, nb + 1);
        th_tensor *xv = xt && vector ? th__squeeze(fn, xt, nb + 1) : xt ? th_tensor_retain(xt) : NULL;
        status = xv ? th__copy(fn, result, xv) : th_last_status();
        th_tensor_release(xv);
        th_tensor_release(xt);
    }
    free(ipiv);
    TH__RELEASE(x, lu, bm);
    return th__result_or_release(status, result);
}

/* A^-1. The row-major copy of A is the column-major A^T, whose inverse, read back row-major, is A^-1. */
TH__MAYBE_UNUSED static th_tensor *th__la_inv(const char *fn, th_dtype dt, th_tensor *out, const th_tensor *a)
{
    if (th__la_check_square(fn, "A", a, dt)) return NULL;
    th_tensor *result = th__result(fn, out, dt, a->ndim, a->sizes);
    if (!result || th__numel(result) == 0) return result;
    int64_t n = a->sizes[a->ndim - 1], batch = th__numel(a) / (n * n);
    int nb = a->ndim - 2;
    size_t es = th__dtype_traits[dt].size;
    th_tensor *work = th__la_work(fn, result);
    int status = work ? th__copy(fn, work, a) : th_last_status();
    th__la_int *ipiv = NULL;
    void *scratch = NULL;
#ifdef TH_USE_LAPACK
    /* getri's workspace, asked of it once for this n */
    lapack_int lwork = -1;
    if (status == TH_OK) {
        double q[2] = {0.0, 0.0};
        lapack_int m = (lapack_int)n, piv = 0;
        switch (dt) {
        case TH_F32: { float f = 0; LAPACKE_sgetri_work(LAPACK_COL_MAJOR, m, NULL, m, &piv, &f, -1); q[0] = f; break; }
        case TH_F64: LAPACKE_dgetri_work(LAPACK_COL_MAJOR, m, NULL, m, &piv, q, -1); break;
        case TH_C64: { float f[2] = {0, 0}; LAPACKE_cgetri_work(LAPACK_COL_MAJOR, m, NULL, m, &piv, (void *)f, -1); q[0] = f[0]; break; }
        default: LAPACKE_zgetri_work(LAPACK_COL_MAJOR, m, NULL, m, &piv, (void *)q, -1); break;
        }
        lwork = q[0] >= (double)n ? (lapack_int)q[0] : m;
    }
    size_t scratch_len = (size_t)lwork * es;
#else
    size_t scratch_len = (size_t)(n * n) * es; /* the factors, while the inverse is solved for in place */
#endif
    if (status == TH_OK) {
        ipiv = (th__la_int *)malloc((size_t)n * sizeof *ipiv);
        scratch = malloc(scratch_len);
        if (!ipiv || !scratch) status = th__fail(TH_ERR_NOMEM, fn, "no memory for the inverse of a %lld x %lld matrix",
                                                (long long)n, (long long)n);
    }
    for (int64_t i = 0; status == TH_OK && i < batch; i++) {
        char *m = (char *)th_tensor_data(work) + (size_t)(i * n * n) * es;
        status = th__la_check_lu(fn, dt, nb, i, n, m, th__la_getrf(dt, n, m, ipiv));
        if (status) break;
#ifdef TH_USE_LAPACK
        lapack_int mm = (lapack_int)n, info;
        switch (dt) {
        case TH_F32: info = LAPACKE_sgetri_work(LAPACK_COL_MAJOR, mm, (float *)m, mm, ipiv, (float *)scratch, lwork); break;
        case TH_F64: info = LAPACKE_dgetri_work(LAPACK_COL_MAJOR, mm, (double *)m, mm, ipiv, (double *)scratch, lwork); break;
        case TH_C64: info = LAPACKE_cgetri_work(LAPACK_COL_MAJOR, mm, (void *)m, mm, ipiv, scratch, lwork); break;
        default: info = LAPACKE_zgetri_work(LAPACK_COL_MAJOR, mm, (void *)m, mm, ipiv, scratch, lwork); break;
        }
        if (info) status = th__la_refused(fn, "getri", info);
#else
        memcpy(scratch, m, scratch_len);
        th__mm_complex zero = {0.0, 0.0}, one = {1.0, 0.0};
        for (int64_t j = 0; j < n * n; j++) th__la_put(dt, m, j, j % (n + 1) == 0 ? one : zero);
        th__la_getrs_builtin(dt, n, n, scratch, ipiv, m);
#endif
    }
    free(scratch);
    free(ipiv);
    return th__la_finish(fn, work, result, status);
}

/* The LU factors of every matrix of a (a row-major copy: the column-major A^T, of the same determinant), for
 * det and slogdet: calls each(index, diagonal product's parts) through the callers' loops. */
typedef struct th__la_det_parts {
    th__mm_complex sign; /* a unit number, or 0 for a singular matrix */
    double logabs;       /* log |det|, -inf for a singular matrix */
} th__la_det_parts;

TH__MAYBE_UNUSED static int th__la_det_each(const char *fn, th_dtype dt, const th_tensor *a, th_tensor *lu,
                                            int64_t index, th__la_int *ipiv, th__la_det_parts *parts)
{
    int64_t n = a->sizes[a->ndim - 1];
    char *m = (char *)th_tensor_data(lu) + (size_t)(index * n * n) * th__dtype_traits[dt].size;
    int info = th__la_getrf(dt, n, m, ipiv);
    if (info < 0) return th__la_refused(fn, "getrf", info);
    th__mm_complex sign = {1.0, 0.0};
    double logabs = 0.0;
    if (info > 0) {
        sign.re = 0.0;
        logabs = -INFINITY;
    } else {
        for (int64_t i = 0; i < n; i++) {
            th__mm_complex d = th__la_get(dt, m, i + i * n);
            double r = hypot(d.re, d.im);
            if (ipiv[i] != i + 1) {
                sign.re = -sign.re;
                sign.im = -sign.im;
            }
            if (r > 0.0 && isfinite(r)) {
                th__mm_complex u = {d.re / r, d.im / r};
                sign = th__la_mul(sign, u);
            } else if (r != 0.0) {
                sign = th__la_mul(sign, d); /* NaN or inf: the result says so */
            }
            logabs += log(r);
        }
    }
    parts->sign = sign;
    parts->logabs = logabs;
    return TH_OK;
}

/* det (want_det) or slogdet (sign, logabs) of a batch. Results: new, or the outs checked. */
TH__MAYBE_UNUSED static int th__la_dets(const char *fn, th_dtype dt, const th_tensor *a, th_tensor *out_det,
                                        th_tensor *out_sign, th_tensor *out_logabs, bool want_det,
                                        th_tensor **det, th_tensor **sign, th_tensor **logabs)
{
    if (th__la_check_square(fn, "A", a, dt)) return th_last_status();
    int nb = a->ndim - 2;
    th_tensor *r0 = NULL, *r1 = NULL, *lu = NULL;
    if (want_det) {
        r0 = th__result(fn, out_det, dt, nb, a->sizes);
    } else {
        r0 = th__result(fn, out_sign, dt, nb, a->sizes);
        r1 = r0 ? th__result(fn, out_logabs, th__la_part(dt), nb, a->sizes) : NULL;
    }
    int status = r0 && (want_det || r1) ? TH_OK : th_last_status();
    int64_t n = a->sizes[a->ndim - 1], batch = status ? 0 : th__numel(r0);
    th__la_int *ipiv = NULL;
    if (batch > 0 && n > 0) {
        lu = th__la_pack(fn, a, nb, a->sizes, n, n, false);
        ipiv = lu ? (th__la_int *)malloc((size_t)n * sizeof *ipiv) : NULL;
        if (!ipiv) status = lu ? th__fail(TH_ERR_NOMEM, fn, "no memory for %lld pivots", (long long)n) : th_last_status();
    }
    for (int64_t i = 0; status == TH_OK && i < batch; i++) {
        th__la_det_parts p = {{1.0, 0.0}, 0.0};
        if (n > 0) status = th__la_det_each(fn, dt, a, lu, i, ipiv, &p);
        if (status) break;
        if (want_det) {
            double s = exp(p.logabs);
            th__mm_complex v = {p.sign.re * s, p.sign.im * s};
            if (p.sign.re == 0.0 && p.sign.im == 0.0) v.re = v.im = 0.0;
            th__la_put(dt, th__la_at(r0, i), 0, v);
        } else {
            th__la_put(dt, th__la_at(r0, i), 0, p.sign);
            th__mm_complex l = {p.logabs, 0.0};
            th__la_put(th__la_part(dt), th__la_at(r1, i), 0, l);
        }
    }
    free(ipiv);
    th_tensor_release(lu);
    if (status) {
        th_tensor_release(r0);
        th_tensor_release(r1);
        return status;
    }
    if (want_det) {
        if (det) *det = r0;
        else th_tensor_release(r0);
    } else {
        if (sign) *sign = r0;
        else th_tensor_release(r0);
        if (logabs) *logabs = r1;
        else th_tensor_release(r1);
    }
    return TH_OK;
}

/* L, lower triangular with a real positive diagonal, with A = L L^H, from A's lower triangle (the upper one is
 * not read). The row-major copy of A is the column-major A^T = conj(A); its factor U (conj(A) = U^H U), read
 * back row-major, is U^T = L. */
TH__MAYBE_UNUSED static th_tensor *th__la_cholesky(const char *fn, th_dtype dt, th_tensor *out, const th_tensor *a)
{
    if (th__la_check_square(fn, "A", a, dt)) return NULL;
    th_tensor *result = th__result(fn, out, dt, a->ndim, a->sizes);
    if (!result || th__numel(result) == 0) return result;
    int64_t n = a->sizes[a->ndim - 1], batch = th__numel(a) / (n * n);
    int nb = a->ndim - 2;
    size_t es = th__dtype_traits[dt].size;
    th_tensor *work = th__la_work(fn, result);
    int status = work ? th__copy(fn, work, a) : th_last_status();
    th__mm_complex zero = {0.0, 0.0};
    for (int64_t i = 0; status == TH_OK && i < batch; i++) {
        char *m = (char *)th_tensor_data(work) + (size_t)(i * n * n) * es, where[64];
        int info = th__la_potrf(dt, n, m);
        if (info < 0) {
            status = th__la_refused(fn, "potrf", info);
            break;
        }
        /* OpenBLAS's potrf can let a NaN minor through: the diagonal must be positive and finite. */
        for (int64_t j = 0; info == 0 && j < n; j++) {
            double d = th__la_get(dt, m, j + j * n).re;
            if (!(d > 0.0) || isinf(d)) info = (int)(j + 1);
        }
        if (info > 0) {
            status = th__fail(TH_ERR_LINALG, fn,
                              "A is not positive-definite%s: its leading minor of order %d is not (pivot %d)",
                              th__la_where(nb, i, where, sizeof where), info, info - 1);
            break;
        }
        for (int64_t c = 0; c < n; c++) /* column-major strictly lower: the row-major strictly upper triangle */
            for (int64_t r = c + 1; r < n; r++) th__la_put(dt, m, r + c * n, zero);
    }
    return th__la_finish(fn, work, result, status);
}


/* ---- the LAPACK-only ops: qr, eigh, svd, svdvals ---- */

/* The element (i, j) of matrix b (row-major index over the batch dims, nb of them) of t. */
TH__MAYBE_UNUSED static char *th__la_at3(const th_tensor *t, int nb, int64_t b, int64_t i, int64_t j)
{
    int64_t off = i * t->strides[nb] + j * t->strides[nb + 1];
    for (int d = nb - 1; d >= 0; d--) {
        off += (b % t->sizes[d]) * t->strides[d];
        b /= t->sizes[d];
    }
    return (char *)th_tensor_data(t) + off * (int64_t)th__elsize(t);
}

/* Copies the column-major scratch batch s (its shape bs x cols x rows) into dst (bs x rows' x cols', the first
 * rows' rows and cols' columns of each matrix). */
TH__MAYBE_UNUSED static int th__la_unpack(const char *fn, th_tensor *dst, const th_tensor *s, int nb, int64_t rows,
                                          int64_t cols)
{
    th_tensor *t = th__transpose(fn, s, nb, nb + 1);
    th_tensor *r = t ? th__narrow(fn, t, nb, 0, rows) : NULL;
    th_tensor *c = r ? th__narrow(fn, r, nb + 1, 0, cols) : NULL;
    int status = c ? th__copy(fn, dst, c) : th_last_status();
    TH__RELEASE(c, r, t);
    return status;
}

/* A (on the host, dtype dt) is a matrix or a batch of them, each side at most INT_MAX. */
TH__MAYBE_UNUSED static int th__la_check_matrix(const char *fn, const th_tensor *a, th_dtype dt)
{
    if (th__mm_check_input(fn, "A", a, dt)) return th_last_status();
    char s[160];
    if (a->ndim < 2) {
        th__shape_string(a->ndim, a->sizes, s, sizeof s);
        return th__fail(TH_ERR_SHAPE, fn, "A must be a matrix or a batch of them (at least 2 dims); it has shape %s",
                        s);
    }
    if (a->sizes[a->ndim - 1] > INT_MAX || a->sizes[a->ndim - 2] > INT_MAX) {
        th__shape_string(a->ndim, a->sizes, s, sizeof s);
        return th__fail(TH_ERR_SHAPE, fn, "A has shape %s: LAPACK takes matrices of at most %d rows and columns", s,
                        INT_MAX);
    }
    return TH_OK;
}

/* LAPACKE's info of a routine that scans its input for NaN first (the non-_work ones): the matrix argument
 * refused is NaN in it. */
TH__MAYBE_UNUSED static int th__la_info(const char *fn, const char *routine, int info, int nb, int64_t index)
{
    char where[64];
    if (info == 0) return TH_OK;
#ifdef TH_USE_LAPACK
    if (info == LAPACK_WORK_MEMORY_ERROR || info == LAPACK_TRANSPOSE_MEMORY_ERROR)
        return th__fail(TH_ERR_NOMEM, fn, "LAPACKE's %s ran out of memory", routine);
#endif
    if (info < 0)
        return th__fail(TH_ERR_LINALG, fn, "A holds NaN%s (LAPACKE's %s refused argument %d)",
                        th__la_where(nb, index, where, sizeof where), routine, -info);
    return th__fail(TH_ERR_LINALG, fn, "LAPACK's %s did not converge%s (info %d)", routine,
                    th__la_where(nb, index, where, sizeof where), info);
}

/* The results of a multi-result op: each made (or its out checked) in turn; on error all released. */
TH__MAYBE_UNUSED static int th__la_results(const char *fn, int count, th_tensor **outs, const th_dtype *dts,
                                           const int *ndims, int64_t (*sizes)[TH_MAX_DIMS], const bool *wanted,
                                           th_tensor **results)
{
    for (int i = 0; i < count; i++) results[i] = NULL;
    for (int i = 0; i < count; i++) {
        if (!wanted[i]) continue;
        results[i] = th__result(fn, outs[i], dts[i], ndims[i], sizes[i]);
        if (!results[i]) {
            for (int j = 0; j < i; j++) th_tensor_release(results[j]);
            for (int j = 0; j < count; j++) results[j] = NULL;
            return th_last_status();
        }
    }
    return TH_OK;
}

/* Hands results over (where asked) or releases them; on error releases them all. */
TH__MAYBE_UNUSED static int th__la_hand_over(int status, int count, th_tensor **results, th_tensor **to[])
{
    for (int i = 0; i < count; i++) {
        if (status == TH_OK && to[i]) *to[i] = results[i];
        else th_tensor_release(results[i]);
    }
    return status;
}

/* Q R = A, reduced: Q (*, m, k) with orthonormal columns, R (*, k, n) upper triangular, k = min(m, n). LAPACK's
 * geqrf then orgqr / ungqr, on a column-major copy. */
TH__MAYBE_UNUSED static int th__la_qr(const char *fn, th_dtype dt, const th_tensor *a, th_tensor *out_q,
                                      th_tensor *out_r, th_tensor **q, th_tensor **r)
{
    if (th__la_check_matrix(fn, a, dt)) return th_last_status();
    int nb = a->ndim - 2;
    int64_t m = a->sizes[nb], n = a->sizes[nb + 1], k = m < n ? m : n;
    int64_t sizes[2][TH_MAX_DIMS];
    for (int d = 0; d < nb; d++) sizes[0][d] = sizes[1][d] = a->sizes[d];
    sizes[0][nb] = m;
    sizes[0][nb + 1] = k;
    sizes[1][nb] = k;
    sizes[1][nb + 1] = n;
    th_tensor *outs[2] = {out_q, out_r}, *res[2];
    const th_dtype dts[2] = {dt, dt};
    const int ndims[2] = {nb + 2, nb + 2};
    const bool wanted[2] = {true, true};
    th_tensor **to[2] = {q, r};
    if (th__la_results(fn, 2, outs, dts, ndims, sizes, wanted, res)) return th_last_status();
#ifndef TH_USE_LAPACK
    return th__la_hand_over(th__fail(TH_ERR_UNSUPPORTED, fn, "%s", th__la_no_lapack), 2, res, to);
#else
    if (th__numel(res[0]) == 0 && th__numel(res[1]) == 0) return th__la_hand_over(TH_OK, 2, res, to);
    int status = TH_OK;
    th_tensor *w = th__la_pack(fn, a, nb, a->sizes, m, n, true);
    void *tau = w ? malloc((size_t)(k > 0 ? k : 1) * th__dtype_traits[dt].size) : NULL;
    if (!tau) status = w ? th__fail(TH_ERR_NOMEM, fn, "no memory for %lld reflectors", (long long)k) : th_last_status();
    int64_t batch = status ? 0 : th__numel(res[1]) / (k * n > 0 ? k * n : 1);
    if (k == 0) batch = 0;
    size_t es = th__dtype_traits[dt].size;
    lapack_int lm = (lapack_int)m, ln = (lapack_int)n, lk = (lapack_int)k;
    for (int64_t i = 0; status == TH_OK && i < batch; i++) {
        void *p = (char *)th_tensor_data(w) + (size_t)(i * m * n) * es;
        int info;
        switch (dt) {
        case TH_F32: info = LAPACKE_sgeqrf(LAPACK_COL_MAJOR, lm, ln, (float *)p, lm, (float *)tau); break;
        case TH_F64: info = LAPACKE_dgeqrf(LAPACK_COL_MAJOR, lm, ln, (double *)p, lm, (double *)tau); break;
        case TH_C64: info = LAPACKE_cgeqrf(LAPACK_COL_MAJOR, lm, ln, p, lm, tau); break;
        default: info = LAPACKE_zgeqrf(LAPACK_COL_MAJOR, lm, ln, p, lm, tau); break;
        }
        if ((status = th__la_info(fn, "geqrf", info, nb, i))) break;
        /* R: the upper triangle of the first k rows */
        for (int64_t r0 = 0; r0 < k; r0++)
            for (int64_t c = 0; c < n; c++) {
                th__mm_complex v = {0.0, 0.0};
                if (c >= r0) v = th__la_get(dt, p, r0 + c * m);
                th__la_put(dt, th__la_at3(res[1], nb, i, r0, c), 0, v);
            }
        switch (dt) {
        case TH_F32: info = LAPACKE_sorgqr(LAPACK_COL_MAJOR, lm, lk, lk, (float *)p, lm, (const float *)tau); break;
        case TH_F64: info = LAPACKE_dorgqr(LAPACK_COL_MAJOR, lm, lk, lk, (double *)p, lm, (const double *)tau); break;
        case TH_C64: info = LAPACKE_cungqr(LAPACK_COL_MAJOR, lm, lk, lk, p, lm, tau); break;
        default: info = LAPACKE_zungqr(LAPACK_COL_MAJOR, lm, lk, lk, p, lm, tau); break;
        }
        status = th__la_info(fn, "orgqr", info, nb, i);
    }
    if (status == TH_OK && batch > 0) status = th__la_unpack(fn, res[0], w, nb, m, k);
    free(tau);
    th_tensor_release(w);
    return th__la_hand_over(status, 2, res, to);
#endif
}

/* eigh's and eig's results for the square A (*, n, n): the values (*, n) of value_dt and, when wanted, the vectors
 * (*, n, n) of vector_dt, made or their outs checked; A checked first. */
TH__MAYBE_UNUSED static int th__la_spectrum_results(const char *fn, const th_tensor *a, th_dtype dt, th_dtype value_dt,
                                                    th_dtype vector_dt, th_tensor *out_values, th_tensor *out_vectors,
                                                    bool want_vectors, th_tensor **res)
{
    res[0] = res[1] = NULL;
    if (th__la_check_square(fn, "A", a, dt)) return th_last_status();
    int nb = a->ndim - 2;
    int64_t sizes[2][TH_MAX_DIMS];
    for (int d = 0; d < nb + 2; d++) sizes[0][d] = sizes[1][d] = a->sizes[d];
    th_tensor *outs[2] = {out_values, out_vectors};
    const th_dtype dts[2] = {value_dt, vector_dt};
    const int ndims[2] = {nb + 1, nb + 2};
    const bool wanted[2] = {true, want_vectors};
    return th__la_results(fn, 2, outs, dts, ndims, sizes, wanted, res);
}

/* Eigenvalues (ascending, real) and, when vectors is wanted, orthonormal eigenvectors (columns) of the Hermitian
 * A, read from its lower triangle. LAPACK's syevd / heevd on a column-major copy. */
TH__MAYBE_UNUSED static int th__la_eigh(const char *fn, th_dtype dt, const th_tensor *a, th_tensor *out_values,
                                        th_tensor *out_vectors, bool want_vectors, th_tensor **values,
                                        th_tensor **vectors)
{
    th_tensor *res[2], **to[2] = {values, vectors};
    if (th__la_spectrum_results(fn, a, dt, th__la_part(dt), dt, out_values, out_vectors, want_vectors, res))
        return th_last_status();
#ifndef TH_USE_LAPACK
    return th__la_hand_over(th__fail(TH_ERR_UNSUPPORTED, fn, "%s", th__la_no_lapack), 2, res, to);
#else
    int nb = a->ndim - 2;
    if (th__numel(res[0]) == 0) return th__la_hand_over(TH_OK, 2, res, to);
    int status = TH_OK;
    int64_t n = a->sizes[nb];
    th_tensor *w = th__la_pack(fn, a, nb, a->sizes, n, n, true);
    th_dtype pt = th__la_part(dt);
    size_t es = th__dtype_traits[dt].size, ps = th__dtype_traits[pt].size;
    void *ev = w ? malloc((size_t)n * ps) : NULL;
    if (!ev) status = w ? th__fail(TH_ERR_NOMEM, fn, "no memory for %lld eigenvalues", (long long)n) : th_last_status();
    int64_t batch = status ? 0 : th__numel(res[0]) / n;
    char job = want_vectors ? 'V' : 'N';
    lapack_int ln = (lapack_int)n;
    for (int64_t i = 0; status == TH_OK && i < batch; i++) {
        void *p = (char *)th_tensor_data(w) + (size_t)(i * n * n) * es;
        int info;
        switch (dt) {
        case TH_F32: info = LAPACKE_ssyevd(LAPACK_COL_MAJOR, job, 'L', ln, (float *)p, ln, (float *)ev); break;
        case TH_F64: info = LAPACKE_dsyevd(LAPACK_COL_MAJOR, job, 'L', ln, (double *)p, ln, (double *)ev); break;
        case TH_C64: info = LAPACKE_cheevd(LAPACK_COL_MAJOR, job, 'L', ln, p, ln, (float *)ev); break;
        default: info = LAPACKE_zheevd(LAPACK_COL_MAJOR, job, 'L', ln, p, ln, (double *)ev); break;
        }
        if ((status = th__la_info(fn, "syevd", info, nb, i))) break;
        for (int64_t j = 0; j < n; j++) th__la_put(pt, th__la_at(res[0], i * n + j), 0, th__la_get(pt, ev, j));
    }
    if (status == TH_OK && want_vectors) status = th__la_unpack(fn, res[1], w, nb, n, n);
    free(ev);
    th_tensor_release(w);
    return th__la_hand_over(status, 2, res, to);
#endif
}

/* The complex dtype of the same precision (f32: c64, f64: c128): eig's results. */
TH__MAYBE_UNUSED static th_dtype th__la_cplx(th_dtype dt)
{
    return dt == TH_F32 ? TH_C64 : dt == TH_F64 ? TH_C128 : dt;
}

/* Eigenvalues and, when vectors is wanted, right eigenvectors (columns, each of unit 2-norm with its largest
 * component real, as LAPACK gives them) of the general square A; complex results for every input dtype. LAPACK's
 * geev on a column-major copy. A real A's complex eigenvalues come in conjugate pairs, the one with the positive
 * imaginary part first; geev packs such a pair's vectors as two real columns (re, im), unpacked here into the
 * vector and its conjugate. */
TH__MAYBE_UNUSED static int th__la_eig(const char *fn, th_dtype dt, const th_tensor *a, th_tensor *out_values,
                                       th_tensor *out_vectors, bool want_vectors, th_tensor **values,
                                       th_tensor **vectors)
{
    const th_dtype cdt = th__la_cplx(dt);
    th_tensor *res[2], **to[2] = {values, vectors};
    if (th__la_spectrum_results(fn, a, dt, cdt, cdt, out_values, out_vectors, want_vectors, res))
        return th_last_status();
#ifndef TH_USE_LAPACK
    return th__la_hand_over(th__fail(TH_ERR_UNSUPPORTED, fn, "%s", th__la_no_lapack), 2, res, to);
#else
    int nb = a->ndim - 2;
    if (th__numel(res[0]) == 0) return th__la_hand_over(TH_OK, 2, res, to);
    int status = TH_OK;
    int64_t n = a->sizes[nb];
    th_tensor *w = th__la_pack(fn, a, nb, a->sizes, n, n, true);
    size_t es = th__dtype_traits[dt].size;
    /* the values (real: wr then wi) and the n x n column-major vectors of one matrix */
    char *buf = w ? (char *)malloc((size_t)(2 * n + n * n) * es) : NULL;
    if (!buf) status = w ? th__fail(TH_ERR_NOMEM, fn, "no memory for %lld eigenvectors", (long long)n) : th_last_status();
    int64_t batch = status ? 0 : th__numel(res[0]) / n;
    char job = want_vectors ? 'V' : 'N';
    lapack_int ln = (lapack_int)n;
    void *wr = buf, *wi = buf + (size_t)n * es, *vr = buf + (size_t)(2 * n) * es;
    for (int64_t i = 0; status == TH_OK && i < batch; i++) {
        void *p = (char *)th_tensor_data(w) + (size_t)(i * n * n) * es;
        int info;
        switch (dt) {
        case TH_F32: info = LAPACKE_sgeev(LAPACK_COL_MAJOR, 'N', job, ln, (float *)p, ln, (float *)wr, (float *)wi, NULL, 1, (float *)vr, ln); break;
        case TH_F64: info = LAPACKE_dgeev(LAPACK_COL_MAJOR, 'N', job, ln, (double *)p, ln, (double *)wr, (double *)wi, NULL, 1, (double *)vr, ln); break;
        case TH_C64: info = LAPACKE_cgeev(LAPACK_COL_MAJOR, 'N', job, ln, p, ln, wr, NULL, 1, vr, ln); break;
        default: info = LAPACKE_zgeev(LAPACK_COL_MAJOR, 'N', job, ln, p, ln, wr, NULL, 1, vr, ln); break;
        }
        if ((status = th__la_info(fn, "geev", info, nb, i))) break;
        bool real = !th__la_complex(dt);
        for (int64_t j = 0; j < n; j++) {
            th__mm_complex v = th__la_get(dt, wr, j);
            if (real) v.im = th__la_get(dt, wi, j).re;
            th__la_put(cdt, th__la_at(res[0], i * n + j), 0, v);
            if (!want_vectors) continue;
            bool pair = real && v.im > 0 && j + 1 < n; /* columns j, j + 1 hold re and im of vector j */
            for (int64_t r = 0; r < n; r++) {
                th__mm_complex x = th__la_get(dt, vr, r + j * n);
                if (pair) {
                    x.im = th__la_get(dt, vr, r + (j + 1) * n).re;
                    th__mm_complex xc = {x.re, -x.im};
                    th__la_put(cdt, th__la_at3(res[1], nb, i, r, j + 1), 0, xc);
                }
                th__la_put(cdt, th__la_at3(res[1], nb, i, r, j), 0, x);
            }
            if (pair) {
                th__mm_complex vc = {v.re, -v.im};
                th__la_put(cdt, th__la_at(res[0], i * n + j + 1), 0, vc);
                j++;
            }
        }
    }
    free(buf);
    th_tensor_release(w);
    return th__la_hand_over(status, 2, res, to);
#endif
}

/* A = U diag(S) Vh, reduced: U (*, m, k), S (*, k) descending, Vh (*, k, n), k = min(m, n); full: U (*, m, m)
 * and Vh (*, n, n), their extra columns and rows an orthonormal completion. S alone when the vectors are not
 * wanted. LAPACK's gesdd on a column-major copy. */
TH__MAYBE_UNUSED static int th__la_svd(const char *fn, th_dtype dt, const th_tensor *a, th_tensor *out_u,
                                       th_tensor *out_s, th_tensor *out_vh, bool want_vectors, bool full,
                                       th_tensor **u, th_tensor **s, th_tensor **vh)
{
    if (th__la_check_matrix(fn, a, dt)) return th_last_status();
    int nb = a->ndim - 2;
    int64_t m = a->sizes[nb], n = a->sizes[nb + 1], k = m < n ? m : n;
    int64_t ku = full ? m : k, kv = full ? n : k; /* U's columns, Vh's rows */
    int64_t sizes[3][TH_MAX_DIMS];
    for (int d = 0; d < nb; d++) sizes[0][d] = sizes[1][d] = sizes[2][d] = a->sizes[d];
    sizes[0][nb] = m;
    sizes[0][nb + 1] = ku;
    sizes[1][nb] = k;
    sizes[2][nb] = kv;
    sizes[2][nb + 1] = n;
    th_tensor *outs[3] = {out_u, out_s, out_vh}, *res[3];
    const th_dtype dts[3] = {dt, th__la_part(dt), dt};
    const int ndims[3] = {nb + 2, nb + 1, nb + 2};
    const bool wanted[3] = {want_vectors, true, want_vectors};
    th_tensor **to[3] = {u, s, vh};
    if (th__la_results(fn, 3, outs, dts, ndims, sizes, wanted, res)) return th_last_status();
#ifndef TH_USE_LAPACK
    return th__la_hand_over(th__fail(TH_ERR_UNSUPPORTED, fn, "%s", th__la_no_lapack), 3, res, to);
#else
    int64_t batch = 1;
    for (int d = 0; d < nb; d++) batch *= a->sizes[d];
    if (batch == 0 || k == 0) {
        /* no values; reduced U and Vh (m x 0, 0 x n) are empty too, full ones the identity (NumPy, PyTorch) */
        int status = TH_OK;
        for (int r = 0; r < 3 && want_vectors && full; r += 2) {
            int64_t side = r == 0 ? m : n;
            th__mm_complex one = {1.0, 0.0}, zero = {0.0, 0.0};
            for (int64_t b = 0; b < batch; b++)
                for (int64_t i = 0; i < side; i++)
                    for (int64_t j = 0; j < side; j++) th__la_put(dt, th__la_at3(res[r], nb, b, i, j), 0, i == j ? one : zero);
        }
        return th__la_hand_over(status, 3, res, to);
    }
    int status = TH_OK;
    th_dtype pt = th__la_part(dt);
    size_t es = th__dtype_traits[dt].size, ps = th__dtype_traits[pt].size;
    th_tensor *w = th__la_pack(fn, a, nb, a->sizes, m, n, true);
    int64_t ub[TH_MAX_DIMS], vb[TH_MAX_DIMS];
    for (int d = 0; d < nb; d++) ub[d] = vb[d] = a->sizes[d];
    ub[nb] = ku; /* column-major m x ku */
    ub[nb + 1] = m;
    vb[nb] = n; /* column-major kv x n */
    vb[nb + 1] = kv;
    th_tensor *U = w && want_vectors ? th__la_scratch(fn, dt, nb + 2, ub) : NULL;
    th_tensor *V = U ? th__la_scratch(fn, dt, nb + 2, vb) : NULL;
    void *sv = w ? malloc((size_t)k * ps) : NULL;
    if (!w || !sv || (want_vectors && !V))
        status = !w || (want_vectors && !V) ? th_last_status()
                                            : th__fail(TH_ERR_NOMEM, fn, "no memory for %lld values", (long long)k);
    char job = !want_vectors ? 'N' : full ? 'A' : 'S';
    lapack_int lm = (lapack_int)m, ln = (lapack_int)n, lkv = (lapack_int)kv;
    for (int64_t i = 0; status == TH_OK && i < batch; i++) {
        void *p = (char *)th_tensor_data(w) + (size_t)(i * m * n) * es;
        void *pu = U ? (char *)th_tensor_data(U) + (size_t)(i * m * ku) * es : NULL;
        void *pv = V ? (char *)th_tensor_data(V) + (size_t)(i * kv * n) * es : NULL;
        lapack_int ldu = want_vectors ? lm : 1, ldv = want_vectors ? lkv : 1;
        int info;
        switch (dt) {
        case TH_F32: info = LAPACKE_sgesdd(LAPACK_COL_MAJOR, job, lm, ln, (float *)p, lm, (float *)sv, (float *)pu, ldu, (float *)pv, ldv); break;
        case TH_F64: info = LAPACKE_dgesdd(LAPACK_COL_MAJOR, job, lm, ln, (double *)p, lm, (double *)sv, (double *)pu, ldu, (double *)pv, ldv); break;
        case TH_C64: info = LAPACKE_cgesdd(LAPACK_COL_MAJOR, job, lm, ln, p, lm, (float *)sv, pu, ldu, pv, ldv); break;
        default: info = LAPACKE_zgesdd(LAPACK_COL_MAJOR, job, lm, ln, p, lm, (double *)sv, pu, ldu, pv, ldv); break;
        }
        if ((status = th__la_info(fn, "gesdd", info, nb, i))) break;
        for (int64_t j = 0; j < k; j++) th__la_put(pt, th__la_at(res[1], i * k + j), 0, th__la_get(pt, sv, j));
    }
    if (status == TH_OK && want_vectors) status = th__la_unpack(fn, res[0], U, nb, m, ku);
    if (status == TH_OK && want_vectors) status = th__la_unpack(fn, res[2], V, nb, kv, n);
    free(sv);
    TH__RELEASE(V, U, w);
    return th__la_hand_over(status, 3, res, to);
#endif
}

/* ---- triangular solves, cholesky_solve, lu_factor / lu_solve: LAPACK's trtrs, potrs, getrf and getrs, or the
 * built-in substitution below (every one of them works without LAPACK) ---- */

/* The element (i, j) of op(A), A n x n column-major: A (trans 0), A^T (1) or A^H (2). */
TH__MAYBE_UNUSED static th__mm_complex th__la_op_at(th_dtype dt, const void *a, int64_t n, int trans, int64_t i,
                                                    int64_t j)
{
    if (trans == 0) return th__la_get(dt, a, i + j * n);
    th__mm_complex z = th__la_get(dt, a, j + i * n);
    if (trans == 2) z.im = -z.im;
    return z;
}

/* op(A) X = B by substitution, A n x n column-major and triangular (upper: its upper triangle is read, else its
 * lower one; unit: its diagonal is taken as 1 and not read), B n x nrhs column-major (leading dimension n),
 * solved in place. LAPACK's trtrs without the singularity check (the callers check the diagonal first). */
TH__MAYBE_UNUSED static void th__la_trtrs_builtin(th_dtype dt, bool upper, int trans, bool unit, int64_t n,
                                                  int64_t nrhs, const void *a, void *b)
{
    bool up = upper != (trans != 0); /* op(A)'s own triangle */
    for (int64_t c = 0; c < nrhs; c++) {
        int64_t o = c * n;
        for (int64_t s = 0; s < n; s++) {
            int64_t j = up ? n - 1 - s : s, k0 = up ? j + 1 : 0, k1 = up ? n : j;
            th__mm_complex x = th__la_get(dt, b, o + j);
            for (int64_t k = k0; k < k1; k++) {
                th__mm_complex p = th__la_mul(th__la_op_at(dt, a, n, trans, j, k), th__la_get(dt, b, o + k));
                x.re -= p.re;
                x.im -= p.im;
            }
            if (!unit) x = th__la_div(x, th__la_op_at(dt, a, n, trans, j, j));
            th__la_put(dt, b, o + j, x);
        }
    }
}

TH__MAYBE_UNUSED static int th__la_trtrs(th_dtype dt, bool upper, int trans, bool unit, int64_t n, int64_t nrhs,
                                         const void *a, void *b)
{
#ifdef TH_USE_LAPACK
    lapack_int m = (lapack_int)n, k = (lapack_int)nrhs;
    char u = upper ? 'U' : 'L', t = trans == 0 ? 'N' : trans == 1 ? 'T' : 'C', d = unit ? 'U' : 'N';
    switch (dt) {
    case TH_F32: return LAPACKE_strtrs_work(LAPACK_COL_MAJOR, u, t, d, m, k, (const float *)a, m, (float *)b, m);
    case TH_F64: return LAPACKE_dtrtrs_work(LAPACK_COL_MAJOR, u, t, d, m, k, (const double *)a, m, (double *)b, m);
    case TH_C64: return LAPACKE_ctrtrs_work(LAPACK_COL_MAJOR, u, t, d, m, k, a, m, b, m);
    default: return LAPACKE_ztrtrs_work(LAPACK_COL_MAJOR, u, t, d, m, k, a, m, b, m);
    }
#else
    th__la_trtrs_builtin(dt, upper, trans, unit, n, nrhs, a, b);
    return 0;
#endif
}

/* A X = B with A = L L^H (upper: U^H U) given its factor, column-major, in place in B. */
TH__MAYBE_UNUSED static int th__la_potrs(th_dtype dt, bool upper, int64_t n, int64_t nrhs, const void *f, void *b)
{
#ifdef TH_USE_LAPACK
    lapack_int m = (lapack_int)n, k = (lapack_int)nrhs;
    char u = upper ? 'U' : 'L';
    switch (dt) {
    case TH_F32: return LAPACKE_spotrs_work(LAPACK_COL_MAJOR, u, m, k, (const float *)f, m, (float *)b, m);
    case TH_F64: return LAPACKE_dpotrs_work(LAPACK_COL_MAJOR, u, m, k, (const double *)f, m, (double *)b, m);
    case TH_C64: return LAPACKE_cpotrs_work(LAPACK_COL_MAJOR, u, m, k, f, m, b, m);
    default: return LAPACKE_zpotrs_work(LAPACK_COL_MAJOR, u, m, k, f, m, b, m);
    }
#else
    /* L L^H x = b: L y = b, then L^H x = y (U^H U: U^H y = b, then U x = y) */
    th__la_trtrs_builtin(dt, upper, upper ? 2 : 0, false, n, nrhs, f, b);
    th__la_trtrs_builtin(dt, upper, upper ? 0 : 2, false, n, nrhs, f, b);
    return 0;
#endif
}

/* Before a solve with a factor (matrix `index` of the batch, n x n column-major): every element the solve reads
 * (part 0: the lower triangle, 1: the upper one, 2: all of it; the diagonal unless unit) is finite, and no
 * diagonal element is 0. The errors name the function, the batch index and the element. */
TH__MAYBE_UNUSED static int th__la_check_factor(const char *fn, const char *name, th_dtype dt, int nb, int64_t index,
                                                int64_t n, const void *a, int part, bool unit)
{
    char where[64];
    for (int64_t j = 0; j < n; j++) {
        int64_t i0 = part == 0 ? j : 0, i1 = part == 1 ? j + 1 : n;
        for (int64_t i = i0; i < i1; i++) {
            if (unit && i == j) continue;
            th__mm_complex z = th__la_get(dt, a, i + j * n);
            if (!isfinite(z.re) || !isfinite(z.im))
                return th__fail(TH_ERR_LINALG, fn, "%s holds inf or NaN%s: %s[%lld, %lld] is %g%+gi", name,
                                th__la_where(nb, index, where, sizeof where), name, (long long)i, (long long)j, z.re,
                                z.im);
        }
    }
    for (int64_t j = 0; !unit && j < n; j++) {
        th__mm_complex z = th__la_get(dt, a, j + j * n);
        if (z.re == 0.0 && z.im == 0.0)
            return th__fail(TH_ERR_LINALG, fn, "%s is singular%s: its diagonal element %lld (%s[%lld, %lld]) is 0", name,
                            th__la_where(nb, index, where, sizeof where), (long long)j, name, (long long)j,
                            (long long)j);
    }
    return TH_OK;
}

/* B (*, r, c) is a matrix or a batch of them whose dim `dim` (-2 or -1) is n, its other side at most INT_MAX. */
TH__MAYBE_UNUSED static int th__la_check_rhs(const char *fn, const char *an, const th_tensor *a, const th_tensor *b,
                                             int dim, int64_t n)
{
    char sa[160], sb[160];
    if (b->ndim < 2 || b->sizes[b->ndim + dim] != n) {
        th__shape_string(a->ndim, a->sizes, sa, sizeof sa);
        th__shape_string(b->ndim, b->sizes, sb, sizeof sb);
        return th__fail(TH_ERR_SHAPE, fn, "%s has shape %s and B %s: B must be %s", an, sa, sb,
                        dim == -2 ? (n == 0 ? "(*, 0, k)" : "(*, n, k) with n A's size")
                                  : (n == 0 ? "(*, k, 0)" : "(*, k, n) with n A's size"));
    }
    int64_t k = b->sizes[b->ndim + (dim == -2 ? -1 : -2)];
    if (k > INT_MAX) {
        th__shape_string(b->ndim, b->sizes, sb, sizeof sb);
        return th__fail(TH_ERR_SHAPE, fn, "B has shape %s: LAPACK takes at most %d right-hand sides", sb, INT_MAX);
    }
    return TH_OK;
}

/* The result of a solve with B's matrix shape (r x c) and the batch bs (nb dims). */
TH__MAYBE_UNUSED static th_tensor *th__la_solve_result(const char *fn, th_tensor *out, th_dtype dt, int nb,
                                                       const int64_t *bs, int64_t r, int64_t c)
{
    int64_t sizes[TH_MAX_DIMS + 2];
    for (int d = 0; d < nb; d++) sizes[d] = bs[d];
    sizes[nb] = r;
    sizes[nb + 1] = c;
    return th__result(fn, out, dt, nb + 2, sizes);
}

/* Copies the solution x (a scratch batch, bs x k x n: column-major n x k matrices when colmajor, else row-major
 * k x n ones) into result, and releases what the solve held. Returns result, or NULL (released) on error. */
TH__MAYBE_UNUSED static th_tensor *th__la_solve_finish(const char *fn, th_tensor *result, th_tensor *x, bool colmajor,
                                                       int nb, int status, th_tensor *f, void *mem)
{
    if (status == TH_OK) {
        th_tensor *v = colmajor ? th__transpose(fn, x, nb, nb + 1) : th_tensor_retain(x);
        status = v ? th__copy(fn, result, v) : th_last_status();
        th_tensor_release(v);
    }
    free(mem);
    th_tensor_release(x);
    th_tensor_release(f);
    return th__result_or_release(status, result);
}

/* X with op(A) X = B (left) or X op(A) = B (right), A triangular: (*, n, n), B (*, n, k) or (*, k, n). A's
 * column-major copy is solved with trans 'N' (left) or 'T' (right: X A = B is A^T X^T = B^T, and B's row-major
 * copy is B^T column-major, the solution X^T column-major is X row-major). */
TH__MAYBE_UNUSED static th_tensor *th__la_solve_triangular(const char *fn, th_dtype dt, th_tensor *out,
                                                           const th_tensor *a, const th_tensor *b, bool upper,
                                                           bool left, bool unit)
{
    if (th__la_check_square(fn, "A", a, dt) || th__mm_check_input(fn, "B", b, dt)) return NULL;
    int64_t n = a->sizes[a->ndim - 1];
    if (th__la_check_rhs(fn, "A", a, b, left ? -2 : -1, n)) return NULL;
    int64_t k = b->sizes[b->ndim - (left ? 1 : 2)];
    int nb = 0;
    int64_t bs[TH_MAX_DIMS + 1];
    if (th__la_batch(fn, a, a->ndim - 2, b, b->ndim - 2, &nb, bs)) return NULL;
    th_tensor *result = th__la_solve_result(fn, out, dt, nb, bs, left ? n : k, left ? k : n);
    if (!result || th__numel(result) == 0) return result;
    th_tensor *f = th__la_pack(fn, a, nb, bs, n, n, true);
    th_tensor *x = f ? (left ? th__la_pack(fn, b, nb, bs, n, k, true) : th__la_pack(fn, b, nb, bs, k, n, false))
                     : NULL;
    int status = x ? TH_OK : th_last_status();
    int64_t batch = th__numel(result) / (n * k);
    size_t es = th__dtype_traits[dt].size;
    for (int64_t i = 0; status == TH_OK && i < batch; i++) {
        const char *m = (const char *)th_tensor_data(f) + (size_t)(i * n * n) * es;
        status = th__la_check_factor(fn, "A", dt, nb, i, n, m, upper ? 1 : 0, unit);
        if (status) break;
        int info = th__la_trtrs(dt, upper, left ? 0 : 1, unit, n, k, m,
                                (char *)th_tensor_data(x) + (size_t)(i * n * k) * es);
        if (info) status = th__la_refused(fn, "trtrs", info);
    }
    return th__la_solve_finish(fn, result, x, left, nb, status, f, NULL);
}

/* X with A X = B, A = L L^H (upper: U^H U) given by its factor (*, n, n); B (*, n, k). LAPACK's potrs. */
TH__MAYBE_UNUSED static th_tensor *th__la_cholesky_solve(const char *fn, th_dtype dt, th_tensor *out,
                                                         const th_tensor *b, const th_tensor *l, bool upper)
{
    if (th__mm_check_input(fn, "B", b, dt) || th__la_check_square(fn, "L", l, dt)) return NULL;
    int64_t n = l->sizes[l->ndim - 1];
    if (th__la_check_rhs(fn, "L", l, b, -2, n)) return NULL;
    int64_t k = b->sizes[b->ndim - 1];
    int nb = 0;
    int64_t bs[TH_MAX_DIMS + 1];
    if (th__la_batch(fn, l, l->ndim - 2, b, b->ndim - 2, &nb, bs)) return NULL;
    th_tensor *result = th__la_solve_result(fn, out, dt, nb, bs, n, k);
    if (!result || th__numel(result) == 0) return result;
    th_tensor *f = th__la_pack(fn, l, nb, bs, n, n, true);
    th_tensor *x = f ? th__la_pack(fn, b, nb, bs, n, k, true) : NULL;
    int status = x ? TH_OK : th_last_status();
    int64_t batch = th__numel(result) / (n * k);
    size_t es = th__dtype_traits[dt].size;
    for (int64_t i = 0; status == TH_OK && i < batch; i++) {
        const char *m = (const char *)th_tensor_data(f) + (size_t)(i * n * n) * es;
        status = th__la_check_factor(fn, "L", dt, nb, i, n, m, upper ? 1 : 0, false);
        if (status) break;
        int info = th__la_potrs(dt, upper, n, k, m, (char *)th_tensor_data(x) + (size_t)(i * n * k) * es);
        if (info) status = th__la_refused(fn, "potrs", info);
    }
    return th__la_solve_finish(fn, result, x, true, nb, status, f, NULL);
}

/* P A = L U of every (square) matrix of A: LU (*, n, n) holding L's strictly lower part (its unit diagonal not
 * stored) and U, and pivots (*, n) int32, 1-based (row i was swapped with row pivots[i] - 1), LAPACK's and
 * torch.linalg.lu_factor's convention. A singular matrix (an exactly zero pivot) or inf / NaN reaching a pivot is
 * TH_ERR_LINALG, as solve's. */
TH__MAYBE_UNUSED static int th__la_lu_factor(const char *fn, th_dtype dt, const th_tensor *a, th_tensor *out_lu,
                                             th_tensor *out_piv, th_tensor **lu, th_tensor **piv)
{
    if (th__la_check_square(fn, "A", a, dt)) return th_last_status();
    int nb = a->ndim - 2;
    int64_t n = a->sizes[nb];
    int64_t sizes[2][TH_MAX_DIMS];
    for (int d = 0; d < nb + 2; d++) sizes[0][d] = sizes[1][d] = a->sizes[d];
    th_tensor *outs[2] = {out_lu, out_piv}, *res[2];
    const th_dtype dts[2] = {dt, TH_I32};
    const int ndims[2] = {nb + 2, nb + 1};
    const bool wanted[2] = {true, true};
    th_tensor **to[2] = {lu, piv};
    if (th__la_results(fn, 2, outs, dts, ndims, sizes, wanted, res)) return th_last_status();
    if (th__numel(res[0]) == 0) return th__la_hand_over(TH_OK, 2, res, to);
    th_tensor *w = th__la_pack(fn, a, nb, a->sizes, n, n, true);
    th__la_int *ipiv = w ? (th__la_int *)malloc((size_t)n * sizeof *ipiv) : NULL;
    int status = ipiv ? TH_OK : w ? th__fail(TH_ERR_NOMEM, fn, "no memory for %lld pivots", (long long)n)
                                  : th_last_status();
    int64_t batch = th__numel(res[0]) / (n * n);
    size_t es = th__dtype_traits[dt].size;
    for (int64_t i = 0; status == TH_OK && i < batch; i++) {
        char *m = (char *)th_tensor_data(w) + (size_t)(i * n * n) * es;
        status = th__la_check_lu(fn, dt, nb, i, n, m, th__la_getrf(dt, n, m, ipiv));
        for (int64_t j = 0; status == TH_OK && j < n; j++) {
            int32_t p = (int32_t)ipiv[j];
            memcpy(th__la_at(res[1], i * n + j), &p, sizeof p);
        }
    }
    if (status == TH_OK) status = th__la_unpack(fn, res[0], w, nb, n, n);
    free(ipiv);
    th_tensor_release(w);
    return th__la_hand_over(status, 2, res, to);
}

/* X with A X = B from lu_factor's LU (*, n, n) and pivots (*, n) (int32, 1-based, the batch of LU's), B (*, n, k);
 * LU's and B's batch dims broadcast. Pivots out of 1..n are refused (TH_ERR_INVALID) before LAPACK sees them. */
TH__MAYBE_UNUSED static th_tensor *th__la_lu_solve(const char *fn, th_dtype dt, th_tensor *out, const th_tensor *lu,
                                                   const th_tensor *piv, const th_tensor *b)
{
    if (th__la_check_square(fn, "LU", lu, dt) || th__mm_check_input(fn, "pivots", piv, TH_I32) ||
        th__mm_check_input(fn, "B", b, dt))
        return NULL;
    int nb0 = lu->ndim - 2;
    int64_t n = lu->sizes[nb0];
    bool fits = piv->ndim == nb0 + 1;
    for (int d = 0; fits && d <= nb0; d++) fits = piv->sizes[d] == (d < nb0 ? lu->sizes[d] : n);
    if (!fits) {
        char sl[160], sp[160];
        th__shape_string(lu->ndim, lu->sizes, sl, sizeof sl);
        th__shape_string(piv->ndim, piv->sizes, sp, sizeof sp);
        return th__fail(TH_ERR_SHAPE, fn, "LU has shape %s and pivots %s: pivots must be LU's shape without its last "
                        "dim", sl, sp), NULL;
    }
    if (th__la_check_rhs(fn, "LU", lu, b, -2, n)) return NULL;
    int64_t k = b->sizes[b->ndim - 1];
    int nb = 0;
    int64_t bs[TH_MAX_DIMS + 1];
    if (th__la_batch(fn, lu, nb0, b, b->ndim - 2, &nb, bs)) return NULL;
    th_tensor *result = th__la_solve_result(fn, out, dt, nb, bs, n, k);
    if (!result || th__numel(result) == 0) return result;
    bs[nb] = n;
    th_tensor *pe = th__expand(fn, piv, nb + 1, bs);
    th_tensor *f = pe ? th__la_pack(fn, lu, nb, bs, n, n, true) : NULL;
    th_tensor *x = f ? th__la_pack(fn, b, nb, bs, n, k, true) : NULL;
    th__la_int *ipiv = x ? (th__la_int *)malloc((size_t)n * sizeof *ipiv) : NULL;
    int status = ipiv ? TH_OK : x ? th__fail(TH_ERR_NOMEM, fn, "no memory for %lld pivots", (long long)n)
                                  : th_last_status();
    int64_t batch = th__numel(result) / (n * k);
    size_t es = th__dtype_traits[dt].size;
    char where[64];
    for (int64_t i = 0; status == TH_OK && i < batch; i++) {
        for (int64_t j = 0; status == TH_OK && j < n; j++) {
            int32_t p;
            memcpy(&p, th__la_at(pe, i * n + j), sizeof p);
            if (p < 1 || p > n)
                status = th__fail(TH_ERR_INVALID, fn, "pivots[%lld] is %d%s: a pivot must be in 1..%lld", (long long)j,
                                  (int)p, th__la_where(nb, i, where, sizeof where), (long long)n);
            ipiv[j] = (th__la_int)p;
        }
        const char *m = (const char *)th_tensor_data(f) + (size_t)(i * n * n) * es;
        if (status == TH_OK) status = th__la_check_factor(fn, "LU", dt, nb, i, n, m, 2, false);
        if (status) break;
        int info = th__la_getrs(dt, false, n, k, m, ipiv, (char *)th_tensor_data(x) + (size_t)(i * n * k) * es);
        if (info) status = th__la_refused(fn, "getrs", info);
    }
    th_tensor_release(pe);
    return th__la_solve_finish(fn, result, x, true, nb, status, f, ipiv);
}

/* ---- least squares and the SVD's tolerances: lstsq, pinv (LAPACK's gelsd), matrix_rank (gesdd's values);
 * LAPACK only ---- */

/* The relative tolerance below which singular values count as 0: rtol, or (rtol < 0: not given) eps of the dtype
 * times max(m, n), as torch.linalg's and NumPy's defaults. */
TH__MAYBE_UNUSED static double th__la_rtol(th_dtype dt, double rtol, int64_t m, int64_t n)
{
    if (rtol >= 0) return rtol;
    double eps = dt == TH_F32 || dt == TH_C64 ? (double)FLT_EPSILON : DBL_EPSILON;
    return eps * (double)(m > n ? m : n);
}

/* Every element of matrix `index` of a batch is finite: p (rows x cols, column-major, leading dimension ld), or,
 * when p is NULL, matrix `index` of the tensor t. */
TH__MAYBE_UNUSED static int th__la_check_finite(const char *fn, const char *name, th_dtype dt, int nb, int64_t index,
                                                int64_t rows, int64_t cols, const void *p, int64_t ld, const th_tensor *t)
{
    char where[64];
    for (int64_t j = 0; j < cols; j++)
        for (int64_t i = 0; i < rows; i++) {
            th__mm_complex z = p ? th__la_get(dt, p, i + j * ld) : th__la_get(dt, th__la_at3(t, nb, index, i, j), 0);
            if (!isfinite(z.re) || !isfinite(z.im))
                return th__fail(TH_ERR_LINALG, fn, "%s holds inf or NaN%s: %s[%lld, %lld] is %g%+gi", name,
                                th__la_where(nb, index, where, sizeof where), name, (long long)i, (long long)j, z.re,
                                z.im);
        }
    return TH_OK;
}

TH__MAYBE_UNUSED static int th__la_check_rtol(const char *fn, const char *name, double rtol)
{
    if (rtol != rtol) return th__fail(TH_ERR_INVALID, fn, "%s is NaN", name);
    return TH_OK;
}

#ifdef TH_USE_LAPACK
/* gelsd on matrix `index`: a column-major m x n (overwritten), b column-major max(m, n) x k (B in, X out), s
 * min(m, n) singular values (the real dtype), *rank. */
TH__MAYBE_UNUSED static int th__la_gelsd(const char *fn, th_dtype dt, int nb, int64_t index, int64_t m, int64_t n,
                                         int64_t k, void *a, void *b, void *s, double rcond, int64_t *rank)
{
    lapack_int lm = (lapack_int)m, ln = (lapack_int)n, lk = (lapack_int)k, ldb = (lapack_int)(m > n ? m : n), r = 0;
    if (ldb < 1) ldb = 1;
    int info;
    switch (dt) {
    case TH_F32: info = LAPACKE_sgelsd(LAPACK_COL_MAJOR, lm, ln, lk, (float *)a, lm > 1 ? lm : 1, (float *)b, ldb, (float *)s, (float)rcond, &r); break;
    case TH_F64: info = LAPACKE_dgelsd(LAPACK_COL_MAJOR, lm, ln, lk, (double *)a, lm > 1 ? lm : 1, (double *)b, ldb, (double *)s, rcond, &r); break;
    case TH_C64: info = LAPACKE_cgelsd(LAPACK_COL_MAJOR, lm, ln, lk, a, lm > 1 ? lm : 1, b, ldb, (float *)s, (float)rcond, &r); break;
    default: info = LAPACKE_zgelsd(LAPACK_COL_MAJOR, lm, ln, lk, a, lm > 1 ? lm : 1, b, ldb, (double *)s, rcond, &r); break;
    }
    *rank = r;
    char where[64];
    if (info == -5 || info == -7) /* LAPACKE's NaN scan of A (argument 5) or B (7) */
        return th__fail(TH_ERR_LINALG, fn, "%s holds NaN%s", info == -5 ? "A" : "B",
                        th__la_where(nb, index, where, sizeof where));
    return th__la_info(fn, "gelsd", info, nb, index);
}
#endif

/* X minimising |A X - B| (the minimum-norm one when A is rank-deficient), A (*, m, n), B (*, m, k), batch dims
 * broadcast; residuals (*, k) (m > n) or (*, 0), the squared norms of the columns of A X - B; rank (*) int64;
 * S (*, min(m, n)) descending. Singular values at most rcond * S[0] count as 0. Any of the results may be unwanted
 * (NULL pointers, NULL outs) but X. With pinv, B is the identity (k = m) and X is A's pseudo-inverse. */
TH__MAYBE_UNUSED static int th__la_lstsq(const char *fn, th_dtype dt, const th_tensor *a, const th_tensor *b,
                                         double rcond, bool pinv, th_tensor **outs, th_tensor **to[])
{
    if (th__la_check_matrix(fn, a, dt) || (!pinv && th__mm_check_input(fn, "B", b, dt)) ||
        th__la_check_rtol(fn, pinv ? "rtol" : "rcond", rcond))
        return th_last_status();
    int nba = a->ndim - 2, nb = nba;
    int64_t m = a->sizes[nba], n = a->sizes[nba + 1], bs[TH_MAX_DIMS + 1];
    for (int d = 0; d < nba; d++) bs[d] = a->sizes[d];
    if (!pinv) {
        if (th__la_check_rhs(fn, "A", a, b, -2, m) || th__la_batch(fn, a, nba, b, b->ndim - 2, &nb, bs))
            return th_last_status();
    }
    int64_t k = pinv ? m : b->sizes[b->ndim - 1], mn = m < n ? m : n, big = m > n ? m : n;
    int64_t sizes[4][TH_MAX_DIMS];
    for (int d = 0; d < nb; d++) sizes[0][d] = sizes[1][d] = sizes[2][d] = sizes[3][d] = bs[d];
    sizes[0][nb] = n;
    sizes[0][nb + 1] = k;
    sizes[1][nb] = m > n ? k : 0;
    sizes[3][nb] = mn;
    const th_dtype dts[4] = {dt, th__la_part(dt), TH_I64, th__la_part(dt)};
    const int ndims[4] = {nb + 2, nb + 1, nb, nb + 1};
    const bool wanted[4] = {true, outs[1] || to[1], outs[2] || to[2], outs[3] || to[3]};
    th_tensor *res[4];
    if (th__la_results(fn, 4, outs, dts, ndims, sizes, wanted, res)) return th_last_status();
#ifndef TH_USE_LAPACK
    (void)rcond;
    (void)big;
    return th__la_hand_over(th__fail(TH_ERR_UNSUPPORTED, fn, "%s", th__la_no_lapack), 4, res, to);
#else
    int64_t batch = 1;
    for (int d = 0; d < nb; d++) batch *= bs[d];
    if (batch == 0) return th__la_hand_over(TH_OK, 4, res, to);
    double tol = th__la_rtol(dt, rcond, m, n);
    th_tensor *w = th__la_pack(fn, a, nb, bs, m, n, true);
    /* B's scratch: column-major max(m, n) x k per matrix, B in its first m rows, zeros below */
    int64_t xs[TH_MAX_DIMS + 2];
    for (int d = 0; d < nb; d++) xs[d] = bs[d];
    xs[nb] = k;
    xs[nb + 1] = big;
    th_tensor *x = w ? th__la_scratch(fn, dt, nb + 2, xs) : NULL;
    th_tensor *be = NULL, *ae = NULL;
    int status = x ? TH_OK : th_last_status();
    size_t es = th__dtype_traits[dt].size, ps = th__dtype_traits[th__la_part(dt)].size;
    if (status == TH_OK) memset(th_tensor_data(x), 0, (size_t)th__numel(x) * es);
    if (status == TH_OK && pinv) {
        th__mm_complex one = {1.0, 0.0};
        for (int64_t i = 0; i < batch; i++)
            for (int64_t j = 0; j < m; j++) th__la_put(dt, th_tensor_data(x), i * k * big + j * big + j, one);
    } else if (status == TH_OK && m > 0 && k > 0) {
        xs[nb] = m;
        xs[nb + 1] = k;
        be = th__expand(fn, b, nb + 2, xs);
        xs[nb + 1] = n;
        ae = be ? th__expand(fn, a, nb + 2, xs) : NULL; /* A as the batch sees it: the residuals of a rank-deficient A */
        th_tensor *t = ae ? th__transpose(fn, x, nb, nb + 1) : NULL;
        th_tensor *v = t ? th__narrow(fn, t, nb, 0, m) : NULL;
        status = v ? th__copy(fn, v, be) : th_last_status();
        th_tensor_release(v);
        th_tensor_release(t);
    }
    void *sv = malloc((size_t)(mn > 0 ? mn : 1) * ps);
    if (!sv && status == TH_OK) status = th__fail(TH_ERR_NOMEM, fn, "no memory for %lld singular values", (long long)mn);
    th_dtype pt = th__la_part(dt);
    for (int64_t i = 0; status == TH_OK && i < batch; i++) {
        char *pa = (char *)th_tensor_data(w) + (size_t)(i * m * n) * es;
        char *pb = (char *)th_tensor_data(x) + (size_t)(i * k * big) * es;
        int64_t rank = 0;
        status = th__la_check_finite(fn, "A", dt, nb, i, m, n, pa, m, NULL);
        if (status == TH_OK && !pinv) status = th__la_check_finite(fn, "B", dt, nb, i, m, k, pb, big, NULL);
        if (status == TH_OK && mn > 0 && k > 0) status = th__la_gelsd(fn, dt, nb, i, m, n, k, pa, pb, sv, tol, &rank);
        if (status == TH_OK && mn > 0 && k == 0) { /* the values and the rank alone: gelsd takes one column at least */
            void *col = calloc((size_t)big, es);
            status = col ? th__la_gelsd(fn, dt, nb, i, m, n, 1, pa, col, sv, tol, &rank)
                         : th__fail(TH_ERR_NOMEM, fn, "no memory for a column of %lld", (long long)big);
            free(col);
        }
        if (status) break;
        if (res[2]) memcpy(th__la_at(res[2], i), &rank, sizeof rank);
        for (int64_t j = 0; res[3] && j < mn; j++) th__la_put(pt, th__la_at(res[3], i * mn + j), 0, th__la_get(pt, sv, j));
        /* residuals: LAPACK leaves them in rows n..m-1 when A has full column rank; else A X - B from the input */
        for (int64_t c = 0; res[1] && m > n && c < k; c++) {
            double sum = 0.0;
            for (int64_t r = 0; r < m; r++) {
                th__mm_complex z;
                if (rank == n) {
                    if (r < n) continue;
                    z = th__la_get(dt, pb, c * big + r);
                } else {
                    z = th__la_get(dt, th__la_at3(be, nb, i, r, c), 0);
                    z.re = -z.re;
                    z.im = -z.im;
                    for (int64_t j = 0; j < n; j++) {
                        th__mm_complex p = th__la_mul(th__la_get(dt, th__la_at3(ae, nb, i, r, j), 0),
                                                      th__la_get(dt, pb, c * big + j));
                        z.re += p.re;
                        z.im += p.im;
                    }
                }
                sum += z.re * z.re + z.im * z.im;
            }
            th__mm_complex v = {sum, 0.0};
            th__la_put(pt, th__la_at(res[1], i * k + c), 0, v);
        }
    }
    if (status == TH_OK) status = th__la_unpack(fn, res[0], x, nb, n, k);
    free(sv);
    TH__RELEASE(ae, be, x, w);
    return th__la_hand_over(status, 4, res, to);
#endif
}

/* The number of singular values of each matrix of A above rtol * its largest (rtol < 0: eps * max(m, n)), int64 of
 * the batch's shape (torch.linalg.matrix_rank). */
TH__MAYBE_UNUSED static th_tensor *th__la_matrix_rank(const char *fn, th_dtype dt, th_tensor *out, const th_tensor *a,
                                                      double rtol)
{
    if (th__la_check_matrix(fn, a, dt) || th__la_check_rtol(fn, "rtol", rtol)) return NULL;
    int nb = a->ndim - 2;
    th_tensor *result = th__result(fn, out, TH_I64, nb, a->sizes);
    if (!result) return NULL;
    th_tensor *s = NULL;
    int64_t m = a->sizes[nb], n = a->sizes[nb + 1], mn = m < n ? m : n, batch = th__numel(result);
    int status = TH_OK;
#ifdef TH_USE_LAPACK
    for (int64_t i = 0; status == TH_OK && i < batch; i++) status = th__la_check_finite(fn, "A", dt, nb, i, m, n, NULL, 0, a);
#endif
    if (status == TH_OK) status = th__la_svd(fn, dt, a, NULL, NULL, NULL, false, false, NULL, &s, NULL);
    double tol = th__la_rtol(dt, rtol, m, n);
    th_dtype pt = th__la_part(dt);
    for (int64_t i = 0; status == TH_OK && i < batch; i++) {
        int64_t rank = 0;
        double top = mn > 0 ? th__la_get(pt, th__la_at(s, i * mn), 0).re : 0.0;
        for (int64_t j = 0; j < mn; j++) rank += th__la_get(pt, th__la_at(s, i * mn + j), 0).re > tol * top;
        memcpy(th__la_at(result, i), &rank, sizeof rank);
    }
    th_tensor_release(s);
    return th__result_or_release(status, result);
}

/* ---- matrix_norm and cond ---- */

TH__MAYBE_UNUSED static const char *th__la_ord_name(th_norm_ord ord)
{
    static const char *const names[] = {"fro", "nuc", "1", "-1", "2", "-2", "inf", "-inf"};
    return (int)ord >= 0 && (int)ord < 8 ? names[(int)ord] : NULL;
}

/* |z| without overflow */
TH__MAYBE_UNUSED static double th__la_abs(th__mm_complex z) { return z.im == 0.0 ? fabs(z.re) : hypot(z.re, z.im); }

/* The norms that need no SVD (fro, 1, -1, inf, -inf) of matrix `index` (rows x cols) of t (its batch of nb dims);
 * NaN propagates. */
TH__MAYBE_UNUSED static double th__la_entry_norm(th_dtype dt, th_norm_ord ord, const th_tensor *t, int nb,
                                                 int64_t index, int64_t rows, int64_t cols)
{
    if (ord == TH_NORM_FRO) { /* scaled sum of squares (LAPACK's lassq): no overflow on the way */
        double scale = 0.0, ssq = 1.0;
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++) {
                th__mm_complex z = th__la_get(dt, th__la_at3(t, nb, index, i, j), 0);
                double parts[2] = {fabs(z.re), fabs(z.im)};
                for (int k = 0; k < 2; k++) {
                    double x = parts[k];
                    if (x == 0.0) continue;
                    if (scale < x) {
                        ssq = 1.0 + ssq * (scale / x) * (scale / x);
                        scale = x;
                    } else {
                        ssq += (x / scale) * (x / scale);
                    }
                }
            }
        return scale * sqrt(ssq);
    }
    bool by_col = ord == TH_NORM_1 || ord == TH_NORM_NEG_1, largest = ord == TH_NORM_1 || ord == TH_NORM_INF;
    int64_t outer = by_col ? cols : rows, inner = by_col ? rows : cols;
    double best = 0.0;
    for (int64_t o = 0; o < outer; o++) {
        double sum = 0.0;
        for (int64_t i = 0; i < inner; i++)
            sum += th__la_abs(th__la_get(dt, th__la_at3(t, nb, index, by_col ? i : o, by_col ? o : i), 0));
        if (o == 0 || (best == best && (largest ? !(sum <= best) : !(sum >= best)))) best = sum; /* NaN wins */
    }
    return best;
}

/* The matrix norm `ord` of every matrix of a (*, m, n), in the real dtype of the batch's shape. */
TH__MAYBE_UNUSED static th_tensor *th__la_matrix_norm(const char *fn, th_dtype dt, th_tensor *out, const th_tensor *a,
                                                      th_norm_ord ord)
{
    if (th__la_check_matrix(fn, a, dt)) return NULL;
    const char *name = th__la_ord_name(ord);
    if (!name)
        return th__fail(TH_ERR_INVALID, fn, "ord is %d: not a th_norm_ord (TH_NORM_FRO .. TH_NORM_NEG_INF)", (int)ord),
               NULL;
    int nb = a->ndim - 2;
    int64_t m = a->sizes[nb], n = a->sizes[nb + 1], mn = m < n ? m : n;
    bool svd = ord == TH_NORM_NUC || ord == TH_NORM_2 || ord == TH_NORM_NEG_2;
    int64_t over = ord == TH_NORM_1 || ord == TH_NORM_NEG_1 ? n : ord == TH_NORM_INF || ord == TH_NORM_NEG_INF ? m
                   : ord == TH_NORM_2 || ord == TH_NORM_NEG_2 ? mn : 1;
    if (over == 0) {
        char sa[160];
        th__shape_string(a->ndim, a->sizes, sa, sizeof sa);
        return th__fail(TH_ERR_SHAPE, fn, "the %s-norm of an empty matrix is not defined (A has shape %s)", name, sa),
               NULL;
    }
    th_dtype pt = th__la_part(dt);
    th_tensor *result = th__result(fn, out, pt, nb, a->sizes);
    if (!result) return NULL;
    int64_t batch = th__numel(result);
    th_tensor *s = NULL;
    int status = TH_OK;
    if (svd && batch > 0 && mn > 0) status = th__la_svd(fn, dt, a, NULL, NULL, NULL, false, false, NULL, &s, NULL);
#ifndef TH_USE_LAPACK
    if (svd && status == TH_OK) status = th__fail(TH_ERR_UNSUPPORTED, fn, "%s", th__la_no_lapack);
#endif
    for (int64_t i = 0; status == TH_OK && i < batch; i++) {
        th__mm_complex v = {0.0, 0.0};
        if (!svd) {
            v.re = th__la_entry_norm(dt, ord, a, nb, i, m, n);
        } else if (mn > 0) {
            for (int64_t j = 0; j < mn; j++) {
                double x = th__la_get(pt, th__la_at(s, i * mn + j), 0).re;
                if (ord == TH_NORM_NUC) v.re += x;
                else if (j == (ord == TH_NORM_2 ? 0 : mn - 1)) v.re = x;
            }
        }
        th__la_put(pt, th__la_at(result, i), 0, v);
    }
    th_tensor_release(s);
    return th__result_or_release(status, result);
}

/* The condition number of every matrix of a in the norm `ord`: for 2 and -2 the ratio of its extreme singular values
 * (any m x n), else |A| |A^-1| (square); inf for a singular matrix, as NumPy and torch. */
TH__MAYBE_UNUSED static th_tensor *th__la_cond(const char *fn, th_dtype dt, th_tensor *out, const th_tensor *a,
                                               th_norm_ord ord)
{
    const char *name = th__la_ord_name(ord);
    bool ratio = ord == TH_NORM_2 || ord == TH_NORM_NEG_2;
    if (ratio ? th__la_check_matrix(fn, a, dt) : th__la_check_square(fn, "A", a, dt)) return NULL;
    if (!name)
        return th__fail(TH_ERR_INVALID, fn, "ord is %d: not a th_norm_ord (TH_NORM_FRO .. TH_NORM_NEG_INF)", (int)ord),
               NULL;
    int nb = a->ndim - 2;
    int64_t m = a->sizes[nb], n = a->sizes[nb + 1], mn = m < n ? m : n;
    if (mn == 0) {
        char sa[160];
        th__shape_string(a->ndim, a->sizes, sa, sizeof sa);
        return th__fail(TH_ERR_SHAPE, fn, "the condition number of an empty matrix is not defined (A has shape %s)",
                        sa), NULL;
    }
    th_dtype pt = th__la_part(dt);
    th_tensor *result = th__result(fn, out, pt, nb, a->sizes);
    if (!result || th__numel(result) == 0) return result;
    int64_t batch = th__numel(result);
    int status = TH_OK;
    th_tensor *na = NULL, *ni = NULL, *w = NULL, *x = NULL;
    bool *singular = NULL;
    if (ratio) {
        na = th__la_matrix_norm(fn, dt, NULL, a, TH_NORM_2);
        ni = na ? th__la_matrix_norm(fn, dt, NULL, a, TH_NORM_NEG_2) : NULL;
        if (!ni) status = th_last_status();
        for (int64_t i = 0; status == TH_OK && i < batch; i++) {
            double hi = th__la_get(pt, th__la_at(na, i), 0).re, lo = th__la_get(pt, th__la_at(ni, i), 0).re;
            th__mm_complex v = {0.0, 0.0};
            double num = ord == TH_NORM_2 ? hi : lo, den = ord == TH_NORM_2 ? lo : hi;
            v.re = den == 0.0 ? INFINITY : num / den;
            th__la_put(pt, th__la_at(result, i), 0, v);
        }
    } else {
        /* A^-1 of every matrix: getrf, then getrs on the identity, column-major; a singular one's left 0 */
        w = th__la_pack(fn, a, nb, a->sizes, n, n, true);
        x = w ? th__la_scratch(fn, dt, nb + 2, a->sizes) : NULL;
        th__la_int *ipiv = x ? (th__la_int *)malloc((size_t)n * sizeof *ipiv) : NULL;
        singular = ipiv ? (bool *)calloc((size_t)batch, sizeof *singular) : NULL;
        if (!singular) status = ipiv ? th__fail(TH_ERR_NOMEM, fn, "no memory for %lld flags", (long long)batch)
                                     : x ? th__fail(TH_ERR_NOMEM, fn, "no memory for %lld pivots", (long long)n)
                                         : th_last_status();
        size_t es = th__dtype_traits[dt].size;
        th__mm_complex zero = {0.0, 0.0}, one = {1.0, 0.0};
        for (int64_t i = 0; status == TH_OK && i < batch; i++) {
            char *pm = (char *)th_tensor_data(w) + (size_t)(i * n * n) * es, *px = (char *)th_tensor_data(x) + (size_t)(i * n * n) * es;
            for (int64_t j = 0; j < n * n; j++) th__la_put(dt, px, j, j % (n + 1) == 0 ? one : zero);
            int info = th__la_getrf(dt, n, pm, ipiv);
            if (info < 0) status = th__la_refused(fn, "getrf", info);
            else if (info > 0) {
                singular[i] = true;
                for (int64_t j = 0; j < n * n; j++) th__la_put(dt, px, j, zero);
            } else if ((info = th__la_getrs(dt, false, n, n, pm, ipiv, px)) != 0) {
                status = th__la_refused(fn, "getrs", info);
            }
        }
        free(ipiv);
        th_tensor *xt = status == TH_OK ? th__transpose(fn, x, nb, nb + 1) : NULL;
        if (status == TH_OK && !xt) status = th_last_status();
        na = status == TH_OK ? th__la_matrix_norm(fn, dt, NULL, a, ord) : NULL;
        ni = na ? th__la_matrix_norm(fn, dt, NULL, xt, ord) : NULL;
        if (status == TH_OK && !ni) status = th_last_status();
        th_tensor_release(xt);
        for (int64_t i = 0; status == TH_OK && i < batch; i++) {
            th__mm_complex v = {INFINITY, 0.0};
            if (!singular[i]) v.re = th__la_get(pt, th__la_at(na, i), 0).re * th__la_get(pt, th__la_at(ni, i), 0).re;
            th__la_put(pt, th__la_at(result, i), 0, v);
        }
    }
    free(singular);
    TH__RELEASE(x, w, ni, na);
    return th__result_or_release(status, result);
}

/* ---- matrix_power ---- */

/* A product out = a @ b of two batches of the same shape, by the dtype's typed matmul (ops/lapack.h hands it in). */
typedef int (*th__la_matmul_fn)(th_tensor *out, const th_tensor *a, const th_tensor *b);

/* a @ b into a new tensor of a's shape; NULL on error. */
TH__MAYBE_UNUSED static th_tensor *th__la_product(const char *fn, th__la_matmul_fn mm, const th_tensor *a,
                                                  const th_tensor *b)
{
    th_tensor *r = th__tensor_empty(fn, a->dtype, a->ndim, a->sizes);
    if (r && mm(r, a, b)) {
        th_tensor_release(r);
        return NULL;
    }
    return r;
}

/* A^n of every matrix of A (*, m, m) by repeated squaring (about 2 log2 |n| products); A^0 is the identity (for a
 * singular A too, as NumPy and torch), a negative n is (A^-1)^|n|, A^-1 by inv (a singular A is TH_ERR_LINALG). */
TH__MAYBE_UNUSED static th_tensor *th__la_matrix_power(const char *fn, th_dtype dt, th_tensor *out, const th_tensor *a,
                                                       int64_t n, th__la_matmul_fn mm)
{
    if (th__la_check_square(fn, "A", a, dt)) return NULL;
    th_tensor *result = th__result(fn, out, dt, a->ndim, a->sizes);
    if (!result || th__numel(result) == 0) return result;
    int nb = a->ndim - 2;
    int64_t m = a->sizes[nb], batch = th__numel(result) / (m * m);
    int status = TH_OK;
    th_tensor *acc = NULL, *base = NULL;
    if (n == 0) {
        th__mm_complex zero = {0.0, 0.0}, one = {1.0, 0.0};
        for (int64_t i = 0; i < batch; i++)
            for (int64_t r = 0; r < m; r++)
                for (int64_t c = 0; c < m; c++) th__la_put(dt, th__la_at3(result, nb, i, r, c), 0, r == c ? one : zero);
        return result;
    }
    /* |n| without overflow for INT64_MIN: its bits, read as unsigned */
    uint64_t k = n < 0 ? (uint64_t)0 - (uint64_t)n : (uint64_t)n;
    if (n < 0) {
        base = th__la_inv(fn, dt, NULL, a);
    } else {
        base = th__tensor_empty(fn, dt, a->ndim, a->sizes);
        if (base && th__copy(fn, base, a)) {
            th_tensor_release(base);
            base = NULL;
        }
    }
    if (!base) status = th_last_status();
    while (status == TH_OK && k) {
        if (k & 1) {
            th_tensor *next = acc ? th__la_product(fn, mm, acc, base) : th_tensor_retain(base);
            if (!next) status = th_last_status();
            th_tensor_release(acc);
            acc = next;
        }
        k >>= 1;
        if (k && status == TH_OK) {
            th_tensor *sq = th__la_product(fn, mm, base, base);
            if (!sq) status = th_last_status();
            th_tensor_release(base);
            base = sq;
        }
    }
    if (status == TH_OK) status = th__copy(fn, result, acc);
    th_tensor_release(acc);
    th_tensor_release(base);
    return th__result_or_release(status, result);
}

/* ---- matrix_exp ---- */

/* dst = c_0 m_0 + ... + c_{k-1} m_{k-1} + ci I over contiguous n x n tensors of dtype dt (m_j may be dst), in
 * double. */
TH__MAYBE_UNUSED static void th__la_mexp_comb(th_dtype dt, int64_t n, th_tensor *dst, int k, const double *c,
                                              th_tensor *const *m, double ci)
{
    void *d = th_tensor_data(dst);
    for (int64_t j = 0; j < n * n; j++) {
        th__mm_complex z = {j % (n + 1) == 0 ? ci : 0.0, 0.0};
        for (int q = 0; q < k; q++) {
            th__mm_complex x = th__la_get(dt, th_tensor_data(m[q]), j);
            z.re += c[q] * x.re;
            z.im += c[q] * x.im;
        }
        th__la_put(dt, d, j, z);
    }
}

/* exp(A) of one contiguous n x n matrix a (n >= 2, finite, already scaled so that |A|_1 <= the degree's theta)
 * by the [m/m] Pade approximant r_m = (V - U)^-1 (V + U), U odd and V even in A; the result in a. */
TH__MAYBE_UNUSED static int th__la_mexp_pade(const char *fn, th_dtype dt, th_tensor *a, int m, th__la_matmul_fn mm)
{
    int64_t n = a->sizes[0];
    /* b_j = (2m - j)! m! / ((2m)! j! (m - j)!), by b_j = b_{j-1} (m - j + 1) / (j (2m - j + 1)) from b_0 = 1 */
    double b[14];
    b[0] = 1.0;
    for (int j = 1; j <= m; j++) b[j] = b[j - 1] * (double)(m - j + 1) / ((double)j * (double)(2 * m - j + 1));
    th_tensor *p[7] = {NULL, NULL, NULL, NULL, NULL, NULL, NULL}; /* A^2, A^4, A^6 (and A^8 for m = 9) */
    th_tensor *u = NULL, *v = NULL, *t = NULL, *num = NULL, *den = NULL, *x = NULL;
    int status = TH_OK, np = m == 13 ? 3 : (m - 1) / 2;
    for (int q = 0; q < np && status == TH_OK; q++) {
        p[q] = th__la_product(fn, mm, q == 0 ? a : p[q - 1], q == 0 ? a : p[0]);
        if (!p[q]) status = th_last_status();
    }
    if (status == TH_OK) {
        u = th__tensor_empty(fn, dt, 2, a->sizes);
        v = u ? th__tensor_empty(fn, dt, 2, a->sizes) : NULL;
        if (!v) status = th_last_status();
    }
    if (status == TH_OK && m == 13) {
        /* U = A [A6 (b13 A6 + b11 A4 + b9 A2) + b7 A6 + b5 A4 + b3 A2 + b1 I],
         * V = A6 (b12 A6 + b10 A4 + b8 A2) + b6 A6 + b4 A4 + b2 A2 + b0 I */
        th_tensor *ms[3] = {p[2], p[1], p[0]};
        double cu[3] = {b[13], b[11], b[9]}, cv[3] = {b[12], b[10], b[8]};
        th__la_mexp_comb(dt, n, u, 3, cu, ms, 0.0);
        th__la_mexp_comb(dt, n, v, 3, cv, ms, 0.0);
        th_tensor *pu = th__la_product(fn, mm, p[2], u), *pv = pu ? th__la_product(fn, mm, p[2], v) : NULL;
        if (!pv) status = th_last_status();
        if (status == TH_OK) {
            th_tensor *mu[4] = {pu, p[2], p[1], p[0]}, *mv[4] = {pv, p[2], p[1], p[0]};
            double du[4] = {1.0, b[7], b[5], b[3]}, dv[4] = {1.0, b[6], b[4], b[2]};
            th__la_mexp_comb(dt, n, u, 4, du, mu, b[1]);
            th__la_mexp_comb(dt, n, v, 4, dv, mv, b[0]);
        }
        TH__RELEASE(pv, pu);
    } else if (status == TH_OK) {
        /* U = A (b_m A^(m-1) + ... + b_3 A^2 + b_1 I), V = b_(m-1) A^(m-1) + ... + b_2 A^2 + b_0 I */
        double cu[4], cv[4];
        for (int q = 0; q < np; q++) {
            cu[q] = b[2 * q + 3];
            cv[q] = b[2 * q + 2];
        }
        th__la_mexp_comb(dt, n, u, np, cu, p, b[1]);
        th__la_mexp_comb(dt, n, v, np, cv, p, b[0]);
    }
    if (status == TH_OK) {
        t = th__la_product(fn, mm, a, u);
        num = t ? th__tensor_empty(fn, dt, 2, a->sizes) : NULL;
        den = num ? th__tensor_empty(fn, dt, 2, a->sizes) : NULL;
        if (!den) status = th_last_status();
    }
    if (status == TH_OK) {
        th_tensor *vu[2] = {v, t};
        double plus[2] = {1.0, 1.0}, minus[2] = {1.0, -1.0};
        th__la_mexp_comb(dt, n, num, 2, plus, vu, 0.0);
        th__la_mexp_comb(dt, n, den, 2, minus, vu, 0.0);
        x = th__la_solve(fn, dt, NULL, den, num);
        status = x ? th__copy(fn, a, x) : th_last_status();
    }
    TH__RELEASE(x, den, num, t, v, u, p[3], p[2], p[1], p[0]);
    return status;
}

/* exp(A) of every matrix of A (*, n, n) by scaling and squaring (Higham 2005, Algorithm 2.3): the smallest Pade
 * degree whose theta bounds |A|_1, else A / 2^s with the largest degree (13 in double, 7 in single precision) and
 * s = ceil(log2(|A|_1 / theta)), then s squarings; s is at most about 1100, the exponent range of a double. A matrix
 * holding inf or NaN gives NaN throughout (no error; torch's choice); n = 1 is exp of the entry. */
TH__MAYBE_UNUSED static th_tensor *th__la_matrix_exp(const char *fn, th_dtype dt, th_tensor *out, const th_tensor *a,
                                                     th__la_matmul_fn mm)
{
    if (th__la_check_square(fn, "A", a, dt)) return NULL;
    th_tensor *result = th__result(fn, out, dt, a->ndim, a->sizes);
    if (!result || th__numel(result) == 0) return result;
    int nb = a->ndim - 2;
    int64_t n = a->sizes[nb], batch = th__numel(result) / (n * n), sz[2] = {n, n};
    /* The Pade degrees expm tries, smallest first, and the largest 1-norm for which each meets the unit roundoff
     * (Higham 2005, "The scaling and squaring method for the matrix exponential revisited", Table 2.3: double
     * precision degrees 3, 5, 7, 9, 13; single precision, u = 2^-24, degrees 3, 5, 7). */
    static const int deg_of[5] = {3, 5, 7, 9, 13};
    static const double theta64[5] = {1.495585217958292e-2, 2.539398330063230e-1, 9.504178996162932e-1,
                                      2.097847961257068e0, 5.371920351148152e0};
    static const double theta32[3] = {4.258730016922831e-1, 1.880152677804762e0, 3.925724783138660e0};
    bool single = dt == TH_F32 || dt == TH_C64;
    const double *theta = single ? theta32 : theta64;
    int ndeg = single ? 3 : 5;
    /* the result is computed into a scratch and copied at the end, so that an out overlapping A is safe */
    th_tensor *work = th__tensor_empty(fn, dt, a->ndim, a->sizes);
    th_tensor *w = work ? th__tensor_empty(fn, dt, 2, sz) : NULL;
    int status = w ? TH_OK : th_last_status();
    for (int64_t i = 0; status == TH_OK && i < batch; i++) {
        void *wd = th_tensor_data(w);
        double big = 0.0; /* the largest |a_rc|, then |A|_1 / big: the norm without overflow */
        bool finite = true;
        for (int64_t r = 0; r < n; r++)
            for (int64_t c = 0; c < n; c++) {
                th__mm_complex z = th__la_get(dt, th__la_at3(a, nb, i, r, c), 0);
                th__la_put(dt, wd, r * n + c, z);
                finite = finite && isfinite(z.re) && isfinite(z.im);
                double e = th__la_abs(z);
                if (e > big) big = e;
            }
        th__mm_complex nan = {NAN, th__la_complex(dt) ? NAN : 0.0}, one = {1.0, 0.0}, zero = {0.0, 0.0};
        if (!finite || big == 0.0 || n == 1) {
            th__mm_complex z0 = th__la_get(dt, wd, 0), e = {exp(z0.re), 0.0};
            if (z0.im != 0.0) {
                e.im = e.re * sin(z0.im);
                e.re *= cos(z0.im);
            }
            for (int64_t j = 0; j < n * n; j++)
                th__la_put(dt, wd, j, !finite ? nan : n == 1 ? e : j % (n + 1) == 0 ? one : zero);
        } else {
            double rel = 0.0;
            for (int64_t c = 0; c < n; c++) {
                double col = 0.0;
                for (int64_t r = 0; r < n; r++) col += th__la_abs(th__la_get(dt, wd, r * n + c)) / big;
                if (col > rel) rel = col;
            }
            double l2 = log2(big) + log2(rel); /* log2 |A|_1 */
            int deg = 0, s = 0;
            while (deg < ndeg - 1 && l2 > log2(theta[deg])) deg++;
            if (l2 > log2(theta[deg])) s = (int)ceil(l2 - log2(theta[deg]));
            if (s > 0) /* A / 2^s: exact, bar underflow of tiny entries */
                for (int64_t j = 0; j < n * n; j++) {
                    th__mm_complex z = th__la_get(dt, wd, j);
                    z.re = ldexp(z.re, -s);
                    z.im = ldexp(z.im, -s);
                    th__la_put(dt, wd, j, z);
                }
            status = th__la_mexp_pade(fn, dt, w, deg_of[deg], mm);
            for (int q = 0; q < s && status == TH_OK; q++) {
                th_tensor *sq = th__la_product(fn, mm, w, w);
                status = sq ? th__copy(fn, w, sq) : th_last_status();
                th_tensor_release(sq);
            }
        }
        if (status != TH_OK) break;
        wd = th_tensor_data(w);
        for (int64_t r = 0; r < n; r++)
            for (int64_t c = 0; c < n; c++)
                th__la_put(dt, th__la_at3(work, nb, i, r, c), 0, th__la_get(dt, wd, r * n + c));
    }
    if (status == TH_OK) status = th__copy(fn, result, work);
    TH__RELEASE(w, work);
    return th__result_or_release(status, result);
}

#endif /* TH__DEFINING */
