/* tests/cuda/test_cuda_indexing.c: the index math of the device's indexing ops (cuda/index_plan.h) run over host
 * buffers against the CPU's ops, bit for bit. No GPU needed.
 *
 * For each op (index_select, gather, take, scatter, scatter_add, masked_fill) x form (new, _out, _inplace) x
 * every dtype, random cases (index_cases.h: random layouts, 0-d and size-0 dims, negative and repeated
 * indices) are run twice: by the CPU's typed function, and by the steps the kernels run (the plan's offsets,
 * 32-bit ones checked equal to 64-bit ones at every element, then th__cuda_ix_pick_at, th__cuda_ix_scatter_at
 * and th__cuda_ix_add) in the order cuda/index.c queues them: the range check, then the op. The written
 * tensor's whole storage must match (so nothing is written outside it), and a case with an index out of range
 * must fail with the CPU's message and leave it untouched. */
#include "tensor.h"
#include "index_cases.h"
#include "../../cuda/index_plan.h"

#include <stdio.h>

static int runs, elements, refusals;

/* Plan element i's offsets, 64-bit, and the 32-bit ones equal to them wherever the plan allows those. */
static void offsets(const th__cuda_plan *p, int64_t i, int64_t *off)
{
    th__cuda_plan_offsets(p, i, off);
    if (p->use32) {
        int32_t o32[TH_CUDA_PLAN_MAX_OPS];
        th__cuda_plan_offsets32(p, (int32_t)i, o32);
        for (int k = 0; k < TH_CUDA_PLAN_MAX_OPS; k++) CHECK_INT_EQ(o32[k], off[k]);
    }
}

/* The device's range check (cuda/index.c): the first plan element whose value is out of range, recorded with
 * the host's words. */
static int check_range(const char *fn, const th_tensor *index, int64_t bound, const char *where)
{
    th__cuda_plan plan;
    const th_tensor *ops[1] = {index};
    CHECK(th__cuda_plan_elementwise(&plan, 1, ops));
    for (int64_t i = 0; i < plan.numel; i++) {
        int64_t off[TH_CUDA_PLAN_MAX_OPS];
        offsets(&plan, i, off);
        const int64_t v = th__cuda_ix_load((const char *)th_tensor_data(index) + off[0]);
        if (th__cuda_ix_wrap(v, bound) < 0)
            return th_set_error(TH_ERR_RANGE, fn, "index %lld is out of range for %s (valid: %lld..%lld)",
                                (long long)v, where, (long long)-bound, (long long)(bound - 1));
    }
    return TH_OK;
}

static th_tensor *host_empty(th_dtype dt, int ndim, const int64_t *sizes)
{
    int64_t n = 1;
    for (int k = 0; k < ndim; k++) n *= sizes[k];
    th_storage *st = th_storage_new(n * (int64_t)th_dtype_info(dt)->size, NULL, NULL);
    th_tensor *t = th_tensor_new_with_storage(dt, st, 0, ndim, sizes, NULL);
    th_storage_release(st);
    return t;
}

static th_tensor *host_clone(const th_tensor *t)
{
    th_tensor *c = host_empty(th_tensor_dtype(t), th_tensor_ndim(t), th_tensor_sizes(t));
    th_tensor_copy(c, t);
    return c;
}

/* A copy of t over a copy of its whole storage, in t's layout. */
static th_tensor *deep_copy(const th_tensor *t)
{
    if (!t) return NULL;
    th_storage *s = th_tensor_storage(t);
    th_storage *c = th_storage_new(th_storage_nbytes(s), NULL, NULL);
    memcpy(th_storage_raw_data(c), th_storage_raw_data(s), (size_t)th_storage_nbytes(s));
    th_tensor *r = th_tensor_new_with_storage(th_tensor_dtype(t), c, th_tensor_offset(t), th_tensor_ndim(t),
                                              th_tensor_sizes(t), th_tensor_strides(t));
    th_storage_release(c);
    return r;
}

