/* core/cpu_cache.h: the CPU allocator's cache of large freed blocks, so that a fresh large result reuses
 * pages that are already resident instead of having the kernel zero new ones.
 * Part of tensor.h, which includes it twice: its declarations, then (TH__DEFINING) its definitions. */
#ifndef TENSOR_H
#error "core/cpu_cache.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

/* The default CPU allocator (th_cpu_allocator) keeps the blocks of 4 MiB and more that are freed, up to a
 * limit in bytes, and hands the most recently freed block of the same rounded size (2 MiB steps) to the next
 * request: a program that makes a large intermediate result per step gets its pages back warm. Measured on
 * a + b into a new 64 MiB result: most of its time went to the kernel zeroing fresh pages (docs/core.md).
 * The price is resident memory up to the limit after the tensors are gone; th_cpu_cache_empty() gives it
 * back. The default limit is 1 GiB or an eighth of physical memory, whichever is less; 0 (no caching) under
 * AddressSanitizer, which should see every use of a freed block. The cache is process-wide and thread-safe;
 * a thread that finds it busy goes to the system instead of waiting. */
typedef struct th_cpu_cache_stats {
    int64_t hits;        /* large allocations served from the cache */
    int64_t misses;      /* large allocations served by the system */
    int64_t evictions;   /* blocks given back to the system to keep within the limit or the slots */
    int64_t held_bytes;  /* bytes held now */
    int64_t held_blocks; /* blocks held now */
    int64_t limit;       /* the most bytes it holds */
} th_cpu_cache_stats;

TH_API th_cpu_cache_stats th_cpu_cache_get_stats(void);
/* Sets the most bytes the cache holds (0: none), giving back blocks over it at once. Returns 0, or
 * TH_ERR_INVALID for a negative limit. */
TH_API int th_cpu_cache_set_limit(int64_t nbytes);
/* Gives every held block back to the system. */
TH_API void th_cpu_cache_empty(void);

#else /* TH__DEFINING */

#if defined(__linux__)
#include <unistd.h>
#endif

enum { TH__CPU_CACHE_SLOTS = 32 };

/* Process-wide, because a block freed by one thread is as good to any other (design.md's table). The lock
 * is only held to scan the 32 slots; blocks are freed outside it. */
static atomic_flag th__cpu_cache_busy = ATOMIC_FLAG_INIT;
static struct {
    struct { void *ptr; size_t nbytes; uint64_t stamp; } slot[TH__CPU_CACHE_SLOTS];
    uint64_t clock;          /* stamps the slots: the most recent block of a size is taken first */
    size_t held_bytes;
    int held_blocks;
    size_t limit;
    bool limit_known;        /* false until the default limit has been worked out */
    _Atomic int64_t hits, misses, evictions;
} th__cpu_cache;

static bool th__cpu_cache_try_lock(void)
{
    return !atomic_flag_test_and_set_explicit(&th__cpu_cache_busy, memory_order_acquire);
}
static void th__cpu_cache_lock(void) { while (!th__cpu_cache_try_lock()) {} }
static void th__cpu_cache_unlock(void) { atomic_flag_clear_explicit(&th__cpu_cache_busy, memory_order_release); }

static size_t th__cpu_cache_default_limit(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return 0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return 0;
#endif
#endif
    size_t limit = (size_t)1 << 30;
#if defined(__linux__) && defined(_SC_PHYS_PAGES)
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0 && (uint64_t)pages * (uint64_t)page / 8 < limit)
        limit = (size_t)((uint64_t)pages * (uint64_t)page / 8);
#endif
    return limit;
}

/* Under the lock: the limit, worked out on first use. */
static size_t th__cpu_cache_limit_locked(void)
{
    if (!th__cpu_cache.limit_known) {
        th__cpu_cache.limit = th__cpu_cache_default_limit();
        th__cpu_cache.limit_known = true;
    }
    return th__cpu_cache.limit;
}

/* Under the lock: takes slot i out into *out (a list of blocks to free after unlocking). */
static void th__cpu_cache_drop_locked(int i, void **out, size_t *out_nbytes)
{
    *out = th__cpu_cache.slot[i].ptr;
    *out_nbytes = th__cpu_cache.slot[i].nbytes;
    th__cpu_cache.held_bytes -= th__cpu_cache.slot[i].nbytes;
    th__cpu_cache.held_blocks--;
    th__cpu_cache.slot[i].ptr = NULL;
    th__cpu_cache.slot[i].nbytes = 0;
}

/* Under the lock: the oldest held slot, or -1. */
static int th__cpu_cache_oldest_locked(void)
{
    int oldest = -1;
    for (int i = 0; i < TH__CPU_CACHE_SLOTS; i++)
        if (th__cpu_cache.slot[i].ptr && (oldest < 0 || th__cpu_cache.slot[i].stamp < th__cpu_cache.slot[oldest].stamp))
            oldest = i;
    return oldest;
}

