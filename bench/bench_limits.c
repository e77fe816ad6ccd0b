/* bench_limits.c: what plain C gets out of this machine for the same work, with the same compiler flags as
 * bench_th.c. These are the "machine limit" column: no tensor library can do the same work for less
 * without a better algorithm or a caching allocator.
 *
 * Large kernels get fresh memory each run, as the library ops do, from both plain malloc and a huge-page
 * allocation like tensor.h's default allocator; run.sh takes the faster as the limit. The "warm" variants
 * write into a buffer allocated once, which shows how much of an op's time is page faults. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise and MADV_HUGEPAGE */
#include "bench_common.h"

#include <math.h>
#include <sys/mman.h>
#ifndef BENCH_NO_CBLAS
#include <cblas.h> /* run.sh links OpenBLAS, or defines BENCH_NO_CBLAS where it has none */
#endif

/* Compile-time sizes: gcc -O2 vectorises only loops whose trip count it knows divides evenly, and the
 * limits should be the best plain C does. */
#define SQUARE 4096
#define SQUARE_N ((size_t)SQUARE * SQUARE)
#define VEC_N ((size_t)16 << 20)
#define TILE 16
#define HUGE_PAGE ((size_t)2 << 20)

static float *square;     /* SQUARE x SQUARE, huge pages: the source every peer transposes */
static float *vec;        /* VEC_N floats, huge pages */
static void *warm_buffer; /* VEC_N doubles, allocated and faulted in once */
static float *vec_b;      /* VEC_N floats, the right-hand side of add: element i = i % 7 */
static float *xin;        /* VEC_N floats in [-4, 4): the argument of exp and tanh */
static float bcast_col[SQUARE], bcast_row[SQUARE]; /* the (4096,1) and (1,4096) operands of add_bcast */

/* The math rows run on BENCH_NTHREADS threads (run.sh sets it per row group; default 1). With more than
 * one, the loops below split their work over OpenMP threads in blocks of a compile-time size (bench_limits
 * is built with -fopenmp; where the compiler has no OpenMP the pragmas are ignored and it stays at 1). */
static int nthreads = 1;
#define BLOCK ((size_t)1 << 16)

/* libmvec's AVX2 exp and tanh, in limits_vecmath.c (built with -mavx2 -mfma -ffast-math); run.sh defines
 * BENCH_NO_VECMATH where that TU does not build. */
#ifndef BENCH_NO_VECMATH
void limits_vm_exp(float *restrict out, const float *restrict in, size_t n, int nthreads);
void limits_vm_tanh(float *restrict out, const float *restrict in, size_t n, int nthreads);
#endif

typedef enum { FRESH_MALLOC, FRESH_HUGE, WARM } dst_kind;

