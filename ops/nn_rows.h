/* ops/nn_rows.h: the row kernels of the NN family (softmax, log_softmax, layer_norm, rms_norm), written once
 * over a compute type and included twice by ops/nn_erased.h: for float (f32, and f16 and bf16 loaded into
 * float) and for double (f64). Each kernel reads one contiguous row x of n elements and writes one contiguous
 * row y; y may be exactly x (every element of x is read before its place in y is written), never a part of
 * it. Sums are kept in double, in 8 lanes the compiler vectorises, added in a fixed order: a row's result
 * depends only on the row, never on the thread count.
 *
 * nn_erased.h defines before each inclusion:
 *   TH__NN_T       the compute type (float or double)
 *   TH__NN_F(x)    the name of x for this type and instruction set (th__nn_f32_x, th__nn_f32_avx2_x)
 *   TH__NN_TARGET  the instruction set's attribute (empty for the baseline; core/vecmath.h's TH__VEC_AVX2 ...)
 *   TH__NN_EXP     out[i] = exp(in[i]) over n contiguous elements (core/vecmath.h), out may equal in
 *   TH__NN_LOW     a difference x - max below which exp is 0 in the type (differences are clamped to it,
 *                  so that an element of -inf takes part without a NaN) */
#ifndef TH__NN_T
#error "ops/nn_rows.h is included by ops/nn_erased.h only"
#endif

/* The largest element, NaN skipped (a NaN reaches the result through the sum instead); -inf for a row of
 * -inf. */
static TH__NN_HOT TH__NN_TARGET TH__NN_T TH__NN_F(row_max)(const TH__NN_T *restrict x, int64_t n)
{
    TH__NN_T m[8];
    for (int j = 0; j < 8; j++) m[j] = -(TH__NN_T)INFINITY;
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++) m[j] = x[i + j] > m[j] ? x[i + j] : m[j];
    for (; i < n; i++) m[0] = x[i] > m[0] ? x[i] : m[0];
    TH__NN_T r = m[0];
    for (int j = 1; j < 8; j++) r = m[j] > r ? m[j] : r;
    return r;
}

/* sum over i of exp(x[i] - m), in double; e (when not NULL) receives the terms. The difference x[i] - m is
 * exact in double; for float its part below float's precision (lo) corrects the float exp to first order, so
 * the terms are as good as the vectorised exp (about 1 ulp) however far x[i] is below m. */
static TH__NN_HOT TH__NN_TARGET double TH__NN_F(exp_sum)(const TH__NN_T *x, TH__NN_T *e, int64_t n, TH__NN_T m)
{
    enum { CH = 512 };
    TH__NN_T hi[CH], lo[CH], ex[CH];
    double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int64_t i0 = 0; i0 < n; i0 += CH) {
        int64_t c = n - i0 < CH ? n - i0 : CH;
        const TH__NN_T *xc = x + i0;
        for (int64_t k = 0; k < c; k++) {
            double d = (double)xc[k] - (double)m;
            d = d < TH__NN_LOW ? TH__NN_LOW : d; /* -inf (and NaN kept): no NaN from -inf - (-inf) below */
            TH__NN_T h = (TH__NN_T)d;
            hi[k] = h;
            lo[k] = (TH__NN_T)(d - (double)h);
        }
        TH__NN_T *out = e ? e + i0 : ex;
        TH__NN_EXP(out, hi, c);
        for (int64_t k = 0; k < c; k++) out[k] = out[k] + out[k] * lo[k];
        int64_t k = 0;
        for (; k + 8 <= c; k += 8)
            for (int j = 0; j < 8; j++) acc[j] += (double)out[k + j];
        for (; k < c; k++) acc[0] += (double)out[k];
    }
    return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

/* y = exp(x - max) / sum: a row holding NaN, +inf, or only -inf gives NaN everywhere (as PyTorch); -inf
 * elements of any other row give exactly 0. */
static TH__NN_HOT TH__NN_TARGET void TH__NN_F(softmax_row)(const TH__NN_T *x, TH__NN_T *y, int64_t n)
{
    TH__NN_T m = TH__NN_F(row_max)(x, n);
    double inv = 1.0 / TH__NN_F(exp_sum)(x, y, n, m);
    for (int64_t i = 0; i < n; i++) y[i] = (TH__NN_T)((double)y[i] * inv);
}

/* y = (x - max) - log(sum exp(x - max)): never overflows; -inf elements stay -inf. */
static TH__NN_HOT TH__NN_TARGET void TH__NN_F(log_softmax_row)(const TH__NN_T *x, TH__NN_T *y, int64_t n)
{
    TH__NN_T m = TH__NN_F(row_max)(x, n);
    double l = log(TH__NN_F(exp_sum)(x, NULL, n, m));
    /* (x - m) and -l are both <= 0: no cancellation (x - (m + l) would lose m's low bits to the rounding) */
    for (int64_t i = 0; i < n; i++) y[i] = (TH__NN_T)(((double)x[i] - (double)m) - l);
}

/* Sum of x[i] (square 0) or of (x[i] - shift)^2 (square 1), in double. */
static TH__NN_HOT TH__NN_TARGET double TH__NN_F(row_sum)(const TH__NN_T *restrict x, int64_t n, int square, double shift)
{
    double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = 0;
    if (!square) {
        for (; i + 8 <= n; i += 8)
            for (int j = 0; j < 8; j++) acc[j] += (double)x[i + j];
        for (; i < n; i++) acc[0] += (double)x[i];
    } else {
        for (; i + 8 <= n; i += 8)
            for (int j = 0; j < 8; j++) {
                double d = (double)x[i + j] - shift;
                acc[j] += d * d;
            }
        for (; i < n; i++) {
            double d = (double)x[i] - shift;
            acc[0] += d * d;
        }
    }
    return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7]));
}

/* layer_norm (rms 0): y = (x - mean) / sqrt(var + eps) * w + b with the biased variance; rms_norm (rms 1):
 * y = x / sqrt(mean(x^2) + eps) * w. w and b (contiguous, n elements) may be NULL. Computed in double, two
 * passes over the row for the variance. */
static TH__NN_HOT TH__NN_TARGET void TH__NN_F(norm_row)(const TH__NN_T *x, TH__NN_T *y, int64_t n, const TH__NN_T *restrict w,
                                       const TH__NN_T *restrict b, double eps, int rms)
{
    double mean = rms ? 0.0 : TH__NN_F(row_sum)(x, n, 0, 0.0) / (double)n;
    double var = TH__NN_F(row_sum)(x, n, 1, mean) / (double)n;
    double r = 1.0 / sqrt(var + eps);
    if (w && b)
        for (int64_t i = 0; i < n; i++) y[i] = (TH__NN_T)(((double)x[i] - mean) * r * (double)w[i] + (double)b[i]);
    else if (w)
        for (int64_t i = 0; i < n; i++) y[i] = (TH__NN_T)(((double)x[i] - mean) * r * (double)w[i]);
    else if (b)
        for (int64_t i = 0; i < n; i++) y[i] = (TH__NN_T)(((double)x[i] - mean) * r + (double)b[i]);
    else
        for (int64_t i = 0; i < n; i++) y[i] = (TH__NN_T)(((double)x[i] - mean) * r);
}

#undef TH__NN_T
#undef TH__NN_F
#undef TH__NN_TARGET
#undef TH__NN_EXP
#undef TH__NN_LOW
