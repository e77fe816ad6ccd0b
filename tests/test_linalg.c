/* tests/test_linalg.c: dot, mv, addmv, mm, addmm, bmm, baddbmm, matmul, outer and addr for every dtype but
 * bool, through CBLAS and through the built-in kernel, against a reference computed here: a plain triple
 * loop in complex double.
 *
 * The data are small integers (real and imaginary parts), so every dtype's exact result is representable
 * before the final rounding (integers wrap modulo 2^bits, as the library's do): results must match the
 * reference exactly. One random-float case checks f32 and f64 rounding with a tolerance. Layouts: contiguous,
 * transposed, strided with a negative stride, expanded (stride 0), size 0 and 1, 0-d outs; every error.
 *
 * This file stamps itself: the first pass (TH_NAME undefined) is the harness and main; generate/ then
 * includes it once per dtype with TH_NAME defined, which compiles the per-dtype half at the end. */
#ifndef TH_NAME

#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})

/* ---- the reference, dtype-erased, in complex double ---- */

static uint32_t seed = 12345;
static int rand_int(int lo, int hi)
{
    seed = seed * 1664525u + 1013904223u;
    return lo + (int)((seed >> 8) % (uint32_t)(hi - lo + 1));
}

/* Small integers in [lo, hi], real and (when complex) imaginary parts. */
static th_c128_tensor *rand_values(int ndim, const int64_t *sizes, bool with_imag, int lo, int hi)
{
    th_c128_tensor *t = th_c128_empty(ndim, sizes);
    th_complex128 *p = th_c128_data(t);
    for (int64_t i = 0; i < th_c128_numel(t); i++) {
        double re = rand_int(lo, hi), im = with_imag ? rand_int(lo, hi) : 0;
        p[i] = re + im * I;
    }
    return t;
}

/* The offset, in a contiguous tensor of ndim sizes, of the element that broadcasting puts at linear index lin
 * of a result of rdim rsizes. */
static int64_t bcast_offset(int64_t lin, int rdim, const int64_t *rsizes, int ndim, const int64_t *sizes)
{
    int64_t off = 0, stride = 1;
    for (int k = 0; k < rdim; k++) {
        int64_t i = lin % rsizes[rdim - 1 - k];
        lin /= rsizes[rdim - 1 - k];
        if (k < ndim) {
            int64_t s = sizes[ndim - 1 - k];
            if (s != 1) off += i * stride;
            stride *= s;
        }
    }
    return off;
}

/* matmul's rules (1-d promoted and removed, batch dims broadcast), one element at a time. */
static th_c128_tensor *ref_matmul(const th_tensor *a, const th_tensor *b)
{
    th_c128_tensor *ca = th_c128_convert(a), *cb = th_c128_convert(b);
    int nda = th_tensor_ndim(a), ndb = th_tensor_ndim(b);
    int64_t as[TH_MAX_DIMS + 1], bs[TH_MAX_DIMS + 1];
    int pa = 0, pb = 0;
    for (int d = 0; d < nda; d++) {
        if (nda == 1) as[pa++] = 1;
        as[pa++] = th_tensor_sizes(a)[d];
    }
    for (int d = 0; d < ndb; d++) bs[pb++] = th_tensor_sizes(b)[d];
    if (ndb == 1) bs[pb++] = 1;
    int64_t m = as[pa - 2], k = as[pa - 1], n = bs[pb - 1];
    int nb = pa > pb ? pa - 2 : pb - 2;
    int64_t rs[TH_MAX_DIMS], batch = 1;
    int rd = 0;
    for (int d = 0; d < nb; d++) {
        int da = d - (nb - (pa - 2)), db = d - (nb - (pb - 2));
        int64_t x = da >= 0 ? as[da] : 1, y = db >= 0 ? bs[db] : 1;
        rs[rd++] = x == 1 ? y : x;
        batch *= rs[d];
    }
    int64_t full[TH_MAX_DIMS + 2];
    for (int d = 0; d < nb; d++) full[d] = rs[d];
    if (nda > 1) rs[rd++] = m;
    if (ndb > 1) rs[rd++] = n;
    th_c128_tensor *r = th_c128_zeros(rd, rs);
    th_complex128 *pr = th_c128_data(r);
    const th_complex128 *A = th_c128_data(ca), *B = th_c128_data(cb);
    for (int64_t bi = 0; bi < batch; bi++) {
        /* The batch entry's offsets in a and b: broadcast over the batch dims, then the matrix. */
        int64_t oa = bcast_offset(bi, nb, full, pa - 2, as) * m * k;
        int64_t ob = bcast_offset(bi, nb, full, pb - 2, bs) * k * n;
        /* row by row, in double pairs (C11 lays a complex out as two reals): C's complex multiply is a slow
         * library call, and this order runs along contiguous rows */
        for (int64_t i = 0; i < m; i++) {
            double *out = (double *)(void *)(pr + (bi * m + i) * n);
            for (int64_t p = 0; p < k; p++) {
                const double *x = (const double *)(const void *)(A + oa + i * k + p);
                const double *y = (const double *)(const void *)(B + ob + p * n);
                for (int64_t j = 0; j < n; j++) {
                    out[2 * j] += x[0] * y[2 * j] - x[1] * y[2 * j + 1];
                    out[2 * j + 1] += x[0] * y[2 * j + 1] + x[1] * y[2 * j];
                }
            }
        }
    }
    th_c128_release(ca);
    th_c128_release(cb);
    return r;
}

/* beta*bias + alpha*prod, bias broadcast to prod's shape; beta == 0 leaves bias out. */
static th_c128_tensor *ref_add(th_complex128 beta, const th_tensor *bias, th_complex128 alpha, th_c128_tensor *prod)
{
    th_c128_tensor *cb = th_c128_convert(bias);
    th_c128_tensor *r = th_c128_clone(prod);
    th_complex128 *pr = th_c128_data(r);
    const th_complex128 *pb = th_c128_data(cb);
    for (int64_t i = 0; i < th_c128_numel(r); i++) {
        pr[i] *= alpha;
        if (beta != 0)
            pr[i] += beta * pb[bcast_offset(i, th_c128_ndim(r), th_c128_sizes(r), th_c128_ndim(cb), th_c128_sizes(cb))];
    }
    th_c128_release(cb);
    return r;
}

/* got equals want (same shape; values within tol relative); prints the first difference. */
static bool close_to(const th_tensor *got, const th_tensor *want, double tol)
{
    if (!got || !want) return false;
    if (th_tensor_ndim(got) != th_tensor_ndim(want)) {
        fprintf(stderr, "  ndim %d, want %d\n", th_tensor_ndim(got), th_tensor_ndim(want));
        return false;
    }
    for (int d = 0; d < th_tensor_ndim(got); d++)
        if (th_tensor_sizes(got)[d] != th_tensor_sizes(want)[d]) {
            fprintf(stderr, "  size of dim %d: %lld, want %lld\n", d, (long long)th_tensor_sizes(got)[d],
                    (long long)th_tensor_sizes(want)[d]);
            return false;
        }
    th_c128_tensor *g = th_c128_convert(got), *w = th_c128_convert(want);
    const th_complex128 *pg = th_c128_data(g), *pw = th_c128_data(w);
    bool ok = true;
    for (int64_t i = 0; ok && i < th_c128_numel(g); i++) {
        double err = cabs(pg[i] - pw[i]);
        if (!(err <= tol * (1 + cabs(pw[i])))) {
            fprintf(stderr, "  %s: element %lld is %g%+gi, want %g%+gi\n", th_dtype_name(th_tensor_dtype(got)),
                    (long long)i, creal(pg[i]), cimag(pg[i]), creal(pw[i]), cimag(pw[i]));
            ok = false;
        }
    }
    th_c128_release(g);
    th_c128_release(w);
    return ok;
}

