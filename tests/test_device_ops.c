/* tests/test_device_ops.c: the device dispatch of core/device_ops.h, with a fake companion.
 *
 * The fake device (type 20, indices 0 and 1) is malloc'd memory that the host pretends it cannot touch: the
 * core treats it as device memory, and the fake companion, which may touch it, computes each op by calling
 * the host's own typed function on host views of the same bytes. So these tests check what the core does:
 * which calls reach the companion, with which op name, dtypes, operands and values, and what is refused
 * before any companion is asked. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})

enum { FAKE = 20 };

static void *fake_alloc(void *ctx, size_t n);
static void fake_free(void *ctx, void *p, size_t n);
static const th_allocator fake0 = {"fake0", fake_alloc, NULL, fake_free, {FAKE, 0}};
static const th_allocator fake1 = {"fake1", fake_alloc, NULL, fake_free, {FAKE, 1}};

static int fake_live; /* blocks of the fake device not yet freed: 0 at the end, or something leaked */

static void *fake_alloc(void *ctx, size_t n)
{
    (void)ctx;
    fake_live++;
    return malloc(n);
}
static void fake_free(void *ctx, void *p, size_t n)
{
    (void)ctx;
    (void)n;
    fake_live--;
    free(p);
}

/* Makes the default allocator the fake device's (dev 0 or 1), or (dev < 0) the one it replaced. */
static void use_fake(int dev)
{
    static const th_allocator *saved;
    static void *saved_ctx;
    if (dev < 0) {
        th_set_default_allocator(saved, saved_ctx);
        return;
    }
    saved = th_default_allocator(&saved_ctx);
    th_set_default_allocator(dev ? &fake1 : &fake0, NULL);
}

/* What the companion last saw. */
static struct {
    int calls;
    char op[32];
    th_dtype dtype, out_dtype;
    int nin;
    bool scalar_in[3];
    double params[2];
    const th_tensor *out;
    /* reductions */
    int dim;
    bool keepdim, values, indices;
    double p;
    int64_t correction;
    const th_tensor *outs[2];
} seen;

/* A host tensor over t's bytes (device or host), for the companion's arithmetic. */
static th_tensor *host_view(const th_tensor *t)
{
    th_storage *st = th_tensor_storage(t);
    th_storage *h = th_storage_from_blob(th_storage_raw_data(st), th_storage_nbytes(st), (th_device){TH_DEVICE_CPU, 0},
                                         NULL, NULL);
    th_tensor *v = th_tensor_new_with_storage(th_tensor_dtype(t), h, th_tensor_offset(t), th_tensor_ndim(t),
                                              th_tensor_sizes(t), th_tensor_strides(t));
    th_storage_release(h);
    return v;
}

static th_tensor *to_device(th_tensor *r, th_tensor *out, const th_tensor *like);

static th_tensor *fake_elementwise(void *ctx, const char *fn, th_tensor *out, const th_device_elementwise *call)
{
    (void)ctx;
    seen.calls++;
    snprintf(seen.op, sizeof seen.op, "%s", call->op);
    seen.dtype = call->dtype;
    seen.out_dtype = call->out_dtype;
    seen.nin = call->nin;
    seen.out = out;
    for (int i = 0; i < call->nin; i++)
        seen.scalar_in[i] = th_device_is_host(th_storage_device(th_tensor_storage(call->in[i])));
    if (strcmp(call->op, "clamp") == 0) {
        seen.params[0] = ((const float *)call->params)[0];
        seen.params[1] = ((const float *)call->params)[1];
    } else if (strcmp(call->op, "add_alpha") == 0) {
        seen.params[0] = call->dtype == TH_F64 ? *(const double *)call->params : *(const float *)call->params;
    } else if (call->params) {
        th_set_error(TH_ERR_INVALID, fn, "fake: unexpected params for %s", call->op);
        return NULL;
    }
    th_tensor *in[3] = {NULL};
    for (int i = 0; i < call->nin; i++) in[i] = host_view(call->in[i]);
    th_tensor *r = NULL;
    /* f32 and bool only: enough to see the dispatch. */
    th_f32_tensor *a = call->dtype == TH_F32 ? th_f32_from_base(in[call->nin == 3 ? 1 : 0]) : NULL;
    if (strcmp(call->op, "add") == 0) r = th_f32_base(th_f32_add(a, th_f32_from_base(in[1])));
    else if (strcmp(call->op, "exp") == 0) r = th_f32_base(th_f32_exp(a));
    else if (strcmp(call->op, "lt") == 0) r = th_bool_base(th_f32_lt(a, th_f32_from_base(in[1])));
    else if (strcmp(call->op, "clamp") == 0) r = th_f32_base(th_f32_clamp(a, (float)seen.params[0], (float)seen.params[1]));
    else if (strcmp(call->op, "add_alpha") == 0)
        r = th_f32_base(th_f32_add_alpha(a, th_f32_from_base(in[1]), (float)seen.params[0]));
    else if (strcmp(call->op, "where") == 0)
        r = th_f32_base(th_f32_where(th_bool_from_base(in[0]), a, th_f32_from_base(in[2])));
    else th_set_error(TH_ERR_UNSUPPORTED, fn, "fake: no %s", call->op);
    for (int i = 0; i < call->nin; i++) th_tensor_release(in[i]);
    if (!r) return NULL;
    /* The result goes to the device the inputs are on: out's, or a new tensor there. */
    const th_tensor *dev = call->in[0];
    for (int i = 0; i < call->nin; i++)
        if (!th_device_is_host(th_storage_device(th_tensor_storage(call->in[i])))) dev = call->in[i];
    return to_device(r, out, dev);
}

/* The result r (a host tensor) on the device of like, in out when given. */
static th_tensor *to_device(th_tensor *r, th_tensor *out, const th_tensor *like)
{
    if (!r) return NULL;
    th_tensor *dst = out ? th_tensor_retain(out) : NULL;
    if (!dst) {
        th_device d = th_storage_device(th_tensor_storage(like));
        th_storage *st = th_storage_new(th_tensor_numel(r) * (int64_t)th_dtype_info(th_tensor_dtype(r))->size,
                                        d.index ? &fake1 : &fake0, NULL);
        dst = th_tensor_new_with_storage(th_tensor_dtype(r), st, 0, th_tensor_ndim(r), th_tensor_sizes(r), NULL);
        th_storage_release(st);
    }
    th_tensor *hd = host_view(dst);
    int rc = th_tensor_copy(hd, r);
    th_tensor_release(hd);
    th_tensor_release(r);
    if (rc) {
        th_tensor_release(dst);
        return NULL;
    }
    return dst;
}

static th_tensor *fake_product(void *ctx, const char *fn, th_tensor *out, const th_device_product *call)
{
    (void)ctx;
    seen.calls++;
    snprintf(seen.op, sizeof seen.op, "%s", call->op);
    seen.dtype = call->dtype;
    seen.out = out;
    seen.nin = call->bias ? 3 : 2;
    seen.params[0] = *(const float *)call->alpha;
    seen.params[1] = *(const float *)call->beta;
    if (call->dtype != TH_F32) return th_set_error(TH_ERR_UNSUPPORTED, fn, "fake: f32 only"), NULL;
    th_tensor *a = host_view(call->a), *b = host_view(call->b), *bias = call->bias ? host_view(call->bias) : NULL;
    th_tensor *r = NULL;
    const float alpha = (float)seen.params[0], beta = (float)seen.params[1];
    if (strcmp(call->op, "mm") == 0 && bias)
        r = th_f32_base(th_f32_addmm(th_f32_from_base(bias), th_f32_from_base(a), th_f32_from_base(b), beta, alpha));
    else if (strcmp(call->op, "mm") == 0) r = th_f32_base(th_f32_mm(th_f32_from_base(a), th_f32_from_base(b)));
    else if (strcmp(call->op, "matmul") == 0) r = th_f32_base(th_f32_matmul(th_f32_from_base(a), th_f32_from_base(b)));
    else th_set_error(TH_ERR_UNSUPPORTED, fn, "fake: no %s", call->op);
    th_tensor_release(bias);
    th_tensor_release(b);
    th_tensor_release(a);
    return to_device(r, out, call->a);
}

/* A reduction by the host's typed functions on a host view of the input: f32 (every op the tests call) and
 * i32 sum. */
