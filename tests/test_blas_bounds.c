/* tests/test_blas_bounds.c: complex vector products never read past their operands.
 *
 * Debian's OpenBLAS 0.3.21 reads one element past the end of a complex vector in cdotu / zdotu (any increment but
 * 1) and in cgemv_n / zgemv_n (upstream issue #4013), so ops/linalg.h sends complex products of vector shape to
 * gemm instead. Here every vector operand (and the written vector of mv_out) ends exactly where an inaccessible
 * page begins, as a tensor over a mapped file can: a read past it is a SIGSEGV, which fails this test whatever
 * the build (valgrind or not). Values are small integers, so every result is exact; the reference is a loop in
 * double complex. Real dtypes take the same checks (their BLAS dot and gemv stay). */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <complex.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

/* A mapping whose last page is inaccessible; `first` is where n elements of es bytes at stride (elements) start
 * so that the last element ends at that page. */
typedef struct {
    char *map;
    size_t len;
    void *first;
} guarded;

static bool guarded_make(guarded *g, int64_t n, int64_t stride, size_t es)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t span = ((size_t)(n - 1) * (size_t)stride + 1) * es;
    const size_t pages = (span + page - 1) / page;
    g->len = (pages + 1) * page;
    g->map = mmap(NULL, g->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (g->map == MAP_FAILED) return false;
    if (mprotect(g->map + pages * page, page, PROT_NONE) != 0) return false;
    g->first = g->map + pages * page - span;
    return true;
}

static void guarded_free(guarded *g) { munmap(g->map, g->len); }

static double complex value(int64_t k, int salt)
{
    return (double)((k * 3 + salt) % 5 - 2) + I * (double)((k + salt) % 3 - 1);
}

