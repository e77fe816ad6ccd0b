/* tests/test_products.c: einsum, tensordot, inner, vdot, trace, kron, cross and multi_dot (ops/products.h):
 * closed forms and a naive reference written here (small integer values, so every dtype's result is exact),
 * transposed, stepped and broadcast operands, outs of another layout and overlapping an input, empty dims, the
 * greedy order with 3 and 4 operands, and every error path with its message. NumPy's and torch's numbers are in
 * tests/numpy/products_numpy. */
#include <complex.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})

/* A contiguous f64 tensor with values (k * 7 + salt) % 11 - 5 for its k-th element. */
static th_f64_tensor *mk(int nd, const int64_t *sizes, int salt)
{
    th_f64_tensor *t = th_f64_empty(nd, sizes);
    double *p = th_f64_data(t);
    for (int64_t k = 0; k < th_f64_numel(t); k++) p[k] = (double)((k * 7 + salt) % 11 - 5);
    return t;
}

static double at(const th_f64_tensor *t, const int64_t *idx) { return th_f64_get(t, idx); }

/* The contiguous result r equals the values in want[0..n). */
static bool same(const th_f64_tensor *r, const double *want, int64_t n)
{
    if (!r || th_f64_numel(r) != n) return false;
    th_f64_tensor *c = th_f64_contiguous((th_f64_tensor *)r);
    bool ok = true;
    for (int64_t k = 0; k < n; k++) ok = ok && th_f64_data(c)[k] == want[k];
    th_f64_release(c);
    return ok;
}

static th_f64_tensor *es(const char *eq, int n, th_f64_tensor *a, th_f64_tensor *b, th_f64_tensor *c)
{
    const th_f64_tensor *ops[3] = {a, b, c};
    th_f64_tensor *r = th_f64_einsum(eq, n, ops);
    if (!r) fprintf(stderr, "einsum \"%s\": %s\n", eq, th_last_error());
    return r;
}

static void test_einsum_matmul(void)
{
    /* ij,jk->ik against loops, with A contiguous and transposed, into a new result and a transposed out */
    th_f64_tensor *a = mk(2, SZ(3, 4), 1), *b = mk(2, SZ(4, 5), 2);
    double want[15];
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 5; k++) {
            double s = 0;
            for (int j = 0; j < 4; j++) s += at(a, SZ(i, j)) * at(b, SZ(j, k));
            want[i * 5 + k] = s;
        }
    th_f64_tensor *r = es("ij,jk->ik", 2, a, b, NULL);
    CHECK(same(r, want, 15));
    th_f64_release(r);
    r = es(" i j , j k ", 2, a, b, NULL); /* implicit, spaces */
    CHECK(same(r, want, 15));
    th_f64_release(r);
    th_f64_tensor *t1 = th_f64_transpose(a, 0, 1), *t2 = th_f64_contiguous(t1);
    th_f64_tensor *at_ = th_f64_transpose(t2, 0, 1); /* a in Fortran order */
    th_f64_release(t1);
    th_f64_release(t2);
    r = es("ij,jk->ik", 2, at_, b, NULL);
    CHECK(same(r, want, 15));
    th_f64_release(r);
    /* into a transposed out: out^T holds the result */
    th_f64_tensor *o = th_f64_zeros(2, SZ(5, 3)), *ot = th_f64_transpose(o, 0, 1);
    const th_f64_tensor *ab[2] = {a, b};
    CHECK_INT_EQ(th_f64_einsum_out(ot, "ij,jk->ik", 2, ab), TH_OK);
    CHECK(same(ot, want, 15));
    /* ki from the same: the transposed output written as such */
    th_f64_tensor *rt = th_f64_einsum("ij,jk->ki", 2, ab);
    CHECK(rt && th_f64_size(rt, 0) == 5 && same(rt, th_f64_data(o), 15));
    th_f64_release(rt);
    th_f64_release(ot);
    th_f64_release(o);
    th_f64_release(at_);
    th_f64_release(a);
    th_f64_release(b);
}