/* Under the lock: drops the oldest blocks until at most keep bytes are held, into out (room for every slot). */
static int th__cpu_cache_shrink_locked(size_t keep, void **out, size_t *out_nbytes)
{
    int n = 0;
    while (th__cpu_cache.held_bytes > keep) {
        int i = th__cpu_cache_oldest_locked();
        th__cpu_cache_drop_locked(i, &out[n], &out_nbytes[n]);
        n++;
    }
    return n;
}

static void th__cpu_cache_release(void **blocks, int n, bool evicted)
{
    for (int i = 0; i < n; i++) free(blocks[i]);
    if (evicted && n) atomic_fetch_add(&th__cpu_cache.evictions, n);
}

/* A block of exactly nbytes (a multiple of 2 MiB) from the cache, or NULL. */
static void *th__cpu_cache_take(size_t nbytes)
{
    void *p = NULL;
    if (th__cpu_cache_try_lock()) {
        int best = -1;
        for (int i = 0; i < TH__CPU_CACHE_SLOTS; i++)
            if (th__cpu_cache.slot[i].ptr && th__cpu_cache.slot[i].nbytes == nbytes &&
                (best < 0 || th__cpu_cache.slot[i].stamp > th__cpu_cache.slot[best].stamp))
                best = i;
        size_t unused;
        if (best >= 0) th__cpu_cache_drop_locked(best, &p, &unused);
        th__cpu_cache_unlock();
    }
    atomic_fetch_add(p ? &th__cpu_cache.hits : &th__cpu_cache.misses, 1);
    return p;
}

/* Keeps a freed block of nbytes (a multiple of 2 MiB) if the limit allows, making room by dropping the oldest;
 * else (or when the cache is busy) frees it. */
static void th__cpu_cache_give(void *p, size_t nbytes)
{
    void *drop[TH__CPU_CACHE_SLOTS + 1];
    size_t drop_nbytes[TH__CPU_CACHE_SLOTS + 1];
    int ndrop = 0;
    bool kept = false;
    if (th__cpu_cache_try_lock()) {
        size_t limit = th__cpu_cache_limit_locked();
        if (nbytes <= limit) {
            ndrop = th__cpu_cache_shrink_locked(limit - nbytes, drop, drop_nbytes);
            if (th__cpu_cache.held_blocks == TH__CPU_CACHE_SLOTS) {
                th__cpu_cache_drop_locked(th__cpu_cache_oldest_locked(), &drop[ndrop], &drop_nbytes[ndrop]);
                ndrop++;
            }
            for (int i = 0; i < TH__CPU_CACHE_SLOTS; i++)
                if (!th__cpu_cache.slot[i].ptr) {
                    th__cpu_cache.slot[i].ptr = p;
                    th__cpu_cache.slot[i].nbytes = nbytes;
                    th__cpu_cache.slot[i].stamp = ++th__cpu_cache.clock;
                    break;
                }
            th__cpu_cache.held_bytes += nbytes;
            th__cpu_cache.held_blocks++;
            kept = true;
        }
        th__cpu_cache_unlock();
    }
    if (!kept) free(p);
    th__cpu_cache_release(drop, ndrop, true);
}

TH_API th_cpu_cache_stats th_cpu_cache_get_stats(void)
{
    th_cpu_cache_stats s;
    th__cpu_cache_lock();
    s.held_bytes = (int64_t)th__cpu_cache.held_bytes;
    s.held_blocks = th__cpu_cache.held_blocks;
    s.limit = (int64_t)th__cpu_cache_limit_locked();
    th__cpu_cache_unlock();
    s.hits = atomic_load(&th__cpu_cache.hits);
    s.misses = atomic_load(&th__cpu_cache.misses);
    s.evictions = atomic_load(&th__cpu_cache.evictions);
    return s;
}

TH_API int th_cpu_cache_set_limit(int64_t nbytes)
{
    if (nbytes < 0)
        return th__fail(TH_ERR_INVALID, "th_cpu_cache_set_limit", "limit %lld is negative", (long long)nbytes);
    void *drop[TH__CPU_CACHE_SLOTS];
    size_t drop_nbytes[TH__CPU_CACHE_SLOTS];
    th__cpu_cache_lock();
    th__cpu_cache.limit = (uint64_t)nbytes > SIZE_MAX ? SIZE_MAX : (size_t)nbytes;
    th__cpu_cache.limit_known = true;
    int n = th__cpu_cache_shrink_locked(th__cpu_cache.limit, drop, drop_nbytes);
    th__cpu_cache_unlock();
    th__cpu_cache_release(drop, n, true);
    return TH_OK;
}

TH_API void th_cpu_cache_empty(void)
{
    void *drop[TH__CPU_CACHE_SLOTS];
    size_t drop_nbytes[TH__CPU_CACHE_SLOTS];
    th__cpu_cache_lock();
    int n = th__cpu_cache_shrink_locked(0, drop, drop_nbytes);
    th__cpu_cache_unlock();
    th__cpu_cache_release(drop, n, false);
}

#endif /* TH__DEFINING */
