/* ops/reduce.h: reductions (sum, prod, mean, var, std, min, max, argmin, argmax, norm, all, any,
 * logsumexp) over every element or one dim, and the scans cumsum and cumprod. Stamped per dtype through
 * tensor_generic.h; the plan that feeds these kernels their rows is in ops/reduce_erased.h, and
 * docs/reductions.md describes the family. */
#ifndef TH__DEFINING

/* Every function here returns a new tensor (NULL on error) or, for _out, writes into out and returns 0 or a
 * negative th_status; th_last_error() names the function and the bad value. _all reduces every element
 * into a 0-d tensor (_all_out: into a 0-d out); _dim reduces dim (negative counts from the end; a 0-d tensor accepts 0 and -1), which
 * is removed or, with keepdim, kept with size 1. An out must have exactly the result's shape and dtype (else
 * TH_ERR_SHAPE / TH_ERR_DTYPE) and may overlap a (a is then copied first). Errors common to all: NULL
 * tensor or out (TH_ERR_INVALID), a of another dtype (TH_ERR_DTYPE), dim out of range (TH_ERR_RANGE), operands on two devices or device memory no companion serves (TH_ERR_DEVICE; a registered companion reduces device memory: core/device_ops.h), out of
 * memory (TH_ERR_NOMEM). */

#if !defined(TH_REAL_IS_BOOL)
/* Running sum / product along dim, same shape as a, accumulated in accreal and rounded at each element. */
TH_API TH_NAME(tensor) *TH_NAME(cumsum)(const TH_NAME(tensor) *a, int dim);
TH_API int TH_NAME(cumsum_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, int dim);
TH_API TH_NAME(tensor) *TH_NAME(cumprod)(const TH_NAME(tensor) *a, int dim);
TH_API int TH_NAME(cumprod_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, int dim);
#endif


#else /* definitions */

/* ---- element helpers ---- */

/* Sums and products are carried in sum_t: accreal, but unsigned for integers, where the wrap-around the
 * result keeps (modulo 2^bits) must not be signed overflow on the way. */
#if defined(TH_REAL_IS_INTEGER) || defined(TH_REAL_IS_BOOL)
typedef uint64_t TH_PRIVATE(sum_t);
static inline TH_PRIVATE(sum_t) TH_PRIVATE(widen)(real x) { return (uint64_t)(int64_t)x; }
static inline real TH_PRIVATE(narrow_sum)(TH_PRIVATE(sum_t) s) { return TH_PRIVATE(from_i64)((int64_t)s); }
#else
typedef accreal TH_PRIVATE(sum_t);
static inline TH_PRIVATE(sum_t) TH_PRIVATE(widen)(real x) { return TH_REAL_TO_ACCREAL(x); }
static inline real TH_PRIVATE(narrow_sum)(TH_PRIVATE(sum_t) s) { return TH_ACCREAL_TO_REAL(s); }
#endif

static inline bool TH_PRIVATE(nonzero)(real x)
{
#if defined(TH_REAL_IS_REDUCED)
    return TH_REAL_TO_ACCREAL(x) != 0.0f; /* NaN != 0 */
#else
    return x != 0;
#endif
}

static inline void TH_PRIVATE(store_bool)(char *p, bool v)
{
    uint8_t byte = v;
    memcpy(p, &byte, 1);
}

static inline void TH_PRIVATE(store_index)(char *p, int64_t v) { memcpy(p, &v, sizeof v); }

/* ---- sums ---- */

/* Up to TH__PAIRWISE_BLOCK elements in 16 accumulators, combined pairwise: independent chains the
 * compiler turns into vector adds without reassociating anything itself. */
static TH__HOT TH_PRIVATE(sum_t) TH_PRIVATE(sum_leaf)(const char *p, int64_t s, int64_t n)
{
    TH_PRIVATE(sum_t) acc[16];
    for (int k = 0; k < 16; k++) acc[k] = 0;
    int64_t i = 0;
    const int64_t es = (int64_t)sizeof(real);
    if (s == es) { /* a constant stride: straight vector loads */
#if defined(TH_REAL_IS_F32)
        /* Two elements 16 apart are added in float first (one rounding of a pair, NumPy's first pairwise
         * level) and then carried in double: half the conversions, which are what this loop waits on. */
        for (; i + 32 <= n; i += 32)
            for (int k = 0; k < 16; k++)
                acc[k] += (double)(TH_PRIVATE(load)(p + (i + k) * es) + TH_PRIVATE(load)(p + (i + k + 16) * es));
#endif
        for (; i + 16 <= n; i += 16)
            for (int k = 0; k < 16; k++) acc[k] += TH_PRIVATE(widen)(TH_PRIVATE(load)(p + (i + k) * es));
    } else {
        for (; i + 16 <= n; i += 16)
            for (int k = 0; k < 16; k++) acc[k] += TH_PRIVATE(widen)(TH_PRIVATE(load)(p + (i + k) * s));
    }
    TH_PRIVATE(sum_t) tail = 0;
    for (; i < n; i++) tail += TH_PRIVATE(widen)(TH_PRIVATE(load)(p + i * s));
    for (int w = 8; w >= 1; w /= 2)
        for (int k = 0; k < w; k++) acc[k] += acc[k + w];
    return acc[0] + tail;
}

/* Pairwise summation: the rounding error grows with log(n), not n. A leaf's 16 chains each add n / 16
 * elements in order; where accreal is wider than the element (float32 in double, float16 in float, the
 * integers) long chains cost no accuracy, and long leaves cost less splitting. */
static TH_PRIVATE(sum_t) TH_PRIVATE(sum_run)(const char *p, int64_t s, int64_t n)
{
#if defined(TH_REAL_IS_F64) || defined(TH_REAL_IS_C128)
    const int64_t leaf = TH__PAIRWISE_BLOCK;
#else
    const int64_t leaf = TH__PAIRWISE_WIDE_BLOCK;
#endif
    if (n <= leaf) return TH_PRIVATE(sum_leaf)(p, s, n);
    int64_t half = n / 2;
    half -= half % 16;
    return TH_PRIVATE(sum_run)(p, s, half) + TH_PRIVATE(sum_run)(p + half * s, s, n - half);
}

/* acc[j] = the sum over r < rlen of element j of row r (rows rs bytes apart, elements sin apart). Four rows
 * at a time: fewer passes over acc, and four read streams for the prefetcher. */
