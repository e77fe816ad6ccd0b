/* ops/random_erased.h: the random generator (Philox4x32-10) and the dtype-independent parts of the
 * samplers. Included twice by tensor.h: the declarations in the public part, the definitions (with
 * TH__DEFINING) in the implementation. The per-dtype samplers are in ops/random.h. */
#ifndef TH__DEFINING

/* ==== th: random numbers =================================================================== */

/* A generator is a 64-bit seed (Philox's key) and a 64-bit offset (how many 128-bit blocks have been used).
 * Element i of a draw that starts at offset o is computed from Philox4x32-10(key = seed, counter = o + i)
 * alone, so a draw gives the same numbers whatever the thread count and however it is split. Each draw
 * advances the offset by the blocks it used (one per element for the elementwise samplers; see each
 * sampler). The state is the pair (seed, offset): saving it and setting it back replays the same numbers.
 * A generator may be shared between threads: the offset is reserved atomically, so concurrent draws get
 * disjoint blocks (which thread gets which is up to the scheduler). */
typedef struct th_generator th_generator;

typedef struct th_generator_state {
    uint64_t seed;
    uint64_t offset; /* in 128-bit blocks; wraps after 2^64 */
} th_generator_state;

/* A new generator with offset 0; NULL (TH_ERR_NOMEM) on out of memory. */
TH_API th_generator *th_generator_new(uint64_t seed);
/* NULL is a no-op. Never free th_default_generator(). */
TH_API void th_generator_free(th_generator *gen);
/* The process-wide generator that every sampler uses when passed NULL. It starts as if seeded with 0.
 * Process-wide (not thread-local) so that th_manual_seed makes a whole program reproducible and worker
 * threads do not all draw the same numbers; its offset is atomic, so threads may draw at the same time. */
TH_API th_generator *th_default_generator(void);
/* Seeds the default generator and sets its offset to 0. */
TH_API void th_manual_seed(uint64_t seed);
/* Sets the seed and the offset to 0 (NULL: the default generator). */
TH_API void th_generator_set_seed(th_generator *gen, uint64_t seed);
/* The seed (NULL: the default generator's). */
TH_API uint64_t th_generator_seed(const th_generator *gen);
/* The state, to restore later with th_generator_set_state (NULL: the default generator). */
TH_API th_generator_state th_generator_get_state(const th_generator *gen);
TH_API void th_generator_set_state(th_generator *gen, th_generator_state state);
/* One Philox4x32-10 block: out = the 10-round bijection of counter under key (Salmon et al., "Parallel random
 * numbers: as easy as 1, 2, 3", SC 2011). Exposed so a draw can be reproduced outside the library. */
TH_API void th_philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4]);

#else /* TH__DEFINING */

/* ---- th__ random numbers ----------------------------------------------------------------- */

/* The block arithmetic and the samplers' transforms, shared with device kernels. */
#include "philox.h"

/* th__tensor_empty for a result the op writes on the host: the thread's default allocator may hand out device
 * memory. (create.h and sort.h use it too.) */
TH__MAYBE_UNUSED static th_tensor *th__tensor_empty_host(const char *fn, th_dtype dtype, int ndim, const int64_t *sizes)
{
    th_tensor *t = th__tensor_empty(fn, dtype, ndim, sizes);
    if (t && !th_device_is_host(t->storage->device)) {
        th__fail(TH_ERR_DEVICE, fn, "the default allocator's memory is on device type %d, which the host cannot write",
                 (int)t->storage->device.type);
        th_tensor_release(t);
        return NULL;
    }
    return t;
}

struct th_generator {
    _Atomic uint64_t seed;
    _Atomic uint64_t offset;
};

/* Static storage starts at zero: seed 0, offset 0. */
static th_generator th__default_gen;

TH_API th_generator *th_generator_new(uint64_t seed)
{
    th_generator *g = (th_generator *)malloc(sizeof *g);
    if (!g) {
        th__fail(TH_ERR_NOMEM, "th_generator_new", "out of memory");
        return NULL;
    }
    atomic_init(&g->seed, seed);
    atomic_init(&g->offset, 0);
    return g;
}