static int fake_reduce(void *ctx, const char *fn, const th_device_reduce *call, th_tensor *const *outs,
                       th_tensor **results)
{
    (void)ctx;
    seen.calls++;
    snprintf(seen.op, sizeof seen.op, "%s", call->op);
    seen.dtype = call->dtype;
    seen.out_dtype = call->out_dtype;
    seen.dim = call->dim;
    seen.keepdim = call->keepdim;
    seen.values = call->values;
    seen.indices = call->indices;
    seen.p = call->p;
    seen.correction = call->correction;
    seen.outs[0] = outs[0];
    seen.outs[1] = outs[1];
    const int d = call->dim;
    const bool all = d < 0, k = call->keepdim;
    const char *op = call->op;
    th_tensor *in = host_view(call->in), *v = NULL, *ix = NULL;
    if (call->dtype == TH_I32 && strcmp(op, "sum") == 0) {
        th_i32_tensor *a = th_i32_from_base(in);
        v = th_i32_base(all ? th_i32_sum_all(a) : th_i32_sum_dim(a, d, k));
    } else if (call->dtype == TH_F32) {
        th_f32_tensor *a = th_f32_from_base(in);
        if (strcmp(op, "sum") == 0) v = th_f32_base(all ? th_f32_sum_all(a) : th_f32_sum_dim(a, d, k));
        else if (strcmp(op, "mean") == 0) v = th_f32_base(all ? th_f32_mean_all(a) : th_f32_mean_dim(a, d, k));
        else if (strcmp(op, "var") == 0)
            v = th_f32_base(all ? th_f32_var_all(a, call->correction) : th_f32_var_dim(a, d, call->correction, k));
        else if (strcmp(op, "std") == 0)
            v = th_f32_base(all ? th_f32_std_all(a, call->correction) : th_f32_std_dim(a, d, call->correction, k));
        else if (strcmp(op, "norm") == 0) v = th_f32_base(all ? th_f32_norm_all(a, call->p) : th_f32_norm_dim(a, call->p, d, k));
        else if (strcmp(op, "logsumexp") == 0)
            v = th_f32_base(all ? th_f32_logsumexp_all(a) : th_f32_logsumexp_dim(a, d, k));
        else if (strcmp(op, "max") == 0 && all) v = th_f32_base(th_f32_max_all(a));
        else if (strcmp(op, "max") == 0) {
            th_i64_tensor *i = NULL;
            v = th_f32_base(th_f32_max_dim(a, d, k, call->indices ? &i : NULL));
            ix = i ? th_i64_base(i) : NULL;
        } else if (strcmp(op, "argmax") == 0) ix = th_i64_base(all ? th_f32_argmax_all(a) : th_f32_argmax_dim(a, d, k));
        else if (strcmp(op, "argmin") == 0) ix = th_i64_base(all ? th_f32_argmin_all(a) : th_f32_argmin_dim(a, d, k));
        else if (strcmp(op, "all") == 0) v = th_bool_base(all ? th_f32_all_all(a) : th_f32_all_dim(a, d, k));
        else if (strcmp(op, "cumsum") == 0) v = th_f32_base(th_f32_cumsum(a, d));
        else th_set_error(TH_ERR_UNSUPPORTED, fn, "fake: no %s", op);
    } else {
        th_set_error(TH_ERR_UNSUPPORTED, fn, "fake: no %s reductions", th_dtype_name(call->dtype));
    }
    th_tensor_release(in);
    if ((call->values && !v) || (call->indices && !ix)) {
        th_tensor_release(v);
        th_tensor_release(ix);
        return th_last_status();
    }
    th_tensor *rv = call->values ? to_device(v, outs[0], call->in) : NULL;
    th_tensor *ri = call->indices ? to_device(ix, outs[1], call->in) : NULL;
    if ((call->values && !rv) || (call->indices && !ri)) {
        th_tensor_release(rv);
        th_tensor_release(ri);
        return th_last_status();
    }
    results[0] = rv;
    results[1] = ri;
    return TH_OK;
}


/* What the companion last saw of a draw, and how it is to fail: 1 at once, 2 after another draw from
 * rnd.other took blocks (a draw on another thread, in between). */
static struct {
    int calls;
    th_device_random call;
    char op[16];
    const th_tensor *out;
    int fail;
    th_generator *other;
} rnd;

/* Draws as a device would: the host's own sampler, on a host view of out's bytes, from a generator at the
 * state the core handed over. f32 (every sampler), i32 (randint, bernoulli) and bool (bernoulli). */
static int fake_random(void *ctx, const char *fn, th_tensor *out, const th_device_random *call)
{
    (void)ctx;
    rnd.calls++;
    rnd.call = *call;
    snprintf(rnd.op, sizeof rnd.op, "%s", call->op);
    rnd.call.op = rnd.op;
    rnd.out = out;
    if (rnd.fail) {
        if (rnd.fail == 2) th_f64_release(th_f64_uniform(1, SZ(2), 0.0, 1.0, rnd.other));
        return th_set_error(TH_ERR_DEVICE, fn, "fake: the device is gone");
    }
    th_generator *g = th_generator_new(call->seed);
    th_generator_set_state(g, (th_generator_state){call->seed, call->offset});
    th_tensor *h = host_view(out);
    int rc = TH_ERR_UNSUPPORTED;
    const int64_t lo = call->lo, hi = (int64_t)((uint64_t)call->lo + call->range);
    if (call->dtype == TH_F32) {
        th_f32_tensor *t = th_f32_from_base(h);
        if (strcmp(call->op, "uniform") == 0) rc = th_f32_uniform_inplace(t, call->a, call->b, g);
        else if (strcmp(call->op, "normal") == 0) rc = th_f32_normal_inplace(t, call->a, call->b, g);
        else if (strcmp(call->op, "exponential") == 0) rc = th_f32_exponential_inplace(t, call->a, g);
        else if (strcmp(call->op, "bernoulli") == 0) rc = th_f32_bernoulli_inplace(t, call->a, g);
        else if (strcmp(call->op, "randint") == 0) rc = th_f32_randint_inplace(t, lo, hi, g);
    } else if (call->dtype == TH_I32) {
        th_i32_tensor *t = th_i32_from_base(h);
        if (strcmp(call->op, "randint") == 0) rc = th_i32_randint_inplace(t, lo, hi, g);
        else if (strcmp(call->op, "bernoulli") == 0) rc = th_i32_bernoulli_inplace(t, call->a, g);
    } else if (call->dtype == TH_BOOL && strcmp(call->op, "bernoulli") == 0) {
        rc = th_bool_bernoulli_inplace(th_bool_from_base(h), call->a, g);
    }
    if (rc == TH_ERR_UNSUPPORTED) th_set_error(rc, fn, "fake: no %s on %s", call->op, th_dtype_name(call->dtype));
    th_tensor_release(h);
    th_generator_free(g);
    return rc;
}



/* What the companion last saw of an indexing op. */
static struct {
    int calls;
    char op[32];
    th_dtype dtype;
    const th_tensor *self, *index, *mask, *src, *out;
    int dim;
    float value;
    bool accumulate;
} seen_ix;

/* The indexing ops, by the host's own on host views (f32 only): the range of the index is checked here, as a
 * real companion must, since the core cannot read it. */
static th_tensor *fake_index(void *ctx, const char *fn, th_tensor *out, const th_device_index *call)
{
    (void)ctx;
    seen_ix.calls++;
    snprintf(seen_ix.op, sizeof seen_ix.op, "%s", call->op);
    seen_ix.dtype = call->dtype;
    seen_ix.self = call->self;
    seen_ix.index = call->index;
    seen_ix.mask = call->mask;
    seen_ix.src = call->src;
    seen_ix.out = out;
    seen_ix.dim = call->dim;
    seen_ix.value = call->value ? *(const float *)call->value : NAN;
    seen_ix.accumulate = call->accumulate;
    if (call->dtype != TH_F32) return th_set_error(TH_ERR_UNSUPPORTED, fn, "fake: f32 only"), NULL;
    th_tensor *self = host_view(call->self), *index = call->index ? host_view(call->index) : NULL;
    th_tensor *mask = call->mask ? host_view(call->mask) : NULL, *src = call->src ? host_view(call->src) : NULL;
    th_tensor *o = out ? host_view(out) : NULL;
    th_f32_tensor *s = th_f32_from_base(self), *v = src ? th_f32_from_base(src) : NULL;
    th_i64_tensor *x = index ? th_i64_from_base(index) : NULL;
    th_bool_tensor *m = mask ? th_bool_from_base(mask) : NULL;
    const int d = call->dim;
    const bool inplace = out == call->self;
    th_tensor *r = NULL;
    int rc = TH_OK;
    if (strcmp(call->op, "index_select") == 0) {
        if (o) rc = th_f32_index_select_out(th_f32_from_base(o), s, d, x);
        else r = th_f32_base(th_f32_index_select(s, d, x));
    } else if (strcmp(call->op, "gather") == 0) {
        if (o) rc = th_f32_gather_out(th_f32_from_base(o), s, d, x);
        else r = th_f32_base(th_f32_gather(s, d, x));
    } else if (strcmp(call->op, "scatter") == 0) {
        if (inplace) rc = th_f32_scatter_inplace(s, d, x, v);
        else r = th_f32_base(th_f32_scatter(s, d, x, v));
    } else if (strcmp(call->op, "scatter_add") == 0) {
        if (inplace) rc = th_f32_scatter_add_inplace(s, d, x, v);
        else r = th_f32_base(th_f32_scatter_add(s, d, x, v));
    } else if (strcmp(call->op, "masked_fill") == 0) {
        if (inplace) rc = th_f32_masked_fill_inplace(s, m, seen_ix.value);
        else if (o) rc = th_f32_masked_fill_out(th_f32_from_base(o), s, m, seen_ix.value);
        else r = th_f32_base(th_f32_masked_fill(s, m, seen_ix.value));
    } else if (strcmp(call->op, "take") == 0) {
        if (o) rc = th_f32_take_out(th_f32_from_base(o), s, x);
        else r = th_f32_base(th_f32_take(s, x));
    } else if (strcmp(call->op, "put") == 0) {
        if (inplace) rc = th_f32_put_inplace(s, x, v, call->accumulate);
        else r = th_f32_base(th_f32_put(s, x, v, call->accumulate));
    } else {
        rc = th_set_error(TH_ERR_UNSUPPORTED, fn, "fake: no %s", call->op);
    }
    if (!o && !inplace && !r && !rc) rc = th_last_status();
    th_tensor_release(o);
    th_tensor_release(src);
    th_tensor_release(mask);
    th_tensor_release(index);
    th_tensor_release(self);
    if (rc) {
        th_tensor_release(r);
        return NULL;
    }
    return r ? to_device(r, NULL, call->self) : th_tensor_retain(out);
}


static const th_device_ops fake_ops = {.name = "fake", .elementwise = fake_elementwise, .product = fake_product,
                                       .reduce = fake_reduce, .random = fake_random, .index = fake_index};
static const th_device_ops no_ops = {.name = "empty"};

/* A tensor of the fake device index dev holding values. */
static th_f32_tensor *on_fake(int dev, int ndim, const int64_t *sizes, const float *values)
{
    use_fake(dev);
    th_f32_tensor *t = th_f32_empty(ndim, sizes);
    use_fake(-1);
    if (th_f32_numel(t) > 0) memcpy(th_f32_data(t), values, (size_t)th_f32_numel(t) * sizeof(float));
    return t;
}

static float at(const th_f32_tensor *t, int64_t i) { return th_f32_data(t)[i]; }