static TH__HOT void TH_PRIVATE(sum_block)(const char *in, int64_t sin, int64_t rs, int64_t rlen, int64_t nb,
                                          TH_PRIVATE(sum_t) *restrict acc)
{
    const int64_t es = (int64_t)sizeof(real);
    for (int64_t j = 0; j < nb; j++) acc[j] = 0;
    int64_t r = 0;
    if (sin == es) {
        for (; r + 4 <= rlen; r += 4) {
            const char *p0 = in + r * rs, *p1 = p0 + rs, *p2 = p1 + rs, *p3 = p2 + rs;
#if defined(TH_REAL_IS_F32)
            /* As in sum_leaf: pairs of rows added in float, then carried in double (half the conversions). */
            for (int64_t j = 0; j < nb; j++)
                acc[j] += (double)(TH_PRIVATE(load)(p0 + j * es) + TH_PRIVATE(load)(p1 + j * es)) +
                          (double)(TH_PRIVATE(load)(p2 + j * es) + TH_PRIVATE(load)(p3 + j * es));
            continue;
#endif
            for (int64_t j = 0; j < nb; j++)
                acc[j] += (TH_PRIVATE(widen)(TH_PRIVATE(load)(p0 + j * es)) +
                           TH_PRIVATE(widen)(TH_PRIVATE(load)(p1 + j * es))) +
                          (TH_PRIVATE(widen)(TH_PRIVATE(load)(p2 + j * es)) +
                           TH_PRIVATE(widen)(TH_PRIVATE(load)(p3 + j * es)));
        }
    }
    for (; r < rlen; r++) {
        const char *p0 = in + r * rs;
        for (int64_t j = 0; j < nb; j++) acc[j] += TH_PRIVATE(widen)(TH_PRIVATE(load)(p0 + j * sin));
    }
}

static TH_PRIVATE(sum_t) TH_PRIVATE(prod_run)(const char *p, int64_t s, int64_t n)
{
    TH_PRIVATE(sum_t) acc = 1;
    for (int64_t i = 0; i < n; i++) acc *= TH_PRIVATE(widen)(TH_PRIVATE(load)(p + i * s));
    return acc;
}

#if !defined(TH_REAL_IS_COMPLEX)
/* ---- max and min: compared as accreal keys (|x| for norms) ---- */

static inline accreal TH_PRIVATE(key)(real x, bool absolute)
{
#if defined(TH_REAL_IS_FLOATING)
    accreal v = TH_REAL_TO_ACCREAL(x);
    return absolute ? (accreal)fabs((double)v) : v;
#else
    (void)absolute; /* norms are floating only */
    return (accreal)x;
#endif
}

static inline bool TH_PRIVATE(key_is_nan)(accreal k)
{
#if defined(TH_REAL_IS_FLOATING)
    return isnan(k);
#else
    (void)k;
    return false;
#endif
}

static inline real TH_PRIVATE(from_key)(accreal k)
{
#if defined(TH_REAL_IS_FLOATING)
    return TH_ACCREAL_TO_REAL(k); /* exact: the key is the element widened */
#else
    return TH_PRIVATE(from_i64)((int64_t)k);
#endif
}

/* Whether k replaces best: NaN wins, then the strictly larger (smaller), so ties keep the first. */
static inline bool TH_PRIVATE(better)(accreal k, accreal best, bool is_max)
{
    if (TH_PRIVATE(key_is_nan)(best)) return false;
    if (TH_PRIVATE(key_is_nan)(k)) return true;
    return is_max ? k > best : k < best;
}

/* The index of the extreme of n >= 1 elements; its key in *best. */
static TH__HOT int64_t TH_PRIVATE(extreme_run)(const char *p, int64_t s, int64_t n, bool is_max, bool absolute,
                                               accreal *best)
{
    accreal b = TH_PRIVATE(key)(TH_PRIVATE(load)(p), absolute);
    int64_t bi = 0;
    for (int64_t i = 1; i < n && !TH_PRIVATE(key_is_nan)(b); i++) {
        accreal k = TH_PRIVATE(key)(TH_PRIVATE(load)(p + i * s), absolute);
        if (TH_PRIVATE(better)(k, b, is_max)) {
            b = k;
            bi = i;
        }
    }
    *best = b;
    return bi;
}

/* The extreme of each of nb outputs whose runs are rows: key[j] and the row it came from; empty_key when
 * rlen is 0. */
static TH__HOT void TH_PRIVATE(extreme_block)(const char *in, int64_t sin, int64_t rs, int64_t rlen, int64_t nb,
                                              bool is_max, bool absolute, accreal empty_key, accreal *restrict key,
                                              int64_t *restrict index)
{
    for (int64_t j = 0; j < nb; j++) {
        key[j] = rlen > 0 ? TH_PRIVATE(key)(TH_PRIVATE(load)(in + j * sin), absolute) : empty_key;
        index[j] = 0;
    }
    for (int64_t r = 1; r < rlen; r++) {
        const char *p = in + r * rs;
        for (int64_t j = 0; j < nb; j++) {
            accreal k = TH_PRIVATE(key)(TH_PRIVATE(load)(p + j * sin), absolute);
            if (TH_PRIVATE(better)(k, key[j], is_max)) {
                key[j] = k;
                index[j] = r;
            }
        }
    }
}
#endif

#if defined(TH_REAL_IS_FLOATING)
/* ---- what each element contributes to the mapped sums (norms, var, logsumexp), in double ---- */

static inline accreal TH_PRIVATE(map)(accreal x, const th__reduce_op *op, accreal centre)
{
    double v = (double)x, c = (double)centre;
    switch (op->map) {
    case TH__MAP_ID: return x;
    case TH__MAP_ABS: return (accreal)fabs(v);
    case TH__MAP_SQUARE: return (accreal)(v * v);
    case TH__MAP_POW: return (accreal)pow(fabs(v), op->p);
    case TH__MAP_NONZERO: return v != 0.0 ? 1 : 0;
    case TH__MAP_DEV2: return (accreal)((v - c) * (v - c));
    case TH__MAP_EXP: return (accreal)exp(v - c);
    }
    return x;
}

static TH__HOT accreal TH_PRIVATE(mapped_leaf)(const char *p, int64_t s, int64_t n, const th__reduce_op *op,
                                               accreal centre)
{
    accreal acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; k++)
            acc[k] += TH_PRIVATE(map)(TH_REAL_TO_ACCREAL(TH_PRIVATE(load)(p + (i + k) * s)), op, centre);
    accreal tail = 0;
    for (; i < n; i++) tail += TH_PRIVATE(map)(TH_REAL_TO_ACCREAL(TH_PRIVATE(load)(p + i * s)), op, centre);
    return ((acc[0] + acc[4]) + (acc[2] + acc[6])) + ((acc[1] + acc[5]) + (acc[3] + acc[7])) + tail;
}

