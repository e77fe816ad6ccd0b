/* ops/random.h: samplers (uniform, normal, exponential, bernoulli, randint, randperm, multinomial).
 * Stamped per dtype through tensor_generic.h; the generator and the draws themselves are dtype-independent,
 * in ops/random_erased.h.
 *
 * Each sampler comes as a new tensor (ndim, sizes, parameters, gen) and as _inplace (fills an existing
 * tensor of any strides). gen NULL means th_default_generator(). Element i (row-major) of a draw uses
 * Philox block offset + i, so results do not depend on the thread count or on the tensor's strides. */
#if !defined(TH_REAL_IS_COMPLEX)
#ifndef TH__DEFINING

#if defined(TH_REAL_IS_FLOATING)
/* Uniform on [lo, hi): 53 random bits scaled in double, then rounded to the dtype; a value that rounds up to
 * hi becomes the largest value of the dtype below hi. Errors: TH_ERR_INVALID unless lo < hi, both finite. */
TH_API TH_NAME(tensor) *TH_NAME(uniform)(int ndim, const int64_t *sizes, double lo, double hi, th_generator *gen);
TH_API int TH_NAME(uniform_inplace)(TH_NAME(tensor) *t, double lo, double hi, th_generator *gen);
/* Normal(mean, std^2) by Box-Muller (the cosine branch: one block per element). std 0 gives mean.
 * Errors: TH_ERR_INVALID for std < 0 or a parameter that is not finite. */
TH_API TH_NAME(tensor) *TH_NAME(normal)(int ndim, const int64_t *sizes, double mean, double std, th_generator *gen);
TH_API int TH_NAME(normal_inplace)(TH_NAME(tensor) *t, double mean, double std, th_generator *gen);
/* Exponential with rate lambda (mean 1 / lambda), by inversion: -log(u) / lambda with u in (0, 1].
 * Errors: TH_ERR_INVALID unless 0 < lambda < inf. */
TH_API TH_NAME(tensor) *TH_NAME(exponential)(int ndim, const int64_t *sizes, double lambda, th_generator *gen);
TH_API int TH_NAME(exponential_inplace)(TH_NAME(tensor) *t, double lambda, th_generator *gen);
/* num_samples category indices per row of probs (1-d: one distribution, result (num_samples); 2-d: one per
 * row, result (rows, num_samples)). probs need not sum to 1. With replacement, sample j of row r uses block
 * offset + r * num_samples + j; without, every category of every row uses one block (exponential clocks:
 * the categories come out in the order a one-at-a-time draw would give them). Errors: TH_ERR_INVALID for
 * NULL, a negative num_samples, a probability that is negative or not finite, a row whose sum is not
 * positive; TH_ERR_SHAPE unless probs is 1-d or 2-d with at least one category; TH_ERR_RANGE for more
 * samples than categories of nonzero probability without replacement; TH_ERR_NOMEM. */
TH_API th_i64_tensor *TH_NAME(multinomial)(const TH_NAME(tensor) *probs, int64_t num_samples, bool replacement,
                                           th_generator *gen);
#endif

/* 1 with probability p, else 0 (one block per element). Errors: TH_ERR_INVALID for p outside [0, 1]. */
TH_API TH_NAME(tensor) *TH_NAME(bernoulli)(int ndim, const int64_t *sizes, double p, th_generator *gen);
TH_API int TH_NAME(bernoulli_inplace)(TH_NAME(tensor) *t, double p, th_generator *gen);

#if defined(TH_REAL_IS_INTEGER) || defined(TH_REAL_IS_FLOATING)
/* Integers uniform on [lo, hi), without bias (Lemire's multiply-and-reject; a rejection takes further
 * blocks of the same element, so it never shifts other elements). Floating dtypes get the integers rounded
 * to the dtype. Errors: TH_ERR_INVALID for lo >= hi; TH_ERR_RANGE for an integer dtype whose range does not
 * hold [lo, hi - 1]. */
TH_API TH_NAME(tensor) *TH_NAME(randint)(int ndim, const int64_t *sizes, int64_t lo, int64_t hi, th_generator *gen);
TH_API int TH_NAME(randint_inplace)(TH_NAME(tensor) *t, int64_t lo, int64_t hi, th_generator *gen);
#endif

#if defined(TH_REAL_IS_INTEGER)
/* A random permutation of 0..n-1 (1-d, n elements) by Fisher-Yates; uses n - 1 blocks, sequentially.
 * Errors: TH_ERR_INVALID for n < 0; TH_ERR_RANGE when n - 1 does not fit the dtype. */
