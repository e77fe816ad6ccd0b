/* tests/dist/test_dist.c: every collective of dist/ x every dtype x a contiguous and a strided tensor, against
 * the same collective done with raw MPI on plain C arrays (Open MPI is the peer), on the communicator as made,
 * with every MPI call cut to 3 elements (TH_DIST_MAX_COUNT: the pieces and derived types of more than INT_MAX
 * elements) and in the debug mode; gatherv_to, scatterv_from and all_gather_list against a reference computed on
 * the checking rank; then every error path. Run under mpirun with 2, 3 and 4 ranks (meson.build). */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "th_dist.h"

#include <limits.h>
#include <signal.h>
#include <stdlib.h>

#include "../check.h"

static int rank_, size_;

/* rc is status, the message starts with fn (built at run time) and contains detail. */
#define CHECK_ERR_AT(rc, status, fn, detail) check_err((rc), (status), (fn), (detail), __LINE__)
static void check_err(int rc, th_status status, const char *fn, const char *detail, int line)
{
    check_count++;
    const char *m = th_last_error();
    if (rc != (int)status || th_last_status() != status || strncmp(m, fn, strlen(fn)) != 0 || m[strlen(fn)] != ':' ||
        !strstr(m, detail)) {
        check_failures++;
        fprintf(stderr, "rank %d line %d: got %d \"%s\", wanted %s from %s with \"%s\"\n", rank_, line, rc, m,
                th_status_name(status), fn, detail);
    }
}

/* ---- tensors of any dtype, filled and read through plain bytes ---------------------------------------- */

/* A tensor of n elements of d: contiguous, or every other element of a buffer of 2n + 1 (offset 1). */
static th_tensor *make(th_dtype d, int64_t n, bool strided)
{
    size_t esz = th_dtype_info(d)->size;
    th_storage *s = th_storage_new((int64_t)esz * (2 * n + 1), NULL, NULL);
    memset(th_storage_raw_data(s), 0x5a, esz * (size_t)(2 * n + 1));
    int64_t sizes[1] = {n}, strides[1] = {2};
    th_tensor *t = th_tensor_new_with_storage(d, s, strided ? 1 : 0, 1, sizes, strided ? strides : NULL);
    th_storage_release(s);
    return t;
}

static void copy_bytes(th_tensor *t, void *bytes, bool into_tensor)
{
    int64_t n = th_tensor_numel(t);
    th_storage *s = th_storage_from_blob(bytes, n * (int64_t)th_dtype_info(th_tensor_dtype(t))->size,
                                         (th_device){TH_DEVICE_CPU, 0}, NULL, NULL);
    th_tensor *flat = th_tensor_new_with_storage(th_tensor_dtype(t), s, 0, th_tensor_ndim(t), th_tensor_sizes(t), NULL);
    CHECK(flat != NULL);
    CHECK_INT_EQ(into_tensor ? th_tensor_copy(t, flat) : th_tensor_copy(flat, t), 0);
    th_tensor_release(flat);
    th_storage_release(s);
}

/* Element i of rank r's input, as a double (small whole numbers: exact in every dtype) */
static double value(int r, int64_t i, int salt) { return (double)(((r + 1) * 3 + i * 5 + salt) % 7 + 1); }

/* Writes x (and the imaginary part y) as one element of d at p: the library's own layout. For float16 and
 * bfloat16, wide (the MPI peer's representation for reductions) writes a float instead of the 16 bits. */
static void put(th_dtype d, void *p, double x, double y, bool wide)
{
    switch (d) {
    case TH_BOOL: *(bool *)p = ((int)x % 3) != 0; break;
    case TH_U8: *(uint8_t *)p = (uint8_t)x; break;
    case TH_I8: *(int8_t *)p = (int8_t)x; break;
    case TH_I16: *(int16_t *)p = (int16_t)x; break;
    case TH_I32: *(int32_t *)p = (int32_t)x; break;
    case TH_I64: *(int64_t *)p = (int64_t)x; break;
    case TH_F16:
        if (wide) *(float *)p = (float)x;
        else *(uint16_t *)p = th_float16_from_double(x).bits;
        break;
    case TH_BF16:
        if (wide) *(float *)p = (float)x;
        else *(uint16_t *)p = th_bfloat16_from_double(x).bits;
        break;
    case TH_F32: *(float *)p = (float)x; break;
    case TH_F64: *(double *)p = x; break;
    case TH_C64: ((float *)p)[0] = (float)x; ((float *)p)[1] = (float)y; break;
    default: ((double *)p)[0] = x; ((double *)p)[1] = y; break;
    }
}

static size_t esz_of(th_dtype d, bool wide)
{
    return wide && (d == TH_F16 || d == TH_BF16) ? sizeof(float) : th_dtype_info(d)->size;
}

/* n elements of rank r's input (salt tells inputs apart), in the library's layout or the peer's (wide). */
static void *input(th_dtype d, int r, int64_t n, int salt, bool wide)
{
    size_t esz = esz_of(d, wide);
    char *p = malloc(esz * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++) put(d, p + (size_t)i * esz, value(r, i, salt), value(r, i, salt + 2), wide);
    return p;
}

/* ---- the peer: raw MPI on plain arrays ------------------------------------------------------------------------- */

static MPI_Datatype peer_type(th_dtype d, bool wide)
{
    switch (d) {
    case TH_BOOL: return MPI_C_BOOL;
    case TH_U8: return MPI_UNSIGNED_CHAR;
    case TH_I8: return MPI_SIGNED_CHAR;
    case TH_I16: return MPI_SHORT;
    case TH_I32: return MPI_INT;
    case TH_I64: return MPI_INT64_T;
    case TH_F16: case TH_BF16: return wide ? MPI_FLOAT : MPI_UINT16_T;
    case TH_F32: return MPI_FLOAT;
    case TH_F64: return MPI_DOUBLE;
    case TH_C64: return MPI_C_FLOAT_COMPLEX;
    default: return MPI_C_DOUBLE_COMPLEX;
    }
}

static MPI_Op peer_op(th_reduce_op op)
{
    switch (op) {
    case TH_REDUCE_SUM: case TH_REDUCE_AVG: return MPI_SUM;
    case TH_REDUCE_PROD: return MPI_PROD;
    case TH_REDUCE_MIN: return MPI_MIN;
    case TH_REDUCE_MAX: return MPI_MAX;
    case TH_REDUCE_BAND: return MPI_BAND;
    case TH_REDUCE_BOR: return MPI_BOR;
    case TH_REDUCE_BXOR: return MPI_BXOR;
    case TH_REDUCE_LAND: return MPI_LAND;
    default: return MPI_LOR;
    }
}

/* The peer's reduced wide array, in the library's layout: AVG divides, float16 and bfloat16 round once. */
static void *narrow(th_dtype d, th_reduce_op op, void *wide, int64_t n)
{
    size_t esz = th_dtype_info(d)->size;
    char *out = malloc(esz * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++) {
        char *w = (char *)wide + (size_t)i * esz_of(d, true);
        if (op == TH_REDUCE_AVG) {
            if (d == TH_F64) *(double *)w /= size_;
            else if (d == TH_C128) { ((double *)w)[0] /= size_; ((double *)w)[1] /= size_; }
            else if (d == TH_C64) { ((float *)w)[0] /= (float)size_; ((float *)w)[1] /= (float)size_; }
            else *(float *)w /= (float)size_;
        }
        if (d == TH_F16) *(uint16_t *)(out + (size_t)i * esz) = th_float16_from_float(*(float *)w).bits;
        else if (d == TH_BF16) *(uint16_t *)(out + (size_t)i * esz) = th_bfloat16_from_float(*(float *)w).bits;
        else memcpy(out + (size_t)i * esz, w, esz);
    }
    free(wide);
    return out;
}

/* ---- the typed calls, per dtype, through one table ----------------------------------------------------------- */

typedef struct ops {
    int (*all_reduce)(th_dist_comm *, th_tensor *, th_reduce_op);
    int (*reduce)(th_dist_comm *, th_tensor *, th_reduce_op, int);
    int (*broadcast)(th_dist_comm *, th_tensor *, int);
    int (*all_gather)(th_dist_comm *, th_tensor *, const th_tensor *);
    int (*gather_to)(th_dist_comm *, th_tensor *, const th_tensor *, int);
    int (*scatter_from)(th_dist_comm *, th_tensor *, const th_tensor *, int);
    int (*reduce_scatter)(th_dist_comm *, th_tensor *, const th_tensor *, th_reduce_op);
    int (*all_to_all)(th_dist_comm *, th_tensor *, const th_tensor *);
    int (*send)(th_dist_comm *, const th_tensor *, int, int);
    int (*recv)(th_dist_comm *, th_tensor *, int, int);
    int (*all_reduce_async)(th_dist_comm *, th_tensor *, th_reduce_op, th_dist_request **);
    int (*broadcast_async)(th_dist_comm *, th_tensor *, int, th_dist_request **);
} ops;

