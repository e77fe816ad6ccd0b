/* cuda/pinned_cache.c: the pinned host memory cache (policy in pinned_cache.h).
 *
 * Every block the backend gave is in the address map (a chained hash keyed by pointer) whatever its state,
 * and in exactly one list besides when not handed out: its power-of-two bin, the size-ordered list of
 * large cached blocks, or the FIFO of blocks waiting for events. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "pinned_cache.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TH__PB_ALLOCATED = 1, TH__PB_PENDING = 2, TH__PB_CACHED = 3 };
enum { TH__PINNED_BINS = 64 };

typedef struct th__pinned_event {
    int device;
    void *event;
} th__pinned_event;

typedef struct th__pinned_block {
    char *ptr;
    size_t size;      /* rounded: what the backend gave */
    size_t requested;
    int state;
    th__pinned_event *events;
    int nevents, cap_events;
    struct th__pinned_block *hash_next;
    struct th__pinned_block *prev, *next; /* bin, large list or pending FIFO */
} th__pinned_block;

typedef struct th__pinned_list {
    th__pinned_block *head, *tail;
} th__pinned_list;

struct th__cuda_pinned {
    th_allocator vtable;
    const th_cuda_backend *backend;
    th__cuda_pinned_config config; /* resolved: max_cached_bytes and pow2_max set */
    pthread_mutex_t lock;
    th__pinned_block **buckets;
    size_t nbuckets, nblocks;
    unsigned hash_bits;
    th__pinned_list bins[TH__PINNED_BINS]; /* cached power-of-two blocks by log2 of their size */
    th__pinned_list large;                 /* cached blocks above the bound, by size */
    th__pinned_list pending;
    int ndevices;
    void ***idle_events; /* per device: events to reuse */
    size_t *nidle, *cap_idle;
    th__cuda_pinned_stats stats;
};

/* ---- sizes and configuration ---------------------------------------------------------------------- */

static bool is_pow2(size_t n) { return n && !(n & (n - 1)); }

static int log2_of(size_t pow2)
{
    int k = 0;
    while (((size_t)1 << k) < pow2) k++;
    return k;
}

size_t th__cuda_pinned_round_size(size_t nbytes, size_t pow2_max)
{
    if (!pow2_max) pow2_max = TH__CUDA_PINNED_POW2_MAX;
    if (nbytes <= TH__CUDA_PINNED_MIN_BLOCK) return TH__CUDA_PINNED_MIN_BLOCK;
    if (nbytes <= pow2_max) {
        size_t p = TH__CUDA_PINNED_MIN_BLOCK;
        while (p < nbytes) p <<= 1;
        return p;
    }
    /* Doubling a large buffer would pin up to twice what it needs (pytorch#95823); the granule bounds the
     * waste at 2 MiB a block. */
    size_t granule = pow2_max < TH__CUDA_PINNED_GRANULE ? pow2_max : TH__CUDA_PINNED_GRANULE;
    return (nbytes + granule - 1) / granule * granule;
}

int th__cuda_pinned_config_from_env(th__cuda_pinned_config *config)
{
    static const char fn[] = "th__cuda_pinned_config_from_env";
    if (!config) return th_set_error(TH_ERR_INVALID, fn, "NULL config");
    memset(config, 0, sizeof *config);
    const char *v = getenv("TH_CUDA_NO_CACHING");
    config->no_caching = v && *v && strcmp(v, "0") != 0;
    v = getenv("TH_CUDA_PINNED_CONF");
    if (!v) return TH_OK;
    static const char *const keys[] = {"max_cached_mb", "pow2_max_kb"};
    size_t values[2] = {0, 0};
    bool seen[2] = {false, false};
    int rc = th__cuda_conf_parse(fn, "TH_CUDA_PINNED_CONF", v, keys, 2, values, seen);
    if (rc) return rc;
    if (seen[0]) {
        config->max_cached_set = true;
        config->max_cached_bytes = values[0] > (SIZE_MAX >> 20) ? SIZE_MAX : values[0] << 20;
    }
    if (seen[1]) {
        if (!is_pow2(values[1]) || values[1] > (SIZE_MAX >> 11))
            return th_set_error(TH_ERR_INVALID, fn, "TH_CUDA_PINNED_CONF='%s': pow2_max_kb must be a power of two (got %zu)",
                                v, values[1]);
        config->pow2_max = values[1] << 10;
    }
    return TH_OK;
}

