/* th_dist.h: collectives on tensors across processes and machines, on MPI (docs/dist.md).
 *
 * The optional compiled companion of tensor.h: link the static library th_dist (pkg-config tensor-dist, Meson
 * dependency('tensor-dist'), CMake tensor::dist) next to the program's one TH_IMPLEMENTATION translation unit
 * (or libtensor) and MPI, and include this header (C11 or C++). mpirun starts the ranks; the program owns
 * MPI_Init and MPI_Finalize: this library calls neither.
 *
 * THE COMMUNICATOR
 *   th_dist_comm *c = th_dist_comm_from_mpi(MPI_COMM_WORLD);  // a duplicate of it, errors returned
 *   int rank = th_dist_rank(c), size = th_dist_size(c);
 *   ...
 *   th_dist_comm_free(c);                                      // before MPI_Finalize
 *
 * COLLECTIVES, per dtype (th_f32_all_reduce, th_i64_all_reduce, ...), every rank of c calls the same one in
 * the same order with tensors of the same dtype and element count (the shapes may differ; the elements go in
 * C order). Tensors may be views of any strides: they are packed into a contiguous buffer and unpacked after.
 *   all_reduce(c, t, op)              t on every rank becomes op over every rank's t
 *   reduce(c, t, op, root)            the same, on root only; the other ranks' t are left as they were
 *   broadcast(c, t, root)             every rank's t becomes root's
 *   all_gather(c, out, t)             out (size * numel(t) elements) holds every rank's t, in rank order
 *   gather_to(c, out, t, root)        the same on root; out is not used (may be NULL) on the other ranks
 *   scatter_from(c, out, t, root)     out (numel k) becomes block rank of root's t (size * k elements; t may be
 *                                     NULL on the other ranks)
 *   gatherv_to(c, out, t, counts, ncounts, root)     uneven gather along dim 0: rank r's t has counts[r] rows
 *                                     (a 0-d t is one row), root's out has their sum, all rows of the same
 *                                     element count; counts (ncounts = the number of ranks) alike on every rank
 *   scatterv_from(c, out, t, counts, ncounts, root)  the reverse: rank r's out gets counts[r] rows of root's t
 *   all_gather_list(c, outs, nouts, t)                outs[r] (nouts = the number of ranks; numel(t) each, any
 *                                     shapes and strides) becomes rank r's t
 *   reduce_scatter(c, out, t, op)     out (numel k) becomes block rank of op over every rank's t (size * k)
 *   all_to_all(c, out, t)             block j of out (numel size * k) is block rank of rank j's t
 *   send(c, t, dst, tag), recv(c, t, src, tag)   point to point; recv fills t, whose element count must be
 *                                     the one sent
 *   th_dist_barrier(c)
 *
 * REDUCTIONS (th_reduce_op): SUM, PROD, MIN, MAX and AVG (the sum divided by the number of ranks) for the
 * floating dtypes; SUM, PROD, MIN, MAX, BAND, BOR and BXOR for the integers; LAND and LOR for bool; SUM, PROD
 * and AVG for the complex dtypes. Any other pair is refused by name (TH_ERR_DTYPE). float16 and bfloat16 are
 * reduced in float32 (converted, reduced with MPI_FLOAT, rounded back once). More than INT_MAX elements go in
 * pieces of at most INT_MAX elements (reductions, broadcast, send/recv) or as one derived datatype (the
 * gather family).
 *
 * ERRORS follow tensor.h: th_dist_comm_from_mpi returns NULL, the rest a negative th_status, and th_last_error()
 * names the function and the offending value. A failure of MPI itself is TH_ERR_IO with MPI's own words (the
 * duplicate communicator has MPI_ERRORS_RETURN). Arguments checked on one rank alone (a shape that does not fit
 * there) fail on that rank only, and the other ranks then wait in the collective: set TH_DIST_DEBUG=1 in the
 * environment (read when the communicator is made) to have every collective first check, across all ranks,
 * that each calls the same collective with the same dtype, element count, root and op and that its arguments
 * passed: a mismatch, or an error on any rank, is then an error on every rank instead of a hang. */
#ifndef TH_DIST_H
#define TH_DIST_H

/* Only MPI's C API is used: from C++, leave out the C++ bindings (removed in MPI-3; Open MPI's header for them
 * does not compile cleanly under -Wextra -Werror). A program that included <mpi.h> before keeps what it chose. */
