/* ops/products_erased.h: the dtype-independent half of the products: einsum (the equation's parser, the
 * diagonals and broadcasts as views, the greedy contraction order, each pairwise contraction as one batched
 * matmul over permuted and merged views), tensordot, inner, trace, vdot, kron, cross and multi_dot (the
 * chain order by dynamic programming). Everything here works on th_tensor * and a dtype; the arithmetic is the
 * dtype's own matmul, mul and sub, handed in by the thin front doors of ops/products.h.
 * Part of tensor.h, which includes it twice: its declarations (none are public), then its definitions. */
#ifndef TENSOR_H
#error "ops/products_erased.h is part of tensor.h: include tensor.h"
#endif
#ifdef TH__DEFINING

/* What the products call per dtype: its typed _out forms, in the erased signature. */
typedef struct th__prod_ops {
    th_dtype dtype;
    int (*matmul_out)(th_tensor *out, const th_tensor *a, const th_tensor *b);
    int (*mul_out)(th_tensor *out, const th_tensor *a, const th_tensor *b);
    int (*sub_out)(th_tensor *out, const th_tensor *a, const th_tensor *b);
    int (*fill_one)(th_tensor *t); /* every element 1 */
} th__prod_ops;

/* ---- einsum's terms: a tensor whose every dim carries a label ---- */

/* Labels: 'A'..'Z' are 0..25 and 'a'..'z' 26..51 (so an implicit output lists upper case first, as NumPy and
 * torch order them), the dims an ellipsis stands for 52.., the leftmost first. */
enum { TH__ES_LETTERS = 52, TH__ES_NL = TH__ES_LETTERS + TH_MAX_DIMS };

typedef struct th__es_term {
    th_tensor *t; /* owned */
    int n;        /* = t->ndim */
    int lab[TH_MAX_DIMS];
} th__es_term;

TH__MAYBE_UNUSED static void th__es_label_name(int l, char *s, size_t cap)
{
    if (l < 26) snprintf(s, cap, "'%c'", 'A' + l);
    else if (l < TH__ES_LETTERS) snprintf(s, cap, "'%c'", 'a' + l - 26);
    else snprintf(s, cap, "dim %d of '...'", l - TH__ES_LETTERS);
}

/* A view of t with the dims in order perm (a new reference; NULL on error). */
TH__MAYBE_UNUSED static th_tensor *th__es_permuted(const char *fn, const th_tensor *t, const int *perm)
{
    int64_t sizes[TH_MAX_DIMS], strides[TH_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) {
        sizes[d] = t->sizes[perm[d]];
        strides[d] = t->strides[perm[d]];
    }
    return th__tensor_make(fn, t->dtype, t->storage, t->offset, t->ndim, sizes, strides);
}

/* t (already permuted) with consecutive dims merged into sizes (ndim of them): a view where the strides allow,
 * else a contiguous copy viewed so. */
TH__MAYBE_UNUSED static th_tensor *th__es_merged(const char *fn, const th_tensor *t, int ndim, const int64_t *sizes)
{
    int64_t strides[TH_MAX_DIMS];
    if (th__view_strides(t->ndim, t->sizes, t->strides, ndim, sizes, strides))
        return th__tensor_make(fn, t->dtype, t->storage, t->offset, ndim, sizes, strides);
    th_tensor *c = th__convert_new(fn, t->dtype, t);
    if (!c) return NULL;
    th_tensor *v = th__view(fn, c, ndim, sizes);
    th_tensor_release(c);
    return v;
}

/* A new tensor of the dtype and shape with every element 1. */
TH__MAYBE_UNUSED static th_tensor *th__es_ones(const char *fn, const th__prod_ops *ops, int ndim, const int64_t *sizes)
{
    th_tensor *r = th__tensor_empty(fn, ops->dtype, ndim, sizes);
    if (r && ops->fill_one(r)) {
        th_tensor_release(r);
        r = NULL;
    }
    return r;
}

/* Sums the term over the labels with drop[label] set, as one product with a vector of ones (so it runs at
 * the matmul's speed): t permuted to (kept..., dropped...) and merged to (kept, dropped) @ ones(dropped, 1).
 * The term keeps its other labels in their order. */
TH__MAYBE_UNUSED static int th__es_sum_out(const char *fn, const th__prod_ops *ops, th__es_term *x, const bool *drop)
{
    int perm[TH_MAX_DIMS], nk = 0, nd = 0, lab[TH_MAX_DIMS];
    int64_t ksizes[TH_MAX_DIMS], m = 1, k = 1;
    for (int d = 0; d < x->n; d++)
        if (!drop[x->lab[d]]) {
            perm[nk] = d;
            lab[nk] = x->lab[d];
            ksizes[nk++] = x->t->sizes[d];
            m *= x->t->sizes[d];
        }
    for (int d = 0; d < x->n; d++)
        if (drop[x->lab[d]]) {
            perm[nk + nd++] = d;
            k *= x->t->sizes[d];
        }
    if (nd == 0) return TH_OK;
    th_tensor *p = th__es_permuted(fn, x->t, perm);
    int64_t mk[2] = {m, k}, k1[2] = {k, 1}, m1[2] = {m, 1};
    th_tensor *a = p ? th__es_merged(fn, p, 2, mk) : NULL;
    th_tensor *ones = a ? th__es_ones(fn, ops, 2, k1) : NULL;
    th_tensor *r = ones ? th__tensor_empty(fn, ops->dtype, 2, m1) : NULL;
    int status = r ? ops->matmul_out(r, a, ones) : th__failed_status(fn);
    th_tensor *v = status == TH_OK ? th__view(fn, r, nk, ksizes) : NULL;
    th_tensor_release(p);
    th_tensor_release(a);
    th_tensor_release(ones);
    th_tensor_release(r);
    if (!v) return th__failed_status(fn);
    th_tensor_release(x->t);
    x->t = v;
    x->n = nk;
    memcpy(x->lab, lab, sizeof lab);
    return TH_OK;
}

/* Sorts the labels l[0..n) by the stride of their dim in x, outermost first (so the group merges in x where its
 * dims are nested), or by their place in order[] (the result's label order) when order is given. */
TH__MAYBE_UNUSED static void th__es_sort_group(int *l, int n, const th__es_term *x, const int *pos)
{
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            int64_t kj, kp;
            if (pos) {
                kj = -pos[l[j]];
                kp = -pos[l[j - 1]];
            } else {
                kj = kp = 0;
                for (int d = 0; d < x->n; d++) {
                    if (x->lab[d] == l[j]) kj = llabs(x->t->strides[d]);
                    if (x->lab[d] == l[j - 1]) kp = llabs(x->t->strides[d]);
                }
            }
            if (kj <= kp) break;
            int tmp = l[j];
            l[j] = l[j - 1];
            l[j - 1] = tmp;
        }
}

