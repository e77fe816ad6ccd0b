/* dist/dist_generic.h: the per-dtype collectives, stamped for every dtype through generate/ (see docs/generic.md):
 * th_dist.h stamps the declarations, dist/collectives.c the definitions (TH__DEFINING). Each front door checks
 * the dtype of its tensors and hands them, dtype-erased, to the one implementation in dist/collectives.c. */
#ifndef TH_NAME
#error "dist/dist_generic.h is stamped through generate/ by th_dist.h; include th_dist.h instead"
#endif

#ifndef TH__DEFINING

/* Every one returns 0 or a negative th_status; a tensor of another dtype is TH_ERR_DTYPE (nothing sent). */
int TH_DT_PASTE(th_, _all_reduce)(th_dist_comm *c, TH_NAME(tensor) *t, th_reduce_op op);
int TH_DT_PASTE(th_, _reduce)(th_dist_comm *c, TH_NAME(tensor) *t, th_reduce_op op, int root);
int TH_DT_PASTE(th_, _broadcast)(th_dist_comm *c, TH_NAME(tensor) *t, int root);
int TH_DT_PASTE(th_, _all_gather)(th_dist_comm *c, TH_NAME(tensor) *out, const TH_NAME(tensor) *t);
int TH_DT_PASTE(th_, _gather_to)(th_dist_comm *c, TH_NAME(tensor) *out, const TH_NAME(tensor) *t, int root);
int TH_DT_PASTE(th_, _scatter_from)(th_dist_comm *c, TH_NAME(tensor) *out, const TH_NAME(tensor) *t, int root);
int TH_DT_PASTE(th_, _reduce_scatter)(th_dist_comm *c, TH_NAME(tensor) *out, const TH_NAME(tensor) *t,
                                      th_reduce_op op);
int TH_DT_PASTE(th_, _all_to_all)(th_dist_comm *c, TH_NAME(tensor) *out, const TH_NAME(tensor) *t);
int TH_DT_PASTE(th_, _send)(th_dist_comm *c, const TH_NAME(tensor) *t, int dst, int tag);
int TH_DT_PASTE(th_, _recv)(th_dist_comm *c, TH_NAME(tensor) *t, int src, int tag);
/* Uneven gather and scatter along dim 0 (MPI_Gatherv / MPI_Scatterv): counts holds ncounts (the number of ranks)
 * counts of rows, the same on every rank; a 0-d tensor is one row. all_gather into a list: outs holds nouts
 * (the number of ranks) tensors of t's element count, any shapes and strides. */
int TH_DT_PASTE(th_, _gatherv_to)(th_dist_comm *c, TH_NAME(tensor) *out, const TH_NAME(tensor) *t,
                                  const int64_t *counts, int ncounts, int root);
int TH_DT_PASTE(th_, _scatterv_from)(th_dist_comm *c, TH_NAME(tensor) *out, const TH_NAME(tensor) *t,
                                     const int64_t *counts, int ncounts, int root);
int TH_DT_PASTE(th_, _all_gather_list)(th_dist_comm *c, TH_NAME(tensor) *const *outs, int nouts,
                                       const TH_NAME(tensor) *t);
/* Non-blocking: start, then th_dist_wait (or th_dist_test) before reading t; *req is NULL on error. */
int TH_DT_PASTE(th_, _all_reduce_async)(th_dist_comm *c, TH_NAME(tensor) *t, th_reduce_op op, th_dist_request **req);
int TH_DT_PASTE(th_, _broadcast_async)(th_dist_comm *c, TH_NAME(tensor) *t, int root, th_dist_request **req);
int TH_DT_PASTE(th_, _reduce_async)(th_dist_comm *c, TH_NAME(tensor) *t, th_reduce_op op, int root,
                                    th_dist_request **req);
int TH_DT_PASTE(th_, _all_gather_async)(th_dist_comm *c, TH_NAME(tensor) *out, const TH_NAME(tensor) *t,
                                        th_dist_request **req);

#else