static void test_register(void)
{
    CHECK_FAILS(th_register_device_ops(TH_DEVICE_CPU, &fake_ops), TH_ERR_INVALID, "th_register_device_ops",
                "device type 1 is host memory");
    CHECK_FAILS(th_register_device_ops(64, &fake_ops), TH_ERR_INVALID, "th_register_device_ops", "device type 64");
    CHECK_FAILS(th_register_device_ops(-1, &fake_ops), TH_ERR_INVALID, "th_register_device_ops", "device type -1");
    CHECK(th_device_ops_of(FAKE) == NULL && th_device_ops_of(99) == NULL);
    CHECK_INT_EQ(th_register_device_ops(FAKE, &fake_ops), TH_OK);
    CHECK(th_device_ops_of(FAKE) == &fake_ops);
}

static void test_dispatch(void)
{
    const float av[6] = {1, 2, 3, 4, 5, 6}, bv[3] = {10, 20, 30};
    th_f32_tensor *a = on_fake(0, 2, SZ(2, 3), av), *b = on_fake(0, 1, SZ(3), bv);
    /* binary with broadcasting: the op's name and dtypes, the result on the inputs' device */
    memset(&seen, 0, sizeof seen);
    th_f32_tensor *c = th_f32_add(a, b);
    CHECK(c && seen.calls == 1 && strcmp(seen.op, "add") == 0 && seen.dtype == TH_F32 && seen.out_dtype == TH_F32);
    CHECK(seen.nin == 2 && !seen.scalar_in[0] && !seen.scalar_in[1] && seen.out == NULL);
    CHECK(c && th_storage_device(th_f32_storage(c)).type == FAKE && th_f32_ndim(c) == 2);
    CHECK(c && at(c, 0) == 11 && at(c, 5) == 36);
    /* a scalar form: the value arrives as a 0-d host tensor */
    th_f32_tensor *d = th_f32_add_scalar(a, 0.5f);
    CHECK(d && seen.calls == 2 && seen.nin == 2 && !seen.scalar_in[0] && seen.scalar_in[1]);
    CHECK(d && at(d, 3) == 4.5f);
    /* a comparison: a bool result */
    th_bool_tensor *lt = th_f32_lt(a, b);
    CHECK(lt && strcmp(seen.op, "lt") == 0 && seen.out_dtype == TH_BOOL);
    CHECK(lt && th_tensor_dtype(th_bool_base(lt)) == TH_BOOL && th_bool_data(lt)[0] && th_bool_data(lt)[5]);
    /* unary, and ops with values: in the compute type, as the host row gets them */
    th_f32_tensor *e = th_f32_exp(a);
    CHECK(e && strcmp(seen.op, "exp") == 0 && seen.nin == 1 && at(e, 0) == expf(1.0f));
    th_f32_tensor *cl = th_f32_clamp(a, 2.0f, 4.5f);
    CHECK(cl && strcmp(seen.op, "clamp") == 0 && seen.params[0] == 2.0 && seen.params[1] == 4.5);
    CHECK(cl && at(cl, 0) == 2.0f && at(cl, 5) == 4.5f);
    th_f32_tensor *aa = th_f32_add_alpha(a, b, 3.0f);
    CHECK(aa && strcmp(seen.op, "add_alpha") == 0 && seen.params[0] == 3.0 && at(aa, 2) == 93.0f);
    /* where: the op's dtype is a's and b's, cond is bool */
    th_f32_tensor *w = lt ? th_f32_where(lt, a, b) : NULL;
    CHECK(w && strcmp(seen.op, "where") == 0 && seen.dtype == TH_F32 && seen.nin == 3 && at(w, 1) == 2.0f);
    /* _out and _inplace: out reaches the companion, checked */
    th_f32_tensor *o = on_fake(0, 2, SZ(2, 3), av);
    CHECK_INT_EQ(th_f32_add_out(o, a, b), TH_OK);
    CHECK(seen.out == th_f32_base(o) && at(o, 4) == 25.0f);
    CHECK_INT_EQ(th_f32_add_inplace(o, b), TH_OK);
    CHECK(seen.out == th_f32_base(o) && at(o, 4) == 45.0f);
    int calls = seen.calls;
    th_f32_tensor *small = on_fake(0, 1, SZ(3), bv);
    CHECK_FAILS(th_f32_add_out(small, a, b), TH_ERR_SHAPE, "th_f32_add_out", "out has shape (3)");
    th_f32_tensor *bcast = th_f32_expand(small, 2, SZ(2, 3));
    CHECK_FAILS(th_f32_add_out(bcast, a, b), TH_ERR_INVALID, "th_f32_add_out", "overlaps its other dims");
    CHECK(seen.calls == calls); /* refused before the companion */
    /* the host's own ops are untouched by the registration */
    th_f32_tensor *h = th_f32_full(1, SZ(3), 2.0f), *hh = th_f32_add(h, h);
    CHECK(hh && seen.calls == calls && th_f32_data(hh)[2] == 4.0f);
    th_f32_release(hh);
    th_f32_release(h);
    th_f32_release(bcast);
    th_f32_release(small);
    th_f32_release(o);
    th_f32_release(w);
    th_f32_release(aa);
    th_f32_release(cl);
    th_f32_release(e);
    th_bool_release(lt);
    th_f32_release(d);
    th_f32_release(c);
    th_f32_release(b);
    th_f32_release(a);
}

static void test_refusals(void)
{
    const float v[3] = {1, 2, 3};
    th_f32_tensor *a = on_fake(0, 1, SZ(3), v), *a1 = on_fake(1, 1, SZ(3), v);
    th_f32_tensor *h = th_f32_full(1, SZ(3), 1.0f), *h0 = th_f32_full(0, NULL, 1.0f);
    int calls = seen.calls;
    /* tensors on two devices, or a host tensor beside a device one: never a silent copy */
    CHECK_NULL(th_f32_add(a, a1), TH_ERR_DEVICE, "th_f32_add", "operand 1 is on device 20:0 and operand 2 on device 20:1");
    CHECK_NULL(th_f32_add(a, h), TH_ERR_DEVICE, "th_f32_add", "operand 1 is on device 20:0 and operand 2 on device 1:0");
    CHECK_FAILS(th_f32_add_out(h, a, a), TH_ERR_DEVICE, "th_f32_add_out", "out is on device 1:0 and operand 1 on device 20:0");
    CHECK_FAILS(th_f32_add_out(a, h, h), TH_ERR_DEVICE, "th_f32_add_out", "out is on device 20:0 and operand 1 on device 1:0");
    CHECK(seen.calls == calls);
    /* a 0-d host tensor beside device ones is a scalar */
    th_f32_tensor *s = th_f32_add(a, h0);
    CHECK(s && seen.calls == calls + 1 && seen.scalar_in[1] && at(s, 2) == 4.0f);
    /* a companion without the family; then none at all */
    CHECK_INT_EQ(th_register_device_ops(FAKE, &no_ops), TH_OK);
    CHECK_NULL(th_f32_exp(a), TH_ERR_UNSUPPORTED, "th_f32_exp", "the empty companion has no elementwise ops");
    CHECK_INT_EQ(th_register_device_ops(FAKE, NULL), TH_OK);
    CHECK_NULL(th_f32_exp(a), TH_ERR_DEVICE, "th_f32_exp", "no companion has registered ops");
    CHECK_FAILS(th_f32_mul_scalar_inplace(a, 2.0f), TH_ERR_DEVICE, "th_f32_mul_scalar_inplace", "device type 20");
    /* integer division checks b on the host; on a device the companion must, and the host must not read it */
    use_fake(0);
    th_i32_tensor *ia = th_i32_empty(1, SZ(4));
    use_fake(-1);
    CHECK_NULL(th_i32_div(ia, ia), TH_ERR_DEVICE, "th_i32_div", "no companion");
    CHECK_INT_EQ(th_register_device_ops(FAKE, &fake_ops), TH_OK);
    th_i32_release(ia);
    th_f32_release(s);
    th_f32_release(h0);
    th_f32_release(h);
    th_f32_release(a1);
    th_f32_release(a);
}

static void test_products(void)
{
    const float av[6] = {1, 2, 3, 4, 5, 6}, bv[6] = {1, 0, 0, 1, 1, 1}, cv[4] = {100, 200, 300, 400};
    th_f32_tensor *a = on_fake(0, 2, SZ(2, 3), av), *b = on_fake(0, 2, SZ(3, 2), bv), *c = on_fake(0, 2, SZ(2, 2), cv);
    th_f32_tensor *a1 = on_fake(1, 2, SZ(3, 2), bv);
    int calls = seen.calls;
    th_f32_tensor *p = th_f32_mm(a, b); /* [[4, 5], [10, 11]] */
    CHECK(p && seen.calls == calls + 1 && strcmp(seen.op, "mm") == 0 && seen.nin == 2 && seen.params[0] == 1.0);
    CHECK(p && th_storage_device(th_f32_storage(p)).type == FAKE && at(p, 0) == 4 && at(p, 3) == 11);
    th_f32_tensor *q = th_f32_addmm(c, a, b, 0.5f, 2.0f); /* 0.5 c + 2 (a @ b) */
    CHECK(q && strcmp(seen.op, "mm") == 0 && seen.nin == 3 && seen.params[0] == 2.0 && seen.params[1] == 0.5);
    CHECK(q && at(q, 0) == 58 && at(q, 3) == 222);
    CHECK_INT_EQ(th_f32_addmm_inplace(c, a, b, 1.0f, 1.0f), TH_OK);
    CHECK(seen.out == th_f32_base(c) && at(c, 1) == 205);
    th_f32_tensor *m = th_f32_matmul(a, b);
    CHECK(m && strcmp(seen.op, "matmul") == 0 && at(m, 2) == 10);
    calls = seen.calls;
    /* refused on the host: a wrong dtype, two devices, a host operand */
    th_f64_tensor *d = th_f64_zeros(2, SZ(3, 2));
    CHECK_NULL(th_f32_mm(a, (const th_f32_tensor *)(const void *)d), TH_ERR_DTYPE, "th_f32_mm", "f64");
    CHECK_NULL(th_f32_mm(a, a1), TH_ERR_DEVICE, "th_f32_mm", "operand 1 is on device 20:0 and operand 2 on device 20:1");
    th_f32_tensor *h = th_f32_zeros(2, SZ(3, 2));
    CHECK_NULL(th_f32_mm(a, h), TH_ERR_DEVICE, "th_f32_mm", "on device 1:0");
    CHECK(seen.calls == calls);
    CHECK_INT_EQ(th_register_device_ops(FAKE, &no_ops), TH_OK);
    CHECK_NULL(th_f32_mm(a, b), TH_ERR_UNSUPPORTED, "th_f32_mm", "the empty companion has no matrix products");
    CHECK_INT_EQ(th_register_device_ops(FAKE, &fake_ops), TH_OK);
    th_f32_release(h);
    th_f64_release(d);
    th_f32_release(m);
    th_f32_release(q);
    th_f32_release(p);
    th_f32_release(a1);
    th_f32_release(c);
    th_f32_release(b);
    th_f32_release(a);
}

