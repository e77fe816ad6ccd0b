/* th_shm.h: tensors in shared memory between processes (Linux).
 *
 * The optional compiled companion of tensor.h: build the .c files of shm/ but manager.c into your program (or a
 * library) next to the one TH_IMPLEMENTATION translation unit, link with -lrt -pthread (and -ldl before glibc
 * 2.34), build manager.c as th-shm-manager for the name strategy, and include this header (C11 or C++). That
 * TU may stamp a subset of the dtypes (TH_SELECT_DTYPES): a handle of a dtype it left out is refused.
 *
 * SHARING A TENSOR
 *   th_f32_share_memory(t) moves t's storage, in place, into a POSIX shared-memory segment: every tensor and
 *   view over that storage sees the same bytes, now shared. Then hand it to another process by one of two
 *   strategies (docs/shm.md says when to use which):
 *
 *   TH_SHM_FD    (the default, as in PyTorch on Linux) the segment never has a name (memfd); its file
 *                descriptor travels over a Unix domain socket: th_shm_send_fd(sock, t) / th_shm_recv_fd(sock).
 *                Nothing can leak, even under SIGKILL, but every live shared storage holds one descriptor.
 *   TH_SHM_NAME  the segment has an unguessable name in /dev/shm; th_shm_handle_encode(t, buf, cap) writes a
 *                printable handle that th_shm_open_handle(text) turns back into an equal tensor in any
 *                process of the same user. A manager process (shm/manager.c, started on demand) unlinks the
 *                names of processes that die without letting go.
 *
 *   Both carry the dtype, sizes, strides and offset, so views and non-contiguous tensors arrive as they left.
 *   The segment holds a cross-process reference count; the last process to let go frees it.
 *
 *   int64_t n[1] = {1024};
 *   th_f32_tensor *t = th_f32_zeros(1, n);
 *   th_f32_share_memory(t);                      // t's storage is now shared memory
 *   if (fork() == 0) { th_f32_set(t, (int64_t[]){0}, 1.0f); _exit(0); }   // the parent sees the 1
 *   th_shm_send_fd(sock, th_f32_base(t));        // another process: th_shm_recv_fd(sock)
 *
 * A forked child inherits the mappings of its parent's shared storages and may use them; it holds no reference
 * of its own (its releases only unmap), so a parent that lets go of everything frees the segment even while
 * the child still reads it: the child's mapping stays valid, but the segment can no longer be handed out.
 *
 * MAPPED FILES
 *   th_storage_map_file(path, &(th_file_map_options){.shared = true}) maps a file as a storage. It is part of
 *   tensor.h itself (core/file_map.h), so that a vendored header maps files too; this companion's mapped
 *   storages are those, and they move into shared memory like any other (th_storage_share_memory).
 *
 * ERRORS follow tensor.h: constructors return NULL, the rest a negative th_status; th_last_error() names
 * the function and says what went wrong and, where there is one, how to fix it. */
#ifndef TH_SHM_H
#define TH_SHM_H

#include "tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ==== strategies and the shared-memory allocator ============================================ */

typedef enum th_shm_strategy {
    TH_SHM_DEFAULT = 0, /* the process-wide default (th_shm_set_strategy) */
    TH_SHM_FD = 1,      /* unnamed (memfd) segments; descriptors travel over Unix sockets */
    TH_SHM_NAME = 2     /* named segments in /dev/shm; printable handles */
} th_shm_strategy;

/* The strategy th_storage_share_memory uses, process-wide (like torch.multiprocessing.set_sharing_strategy).
 * Starts as TH_SHM_FD. TH_ERR_INVALID for a value that is no strategy; TH_SHM_DEFAULT restores TH_SHM_FD. */
int th_shm_set_strategy(th_shm_strategy strategy);
th_shm_strategy th_shm_get_strategy(void);