#define TH__DIST_CHECK(x) \
    if (th__dist_wrong_dtype(__func__, #x, (const th_tensor *)(x), TH_DT_ENUM)) return TH_ERR_DTYPE

int TH_DT_PASTE(th_, _all_reduce)(th_dist_comm *c, TH_NAME(tensor) *t, th_reduce_op op)
{
    TH__DIST_CHECK(t);
    return th__dist_all_reduce(__func__, c, (th_tensor *)t, op);
}

int TH_DT_PASTE(th_, _reduce)(th_dist_comm *c, TH_NAME(tensor) *t, th_reduce_op op, int root)
{
    TH__DIST_CHECK(t);
    return th__dist_reduce(__func__, c, (th_tensor *)t, op, root);
}

int TH_DT_PASTE(th_, _broadcast)(th_dist_comm *c, TH_NAME(tensor) *t, int root)
{
    TH__DIST_CHECK(t);
    return th__dist_broadcast(__func__, c, (th_tensor *)t, root);
}

int TH_DT_PASTE(th_, _all_gather)(th_dist_comm *c, TH_NAME(tensor) *out, const TH_NAME(tensor) *t)
{
    TH__DIST_CHECK(out);
    TH__DIST_CHECK(t);
    return th__dist_gather_family(__func__, TH__DIST_ALL_GATHER, c, (th_tensor *)out, (const th_tensor *)t,
                                  TH_REDUCE_SUM, 0);
}

int TH_DT_PASTE(th_, _gather_to)(th_dist_comm *c, TH_NAME(tensor) *out, const TH_NAME(tensor) *t, int root)
{
    TH__DIST_CHECK(out);
    TH__DIST_CHECK(t);
    return th__dist_gather_family(__func__, TH__DIST_GATHER, c, (th_tensor *)out, (const th_tensor *)t,
                                  TH_REDUCE_SUM, root);
}

int TH_DT_PASTE(th_, _scatter_from)(th_dist_comm *c, TH_NAME(tensor) *out, const TH_NAME(tensor) *t, int root)
{
    TH__DIST_CHECK(out);
    TH__DIST_CHECK(t);
    return th__dist_gather_family(__func__, TH__DIST_SCATTER, c, (th_tensor *)out, (const th_tensor *)t,
                                  TH_REDUCE_SUM, root);
}

int TH_DT_PASTE(th_, _reduce_scatter)(th_dist_comm *c, TH_NAME(tensor) *out, const TH_NAME(tensor) *t,
                                      th_reduce_op op)
{
    TH__DIST_CHECK(out);
    TH__DIST_CHECK(t);
    return th__dist_gather_family(__func__, TH__DIST_REDUCE_SCATTER, c, (th_tensor *)out, (const th_tensor *)t,
                                  op, 0);
}

int TH_DT_PASTE(th_, _all_to_all)(th_dist_comm *c, TH_NAME(tensor) *out, const TH_NAME(tensor) *t)
{
    TH__DIST_CHECK(out);
    TH__DIST_CHECK(t);
    return th__dist_gather_family(__func__, TH__DIST_ALL_TO_ALL, c, (th_tensor *)out, (const th_tensor *)t,
                                  TH_REDUCE_SUM, 0);
}

int TH_DT_PASTE(th_, _gatherv_to)(th_dist_comm *c, TH_NAME(tensor) *out, const TH_NAME(tensor) *t,
                                  const int64_t *counts, int ncounts, int root)
{
    TH__DIST_CHECK(out);
    TH__DIST_CHECK(t);
    return th__dist_gatherv(__func__, c, (th_tensor *)out, (const th_tensor *)t, counts, ncounts, root);
}

int TH_DT_PASTE(th_, _scatterv_from)(th_dist_comm *c, TH_NAME(tensor) *out, const TH_NAME(tensor) *t,
                                     const int64_t *counts, int ncounts, int root)
{
    TH__DIST_CHECK(out);
    TH__DIST_CHECK(t);
    return th__dist_scatterv(__func__, c, (th_tensor *)out, (const th_tensor *)t, counts, ncounts, root);
}

int TH_DT_PASTE(th_, _all_gather_list)(th_dist_comm *c, TH_NAME(tensor) *const *outs, int nouts,
                                       const TH_NAME(tensor) *t)
{
    if (th__dist_wrong_dtype_list(__func__, (const th_tensor *const *)outs, nouts, TH_DT_ENUM)) return TH_ERR_DTYPE;
    TH__DIST_CHECK(t);
    return th__dist_all_gather_list(__func__, c, (th_tensor *const *)outs, nouts, (const th_tensor *)t);
}

int TH_DT_PASTE(th_, _send)(th_dist_comm *c, const TH_NAME(tensor) *t, int dst, int tag)
{
    TH__DIST_CHECK(t);
    return th__dist_send(__func__, c, (const th_tensor *)t, dst, tag);
}

int TH_DT_PASTE(th_, _recv)(th_dist_comm *c, TH_NAME(tensor) *t, int src, int tag)
{
    TH__DIST_CHECK(t);
    return th__dist_recv(__func__, c, (th_tensor *)t, src, tag);
}

int TH_DT_PASTE(th_, _all_reduce_async)(th_dist_comm *c, TH_NAME(tensor) *t, th_reduce_op op, th_dist_request **req)
{
    if (req) *req = NULL;
    TH__DIST_CHECK(t);
    return th__dist_async(__func__, c, (th_tensor *)t, TH__DIST_ALL_REDUCE, op, 0, req);
}

int TH_DT_PASTE(th_, _broadcast_async)(th_dist_comm *c, TH_NAME(tensor) *t, int root, th_dist_request **req)
{
    if (req) *req = NULL;
    TH__DIST_CHECK(t);
    return th__dist_async(__func__, c, (th_tensor *)t, TH__DIST_BROADCAST, TH_REDUCE_SUM, root, req);
}

int TH_DT_PASTE(th_, _reduce_async)(th_dist_comm *c, TH_NAME(tensor) *t, th_reduce_op op, int root,
                                    th_dist_request **req)
{
    if (req) *req = NULL;
    TH__DIST_CHECK(t);
    return th__dist_async(__func__, c, (th_tensor *)t, TH__DIST_REDUCE, op, root, req);
}

int TH_DT_PASTE(th_, _all_gather_async)(th_dist_comm *c, TH_NAME(tensor) *out, const TH_NAME(tensor) *t,
                                        th_dist_request **req)
{
    if (req) *req = NULL;
    TH__DIST_CHECK(out);
    TH__DIST_CHECK(t);
    return th__dist_all_gather_async(__func__, c, (th_tensor *)out, (const th_tensor *)t, req);
}

#undef TH__DIST_CHECK

#endif
