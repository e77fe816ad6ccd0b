/* bench_th.c: tensor.h's side of the benchmark. Links against th_impl.c, the one implementation TU, as a
 * real program would: every library call here is an ordinary call into another translation unit. run.sh
 * builds th_impl.c with -DTH_USE_CBLAS and links OpenBLAS where it has them (matrix products through
 * CBLAS, as Meson's default build does); otherwise matmul runs tensor.h's built-in kernel. */
#define _POSIX_C_SOURCE 200809L
#include "bench_common.h"
#include "tensor.h"

#include <math.h>

enum { SQUARE = 4096 };
#define VEC_N ((int64_t)16 << 20)

static th_f32_tensor *small_t; /* 4x6: the base of every view */
static th_f32_tensor *square;  /* SQUARE x SQUARE, element [i][j] = i * SQUARE + j */
static th_f32_tensor *vec;     /* VEC_N elements, element i = i % 1000 */
static th_f32_tensor *vec_b;   /* VEC_N elements, element i = i % 7: the right-hand side of add */
static th_f32_tensor *xin;     /* VEC_N elements in [-4, 4): the argument of exp and tanh */
static th_f32_tensor *vec_out; /* VEC_N elements: the preallocated out of add_out, exp_out, tanh_out */
static th_f32_tensor *bcol;    /* (SQUARE, 1), element i = i */
static th_f32_tensor *brow;    /* (1, SQUARE), element j = (j % 100) / 4 */
static th_f32_tensor *bout;    /* (SQUARE, SQUARE): the out of add_bcast */
static th_f32_tensor *tiny_a, *tiny_b; /* 4 elements each */
static th_f32_tensor *sum_in;  /* (SQUARE, SQUARE), element i = i % 2 (see bench_limits.c): what the sums sum */
static th_f32_tensor *mm_a[2], *mm_b[2], *mm_c[2]; /* 1024^2 and 2048^2: matmul operands and out */
static const int64_t mm_n[2] = {1024, 2048};

/* ---- small ops ---- */

static void batch_create(int64_t iters)
{
    static const int64_t sizes[2] = {2, 3};
    for (int64_t i = 0; i < iters; i++) {
        th_f32_tensor *t = th_f32_empty(2, sizes);
        bench_escape(t);
        th_f32_release(t);
    }
}

static void batch_transpose(int64_t iters)
{
    for (int64_t i = 0; i < iters; i++) {
        th_f32_tensor *v = th_f32_transpose(small_t, 0, 1);
        bench_escape(v);
        th_f32_release(v);
    }
}

static void batch_narrow(int64_t iters)
{
    for (int64_t i = 0; i < iters; i++) {
        th_f32_tensor *v = th_f32_narrow(small_t, 0, 1, 2);
        bench_escape(v);
        th_f32_release(v);
    }
}

static void batch_select(int64_t iters)
{
    for (int64_t i = 0; i < iters; i++) {
        th_f32_tensor *v = th_f32_select(small_t, 0, 1);
        bench_escape(v);
        th_f32_release(v);
    }
}

static void batch_view(int64_t iters)
{
    static const int64_t sizes[2] = {6, 4};
    for (int64_t i = 0; i < iters; i++) {
        th_f32_tensor *v = th_f32_view(small_t, 2, sizes);
        bench_escape(v);
        th_f32_release(v);
    }
}

/* Export to DLPack and import back: no copy, one managed tensor and one wrapping storage per trip. */
static void batch_dlpack(int64_t iters)
{
    for (int64_t i = 0; i < iters; i++) {
        th_tensor *back = th_tensor_from_dlpack(th_f32_to_dlpack(small_t));
        bench_escape(back);
        th_tensor_release(back);
    }
}

/* A 4-element add into a new tensor, released: what an op costs when there is no work to speak of. */
static void batch_tiny_add(int64_t iters)
{
    for (int64_t i = 0; i < iters; i++) {
        th_f32_tensor *c = th_f32_add(tiny_a, tiny_b);
        bench_escape(c);
        th_f32_release(c);
    }
}