TH__MAYBE_UNUSED static int th__es_dim_of(const th__es_term *x, int label)
{
    for (int d = 0; d < x->n; d++)
        if (x->lab[d] == label) return d;
    return -1;
}

/* x permuted to the labels g[0] ++ g[1] ++ g[2] (ng[i] each) and merged to (g[0]'s dims..., prod g[1],
 * prod g[2]): a matmul operand. NULL on error. */
TH__MAYBE_UNUSED static th_tensor *th__es_operand(const char *fn, const th__es_term *x, int *const g[3],
                                                  const int ng[3])
{
    int perm[TH_MAX_DIMS], np = 0;
    int64_t sizes[TH_MAX_DIMS];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < ng[i]; j++) perm[np++] = th__es_dim_of(x, g[i][j]);
    for (int j = 0; j < ng[0]; j++) sizes[j] = x->t->sizes[perm[j]];
    sizes[ng[0]] = sizes[ng[0] + 1] = 1;
    for (int j = 0; j < ng[1]; j++) sizes[ng[0]] *= x->t->sizes[perm[ng[0] + j]];
    for (int j = 0; j < ng[2]; j++) sizes[ng[0] + 1] *= x->t->sizes[perm[ng[0] + ng[1] + j]];
    th_tensor *p = th__es_permuted(fn, x->t, perm);
    th_tensor *m = p ? th__es_merged(fn, p, ng[0] + 2, sizes) : NULL;
    th_tensor_release(p);
    return m;
}

/* One pairwise contraction: the labels of a and b that keep[] marks (the output's and other operands') stay,
 * the others shared by both are summed as the inner dim of one batched matmul: a as (batch..., M, K), b as
 * (batch..., K, N), the result (batch..., M, N). dest (NULL: a new tensor) receives the result in its label
 * order dest_lab (all of the kept labels): written by the matmul itself when its groups merge there, else copied
 * from a new result. The result replaces *a; b is left to the caller. */
TH__MAYBE_UNUSED static int th__es_contract(const char *fn, const th__prod_ops *ops, th__es_term *a, th__es_term *b,
                                            const bool *keep, th_tensor *dest, const int *dest_lab)
{
    bool in_a[TH__ES_NL] = {false}, in_b[TH__ES_NL] = {false}, drop[TH__ES_NL] = {false};
    for (int d = 0; d < a->n; d++) in_a[a->lab[d]] = true;
    for (int d = 0; d < b->n; d++) in_b[b->lab[d]] = true;
    /* a label in one of them alone that nothing later needs is summed out first */
    bool any = false;
    for (int d = 0; d < a->n; d++) any |= drop[a->lab[d]] = !in_b[a->lab[d]] && !keep[a->lab[d]];
    if (any && th__es_sum_out(fn, ops, a, drop)) return th_last_status();
    any = false;
    for (int d = 0; d < b->n; d++) any |= drop[b->lab[d]] = !in_a[b->lab[d]] && !keep[b->lab[d]];
    if (any && th__es_sum_out(fn, ops, b, drop)) return th_last_status();

    int gb[TH_MAX_DIMS], gm[TH_MAX_DIMS], gk[TH_MAX_DIMS], gn[TH_MAX_DIMS], nb = 0, nm = 0, nk = 0, nn = 0;
    for (int d = 0; d < a->n; d++) {
        int l = a->lab[d];
        if (in_b[l] && keep[l]) gb[nb++] = l;
        else if (in_b[l]) gk[nk++] = l;
        else gm[nm++] = l;
    }
    for (int d = 0; d < b->n; d++)
        if (!in_a[b->lab[d]]) gn[nn++] = b->lab[d];
    if (nb + 2 > TH_MAX_DIMS || nb + nm + nn > TH_MAX_DIMS)
        return th__fail(TH_ERR_SHAPE, fn, "a contraction would need %d dims (%d batch, %d rows, %d columns), more than "
                        "TH_MAX_DIMS (%d)", nb + nm + nn, nb, nm, nn, TH_MAX_DIMS);
    int pos[TH__ES_NL] = {0};
    if (dest) {
        for (int d = 0; d < dest->ndim; d++) pos[dest_lab[d]] = d;
        th__es_sort_group(gb, nb, a, pos);
        th__es_sort_group(gm, nm, a, pos);
        th__es_sort_group(gn, nn, b, pos);
    } else {
        th__es_sort_group(gm, nm, a, NULL);
        th__es_sort_group(gn, nn, b, NULL);
    }
    th__es_sort_group(gk, nk, a, NULL);

    int *ga[3] = {gb, gm, gk}, *gbb[3] = {gb, gk, gn};
    int na3[3] = {nb, nm, nk}, nb3[3] = {nb, nk, nn}, nc3[3] = {nb, nm, nn};
    th_tensor *A = th__es_operand(fn, a, ga, na3);
    th_tensor *B = A ? th__es_operand(fn, b, gbb, nb3) : NULL;
    if (!B) {
        th_tensor_release(A);
        return th__failed_status(fn);
    }
    /* the result's shape by label, and its matmul view (batch..., M, N) */
    int64_t lsize[TH__ES_NL];
    for (int d = 0; d < a->n; d++) lsize[a->lab[d]] = a->t->sizes[d];
    for (int d = 0; d < b->n; d++) lsize[b->lab[d]] = b->t->sizes[d];
    int rl[TH_MAX_DIMS], nr = 0;
    int64_t rsizes[TH_MAX_DIMS], csizes[TH_MAX_DIMS];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < nc3[i]; j++) {
            rl[nr] = (i == 0 ? gb : i == 1 ? gm : gn)[j];
            rsizes[nr] = lsize[rl[nr]];
            nr++;
        }
    for (int j = 0; j < nb; j++) csizes[j] = rsizes[j];
    csizes[nb] = csizes[nb + 1] = 1;
    for (int j = 0; j < nm; j++) csizes[nb] *= rsizes[nb + j];
    for (int j = 0; j < nn; j++) csizes[nb + 1] *= rsizes[nb + nm + j];

    th_tensor *C = NULL, *r = NULL; /* C: the matmul's out; r: the result in the order rl */
    int status = TH_OK;
    int64_t cstrides[TH_MAX_DIMS];
    if (dest) { /* dest in the order rl, its groups merged: a view when its strides allow */
        int perm[TH_MAX_DIMS];
        for (int j = 0; j < nr; j++) perm[j] = pos[rl[j]];
        th_tensor *p = th__es_permuted(fn, dest, perm);
        if (!p) status = th__failed_status(fn);
        else if (th__view_strides(p->ndim, p->sizes, p->strides, nb + 2, csizes, cstrides))
            C = th__tensor_make(fn, p->dtype, p->storage, p->offset, nb + 2, csizes, cstrides);
        th_tensor_release(p);
    }
    if (status == TH_OK && !C) {
        r = th__tensor_empty(fn, ops->dtype, nr, rsizes);
        C = r ? th__view(fn, r, nb + 2, csizes) : NULL;
    }
    if (status == TH_OK && !C) status = th__failed_status(fn);
    if (status == TH_OK) status = ops->matmul_out(C, A, B);
    th_tensor_release(A);
    th_tensor_release(B);
    th_tensor_release(C);
    if (status == TH_OK && dest && r) { /* copy into dest through a view of r in dest's label order */
        int perm[TH_MAX_DIMS], where[TH__ES_NL];
        for (int j = 0; j < nr; j++) where[rl[j]] = j;
        for (int d = 0; d < dest->ndim; d++) perm[d] = where[dest_lab[d]];
        th_tensor *p = th__es_permuted(fn, r, perm);
        status = p ? th__copy(fn, dest, p) : th__failed_status(fn);
        th_tensor_release(p);
    }
    if (status) {
        th_tensor_release(r);
        return status;
    }
    th_tensor_release(a->t);
    if (dest) {
        th_tensor_release(r);
        a->t = th_tensor_retain(dest);
        a->n = dest->ndim;
        for (int d = 0; d < dest->ndim; d++) a->lab[d] = dest_lab[d];
    } else {
        a->t = r; /* the new result's one reference */
        a->n = nr;
        memcpy(a->lab, rl, sizeof(int) * (size_t)nr);
    }
    return TH_OK;
}