static accreal TH_PRIVATE(mapped_run)(const char *p, int64_t s, int64_t n, const th__reduce_op *op, accreal centre)
{
    if (n <= TH__PAIRWISE_BLOCK) return TH_PRIVATE(mapped_leaf)(p, s, n, op, centre);
    int64_t half = n / 2;
    half -= half % 8;
    return TH_PRIVATE(mapped_run)(p, s, half, op, centre) +
           TH_PRIVATE(mapped_run)(p + half * s, s, n - half, op, centre);
}

static TH__HOT void TH_PRIVATE(mapped_block)(const char *in, int64_t sin, int64_t rs, int64_t rlen, int64_t nb,
                                             const th__reduce_op *op, const accreal *centre, accreal *restrict acc)
{
    for (int64_t j = 0; j < nb; j++) acc[j] = 0;
    for (int64_t r = 0; r < rlen; r++) {
        const char *p = in + r * rs;
        for (int64_t j = 0; j < nb; j++)
            acc[j] += TH_PRIVATE(map)(TH_REAL_TO_ACCREAL(TH_PRIVATE(load)(p + j * sin)), op, centre[j]);
    }
}

/* The sum of n mapped elements turned into the op's result. */
static accreal TH_PRIVATE(post)(const th__reduce_op *op, accreal total, accreal centre, int64_t n)
{
    double t = (double)total;
    switch (op->post) {
    case TH__POST_NONE: return total;
    case TH__POST_MEAN: return (accreal)(t / (double)n);
    case TH__POST_SQRT: return (accreal)sqrt(t);
    case TH__POST_ROOT: return (accreal)pow(t, 1.0 / op->p);
    case TH__POST_VAR:
    case TH__POST_STD: {
        double v = t / (double)(n > op->correction ? n - op->correction : 0);
        return (accreal)(op->post == TH__POST_STD ? sqrt(v) : v);
    }
    case TH__POST_LSE: return isfinite((double)centre) ? (accreal)((double)centre + log(t)) : centre;
    }
    return total;
}

/* The centre of a run for two-pass sums: the mean (var) or the max (logsumexp; -inf when empty). */
static accreal TH_PRIVATE(centre_run)(const th__reduce_op *op, const char *p, int64_t s, int64_t n)
{
    if (op->centre == TH__CENTRE_MEAN) return n > 0 ? (accreal)((double)TH_PRIVATE(sum_run)(p, s, n) / (double)n) : 0;
    if (op->centre == TH__CENTRE_MAX && n > 0) {
        accreal k;
        TH_PRIVATE(extreme_run)(p, s, n, true, false, &k);
        return k;
    }
    return op->centre == TH__CENTRE_MAX ? (accreal)-INFINITY : 0;
}
#endif

#if defined(TH_REAL_IS_COMPLEX)
/* The one post-processing a complex sum takes: the mean. */
static inline accreal TH_PRIVATE(sum_post)(const th__reduce_op *op, accreal total, int64_t n)
{
    return op->post == TH__POST_MEAN ? total / (double)n : total;
}
#elif !defined(TH_REAL_IS_FLOATING)
static inline TH_PRIVATE(sum_t) TH_PRIVATE(sum_post)(const th__reduce_op *op, TH_PRIVATE(sum_t) total, int64_t n)
{
    (void)op, (void)n;
    return total;
}
#endif

/* ---- the row kernels the plan calls: n outputs, each reducing a run of op->rlen elements ---- */

/* The run of output j is inner (contiguous-ish) when the reduced dim has the smaller stride; otherwise
 * neighbouring outputs are accumulated together, row by row. */
static inline bool TH_PRIVATE(outer)(int64_t n, int64_t sin, int64_t rs) { return n > 1 && llabs(rs) > llabs(sin); }

static void TH_PRIVATE(sum_rows)(const th__reduce_op *op, const char *in, int64_t sin, char *out, int64_t sout,
                                 int64_t n)
{
    const int64_t rs = op->rstride[0], rlen = op->rlen;
    if (!TH_PRIVATE(outer)(n, sin, rs)) {
        for (int64_t j = 0; j < n; j++) {
            const char *p = in + j * sin;
#if defined(TH_REAL_IS_FLOATING)
            accreal c = TH_PRIVATE(centre_run)(op, p, rs, rlen);
            accreal total = op->map == TH__MAP_ID ? TH_PRIVATE(sum_run)(p, rs, rlen)
                                                  : TH_PRIVATE(mapped_run)(p, rs, rlen, op, c);
            TH_PRIVATE(store)(out + j * sout, TH_PRIVATE(narrow_sum)(TH_PRIVATE(post)(op, total, c, rlen)));
#else
            TH_PRIVATE(store)(out + j * sout,
                              TH_PRIVATE(narrow_sum)(TH_PRIVATE(sum_post)(op, TH_PRIVATE(sum_run)(p, rs, rlen), rlen)));
#endif
        }
        return;
    }
    TH_PRIVATE(sum_t) acc[TH__REDUCE_BLOCK];
#if defined(TH_REAL_IS_FLOATING)
    accreal centre[TH__REDUCE_BLOCK];
#endif
    for (int64_t j0 = 0; j0 < n; j0 += TH__REDUCE_BLOCK) {
        const int64_t nb = n - j0 < TH__REDUCE_BLOCK ? n - j0 : TH__REDUCE_BLOCK;
        const char *p = in + j0 * sin;
#if defined(TH_REAL_IS_FLOATING)
        if (op->centre == TH__CENTRE_MEAN) {
            TH_PRIVATE(sum_block)(p, sin, rs, rlen, nb, centre);
            for (int64_t j = 0; j < nb; j++) centre[j] = rlen > 0 ? (accreal)((double)centre[j] / (double)rlen) : 0;
        } else if (op->centre == TH__CENTRE_MAX) {
            int64_t unused[TH__REDUCE_BLOCK];
            TH_PRIVATE(extreme_block)(p, sin, rs, rlen, nb, true, false, (accreal)-INFINITY, centre, unused);
        } else {
            for (int64_t j = 0; j < nb; j++) centre[j] = 0;
        }
        if (op->map == TH__MAP_ID)
            TH_PRIVATE(sum_block)(p, sin, rs, rlen, nb, acc);
        else
            TH_PRIVATE(mapped_block)(p, sin, rs, rlen, nb, op, centre, acc);
        for (int64_t j = 0; j < nb; j++)
            TH_PRIVATE(store)(out + (j0 + j) * sout,
                              TH_PRIVATE(narrow_sum)(TH_PRIVATE(post)(op, acc[j], centre[j], rlen)));
#else
        TH_PRIVATE(sum_block)(p, sin, rs, rlen, nb, acc);
        for (int64_t j = 0; j < nb; j++)
            TH_PRIVATE(store)(out + (j0 + j) * sout, TH_PRIVATE(narrow_sum)(TH_PRIVATE(sum_post)(op, acc[j], rlen)));
#endif
    }
}