/* ---- lists and the address map -------------------------------------------------------------------- */

static void list_push(th__pinned_list *l, th__pinned_block *b)
{
    b->next = NULL;
    b->prev = l->tail;
    if (l->tail)
        l->tail->next = b;
    else
        l->head = b;
    l->tail = b;
}

static void list_insert_before(th__pinned_list *l, th__pinned_block *at, th__pinned_block *b)
{
    if (!at) {
        list_push(l, b);
        return;
    }
    b->next = at;
    b->prev = at->prev;
    if (at->prev)
        at->prev->next = b;
    else
        l->head = b;
    at->prev = b;
}

static void list_remove(th__pinned_list *l, th__pinned_block *b)
{
    if (b->prev)
        b->prev->next = b->next;
    else
        l->head = b->next;
    if (b->next)
        b->next->prev = b->prev;
    else
        l->tail = b->prev;
    b->prev = b->next = NULL;
}

static size_t hash_index(const th__cuda_pinned *p, const void *ptr)
{
    uint64_t h = (uint64_t)((uintptr_t)ptr >> 9) * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> (64 - p->hash_bits));
}

static void hash_insert(th__cuda_pinned *p, th__pinned_block *b)
{
    if (p->nblocks >= p->nbuckets) {
        size_t n = p->nbuckets * 2;
        th__pinned_block **nb = (th__pinned_block **)calloc(n, sizeof *nb);
        if (nb) {
            th__pinned_block **old = p->buckets;
            size_t oldn = p->nbuckets;
            p->buckets = nb;
            p->nbuckets = n;
            p->hash_bits++;
            for (size_t i = 0; i < oldn; i++)
                while (old[i]) {
                    th__pinned_block *x = old[i];
                    old[i] = x->hash_next;
                    size_t j = hash_index(p, x->ptr);
                    x->hash_next = nb[j];
                    nb[j] = x;
                }
            free(old);
        }
    }
    size_t i = hash_index(p, b->ptr);
    b->hash_next = p->buckets[i];
    p->buckets[i] = b;
    p->nblocks++;
}

static th__pinned_block *hash_find(th__cuda_pinned *p, const void *ptr)
{
    th__pinned_block *b = p->buckets[hash_index(p, ptr)];
    while (b && b->ptr != (const char *)ptr) b = b->hash_next;
    return b;
}

static void hash_remove(th__cuda_pinned *p, th__pinned_block *b)
{
    th__pinned_block **link = &p->buckets[hash_index(p, b->ptr)];
    while (*link != b) link = &(*link)->hash_next;
    *link = b->hash_next;
    p->nblocks--;
}

/* ---- statistics ----------------------------------------------------------------------------------- */

static void stat_add(th__cuda_stat *s, int64_t delta)
{
    s->current += delta;
    if (delta > 0)
        s->allocated += delta;
    else
        s->freed -= delta;
    if (s->current > s->peak) s->peak = s->current;
}

/* ---- the cache ------------------------------------------------------------------------------------ */

static int backend_error(th__cuda_pinned *p, const char *fn, const char *call, int code)
{
    return th_set_error(TH_ERR_DEVICE, fn, "%s failed: %s (%d)", call, p->backend->error_name(p->backend->ctx, code),
                        code);
}

static bool is_bin_size(const th__cuda_pinned *p, size_t size)
{
    return size <= p->config.pow2_max && is_pow2(size);
}

/* Puts a block with no event left into its bin (or the large list, in size order). */
static void cache_insert(th__cuda_pinned *p, th__pinned_block *b)
{
    b->state = TH__PB_CACHED;
    b->requested = 0;
    stat_add(&p->stats.cached_bytes, (int64_t)b->size);
    if (is_bin_size(p, b->size)) {
        list_push(&p->bins[log2_of(b->size)], b);
    } else {
        th__pinned_block *at = p->large.head;
        while (at && at->size < b->size) at = at->next;
        list_insert_before(&p->large, at, b);
    }
}

/* Frees the block's record and gives its memory back; on a backend error keeps it cached (cap or no cap:
 * memory whose state is unknown is better held than handed back twice). */