/* A tensor of any dtype on fake device dev, holding the bytes at values (NULL: zeros); the host's own
 * constructors refuse to write device memory, so it is filled here, where the "device" is malloc'd. */
static th_tensor *fake_tensor(int dev, th_dtype dtype, int ndim, const int64_t *sizes, const void *values)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= sizes[d];
    const size_t nbytes = (size_t)n * th_dtype_info(dtype)->size;
    th_storage *st = th_storage_new((int64_t)nbytes, dev ? &fake1 : &fake0, NULL);
    th_tensor *t = th_tensor_new_with_storage(dtype, st, 0, ndim, sizes, NULL);
    th_storage_release(st);
    if (nbytes && values) memcpy(th_tensor_data(t), values, nbytes);
    else if (nbytes) memset(th_tensor_data(t), 0, nbytes);
    return t;
}

static bool on_device(const th_tensor *t, int index)
{
    th_device d = th_storage_device(th_tensor_storage(t));
    return d.type == FAKE && d.index == index;
}

static int64_t at_i64(const th_i64_tensor *t, int64_t i) { return th_i64_data(t)[i]; }

/* What reaches the companion: op, dtypes, dim, keepdim, which results, the op's values; results on the device. */
static void test_reduce_calls(void)
{
    const float av[6] = {1, 2, 3, 4, 5, 6};
    th_f32_tensor *a = on_fake(0, 2, SZ(2, 3), av);
    memset(&seen, 0, sizeof seen);
    th_f32_tensor *s = th_f32_sum_all(a);
    CHECK(s && seen.calls == 1 && strcmp(seen.op, "sum") == 0 && seen.dtype == TH_F32 && seen.out_dtype == TH_F32);
    CHECK(seen.dim == -1 && !seen.keepdim && seen.values && !seen.indices && !seen.outs[0] && !seen.outs[1]);
    CHECK(s && on_device(th_f32_base(s), 0) && th_f32_ndim(s) == 0 && at(s, 0) == 21);
    th_f32_tensor *sd = th_f32_sum_dim(a, -1, true); /* dim arrives wrapped */
    CHECK(sd && seen.dim == 1 && seen.keepdim && th_f32_ndim(sd) == 2 && th_f32_sizes(sd)[1] == 1);
    CHECK(sd && at(sd, 0) == 6 && at(sd, 1) == 15);
    th_f32_tensor *m = th_f32_mean_dim(a, 0, false);
    CHECK(m && strcmp(seen.op, "mean") == 0 && seen.dim == 0 && !seen.keepdim && at(m, 2) == 4.5f);
    th_f32_tensor *v = th_f32_var_dim(a, 0, 0, false);
    CHECK(v && strcmp(seen.op, "var") == 0 && seen.correction == 0 && at(v, 1) == 2.25f);
    th_f32_tensor *sv = th_f32_std_all(a, 1);
    CHECK(sv && strcmp(seen.op, "std") == 0 && seen.correction == 1 && seen.dim == -1 &&
          fabsf(at(sv, 0) - sqrtf(3.5f)) < 1e-6f);
    th_f32_tensor *n3 = th_f32_norm_dim(a, 3.0, 1, false);
    CHECK(n3 && strcmp(seen.op, "norm") == 0 && seen.p == 3.0 && seen.dim == 1 &&
          fabsf(at(n3, 0) - cbrtf(36.0f)) < 1e-5f);
    th_f32_tensor *ninf = th_f32_norm_all(a, -INFINITY);
    CHECK(ninf && seen.p == -INFINITY && at(ninf, 0) == 1.0f);
    th_f32_tensor *n1 = th_f32_norm_all(a, 1.0);
    CHECK(n1 && seen.p == 1.0 && at(n1, 0) == 21.0f);
    th_f32_tensor *lse = th_f32_logsumexp_all(a);
    CHECK(lse && strcmp(seen.op, "logsumexp") == 0 && seen.out_dtype == TH_F32);
    /* max with and without indices, argmax, argmin: which results are asked for */
    th_i64_tensor *idx = NULL;
    th_f32_tensor *mx = th_f32_max_dim(a, 1, false, &idx);
    CHECK(mx && idx && strcmp(seen.op, "max") == 0 && seen.values && seen.indices && seen.out_dtype == TH_F32);
    CHECK(mx && idx && on_device(th_i64_base(idx), 0) && at(mx, 1) == 6 && at_i64(idx, 0) == 2 && at_i64(idx, 1) == 2);
    th_f32_tensor *mx2 = th_f32_max_dim(a, 0, true, NULL);
    CHECK(mx2 && seen.values && !seen.indices && seen.keepdim && at(mx2, 0) == 4);
    th_f32_tensor *mxa = th_f32_max_all(a);
    CHECK(mxa && seen.dim == -1 && seen.values && !seen.indices && at(mxa, 0) == 6);
    th_i64_tensor *am = th_f32_argmax_all(a);
    CHECK(am && strcmp(seen.op, "argmax") == 0 && !seen.values && seen.indices && seen.out_dtype == TH_I64);
    CHECK(am && on_device(th_i64_base(am), 0) && at_i64(am, 0) == 5);
    th_i64_tensor *ami = th_f32_argmin_dim(a, 0, true);
    CHECK(ami && strcmp(seen.op, "argmin") == 0 && seen.dim == 0 && seen.keepdim && at_i64(ami, 2) == 0);
    th_bool_tensor *al = th_f32_all_dim(a, 0, false);
    CHECK(al && strcmp(seen.op, "all") == 0 && seen.out_dtype == TH_BOOL && th_bool_data(al)[1]);
    /* a scan: the shape kept, dim wrapped */
    th_f32_tensor *cs = th_f32_cumsum(a, -1);
    CHECK(cs && strcmp(seen.op, "cumsum") == 0 && seen.dim == 1 && !seen.keepdim && seen.values && !seen.indices);
    CHECK(cs && th_f32_ndim(cs) == 2 && at(cs, 2) == 6 && at(cs, 5) == 15);
    /* another dtype, and a 0-d input (dim 0: its one element) */
    const int32_t sevens[4] = {7, 7, 7, 7};
    const float two_and_a_half = 2.5f;
    th_i32_tensor *ia = th_i32_from_base(fake_tensor(0, TH_I32, 1, SZ(4), sevens));
    th_f32_tensor *z = th_f32_from_base(fake_tensor(0, TH_F32, 0, NULL, &two_and_a_half));
    th_i32_tensor *is = th_i32_sum_all(ia);
    CHECK(is && seen.dtype == TH_I32 && seen.out_dtype == TH_I32 && th_i32_data(is)[0] == 28);
    th_f32_tensor *zs = th_f32_sum_dim(z, -1, true);
    CHECK(zs && seen.dim == 0 && th_f32_ndim(zs) == 0 && at(zs, 0) == 2.5f);
    /* a companion's failure comes back as it recorded it */
    th_f64_tensor *f64 = th_f64_from_base(fake_tensor(0, TH_F64, 1, SZ(2), NULL));
    CHECK_NULL(th_f64_sum_all(f64), TH_ERR_UNSUPPORTED, "th_f64_sum_all", "fake: no f64 reductions");
    th_f64_release(f64);
    th_f32_release(zs);
    th_i32_release(is);
    th_f32_release(z);
    th_i32_release(ia);
    th_f32_release(cs);
    th_bool_release(al);
    th_i64_release(ami);
    th_i64_release(am);
    th_f32_release(mxa);
    th_f32_release(mx2);
    th_i64_release(idx);
    th_f32_release(mx);
    th_f32_release(lse);
    th_f32_release(n1);
    th_f32_release(ninf);
    th_f32_release(n3);
    th_f32_release(sv);
    th_f32_release(v);
    th_f32_release(m);
    th_f32_release(sd);
    th_f32_release(s);
    th_f32_release(a);
}