TH_API void th_generator_free(th_generator *gen)
{
    if (gen != &th__default_gen) free(gen);
}

TH_API th_generator *th_default_generator(void) { return &th__default_gen; }

TH__MAYBE_UNUSED static th_generator *th__gen(const th_generator *gen) { return gen ? (th_generator *)gen : &th__default_gen; }

TH_API void th_generator_set_seed(th_generator *gen, uint64_t seed)
{
    gen = th__gen(gen);
    atomic_store(&gen->seed, seed);
    atomic_store(&gen->offset, 0);
}

TH_API void th_manual_seed(uint64_t seed) { th_generator_set_seed(NULL, seed); }

TH_API uint64_t th_generator_seed(const th_generator *gen) { return atomic_load(&th__gen(gen)->seed); }

TH_API th_generator_state th_generator_get_state(const th_generator *gen)
{
    th_generator *g = th__gen(gen);
    th_generator_state s;
    s.seed = atomic_load(&g->seed);
    s.offset = atomic_load(&g->offset);
    return s;
}

TH_API void th_generator_set_state(th_generator *gen, th_generator_state state)
{
    gen = th__gen(gen);
    atomic_store(&gen->seed, state.seed);
    atomic_store(&gen->offset, state.offset);
}

/* Reserves nblocks blocks of gen (NULL: the default) for one draw. */
TH__MAYBE_UNUSED static th__philox_stream th__gen_reserve(th_generator *gen, uint64_t nblocks)
{
    th_generator *g = th__gen(gen);
    uint64_t seed = atomic_load(&g->seed);
    return th__philox_stream_of(seed, atomic_fetch_add(&g->offset, nblocks));
}

TH_API void th_philox4x32_10(const uint32_t counter[4], const uint32_t key[2], uint32_t out[4])
{
    th__philox4x32_10(counter, key, out);
}

/* Fills elements begin..end-1 of a contiguous tensor: the per-dtype samplers hand this a kernel. */
typedef void (*th__rand_kernel)(const void *params, const th__philox_stream *s, char *data, int64_t begin,
                                int64_t end);

typedef struct th__rand_job {
    th__rand_kernel kernel;
    const void *params;
    th__philox_stream stream;
    char *data;
} th__rand_job;

TH__MAYBE_UNUSED static void th__rand_job_run(void *job_, int64_t begin, int64_t end)
{
    const th__rand_job *job = (const th__rand_job *)job_;
    job->kernel(job->params, &job->stream, job->data, begin, end);
}

/* What a sampler's kernel needs besides the stream: two doubles (bounds, mean and std, ...), the largest
 * value of the dtype below a uniform's hi, and randint's lower bound and range. */
typedef struct th__rand_params {
    double a, b, top;
    int64_t lo;
    uint64_t range;
} th__rand_params;

/* A draw into device memory (t checked by th__rand_fill), by the companion of t's device. The blocks are
 * reserved here, as for a host tensor, so draws on any mix of devices give the numbers one device would. A
 * companion that fails gives them back, unless another draw has reserved blocks since (then the offset stays
 * where it is: handing back blocks behind another draw's would give two draws the same numbers). */
TH__MAYBE_UNUSED static int th__rand_on_device(const char *fn, th_tensor *t, th_generator *gen, const char *op,
                                               const th__rand_params *p)
{
    const th_device_ops *ops = th__device_ops_for(fn, t->storage->device);
    if (!ops) return th_last_status();
    if (!ops->random)
        return th__fail(TH_ERR_UNSUPPORTED, fn, "the %s companion has no random numbers", ops->name ? ops->name : "?");
    th_generator *g = th__gen(gen);
    const uint64_t n = (uint64_t)th__numel(t);
    th__philox_stream s = th__gen_reserve(g, n);
    th_device_random call = {op, t->dtype, (uint64_t)s.key[0] | (uint64_t)s.key[1] << 32, s.base,
                             p->a, p->b, p->top, p->lo, p->range};
    int status = ops->random(ops->ctx, fn, t, &call);
    if (status) {
        uint64_t after = s.base + n;
        atomic_compare_exchange_strong(&g->offset, &after, s.base);
    }
    return status;
}