static int give_back(th__cuda_pinned *p, th__pinned_block *b, const char *fn)
{
    int rc = p->backend->host_free(p->backend->ctx, b->ptr);
    if (rc) {
        cache_insert(p, b);
        return backend_error(p, fn, "host_free", rc);
    }
    p->stats.host_frees++;
    stat_add(&p->stats.reserved_bytes, -(int64_t)b->size);
    hash_remove(p, b);
    free(b->events);
    free(b);
    return TH_OK;
}

/* A block with no event left: into the cache, or back to the backend when caching is off or the cap would
 * be passed. */
static int cache_or_give_back(th__cuda_pinned *p, th__pinned_block *b, const char *fn)
{
    if (p->config.no_caching) return give_back(p, b, fn);
    if (p->config.max_cached_bytes < b->size ||
        (size_t)p->stats.cached_bytes.current > p->config.max_cached_bytes - b->size) {
        p->stats.cap_frees++;
        return give_back(p, b, fn);
    }
    cache_insert(p, b);
    return TH_OK;
}

static void event_idle(th__cuda_pinned *p, int device, void *event)
{
    if (p->nidle[device] == p->cap_idle[device]) {
        size_t cap = p->cap_idle[device] ? p->cap_idle[device] * 2 : 8;
        void **grown = (void **)realloc(p->idle_events[device], cap * sizeof *grown);
        if (!grown) {
            p->backend->event_destroy(p->backend->ctx, event);
            return;
        }
        p->idle_events[device] = grown;
        p->cap_idle[device] = cap;
    }
    p->idle_events[device][p->nidle[device]++] = event;
}

/* Drops the completed events of every pending block; blocks left with none go to the cache. */
static int process_pending(th__cuda_pinned *p, const char *fn)
{
    int status = TH_OK;
    th__pinned_block *b = p->pending.head;
    while (b) {
        th__pinned_block *next = b->next;
        int kept = 0;
        for (int i = 0; i < b->nevents; i++) {
            bool done = false;
            int rc = p->backend->event_query(p->backend->ctx, b->events[i].event, &done);
            if (rc && !status) status = backend_error(p, fn, "event_query", rc);
            if (done && !rc)
                event_idle(p, b->events[i].device, b->events[i].event);
            else
                b->events[kept++] = b->events[i];
        }
        b->nevents = kept;
        if (!kept) {
            list_remove(&p->pending, b);
            stat_add(&p->stats.pending_bytes, -(int64_t)b->size);
            int rc = cache_or_give_back(p, b, fn);
            if (rc && !status) status = rc;
        }
        b = next;
    }
    return status;
}

static void release_cached(th__cuda_pinned *p, const char *fn, int *status, size_t *released)
{
    for (int k = 0; k <= TH__PINNED_BINS; k++) {
        th__pinned_list *l = k < TH__PINNED_BINS ? &p->bins[k] : &p->large;
        th__pinned_block *b = l->head;
        while (b) {
            th__pinned_block *next = b->next;
            list_remove(l, b);
            stat_add(&p->stats.cached_bytes, -(int64_t)b->size);
            size_t size = b->size;
            int rc = give_back(p, b, fn);
            if (rc) {
                if (!*status) *status = rc;
                return; /* give_back put it back on a list: stop rather than loop over it */
            }
            if (released) *released += size;
            b = next;
        }
    }
}

/* A cached block for a rounded size, taken out of its list, or NULL. */
static th__pinned_block *take_cached(th__cuda_pinned *p, size_t size)
{
    th__pinned_block *b;
    if (is_bin_size(p, size)) {
        b = p->bins[log2_of(size)].head;
        if (b) list_remove(&p->bins[log2_of(size)], b);
        return b;
    }
    for (b = p->large.head; b && b->size < size; b = b->next) {
    }
    /* A much larger block would pin memory nobody uses for as long as the small request lives. */
    if (!b || b->size - size > size / 4) return NULL;
    list_remove(&p->large, b);
    return b;
}

static void lock(th__cuda_pinned *p) { pthread_mutex_lock(&p->lock); }
static void unlock(th__cuda_pinned *p) { pthread_mutex_unlock(&p->lock); }

