/* cuda/caching_allocator.c: the caching device allocator (policy in caching_allocator.h).
 *
 * Data structures, per device:
 *   - segments: one record per backend allocation, in a list; each is tiled by blocks linked by address
 *     (prev/next), so a freed block finds its neighbours in O(1) to merge with them.
 *   - pools: the free blocks in two AVL trees (small, large) ordered by (stream, size, address), so best fit
 *     within a stream is one lower-bound descent; the trees are intrusive (the links live in the block).
 *   - the address map: a chained hash of the blocks handed out, keyed by pointer, so a free is O(1).
 *   - pending: per stream, a FIFO of (event, block) recorded at frees of blocks used on other streams;
 *     events of one stream complete in order, so polling stops at the first one not done.
 * Everything of a device is guarded by that device's mutex; devices never share state. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "caching_allocator.h"

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct th__cuda_block th__cuda_block;
typedef struct th__cuda_segment th__cuda_segment;

struct th__cuda_segment {
    char *base;
    size_t size;
    void *stream;
    bool small;
    th__cuda_block *first;  /* the block at base */
    size_t active_bytes;    /* bytes of its blocks outside the pools: 0 means the whole segment is free */
    th__cuda_segment *prev, *next;
};

struct th__cuda_block {
    char *ptr;
    size_t size;
    size_t requested;
    void *stream;
    th__cuda_segment *seg;
    th__cuda_block *prev, *next;   /* neighbours by address within the segment */
    th__cuda_block *left, *right;  /* pool tree */
    int height;
    th__cuda_block *hash_next;     /* address map chain */
    void **uses;                   /* other streams it was used on (record_stream) */
    int n_uses, cap_uses;
    int event_count;               /* events recorded at its release, not yet complete */
    unsigned char state;           /* th__cuda_block_state */
};

typedef struct th__cuda_pending {
    void *event;
    th__cuda_block *block;
    struct th__cuda_pending *next;
} th__cuda_pending;

typedef struct th__cuda_stream_queue {
    void *stream;
    th__cuda_pending *head, *tail;
    struct th__cuda_stream_queue *next;
} th__cuda_stream_queue;

struct th__cuda_caching_dev {
    th_allocator vtable; /* its device field is this device */
    th__cuda_caching *owner;
    const th_cuda_backend *backend;
    int device;
    pthread_mutex_t lock;
    th__cuda_block *pools[2]; /* tree roots: [0] small, [1] large */
    th__cuda_block **buckets;
    size_t nbuckets, nhashed;
    unsigned hash_bits;
    th__cuda_segment *segments;
    th__cuda_stream_queue *queues;
    void **events; /* idle events, reused for later frees */
    size_t nevents, cap_events;
    th__cuda_block *spare_blocks;       /* recycled block records (linked by next) */
    th__cuda_pending *spare_pending;    /* recycled queue entries */
    int64_t npending;
    th__cuda_memory_stats stats;
};

struct th__cuda_caching {
    const th_cuda_backend *backend;
    th__cuda_caching_config config;
    int ndevices;
    th__cuda_caching_dev *devs;
};

/* ---- sizes ---------------------------------------------------------------------------------------- */

size_t th__cuda_caching_round_size(size_t nbytes)
{
    if (nbytes < TH__CUDA_MIN_BLOCK) return TH__CUDA_MIN_BLOCK;
    return (nbytes + TH__CUDA_MIN_BLOCK - 1) / TH__CUDA_MIN_BLOCK * TH__CUDA_MIN_BLOCK;
}

size_t th__cuda_caching_segment_size(size_t rounded)
{
    if (rounded <= TH__CUDA_SMALL_SIZE) return TH__CUDA_SMALL_SEGMENT;
    if (rounded < TH__CUDA_MIN_LARGE_ALLOC) return TH__CUDA_LARGE_SEGMENT;
    return (rounded + TH__CUDA_ROUND_LARGE - 1) / TH__CUDA_ROUND_LARGE * TH__CUDA_ROUND_LARGE;
}

const char *th__cuda_format_bytes(char *buf, size_t bufsize, size_t nbytes)
{
    if (nbytes < 1024)
        snprintf(buf, bufsize, "%zu bytes", nbytes);
    else if (nbytes < ((size_t)1 << 20))
        snprintf(buf, bufsize, "%.2f KiB", (double)nbytes / 1024.0);
    else if (nbytes < ((size_t)1 << 30))
        snprintf(buf, bufsize, "%.2f MiB", (double)nbytes / (1024.0 * 1024.0));
    else
        snprintf(buf, bufsize, "%.2f GiB", (double)nbytes / (1024.0 * 1024.0 * 1024.0));
    return buf;
}

/* ---- configuration -------------------------------------------------------------------------------- */

int th__cuda_conf_parse(const char *fn, const char *var, const char *text, const char *const *keys, int nkeys,
                        size_t *values, bool *seen)
{
    const char *p = text;
    while (*p) {
        while (*p == ' ' || *p == ',') p++;
        if (!*p) break;
        const char *key = p;
        while (*p && *p != ':' && *p != ',') p++;
        size_t keylen = (size_t)(p - key);
        while (keylen > 0 && key[keylen - 1] == ' ') keylen--;
        if (*p != ':')
            return th_set_error(TH_ERR_INVALID, fn, "%s='%s': option '%.*s' has no ':value'", var, text,
                                (int)keylen, key);
        p++;
        while (*p == ' ') p++;
        int which = -1;
        for (int i = 0; i < nkeys; i++)
            if (strlen(keys[i]) == keylen && strncmp(keys[i], key, keylen) == 0) which = i;
        if (which < 0) {
            char known[256] = "";
            for (int i = 0; i < nkeys; i++) {
                size_t used = strlen(known);
                snprintf(known + used, sizeof known - used, "%s%s", i ? ", " : "", keys[i]);
            }
            return th_set_error(TH_ERR_INVALID, fn, "%s='%s': unknown option '%.*s' (known: %s)", var, text,
                                (int)keylen, key, known);
        }
        size_t v = 0;
        const char *digits = p;
        while (*p >= '0' && *p <= '9') {
            size_t d = (size_t)(*p - '0');
            if (v > (SIZE_MAX - d) / 10)
                return th_set_error(TH_ERR_INVALID, fn, "%s='%s': the value of '%s' is too large", var, text,
                                    keys[which]);
            v = v * 10 + d;
            p++;
        }
        while (*p == ' ') p++;
        if (p == digits || (*p && *p != ','))
            return th_set_error(TH_ERR_INVALID, fn, "%s='%s': the value of '%s' is not a whole number", var,
                                text, keys[which]);
        values[which] = v;
        seen[which] = true;
    }
    return TH_OK;
}