/* Layouts an operand is built in. */
enum { CONTIGUOUS, TRANSPOSED, STRIDED_NEGATIVE, NUM_LAYOUTS };
static const char *const layout_names[NUM_LAYOUTS] = {"contiguous", "transposed", "strided-negative"};

/* The per-dtype tests, stamped below. */
#define T_NAME(verb) TH_DT_PASTE(t_, _##verb)
#define TH_GENERIC_FILE "test_linalg.c"
#include "generate/all.h"
#undef T_NAME

/* ---- errors (f32; the checks are dtype-independent) ---- */

static th_f32_tensor *f32_range(int ndim, const int64_t *sizes)
{
    th_f32_tensor *t = th_f32_empty(ndim, sizes);
    for (int64_t i = 0; i < th_f32_numel(t); i++) th_f32_data(t)[i] = (float)(i % 7) - 3;
    return t;
}

static void test_errors(void)
{
    th_f32_tensor *A = f32_range(2, SZ(2, 3)), *B = f32_range(2, SZ(4, 5)), *Bok = f32_range(2, SZ(3, 5));
    th_f32_tensor *v3 = f32_range(1, SZ(3)), *v4 = f32_range(1, SZ(4)), *s = f32_range(0, NULL);
    th_f32_tensor *A3 = f32_range(3, SZ(2, 2, 3)), *B3 = f32_range(3, SZ(3, 3, 5));
    th_f32_tensor *out = th_f32_empty(2, SZ(2, 5)), *wrong = th_f32_empty(2, SZ(5, 2));

    /* NULL */
    CHECK_NULL(th_f32_mm(NULL, Bok), TH_ERR_INVALID, "th_f32_mm", "NULL A");
    CHECK_NULL(th_f32_mm(A, NULL), TH_ERR_INVALID, "th_f32_mm", "NULL B");
    CHECK_NULL(th_f32_dot(NULL, v3), TH_ERR_INVALID, "th_f32_dot", "NULL a");
    CHECK_NULL(th_f32_addmm(NULL, A, Bok, 1, 1), TH_ERR_INVALID, "th_f32_addmm", "NULL C");
    CHECK_FAILS(th_f32_mm_out(NULL, A, Bok), TH_ERR_INVALID, "th_f32_mm_out", "NULL out");
    CHECK_FAILS(th_f32_addmm_inplace(NULL, A, Bok, 1, 1), TH_ERR_INVALID, "th_f32_addmm_inplace", "NULL C");
    CHECK_FAILS(th_f32_addmv_inplace(NULL, A, v3, 1, 1), TH_ERR_INVALID, "th_f32_addmv_inplace", "NULL y");
    CHECK_FAILS(th_f32_baddbmm_inplace(NULL, A3, A3, 1, 1), TH_ERR_INVALID, "th_f32_baddbmm_inplace", "NULL C");
    CHECK_FAILS(th_f32_addr_inplace(NULL, v3, v3, 1, 1), TH_ERR_INVALID, "th_f32_addr_inplace", "NULL A");
    CHECK_FAILS(th_f32_matmul_out(out, A, NULL), TH_ERR_INVALID, "th_f32_matmul_out", "NULL b");

    /* wrong ndim */
    CHECK_NULL(th_f32_dot(A, v3), TH_ERR_SHAPE, "th_f32_dot", "a must have 1 dim; it has shape (2, 3)");
    CHECK_NULL(th_f32_mv(v3, v3), TH_ERR_SHAPE, "th_f32_mv", "A must have 2 dims; it has shape (3)");
    CHECK_NULL(th_f32_mv(A, A), TH_ERR_SHAPE, "th_f32_mv", "x must have 1 dim");
    CHECK_NULL(th_f32_mm(A3, Bok), TH_ERR_SHAPE, "th_f32_mm", "A must have 2 dims; it has shape (2, 2, 3)");
    CHECK_NULL(th_f32_bmm(A, Bok), TH_ERR_SHAPE, "th_f32_bmm", "A must have 3 dims");
    CHECK_NULL(th_f32_outer(A, v3), TH_ERR_SHAPE, "th_f32_outer", "x must have 1 dim");
    CHECK_NULL(th_f32_addr(A, v3, s, 1, 1), TH_ERR_SHAPE, "th_f32_addr", "y must have 1 dim; it has shape ()");
    CHECK_NULL(th_f32_matmul(s, v3), TH_ERR_SHAPE, "th_f32_matmul", "a has 0 dims and b has 1: both need at least 1");

    /* inner sizes, naming both shapes */
    CHECK_NULL(th_f32_mm(A, B), TH_ERR_SHAPE, "th_f32_mm",
               "A has shape (2, 3) and B has shape (4, 5): inner sizes 3 and 4 differ");
    CHECK_NULL(th_f32_dot(v3, v4), TH_ERR_SHAPE, "th_f32_dot", "a has shape (3) and b has shape (4)");
    CHECK_NULL(th_f32_mv(A, v4), TH_ERR_SHAPE, "th_f32_mv", "inner sizes 3 and 4 differ");
    CHECK_NULL(th_f32_matmul(v4, A), TH_ERR_SHAPE, "th_f32_matmul", "a has shape (4) and b has shape (2, 3)");
    CHECK_FAILS(th_f32_mm_out(out, A, B), TH_ERR_SHAPE, "th_f32_mm_out", "inner sizes 3 and 4 differ");

    /* batch dims */
    CHECK_NULL(th_f32_bmm(A3, B3), TH_ERR_SHAPE, "th_f32_bmm",
               "the batch dims of A (2, 2, 3) and B (3, 3, 5) do not match (2 vs 3)");
    CHECK_NULL(th_f32_matmul(A3, B3), TH_ERR_SHAPE, "th_f32_matmul",
               "the batch dims of a (2, 2, 3) and b (3, 3, 5) do not broadcast (2 vs 3)");

    /* the added tensor */
    th_f32_tensor *bias = f32_range(1, SZ(4));
    CHECK_NULL(th_f32_addmm(bias, A, Bok, 1, 1), TH_ERR_SHAPE, "th_f32_addmm",
               "C has shape (4), which does not broadcast to the result's (2, 5)");
    CHECK_NULL(th_f32_addmm(bias, A, Bok, 0, 1), TH_ERR_SHAPE, "th_f32_addmm", "does not broadcast");
    CHECK_NULL(th_f32_addmv(bias, A, v3, 1, 1), TH_ERR_SHAPE, "th_f32_addmv", "y has shape (4)");
    CHECK_FAILS(th_f32_addmm_inplace(wrong, A, Bok, 1, 1), TH_ERR_SHAPE, "th_f32_addmm_inplace",
                "C has shape (5, 2), which does not broadcast to the result's (2, 5)");

    /* out */
    CHECK_FAILS(th_f32_mm_out(wrong, A, Bok), TH_ERR_SHAPE, "th_f32_mm_out",
                "out has shape (5, 2); the result has shape (2, 5)");
    th_f64_tensor *out64 = th_f64_empty(2, SZ(2, 5));
    CHECK_FAILS(th_f32_mm_out((th_f32_tensor *)out64, A, Bok), TH_ERR_DTYPE, "th_f32_mm_out",
                "out is f64; this result is f32");
    CHECK_NULL(th_f32_mm((th_f32_tensor *)out64, Bok), TH_ERR_DTYPE, "th_f32_mm", "A is f64, not f32");
    th_f32_tensor *row = th_f32_empty(2, SZ(1, 5));
    th_f32_tensor *expanded = th_f32_expand(row, 2, SZ(2, 5));
    CHECK_FAILS(th_f32_mm_out(expanded, A, Bok), TH_ERR_INVALID, "th_f32_mm_out", "several elements share an address");
    th_f32_tensor *ro = th_f32_zeros(2, SZ(2, 5));
    th_storage_make_read_only(th_f32_storage(ro));
    CHECK_FAILS(th_f32_mm_out(ro, A, Bok), TH_ERR_READ_ONLY, "th_f32_mm_out", "");
    CHECK_FAILS(th_f32_addmm_inplace(ro, A, Bok, 1, 1), TH_ERR_READ_ONLY, "th_f32_addmm_inplace", "");

    /* device memory */
    float dev_mem[15];
    th_storage *dev = th_storage_from_blob(dev_mem, sizeof dev_mem, (th_device){TH_DEVICE_CUDA, 0}, NULL, NULL);
    th_f32_tensor *on_dev = th_f32_new_with_storage(dev, 0, 2, SZ(3, 5), NULL);
    /* a host operand beside a device one: refused by the dispatch, never copied */
    CHECK_NULL(th_f32_mm(A, on_dev), TH_ERR_DEVICE, "th_f32_mm", "operand 1 is on device 1:0 and operand 2 on device 2:0");
    /* both on the device, and no companion registered (this program links none) */
    th_f32_tensor *on_dev_t = th_f32_transpose(on_dev, 0, 1);
    CHECK_NULL(th_f32_mm(on_dev, on_dev_t), TH_ERR_DEVICE, "th_f32_mm", "no companion has registered ops");
    th_f32_release(on_dev_t);
    th_f32_release(on_dev);
    th_storage_release(dev);

    /* out of memory: the result, then the built-in kernel's packing buffers (more than one product's worth
     * so the kernel packs rather than taking the dot path) */
    th_counting_allocator_fail_after(check_counter, 1);
    CHECK_NULL(th_f32_mm(A, Bok), TH_ERR_NOMEM, "th_f32_mm", "");
    th_counting_allocator_fail_after(check_counter, 0);
    bool was = th_linalg_set_blas(false);
    th_counting_allocator_fail_after(check_counter, 1);
    CHECK_FAILS(th_f32_mm_out(out, A, Bok), TH_ERR_NOMEM, "th_f32_mm_out", "no memory for the packed blocks");
    th_counting_allocator_fail_after(check_counter, 0);
    th_linalg_set_blas(was);
    if (th_linalg_blas()) {
        /* BLAS cannot take a stride-2 column: it is repacked into scratch, which fails here */
        th_f32_tensor *big = f32_range(2, SZ(2, 6));
        th_f32_tensor *gapped = th_f32_as_strided(big, 2, SZ(2, 3), SZ(6, 2), 0);
        th_counting_allocator_fail_after(check_counter, 1);
        CHECK_FAILS(th_f32_mm_out(out, gapped, Bok), TH_ERR_NOMEM, "th_f32_mm_out", "no memory to repack");
        th_counting_allocator_fail_after(check_counter, 0);
        th_f32_release(gapped);
        th_f32_release(big);
    }

    /* after all those failures the out is untouched by a good call's checks and works */
    CHECK_INT_EQ(th_f32_mm_out(out, A, Bok), TH_OK);

    th_f32_release(ro);
    th_f32_release(expanded);
    th_f32_release(row);
    th_f64_release(out64);
    th_f32_release(bias);
    th_f32_release(wrong);
    th_f32_release(out);
    th_f32_release(B3);
    th_f32_release(A3);
    th_f32_release(s);
    th_f32_release(v4);
    th_f32_release(v3);
    th_f32_release(Bok);
    th_f32_release(B);
    th_f32_release(A);
}