th__cuda_pinned *th__cuda_pinned_new(const th_cuda_backend *backend, const th__cuda_pinned_config *config)
{
    static const char fn[] = "th__cuda_pinned_new";
    if (!backend || !backend->host_malloc || !backend->host_free || !backend->event_create ||
        !backend->event_destroy || !backend->event_record || !backend->event_query ||
        !backend->event_synchronize || !backend->error_name || !backend->device_count) {
        th_set_error(TH_ERR_INVALID, fn, "%s", backend ? "the backend lacks a function the cache calls" : "NULL backend");
        return NULL;
    }
    th__cuda_pinned_config cfg;
    if (config)
        cfg = *config;
    else if (th__cuda_pinned_config_from_env(&cfg))
        return NULL;
    if (!cfg.pow2_max) cfg.pow2_max = TH__CUDA_PINNED_POW2_MAX;
    if (!is_pow2(cfg.pow2_max) || cfg.pow2_max < TH__CUDA_PINNED_MIN_BLOCK) {
        th_set_error(TH_ERR_INVALID, fn, "pow2_max %zu must be a power of two of at least 512", cfg.pow2_max);
        return NULL;
    }
    if (!cfg.max_cached_set) cfg.max_cached_bytes = TH__CUDA_PINNED_MAX_CACHED;
    int ndevices = 0;
    int rc = backend->device_count(backend->ctx, &ndevices);
    if (rc) {
        th_set_error(TH_ERR_DEVICE, fn, "device_count failed: %s (%d)", backend->error_name(backend->ctx, rc), rc);
        return NULL;
    }
    if (ndevices < 0) ndevices = 0;
    th__cuda_pinned *p = (th__cuda_pinned *)calloc(1, sizeof *p);
    if (!p) {
        th_set_error(TH_ERR_NOMEM, fn, "out of host memory");
        return NULL;
    }
    size_t nd = ndevices ? (size_t)ndevices : 1;
    p->hash_bits = 8;
    p->nbuckets = (size_t)1 << p->hash_bits;
    p->buckets = (th__pinned_block **)calloc(p->nbuckets, sizeof *p->buckets);
    p->idle_events = (void ***)calloc(nd, sizeof *p->idle_events);
    p->nidle = (size_t *)calloc(nd, sizeof *p->nidle);
    p->cap_idle = (size_t *)calloc(nd, sizeof *p->cap_idle);
    if (!p->buckets || !p->idle_events || !p->nidle || !p->cap_idle || pthread_mutex_init(&p->lock, NULL)) {
        free(p->buckets);
        free(p->idle_events);
        free(p->nidle);
        free(p->cap_idle);
        free(p);
        th_set_error(TH_ERR_NOMEM, fn, "out of host memory");
        return NULL;
    }
    p->backend = backend;
    p->config = cfg;
    p->ndevices = ndevices;
    p->vtable.name = "cuda-pinned";
    p->vtable.alloc = th__cuda_pinned_alloc;
    p->vtable.realloc = NULL;
    p->vtable.free = th__cuda_pinned_free;
    p->vtable.device.type = TH_DEVICE_CUDA_HOST;
    p->vtable.device.index = 0;
    p->stats.max_cached_bytes = cfg.max_cached_bytes;
    p->stats.pow2_max = cfg.pow2_max;
    p->stats.caching = !cfg.no_caching;
    return p;
}

const th_allocator *th__cuda_pinned_allocator(th__cuda_pinned *pinned) { return pinned ? &pinned->vtable : NULL; }

static int host_alloc(th__cuda_pinned *p, size_t size, void **out)
{
    int rc = p->backend->host_malloc(p->backend->ctx, size, out);
    if (rc)
        p->stats.host_malloc_fails++;
    else
        p->stats.host_mallocs++;
    return rc;
}