TH_API TH_NAME(tensor) *TH_NAME(randperm)(int64_t n, th_generator *gen);
#endif

#else /* definitions */

#if defined(TH_REAL_IS_FLOATING)
/* The largest value of this dtype below hi. */
static real TH_PRIVATE(largest_below)(double hi)
{
#if defined(TH_REAL_IS_F64)
    return nextafter(hi, -INFINITY);
#elif defined(TH_REAL_IS_F32)
    float f = (float)hi;
    return (double)f >= hi ? nextafterf(f, -INFINITY) : f;
#else /* f16 and bf16: step the 16-bit encoding one unit toward -inf */
    real h = TH_PRIVATE(from_f64)(hi);
    if (TH_PRIVATE(to_f64)(h) < hi) return h;
    if (h.bits == 0 || h.bits == 0x8000u) h.bits = 0x8001u; /* below zero: the negative least subnormal */
    else if (h.bits & 0x8000u) h.bits = (uint16_t)(h.bits + 1u);
    else h.bits = (uint16_t)(h.bits - 1u);
    return h;
#endif
}

static TH__HOT void TH_PRIVATE(uniform_kernel)(const void *params, const th__philox_stream *s, char *data,
                                               int64_t begin, int64_t end)
{
    const th__rand_params *p = (const th__rand_params *)params;
    const real top = TH_PRIVATE(from_f64)(p->top);
    for (int64_t i = begin; i < end; i++) {
        real v = TH_PRIVATE(from_f64)(th__rand_uniform(s, (uint64_t)i, p->a, p->b));
        if (TH_PRIVATE(to_f64)(v) >= p->b) v = top;
        TH_PRIVATE(store)(data + i * (int64_t)sizeof(real), v);
    }
}

static TH__HOT void TH_PRIVATE(normal_kernel)(const void *params, const th__philox_stream *s, char *data,
                                              int64_t begin, int64_t end)
{
    const th__rand_params *p = (const th__rand_params *)params;
    for (int64_t i = begin; i < end; i++)
        TH_PRIVATE(store)(data + i * (int64_t)sizeof(real),
                          TH_PRIVATE(from_f64)(th__rand_normal(s, (uint64_t)i, p->a, p->b)));
}

static TH__HOT void TH_PRIVATE(exponential_kernel)(const void *params, const th__philox_stream *s, char *data,
                                                   int64_t begin, int64_t end)
{
    const th__rand_params *p = (const th__rand_params *)params;
    for (int64_t i = begin; i < end; i++)
        TH_PRIVATE(store)(data + i * (int64_t)sizeof(real),
                          TH_PRIVATE(from_f64)(th__rand_exponential(s, (uint64_t)i, p->a)));
}

TH_API TH_NAME(tensor) *TH_NAME(uniform)(int ndim, const int64_t *sizes, double lo, double hi, th_generator *gen)
{
    if (th__check_uniform(TH__FN(uniform), lo, hi)) return NULL;
    th__rand_params p = {lo, hi, TH_PRIVATE(to_f64)(TH_PRIVATE(largest_below)(hi)), 0, 0};
    return TH__T(th__rand_new(TH__FN(uniform), TH_DT_ENUM, ndim, sizes, gen, TH_PRIVATE(uniform_kernel), "uniform", &p));
}

TH_API int TH_NAME(uniform_inplace)(TH_NAME(tensor) *t, double lo, double hi, th_generator *gen)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    if (th__check_uniform(TH__FN(uniform_inplace), lo, hi)) return th_last_status();
    th__rand_params p = {lo, hi, TH_PRIVATE(to_f64)(TH_PRIVATE(largest_below)(hi)), 0, 0};
    return th__rand_fill(TH__FN(uniform_inplace), TH__B(t), gen, TH_PRIVATE(uniform_kernel), "uniform", &p);
}

TH_API TH_NAME(tensor) *TH_NAME(normal)(int ndim, const int64_t *sizes, double mean, double std, th_generator *gen)
{
    if (th__check_normal(TH__FN(normal), mean, std)) return NULL;
    th__rand_params p = {mean, std, 0, 0, 0};
    return TH__T(th__rand_new(TH__FN(normal), TH_DT_ENUM, ndim, sizes, gen, TH_PRIVATE(normal_kernel), "normal", &p));
}

TH_API int TH_NAME(normal_inplace)(TH_NAME(tensor) *t, double mean, double std, th_generator *gen)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    if (th__check_normal(TH__FN(normal_inplace), mean, std)) return th_last_status();
    th__rand_params p = {mean, std, 0, 0, 0};
    return th__rand_fill(TH__FN(normal_inplace), TH__B(t), gen, TH_PRIVATE(normal_kernel), "normal", &p);
}