/* ---- rounding: random floats against the double reference ---- */

static void test_float_rounding(void)
{
    const int64_t m = 67, k = 301, n = 45;
    th_f64_tensor *a64 = th_f64_empty(2, SZ(m, k)), *b64 = th_f64_empty(2, SZ(k, n));
    for (int64_t i = 0; i < m * k; i++) th_f64_data(a64)[i] = rand_int(-1000, 1000) / 997.0;
    for (int64_t i = 0; i < k * n; i++) th_f64_data(b64)[i] = rand_int(-1000, 1000) / 991.0;
    th_c128_tensor *ref = ref_matmul(th_f64_base(a64), th_f64_base(b64));
    th_f32_tensor *a32 = th_f32_convert(th_f64_base(a64)), *b32 = th_f32_convert(th_f64_base(b64));
    /* the reference from the f32-rounded inputs: what's left is the product's own rounding */
    th_c128_tensor *ref32 = ref_matmul(th_f32_base(a32), th_f32_base(b32));
    for (int blas = 0; blas < 2; blas++) {
        bool was = th_linalg_set_blas(blas);
        th_f64_tensor *r64 = th_f64_mm(a64, b64);
        th_f32_tensor *r32 = th_f32_mm(a32, b32);
        CHECK(close_to(th_f64_base(r64), th_c128_base(ref), 1e-13));
        CHECK(close_to(th_f32_base(r32), th_c128_base(ref32), 1e-5));
        th_f32_release(r32);
        th_f64_release(r64);
        th_linalg_set_blas(was);
    }
    th_c128_release(ref32);
    th_c128_release(ref);
    th_f32_release(b32);
    th_f32_release(a32);
    th_f64_release(b64);
    th_f64_release(a64);
}

/* ---- memory not aligned for the element type (a blob one byte in): BLAS gets an aligned copy ---- */