#if defined(__cplusplus) && !defined(OMPI_SKIP_MPICXX)
#define OMPI_SKIP_MPICXX 1
#endif
#if defined(__cplusplus) && !defined(MPICH_SKIP_MPICXX)
#define MPICH_SKIP_MPICXX 1
#endif
#include <mpi.h>

#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct th_dist_comm th_dist_comm;

typedef enum th_reduce_op {
    TH_REDUCE_SUM = 0,
    TH_REDUCE_PROD = 1,
    TH_REDUCE_MIN = 2,
    TH_REDUCE_MAX = 3,
    TH_REDUCE_AVG = 4,  /* floating and complex dtypes: the sum divided by the number of ranks */
    TH_REDUCE_BAND = 5, /* integers */
    TH_REDUCE_BOR = 6,
    TH_REDUCE_BXOR = 7,
    TH_REDUCE_LAND = 8, /* bool */
    TH_REDUCE_LOR = 9
} th_reduce_op;

/* "TH_REDUCE_SUM" and so on; "TH_REDUCE_?" for a value that is no op. */
const char *th_reduce_op_name(th_reduce_op op);

/* A communicator over the ranks of comm, an intra-communicator: a duplicate (MPI_Comm_dup, so this library's
 * messages never meet the program's) with MPI_ERRORS_RETURN. Collective over comm. NULL on error: MPI not
 * initialised or already finalised (TH_ERR_UNSUPPORTED), MPI_COMM_NULL (TH_ERR_INVALID), an
 * inter-communicator (TH_ERR_UNSUPPORTED), a thread other than MPI's main thread where MPI was initialised
 * with less than MPI_THREAD_SERIALIZED (TH_ERR_UNSUPPORTED: this library calls MPI from the thread that calls
 * it), MPI's own failure (TH_ERR_IO). */
th_dist_comm *th_dist_comm_from_mpi(MPI_Comm comm);
/* Frees the duplicate (collective, like MPI_Comm_free); NULL is a no-op. Call it before MPI_Finalize. */
void th_dist_comm_free(th_dist_comm *c);
/* This process's rank in c and the number of ranks; TH_ERR_INVALID for NULL. */
int th_dist_rank(const th_dist_comm *c);
int th_dist_size(const th_dist_comm *c);
/* The duplicate communicator (MPI_COMM_NULL for NULL), for the program's own MPI calls beside these. */
MPI_Comm th_dist_mpi_comm(const th_dist_comm *c);
/* Whether the cross-rank checks of TH_DIST_DEBUG are on for c. */
bool th_dist_debug(const th_dist_comm *c);
/* Waits until every rank of c has called it. */
int th_dist_barrier(th_dist_comm *c);

/* NON-BLOCKING FORMS: th_f32_all_reduce_async(c, t, op, &req), th_f32_reduce_async(c, t, op, root, &req),
 * th_f32_broadcast_async(c, t, root, &req) and th_f32_all_gather_async(c, out, t, &req) start the collective
 * (MPI_Iallreduce / MPI_Ireduce / MPI_Ibcast / MPI_Iallgather) and return at once with a request; its tensors
 * must not be read or written until th_dist_wait(req) returns, or th_dist_test(req, &done) says done. The
 * request holds a reference to each (th_tensor_retain) until then, so the caller may release its own; a
 * non-contiguous result is unpacked, and an AVG divided, at completion. c must outlive the request. In the debug mode the signature
 * check runs (blocking) when the collective starts. */
typedef struct th_dist_request th_dist_request;
/* Completes req (blocking) and returns the collective's status; again after completion, the same status. */
int th_dist_wait(th_dist_request *req);
/* Sets *done and, once done, returns the collective's status (0 while it runs). */
int th_dist_test(th_dist_request *req, bool *done);
/* Waits for req if it is still running, then frees it; NULL is a no-op. */
void th_dist_request_free(th_dist_request *req);

/* Per dtype, stamped from dist/dist_generic.h: th_f32_all_reduce(c, t, op), th_f32_broadcast(c, t, root), ... */
#define TH_GENERIC_FILE "../dist/dist_generic.h"
#include "generate/all.h"

#ifdef __cplusplus
}
#endif

#endif /* TH_DIST_H */