/* ---- the contraction of n labelled operands ---- */

/* One operand as a term: its labels given per dim (lab[d], repeats allowed) and its view with one dim per distinct
 * label (the diagonal of repeated ones: their strides added) of the label's size size[] (a dim of size 1 where the
 * label is larger is broadcast: stride 0). */
TH__MAYBE_UNUSED static int th__es_term_of(const char *fn, const th_tensor *t, const int *lab, const int64_t *size,
                                           th__es_term *x)
{
    int64_t sizes[TH_MAX_DIMS], strides[TH_MAX_DIMS];
    x->n = 0;
    for (int d = 0; d < t->ndim; d++) {
        int j = 0;
        while (j < x->n && x->lab[j] != lab[d]) j++;
        if (j == x->n) {
            x->lab[x->n] = lab[d];
            sizes[x->n] = size[lab[d]];
            strides[x->n++] = t->sizes[d] == 1 ? 0 : t->strides[d];
        } else if (t->sizes[d] != 1) {
            strides[j] += t->strides[d];
        }
    }
    x->t = th__tensor_make(fn, t->dtype, t->storage, t->offset, x->n, sizes, strides);
    return x->t ? TH_OK : th__failed_status(fn);
}

/* The einsum of n operands whose dims carry labels (lab[i][d]) into the output labels out_lab[0..nout), whose
 * sizes are size[]: the result (out retained, or a new tensor). The labels' sizes have been checked. */
TH__MAYBE_UNUSED static th_tensor *th__es_run(const char *fn, const th__prod_ops *ops, th_tensor *out, int n,
                                              const th_tensor *const *in, int lab[][TH_MAX_DIMS], int nout,
                                              const int *out_lab, const int64_t *size)
{
    int64_t osizes[TH_MAX_DIMS];
    for (int d = 0; d < nout; d++) osizes[d] = size[out_lab[d]];
    th_tensor *result = th__result(fn, out, ops->dtype, nout, osizes);
    if (!result) return NULL;
    th__es_term *x = (th__es_term *)calloc((size_t)n, sizeof *x);
    if (!x) {
        th_tensor_release(result);
        th__fail(TH_ERR_NOMEM, fn, "no memory for %d operands", n);
        return NULL;
    }
    int status = TH_OK, m = n;
    for (int i = 0; i < n && status == TH_OK; i++) status = th__es_term_of(fn, in[i], lab[i], size, &x[i]);
    bool is_out[TH__ES_NL] = {false};
    for (int d = 0; d < nout; d++) is_out[out_lab[d]] = true;
    /* labels in one operand alone and not in the output: summed out of it first */
    for (int i = 0; i < m && status == TH_OK; i++) {
        int count[TH__ES_NL] = {0};
        for (int j = 0; j < m; j++)
            for (int d = 0; d < x[j].n; d++) count[x[j].lab[d]]++;
        bool drop[TH__ES_NL] = {false}, any = false;
        for (int d = 0; d < x[i].n; d++) any |= drop[x[i].lab[d]] = count[x[i].lab[d]] == 1 && !is_out[x[i].lab[d]];
        if (any) status = th__es_sum_out(fn, ops, &x[i], drop);
    }
    /* greedy: the pair whose contraction costs the fewest multiply-adds (then the smallest result) goes first */
    while (m > 2 && status == TH_OK) {
        int bi = 0, bj = 1;
        double best_cost = HUGE_VAL, best_size = HUGE_VAL;
        for (int i = 0; i < m; i++)
            for (int j = i + 1; j < m; j++) {
                bool seen[TH__ES_NL] = {false}, later[TH__ES_NL] = {false};
                for (int k = 0; k < m; k++)
                    if (k != i && k != j)
                        for (int d = 0; d < x[k].n; d++) later[x[k].lab[d]] = true;
                double cost = 1, rsize = 1;
                const th__es_term *pair[2] = {&x[i], &x[j]};
                for (int q = 0; q < 2; q++)
                    for (int d = 0; d < pair[q]->n; d++) {
                        int l = pair[q]->lab[d];
                        if (seen[l]) continue;
                        seen[l] = true;
                        cost *= (double)pair[q]->t->sizes[d];
                        if (later[l] || is_out[l]) rsize *= (double)pair[q]->t->sizes[d];
                    }
                if (cost < best_cost || (cost == best_cost && rsize < best_size)) {
                    best_cost = cost;
                    best_size = rsize;
                    bi = i;
                    bj = j;
                }
            }
        bool keep[TH__ES_NL];
        memcpy(keep, is_out, sizeof keep);
        for (int k = 0; k < m; k++)
            if (k != bi && k != bj)
                for (int d = 0; d < x[k].n; d++) keep[x[k].lab[d]] = true;
        status = th__es_contract(fn, ops, &x[bi], &x[bj], keep, NULL, NULL);
        th_tensor_release(x[bj].t);
        x[bj] = x[--m];
        x[m].t = NULL;
    }
    if (status == TH_OK && m == 2) {
        status = th__es_contract(fn, ops, &x[0], &x[1], is_out, result, out_lab);
    } else if (status == TH_OK && x[0].t != result) { /* one operand: its labels are the output's, in some order */
        int perm[TH_MAX_DIMS] = {0}; /* nout of them set: the operand has the output's dims */
        for (int d = 0; d < nout; d++) perm[d] = th__es_dim_of(&x[0], out_lab[d]);
        th_tensor *p = th__es_permuted(fn, x[0].t, perm);
        status = p ? th__copy(fn, result, p) : th__failed_status(fn);
        th_tensor_release(p);
    }
    for (int i = 0; i < n; i++) th_tensor_release(x[i].t);
    free(x);
    return th__result_or_release(status, result);
}