/* Fills t (any strides; checked writable and free of self-overlap) with one draw of gen: element i in
 * row-major order gets block offset + i. A non-contiguous t is filled through a contiguous temporary, so
 * its values do not depend on its strides. Device memory goes to its companion with op (the sampler's name)
 * and params. The generator advances only on success. */
TH__MAYBE_UNUSED static int th__rand_fill(const char *fn, th_tensor *t, th_generator *gen, th__rand_kernel kernel,
                                          const char *op, const th__rand_params *params)
{
    if (!t) return th__fail(TH_ERR_INVALID, fn, "NULL tensor");
    const bool host = th_device_is_host(t->storage->device);
    if (th__check_out_layout(fn, t, t->dtype, t->ndim, t->sizes, host)) return th_last_status();
    if (!host) return th__rand_on_device(fn, t, gen, op, params);
    int64_t n = th__numel(t);
    th_tensor *dst = th_tensor_is_contiguous(t) ? th_tensor_retain(t)
                                                : th__tensor_empty_host(fn, t->dtype, t->ndim, t->sizes);
    if (!dst) return th_last_status();
    th__rand_job job = {kernel, params, th__gen_reserve(gen, (uint64_t)n), (char *)th_tensor_data(dst)};
    /* A block costs about as much as 20 cheap elementwise operations. */
    th__parallel_chunks(n, th__threads_for(n * 20), th__rand_job_run, &job);
    int status = dst == t ? TH_OK : th__copy(fn, t, dst);
    th_tensor_release(dst);
    return status;
}

/* A new tensor of dtype filled by one draw (on the device of the default allocator's memory). */
TH__MAYBE_UNUSED static th_tensor *th__rand_new(const char *fn, th_dtype dtype, int ndim, const int64_t *sizes, th_generator *gen,
                               th__rand_kernel kernel, const char *op, const th__rand_params *params)
{
    th_tensor *t = th__tensor_empty(fn, dtype, ndim, sizes);
    if (!t) return NULL;
    if (th__rand_fill(fn, t, gen, kernel, op, params)) {
        th_tensor_release(t);
        return NULL;
    }
    return t;
}

/* Parameter checks shared by the samplers; each returns TH_OK or the recorded error. */
TH__MAYBE_UNUSED static int th__check_uniform(const char *fn, double lo, double hi)
{
    if (!isfinite(lo) || !isfinite(hi) || !(lo < hi))
        return th__fail(TH_ERR_INVALID, fn, "the bounds [%g, %g) must be finite with lo < hi", lo, hi);
    return TH_OK;
}

TH__MAYBE_UNUSED static int th__check_normal(const char *fn, double mean, double std)
{
    if (!isfinite(mean) || !isfinite(std) || std < 0)
        return th__fail(TH_ERR_INVALID, fn, "mean %g and std %g must be finite with std >= 0", mean, std);
    return TH_OK;
}

TH__MAYBE_UNUSED static int th__check_probability(const char *fn, double p)
{
    if (!(p >= 0.0 && p <= 1.0)) return th__fail(TH_ERR_INVALID, fn, "probability %g is outside [0, 1]", p);
    return TH_OK;
}

TH__MAYBE_UNUSED static int th__check_exponential(const char *fn, double lambda)
{
    if (!(lambda > 0.0) || isinf(lambda))
        return th__fail(TH_ERR_INVALID, fn, "rate lambda %g must be finite and > 0", lambda);
    return TH_OK;
}

/* lo < hi and both inside [min, max + 1] of the dtype (hi is exclusive). */
TH__MAYBE_UNUSED static int th__check_randint(const char *fn, int64_t lo, int64_t hi, int64_t min, int64_t max)
{
    if (lo >= hi)
        return th__fail(TH_ERR_INVALID, fn, "the bounds [%lld, %lld) are empty", (long long)lo, (long long)hi);
    if (lo < min || hi - 1 > max)
        return th__fail(TH_ERR_RANGE, fn, "the bounds [%lld, %lld) do not fit the dtype's range [%lld, %lld]",
                        (long long)lo, (long long)hi, (long long)min, (long long)max);
    return TH_OK;
}

