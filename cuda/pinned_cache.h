/* cuda/pinned_cache.h: the pinned (page-locked) host memory cache, in plain C11.
 *
 * cudaHostAlloc and cudaFreeHost are slow (the latter synchronises the device), and an asynchronous copy
 * from pageable memory is neither asynchronous nor fast, so copies stage through pinned buffers that this
 * cache keeps. Its memory is host memory: device type CUDA_HOST (kDLCUDAHost = 3); every CPU op works on
 * it. Every CUDA call goes through a th_cuda_backend (backend.h).
 *
 * POLICY (docs/cuda.md has the figures)
 *   Rounding:  a request is rounded up to a power of two (at least 512 bytes) up to the pow2 bound (2 MiB
 *              by default); above the bound, to a multiple of min(bound, 2 MiB). PyTorch rounds every size
 *              to a power of two, so a 65 MiB buffer pins 128 MiB; here it pins 66 MiB.
 *   Bins:      a free block is reused for a request of exactly its rounded size (power-of-two sizes), or,
 *              above the bound, for the smallest cached block of at least the rounded size and at most a
 *              quarter more. Blocks are never split.
 *   Events:    th__cuda_pinned_record(p, ptr, device, stream) records an event on stream for an
 *              asynchronous copy that reads or writes the block; a freed block goes back to the cache only
 *              when all its events have completed (polled at every allocation, free and empty_cache).
 *   Cap:       the cache keeps at most max_cached_bytes of free blocks (1 GiB by default); a block freed
 *              (or whose events complete) when the cache is full goes back to the backend at once.
 *   OOM:       when the backend's host_malloc fails with its oom_code, every cached block is released and
 *              host_malloc retried once; then TH_ERR_NOMEM saying what the cache holds.
 *   empty_cache releases every cached free block (blocks still waiting for events stay until they are done).
 *
 * ENVIRONMENT (read by th__cuda_pinned_config_from_env; th__cuda_pinned_new calls it for a NULL config)
 *   TH_CUDA_NO_CACHING=1     exact sizes, and every free goes back to the backend (once its events are done)
 *   TH_CUDA_PINNED_CONF=max_cached_mb:N,pow2_max_kb:N
 *                            the cap (N MiB; 0 keeps nothing) and the power-of-two bound (N KiB, a power of
 *                            two); unknown keys or bad values are an error.
 *
 * A block is named by the pointer the cache handed out (a storage's data pointer), never by a pointer into
 * it. Errors as in caching_allocator.h (th_set_error, never an abort). Thread-safe: one mutex. */
#ifndef TH_CUDA_PINNED_CACHE_H
#define TH_CUDA_PINNED_CACHE_H

#include "caching_allocator.h" /* th__cuda_stat, th__cuda_conf_parse, th__cuda_format_bytes */

#ifdef __cplusplus
extern "C" {
#endif

#define TH__CUDA_PINNED_MIN_BLOCK ((size_t)512)
#define TH__CUDA_PINNED_POW2_MAX ((size_t)2 << 20)         /* the default bound */
#define TH__CUDA_PINNED_GRANULE ((size_t)2 << 20)          /* rounding above the bound (at most) */
#define TH__CUDA_PINNED_MAX_CACHED ((size_t)1 << 30)       /* the default cap */

typedef struct th__cuda_pinned_config {
    bool no_caching;
    bool max_cached_set;     /* false: the default cap; true: max_cached_bytes, 0 included */
    size_t max_cached_bytes; /* SIZE_MAX: no cap */
    size_t pow2_max;         /* a power of two >= 512; 0: the default */
} th__cuda_pinned_config;

typedef struct th__cuda_pinned_stats {
    th__cuda_stat allocations;     /* blocks handed out */
    th__cuda_stat allocated_bytes; /* their rounded sizes */
    th__cuda_stat requested_bytes; /* what callers asked for */
    th__cuda_stat reserved_bytes;  /* all pinned memory held: handed out, waiting for events, cached */
    th__cuda_stat cached_bytes;    /* free blocks kept for reuse */
    th__cuda_stat pending_bytes;   /* freed blocks waiting for their events */
    int64_t cache_hits;
    int64_t host_mallocs;          /* successful */
    int64_t host_malloc_fails;
    int64_t host_frees;
    int64_t events_recorded;
    int64_t cap_frees;             /* blocks given back because the cache was full */
    int64_t oom_retries, ooms;
    size_t max_cached_bytes, pow2_max;
    bool caching;
} th__cuda_pinned_stats;

int th__cuda_pinned_config_from_env(th__cuda_pinned_config *config);
/* The rounding rule (pow2_max 0: the default). */
size_t th__cuda_pinned_round_size(size_t nbytes, size_t pow2_max);

typedef struct th__cuda_pinned th__cuda_pinned;

/* backend must outlive the cache; config NULL reads the environment. NULL on error. */
th__cuda_pinned *th__cuda_pinned_new(const th_cuda_backend *backend, const th__cuda_pinned_config *config);
/* Waits for every pending event, gives every block back; blocks still handed out are given back too:
 * TH_ERR_INVALID saying how many. NULL: 0. */
int th__cuda_pinned_delete(th__cuda_pinned *pinned);

/* The th_allocator (device {TH_DEVICE_CUDA_HOST, 0}); its context is the cache itself. */
const th_allocator *th__cuda_pinned_allocator(th__cuda_pinned *pinned);
void *th__cuda_pinned_alloc(void *ctx, size_t nbytes);
void th__cuda_pinned_free(void *ctx, void *ptr, size_t nbytes);

int th__cuda_pinned_malloc(th__cuda_pinned *pinned, size_t nbytes, void **ptr);
/* TH_ERR_INVALID for a pointer the cache did not hand out (or got back already). */
int th__cuda_pinned_release(th__cuda_pinned *pinned, void *ptr);
/* An asynchronous copy on stream (of device) uses the block at ptr: an event is recorded on stream now, and
 * the block, once freed, is reused only after that event has completed. */
int th__cuda_pinned_record(th__cuda_pinned *pinned, void *ptr, int device, void *stream);
/* Gives every cached free block back to the backend. */
int th__cuda_pinned_empty_cache(th__cuda_pinned *pinned);
int th__cuda_pinned_get_stats(th__cuda_pinned *pinned, th__cuda_pinned_stats *stats);
/* Recounts every block against the statistics and the bins; TH_ERR_INVALID naming the first mismatch. */
int th__cuda_pinned_check(th__cuda_pinned *pinned);

#ifdef __cplusplus
}
#endif

#endif