/* Checks the operands: n of them, none NULL, each of dtype and on the host. */
TH__MAYBE_UNUSED static int th__es_check_inputs(const char *fn, th_dtype dtype, int n, const th_tensor *const *in)
{
    if (n < 1) return th__fail(TH_ERR_INVALID, fn, "%d operands; einsum takes at least 1", n);
    if (!in) return th__fail(TH_ERR_INVALID, fn, "NULL operands");
    for (int i = 0; i < n; i++) {
        if (!in[i]) return th__fail(TH_ERR_INVALID, fn, "NULL tensor %d", i);
        if (in[i]->dtype != dtype)
            return th__fail(TH_ERR_DTYPE, fn, "tensor %d is %s, not %s", i, th_dtype_name(in[i]->dtype),
                            th_dtype_name(dtype));
        if (!th_device_is_host(in[i]->storage->device))
            return th__fail(TH_ERR_DEVICE, fn, "tensor %d is on device type %d, which the host cannot touch", i,
                            (int)in[i]->storage->device.type);
        if (th__check_fits(fn, in[i])) return th_last_status();
    }
    return TH_OK;
}

/* Each label's size over every operand: equal, or 1 where it broadcasts; a label repeated within one operand (a
 * diagonal) has one size there. */
TH__MAYBE_UNUSED static int th__es_sizes(const char *fn, int n, const th_tensor *const *in, int lab[][TH_MAX_DIMS],
                                         int64_t *size)
{
    int where[TH__ES_NL];
    for (int l = 0; l < TH__ES_NL; l++) {
        size[l] = -1;
        where[l] = -1;
    }
    for (int i = 0; i < n; i++) {
        int64_t mine[TH__ES_NL];
        for (int d = 0; d < in[i]->ndim; d++) mine[lab[i][d]] = -1;
        for (int d = 0; d < in[i]->ndim; d++) {
            int l = lab[i][d];
            int64_t s = in[i]->sizes[d];
            char name[48];
            th__es_label_name(l, name, sizeof name);
            if (mine[l] >= 0 && mine[l] != s)
                return th__fail(TH_ERR_SHAPE, fn, "label %s is repeated in operand %d with sizes %lld and %lld", name,
                                i, (long long)mine[l], (long long)s);
            mine[l] = s;
            if (size[l] < 0 || size[l] == 1) {
                if (size[l] != 1 || s != 1) where[l] = i;
                if (size[l] < 0 || s != 1) size[l] = s;
            } else if (s != 1 && s != size[l]) {
                return th__fail(TH_ERR_SHAPE, fn, "label %s has size %lld in operand %d and %lld in operand %d", name,
                                (long long)size[l], where[l], (long long)s, i);
            }
        }
    }
    return TH_OK;
}

/* The labels of one operand's subscripts s[0..len): letters, and at most one "..." standing for its dims the letters
 * do not name (*ell_at: where among the letters it stands; -1 without one). */
TH__MAYBE_UNUSED static int th__es_parse_term(const char *fn, const char *eq, const char *s, int len, int which,
                                              int *lab, int *nlab, int *ell_at)
{
    *nlab = 0;
    *ell_at = -1;
    for (int i = 0; i < len; i++) {
        char c = s[i];
        if (c == ' ') continue;
        if (c == '.') {
            if (i + 2 >= len || s[i + 1] != '.' || s[i + 2] != '.')
                return th__fail(TH_ERR_INVALID, fn, "\"%s\": a '.' at position %d that does not begin \"...\"", eq,
                                (int)(s - eq) + i);
            if (*ell_at >= 0)
                return th__fail(TH_ERR_INVALID, fn, "\"%s\": %s %d has two ellipses", eq,
                                which < 0 ? "the output" : "operand", which < 0 ? 0 : which);
            *ell_at = *nlab;
            i += 2;
            continue;
        }
        int l = c >= 'A' && c <= 'Z' ? c - 'A' : c >= 'a' && c <= 'z' ? 26 + c - 'a' : -1;
        if (l < 0)
            return th__fail(TH_ERR_INVALID, fn, "\"%s\": '%c' (byte %d) at position %d is not a subscript (a-z, A-Z, "
                            "..., ',' or \"->\")", eq, c, (unsigned char)c, (int)(s - eq) + i);
        if (*nlab == TH_MAX_DIMS)
            return th__fail(TH_ERR_SHAPE, fn, "\"%s\": more than TH_MAX_DIMS (%d) subscripts in one term", eq,
                            TH_MAX_DIMS);
        lab[(*nlab)++] = l;
    }
    return TH_OK;
}

/* The operands of a typed array (read through at) as an array of th_tensor * (malloc'd; NULL on error). */
TH__MAYBE_UNUSED static const th_tensor **th__pr_gather(const char *fn, int n, const void *array, th__tensor_at_fn at)
{
    if (n < 1 || n > 4096) {
        th__fail(TH_ERR_INVALID, fn, "%d operands; it takes 1 to 4096", n);
        return NULL;
    }
    if (!array) {
        th__fail(TH_ERR_INVALID, fn, "NULL operands");
        return NULL;
    }
    const th_tensor **in = (const th_tensor **)malloc((size_t)n * sizeof *in);
    if (!in) {
        th__fail(TH_ERR_NOMEM, fn, "no memory for %d operands", n);
        return NULL;
    }
    for (int i = 0; i < n; i++) in[i] = at(array, i);
    return in;
}

TH__MAYBE_UNUSED static th_tensor *th__einsum_of(const char *fn, const th__prod_ops *ops, th_tensor *out,
                                                 const char *equation, int n, const th_tensor *const *in);

/* einsum's front door: parses the equation, checks it against the operands, runs the contraction. */
TH__MAYBE_UNUSED static th_tensor *th__einsum(const char *fn, const th__prod_ops *ops, th_tensor *out,
                                              const char *equation, int n, const void *array, th__tensor_at_fn at)
{
    const th_tensor **in = th__pr_gather(fn, n, array, at);
    if (!in) return NULL;
    th_tensor *r = th__einsum_of(fn, ops, out, equation, n, in);
    free(in);
    return r;
}