static int malloc_locked(th__cuda_pinned *p, const char *fn, size_t nbytes, void **ptr)
{
    int status = p->pending.head ? process_pending(p, fn) : TH_OK;
    if (status) return status;
    size_t size = p->config.no_caching ? (nbytes ? nbytes : 1) : th__cuda_pinned_round_size(nbytes, p->config.pow2_max);
    th__pinned_block *b = p->config.no_caching ? NULL : take_cached(p, size);
    if (b) {
        p->stats.cache_hits++;
        stat_add(&p->stats.cached_bytes, -(int64_t)b->size);
    } else {
        if (!(b = (th__pinned_block *)calloc(1, sizeof *b)))
            return th_set_error(TH_ERR_NOMEM, fn, "out of host memory for the cache's bookkeeping");
        void *mem = NULL;
        int rc = host_alloc(p, size, &mem);
        if (rc == p->backend->oom_code) {
            size_t released = 0;
            p->stats.oom_retries++;
            release_cached(p, fn, &status, &released);
            if (status) {
                free(b);
                return status;
            }
            rc = host_alloc(p, size, &mem);
            if (rc == p->backend->oom_code) {
                free(b);
                p->stats.ooms++;
                char want[32], res[32], alloc[32], pend[32], rel[32];
                return th_set_error(
                    TH_ERR_NOMEM, fn,
                    "out of pinned host memory: tried to allocate %s (%zu bytes requested); the cache holds %s "
                    "(%s handed out, %s waiting for copies to finish) after giving back %s of cached blocks",
                    th__cuda_format_bytes(want, sizeof want, size), nbytes,
                    th__cuda_format_bytes(res, sizeof res, (size_t)p->stats.reserved_bytes.current),
                    th__cuda_format_bytes(alloc, sizeof alloc, (size_t)p->stats.allocated_bytes.current),
                    th__cuda_format_bytes(pend, sizeof pend, (size_t)p->stats.pending_bytes.current),
                    th__cuda_format_bytes(rel, sizeof rel, released));
            }
        }
        if (rc) {
            free(b);
            return backend_error(p, fn, "host_malloc", rc);
        }
        b->ptr = (char *)mem;
        b->size = size;
        hash_insert(p, b);
        stat_add(&p->stats.reserved_bytes, (int64_t)size);
    }
    b->state = TH__PB_ALLOCATED;
    b->requested = nbytes;
    stat_add(&p->stats.allocations, 1);
    stat_add(&p->stats.allocated_bytes, (int64_t)b->size);
    stat_add(&p->stats.requested_bytes, (int64_t)nbytes);
    *ptr = b->ptr;
    return TH_OK;
}

int th__cuda_pinned_malloc(th__cuda_pinned *pinned, size_t nbytes, void **ptr)
{
    static const char fn[] = "th__cuda_pinned_malloc";
    if (ptr) *ptr = NULL;
    if (!pinned || !ptr) return th_set_error(TH_ERR_INVALID, fn, "NULL %s", pinned ? "ptr" : "cache");
    if (nbytes > TH__CUDA_MAX_REQUEST)
        return th_set_error(TH_ERR_OVERFLOW, fn, "a request of %zu bytes is too large", nbytes);
    lock(pinned);
    int rc = malloc_locked(pinned, fn, nbytes, ptr);
    unlock(pinned);
    return rc;
}

static int release_locked(th__cuda_pinned *p, const char *fn, void *ptr, bool check_size, size_t nbytes)
{
    th__pinned_block *b = hash_find(p, ptr);
    if (!b || b->state != TH__PB_ALLOCATED)
        return th_set_error(TH_ERR_INVALID, fn, "%p is not a pinned block handed out by this cache", ptr);
    int status = TH_OK;
    if (check_size && nbytes != b->requested)
        status = th_set_error(TH_ERR_INVALID, fn, "block %p was allocated with %zu bytes, freed with %zu", ptr,
                              b->requested, nbytes);
    stat_add(&p->stats.allocations, -1);
    stat_add(&p->stats.allocated_bytes, -(int64_t)b->size);
    stat_add(&p->stats.requested_bytes, -(int64_t)b->requested);
    if (b->nevents) {
        b->state = TH__PB_PENDING;
        list_push(&p->pending, b);
        stat_add(&p->stats.pending_bytes, (int64_t)b->size);
        /* Copies are often done by now: look, so the block is cached (or given back) without waiting for the
         * next allocation. */
        int rc = process_pending(p, fn);
        return status ? status : rc;
    }
    int rc = cache_or_give_back(p, b, fn);
    return status ? status : rc;
}

int th__cuda_pinned_release(th__cuda_pinned *pinned, void *ptr)
{
    static const char fn[] = "th__cuda_pinned_release";
    if (!pinned) return th_set_error(TH_ERR_INVALID, fn, "NULL cache");
    if (!ptr) return TH_OK;
    lock(pinned);
    int rc = release_locked(pinned, fn, ptr, false, 0);
    unlock(pinned);
    return rc;
}

