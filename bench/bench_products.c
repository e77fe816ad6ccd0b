/* bench_products.c: einsum against the hand-written matmul calls it stands for (issue 15: within 1.1x).
 *
 *   bmm     "bij,bjk->bik", 64 x 256^3 f32: th_f32_einsum (new result and _out) against th_f32_matmul (new, _out)
 *   chain   "ij,jk,kl->il", 1024^2 f32 each: th_f32_einsum against th_f32_matmul(th_f32_matmul(A, B), C) and
 *           th_f32_multi_dot
 *   attn    "bhqd,bhkd->bhqk", 8 x 8 x 256 x 64 f32 (the second operand read transposed): th_f32_einsum against
 *           th_f32_matmul of a transposed view
 *
 * Each row prints "key best median ms" over the repetitions (best: the fastest run). products_run.sh builds this
 * with OpenBLAS and OpenMP and runs the NumPy / torch side (products_peer.py) on the same machine after it. */
#define _POSIX_C_SOURCE 200809L
#include "bench_common.h"
#include "tensor.h"

static th_f32_tensor *A, *B, *C, *O, *Q, *K, *KT;

static void fill(th_f32_tensor *t, int salt)
{
    float *p = th_f32_data(t);
    for (int64_t i = 0; i < th_f32_numel(t); i++) p[i] = (float)(((i + salt) * 7919) % 1000) / 1000.0f - 0.5f;
}

static void time_it(const char *key, void (*op)(void), int reps)
{
    op(); /* warm-up */
    double ms[BENCH_MAX_REPS];
    reps = bench_reps(reps) < reps ? bench_reps(reps) : reps;
    for (int r = 0; r < reps; r++) {
        double t0 = bench_now_ns();
        op();
        ms[r] = (bench_now_ns() - t0) / 1e6;
    }
    bench_report(key, ms, reps, "ms");
}

static void bmm_einsum_new(void)
{
    const th_f32_tensor *ops[2] = {A, B};
    th_f32_tensor *r = th_f32_einsum("bij,bjk->bik", 2, ops);
    BENCH_CHECK(r != NULL);
    bench_escape(th_f32_data(r));
    th_f32_release(r);
}
static void bmm_einsum_out(void)
{
    const th_f32_tensor *ops[2] = {A, B};
    BENCH_CHECK(th_f32_einsum_out(O, "bij,bjk->bik", 2, ops) == TH_OK);
}
static void bmm_matmul_new(void)
{
    th_f32_tensor *r = th_f32_matmul(A, B);
    BENCH_CHECK(r != NULL);
    bench_escape(th_f32_data(r));
    th_f32_release(r);
}
static void bmm_matmul_out(void) { BENCH_CHECK(th_f32_matmul_out(O, A, B) == TH_OK); }

static void chain_einsum(void)
{
    const th_f32_tensor *ops[3] = {A, B, C};
    th_f32_tensor *r = th_f32_einsum("ij,jk,kl->il", 3, ops);
    BENCH_CHECK(r != NULL);
    bench_escape(th_f32_data(r));
    th_f32_release(r);
}
static void chain_matmul(void)
{
    th_f32_tensor *ab = th_f32_matmul(A, B), *r = ab ? th_f32_matmul(ab, C) : NULL;
    BENCH_CHECK(r != NULL);
    bench_escape(th_f32_data(r));
    th_f32_release(ab);
    th_f32_release(r);
}
static void chain_multi_dot(void)
{
    const th_f32_tensor *ops[3] = {A, B, C};
    th_f32_tensor *r = th_f32_multi_dot(3, ops);
    BENCH_CHECK(r != NULL);
    bench_escape(th_f32_data(r));
    th_f32_release(r);
}

static void attn_einsum(void)
{
    const th_f32_tensor *ops[2] = {Q, K};
    th_f32_tensor *r = th_f32_einsum("bhqd,bhkd->bhqk", 2, ops);
    BENCH_CHECK(r != NULL);
    bench_escape(th_f32_data(r));
    th_f32_release(r);
}
static void attn_matmul(void)
{
    th_f32_tensor *r = th_f32_matmul(Q, KT);
    BENCH_CHECK(r != NULL);
    bench_escape(th_f32_data(r));
    th_f32_release(r);
}

int main(void)
{
    BENCH_CHECK(th_linalg_blas());
    A = th_f32_empty(3, (int64_t[]){64, 256, 256});
    B = th_f32_empty(3, (int64_t[]){64, 256, 256});
    O = th_f32_empty(3, (int64_t[]){64, 256, 256});
    fill(A, 1);
    fill(B, 2);
    /* the einsum's result is the matmul's */
    const th_f32_tensor *ab[2] = {A, B};
    th_f32_tensor *e = th_f32_einsum("bij,bjk->bik", 2, ab), *m = th_f32_matmul(A, B);
    BENCH_CHECK(e && m && memcmp(th_f32_data(e), th_f32_data(m), (size_t)th_f32_numel(m) * sizeof(float)) == 0);
    th_f32_release(e);
    th_f32_release(m);
    time_it("bmm_th_matmul_new_64x256", bmm_matmul_new, 21);
    time_it("bmm_th_einsum_new_64x256", bmm_einsum_new, 21);
    time_it("bmm_th_matmul_out_64x256", bmm_matmul_out, 21);
    time_it("bmm_th_einsum_out_64x256", bmm_einsum_out, 21);
    th_f32_release(A);
    th_f32_release(B);
    th_f32_release(O);

    int64_t sq[2] = {1024, 1024};
    A = th_f32_empty(2, sq);
    B = th_f32_empty(2, sq);
    C = th_f32_empty(2, sq);
    fill(A, 3);
    fill(B, 4);
    fill(C, 5);
    time_it("chain_th_matmul_matmul_1024", chain_matmul, 11);
    time_it("chain_th_einsum_1024", chain_einsum, 11);
    time_it("chain_th_multi_dot_1024", chain_multi_dot, 11);
    th_f32_release(A);
    th_f32_release(B);
    th_f32_release(C);

    Q = th_f32_empty(4, (int64_t[]){8, 8, 256, 64});
    K = th_f32_empty(4, (int64_t[]){8, 8, 256, 64});
    fill(Q, 6);
    fill(K, 7);
    KT = th_f32_transpose(K, 2, 3);
    time_it("attn_th_matmul_transposed_8x8x256x64", attn_matmul, 21);
    time_it("attn_th_einsum_8x8x256x64", attn_einsum, 21);
    th_f32_release(KT);
    th_f32_release(K);
    th_f32_release(Q);
    return 0;
}