/* randperm: Fisher-Yates on int64 values 0..n-1, step j swapping element j with one of j..n-1 drawn from
 * block offset + j. Sequential (each step depends on the last), n - 1 blocks. */
TH__MAYBE_UNUSED static void th__randperm_fill(int64_t *perm, int64_t n, th_generator *gen)
{
    for (int64_t i = 0; i < n; i++) perm[i] = i;
    if (n < 2) return;
    th__philox_stream s = th__gen_reserve(gen, (uint64_t)(n - 1));
    for (int64_t j = 0; j < n - 1; j++) {
        int64_t k = j + (int64_t)th__rand_below(&s, (uint64_t)j, (uint64_t)(n - j));
        int64_t tmp = perm[j];
        perm[j] = perm[k];
        perm[k] = tmp;
    }
}

/* multinomial on probabilities already read into double rows (nrows x ncat, each row checked). Writes
 * nrows x num_samples category indices.
 *   With replacement: sample j of row r is a uniform from block offset + r * num_samples + j, looked up in
 *   the row's cumulative sums (binary search).
 *   Without: each category c of row r gets the key E / p_c, E exponential from block offset + r * ncat + c
 *   (categories of probability 0 get +inf); the num_samples smallest keys, in increasing order, are the
 *   draws. That is the same distribution as drawing one at a time and removing each draw (the exponential
 *   clocks of the categories ring in that order). */
typedef struct th__multinomial_job {
    const double *probs; /* nrows x ncat */
    int64_t ncat, num_samples;
    bool replacement;
    th__philox_stream stream;
    int64_t *out; /* nrows x num_samples */
    _Atomic int failed; /* a thread could not get its scratch */
} th__multinomial_job;

TH__MAYBE_UNUSED static void th__multinomial_row_with(const th__multinomial_job *job, int64_t r, double *cum)
{
    const double *p = job->probs + r * job->ncat;
    double total = 0;
    for (int64_t c = 0; c < job->ncat; c++) cum[c] = total += p[c];
    for (int64_t j = 0; j < job->num_samples; j++) {
        uint64_t w[2];
        th__philox_words(&job->stream, (uint64_t)(r * job->num_samples + j), 0, w);
        double u = th__unit_open1(w[0]) * total;
        int64_t lo = 0, hi = job->ncat - 1; /* the first c with cum[c] > u, skipping zero-probability ties */
        while (lo < hi) {
            int64_t mid = lo + (hi - lo) / 2;
            if (cum[mid] > u) hi = mid;
            else lo = mid + 1;
        }
        while (lo > 0 && p[lo] == 0) lo--; /* rounding can land u on a flat stretch at the end */
        job->out[r * job->num_samples + j] = lo;
    }
}

/* Merge sort of idx[0..n) by key[idx] ascending, ties by index: stable, O(n log n). */
TH__MAYBE_UNUSED static void th__sort_by_key(int64_t *idx, int64_t *tmp, const double *key, int64_t n)
{
    for (int64_t width = 1; width < n; width *= 2) {
        for (int64_t lo = 0; lo < n; lo += 2 * width) {
            int64_t mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
            int64_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi) tmp[o++] = key[idx[b]] < key[idx[a]] ? idx[b++] : idx[a++];
            while (a < mid) tmp[o++] = idx[a++];
            while (b < hi) tmp[o++] = idx[b++];
        }
        memcpy(idx, tmp, (size_t)n * sizeof *idx);
    }
}

TH__MAYBE_UNUSED static void th__multinomial_row_without(const th__multinomial_job *job, int64_t r, double *key, int64_t *idx)
{
    const double *p = job->probs + r * job->ncat;
    for (int64_t c = 0; c < job->ncat; c++) {
        uint64_t w[2];
        th__philox_words(&job->stream, (uint64_t)(r * job->ncat + c), 0, w);
        key[c] = p[c] > 0 ? -log(th__unit_open0(w[0])) / p[c] : INFINITY;
        idx[c] = c;
    }
    th__sort_by_key(idx, idx + job->ncat, key, job->ncat);
    memcpy(job->out + r * job->num_samples, idx, (size_t)job->num_samples * sizeof *idx);
}