static void test_einsum_single(void)
{
    th_f64_tensor *m = mk(2, SZ(3, 3), 3);
    double d[3], tr = 0, rows[3] = {0, 0, 0}, cols[3] = {0, 0, 0}, tot = 0, tt[9];
    for (int i = 0; i < 3; i++) {
        d[i] = at(m, SZ(i, i));
        tr += d[i];
        for (int j = 0; j < 3; j++) {
            rows[i] += at(m, SZ(i, j));
            cols[j] += at(m, SZ(i, j));
            tot += at(m, SZ(i, j));
            tt[j * 3 + i] = at(m, SZ(i, j));
        }
    }
    th_f64_tensor *r = es("ii->i", 1, m, NULL, NULL);
    CHECK(same(r, d, 3));
    th_f64_release(r);
    r = es("ii", 1, m, NULL, NULL);
    CHECK(r && th_f64_ndim(r) == 0 && same(r, &tr, 1));
    th_f64_release(r);
    r = es("ij->i", 1, m, NULL, NULL);
    CHECK(same(r, rows, 3));
    th_f64_release(r);
    r = es("ij->j", 1, m, NULL, NULL);
    CHECK(same(r, cols, 3));
    th_f64_release(r);
    r = es("ij->", 1, m, NULL, NULL);
    CHECK(same(r, &tot, 1));
    th_f64_release(r);
    r = es("ji", 1, m, NULL, NULL); /* implicit output "ij": the transpose */
    CHECK(same(r, tt, 9));
    th_f64_release(r);
    r = es("ij->ji", 1, m, NULL, NULL);
    CHECK(same(r, tt, 9));
    th_f64_release(r);
    /* a 3-d diagonal over two repeated labels in the middle of others */
    th_f64_tensor *c = mk(3, SZ(2, 3, 3), 4);
    double dd[6];
    for (int b = 0; b < 2; b++)
        for (int i = 0; i < 3; i++) dd[b * 3 + i] = at(c, SZ(b, i, i));
    r = es("bii->bi", 1, c, NULL, NULL);
    CHECK(same(r, dd, 6));
    th_f64_release(r);
    th_f64_release(c);
    th_f64_release(m);
}

static void test_einsum_batched_broadcast(void)
{
    /* bij,bjk->bik and the ellipsis with a broadcast batch (1 against 3) */
    th_f64_tensor *a = mk(3, SZ(3, 2, 4), 5), *b = mk(3, SZ(3, 4, 2), 6), *b1 = mk(3, SZ(1, 4, 2), 7);
    double want[12], want1[12];
    for (int q = 0; q < 3; q++)
        for (int i = 0; i < 2; i++)
            for (int k = 0; k < 2; k++) {
                double s = 0, s1 = 0;
                for (int j = 0; j < 4; j++) {
                    s += at(a, SZ(q, i, j)) * at(b, SZ(q, j, k));
                    s1 += at(a, SZ(q, i, j)) * at(b1, SZ(0, j, k));
                }
                want[q * 4 + i * 2 + k] = s;
                want1[q * 4 + i * 2 + k] = s1;
            }
    th_f64_tensor *r = es("bij,bjk->bik", 2, a, b, NULL);
    CHECK(same(r, want, 12));
    th_f64_release(r);
    r = es("...ij,...jk", 2, a, b1, NULL);
    CHECK(r && th_f64_ndim(r) == 3 && th_f64_size(r, 0) == 3 && same(r, want1, 12));
    th_f64_release(r);
    /* a letter of size 1 broadcasts too (as NumPy's) */
    r = es("bij,xjk->bik", 2, a, b1, NULL);
    double sumx[12];
    memcpy(sumx, want1, sizeof sumx);
    CHECK(same(r, sumx, 12));
    th_f64_release(r);
    /* ellipsis in the middle, explicit output placing it last */
    th_f64_tensor *v = mk(3, SZ(2, 3, 4), 8);
    double s2[12];
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) s2[i * 4 + j] = at(v, SZ(0, i, j)) + at(v, SZ(1, i, j));
    r = es("a...->...", 1, v, NULL, NULL);
    CHECK(same(r, s2, 12));
    th_f64_release(r);
    th_f64_release(v);
    th_f64_release(a);
    th_f64_release(b);
    th_f64_release(b1);
}

