/* test_dtype_check.c: every typed function refuses a tensor of another dtype.
 *
 * A typed handle is only a promise: (th_f32_tensor *) on an f64 tensor compiles, from a void *, a th_tensor *
 * or another handle. tensor.h's rule (ERRORS in its header comment) is that a typed function given a tensor
 * of another dtype does nothing, returns its error value and records TH_ERR_DTYPE naming itself, the
 * operand and both dtypes. tests/gen_dtype_check.py writes one wrapper per function that takes a typed tensor,
 * for all twelve dtypes, from the header's declarations at build time. Each wrapper runs
 *   - once with every tensor of the dtype its parameter names (and arguments that make a valid call): it must
 *     succeed;
 *   - once per tensor parameter with a tensor of another dtype there (of the same element size where there is
 *     one: the case no size check can catch): the function must return its error value (NULL, TH_ERR_DTYPE,
 *     or what it returns for NULL), leave NULL in its pointer outputs, write none of its tensors, and record
 *     TH_ERR_DTYPE with the message "<function>: <operand> is <dtype given>..." naming the dtype wanted. */
#include <stdlib.h>

#include "check.h"

typedef struct dc_call {
    int bad;          /* the parameter given a tensor of another dtype; -1 for none */
    bool refused;     /* the function returned its error value */
    bool outputs_nulled; /* a refused call left NULL (0 for a count) in its pointer outputs */
    int nowned;
    th_tensor *owned[12]; /* made for the call, checked and released after it */
} dc_call;

typedef struct dc_position {
    const char *label; /* the operand as the message names it */
    th_dtype want;
} dc_position;

typedef struct dc_fn {
    const char *name;
    void (*call)(dc_call *c);
    int n;
    dc_position pos[6];
} dc_fn;

#if defined(__GNUC__)
#define DC_MAYBE_UNUSED __attribute__((unused)) /* helpers a companion's list of calls may not need */
#else
#define DC_MAYBE_UNUSED
#endif

static FILE *dc_devnull;
/* What a pointer output holds before the call: a refused call must replace it with NULL. */
static char dc_unset_byte;
#define dc_unset ((void *)&dc_unset_byte)

/* Another dtype of the same element size where there is one. */
static th_dtype dc_wrong(th_dtype want)
{
    switch (want) {
    case TH_BOOL: return TH_U8;
    case TH_U8: return TH_I8;
    case TH_I8: return TH_BOOL;
    case TH_I16: return TH_F16;
    case TH_F16: return TH_BF16;
    case TH_BF16: return TH_I16;
    case TH_I32: return TH_F32;
    case TH_F32: return TH_I32;
    case TH_I64: return TH_F64;
    case TH_F64: return TH_C64;
    case TH_C64: return TH_I64;
    case TH_C128: return TH_F64;
    default: return TH_F32;
    }
}

/* Ones: a valid index (1 < 2), a true mask, a divisor that is not 0, a probability row that sums to 2. */
static th_tensor *dc_ones(th_dtype dtype, int ndim, const int64_t *sizes)
{
    switch (dtype) {
#define DC_ONES(sfx, ENUM, ...) \
    case TH_##ENUM: return (th_tensor *)th_##sfx##_ones(ndim, sizes);
        TH_FOREACH_DTYPE(DC_ONES)
#undef DC_ONES
    default: return NULL;
    }
}

static th_tensor *dc_own(dc_call *c, th_tensor *t)
{
    if (!t || c->nowned == (int)(sizeof c->owned / sizeof c->owned[0])) {
        fprintf(stderr, "dc_own: cannot make or keep another tensor\n");
        exit(2);
    }
    c->owned[c->nowned++] = t;
    return t;
}

/* The tensor for parameter k: of want, or of another dtype when k is the one under test. */
static th_tensor *dc_tensor(dc_call *c, int k, th_dtype want, int ndim, const int64_t *sizes)
{
    return dc_own(c, dc_ones(k == c->bad ? dc_wrong(want) : want, ndim, sizes));
}

/* Two 2x2 tensors for cat and stack; the second is the wrong one. */
DC_MAYBE_UNUSED static th_tensor **dc_array(dc_call *c, int k, th_dtype want)
{
    static th_tensor *pair[2];
    const int64_t sizes[2] = {2, 2};
    pair[0] = dc_own(c, dc_ones(want, 2, sizes));
    pair[1] = dc_own(c, dc_ones(k == c->bad ? dc_wrong(want) : want, 2, sizes));
    return pair;
}

/* release_all's array: malloc'd, as split returns it, and taken by the call unless it refuses. */
DC_MAYBE_UNUSED static th_tensor **dc_views(dc_call *c, int k, th_dtype want)
{
    const int64_t sizes[2] = {2, 2};
    th_tensor **views = (th_tensor **)malloc(2 * sizeof *views);
    if (!views) exit(2);
    views[0] = dc_ones(want, 2, sizes);
    views[1] = dc_ones(k == c->bad ? dc_wrong(want) : want, 2, sizes);
    return views;
}