TH__MAYBE_UNUSED static th_tensor *th__einsum_of(const char *fn, const th__prod_ops *ops, th_tensor *out,
                                                 const char *equation, int n, const th_tensor *const *in)
{
    if (!equation) {
        th__fail(TH_ERR_INVALID, fn, "NULL equation");
        return NULL;
    }
    if (th__es_check_inputs(fn, ops->dtype, n, in)) return NULL;
    const char *arrow = strstr(equation, "->");
    const char *lhs_end = arrow ? arrow : equation + strlen(equation);
    int (*lab)[TH_MAX_DIMS] = (int (*)[TH_MAX_DIMS])calloc((size_t)n, sizeof *lab);
    if (!lab) {
        th__fail(TH_ERR_NOMEM, fn, "no memory for %d operands", n);
        return NULL;
    }
    th_tensor *r = NULL;
    int ell = 0; /* the dims the ellipsis stands for in the output: the most of any operand's */
    bool any_ell = false;
    int terms = 1;
    for (const char *c = equation; c < lhs_end; c++) terms += *c == ',';
    if (terms != n) {
        th__fail(TH_ERR_INVALID, fn, "\"%s\" has subscripts for %d operand%s; %d given", equation, terms,
                 terms == 1 ? "" : "s", n);
        goto done;
    }
    const char *s = equation;
    for (int i = 0; i < n; i++) {
        const char *e = s;
        while (e < lhs_end && *e != ',') e++;
        int l[TH_MAX_DIMS], nl, at;
        if (th__es_parse_term(fn, equation, s, (int)(e - s), i, l, &nl, &at)) goto done;
        int nd = in[i]->ndim;
        if (at < 0 ? nl != nd : nl > nd) {
            th__fail(TH_ERR_SHAPE, fn, "\"%s\": operand %d has %d dims; its subscripts \"%.*s\" name %d", equation, i,
                     nd, (int)(e - s), s, nl);
            goto done;
        }
        int en = nd - nl; /* the ellipsis's dims */
        if (at >= 0) {
            any_ell = true;
            if (en > ell) ell = en;
        }
        for (int d = 0, j = 0; d < nd; d++) {
            if (at >= 0 && d >= at && d < at + en) lab[i][d] = -1 - (en - 1 - (d - at)); /* from the right: -1.. */
            else lab[i][d] = l[j++];
        }
        s = e + 1;
    }
    /* ellipsis dims aligned at the right: the one -k from the right is label TH__ES_LETTERS + ell - k */
    for (int i = 0; i < n; i++)
        for (int d = 0; d < in[i]->ndim; d++)
            if (lab[i][d] < 0) lab[i][d] = TH__ES_LETTERS + ell + lab[i][d];
    int64_t size[TH__ES_NL];
    if (th__es_sizes(fn, n, in, lab, size)) goto done;

    int out_lab[TH_MAX_DIMS], nout = 0;
    if (arrow) {
        const char *o = arrow + 2;
        int l[TH_MAX_DIMS], nl, at;
        if (th__es_parse_term(fn, equation, o, (int)strlen(o), -1, l, &nl, &at)) goto done;
        if (any_ell && ell > 0 && at < 0) {
            th__fail(TH_ERR_INVALID, fn, "\"%s\": the operands' \"...\" stands for %d dims; the output must place "
                     "them with \"...\"", equation, ell);
            goto done;
        }
        if (nl + (at >= 0 ? ell : 0) > TH_MAX_DIMS) {
            th__fail(TH_ERR_SHAPE, fn, "\"%s\": the output has %d dims, more than TH_MAX_DIMS (%d)", equation,
                     nl + (at >= 0 ? ell : 0), TH_MAX_DIMS);
            goto done;
        }
        bool used[TH__ES_NL] = {false};
        for (int j = 0; j <= nl; j++) {
            if (j == at)
                for (int k = 0; k < ell; k++) out_lab[nout++] = TH__ES_LETTERS + k;
            if (j == nl) break;
            char name[48];
            th__es_label_name(l[j], name, sizeof name);
            if (used[l[j]]) {
                th__fail(TH_ERR_INVALID, fn, "\"%s\": output subscript %s appears twice", equation, name);
                goto done;
            }
            if (size[l[j]] < 0) {
                th__fail(TH_ERR_INVALID, fn, "\"%s\": output subscript %s is in no operand", equation, name);
                goto done;
            }
            used[l[j]] = true;
            out_lab[nout++] = l[j];
        }
    } else { /* implicit: the ellipsis's dims, then the letters that appear once, in order */
        int count[TH__ES_NL] = {0};
        for (int i = 0; i < n; i++)
            for (int d = 0; d < in[i]->ndim; d++) count[lab[i][d]]++;
        for (int k = 0; k < ell; k++) out_lab[nout++] = TH__ES_LETTERS + k;
        for (int l = 0; l < TH__ES_LETTERS; l++)
            if (count[l] == 1) {
                if (nout == TH_MAX_DIMS) {
                    th__fail(TH_ERR_SHAPE, fn, "\"%s\": the output has more than TH_MAX_DIMS (%d) dims", equation,
                             TH_MAX_DIMS);
                    goto done;
                }
                out_lab[nout++] = l;
            }
    }
    r = th__es_run(fn, ops, out, n, in, lab, nout, out_lab, size);
done:
    free(lab);
    return r;
}

/* ---- tensordot, inner, trace, vdot ---- */

/* The labels of a tensordot: a's dims 0.., b's contracted dims a's labels, its others new ones; the output a's
 * free dims then b's. */
TH__MAYBE_UNUSED static th_tensor *th__tensordot(const char *fn, const th__prod_ops *ops, th_tensor *out,
                                                 const th_tensor *a, const th_tensor *b, int n, const int *dims_a,
                                                 const int *dims_b)
{
    const th_tensor *in[2] = {a, b};
    if (th__es_check_inputs(fn, ops->dtype, 2, in)) return NULL;
    if (n < 0 || n > a->ndim || n > b->ndim) {
        th__fail(TH_ERR_SHAPE, fn, "%d dims to contract; a has %d and b has %d", n, a->ndim, b->ndim);
        return NULL;
    }
    if (n > 0 && (!dims_a || !dims_b)) {
        th__fail(TH_ERR_INVALID, fn, "NULL %s", dims_a ? "dims_b" : "dims_a");
        return NULL;
    }
    int lab[2][TH_MAX_DIMS], out_lab[TH_MAX_DIMS], nout = 0;
    bool ca[TH_MAX_DIMS] = {false}, cb[TH_MAX_DIMS] = {false};
    for (int d = 0; d < a->ndim; d++) lab[0][d] = d;
    for (int j = 0; j < n; j++) {
        int da = dims_a[j] < 0 ? dims_a[j] + a->ndim : dims_a[j], db = dims_b[j] < 0 ? dims_b[j] + b->ndim : dims_b[j];
        if (da < 0 || da >= a->ndim || db < 0 || db >= b->ndim) {
            bool bad_a = da < 0 || da >= a->ndim;
            th__fail(TH_ERR_RANGE, fn, "dims_%c[%d] = %d is out of range for %s's %d dims", bad_a ? 'a' : 'b', j,
                     bad_a ? dims_a[j] : dims_b[j], bad_a ? "a" : "b", bad_a ? a->ndim : b->ndim);
            return NULL;
        }
        if (ca[da] || cb[db]) {
            th__fail(TH_ERR_INVALID, fn, "dims_%c[%d] = %d is repeated", ca[da] ? 'a' : 'b', j,
                     ca[da] ? dims_a[j] : dims_b[j]);
            return NULL;
        }
        if (a->sizes[da] != b->sizes[db]) {
            th__fail(TH_ERR_SHAPE, fn, "dims_a[%d] = %d (size %lld) and dims_b[%d] = %d (size %lld) differ", j,
                     dims_a[j], (long long)a->sizes[da], j, dims_b[j], (long long)b->sizes[db]);
            return NULL;
        }
        ca[da] = cb[db] = true;
        lab[1][db] = da;
    }
    for (int d = 0; d < a->ndim; d++)
        if (!ca[d]) out_lab[nout++] = d;
    for (int d = 0, next = a->ndim; d < b->ndim; d++)
        if (!cb[d]) out_lab[nout++] = lab[1][d] = next++;
    int64_t size[TH__ES_NL];
    for (int d = 0; d < a->ndim; d++) size[lab[0][d]] = a->sizes[d];
    for (int d = 0; d < b->ndim; d++) size[lab[1][d]] = b->sizes[d];
    return th__es_run(fn, ops, out, 2, in, lab, nout, out_lab, size);
}