static void test_einsum_chain(void)
{
    /* ij,jk,kl->il: the greedy order contracts the cheap pair first; the result is the chain's */
    th_f64_tensor *a = mk(2, SZ(2, 30), 1), *b = mk(2, SZ(30, 3), 2), *c = mk(2, SZ(3, 20), 3);
    double want[40];
    for (int i = 0; i < 2; i++)
        for (int l = 0; l < 20; l++) {
            double s = 0;
            for (int j = 0; j < 30; j++)
                for (int k = 0; k < 3; k++) s += at(a, SZ(i, j)) * at(b, SZ(j, k)) * at(c, SZ(k, l));
            want[i * 20 + l] = s;
        }
    th_f64_tensor *r = es("ij,jk,kl->il", 3, a, b, c);
    CHECK(same(r, want, 40));
    th_f64_release(r);
    /* the same with the operands in another order */
    r = es("kl,ij,jk->il", 3, c, a, b);
    CHECK(same(r, want, 40));
    th_f64_release(r);
    /* four operands with a label shared by three (a batch label kept until the last) and an outer product */
    th_f64_tensor *x = mk(1, SZ(3), 4), *y = mk(1, SZ(3), 5), *z = mk(1, SZ(3), 6), *w = mk(1, SZ(2), 7);
    const th_f64_tensor *four[4] = {x, y, z, w};
    double want4[6];
    for (int i = 0; i < 3; i++)
        for (int q = 0; q < 2; q++)
            want4[i * 2 + q] = th_f64_data(x)[i] * th_f64_data(y)[i] * th_f64_data(z)[i] * th_f64_data(w)[q];
    r = th_f64_einsum("i,i,i,q->iq", 4, four);
    CHECK(same(r, want4, 6));
    th_f64_release(r);
    double s3 = 0;
    for (int i = 0; i < 3; i++) s3 += th_f64_data(x)[i] * th_f64_data(y)[i] * th_f64_data(z)[i];
    r = th_f64_einsum("i,i,i->", 3, four);
    CHECK(same(r, &s3, 1));
    th_f64_release(r);
    th_f64_release(x);
    th_f64_release(y);
    th_f64_release(z);
    th_f64_release(w);
    th_f64_release(a);
    th_f64_release(b);
    th_f64_release(c);
}

static void test_einsum_empty_and_out(void)
{
    /* a summed dim of size 0 gives zeros; an output dim of size 0 an empty result */
    th_f64_tensor *a = th_f64_empty(2, SZ(3, 0)), *b = th_f64_empty(2, SZ(0, 2));
    double zeros[6] = {0, 0, 0, 0, 0, 0};
    th_f64_tensor *r = es("ij,jk->ik", 2, a, b, NULL);
    CHECK(same(r, zeros, 6));
    th_f64_release(r);
    r = es("ij->i", 1, a, NULL, NULL);
    CHECK(same(r, zeros, 3));
    th_f64_release(r);
    r = es("ij->j", 1, a, NULL, NULL);
    CHECK(r && th_f64_numel(r) == 0 && th_f64_size(r, 0) == 0);
    th_f64_release(r);
    th_f64_release(a);
    th_f64_release(b);
    /* an out that is an operand: the product is read before it is written */
    th_f64_tensor *m = mk(2, SZ(3, 3), 9), *m2 = th_f64_contiguous(m);
    double want[9];
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 3; k++) {
            double s = 0;
            for (int j = 0; j < 3; j++) s += at(m, SZ(i, j)) * at(m, SZ(j, k));
            want[i * 3 + k] = s;
        }
    const th_f64_tensor *mm[2] = {m, m2};
    CHECK_INT_EQ(th_f64_einsum_out(m, "ij,jk->ik", 2, mm), TH_OK);
    CHECK(same(m, want, 9));
    th_f64_release(m);
    th_f64_release(m2);
}

static void test_einsum_dtypes(void)
{
    /* i32 and c128: the same contraction, exact */
    th_i32_tensor *a = th_i32_empty(2, SZ(2, 3)), *b = th_i32_empty(2, SZ(3, 2));
    for (int k = 0; k < 6; k++) {
        th_i32_data(a)[k] = k + 1;
        th_i32_data(b)[k] = 2 * k - 3;
    }
    const th_i32_tensor *ab[2] = {a, b};
    th_i32_tensor *r = th_i32_einsum("ij,jk->ik", 2, ab);
    int32_t want[4] = {1 * -3 + 2 * 1 + 3 * 5, 1 * -1 + 2 * 3 + 3 * 7, 4 * -3 + 5 * 1 + 6 * 5, 4 * -1 + 5 * 3 + 6 * 7};
    CHECK(r && memcmp(th_i32_data(r), want, sizeof want) == 0);
    th_i32_release(r);
    th_i32_tensor *tr = th_i32_trace(a); /* 1 + 5 */
    CHECK(tr && th_i32_ndim(tr) == 0 && th_i32_data(tr)[0] == 6);
    th_i32_release(tr);
    th_i32_release(a);
    th_i32_release(b);
    th_c128_tensor *x = th_c128_empty(1, SZ(2)), *y = th_c128_empty(1, SZ(2));
    th_complex128 *px = th_c128_data(x), *py = th_c128_data(y);
    px[0] = 1 + 2 * I;
    px[1] = 3;
    py[0] = 4;
    py[1] = 5 * I;
    const th_c128_tensor *xy[2] = {x, y};
    th_c128_tensor *d = th_c128_einsum("i,i", 2, xy); /* no conjugation: (1+2i)4 + 15i = 4 + 23i */
    CHECK(d && th_c128_data(d)[0] == 4 + 23 * I);
    th_c128_release(d);
    d = th_c128_vdot(x, y); /* conj(a) . b = 4 + 7i */
    CHECK(d && th_c128_ndim(d) == 0 && th_c128_data(d)[0] == 4 + 7 * I);
    th_c128_release(d);
    th_c64_tensor *x64 = th_c64_empty(1, SZ(1)), *y64 = th_c64_empty(1, SZ(1));
    th_c64_data(x64)[0] = 1 - 1 * I;
    th_c64_data(y64)[0] = 2 * I;
    th_c64_tensor *d64 = th_c64_vdot(x64, y64); /* (1 + i) 2i = -2 + 2i */
    CHECK(d64 && th_c64_data(d64)[0] == -2 + 2 * I);
    th_c64_release(d64);
    th_c64_release(x64);
    th_c64_release(y64);
    th_c128_release(x);
    th_c128_release(y);
    /* f32 and f16 through their own matmul */
    th_f32_tensor *f = th_f32_full(2, SZ(4, 4), 0.5f);
    th_f32_tensor *tf = th_f32_trace(f);
    CHECK(tf && th_f32_data(tf)[0] == 2.0f);
    th_f32_release(tf);
    th_f32_release(f);
}