/* Segment names are "/<prefix>_<pid>_<32 random hex digits>". The prefix comes from the environment variable
 * TH_SHM_PREFIX when set, else "th"; this overrides both for the whole process. 1 to 24 characters of
 * [A-Za-z0-9_.-], not starting with '.' (the manager's rule for names: one plain file in /dev/shm); NULL
 * restores the default. TH_ERR_INVALID otherwise; a TH_SHM_PREFIX that breaks the rule fails every named
 * share with TH_ERR_INVALID, rather than being replaced silently. */
int th_shm_set_prefix(const char *prefix);

/* The allocator of shared-memory segments of a strategy (TH_SHM_DEFAULT: the current default); NULL (with
 * TH_ERR_INVALID) for a value that is no strategy. Its context is unused: pass NULL. Each block is a segment
 * of its own, with the reference count in a header just below the block. Set it as the default allocator
 * (th_set_default_allocator) to make new tensors in shared memory directly, without the copy that
 * th_storage_share_memory makes. */
const th_allocator *th_shm_allocator(th_shm_strategy strategy);

/* ==== sharing storages and tensors ========================================================= */

/* Moves storage's bytes, in place, into a fresh segment of the default strategy (see th_storage_move_to):
 * every tensor and view over it sees shared memory with the same contents. A no-op (0) for a storage that is
 * already shared. Errors: NULL, a read-only storage, device memory, no room (TH_ERR_NOMEM naming /dev/shm and
 * the size, or RLIMIT_FSIZE), the descriptor limit (TH_ERR_IO), the manager (name strategy). The storage is
 * unchanged on error. A shared storage keeps its size: th_storage_resize refuses it (other processes map the
 * segment; a resize would move this one to another), but for a resize to 0 bytes, which lets go of it. */
int th_storage_share_memory(th_storage *storage);
/* The same with a given strategy. A storage already shared keeps its segment whatever its strategy. */
int th_storage_share_memory_with(th_storage *storage, th_shm_strategy strategy);
/* Whether the storage's memory is a shared-memory segment (made here or opened from another process). */
bool th_storage_is_shared(const th_storage *storage);
/* TH_SHM_FD or TH_SHM_NAME for a shared storage, TH_SHM_DEFAULT (0) for any other. */
th_shm_strategy th_storage_shm_strategy(const th_storage *storage);

/* The same for a tensor's storage. */
int th_tensor_share_memory(th_tensor *t);
bool th_tensor_is_shared(const th_tensor *t);

/* Per dtype, stamped from shm/share_generic.h: th_f32_share_memory(t) and th_f32_is_shared(t), ... */
#define TH_GENERIC_FILE "../shm/share_generic.h"
#include "generate/all.h"

/* ==== handles ============================================================================== */

/* A handle says where a tensor's memory is and how the tensor lies in it. Its text form is printable ASCII:
 *
 *   thshm/1:name=/th_4242_0123456789abcdef0123456789abcdef:bytes=4096:dtype=f32:offset=2:sizes=2,3:strides=1,2
 *
 * "thshm/1" is the format and its version; then the locator: "name=<segment>" (name strategy), "fd" (the
 * descriptor travels beside the text: th_shm_send_fd), or "empty" (a storage of 0 bytes, no segment); later
 * versions may add others (a CUDA IPC handle). bytes is the storage's size; offset, sizes and strides count
 * elements of dtype. The grammar is strict: fields in this order, decimal numbers without sign (but strides
 * "-"), leading zeros or spaces; one text for one handle. */
enum {
    TH_SHM_HANDLE_VERSION = 1,
    TH_SHM_NAME_MAX = 72,                           /* bytes of a segment name, its NUL included */
    TH_SHM_HANDLE_MAX = 168 + 2 * 21 * TH_MAX_DIMS  /* bytes of the text form, its NUL included */
};

typedef enum th_shm_locator {
    TH_SHM_LOCATOR_NAME = 1,
    TH_SHM_LOCATOR_FD = 2,
    TH_SHM_LOCATOR_EMPTY = 3
} th_shm_locator;