void *th__cuda_pinned_alloc(void *ctx, size_t nbytes)
{
    void *ptr = NULL;
    if (ctx) th__cuda_pinned_malloc((th__cuda_pinned *)ctx, nbytes, &ptr);
    return ptr;
}

void th__cuda_pinned_free(void *ctx, void *ptr, size_t nbytes)
{
    th__cuda_pinned *p = (th__cuda_pinned *)ctx;
    if (!p || !ptr) return;
    lock(p);
    release_locked(p, "th__cuda_pinned_free", ptr, true, nbytes);
    unlock(p);
}

static bool grow_events(th__pinned_block *b)
{
    int cap = b->cap_events ? b->cap_events * 2 : 2;
    th__pinned_event *grown = (th__pinned_event *)realloc(b->events, (size_t)cap * sizeof *grown);
    if (!grown) return false;
    b->events = grown;
    b->cap_events = cap;
    return true;
}

int th__cuda_pinned_record(th__cuda_pinned *pinned, void *ptr, int device, void *stream)
{
    static const char fn[] = "th__cuda_pinned_record";
    if (!pinned) return th_set_error(TH_ERR_INVALID, fn, "NULL cache");
    if (device < 0 || device >= pinned->ndevices)
        return th_set_error(TH_ERR_RANGE, fn, "device %d is out of range: the backend has %d device%s", device,
                            pinned->ndevices, pinned->ndevices == 1 ? "" : "s");
    const th_cuda_backend *be = pinned->backend;
    lock(pinned);
    th__pinned_block *b = hash_find(pinned, ptr);
    int status = TH_OK;
    if (!b || b->state != TH__PB_ALLOCATED) {
        status = th_set_error(TH_ERR_INVALID, fn, "%p is not a pinned block handed out by this cache", ptr);
    } else if (b->nevents == b->cap_events && !grow_events(b)) {
        status = th_set_error(TH_ERR_NOMEM, fn, "out of host memory");
    } else {
        void *event = pinned->nidle[device] ? pinned->idle_events[device][--pinned->nidle[device]] : NULL;
        int rc = event ? 0 : be->event_create(be->ctx, device, &event);
        if (rc) {
            status = backend_error(pinned, fn, "event_create", rc);
        } else if ((rc = be->event_record(be->ctx, event, stream))) {
            be->event_destroy(be->ctx, event);
            status = backend_error(pinned, fn, "event_record", rc);
        } else {
            b->events[b->nevents].device = device;
            b->events[b->nevents].event = event;
            b->nevents++;
            pinned->stats.events_recorded++;
        }
    }
    unlock(pinned);
    return status;
}

int th__cuda_pinned_empty_cache(th__cuda_pinned *pinned)
{
    static const char fn[] = "th__cuda_pinned_empty_cache";
    if (!pinned) return th_set_error(TH_ERR_INVALID, fn, "NULL cache");
    lock(pinned);
    int status = process_pending(pinned, fn);
    release_cached(pinned, fn, &status, NULL);
    unlock(pinned);
    return status;
}

int th__cuda_pinned_get_stats(th__cuda_pinned *pinned, th__cuda_pinned_stats *stats)
{
    if (!pinned || !stats)
        return th_set_error(TH_ERR_INVALID, "th__cuda_pinned_get_stats", "NULL %s", pinned ? "stats" : "cache");
    lock(pinned);
    *stats = pinned->stats;
    unlock(pinned);
    return TH_OK;
}