/* The out forms: each out reaches the companion checked, and is what the call returns into. */
static void test_reduce_outs(void)
{
    const float av[6] = {1, 5, 3, 4, 2, 6}, zero[3] = {0, 0, 0};
    th_f32_tensor *a = on_fake(0, 2, SZ(2, 3), av);
    th_f32_tensor *o = on_fake(0, 1, SZ(2), zero), *o0 = on_fake(0, 0, NULL, zero), *ov = on_fake(0, 1, SZ(3), zero);
    th_i64_tensor *oi = th_i64_from_base(fake_tensor(0, TH_I64, 1, SZ(3), NULL));
    CHECK_INT_EQ(th_f32_sum_dim_out(o, a, 1, false), TH_OK);
    CHECK(seen.outs[0] == th_f32_base(o) && at(o, 0) == 9 && at(o, 1) == 12);
    CHECK_INT_EQ(th_f32_sum_all_out(o0, a), TH_OK);
    CHECK(seen.outs[0] == th_f32_base(o0) && seen.dim == -1 && at(o0, 0) == 21);
    CHECK_INT_EQ(th_f32_max_dim_out(ov, oi, a, 0, false), TH_OK);
    CHECK(seen.outs[0] == th_f32_base(ov) && seen.outs[1] == th_i64_base(oi) && seen.values && seen.indices);
    CHECK(at(ov, 1) == 5 && at(ov, 2) == 6 && at_i64(oi, 0) == 1 && at_i64(oi, 1) == 0 && at_i64(oi, 2) == 1);
    CHECK_INT_EQ(th_f32_max_dim_out(ov, NULL, a, 0, false), TH_OK);
    CHECK(seen.values && !seen.indices && seen.outs[1] == NULL);
    CHECK_INT_EQ(th_f32_argmax_dim_out(oi, a, 1, false), TH_ERR_SHAPE); /* (3) for a result of shape (2) */
    th_i64_tensor *oi2 = th_i64_narrow(oi, 0, 0, 2);
    CHECK_INT_EQ(th_f32_argmax_dim_out(oi2, a, 1, false), TH_OK);
    CHECK(seen.outs[1] == th_i64_base(oi2) && !seen.values && at_i64(oi, 0) == 1 && at_i64(oi, 1) == 2);
    /* a scan in place: out is a itself */
    CHECK_INT_EQ(th_f32_cumsum_out(a, a, 0), TH_OK);
    CHECK(seen.outs[0] == th_f32_base(a) && at(a, 3) == 5 && at(a, 5) == 9);
    th_i64_release(oi2);
    th_i64_release(oi);
    th_f32_release(ov);
    th_f32_release(o0);
    th_f32_release(o);
    th_f32_release(a);
}

/* Refused on the host, before any companion is asked; then refused for want of one. */
static void test_reduce_refusals(void)
{
    const float av[6] = {1, 2, 3, 4, 5, 6};
    th_f32_tensor *a = on_fake(0, 2, SZ(2, 3), av), *o1 = on_fake(1, 1, SZ(2), av), *o3 = on_fake(0, 1, SZ(3), av);
    th_f32_tensor *e = on_fake(0, 2, SZ(2, 0), av), *o0 = on_fake(0, 0, NULL, av);
    th_f32_tensor *h = th_f32_zeros(1, SZ(2)), *h0 = th_f32_zeros(0, NULL), *hz = th_f32_full(0, NULL, 3.0f);
    th_f32_tensor *bcast = th_f32_expand(o3, 2, SZ(2, 3));
    th_f32_tensor *bc2 = bcast ? th_f32_select(bcast, 1, 0) : NULL; /* two elements at one address */
    th_i32_tensor *oi32 = th_i32_from_base(fake_tensor(0, TH_I32, 1, SZ(2), NULL));
    th_i64_tensor *hi = th_i64_zeros(1, SZ(2));
    const int calls = seen.calls;
    CHECK_FAILS(th_f32_sum_dim_out(o3, a, 1, false), TH_ERR_SHAPE, "th_f32_sum_dim_out",
                "out has shape (3); the result has shape (2)");
    CHECK_FAILS(th_f32_sum_dim_out((th_f32_tensor *)(void *)oi32, a, 1, false), TH_ERR_DTYPE, "th_f32_sum_dim_out",
                "out is i32; this result is f32");
    CHECK_FAILS(th_f32_sum_dim_out(bc2, a, 1, false), TH_ERR_INVALID, "th_f32_sum_dim_out", "overlaps its other dims");
    CHECK_NULL(th_f32_sum_dim(a, 2, false), TH_ERR_RANGE, "th_f32_sum_dim", "dim 2 is out of range");
    CHECK_NULL(th_f32_cumsum(a, -3), TH_ERR_RANGE, "th_f32_cumsum", "dim -3 is out of range");
    CHECK_NULL(th_f32_var_dim(a, 0, -1, false), TH_ERR_INVALID, "th_f32_var_dim", "correction -1 is negative");
    CHECK_NULL(th_f32_norm_all(a, NAN), TH_ERR_INVALID, "th_f32_norm_all", "the order p is NaN");
    CHECK_NULL(th_f32_max_dim(e, 1, false, NULL), TH_ERR_SHAPE, "th_f32_max_dim", "cannot reduce dim 1 of size 0");
    CHECK_NULL(th_f32_argmin_all(e), TH_ERR_SHAPE, "th_f32_argmin_all", "shape (2, 0) with no elements");
    /* two devices; a host tensor beside a device one, either way round, a 0-d one too: never a silent copy */
    CHECK_FAILS(th_f32_sum_dim_out(o1, a, 1, false), TH_ERR_DEVICE, "th_f32_sum_dim_out",
                "out is on device 20:1 and a on device 20:0");
    CHECK_FAILS(th_f32_sum_dim_out(h, a, 1, false), TH_ERR_DEVICE, "th_f32_sum_dim_out",
                "out is on device 1:0 and a on device 20:0");
    CHECK_FAILS(th_f32_max_dim_out(o3, hi, a, 1, false), TH_ERR_DEVICE, "th_f32_max_dim_out",
                "indices_out is on device 1:0 and a on device 20:0");
    CHECK_FAILS(th_f32_argmax_dim_out(hi, a, 1, false), TH_ERR_DEVICE, "th_f32_argmax_dim_out", "indices_out is on device 1:0");
    CHECK_FAILS(th_f32_sum_all_out(o0, hz), TH_ERR_DEVICE, "th_f32_sum_all_out", "out is on device 20:0 and a on device 1:0");
    CHECK_FAILS(th_f32_sum_all_out(h0, a), TH_ERR_DEVICE, "th_f32_sum_all_out", "out is on device 1:0");
    CHECK_FAILS(th_f32_cumsum_out(bcast, a, 0), TH_ERR_INVALID, "th_f32_cumsum_out", "overlaps its other dims");
    CHECK(seen.calls == calls);
    /* host tensors never reach the companion */
    th_f32_tensor *hs = th_f32_sum_all(h);
    CHECK(hs && seen.calls == calls && th_f32_data(hs)[0] == 0);
    /* a companion without reductions; then none at all */
    CHECK_INT_EQ(th_register_device_ops(FAKE, &no_ops), TH_OK);
    CHECK_NULL(th_f32_sum_all(a), TH_ERR_UNSUPPORTED, "th_f32_sum_all", "the empty companion has no reductions");
    CHECK_NULL(th_f32_cumprod(a, 0), TH_ERR_UNSUPPORTED, "th_f32_cumprod", "the empty companion has no reductions");
    CHECK_INT_EQ(th_register_device_ops(FAKE, NULL), TH_OK);
    CHECK_NULL(th_f32_sum_dim(a, 0, false), TH_ERR_DEVICE, "th_f32_sum_dim", "no companion has registered ops");
    CHECK_FAILS(th_f32_max_dim_out(o3, NULL, a, 0, false), TH_ERR_DEVICE, "th_f32_max_dim_out", "no companion");
    CHECK_INT_EQ(th_register_device_ops(FAKE, &fake_ops), TH_OK);
    CHECK(seen.calls == calls);
    th_f32_release(hs);
    th_i64_release(hi);
    th_i32_release(oi32);
    th_f32_release(bc2);
    th_f32_release(bcast);
    th_f32_release(hz);
    th_f32_release(h0);
    th_f32_release(h);
    th_f32_release(o0);
    th_f32_release(e);
    th_f32_release(o3);
    th_f32_release(o1);
    th_f32_release(a);
}

/* A fake-device f32 tensor of that shape, uninitialised. */
static th_f32_tensor *fake_empty(int ndim, const int64_t *sizes)
{
    use_fake(0);
    th_f32_tensor *t = th_f32_empty(ndim, sizes);
    use_fake(-1);
    return t;
}

static bool same_f32(const th_f32_tensor *a, const th_f32_tensor *b)
{
    return a && b && th_f32_numel(a) == th_f32_numel(b) &&
           memcmp(th_f32_data(a), th_f32_data(b), (size_t)th_f32_numel(a) * sizeof(float)) == 0;
}