static void test_unaligned(void)
{
    static unsigned char bytes[1 + 4 * (6 * 5 + 5 * 4 + 6 * 4)];
    float values[6 * 5 + 5 * 4];
    for (int i = 0; i < 6 * 5 + 5 * 4; i++) values[i] = (float)rand_int(-3, 3);
    memcpy(bytes + 1, values, sizeof values);
    th_f32_tensor *A = th_f32_from_blob((float *)(void *)(bytes + 1), 2, SZ(6, 5), NULL, NULL, NULL);
    th_f32_tensor *B = th_f32_from_blob((float *)(void *)(bytes + 1 + 4 * 30), 2, SZ(5, 4), NULL, NULL, NULL);
    th_f32_tensor *C = th_f32_from_blob((float *)(void *)(bytes + 1 + 4 * 50), 2, SZ(6, 4), NULL, NULL, NULL);
    th_c128_tensor *ref = ref_matmul(th_f32_base(A), th_f32_base(B));
    for (int blas = 0; blas < 2; blas++) {
        bool was = th_linalg_set_blas(blas);
        CHECK_INT_EQ(th_f32_mm_out(C, A, B), TH_OK);
        CHECK(close_to(th_f32_base(C), th_c128_base(ref), 0.0));
        th_linalg_set_blas(was);
    }
    /* mv and dot on the unaligned memory too */
    th_f32_tensor *col = th_f32_select(B, 1, 2), *row = th_f32_select(A, 0, 1);
    th_f32_tensor *mv = th_f32_mv(A, col), *d = th_f32_dot(row, col);
    th_c128_tensor *ref_mv = ref_matmul(th_f32_base(A), th_f32_base(col));
    th_c128_tensor *ref_d = ref_matmul(th_f32_base(row), th_f32_base(col));
    CHECK(close_to(th_f32_base(mv), th_c128_base(ref_mv), 0.0));
    CHECK(close_to(th_f32_base(d), th_c128_base(ref_d), 0.0));
    th_c128_release(ref_d);
    th_c128_release(ref_mv);
    th_f32_release(d);
    th_f32_release(mv);
    th_f32_release(row);
    th_f32_release(col);
    th_c128_release(ref);
    th_f32_release(C);
    th_f32_release(B);
    th_f32_release(A);
}

/* ---- outs that partly overlap an input: the same storage at another offset ---- */

/* The product reads its inputs as they were before it wrote anything: it copies an input whose memory
 * overlaps out, and copies C into out through a temporary when they overlap. Each case is checked against
 * the same op on disjoint copies, and the storage outside out must be left as it was. Small integer values
 * keep every sum exact, so the kernels and BLAS must agree to the bit. */

enum { OV_MM, OV_MATMUL, OV_ADDMM, OV_ADDMM_INPLACE, OV_MV };
enum { OV_STORAGE = 2000 };

/* A view into the shared storage; own: a contiguous tensor of its own instead. */
typedef struct ov_view {
    bool own;
    int ndim;
    int64_t sizes[3], strides[3], offset;
} ov_view;

static double ov_value(int64_t i) { return (double)((i * 7 + 3) % 11) - 5; }

static th_f64_tensor *ov_make(th_f64_tensor *storage, const ov_view *v)
{
    if (!v->own) return th_f64_as_strided(storage, v->ndim, v->sizes, v->strides, v->offset);
    th_f64_tensor *t = th_f64_empty(v->ndim, v->sizes);
    for (int64_t i = 0; i < th_f64_numel(t); i++) th_f64_data(t)[i] = ov_value(i + 40);
    return t;
}

/* Every element of storage that out does not address equals before's. */
static bool ov_only_out_written(const th_f64_tensor *storage, const double *before, const th_f64_tensor *out)
{
    bool mine[OV_STORAGE] = {false};
    const int nd = th_f64_ndim(out);
    const int64_t *sizes = th_f64_sizes(out), *strides = th_f64_strides(out);
    for (int64_t lin = 0; lin < th_f64_numel(out); lin++) {
        int64_t off = th_tensor_offset(th_f64_base(out)), rest = lin;
        for (int d = nd - 1; d >= 0; d--) {
            off += rest % sizes[d] * strides[d];
            rest /= sizes[d];
        }
        mine[off] = true;
    }
    for (int64_t i = 0; i < OV_STORAGE; i++)
        if (!mine[i] && th_f64_data(storage)[i] != before[i]) return false;
    return true;
}

static void ov_case(const char *what, int op, ov_view o, ov_view a, ov_view b, ov_view c)
{
    const double beta = 2, alpha = -3;
    for (int blas = 0; blas < 2; blas++) {
        bool was = th_linalg_set_blas(blas);
        th_f64_tensor *storage = th_f64_empty(1, SZ(OV_STORAGE));
        for (int64_t i = 0; i < OV_STORAGE; i++) th_f64_data(storage)[i] = ov_value(i);
        th_f64_tensor *out = ov_make(storage, &o), *A = ov_make(storage, &a), *B = ov_make(storage, &b);
        th_f64_tensor *C = op == OV_ADDMM_INPLACE ? th_f64_retain(out) : op == OV_ADDMM ? ov_make(storage, &c) : NULL;
        th_f64_tensor *ac = th_f64_clone(A), *bc = th_f64_clone(B), *cc = C ? th_f64_clone(C) : NULL, *want = NULL;
        double before[OV_STORAGE];
        memcpy(before, th_f64_data(storage), sizeof before);
        int status = TH_ERR_INVALID;
        switch (op) {
        case OV_MM:
            want = th_f64_mm(ac, bc);
            status = th_f64_mm_out(out, A, B);
            break;
        case OV_MATMUL:
            want = th_f64_matmul(ac, bc);
            status = th_f64_matmul_out(out, A, B);
            break;
        case OV_ADDMM:
            want = th_f64_addmm(cc, ac, bc, beta, alpha);
            status = th_f64_addmm_out(out, C, A, B, beta, alpha);
            break;
        case OV_ADDMM_INPLACE:
            want = th_f64_addmm(cc, ac, bc, beta, alpha);
            status = th_f64_addmm_inplace(out, A, B, beta, alpha);
            break;
        case OV_MV:
            want = th_f64_mv(ac, bc);
            status = th_f64_mv_out(out, A, B);
            break;
        }
        bool ok = status == TH_OK && close_to(th_f64_base(out), th_f64_base(want), 0.0) &&
                  ov_only_out_written(storage, before, out);
        CHECK(ok);
        if (!ok)
            fprintf(stderr, "  overlapping out: %s (blas %d): %s\n", what, blas,
                    status == TH_OK ? "wrong values, or it wrote outside out" : th_last_error());
        th_f64_release(want);
        th_f64_release(cc);
        th_f64_release(bc);
        th_f64_release(ac);
        th_f64_release(C);
        th_f64_release(B);
        th_f64_release(A);
        th_f64_release(out);
        th_f64_release(storage);
        th_linalg_set_blas(was);
        if (!th_linalg_blas()) break; /* without CBLAS both passes would take the built-in kernel */
    }
}

#define OV(...) ((ov_view){false, __VA_ARGS__})
#define OV_OWN(nd, ...) ((ov_view){true, nd, {__VA_ARGS__}, {0}, 0})
#define OV_NONE ((ov_view){true, 0, {0}, {0}, 0})