int th__cuda_caching_config_from_env(th__cuda_caching_config *config)
{
    static const char fn[] = "th__cuda_caching_config_from_env";
    if (!config) return th_set_error(TH_ERR_INVALID, fn, "NULL config");
    memset(config, 0, sizeof *config);
    const char *v = getenv("TH_CUDA_NO_CACHING");
    config->no_caching = v && *v && strcmp(v, "0") != 0;
    v = getenv("TH_CUDA_ALLOC_CONF");
    if (!v) return TH_OK;
    static const char *const keys[] = {"max_split_size_mb"};
    size_t values[1] = {0};
    bool seen[1] = {false};
    int rc = th__cuda_conf_parse(fn, "TH_CUDA_ALLOC_CONF", v, keys, 1, values, seen);
    if (rc) return rc;
    if (seen[0]) {
        /* Below 20 MiB the oversize rule would refuse blocks that the 20 MiB segments of 1-10 MiB requests
         * make, and every such request would cost a new segment. */
        if (values[0] <= TH__CUDA_LARGE_SEGMENT >> 20 || values[0] > (SIZE_MAX >> 20))
            return th_set_error(TH_ERR_INVALID, fn, "TH_CUDA_ALLOC_CONF='%s': max_split_size_mb must be more than %zu (got %zu)",
                                v, TH__CUDA_LARGE_SEGMENT >> 20, values[0]);
        config->max_split_size = values[0] << 20;
    }
    return TH_OK;
}

/* ---- current stream ------------------------------------------------------------------------------- */

static _Thread_local void *th__cuda_current_streams[TH__CUDA_MAX_DEVICES];

int th__cuda_set_current_stream(int device, void *stream)
{
    if (device < 0 || device >= TH__CUDA_MAX_DEVICES)
        return th_set_error(TH_ERR_RANGE, "th__cuda_set_current_stream", "device %d is out of range [0, %d)", device,
                            (int)TH__CUDA_MAX_DEVICES);
    th__cuda_current_streams[device] = stream;
    return TH_OK;
}

