/* cuda/caching_allocator.h: the caching device allocator, one set of pools per device, in plain C11.
 *
 * cudaMalloc and cudaFree are slow (cudaFree synchronises the device) so, like PyTorch's c10/cuda caching
 * allocator, this one keeps freed memory in pools and hands it out again. Every CUDA call goes through a
 * th_cuda_backend (backend.h): the real runtime, or the tests' fake over host memory.
 *
 * POLICY (docs/cuda.md has the figures)
 *   Rounding:  a request is rounded up to a multiple of 512 bytes (0 and 1..511 take 512).
 *   Pools:     rounded sizes up to 1 MiB are small, larger ones large; each pool is split by stream, and
 *              a request is served from the pool of its own (device, stream) only: the smallest free block
 *              that fits (best fit; ties by address).
 *   Segments:  when no cached block fits, the backend is asked for a segment: 2 MiB for a small request,
 *              20 MiB for a request of 1 to 10 MiB, else the request rounded up to 2 MiB.
 *   Split:     a block larger than the request is split and the rest goes back to the pool when that rest
 *              is at least 512 bytes (small pool), or more than 1 MiB and the request is below the max split
 *              size (large pool). Otherwise the whole block is handed out.
 *   Oversize:  with a max split size set, a block of at least that size is never split; a request below it
 *              never takes such a block, and a request at or above it takes one only if the block is less
 *              than 20 MiB larger than the request.
 *   Merge:     a freed block merges with its free neighbours of the same segment.
 *   Streams:   th__cuda_caching_record_stream(d, ptr, s) marks a block as used on another stream s. Its
 *              free then records an event on each such stream, and the block returns to its pool only
 *              when all those events have completed (polled at every allocation, never waited for). A
 *              stream that is destroyed is forgotten first (th__cuda_caching_forget_stream).
 *   OOM:       when the backend's malloc fails with its oom_code: the device is synchronised (every event
 *              completes, so blocks waiting on other streams return to their pools) and the pool is searched
 *              again; if still nothing fits, every free segment of the device is released (a free segment
 *              is one with no block in use) and the backend's malloc is retried once. If that fails too,
 *              TH_ERR_NOMEM with a message giving the device's capacity and free memory and this device's
 *              allocated, reserved, reserved-but-unallocated bytes and its largest free block.
 *   empty_cache waits for the events of blocks freed while in use on other streams, then releases every
 *              free segment.
 *
 * ENVIRONMENT (read by th__cuda_caching_config_from_env, which th__cuda_caching_new calls for a NULL config)
 *   TH_CUDA_NO_CACHING=1     no caching: each allocation is its own backend malloc of the exact size and
 *                            each free a backend free (for compute-sanitizer, which can then see every
 *                            overrun). Any value but "" and "0" turns it on. The pinned cache reads it too.
 *   TH_CUDA_ALLOC_CONF=max_split_size_mb:N
 *                            blocks of N MiB and more are never split (N > 20). Options are key:value
 *                            separated by commas; an unknown key or a bad value is an error.
 *
 * STREAMS
 *   A stream is the backend's opaque pointer; NULL is the device's default stream. The th_allocator entry
 *   points take the stream from the calling thread's current stream for the device
 *   (th__cuda_set_current_stream), which the companion's public layer sets; the _malloc form takes it as a
 *   parameter.
 *
 * ERRORS AND THREADS
 *   Functions returning int return 0 or a negative th_status; every error is recorded with th_set_error
 *   ("function: detail", the backend's error name for a failed CUDA call: TH_ERR_DEVICE). Nothing aborts.
 *   Every function may be called from any thread: each device has its own mutex. Backend calls are made
 *   with that mutex held.
 */
#ifndef TH_CUDA_CACHING_ALLOCATOR_H
#define TH_CUDA_CACHING_ALLOCATOR_H

#include "tensor.h"