static void test_overlapping_outs(void)
{
    /* 140 rows: two row blocks of the built-in kernel, so the second reads A (and packs B again) after the
     * first has written its part of out. mm: out over A's later rows, a transposed out over B, out across
     * the end of A and all of B, and out interleaved with A (spans overlap, no element is shared). */
    ov_case("mm, out over A", OV_MM, OV(2, {140, 4}, {4, 1}, 300), OV(2, {140, 6}, {6, 1}, 0), OV_OWN(2, 6, 4),
            OV_NONE);
    ov_case("mm, transposed out over B", OV_MM, OV(2, {140, 4}, {1, 140}, 10), OV_OWN(2, 140, 6),
            OV(2, {6, 4}, {4, 1}, 0), OV_NONE);
    ov_case("mm, out across A and B", OV_MM, OV(2, {140, 4}, {4, 1}, 600), OV(2, {140, 6}, {6, 1}, 0),
            OV(2, {6, 4}, {4, 1}, 840), OV_NONE);
    ov_case("mm, out interleaved with A", OV_MM, OV(2, {140, 4}, {12, 2}, 1), OV(2, {140, 6}, {12, 2}, 0),
            OV_OWN(2, 6, 4), OV_NONE);
    /* matmul: batched, out over a's second batch; a vector times a matrix of two column blocks, out over
     * the vector and the matrix */
    ov_case("matmul batched, out over a", OV_MATMUL, OV(3, {2, 3, 5}, {15, 5, 1}, 12),
            OV(3, {2, 3, 4}, {12, 4, 1}, 0), OV_OWN(2, 4, 5), OV_NONE);
    ov_case("matmul vector-matrix, out over a and b", OV_MATMUL, OV(1, {300}, {1}, 2), OV(1, {4}, {1}, 0),
            OV(2, {4, 300}, {300, 1}, 4), OV_NONE);
    /* addmm: out over A; C under out, shifted either way; C a broadcast row straddling out's first two rows;
     * a transposed C, A and out all overlapping; addmm_inplace with A under C */
    ov_case("addmm, out over A", OV_ADDMM, OV(2, {140, 4}, {4, 1}, 300), OV(2, {140, 6}, {6, 1}, 0),
            OV_OWN(2, 6, 4), OV_OWN(2, 140, 4));
    ov_case("addmm, C shifted under out", OV_ADDMM, OV(2, {5, 4}, {4, 1}, 43), OV_OWN(2, 5, 6), OV_OWN(2, 6, 4),
            OV(2, {5, 4}, {4, 1}, 40));
    ov_case("addmm, C shifted past out", OV_ADDMM, OV(2, {5, 4}, {4, 1}, 40), OV_OWN(2, 5, 6), OV_OWN(2, 6, 4),
            OV(2, {5, 4}, {4, 1}, 43));
    ov_case("addmm, C a row inside out", OV_ADDMM, OV(2, {5, 4}, {4, 1}, 50), OV_OWN(2, 5, 6), OV_OWN(2, 6, 4),
            OV(1, {4}, {1}, 52));
    ov_case("addmm, transposed C under out and A", OV_ADDMM, OV(2, {5, 4}, {4, 1}, 20), OV(2, {5, 6}, {6, 1}, 0),
            OV_OWN(2, 6, 4), OV(2, {5, 4}, {1, 5}, 15));
    ov_case("addmm_inplace, A under C", OV_ADDMM_INPLACE, OV(2, {140, 4}, {4, 1}, 300), OV(2, {140, 6}, {6, 1}, 0),
            OV_OWN(2, 6, 4), OV_NONE);
    /* mv (one dot per output, written as it goes): out over A's later rows; out running backwards into x */
    ov_case("mv, out over A", OV_MV, OV(1, {140}, {1}, 300), OV(2, {140, 6}, {6, 1}, 0), OV_OWN(1, 6), OV_NONE);
    ov_case("mv, reversed out over x", OV_MV, OV(1, {5}, {-1}, 8), OV_OWN(2, 5, 6), OV(1, {6}, {1}, 0), OV_NONE);
}

#undef OV
#undef OV_OWN
#undef OV_NONE

int main(void)
{
    test_begin();
    printf("linalg: CBLAS %s\n", th_linalg_blas() ? "in use" : "not built in");
#define RUN_DTYPE(sfx, ...) TH__IF_##sfx(t_##sfx##_all();)
    TH_FOREACH_DTYPE(RUN_DTYPE)
#undef RUN_DTYPE
    test_errors();
    test_float_rounding();
    test_unaligned();
    test_overlapping_outs();
    return test_end("linalg");
}

#else /* ---- per dtype ---- */

#if !defined(TH_REAL_IS_BOOL)

#if defined(TH_REAL_IS_COMPLEX)
#define T_COMPLEX true
#else
#define T_COMPLEX false
#endif
#if defined(TH_REAL_IS_UNSIGNED)
#define T_LO 0
#else
#define T_LO (-3)
#endif

/* A real of value re + im*i (im dropped for real dtypes). */
static real T_NAME(scalar)(double re, double im)
{
#if defined(TH_REAL_IS_F16)
    (void)im;
    return th_float16_from_double(re);
#elif defined(TH_REAL_IS_BF16)
    (void)im;
    return th_bfloat16_from_double(re);
#elif defined(TH_REAL_IS_COMPLEX)
    return (real)(re + im * I);
#else
    (void)im;
    return (real)re;
#endif
}

/* The expected result of this dtype: the exact reference rounded as the dtype rounds (integers through int64,
 * so they wrap). */
static TH_NAME(tensor) *T_NAME(expected)(th_c128_tensor *ref)
{
#if defined(TH_REAL_IS_INTEGER)
    th_i64_tensor *i = th_i64_convert(th_c128_base(ref));
    TH_NAME(tensor) *e = TH_NAME(convert)(th_i64_base(i));
    th_i64_release(i);
    return e;
#else
    return TH_NAME(convert)(th_c128_base(ref));
#endif
}

/* got matches ref (released here) exactly. */
static bool T_NAME(matches)(const TH_NAME(tensor) *got, th_c128_tensor *ref)
{
    TH_NAME(tensor) *e = T_NAME(expected)(ref);
    bool ok = close_to(TH_NAME(base)(got), TH_NAME(base)(e), 0.0);
    TH_NAME(release)(e);
    th_c128_release(ref);
    return ok;
}

/* values (c128) as this dtype, laid out as asked. */
static TH_NAME(tensor) *T_NAME(laid_out)(const th_c128_tensor *values, int layout)
{
    TH_NAME(tensor) *c = TH_NAME(convert)(th_c128_base(values));
    int nd = TH_NAME(ndim)(c);
    const int64_t *sizes = TH_NAME(sizes)(c);
    TH_NAME(tensor) *v = NULL;
    if (layout == TRANSPOSED && nd >= 2) {
        int64_t swapped[TH_MAX_DIMS];
        memcpy(swapped, sizes, (size_t)nd * sizeof *swapped);
        swapped[nd - 1] = sizes[nd - 2];
        swapped[nd - 2] = sizes[nd - 1];
        TH_NAME(tensor) *t = TH_NAME(zeros)(nd, swapped);
        v = TH_NAME(transpose)(t, -1, -2);
        TH_NAME(release)(t);
    } else if (layout != CONTIGUOUS) {
        /* every other element, the last dim running backwards */
        int64_t n = TH_NAME(numel)(c), strides[TH_MAX_DIMS], step = 2, offset = 0;
        for (int d = nd - 1; d >= 0; d--) {
            strides[d] = step;
            step *= sizes[d] > 0 ? sizes[d] : 1;
        }
        if (nd > 0) {
            strides[nd - 1] = -2;
            offset = sizes[nd - 1] > 0 ? 2 * (sizes[nd - 1] - 1) : 0;
        }
        TH_NAME(tensor) *base = TH_NAME(zeros)(1, SZ(2 * n + 2));
        v = TH_NAME(as_strided)(base, nd, sizes, strides, offset);
        TH_NAME(release)(base);
    } else {
        return c;
    }
    CHECK_INT_EQ(TH_NAME(copy)(v, c), TH_OK);
    TH_NAME(release)(c);
    return v;
}