/* ---- large ops: each makes a new tensor and releases it, so every run faults in fresh memory ---- */

static void op_contiguous_t(void)
{
    th_f32_tensor *t = th_f32_transpose(square, 0, 1);
    th_f32_tensor *c = th_f32_contiguous(t);
    bench_escape(c);
    th_f32_release(c);
    th_f32_release(t);
}

static void op_clone(void)
{
    th_f32_tensor *c = th_f32_clone(square);
    bench_escape(c);
    th_f32_release(c);
}

static void op_convert(void)
{
    th_f64_tensor *d = th_f64_convert(th_f32_base(vec));
    bench_escape(d);
    th_f64_release(d);
}

static void op_ones(void)
{
    static const int64_t n = VEC_N;
    th_f32_tensor *o = th_f32_ones(1, &n);
    bench_escape(o);
    th_f32_release(o);
}

/* ---- elementwise math on BENCH_NTHREADS threads (th_set_num_threads) ---- */

static void op_add_new(void)
{
    th_f32_tensor *c = th_f32_add(vec, vec_b);
    bench_escape(c);
    th_f32_release(c);
}

static void op_add_out(void)
{
    BENCH_CHECK(th_f32_add_out(vec_out, vec, vec_b) == 0);
    bench_escape(vec_out);
}

static void op_add_bcast(void)
{
    BENCH_CHECK(th_f32_add_out(bout, bcol, brow) == 0);
    bench_escape(bout);
}

static void op_exp_out(void)
{
    BENCH_CHECK(th_f32_exp_out(vec_out, xin) == 0);
    bench_escape(vec_out);
}

static void op_tanh_out(void)
{
    BENCH_CHECK(th_f32_tanh_out(vec_out, xin) == 0);
    bench_escape(vec_out);
}

/* Sums of a 4096x4096 float32 tensor; the result (a scalar or 4096 values) is new. */
static void op_sum_all(void)
{
    th_f32_tensor *s = th_f32_sum_all(sum_in);
    BENCH_CHECK(s != NULL);
    bench_escape(s);
    th_f32_release(s);
}

static void sum_dim(int dim)
{
    th_f32_tensor *s = th_f32_sum_dim(sum_in, dim, false);
    BENCH_CHECK(s != NULL);
    bench_escape(s);
    th_f32_release(s);
}

static void op_sum_dim0(void) { sum_dim(0); }
static void op_sum_dim1(void) { sum_dim(1); }

/* Matrix products into a preallocated out, as cblas_sgemm writes into its C. */
static void op_matmul_1024(void) { BENCH_CHECK(th_f32_matmul_out(mm_c[0], mm_a[0], mm_b[0]) == 0); }
static void op_matmul_2048(void) { BENCH_CHECK(th_f32_matmul_out(mm_c[1], mm_a[1], mm_b[1]) == 0); }

/* ---- setup and a check that every op computes what it claims to ---- */

