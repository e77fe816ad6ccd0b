/* bench/transpose_bench.c: transposed and permuted copies, tensor.h against the real limit (transpose_limit.c,
 * built for the best SIMD level this CPU has), side by side in one process, interleaved, best of N. Built and
 * run by transpose_run.sh; see bench/README.md. Prints one line per workload and thread count:
 *   workload threads limit_ms th_copy_ms th_contiguous_ms copy/limit contiguous/limit_fresh
 * limit: the best of the limit's four forms (transpose_limit.c) into a warm dst; limit_fresh: its register
 * form in 128x128 tiles into a new tensor from tensor.h's allocator, released after (the same pages, huge where the system
 * allows, and the same cache of freed blocks as th_contiguous's result; a malloc'd dst without huge pages
 * costs the limit up to 2x on 4096^2 through the TLB). Every dst here comes from tensor.h's allocator;
 * th_copy: th_<sfx>_copy of the view into a warm contiguous dst; th_contiguous: th_<sfx>_contiguous of the
 * view (a fresh result each time), released. Arguments: rounds (default 7), thread counts (default "1 2"). */
#define _POSIX_C_SOURCE 199309L
#include "bench_common.h"
#include "tensor.h"
#include "transpose_limit.h"

typedef struct work {
    const char *name;
    th_dtype dt;
    int nd;
    int64_t shape[4];
    int perm[4];
    int64_t batch, rows, cols; /* the limit's view of it: batch x (rows x cols) -> batch x (cols x rows) */
} work;

static const work works[] = {
    {"transpose 4096^2 f32", TH_F32, 2, {4096, 4096}, {1, 0}, 1, 4096, 4096},
    {"transpose 4096^2 f64", TH_F64, 2, {4096, 4096}, {1, 0}, 1, 4096, 4096},
    {"transpose 4096^2 f16", TH_F16, 2, {4096, 4096}, {1, 0}, 1, 4096, 4096},
    {"transpose 4096^2 bf16", TH_BF16, 2, {4096, 4096}, {1, 0}, 1, 4096, 4096},
    {"NCHW->NHWC 8x64x112x112 f32", TH_F32, 4, {8, 64, 112, 112}, {0, 2, 3, 1}, 8, 64, 112 * 112},
    {"NHWC->NCHW 8x112x112x64 f32", TH_F32, 4, {8, 112, 112, 64}, {0, 3, 1, 2}, 8, 112 * 112, 64},
};

/* th_<sfx>_empty, _permute and _contiguous for any dtype, from the dtype list. */
static th_tensor *dt_empty(th_dtype dt, int nd, const int64_t *sizes)
{
    switch (dt) {
#define X(sfx, ENUM, ...) \
    case TH_##ENUM: return th_##sfx##_base(th_##sfx##_empty(nd, sizes));
        TH_FOREACH_DTYPE(X)
#undef X
    default: return NULL;
    }
}

static th_tensor *dt_permute(th_tensor *t, const int *perm)
{
    switch (th_tensor_dtype(t)) {
#define X(sfx, ENUM, ...) \
    case TH_##ENUM: return th_##sfx##_base(th_##sfx##_permute(th_##sfx##_from_base(t), perm));
        TH_FOREACH_DTYPE(X)
#undef X
    default: return NULL;
    }
}

static th_tensor *dt_contiguous(th_tensor *t)
{
    switch (th_tensor_dtype(t)) {
#define X(sfx, ENUM, ...) \
    case TH_##ENUM: return th_##sfx##_base(th_##sfx##_contiguous(th_##sfx##_from_base(t)));
        TH_FOREACH_DTYPE(X)
#undef X
    default: return NULL;
    }
}

/* The limit's four forms: plain C loops in 16x16 or 32x32 tiles (tile 16, 32), register blocks in 32x32 or
 * 128x128 tiles (tile 0, 128). */
static void run_limit(size_t es, void *dst, const void *src, const work *w, int threads, int tile)
{
    const int64_t b = w->batch, r = w->rows, c = w->cols;
    if (es == 2)
        (tile == 16 ? limit_transpose2_t16 : tile == 32 ? limit_transpose2_t32 : tile == 0 ? limit_transpose2_regs
                                                                                      : limit_transpose2_regs128)(
            dst, src, b, r, c, threads);
    else if (es == 4)
        (tile == 16 ? limit_transpose4_t16 : tile == 32 ? limit_transpose4_t32 : tile == 0 ? limit_transpose4_regs
                                                                                      : limit_transpose4_regs128)(
            dst, src, b, r, c, threads);
    else
        (tile == 16 ? limit_transpose8_t16 : tile == 32 ? limit_transpose8_t32 : tile == 0 ? limit_transpose8_regs
                                                                                      : limit_transpose8_regs128)(
            dst, src, b, r, c, threads);
}