static void TH_PRIVATE(prod_rows)(const th__reduce_op *op, const char *in, int64_t sin, char *out, int64_t sout,
                                  int64_t n)
{
    const int64_t rs = op->rstride[0], rlen = op->rlen;
    if (!TH_PRIVATE(outer)(n, sin, rs)) {
        for (int64_t j = 0; j < n; j++)
            TH_PRIVATE(store)(out + j * sout, TH_PRIVATE(narrow_sum)(TH_PRIVATE(prod_run)(in + j * sin, rs, rlen)));
        return;
    }
    TH_PRIVATE(sum_t) acc[TH__REDUCE_BLOCK];
    for (int64_t j0 = 0; j0 < n; j0 += TH__REDUCE_BLOCK) {
        const int64_t nb = n - j0 < TH__REDUCE_BLOCK ? n - j0 : TH__REDUCE_BLOCK;
        const char *p = in + j0 * sin;
        for (int64_t j = 0; j < nb; j++) acc[j] = 1;
        for (int64_t r = 0; r < rlen; r++)
            for (int64_t j = 0; j < nb; j++) acc[j] *= TH_PRIVATE(widen)(TH_PRIVATE(load)(p + r * rs + j * sin));
        for (int64_t j = 0; j < nb; j++) TH_PRIVATE(store)(out + (j0 + j) * sout, TH_PRIVATE(narrow_sum)(acc[j]));
    }
}

static void TH_PRIVATE(bool_rows)(const th__reduce_op *op, const char *in, int64_t sin, char *out, int64_t sout,
                                  int64_t n)
{
    const int64_t rs = op->rstride[0], rlen = op->rlen;
    const bool every = op->kind == TH__RED_ALL;
    if (!TH_PRIVATE(outer)(n, sin, rs)) {
        for (int64_t j = 0; j < n; j++) {
            bool v = every;
            for (int64_t r = 0; r < rlen && v == every; r++)
                v = TH_PRIVATE(nonzero)(TH_PRIVATE(load)(in + j * sin + r * rs));
            TH_PRIVATE(store_bool)(out + j * sout, v);
        }
        return;
    }
    bool acc[TH__REDUCE_BLOCK];
    for (int64_t j0 = 0; j0 < n; j0 += TH__REDUCE_BLOCK) {
        const int64_t nb = n - j0 < TH__REDUCE_BLOCK ? n - j0 : TH__REDUCE_BLOCK;
        const char *p = in + j0 * sin;
        for (int64_t j = 0; j < nb; j++) acc[j] = every;
        for (int64_t r = 0; r < rlen; r++)
            for (int64_t j = 0; j < nb; j++) {
                bool nz = TH_PRIVATE(nonzero)(TH_PRIVATE(load)(p + r * rs + j * sin));
                acc[j] = every ? acc[j] && nz : acc[j] || nz;
            }
        for (int64_t j = 0; j < nb; j++) TH_PRIVATE(store_bool)(out + (j0 + j) * sout, acc[j]);
    }
}

#if !defined(TH_REAL_IS_COMPLEX)
/* data[1] receives the values (when op->has_value) and the next slot the indices (when op->has_index). */
static void TH_PRIVATE(extreme_rows)(const th__reduce_op *op, char **data, const int64_t *strides, int64_t n)
{
    const char *in = data[0];
    const int64_t sin = strides[0], rs = op->rstride[0], rlen = op->rlen;
    const bool is_max = op->kind == TH__RED_MAX, absolute = op->map == TH__MAP_ABS;
    char *vals = op->has_value ? data[1] : NULL, *idxs = op->has_index ? data[1 + op->has_value] : NULL;
    const int64_t sv = op->has_value ? strides[1] : 0, si = op->has_index ? strides[1 + op->has_value] : 0;
    if (!TH_PRIVATE(outer)(n, sin, rs)) {
        for (int64_t j = 0; j < n; j++) {
            accreal k = 0; /* the max of no |x| is 0: the only empty case that gets here */
            int64_t i = rlen > 0 ? TH_PRIVATE(extreme_run)(in + j * sin, rs, rlen, is_max, absolute, &k) : 0;
            if (vals) TH_PRIVATE(store)(vals + j * sv, TH_PRIVATE(from_key)(k));
            if (idxs) TH_PRIVATE(store_index)(idxs + j * si, i);
        }
        return;
    }
    accreal key[TH__REDUCE_BLOCK];
    int64_t index[TH__REDUCE_BLOCK];
    for (int64_t j0 = 0; j0 < n; j0 += TH__REDUCE_BLOCK) {
        const int64_t nb = n - j0 < TH__REDUCE_BLOCK ? n - j0 : TH__REDUCE_BLOCK;
        TH_PRIVATE(extreme_block)(in + j0 * sin, sin, rs, rlen, nb, is_max, absolute, 0, key, index);
        for (int64_t j = 0; j < nb; j++) {
            if (vals) TH_PRIVATE(store)(vals + (j0 + j) * sv, TH_PRIVATE(from_key)(key[j]));
            if (idxs) TH_PRIVATE(store_index)(idxs + (j0 + j) * si, index[j]);
        }
    }
}
#endif