TH__MAYBE_UNUSED static void th__multinomial_rows(void *job_, int64_t begin, int64_t end)
{
    th__multinomial_job *job = (th__multinomial_job *)job_;
    if (begin >= end) return;
    size_t ncat = (size_t)job->ncat;
    double *key = (double *)malloc(ncat * sizeof(double));
    int64_t *idx = (int64_t *)malloc(2 * ncat * sizeof(int64_t));
    if (!key || !idx) {
        atomic_store(&job->failed, 1);
    } else {
        for (int64_t r = begin; r < end; r++) {
            if (job->replacement) th__multinomial_row_with(job, r, key);
            else th__multinomial_row_without(job, r, key, idx);
        }
    }
    free(key);
    free(idx);
}

/* probs: nrows x ncat doubles, checked row by row here (finite, >= 0, positive sum, enough nonzero
 * categories without replacement). Returns a new i64 tensor of shape (num_samples) for 1-d input
 * (nrows_dims 1) or (nrows, num_samples). */
TH__MAYBE_UNUSED static th_tensor *th__multinomial(const char *fn, const double *probs, int64_t nrows, int64_t ncat, int in_ndim,
                                  int64_t num_samples, bool replacement, th_generator *gen)
{
    if (num_samples < 0) {
        th__fail(TH_ERR_INVALID, fn, "num_samples %lld is negative", (long long)num_samples);
        return NULL;
    }
    for (int64_t r = 0; r < nrows; r++) {
        double sum = 0;
        int64_t nonzero = 0;
        for (int64_t c = 0; c < ncat; c++) {
            double p = probs[r * ncat + c];
            if (!(p >= 0) || isinf(p)) {
                th__fail(TH_ERR_INVALID, fn, "probability %g (row %lld, category %lld) is negative or not finite",
                         p, (long long)r, (long long)c);
                return NULL;
            }
            sum += p;
            nonzero += p > 0;
        }
        if (!(sum > 0) || isinf(sum)) {
            th__fail(TH_ERR_INVALID, fn, "the probabilities of row %lld sum to %g, not a positive finite number",
                     (long long)r, sum);
            return NULL;
        }
        if (!replacement && num_samples > nonzero) {
            th__fail(TH_ERR_RANGE, fn,
                     "num_samples %lld is more than the %lld categories of nonzero probability (row %lld) without "
                     "replacement",
                     (long long)num_samples, (long long)nonzero, (long long)r);
            return NULL;
        }
    }
    int64_t sizes[2] = {nrows, num_samples};
    th_tensor *out = in_ndim == 1 ? th__tensor_empty_host(fn, TH_I64, 1, &num_samples)
                                  : th__tensor_empty_host(fn, TH_I64, 2, sizes);
    if (!out) return NULL;
    if (nrows == 0 || num_samples == 0) return out;
    uint64_t per_row = (uint64_t)(replacement ? num_samples : ncat);
    th__multinomial_job job;
    job.probs = probs;
    job.ncat = ncat;
    job.num_samples = num_samples;
    job.replacement = replacement;
    job.stream = th__gen_reserve(gen, per_row * (uint64_t)nrows);
    job.out = (int64_t *)th_tensor_data(out);
    atomic_init(&job.failed, 0);
    int64_t work = nrows * (replacement ? num_samples * 40 : ncat * 60);
    int nthreads = th__threads_for(work);
    if (nthreads > nrows) nthreads = (int)nrows;
    th__parallel_chunks(nrows, nthreads, th__multinomial_rows, &job);
    if (atomic_load(&job.failed)) {
        th_tensor_release(out);
        th__fail(TH_ERR_NOMEM, fn, "out of memory for the scratch of %lld categories", (long long)ncat);
        return NULL;
    }
    return out;
}

#endif /* TH__DEFINING */