TH_API TH_NAME(tensor) *TH_NAME(exponential)(int ndim, const int64_t *sizes, double lambda, th_generator *gen)
{
    if (th__check_exponential(TH__FN(exponential), lambda)) return NULL;
    th__rand_params p = {lambda, 0, 0, 0, 0};
    return TH__T(
        th__rand_new(TH__FN(exponential), TH_DT_ENUM, ndim, sizes, gen, TH_PRIVATE(exponential_kernel), "exponential", &p));
}

TH_API int TH_NAME(exponential_inplace)(TH_NAME(tensor) *t, double lambda, th_generator *gen)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    if (th__check_exponential(TH__FN(exponential_inplace), lambda)) return th_last_status();
    th__rand_params p = {lambda, 0, 0, 0, 0};
    return th__rand_fill(TH__FN(exponential_inplace), TH__B(t), gen, TH_PRIVATE(exponential_kernel), "exponential", &p);
}

TH_API th_i64_tensor *TH_NAME(multinomial)(const TH_NAME(tensor) *probs, int64_t num_samples, bool replacement,
                                           th_generator *gen)
{
    if (TH__WRONG_DTYPE(probs)) return NULL;
    const char *fn = TH__FN(multinomial);
    const th_tensor *t = TH__B(probs);
    if (!t) {
        th__fail(TH_ERR_INVALID, fn, "NULL probs");
        return NULL;
    }
    if (t->ndim < 1 || t->ndim > 2 || t->sizes[t->ndim - 1] == 0) {
        char shape[160];
        th__shape_string(t->ndim, t->sizes, shape, sizeof shape);
        th__fail(TH_ERR_SHAPE, fn, "probs has shape %s; it must be 1-d or 2-d with at least one category", shape);
        return NULL;
    }
    th_tensor *c = th__contiguous_on_host(fn, (th_tensor *)t, "probs", "read");
    if (!c) return NULL;
    int64_t n = th__numel(c);
    double *p = (double *)malloc((size_t)(n > 0 ? n : 1) * sizeof(double));
    if (!p) {
        th_tensor_release(c);
        th__fail(TH_ERR_NOMEM, fn, "out of memory for %lld probabilities", (long long)n);
        return NULL;
    }
    const char *src = (const char *)th_tensor_data(c);
    for (int64_t i = 0; i < n; i++) p[i] = TH_PRIVATE(to_f64)(TH_PRIVATE(load)(src + i * (int64_t)sizeof(real)));
    th_tensor_release(c);
    int64_t ncat = t->sizes[t->ndim - 1], nrows = t->ndim == 2 ? t->sizes[0] : 1;
    th_tensor *out = th__multinomial(fn, p, nrows, ncat, t->ndim, num_samples, replacement, gen);
    free(p);
    return (th_i64_tensor *)out;
}
#endif /* floating */

static TH__HOT void TH_PRIVATE(bernoulli_kernel)(const void *params, const th__philox_stream *s, char *data,
                                                 int64_t begin, int64_t end)
{
    const th__rand_params *p = (const th__rand_params *)params;
    const real one = TH_PRIVATE(from_i64)(1), zero = TH_PRIVATE(from_i64)(0);
    for (int64_t i = begin; i < end; i++)
        TH_PRIVATE(store)(data + i * (int64_t)sizeof(real), th__rand_bernoulli(s, (uint64_t)i, p->a) ? one : zero);
}

TH_API TH_NAME(tensor) *TH_NAME(bernoulli)(int ndim, const int64_t *sizes, double p, th_generator *gen)
{
    if (th__check_probability(TH__FN(bernoulli), p)) return NULL;
    th__rand_params params = {p, 0, 0, 0, 0};
    return TH__T(th__rand_new(TH__FN(bernoulli), TH_DT_ENUM, ndim, sizes, gen, TH_PRIVATE(bernoulli_kernel), "bernoulli", &params));
}

TH_API int TH_NAME(bernoulli_inplace)(TH_NAME(tensor) *t, double p, th_generator *gen)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    if (th__check_probability(TH__FN(bernoulli_inplace), p)) return th_last_status();
    th__rand_params params = {p, 0, 0, 0, 0};
    return th__rand_fill(TH__FN(bernoulli_inplace), TH__B(t), gen, TH_PRIVATE(bernoulli_kernel), "bernoulli", &params);
}

