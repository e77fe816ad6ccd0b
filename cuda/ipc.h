/* cuda/ipc.h: device tensors handed to other processes (CUDA IPC), as plain C11 over cuda/backend.h.
 *
 * Not public: th_cuda.h's th_cuda_ipc_encode / th_cuda_ipc_open are built on it. Everything here calls CUDA
 * only through the backend table, so the tests run it on machines without a GPU (tests/cuda/ipc_fake.c).
 *
 * THE HANDLE
 *   A printable, versioned text that says which device allocation holds the tensor and how the tensor lies in
 *   it, plus what the consumer needs to wait for the producer's writes and to keep the memory alive:
 *
 *   thcuda/1:pid=4242:id=9f86d081884c7d65:dev=0:mem=<128 hex>:segbytes=2097152:segoff=1024:event=<128 hex>
 *     :counter=/thcuipc_4242_9f86d081884c7d65_0:slot=17:gen=3:bytes=4096:dtype=f32:offset=2:sizes=2,3
 *     :strides=1,2:sum=1a2b3c4d                                        (one line; broken here to fit)
 *
 *   CUDA exports only the base of a cudaMalloc allocation, so mem is the handle of the caching allocator's
 *   segment and segoff the storage's place in it; the consumer maps the whole segment once per process.
 *   sum is a checksum of everything before it, so a truncated or mangled handle never parses as another one.
 *
 * KEEPING SHARED MEMORY ALIVE, WITHOUT A COLLECT CALL
 *   Each shared block has a slot in a small POSIX shared-memory file of the producer (the counter file): a
 *   state word (generation and phase) and up to TH_CUDA_IPC_HOLDERS holder words, one per consumer process
 *   that has the block open (its pid and start time). A consumer claims a holder word when it first opens the
 *   block and clears it when it releases the last tensor over it. The producer's allocator asks
 *   th__cuda_ipc_defer_free before freeing a block: a block that some consumer holds stays allocated, and
 *   th__cuda_ipc_deferred_sweep, called from the allocator's next calls, frees it (through the configured
 *   free_block) once no live process holds it. Holders whose process has died (no such pid, a zombie, or a
 *   pid reused by a process started later) are cleared by the sweep, so a killed consumer delays the free by
 *   at most one sweep after its death. docs/cuda.md ("## IPC") gives the protocol and its limits.
 *
 * ERRORS follow tensor.h: th_set_error names the function and the bad field; nothing aborts. */
#ifndef TH_CUDA_IPC_H
#define TH_CUDA_IPC_H

#include "tensor.h"

#include "backend.h"
#include "th_cuda.h" /* TH_CUDA_IPC_HANDLE_MAX */