static void setup(void)
{
    small_t = th_f32_empty(2, (const int64_t[]){4, 6});
    square = th_f32_empty(2, (const int64_t[]){SQUARE, SQUARE});
    vec = th_f32_empty(1, (const int64_t[]){VEC_N});
    BENCH_CHECK(small_t && square && vec);
    float *s = th_f32_data(small_t);
    for (int i = 0; i < 24; i++) s[i] = (float)i;
    float *q = th_f32_data(square);
    for (int64_t i = 0; i < (int64_t)SQUARE * SQUARE; i++) q[i] = (float)i; /* exact: 4096^2 = 2^24 */
    float *v = th_f32_data(vec);
    for (int64_t i = 0; i < VEC_N; i++) v[i] = (float)(i % 1000);

    vec_b = th_f32_empty(1, (const int64_t[]){VEC_N});
    xin = th_f32_empty(1, (const int64_t[]){VEC_N});
    vec_out = th_f32_zeros(1, (const int64_t[]){VEC_N});
    bcol = th_f32_empty(2, (const int64_t[]){SQUARE, 1});
    brow = th_f32_empty(2, (const int64_t[]){1, SQUARE});
    bout = th_f32_zeros(2, (const int64_t[]){SQUARE, SQUARE});
    tiny_a = th_f32_empty(1, (const int64_t[]){4});
    tiny_b = th_f32_empty(1, (const int64_t[]){4});
    BENCH_CHECK(vec_b && xin && vec_out && bcol && brow && bout && tiny_a && tiny_b);
    float *vb = th_f32_data(vec_b), *x = th_f32_data(xin);
    for (int64_t i = 0; i < VEC_N; i++) vb[i] = (float)(i % 7);
    for (int64_t i = 0; i < VEC_N; i++) x[i] = (float)((int)(i % 1000) - 500) / 125.0f;
    float *bc = th_f32_data(bcol), *br = th_f32_data(brow);
    for (int64_t i = 0; i < SQUARE; i++) bc[i] = (float)i;
    for (int64_t i = 0; i < SQUARE; i++) br[i] = (float)(i % 100) / 4.0f;
    for (int i = 0; i < 4; i++) th_f32_data(tiny_a)[i] = (float)(i + 1);
    for (int i = 0; i < 4; i++) th_f32_data(tiny_b)[i] = (float)(10 * (i + 1));
}

/* The sums' input: only for the rows that use it. */
static void setup_sum(void)
{
    sum_in = th_f32_empty(2, (const int64_t[]){SQUARE, SQUARE});
    BENCH_CHECK(sum_in != NULL);
    float *x = th_f32_data(sum_in);
    for (int64_t i = 0; i < (int64_t)SQUARE * SQUARE; i++) x[i] = (float)(i % 2);
}