static void *huge_alloc(size_t nbytes)
{
    size_t rounded = (nbytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
    void *p = aligned_alloc(HUGE_PAGE, rounded);
    if (p) (void)madvise(p, rounded, MADV_HUGEPAGE);
    return p;
}

static void *dst_get(dst_kind kind, size_t nbytes)
{
    void *p = kind == WARM ? warm_buffer : kind == FRESH_HUGE ? huge_alloc(nbytes) : malloc(nbytes);
    BENCH_CHECK(p);
    return p;
}

static void dst_put(dst_kind kind, void *p)
{
    bench_escape(p);
    if (kind != WARM) free(p);
}

/* ---- small ops: the heap traffic a tensor op cannot avoid ---- */

/* 288 bytes: a header with room for 16 dims of sizes and strides, as tensor.h's and most libraries' are. */
enum { HEADER_BYTES = 288, SMALL_DATA_BYTES = 64 };

/* A view is at least one new header. */
static void batch_one_pair(int64_t iters)
{
    for (int64_t i = 0; i < iters; i++) {
        void *h = malloc(HEADER_BYTES);
        bench_escape(h);
        free(h);
    }
}

/* A new tensor is at least a header and its data. */
static void batch_two_pairs(int64_t iters)
{
    for (int64_t i = 0; i < iters; i++) {
        void *h = malloc(HEADER_BYTES);
        void *d = malloc(SMALL_DATA_BYTES);
        bench_escape(h);
        bench_escape(d);
        free(d);
        free(h);
    }
}

/* ---- transpose and memcpy of SQUARE x SQUARE floats ---- */

/* The textbook tiled transpose, with the inner loop along dst as tensor.h's th__copy_tiled has it. */
static void transpose_tiled(float *restrict dst, const float *restrict src)
{
    for (size_t ib = 0; ib < SQUARE; ib += TILE)
        for (size_t jb = 0; jb < SQUARE; jb += TILE)
            for (size_t i = ib; i < ib + TILE; i++)
                for (size_t j = jb; j < jb + TILE; j++) dst[i * SQUARE + j] = src[j * SQUARE + i];
}

static void transpose_run(dst_kind kind)
{
    float *dst = dst_get(kind, SQUARE_N * sizeof(float));
    transpose_tiled(dst, square);
    dst_put(kind, dst);
}

static void op_transpose_malloc(void) { transpose_run(FRESH_MALLOC); }
static void op_transpose_huge(void) { transpose_run(FRESH_HUGE); }
static void op_transpose_warm(void) { transpose_run(WARM); }

static void memcpy_run(dst_kind kind)
{
    float *dst = dst_get(kind, SQUARE_N * sizeof(float));
    memcpy(dst, square, SQUARE_N * sizeof(float));
    dst_put(kind, dst);
}

static void op_memcpy_malloc(void) { memcpy_run(FRESH_MALLOC); }
static void op_memcpy_huge(void) { memcpy_run(FRESH_HUGE); }
static void op_memcpy_warm(void) { memcpy_run(WARM); }

/* ---- float32 -> float64 and a fill of ones, VEC_N elements ---- */

static void convert_run(dst_kind kind)
{
    double *dst = dst_get(kind, VEC_N * sizeof(double));
    for (size_t i = 0; i < VEC_N; i++) dst[i] = (double)vec[i];
    dst_put(kind, dst);
}

static void op_convert_malloc(void) { convert_run(FRESH_MALLOC); }
static void op_convert_huge(void) { convert_run(FRESH_HUGE); }
static void op_convert_warm(void) { convert_run(WARM); }

static void ones_run(dst_kind kind)
{
    float *dst = dst_get(kind, VEC_N * sizeof(float));
    for (size_t i = 0; i < VEC_N; i++) dst[i] = 1.0f;
    dst_put(kind, dst);
}

static void op_ones_malloc(void) { ones_run(FRESH_MALLOC); }
static void op_ones_huge(void) { ones_run(FRESH_HUGE); }
static void op_ones_warm(void) { ones_run(WARM); }

/* ---- elementwise math: add, broadcast add, exp, tanh (VEC_N floats) ---- */

/* The trip counts are compile-time constants, so gcc -O2 vectorises the loops (the per-thread blocks too). */
static void add_block(float *restrict d, const float *restrict a, const float *restrict b)
{
    for (size_t i = 0; i < BLOCK; i++) d[i] = a[i] + b[i];
}

static void add_loop(float *restrict dst, const float *restrict a, const float *restrict b)
{
    if (nthreads <= 1) {
        for (size_t i = 0; i < VEC_N; i++) dst[i] = a[i] + b[i];
        return;
    }
#pragma omp parallel for num_threads(nthreads) schedule(static)
    for (size_t k = 0; k < VEC_N / BLOCK; k++) add_block(dst + k * BLOCK, a + k * BLOCK, b + k * BLOCK);
}

static void add_run(dst_kind kind)
{
    float *dst = dst_get(kind, VEC_N * sizeof(float));
    add_loop(dst, vec, vec_b);
    dst_put(kind, dst);
}

static void op_add_malloc(void) { add_run(FRESH_MALLOC); }
static void op_add_huge(void) { add_run(FRESH_HUGE); }
static void op_add_warm(void) { add_run(WARM); }

/* out[i][j] = col[i] + row[j]: the double loop of a (4096,1) + (1,4096) broadcast. */
static void bcast_rows(float *restrict dst, size_t i)
{
    const float c = bcast_col[i];
    for (size_t j = 0; j < SQUARE; j++) dst[i * SQUARE + j] = c + bcast_row[j];
}

static void bcast_loop(float *restrict dst)
{
    if (nthreads <= 1) {
        for (size_t i = 0; i < SQUARE; i++) bcast_rows(dst, i);
        return;
    }
#pragma omp parallel for num_threads(nthreads) schedule(static)
    for (size_t i = 0; i < SQUARE; i++) bcast_rows(dst, i);
}

static void op_bcast_warm(void)
{
    bcast_loop(warm_buffer);
    bench_escape(warm_buffer);
}

/* The plain libm loops, with the benchmark's ordinary flags (-O2, no -ffast-math): one scalar call per
 * element. A reference only: the limit is the libmvec loop. */
static void libm_exp_block(float *restrict d, const float *restrict x)
{
    for (size_t i = 0; i < BLOCK; i++) d[i] = expf(x[i]);
}

static void libm_tanh_block(float *restrict d, const float *restrict x)
{
    for (size_t i = 0; i < BLOCK; i++) d[i] = tanhf(x[i]);
}

static void libm_run(void (*block)(float *restrict, const float *restrict))
{
    float *dst = warm_buffer;
#pragma omp parallel for num_threads(nthreads) schedule(static) if (nthreads > 1)
    for (size_t k = 0; k < VEC_N / BLOCK; k++) block(dst + k * BLOCK, xin + k * BLOCK);
    bench_escape(dst);
}

static void op_exp_libm(void) { libm_run(libm_exp_block); }
static void op_tanh_libm(void) { libm_run(libm_tanh_block); }

#ifndef BENCH_NO_VECMATH
static void op_exp_vm(void)
{
    limits_vm_exp(warm_buffer, xin, VEC_N, nthreads);
    bench_escape(warm_buffer);
}

static void op_tanh_vm(void)
{
    limits_vm_tanh(warm_buffer, xin, VEC_N, nthreads);
    bench_escape(warm_buffer);
}
#endif

/* ---- read-only sums of SQUARE x SQUARE floats ---- */

/* Element i is i % 2, as in every peer: each partial sum is an integer below 2^24, so every summation
 * order gives the exact result (8388608 in all, 0 or 4096 per column, 2048 per row) and the checks are
 * exact. The values do not change the speed. */
static float *sum_data;
static volatile double sum_sink;

/* bench_reduce.c's two yardsticks: one float accumulator (each add waits for the last), and 8 independent
 * ones, which gcc -O2 turns into vector adds: the read-only loop at memory speed, the limit of the rows. */
static float sum_plain_range(const float *x, size_t n)
{
    float s = 0;
    for (size_t i = 0; i < n; i++) s += x[i];
    return s;
}

static float sum_acc8_block(const float *x)
{
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (size_t i = 0; i < BLOCK; i += 8)
        for (int k = 0; k < 8; k++) acc[k] += x[i + k];
    return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

static double sum_acc8_all(void)
{
    if (nthreads <= 1) {
        float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        for (size_t i = 0; i < SQUARE_N; i += 8)
            for (int k = 0; k < 8; k++) acc[k] += sum_data[i + k];
        return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    }
    double total = 0;
#pragma omp parallel for num_threads(nthreads) schedule(static) reduction(+ : total)
    for (size_t k = 0; k < SQUARE_N / BLOCK; k++) total += sum_acc8_block(sum_data + k * BLOCK);
    return total;
}

static double sum_plain_all(void)
{
    if (nthreads <= 1) return sum_plain_range(sum_data, SQUARE_N);
    double total = 0;
#pragma omp parallel for num_threads(nthreads) schedule(static) reduction(+ : total)
    for (int t = 0; t < nthreads; t++)
        total += sum_plain_range(sum_data + SQUARE_N * (size_t)t / (size_t)nthreads,
                                 SQUARE_N * (size_t)(t + 1) / (size_t)nthreads - SQUARE_N * (size_t)t / (size_t)nthreads);
    return total;
}

static void op_sum_acc8(void) { sum_sink = sum_acc8_all(); }
static void op_sum_plain(void) { sum_sink = sum_plain_all(); }

/* ---- matrix products: cblas_sgemm called directly, into a preallocated C ---- */

#ifndef BENCH_NO_CBLAS
static float *mm_a[2], *mm_b[2], *mm_c[2];
static const int mm_n[2] = {1024, 2048};

static void sgemm(int k)
{
    const int n = mm_n[k];
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, mm_a[k], n, mm_b[k], n, 0.0f, mm_c[k], n);
    bench_escape(mm_c[k]);
}

static void op_sgemm_1024(void) { sgemm(0); }
static void op_sgemm_2048(void) { sgemm(1); }

/* The operands as bench_th.c fills them. */
static void setup_sgemm(void)
{
    for (int k = 0; k < 2; k++) {
        size_t nn = (size_t)mm_n[k] * (size_t)mm_n[k];
        mm_a[k] = huge_alloc(nn * sizeof(float));
        mm_b[k] = huge_alloc(nn * sizeof(float));
        mm_c[k] = huge_alloc(nn * sizeof(float));
        BENCH_CHECK(mm_a[k] && mm_b[k] && mm_c[k]);
        for (size_t i = 0; i < nn; i++) {
            mm_a[k][i] = (float)((i * 7919) % 1000) / 1000.0f - 0.5f;
            mm_b[k][i] = (float)((i * 104729) % 1000) / 1000.0f - 0.5f;
        }
        memset(mm_c[k], 0, nn * sizeof(float));
    }
}
#endif

/* A 4-element add into a new tensor is at least a header, a data block and the four adds. */
static float tiny_a[4] = {1, 2, 3, 4}, tiny_b[4] = {10, 20, 30, 40};

static void batch_tiny_add(int64_t iters)
{
    for (int64_t i = 0; i < iters; i++) {
        void *h = malloc(HEADER_BYTES);
        float *d = malloc(SMALL_DATA_BYTES);
        BENCH_CHECK(h && d);
        for (int k = 0; k < 4; k++) d[k] = tiny_a[k] + tiny_b[k];
        bench_escape(h);
        bench_escape(d);
        free(d);
        free(h);
    }
}

/* Whether a float is within tol (relative) of the double-precision value. */
static int close_to(float got, double want, double tol)
{
    return fabs((double)got - want) <= tol * (fabs(want) > 1e-30 ? fabs(want) : 1e-30);
}

/* Whether the command line asks for any of the keys (no names: every row). Checking the math rows takes
 * seconds, which the runs of other row groups skip. */
static int wants_any(int argc, char **argv, const char *const *keys)
{
    if (argc < 2) return 1;
    for (int a = 1; a < argc; a++)
        for (int k = 0; keys[k]; k++)
            if (strcmp(argv[a], keys[k]) == 0) return 1;
    return 0;
}

static int have_vecmath(void)
{
#if !defined(BENCH_NO_VECMATH) && defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#else
    return 0;
#endif
}

/* Every math kernel computes what its row claims, checked before anything is timed. */
static void verify_math(void)
{
    float *out = warm_buffer;
    add_loop(out, vec, vec_b);
    for (size_t i = 0; i < VEC_N; i += 4099) BENCH_CHECK(out[i] == (float)(i % 1000) + (float)(i % 7));
    BENCH_CHECK(out[VEC_N - 1] == (float)((VEC_N - 1) % 1000) + (float)((VEC_N - 1) % 7));
    bcast_loop(out);
    for (size_t i = 0; i < SQUARE; i += 37)
        for (size_t j = 0; j < SQUARE; j += 41) BENCH_CHECK(out[i * SQUARE + j] == bcast_col[i] + bcast_row[j]);
    op_exp_libm();
    for (size_t i = 0; i < VEC_N; i += 4099) BENCH_CHECK(close_to(out[i], exp((double)xin[i]), 1e-6));
    op_tanh_libm();
    for (size_t i = 0; i < VEC_N; i += 4099) BENCH_CHECK(close_to(out[i], tanh((double)xin[i]), 1e-6));
#ifndef BENCH_NO_VECMATH
    if (have_vecmath()) { /* libmvec: within 4 ulp */
        op_exp_vm();
        for (size_t i = 0; i < VEC_N; i += 4099) BENCH_CHECK(close_to(out[i], exp((double)xin[i]), 1e-6));
        op_tanh_vm();
        for (size_t i = 0; i < VEC_N; i += 4099) BENCH_CHECK(close_to(out[i], tanh((double)xin[i]), 1e-6));
    }
#endif
    void *h = malloc(HEADER_BYTES);
    float *d = malloc(SMALL_DATA_BYTES);
    BENCH_CHECK(h && d);
    for (int k = 0; k < 4; k++) d[k] = tiny_a[k] + tiny_b[k];
    BENCH_CHECK(d[0] == 11 && d[3] == 44);
    free(d);
    free(h);
}

/* The sums exactly (see sum_data); sgemm entries against double dot products. */
static void verify_sum_sgemm(int matmul)
{
    sum_data = huge_alloc(SQUARE_N * sizeof(float));
    BENCH_CHECK(sum_data);
    for (size_t i = 0; i < SQUARE_N; i++) sum_data[i] = (float)(i % 2);
    BENCH_CHECK(sum_acc8_all() == 8388608.0);
    BENCH_CHECK(sum_plain_all() == 8388608.0);
#ifndef BENCH_NO_CBLAS
    if (!matmul) return;
    for (int k = 0; k < 2; k++) {
        const size_t n = (size_t)mm_n[k];
        sgemm(k);
        for (size_t i = 0; i < n; i += 131)
            for (size_t j = 0; j < n; j += 137) {
                double dot = 0, mag = 0;
                for (size_t p = 0; p < n; p++) {
                    dot += (double)mm_a[k][i * n + p] * mm_b[k][p * n + j];
                    mag += fabs((double)mm_a[k][i * n + p] * mm_b[k][p * n + j]);
                }
                BENCH_CHECK(fabs(mm_c[k][i * n + j] - dot) <= 1e-4 * mag + 1e-6);
            }
    }
#else
    (void)matmul;
#endif
}

static void setup(void)
{
    square = huge_alloc(SQUARE_N * sizeof(float));
    vec = huge_alloc(VEC_N * sizeof(float));
    warm_buffer = huge_alloc(VEC_N * sizeof(double));
    vec_b = huge_alloc(VEC_N * sizeof(float));
    xin = huge_alloc(VEC_N * sizeof(float));
    BENCH_CHECK(square && vec && warm_buffer && vec_b && xin);
    for (size_t i = 0; i < SQUARE_N; i++) square[i] = (float)i;
    for (size_t i = 0; i < VEC_N; i++) vec[i] = (float)(i % 1000);
    for (size_t i = 0; i < VEC_N; i++) vec_b[i] = (float)(i % 7);
    for (size_t i = 0; i < VEC_N; i++) xin[i] = (float)((int)(i % 1000) - 500) / 125.0f;
    for (size_t i = 0; i < SQUARE; i++) bcast_col[i] = (float)i;
    for (size_t i = 0; i < SQUARE; i++) bcast_row[i] = (float)(i % 100) / 4.0f;
    memset(warm_buffer, 0, VEC_N * sizeof(double));

    float *t = warm_buffer;
    transpose_tiled(t, square);
    for (size_t i = 0; i < SQUARE; i += 37)
        for (size_t j = 0; j < SQUARE; j += 41) BENCH_CHECK(t[i * SQUARE + j] == (float)(j * SQUARE + i));
}

static const bench_entry entries[] = {
    {"malloc_free_1", batch_one_pair, NULL},
    {"malloc_free_2", batch_two_pairs, NULL},
    {"transpose_malloc", NULL, op_transpose_malloc},
    {"transpose_huge", NULL, op_transpose_huge},
    {"transpose_warm", NULL, op_transpose_warm},
    {"memcpy_malloc", NULL, op_memcpy_malloc},
    {"memcpy_huge", NULL, op_memcpy_huge},
    {"memcpy_warm", NULL, op_memcpy_warm},
    {"convert_malloc", NULL, op_convert_malloc},
    {"convert_huge", NULL, op_convert_huge},
    {"convert_warm", NULL, op_convert_warm},
    {"ones_malloc", NULL, op_ones_malloc},
    {"ones_huge", NULL, op_ones_huge},
    {"ones_warm", NULL, op_ones_warm},
    {"tiny_add", batch_tiny_add, NULL},
    {"add_malloc", NULL, op_add_malloc},
    {"add_huge", NULL, op_add_huge},
    {"add_warm", NULL, op_add_warm},
    {"bcast_warm", NULL, op_bcast_warm},
    {"exp_libm", NULL, op_exp_libm},
    {"tanh_libm", NULL, op_tanh_libm},
#ifndef BENCH_NO_VECMATH
    {"exp_vm", NULL, op_exp_vm},
    {"tanh_vm", NULL, op_tanh_vm},
#endif
    {"sum_acc8", NULL, op_sum_acc8},
    {"sum_plain", NULL, op_sum_plain},
#ifndef BENCH_NO_CBLAS
    {"sgemm_1024", NULL, op_sgemm_1024},
    {"sgemm_2048", NULL, op_sgemm_2048},
#endif
};

int main(int argc, char **argv)
{
    const char *threads = getenv("BENCH_NTHREADS");
    if (threads && atoi(threads) > 1) nthreads = atoi(threads);
    static const char *const math_keys[] = {"tiny_add", "add_malloc", "add_huge", "add_warm", "bcast_warm",
                                            "exp_libm", "tanh_libm", "exp_vm", "tanh_vm", NULL};
    setup();
    static const char *const sum_keys[] = {"sum_acc8", "sum_plain", "sgemm_1024", "sgemm_2048", NULL};
    static const char *const sgemm_keys[] = {"sgemm_1024", "sgemm_2048", NULL};
    if (wants_any(argc, argv, math_keys)) verify_math();
    int matmul = wants_any(argc, argv, sgemm_keys);
#ifndef BENCH_NO_CBLAS
    if (matmul) setup_sgemm();
#endif
    if (wants_any(argc, argv, sum_keys)) verify_sum_sgemm(matmul);
    /* Without AVX2 and FMA the libmvec rows are left out (n/a in the table), not an error. */
    int n = (int)(sizeof entries / sizeof entries[0]);
    const char *all[sizeof entries / sizeof entries[0] + 2];
    if (!have_vecmath()) {
        if (argc < 2) { /* all rows: name every one but the libmvec ones */
            all[0] = argv[0];
            argc = 1;
            for (int i = 0; i < n; i++) all[argc++] = entries[i].key;
            all[argc] = NULL;
            argv = (char **)all;
        }
        int kept = 1;
        for (int a = 1; a < argc; a++) {
            if (strcmp(argv[a], "exp_vm") == 0 || strcmp(argv[a], "tanh_vm") == 0)
                fprintf(stderr, "%s: %s needs AVX2 and FMA (and limits_vecmath.c): left out\n", argv[0], argv[a]);
            else
                argv[kept++] = argv[a];
        }
        if (kept == 1) return 0;
        argc = kept;
    }
    int status = bench_main(entries, n, argc, argv);
#ifndef BENCH_NO_CBLAS
    for (int k = 0; k < 2; k++) {
        free(mm_c[k]);
        free(mm_b[k]);
        free(mm_a[k]);
    }
#endif
    free(sum_data);
    free(xin);
    free(vec_b);
    free(warm_buffer);
    free(vec);
    free(square);
    return status;
}