void *th__cuda_current_stream(int device)
{
    if (device < 0 || device >= TH__CUDA_MAX_DEVICES) return NULL;
    return th__cuda_current_streams[device];
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

/* Both the aggregate and the block's own pool. */
static void stat_pool(th__cuda_stat *arr, bool small, int64_t delta)
{
    stat_add(&arr[TH__CUDA_POOL_ALL], delta);
    stat_add(&arr[small ? TH__CUDA_POOL_SMALL : TH__CUDA_POOL_LARGE], delta);
}

/* ---- pool trees ----------------------------------------------------------------------------------- */

static bool block_less(const th__cuda_block *a, const th__cuda_block *b)
{
    if (a->stream != b->stream) return (uintptr_t)a->stream < (uintptr_t)b->stream;
    if (a->size != b->size) return a->size < b->size;
    return (uintptr_t)a->ptr < (uintptr_t)b->ptr;
}

static int avl_height(const th__cuda_block *b) { return b ? b->height : 0; }

static void avl_fix(th__cuda_block *b)
{
    int l = avl_height(b->left), r = avl_height(b->right);
    b->height = (l > r ? l : r) + 1;
}

static th__cuda_block *avl_rotate_right(th__cuda_block *y)
{
    th__cuda_block *x = y->left;
    y->left = x->right;
    x->right = y;
    avl_fix(y);
    avl_fix(x);
    return x;
}

static th__cuda_block *avl_rotate_left(th__cuda_block *x)
{
    th__cuda_block *y = x->right;
    x->right = y->left;
    y->left = x;
    avl_fix(x);
    avl_fix(y);
    return y;
}

static th__cuda_block *avl_balance(th__cuda_block *b)
{
    avl_fix(b);
    int bf = avl_height(b->left) - avl_height(b->right);
    if (bf > 1) {
        if (avl_height(b->left->left) < avl_height(b->left->right)) b->left = avl_rotate_left(b->left);
        return avl_rotate_right(b);
    }
    if (bf < -1) {
        if (avl_height(b->right->right) < avl_height(b->right->left)) b->right = avl_rotate_right(b->right);
        return avl_rotate_left(b);
    }
    return b;
}

static th__cuda_block *avl_insert(th__cuda_block *root, th__cuda_block *n)
{
    if (!root) {
        n->left = n->right = NULL;
        n->height = 1;
        return n;
    }
    if (block_less(n, root))
        root->left = avl_insert(root->left, n);
    else
        root->right = avl_insert(root->right, n);
    return avl_balance(root);
}

static th__cuda_block *avl_pop_min(th__cuda_block *root, th__cuda_block **min)
{
    if (!root->left) {
        *min = root;
        return root->right;
    }
    root->left = avl_pop_min(root->left, min);
    return avl_balance(root);
}

static th__cuda_block *avl_remove(th__cuda_block *root, th__cuda_block *n)
{
    if (!root) return NULL;
    if (root == n) {
        if (!root->left) return root->right;
        if (!root->right) return root->left;
        th__cuda_block *m;
        th__cuda_block *rest = avl_pop_min(root->right, &m);
        m->left = root->left;
        m->right = rest;
        return avl_balance(m);
    }
    if (block_less(n, root))
        root->left = avl_remove(root->left, n);
    else
        root->right = avl_remove(root->right, n);
    return avl_balance(root);
}

/* The smallest block of stream with at least size bytes, or NULL. */
static th__cuda_block *avl_lower_bound(th__cuda_block *node, void *stream, size_t size)
{
    th__cuda_block *best = NULL;
    while (node) {
        bool at_least = (uintptr_t)node->stream > (uintptr_t)stream ||
                        (node->stream == stream && node->size >= size);
        if (at_least) {
            best = node;
            node = node->left;
        } else {
            node = node->right;
        }
    }
    return best && best->stream == stream ? best : NULL;
}

static size_t avl_max_size(const th__cuda_block *node)
{
    if (!node) return 0;
    size_t m = node->size, l = avl_max_size(node->left), r = avl_max_size(node->right);
    if (l > m) m = l;
    if (r > m) m = r;
    return m;
}

/* ---- blocks and the address map ------------------------------------------------------------------- */

static th__cuda_block *block_new(th__cuda_caching_dev *d)
{
    th__cuda_block *b = d->spare_blocks;
    if (b)
        d->spare_blocks = b->next;
    else if (!(b = (th__cuda_block *)malloc(sizeof *b)))
        return NULL;
    memset(b, 0, sizeof *b);
    return b;
}

static void block_recycle(th__cuda_caching_dev *d, th__cuda_block *b)
{
    free(b->uses);
    b->uses = NULL;
    b->next = d->spare_blocks;
    d->spare_blocks = b;
}

static size_t hash_index(const th__cuda_caching_dev *d, const void *ptr)
{
    uint64_t h = (uint64_t)((uintptr_t)ptr >> 9) * UINT64_C(0x9E3779B97F4A7C15);
    return (size_t)(h >> (64 - d->hash_bits));
}

static void hash_grow(th__cuda_caching_dev *d)
{
    size_t n = d->nbuckets * 2;
    th__cuda_block **nb = (th__cuda_block **)calloc(n, sizeof *nb);
    if (!nb) return; /* longer chains, still correct */
    th__cuda_block **old = d->buckets;
    size_t oldn = d->nbuckets;
    d->buckets = nb;
    d->nbuckets = n;
    d->hash_bits++;
    for (size_t i = 0; i < oldn; i++) {
        th__cuda_block *b = old[i];
        while (b) {
            th__cuda_block *next = b->hash_next;
            size_t j = hash_index(d, b->ptr);
            b->hash_next = nb[j];
            nb[j] = b;
            b = next;
        }
    }
    free(old);
}

static void hash_insert(th__cuda_caching_dev *d, th__cuda_block *b)
{
    if (d->nhashed >= d->nbuckets) hash_grow(d);
    size_t i = hash_index(d, b->ptr);
    b->hash_next = d->buckets[i];
    d->buckets[i] = b;
    d->nhashed++;
}

static th__cuda_block *hash_find(th__cuda_caching_dev *d, const void *ptr)
{
    th__cuda_block *b = d->buckets[hash_index(d, ptr)];
    while (b && b->ptr != (const char *)ptr) b = b->hash_next;
    return b;
}

static th__cuda_block *hash_remove(th__cuda_caching_dev *d, const void *ptr)
{
    th__cuda_block **link = &d->buckets[hash_index(d, ptr)];
    while (*link && (*link)->ptr != (const char *)ptr) link = &(*link)->hash_next;
    th__cuda_block *b = *link;
    if (b) {
        *link = b->hash_next;
        b->hash_next = NULL;
        d->nhashed--;
    }
    return b;
}

/* ---- pools ---------------------------------------------------------------------------------------- */

static bool block_is_split(const th__cuda_block *b) { return b->prev || b->next; }

static void pool_insert(th__cuda_caching_dev *d, th__cuda_block *b)
{
    b->state = TH__CUDA_BLOCK_FREE;
    b->requested = 0;
    b->seg->active_bytes -= b->size;
    d->pools[b->seg->small ? 0 : 1] = avl_insert(d->pools[b->seg->small ? 0 : 1], b);
    /* A block's neighbours never change while it is in a pool (two pooled blocks are never neighbours),
     * so whether it counts as an inactive split block is settled here and undone in pool_remove. */
    if (block_is_split(b)) {
        stat_pool(d->stats.inactive_split, b->seg->small, 1);
        stat_pool(d->stats.inactive_split_bytes, b->seg->small, (int64_t)b->size);
    }
}

static void pool_remove(th__cuda_caching_dev *d, th__cuda_block *b)
{
    d->pools[b->seg->small ? 0 : 1] = avl_remove(d->pools[b->seg->small ? 0 : 1], b);
    b->left = b->right = NULL;
    b->seg->active_bytes += b->size;
    if (block_is_split(b)) {
        stat_pool(d->stats.inactive_split, b->seg->small, -1);
        stat_pool(d->stats.inactive_split_bytes, b->seg->small, -(int64_t)b->size);
    }
}

static size_t max_split(const th__cuda_caching_dev *d)
{
    return d->owner->config.max_split_size ? d->owner->config.max_split_size : SIZE_MAX;
}

/* Best fit in the stream's pool under the oversize rules; the block is taken out of its pool. */
static th__cuda_block *pool_take(th__cuda_caching_dev *d, bool small, void *stream, size_t size)
{
    th__cuda_block *b = avl_lower_bound(d->pools[small ? 0 : 1], stream, size);
    if (!b) return NULL;
    size_t limit = max_split(d);
    /* An oversize block is never split: a normal request would waste it, and a large request may only take
     * one that leaves less than a 20 MiB segment's worth unused. */
    if (size < limit && b->size >= limit) return NULL;
    if (size >= limit && b->size - size >= TH__CUDA_LARGE_SEGMENT) return NULL;
    pool_remove(d, b);
    return b;
}

static bool should_split(const th__cuda_caching_dev *d, const th__cuda_block *b, size_t size)
{
    size_t remaining = b->size - size;
    if (b->seg->small) return remaining >= TH__CUDA_MIN_BLOCK;
    return size < max_split(d) && remaining > TH__CUDA_SMALL_SIZE;
}

/* Returns a block that is out of every pool and no longer allocated (its events all complete) to its
 * pool, merged with its free neighbours. */
static void free_block(th__cuda_caching_dev *d, th__cuda_block *b)
{
    bool small = b->seg->small;
    stat_pool(d->stats.active, small, -1);
    stat_pool(d->stats.active_bytes, small, -(int64_t)b->size);
    free(b->uses);
    b->uses = NULL;
    b->n_uses = b->cap_uses = 0;
    th__cuda_block *p = b->prev;
    if (p && p->state == TH__CUDA_BLOCK_FREE) {
        pool_remove(d, p);
        b->ptr = p->ptr;
        b->size += p->size;
        b->prev = p->prev;
        if (b->prev)
            b->prev->next = b;
        else
            b->seg->first = b;
        block_recycle(d, p);
    }
    th__cuda_block *n = b->next;
    if (n && n->state == TH__CUDA_BLOCK_FREE) {
        pool_remove(d, n);
        b->size += n->size;
        b->next = n->next;
        if (b->next) b->next->prev = b;
        block_recycle(d, n);
    }
    pool_insert(d, b);
}

/* ---- events --------------------------------------------------------------------------------------- */

static int backend_error(th__cuda_caching_dev *d, const char *fn, const char *call, int code)
{
    return th_set_error(TH_ERR_DEVICE, fn, "%s on device %d failed: %s (%d)", call, d->device,
                        d->backend->error_name(d->backend->ctx, code), code);
}

static void event_put(th__cuda_caching_dev *d, void *event)
{
    if (d->nevents == d->cap_events) {
        size_t cap = d->cap_events ? d->cap_events * 2 : 16;
        void **grown = (void **)realloc(d->events, cap * sizeof *grown);
        if (!grown) {
            d->backend->event_destroy(d->backend->ctx, event);
            return;
        }
        d->events = grown;
        d->cap_events = cap;
    }
    d->events[d->nevents++] = event;
}

/* Pops completed events off every stream's queue; a block whose last event completes goes back to its
 * pool. Stops a queue at its first event not done: a stream runs its work in order. */
static int process_events(th__cuda_caching_dev *d, const char *fn)
{
    th__cuda_stream_queue **qlink = &d->queues;
    while (*qlink) {
        th__cuda_stream_queue *q = *qlink;
        while (q->head) {
            th__cuda_pending *e = q->head;
            bool done = false;
            int rc = d->backend->event_query(d->backend->ctx, e->event, &done);
            if (rc) return backend_error(d, fn, "event_query", rc);
            if (!done) break;
            q->head = e->next;
            if (!q->head) q->tail = NULL;
            event_put(d, e->event);
            d->npending--;
            d->stats.events_pending--;
            th__cuda_block *b = e->block;
            if (--b->event_count == 0) free_block(d, b);
            e->next = d->spare_pending;
            d->spare_pending = e;
        }
        if (!q->head) {
            *qlink = q->next;
            free(q);
        } else {
            qlink = &q->next;
        }
    }
    return TH_OK;
}

/* Waits for every pending event (empty_cache and delete: memory in flight must land first). */
static int synchronize_events(th__cuda_caching_dev *d, const char *fn)
{
    for (th__cuda_stream_queue *q = d->queues; q; q = q->next)
        for (th__cuda_pending *e = q->head; e; e = e->next) {
            int rc = d->backend->event_synchronize(d->backend->ctx, e->event);
            if (rc) return backend_error(d, fn, "event_synchronize", rc);
        }
    return process_events(d, fn);
}

static int queue_event(th__cuda_caching_dev *d, void *stream, void *event, th__cuda_block *b)
{
    th__cuda_stream_queue *q = d->queues;
    while (q && q->stream != stream) q = q->next;
    if (!q) {
        if (!(q = (th__cuda_stream_queue *)calloc(1, sizeof *q))) return TH_ERR_NOMEM;
        q->stream = stream;
        q->next = d->queues;
        d->queues = q;
    }
    th__cuda_pending *e = d->spare_pending;
    if (e)
        d->spare_pending = e->next;
    else if (!(e = (th__cuda_pending *)malloc(sizeof *e)))
        return TH_ERR_NOMEM;
    e->event = event;
    e->block = b;
    e->next = NULL;
    if (q->tail)
        q->tail->next = e;
    else
        q->head = e;
    q->tail = e;
    b->event_count++;
    d->npending++;
    d->stats.events_pending++;
    return TH_OK;
}

/* At the release of a block used on other streams: an event on each, and the block waits for them. If an
 * event cannot be had, the device is synchronised instead, after which every stream is done with it. */
static void insert_events(th__cuda_caching_dev *d, th__cuda_block *b, const char *fn)
{
    const th_cuda_backend *be = d->backend;
    b->state = TH__CUDA_BLOCK_PENDING;
    bool failed = false;
    for (int i = 0; i < b->n_uses && !failed; i++) {
        void *event = d->nevents ? d->events[--d->nevents] : NULL;
        int rc = 0;
        if (!event && (rc = be->event_create(be->ctx, d->device, &event))) {
            backend_error(d, fn, "event_create", rc);
            failed = true;
            break;
        }
        if ((rc = be->event_record(be->ctx, event, b->uses[i]))) {
            backend_error(d, fn, "event_record", rc);
            be->event_destroy(be->ctx, event);
            failed = true;
            break;
        }
        if (queue_event(d, b->uses[i], event, b)) {
            th_set_error(TH_ERR_NOMEM, fn, "out of host memory for the event queue");
            event_put(d, event);
            failed = true;
        }
    }
    if (failed) {
        int rc = be->device_synchronize(be->ctx, d->device);
        d->stats.syncs++;
        /* Without the synchronisation nobody can say when the other streams are done: the block stays out
         * of the pools for good rather than risk being handed out while in use. */
        if (rc) {
            backend_error(d, fn, "device_synchronize", rc);
            return;
        }
    }
    if (b->event_count == 0) free_block(d, b);
}

/* ---- segments ------------------------------------------------------------------------------------- */

/* segment_new's code for host memory running out (bookkeeping), apart from every backend code. */
#define TH__HOST_NOMEM INT_MIN

/* A new segment of alloc_size bytes for stream; its one block is returned out of every pool. Returns the
 * backend's code (0, its oom_code or another error), or TH__HOST_NOMEM. */
static int segment_new(th__cuda_caching_dev *d, bool small, void *stream, size_t alloc_size, th__cuda_block **out)
{
    th__cuda_segment *seg = (th__cuda_segment *)calloc(1, sizeof *seg);
    th__cuda_block *b = block_new(d);
    if (!seg || !b) {
        free(seg);
        if (b) block_recycle(d, b);
        return TH__HOST_NOMEM;
    }
    void *ptr = NULL;
    int rc = d->backend->malloc(d->backend->ctx, d->device, alloc_size, &ptr);
    if (rc) {
        d->stats.backend_malloc_fails++;
        free(seg);
        block_recycle(d, b);
        return rc;
    }
    d->stats.backend_mallocs++;
    seg->base = (char *)ptr;
    seg->size = alloc_size;
    seg->stream = stream;
    seg->small = small;
    seg->first = b;
    seg->active_bytes = alloc_size;
    seg->next = d->segments;
    if (d->segments) d->segments->prev = seg;
    d->segments = seg;
    b->ptr = seg->base;
    b->size = alloc_size;
    b->stream = stream;
    b->seg = seg;
    stat_pool(d->stats.segments, small, 1);
    stat_pool(d->stats.reserved_bytes, small, (int64_t)alloc_size);
    *out = b;
    return 0;
}

/* Releases every segment none of whose blocks is in use. Returns how many bytes went back; *count gets
 * how many segments (when not NULL). Stops at a backend error, which it records. */
static size_t release_free_segments(th__cuda_caching_dev *d, const char *fn, int *count, int *status)
{
    size_t released = 0;
    int n = 0;
    th__cuda_segment *seg = d->segments;
    while (seg) {
        th__cuda_segment *next = seg->next;
        if (seg->active_bytes == 0) {
            th__cuda_block *b = seg->first;
            pool_remove(d, b);
            int rc = d->backend->free(d->backend->ctx, d->device, seg->base);
            if (rc) {
                pool_insert(d, b);
                *status = backend_error(d, fn, "free", rc);
                break;
            }
            d->stats.backend_frees++;
            stat_pool(d->stats.segments, seg->small, -1);
            stat_pool(d->stats.reserved_bytes, seg->small, -(int64_t)seg->size);
            released += seg->size;
            n++;
            if (seg->prev)
                seg->prev->next = seg->next;
            else
                d->segments = seg->next;
            if (seg->next) seg->next->prev = seg->prev;
            block_recycle(d, b);
            free(seg);
        }
        seg = next;
    }
    if (count) *count = n;
    return released;
}

/* ---- the allocator -------------------------------------------------------------------------------- */

static void lock(th__cuda_caching_dev *d) { pthread_mutex_lock(&d->lock); }
static void unlock(th__cuda_caching_dev *d) { pthread_mutex_unlock(&d->lock); }

static int dev_init(th__cuda_caching *c, th__cuda_caching_dev *d, int device)
{
    d->owner = c;
    d->backend = c->backend;
    d->device = device;
    d->vtable.name = "cuda-caching";
    d->vtable.alloc = th__cuda_caching_alloc;
    d->vtable.realloc = NULL;
    d->vtable.free = th__cuda_caching_free;
    d->vtable.device.type = TH_DEVICE_CUDA;
    d->vtable.device.index = device;
    d->hash_bits = 8;
    d->nbuckets = (size_t)1 << d->hash_bits;
    if (!(d->buckets = (th__cuda_block **)calloc(d->nbuckets, sizeof *d->buckets))) return TH_ERR_NOMEM;
    if (pthread_mutex_init(&d->lock, NULL)) {
        free(d->buckets);
        return TH_ERR_NOMEM;
    }
    d->stats.max_split_size = c->config.max_split_size ? c->config.max_split_size : SIZE_MAX;
    d->stats.caching = !c->config.no_caching;
    return TH_OK;
}

th__cuda_caching *th__cuda_caching_new(const th_cuda_backend *backend, const th__cuda_caching_config *config)
{
    static const char fn[] = "th__cuda_caching_new";
    if (!backend || !backend->malloc || !backend->free || !backend->device_count ||
        !backend->device_synchronize || !backend->event_create || !backend->event_destroy ||
        !backend->event_record || !backend->event_query || !backend->event_synchronize || !backend->error_name) {
        th_set_error(TH_ERR_INVALID, fn, "%s", backend ? "the backend lacks a function the allocator calls" : "NULL backend");
        return NULL;
    }
    th__cuda_caching_config cfg;
    if (config)
        cfg = *config;
    else if (th__cuda_caching_config_from_env(&cfg))
        return NULL;
    if (cfg.max_split_size && cfg.max_split_size <= TH__CUDA_LARGE_SEGMENT) {
        th_set_error(TH_ERR_INVALID, fn, "max split size %zu bytes must be more than %zu (20 MiB)", cfg.max_split_size,
                     TH__CUDA_LARGE_SEGMENT);
        return NULL;
    }
    int count = 0;
    int rc = backend->device_count(backend->ctx, &count);
    if (rc) {
        th_set_error(TH_ERR_DEVICE, fn, "device_count failed: %s (%d)", backend->error_name(backend->ctx, rc), rc);
        return NULL;
    }
    if (count < 0) count = 0;
    th__cuda_caching *c = (th__cuda_caching *)calloc(1, sizeof *c);
    if (!c || (count && !(c->devs = (th__cuda_caching_dev *)calloc((size_t)count, sizeof *c->devs)))) {
        free(c);
        th_set_error(TH_ERR_NOMEM, fn, "out of host memory");
        return NULL;
    }
    c->backend = backend;
    c->config = cfg;
    for (int i = 0; i < count; i++) {
        if (dev_init(c, &c->devs[i], i)) {
            c->ndevices = i;
            th__cuda_caching_delete(c);
            th_set_error(TH_ERR_NOMEM, fn, "out of host memory");
            return NULL;
        }
    }
    c->ndevices = count;
    return c;
}

int th__cuda_caching_device_count(const th__cuda_caching *caching) { return caching ? caching->ndevices : 0; }

th__cuda_caching_dev *th__cuda_caching_dev_get(th__cuda_caching *caching, int device)
{
    static const char fn[] = "th__cuda_caching_dev_get";
    if (!caching) {
        th_set_error(TH_ERR_INVALID, fn, "NULL allocator");
        return NULL;
    }
    if (device < 0 || device >= caching->ndevices) {
        th_set_error(TH_ERR_RANGE, fn, "device %d is out of range: the backend has %d device%s", device,
                     caching->ndevices, caching->ndevices == 1 ? "" : "s");
        return NULL;
    }
    return &caching->devs[device];
}

const th_allocator *th__cuda_caching_allocator(th__cuda_caching *caching, int device, void **ctx_out)
{
    th__cuda_caching_dev *d = th__cuda_caching_dev_get(caching, device);
    if (ctx_out) *ctx_out = d;
    return d ? &d->vtable : NULL;
}

/* The out-of-memory error: every figure a user needs to tell "too much" from "fragmented". */
static int oom_error(th__cuda_caching_dev *d, const char *fn, size_t nbytes, size_t alloc_size, int released_n,
                     size_t released)
{
    char want[32], cap[32] = "unknown", freeb[32] = "unknown", alloc[32], res[32], unused[32], largest[32], rel[32];
    size_t free_bytes = 0, total = 0;
    if (d->backend->mem_get_info && d->backend->mem_get_info(d->backend->ctx, d->device, &free_bytes, &total) == 0) {
        th__cuda_format_bytes(cap, sizeof cap, total);
        th__cuda_format_bytes(freeb, sizeof freeb, free_bytes);
    }
    size_t allocated = (size_t)d->stats.allocated_bytes[0].current;
    size_t reserved = (size_t)d->stats.reserved_bytes[0].current;
    size_t largest_free = avl_max_size(d->pools[0]), large_max = avl_max_size(d->pools[1]);
    if (large_max > largest_free) largest_free = large_max;
    return th_set_error(
        TH_ERR_NOMEM, fn,
        "CUDA out of memory on device %d: tried to allocate %s (%zu bytes requested); capacity %s, free %s; "
        "allocated %s, reserved %s, reserved but unallocated %s, largest free block %s; released %d cached "
        "segment%s (%s) and synchronised before one retry",
        d->device, th__cuda_format_bytes(want, sizeof want, alloc_size), nbytes, cap, freeb,
        th__cuda_format_bytes(alloc, sizeof alloc, allocated), th__cuda_format_bytes(res, sizeof res, reserved),
        th__cuda_format_bytes(unused, sizeof unused, reserved - allocated),
        th__cuda_format_bytes(largest, sizeof largest, largest_free), released_n, released_n == 1 ? "" : "s",
        th__cuda_format_bytes(rel, sizeof rel, released));
}

static int malloc_uncached(th__cuda_caching_dev *d, const char *fn, size_t nbytes, void *stream, void **ptr)
{
    /* The exact size, so compute-sanitizer sees an overrun of the caller's request. */
    size_t size = nbytes ? nbytes : 1;
    bool small = size <= TH__CUDA_SMALL_SIZE;
    th__cuda_block *b = NULL;
    int rc = segment_new(d, small, stream, size, &b);
    if (rc == TH__HOST_NOMEM)
        return th_set_error(TH_ERR_NOMEM, fn, "out of host memory for the allocator's bookkeeping");
    if (rc == d->backend->oom_code) {
        d->stats.ooms++;
        char want[32];
        return th_set_error(TH_ERR_NOMEM, fn, "CUDA out of memory on device %d: tried to allocate %s (caching off)",
                            d->device, th__cuda_format_bytes(want, sizeof want, size));
    }
    if (rc) return backend_error(d, fn, "malloc", rc);
    b->state = TH__CUDA_BLOCK_ALLOCATED;
    b->requested = nbytes;
    hash_insert(d, b);
    stat_pool(d->stats.allocations, small, 1);
    stat_pool(d->stats.allocated_bytes, small, (int64_t)b->size);
    stat_pool(d->stats.requested_bytes, small, (int64_t)nbytes);
    stat_pool(d->stats.active, small, 1);
    stat_pool(d->stats.active_bytes, small, (int64_t)b->size);
    *ptr = b->ptr;
    return TH_OK;
}

static int malloc_locked(th__cuda_caching_dev *d, const char *fn, size_t nbytes, void *stream, void **ptr)
{
    if (d->owner->config.no_caching) return malloc_uncached(d, fn, nbytes, stream, ptr);
    int rc = d->npending ? process_events(d, fn) : 0;
    if (rc) return rc;
    size_t size = th__cuda_caching_round_size(nbytes);
    bool small = size <= TH__CUDA_SMALL_SIZE;
    size_t alloc_size = th__cuda_caching_segment_size(size);
    th__cuda_block *b = pool_take(d, small, stream, size);
    bool hit = b != NULL;
    if (!b) {
        const th_cuda_backend *be = d->backend;
        rc = segment_new(d, small, stream, alloc_size, &b);
        if (rc == be->oom_code) {
            /* Synchronising completes every event, which may put a block that fits back into the pool;
             * only if none does are the free segments given up, so the cache stays warm when it can. */
            d->stats.oom_retries++;
            int released_n = 0;
            size_t released = 0;
            int status = be->device_synchronize(be->ctx, d->device);
            d->stats.syncs++;
            if (status) return backend_error(d, fn, "device_synchronize", status);
            if ((status = process_events(d, fn))) return status;
            if ((b = pool_take(d, small, stream, size))) {
                hit = true;
                rc = 0;
            } else {
                released = release_free_segments(d, fn, &released_n, &status);
                if (status) return status;
                rc = segment_new(d, small, stream, alloc_size, &b);
                if (rc == be->oom_code) {
                    d->stats.ooms++;
                    return oom_error(d, fn, nbytes, alloc_size, released_n, released);
                }
            }
        }
        if (rc == TH__HOST_NOMEM)
            return th_set_error(TH_ERR_NOMEM, fn, "out of host memory for the allocator's bookkeeping");
        if (rc) return backend_error(d, fn, "malloc", rc);
    }
    if (hit) d->stats.cache_hits++;
    if (should_split(d, b, size)) {
        th__cuda_block *rest = block_new(d);
        /* Without a record for the rest, the caller gets the whole block: wasteful, never wrong. */
        if (rest) {
            rest->ptr = b->ptr + size;
            rest->size = b->size - size;
            rest->stream = b->stream;
            rest->seg = b->seg;
            rest->prev = b;
            rest->next = b->next;
            if (b->next) b->next->prev = rest;
            b->next = rest;
            b->size = size;
            pool_insert(d, rest);
        }
    }
    b->state = TH__CUDA_BLOCK_ALLOCATED;
    b->requested = nbytes;
    hash_insert(d, b);
    stat_pool(d->stats.allocations, small, 1);
    stat_pool(d->stats.allocated_bytes, small, (int64_t)b->size);
    stat_pool(d->stats.requested_bytes, small, (int64_t)nbytes);
    stat_pool(d->stats.active, small, 1);
    stat_pool(d->stats.active_bytes, small, (int64_t)b->size);
    *ptr = b->ptr;
    return TH_OK;
}

int th__cuda_caching_malloc(th__cuda_caching_dev *dev, size_t nbytes, void *stream, void **ptr)
{
    static const char fn[] = "th__cuda_caching_malloc";
    if (ptr) *ptr = NULL;
    if (!dev || !ptr) return th_set_error(TH_ERR_INVALID, fn, "NULL %s", dev ? "ptr" : "device allocator");
    if (nbytes > TH__CUDA_MAX_REQUEST)
        return th_set_error(TH_ERR_OVERFLOW, fn, "a request of %zu bytes is too large", nbytes);
    lock(dev);
    int rc = malloc_locked(dev, fn, nbytes, stream, ptr);
    unlock(dev);
    return rc;
}

static int release_locked(th__cuda_caching_dev *d, const char *fn, void *ptr, bool check_size, size_t nbytes)
{
    th__cuda_block *b = hash_remove(d, ptr);
    if (!b)
        return th_set_error(TH_ERR_INVALID, fn, "%p is not a block handed out by the allocator of device %d", ptr,
                            d->device);
    int status = TH_OK;
    if (check_size && nbytes != b->requested)
        status = th_set_error(TH_ERR_INVALID, fn, "block %p was allocated with %zu bytes, freed with %zu", ptr,
                              b->requested, nbytes);
    bool small = b->seg->small;
    stat_pool(d->stats.allocations, small, -1);
    stat_pool(d->stats.allocated_bytes, small, -(int64_t)b->size);
    stat_pool(d->stats.requested_bytes, small, -(int64_t)b->requested);
    if (d->owner->config.no_caching) {
        stat_pool(d->stats.active, small, -1);
        stat_pool(d->stats.active_bytes, small, -(int64_t)b->size);
        th__cuda_segment *seg = b->seg;
        int rc = d->backend->free(d->backend->ctx, d->device, seg->base);
        if (rc) return backend_error(d, fn, "free", rc); /* the memory stays the backend's: leaked */
        d->stats.backend_frees++;
        stat_pool(d->stats.segments, small, -1);
        stat_pool(d->stats.reserved_bytes, small, -(int64_t)seg->size);
        if (seg->prev)
            seg->prev->next = seg->next;
        else
            d->segments = seg->next;
        if (seg->next) seg->next->prev = seg->prev;
        block_recycle(d, b);
        free(seg);
        return status;
    }
    if (b->n_uses)
        insert_events(d, b, fn);
    else
        free_block(d, b);
    return status;
}

int th__cuda_caching_release(th__cuda_caching_dev *dev, void *ptr)
{
    static const char fn[] = "th__cuda_caching_release";
    if (!dev) return th_set_error(TH_ERR_INVALID, fn, "NULL device allocator");
    if (!ptr) return TH_OK;
    lock(dev);
    int rc = release_locked(dev, fn, ptr, false, 0);
    unlock(dev);
    return rc;
}

void *th__cuda_caching_alloc(void *ctx, size_t nbytes)
{
    th__cuda_caching_dev *d = (th__cuda_caching_dev *)ctx;
    void *ptr = NULL;
    if (d) th__cuda_caching_malloc(d, nbytes, th__cuda_current_stream(d->device), &ptr);
    return ptr;
}

void th__cuda_caching_free(void *ctx, void *ptr, size_t nbytes)
{
    th__cuda_caching_dev *d = (th__cuda_caching_dev *)ctx;
    if (!d || !ptr) return;
    lock(d);
    release_locked(d, "th__cuda_caching_free", ptr, true, nbytes);
    unlock(d);
}

int th__cuda_caching_record_stream(th__cuda_caching_dev *dev, void *ptr, void *stream)
{
    static const char fn[] = "th__cuda_caching_record_stream";
    if (!dev) return th_set_error(TH_ERR_INVALID, fn, "NULL device allocator");
    lock(dev);
    int rc = TH_OK;
    th__cuda_block *b = hash_find(dev, ptr);
    if (!b) {
        rc = th_set_error(TH_ERR_INVALID, fn, "%p is not a block handed out by the allocator of device %d", ptr,
                          dev->device);
    } else if (stream != b->stream && !dev->owner->config.no_caching) {
        bool known = false;
        for (int i = 0; i < b->n_uses; i++) known |= b->uses[i] == stream;
        if (!known) {
            if (b->n_uses == b->cap_uses) {
                int cap = b->cap_uses ? b->cap_uses * 2 : 4;
                void **grown = (void **)realloc(b->uses, (size_t)cap * sizeof *grown);
                if (!grown) {
                    unlock(dev);
                    return th_set_error(TH_ERR_NOMEM, fn, "out of host memory");
                }
                b->uses = grown;
                b->cap_uses = cap;
            }
            b->uses[b->n_uses++] = stream;
        }
    }
    unlock(dev);
    return rc;
}

int th__cuda_caching_forget_stream(th__cuda_caching_dev *dev, void *stream)
{
    if (!dev) return th_set_error(TH_ERR_INVALID, "th__cuda_caching_forget_stream", "NULL device allocator");
    lock(dev);
    for (size_t i = 0; i < dev->nbuckets; i++)
        for (th__cuda_block *b = dev->buckets[i]; b; b = b->hash_next)
            for (int k = 0; k < b->n_uses; k++)
                if (b->uses[k] == stream) {
                    b->uses[k] = b->uses[--b->n_uses];
                    break; /* each stream is listed once */
                }
    unlock(dev);
    return TH_OK;
}

int th__cuda_caching_empty_cache(th__cuda_caching_dev *dev)
{
    static const char fn[] = "th__cuda_caching_empty_cache";
    if (!dev) return th_set_error(TH_ERR_INVALID, fn, "NULL device allocator");
    lock(dev);
    int status = synchronize_events(dev, fn);
    if (!status) release_free_segments(dev, fn, NULL, &status);
    unlock(dev);
    return status;
}

int th__cuda_caching_get_stats(th__cuda_caching_dev *dev, th__cuda_memory_stats *stats)
{
    if (!dev || !stats)
        return th_set_error(TH_ERR_INVALID, "th__cuda_caching_get_stats", "NULL %s", dev ? "stats" : "device allocator");
    lock(dev);
    *stats = dev->stats;
    size_t a = avl_max_size(dev->pools[0]), b = avl_max_size(dev->pools[1]);
    stats->largest_free_block = a > b ? a : b;
    unlock(dev);
    return TH_OK;
}

int th__cuda_caching_reset_peak_stats(th__cuda_caching_dev *dev)
{
    if (!dev) return th_set_error(TH_ERR_INVALID, "th__cuda_caching_reset_peak_stats", "NULL device allocator");
    lock(dev);
    th__cuda_stat *arrays[] = {dev->stats.allocations, dev->stats.segments, dev->stats.active,
                               dev->stats.inactive_split, dev->stats.allocated_bytes, dev->stats.requested_bytes,
                               dev->stats.reserved_bytes, dev->stats.active_bytes, dev->stats.inactive_split_bytes};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        for (int k = 0; k < TH__CUDA_POOL_KINDS; k++) arrays[i][k].peak = arrays[i][k].current;
    unlock(dev);
    return TH_OK;
}

int th__cuda_caching_segment_of(th__cuda_caching_dev *dev, void *ptr, void **base, size_t *size)
{
    static const char fn[] = "th__cuda_caching_segment_of";
    if (!dev) return th_set_error(TH_ERR_INVALID, fn, "NULL device allocator");
    lock(dev);
    th__cuda_block *b = hash_find(dev, ptr);
    if (b) {
        if (base) *base = b->seg->base;
        if (size) *size = b->seg->size;
    }
    unlock(dev);
    if (!b)
        return th_set_error(TH_ERR_INVALID, fn, "%p is not a block handed out by the allocator of device %d", ptr,
                            dev->device);
    return TH_OK;
}

int th__cuda_caching_walk(th__cuda_caching_dev *dev, int (*visit)(void *arg, const th__cuda_block_info *block),
                          void *arg)
{
    if (!dev || !visit)
        return th_set_error(TH_ERR_INVALID, "th__cuda_caching_walk", "NULL %s", dev ? "visit" : "device allocator");
    lock(dev);
    int rc = 0;
    for (th__cuda_segment *seg = dev->segments; seg && !rc; seg = seg->next)
        for (th__cuda_block *b = seg->first; b && !rc; b = b->next) {
            th__cuda_block_info info = {seg->base, seg->size, b->ptr, b->size, b->requested, b->stream, b->state,
                                        seg->small, b->event_count};
            rc = visit(arg, &info);
        }
    unlock(dev);
    return rc;
}

/* ---- invariants ----------------------------------------------------------------------------------- */

typedef struct th__cuda_check_state {
    const char *problem;
    size_t count;
} th__cuda_check_state;

/* Ordered, balanced, heights right, every node a free block of the right pool. Returns the height. */
static int check_tree(const th__cuda_block *n, bool small, const th__cuda_block *lo, const th__cuda_block *hi,
                      th__cuda_check_state *st)
{
    if (!n || st->problem) return 0;
    st->count++;
    if (n->state != TH__CUDA_BLOCK_FREE) st->problem = "a pool holds a block that is not free";
    if (n->seg->small != small) st->problem = "a block is in the other pool";
    if ((lo && !block_less(lo, n)) || (hi && !block_less(n, hi))) st->problem = "a pool tree is out of order";
    int l = check_tree(n->left, small, lo, n, st), r = check_tree(n->right, small, n, hi, st);
    if (n->height != (l > r ? l : r) + 1) st->problem = "a pool tree node has a wrong height";
    if (l - r > 1 || r - l > 1) st->problem = "a pool tree is unbalanced";
    return (l > r ? l : r) + 1;
}

static bool tree_contains(const th__cuda_block *root, const th__cuda_block *b)
{
    while (root && root != b) root = block_less(b, root) ? root->left : root->right;
    return root == b;
}

int th__cuda_caching_check(th__cuda_caching_dev *dev)
{
    static const char fn[] = "th__cuda_caching_check";
    if (!dev) return th_set_error(TH_ERR_INVALID, fn, "NULL device allocator");
    lock(dev);
    const char *problem = NULL;
    int64_t count[9][TH__CUDA_POOL_KINDS];
    memset(count, 0, sizeof count);
    enum { ALLOCS, SEGS, ACTIVE, SPLIT, ABYTES, RQBYTES, RBYTES, ACBYTES, SPBYTES };
    size_t free_blocks = 0, allocated = 0;
    int64_t events = 0;
    for (th__cuda_segment *seg = dev->segments; seg && !problem; seg = seg->next) {
        int k = seg->small ? TH__CUDA_POOL_SMALL : TH__CUDA_POOL_LARGE;
        count[SEGS][k]++;
        count[RBYTES][k] += (int64_t)seg->size;
        if (seg->next && seg->next->prev != seg) problem = "the segment list is broken";
        if (!seg->first || seg->first->prev || seg->first->ptr != seg->base) problem = "a segment's first block is wrong";
        char *at = seg->base;
        size_t active = 0;
        for (th__cuda_block *b = seg->first; b && !problem; b = b->next) {
            if (b->seg != seg || b->stream != seg->stream) problem = "a block's segment or stream is wrong";
            else if (b->ptr != at) problem = "a segment's blocks do not tile it";
            else if (b->size == 0 || (b->size % TH__CUDA_MIN_BLOCK && !dev->owner->config.no_caching))
                problem = "a block's size is not a multiple of 512";
            else if (b->next && b->next->prev != b) problem = "a segment's block links are broken";
            else if (b->state == TH__CUDA_BLOCK_FREE && b->next && b->next->state == TH__CUDA_BLOCK_FREE)
                problem = "two free neighbours were not merged";
            at += b->size;
            events += b->event_count;
            if (b->state == TH__CUDA_BLOCK_FREE) {
                free_blocks++;
                if (!tree_contains(dev->pools[seg->small ? 0 : 1], b)) problem = "a free block is not in its pool";
                if (block_is_split(b)) {
                    count[SPLIT][k]++;
                    count[SPBYTES][k] += (int64_t)b->size;
                }
            } else {
                active += b->size;
                count[ACTIVE][k]++;
                count[ACBYTES][k] += (int64_t)b->size;
                if (b->state == TH__CUDA_BLOCK_ALLOCATED) {
                    allocated++;
                    count[ALLOCS][k]++;
                    count[ABYTES][k] += (int64_t)b->size;
                    count[RQBYTES][k] += (int64_t)b->requested;
                    if (hash_find(dev, b->ptr) != b) problem = "an allocated block is not in the address map";
                    if (b->event_count) problem = "an allocated block waits for events";
                } else if (b->event_count == 0) {
                    problem = "a pending block waits for no event";
                }
            }
        }
        if (!problem && at != seg->base + seg->size) problem = "a segment's blocks do not add up to its size";
        if (!problem && active != seg->active_bytes) problem = "a segment's count of bytes in use is wrong";
    }
    th__cuda_check_state st = {NULL, 0};
    check_tree(dev->pools[0], true, NULL, NULL, &st);
    check_tree(dev->pools[1], false, NULL, NULL, &st);
    if (!problem && st.problem) problem = st.problem;
    if (!problem && st.count != free_blocks) problem = "the pools hold blocks that no segment has";
    if (!problem && allocated != dev->nhashed) problem = "the address map holds blocks that are not allocated";
    if (!problem && events != dev->npending) problem = "the event queues and the blocks disagree";
    if (!problem) {
        const th__cuda_stat *stats[9] = {dev->stats.allocations, dev->stats.segments, dev->stats.active,
                                          dev->stats.inactive_split, dev->stats.allocated_bytes,
                                          dev->stats.requested_bytes, dev->stats.reserved_bytes,
                                          dev->stats.active_bytes, dev->stats.inactive_split_bytes};
        static const char *const names[9] = {"allocations", "segments", "active", "inactive_split",
                                             "allocated_bytes", "requested_bytes", "reserved_bytes", "active_bytes",
                                             "inactive_split_bytes"};
        for (int i = 0; i < 9 && !problem; i++) {
            count[i][0] = count[i][1] + count[i][2];
            for (int k = 0; k < TH__CUDA_POOL_KINDS; k++)
                if (stats[i][k].current != count[i][k]) {
                    unlock(dev);
                    return th_set_error(TH_ERR_INVALID, fn, "device %d: statistic %s[%d] is %lld, a recount gives %lld",
                                        dev->device, names[i], k, (long long)stats[i][k].current,
                                        (long long)count[i][k]);
                }
        }
    }
    unlock(dev);
    if (problem) return th_set_error(TH_ERR_INVALID, fn, "device %d: %s", dev->device, problem);
    return TH_OK;
}

/* ---- teardown ------------------------------------------------------------------------------------- */

static int dev_destroy(th__cuda_caching_dev *d)
{
    static const char fn[] = "th__cuda_caching_delete";
    const th_cuda_backend *be = d->backend;
    int status = synchronize_events(d, fn);
    size_t leaked = d->nhashed;
    /* What is still handed out goes too: nobody can free it after this. */
    for (size_t i = 0; i < d->nbuckets; i++)
        while (d->buckets[i]) {
            th__cuda_block *b = d->buckets[i];
            d->buckets[i] = b->hash_next;
            b->hash_next = NULL;
            if (!d->owner->config.no_caching) {
                b->state = TH__CUDA_BLOCK_PENDING;
                stat_pool(d->stats.allocations, b->seg->small, -1);
                free_block(d, b);
            }
        }
    d->nhashed = 0;
    while (d->segments) {
        th__cuda_segment *seg = d->segments;
        d->segments = seg->next;
        int rc = be->free(be->ctx, d->device, seg->base);
        if (rc && !status) status = backend_error(d, fn, "free", rc);
        th__cuda_block *b = seg->first;
        while (b) {
            th__cuda_block *next = b->next;
            free(b->uses);
            free(b);
            b = next;
        }
        free(seg);
    }
    while (d->queues) { /* only after a failed synchronisation */
        th__cuda_stream_queue *q = d->queues;
        d->queues = q->next;
        while (q->head) {
            th__cuda_pending *e = q->head;
            q->head = e->next;
            be->event_destroy(be->ctx, e->event);
            free(e);
        }
        free(q);
    }
    for (size_t i = 0; i < d->nevents; i++) be->event_destroy(be->ctx, d->events[i]);
    free(d->events);
    while (d->spare_blocks) {
        th__cuda_block *b = d->spare_blocks;
        d->spare_blocks = b->next;
        free(b);
    }
    while (d->spare_pending) {
        th__cuda_pending *e = d->spare_pending;
        d->spare_pending = e->next;
        free(e);
    }
    free(d->buckets);
    pthread_mutex_destroy(&d->lock);
    if (leaked && !status)
        status = th_set_error(TH_ERR_INVALID, fn, "device %d: %zu block%s still allocated were released", d->device,
                              leaked, leaked == 1 ? "" : "s");
    return status;
}

int th__cuda_caching_delete(th__cuda_caching *caching)
{
    if (!caching) return TH_OK;
    int status = TH_OK;
    for (int i = 0; i < caching->ndevices; i++) {
        int rc = dev_destroy(&caching->devs[i]);
        if (rc && !status) status = rc;
    }
    free(caching->devs);
    free(caching);
    return status;
}