/* Casts, not th_<sfx>_from_base: the error tests hand each a tensor of another dtype. */
#define X(sfx, ENUM, ...)                                                                                         \
    static int sfx##_ar(th_dist_comm *c, th_tensor *t, th_reduce_op op)                                         \
    { return th_##sfx##_all_reduce(c, (th_##sfx##_tensor *)t, op); }                                              \
    static int sfx##_rd(th_dist_comm *c, th_tensor *t, th_reduce_op op, int root)                               \
    { return th_##sfx##_reduce(c, (th_##sfx##_tensor *)t, op, root); }                                            \
    static int sfx##_bc(th_dist_comm *c, th_tensor *t, int root)                                                \
    { return th_##sfx##_broadcast(c, (th_##sfx##_tensor *)t, root); }                                             \
    static int sfx##_ag(th_dist_comm *c, th_tensor *o, const th_tensor *t)                                      \
    { return th_##sfx##_all_gather(c, (th_##sfx##_tensor *)o, (const th_##sfx##_tensor *)t); }                     \
    static int sfx##_ga(th_dist_comm *c, th_tensor *o, const th_tensor *t, int root)                            \
    { return th_##sfx##_gather_to(c, (th_##sfx##_tensor *)o, (const th_##sfx##_tensor *)t, root); }                \
    static int sfx##_sc(th_dist_comm *c, th_tensor *o, const th_tensor *t, int root)                            \
    { return th_##sfx##_scatter_from(c, (th_##sfx##_tensor *)o, (const th_##sfx##_tensor *)t, root); }             \
    static int sfx##_rs(th_dist_comm *c, th_tensor *o, const th_tensor *t, th_reduce_op op)                     \
    { return th_##sfx##_reduce_scatter(c, (th_##sfx##_tensor *)o, (const th_##sfx##_tensor *)t, op); }             \
    static int sfx##_aa(th_dist_comm *c, th_tensor *o, const th_tensor *t)                                      \
    { return th_##sfx##_all_to_all(c, (th_##sfx##_tensor *)o, (const th_##sfx##_tensor *)t); }                    \
    static int sfx##_se(th_dist_comm *c, const th_tensor *t, int dst, int tag)                                  \
    { return th_##sfx##_send(c, (const th_##sfx##_tensor *)t, dst, tag); }                                        \
    static int sfx##_rc(th_dist_comm *c, th_tensor *t, int src, int tag)                                        \
    { return th_##sfx##_recv(c, (th_##sfx##_tensor *)t, src, tag); }                                            \
    static int sfx##_ara(th_dist_comm *c, th_tensor *t, th_reduce_op op, th_dist_request **q)                   \
    { return th_##sfx##_all_reduce_async(c, (th_##sfx##_tensor *)t, op, q); }                                     \
    static int sfx##_bca(th_dist_comm *c, th_tensor *t, int root, th_dist_request **q)                          \
    { return th_##sfx##_broadcast_async(c, (th_##sfx##_tensor *)t, root, q); }
TH_FOREACH_DTYPE(X)
#undef X

static const ops table[TH_NUM_DTYPES] = {
#define X(sfx, ENUM, ...) \
    [TH_##ENUM] = {sfx##_ar, sfx##_rd, sfx##_bc, sfx##_ag, sfx##_ga, sfx##_sc, sfx##_rs, sfx##_aa, sfx##_se, sfx##_rc, \
                    sfx##_ara, sfx##_bca},
    TH_FOREACH_DTYPE(X)
#undef X
};

/* The ops each dtype's kind takes (th_dist.h), and one it refuses. */
static int valid_ops(th_dtype d, th_reduce_op *out)
{
    static const th_reduce_op b[] = {TH_REDUCE_LAND, TH_REDUCE_LOR};
    static const th_reduce_op i[] = {TH_REDUCE_SUM, TH_REDUCE_PROD, TH_REDUCE_MIN, TH_REDUCE_MAX,
                                     TH_REDUCE_BAND, TH_REDUCE_BOR, TH_REDUCE_BXOR};
    static const th_reduce_op f[] = {TH_REDUCE_SUM, TH_REDUCE_PROD, TH_REDUCE_MIN, TH_REDUCE_MAX, TH_REDUCE_AVG};
    static const th_reduce_op c[] = {TH_REDUCE_SUM, TH_REDUCE_PROD, TH_REDUCE_AVG};
    const th_reduce_op *src;
    int n;
    switch (th_dtype_info(d)->kind) {
    case TH_KIND_BOOL: src = b; n = 2; break;
    case TH_KIND_UINT: case TH_KIND_INT: src = i; n = 7; break;
    case TH_KIND_FLOAT: src = f; n = 5; break;
    default: src = c; n = 3; break;
    }
    memcpy(out, src, sizeof *src * (size_t)n);
    return n;
}

static th_reduce_op invalid_op(th_dtype d)
{
    switch (th_dtype_info(d)->kind) {
    case TH_KIND_BOOL: return TH_REDUCE_SUM;
    case TH_KIND_UINT: case TH_KIND_INT: return TH_REDUCE_AVG;
    case TH_KIND_FLOAT: return TH_REDUCE_BAND;
    default: return TH_REDUCE_MIN;
    }
}

/* t holds exactly the n elements at want (library layout). */
static void expect(th_tensor *t, const void *want, int64_t n, const char *what, th_dtype d, bool strided)
{
    size_t esz = th_dtype_info(d)->size;
    void *got = malloc(esz * (size_t)(n ? n : 1));
    copy_bytes(t, got, false);
    check_count++;
    if (memcmp(got, want, esz * (size_t)n) != 0) {
        check_failures++;
        fprintf(stderr, "rank %d: %s of %s (%s) differs from raw MPI's\n", rank_, what, th_dtype_name(d),
                strided ? "strided" : "contiguous");
    }
    free(got);
}

/* ---- one dtype, one layout: every collective against the peer ------------------------------------------------- */

static void matrix(th_dist_comm *c, th_dtype d, bool strided, int64_t n)
{
    const ops *o = &table[d];
    const int p = size_;
    MPI_Comm w = MPI_COMM_WORLD;
    th_reduce_op vops[8];
    int nops = valid_ops(d, vops);
    size_t esz = th_dtype_info(d)->size;

    /* all_reduce, reduce and reduce_scatter, every op of the dtype */
    for (int k = 0; k < nops; k++) {
        th_reduce_op op = vops[k];
        /* all_reduce */
        th_tensor *t = make(d, n, strided);
        void *mine = input(d, rank_, n, k, false), *wide = input(d, rank_, n, k, true);
        copy_bytes(t, mine, true);
        CHECK_INT_EQ(o->all_reduce(c, t, op), 0);
        MPI_Allreduce(MPI_IN_PLACE, wide, (int)n, peer_type(d, true), peer_op(op), w);
        void *want = narrow(d, op, wide, n);
        expect(t, want, n, th_reduce_op_name(op), d, strided);
        /* the same, non-blocking, on a view of t that is released before the wait (the request keeps it) */
        th_tensor *base = make(d, n, strided);
        copy_bytes(base, mine, true);
        th_tensor *v = th_tensor_new_with_storage(d, th_tensor_storage(base), th_tensor_offset(base), 1, (int64_t[]){n},
                                                  th_tensor_strides(base));
        th_dist_request *q = NULL;
        CHECK_INT_EQ(o->all_reduce_async(c, v, op, &q), 0);
        th_tensor_release(v);
        bool done = false;
        CHECK(th_dist_test(q, &done) >= 0);
        CHECK_INT_EQ(th_dist_wait(q), 0);
        CHECK_INT_EQ(th_dist_test(q, &done), 0);
        CHECK(done);
        th_dist_request_free(q);
        expect(base, want, n, "all_reduce_async", d, strided);
        th_tensor_release(base);
        free(want);
        /* reduce to the last rank: the others keep their input */
        copy_bytes(t, mine, true);
        CHECK_INT_EQ(o->reduce(c, t, op, p - 1), 0);
        wide = input(d, rank_, n, k, true);
        MPI_Reduce(rank_ == p - 1 ? MPI_IN_PLACE : wide, rank_ == p - 1 ? wide : NULL, (int)n, peer_type(d, true),
                   peer_op(op), p - 1, w);
        if (rank_ == p - 1) {
            want = narrow(d, op, wide, n);
            expect(t, want, n, "reduce", d, strided);
            free(want);
        } else {
            free(wide);
            expect(t, mine, n, "reduce (not root)", d, strided);
        }
        free(mine);
        th_tensor_release(t);
        /* reduce_scatter: t of p * n, out of n */
        th_tensor *big = make(d, p * n, strided), *out = make(d, n, strided);
        mine = input(d, rank_, p * n, k, false);
        wide = input(d, rank_, p * n, k, true);
        copy_bytes(big, mine, true);
        CHECK_INT_EQ(o->reduce_scatter(c, out, big, op), 0);
        void *wout = malloc(esz_of(d, true) * (size_t)(n ? n : 1));
        MPI_Reduce_scatter_block(wide, wout, (int)n, peer_type(d, true), peer_op(op), w);
        want = narrow(d, op, wout, n);
        expect(out, want, n, "reduce_scatter", d, strided);
        free(want);
        free(wide);
        free(mine);
        th_tensor_release(big);
        th_tensor_release(out);
        /* an op the dtype does not take, refused on every rank */
        t = make(d, n, strided);
        char fn[64];
        snprintf(fn, sizeof fn, "th_%s_all_reduce", th_dtype_name(d));
        CHECK_ERR_AT(o->all_reduce(c, t, invalid_op(d)), TH_ERR_DTYPE, fn, th_reduce_op_name(invalid_op(d)));
        th_tensor_release(t);
    }

    /* broadcast from rank 1 % p */
    int root = 1 % p;
    th_tensor *t = make(d, n, strided);
    void *mine = input(d, rank_, n, 0, false), *peer = input(d, rank_, n, 0, false);
    copy_bytes(t, mine, true);
    CHECK_INT_EQ(o->broadcast(c, t, root), 0);
    MPI_Bcast(peer, (int)n, peer_type(d, false), root, w);
    expect(t, peer, n, "broadcast", d, strided);
    /* non-blocking: started, tested until done */
    th_tensor *tb = make(d, n, strided);
    copy_bytes(tb, mine, true);
    th_dist_request *q = NULL;
    CHECK_INT_EQ(o->broadcast_async(c, tb, root, &q), 0);
    bool done = false;
    int polls = 0, rc = 0;
    while (!done && rc == 0 && polls++ < 100000000) rc = th_dist_test(q, &done);
    CHECK_INT_EQ(rc, 0);
    CHECK(done);
    th_dist_request_free(q);
    expect(tb, peer, n, "broadcast_async", d, strided);
    th_tensor_release(tb);
    free(peer);

    /* all_gather and gather_to rank 0 */
    th_tensor *out = make(d, p * n, strided);
    void *all = malloc(esz * (size_t)(p * n + 1));
    CHECK_INT_EQ(o->all_gather(c, out, t), 0);
    copy_bytes(t, mine, true);
    CHECK_INT_EQ(o->all_gather(c, out, t), 0);
    MPI_Allgather(mine, (int)n, peer_type(d, false), all, (int)n, peer_type(d, false), w);
    expect(out, all, p * n, "all_gather", d, strided);
    th_tensor_release(out);
    out = make(d, p * n, strided);
    CHECK_INT_EQ(o->gather_to(c, rank_ == 0 ? out : NULL, t, 0), 0);
    if (rank_ == 0) expect(out, all, p * n, "gather_to", d, strided);
    free(all);

    /* scatter_from the last rank: its t of p * n; out of n */
    th_tensor *part = make(d, n, strided);
    void *src = input(d, rank_, p * n, 3, false), *got = malloc(esz * (size_t)(n + 1));
    if (rank_ == p - 1) copy_bytes(out, src, true);
    CHECK_INT_EQ(o->scatter_from(c, part, rank_ == p - 1 ? out : NULL, p - 1), 0);
    MPI_Scatter(src, (int)n, peer_type(d, false), got, (int)n, peer_type(d, false), p - 1, w);
    expect(part, got, n, "scatter_from", d, strided);
    free(src);
    free(got);

    /* all_to_all: p blocks of n */
    th_tensor *a = make(d, p * n, strided), *b = make(d, p * n, strided);
    src = input(d, rank_, p * n, 4, false);
    got = malloc(esz * (size_t)(p * n + 1));
    copy_bytes(a, src, true);
    CHECK_INT_EQ(o->all_to_all(c, b, a), 0);
    MPI_Alltoall(src, (int)n, peer_type(d, false), got, (int)n, peer_type(d, false), w);
    expect(b, got, p * n, "all_to_all", d, strided);
    free(src);
    free(got);

    /* send to the next rank, recv from the previous (even ranks send first) */
    int next = (rank_ + 1) % p, prev = (rank_ + p - 1) % p;
    void *from_prev = input(d, prev, n, 5, false), *own = input(d, rank_, n, 5, false);
    copy_bytes(t, own, true);
    if (rank_ % 2 == 0) {
        CHECK_INT_EQ(o->send(c, t, next, 7), 0);
        CHECK_INT_EQ(o->recv(c, part, prev, 7), 0);
    } else {
        CHECK_INT_EQ(o->recv(c, part, prev, 7), 0);
        CHECK_INT_EQ(o->send(c, t, next, 7), 0);
    }
    expect(part, from_prev, n, "send/recv", d, strided);
    free(from_prev);
    free(own);

    free(mine);
    th_tensor_release(t);
    th_tensor_release(out);
    th_tensor_release(part);
    th_tensor_release(a);
    th_tensor_release(b);
}

/* ---- uneven gather and scatter along dim 0, all_gather into a list --------------------------------------------- */

typedef struct vops {
    int (*gatherv_to)(th_dist_comm *, th_tensor *, const th_tensor *, const int64_t *, int, int);
    int (*scatterv_from)(th_dist_comm *, th_tensor *, const th_tensor *, const int64_t *, int, int);
    int (*all_gather_list)(th_dist_comm *, th_tensor *const *, int, const th_tensor *);
    int (*reduce_async)(th_dist_comm *, th_tensor *, th_reduce_op, int, th_dist_request **);
    int (*all_gather_async)(th_dist_comm *, th_tensor *, const th_tensor *, th_dist_request **);
} vops;

#define X(sfx, ENUM, ...)                                                                                         \
    static int sfx##_gv(th_dist_comm *c, th_tensor *o, const th_tensor *t, const int64_t *n, int nn, int root)  \
    { return th_##sfx##_gatherv_to(c, (th_##sfx##_tensor *)o, (const th_##sfx##_tensor *)t, n, nn, root); }        \
    static int sfx##_sv(th_dist_comm *c, th_tensor *o, const th_tensor *t, const int64_t *n, int nn, int root)  \
    { return th_##sfx##_scatterv_from(c, (th_##sfx##_tensor *)o, (const th_##sfx##_tensor *)t, n, nn, root); }     \
    static int sfx##_agl(th_dist_comm *c, th_tensor *const *o, int n, const th_tensor *t)                       \
    { return th_##sfx##_all_gather_list(c, (th_##sfx##_tensor *const *)o, n, (const th_##sfx##_tensor *)t); }     \
    static int sfx##_rda(th_dist_comm *c, th_tensor *t, th_reduce_op op, int root, th_dist_request **q)         \
    { return th_##sfx##_reduce_async(c, (th_##sfx##_tensor *)t, op, root, q); }                                   \
    static int sfx##_aga(th_dist_comm *c, th_tensor *o, const th_tensor *t, th_dist_request **q)                \
    { return th_##sfx##_all_gather_async(c, (th_##sfx##_tensor *)o, (const th_##sfx##_tensor *)t, q); }
TH_FOREACH_DTYPE(X)
#undef X

static const vops vtable[TH_NUM_DTYPES] = {
#define X(sfx, ENUM, ...) [TH_##ENUM] = {sfx##_gv, sfx##_sv, sfx##_agl, sfx##_rda, sfx##_aga},
    TH_FOREACH_DTYPE(X)
#undef X
};

enum { MAX_RANKS = 64 };

/* A rows x cols tensor of d: contiguous, or every other column of a rows x 2 cols matrix (offset 1). */
static th_tensor *make2(th_dtype d, int64_t rows, int64_t cols, bool strided)
{
    size_t esz = th_dtype_info(d)->size;
    th_storage *s = th_storage_new((int64_t)esz * (2 * rows * cols + 1), NULL, NULL);
    memset(th_storage_raw_data(s), 0x5a, esz * (size_t)(2 * rows * cols + 1));
    int64_t sizes[2] = {rows, cols}, strides[2] = {cols ? 2 * cols : 1, 2}; /* (no stride 0: copies refuse it) */
    th_tensor *t = th_tensor_new_with_storage(d, s, strided ? 1 : 0, 2, sizes, strided ? strides : NULL);
    th_storage_release(s);
    return t;
}

/* counts[r] = (r + 1) % 3 rows of cols elements: uneven, and an empty share on rank 2 of 3 or more. The reference
 * is input() of each rank, computed on the rank that checks. */
static void uneven(th_dist_comm *c, th_dtype d, bool strided, int64_t cols)
{
    const vops *o = &vtable[d];
    const int p = size_;
    size_t esz = th_dtype_info(d)->size;
    int64_t counts[MAX_RANKS], total = 0, before = 0;
    for (int r = 0; r < p; r++) {
        counts[r] = (r + 1) % 3;
        if (r < rank_) before += counts[r];
        total += counts[r];
    }
    /* gatherv_to the last rank */
    th_tensor *t = make2(d, counts[rank_], cols, strided), *out = make2(d, total, cols, strided);
    void *mine = input(d, rank_, counts[rank_] * cols, 6, false);
    copy_bytes(t, mine, true);
    CHECK_INT_EQ(o->gatherv_to(c, rank_ == p - 1 ? out : NULL, t, counts, p, p - 1), 0);
    if (rank_ == p - 1) {
        char *want = malloc(esz * (size_t)(total * cols + 1)), *at = want;
        for (int r = 0; r < p; r++) {
            void *share = input(d, r, counts[r] * cols, 6, false);
            memcpy(at, share, esz * (size_t)(counts[r] * cols));
            at += esz * (size_t)(counts[r] * cols);
            free(share);
        }
        expect(out, want, total * cols, "gatherv_to", d, strided);
        free(want);
    }
    free(mine);
    /* scatterv_from rank 0: its t of total rows, split by counts */
    char *src = input(d, 0, total * cols, 7, false);
    if (rank_ == 0) copy_bytes(out, src, true);
    th_tensor *part = make2(d, counts[rank_], cols, strided);
    CHECK_INT_EQ(o->scatterv_from(c, part, rank_ == 0 ? out : NULL, counts, p, 0), 0);
    expect(part, src + esz * (size_t)(before * cols), counts[rank_] * cols, "scatterv_from", d, strided);
    free(src);
    /* all_gather_list: t of 2 * cols elements (1-d) into p tensors of 2 x cols */
    th_tensor *small = make(d, 2 * cols, strided), *outs[MAX_RANKS];
    void *own = input(d, rank_, 2 * cols, 8, false);
    copy_bytes(small, own, true);
    for (int r = 0; r < p; r++) outs[r] = make2(d, 2, cols, strided);
    CHECK_INT_EQ(o->all_gather_list(c, outs, p, small), 0);
    for (int r = 0; r < p; r++) {
        void *w = input(d, r, 2 * cols, 8, false);
        expect(outs[r], w, 2 * cols, "all_gather_list", d, strided);
        free(w);
        th_tensor_release(outs[r]);
    }
    free(own);
    th_tensor_release(small);
    th_tensor_release(part);
    th_tensor_release(out);
    th_tensor_release(t);
}

/* A view of all of t (1-d), its own handle: released before the request completes, which must keep it alive. */
static th_tensor *view_of(th_tensor *t)
{
    return th_tensor_new_with_storage(th_tensor_dtype(t), th_tensor_storage(t), th_tensor_offset(t), 1,
                                      th_tensor_sizes(t), th_tensor_strides(t));
}

/* reduce_async (one op of the dtype) and all_gather_async against the peer, on views released before the end. */
static void async_more(th_dist_comm *c, th_dtype d, bool strided, int64_t n)
{
    const vops *o = &vtable[d];
    const int p = size_;
    size_t esz = th_dtype_info(d)->size;
    th_reduce_op ops_[8];
    th_reduce_op op = ops_[valid_ops(d, ops_) - 1];
    /* reduce_async to rank 0 */
    th_tensor *base = make(d, n, strided), *v;
    void *mine = input(d, rank_, n, 9, false), *wide = input(d, rank_, n, 9, true);
    copy_bytes(base, mine, true);
    th_dist_request *q = NULL;
    CHECK_INT_EQ(o->reduce_async(c, v = view_of(base), op, 0, &q), 0);
    th_tensor_release(v);
    CHECK_INT_EQ(th_dist_wait(q), 0);
    th_dist_request_free(q);
    MPI_Reduce(rank_ == 0 ? MPI_IN_PLACE : wide, rank_ == 0 ? wide : NULL, (int)n, peer_type(d, true), peer_op(op), 0,
               MPI_COMM_WORLD);
    if (rank_ == 0) {
        void *want = narrow(d, op, wide, n);
        expect(base, want, n, "reduce_async", d, strided);
        free(want);
    } else {
        free(wide);
        expect(base, mine, n, "reduce_async (not root)", d, strided);
    }
    th_tensor_release(base);
    /* all_gather_async, polled with th_dist_test */
    th_tensor *tb = make(d, n, strided), *ob = make(d, p * n, strided), *tv, *ov;
    copy_bytes(tb, mine, true);
    CHECK_INT_EQ(o->all_gather_async(c, ov = view_of(ob), tv = view_of(tb), &q), 0);
    th_tensor_release(tv);
    th_tensor_release(ov);
    bool done = false;
    int rc = 0;
    for (long polls = 0; !done && rc == 0 && polls < 100000000; polls++) rc = th_dist_test(q, &done);
    CHECK_INT_EQ(rc, 0);
    CHECK(done);
    th_dist_request_free(q);
    void *all = malloc(esz * (size_t)(p * n + 1));
    MPI_Allgather(mine, (int)n, peer_type(d, false), all, (int)n, peer_type(d, false), MPI_COMM_WORLD);
    expect(ob, all, p * n, "all_gather_async", d, strided);
    free(all);
    free(mine);
    th_tensor_release(tb);
    th_tensor_release(ob);
}

static void every_dtype(th_dist_comm *c, int64_t n)
{
    for (int d = 0; d < TH_NUM_DTYPES; d++) {
        matrix(c, (th_dtype)d, false, n);
        matrix(c, (th_dtype)d, true, n);
        uneven(c, (th_dtype)d, false, n);
        uneven(c, (th_dtype)d, true, n);
        uneven(c, (th_dtype)d, d % 2 == 0, 2);
        async_more(c, (th_dtype)d, false, n);
        async_more(c, (th_dtype)d, true, n);
    }
}

/* ---- 0-d, empty and 2-d strided tensors --------------------------------------------------------------------- */

static void shapes(th_dist_comm *c)
{
    /* 0-d: one element */
    th_f64_tensor *s = th_f64_full(0, NULL, (double)(rank_ + 1));
    CHECK_INT_EQ(th_f64_all_reduce(c, s, TH_REDUCE_SUM), 0);
    CHECK(th_f64_get(s, NULL) == (double)(size_ * (size_ + 1) / 2));
    th_f64_release(s);
    /* empty */
    th_f32_tensor *e = th_f32_zeros(1, (int64_t[]){0}), *eo = th_f32_zeros(1, (int64_t[]){0});
    CHECK_INT_EQ(th_f32_all_reduce(c, e, TH_REDUCE_SUM), 0);
    CHECK_INT_EQ(th_f32_broadcast(c, e, 0), 0);
    CHECK_INT_EQ(th_f32_all_gather(c, eo, e), 0);
    th_f32_release(e);
    th_f32_release(eo);
    /* a transposed 3x4 (column-major view) reduces as its contiguous copy */
    th_f32_tensor *m = th_f32_arange(0, 12, 1);
    th_f32_tensor *m2 = th_f32_reshape(m, 2, (int64_t[]){3, 4});
    th_f32_tensor *tr = th_f32_transpose(m2, 0, 1);
    th_f32_tensor *cp = th_f32_contiguous(tr);
    CHECK(!th_f32_is_contiguous(tr));
    CHECK_INT_EQ(th_f32_all_reduce(c, tr, TH_REDUCE_MAX), 0);
    CHECK_INT_EQ(th_f32_all_reduce(c, cp, TH_REDUCE_MAX), 0);
    th_f32_tensor *back = th_f32_contiguous(tr);
    CHECK(memcmp(th_f32_data(back), th_f32_data(cp), 12 * sizeof(float)) == 0);
    th_f32_release(back);
    th_f32_release(cp);
    th_f32_release(tr);
    th_f32_release(m2);
    th_f32_release(m);
}

/* ---- error paths: every rank makes the same mistake, so no rank waits -------------------------------------- */

static void errors(th_dist_comm *c)
{
    const int p = size_;
    th_f32_tensor *t = th_f32_zeros(1, (int64_t[]){4});
    th_f32_tensor *o = th_f32_zeros(1, (int64_t[]){4 * p});
    th_f64_tensor *wrong = th_f64_zeros(1, (int64_t[]){4});

    /* the communicator */
    CHECK_NULL(th_dist_comm_from_mpi(MPI_COMM_NULL), TH_ERR_INVALID, "th_dist_comm_from_mpi", "MPI_COMM_NULL");
    CHECK_FAILS(th_f32_all_reduce(NULL, t, TH_REDUCE_SUM), TH_ERR_INVALID, "th_f32_all_reduce", "c is NULL");
    CHECK_FAILS(th_dist_rank(NULL), TH_ERR_INVALID, "th_dist_rank", "NULL");
    CHECK_FAILS(th_dist_size(NULL), TH_ERR_INVALID, "th_dist_size", "NULL");
    CHECK_FAILS(th_dist_barrier(NULL), TH_ERR_INVALID, "th_dist_barrier", "NULL");
    CHECK(th_dist_mpi_comm(NULL) == MPI_COMM_NULL);
    th_dist_comm_free(NULL);
    /* an inter-communicator: even ranks with odd ones */
    MPI_Comm local, inter;
    MPI_Comm_split(MPI_COMM_WORLD, rank_ % 2, rank_, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, rank_ % 2 ? 0 : 1, 99, &inter);
    CHECK_NULL(th_dist_comm_from_mpi(inter), TH_ERR_UNSUPPORTED, "th_dist_comm_from_mpi", "inter-communicator");
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);

    /* a handle of another dtype, in each tensor parameter of every typed function */
    for (int d = 0; d < TH_NUM_DTYPES; d++) {
        const ops *x = &table[d];
        th_dtype other = (th_dtype)((d + 1) % TH_NUM_DTYPES);
        th_tensor *good = make((th_dtype)d, 4, false), *goodo = make((th_dtype)d, 4 * p, false);
        th_tensor *bad = make(other, 4, false), *bado = make(other, 4 * p, false);
        char fn[64];
#define WRONG(call, verb)                                                                   \
    snprintf(fn, sizeof fn, "th_%s_%s", th_dtype_name((th_dtype)d), verb);                 \
    CHECK_ERR_AT(call, TH_ERR_DTYPE, fn, th_dtype_name(other))
        WRONG(x->all_reduce(c, bad, TH_REDUCE_MAX), "all_reduce");
        WRONG(x->reduce(c, bad, TH_REDUCE_MAX, 0), "reduce");
        WRONG(x->broadcast(c, bad, 0), "broadcast");
        WRONG(x->all_gather(c, bado, good), "all_gather");
        WRONG(x->all_gather(c, goodo, bad), "all_gather");
        WRONG(x->gather_to(c, bado, good, 0), "gather_to");
        WRONG(x->gather_to(c, goodo, bad, 0), "gather_to");
        WRONG(x->scatter_from(c, bad, goodo, 0), "scatter_from");
        WRONG(x->scatter_from(c, good, bado, 0), "scatter_from");
        WRONG(x->reduce_scatter(c, bad, goodo, TH_REDUCE_MAX), "reduce_scatter");
        WRONG(x->reduce_scatter(c, good, bado, TH_REDUCE_MAX), "reduce_scatter");
        WRONG(x->all_to_all(c, bado, goodo), "all_to_all");
        WRONG(x->all_to_all(c, goodo, bado), "all_to_all");
        WRONG(x->send(c, bad, 0, 0), "send");
        WRONG(x->recv(c, bad, 0, 0), "recv");
        th_dist_request *q = (th_dist_request *)&fn; /* must come back NULL */
        WRONG(x->all_reduce_async(c, bad, TH_REDUCE_MAX, &q), "all_reduce_async");
        CHECK(q == NULL);
        q = (th_dist_request *)&fn;
        WRONG(x->broadcast_async(c, bad, 0, &q), "broadcast_async");
        CHECK(q == NULL);
#undef WRONG
        th_tensor_release(good);
        th_tensor_release(goodo);
        th_tensor_release(bad);
        th_tensor_release(bado);
    }

    /* bad roots and peers */
    CHECK_FAILS(th_f32_broadcast(c, t, p), TH_ERR_RANGE, "th_f32_broadcast", "root");
    CHECK_FAILS(th_f32_broadcast(c, t, -1), TH_ERR_RANGE, "th_f32_broadcast", "root -1");
    CHECK_FAILS(th_f32_reduce(c, t, TH_REDUCE_SUM, p), TH_ERR_RANGE, "th_f32_reduce", "outside 0..");
    CHECK_FAILS(th_f32_reduce(c, t, TH_REDUCE_SUM, -3), TH_ERR_RANGE, "th_f32_reduce", "root -3");
    CHECK_FAILS(th_f32_gather_to(c, o, t, p + 5), TH_ERR_RANGE, "th_f32_gather_to", "root");
    CHECK_FAILS(th_f32_scatter_from(c, t, o, -1), TH_ERR_RANGE, "th_f32_scatter_from", "root -1");
    CHECK_FAILS(th_f32_send(c, t, p, 0), TH_ERR_RANGE, "th_f32_send", "dst");
    CHECK_FAILS(th_f32_recv(c, t, -7, 0), TH_ERR_RANGE, "th_f32_recv", "src -7");
    CHECK_FAILS(th_f32_send(c, t, 0, -2), TH_ERR_RANGE, "th_f32_send", "tag -2");

    /* ops: out of the enum, and not valid for the dtype */
    CHECK_FAILS(th_f32_all_reduce(c, t, (th_reduce_op)42), TH_ERR_INVALID, "th_f32_all_reduce", "op 42");
    CHECK_FAILS(th_f32_all_reduce(c, t, TH_REDUCE_LOR), TH_ERR_DTYPE, "th_f32_all_reduce", "TH_REDUCE_LOR is not defined for f32");
    th_bool_tensor *bt = th_bool_zeros(1, (int64_t[]){4});
    CHECK_FAILS(th_bool_all_reduce(c, bt, TH_REDUCE_SUM), TH_ERR_DTYPE, "th_bool_all_reduce", "TH_REDUCE_SUM is not defined for bool");
    th_bool_release(bt);
    th_i32_tensor *it = th_i32_zeros(1, (int64_t[]){4});
    CHECK_FAILS(th_i32_all_reduce(c, it, TH_REDUCE_AVG), TH_ERR_DTYPE, "th_i32_all_reduce", "TH_REDUCE_AVG is not defined for i32");
    th_i32_release(it);
    th_c64_tensor *ct = th_c64_zeros(1, (int64_t[]){4});
    CHECK_FAILS(th_c64_reduce(c, ct, TH_REDUCE_MAX, 0), TH_ERR_DTYPE, "th_c64_reduce", "TH_REDUCE_MAX is not defined for c64");
    th_c64_release(ct);

    /* shapes that do not fit */
    CHECK_FAILS(th_f32_all_gather(c, t, t), TH_ERR_SHAPE, "th_f32_all_gather", "out has 4 elements");
    CHECK_FAILS(th_f32_reduce_scatter(c, o, t, TH_REDUCE_SUM), TH_ERR_SHAPE, "th_f32_reduce_scatter", "t has 4 elements");
    th_f32_tensor *three = th_f32_zeros(1, (int64_t[]){3 * p + 1});
    CHECK_FAILS(th_f32_all_to_all(c, three, three), TH_ERR_SHAPE, "th_f32_all_to_all", "not a multiple");
    th_f32_release(three);
    CHECK_FAILS(th_f32_all_to_all(c, t, o), TH_ERR_SHAPE, "th_f32_all_to_all", "out has 4 elements");
    /* recv into a tensor too small and too large for what was sent (rank 0 to rank 1) */
    th_f32_tensor *small = th_f32_zeros(1, (int64_t[]){3}), *large = th_f32_zeros(1, (int64_t[]){5});
    if (rank_ == 0) {
        CHECK_INT_EQ(th_f32_send(c, t, 1, 3), 0);
        CHECK_INT_EQ(th_f32_send(c, t, 1, 4), 0);
    } else if (rank_ == 1) {
        CHECK_FAILS(th_f32_recv(c, small, 0, 3), TH_ERR_SHAPE, "th_f32_recv", "MPI_Recv failed");
        CHECK_FAILS(th_f32_recv(c, large, 0, 4), TH_ERR_SHAPE, "th_f32_recv", "rank 0 sent 4 elements where t holds 5");
    }
    th_f32_release(small);
    th_f32_release(large);

    /* requests */
    th_dist_request *q = NULL;
    bool done = true;
    CHECK_FAILS(th_f32_all_reduce_async(c, t, TH_REDUCE_SUM, NULL), TH_ERR_INVALID, "th_f32_all_reduce_async", "req is NULL");
    CHECK_FAILS(th_f32_broadcast_async(c, t, p, &q), TH_ERR_RANGE, "th_f32_broadcast_async", "root");
    CHECK(q == NULL);
    CHECK_FAILS(th_f32_all_reduce_async(c, t, TH_REDUCE_LOR, &q), TH_ERR_DTYPE, "th_f32_all_reduce_async", "TH_REDUCE_LOR");
    CHECK(q == NULL);
    CHECK_FAILS(th_f32_all_reduce_async(NULL, t, TH_REDUCE_SUM, &q), TH_ERR_INVALID, "th_f32_all_reduce_async", "c is NULL");
    CHECK_FAILS(th_dist_wait(NULL), TH_ERR_INVALID, "th_dist_wait", "req is NULL");
    CHECK_FAILS(th_dist_test(NULL, &done), TH_ERR_INVALID, "th_dist_test", "req is NULL");
    CHECK(!done);
    CHECK_INT_EQ(th_f32_all_reduce_async(c, t, TH_REDUCE_SUM, &q), 0);
    CHECK_FAILS(th_dist_test(q, NULL), TH_ERR_INVALID, "th_dist_test", "done is NULL");
    th_dist_request_free(q); /* waits */
    th_dist_request_free(NULL);

    /* NULL tensors and read-only ones */
    CHECK_FAILS(th_f32_all_reduce(c, NULL, TH_REDUCE_SUM), TH_ERR_INVALID, "th_f32_all_reduce", "t is NULL");
    CHECK_FAILS(th_f32_broadcast(c, NULL, 0), TH_ERR_INVALID, "th_f32_broadcast", "t is NULL");
    CHECK_FAILS(th_f32_all_gather(c, NULL, t), TH_ERR_INVALID, "th_f32_all_gather", "out is NULL");
    CHECK_FAILS(th_f32_all_gather(c, o, NULL), TH_ERR_INVALID, "th_f32_all_gather", "t is NULL");
    th_storage_make_read_only(th_tensor_storage(th_f32_base(t)));
    CHECK_FAILS(th_f32_all_reduce(c, t, TH_REDUCE_SUM), TH_ERR_READ_ONLY, "th_f32_all_reduce", "t is read-only");
    CHECK_FAILS(th_f32_all_gather(c, t, t), TH_ERR_SHAPE, "th_f32_all_gather", "out has 4"); /* shape first */
    CHECK_INT_EQ(th_f32_all_gather(c, o, t), 0); /* a read-only t is only read */
    CHECK_INT_EQ(th_dist_barrier(c), 0);

    th_f32_release(t);
    th_f32_release(o);
    th_f64_release(wrong);
}

/* ---- gatherv, scatterv and all_gather_list: 0-d and empty tensors, then every error path ------------------- */

static void uneven_shapes(th_dist_comm *c)
{
    const int p = size_;
    int64_t ones[MAX_RANKS], zeros[MAX_RANKS];
    for (int r = 0; r < p; r++) {
        ones[r] = 1;
        zeros[r] = 0;
    }
    /* 0-d: one row of one element per rank, gathered into a 1-d out, scattered back, gathered into a list */
    th_i32_tensor *z = th_i32_full(0, NULL, rank_ + 10), *zo = th_i32_zeros(1, (int64_t[]){p});
    CHECK_INT_EQ(th_i32_gatherv_to(c, zo, z, ones, p, 0), 0);
    for (int r = 0; rank_ == 0 && r < p; r++) CHECK_INT_EQ(th_i32_get(zo, (int64_t[]){r}), r + 10);
    th_i32_tensor *back = th_i32_zeros(0, NULL), *list[MAX_RANKS];
    CHECK_INT_EQ(th_i32_scatterv_from(c, back, zo, ones, p, 0), 0);
    CHECK_INT_EQ(th_i32_get(back, NULL), rank_ + 10);
    for (int r = 0; r < p; r++) list[r] = th_i32_zeros(0, NULL);
    CHECK_INT_EQ(th_i32_all_gather_list(c, list, p, z), 0);
    for (int r = 0; r < p; r++) {
        CHECK_INT_EQ(th_i32_get(list[r], NULL), r + 10);
        th_i32_release(list[r]);
    }
    th_i32_release(back);
    th_i32_release(zo);
    th_i32_release(z);
    /* empty: no rows anywhere, and rows of no elements */
    th_f32_tensor *e = th_f32_zeros(2, (int64_t[]){0, 3}), *e2 = th_f32_zeros(2, (int64_t[]){1, 0});
    th_f32_tensor *eo = th_f32_zeros(2, (int64_t[]){p, 0});
    CHECK_INT_EQ(th_f32_gatherv_to(c, e, e, zeros, p, 0), 0);
    CHECK_INT_EQ(th_f32_scatterv_from(c, e, e, zeros, p, 0), 0);
    CHECK_INT_EQ(th_f32_gatherv_to(c, eo, e2, ones, p, p - 1), 0);
    CHECK_INT_EQ(th_f32_scatterv_from(c, e2, eo, ones, p, p - 1), 0);
    th_f32_tensor *elist[MAX_RANKS];
    for (int r = 0; r < p; r++) elist[r] = e;
    CHECK_INT_EQ(th_f32_all_gather_list(c, elist, p, e2), 0);
    th_f32_release(e);
    th_f32_release(e2);
    th_f32_release(eo);
}

/* Every rank makes the same mistake, so no rank waits. */
static void uneven_errors(th_dist_comm *c)
{
    const int p = size_;
    int64_t counts[MAX_RANKS], three[MAX_RANKS], neg[MAX_RANKS], huge[MAX_RANKS];
    for (int r = 0; r < p; r++) {
        counts[r] = 2;
        three[r] = 3;
        neg[r] = r == 1 ? -1 : 2;
        huge[r] = INT64_MAX / 2 + 1;
    }
    /* a handle of another dtype, in each tensor parameter of every typed function */
    for (int d = 0; d < TH_NUM_DTYPES; d++) {
        const vops *x = &vtable[d];
        th_dtype other = (th_dtype)((d + 1) % TH_NUM_DTYPES);
        th_tensor *good = make2((th_dtype)d, 2, 3, false), *goodo = make2((th_dtype)d, 2 * p, 3, false);
        th_tensor *bad = make2(other, 2, 3, false), *bado = make2(other, 2 * p, 3, false), *list[MAX_RANKS];
        char fn[64], want[64];
        snprintf(fn, sizeof fn, "th_%s_gatherv_to", th_dtype_name((th_dtype)d));
        CHECK_ERR_AT(x->gatherv_to(c, bado, good, counts, p, 0), TH_ERR_DTYPE, fn, th_dtype_name(other));
        CHECK_ERR_AT(x->gatherv_to(c, goodo, bad, counts, p, 0), TH_ERR_DTYPE, fn, th_dtype_name(other));
        snprintf(fn, sizeof fn, "th_%s_scatterv_from", th_dtype_name((th_dtype)d));
        CHECK_ERR_AT(x->scatterv_from(c, bad, goodo, counts, p, 0), TH_ERR_DTYPE, fn, th_dtype_name(other));
        CHECK_ERR_AT(x->scatterv_from(c, good, bado, counts, p, 0), TH_ERR_DTYPE, fn, th_dtype_name(other));
        snprintf(fn, sizeof fn, "th_%s_all_gather_list", th_dtype_name((th_dtype)d));
        snprintf(want, sizeof want, "outs[1] is %s", th_dtype_name(other));
        for (int r = 0; r < p; r++) list[r] = r == 1 ? bad : good;
        CHECK_ERR_AT(x->all_gather_list(c, list, p, good), TH_ERR_DTYPE, fn, want);
        for (int r = 0; r < p; r++) list[r] = good;
        CHECK_ERR_AT(x->all_gather_list(c, list, p, bad), TH_ERR_DTYPE, fn, th_dtype_name(other));
        th_dist_request *q = (th_dist_request *)&fn; /* must come back NULL */
        snprintf(fn, sizeof fn, "th_%s_reduce_async", th_dtype_name((th_dtype)d));
        CHECK_ERR_AT(x->reduce_async(c, bad, TH_REDUCE_MAX, 0, &q), TH_ERR_DTYPE, fn, th_dtype_name(other));
        CHECK(q == NULL);
        snprintf(fn, sizeof fn, "th_%s_all_gather_async", th_dtype_name((th_dtype)d));
        q = (th_dist_request *)&fn;
        CHECK_ERR_AT(x->all_gather_async(c, bado, good, &q), TH_ERR_DTYPE, fn, th_dtype_name(other));
        CHECK(q == NULL);
        q = (th_dist_request *)&fn;
        CHECK_ERR_AT(x->all_gather_async(c, goodo, bad, &q), TH_ERR_DTYPE, fn, th_dtype_name(other));
        CHECK(q == NULL);
        th_tensor_release(good);
        th_tensor_release(goodo);
        th_tensor_release(bad);
        th_tensor_release(bado);
    }

    th_f32_tensor *t = th_f32_zeros(2, (int64_t[]){2, 3}), *o = th_f32_zeros(2, (int64_t[]){2 * p, 3});
    /* counts */
    CHECK_FAILS(th_f32_gatherv_to(c, o, t, NULL, p, 0), TH_ERR_INVALID, "th_f32_gatherv_to", "counts is NULL");
    CHECK_FAILS(th_f32_scatterv_from(c, t, o, counts, p + 1, 0), TH_ERR_INVALID, "th_f32_scatterv_from",
                "ncounts is");
    CHECK_FAILS(th_f32_gatherv_to(c, o, t, counts, 0, 0), TH_ERR_INVALID, "th_f32_gatherv_to", "ncounts is 0");
    CHECK_FAILS(th_f32_gatherv_to(c, o, t, neg, p, 0), TH_ERR_RANGE, "th_f32_gatherv_to", "counts[1] is -1");
    CHECK_FAILS(th_f32_scatterv_from(c, t, o, huge, p, 0), TH_ERR_OVERFLOW, "th_f32_scatterv_from", "add up past");
    CHECK_FAILS(th_f32_gatherv_to(c, o, t, three, p, 0), TH_ERR_SHAPE, "th_f32_gatherv_to",
                "t has 2 rows along dim 0, not counts[");
    CHECK_FAILS(th_f32_scatterv_from(c, t, o, three, p, 0), TH_ERR_SHAPE, "th_f32_scatterv_from",
                "out has 2 rows along dim 0, not counts[");
    /* more rows than one MPI call counts: views of stride 0, so that nothing that large is allocated */
    int64_t big[MAX_RANKS];
    for (int r = 0; r < p; r++) big[r] = (int64_t)INT_MAX / 2 + 1;
    th_f32_tensor *one = th_f32_zeros(1, (int64_t[]){1});
    th_f32_tensor *tall = th_f32_as_strided(one, 2, (int64_t[]){big[0], 1}, (int64_t[]){0, 0}, 0);
    th_f32_tensor *taller = th_f32_as_strided(one, 2, (int64_t[]){big[0] * p, 1}, (int64_t[]){0, 0}, 0);
    CHECK_FAILS(th_f32_gatherv_to(c, taller, tall, big, p, 0), TH_ERR_OVERFLOW, "th_f32_gatherv_to",
                "more than one MPI call");
    th_f32_release(taller);
    th_f32_release(tall);
    th_f32_release(one);
    /* roots and NULL tensors */
    CHECK_FAILS(th_f32_gatherv_to(c, o, t, counts, p, p), TH_ERR_RANGE, "th_f32_gatherv_to", "root");
    CHECK_FAILS(th_f32_scatterv_from(c, t, o, counts, p, -1), TH_ERR_RANGE, "th_f32_scatterv_from", "root -1");
    CHECK_FAILS(th_f32_gatherv_to(c, o, NULL, counts, p, 0), TH_ERR_INVALID, "th_f32_gatherv_to", "t is NULL");
    CHECK_FAILS(th_f32_scatterv_from(c, NULL, o, counts, p, 0), TH_ERR_INVALID, "th_f32_scatterv_from",
                "out is NULL");
    CHECK_FAILS(th_f32_gatherv_to(NULL, o, t, counts, p, 0), TH_ERR_INVALID, "th_f32_gatherv_to", "c is NULL");
    /* a read-only out (every rank's out of scatterv) */
    th_f32_tensor *ro = th_f32_zeros(2, (int64_t[]){2, 3});
    th_storage_make_read_only(th_tensor_storage(th_f32_base(ro)));
    CHECK_FAILS(th_f32_scatterv_from(c, ro, o, counts, p, 0), TH_ERR_READ_ONLY, "th_f32_scatterv_from",
                "out is read-only");

    /* all_gather_list */
    th_f32_tensor *six = th_f32_zeros(1, (int64_t[]){6}), *five = th_f32_zeros(1, (int64_t[]){5});
    th_f32_tensor *list[MAX_RANKS];
    for (int r = 0; r < p; r++) list[r] = six;
    CHECK_FAILS(th_f32_all_gather_list(c, NULL, p, t), TH_ERR_INVALID, "th_f32_all_gather_list", "outs is NULL");
    CHECK_FAILS(th_f32_all_gather_list(c, list, p - 1, t), TH_ERR_INVALID, "th_f32_all_gather_list", "nouts is");
    CHECK_FAILS(th_f32_all_gather_list(c, list, p, NULL), TH_ERR_INVALID, "th_f32_all_gather_list", "t is NULL");
    CHECK_FAILS(th_f32_all_gather_list(NULL, list, p, t), TH_ERR_INVALID, "th_f32_all_gather_list", "c is NULL");
    list[1] = NULL;
    CHECK_FAILS(th_f32_all_gather_list(c, list, p, t), TH_ERR_INVALID, "th_f32_all_gather_list", "outs[1] is NULL");
    list[1] = six;
    list[0] = five;
    CHECK_FAILS(th_f32_all_gather_list(c, list, p, t), TH_ERR_SHAPE, "th_f32_all_gather_list",
                "outs[0] has 5 elements, not 6");
    list[0] = six;
    list[p - 1] = ro;
    CHECK_FAILS(th_f32_all_gather_list(c, list, p, t), TH_ERR_READ_ONLY, "th_f32_all_gather_list", "is read-only");
    list[p - 1] = six;
    CHECK_INT_EQ(th_f32_all_gather_list(c, list, p, ro), 0); /* a read-only t is only read */

    /* reduce_async and all_gather_async */
    th_dist_request *q = NULL;
    th_f32_tensor *t6 = th_f32_zeros(1, (int64_t[]){6}), *o6 = th_f32_zeros(1, (int64_t[]){6 * p});
    CHECK_FAILS(th_f32_reduce_async(c, t6, TH_REDUCE_SUM, 0, NULL), TH_ERR_INVALID, "th_f32_reduce_async", "req is NULL");
    CHECK_FAILS(th_f32_reduce_async(c, t6, TH_REDUCE_SUM, p, &q), TH_ERR_RANGE, "th_f32_reduce_async", "root");
    CHECK(q == NULL);
    CHECK_FAILS(th_f32_reduce_async(c, t6, TH_REDUCE_SUM, -1, &q), TH_ERR_RANGE, "th_f32_reduce_async", "root -1");
    CHECK_FAILS(th_f32_reduce_async(c, t6, TH_REDUCE_BOR, 0, &q), TH_ERR_DTYPE, "th_f32_reduce_async",
                "TH_REDUCE_BOR is not defined for f32");
    CHECK_FAILS(th_f32_reduce_async(c, NULL, TH_REDUCE_SUM, 0, &q), TH_ERR_INVALID, "th_f32_reduce_async", "t is NULL");
    CHECK_FAILS(th_f32_reduce_async(NULL, t6, TH_REDUCE_SUM, 0, &q), TH_ERR_INVALID, "th_f32_reduce_async", "c is NULL");
    CHECK_FAILS(th_f32_all_gather_async(c, o6, t6, NULL), TH_ERR_INVALID, "th_f32_all_gather_async", "req is NULL");
    CHECK_FAILS(th_f32_all_gather_async(c, t6, t6, &q), TH_ERR_SHAPE, "th_f32_all_gather_async", "out has 6 elements");
    CHECK(q == NULL);
    CHECK_FAILS(th_f32_all_gather_async(c, NULL, t6, &q), TH_ERR_INVALID, "th_f32_all_gather_async", "out is NULL");
    CHECK_FAILS(th_f32_all_gather_async(c, o6, NULL, &q), TH_ERR_INVALID, "th_f32_all_gather_async", "t is NULL");
    CHECK_FAILS(th_f32_all_gather_async(NULL, o6, t6, &q), TH_ERR_INVALID, "th_f32_all_gather_async", "c is NULL");
    th_f32_tensor *ro6 = th_f32_zeros(1, (int64_t[]){6 * p});
    th_storage_make_read_only(th_tensor_storage(th_f32_base(ro6)));
    CHECK_FAILS(th_f32_all_gather_async(c, ro6, t6, &q), TH_ERR_READ_ONLY, "th_f32_all_gather_async", "out is read-only");
    CHECK(q == NULL);
    CHECK_INT_EQ(th_f32_all_gather_async(c, o6, ro, &q), 0); /* a read-only t is only read */
    th_dist_request_free(q); /* waits */
    th_f32_release(ro6);
    th_f32_release(o6);
    th_f32_release(t6);
    CHECK_INT_EQ(th_dist_barrier(c), 0);
    th_f32_release(six);
    th_f32_release(five);
    th_f32_release(ro);
    th_f32_release(t);
    th_f32_release(o);
}

/* The debug mode: counts, row sizes and element counts that differ across ranks, and the root's own errors. */
static void uneven_debug(th_dist_comm *d)
{
    const int p = size_;
    int64_t counts[MAX_RANKS], other[MAX_RANKS];
    for (int r = 0; r < p; r++) counts[r] = other[r] = 2;
    other[p - 1] = 3; /* rank 0's view of the last rank's share */
    th_f32_tensor *t = th_f32_zeros(2, (int64_t[]){2, 3}), *o = th_f32_zeros(2, (int64_t[]){2 * p, 3});
    CHECK_FAILS(th_f32_gatherv_to(d, o, t, rank_ == 0 ? other : counts, p, p - 1), TH_ERR_SHAPE,
                "th_f32_gatherv_to", "passed other counts");
    /* rank 0's rows of 4 elements */
    th_f32_tensor *t4 = th_f32_zeros(2, (int64_t[]){2, rank_ == 0 ? 4 : 3});
    CHECK_FAILS(th_f32_gatherv_to(d, o, t4, counts, p, p - 1), TH_ERR_SHAPE, "th_f32_gatherv_to", "elements");
    th_f32_release(t4);
    /* the root's out: a row too many, rows of another size, NULL; only the root checks them */
    th_f32_tensor *o1 = th_f32_zeros(2, (int64_t[]){2 * p + 1, 3}), *ow = th_f32_zeros(2, (int64_t[]){2 * p, 4});
    int rc = th_f32_gatherv_to(d, o1, t, counts, p, p - 1);
    CHECK_INT_EQ(rc, TH_ERR_SHAPE);
    CHECK(strstr(th_last_error(), rank_ == p - 1 ? "the sum of counts" : "failed its own checks") != NULL);
    rc = th_f32_scatterv_from(d, t, ow, counts, p, 0);
    CHECK_INT_EQ(rc, TH_ERR_SHAPE);
    CHECK(strstr(th_last_error(), rank_ == 0 ? "rows of 4 elements" : "rank 0 failed its own checks") != NULL);
    rc = th_f32_scatterv_from(d, t, NULL, counts, p, 0);
    CHECK_INT_EQ(rc, TH_ERR_INVALID);
    CHECK(strstr(th_last_error(), rank_ == 0 ? "t is NULL on the root" : "rank 0 failed its own checks") != NULL);
    /* all_gather_list: rank 0's t (and its outs) of 7 elements where the others have 6 */
    int64_t k = rank_ == 0 ? 7 : 6;
    th_f32_tensor *x = th_f32_zeros(1, &k), *list[MAX_RANKS];
    for (int r = 0; r < p; r++) list[r] = x;
    CHECK_FAILS(th_f32_all_gather_list(d, list, p, x), TH_ERR_SHAPE, "th_f32_all_gather_list", "elements");
    /* the non-blocking forms check when they start: rank 0's t of 7 elements, then another root */
    th_f32_tensor *ox = th_f32_zeros(1, (int64_t[]){k * p});
    th_dist_request *q = (th_dist_request *)&rc;
    CHECK_FAILS(th_f32_all_gather_async(d, ox, x, &q), TH_ERR_SHAPE, "th_f32_all_gather_async", "elements");
    CHECK(q == NULL);
    th_f32_release(ox);
    rc = th_f32_reduce_async(d, x, TH_REDUCE_SUM, rank_ == 0 ? 1 : 0, &q);
    CHECK_INT_EQ(rc, TH_ERR_INVALID);
    CHECK(q == NULL);
    /* and all agree again */
    CHECK_INT_EQ(th_f32_gatherv_to(d, o, t, counts, p, p - 1), 0);
    th_f32_release(x);
    th_f32_release(o1);
    th_f32_release(ow);
    th_f32_release(t);
    th_f32_release(o);
}

/* ---- the debug mode: a mismatch, or one rank's own error, fails every rank ----------------------------------- */

static void debug_mode(th_dist_comm *d)
{
    CHECK(th_dist_debug(d));
    /* rank 0 passes one element more */
    th_f32_tensor *t = th_f32_zeros(1, (int64_t[]){rank_ == 0 ? 5 : 4});
    CHECK_FAILS(th_f32_all_reduce(d, t, TH_REDUCE_SUM), TH_ERR_SHAPE, "th_f32_all_reduce", "elements");
    th_f32_release(t);
    /* rank 0 another dtype */
    th_f32_tensor *f = th_f32_zeros(1, (int64_t[]){4});
    th_f64_tensor *g = th_f64_zeros(1, (int64_t[]){4});
    int rc = rank_ == 0 ? th_f64_all_reduce(d, g, TH_REDUCE_SUM) : th_f32_all_reduce(d, f, TH_REDUCE_SUM);
    CHECK_INT_EQ(rc, TH_ERR_DTYPE);
    CHECK(strstr(th_last_error(), "TH_DIST_DEBUG") != NULL);
    /* rank 0 another collective */
    rc = rank_ == 0 ? th_f32_broadcast(d, f, 0) : th_f32_all_reduce(d, f, TH_REDUCE_SUM);
    CHECK_INT_EQ(rc, TH_ERR_INVALID);
    CHECK(strstr(th_last_error(), "broadcast") != NULL);
    /* another root, another op */
    CHECK_FAILS(th_f32_broadcast(d, f, rank_ == 0 ? 1 : 0), TH_ERR_INVALID, "th_f32_broadcast", "root");
    rc = th_f32_all_reduce(d, f, rank_ == 0 ? TH_REDUCE_MAX : TH_REDUCE_SUM);
    CHECK_INT_EQ(rc, TH_ERR_INVALID);
    CHECK(strstr(th_last_error(), "TH_REDUCE_MAX") != NULL);
    /* the last rank's out has the wrong size: its own error there, "rank ... failed" on the others */
    th_f32_tensor *o = th_f32_zeros(1, (int64_t[]){4 * size_ - (rank_ == size_ - 1)});
    rc = th_f32_all_gather(d, o, f);
    CHECK_INT_EQ(rc, TH_ERR_SHAPE);
    CHECK(strstr(th_last_error(), rank_ == size_ - 1 ? "out has" : "failed its own checks") != NULL);
    th_f32_release(o);
    /* root 0's t of scatter_from has the wrong size: only root checks it, and in debug mode all hear of it */
    th_f32_tensor *src = th_f32_zeros(1, (int64_t[]){4 * size_ + 1});
    rc = th_f32_scatter_from(d, f, src, 0);
    CHECK_INT_EQ(rc, TH_ERR_SHAPE);
    CHECK(strstr(th_last_error(), rank_ == 0 ? "t has" : "rank 0 failed its own checks") != NULL);
    th_f32_release(src);
    /* and all agree again */
    CHECK_INT_EQ(th_f32_all_reduce(d, f, TH_REDUCE_SUM), 0);
    CHECK_INT_EQ(th_dist_barrier(d), 0);
    th_f32_release(f);
    th_f64_release(g);
}

int main(int argc, char **argv)
{
    /* before MPI_Init: refused, not a crash */
    CHECK_NULL(th_dist_comm_from_mpi(MPI_COMM_WORLD), TH_ERR_UNSUPPORTED, "th_dist_comm_from_mpi", "MPI_Init");
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
    MPI_Comm_size(MPI_COMM_WORLD, &size_);
    test_begin();
    if (size_ < 2) {
        fprintf(stderr, "test_dist: needs 2 or more ranks (mpirun -n 2)\n");
        MPI_Finalize();
        return 1;
    }

    unsetenv("TH_DIST_DEBUG");
    unsetenv("TH_DIST_MAX_COUNT");
    if (argc > 1 && strcmp(argv[1], "--kill") == 0) {
        /* rank 1 dies between two collectives: mpirun must end the job (non-zero) within the test's time-out,
         * not leave the others waiting in the second all_reduce (meson.build: should_fail, timeout 60) */
        th_dist_comm *k = th_dist_comm_from_mpi(MPI_COMM_WORLD);
        th_f32_tensor *t = th_f32_zeros(1, (int64_t[]){1000});
        CHECK_INT_EQ(th_f32_all_reduce(k, t, TH_REDUCE_SUM), 0);
        if (rank_ == 1) raise(SIGKILL);
        th_f32_all_reduce(k, t, TH_REDUCE_SUM);
        th_f32_release(t);
        th_dist_comm_free(k);
        MPI_Finalize();
        return 0;
    }
    th_dist_comm *c = th_dist_comm_from_mpi(MPI_COMM_WORLD);
    CHECK(c != NULL);
    CHECK_INT_EQ(th_dist_rank(c), rank_);
    CHECK_INT_EQ(th_dist_size(c), size_);
    CHECK(!th_dist_debug(c));
    CHECK(th_dist_mpi_comm(c) != MPI_COMM_WORLD);
    every_dtype(c, 6);
    every_dtype(c, 0);
    shapes(c);
    errors(c);
    uneven_shapes(c);
    uneven_errors(c);

    /* every MPI call cut to 3 elements: the pieces of reductions and broadcast, the derived types */
    setenv("TH_DIST_MAX_COUNT", "3", 1);
    th_dist_comm *chunked = th_dist_comm_from_mpi(MPI_COMM_WORLD);
    every_dtype(chunked, 11);
    th_dist_comm_free(chunked);

    setenv("TH_DIST_DEBUG", "1", 1);
    unsetenv("TH_DIST_MAX_COUNT");
    th_dist_comm *d = th_dist_comm_from_mpi(MPI_COMM_WORLD);
    every_dtype(d, 5);
    debug_mode(d);
    uneven_debug(d);
    th_dist_comm_free(d);

    th_dist_comm_free(c);
    int rc = test_end("dist");
    int worst = 0;
    MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (rank_ == 0) printf("dist: %d ranks, %d checks on rank 0\n", size_, check_count);
    MPI_Finalize();
    return worst;
}