typedef struct th_shm_handle {
    int version;                 /* TH_SHM_HANDLE_VERSION */
    th_shm_locator locator;
    char name[TH_SHM_NAME_MAX];  /* TH_SHM_LOCATOR_NAME: "/..."; otherwise "" */
    int64_t nbytes;              /* of the whole storage */
    th_dtype dtype;
    int64_t offset;              /* elements */
    int ndim;
    int64_t sizes[TH_MAX_DIMS];
    int64_t strides[TH_MAX_DIMS];
} th_shm_handle;

/* Writes t's name-strategy handle to buf (cap bytes, NUL included) and returns its length, or a negative
 * status. Shares t's storage with TH_SHM_NAME first if it is not shared yet; TH_ERR_UNSUPPORTED for a storage
 * already shared with TH_SHM_FD (such a segment has no name: send it with th_shm_send_fd). The handle stays
 * valid while some process holds the segment: keep t until the receiver has opened it. TH_ERR_RANGE when cap
 * is too small (TH_SHM_HANDLE_MAX always suffices). */
int th_shm_handle_encode(th_tensor *t, char *buf, size_t cap);

/* A new tensor, equal to the one encoded, over the same shared memory (a name handle), or over a fresh empty
 * storage (an empty handle). A segment this process maps already (it made it, or opened or received it
 * before) is not mapped again, and while a storage over it is alive the tensor is over that same th_storage
 * (the maker's, in the process that shared it): one storage per segment and process, from any thread. The
 * segment goes with the last reference to it; a forked child maps (and holds) what it opens itself. Errors,
 * each with nothing left behind: a text that is no handle (TH_ERR_INVALID, saying which field), an unknown
 * or uncompiled dtype (TH_ERR_DTYPE), a shape outside the storage (TH_ERR_RANGE), an fd handle
 * (TH_ERR_INVALID: use th_shm_recv_fd), a segment that no longer exists, is another user's or is not ours
 * (TH_ERR_IO), a segment of another size than the handle says (TH_ERR_SHAPE). */
th_tensor *th_shm_open_handle(const char *text);

/* Parses len bytes of text (no NUL needed, none allowed) into *out, validating every field: the version, the
 * locator and segment name, the dtype name, sizes >= 0, and that offset, sizes and strides address only
 * elements inside bytes. 0 or a negative status (TH_ERR_INVALID / _DTYPE / _RANGE / _OVERFLOW). */
int th_shm_handle_parse(const char *text, size_t len, th_shm_handle *out);
/* Writes h's text form (after validating it as th_shm_handle_parse would); returns its length or a negative
 * status (TH_ERR_RANGE when cap is too small). */
int th_shm_handle_format(const th_shm_handle *h, char *buf, size_t cap);

/* ==== descriptor passing =================================================================== */

/* Sends t over sock, a connected AF_UNIX socket (SOCK_SEQPACKET, SOCK_DGRAM or SOCK_STREAM): its segment's
 * descriptor as SCM_RIGHTS and an fd handle beside it. Shares t's storage with TH_SHM_FD first if it is not
 * shared yet; a name-strategy segment is sent too. The descriptor in flight keeps the memory alive: t may be
 * released at once. Errors: NULL or unshareable t, the descriptor limit (TH_ERR_IO, saying how to raise it),
 * the socket (TH_ERR_IO). */
int th_shm_send_fd(int sock, th_tensor *t);
/* Receives one tensor that th_shm_send_fd sent: a new tensor over the same memory (this process's storage
 * over it, when it has one: see th_shm_open_handle). Errors: the peer closed the socket, a message that is no
 * handle, a handle without its descriptor (the descriptor limit of this process: TH_ERR_IO saying how to
 * raise it), a descriptor that is no segment of ours or is smaller than the handle says. Blocks until a
 * message comes (or fails with the socket's timeout, SO_RCVTIMEO). */
th_tensor *th_shm_recv_fd(int sock);

#ifdef __cplusplus
}
#endif

#endif /* TH_SHM_H */