/* Scans: output r of a run is the running total of inputs 0..r (op->rstride[1] steps the output). */
static void TH_PRIVATE(scan_rows)(const th__reduce_op *op, const char *in, int64_t sin, char *out, int64_t sout,
                                  int64_t n)
{
    const int64_t rs = op->rstride[0], ros = op->rstride[1], rlen = op->rlen;
    const bool add = op->kind == TH__RED_CUMSUM;
    if (!TH_PRIVATE(outer)(n, sin, rs)) {
        for (int64_t j = 0; j < n; j++) {
            TH_PRIVATE(sum_t) acc = add ? 0 : 1;
            for (int64_t r = 0; r < rlen; r++) {
                TH_PRIVATE(sum_t) x = TH_PRIVATE(widen)(TH_PRIVATE(load)(in + j * sin + r * rs));
                acc = add ? acc + x : acc * x;
                TH_PRIVATE(store)(out + j * sout + r * ros, TH_PRIVATE(narrow_sum)(acc));
            }
        }
        return;
    }
    TH_PRIVATE(sum_t) acc[TH__REDUCE_BLOCK];
    for (int64_t j0 = 0; j0 < n; j0 += TH__REDUCE_BLOCK) {
        const int64_t nb = n - j0 < TH__REDUCE_BLOCK ? n - j0 : TH__REDUCE_BLOCK;
        for (int64_t j = 0; j < nb; j++) acc[j] = add ? 0 : 1;
        for (int64_t r = 0; r < rlen; r++) {
            const char *p = in + j0 * sin + r * rs;
            char *q = out + j0 * sout + r * ros;
            for (int64_t j = 0; j < nb; j++) {
                TH_PRIVATE(sum_t) x = TH_PRIVATE(widen)(TH_PRIVATE(load)(p + j * sin));
                acc[j] = add ? acc[j] + x : acc[j] * x;
                TH_PRIVATE(store)(q + j * sout, TH_PRIVATE(narrow_sum)(acc[j]));
            }
        }
    }
}

#if defined(TH_REAL_IS_COMPLEX)
/* ---- norms of complex tensors: magnitudes in double, results in the real dtype of the same precision ---- */

static inline double TH_PRIVATE(cmap)(real z, const th__reduce_op *op)
{
    const th_complex128 w = TH_PRIVATE(to_c128)(z);
    const double re = th__c128_real(w), im = th__c128_imag(w);
    switch (op->map) {
    case TH__MAP_SQUARE: return re * re + im * im;
    case TH__MAP_POW: return pow(hypot(re, im), op->p);
    case TH__MAP_NONZERO: return re != 0.0 || im != 0.0 ? 1.0 : 0.0;
    default: return hypot(re, im);
    }
}

static double TH_PRIVATE(cmapped_run)(const char *p, int64_t s, int64_t n, const th__reduce_op *op)
{
    if (n > TH__PAIRWISE_BLOCK) {
        int64_t half = n / 2;
        return TH_PRIVATE(cmapped_run)(p, s, half, op) + TH_PRIVATE(cmapped_run)(p + half * s, s, n - half, op);
    }
    double acc[4] = {0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 4 <= n; i += 4)
        for (int k = 0; k < 4; k++) acc[k] += TH_PRIVATE(cmap)(TH_PRIVATE(load)(p + (i + k) * s), op);
    for (; i < n; i++) acc[0] += TH_PRIVATE(cmap)(TH_PRIVATE(load)(p + i * s), op);
    return (acc[0] + acc[1]) + (acc[2] + acc[3]);
}

/* Whether magnitude m replaces best: NaN wins, then the strictly larger (smaller). */
static inline bool TH_PRIVATE(cbetter)(double m, double best, bool is_max)
{
    if (isnan(best)) return false;
    if (isnan(m)) return true;
    return is_max ? m > best : m < best;
}

static inline double TH_PRIVATE(cpost)(const th__reduce_op *op, double total)
{
    if (op->post == TH__POST_SQRT) return sqrt(total);
    if (op->post == TH__POST_ROOT) return pow(total, 1.0 / op->p);
    return total;
}

static inline void TH_PRIVATE(store_magnitude)(char *p, double v)
{
#if defined(TH_REAL_IS_C64)
    float f = (float)v;
    memcpy(p, &f, sizeof f);
#else
    memcpy(p, &v, sizeof v);
#endif
}

/* A norm (a sum of mapped magnitudes, or the max / min magnitude) of each of n outputs: blocks of
 * neighbouring outputs when the reduced dim is the outer one, else one output at a time. */
static void TH_PRIVATE(cnorm_rows)(const th__reduce_op *op, const char *in, int64_t sin, char *out, int64_t sout,
                                   int64_t n)
{
    const int64_t rs = op->rstride[0], rlen = op->rlen;
    const bool extreme = op->kind != TH__RED_SUM, is_max = op->kind == TH__RED_MAX;
    const int64_t block = TH_PRIVATE(outer)(n, sin, rs) ? TH__REDUCE_BLOCK : 1;
    double acc[TH__REDUCE_BLOCK];
    for (int64_t j0 = 0; j0 < n; j0 += block) {
        const int64_t nb = n - j0 < block ? n - j0 : block;
        const char *p = in + j0 * sin;
        if (!extreme && nb == 1) { /* one output: its own pairwise run */
            double total = TH_PRIVATE(cmapped_run)(p, rs, rlen, op);
            TH_PRIVATE(store_magnitude)(out + j0 * sout, TH_PRIVATE(cpost)(op, total));
            continue;
        }
        for (int64_t j = 0; j < nb; j++)
            acc[j] = extreme && rlen > 0 ? TH_PRIVATE(cmap)(TH_PRIVATE(load)(p + j * sin), op) : 0;
        for (int64_t r = extreme ? 1 : 0; r < rlen; r++)
            for (int64_t j = 0; j < nb; j++) {
                double m = TH_PRIVATE(cmap)(TH_PRIVATE(load)(p + r * rs + j * sin), op);
                if (!extreme) acc[j] += m;
                else if (TH_PRIVATE(cbetter)(m, acc[j], is_max)) acc[j] = m;
            }
        for (int64_t j = 0; j < nb; j++)
            TH_PRIVATE(store_magnitude)(out + (j0 + j) * sout, extreme ? acc[j] : TH_PRIVATE(cpost)(op, acc[j]));
    }
}
#endif