/* One dtype's checks; T its element type. */
#define BOUNDS_CASES(sfx, T)                                                                                       \
    static T sfx##_cx(double complex z) { return (T)z; }                                                              \
    static double complex sfx##_get(const th_##sfx##_tensor *t, int64_t i)                                            \
    {                                                                                                                 \
        return (double complex)th_##sfx##_get(t, (const int64_t[]){i});                                               \
    }                                                                                                                 \
    /* A vector of n values at stride s over guarded memory. */                                                       \
    static th_##sfx##_tensor *sfx##_vec(guarded *g, int64_t n, int64_t s, int salt)                                  \
    {                                                                                                                 \
        if (!guarded_make(g, n, s, sizeof(T))) return NULL;                                                           \
        T *p = g->first;                                                                                              \
        for (int64_t k = 0; k < n; k++) p[k * s] = sfx##_cx(value(k, salt));                                          \
        return th_##sfx##_from_blob(p, 1, &n, &s, NULL, NULL);                                                        \
    }                                                                                                                 \
    static th_##sfx##_tensor *sfx##_mat(int64_t r, int64_t c, int salt)                                               \
    {                                                                                                                 \
        th_##sfx##_tensor *t = th_##sfx##_empty(2, (const int64_t[]){r, c});                                          \
        for (int64_t k = 0; k < r * c; k++) th_##sfx##_data(t)[k] = sfx##_cx(value(k, salt));                         \
        return t;                                                                                                     \
    }                                                                                                                 \
    static void sfx##_check(int64_t n, int64_t sx, int64_t sy)                                                        \
    {                                                                                                                 \
        const int64_t m = 5;                                                                                          \
        guarded gx, gy, go;                                                                                           \
        th_##sfx##_tensor *x = sfx##_vec(&gx, n, sx, 1), *y = sfx##_vec(&gy, n, sy, 2);                               \
        th_##sfx##_tensor *out = sfx##_vec(&go, m, sy, 0);                                                            \
        CHECK(x && y && out);                                                                                         \
        if (!x || !y || !out) return;                                                                                 \
        /* dot */                                                                                                     \
        double complex want = 0;                                                                                      \
        for (int64_t k = 0; k < n; k++) want += sfx##_get(x, k) * sfx##_get(y, k);                                    \
        th_##sfx##_tensor *d = th_##sfx##_dot(x, y);                                                                  \
        CHECK(d && (double complex)th_##sfx##_get(d, NULL) == want);                                                       \
        th_##sfx##_release(d);                                                                                        \
        /* A @ x, A row-major (m x n) and a transposed view of an (n x m) matrix; into a guarded strided out */       \
        th_##sfx##_tensor *a = sfx##_mat(m, n, 3), *at_base = sfx##_mat(n, m, 4);                                     \
        th_##sfx##_tensor *at = th_##sfx##_transpose(at_base, 0, 1);                                                  \
        const th_##sfx##_tensor *mats[2] = {a, at};                                                                   \
        for (int w = 0; w < 2; w++) {                                                                                 \
            th_##sfx##_tensor *r = th_##sfx##_mv(mats[w], x);                                                         \
            CHECK(r && th_##sfx##_mv_out(out, mats[w], x) == TH_OK);                                                  \
            bool ok = r != NULL;                                                                                      \
            for (int64_t i = 0; ok && i < m; i++) {                                                                   \
                double complex s = 0;                                                                                 \
                for (int64_t k = 0; k < n; k++)                                                                       \
                    s += (double complex)th_##sfx##_get(mats[w], (const int64_t[]){i, k}) * sfx##_get(x, k);          \
                ok = sfx##_get(r, i) == s && sfx##_get(out, i) == s;                                                  \
            }                                                                                                         \
            CHECK(ok);                                                                                                \
            th_##sfx##_release(r);                                                                                    \
        }                                                                                                             \
        /* y^T @ B: the row form (B^T @ y through gemv), B (n x m) and a transposed view */                           \
        th_##sfx##_tensor *bt = th_##sfx##_transpose(a, 0, 1);                                                        \
        const th_##sfx##_tensor *rhs[2] = {at_base, bt};                                                              \
        for (int w = 0; w < 2; w++) {                                                                                 \
            th_##sfx##_tensor *r = th_##sfx##_matmul(y, rhs[w]);                                                      \
            bool ok = r != NULL;                                                                                      \
            for (int64_t j = 0; ok && j < m; j++) {                                                                   \
                double complex s = 0;                                                                                 \
                for (int64_t k = 0; k < n; k++)                                                                       \
                    s += sfx##_get(y, k) * (double complex)th_##sfx##_get(rhs[w], (const int64_t[]){k, j});           \
                ok = sfx##_get(r, j) == s;                                                                            \
            }                                                                                                         \
            CHECK(ok);                                                                                                \
            th_##sfx##_release(r);                                                                                    \
        }                                                                                                             \
        th_##sfx##_release(bt);                                                                                       \
        th_##sfx##_release(at);                                                                                       \
        th_##sfx##_release(at_base);                                                                                  \
        th_##sfx##_release(a);                                                                                        \
        th_##sfx##_release(x);                                                                                        \
        th_##sfx##_release(y);                                                                                        \
        th_##sfx##_release(out);                                                                                      \
        guarded_free(&gx);                                                                                            \
        guarded_free(&gy);                                                                                            \
        guarded_free(&go);                                                                                            \
    }

BOUNDS_CASES(c64, th_complex64)
BOUNDS_CASES(c128, th_complex128)
BOUNDS_CASES(f32, float)
BOUNDS_CASES(f64, double)

int main(void)
{
    test_begin();
    const int64_t sizes[] = {1, 2, 3, 4, 7, 16, 33, 1000, 4099};
    const int64_t strides[][2] = {{1, 1}, {2, 1}, {1, 2}, {3, 2}, {2, 5}};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        for (size_t j = 0; j < sizeof strides / sizeof *strides; j++) {
            c64_check(sizes[i], strides[j][0], strides[j][1]);
            c128_check(sizes[i], strides[j][0], strides[j][1]);
            f32_check(sizes[i], strides[j][0], strides[j][1]);
            f64_check(sizes[i], strides[j][0], strides[j][1]);
        }
    return test_end("blas_bounds");
}