static TH_NAME(tensor) *T_NAME(random)(int ndim, const int64_t *sizes, int layout, th_c128_tensor **values)
{
    th_c128_tensor *r = rand_values(ndim, sizes, T_COMPLEX, T_LO, 3);
    TH_NAME(tensor) *t = T_NAME(laid_out)(r, layout);
    if (values)
        *values = r;
    else
        th_c128_release(r);
    return t;
}

/* mm, mm_out into a transposed out, addmm (bias broadcast from a row, beta 0 with the bias not read),
 * addmm_out and addmm_inplace, in the layouts given. */
static void T_NAME(mm_case)(int64_t m, int64_t k, int64_t n, int la, int lb, bool every_form)
{
    TH_NAME(tensor) *A = T_NAME(random)(2, SZ(m, k), la, NULL), *B = T_NAME(random)(2, SZ(k, n), lb, NULL);
    th_c128_tensor *prod = ref_matmul(TH_NAME(base)(A), TH_NAME(base)(B));
    TH_NAME(tensor) *r = TH_NAME(mm)(A, B);
    bool ok = T_NAME(matches)(r, th_c128_clone(prod));
    CHECK(ok);
    if (!ok)
        fprintf(stderr, "  mm %s (%lld, %lld, %lld) layouts %s, %s, blas %d\n", th_dtype_name(TH_DT_ENUM), (long long)m,
                (long long)k, (long long)n, layout_names[la], layout_names[lb], (int)th_linalg_blas());
    TH_NAME(release)(r);
    if (!every_form) { /* big products: mm above, and addmm_inplace into a strided C below */
        const real two = T_NAME(scalar)(2, 0), three = T_NAME(scalar)(3, 0);
        TH_NAME(tensor) *C = T_NAME(random)(2, SZ(m, n), STRIDED_NEGATIVE, NULL);
        th_c128_tensor *cv = th_c128_convert(TH_NAME(base)(C));
        CHECK_INT_EQ(TH_NAME(addmm_inplace)(C, A, B, two, three), TH_OK);
        CHECK(T_NAME(matches)(C, ref_add(2, th_c128_base(cv), 3, prod)));
        th_c128_release(cv);
        TH_NAME(release)(C);
        th_c128_release(prod);
        TH_NAME(release)(B);
        TH_NAME(release)(A);
        return;
    }

    /* out transposed in memory */
    TH_NAME(tensor) *ot = TH_NAME(zeros)(2, SZ(n, m)), *out = TH_NAME(transpose)(ot, 0, 1);
    CHECK_INT_EQ(TH_NAME(mm_out)(out, A, B), TH_OK);
    CHECK(T_NAME(matches)(out, th_c128_clone(prod)));

    /* addmm: bias (n) broadcast; beta 2 - i, alpha -3 + 2i */
    const double br = 2, bi = -1, ar = -3, ai = 2;
    th_complex128 beta = br + (T_COMPLEX ? bi : 0) * I, alpha = ar + (T_COMPLEX ? ai : 0) * I;
#if defined(TH_REAL_IS_UNSIGNED)
    alpha = 3; /* u8 wraps anyway, but keep the reference's int64 route exact */
#endif
    real rb = T_NAME(scalar)(br, bi), ra = T_NAME(scalar)(creal(alpha), cimag(alpha));
    th_c128_tensor *bias_values;
    TH_NAME(tensor) *bias = T_NAME(random)(1, SZ(n), CONTIGUOUS, &bias_values);
    r = TH_NAME(addmm)(bias, A, B, rb, ra);
    CHECK(T_NAME(matches)(r, ref_add(beta, th_c128_base(bias_values), alpha, prod)));
    TH_NAME(release)(r);
    CHECK_INT_EQ(TH_NAME(addmm_out)(out, bias, A, B, rb, ra), TH_OK);
    CHECK(T_NAME(matches)(out, ref_add(beta, th_c128_base(bias_values), alpha, prod)));

    /* addmm_inplace on a full C, then beta 0: C is not read */
    TH_NAME(tensor) *C = T_NAME(random)(2, SZ(m, n), lb, NULL);
    th_c128_tensor *cv = th_c128_convert(TH_NAME(base)(C));
    CHECK_INT_EQ(TH_NAME(addmm_inplace)(C, A, B, rb, ra), TH_OK);
    CHECK(T_NAME(matches)(C, ref_add(beta, th_c128_base(cv), alpha, prod)));
#if defined(TH_REAL_IS_FLOATING) && !defined(TH_REAL_IS_REDUCED)
    CHECK_INT_EQ(TH_NAME(fill)(C, (real)NAN), TH_OK);
#endif
    CHECK_INT_EQ(TH_NAME(addmm_inplace)(C, A, B, T_NAME(scalar)(0, 0), ra), TH_OK);
    CHECK(T_NAME(matches)(C, ref_add(0, th_c128_base(cv), alpha, prod)));

    th_c128_release(cv);
    TH_NAME(release)(C);
    th_c128_release(bias_values);
    TH_NAME(release)(bias);
    TH_NAME(release)(out);
    TH_NAME(release)(ot);
    th_c128_release(prod);
    TH_NAME(release)(B);
    TH_NAME(release)(A);
}

/* matmul of a of sa and b of sb (in the given layouts) against the reference, new and _out. */
static void T_NAME(matmul_case)(int nda, const int64_t *sa, int ndb, const int64_t *sb, int layout)
{
    TH_NAME(tensor) *a = T_NAME(random)(nda, sa, layout, NULL), *b = T_NAME(random)(ndb, sb, CONTIGUOUS, NULL);
    th_c128_tensor *prod = ref_matmul(TH_NAME(base)(a), TH_NAME(base)(b));
    TH_NAME(tensor) *r = TH_NAME(matmul)(a, b);
    bool ok = T_NAME(matches)(r, th_c128_clone(prod));
    CHECK(ok);
    if (!ok) fprintf(stderr, "  matmul ndims %d, %d, layout %s\n", nda, ndb, layout_names[layout]);
    TH_NAME(tensor) *out = TH_NAME(zeros)(th_c128_ndim(prod), th_c128_sizes(prod));
    CHECK_INT_EQ(TH_NAME(matmul_out)(out, a, b), TH_OK);
    CHECK(T_NAME(matches)(out, prod));
    TH_NAME(release)(out);
    TH_NAME(release)(r);
    TH_NAME(release)(b);
    TH_NAME(release)(a);
}