static void case_copy(ix_case *dst, const ix_case *src)
{
    *dst = *src;
    dst->self = deep_copy(src->self);
    dst->index = deep_copy(src->index);
    dst->mask = deep_copy(src->mask);
    dst->src = deep_copy(src->src);
    dst->out = deep_copy(src->out);
}

/* The kernels' steps on host buffers: the op of c, as cuda/index.c runs it. */
static th_tensor *emulate(const ix_case *c, int *rc)
{
    const char *fn = "emulated";
    const th_tensor *self = c->self;
    const int nd = th_tensor_ndim(self);
    const int d = c->op == IX_MASKED_FILL || c->op == IX_TAKE ? 0 : c->dim < 0 ? c->dim + (nd > 0 ? nd : 1) : c->dim;
    const int64_t es = (int64_t)th_dtype_info(c->dt)->size;
    *rc = TH_OK;
    char where[96];
    if (c->op == IX_TAKE) snprintf(where, sizeof where, "a tensor of %lld elements", (long long)th_tensor_numel(self));
    else snprintf(where, sizeof where, "dim %d of size %lld", d, (long long)(nd > 0 ? th_tensor_sizes(self)[d] : 1));
    if (c->op != IX_MASKED_FILL) {
        const int64_t bound = c->op == IX_TAKE ? th_tensor_numel(self) : nd > 0 ? th_tensor_sizes(self)[d] : 1;
        if ((*rc = check_range(fn, c->index, bound, where)) != TH_OK) return NULL;
    }
    th_tensor *result = NULL;
    if (c->op == IX_INDEX_SELECT || c->op == IX_GATHER || c->op == IX_TAKE) {
        int64_t sizes[TH_MAX_DIMS];
        if (c->op == IX_INDEX_SELECT) {
            memcpy(sizes, th_tensor_sizes(self), (size_t)nd * sizeof *sizes);
            if (nd > 0) sizes[d] = th_tensor_numel(c->index);
            result = c->out ? th_tensor_retain(c->out) : host_empty(c->dt, nd, sizes);
        } else {
            result = c->out ? th_tensor_retain(c->out)
                            : host_empty(c->dt, th_tensor_ndim(c->index), th_tensor_sizes(c->index));
        }
        th__cuda_ix_pick p;
        bool planned = c->op == IX_TAKE           ? th__cuda_ix_plan_take(&p, result, self, c->index)
                       : c->op == IX_INDEX_SELECT ? th__cuda_ix_plan_index_select(&p, result, self, d, c->index)
                                                  : th__cuda_ix_plan_gather(&p, result, self, d, c->index);
        CHECK(planned);
        for (int64_t i = 0; planned && i < p.plan.numel; i++) {
            int64_t off[TH_CUDA_PLAN_MAX_OPS], so = 0;
            offsets(&p.plan, i, off);
            bool ok = th__cuda_ix_pick_at(&p, off, (const char *)th_tensor_data(c->index), &so);
            CHECK(ok); /* the range check passed */
            if (ok) memcpy((char *)th_tensor_data(result) + off[0], (const char *)th_tensor_data(self) + so, (size_t)es);
            elements++;
        }
    } else if (c->op == IX_SCATTER || c->op == IX_SCATTER_ADD) {
        result = c->form == IX_INPLACE ? th_tensor_retain(c->self) : host_clone(self);
        th__cuda_ix_scatter p;
        bool planned = th__cuda_ix_plan_scatter(&p, result, d, c->index, c->src);
        CHECK(planned);
        for (int64_t l = 0; planned && th_tensor_numel(c->index) > 0 && l < p.plan.numel; l++) {
            int64_t off[TH_CUDA_PLAN_MAX_OPS];
            offsets(&p.plan, l, off);
            for (int64_t j = 0; j < p.len; j++) {
                int64_t dst = 0, src = 0;
                bool ok = th__cuda_ix_scatter_at(&p, off, j, (const char *)th_tensor_data(c->index), &dst, &src);
                CHECK(ok);
                if (!ok) continue;
                unsigned char *to = (unsigned char *)th_tensor_data(result) + dst;
                const unsigned char *from = (const unsigned char *)th_tensor_data(c->src) + src;
                if (c->op == IX_SCATTER_ADD) th__cuda_ix_add(to, from, (int)c->dt);
                else memcpy(to, from, (size_t)es);
                elements++;
            }
        }
    } else {
        result = c->form == IX_INPLACE ? th_tensor_retain(c->self)
                 : c->out              ? th_tensor_retain(c->out)
                                       : host_empty(c->dt, nd, th_tensor_sizes(self));
        if (c->form != IX_INPLACE) CHECK_INT_EQ(th_tensor_copy(result, self), TH_OK);
        th__cuda_plan plan;
        const th_tensor *ops[2] = {result, c->mask};
        CHECK(th__cuda_plan_elementwise(&plan, 2, ops));
        for (int64_t i = 0; i < plan.numel; i++) {
            int64_t off[TH_CUDA_PLAN_MAX_OPS];
            offsets(&plan, i, off);
            if (((const char *)th_tensor_data(c->mask))[off[1]])
                memcpy((char *)th_tensor_data(result) + off[0], c->value, (size_t)es);
            elements++;
        }
    }
    if (c->form == IX_NEW) return result;
    th_tensor_release(result);
    return NULL;
}