static void TH_PRIVATE(reduce_row)(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    const th__reduce_op *op = (const th__reduce_op *)ctx;
#if defined(TH_REAL_IS_COMPLEX)
    if (op->map != TH__MAP_ID) { /* norms */
        TH_PRIVATE(cnorm_rows)(op, data[0], strides[0], data[1], strides[1], n);
        return;
    }
#endif
    switch (op->kind) {
    case TH__RED_SUM: TH_PRIVATE(sum_rows)(op, data[0], strides[0], data[1], strides[1], n); break;
    case TH__RED_PROD: TH_PRIVATE(prod_rows)(op, data[0], strides[0], data[1], strides[1], n); break;
    case TH__RED_ALL:
    case TH__RED_ANY: TH_PRIVATE(bool_rows)(op, data[0], strides[0], data[1], strides[1], n); break;
    case TH__RED_CUMSUM:
    case TH__RED_CUMPROD: TH_PRIVATE(scan_rows)(op, data[0], strides[0], data[1], strides[1], n); break;
    case TH__RED_MAX:
    case TH__RED_MIN:
#if !defined(TH_REAL_IS_COMPLEX)
        TH_PRIVATE(extreme_rows)(op, data, strides, n);
#endif
        break;
    }
}

/* ---- full reductions: chunks of the element order, one per thread, combined in order ---- */

typedef struct TH_PRIVATE(part) {
    TH_PRIVATE(sum_t) sum;
    accreal key;   /* max / min */
    int64_t index; /* of key, in the engine's element order */
    int64_t seen;  /* elements before the next row */
    bool has_key;
    bool flag;     /* all / any */
} TH_PRIVATE(part);

typedef struct TH_PRIVATE(all_job) {
    const th__iter *it;
    const th__reduce_op *op;
    accreal centre;
    int nthreads;
    TH_PRIVATE(part) parts[TH__REDUCE_MAX_PARTS];
} TH_PRIVATE(all_job);

typedef struct TH_PRIVATE(all_ctx) {
    const TH_PRIVATE(all_job) *job;
    TH_PRIVATE(part) *part;
} TH_PRIVATE(all_ctx);

static void TH_PRIVATE(all_row)(char **data, const int64_t *strides, int64_t n, void *ctx)
{
    const TH_PRIVATE(all_ctx) *c = (const TH_PRIVATE(all_ctx) *)ctx;
    const th__reduce_op *op = c->job->op;
    TH_PRIVATE(part) *pt = c->part;
    const char *p = data[0];
    const int64_t s = strides[0];
    switch (op->kind) {
    case TH__RED_SUM:
#if defined(TH_REAL_IS_FLOATING)
        if (op->map != TH__MAP_ID) {
            pt->sum += TH_PRIVATE(mapped_run)(p, s, n, op, c->job->centre);
            break;
        }
#endif
        pt->sum += TH_PRIVATE(sum_run)(p, s, n);
        break;
    case TH__RED_PROD: pt->sum *= TH_PRIVATE(prod_run)(p, s, n); break;
    case TH__RED_ALL:
        for (int64_t i = 0; i < n && pt->flag; i++) pt->flag = TH_PRIVATE(nonzero)(TH_PRIVATE(load)(p + i * s));
        break;
    case TH__RED_ANY:
        for (int64_t i = 0; i < n && !pt->flag; i++) pt->flag = TH_PRIVATE(nonzero)(TH_PRIVATE(load)(p + i * s));
        break;
    case TH__RED_MAX:
    case TH__RED_MIN: {
#if !defined(TH_REAL_IS_COMPLEX)
        const bool is_max = op->kind == TH__RED_MAX;
        accreal k;
        int64_t i = TH_PRIVATE(extreme_run)(p, s, n, is_max, op->map == TH__MAP_ABS, &k);
        if (!pt->has_key || TH_PRIVATE(better)(k, pt->key, is_max)) {
            pt->key = k;
            pt->index = pt->seen + i;
            pt->has_key = true;
        }
#endif
        break;
    }
    case TH__RED_CUMSUM:
    case TH__RED_CUMPROD: break; /* not full reductions */
    }
    pt->seen += n;
}

static void TH_PRIVATE(all_chunk)(void *ctx, int64_t begin, int64_t end)
{
    TH_PRIVATE(all_job) *job = (TH_PRIVATE(all_job) *)ctx;
    TH_PRIVATE(part) *pt = &job->parts[th__reduce_part_of(job->it->numel, job->nthreads, begin)];
    pt->sum = job->op->kind == TH__RED_PROD ? 1 : 0;
    pt->key = 0;
    pt->index = 0;
    pt->seen = begin;
    pt->has_key = false;
    pt->flag = job->op->kind == TH__RED_ALL;
    TH_PRIVATE(all_ctx) c = {job, pt};
    th__iter_for_range(job->it, begin, end, TH_PRIVATE(all_row), &c);
}

/* The whole iteration reduced: each thread's part, then the parts combined first to last, so the result
 * depends on the thread count only through where the float sums are split. */
static TH_PRIVATE(part) TH_PRIVATE(reduce_all)(const th__iter *it, const th__reduce_op *op, accreal centre)
{
    TH_PRIVATE(all_job) job;
    job.it = it;
    job.op = op;
    job.centre = centre;
    job.nthreads = th__reduce_all_threads(it->numel);
    th__parallel_chunks(it->numel, job.nthreads, TH_PRIVATE(all_chunk), &job);
    TH_PRIVATE(part) r = job.parts[0];
    for (int i = 1; i < job.nthreads; i++) {
        const TH_PRIVATE(part) *q = &job.parts[i];
        switch (op->kind) {
        case TH__RED_SUM: r.sum += q->sum; break;
        case TH__RED_PROD: r.sum *= q->sum; break;
        case TH__RED_ALL: r.flag = r.flag && q->flag; break;
        case TH__RED_ANY: r.flag = r.flag || q->flag; break;
        case TH__RED_MAX:
        case TH__RED_MIN:
#if !defined(TH_REAL_IS_COMPLEX)
            if (q->has_key && (!r.has_key || TH_PRIVATE(better)(q->key, r.key, op->kind == TH__RED_MAX))) r = *q;
#endif
            break;
        case TH__RED_CUMSUM:
        case TH__RED_CUMPROD: break;
        }
    }
    return r;
}

/* A full reduction of a into a 0-d tensor: the index (int64) when want_index, a bool for all / any, else a
 * value of a's dtype. The result is out (checked first, then retained) or, when out is NULL, a new tensor.
 * Every element of a is read before out is written, so out may overlap a. */