#if defined(TH_REAL_IS_INTEGER) || defined(TH_REAL_IS_FLOATING)
/* The integers this dtype holds exactly enough for randint's bounds: the integer range, or for floating
 * dtypes everything int64 holds (values are rounded to the dtype). */
static void TH_PRIVATE(int_range)(int64_t *min, int64_t *max)
{
#if defined(TH_REAL_IS_U8)
    *min = 0, *max = UINT8_MAX;
#elif defined(TH_REAL_IS_I8)
    *min = INT8_MIN, *max = INT8_MAX;
#elif defined(TH_REAL_IS_I16)
    *min = INT16_MIN, *max = INT16_MAX;
#elif defined(TH_REAL_IS_I32)
    *min = INT32_MIN, *max = INT32_MAX;
#else
    *min = INT64_MIN, *max = INT64_MAX;
#endif
}

static TH__HOT void TH_PRIVATE(randint_kernel)(const void *params, const th__philox_stream *s, char *data,
                                               int64_t begin, int64_t end)
{
    const th__rand_params *p = (const th__rand_params *)params;
    for (int64_t i = begin; i < end; i++) {
        uint64_t k = th__rand_below(s, (uint64_t)i, p->range);
        TH_PRIVATE(store)(data + i * (int64_t)sizeof(real), TH_PRIVATE(from_i64)((int64_t)((uint64_t)p->lo + k)));
    }
}

static int TH_PRIVATE(randint_params)(const char *fn, int64_t lo, int64_t hi, th__rand_params *p)
{
    int64_t min, max;
    TH_PRIVATE(int_range)(&min, &max);
    if (th__check_randint(fn, lo, hi, min, max)) return th_last_status();
    p->a = p->b = p->top = 0;
    p->lo = lo;
    p->range = (uint64_t)hi - (uint64_t)lo; /* at most 2^64 - 1: hi - lo never reaches 2^64 */
    return TH_OK;
}

TH_API TH_NAME(tensor) *TH_NAME(randint)(int ndim, const int64_t *sizes, int64_t lo, int64_t hi, th_generator *gen)
{
    th__rand_params p;
    if (TH_PRIVATE(randint_params)(TH__FN(randint), lo, hi, &p)) return NULL;
    return TH__T(th__rand_new(TH__FN(randint), TH_DT_ENUM, ndim, sizes, gen, TH_PRIVATE(randint_kernel), "randint", &p));
}

TH_API int TH_NAME(randint_inplace)(TH_NAME(tensor) *t, int64_t lo, int64_t hi, th_generator *gen)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    th__rand_params p;
    if (TH_PRIVATE(randint_params)(TH__FN(randint_inplace), lo, hi, &p)) return th_last_status();
    return th__rand_fill(TH__FN(randint_inplace), TH__B(t), gen, TH_PRIVATE(randint_kernel), "randint", &p);
}
#endif /* integer or floating */

#if defined(TH_REAL_IS_INTEGER)
TH_API TH_NAME(tensor) *TH_NAME(randperm)(int64_t n, th_generator *gen)
{
    const char *fn = TH__FN(randperm);
    int64_t min, max;
    TH_PRIVATE(int_range)(&min, &max);
    if (n < 0) {
        th__fail(TH_ERR_INVALID, fn, "n %lld is negative", (long long)n);
        return NULL;
    }
    if (n - 1 > max) {
        th__fail(TH_ERR_RANGE, fn, "n %lld: the values 0..%lld do not fit the dtype (max %lld)", (long long)n,
                 (long long)(n - 1), (long long)max);
        return NULL;
    }
    th_tensor *t = th__tensor_empty_host(fn, TH_DT_ENUM, 1, &n);
    if (!t) return NULL;
#if defined(TH_REAL_IS_I64)
    th__randperm_fill((int64_t *)th_tensor_data(t), n, gen);
#else
    int64_t *perm = (int64_t *)malloc((size_t)(n > 0 ? n : 1) * sizeof(int64_t));
    if (!perm) {
        th_tensor_release(t);
        th__fail(TH_ERR_NOMEM, fn, "out of memory for %lld indices", (long long)n);
        return NULL;
    }
    th__randperm_fill(perm, n, gen);
    char *data = (char *)th_tensor_data(t);
    for (int64_t i = 0; i < n; i++) TH_PRIVATE(store)(data + i * (int64_t)sizeof(real), TH_PRIVATE(from_i64)(perm[i]));
    free(perm);
#endif
    return TH__T(t);
}
#endif /* integer */

#endif /* definitions */
#endif /* not complex */