/* The matmul operands, as bench_linalg.c fills them: only for the rows that use them. */
static void setup_matmul(void)
{
    for (int s = 0; s < 2; s++) {
        const int64_t sz[2] = {mm_n[s], mm_n[s]};
        mm_a[s] = th_f32_empty(2, sz);
        mm_b[s] = th_f32_empty(2, sz);
        mm_c[s] = th_f32_zeros(2, sz);
        BENCH_CHECK(mm_a[s] && mm_b[s] && mm_c[s]);
        float *a = th_f32_data(mm_a[s]), *b = th_f32_data(mm_b[s]);
        for (int64_t i = 0; i < mm_n[s] * mm_n[s]; i++) {
            a[i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
            b[i] = (float)((i * 104729) % 1000) / 1000.0f - 0.5f;
        }
    }
}

/* Whether a float is within tol (relative) of the double-precision value. */
static int close_to(float got, double want, double tol)
{
    return fabs((double)got - want) <= tol * (fabs(want) > 1e-30 ? fabs(want) : 1e-30);
}

/* Whether the command line asks for any of the keys (no names: every row). Setting up and checking the math
 * rows takes seconds, which the runs of other row groups skip. */
static int wants_any(int argc, char **argv, const char *const *keys)
{
    if (argc < 2) return 1;
    for (int a = 1; a < argc; a++)
        for (int k = 0; keys[k]; k++)
            if (strcmp(argv[a], keys[k]) == 0) return 1;
    return 0;
}

static void verify_math(void)
{
    th_f32_tensor *c = th_f32_add(vec, vec_b);
    BENCH_CHECK(c && th_f32_numel(c) == VEC_N && th_f32_data(c) != th_f32_data(vec_out));
    for (int64_t i = 0; i < VEC_N; i += 4099) BENCH_CHECK(th_f32_data(c)[i] == (float)(i % 1000) + (float)(i % 7));
    th_f32_release(c);
    const float *o = th_f32_data(vec_out);
    BENCH_CHECK(th_f32_add_out(vec_out, vec, vec_b) == 0);
    for (int64_t i = 0; i < VEC_N; i += 4099) BENCH_CHECK(o[i] == (float)(i % 1000) + (float)(i % 7));
    BENCH_CHECK(o[VEC_N - 1] == (float)((VEC_N - 1) % 1000) + (float)((VEC_N - 1) % 7));
    BENCH_CHECK(th_f32_add_out(bout, bcol, brow) == 0);
    const float *bo = th_f32_data(bout);
    for (int64_t i = 0; i < SQUARE; i += 37)
        for (int64_t j = 0; j < SQUARE; j += 41)
            BENCH_CHECK(bo[i * SQUARE + j] == (float)i + (float)(j % 100) / 4.0f);
    const float *x = th_f32_data(xin);
    BENCH_CHECK(th_f32_exp_out(vec_out, xin) == 0);
    for (int64_t i = 0; i < VEC_N; i += 4099) BENCH_CHECK(close_to(o[i], exp((double)x[i]), 1e-6));
    BENCH_CHECK(th_f32_tanh_out(vec_out, xin) == 0);
    for (int64_t i = 0; i < VEC_N; i += 4099) BENCH_CHECK(close_to(o[i], tanh((double)x[i]), 1e-6));
    c = th_f32_add(tiny_a, tiny_b);
    BENCH_CHECK(c && th_f32_numel(c) == 4 && th_f32_data(c)[0] == 11.0f && th_f32_data(c)[3] == 44.0f);
    th_f32_release(c);
}

/* The sums exactly (every partial sum of i % 2 is exact in float); matmul entries against double dot
 * products. */
static void verify_sum_matmul(int matmul)
{
    th_f32_tensor *s = th_f32_sum_all(sum_in);
    BENCH_CHECK(s && th_f32_numel(s) == 1 && th_f32_data(s)[0] == 8388608.0f);
    th_f32_release(s);
    s = th_f32_sum_dim(sum_in, 0, false);
    BENCH_CHECK(s && th_f32_numel(s) == SQUARE);
    for (int64_t j = 0; j < SQUARE; j++) BENCH_CHECK(th_f32_data(s)[j] == (j % 2 ? 4096.0f : 0.0f));
    th_f32_release(s);
    s = th_f32_sum_dim(sum_in, 1, false);
    BENCH_CHECK(s && th_f32_numel(s) == SQUARE);
    for (int64_t i = 0; i < SQUARE; i++) BENCH_CHECK(th_f32_data(s)[i] == 2048.0f);
    th_f32_release(s);
    if (!matmul) return;
    for (int k = 0; k < 2; k++) {
        const int64_t n = mm_n[k];
        BENCH_CHECK(th_f32_matmul_out(mm_c[k], mm_a[k], mm_b[k]) == 0);
        const float *a = th_f32_data(mm_a[k]), *b = th_f32_data(mm_b[k]), *cc = th_f32_data(mm_c[k]);
        for (int64_t i = 0; i < n; i += 131)
            for (int64_t j = 0; j < n; j += 137) {
                double dot = 0, mag = 0;
                for (int64_t p = 0; p < n; p++) {
                    dot += (double)a[i * n + p] * b[p * n + j];
                    mag += fabs((double)a[i * n + p] * b[p * n + j]);
                }
                BENCH_CHECK(fabs(cc[i * n + j] - dot) <= 1e-4 * mag + 1e-6);
            }
    }
}

static void verify(void)
{
    th_f32_tensor *v = th_f32_transpose(small_t, 0, 1);
    BENCH_CHECK(v && th_f32_size(v, 0) == 6 && th_f32_get(v, (const int64_t[]){5, 3}) == 23.0f);
    th_f32_release(v);
    v = th_f32_narrow(small_t, 0, 1, 2);
    BENCH_CHECK(v && th_f32_size(v, 0) == 2 && th_f32_get(v, (const int64_t[]){0, 0}) == 6.0f);
    th_f32_release(v);
    v = th_f32_select(small_t, 0, 1);
    BENCH_CHECK(v && th_f32_ndim(v) == 1 && th_f32_get(v, (const int64_t[]){2}) == 8.0f);
    th_f32_release(v);
    v = th_f32_view(small_t, 2, (const int64_t[]){6, 4});
    BENCH_CHECK(v && th_f32_get(v, (const int64_t[]){1, 0}) == 4.0f);
    th_f32_release(v);

    th_f32_tensor *t = th_f32_transpose(square, 0, 1);
    th_f32_tensor *c = th_f32_contiguous(t);
    BENCH_CHECK(c && c != t && th_f32_is_contiguous(c));
    const float *cd = th_f32_data(c);
    for (int64_t i = 0; i < SQUARE; i += 37)
        for (int64_t j = 0; j < SQUARE; j += 41) BENCH_CHECK(cd[i * SQUARE + j] == (float)(j * SQUARE + i));
    th_f32_release(c);
    th_f32_release(t);

    th_f64_tensor *d = th_f64_convert(th_f32_base(vec));
    BENCH_CHECK(d && th_f64_numel(d) == VEC_N && th_f64_data(d)[VEC_N - 1] == (double)((VEC_N - 1) % 1000));
    th_f64_release(d);

    th_f32_tensor *o = th_f32_ones(1, (const int64_t[]){VEC_N});
    BENCH_CHECK(o && th_f32_data(o)[0] == 1.0f && th_f32_data(o)[VEC_N - 1] == 1.0f);
    th_f32_release(o);
}

static const bench_entry entries[] = {
    {"create", batch_create, NULL},
    {"view_transpose", batch_transpose, NULL},
    {"view_narrow", batch_narrow, NULL},
    {"view_select", batch_select, NULL},
    {"view_view", batch_view, NULL},
    {"dlpack_roundtrip", batch_dlpack, NULL},
    {"contiguous_t", NULL, op_contiguous_t},
    {"clone", NULL, op_clone},
    {"convert_f64", NULL, op_convert},
    {"ones", NULL, op_ones},
    {"tiny_add", batch_tiny_add, NULL},
    {"add_new", NULL, op_add_new},
    {"add_out", NULL, op_add_out},
    {"add_bcast", NULL, op_add_bcast},
    {"exp_out", NULL, op_exp_out},
    {"tanh_out", NULL, op_tanh_out},
    {"sum_all", NULL, op_sum_all},
    {"sum_dim0", NULL, op_sum_dim0},
    {"sum_dim1", NULL, op_sum_dim1},
    {"matmul_1024", NULL, op_matmul_1024},
    {"matmul_2048", NULL, op_matmul_2048},
};

int main(int argc, char **argv)
{
    /* run.sh sets BENCH_NTHREADS (and OMP_NUM_THREADS) per row group; everything else runs on 1 thread.
     * Threads need bench_th and th_impl.c built with -fopenmp, as run.sh does. */
    const char *threads = getenv("BENCH_NTHREADS");
    th_set_num_threads(threads && atoi(threads) > 1 ? atoi(threads) : 1);
    static const char *const math_keys[] = {"tiny_add", "add_new", "add_out", "add_bcast", "exp_out", "tanh_out", NULL};
    setup();
    verify();
    static const char *const sum_keys[] = {"sum_all", "sum_dim0", "sum_dim1", "matmul_1024", "matmul_2048", NULL};
    static const char *const matmul_keys[] = {"matmul_1024", "matmul_2048", NULL};
    if (wants_any(argc, argv, math_keys)) verify_math();
    int matmul = wants_any(argc, argv, matmul_keys);
    if (matmul) setup_matmul();
    if (wants_any(argc, argv, sum_keys)) {
        setup_sum();
        verify_sum_matmul(matmul);
    }
    int status = bench_main(entries, (int)(sizeof entries / sizeof entries[0]), argc, argv);
    for (int k = 0; k < 2; k++) {
        th_f32_release(mm_c[k]); /* NULL when the matmul rows did not run */
        th_f32_release(mm_b[k]);
        th_f32_release(mm_a[k]);
    }
    th_f32_release(sum_in);
    th_f32_release(tiny_b);
    th_f32_release(tiny_a);
    th_f32_release(bout);
    th_f32_release(brow);
    th_f32_release(bcol);
    th_f32_release(vec_out);
    th_f32_release(xin);
    th_f32_release(vec_b);
    th_f32_release(vec);
    th_f32_release(square);
    th_f32_release(small_t);
    return status;
}