static th_tensor *TH_PRIVATE(reduce_full)(const char *fn, th_tensor *out, const TH_NAME(tensor) *a,
                                          const th__reduce_op *op, bool want_index)
{
    const bool is_bool = op->kind == TH__RED_ALL || op->kind == TH__RED_ANY;
    const th_dtype result_dtype = want_index ? TH_I64 : is_bool ? TH_BOOL : TH_DT_ENUM;
    if (out && th__check_out(fn, out, result_dtype, 0, NULL)) return NULL;
    th__iter it;
    th_tensor *src;
    if (th__reduce_all_iter(fn, TH__B(a), want_index, &it, &src)) return NULL;
    const int64_t n = it.numel;
    if (n == 0 && !th__reduce_has_identity(op)) {
        char shape[160];
        th__shape_string(src->ndim, src->sizes, shape, sizeof shape);
        th__fail(TH_ERR_SHAPE, fn, "cannot reduce a tensor of shape %s with no elements: the op has no identity",
                 shape);
        th_tensor_release(src);
        return NULL;
    }
    accreal centre = 0;
#if defined(TH_REAL_IS_FLOATING)
    if (op->centre != TH__CENTRE_NONE) {
        th__reduce_op first = {.kind = op->centre == TH__CENTRE_MEAN ? TH__RED_SUM : TH__RED_MAX};
        TH_PRIVATE(part) c = TH_PRIVATE(reduce_all)(&it, &first, 0);
        if (op->centre == TH__CENTRE_MEAN) centre = n > 0 ? (accreal)((double)c.sum / (double)n) : 0;
        else centre = c.has_key ? c.key : (accreal)-INFINITY;
    }
#endif
    TH_PRIVATE(part) r = TH_PRIVATE(reduce_all)(&it, op, centre);
    th_tensor_release(src);
    th_tensor *t = out ? th_tensor_retain(out) : th__tensor_empty(fn, result_dtype, 0, NULL);
    if (!t) return NULL;
    char *dst = (char *)th_tensor_data(t);
    if (want_index) {
        TH_PRIVATE(store_index)(dst, r.index);
    } else if (is_bool) {
        TH_PRIVATE(store_bool)(dst, r.flag);
    } else if (op->kind == TH__RED_MAX || op->kind == TH__RED_MIN) {
#if !defined(TH_REAL_IS_COMPLEX)
        TH_PRIVATE(store)(dst, TH_PRIVATE(from_key)(r.has_key ? r.key : 0));
#endif
    } else {
#if defined(TH_REAL_IS_FLOATING)
        TH_PRIVATE(store)(dst, TH_PRIVATE(narrow_sum)(TH_PRIVATE(post)(op, r.sum, centre, n)));
#else
        TH_PRIVATE(store)(dst, TH_PRIVATE(narrow_sum)(TH_PRIVATE(sum_post)(op, r.sum, n)));
#endif
    }
    return t;
}

/* ---- the scans ---- */

#if !defined(TH_REAL_IS_BOOL)
/* A running sum or product along dim into out (NULL: a new tensor); fn names the public function. */
static th_tensor *TH_PRIVATE(scan)(const char *fn, th_tensor *out, const TH_NAME(tensor) *a, int dim, bool product)
{
    if (th__dtype_mismatch(fn, "a", TH__B(a), TH_DT_ENUM)) return NULL;
    th__reduce_op op = {.kind = product ? TH__RED_CUMPROD : TH__RED_CUMSUM};
    op.name = product ? "cumprod" : "cumsum";
    return th__reduce_scan(fn, out, TH__B(a), dim, &op, TH_PRIVATE(reduce_row));
}

/* The same into out, which must be given: 0 or the status. */
static int TH_PRIVATE(scan_out)(const char *fn, TH_NAME(tensor) *out, const TH_NAME(tensor) *a, int dim, bool product)
{
    if (th__dtype_mismatch(fn, "a", TH__B(a), TH_DT_ENUM)) return TH_ERR_DTYPE;
    if (!out) return th__fail(TH_ERR_INVALID, fn, "NULL out");
    return th__status_of(TH_PRIVATE(scan)(fn, TH__B(out), a, dim, product));
}

TH_API TH_NAME(tensor) *TH_NAME(cumsum)(const TH_NAME(tensor) *a, int dim)
{
    return TH__T(TH_PRIVATE(scan)(TH__FN(cumsum), NULL, a, dim, false));
}

TH_API int TH_NAME(cumsum_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, int dim)
{
    return TH_PRIVATE(scan_out)(TH__FN(cumsum_out), out, a, dim, false);
}

TH_API TH_NAME(tensor) *TH_NAME(cumprod)(const TH_NAME(tensor) *a, int dim)
{
    return TH__T(TH_PRIVATE(scan)(TH__FN(cumprod), NULL, a, dim, true));
}

TH_API int TH_NAME(cumprod_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *a, int dim)
{
    return TH_PRIVATE(scan_out)(TH__FN(cumprod_out), out, a, dim, true);
}
#endif

/* ---- what the reductions' template (reduce_op.h) calls ---- */

/* Every element as the one dim of the flattened tensor (on one thread), into out (NULL: new) of value_dtype:
 * for reductions whose result has another dtype than the whole-tensor path writes (complex norms). */
TH__MAYBE_UNUSED static th_tensor *TH_PRIVATE(flat_all)(const char *fn, th_tensor *out, const TH_NAME(tensor) *a,
                                                        th__reduce_op *op, th_dtype value_dtype)
{
    if (!a) {
        th__fail(TH_ERR_INVALID, fn, "NULL tensor");
        return NULL;
    }
    int64_t n = th__numel(TH__B(a));
    th_tensor *flat = th__reshape(fn, TH__B(a), 1, &n);
    if (!flat) return NULL;
    th_tensor *res = NULL;
    th__reduce_dim(fn, flat, 0, false, op, TH_PRIVATE(reduce_row), value_dtype, out, &res, NULL, NULL);
    th_tensor_release(flat);
    return res;
}

#if defined(TH_REAL_IS_FLOATING) || defined(TH_REAL_IS_COMPLEX)
/* The norm of order p as a reduction, or false (with the error recorded) for a NaN p. */
static bool TH_PRIVATE(norm_op)(const char *fn, double p, th__reduce_op *op)
{
    if (isnan(p)) {
        th__fail(TH_ERR_INVALID, fn, "the order p is NaN");
        return false;
    }
    if (isinf(p)) *op = (th__reduce_op){.kind = p > 0 ? TH__RED_MAX : TH__RED_MIN, .map = TH__MAP_ABS};
    else if (p == 0.0) *op = (th__reduce_op){.kind = TH__RED_SUM, .map = TH__MAP_NONZERO};
    else if (p == 1.0) *op = (th__reduce_op){.kind = TH__RED_SUM, .map = TH__MAP_ABS};
    else if (p == 2.0) *op = (th__reduce_op){.kind = TH__RED_SUM, .map = TH__MAP_SQUARE, .post = TH__POST_SQRT};
    else *op = (th__reduce_op){.kind = TH__RED_SUM, .map = TH__MAP_POW, .post = TH__POST_ROOT, .p = p};
    op->p = p; /* read only by the general order's map and root, and by a device's companion, told the order */
    return true;
}
#endif