#include "backend.h"
#include "th_cuda.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The policy's sizes, for the tests and the docs. */
#define TH__CUDA_MIN_BLOCK ((size_t)512)                /* rounding unit and smallest block */
#define TH__CUDA_SMALL_SIZE ((size_t)1 << 20)           /* largest rounded size of the small pool */
#define TH__CUDA_SMALL_SEGMENT ((size_t)2 << 20)        /* segment for small requests */
#define TH__CUDA_LARGE_SEGMENT ((size_t)20 << 20)       /* segment for 1..10 MiB requests; oversize slack */
#define TH__CUDA_MIN_LARGE_ALLOC ((size_t)10 << 20)     /* from here a request gets its own segment */
#define TH__CUDA_ROUND_LARGE ((size_t)2 << 20)          /* ... rounded up to this */
#define TH__CUDA_MAX_REQUEST (SIZE_MAX / 2)             /* larger requests fail with TH_ERR_OVERFLOW */
enum { TH__CUDA_MAX_DEVICES = 64 };                     /* devices a current stream can be set for */

/* The statistics are public (th_cuda.h: th_cuda_memory_stats); these are their names inside the companion. */
typedef th_cuda_stat th__cuda_stat;
typedef th_cuda_memory_stats th__cuda_memory_stats;
enum {
    TH__CUDA_POOL_ALL = TH_CUDA_POOL_ALL,
    TH__CUDA_POOL_SMALL = TH_CUDA_POOL_SMALL,
    TH__CUDA_POOL_LARGE = TH_CUDA_POOL_LARGE,
    TH__CUDA_POOL_KINDS = TH_CUDA_POOL_KINDS
};

/* Settings; zero means the default. */
typedef struct th__cuda_caching_config {
    bool no_caching;       /* every allocation straight to the backend */
    size_t max_split_size; /* bytes; 0: none (every large block may split). Must be more than 20 MiB. */
} th__cuda_caching_config;

/* Reads TH_CUDA_NO_CACHING and TH_CUDA_ALLOC_CONF into *config (zeroed first). TH_ERR_INVALID naming the
 * variable and the bad text for an unknown option or a bad value. */
int th__cuda_caching_config_from_env(th__cuda_caching_config *config);

/* Parses "key:value,key:value" where every value is a non-negative integer. keys[i] names option i;
 * values[i] and seen[i] receive it. var names the variable in messages; fn is the caller. */
int th__cuda_conf_parse(const char *fn, const char *var, const char *text, const char *const *keys, int nkeys,
                        size_t *values, bool *seen);

/* The rules as functions, so tests and docs check them without allocating. */
size_t th__cuda_caching_round_size(size_t nbytes);      /* 512-byte rounding */
size_t th__cuda_caching_segment_size(size_t rounded);   /* the segment a rounded request creates */

typedef struct th__cuda_caching th__cuda_caching;         /* the allocator of every device of a backend */
typedef struct th__cuda_caching_dev th__cuda_caching_dev; /* one device's pools: the th_allocator context */

/* One allocator for every device the backend has (device_count at this call). backend must outlive it.
 * config NULL reads the environment (th__cuda_caching_config_from_env). NULL on error. */
th__cuda_caching *th__cuda_caching_new(const th_cuda_backend *backend, const th__cuda_caching_config *config);
/* Waits for pending events, releases every segment and frees the allocator. Blocks still handed out are
 * released too (their memory is gone): TH_ERR_INVALID saying how many. NULL: 0. */
int th__cuda_caching_delete(th__cuda_caching *caching);
int th__cuda_caching_device_count(const th__cuda_caching *caching);
/* A device's pools; NULL and TH_ERR_RANGE for a device out of range. */
th__cuda_caching_dev *th__cuda_caching_dev_get(th__cuda_caching *caching, int device);

/* The th_allocator of a device (device {TH_DEVICE_CUDA, device}) and, in *ctx_out, its context (the
 * th__cuda_caching_dev). NULL and TH_ERR_RANGE for a device out of range. It allocates on the calling
 * thread's current stream of the device. Its realloc is NULL. */
const th_allocator *th__cuda_caching_allocator(th__cuda_caching *caching, int device, void **ctx_out);
/* The th_allocator's entry points (ctx: a th__cuda_caching_dev). free checks that ptr is a block of this
 * device and nbytes the size it was asked for (a mismatch is recorded as TH_ERR_INVALID; the block is
 * freed all the same). */