static void run_case(int op, int form, th_dtype dt, bool bad)
{
    ix_case c, cpu, mine;
    ix_case_make(&c, op, form, dt, bad);
    case_copy(&cpu, &c);
    case_copy(&mine, &c);
    int rc_cpu = TH_OK, rc_mine = TH_OK;
    th_tensor *r_cpu = ix_run(&cpu, &rc_cpu);
    char msg[512];
    snprintf(msg, sizeof msg, "%s", rc_cpu ? th_last_error() : "");
    th_tensor *r_mine = emulate(&mine, &rc_mine);
    CHECK_INT_EQ(rc_mine, rc_cpu);
    if (rc_cpu && rc_mine) {
        /* the CPU names its typed function, the emulation "emulated": the rest must be the same words */
        const char *a = strchr(msg, ':'), *b = strchr(th_last_error(), ':');
        CHECK(a && b && strcmp(a, b) == 0);
        if (!(a && b && strcmp(a, b) == 0)) fprintf(stderr, "  cpu: %s\n  emulated: %s\n", msg, th_last_error());
        refusals++;
    }
    CHECK(bad || rc_cpu == TH_OK);
    if (!bad && rc_cpu) fprintf(stderr, "  %s: %s\n", ix_op_names[op], msg);
    if (!rc_cpu && !rc_mine) {
        if (form == IX_NEW) {
            bool same = ix_same_bytes(r_cpu, r_mine);
            CHECK(same);
            if (!same) fprintf(stderr, "  %s %s new differs\n", ix_op_names[op], th_dtype_name(dt));
        }
    }
    if (form != IX_NEW) { /* the whole storage written: the result, nothing outside it (nor anything on error) */
        const th_tensor *w_cpu = form == IX_OUT ? cpu.out : cpu.self, *w_mine = form == IX_OUT ? mine.out : mine.self;
        th_storage *a = th_tensor_storage(w_cpu), *b = th_tensor_storage(w_mine);
        bool same = th_storage_nbytes(a) == th_storage_nbytes(b) &&
                    (th_storage_nbytes(a) == 0 || memcmp(th_storage_raw_data(a), th_storage_raw_data(b), (size_t)th_storage_nbytes(a)) == 0);
        CHECK(same);
        if (!same) fprintf(stderr, "  %s %s form %d differs\n", ix_op_names[op], th_dtype_name(dt), form);
    }
    runs++;
    th_tensor_release(r_cpu);
    th_tensor_release(r_mine);
    ix_case_free(&mine);
    ix_case_free(&cpu);
    ix_case_free(&c);
}