#ifdef __cplusplus
extern "C" {
#endif

enum {
    TH_CUDA_IPC_VERSION = 1,
    TH_CUDA_IPC_COUNTER_NAME_MAX = 72,             /* bytes of a counter file's name, its NUL included */
    TH_CUDA_IPC_HOLDERS = 31                       /* consumer processes that may hold one block at once */
};

/* The fields of a handle. offset, sizes and strides count elements of dtype; the byte fields count bytes. */
typedef struct th_cuda_ipc_handle {
    int version;                                   /* TH_CUDA_IPC_VERSION */
    int32_t pid;                                   /* the producer's process id */
    uint64_t id;                                   /* random, once per producer process: tells a reused pid apart */
    int device;                                    /* the producer's device index */
    unsigned char mem[TH_CUDA_IPC_HANDLE_BYTES];   /* cudaIpcMemHandle_t of the segment's base */
    int64_t segment_bytes;                         /* the whole segment (cudaMalloc allocation) */
    int64_t segment_offset;                        /* from the segment's base to the storage's first byte */
    unsigned char event[TH_CUDA_IPC_HANDLE_BYTES]; /* cudaIpcEventHandle_t, recorded after the last write */
    char counter[TH_CUDA_IPC_COUNTER_NAME_MAX];    /* the counter file: "/" and 1 to 70 of [A-Za-z0-9_.-] */
    int32_t slot;                                  /* the block's slot in the counter file */
    uint32_t generation;                           /* the slot's generation when the block was shared */
    int64_t nbytes;                                /* of the storage */
    th_dtype dtype;
    int64_t offset;
    int ndim;
    int64_t sizes[TH_MAX_DIMS];
    int64_t strides[TH_MAX_DIMS];
} th_cuda_ipc_handle;

/* Parses len bytes of text (no NUL needed, none allowed) into *out, checking every field: its spelling
 * (fields in order, decimal without sign or leading zeros, hex as 128 lowercase digits), its range, that the
 * storage lies inside the segment at an offset aligned to the dtype, that offset, sizes and strides address
 * only elements of the storage without overflow, and the checksum. 0, or TH_ERR_INVALID naming the field and
 * its byte (a newer version says so), TH_ERR_RANGE / TH_ERR_OVERFLOW / TH_ERR_DTYPE. */
int th_cuda_ipc_handle_parse(const char *text, size_t len, th_cuda_ipc_handle *out);
/* Writes h's text form (after the checks th_cuda_ipc_handle_parse makes); its length, or a negative status
 * (TH_ERR_RANGE when cap is too small: TH_CUDA_IPC_HANDLE_MAX always suffices). */
int th_cuda_ipc_handle_format(const th_cuda_ipc_handle *h, char *buf, size_t cap);

/* ==== set-up ============================================================================================== */

typedef struct th__cuda_ipc_config {
    const th_cuda_backend *backend; /* required */
    /* Frees a block for real (back into the allocator's pool), once no consumer holds it: called by
     * th__cuda_ipc_deferred_sweep, outside this module's lock, on the sweeping thread. A process without it
     * may open handles but not share. */
    void (*free_block)(void *ctx, int device, void *block);
    void *free_ctx;
    /* The counter files' names: "/<prefix>_<pid>_<id>_<n>". NULL: $TH_CUDA_IPC_PREFIX, else "thcuipc".
     * 1 to 24 of [A-Za-z0-9_.-]. */
    const char *prefix;
    /* How often a sweep checks whether holders' processes are still alive (system calls): 0 means every
     * 100 ms, a negative value every sweep. Reading the counts themselves costs no system call. */
    int reap_interval_ms;
} th__cuda_ipc_config;

/* Sets the backend and the allocator's free for the whole process. Fails (TH_ERR_UNSUPPORTED) while this
 * process shares or holds anything; TH_ERR_INVALID for a NULL backend or a bad prefix. */
int th__cuda_ipc_configure(const th__cuda_ipc_config *config);

/* ==== producer ============================================================================================ */

/* Where a tensor's storage lives in the caching allocator. */
typedef struct th__cuda_ipc_block {
    int device;
    void *segment;        /* the base of the cudaMalloc allocation that holds the block */
    size_t segment_bytes;
    void *block;          /* the allocator's block: what th__cuda_ipc_defer_free and free_block get */
    size_t block_bytes;
} th__cuda_ipc_block;

/* The tensor over that block. */
typedef struct th__cuda_ipc_view {
    const void *data;     /* the storage's first byte, inside the block */
    int64_t nbytes;       /* of the storage */
    th_dtype dtype;
    int64_t offset;       /* elements */
    int ndim;
    const int64_t *sizes; /* ndim of each (NULL when ndim is 0) */
    const int64_t *strides;
} th__cuda_ipc_view;

/* Shares block (once: a block shared again keeps its slot) and writes a handle to view into buf (cap bytes,
 * NUL included); returns its length or a negative status. Records the block's interprocess event on stream
 * (the stream of the last write; NULL is the default stream), so a consumer sees every write made before.
 * Keep the tensor until every consumer has opened the handle: a handle whose block the producer has freed
 * no longer opens. Errors: a view outside its block or a block outside its segment (TH_ERR_RANGE), no
 * free_block configured (TH_ERR_UNSUPPORTED), the counter file (TH_ERR_IO / TH_ERR_NOMEM), a backend call
 * (TH_ERR_DEVICE naming the CUDA error), buf too small (TH_ERR_RANGE). */
int th__cuda_ipc_encode(const th__cuda_ipc_block *block, const th__cuda_ipc_view *view, void *stream, char *buf,
                        size_t cap);

/* The allocator asks this before freeing a block. false: free it now (it was never shared, or no consumer
 * holds it any more: its slot is released). true: a consumer holds it; the allocator keeps it allocated, and
 * a later sweep hands it to free_block. Cheap (one atomic load) while nothing is shared. */
bool th__cuda_ipc_defer_free(int device, void *block);

/* Frees (through free_block) every deferred block that no live process holds any more; returns how many.
 * Meant for the allocator's every call and its out-of-memory sequence: one atomic load while nothing is
 * deferred, and it skips its turn rather than wait while another thread is inside this module. Call it
 * without holding a lock that free_block takes. */
int th__cuda_ipc_deferred_sweep(void);

/* Unlinks counter files of this user whose producer died without removing them (SIGKILL), in the same pid
 * namespace only. Done when a process makes its first counter file; returns how many were removed. */
int th__cuda_ipc_reap_stale_counters(void);

/* ==== consumer ============================================================================================ */

typedef struct th__cuda_ipc_ref th__cuda_ipc_ref;

/* Opens the memory of a parsed handle: a reference that keeps it mapped and keeps the producer from freeing
 * it, and in *data the storage's first byte in this process (the segment's mapping plus segoff). Waits for
 * the producer's event first. A segment is opened once per process, however many tensors lie in it; in the
 * producer's own process nothing is opened (CUDA refuses that) and data is the producer's pointer. Errors:
 * a handle that does not check (as parse), configure not called (TH_ERR_UNSUPPORTED), a device out of range
 * (TH_ERR_RANGE) or none usable (TH_ERR_DEVICE), the producer gone or its counter file missing, another
 * user's or not ours (TH_ERR_IO), the block already freed by the producer (TH_ERR_IO, saying which
 * generation), TH_CUDA_IPC_HOLDERS processes holding it already (TH_ERR_UNSUPPORTED), a backend call
 * (TH_ERR_DEVICE naming the CUDA error). Nothing is left held on error. */
th__cuda_ipc_ref *th__cuda_ipc_open(const th_cuda_ipc_handle *h, void **data);

/* Lets go of a reference: the segment is closed when its last reference goes, and only then is the block's
 * holder word cleared, so the producer never frees memory this process still has open. In a forked child
 * that inherited the reference, only the child's copy of it is freed. NULL is a no-op. 0, or TH_ERR_DEVICE
 * when closing failed (everything is released all the same). */
int th__cuda_ipc_release(th__cuda_ipc_ref *ref);

/* ==== inspection and shutdown ============================================================================= */

typedef struct th__cuda_ipc_stats {
    int64_t shared_blocks;    /* producer: blocks with a slot (live or deferred) */
    int64_t deferred_blocks;  /* producer: freed by the allocator, held by a consumer */
    int64_t deferred_bytes;
    int64_t reaped_holders;   /* producer: holder words of dead processes cleared, in total */
    int64_t counter_files;    /* producer: counter files made */
    int64_t open_refs;        /* consumer: references not released */
    int64_t open_segments;    /* consumer: segments mapped (opened once each) */
    int64_t held_slots;       /* consumer: holder words this process has claimed */
} th__cuda_ipc_stats;

void th__cuda_ipc_get_stats(th__cuda_ipc_stats *out);

/* Forgets everything this process shares: slots freed (their handles no longer open), events destroyed,
 * counter files unmapped and unlinked, the configuration cleared. TH_ERR_UNSUPPORTED while references are
 * open or blocks deferred. For tests and unloading; normal exit unlinks the counter files by itself. */
int th__cuda_ipc_teardown(void);

#ifdef __cplusplus
}
#endif

#endif /* TH_CUDA_IPC_H */