/* The last ndims of a against the first ndims of b. */
TH__MAYBE_UNUSED static th_tensor *th__tensordot_n(const char *fn, const th__prod_ops *ops, th_tensor *out,
                                                   const th_tensor *a, const th_tensor *b, int64_t ndims)
{
    const th_tensor *in[2] = {a, b};
    if (th__es_check_inputs(fn, ops->dtype, 2, in)) return NULL;
    if (ndims < 0 || ndims > a->ndim || ndims > b->ndim) {
        th__fail(TH_ERR_SHAPE, fn, "ndims %lld is outside 0..%d (a has %d dims, b %d)", (long long)ndims,
                 a->ndim < b->ndim ? a->ndim : b->ndim, a->ndim, b->ndim);
        return NULL;
    }
    int da[TH_MAX_DIMS], db[TH_MAX_DIMS];
    for (int j = 0; j < (int)ndims; j++) {
        da[j] = a->ndim - (int)ndims + j;
        db[j] = j;
    }
    return th__tensordot(fn, ops, out, a, b, (int)ndims, da, db);
}

/* np.inner: the last dims of both contracted (a 0-d operand multiplies the other). */
TH__MAYBE_UNUSED static th_tensor *th__inner(const char *fn, const th__prod_ops *ops, th_tensor *out,
                                             const th_tensor *a, const th_tensor *b)
{
    const th_tensor *in[2] = {a, b};
    if (th__es_check_inputs(fn, ops->dtype, 2, in)) return NULL;
    if (a->ndim == 0 || b->ndim == 0) return th__tensordot(fn, ops, out, a, b, 0, NULL, NULL);
    if (a->sizes[a->ndim - 1] != b->sizes[b->ndim - 1]) {
        th__fail(TH_ERR_SHAPE, fn, "the last dims of a (size %lld) and b (size %lld) differ",
                 (long long)a->sizes[a->ndim - 1], (long long)b->sizes[b->ndim - 1]);
        return NULL;
    }
    int da = a->ndim - 1, db = b->ndim - 1;
    return th__tensordot(fn, ops, out, a, b, 1, &da, &db);
}

/* The contraction of n <= 2 operands whose every dim carries the one label 0, of size k, into a 0-d result (a
 * matrix's diagonal summed, a dot of two vectors); owned (NULL or a tensor the caller made for in) is released
 * after. */
TH__MAYBE_UNUSED static th_tensor *th__es_sum_one_label(const char *fn, const th__prod_ops *ops, th_tensor *out, int n,
                                                       const th_tensor *const *in, int64_t k, th_tensor *owned)
{
    int lab[2][TH_MAX_DIMS] = {{0}, {0}};
    int64_t size[TH__ES_NL];
    size[0] = k;
    th_tensor *r = th__es_run(fn, ops, out, n, in, lab, 0, NULL, size);
    th_tensor_release(owned);
    return r;
}

/* The sum of the diagonal of a matrix, as a 0-d tensor. */
TH__MAYBE_UNUSED static th_tensor *th__trace(const char *fn, const th__prod_ops *ops, th_tensor *out,
                                             const th_tensor *a)
{
    if (th__es_check_inputs(fn, ops->dtype, 1, &a)) return NULL;
    if (a->ndim != 2) {
        char s[160];
        th__shape_string(a->ndim, a->sizes, s, sizeof s);
        th__fail(TH_ERR_SHAPE, fn, "a must be a matrix (2 dims); it has shape %s", s);
        return NULL;
    }
    /* a rectangular matrix's diagonal is its leading square's */
    int64_t k = a->sizes[0] < a->sizes[1] ? a->sizes[0] : a->sizes[1], sizes[2] = {k, k};
    th_tensor *sq = th__tensor_make(fn, a->dtype, a->storage, a->offset, 2, sizes, a->strides);
    if (!sq) return NULL;
    const th_tensor *in[1] = {sq};
    return th__es_sum_one_label(fn, ops, out, 1, in, k, sq);
}

/* conj(a) . b of two vectors of one size (a plain dot for real dtypes), as a 0-d tensor. */
TH__MAYBE_UNUSED static th_tensor *th__vdot(const char *fn, const th__prod_ops *ops, th_tensor *out, const th_tensor *a,
                                            const th_tensor *b)
{
    const th_tensor *in[2] = {a, b};
    if (th__es_check_inputs(fn, ops->dtype, 2, in)) return NULL;
    if (a->ndim != 1 || b->ndim != 1 || a->sizes[0] != b->sizes[0]) {
        char sa[160], sb[160];
        th__shape_string(a->ndim, a->sizes, sa, sizeof sa);
        th__shape_string(b->ndim, b->sizes, sb, sizeof sb);
        th__fail(TH_ERR_SHAPE, fn, "a and b must be vectors of one size; they have shapes %s and %s", sa, sb);
        return NULL;
    }
    th_tensor *ca = NULL;
    if (ops->dtype == TH_C64 || ops->dtype == TH_C128) { /* a conjugated copy: the sign bit of each imaginary part */
        ca = th__convert_new(fn, ops->dtype, a);
        if (!ca) return NULL;
        int64_t len = a->sizes[0];
        if (ops->dtype == TH_C64)
            for (float *p = (float *)th_tensor_data(ca); len-- > 0; p += 2) p[1] = -p[1];
        else
            for (double *p = (double *)th_tensor_data(ca); len-- > 0; p += 2) p[1] = -p[1];
        in[0] = ca;
    }
    return th__es_sum_one_label(fn, ops, out, 2, in, a->sizes[0], ca);
}