/* Repeated indices in scatter: the CPU's winner and the CPU's order of sums, on a case built to need them:
 * every index of a long line names one of two elements. */
static void test_duplicates(void)
{
    for (int dt = 0; dt < TH_NUM_DTYPES; dt++) {
        for (int op = IX_SCATTER; op <= IX_SCATTER_ADD; op++) {
            ix_case c;
            memset(&c, 0, sizeof c);
            c.op = op;
            c.form = IX_INPLACE;
            c.dt = (th_dtype)dt;
            c.dim = 0;
            c.self = ix_tensor(c.dt, 2, (const int64_t[]){2, 3});
            c.src = ix_tensor(c.dt, 2, (const int64_t[]){40, 3});
            c.index = ix_index(2, (const int64_t[]){40, 3}, 2, false);
            ix_case cpu, mine;
            case_copy(&cpu, &c);
            case_copy(&mine, &c);
            int rc1, rc2;
            ix_run(&cpu, &rc1);
            emulate(&mine, &rc2);
            CHECK(rc1 == TH_OK && rc2 == TH_OK);
            th_storage *a = th_tensor_storage(cpu.self), *b = th_tensor_storage(mine.self);
            CHECK(th_storage_nbytes(a) == 0 ||
                  memcmp(th_storage_raw_data(a), th_storage_raw_data(b), (size_t)th_storage_nbytes(a)) == 0);
            ix_case_free(&mine);
            ix_case_free(&cpu);
            ix_case_free(&c);
            runs++;
        }
    }
}

/* The flat geometry of take: merged where the dims step as one, exact on known layouts. */
static void test_flat(void)
{
    th_f32_tensor *t = th_f32_zeros(3, (const int64_t[]){2, 3, 4});
    th__cuda_ix_flat g;
    th__cuda_ix_flat_of(&g, th_f32_base(t));
    CHECK(g.ndim == 1 && g.sizes[0] == 24 && g.strides[0] == 4);
    th_f32_tensor *tt = th_f32_transpose(t, 0, 2); /* (4, 3, 2), strides (1, 4, 12) */
    th__cuda_ix_flat_of(&g, th_f32_base(tt));
    CHECK(g.ndim == 3 && g.sizes[0] == 2 && g.strides[0] == 48 && g.sizes[2] == 4 && g.strides[2] == 4);
    CHECK_INT_EQ(th__cuda_ix_flat_offset(&g, 23), 3 * 4 + 2 * 16 + 1 * 48);
    CHECK_INT_EQ(th__cuda_ix_wrap(-24, 24), 0);
    CHECK_INT_EQ(th__cuda_ix_wrap(-25, 24), -1);
    CHECK_INT_EQ(th__cuda_ix_wrap(24, 24), -1);
    CHECK_INT_EQ(th__cuda_ix_wrap(0, 0), -1);
    th_f32_release(tt);
    th_f32_release(t);
}

int main(void)
{
    test_begin();
    test_flat();
    const int forms[IX_OPS][3] = {{IX_NEW, IX_OUT, -1},     {IX_NEW, IX_OUT, -1},     {IX_NEW, IX_OUT, -1},
                                  {IX_NEW, IX_INPLACE, -1}, {IX_NEW, IX_INPLACE, -1}, {IX_NEW, IX_OUT, IX_INPLACE}};
    for (int op = 0; op < IX_OPS; op++)
        for (int f = 0; f < 3 && forms[op][f] >= 0; f++)
            for (int dt = 0; dt < TH_NUM_DTYPES; dt++)
                for (int rep = 0; rep < 24; rep++) run_case(op, forms[op][f], (th_dtype)dt, op != IX_MASKED_FILL && rep % 6 == 5);
    test_duplicates();
    printf("%d runs, %d elements, %d refusals matched\n", runs, elements, refusals);
    return test_end("test_cuda_indexing");
}