/* dot, mv, addmv, outer, addr, bmm, baddbmm: each against matmul's reference of the same product. */
static void T_NAME(vector_cases)(int layout)
{
    real two = T_NAME(scalar)(2, 0), three = T_NAME(scalar)(3, 0), zero = T_NAME(scalar)(0, 0);
    th_c128_tensor *xv, *yv;
    TH_NAME(tensor) *x = T_NAME(random)(1, SZ(37), layout, &xv), *y = T_NAME(random)(1, SZ(37), CONTIGUOUS, &yv);
    TH_NAME(tensor) *d = TH_NAME(dot)(x, y);
    CHECK(TH_NAME(ndim)(d) == 0);
    CHECK(T_NAME(matches)(d, ref_matmul(TH_NAME(base)(x), TH_NAME(base)(y))));
    TH_NAME(tensor) *d0 = TH_NAME(zeros)(0, NULL);
    CHECK_INT_EQ(TH_NAME(dot_out)(d0, x, y), TH_OK);
    CHECK(T_NAME(matches)(d0, ref_matmul(TH_NAME(base)(x), TH_NAME(base)(y))));

    /* mv, addmv with y broadcast from one element, addmv_inplace */
    TH_NAME(tensor) *A = T_NAME(random)(2, SZ(29, 37), layout, NULL);
    th_c128_tensor *prod = ref_matmul(TH_NAME(base)(A), TH_NAME(base)(x));
    TH_NAME(tensor) *r = TH_NAME(mv)(A, x);
    CHECK(T_NAME(matches)(r, th_c128_clone(prod)));
    TH_NAME(tensor) *one = T_NAME(random)(1, SZ(1), CONTIGUOUS, NULL);
    TH_NAME(tensor) *r2 = TH_NAME(addmv)(one, A, x, three, two);
    CHECK(T_NAME(matches)(r2, ref_add(3, TH_NAME(base)(one), 2, prod)));
    th_c128_tensor *before = th_c128_convert(TH_NAME(base)(r));
    CHECK_INT_EQ(TH_NAME(addmv_inplace)(r, A, x, three, two), TH_OK);
    CHECK(T_NAME(matches)(r, ref_add(3, th_c128_base(before), 2, prod)));
    CHECK_INT_EQ(TH_NAME(mv_out)(r, A, x), TH_OK);
    CHECK(T_NAME(matches)(r, th_c128_clone(prod)));
    CHECK_INT_EQ(TH_NAME(addmv_out)(r2, r, A, x, zero, two), TH_OK); /* beta 0: r not read */
    CHECK(T_NAME(matches)(r2, ref_add(0, TH_NAME(base)(r), 2, prod)));
    th_c128_release(before);
    th_c128_release(prod);

    /* outer and addr: x (37) outer z (5) */
    TH_NAME(tensor) *z = T_NAME(random)(1, SZ(5), CONTIGUOUS, NULL);
    TH_NAME(tensor) *xc = TH_NAME(unsqueeze)(x, 1), *zr = TH_NAME(unsqueeze)(z, 0);
    prod = ref_matmul(TH_NAME(base)(xc), TH_NAME(base)(zr));
    TH_NAME(tensor) *o = TH_NAME(outer)(x, z);
    CHECK(T_NAME(matches)(o, th_c128_clone(prod)));
    CHECK_INT_EQ(TH_NAME(outer_out)(o, z, z), TH_ERR_SHAPE);
    CHECK_INT_EQ(TH_NAME(outer_out)(o, x, z), TH_OK);
    CHECK(T_NAME(matches)(o, th_c128_clone(prod)));
    TH_NAME(tensor) *ar = TH_NAME(addr)(z, x, z, two, three); /* z as a row broadcast to (37, 5) */
    CHECK(T_NAME(matches)(ar, ref_add(2, TH_NAME(base)(z), 3, prod)));
    before = th_c128_convert(TH_NAME(base)(ar));
    CHECK_INT_EQ(TH_NAME(addr_inplace)(ar, x, z, two, three), TH_OK);
    CHECK(T_NAME(matches)(ar, ref_add(2, th_c128_base(before), 3, prod)));
    CHECK_INT_EQ(TH_NAME(addr_out)(o, ar, x, z, two, zero), TH_OK);
    CHECK(T_NAME(matches)(o, ref_add(2, TH_NAME(base)(ar), 0, prod)));
    th_c128_release(before);
    th_c128_release(prod);

    /* bmm, baddbmm with C broadcast from (1, 1, n), baddbmm_inplace */
    TH_NAME(tensor) *A3 = T_NAME(random)(3, SZ(3, 6, 9), layout, NULL);
    TH_NAME(tensor) *B3 = T_NAME(random)(3, SZ(3, 9, 7), CONTIGUOUS, NULL);
    prod = ref_matmul(TH_NAME(base)(A3), TH_NAME(base)(B3));
    TH_NAME(tensor) *b3 = TH_NAME(bmm)(A3, B3);
    CHECK(T_NAME(matches)(b3, th_c128_clone(prod)));
    TH_NAME(tensor) *c3 = T_NAME(random)(3, SZ(1, 1, 7), CONTIGUOUS, NULL);
    TH_NAME(tensor) *bb = TH_NAME(baddbmm)(c3, A3, B3, two, three);
    CHECK(T_NAME(matches)(bb, ref_add(2, TH_NAME(base)(c3), 3, prod)));
    CHECK_INT_EQ(TH_NAME(bmm_out)(bb, A3, B3), TH_OK);
    CHECK(T_NAME(matches)(bb, th_c128_clone(prod)));
    CHECK_INT_EQ(TH_NAME(baddbmm_inplace)(bb, A3, B3, three, two), TH_OK);
    CHECK(T_NAME(matches)(bb, ref_add(3, TH_NAME(base)(b3), 2, prod)));
    CHECK_INT_EQ(TH_NAME(baddbmm_out)(b3, c3, A3, B3, two, three), TH_OK);
    CHECK(T_NAME(matches)(b3, ref_add(2, TH_NAME(base)(c3), 3, prod)));
    th_c128_release(prod);

    TH_NAME(release)(bb);
    TH_NAME(release)(c3);
    TH_NAME(release)(b3);
    TH_NAME(release)(B3);
    TH_NAME(release)(A3);
    TH_NAME(release)(ar);
    TH_NAME(release)(o);
    TH_NAME(release)(zr);
    TH_NAME(release)(xc);
    TH_NAME(release)(z);
    TH_NAME(release)(r2);
    TH_NAME(release)(one);
    TH_NAME(release)(r);
    TH_NAME(release)(A);
    TH_NAME(release)(d0);
    TH_NAME(release)(d);
    th_c128_release(yv);
    th_c128_release(xv);
    TH_NAME(release)(y);
    TH_NAME(release)(x);
}