/* ---- kron, cross ---- */

/* The Kronecker product: the operands' dims aligned at the right (the shorter one's leading sizes 1, as NumPy's
 * kron), result size a_d * b_d; written as one broadcast mul into a view of the result as (a_0, b_0, a_1, b_1, ...). */
TH__MAYBE_UNUSED static th_tensor *th__kron(const char *fn, const th__prod_ops *ops, th_tensor *out, const th_tensor *a,
                                            const th_tensor *b)
{
    const th_tensor *in[2] = {a, b};
    if (th__es_check_inputs(fn, ops->dtype, 2, in)) return NULL;
    int nd = a->ndim > b->ndim ? a->ndim : b->ndim;
    if (2 * nd > TH_MAX_DIMS) {
        th__fail(TH_ERR_SHAPE, fn, "operands of %d dims; kron takes at most %d (half of TH_MAX_DIMS)", nd,
                 TH_MAX_DIMS / 2);
        return NULL;
    }
    int64_t as[TH_MAX_DIMS], bs[TH_MAX_DIMS], ast[TH_MAX_DIMS], bst[TH_MAX_DIMS], rs[TH_MAX_DIMS];
    for (int d = 0; d < nd; d++) {
        int i = d - (nd - a->ndim), j = d - (nd - b->ndim);
        as[d] = i >= 0 ? a->sizes[i] : 1;
        ast[d] = i >= 0 ? a->strides[i] : 0;
        bs[d] = j >= 0 ? b->sizes[j] : 1;
        bst[d] = j >= 0 ? b->strides[j] : 0;
        if (__builtin_mul_overflow(as[d], bs[d], &rs[d])) {
            th__fail(TH_ERR_OVERFLOW, fn, "dim %d of the result, %lld * %lld, overflows int64", d, (long long)as[d],
                     (long long)bs[d]);
            return NULL;
        }
    }
    th_tensor *r = th__result(fn, out, ops->dtype, nd, rs);
    if (!r) return NULL;
    int64_t s4[TH_MAX_DIMS], rst[TH_MAX_DIMS], a4[TH_MAX_DIMS], b4[TH_MAX_DIMS], as4[TH_MAX_DIMS], bs4[TH_MAX_DIMS];
    for (int d = 0; d < nd; d++) {
        s4[2 * d] = as[d];
        s4[2 * d + 1] = bs[d];
        rst[2 * d] = r->strides[d] * bs[d];
        rst[2 * d + 1] = r->strides[d];
        a4[2 * d] = as[d];
        a4[2 * d + 1] = 1;
        as4[2 * d] = ast[d];
        as4[2 * d + 1] = 0;
        b4[2 * d] = 1;
        b4[2 * d + 1] = bs[d];
        bs4[2 * d] = 0;
        bs4[2 * d + 1] = bst[d];
    }
    th_tensor *rv = th__tensor_make(fn, r->dtype, r->storage, r->offset, 2 * nd, s4, rst);
    th_tensor *av = rv ? th__tensor_make(fn, a->dtype, a->storage, a->offset, 2 * nd, a4, as4) : NULL;
    th_tensor *bv = av ? th__tensor_make(fn, b->dtype, b->storage, b->offset, 2 * nd, b4, bs4) : NULL;
    int status = bv ? ops->mul_out(rv, av, bv) : th__failed_status(fn);
    th_tensor_release(rv);
    th_tensor_release(av);
    th_tensor_release(bv);
    return th__result_or_release(status, r);
}

/* The cross product of 3-vectors along dim of the broadcast shape of a and b (torch.linalg.cross): out_i =
 * a_j b_k - a_k b_j for each cyclic (i, j, k). */
TH__MAYBE_UNUSED static th_tensor *th__cross(const char *fn, const th__prod_ops *ops, th_tensor *out,
                                             const th_tensor *a, const th_tensor *b, int dim)
{
    const th_tensor *in[2] = {a, b};
    if (th__es_check_inputs(fn, ops->dtype, 2, in)) return NULL;
    int nd;
    int64_t sizes[TH_MAX_DIMS];
    if (th__broadcast_shape(fn, 2, in, &nd, sizes)) return NULL;
    if (dim < -nd || dim >= nd || nd == 0) {
        th__fail(TH_ERR_RANGE, fn, "dim %d is out of range for the broadcast shape's %d dims", dim, nd);
        return NULL;
    }
    int w = dim < 0 ? dim + nd : dim, wa = w - (nd - a->ndim), wb = w - (nd - b->ndim);
    if (wa < 0 || a->sizes[wa] != 3 || wb < 0 || b->sizes[wb] != 3) {
        bool bad_a = wa < 0 || a->sizes[wa] != 3;
        char s[160];
        th__shape_string(bad_a ? a->ndim : b->ndim, bad_a ? a->sizes : b->sizes, s, sizeof s);
        th__fail(TH_ERR_SHAPE, fn, "%s has shape %s: its dim %d must have size 3", bad_a ? "a" : "b", s, dim);
        return NULL;
    }
    th_tensor *r = th__result(fn, out, ops->dtype, nd, sizes);
    if (!r) return NULL;
    /* an operand sharing memory with the result is copied first, even the result itself: a component written is
     * read again for the next */
    th_tensor *ua = th__bytes_overlap(r, a) ? th__convert_new(fn, a->dtype, a) : th_tensor_retain((th_tensor *)a);
    th_tensor *ub = !ua ? NULL : th__bytes_overlap(r, b) ? th__convert_new(fn, b->dtype, b)
                                                       : th_tensor_retain((th_tensor *)b);
    th_tensor *tmp = NULL;
    int status = ub ? TH_OK : th__failed_status(fn);
    if (status == TH_OK) {
        int64_t ts[TH_MAX_DIMS];
        memcpy(ts, sizes, sizeof ts);
        ts[w] = 1;
        tmp = th__tensor_empty(fn, ops->dtype, nd, ts);
        if (!tmp) status = th__failed_status(fn);
    }
    for (int i = 0; i < 3 && status == TH_OK; i++) {
        int j = (i + 1) % 3, k = (i + 2) % 3;
        th_tensor *ri = th__narrow(fn, r, w, i, 1);
        th_tensor *aj = th__narrow(fn, ua, wa, j, 1), *bk = th__narrow(fn, ub, wb, k, 1);
        th_tensor *ak = th__narrow(fn, ua, wa, k, 1), *bj = th__narrow(fn, ub, wb, j, 1);
        if (!ri || !aj || !bk || !ak || !bj) status = th__failed_status(fn);
        if (status == TH_OK) status = ops->mul_out(ri, aj, bk);
        if (status == TH_OK) status = ops->mul_out(tmp, ak, bj);
        if (status == TH_OK) status = ops->sub_out(ri, ri, tmp);
        th_tensor_release(ri);
        th_tensor_release(aj);
        th_tensor_release(bk);
        th_tensor_release(ak);
        th_tensor_release(bj);
    }
    th_tensor_release(tmp);
    th_tensor_release(ua);
    th_tensor_release(ub);
    return th__result_or_release(status, r);
}