static void test_tensordot_inner(void)
{
    th_f64_tensor *a = mk(3, SZ(2, 3, 4), 1), *b = mk(3, SZ(3, 4, 5), 2);
    double want[10];
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 5; k++) {
            double s = 0;
            for (int j = 0; j < 3; j++)
                for (int l = 0; l < 4; l++) s += at(a, SZ(i, j, l)) * at(b, SZ(j, l, k));
            want[i * 5 + k] = s;
        }
    th_f64_tensor *r = th_f64_tensordot(a, b, 2);
    CHECK(same(r, want, 10));
    th_f64_release(r);
    r = th_f64_tensordot_axes(a, b, 2, (const int[]){-1, 1}, (const int[]){1, 0});
    CHECK(same(r, want, 10));
    th_f64_release(r);
    r = th_f64_tensordot(a, b, 0); /* the outer product: 2x3x4x3x4x5 */
    CHECK(r && th_f64_ndim(r) == 6 && at(r, SZ(1, 2, 3, 2, 1, 4)) == at(a, SZ(1, 2, 3)) * at(b, SZ(2, 1, 4)));
    th_f64_release(r);
    th_f64_tensor *o = th_f64_empty(2, SZ(2, 5));
    CHECK_INT_EQ(th_f64_tensordot_out(o, a, b, 2), TH_OK);
    CHECK(same(o, want, 10));
    CHECK_INT_EQ(th_f64_tensordot_axes_out(o, a, b, 2, (const int[]){1, 2}, (const int[]){0, 1}), TH_OK);
    CHECK(same(o, want, 10));
    th_f64_release(o);
    /* inner: the last dims */
    th_f64_tensor *c = mk(2, SZ(5, 4), 3);
    double wi[30];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 3; j++)
            for (int q = 0; q < 5; q++) {
                double s = 0;
                for (int l = 0; l < 4; l++) s += at(a, SZ(i, j, l)) * at(c, SZ(q, l));
                wi[(i * 3 + j) * 5 + q] = s;
            }
    r = th_f64_inner(a, c);
    CHECK(r && th_f64_ndim(r) == 3 && same(r, wi, 30));
    th_f64_release(r);
    th_f64_tensor *s = th_f64_full(0, NULL, 2.0), *sc = th_f64_inner(s, c);
    double twice[20];
    for (int k = 0; k < 20; k++) twice[k] = 2 * th_f64_data(c)[k];
    CHECK(same(sc, twice, 20));
    th_f64_release(sc);
    th_f64_release(s);
    th_f64_release(c);
    th_f64_release(a);
    th_f64_release(b);
}

