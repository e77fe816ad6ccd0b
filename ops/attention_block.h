/* ops/attention_block.h: one block of scaled_dot_product_attention in one compute type, included twice by
 * ops/attention_erased.h: TH__SDPA_T float (f32, f16, bf16) and double (f64), TH__SDPA_F(x) naming its
 * functions, TH__SDPA_GEMM the CBLAS gemm of that type, TH__SDPA_EXP the vector exp (core/vecmath.h). */

/* C (m x n, row stride ldc) = alpha * A (m x k, row stride lda) @ B^T, B being n x k (row stride ldb); beta 0
 * or 1 keeps (1) or replaces (0) C; tb false: B is k x n and not transposed. */
static void TH__SDPA_F(gemm)(bool tb, int64_t m, int64_t n, int64_t k, TH__SDPA_T alpha, const TH__SDPA_T *A,
                             int64_t lda, const TH__SDPA_T *B, int64_t ldb, TH__SDPA_T beta, TH__SDPA_T *C,
                             int64_t ldc)
{
#ifdef TH_USE_CBLAS
    if (th_linalg_blas() && m > 0 && n > 0 && k > 0 && m <= INT_MAX && n <= INT_MAX && k <= INT_MAX &&
        lda <= INT_MAX && ldb <= INT_MAX && ldc <= INT_MAX) {
        TH__SDPA_GEMM(CblasRowMajor, CblasNoTrans, tb ? CblasTrans : CblasNoTrans, (int)m, (int)n, (int)k, alpha, A,
                      (int)lda, B, (int)ldb, beta, C, (int)ldc);
        return;
    }
#endif
    for (int64_t i = 0; i < m; i++) {
        TH__SDPA_T *c = C + i * ldc;
        const TH__SDPA_T *a = A + i * lda;
        if (beta == 0)
            for (int64_t j = 0; j < n; j++) c[j] = 0;
        if (tb) {
            for (int64_t j = 0; j < n; j++) {
                const TH__SDPA_T *b = B + j * ldb;
                TH__SDPA_T acc = 0;
                for (int64_t l = 0; l < k; l++) acc += a[l] * b[l];
                c[j] += alpha * acc;
            }
        } else {
            for (int64_t l = 0; l < k; l++) {
                const TH__SDPA_T *b = B + l * ldb;
                TH__SDPA_T av = alpha * a[l];
                for (int64_t j = 0; j < n; j++) c[j] += av * b[j];
            }
        }
    }
}

/* Query rows i0 .. i0 + bq - 1 of batch item b: every key block's scores (s, bq x TH__SDPA_BK), their
 * exponentials (pr, the same), the running maximum and sum of each row (mx, sum), the output rows accumulated
 * in place in p->y and divided by their sums at the end. */
static TH__SDPA_HOT void TH__SDPA_F(block)(const th__sdpa_plan *p, int64_t b, int64_t i0, TH__SDPA_T *s, TH__SDPA_T *pr,
                                         TH__SDPA_T *mx, TH__SDPA_T *sum)
{
    const int64_t L = p->L, S = p->S, E = p->E, Ev = p->Ev, BK = TH__SDPA_BK;
    int64_t bq = L - i0 < TH__SDPA_BQ ? L - i0 : TH__SDPA_BQ;
    int64_t qo = 0, ko = 0, vo = 0, mo = 0, rem = b;
    for (int d = p->nbd - 1; d >= 0; d--) {
        int64_t idx = rem % p->bsize[d];
        rem /= p->bsize[d];
        qo += idx * p->qbs[d];
        ko += idx * p->kbs[d];
        vo += idx * p->vbs[d];
        mo += idx * p->mbs[d];
    }
    const TH__SDPA_T *q = (const TH__SDPA_T *)(const void *)p->q + qo + i0 * E;
    const TH__SDPA_T *k = (const TH__SDPA_T *)(const void *)p->k + ko;
    const TH__SDPA_T *v = (const TH__SDPA_T *)(const void *)p->v + vo;
    TH__SDPA_T *o = (TH__SDPA_T *)(void *)p->y + (b * L + i0) * Ev;
    const TH__SDPA_T ninf = -(TH__SDPA_T)INFINITY, scale = (TH__SDPA_T)p->scale;
    for (int64_t i = 0; i < bq; i++) {
        mx[i] = ninf;
        sum[i] = 0;
    }
    for (int64_t i = 0; i < bq * Ev; i++) o[i] = 0;
    /* causal: row i takes keys 0..i, so this block's rows take none past i0 + bq - 1 */
    int64_t send = p->causal && i0 + bq < S ? i0 + bq : S;
    for (int64_t j0 = 0; j0 < send; j0 += BK) {
        int64_t bk = send - j0 < BK ? send - j0 : BK;
        if (E > 0)
            TH__SDPA_F(gemm)(true, bq, bk, E, scale, q, E, k + j0 * E, E, 0, s, BK);
        else /* no features: every score is 0, whatever the scale (as PyTorch's empty product) */
            for (int64_t i = 0; i < bq * BK; i++) s[i] = 0;
        for (int64_t i = 0; i < bq; i++) {
            TH__SDPA_T *r = s + i * BK, *e = pr + i * BK;
            int64_t gi = i0 + i;
            if (p->m) {
                int64_t base = mo + gi * p->msl + j0 * p->mss;
                if (p->mask_bool) {
                    const bool *mb = (const bool *)(const void *)p->m + base;
                    for (int64_t j = 0; j < bk; j++)
                        if (!mb[j * p->mss]) r[j] = ninf;
                } else {
                    const TH__SDPA_T *mf = (const TH__SDPA_T *)(const void *)p->m + base;
                    for (int64_t j = 0; j < bk; j++) r[j] += mf[j * p->mss];
                }
            }
            if (p->causal)
                for (int64_t j = gi - j0 + 1 > 0 ? gi - j0 + 1 : 0; j < bk; j++) r[j] = ninf;
            TH__SDPA_T m = mx[i];
            for (int64_t j = 0; j < bk; j++) m = r[j] > m ? r[j] : m;
            if (m == ninf) { /* every score so far masked: nothing to add yet */
                for (int64_t j = 0; j < bk; j++) e[j] = 0;
                continue;
            }
            for (int64_t j = 0; j < bk; j++) r[j] -= m;
            TH__SDPA_EXP(e, r, bk);
            TH__SDPA_T add = 0;
            for (int64_t j = 0; j < bk; j++) add += e[j];
            if (m != mx[i]) {
                TH__SDPA_T a = mx[i] == ninf ? 0 : (TH__SDPA_T)exp((double)(mx[i] - m));
                sum[i] *= a;
                for (int64_t c = 0; c < Ev; c++) o[i * Ev + c] *= a;
                mx[i] = m;
            }
            sum[i] += add;
        }
        TH__SDPA_F(gemm)(false, bq, Ev, bk, 1, pr, BK, v + j0 * Ev, Ev, 1, o, Ev);
    }
    /* a row with every score masked has sum 0 and gives NaN, as the formula's softmax of all -inf */
    for (int64_t i = 0; i < bq; i++) {
        TH__SDPA_T inv = sum[i] > 0 ? 1 / sum[i] : (TH__SDPA_T)NAN;
        for (int64_t c = 0; c < Ev; c++) o[i * Ev + c] *= inv;
    }
}

#undef TH__SDPA_T
#undef TH__SDPA_F
#undef TH__SDPA_GEMM
#undef TH__SDPA_EXP
