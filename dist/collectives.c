/* dist/collectives.c: the communicator and every collective, written once over th_tensor * and its dtype; the
 * typed front doors of dist/dist_generic.h are stamped at the end of this file. */
#include "th_dist.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct th_dist_comm {
    MPI_Comm comm;     /* the duplicate, MPI_ERRORS_RETURN */
    int rank, size;
    int thread_level;  /* what MPI_Query_thread said */
    bool debug;        /* TH_DIST_DEBUG=1: the cross-rank signature check before each collective */
    int64_t max_count; /* elements per MPI call: INT_MAX, or less through TH_DIST_MAX_COUNT (tests) */
};

/* The collectives, as the debug mode's signature and its messages name them. */
enum {
    TH__DIST_ALL_REDUCE = 1,
    TH__DIST_REDUCE,
    TH__DIST_BROADCAST,
    TH__DIST_ALL_GATHER,
    TH__DIST_GATHER,
    TH__DIST_SCATTER,
    TH__DIST_REDUCE_SCATTER,
    TH__DIST_ALL_TO_ALL,
    TH__DIST_BARRIER,
    TH__DIST_GATHERV,
    TH__DIST_SCATTERV,
    TH__DIST_ALL_GATHER_LIST,
    TH__DIST_LAST = TH__DIST_ALL_GATHER_LIST
};
static const char *const th__dist_coll_names[] = {"?", "all_reduce", "reduce", "broadcast", "all_gather",
    "gather", "scatter", "reduce_scatter", "all_to_all", "barrier", "gatherv", "scatterv", "all_gather_list"};

const char *th_reduce_op_name(th_reduce_op op)
{
    static const char *const names[] = {"TH_REDUCE_SUM", "TH_REDUCE_PROD", "TH_REDUCE_MIN", "TH_REDUCE_MAX",
        "TH_REDUCE_AVG", "TH_REDUCE_BAND", "TH_REDUCE_BOR", "TH_REDUCE_BXOR", "TH_REDUCE_LAND", "TH_REDUCE_LOR"};
    return (int)op >= 0 && (int)op < (int)(sizeof names / sizeof names[0]) ? names[op] : "TH_REDUCE_?";
}

/* ---- errors --------------------------------------------------------------------------------------------- */

static int th__dist_mpi_fail(const char *fn, const char *call, int rc)
{
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) snprintf(text, sizeof text, "MPI error code %d", rc);
    int cls = rc;
    MPI_Error_class(rc, &cls);
    /* A receive too small for the message is the caller's shape, not MPI's failure. */
    return th_set_error(cls == MPI_ERR_TRUNCATE ? TH_ERR_SHAPE : TH_ERR_IO, fn, "%s failed: %s", call, text);
}