static void test_trace_kron_cross(void)
{
    th_f64_tensor *m = th_f64_empty(2, SZ(2, 3));
    for (int k = 0; k < 6; k++) th_f64_data(m)[k] = k + 1; /* [[1 2 3] [4 5 6]] */
    th_f64_tensor *t = th_f64_trace(m);
    double five = 1 + 5, six = 1 + 6;
    CHECK(t && th_f64_ndim(t) == 0 && same(t, &five, 1));
    th_f64_release(t);
    th_f64_tensor *mt = th_f64_transpose(m, 0, 1), *o = th_f64_zeros(0, NULL);
    CHECK_INT_EQ(th_f64_trace_out(o, mt), TH_OK);
    CHECK(same(o, &five, 1));
    th_f64_release(mt);
    (void)six;
    /* kron of [[1 2 3] [4 5 6]] and [[0 1] [1 0]]: 4x6 */
    th_f64_tensor *p = th_f64_empty(2, SZ(2, 2));
    double pv[4] = {0, 1, 1, 0};
    memcpy(th_f64_data(p), pv, sizeof pv);
    th_f64_tensor *k = th_f64_kron(m, p);
    double wk[24];
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 6; j++) wk[i * 6 + j] = th_f64_data(m)[(i / 2) * 3 + j / 2] * pv[(i % 2) * 2 + j % 2];
    CHECK(k && th_f64_size(k, 0) == 4 && th_f64_size(k, 1) == 6 && same(k, wk, 24));
    th_f64_release(k);
    /* a vector against a matrix: the vector's leading size is 1 */
    th_f64_tensor *v = mk(1, SZ(3), 2);
    k = th_f64_kron(v, p);
    CHECK(k && th_f64_ndim(k) == 2 && th_f64_size(k, 0) == 2 && th_f64_size(k, 1) == 6 &&
          at(k, SZ(1, 4)) == th_f64_data(v)[2] * pv[2]);
    th_f64_release(k);
    th_f64_tensor *ko = th_f64_zeros(2, SZ(6, 4)), *kot = th_f64_transpose(ko, 0, 1);
    CHECK_INT_EQ(th_f64_kron_out(kot, m, p), TH_OK);
    CHECK(same(kot, wk, 24));
    th_f64_release(kot);
    th_f64_release(ko);
    th_f64_release(v);
    th_f64_release(p);
    th_f64_release(o);
    th_f64_release(m);
    /* cross: e0 x e1 = e2, batched along dim 0 with a broadcast operand */
    th_f64_tensor *a = th_f64_zeros(2, SZ(3, 2)), *b = th_f64_zeros(2, SZ(3, 1));
    th_f64_data(a)[0] = 1;  /* a[:, 0] = e0 */
    th_f64_data(a)[3] = 2;  /* a[:, 1] = 2 e1 */
    th_f64_data(b)[1] = 1;  /* b = e1 */
    th_f64_tensor *c = th_f64_cross(a, b, 0);
    double wc[6] = {0, 0, 0, 0, 1, 0}; /* column 0: e2; column 1: 2 e1 x e1 = 0 */
    CHECK(c && th_f64_size(c, 0) == 3 && th_f64_size(c, 1) == 2 && same(c, wc, 6));
    th_f64_release(c);
    /* general values against the formula, along the last dim, into an out that is a */
    th_f64_tensor *x = mk(2, SZ(4, 3), 3), *y = mk(2, SZ(4, 3), 4), *x0 = th_f64_contiguous(x);
    double wx[12];
    for (int i = 0; i < 4; i++) {
        const double *u = th_f64_data(x) + 3 * i, *w = th_f64_data(y) + 3 * i;
        wx[3 * i] = u[1] * w[2] - u[2] * w[1];
        wx[3 * i + 1] = u[2] * w[0] - u[0] * w[2];
        wx[3 * i + 2] = u[0] * w[1] - u[1] * w[0];
    }
    c = th_f64_cross(x, y, -1);
    CHECK(same(c, wx, 12));
    th_f64_release(c);
    CHECK_INT_EQ(th_f64_cross_out(x, x, y, 1), TH_OK);
    CHECK(same(x, wx, 12));
    th_i64_tensor *ia = th_i64_zeros(1, SZ(3)), *ib = th_i64_zeros(1, SZ(3));
    th_i64_data(ia)[0] = 2;
    th_i64_data(ib)[1] = 3;
    th_i64_tensor *ic = th_i64_cross(ia, ib, 0);
    CHECK(ic && th_i64_data(ic)[0] == 0 && th_i64_data(ic)[1] == 0 && th_i64_data(ic)[2] == 6);
    th_i64_release(ic);
    th_i64_release(ia);
    th_i64_release(ib);
    th_f64_release(x0);
    th_f64_release(x);
    th_f64_release(y);
    th_f64_release(a);
    th_f64_release(b);
}