static double min2(double a, double b) { return a < b ? a : b; }

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 7;
    const char *tlist = argc > 2 ? argv[2] : "1 2";
    if (rounds < 1) rounds = 1;
    printf("%-30s %3s %9s %9s %9s %9s %7s %7s\n", "workload", "thr", "limit", "lim_fresh", "th_copy", "th_contig",
           "copy/l", "cont/lf");
    for (size_t wi = 0; wi < sizeof works / sizeof works[0]; wi++) {
        const work *w = &works[wi];
        th_tensor *src = dt_empty(w->dt, w->nd, w->shape);
        const size_t es = th_dtype_info(w->dt)->size;
        const int64_t n = th_tensor_numel(src);
        if (!src) return 1;
        uint16_t *p16 = (uint16_t *)th_tensor_data(src);
        for (int64_t i = 0; i < n * (int64_t)es / 2; i++) p16[i] = (uint16_t)(i * 2654435761u >> 7 & 0x3bff);
        th_tensor *view = dt_permute(src, w->perm);
        th_tensor *warm = dt_empty(w->dt, w->nd, th_tensor_sizes(view));
        th_tensor *limit_t = dt_empty(w->dt, w->nd, th_tensor_sizes(view));
        if (!view || !warm || !limit_t) return 1;
        void *limit_dst = th_tensor_data(limit_t);
        memset(limit_dst, 0, (size_t)n * es);
        memset(th_tensor_data(warm), 0, (size_t)n * es);
        for (const char *t = tlist; *t;) {
            char *end;
            long threads = strtol(t, &end, 10);
            if (end == t) break;
            t = end;
            th_set_num_threads((int)threads);
            double best[4] = {1e30, 1e30, 1e30, 1e30}, best_form[4] = {1e30, 1e30, 1e30, 1e30};
            for (int r = 0; r < rounds; r++) {
                const int tiles[4] = {16, 32, 0, 128};
                for (int k = 0; k < 4; k++) {
                    double ta = bench_now_ns();
                    run_limit(es, limit_dst, th_tensor_data(src), w, (int)threads, tiles[k]);
                    double tb = bench_now_ns();
                    best[0] = min2(best[0], tb - ta);
                    best_form[k] = min2(best_form[k], tb - ta);
                }
                double t2 = bench_now_ns();
                th_tensor *fresh = dt_empty(w->dt, w->nd, th_tensor_sizes(view));
                if (!fresh) return 1;
                run_limit(es, th_tensor_data(fresh), th_tensor_data(src), w, (int)threads, 128);
                bench_escape(th_tensor_data(fresh));
                th_tensor_release(fresh);
                double t3 = bench_now_ns();
                best[1] = min2(best[1], t3 - t2);
                if (th_tensor_copy(warm, view) != TH_OK) return 1;
                double t4 = bench_now_ns();
                best[2] = min2(best[2], t4 - t3);
                th_tensor *c = dt_contiguous(view);
                if (!c) return 1;
                th_tensor_release(c);
                double t5 = bench_now_ns();
                best[3] = min2(best[3], t5 - t4);
            }
            if (memcmp(limit_dst, th_tensor_data(warm), (size_t)n * es) != 0) {
                fprintf(stderr, "%s: tensor.h's copy differs from the limit's\n", w->name);
                return 1;
            }
            printf("%-30s %3ld %9.2f %9.2f %9.2f %9.2f %7.2f %7.2f   (limit forms: C16 %.2f, C32 %.2f, regs32 %.2f, regs128 %.2f)\n",
                   w->name, threads, best[0] / 1e6, best[1] / 1e6, best[2] / 1e6, best[3] / 1e6, best[2] / best[0],
                   best[3] / best[1], best_form[0] / 1e6, best_form[1] / 1e6, best_form[2] / 1e6,
                   best_form[3] / 1e6);
            fflush(stdout);
        }
        th_tensor_release(limit_t);
        th_tensor_release(warm);
        th_tensor_release(view);
        th_tensor_release(src);
    }
    return 0;
}