static void test_random(void)
{
    th_generator *g = th_generator_new(77), *h = th_generator_new(77);
    th_f32_tensor *d = fake_empty(2, SZ(3, 4));
    /* a draw reaches the companion with the generator's state and the sampler's values, and advances the
     * generator as a host draw does */
    th_generator_set_state(g, (th_generator_state){77, 1000});
    th_generator_set_state(h, (th_generator_state){77, 1000});
    memset(&rnd, 0, sizeof rnd);
    CHECK_INT_EQ(th_f32_uniform_inplace(d, -1.0, 0.5, g), TH_OK);
    CHECK(rnd.calls == 1 && strcmp(rnd.op, "uniform") == 0 && rnd.call.dtype == TH_F32 && rnd.out == th_f32_base(d));
    CHECK(rnd.call.seed == 77 && rnd.call.offset == 1000 && rnd.call.a == -1.0 && rnd.call.b == 0.5);
    CHECK(rnd.call.top == (double)nextafterf(0.5f, -1.0f));
    CHECK(th_generator_get_state(g).offset == 1012);
    th_f32_tensor *c = th_f32_uniform(2, SZ(3, 4), -1.0, 0.5, h);
    CHECK(same_f32(c, d));
    th_f32_release(c);
    /* every sampler's name and values */
    CHECK_INT_EQ(th_f32_normal_inplace(d, 2.0, 0.25, g), TH_OK);
    CHECK(strcmp(rnd.op, "normal") == 0 && rnd.call.a == 2.0 && rnd.call.b == 0.25 && rnd.call.offset == 1012);
    c = th_f32_normal(2, SZ(3, 4), 2.0, 0.25, h);
    CHECK(same_f32(c, d));
    th_f32_release(c);
    CHECK_INT_EQ(th_f32_exponential_inplace(d, 3.0, g), TH_OK);
    CHECK(strcmp(rnd.op, "exponential") == 0 && rnd.call.a == 3.0 && rnd.call.offset == 1024);
    c = th_f32_exponential(2, SZ(3, 4), 3.0, h);
    CHECK(same_f32(c, d));
    th_f32_release(c);
    CHECK_INT_EQ(th_f32_bernoulli_inplace(d, 0.3, g), TH_OK);
    CHECK(strcmp(rnd.op, "bernoulli") == 0 && rnd.call.a == 0.3 && rnd.call.offset == 1036);
    c = th_f32_bernoulli(2, SZ(3, 4), 0.3, h);
    CHECK(same_f32(c, d));
    th_f32_release(c);
    CHECK_INT_EQ(th_f32_randint_inplace(d, -5, 1000000007, g), TH_OK);
    CHECK(strcmp(rnd.op, "randint") == 0 && rnd.call.lo == -5 && rnd.call.range == 1000000012u);
    c = th_f32_randint(2, SZ(3, 4), -5, 1000000007, h);
    CHECK(same_f32(c, d));
    th_f32_release(c);
    /* randint's full int64 range is range 0 */
    use_fake(0);
    th_i64_tensor *wide = th_i64_empty(1, SZ(2));
    th_i32_tensor *ints = th_i32_empty(1, SZ(5));
    th_bool_tensor *bits = th_bool_empty(1, SZ(9));
    use_fake(-1);
    int calls = rnd.calls;
    CHECK_FAILS(th_i64_randint_inplace(wide, INT64_MIN, INT64_MAX, g), TH_ERR_UNSUPPORTED, "th_i64_randint_inplace",
                "fake: no randint on i64");
    CHECK(rnd.calls == calls + 1 && rnd.call.range == UINT64_MAX && rnd.call.lo == INT64_MIN);
    CHECK_INT_EQ(th_i32_randint_inplace(ints, 10, 20, g), TH_OK);
    CHECK(rnd.call.dtype == TH_I32 && rnd.call.lo == 10 && rnd.call.range == 10);
    CHECK_INT_EQ(th_bool_bernoulli_inplace(bits, 0.5, g), TH_OK);
    CHECK(rnd.call.dtype == TH_BOOL && rnd.call.a == 0.5);
    th_generator_state after = th_generator_get_state(g);
    th_generator_set_state(h, after);
    CHECK(after.offset == 1060 + 5 + 9); /* the failed i64 draw gave its 2 blocks back */

    /* a mixed sequence (host 5, device 7 transposed, host 3) gives one host draw of 15, element i of the device
     * draw in row-major order whatever its strides */
    th_generator_set_state(g, (th_generator_state){9, 40});
    th_generator_set_state(h, (th_generator_state){9, 40});
    th_f32_tensor *a = th_f32_uniform(1, SZ(5), 0.0, 1.0, g);
    th_f32_tensor *dev = fake_empty(2, SZ(7, 1)), *dt = th_f32_transpose(dev, 0, 1);
    CHECK_INT_EQ(th_f32_uniform_inplace(dt, 0.0, 1.0, g), TH_OK);
    th_f32_tensor *b = th_f32_uniform(1, SZ(3), 0.0, 1.0, g);
    th_f32_tensor *all = th_f32_uniform(1, SZ(15), 0.0, 1.0, h);
    bool ok = a && b && all;
    for (int i = 0; ok && i < 15; i++) {
        float x = i < 5 ? th_f32_data(a)[i] : i < 12 ? th_f32_data(dev)[i - 5] : th_f32_data(b)[i - 12];
        ok = x == th_f32_data(all)[i];
    }
    CHECK(ok);
    CHECK(th_generator_get_state(g).offset == 55 && th_generator_get_state(h).offset == 55);
    th_f32_release(all);
    th_f32_release(b);
    th_f32_release(a);
    /* a transposed (3, 4) view: the companion gets the view as it is; its values are the host's for a view of
     * that shape */
    th_f32_tensor *dd_base = fake_empty(2, SZ(4, 3)), *dd = th_f32_transpose(dd_base, 0, 1);
    th_f32_tensor *host_base = th_f32_empty(2, SZ(4, 3)), *host_t = th_f32_transpose(host_base, 0, 1);
    th_generator_set_state(g, (th_generator_state){5, 0});
    th_generator_set_state(h, (th_generator_state){5, 0});
    CHECK_INT_EQ(th_f32_normal_inplace(dd, 0.0, 1.0, g), TH_OK);
    CHECK(rnd.out == th_f32_base(dd) && th_f32_strides(dd)[0] == 1);
    CHECK_INT_EQ(th_f32_normal_inplace(host_t, 0.0, 1.0, h), TH_OK);
    CHECK(same_f32(dd_base, host_base));
    th_f32_release(host_t);
    th_f32_release(host_base);
    th_f32_release(dd);
    th_f32_release(dd_base);

    /* a new tensor from a default allocator that hands out device memory: drawn by the companion */
    th_generator_set_state(g, (th_generator_state){3, 0});
    th_generator_set_state(h, (th_generator_state){3, 0});
    calls = rnd.calls;
    use_fake(0);
    th_f32_tensor *made = th_f32_uniform(1, SZ(6), 1.0, 2.0, g);
    use_fake(-1);
    c = th_f32_uniform(1, SZ(6), 1.0, 2.0, h);
    CHECK(made && rnd.calls == calls + 1 && th_storage_device(th_f32_storage(made)).type == FAKE && same_f32(made, c));
    th_f32_release(c);
    th_f32_release(made);

    /* refused on the host, before the companion and without moving the generator */
    calls = rnd.calls;
    after = th_generator_get_state(g);
    CHECK_FAILS(th_f32_uniform_inplace(d, 1.0, 1.0, g), TH_ERR_INVALID, "th_f32_uniform_inplace", "[1, 1)");
    CHECK_FAILS(th_f32_bernoulli_inplace(d, 1.5, g), TH_ERR_INVALID, "th_f32_bernoulli_inplace", "1.5");
    CHECK_FAILS(th_i32_randint_inplace(ints, 0, INT64_C(1) << 40, g), TH_ERR_RANGE, "th_i32_randint_inplace",
                "do not fit");
    th_f32_tensor *one = th_f32_narrow(dev, 0, 0, 1), *expanded = th_f32_expand(one, 2, SZ(3, 4));
    CHECK_FAILS(th_f32_uniform_inplace(expanded, 0.0, 1.0, g), TH_ERR_INVALID, "th_f32_uniform_inplace",
                "overlaps its other dims");
    CHECK_FAILS(th_f32_uniform_inplace((th_f32_tensor *)(void *)ints, 0.0, 1.0, g), TH_ERR_DTYPE,
                "th_f32_uniform_inplace", "i32");
    CHECK(rnd.calls == calls && th_generator_get_state(g).offset == after.offset);
    /* a companion without random numbers; none at all */
    CHECK_INT_EQ(th_register_device_ops(FAKE, &no_ops), TH_OK);
    CHECK_FAILS(th_f32_uniform_inplace(d, 0.0, 1.0, g), TH_ERR_UNSUPPORTED, "th_f32_uniform_inplace",
                "the empty companion has no random numbers");
    CHECK_INT_EQ(th_register_device_ops(FAKE, NULL), TH_OK);
    CHECK_FAILS(th_f32_normal_inplace(d, 0.0, 1.0, g), TH_ERR_DEVICE, "th_f32_normal_inplace",
                "no companion has registered ops");
    CHECK_INT_EQ(th_register_device_ops(FAKE, &fake_ops), TH_OK);
    CHECK(rnd.calls == calls && th_generator_get_state(g).offset == after.offset);
    /* the companion fails: the blocks go back; unless another draw took blocks in between, whose numbers
     * must not be handed out again */
    rnd.fail = 1;
    CHECK_FAILS(th_f32_uniform_inplace(d, 0.0, 1.0, g), TH_ERR_DEVICE, "th_f32_uniform_inplace", "device is gone");
    CHECK(rnd.calls == calls + 1 && rnd.call.offset == after.offset && th_generator_get_state(g).offset == after.offset);
    rnd.fail = 2;
    rnd.other = g;
    CHECK_FAILS(th_f32_uniform_inplace(d, 0.0, 1.0, g), TH_ERR_DEVICE, "th_f32_uniform_inplace", "device is gone");
    CHECK(th_generator_get_state(g).offset == after.offset + 12 + 2);
    rnd.fail = 0;
    /* the default generator (NULL) is the one drawn from */
    th_manual_seed(31);
    CHECK_INT_EQ(th_f32_uniform_inplace(d, 0.0, 1.0, NULL), TH_OK);
    CHECK(rnd.call.seed == 31 && rnd.call.offset == 0 && th_generator_get_state(NULL).offset == 12);
    th_f32_release(expanded);
    th_f32_release(one);
    th_f32_release(dt);
    th_f32_release(dev);
    th_bool_release(bits);
    th_i32_release(ints);
    th_i64_release(wide);
    th_f32_release(d);
    th_generator_free(h);
    th_generator_free(g);
}

static th_i64_tensor *idx_on_fake(int dev, int ndim, const int64_t *sizes, const int64_t *values)
{
    use_fake(dev);
    th_i64_tensor *t = th_i64_empty(ndim, sizes);
    use_fake(-1);
    memcpy(th_i64_data(t), values, (size_t)th_i64_numel(t) * sizeof(int64_t));
    return t;
}

static th_bool_tensor *mask_on_fake(int dev, int ndim, const int64_t *sizes, const bool *values)
{
    use_fake(dev);
    th_bool_tensor *t = th_bool_empty(ndim, sizes);
    use_fake(-1);
    memcpy(th_bool_data(t), values, (size_t)th_bool_numel(t) * sizeof(bool));
    return t;
}

static bool on_fake_device(const th_f32_tensor *t) { return th_storage_device(th_f32_storage(t)).type == FAKE; }