static void test_multi_dot(void)
{
    th_f64_tensor *v = mk(1, SZ(10), 1), *a = mk(2, SZ(10, 100), 2), *b = mk(2, SZ(100, 5), 3), *w = mk(1, SZ(5), 4);
    double ab[50], vab[5], vabw = 0;
    for (int i = 0; i < 10; i++)
        for (int k = 0; k < 5; k++) {
            double s = 0;
            for (int j = 0; j < 100; j++) s += at(a, SZ(i, j)) * at(b, SZ(j, k));
            ab[i * 5 + k] = s;
        }
    for (int k = 0; k < 5; k++) {
        vab[k] = 0;
        for (int i = 0; i < 10; i++) vab[k] += th_f64_data(v)[i] * ab[i * 5 + k];
        vabw += vab[k] * th_f64_data(w)[k];
    }
    const th_f64_tensor *c2[2] = {a, b}, *c3[3] = {v, a, b}, *c4[4] = {v, a, b, w};
    th_f64_tensor *r = th_f64_multi_dot(2, c2);
    CHECK(r && th_f64_ndim(r) == 2 && same(r, ab, 50));
    th_f64_release(r);
    r = th_f64_multi_dot(3, c3);
    CHECK(r && th_f64_ndim(r) == 1 && same(r, vab, 5));
    th_f64_release(r);
    r = th_f64_multi_dot(4, c4);
    CHECK(r && th_f64_ndim(r) == 0 && same(r, &vabw, 1));
    th_f64_release(r);
    th_f64_tensor *o = th_f64_zeros(2, SZ(5, 10)), *ot = th_f64_transpose(o, 0, 1);
    CHECK_INT_EQ(th_f64_multi_dot_out(ot, 2, c2), TH_OK);
    CHECK(same(ot, ab, 50));
    th_f64_release(ot);
    th_f64_release(o);
    th_f64_release(v);
    th_f64_release(a);
    th_f64_release(b);
    th_f64_release(w);
}

/* The order of the products shows in the memory they take: a chain (1 x 500)(500 x 500)(500 x 500) costs a
 * 1 x 500 intermediate when the vector goes first and a 500 x 500 one (2 MB) otherwise; the mirrored chain the
 * other way round. Measured with an allocator of its own for the call. */
static void test_order(void)
{
    for (int mirror = 0; mirror < 2; mirror++) {
        th_f64_tensor *v = mk(2, mirror ? SZ(500, 1) : SZ(1, 500), 1), *p = mk(2, SZ(500, 500), 2);
        th_f64_tensor *q = mk(2, SZ(500, 500), 3);
        const th_f64_tensor *chain[3] = {mirror ? p : v, mirror ? q : p, mirror ? v : q};
        th_f64_tensor *ab = th_f64_matmul(chain[0], chain[1]), *want = th_f64_matmul(ab, chain[2]);
        for (int which = 0; which < 2; which++) {
            th_counting_allocator *counter = th_counting_allocator_new(NULL, NULL);
            th_set_default_allocator(th_counting_allocator_get(counter), counter);
            th_f64_tensor *r = which ? th_f64_multi_dot(3, chain) : th_f64_einsum("ab,bc,cd->ad", 3, chain);
            th_alloc_stats st = th_counting_allocator_stats(counter);
            CHECK(r && same(r, th_f64_data(want), 500));
            th_f64_release(r);
            th_set_default_allocator(th_counting_allocator_get(check_counter), check_counter);
            CHECK(st.peak_bytes < 64 * 1024); /* the 2 MB intermediate was never made */
            if (st.peak_bytes >= 64 * 1024)
                fprintf(stderr, "%s, mirror %d: peak %lld bytes\n", which ? "multi_dot" : "einsum", mirror,
                        (long long)st.peak_bytes);
            CHECK_INT_EQ(th_counting_allocator_stats(counter).live_blocks, 0);
            th_counting_allocator_free(counter);
        }
        th_f64_release(ab);
        th_f64_release(want);
        th_f64_release(v);
        th_f64_release(p);
        th_f64_release(q);
    }
}