#if defined(TH_REAL_IS_FLOATING)
/* var and std: the op, or false (with the error recorded) for a negative correction. */
static bool TH_PRIVATE(var_op)(const char *fn, int64_t correction, bool std, th__reduce_op *op)
{
    if (correction < 0) {
        th__fail(TH_ERR_INVALID, fn, "correction %lld is negative", (long long)correction);
        return false;
    }
    *op = (th__reduce_op){.kind = TH__RED_SUM,
                          .map = TH__MAP_DEV2,
                          .post = std ? TH__POST_STD : TH__POST_VAR,
                          .centre = TH__CENTRE_MEAN,
                          .correction = correction};
    return true;
}
#endif

#endif /* definitions */

/* ---- the reductions: each stamps reduce_op.h's four front doors (_all, _all_out, _dim, _dim_out) ---- */

#if !defined(TH_REAL_IS_BOOL)
/* Sum and product in this dtype, accumulated in accreal (integers: modulo 2^64, so the result wraps
 * modulo 2^bits like the dtype's own arithmetic; floating: pairwise, as NumPy). Empty: 0 and 1. */
#define TH_OP sum
#define TH_RED_OP {.kind = TH__RED_SUM}
#include "reduce_op.h"
#define TH_OP prod
#define TH_RED_OP {.kind = TH__RED_PROD}
#include "reduce_op.h"
#endif

#if defined(TH_REAL_IS_FLOATING) || defined(TH_REAL_IS_COMPLEX)
/* The mean (NaN for no elements; complex: summed in complex double, NaN + NaN i for none). Floating sums
 * divide by n in post(), complex ones in sum_post(). */
#define TH_OP mean
#define TH_RED_OP {.kind = TH__RED_SUM, .post = TH__POST_MEAN}
#include "reduce_op.h"
#endif

#if defined(TH_REAL_IS_FLOATING)
/* Variance and standard deviation, two-pass: sum((x - mean)^2) / max(0, n - correction); correction 1 is
 * the unbiased estimate, 0 the population one. A divisor of 0 gives NaN or infinity, as in PyTorch.
 * Errors also: a negative correction (TH_ERR_INVALID). var_dim(a, dim, correction, keepdim). */
#define TH_OP var
#define TH_RED_EXTRA int64_t correction
#define TH_RED_MAKE(fn, op) TH_PRIVATE(var_op)(fn, correction, false, op)
#include "reduce_op.h"
#define TH_OP std
#define TH_RED_EXTRA int64_t correction
#define TH_RED_MAKE(fn, op) TH_PRIVATE(var_op)(fn, correction, true, op)
#include "reduce_op.h"
/* log(sum(exp(x))) without overflow: max + log(sum(exp(x - max))); -inf for no elements. */
#define TH_OP logsumexp
#define TH_RED_OP {.kind = TH__RED_SUM, .map = TH__MAP_EXP, .post = TH__POST_LSE, .centre = TH__CENTRE_MAX}
#include "reduce_op.h"
/* The vector p-norm: p = 0 counts nonzeros, INFINITY is max |x|, -INFINITY min |x|, else
 * (sum |x|^p)^(1/p). Empty: 0 (p = -INFINITY: TH_ERR_SHAPE, it has no identity). Errors also: NaN p
 * (TH_ERR_INVALID). norm_dim(a, p, dim, keepdim). */
#define TH_OP norm
#define TH_RED_EXTRA double p
#define TH_RED_EXTRA_FIRST
#define TH_RED_MAKE(fn, op) TH_PRIVATE(norm_op)(fn, p, op)
#include "reduce_op.h"
#endif

#if defined(TH_REAL_IS_COMPLEX)
/* The p-norm of the magnitudes |z|, as for floating, in the real dtype of the same precision (c64: f32,
 * c128: f64). */
#define TH_OP norm
#define TH_RED_EXTRA double p
#define TH_RED_EXTRA_FIRST
#define TH_RED_MAKE(fn, op) TH_PRIVATE(norm_op)(fn, p, op)
#if defined(TH_REAL_IS_C64)
#define TH_RED_RESULT th_f32_tensor
#define TH_RED_RESULT_DT TH_F32
#else
#define TH_RED_RESULT th_f64_tensor
#define TH_RED_RESULT_DT TH_F64
#endif
#define TH_RED_FLAT_ALL
#include "reduce_op.h"
#endif

#if !defined(TH_REAL_IS_COMPLEX)
/* The largest / smallest element; NaN wins (the first NaN), as in NumPy. Indices count along dim (_all:
 * the row-major position) and name the first occurrence. In max_dim(a, dim, keepdim, indices), indices may
 * be NULL (values only); on success *indices is a new int64 tensor of the values' shape, on error NULL. In
 * max_dim_out(out, indices_out, a, dim, keepdim), indices_out may be NULL. Errors also: no elements to
 * reduce (TH_ERR_SHAPE: min and max have no identity). */
#define TH_OP max
#define TH_RED_OP {.kind = TH__RED_MAX}
#define TH_RED_WITH_INDICES
#include "reduce_op.h"
#define TH_OP min
#define TH_RED_OP {.kind = TH__RED_MIN}
#define TH_RED_WITH_INDICES
#include "reduce_op.h"
/* The indices alone (int64). */
#define TH_OP argmax
#define TH_RED_OP {.kind = TH__RED_MAX}
#define TH_RED_INDEX
#include "reduce_op.h"
#define TH_OP argmin
#define TH_RED_OP {.kind = TH__RED_MIN}
#define TH_RED_INDEX
#include "reduce_op.h"
#endif

/* Whether every / any element is nonzero (NaN counts as nonzero; complex: either part), as bool. Empty:
 * true / false. */
#define TH_OP all
#define TH_RED_OP {.kind = TH__RED_ALL}
#define TH_RED_RESULT th_bool_tensor
#define TH_RED_RESULT_DT TH_BOOL
#include "reduce_op.h"
#define TH_OP any
#define TH_RED_OP {.kind = TH__RED_ANY}
#define TH_RED_RESULT th_bool_tensor
#define TH_RED_RESULT_DT TH_BOOL
#include "reduce_op.h"