DC_MAYBE_UNUSED static void dc_views_free(th_tensor **views)
{
    th_tensor_release(views[0]);
    th_tensor_release(views[1]);
    free(views);
}

/* A tensor a pointer output received (released), or what a refused call left there. */
DC_MAYBE_UNUSED static void dc_output(dc_call *c, th_tensor *t)
{
    if (c->bad >= 0 && t != NULL) c->outputs_nulled = false;
    if (t != dc_unset) th_tensor_release(t);
}

DC_MAYBE_UNUSED static void dc_count(dc_call *c, int64_t count)
{
    if (c->bad >= 0 && count != 0) c->outputs_nulled = false;
}

/* Every element of t is still the 1 it was made with. */
static bool dc_untouched(const th_tensor *t)
{
    const int64_t sizes[1] = {th_tensor_numel(t)};
    th_tensor *ones = dc_ones(th_tensor_dtype(t), 1, sizes);
    size_t n = (size_t)sizes[0] * th_dtype_info(th_tensor_dtype(t))->size;
    /* n == 0: an empty tensor's data may be NULL, which memcmp may not be given even for 0 bytes */
    bool same = ones && (n == 0 || memcmp(th_tensor_data(t), th_tensor_data(ones), n) == 0);
    th_tensor_release(ones);
    return same;
}

/* The generated calls: tensor.h's, or with DC_CALLS a companion's (tests/shm builds this file again). */
#ifdef DC_CALLS
#include DC_CALLS
#else
#include "dtype_check_calls.h"
#endif

int main(void)
{
    test_begin();
    dc_devnull = fopen("/dev/null", "w");
    CHECK(dc_devnull != NULL);
    int per_dtype[TH_NUM_DTYPES] = {0};
    long refusals = 0;
    const int nfns = (int)(sizeof dc_fns / sizeof dc_fns[0]);
    for (int i = 0; i < nfns; i++) {
        const dc_fn *f = &dc_fns[i];
        for (th_dtype d = 0; d < TH_NUM_DTYPES; d++) {
            char prefix[32];
            snprintf(prefix, sizeof prefix, "th_%s_", th_dtype_name(d));
            if (strncmp(f->name, prefix, strlen(prefix)) == 0) per_dtype[d]++;
        }
        for (int bad = -1; bad < f->n; bad++) {
            dc_call c = {.bad = bad, .outputs_nulled = true};
            th_clear_error();
            f->call(&c);
            th_status status = th_last_status();
            char msg[512];
            snprintf(msg, sizeof msg, "%s", th_last_error());
            check_count++;
            if (bad < 0) {
                /* so that in the calls below the one thing wrong is the dtype */
                if (status != TH_OK) {
                    check_failures++;
                    fprintf(stderr, "%s: failed with the dtypes it takes: %s \"%s\"\n", f->name,
                            th_status_name(status), msg);
                }
            } else {
                const dc_position *p = &f->pos[bad];
                char want[160];
                snprintf(want, sizeof want, "%s: %s is %s", f->name, p->label, th_dtype_name(dc_wrong(p->want)));
                bool untouched = true;
                for (int k = 0; k < c.nowned; k++) untouched = untouched && dc_untouched(c.owned[k]);
                bool ok = c.refused && c.outputs_nulled && untouched && status == TH_ERR_DTYPE &&
                          strncmp(msg, want, strlen(want)) == 0 && strstr(msg + strlen(want), th_dtype_name(p->want));
                if (!ok) {
                    check_failures++;
                    fprintf(stderr,
                            "%s, %s of %s: %s%s%s%s \"%s\"; wanted TH_ERR_DTYPE \"%s...%s...\"\n", f->name,
                            p->label, th_dtype_name(dc_wrong(p->want)), th_status_name(status),
                            c.refused ? "" : ", not its error value", c.outputs_nulled ? "" : ", outputs set",
                            untouched ? "" : ", wrote a tensor", msg, want, th_dtype_name(p->want));
                }
                refusals++;
            }
            for (int k = 0; k < c.nowned; k++) th_tensor_release(c.owned[k]);
        }
    }
    printf("dtype_check: %d functions called with the right dtypes and %ld times with a wrong one; "
           "%d functions take no typed tensor\n",
           nfns, refusals, DC_UNTYPED);
    for (th_dtype d = 0; d < TH_NUM_DTYPES; d++) {
        printf("  %-4s %d functions\n", th_dtype_name(d), per_dtype[d]);
        CHECK(per_dtype[d] > 0);
    }
    fclose(dc_devnull);
    return test_end("dtype_check");
}