/* Every indexing op with device operands reaches the companion, named, with its operands and values. */
static void test_index_dispatch(void)
{
    const float av[6] = {1, 2, 3, 4, 5, 6}, sv[6] = {10, 20, 30, 40, 50, 60};
    const int64_t iv[2] = {2, -3}, gv[4] = {1, 0, 0, 1};
    const bool mv[3] = {true, false, true};
    th_f32_tensor *a = on_fake(0, 2, SZ(2, 3), av), *src = on_fake(0, 2, SZ(2, 3), sv);
    th_i64_tensor *ix = idx_on_fake(0, 1, SZ(2), iv), *gx = idx_on_fake(0, 2, SZ(2, 2), gv);
    th_bool_tensor *m = mask_on_fake(0, 1, SZ(3), mv);
    memset(&seen_ix, 0, sizeof seen_ix);

    /* index_select: dim wrapped (-1 -> 1), the operands as given, a new result on the device */
    th_f32_tensor *sel = th_f32_index_select(a, -1, ix); /* columns 2, 0 */
    CHECK(sel && seen_ix.calls == 1 && strcmp(seen_ix.op, "index_select") == 0 && seen_ix.dtype == TH_F32);
    CHECK(seen_ix.dim == 1 && seen_ix.self == th_f32_base(a) && seen_ix.index == th_i64_base(ix) && !seen_ix.mask &&
          !seen_ix.src && !seen_ix.out && isnan(seen_ix.value) && !seen_ix.accumulate);
    CHECK(sel && on_fake_device(sel) && th_f32_numel(sel) == 4 && at(sel, 0) == 3 && at(sel, 1) == 1 && at(sel, 3) == 4);
    th_f32_tensor *o22 = on_fake(0, 2, SZ(2, 2), sv);
    CHECK_INT_EQ(th_f32_index_select_out(o22, a, 1, ix), TH_OK);
    CHECK(seen_ix.calls == 2 && seen_ix.out == th_f32_base(o22) && at(o22, 2) == 6);
    /* gather */
    th_f32_tensor *g = th_f32_gather(a, 1, gx); /* [[2, 1], [4, 5]] */
    CHECK(g && seen_ix.calls == 3 && strcmp(seen_ix.op, "gather") == 0 && seen_ix.dim == 1 &&
          seen_ix.index == th_i64_base(gx));
    CHECK(g && on_fake_device(g) && at(g, 0) == 2 && at(g, 1) == 1 && at(g, 2) == 4 && at(g, 3) == 5);
    CHECK_INT_EQ(th_f32_gather_out(o22, a, -2, gx), TH_OK); /* dim 0: [[4, 2], [1, 5]] */
    CHECK(seen_ix.calls == 4 && seen_ix.dim == 0 && seen_ix.out == th_f32_base(o22) && at(o22, 0) == 4 && at(o22, 2) == 1);
    /* scatter and scatter_add: new (out NULL, self copied) and in place (out is self) */
    th_f32_tensor *sc = th_f32_scatter(a, 1, gx, src); /* row 0: cols 1, 0 <- 10, 20; row 1: cols 0, 1 <- 40, 50 */
    CHECK(sc && seen_ix.calls == 5 && strcmp(seen_ix.op, "scatter") == 0 && !seen_ix.out &&
          seen_ix.src == th_f32_base(src));
    CHECK(sc && on_fake_device(sc) && at(sc, 0) == 20 && at(sc, 1) == 10 && at(sc, 2) == 3 && at(sc, 3) == 40);
    CHECK(at(a, 0) == 1); /* a untouched */
    th_f32_tensor *sa = th_f32_scatter_add(a, 1, gx, src);
    CHECK(sa && seen_ix.calls == 6 && strcmp(seen_ix.op, "scatter_add") == 0 && at(sa, 0) == 21 && at(sa, 4) == 55);
    th_f32_tensor *t = on_fake(0, 2, SZ(2, 3), av);
    CHECK_INT_EQ(th_f32_scatter_add_inplace(t, 0, gx, src), TH_OK); /* col 0 <- rows 1, 0 += 10, 40 */
    CHECK(seen_ix.calls == 7 && seen_ix.out == th_f32_base(t) && seen_ix.self == th_f32_base(t) && seen_ix.dim == 0);
    CHECK(at(t, 0) == 41 && at(t, 3) == 14 && at(t, 1) == 22 && at(t, 4) == 55);
    CHECK_INT_EQ(th_f32_scatter_inplace(t, 0, gx, src), TH_OK);
    CHECK(seen_ix.calls == 8 && strcmp(seen_ix.op, "scatter") == 0 && at(t, 0) == 40 && at(t, 3) == 10);
    /* masked_fill: the value as an element of the dtype; mask broadcast along rows */
    th_f32_tensor *mf = th_f32_masked_fill(a, m, -1.5f);
    CHECK(mf && seen_ix.calls == 9 && strcmp(seen_ix.op, "masked_fill") == 0 && seen_ix.value == -1.5f &&
          seen_ix.mask == th_bool_base(m) && !seen_ix.index && !seen_ix.out);
    CHECK(mf && on_fake_device(mf) && at(mf, 0) == -1.5f && at(mf, 1) == 2 && at(mf, 5) == -1.5f);
    th_f32_tensor *o23 = on_fake(0, 2, SZ(2, 3), sv);
    CHECK_INT_EQ(th_f32_masked_fill_out(o23, a, m, 7.0f), TH_OK);
    CHECK(seen_ix.calls == 10 && seen_ix.out == th_f32_base(o23) && at(o23, 3) == 7 && at(o23, 4) == 5);
    CHECK_INT_EQ(th_f32_masked_fill_inplace(t, m, 0.25f), TH_OK);
    CHECK(seen_ix.calls == 11 && seen_ix.out == th_f32_base(t) && at(t, 2) == 0.25f && at(t, 1) == 20);
    /* take and put: flat indices */
    th_f32_tensor *tk = th_f32_take(a, gx);
    CHECK(tk && seen_ix.calls == 12 && strcmp(seen_ix.op, "take") == 0 && at(tk, 0) == 2 && at(tk, 1) == 1);
    CHECK_INT_EQ(th_f32_take_out(o22, a, gx), TH_OK);
    CHECK(seen_ix.calls == 13 && seen_ix.out == th_f32_base(o22) && at(o22, 3) == 2);
    th_f32_tensor *pv = on_fake(0, 1, SZ(2), (const float[]){100, 200});
    th_f32_tensor *pu = th_f32_put(a, ix, pv, true); /* flat 2 += 100, flat -3 (3) += 200 */
    CHECK(pu && seen_ix.calls == 14 && strcmp(seen_ix.op, "put") == 0 && seen_ix.accumulate && !seen_ix.out);
    CHECK(pu && on_fake_device(pu) && at(pu, 2) == 103 && at(pu, 3) == 204 && at(pu, 4) == 5);
    CHECK_INT_EQ(th_f32_put_inplace(t, ix, pv, false), TH_OK);
    CHECK(seen_ix.calls == 15 && !seen_ix.accumulate && seen_ix.out == th_f32_base(t) && at(t, 2) == 100 &&
          at(t, 3) == 200);
    /* masked_select and nonzero reach the companion too (this one has neither) */
    CHECK_NULL(th_f32_masked_select(a, m), TH_ERR_UNSUPPORTED, "th_f32_masked_select", "fake: no masked_select");
    CHECK(seen_ix.calls == 16 && seen_ix.mask == th_bool_base(m));
    CHECK_NULL(th_f32_nonzero(a), TH_ERR_UNSUPPORTED, "th_f32_nonzero", "fake: no nonzero");
    CHECK(seen_ix.calls == 17 && strcmp(seen_ix.op, "nonzero") == 0 && seen_ix.self == th_f32_base(a));
    /* the dtype is the typed name's */
    use_fake(0);
    th_i16_tensor *i16 = th_i16_empty(1, SZ(3));
    use_fake(-1);
    CHECK_NULL(th_i16_take(i16, gx), TH_ERR_UNSUPPORTED, "th_i16_take", "fake: f32 only");
    CHECK(seen_ix.calls == 18 && seen_ix.dtype == TH_I16);
    /* an index the host cannot check goes to the companion, whose check refuses it */
    th_i64_tensor *far = idx_on_fake(0, 1, SZ(2), (const int64_t[]){0, 3});
    CHECK_NULL(th_f32_index_select(a, 1, far), TH_ERR_RANGE, "th_f32_index_select", "index 3 is out of range");
    CHECK(seen_ix.calls == 19);
    /* the host's own indexing is untouched by the registration */
    th_f32_tensor *h = th_f32_full(1, SZ(3), 2.0f);
    th_i64_tensor *hx = th_i64_zeros(1, SZ(2));
    th_f32_tensor *hs = th_f32_index_select(h, 0, hx);
    CHECK(hs && seen_ix.calls == 19 && th_f32_data(hs)[1] == 2.0f);
    th_f32_release(hs);
    th_i64_release(hx);
    th_f32_release(h);
    th_i64_release(far);
    th_i16_release(i16);
    th_f32_release(pu);
    th_f32_release(pv);
    th_f32_release(tk);
    th_f32_release(o23);
    th_f32_release(mf);
    th_f32_release(t);
    th_f32_release(sa);
    th_f32_release(sc);
    th_f32_release(g);
    th_f32_release(o22);
    th_f32_release(sel);
    th_bool_release(m);
    th_i64_release(gx);
    th_i64_release(ix);
    th_f32_release(src);
    th_f32_release(a);
}