int th__cuda_pinned_check(th__cuda_pinned *pinned)
{
    static const char fn[] = "th__cuda_pinned_check";
    if (!pinned) return th_set_error(TH_ERR_INVALID, fn, "NULL cache");
    lock(pinned);
    const char *problem = NULL;
    int64_t allocs = 0, alloc_bytes = 0, requested = 0, reserved = 0, cached = 0, pending = 0;
    size_t listed = 0;
    for (size_t i = 0; i < pinned->nbuckets; i++)
        for (th__pinned_block *b = pinned->buckets[i]; b; b = b->hash_next) {
            reserved += (int64_t)b->size;
            if (b->state == TH__PB_ALLOCATED) {
                allocs++;
                alloc_bytes += (int64_t)b->size;
                requested += (int64_t)b->requested;
            } else if (b->state == TH__PB_PENDING) {
                pending += (int64_t)b->size;
                if (!b->nevents) problem = "a pending block has no event";
            } else if (b->state == TH__PB_CACHED) {
                cached += (int64_t)b->size;
                if (b->nevents) problem = "a cached block has events";
            } else {
                problem = "a block has no state";
            }
        }
    for (int k = 0; k <= TH__PINNED_BINS + 1 && !problem; k++) {
        th__pinned_list *l = k < TH__PINNED_BINS ? &pinned->bins[k] : k == TH__PINNED_BINS ? &pinned->large : &pinned->pending;
        int want = k <= TH__PINNED_BINS ? TH__PB_CACHED : TH__PB_PENDING;
        const th__pinned_block *prev = NULL;
        for (th__pinned_block *b = l->head; b && !problem; b = b->next) {
            listed++;
            if (b->state != want) problem = "a list holds a block of another state";
            else if (b->prev != prev) problem = "a list's links are broken";
            else if (hash_find(pinned, b->ptr) != b) problem = "a listed block is not in the address map";
            else if (k < TH__PINNED_BINS && b->size != (size_t)1 << k) problem = "a bin holds a block of another size";
            else if (k == TH__PINNED_BINS && prev && prev->size > b->size) problem = "the large list is out of order";
            prev = b;
        }
        if (!problem && l->tail != prev) problem = "a list's tail is wrong";
    }
    if (!problem && listed != pinned->nblocks - (size_t)allocs) problem = "blocks not handed out are missing from the lists";
    struct {
        const char *name;
        int64_t stat, count;
    } pairs[] = {{"allocations", pinned->stats.allocations.current, allocs},
                 {"allocated_bytes", pinned->stats.allocated_bytes.current, alloc_bytes},
                 {"requested_bytes", pinned->stats.requested_bytes.current, requested},
                 {"reserved_bytes", pinned->stats.reserved_bytes.current, reserved},
                 {"cached_bytes", pinned->stats.cached_bytes.current, cached},
                 {"pending_bytes", pinned->stats.pending_bytes.current, pending}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0] && !problem; i++)
        if (pairs[i].stat != pairs[i].count) {
            unlock(pinned);
            return th_set_error(TH_ERR_INVALID, fn, "statistic %s is %lld, a recount gives %lld", pairs[i].name,
                                (long long)pairs[i].stat, (long long)pairs[i].count);
        }
    unlock(pinned);
    if (problem) return th_set_error(TH_ERR_INVALID, fn, "%s", problem);
    return TH_OK;
}

int th__cuda_pinned_delete(th__cuda_pinned *pinned)
{
    static const char fn[] = "th__cuda_pinned_delete";
    if (!pinned) return TH_OK;
    th__cuda_pinned *p = pinned;
    const th_cuda_backend *be = p->backend;
    int status = TH_OK;
    size_t leaked = 0;
    for (size_t i = 0; i < p->nbuckets; i++) {
        th__pinned_block *b = p->buckets[i];
        while (b) {
            th__pinned_block *next = b->hash_next;
            if (b->state == TH__PB_ALLOCATED) leaked++;
            for (int e = 0; e < b->nevents; e++) {
                /* The copy may still be reading the buffer: wait before handing it back. */
                int rc = be->event_synchronize(be->ctx, b->events[e].event);
                if (rc && !status) status = backend_error(p, fn, "event_synchronize", rc);
                be->event_destroy(be->ctx, b->events[e].event);
            }
            int rc = be->host_free(be->ctx, b->ptr);
            if (rc && !status) status = backend_error(p, fn, "host_free", rc);
            free(b->events);
            free(b);
            b = next;
        }
    }
    for (int d = 0; d < (p->ndevices ? p->ndevices : 1); d++) {
        for (size_t i = 0; i < p->nidle[d]; i++) be->event_destroy(be->ctx, p->idle_events[d][i]);
        free(p->idle_events[d]);
    }
    free(p->idle_events);
    free(p->nidle);
    free(p->cap_idle);
    free(p->buckets);
    pthread_mutex_destroy(&p->lock);
    free(p);
    if (leaked && !status)
        status = th_set_error(TH_ERR_INVALID, fn, "%zu pinned block%s still allocated were given back", leaked,
                              leaked == 1 ? "" : "s");
    return status;
}