/* ---- multi_dot ---- */

/* The product of the chain i..j (split[i][j] its best split) into dest (NULL: a new tensor). */
TH__MAYBE_UNUSED static th_tensor *th__md_chain(const char *fn, const th__prod_ops *ops, const th_tensor *const *m,
                                                const int *split, int n, int i, int j, th_tensor *dest)
{
    if (i == j) return th_tensor_retain((th_tensor *)m[i]);
    int s = split[i * n + j];
    th_tensor *l = th__md_chain(fn, ops, m, split, n, i, s, NULL);
    th_tensor *r = l ? th__md_chain(fn, ops, m, split, n, s + 1, j, NULL) : NULL;
    th_tensor *c = NULL;
    if (r) {
        int64_t sizes[2] = {l->sizes[0], r->sizes[1]};
        c = dest ? th_tensor_retain(dest) : th__tensor_empty(fn, ops->dtype, 2, sizes);
        if (c && ops->matmul_out(c, l, r)) {
            th_tensor_release(c);
            c = NULL;
        }
    }
    th_tensor_release(l);
    th_tensor_release(r);
    return c;
}

/* The product of n matrices (the first may be a vector: a row; the last: a column), multiplied in the order that
 * costs the fewest multiply-adds (the classic dynamic programme over the chain's sizes). */
TH__MAYBE_UNUSED static th_tensor *th__multi_dot_of(const char *fn, const th__prod_ops *ops, th_tensor *out, int n,
                                                    const th_tensor *const *in);

TH__MAYBE_UNUSED static th_tensor *th__multi_dot(const char *fn, const th__prod_ops *ops, th_tensor *out, int n,
                                                 const void *array, th__tensor_at_fn at)
{
    if (n < 2) {
        th__fail(TH_ERR_INVALID, fn, "%d tensors; multi_dot takes at least 2", n);
        return NULL;
    }
    const th_tensor **in = th__pr_gather(fn, n, array, at);
    if (!in) return NULL;
    th_tensor *r = th__multi_dot_of(fn, ops, out, n, in);
    free(in);
    return r;
}

TH__MAYBE_UNUSED static th_tensor *th__multi_dot_of(const char *fn, const th__prod_ops *ops, th_tensor *out, int n,
                                                    const th_tensor *const *in)
{
    if (n < 2) { /* the callers refuse it first; said again here for the allocations' sizes below */
        th__fail(TH_ERR_INVALID, fn, "%d tensors; multi_dot takes at least 2", n);
        return NULL;
    }
    if (th__es_check_inputs(fn, ops->dtype, n, in)) return NULL;
    for (int i = 0; i < n; i++) {
        int want = (i == 0 || i == n - 1) && in[i]->ndim == 1 ? 1 : 2;
        if (in[i]->ndim != want) {
            th__fail(TH_ERR_SHAPE, fn, "tensor %d has %d dims; multi_dot takes matrices (the first and the last may "
                     "be vectors)", i, in[i]->ndim);
            return NULL;
        }
    }
    /* the chain as matrices: a first vector as a row, a last one as a column (size-1 dims, stride 0) */
    th_tensor **m = (th_tensor **)calloc((size_t)n, sizeof *m);
    int64_t *p = (int64_t *)calloc((size_t)n + 1, sizeof *p);
    double *cost = (double *)calloc((size_t)n * (size_t)n, sizeof *cost);
    int *split = (int *)calloc((size_t)n * (size_t)n, sizeof *split);
    th_tensor *result = NULL, *dest = NULL;
    int status = m && p && cost && split ? TH_OK : th__fail(TH_ERR_NOMEM, fn, "no memory for a chain of %d", n);
    for (int i = 0; i < n && status == TH_OK; i++) {
        const th_tensor *t = in[i];
        int64_t sz[2], st[2];
        if (t->ndim == 1 && i == 0) {
            sz[0] = 1, st[0] = 0, sz[1] = t->sizes[0], st[1] = t->strides[0];
        } else if (t->ndim == 1) {
            sz[0] = t->sizes[0], st[0] = t->strides[0], sz[1] = 1, st[1] = 0;
        } else {
            sz[0] = t->sizes[0], st[0] = t->strides[0], sz[1] = t->sizes[1], st[1] = t->strides[1];
        }
        if (i > 0 && sz[0] != p[i]) {
            status = th__fail(TH_ERR_SHAPE, fn, "tensor %d has %lld rows; tensor %d before it has %lld columns", i,
                              (long long)sz[0], i - 1, (long long)p[i]);
            break;
        }
        p[i] = sz[0];
        p[i + 1] = sz[1];
        m[i] = th__tensor_make(fn, t->dtype, t->storage, t->offset, 2, sz, st);
        if (!m[i]) status = th__failed_status(fn);
    }
    if (status == TH_OK) {
        for (int len = 1; len < n; len++)
            for (int i = 0; i + len < n; i++) {
                int j = i + len;
                cost[i * n + j] = HUGE_VAL;
                for (int s = i; s < j; s++) {
                    double c = cost[i * n + s] + cost[(s + 1) * n + j] +
                               (double)p[i] * (double)p[s + 1] * (double)p[j + 1];
                    if (c < cost[i * n + j]) {
                        cost[i * n + j] = c;
                        split[i * n + j] = s;
                    }
                }
            }
        int64_t rs[2];
        int nr = 0;
        if (in[0]->ndim == 2) rs[nr++] = p[0];
        if (in[n - 1]->ndim == 2) rs[nr++] = p[n];
        result = th__result(fn, out, ops->dtype, nr, rs);
        if (!result) status = th__failed_status(fn);
    }
    if (status == TH_OK) { /* the result as a matrix, its dropped dims of size 1 */
        int64_t sz[2] = {p[0], p[n]}, st[2] = {0, 0};
        if (in[0]->ndim == 2) st[0] = result->strides[0];
        if (in[n - 1]->ndim == 2) st[1] = result->strides[result->ndim - 1];
        dest = th__tensor_make(fn, result->dtype, result->storage, result->offset, 2, sz, st);
        if (!dest) status = th__failed_status(fn);
    }
    if (status == TH_OK) {
        th_tensor *c = th__md_chain(fn, ops, (const th_tensor *const *)m, split, n, 0, n - 1, dest);
        if (!c) status = th__failed_status(fn);
        th_tensor_release(c);
    }
    for (int i = 0; m && i < n; i++) th_tensor_release(m[i]);
    th_tensor_release(dest);
    free(m);
    free(p);
    free(cost);
    free(split);
    return th__result_or_release(status, result);
}

#endif /* TH__DEFINING */