/* What the host refuses before any companion is asked: everything it can tell without reading memory. */
static void test_index_refusals(void)
{
    const float av[6] = {1, 2, 3, 4, 5, 6};
    const int64_t iv[4] = {0, 1, 1, 0};
    const bool mv[6] = {true, false, true, false, true, false};
    th_f32_tensor *a = on_fake(0, 2, SZ(2, 3), av), *a1 = on_fake(1, 2, SZ(2, 3), av);
    th_i64_tensor *ix = idx_on_fake(0, 1, SZ(2), iv), *gx = idx_on_fake(0, 2, SZ(2, 2), iv);
    th_i64_tensor *ix1 = idx_on_fake(1, 2, SZ(2, 2), iv), *x3 = idx_on_fake(0, 3, SZ(1, 2, 2), iv);
    th_bool_tensor *m = mask_on_fake(0, 2, SZ(2, 3), mv), *m2 = mask_on_fake(0, 1, SZ(2), mv);
    use_fake(0); /* contents never read: the host refuses these first */
    th_i32_tensor *i32 = th_i32_empty(1, SZ(2));
    th_u8_tensor *u8 = th_u8_empty(2, SZ(2, 3));
    th_f64_tensor *f64 = th_f64_empty(2, SZ(2, 3));
    th_f32_tensor *o33 = th_f32_empty(2, SZ(3, 3)), *o22 = th_f32_empty(2, SZ(2, 2)), *s0 = th_f32_empty(0, NULL);
    th_f32_tensor *row = th_f32_empty(1, SZ(3));
    use_fake(-1);
    th_f32_tensor *wide = th_f32_expand(row, 2, SZ(2, 3)); /* two rows at one address */
    th_f32_tensor *h = th_f32_zeros(2, SZ(2, 3)), *h22 = th_f32_zeros(2, SZ(2, 2));
    th_i64_tensor *hx = th_i64_zeros(1, SZ(2)), *hx0 = th_i64_zeros(0, NULL);
    const int calls = seen_ix.calls;

    /* dtypes: the index's, the mask's, src's, out's */
    CHECK_NULL(th_f32_index_select(a, 0, (const th_i64_tensor *)(const void *)i32), TH_ERR_DTYPE,
               "th_f32_index_select", "index is i32; it must be i64");
    CHECK_NULL(th_f32_masked_fill(a, (const th_bool_tensor *)(const void *)u8, 0.0f), TH_ERR_DTYPE,
               "th_f32_masked_fill", "mask is u8; it must be bool");
    CHECK_NULL(th_f32_scatter(a, 0, gx, (const th_f32_tensor *)(const void *)f64), TH_ERR_DTYPE, "th_f32_scatter",
               "src is f64, the tensor f32");
    CHECK_FAILS(th_f32_put_inplace(a, ix, (const th_f32_tensor *)(const void *)f64, false), TH_ERR_DTYPE,
                "th_f32_put_inplace", "src is f64");
    CHECK_FAILS(th_f32_gather_out((th_f32_tensor *)(void *)f64, a, 0, gx), TH_ERR_DTYPE, "th_f32_gather_out",
                "out is f64; this result is f32");
    /* dims and shapes */
    CHECK_NULL(th_f32_index_select(a, 2, ix), TH_ERR_RANGE, "th_f32_index_select", "dim 2 is out of range");
    CHECK_NULL(th_f32_gather(a, -3, gx), TH_ERR_RANGE, "th_f32_gather", "dim -3 is out of range");
    CHECK_NULL(th_f32_index_select(a, 0, gx), TH_ERR_SHAPE, "th_f32_index_select", "index has 2 dims");
    CHECK_NULL(th_f32_index_select(s0, 0, ix), TH_ERR_SHAPE, "th_f32_index_select", "a 0-d tensor takes exactly one index");
    CHECK_NULL(th_f32_gather(a, 0, x3), TH_ERR_SHAPE, "th_f32_gather", "index has 3 dims");
    CHECK_NULL(th_f32_scatter(o22, 0, x3, a), TH_ERR_SHAPE, "th_f32_scatter", "index has 3 dims");
    CHECK_NULL(th_f32_gather(o22, 0, ix), TH_ERR_SHAPE, "th_f32_gather", "index has 1 dims");
    CHECK_FAILS(th_f32_scatter_add_inplace(o22, 0, gx, row), TH_ERR_SHAPE, "th_f32_scatter_add_inplace",
                "src has another count");
    CHECK_NULL(th_f32_masked_fill(a, m2, 0.0f), TH_ERR_SHAPE, "th_f32_masked_fill", "do not broadcast");
    CHECK_FAILS(th_f32_masked_fill_inplace(row, m, 0.0f), TH_ERR_SHAPE, "th_f32_masked_fill_inplace",
                "shape (2, 3) does not broadcast to (3)");
    CHECK_NULL(th_f32_masked_select(a, m2), TH_ERR_SHAPE, "th_f32_masked_select", "do not broadcast");
    CHECK_NULL(th_f32_put(a, gx, row, true), TH_ERR_SHAPE, "th_f32_put", "index has 4 elements but src has 3");
    /* index longer than the tensor outside dim, or than src */
    th_i64_tensor *tall = idx_on_fake(0, 2, SZ(1, 4), iv);
    CHECK_NULL(th_f32_gather(a, 0, tall), TH_ERR_SHAPE, "th_f32_gather", "index has size 4 in dim 1, more than the tensor's 3");
    CHECK_FAILS(th_f32_scatter_inplace(o33, 0, tall, a), TH_ERR_SHAPE, "th_f32_scatter_inplace",
                "index has size 4 in dim 1, more than the tensor's 3");
    /* outs: shape, self-overlap; in-place targets the same */
    CHECK_FAILS(th_f32_index_select_out(o33, a, 1, ix), TH_ERR_SHAPE, "th_f32_index_select_out",
                "out has shape (3, 3); the result has shape (2, 2)");
    CHECK_FAILS(th_f32_take_out(o33, a, ix), TH_ERR_SHAPE, "th_f32_take_out", "the result has shape (2)");
    CHECK_FAILS(th_f32_masked_fill_out(o22, a, m, 1.0f), TH_ERR_SHAPE, "th_f32_masked_fill_out", "out has shape (2, 2)");
    CHECK_FAILS(th_f32_masked_fill_out(wide, a, m, 1.0f), TH_ERR_INVALID, "th_f32_masked_fill_out",
                "several elements share an address");
    CHECK_FAILS(th_f32_scatter_inplace(wide, 0, gx, a), TH_ERR_INVALID, "th_f32_scatter_inplace",
                "several elements share an address");
    CHECK_FAILS(th_f32_put_inplace(wide, gx, o22, false), TH_ERR_INVALID, "th_f32_put_inplace",
                "several elements share an address");
    CHECK_FAILS(th_f32_masked_fill_inplace(wide, m, 1.0f), TH_ERR_INVALID, "th_f32_masked_fill_inplace",
                "several elements share an address");
    /* NULLs */
    CHECK_NULL(th_f32_take(a, NULL), TH_ERR_INVALID, "th_f32_take", "NULL index");
    CHECK_FAILS(th_f32_scatter_inplace(a, 0, gx, NULL), TH_ERR_INVALID, "th_f32_scatter_inplace", "NULL src");
    CHECK_NULL(th_f32_masked_fill(NULL, m, 1.0f), TH_ERR_INVALID, "th_f32_masked_fill", "NULL tensor");
    /* devices: two of them, a host tensor among device ones (a 0-d one too: no scalars here) */
    CHECK_NULL(th_f32_index_select(a1, 0, ix), TH_ERR_DEVICE, "th_f32_index_select",
               "operand 1 is on device 20:1 and operand 2 on device 20:0");
    CHECK_NULL(th_f32_gather(a, 0, (th_i64_tensor *)(void *)ix1), TH_ERR_DEVICE, "th_f32_gather", "device 20:1");
    CHECK_NULL(th_f32_index_select(a, 0, hx), TH_ERR_DEVICE, "th_f32_index_select", "on device 1:0");
    CHECK_NULL(th_f32_index_select(h, 0, ix), TH_ERR_DEVICE, "th_f32_index_select", "operand 1 is on device 1:0");
    CHECK_NULL(th_f32_index_select(a, 1, hx0), TH_ERR_DEVICE, "th_f32_index_select",
               "operand 2 is a 0-d tensor on the host and the others are on device 20:0");
    CHECK_FAILS(th_f32_gather_out(h22, a, 0, gx), TH_ERR_DEVICE, "th_f32_gather_out",
                "out is on device 1:0 and operand 1 on device 20:0");
    CHECK_FAILS(th_f32_masked_fill_out(a, h, m, 1.0f), TH_ERR_DEVICE, "th_f32_masked_fill_out",
                "out is on device 20:0 and operand 1 on device 1:0");
    CHECK(seen_ix.calls == calls);
    /* a companion without indexing ops; then none at all */
    CHECK_INT_EQ(th_register_device_ops(FAKE, &no_ops), TH_OK);
    CHECK_NULL(th_f32_gather(a, 1, gx), TH_ERR_UNSUPPORTED, "th_f32_gather", "the empty companion has no indexing ops");
    CHECK_FAILS(th_f32_masked_fill_inplace(a, m, 1.0f), TH_ERR_UNSUPPORTED, "th_f32_masked_fill_inplace",
                "no indexing ops");
    CHECK_INT_EQ(th_register_device_ops(FAKE, NULL), TH_OK);
    CHECK_NULL(th_f32_take(a, ix), TH_ERR_DEVICE, "th_f32_take", "no companion has registered ops");
    CHECK_INT_EQ(th_register_device_ops(FAKE, &fake_ops), TH_OK);
    CHECK(seen_ix.calls == calls);
    CHECK(th_f32_data(a)[0] == 1 && th_f32_data(a)[5] == 6); /* nothing written */
    th_i64_release(tall);
    th_i64_release(hx0);
    th_i64_release(hx);
    th_f32_release(h22);
    th_f32_release(h);
    th_f32_release(wide);
    th_f32_release(row);
    th_f32_release(s0);
    th_f32_release(o22);
    th_f32_release(o33);
    th_f64_release(f64);
    th_u8_release(u8);
    th_i32_release(i32);
    th_bool_release(m2);
    th_bool_release(m);
    th_i64_release(x3);
    th_i64_release(ix1);
    th_i64_release(gx);
    th_i64_release(ix);
    th_f32_release(a1);
    th_f32_release(a);
}

int main(void)
{
    test_begin();
    test_register();
    test_dispatch();
    test_refusals();
    test_products();
    test_reduce_calls();
    test_reduce_outs();
    test_reduce_refusals();
    test_random();
    test_index_dispatch();
    test_index_refusals();
    CHECK_INT_EQ(th_register_device_ops(FAKE, NULL), TH_OK);
    CHECK_INT_EQ(fake_live, 0);
    return test_end("test_device_ops");
}
