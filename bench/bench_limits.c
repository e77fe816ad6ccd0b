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

#include <sys/mman.h>

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

static void setup(void)
{
    square = huge_alloc(SQUARE_N * sizeof(float));
    vec = huge_alloc(VEC_N * sizeof(float));
    warm_buffer = huge_alloc(VEC_N * sizeof(double));
    BENCH_CHECK(square && vec && warm_buffer);
    for (size_t i = 0; i < SQUARE_N; i++) square[i] = (float)i;
    for (size_t i = 0; i < VEC_N; i++) vec[i] = (float)(i % 1000);
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
};

int main(int argc, char **argv)
{
    setup();
    int status = bench_main(entries, (int)(sizeof entries / sizeof entries[0]), argc, argv);
    free(warm_buffer);
    free(vec);
    free(square);
    return status;
}