static void test_errors(void)
{
    th_f64_tensor *a = mk(2, SZ(2, 3), 1), *b = mk(2, SZ(2, 2), 2), *v = mk(1, SZ(3), 3), *o = th_f64_empty(1, SZ(7));
    th_f32_tensor *f = th_f32_zeros(2, SZ(2, 3));
    const th_f64_tensor *one[1] = {a}, *two[2] = {a, b}, *nul[2] = {a, NULL}, *aa[2] = {a, a};
    CHECK_NULL(th_f64_einsum(NULL, 1, one), TH_ERR_INVALID, "th_f64_einsum", "NULL equation");
    CHECK_NULL(th_f64_einsum("ij", 0, one), TH_ERR_INVALID, "th_f64_einsum", "0 operands");
    CHECK_NULL(th_f64_einsum("ij", 1, NULL), TH_ERR_INVALID, "th_f64_einsum", "NULL operands");
    CHECK_NULL(th_f64_einsum("ij,jk", 2, nul), TH_ERR_INVALID, "th_f64_einsum", "NULL tensor 1");
    CHECK_NULL(th_f64_einsum("ij,jk", 1, one), TH_ERR_INVALID, "th_f64_einsum", "has subscripts for 2 operands; 1 given");
    CHECK_NULL(th_f64_einsum("ij", 2, two), TH_ERR_INVALID, "th_f64_einsum", "has subscripts for 1 operand; 2 given");
    CHECK_NULL(th_f64_einsum("i1", 1, one), TH_ERR_INVALID, "th_f64_einsum", "'1' (byte 49) at position 1 is not a subscript");
    CHECK_NULL(th_f64_einsum("i.j", 1, one), TH_ERR_INVALID, "th_f64_einsum", "a '.' at position 1 that does not begin");
    CHECK_NULL(th_f64_einsum("...i...", 1, one), TH_ERR_INVALID, "th_f64_einsum", "operand 0 has two ellipses");
    CHECK_NULL(th_f64_einsum("ij->ii", 1, one), TH_ERR_INVALID, "th_f64_einsum", "output subscript 'i' appears twice");
    CHECK_NULL(th_f64_einsum("ij->k", 1, one), TH_ERR_INVALID, "th_f64_einsum", "output subscript 'k' is in no operand");
    CHECK_NULL(th_f64_einsum("ijk", 1, one), TH_ERR_SHAPE, "th_f64_einsum", "operand 0 has 2 dims; its subscripts \"ijk\" name 3");
    CHECK_NULL(th_f64_einsum("ij,jk", 2, two), TH_ERR_SHAPE, "th_f64_einsum", "label 'j' has size 3 in operand 0 and 2 in operand 1");
    CHECK_NULL(th_f64_einsum("ii", 1, one), TH_ERR_SHAPE, "th_f64_einsum", "label 'i' is repeated in operand 0 with sizes 2 and 3");
    CHECK_NULL(th_f64_einsum("...j->j", 1, one), TH_ERR_INVALID, "th_f64_einsum", "the output must place them with \"...\"");
    CHECK_NULL(th_f64_einsum("ij->i->j", 1, one), TH_ERR_INVALID, "th_f64_einsum", "'-' (byte 45)");
    CHECK_NULL(th_f64_einsum("ij,ij", 2, (const th_f64_tensor *const *)(const void *[]){a, f}), TH_ERR_DTYPE, "th_f64_einsum",
               "tensor 1 is f32, not f64");
    CHECK_FAILS(th_f64_einsum_out(o, "ij,ij->i", 2, aa), TH_ERR_SHAPE, "th_f64_einsum_out",
                "out has shape (7); the result has shape (2)");
    CHECK_FAILS(th_f64_einsum_out(NULL, "ij", 1, one), TH_ERR_INVALID, "th_f64_einsum_out", "NULL out");
    CHECK_FAILS(th_f64_einsum_out((th_f64_tensor *)f, "ij", 1, one), TH_ERR_DTYPE, "th_f64_einsum_out",
                "out is f32, not f64");
    /* more than TH_MAX_DIMS in an output, through an outer product of 17 labels */
    th_f64_tensor *s1 = th_f64_zeros(1, SZ(1));
    const th_f64_tensor *many[17];
    for (int k = 0; k < 17; k++) many[k] = s1;
    CHECK_NULL(th_f64_einsum("a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q", 17, many), TH_ERR_SHAPE, "th_f64_einsum",
               "more than TH_MAX_DIMS (16) dims");
    th_f64_release(s1);

    CHECK_NULL(th_f64_tensordot(a, b, 3), TH_ERR_SHAPE, "th_f64_tensordot", "ndims 3 is outside 0..2");
    CHECK_NULL(th_f64_tensordot(a, b, -1), TH_ERR_SHAPE, "th_f64_tensordot", "ndims -1 is outside");
    CHECK_NULL(th_f64_tensordot(a, b, 1), TH_ERR_SHAPE, "th_f64_tensordot", "dims_a[0] = 1 (size 3) and dims_b[0] = 0 (size 2) differ");
    CHECK_NULL(th_f64_tensordot(NULL, b, 1), TH_ERR_INVALID, "th_f64_tensordot", "NULL tensor 0");
    CHECK_NULL(th_f64_tensordot_axes(a, b, 1, (const int[]){2}, (const int[]){0}), TH_ERR_RANGE, "th_f64_tensordot_axes",
               "dims_a[0] = 2 is out of range for a's 2 dims");
    CHECK_NULL(th_f64_tensordot_axes(a, b, 1, (const int[]){0}, (const int[]){-3}), TH_ERR_RANGE, "th_f64_tensordot_axes",
               "dims_b[0] = -3 is out of range for b's 2 dims");
    CHECK_NULL(th_f64_tensordot_axes(b, b, 2, (const int[]){0, 0}, (const int[]){0, 1}), TH_ERR_INVALID, "th_f64_tensordot_axes",
               "dims_a[1] = 0 is repeated");
    CHECK_NULL(th_f64_tensordot_axes(a, b, 1, NULL, (const int[]){0}), TH_ERR_INVALID, "th_f64_tensordot_axes", "NULL dims_a");
    CHECK_NULL(th_f64_tensordot_axes(a, b, 3, (const int[]){0, 1, 2}, (const int[]){0, 1, 2}), TH_ERR_SHAPE, "th_f64_tensordot_axes",
               "3 dims to contract; a has 2 and b has 2");
    CHECK_NULL(th_f64_inner(a, b), TH_ERR_SHAPE, "th_f64_inner", "the last dims of a (size 3) and b (size 2) differ");
    CHECK_NULL(th_f64_vdot(a, a), TH_ERR_SHAPE, "th_f64_vdot", "must be vectors of one size; they have shapes (2, 3)");
    CHECK_NULL(th_f64_trace(v), TH_ERR_SHAPE, "th_f64_trace", "a must be a matrix (2 dims); it has shape (3)");
    CHECK_FAILS(th_f64_trace_out(o, a), TH_ERR_SHAPE, "th_f64_trace_out", "out has shape (7); the result has shape ()");
    th_f64_tensor *big = th_f64_zeros(9, SZ(1, 1, 1, 1, 1, 1, 1, 1, 1));
    CHECK_NULL(th_f64_kron(big, a), TH_ERR_SHAPE, "th_f64_kron", "operands of 9 dims; kron takes at most 8");
    th_f64_release(big);
    CHECK_NULL(th_f64_cross(a, a, 2), TH_ERR_RANGE, "th_f64_cross", "dim 2 is out of range for the broadcast shape's 2");
    CHECK_NULL(th_f64_cross(a, a, 0), TH_ERR_SHAPE, "th_f64_cross", "a has shape (2, 3): its dim 0 must have size 3");
    CHECK_NULL(th_f64_cross(a, b, -1), TH_ERR_SHAPE, "th_f64_cross", "shapes (2, 3) and (2, 2) do not broadcast");
    CHECK_NULL(th_f64_cross(v, b, -1), TH_ERR_SHAPE, "th_f64_cross", "shapes (3) and (2, 2) do not broadcast");
    th_f64_tensor *v2 = mk(1, SZ(2), 0);
    CHECK_NULL(th_f64_cross(v, v2, 0), TH_ERR_SHAPE, "th_f64_cross", "shapes (3) and (2) do not broadcast");
    CHECK_NULL(th_f64_cross(b, v2, 0), TH_ERR_SHAPE, "th_f64_cross", "a has shape (2, 2): its dim 0 must have size 3");
    th_f64_release(v2);
    CHECK_NULL(th_f64_multi_dot(1, one), TH_ERR_INVALID, "th_f64_multi_dot", "1 tensors; multi_dot takes at least 2");
    CHECK_NULL(th_f64_multi_dot(2, two), TH_ERR_SHAPE, "th_f64_multi_dot", "tensor 1 has 2 rows; tensor 0 before it has 3 columns");
    th_f64_tensor *c3 = th_f64_zeros(3, SZ(2, 2, 2));
    const th_f64_tensor *bad3[3] = {b, c3, b}, *midv[3] = {b, v, b};
    CHECK_NULL(th_f64_multi_dot(3, bad3), TH_ERR_SHAPE, "th_f64_multi_dot", "tensor 1 has 3 dims; multi_dot takes matrices");
    CHECK_NULL(th_f64_multi_dot(3, midv), TH_ERR_SHAPE, "th_f64_multi_dot", "tensor 1 has 1 dims");
    CHECK_NULL(th_f64_multi_dot(2, NULL), TH_ERR_INVALID, "th_f64_multi_dot", "NULL operands");
    CHECK_FAILS(th_f64_multi_dot_out(o, 2, (const th_f64_tensor *const[]){b, b}), TH_ERR_SHAPE, "th_f64_multi_dot_out",
                "out has shape (7)");
    th_f64_release(c3);
    th_f32_release(f);
    th_f64_release(a);
    th_f64_release(b);
    th_f64_release(v);
    th_f64_release(o);
}

int main(void)
{
    test_begin();
    test_einsum_matmul();
    test_einsum_single();
    test_einsum_batched_broadcast();
    test_einsum_chain();
    test_einsum_empty_and_out();
    test_einsum_dtypes();
    test_tensordot_inner();
    test_trace_kron_cross();
    test_multi_dot();
    test_order();
    test_errors();
    return test_end("products");
}