#define TH__DIST_MPI(fn, call, args)                       \
    do {                                                   \
        int th__rc = call args;                            \
        if (th__rc != MPI_SUCCESS) {                       \
            st = th__dist_mpi_fail(fn, #call, th__rc);     \
            goto done;                                     \
        }                                                  \
    } while (0)

static bool th__dist_wrong_dtype(const char *fn, const char *name, const th_tensor *t, th_dtype want)
{
    th_dtype have = th_tensor_dtype(t);
    if (!t || have == want) return false;
    th_set_error(TH_ERR_DTYPE, fn, "%s is %s, not %s", name, th_dtype_name(have), th_dtype_name(want));
    return true;
}

static int th__dist_usable(const char *fn)
{
    int init = 0, fin = 0;
    MPI_Initialized(&init);
    MPI_Finalized(&fin);
    if (!init) return th_set_error(TH_ERR_UNSUPPORTED, fn, "MPI is not initialised: call MPI_Init (or MPI_Init_thread) first");
    if (fin) return th_set_error(TH_ERR_UNSUPPORTED, fn, "MPI is finalised already");
    return TH_OK;
}

/* MPI below MPI_THREAD_SERIALIZED may be called from its main thread only (FUNNELED) or only has one. */
static int th__dist_thread_ok(const char *fn, int level)
{
    if (level >= MPI_THREAD_SERIALIZED) return TH_OK;
    int main_thread = 0;
    MPI_Is_thread_main(&main_thread);
    if (main_thread) return TH_OK;
    return th_set_error(TH_ERR_UNSUPPORTED, fn,
                        "called from a thread other than MPI's main one, and MPI was initialised with thread level %d "
                        "(below MPI_THREAD_SERIALIZED): use MPI_Init_thread with MPI_THREAD_SERIALIZED or more",
                        level);
}

/* Per call, only what can have changed since c was made (MPI initialised then): MPI finalised since, and the
 * calling thread. */
static int th__dist_comm_ok(const char *fn, const th_dist_comm *c)
{
    if (!c) return th_set_error(TH_ERR_INVALID, fn, "the communicator c is NULL");
    int fin = 0;
    MPI_Finalized(&fin);
    if (fin) return th_set_error(TH_ERR_UNSUPPORTED, fn, "MPI is finalised already");
    return th__dist_thread_ok(fn, c->thread_level);
}

/* ---- the communicator ----------------------------------------------------------------------------------- */

th_dist_comm *th_dist_comm_from_mpi(MPI_Comm comm)
{
    const char *fn = "th_dist_comm_from_mpi";
    if (th__dist_usable(fn)) return NULL;
    if (comm == MPI_COMM_NULL) {
        th_set_error(TH_ERR_INVALID, fn, "comm is MPI_COMM_NULL");
        return NULL;
    }
    int level = MPI_THREAD_SINGLE, inter = 0;
    MPI_Query_thread(&level);
    if (th__dist_thread_ok(fn, level)) return NULL;
    int rc = MPI_Comm_test_inter(comm, &inter);
    if (rc != MPI_SUCCESS) {
        th__dist_mpi_fail(fn, "MPI_Comm_test_inter", rc);
        return NULL;
    }
    if (inter) {
        th_set_error(TH_ERR_UNSUPPORTED, fn, "comm is an inter-communicator: the collectives need an intra-communicator "
                     "(MPI_Intercomm_merge makes one)");
        return NULL;
    }
    th_dist_comm *c = calloc(1, sizeof *c);
    if (!c) {
        th_set_error(TH_ERR_NOMEM, fn, "no memory for the communicator");
        return NULL;
    }
    rc = MPI_Comm_dup(comm, &c->comm);
    if (rc != MPI_SUCCESS) {
        th__dist_mpi_fail(fn, "MPI_Comm_dup", rc);
        free(c);
        return NULL;
    }
    MPI_Comm_set_errhandler(c->comm, MPI_ERRORS_RETURN);
    MPI_Comm_rank(c->comm, &c->rank);
    MPI_Comm_size(c->comm, &c->size);
    c->thread_level = level;
    const char *debug = getenv("TH_DIST_DEBUG");
    c->debug = debug && debug[0] && strcmp(debug, "0") != 0;
    c->max_count = INT_MAX;
    const char *max = getenv("TH_DIST_MAX_COUNT");
    if (max && max[0]) {
        char *end = NULL;
        long long v = strtoll(max, &end, 10);
        if (*end == '\0' && v >= 1 && v <= INT_MAX) c->max_count = v;
    }
    return c;
}

void th_dist_comm_free(th_dist_comm *c)
{
    if (!c) return;
    int fin = 0;
    MPI_Finalized(&fin);
    if (!fin) MPI_Comm_free(&c->comm);
    free(c);
}

int th_dist_rank(const th_dist_comm *c)
{
    return c ? c->rank : th_set_error(TH_ERR_INVALID, "th_dist_rank", "the communicator c is NULL");
}

int th_dist_size(const th_dist_comm *c)
{
    return c ? c->size : th_set_error(TH_ERR_INVALID, "th_dist_size", "the communicator c is NULL");
}

MPI_Comm th_dist_mpi_comm(const th_dist_comm *c) { return c ? c->comm : MPI_COMM_NULL; }

bool th_dist_debug(const th_dist_comm *c) { return c && c->debug; }

/* ---- the debug mode: one allgather of every rank's signature --------------------------------------------- */

enum { TH__DIST_SIG = 7 };

/* Every rank passes what it is about to do and whether its own checks passed (status). Returns status when
 * that failed here (its message stays), else an error when another rank failed or called something else,
 * the same on every rank; 0 when all agree. Without the debug mode: status. counts: a digest of the per-rank
 * counts of gatherv and scatterv (0 for the others), which every rank must pass alike. */
static int th__dist_agree_counts(const char *fn, th_dist_comm *c, int coll, th_dtype dtype, int64_t count, int root,
                                 th_reduce_op op, int status, int64_t counts)
{
    if (!c->debug) return status;
    int64_t mine[TH__DIST_SIG] = {coll, (int64_t)dtype, count, root, (int64_t)op, status, counts};
    int64_t *all = malloc(sizeof(int64_t) * TH__DIST_SIG * (size_t)c->size);
    if (!all) return status ? status : th_set_error(TH_ERR_NOMEM, fn, "no memory for the debug signatures");
    int rc = MPI_Allgather(mine, TH__DIST_SIG, MPI_INT64_T, all, TH__DIST_SIG, MPI_INT64_T, c->comm);
    int st = status;
    if (rc != MPI_SUCCESS) {
        if (!st) st = th__dist_mpi_fail(fn, "MPI_Allgather (TH_DIST_DEBUG)", rc);
        free(all);
        return st;
    }
    for (int r = 0; r < c->size && !st; r++) {
        const int64_t *s = all + (size_t)r * TH__DIST_SIG;
        if (s[5] != 0) {
            st = th_set_error((th_status)s[5], fn, "rank %d failed its own checks (%s): no rank goes on (TH_DIST_DEBUG)",
                              r, th_status_name((th_status)s[5]));
            break;
        }
    }
    for (int r = 0; r < c->size && !st; r++) {
        const int64_t *s = all + (size_t)r * TH__DIST_SIG;
        if (s[0] == mine[0] && s[1] == mine[1] && s[2] == mine[2] && s[3] == mine[3] && s[4] == mine[4]) {
            if (s[6] != mine[6])
                st = th_set_error(TH_ERR_SHAPE, fn, "rank %d passed other counts than rank %d's to %s (TH_DIST_DEBUG)",
                                  r, c->rank, th__dist_coll_names[coll]);
            continue;
        }
        int a = s[0] >= 1 && s[0] <= TH__DIST_LAST ? (int)s[0] : 0;
        th_status why = s[0] != mine[0] || s[3] != mine[3] || s[4] != mine[4] ? TH_ERR_INVALID
                        : s[1] != mine[1] ? TH_ERR_DTYPE : TH_ERR_SHAPE;
        st = th_set_error(why, fn,
                          "rank %d called %s (%s, %lld elements, root %lld, %s) where rank %d calls %s (%s, %lld "
                          "elements, root %lld, %s) (TH_DIST_DEBUG)",
                          r, th__dist_coll_names[a], th_dtype_name((th_dtype)s[1]), (long long)s[2], (long long)s[3],
                          th_reduce_op_name((th_reduce_op)s[4]), c->rank, th__dist_coll_names[coll],
                          th_dtype_name(dtype), (long long)count, (long long)root, th_reduce_op_name(op));
    }
    free(all);
    return st;
}

static int th__dist_agree(const char *fn, th_dist_comm *c, int coll, th_dtype dtype, int64_t count, int root,
                          th_reduce_op op, int status)
{
    return th__dist_agree_counts(fn, c, coll, dtype, count, root, op, status, 0);
}

/* ---- contiguous buffers over tensors of any strides ------------------------------------------------------ */

typedef struct th__dist_buf {
    th_tensor *t;   /* the tensor, or NULL (nothing opened) */
    char *data;     /* its elements in C order: t's own memory, or own */
    char *own;      /* the packed copy of a non-contiguous t */
    int64_t n;
    size_t esz;
} th__dist_buf;

static int th__dist_wrap(const char *fn, const th_tensor *like, void *data, th_tensor **out)
{
    th_storage *s = th_storage_from_blob(data, th_tensor_numel(like) * (int64_t)th_dtype_info(th_tensor_dtype(like))->size,
                                         (th_device){TH_DEVICE_CPU, 0}, NULL, NULL);
    if (!s) return th_set_error(th_last_status(), fn, "could not wrap the packing buffer: %s", th_last_error());
    *out = th_tensor_new_with_storage(th_tensor_dtype(like), s, 0, th_tensor_ndim(like), th_tensor_sizes(like), NULL);
    th_storage_release(s);
    if (!*out) return th_set_error(th_last_status(), fn, "could not view the packing buffer: %s", th_last_error());
    return TH_OK;
}

/* Opens t (named name in messages) for a collective: its elements contiguous in b->data, packed when read and
 * t is not contiguous. write: the collective writes them (t must be writable). */
static int th__dist_open(const char *fn, const char *name, const th_tensor *t, bool read, bool write, th__dist_buf *b)
{
    memset(b, 0, sizeof *b);
    if (!t) return th_set_error(TH_ERR_INVALID, fn, "%s is NULL", name);
    th_storage *s = th_tensor_storage(t);
    if (!th_device_is_host(th_storage_device(s)))
        return th_set_error(TH_ERR_DEVICE, fn, "%s is in device memory: this build sends host memory only", name);
    if (write && th_storage_is_read_only(s)) return th_set_error(TH_ERR_READ_ONLY, fn, "%s is read-only", name);
    b->n = th_tensor_numel(t);
    b->esz = th_dtype_info(th_tensor_dtype(t))->size;
    b->t = (th_tensor *)t;
    if (b->n == 0) return TH_OK;
    if (th_tensor_is_contiguous(t)) {
        b->data = th_tensor_data(t);
        return TH_OK;
    }
    b->own = malloc((size_t)b->n * b->esz);
    if (!b->own) {
        b->t = NULL;
        return th_set_error(TH_ERR_NOMEM, fn, "no memory to pack %s (%lld elements)", name, (long long)b->n);
    }
    b->data = b->own;
    if (read) {
        th_tensor *packed = NULL;
        int st = th__dist_wrap(fn, t, b->own, &packed);
        if (!st && th_tensor_copy(packed, t) != TH_OK)
            st = th_set_error(th_last_status(), fn, "could not pack %s: %s", name, th_last_error());
        th_tensor_release(packed);
        if (st) {
            free(b->own);
            b->t = NULL;
            return st;
        }
    }
    return TH_OK;
}

/* Unpacks into the tensor when asked (and it was packed), and lets go of the packed copy. */
static int th__dist_close(const char *fn, th__dist_buf *b, bool write_back)
{
    int st = TH_OK;
    if (b->own && write_back) {
        th_tensor *packed = NULL;
        st = th__dist_wrap(fn, b->t, b->own, &packed);
        if (!st && th_tensor_copy(b->t, packed) != TH_OK)
            st = th_set_error(th_last_status(), fn, "could not unpack the result: %s", th_last_error());
        th_tensor_release(packed);
    }
    free(b->own);
    memset(b, 0, sizeof *b);
    return st;
}

/* ---- dtypes and reductions --------------------------------------------------------------------------------- */

static MPI_Datatype th__dist_type(th_dtype d)
{
    switch (d) {
    case TH_BOOL: return MPI_C_BOOL;
    case TH_U8: return MPI_UINT8_T;
    case TH_I8: return MPI_INT8_T;
    case TH_I16: return MPI_INT16_T;
    case TH_I32: return MPI_INT32_T;
    case TH_I64: return MPI_INT64_T;
    case TH_F16: case TH_BF16: return MPI_UINT16_T; /* moved as bits; reduced as float32 */
    case TH_F32: return MPI_FLOAT;
    case TH_F64: return MPI_DOUBLE;
    case TH_C64: return MPI_C_FLOAT_COMPLEX;
    case TH_C128: return MPI_C_DOUBLE_COMPLEX;
    default: return MPI_DATATYPE_NULL;
    }
}

typedef struct th__dist_red {
    MPI_Op op;
    MPI_Datatype type; /* of the work buffer */
    size_t wsz;        /* its element size */
    bool widen;        /* float16 / bfloat16: the work buffer is float32 */
    bool avg;
} th__dist_red;

static int th__dist_reduction(const char *fn, th_dtype d, th_reduce_op op, th__dist_red *r)
{
    if ((int)op < 0 || (int)op > (int)TH_REDUCE_LOR)
        return th_set_error(TH_ERR_INVALID, fn, "op %d is no th_reduce_op", (int)op);
    th_dtype_kind kind = th_dtype_info(d)->kind;
    bool ok;
    switch (kind) {
    case TH_KIND_BOOL: ok = op == TH_REDUCE_LAND || op == TH_REDUCE_LOR; break;
    case TH_KIND_UINT:
    case TH_KIND_INT: ok = op != TH_REDUCE_AVG && op != TH_REDUCE_LAND && op != TH_REDUCE_LOR; break;
    case TH_KIND_FLOAT: ok = op <= TH_REDUCE_AVG; break;
    default: ok = op == TH_REDUCE_SUM || op == TH_REDUCE_PROD || op == TH_REDUCE_AVG; break;
    }
    if (!ok) {
        const char *which = kind == TH_KIND_BOOL ? "TH_REDUCE_LAND and TH_REDUCE_LOR"
                            : kind == TH_KIND_FLOAT ? "TH_REDUCE_SUM, PROD, MIN, MAX and AVG"
                            : kind == TH_KIND_COMPLEX ? "TH_REDUCE_SUM, PROD and AVG"
                                                      : "TH_REDUCE_SUM, PROD, MIN, MAX, BAND, BOR and BXOR";
        return th_set_error(TH_ERR_DTYPE, fn, "%s is not defined for %s (it takes %s)", th_reduce_op_name(op),
                            th_dtype_name(d), which);
    }
    switch (op) {
    case TH_REDUCE_SUM: case TH_REDUCE_AVG: r->op = MPI_SUM; break;
    case TH_REDUCE_PROD: r->op = MPI_PROD; break;
    case TH_REDUCE_MIN: r->op = MPI_MIN; break;
    case TH_REDUCE_MAX: r->op = MPI_MAX; break;
    case TH_REDUCE_BAND: r->op = MPI_BAND; break;
    case TH_REDUCE_BOR: r->op = MPI_BOR; break;
    case TH_REDUCE_BXOR: r->op = MPI_BXOR; break;
    case TH_REDUCE_LAND: r->op = MPI_LAND; break;
    default: r->op = MPI_LOR; break;
    }
    r->avg = op == TH_REDUCE_AVG;
    r->widen = d == TH_F16 || d == TH_BF16;
    r->type = r->widen ? MPI_FLOAT : th__dist_type(d);
    r->wsz = r->widen ? sizeof(float) : th_dtype_info(d)->size;
    return TH_OK;
}

/* The work buffer of a reduction over n elements at data: data itself, or (widen) a float32 copy. */
static int th__dist_widen(const char *fn, th_dtype d, const th__dist_red *r, void *data, int64_t n, void **work)
{
    *work = data;
    if (!r->widen || n == 0) return TH_OK;
    float *w = malloc((size_t)n * sizeof(float));
    if (!w) return th_set_error(TH_ERR_NOMEM, fn, "no memory for the float32 copy (%lld elements)", (long long)n);
    const uint16_t *h = data;
    for (int64_t i = 0; i < n; i++)
        w[i] = d == TH_F16 ? th_float16_to_float((th_float16){h[i]}) : th_bfloat16_to_float((th_bfloat16){h[i]});
    *work = w;
    return TH_OK;
}

/* Divides the work buffer by the number of ranks (AVG), then rounds a float32 one back into data and frees it. */
static void th__dist_finish(th_dtype d, const th__dist_red *r, void *data, void *work, int64_t n, int size,
                            bool result)
{
    if (result && r->avg) {
        if (r->widen || d == TH_F32 || d == TH_C64) {
            float *w = work;
            int64_t m = n * (d == TH_C64 ? 2 : 1);
            for (int64_t i = 0; i < m; i++) w[i] /= (float)size;
        } else {
            double *w = work;
            int64_t m = n * (d == TH_C128 ? 2 : 1);
            for (int64_t i = 0; i < m; i++) w[i] /= (double)size;
        }
    }
    if (work == data) return;
    if (result) {
        const float *w = work;
        uint16_t *h = data;
        for (int64_t i = 0; i < n; i++)
            h[i] = d == TH_F16 ? th_float16_from_float(w[i]).bits : th_bfloat16_from_float(w[i]).bits;
    }
    free(work);
}

/* A reduction of n elements in pieces of at most max_count: send NULL means in place in recv. root < 0: all
 * ranks get the result; else root (recv unused elsewhere). */
static int th__dist_reduce_pieces(const char *fn, th_dist_comm *c, const void *send, void *recv, int64_t n,
                                  const th__dist_red *r, int root)
{
    int st = TH_OK;
    for (int64_t off = 0; off < n; off += c->max_count) {
        int len = (int)(n - off < c->max_count ? n - off : c->max_count);
        char *rp = recv ? (char *)recv + off * (int64_t)r->wsz : NULL;
        const void *sp = send ? (const char *)send + off * (int64_t)r->wsz : MPI_IN_PLACE;
        if (root < 0) {
            TH__DIST_MPI(fn, MPI_Allreduce, (sp, rp, len, r->type, r->op, c->comm));
        } else if (c->rank == root) {
            TH__DIST_MPI(fn, MPI_Reduce, (sp, rp, len, r->type, r->op, root, c->comm));
        } else {
            TH__DIST_MPI(fn, MPI_Reduce, (send ? sp : rp, NULL, len, r->type, r->op, root, c->comm));
        }
    }
done:
    return st;
}

static int th__dist_root_ok(const char *fn, const th_dist_comm *c, int root, const char *what)
{
    if (root >= 0 && root < c->size) return TH_OK;
    return th_set_error(TH_ERR_RANGE, fn, "%s %d is outside 0..%d (the communicator has %d ranks)", what, root,
                        c->size - 1, c->size);
}

/* ---- all_reduce, reduce, broadcast ------------------------------------------------------------------------- */

static int th__dist_reduce_any(const char *fn, int coll, th_dist_comm *c, th_tensor *t, th_reduce_op op, int root)
{
    int st = th__dist_comm_ok(fn, c);
    if (st) return st;
    th_dtype d = th_tensor_dtype(t);
    th__dist_red r;
    th__dist_buf b = {0};
    bool result = root < 0 || c->rank == root;
    if (root >= 0) st = th__dist_root_ok(fn, c, root, "root");
    if (!st) st = t ? th__dist_reduction(fn, d, op, &r) : th_set_error(TH_ERR_INVALID, fn, "t is NULL");
    if (!st) st = th__dist_open(fn, "t", t, true, result, &b);
    st = th__dist_agree(fn, c, coll, d, th_tensor_numel(t), root < 0 ? 0 : root, op, st);
    if (st) {
        th__dist_close(fn, &b, false);
        return st;
    }
    void *work = NULL;
    st = th__dist_widen(fn, d, &r, b.data, b.n, &work);
    if (!st) {
        st = th__dist_reduce_pieces(fn, c, NULL, work, b.n, &r, root);
        th__dist_finish(d, &r, b.data, work, b.n, c->size, result && !st);
    }
    int st2 = th__dist_close(fn, &b, result && !st);
    return st ? st : st2;
}

static int th__dist_all_reduce(const char *fn, th_dist_comm *c, th_tensor *t, th_reduce_op op)
{
    return th__dist_reduce_any(fn, TH__DIST_ALL_REDUCE, c, t, op, -1);
}

static int th__dist_reduce(const char *fn, th_dist_comm *c, th_tensor *t, th_reduce_op op, int root)
{
    if (c && root < 0) return th__dist_root_ok(fn, c, root, "root");
    return th__dist_reduce_any(fn, TH__DIST_REDUCE, c, t, op, root);
}

static int th__dist_broadcast(const char *fn, th_dist_comm *c, th_tensor *t, int root)
{
    int st = th__dist_comm_ok(fn, c);
    if (st) return st;
    th__dist_buf b = {0};
    st = th__dist_root_ok(fn, c, root, "root");
    if (!st) st = th__dist_open(fn, "t", t, c->rank == root, c->rank != root, &b);
    st = th__dist_agree(fn, c, TH__DIST_BROADCAST, th_tensor_dtype(t), th_tensor_numel(t), root, TH_REDUCE_SUM, st);
    if (st) {
        th__dist_close(fn, &b, false);
        return st;
    }
    MPI_Datatype type = th__dist_type(th_tensor_dtype(t));
    for (int64_t off = 0; off < b.n; off += c->max_count) {
        int len = (int)(b.n - off < c->max_count ? b.n - off : c->max_count);
        TH__DIST_MPI(fn, MPI_Bcast, (b.data + off * (int64_t)b.esz, len, type, root, c->comm));
    }
done:;
    int st2 = th__dist_close(fn, &b, c->rank != root && !st);
    return st ? st : st2;
}

/* ---- non-blocking all_reduce, reduce, broadcast and all_gather ---------------------------------------------------------------- */

struct th_dist_request {
    const char *fn;
    th_dist_comm *c;
    th_dtype d;
    th__dist_buf b;     /* the tensor (retained) and its contiguous elements */
    th__dist_buf bo;    /* all_gather's out (retained; b is its t, only read), else nothing */
    MPI_Datatype type;  /* all_gather's derived block type, freed at the end when own_type */
    bool own_type;
    void *work;         /* the reduction's work buffer (b.data, or float32 for float16 and bfloat16) */
    th__dist_red r;
    bool reduction;
    bool write_back;    /* this rank's tensor receives the result */
    int nreq;
    MPI_Request *reqs;  /* one per piece of at most max_count elements */
    bool finished;
    int status;         /* of the whole operation, once finished */
};

/* After MPI is done (or failed): the AVG division and the float32 rounding, the unpacking, the releases. */
static int th__dist_request_finish(th_dist_request *q, int st)
{
    if (q->finished) return q->status;
    if (q->reduction)
        th__dist_finish(q->d, &q->r, q->b.data, q->work, q->b.n, q->c->size, st == TH_OK && q->write_back);
    th_tensor *t = q->b.t, *o = q->bo.t;
    int st2 = th__dist_close(q->fn, &q->b, q->write_back && st == TH_OK);
    int st3 = th__dist_close(q->fn, &q->bo, st == TH_OK);
    if (!st2) st2 = st3;
    th_tensor_release(t);
    th_tensor_release(o);
    if (q->own_type) MPI_Type_free(&q->type);
    q->own_type = false;
    free(q->reqs);
    q->reqs = NULL;
    q->finished = true;
    q->status = st ? st : st2;
    return q->status;
}

/* The start of every non-blocking collective: *req NULL until it is queued, the communicator checked, and a
 * zeroed request for t's dtype in *q (the caller's to free on an error). */
static int th__dist_request_begin(const char *fn, th_dist_comm *c, const th_tensor *t, th_dist_request **req,
                                  th_dist_request **q)
{
    if (!req) return th_set_error(TH_ERR_INVALID, fn, "req is NULL");
    *req = NULL;
    int st = th__dist_comm_ok(fn, c);
    if (st) return st;
    *q = calloc(1, sizeof **q);
    if (!*q) return th_set_error(TH_ERR_NOMEM, fn, "no memory for the request");
    (*q)->fn = fn;
    (*q)->c = c;
    (*q)->d = th_tensor_dtype(t);
    return TH_OK;
}

/* coll: TH__DIST_ALL_REDUCE, TH__DIST_REDUCE (the result on root only) or TH__DIST_BROADCAST. */
static int th__dist_async(const char *fn, th_dist_comm *c, th_tensor *t, int coll, th_reduce_op op, int root,
                          th_dist_request **out)
{
    bool reduction = coll != TH__DIST_BROADCAST;
    th_dist_request *q;
    int st = th__dist_request_begin(fn, c, t, out, &q);
    if (st) return st;
    q->reduction = reduction;
    q->write_back = coll == TH__DIST_ALL_REDUCE ? true : coll == TH__DIST_REDUCE ? c->rank == root : c->rank != root;
    if (coll != TH__DIST_ALL_REDUCE) st = th__dist_root_ok(fn, c, root, "root");
    if (!st && !t) st = th_set_error(TH_ERR_INVALID, fn, "t is NULL");
    if (!st && reduction) st = th__dist_reduction(fn, q->d, op, &q->r);
    if (!st) st = th__dist_open(fn, "t", t, !reduction ? c->rank == root : true, q->write_back, &q->b);
    st = th__dist_agree(fn, c, coll, q->d, th_tensor_numel(t), coll == TH__DIST_ALL_REDUCE ? 0 : root,
                        reduction ? op : TH_REDUCE_SUM, st);
    if (!st) st = reduction ? th__dist_widen(fn, q->d, &q->r, q->b.data, q->b.n, &q->work) : TH_OK;
    if (st) {
        th__dist_close(fn, &q->b, false);
        free(q);
        return st;
    }
    th_tensor_retain(q->b.t); /* kept alive until the request completes, whatever the caller releases */
    int64_t pieces = q->b.n ? (q->b.n + c->max_count - 1) / c->max_count : 0;
    q->reqs = malloc(sizeof(MPI_Request) * (size_t)(pieces ? pieces : 1));
    if (!q->reqs) st = th_set_error(TH_ERR_NOMEM, fn, "no memory for %lld MPI requests", (long long)pieces);
    MPI_Datatype type = reduction ? q->r.type : th__dist_type(q->d);
    size_t esz = reduction ? q->r.wsz : q->b.esz;
    char *base = reduction ? q->work : q->b.data;
    for (int64_t i = 0; i < pieces && !st; i++) {
        int64_t off = i * c->max_count;
        int len = (int)(q->b.n - off < c->max_count ? q->b.n - off : c->max_count);
        char *at = base + off * (int64_t)esz;
        int rc = coll == TH__DIST_ALL_REDUCE
                     ? MPI_Iallreduce(MPI_IN_PLACE, at, len, type, q->r.op, c->comm, &q->reqs[i])
                 : coll == TH__DIST_BROADCAST ? MPI_Ibcast(at, len, type, root, c->comm, &q->reqs[i])
                 : c->rank == root ? MPI_Ireduce(MPI_IN_PLACE, at, len, type, q->r.op, root, c->comm, &q->reqs[i])
                                   : MPI_Ireduce(at, NULL, len, type, q->r.op, root, c->comm, &q->reqs[i]);
        if (rc != MPI_SUCCESS) {
            st = th__dist_mpi_fail(fn, coll == TH__DIST_ALL_REDUCE ? "MPI_Iallreduce"
                                       : coll == TH__DIST_BROADCAST ? "MPI_Ibcast" : "MPI_Ireduce", rc);
            break;
        }
        q->nreq++;
    }
    if (st) {
        /* what was started must end before its buffers go */
        if (q->nreq) MPI_Waitall(q->nreq, q->reqs, MPI_STATUSES_IGNORE);
        th__dist_request_finish(q, st);
        free(q);
        return st;
    }
    *out = q;
    return TH_OK;
}

/* (in the gather family below) */
static int th__dist_block(const char *fn, const th_dist_comm *c, MPI_Datatype base, size_t esz, int64_t n,
                          MPI_Datatype *type, int *count);
static int th__dist_count_is(const char *fn, const char *name, const th_tensor *t, int64_t want, const char *why);

/* all_gather, non-blocking: one MPI_Iallgather, t and out retained until the end. */
static int th__dist_all_gather_async(const char *fn, th_dist_comm *c, th_tensor *out, const th_tensor *t,
                                     th_dist_request **req)
{
    th_dist_request *q;
    int st = th__dist_request_begin(fn, c, t, req, &q);
    if (st) return st;
    int64_t k = th_tensor_numel(t);
    if (!t) st = th_set_error(TH_ERR_INVALID, fn, "t is NULL");
    else if (!out) st = th_set_error(TH_ERR_INVALID, fn, "out is NULL");
    else st = th__dist_count_is(fn, "out", out, k * c->size, "the number of ranks times t's");
    if (!st) st = th__dist_open(fn, "t", t, true, false, &q->b);
    if (!st) st = th__dist_open(fn, "out", out, false, true, &q->bo);
    st = th__dist_agree(fn, c, TH__DIST_ALL_GATHER, q->d, k, 0, TH_REDUCE_SUM, st);
    MPI_Datatype base = th__dist_type(q->d), type = base;
    int count = 0;
    if (!st) st = th__dist_block(fn, c, base, q->b.esz, k, &type, &count);
    if (st) {
        th__dist_close(fn, &q->b, false);
        th__dist_close(fn, &q->bo, false);
        free(q);
        return st;
    }
    q->type = type;
    q->own_type = type != base;
    th_tensor_retain(q->b.t); /* both kept alive until the request completes */
    th_tensor_retain(q->bo.t);
    q->reqs = malloc(sizeof(MPI_Request));
    if (!q->reqs) {
        st = th_set_error(TH_ERR_NOMEM, fn, "no memory for the MPI request");
    } else {
        int rc = MPI_Iallgather(q->b.data, count, type, q->bo.data, count, type, c->comm, &q->reqs[0]);
        if (rc != MPI_SUCCESS) st = th__dist_mpi_fail(fn, "MPI_Iallgather", rc);
        else q->nreq = 1;
    }
    if (st) {
        th__dist_request_finish(q, st);
        free(q);
        return st;
    }
    *req = q;
    return TH_OK;
}

int th_dist_test(th_dist_request *req, bool *done)
{
    const char *fn = "th_dist_test";
    if (done) *done = false;
    if (!req) return th_set_error(TH_ERR_INVALID, fn, "req is NULL");
    if (!done) return th_set_error(TH_ERR_INVALID, fn, "done is NULL");
    if (req->finished) {
        *done = true;
        return req->status;
    }
    int flag = 1, st = TH_OK;
    if (req->nreq) {
        int rc = MPI_Testall(req->nreq, req->reqs, &flag, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS) st = th__dist_mpi_fail(req->fn, "MPI_Testall", rc);
    }
    if (!flag && !st) return TH_OK;
    *done = true;
    return th__dist_request_finish(req, st);
}

int th_dist_wait(th_dist_request *req)
{
    if (!req) return th_set_error(TH_ERR_INVALID, "th_dist_wait", "req is NULL");
    if (req->finished) return req->status;
    int st = TH_OK;
    if (req->nreq) {
        int rc = MPI_Waitall(req->nreq, req->reqs, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS) st = th__dist_mpi_fail(req->fn, "MPI_Waitall", rc);
    }
    return th__dist_request_finish(req, st);
}

void th_dist_request_free(th_dist_request *req)
{
    if (!req) return;
    if (!req->finished) th_dist_wait(req);
    free(req);
}

/* ---- the gather family --------------------------------------------------------------------------------------- */

/* The type of a block of n elements of base: (base, n) while n fits one call, else (one derived type, 1). */
static int th__dist_block(const char *fn, const th_dist_comm *c, MPI_Datatype base, size_t esz, int64_t n,
                          MPI_Datatype *type, int *count)
{
    *type = base;
    *count = (int)n;
    if (n <= c->max_count) return TH_OK;
    int64_t q = n / c->max_count, rem = n % c->max_count;
    if (q > INT_MAX) return th_set_error(TH_ERR_OVERFLOW, fn, "a block of %lld elements is too large", (long long)n);
    MPI_Datatype piece, body, whole;
    MPI_Type_contiguous((int)c->max_count, base, &piece);
    MPI_Type_contiguous((int)q, piece, &body);
    MPI_Type_free(&piece);
    if (rem) {
        int lens[2] = {1, (int)rem};
        MPI_Aint disp[2] = {0, (MPI_Aint)(q * c->max_count * (int64_t)esz)};
        MPI_Datatype types[2] = {body, base};
        MPI_Datatype both;
        MPI_Type_create_struct(2, lens, disp, types, &both);
        MPI_Type_free(&body);
        MPI_Type_create_resized(both, 0, (MPI_Aint)(n * (int64_t)esz), &whole);
        MPI_Type_free(&both);
    } else {
        whole = body;
    }
    int rc = MPI_Type_commit(&whole);
    if (rc != MPI_SUCCESS) {
        MPI_Type_free(&whole);
        return th__dist_mpi_fail(fn, "MPI_Type_commit", rc);
    }
    *type = whole;
    *count = 1;
    return TH_OK;
}

static int th__dist_count_is(const char *fn, const char *name, const th_tensor *t, int64_t want, const char *why)
{
    if (th_tensor_numel(t) == want) return TH_OK;
    return th_set_error(TH_ERR_SHAPE, fn, "%s has %lld elements, not %lld (%s)", name, (long long)th_tensor_numel(t),
                        (long long)want, why);
}

static int th__dist_gather_family(const char *fn, int coll, th_dist_comm *c, th_tensor *out, const th_tensor *t,
                                  th_reduce_op op, int root)
{
    int st = th__dist_comm_ok(fn, c);
    if (st) return st;
    int p = c->size;
    bool rooted = coll == TH__DIST_GATHER || coll == TH__DIST_SCATTER;
    bool is_root = c->rank == root;
    /* Which tensors this rank uses, and k: the elements of one rank's block. */
    bool use_t = coll != TH__DIST_SCATTER || is_root;
    bool use_out = coll != TH__DIST_GATHER || is_root;
    th_dtype d = th_tensor_dtype(use_t ? t : out);
    th__dist_red r;
    th__dist_buf bt = {0}, bo = {0};
    int64_t k = 0;
    if (rooted) st = th__dist_root_ok(fn, c, root, "root");
    if (!st && use_t && !t) st = th_set_error(TH_ERR_INVALID, fn, "t is NULL");
    if (!st && use_out && !out) st = th_set_error(TH_ERR_INVALID, fn, "out is NULL");
    if (!st) {
        switch (coll) {
        case TH__DIST_ALL_GATHER:
            k = th_tensor_numel(t);
            st = th__dist_count_is(fn, "out", out, k * p, "the number of ranks times t's");
            break;
        case TH__DIST_GATHER:
            k = th_tensor_numel(t);
            if (is_root) st = th__dist_count_is(fn, "out", out, k * p, "the number of ranks times t's");
            break;
        case TH__DIST_SCATTER:
            k = th_tensor_numel(out);
            if (is_root) st = th__dist_count_is(fn, "t", t, k * p, "the number of ranks times out's");
            break;
        case TH__DIST_REDUCE_SCATTER:
            k = th_tensor_numel(out);
            st = th__dist_count_is(fn, "t", t, k * p, "the number of ranks times out's");
            if (!st) st = th__dist_reduction(fn, d, op, &r);
            break;
        default: /* all_to_all */
            k = th_tensor_numel(t) / p;
            if (th_tensor_numel(t) % p)
                st = th_set_error(TH_ERR_SHAPE, fn, "t has %lld elements, not a multiple of the %d ranks",
                                  (long long)th_tensor_numel(t), p);
            if (!st) st = th__dist_count_is(fn, "out", out, th_tensor_numel(t), "t's");
            break;
        }
    }
    if (!st && use_t) st = th__dist_open(fn, "t", t, true, false, &bt);
    if (!st && use_out) st = th__dist_open(fn, "out", out, false, true, &bo);
    st = th__dist_agree(fn, c, coll, d, k, rooted ? root : 0, coll == TH__DIST_REDUCE_SCATTER ? op : TH_REDUCE_SUM, st);
    if (st) {
        th__dist_close(fn, &bt, false);
        th__dist_close(fn, &bo, false);
        return st;
    }
    MPI_Datatype base = th__dist_type(d), type = base;
    int count = 0;
    void *wt = NULL, *wo = NULL;
    if (coll == TH__DIST_REDUCE_SCATTER) {
        st = th__dist_widen(fn, d, &r, bt.data, bt.n, &wt);
        if (st) goto done;
        wo = bo.data; /* only written: a float32 buffer for float16 and bfloat16, nothing converted into it */
        if (r.widen && bo.n > 0 && !(wo = malloc((size_t)bo.n * sizeof(float)))) {
            st = th_set_error(TH_ERR_NOMEM, fn, "no memory for the float32 result (%lld elements)", (long long)bo.n);
            goto done;
        }
        if (k <= c->max_count) {
            TH__DIST_MPI(fn, MPI_Reduce_scatter_block, (wt, wo, (int)k, r.type, r.op, c->comm));
        } else {
            for (int q = 0; q < p && !st; q++)
                st = th__dist_reduce_pieces(fn, c, (char *)wt + (int64_t)q * k * (int64_t)r.wsz,
                                            q == c->rank ? wo : NULL, k, &r, q);
        }
        goto done;
    }
    st = th__dist_block(fn, c, base, th_dtype_info(d)->size, k, &type, &count);
    if (st) goto done;
    switch (coll) {
    case TH__DIST_ALL_GATHER:
        TH__DIST_MPI(fn, MPI_Allgather, (bt.data, count, type, bo.data, count, type, c->comm));
        break;
    case TH__DIST_GATHER:
        TH__DIST_MPI(fn, MPI_Gather, (bt.data, count, type, bo.data, count, type, root, c->comm));
        break;
    case TH__DIST_SCATTER:
        TH__DIST_MPI(fn, MPI_Scatter, (bt.data, count, type, bo.data, count, type, root, c->comm));
        break;
    default:
        TH__DIST_MPI(fn, MPI_Alltoall, (bt.data, count, type, bo.data, count, type, c->comm));
        break;
    }
done:
    if (type != base) MPI_Type_free(&type);
    if (coll == TH__DIST_REDUCE_SCATTER) {
        if (wt && wt != bt.data) free(wt);
        if (wo) th__dist_finish(d, &r, bo.data, wo, bo.n, p, !st);
    }
    th__dist_close(fn, &bt, false);
    int st2 = th__dist_close(fn, &bo, use_out && !st);
    return st ? st : st2;
}

/* ---- uneven gather and scatter along dim 0, all_gather into a list ------------------------------------------- */

/* The rows of t along dim 0 (a 0-d tensor is one row of one element) and the elements of one row. */
static void th__dist_rows(const th_tensor *t, int64_t *rows, int64_t *row)
{
    int nd = th_tensor_ndim(t);
    const int64_t *sizes = th_tensor_sizes(t);
    int64_t r = 1;
    for (int i = 1; i < nd; i++) r *= sizes[i];
    *rows = nd ? sizes[0] : 1;
    *row = r;
}

/* counts: ncounts (the number of ranks) counts of rows, none negative; their sum and a digest of them (for the
 * debug mode's signature). */
static int th__dist_counts_ok(const char *fn, const th_dist_comm *c, const int64_t *counts, int ncounts,
                              int64_t *total, int64_t *digest)
{
    if (!counts) return th_set_error(TH_ERR_INVALID, fn, "counts is NULL (one count of rows per rank)");
    if (ncounts != c->size)
        return th_set_error(TH_ERR_INVALID, fn, "ncounts is %d, not the %d ranks of the communicator", ncounts,
                            c->size);
    int64_t sum = 0;
    uint64_t h = 1469598103934665603u; /* FNV-1a over the counts */
    for (int r = 0; r < ncounts; r++) {
        if (counts[r] < 0) return th_set_error(TH_ERR_RANGE, fn, "counts[%d] is %lld, negative", r, (long long)counts[r]);
        if (counts[r] > INT64_MAX - sum)
            return th_set_error(TH_ERR_OVERFLOW, fn, "the counts add up past INT64_MAX (at counts[%d] = %lld)", r,
                                (long long)counts[r]);
        sum += counts[r];
        h = (h ^ (uint64_t)counts[r]) * 1099511628211u;
    }
    *total = sum;
    *digest = (int64_t)(h >> 1);
    return TH_OK;
}

/* gatherv (every rank's t, counts[rank] rows, concatenated along dim 0 into root's out) and scatterv (the rows of
 * root's t, split by counts, into every rank's out). */
static int th__dist_v(const char *fn, int coll, th_dist_comm *c, th_tensor *out, const th_tensor *t,
                      const int64_t *counts, int ncounts, int root)
{
    int st = th__dist_comm_ok(fn, c);
    if (st) return st;
    int p = c->size;
    bool gather = coll == TH__DIST_GATHERV, is_root = c->rank == root;
    /* part: this rank's share (t of gatherv, out of scatterv); whole: root's concatenation */
    const th_tensor *part = gather ? t : out, *whole = gather ? out : t;
    const char *part_name = gather ? "t" : "out", *whole_name = gather ? "out" : "t";
    th_dtype d = th_tensor_dtype(part);
    th__dist_buf bt = {0}, bo = {0};
    int64_t total = 0, digest = 0, rows = 0, row = 0;
    st = th__dist_root_ok(fn, c, root, "root");
    if (!st) st = th__dist_counts_ok(fn, c, counts, ncounts, &total, &digest);
    if (!st && !part) st = th_set_error(TH_ERR_INVALID, fn, "%s is NULL", part_name);
    if (!st && is_root && !whole) st = th_set_error(TH_ERR_INVALID, fn, "%s is NULL on the root", whole_name);
    if (!st) {
        th__dist_rows(part, &rows, &row);
        if (rows != counts[c->rank])
            st = th_set_error(TH_ERR_SHAPE, fn, "%s has %lld rows along dim 0, not counts[%d] = %lld", part_name,
                              (long long)rows, c->rank, (long long)counts[c->rank]);
    }
    if (!st && is_root) {
        int64_t wrows, wrow;
        th__dist_rows(whole, &wrows, &wrow);
        if (wrows != total)
            st = th_set_error(TH_ERR_SHAPE, fn, "%s has %lld rows along dim 0, not %lld (the sum of counts)",
                              whole_name, (long long)wrows, (long long)total);
        else if (wrow != row)
            st = th_set_error(TH_ERR_SHAPE, fn, "%s has rows of %lld elements where %s's have %lld", whole_name,
                              (long long)wrow, part_name, (long long)row);
    }
    /* The unit MPI counts in: one element while every count and offset in elements fits one call, else one row
     * (a derived type), the counts in rows. */
    bool by_row = row > 0 && total > c->max_count / row;
    if (!st && by_row && total > INT_MAX)
        st = th_set_error(TH_ERR_OVERFLOW, fn, "%lld rows in all are more than one MPI call takes (INT_MAX)",
                          (long long)total);
    if (!st && (gather || is_root)) st = th__dist_open(fn, "t", t, true, false, &bt);
    if (!st && (!gather || is_root)) st = th__dist_open(fn, "out", out, false, true, &bo);
    st = th__dist_agree_counts(fn, c, coll, d, row, root, TH_REDUCE_SUM, st, digest);
    if (st) {
        th__dist_close(fn, &bt, false);
        th__dist_close(fn, &bo, false);
        return st;
    }
    MPI_Datatype base = th__dist_type(d), unit = base;
    int64_t scale = row;
    int *cnts = malloc(sizeof(int) * 2 * (size_t)p), *displs = cnts ? cnts + p : NULL;
    if (!cnts) {
        st = th_set_error(TH_ERR_NOMEM, fn, "no memory for %d counts", p);
        goto done;
    }
    if (by_row) {
        int one = 0;
        if (row <= c->max_count) {
            TH__DIST_MPI(fn, MPI_Type_contiguous, ((int)row, base, &unit));
            TH__DIST_MPI(fn, MPI_Type_commit, (&unit));
        } else {
            st = th__dist_block(fn, c, base, th_dtype_info(d)->size, row, &unit, &one);
            if (st) goto done;
        }
        scale = 1;
    }
    for (int r = 0, off = 0; r < p; r++) {
        cnts[r] = (int)(counts[r] * scale);
        displs[r] = off;
        off += cnts[r];
    }
    if (gather) {
        TH__DIST_MPI(fn, MPI_Gatherv, (bt.data, cnts[c->rank], unit, bo.data, cnts, displs, unit, root, c->comm));
    } else {
        TH__DIST_MPI(fn, MPI_Scatterv, (bt.data, cnts, displs, unit, bo.data, cnts[c->rank], unit, root, c->comm));
    }
done:
    if (unit != base && unit != MPI_DATATYPE_NULL) MPI_Type_free(&unit);
    free(cnts);
    th__dist_close(fn, &bt, false);
    int st2 = th__dist_close(fn, &bo, bo.t && !st);
    return st ? st : st2;
}

static int th__dist_gatherv(const char *fn, th_dist_comm *c, th_tensor *out, const th_tensor *t,
                            const int64_t *counts, int ncounts, int root)
{
    return th__dist_v(fn, TH__DIST_GATHERV, c, out, t, counts, ncounts, root);
}

static int th__dist_scatterv(const char *fn, th_dist_comm *c, th_tensor *out, const th_tensor *t,
                             const int64_t *counts, int ncounts, int root)
{
    return th__dist_v(fn, TH__DIST_SCATTERV, c, out, t, counts, ncounts, root);
}

/* The typed front door's check of a list: outs[i] of another dtype than want. */
static bool th__dist_wrong_dtype_list(const char *fn, const th_tensor *const *outs, int n, th_dtype want)
{
    for (int i = 0; outs && i < n; i++) {
        th_dtype have = th_tensor_dtype(outs[i]);
        if (outs[i] && have != want) {
            th_set_error(TH_ERR_DTYPE, fn, "outs[%d] is %s, not %s", i, th_dtype_name(have), th_dtype_name(want));
            return true;
        }
    }
    return false;
}

/* all_gather into nouts (the number of ranks) tensors of numel(t) elements each: one MPI_Allgather into a
 * contiguous buffer, then each block copied into its tensor (of any shape and strides). */
static int th__dist_all_gather_list(const char *fn, th_dist_comm *c, th_tensor *const *outs, int nouts,
                                    const th_tensor *t)
{
    int st = th__dist_comm_ok(fn, c);
    if (st) return st;
    int p = c->size;
    th_dtype d = th_tensor_dtype(t);
    int64_t k = th_tensor_numel(t);
    th__dist_buf bt = {0};
    char *all = NULL;
    if (!outs) st = th_set_error(TH_ERR_INVALID, fn, "outs is NULL");
    else if (nouts != p) st = th_set_error(TH_ERR_INVALID, fn, "nouts is %d, not the %d ranks of the communicator", nouts, p);
    else if (!t) st = th_set_error(TH_ERR_INVALID, fn, "t is NULL");
    for (int r = 0; r < p && !st; r++) {
        char name[32];
        snprintf(name, sizeof name, "outs[%d]", r);
        if (!outs[r]) st = th_set_error(TH_ERR_INVALID, fn, "%s is NULL", name);
        else if (th_storage_is_read_only(th_tensor_storage(outs[r])))
            st = th_set_error(TH_ERR_READ_ONLY, fn, "%s is read-only", name);
        else st = th__dist_count_is(fn, name, outs[r], k, "t's");
    }
    if (!st) st = th__dist_open(fn, "t", t, true, false, &bt);
    if (!st && k > 0 && !(all = malloc((size_t)p * (size_t)k * bt.esz)))
        st = th_set_error(TH_ERR_NOMEM, fn, "no memory for the %d gathered blocks of %lld elements", p, (long long)k);
    st = th__dist_agree(fn, c, TH__DIST_ALL_GATHER_LIST, d, k, 0, TH_REDUCE_SUM, st);
    MPI_Datatype base = th__dist_type(d), type = base;
    int count = 0;
    if (st) goto done;
    st = th__dist_block(fn, c, base, bt.esz, k, &type, &count);
    if (st) goto done;
    TH__DIST_MPI(fn, MPI_Allgather, (bt.data, count, type, all, count, type, c->comm));
    for (int r = 0; r < p && k > 0 && !st; r++) {
        th_tensor *block = NULL;
        st = th__dist_wrap(fn, outs[r], all + (size_t)r * (size_t)k * bt.esz, &block);
        if (!st && th_tensor_copy(outs[r], block) != TH_OK)
            st = th_set_error(th_last_status(), fn, "could not copy block %d into outs[%d]: %s", r, r, th_last_error());
        th_tensor_release(block);
    }
done:
    if (type != base) MPI_Type_free(&type);
    free(all);
    th__dist_close(fn, &bt, false);
    return st;
}

/* ---- point to point -------------------------------------------------------------------------------------------- */

static int th__dist_peer_ok(const char *fn, const th_dist_comm *c, int peer, const char *what, bool any)
{
    if (any && peer == MPI_ANY_SOURCE) return TH_OK;
    return th__dist_root_ok(fn, c, peer, what);
}

static int th__dist_tag_ok(const char *fn, int tag, bool any)
{
    if (tag >= 0 || (any && tag == MPI_ANY_TAG)) return TH_OK;
    return th_set_error(TH_ERR_RANGE, fn, "tag %d is negative", tag);
}

static int th__dist_send(const char *fn, th_dist_comm *c, const th_tensor *t, int dst, int tag)
{
    int st = th__dist_comm_ok(fn, c);
    if (st) return st;
    th__dist_buf b = {0};
    if (!(st = th__dist_peer_ok(fn, c, dst, "dst", false)) && !(st = th__dist_tag_ok(fn, tag, false)))
        st = th__dist_open(fn, "t", t, true, false, &b);
    if (st) return st;
    MPI_Datatype type = th__dist_type(th_tensor_dtype(t));
    int64_t off = 0;
    do { /* an empty tensor is one empty message, so that its recv matches */
        int len = (int)(b.n - off < c->max_count ? b.n - off : c->max_count);
        TH__DIST_MPI(fn, MPI_Send, (b.data ? b.data + off * (int64_t)b.esz : NULL, len, type, dst, tag, c->comm));
        off += len;
    } while (off < b.n);
done:
    th__dist_close(fn, &b, false);
    return st;
}

static int th__dist_recv(const char *fn, th_dist_comm *c, th_tensor *t, int src, int tag)
{
    int st = th__dist_comm_ok(fn, c);
    if (st) return st;
    th__dist_buf b = {0};
    if (!(st = th__dist_peer_ok(fn, c, src, "src", true)) && !(st = th__dist_tag_ok(fn, tag, true)))
        st = th__dist_open(fn, "t", t, false, true, &b);
    if (st) return st;
    MPI_Datatype type = th__dist_type(th_tensor_dtype(t));
    int64_t off = 0;
    do {
        int len = (int)(b.n - off < c->max_count ? b.n - off : c->max_count), got = 0;
        MPI_Status status;
        TH__DIST_MPI(fn, MPI_Recv, (b.data ? b.data + off * (int64_t)b.esz : NULL, len, type, src, tag, c->comm, &status));
        MPI_Get_count(&status, type, &got);
        if (got != len) {
            st = th_set_error(TH_ERR_SHAPE, fn, "rank %d sent %lld elements where t holds %lld", status.MPI_SOURCE,
                              (long long)(off + got), (long long)b.n);
            goto done;
        }
        src = status.MPI_SOURCE; /* the rest of the pieces come from the rank that sent the first */
        tag = status.MPI_TAG;
        off += len;
    } while (off < b.n);
done:;
    int st2 = th__dist_close(fn, &b, !st);
    return st ? st : st2;
}

int th_dist_barrier(th_dist_comm *c)
{
    const char *fn = "th_dist_barrier";
    int st = th__dist_comm_ok(fn, c);
    if (st) return st;
    st = th__dist_agree(fn, c, TH__DIST_BARRIER, TH_DTYPE_INVALID, 0, 0, TH_REDUCE_SUM, TH_OK);
    if (st) return st;
    TH__DIST_MPI(fn, MPI_Barrier, (c->comm));
done:
    return st;
}

/* ---- the typed front doors ----------------------------------------------------------------------------------- */

#define TH__DEFINING /* the definitions pass, as tensor.h runs its own (see tensor.h) */
#define TH_GENERIC_FILE "../dist/dist_generic.h"
#include "generate/all.h"
#undef TH__DEFINING