/* Expanded (stride-0) operands, an out that is one of the inputs, empty inner dims. */
static void T_NAME(special_cases)(void)
{
    real two = T_NAME(scalar)(2, 0), three = T_NAME(scalar)(3, 0), zero = T_NAME(scalar)(0, 0);
    /* A: one row repeated; B: one column repeated */
    TH_NAME(tensor) *arow = T_NAME(random)(2, SZ(1, 40), CONTIGUOUS, NULL);
    TH_NAME(tensor) *bcol = T_NAME(random)(2, SZ(40, 1), CONTIGUOUS, NULL);
    TH_NAME(tensor) *A = TH_NAME(expand)(arow, 2, SZ(9, 40)), *B = TH_NAME(expand)(bcol, 2, SZ(40, 6));
    TH_NAME(tensor) *r = TH_NAME(mm)(A, B);
    CHECK(T_NAME(matches)(r, ref_matmul(TH_NAME(base)(A), TH_NAME(base)(B))));
    TH_NAME(release)(r);

    /* mm_out into its own input: the input is read from a copy */
    TH_NAME(tensor) *S = T_NAME(random)(2, SZ(20, 20), CONTIGUOUS, NULL);
    TH_NAME(tensor) *T = T_NAME(random)(2, SZ(20, 20), TRANSPOSED, NULL);
    th_c128_tensor *prod = ref_matmul(TH_NAME(base)(S), TH_NAME(base)(T));
    CHECK_INT_EQ(TH_NAME(mm_out)(S, S, T), TH_OK);
    CHECK(T_NAME(matches)(S, th_c128_clone(prod)));
    th_c128_release(prod);
    /* addmm_inplace whose C is also B */
    prod = ref_matmul(TH_NAME(base)(S), TH_NAME(base)(T));
    th_c128_tensor *tv = th_c128_convert(TH_NAME(base)(T));
    CHECK_INT_EQ(TH_NAME(addmm_inplace)(T, S, T, two, three), TH_OK);
    CHECK(T_NAME(matches)(T, ref_add(2, th_c128_base(tv), 3, prod)));
    th_c128_release(tv);
    th_c128_release(prod);

    /* k = 0: mm gives zeros, addmm gives beta*C (and zeros for beta 0) */
    TH_NAME(tensor) *E1 = TH_NAME(empty)(2, SZ(4, 0)), *E2 = TH_NAME(empty)(2, SZ(0, 3));
    TH_NAME(tensor) *C = T_NAME(random)(2, SZ(4, 3), CONTIGUOUS, NULL);
    r = TH_NAME(mm)(E1, E2);
    th_c128_tensor *zeros = th_c128_zeros(2, SZ(4, 3));
    CHECK(T_NAME(matches)(r, th_c128_clone(zeros)));
    TH_NAME(release)(r);
    r = TH_NAME(addmm)(C, E1, E2, three, two);
    CHECK(T_NAME(matches)(r, ref_add(3, TH_NAME(base)(C), 2, zeros)));
    CHECK_INT_EQ(TH_NAME(addmm_inplace)(r, E1, E2, zero, two), TH_OK);
    CHECK(T_NAME(matches)(r, th_c128_clone(zeros)));
    TH_NAME(release)(r);
    TH_NAME(tensor) *e0 = TH_NAME(empty)(1, SZ(0));
    r = TH_NAME(dot)(e0, e0);
    CHECK(T_NAME(matches)(r, th_c128_zeros(0, NULL)));
    TH_NAME(release)(r);
    /* m = 0 and n = 0: empty results */
    TH_NAME(tensor) *Ct = TH_NAME(transpose)(C, 0, 1);
    r = TH_NAME(mm)(E2, Ct);
    CHECK(r && TH_NAME(numel)(r) == 0 && TH_NAME(size)(r, 0) == 0 && TH_NAME(size)(r, 1) == 4);
    TH_NAME(release)(r);
    TH_NAME(release)(Ct);
    TH_NAME(tensor) *E2t = TH_NAME(transpose)(E2, 0, 1);
    r = TH_NAME(mm)(C, E2t);
    CHECK(r && TH_NAME(numel)(r) == 0 && TH_NAME(size)(r, 0) == 4 && TH_NAME(size)(r, 1) == 0);
    TH_NAME(release)(r);
    TH_NAME(release)(E2t);
    th_c128_release(zeros);

    TH_NAME(release)(e0);
    TH_NAME(release)(C);
    TH_NAME(release)(E2);
    TH_NAME(release)(E1);
    TH_NAME(release)(T);
    TH_NAME(release)(S);
    TH_NAME(release)(B);
    TH_NAME(release)(A);
    TH_NAME(release)(bcol);
    TH_NAME(release)(arow);
}

static void T_NAME(one_path)(void)
{
    /* one shape in every pair of layouts; sizes of 1 (gemv, dot and their layouts) in three pairs */
    for (int la = 0; la < NUM_LAYOUTS; la++)
        for (int lb = 0; lb < NUM_LAYOUTS; lb++) T_NAME(mm_case)(3, 4, 5, la, lb, true);
    static const int64_t shapes[][3] = {{1, 7, 1}, {5, 1, 3}, {1, 6, 9}, {8, 6, 1}, {2, 3, 1}};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (int l = 0; l < NUM_LAYOUTS; l++)
            T_NAME(mm_case)(shapes[s][0], shapes[s][1], shapes[s][2], l, (l + 1 + (int)s % 2) % NUM_LAYOUTS, true);
    /* big enough for several k panels and output blocks in every direction, the blocks split between two
     * threads; a tall one on one thread. Without OpenMP the big one still runs, on one thread: it is the
     * only product here with blocks in both directions and more than one k panel. */
    T_NAME(mm_case)(129, 270, 3, STRIDED_NEGATIVE, TRANSPOSED, false);
    const int saved = th_get_num_threads();
    test_set_threads(2);
    T_NAME(mm_case)(130, 300, 260, TRANSPOSED, STRIDED_NEGATIVE, false);
    th_set_num_threads(saved);

    for (int l = 0; l < NUM_LAYOUTS; l++) T_NAME(vector_cases)(l);

    /* matmul: every rank pairing, batch broadcasting */
    T_NAME(matmul_case)(1, SZ(6), 1, SZ(6), CONTIGUOUS);
    T_NAME(matmul_case)(2, SZ(4, 6), 1, SZ(6), TRANSPOSED);
    T_NAME(matmul_case)(1, SZ(6), 2, SZ(6, 5), STRIDED_NEGATIVE);
    T_NAME(matmul_case)(1, SZ(6), 3, SZ(2, 6, 5), CONTIGUOUS);
    T_NAME(matmul_case)(3, SZ(2, 4, 6), 1, SZ(6), TRANSPOSED);
    T_NAME(matmul_case)(4, SZ(2, 1, 3, 4), 3, SZ(5, 4, 2), STRIDED_NEGATIVE);
    T_NAME(matmul_case)(2, SZ(3, 4), 4, SZ(2, 3, 4, 5), TRANSPOSED);
    T_NAME(matmul_case)(3, SZ(1, 3, 4), 3, SZ(6, 4, 2), CONTIGUOUS);
    T_NAME(matmul_case)(3, SZ(0, 3, 4), 2, SZ(4, 2), CONTIGUOUS);

    T_NAME(special_cases)();
}

static void T_NAME(all)(void)
{
    T_NAME(one_path)();
#if defined(TH_REAL_IS_F32) || defined(TH_REAL_IS_F64) || defined(TH_REAL_IS_COMPLEX)
    if (th_linalg_blas()) { /* the same through the built-in kernel */
        th_linalg_set_blas(false);
        T_NAME(one_path)();
        th_linalg_set_blas(true);
    }
#endif
}

#undef T_COMPLEX
#undef T_LO
#else
static void T_NAME(all)(void) {} /* bool has no products */
#endif /* !TH_REAL_IS_BOOL */
#endif /* per dtype */