void *th__cuda_caching_alloc(void *ctx, size_t nbytes);
void th__cuda_caching_free(void *ctx, void *ptr, size_t nbytes);

/* The same with the stream given and a status returned: *ptr is the block (NULL on error). */
int th__cuda_caching_malloc(th__cuda_caching_dev *dev, size_t nbytes, void *stream, void **ptr);
/* Hands a block back (ptr exactly as allocated). TH_ERR_INVALID for a pointer this device did not hand
 * out (or handed out and got back already). */
int th__cuda_caching_release(th__cuda_caching_dev *dev, void *ptr);
/* Marks the block at ptr (exactly as allocated) as used on stream too: at its release an event is
 * recorded on stream, and the block is reused only when it has completed. The block's own stream is
 * ignored. A no-op without caching (a backend free synchronises). */
int th__cuda_caching_record_stream(th__cuda_caching_dev *dev, void *ptr, void *stream);
/* Forgets stream in every block's uses, for a stream about to be destroyed whose work is done (the caller
 * synchronised it): without this, a block marked as used on it would record an event on a destroyed stream
 * at its release, which crashes the driver. Its own blocks stay in their pools. */
int th__cuda_caching_forget_stream(th__cuda_caching_dev *dev, void *stream);
/* Waits for pending events, then releases every free segment to the backend. */
int th__cuda_caching_empty_cache(th__cuda_caching_dev *dev);

int th__cuda_caching_get_stats(th__cuda_caching_dev *dev, th__cuda_memory_stats *stats);
/* Sets every peak to its current value. */
int th__cuda_caching_reset_peak_stats(th__cuda_caching_dev *dev);

/* The segment (backend allocation) holding the block at ptr (exactly as allocated): for IPC handles,
 * which exist only for a segment's base. */
int th__cuda_caching_segment_of(th__cuda_caching_dev *dev, void *ptr, void **base, size_t *size);

/* Every block of every segment, in address order within each segment. */
typedef enum th__cuda_block_state {
    TH__CUDA_BLOCK_FREE = 0,      /* cached, in its pool */
    TH__CUDA_BLOCK_ALLOCATED = 1, /* handed out */
    TH__CUDA_BLOCK_PENDING = 2    /* released, waiting for the events of other streams */
} th__cuda_block_state;
typedef struct th__cuda_block_info {
    void *segment;
    size_t segment_size;
    void *ptr;
    size_t size;      /* the block's size (rounded) */
    size_t requested; /* what its caller asked for (0 when not allocated) */
    void *stream;     /* the stream it belongs to (its segment's) */
    int state;        /* a th__cuda_block_state */
    bool small;       /* in the small pool */
    int events;       /* events it is waiting for */
} th__cuda_block_info;
/* Calls visit for each block under the device's mutex (visit must not call the allocator); a non-zero
 * return stops the walk and is returned. */
int th__cuda_caching_walk(th__cuda_caching_dev *dev, int (*visit)(void *arg, const th__cuda_block_info *block),
                          void *arg);
/* Checks the allocator's own invariants: segments tiled by their blocks, no two free neighbours, the pools'
 * trees ordered and balanced and holding exactly the free blocks, the address map holding exactly the
 * blocks handed out, and the statistics' current values equal to a recount. TH_ERR_INVALID naming the
 * first broken one. */
int th__cuda_caching_check(th__cuda_caching_dev *dev);

/* The calling thread's current stream of a device (NULL, the default stream, until set). Thread-local: the
 * companion's public layer sets it; the th_allocator entry points read it. Device out of range: the setter
 * returns TH_ERR_RANGE, the getter NULL. */
int th__cuda_set_current_stream(int device, void *stream);
void *th__cuda_current_stream(int device);

/* "512 bytes", "1.50 KiB", "20.00 MiB", "1.00 GiB": into buf (at least 32 bytes), which is returned. */
const char *th__cuda_format_bytes(char *buf, size_t bufsize, size_t nbytes);

#ifdef __cplusplus
}
#endif

#endif
