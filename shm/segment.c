/* shm/segment.c: shared-memory segments and the allocator that hands them out.
 *
 * Every block is a segment of its own: a 128-byte shared header (magic, version, kind, a cross-process
 * reference count, the size, the name) followed by the data, which is the block pointer. A private page of
 * process-local bookkeeping sits just below the header in the same reservation, so free finds everything
 * from the pointer and a forked child, which inherits both, can tell that it did not count itself in.
 *
 * Named segments (TH_SHM_NAME) live in /dev/shm under an unguessable name, created O_CREAT|O_EXCL, mode 0600;
 * every process that holds one has registered its name with the manager before creating or opening it, and
 * tells the manager when its last mapping goes (see "names this process holds" below). Unnamed
 * segments (TH_SHM_FD) are memfds, sealed against shrinking and growing so that no holder can make another
 * one's mapping fault: they never have a name, and the kernel frees them when the last descriptor and mapping
 * go. Both reserve their memory up front with posix_fallocate: a full /dev/shm is an error at allocation,
 * never a SIGBUS later. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "shm_internal.h"

#include "manager_client.h"
#include "manager_protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

_Static_assert(sizeof(th__shm_header) == TH__SHM_HEADER_BYTES, "th__shm_header is 128 bytes");
_Static_assert(TH__SHM_HEADER_BYTES % 64 == 0, "the data stays 64-byte aligned");
#if !defined(__GCC_ATOMIC_LLONG_LOCK_FREE) || __GCC_ATOMIC_LLONG_LOCK_FREE != 2
#error "the cross-process reference count needs lock-free 64-bit atomics"
#endif

static const char th__shm_magic[8] = {'t', 'h', 's', 'h', 'm', 's', 'e', 'g'};
#define TH__SHM_LOCAL_MAGIC UINT64_C(0x7468736d6c6f6361) /* "thsmloca" */

/* ---- errors ------------------------------------------------------------------------------------------- */

static _Thread_local char th__shm_detail[400];
static _Thread_local th_status th__shm_detail_status;
static _Thread_local const char *th__shm_caller;

int th__shm_fail(th_status status, const char *fn, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(th__shm_detail, sizeof th__shm_detail, fmt, ap);
    va_end(ap);
    th__shm_detail_status = status;
    return th_set_error(status, fn, "%s", th__shm_detail);
}

void th__shm_forget_error(void) { th__shm_detail_status = TH_OK; }

int th__shm_refail(const char *fn)
{
    if (th__shm_detail_status == TH_OK) return TH_OK;
    return th_set_error(th__shm_detail_status, fn, "%s", th__shm_detail);
}

const char *th__shm_set_caller(const char *fn)
{
    const char *previous = th__shm_caller;
    th__shm_caller = fn;
    return previous;
}

static const char *th__shm_fn(void) { return th__shm_caller ? th__shm_caller : "th_shm_allocator"; }

const char *th__shm_fd_limit_advice(char *buf, size_t cap, bool advise_name)
{
    struct rlimit rl;
    char limit[32] = "?";
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        snprintf(limit, sizeof limit, "%llu", (unsigned long long)rl.rlim_cur);
    if (advise_name)
        snprintf(buf, cap,
                 "this process has reached its limit of open file descriptors (RLIMIT_NOFILE = %s); every storage "
                 "shared with the fd strategy holds one: raise the limit (ulimit -n, or setrlimit(RLIMIT_NOFILE)) or "
                 "use the name strategy (th_shm_set_strategy(TH_SHM_NAME))",
                 limit);
    else
        snprintf(buf, cap,
                 "this process has reached its limit of open file descriptors (RLIMIT_NOFILE = %s); a named segment "
                 "needs one only while it is made, opened or sent, so they are held elsewhere (each storage shared "
                 "with the fd strategy holds one): raise the limit (ulimit -n, or setrlimit(RLIMIT_NOFILE))",
                 limit);
    return buf;
}

bool th__shm_over_fsize_limit(uint64_t bytes, unsigned long long *limit)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_FSIZE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return false;
    *limit = (unsigned long long)rl.rlim_cur;
    return bytes > (uint64_t)rl.rlim_cur;
}

/* An error of a system call on a segment: the descriptor limits and out of memory get their own words. kind
 * is the segment's strategy, which decides the advice for running out of descriptors. */
static void th__shm_fail_errno(const char *fn, int err, uint32_t kind, const char *what)
{
    char advice[400];
    if (err == EMFILE)
        th__shm_fail(TH_ERR_IO, fn, "%s: %s", what,
                     th__shm_fd_limit_advice(advice, sizeof advice, kind == TH__SHM_KIND_FD));
    else if (err == ENFILE)
        th__shm_fail(TH_ERR_IO, fn, "%s: the system's table of open files is full (ENFILE; see fs.file-max)", what);
    else if (err == ENOMEM)
        th__shm_fail(TH_ERR_NOMEM, fn, "%s: out of memory", what);
    else
        th__shm_fail(TH_ERR_IO, fn, "%s: %s", what, strerror(err));
}

/* ---- names -------------------------------------------------------------------------------------------- */

enum { TH__SHM_PREFIX_MAX = 24 }; /* with "/", "_<pid>_" and 32 hex digits: at most 70 bytes */
static pthread_mutex_t th__shm_prefix_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t th__shm_prefix_once = PTHREAD_ONCE_INIT;
static char th__shm_prefix[TH__SHM_PREFIX_MAX + 1];
static bool th__shm_prefix_set;

/* A fork() while another thread names a segment would leave the child this lock held by no one, and its
 * first named share hung. No other lock is taken while it is held, so its handlers may run in any order. */
static void th__shm_prefix_prepare(void) { pthread_mutex_lock(&th__shm_prefix_lock); }
static void th__shm_prefix_after(void) { pthread_mutex_unlock(&th__shm_prefix_lock); }
static void th__shm_prefix_init(void) { pthread_atfork(th__shm_prefix_prepare, th__shm_prefix_after, th__shm_prefix_after); }

#define TH__SHM_PREFIX_RULE "1 to 24 characters of [A-Za-z0-9_.-], not starting with '.'"

/* Whether names made with prefix pass the one rule for names, the manager's (th__shm_name_problem), checked
 * on "/<prefix>": the rest of a name, "_<pid>_<hex digits>", always passes it. If not, why, into why. */
static bool th__shm_prefix_ok(const char *p, char *why, size_t cap)
{
    size_t n = strlen(p);
    if (n < 1 || n > TH__SHM_PREFIX_MAX) {
        snprintf(why, cap, "\"%.40s\" is not 1 to 24 characters long", p);
        return false;
    }
    char name[TH__SHM_PREFIX_MAX + 2] = "/";
    memcpy(name + 1, p, n + 1);
    const char *problem = th__shm_name_problem(name, n + 1);
    if (problem) snprintf(why, cap, "\"%s\" makes names the manager refuses (\"%s_...\" %s)", p, name, problem);
    return problem == NULL;
}

int th_shm_set_prefix(const char *prefix)
{
    char why[160];
    if (prefix && !th__shm_prefix_ok(prefix, why, sizeof why))
        return th_set_error(TH_ERR_INVALID, "th_shm_set_prefix", "prefix %s: a prefix is " TH__SHM_PREFIX_RULE, why);
    pthread_once(&th__shm_prefix_once, th__shm_prefix_init);
    pthread_mutex_lock(&th__shm_prefix_lock);
    th__shm_prefix_set = prefix != NULL;
    if (prefix) strcpy(th__shm_prefix, prefix);
    pthread_mutex_unlock(&th__shm_prefix_lock);
    return TH_OK;
}

static int th__shm_random(const char *fn, unsigned char *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom(buf + got, n - got, 0);
        if (r > 0) {
            got += (size_t)r;
            continue;
        }
        if (r < 0 && errno == EINTR) continue;
        break;
    }
    if (got == n) return TH_OK;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return th__shm_fail(TH_ERR_IO, fn, "no randomness for a segment name: getrandom and /dev/urandom failed");
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r > 0)
            got += (size_t)r;
        else if (!(r < 0 && errno == EINTR))
            break;
    }
    close(fd);
    return got == n ? TH_OK : th__shm_fail(TH_ERR_IO, fn, "no randomness for a segment name: /dev/urandom failed");
}

/* "/<prefix>_<pid>_<32 hex digits>": 128 random bits, so no other process can guess a live name. */
static int th__shm_new_name(const char *fn, char name[TH_SHM_NAME_MAX])
{
    unsigned char r[16];
    if (th__shm_random(fn, r, sizeof r)) return th_last_status();
    char hex[33];
    for (int i = 0; i < 16; i++) snprintf(hex + 2 * i, 3, "%02x", r[i]);
    char prefix[TH__SHM_PREFIX_MAX + 1] = "th";
    char why[160];
    bool bad_env = false;
    pthread_once(&th__shm_prefix_once, th__shm_prefix_init);
    pthread_mutex_lock(&th__shm_prefix_lock);
    if (th__shm_prefix_set) {
        strcpy(prefix, th__shm_prefix);
    } else {
        const char *env = getenv("TH_SHM_PREFIX");
        if (env && !*env) env = NULL; /* set but empty: as if unset */
        if (env && th__shm_prefix_ok(env, why, sizeof why))
            strcpy(prefix, env);
        else if (env)
            bad_env = true;
    }
    pthread_mutex_unlock(&th__shm_prefix_lock);
    /* Refused rather than replaced by the default: whoever set it counts on the names it makes. */
    if (bad_env)
        return th__shm_fail(TH_ERR_INVALID, fn, "TH_SHM_PREFIX=%s: a prefix is " TH__SHM_PREFIX_RULE
                            " (or unset it, for \"th\")", why);
    snprintf(name, TH_SHM_NAME_MAX, "/%s_%d_%s", prefix, (int)getpid(), hex);
    return TH_OK;
}

/* ---- mappings ----------------------------------------------------------------------------------------- */

static size_t th__shm_page(void)
{
    static atomic_size_t page;
    size_t p = atomic_load_explicit(&page, memory_order_relaxed);
    if (!p) {
        long v = sysconf(_SC_PAGESIZE);
        p = v > 0 ? (size_t)v : 4096;
        atomic_store_explicit(&page, p, memory_order_relaxed);
    }
    return p;
}

th__shm_local *th__shm_local_of(const void *data)
{
    if (!data) return NULL;
    th__shm_local *local = (th__shm_local *)((char *)data - TH__SHM_HEADER_BYTES - th__shm_page());
    return local;
}

th__shm_header *th__shm_header_of(const void *data)
{
    return (th__shm_header *)((char *)data - TH__SHM_HEADER_BYTES);
}

/* The segment's size (header and data), checked against overflow. */
static int th__shm_segment_bytes(const char *fn, int64_t nbytes, size_t *out)
{
    size_t page = th__shm_page();
    if (nbytes <= 0 || (uint64_t)nbytes > (uint64_t)INT64_MAX - TH__SHM_HEADER_BYTES - page)
        return th__shm_fail(TH_ERR_OVERFLOW, fn, "a segment of %lld bytes is out of range", (long long)nbytes);
    *out = (size_t)nbytes + TH__SHM_HEADER_BYTES;
    return TH_OK;
}

/* Maps fd's segment (segment_bytes) below which a private page holds the bookkeeping; returns the data. */
static void *th__shm_map(const char *fn, int fd, size_t segment_bytes, int64_t nbytes, uint32_t kind)
{
    size_t page = th__shm_page();
    size_t total = page + segment_bytes;
    /* Address space only (PROT_NONE commits no memory), then the bookkeeping page and the segment into it. */
    char *base = (char *)mmap(NULL, total, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) {
        th__shm_fail_errno(fn, errno, kind, "could not reserve address space for a shared segment");
        return NULL;
    }
    void *seg = mmap(base, page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (seg != MAP_FAILED)
        seg = mmap(base + page, segment_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (seg == MAP_FAILED) {
        int err = errno;
        munmap(base, total);
        th__shm_fail_errno(fn, err, kind, "could not map the shared segment");
        return NULL;
    }
    th__shm_local *local = (th__shm_local *)base;
    local->magic = TH__SHM_LOCAL_MAGIC;
    local->map_bytes = total;
    local->nbytes = nbytes;
    local->owner = (int64_t)getpid();
    local->counted = false;
    local->fd = -1;
    local->kind = kind;
    local->unlink_at_zero = false;
    local->name[0] = '\0';
    local->uses = 1;
    local->storage = NULL;
    local->dev = 0;
    local->ino = 0;
    local->next_by_id = local->next_by_name = NULL;
    return base + page + TH__SHM_HEADER_BYTES;
}

static void th__shm_unmap(th__shm_local *local)
{
    if (local->fd >= 0) close(local->fd);
    munmap(local, local->map_bytes);
}

/* Reserves the segment's memory now (posix_fallocate grows the file and allocates its pages), so that a full
 * /dev/shm fails here rather than with a SIGBUS on first touch. */
static int th__shm_reserve(const char *fn, int fd, size_t segment_bytes, int64_t nbytes, const char *name)
{
    const char *what = name ? name : "(memfd)";
    unsigned long long limit = 0;
    /* Checked first: growing a file past RLIMIT_FSIZE also sends SIGXFSZ, which ends the process by default. */
    if (th__shm_over_fsize_limit(segment_bytes, &limit))
        return th__shm_fail(TH_ERR_NOMEM, fn,
                            "could not reserve %lld bytes for shared segment %s: with its %d-byte header it is larger "
                            "than this process's file size limit (RLIMIT_FSIZE = %llu bytes): raise the limit "
                            "(ulimit -f, or setrlimit(RLIMIT_FSIZE))",
                            (long long)nbytes, what, TH__SHM_HEADER_BYTES, limit);
    int err;
    do err = posix_fallocate(fd, 0, (off_t)segment_bytes);
    while (err == EINTR);
    if (err == 0) return TH_OK;
    if (err == EFBIG)
        return th__shm_fail(TH_ERR_NOMEM, fn,
                            "could not reserve %lld bytes for shared segment %s: larger than a file may be here "
                            "(EFBIG: the file size limit, RLIMIT_FSIZE, or the file system's largest file)",
                            (long long)nbytes, what);
    if (err == ENOSPC || err == ENOMEM) {
        if (name) {
            struct statvfs vfs;
            char room[96] = "";
            if (statvfs("/dev/shm", &vfs) == 0)
                snprintf(room, sizeof room, " (%llu of %llu bytes free)",
                         (unsigned long long)vfs.f_bavail * vfs.f_frsize,
                         (unsigned long long)vfs.f_blocks * vfs.f_frsize);
            return th__shm_fail(TH_ERR_NOMEM, fn,
                                "/dev/shm is full: could not reserve %lld bytes for shared segment %s%s: %s; free "
                                "space there or make it bigger (Docker: --shm-size)",
                                (long long)nbytes, name, room, strerror(err));
        }
        return th__shm_fail(TH_ERR_NOMEM, fn, "could not reserve %lld bytes of shared memory (memfd): %s",
                            (long long)nbytes, strerror(err));
    }
    return th__shm_fail(TH_ERR_IO, fn, "could not reserve %lld bytes for shared segment %s: %s", (long long)nbytes,
                        what, strerror(err));
}

static void th__shm_header_init(th__shm_header *h, uint32_t kind, int64_t nbytes, const char *name)
{
    memcpy(h->magic, th__shm_magic, sizeof h->magic);
    h->version = TH__SHM_SEGMENT_VERSION;
    h->kind = kind;
    h->nbytes = nbytes;
    memset(h->name, 0, sizeof h->name);
    if (name) strcpy(h->name, name);
    __atomic_store_n(&h->refcount, 1, __ATOMIC_RELEASE);
}

/* ---- the segments this process maps -------------------------------------------------------------------
 *
 * A process maps a segment once however often it arrives (opened again by name, received again by
 * descriptor, opened by the process that made it), and while a storage over that mapping is alive every
 * arrival is a tensor over that same th_storage, as torch.multiprocessing's storage cache hands out one
 * storage per segment and process. Every storage over a mapping is one use of it, and the last one lets go
 * of the segment (counts out, unmaps); there is one such storage, except where an open found none to hand
 * out (see below). Found by name (named segments whose name this process holds) or by the file's identity
 * (device and inode, for a descriptor). A forked child inherits its parent's mappings but not this table:
 * what it opens it maps, and counts in, itself.
 *
 * The storage an open hands out is recorded in the mapping's bookkeeping without a reference (a reference
 * would keep the segment alive for ever): an open takes it with th_storage_try_retain under this table's
 * lock. That it is still a struct to look at there rests on two things:
 *   - core/storage.h's order in th_storage_release: the count drops to 0 with a locked decrement (so
 *     th_storage_try_retain refuses it from then on), then the allocator's free runs (th__shm_free), and
 *     only after that returns is the struct freed;
 *   - a recorded storage's memory is this mapping, and it can leave the mapping only through that free (the
 *     last release, th_storage_move_to into other memory, a resize to 0 bytes; growing is refused), which
 *     clears the record under this lock (th__shm_maps_drop) before it returns.
 * So under the lock a recorded storage is a live struct, whose count is 0 only while its free is on the way:
 * an open then waits for that free (th__shm_maps_cleared), after which the mapping is normally gone and the
 * segment is attached afresh. The record is cleared by whichever storage's memory leaves the mapping, which is
 * the recorded one but for the case of several storages over one mapping: clearing more often than needed
 * costs only a storage more, never a storage freed under the record. A storage is recorded by the open that
 * made it and by the sharing of one this process made (th__shm_note_storage): every handle and descriptor of
 * a segment made here is made by sharing it first, so an open here finds the maker's storage. */

enum { TH__SHM_MAPS_BUCKETS = 512 };
static th__shm_local *th__shm_maps_by_id[TH__SHM_MAPS_BUCKETS], *th__shm_maps_by_name[TH__SHM_MAPS_BUCKETS];
static pthread_mutex_t th__shm_maps_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t th__shm_maps_cleared = PTHREAD_COND_INITIALIZER; /* a record was cleared */
static int64_t th__shm_maps_pid;
static pthread_once_t th__shm_maps_once = PTHREAD_ONCE_INIT;

/* No path takes another lock while it holds this one (th_storage_try_retain takes none). The open lock is
 * held around it, so fork's prepare handlers must take that one first: th__shm_open_init registers it after
 * this. */
static void th__shm_maps_prepare(void) { pthread_mutex_lock(&th__shm_maps_lock); }
static void th__shm_maps_after(void) { pthread_mutex_unlock(&th__shm_maps_lock); }
static void th__shm_maps_child(void)
{
    /* A condition variable copied while its waiters, threads of the parent, waited would keep counting
     * them here, and a broadcast could wait for them for ever. */
    pthread_cond_init(&th__shm_maps_cleared, NULL);
    pthread_mutex_unlock(&th__shm_maps_lock);
}
static void th__shm_maps_init(void) { pthread_atfork(th__shm_maps_prepare, th__shm_maps_after, th__shm_maps_child); }

static void th__shm_maps_lock_own(void)
{
    pthread_once(&th__shm_maps_once, th__shm_maps_init);
    pthread_mutex_lock(&th__shm_maps_lock);
    int64_t self = (int64_t)getpid();
    if (th__shm_maps_pid == self) return;
    /* A forked child's copy lists its parent's mappings: they stay mapped here, but are not this process's. */
    memset(th__shm_maps_by_id, 0, sizeof th__shm_maps_by_id);
    memset(th__shm_maps_by_name, 0, sizeof th__shm_maps_by_name);
    th__shm_maps_pid = self;
}

static size_t th__shm_id_bucket(dev_t dev, ino_t ino)
{
    uint64_t h = ((uint64_t)dev * 0x9E3779B97F4A7C15u) ^ (uint64_t)ino;
    return (size_t)((h ^ (h >> 29)) % TH__SHM_MAPS_BUCKETS);
}

static size_t th__shm_name_bucket(const char *name)
{
    return (size_t)(th__shm_name_hash(name, strlen(name)) % TH__SHM_MAPS_BUCKETS);
}

/* Lists a new mapping of the file st describes (one use: the caller's). */
static void th__shm_maps_add(th__shm_local *local, const struct stat *st)
{
    local->dev = st->st_dev;
    local->ino = st->st_ino;
    th__shm_maps_lock_own();
    th__shm_local **id = &th__shm_maps_by_id[th__shm_id_bucket(local->dev, local->ino)];
    local->next_by_id = *id;
    *id = local;
    if (local->unlink_at_zero) {
        th__shm_local **nm = &th__shm_maps_by_name[th__shm_name_bucket(local->name)];
        local->next_by_name = *nm;
        *nm = local;
    }
    pthread_mutex_unlock(&th__shm_maps_lock);
}

/* Under the lock: this process's mapping of name / of the file (dev, ino), or NULL. */
static th__shm_local *th__shm_maps_find(const char *name, const struct stat *st)
{
    th__shm_local *l = NULL;
    if (name) {
        for (l = th__shm_maps_by_name[th__shm_name_bucket(name)]; l; l = l->next_by_name)
            if (strcmp(l->name, name) == 0) break;
    } else {
        for (l = th__shm_maps_by_id[th__shm_id_bucket(st->st_dev, st->st_ino)]; l; l = l->next_by_id)
            if (l->dev == st->st_dev && l->ino == st->st_ino) break;
    }
    return l;
}

/* This process's mapping of name / of the file (dev, ino): its data, with its live storage retained into
 * *storage, or (none alive) with one use more for the caller's new storage; NULL if there is no mapping. A
 * mapping of another size than the handle says is an error (the file was resized under it): *mismatch gets
 * its size. */
static void *th__shm_maps_take(const char *name, const struct stat *st, int64_t nbytes, int64_t *mismatch,
                               th_storage **storage)
{
    *mismatch = -1;
    *storage = NULL;
    th__shm_maps_lock_own();
    th__shm_local *l;
    /* A recorded storage that refuses is one whose last release is on its way to th__shm_free: handing out a
     * second storage over the mapping meanwhile would make two, so the open waits for that free. */
    while ((l = th__shm_maps_find(name, st)) && l->nbytes == nbytes && l->storage &&
           !(*storage = th_storage_try_retain(l->storage)))
        pthread_cond_wait(&th__shm_maps_cleared, &th__shm_maps_lock);
    void *data = NULL;
    if (l && l->nbytes != nbytes) {
        *mismatch = l->nbytes;
    } else if (l) {
        if (!*storage) l->uses++;
        data = (char *)l + l->map_bytes - (size_t)l->nbytes;
    }
    pthread_mutex_unlock(&th__shm_maps_lock);
    return data;
}

/* Records storage (over local's mapping) as the one opens hand out, unless one is recorded already or the
 * mapping is not in this process's table (a forked child's inherited one). */
static void th__shm_maps_record(th__shm_local *local, th_storage *storage)
{
    th__shm_maps_lock_own();
    th__shm_local *l = th__shm_maps_by_id[th__shm_id_bucket(local->dev, local->ino)];
    while (l && l != local) l = l->next_by_id;
    if (l && !l->storage) l->storage = storage;
    pthread_mutex_unlock(&th__shm_maps_lock);
}

/* A use fewer; true when it was the last (the mapping is then off the table, for the caller to let go). The
 * record goes in any case: the storage letting go may be the recorded one, and it is freed once this returns. */
static bool th__shm_maps_drop(th__shm_local *local)
{
    th__shm_maps_lock_own();
    if (local->storage) {
        local->storage = NULL;
        pthread_cond_broadcast(&th__shm_maps_cleared);
    }
    bool last = --local->uses == 0;
    if (last) {
        th__shm_local **link = &th__shm_maps_by_id[th__shm_id_bucket(local->dev, local->ino)];
        while (*link && *link != local) link = &(*link)->next_by_id;
        if (*link) *link = local->next_by_id;
        link = &th__shm_maps_by_name[th__shm_name_bucket(local->name)];
        while (*link && *link != local) link = &(*link)->next_by_name;
        if (*link) *link = local->next_by_name;
    }
    pthread_mutex_unlock(&th__shm_maps_lock);
    return last;
}

/* ---- names this process holds -----------------------------------------------------------------------
 *
 * The manager keeps, per process, the names it holds; a process letting go of a name it did not unlink asks
 * the manager to release it, which unlinks it when no other live process holds it. That is what frees a
 * segment whose in-segment count a SIGKILLed holder left too high. A process may map one segment twice for a
 * moment (an open maps it again while the last storage over the old mapping is still letting go of it), so
 * the manager hears of a name when this process's first mapping of it comes and when its last goes: the count
 * per name is kept here. */

typedef struct th__shm_held {
    struct th__shm_held *next;
    int64_t mappings;
    char name[TH_SHM_NAME_MAX];
} th__shm_held;

enum { TH__SHM_HELD_BUCKETS = 1024 };
static th__shm_held *th__shm_held_table[TH__SHM_HELD_BUCKETS];
static pthread_mutex_t th__shm_held_lock = PTHREAD_MUTEX_INITIALIZER;
static int64_t th__shm_held_pid;
static pthread_once_t th__shm_held_once = PTHREAD_ONCE_INIT;

static void th__shm_held_prepare(void) { pthread_mutex_lock(&th__shm_held_lock); }
static void th__shm_held_after(void) { pthread_mutex_unlock(&th__shm_held_lock); }
static void th__shm_held_init(void)
{
    /* A fork() in another thread must not leave the child a locked table. The lock is held across calls to
     * the manager client, which takes its own lock: so the client's fork handlers are registered first (any
     * of its calls does that), and fork's prepare handlers, which run in the reverse order, take the two
     * locks in the same order as every other path: this table's, then the client's. */
    (void)th__shm_manager_pid();
    pthread_atfork(th__shm_held_prepare, th__shm_held_after, th__shm_held_after);
}

/* Under the lock: the table is this process's (a forked child's copy holds its parent's names: dropped). */
static void th__shm_held_own(void)
{
    int64_t self = (int64_t)getpid();
    if (th__shm_held_pid == self) return;
    for (size_t i = 0; i < TH__SHM_HELD_BUCKETS; i++) {
        for (th__shm_held *e = th__shm_held_table[i], *next; e; e = next) {
            next = e->next;
            free(e);
        }
        th__shm_held_table[i] = NULL;
    }
    th__shm_held_pid = self;
}

static th__shm_held **th__shm_held_find(const char *name)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a */
    for (const char *c = name; *c; c++) h = (h ^ (unsigned char)*c) * 1099511628211u;
    th__shm_held **link = &th__shm_held_table[h % TH__SHM_HELD_BUCKETS];
    while (*link && strcmp((*link)->name, name) != 0) link = &(*link)->next;
    return link;
}

/* One more mapping of name in this process; the first registers the name with the manager. */
static int th__shm_hold(const char *fn, const char *name)
{
    pthread_once(&th__shm_held_once, th__shm_held_init);
    pthread_mutex_lock(&th__shm_held_lock);
    th__shm_held_own();
    th__shm_held **link = th__shm_held_find(name);
    int rc = TH_OK;
    if (*link) {
        (*link)->mappings++;
    } else {
        th__shm_held *e = (th__shm_held *)malloc(sizeof *e);
        if (!e) {
            rc = th__shm_fail(TH_ERR_NOMEM, fn, "out of memory");
        } else if ((rc = th__shm_manager_register(name)) < 0) {
            free(e);
            th__shm_fail(rc, fn, "could not register shared segment %s with the manager: %s", name,
                         th_shm_manager_last_error());
        } else {
            e->next = NULL;
            e->mappings = 1;
            strcpy(e->name, name);
            *link = e;
        }
    }
    pthread_mutex_unlock(&th__shm_held_lock);
    return rc;
}

/* One mapping fewer. When it was this process's last: unlinked (or never made, never opened) tells the
 * manager to forget the name; otherwise the manager releases it, unlinking it if no live process holds it. */
static void th__shm_unhold(const char *name, bool unlinked)
{
    pthread_once(&th__shm_held_once, th__shm_held_init);
    pthread_mutex_lock(&th__shm_held_lock);
    th__shm_held_own();
    th__shm_held **link = th__shm_held_find(name);
    th__shm_held *e = *link;
    if (e && --e->mappings == 0) {
        *link = e->next;
        free(e);
        /* Errors are not reported: letting go cannot fail, and the manager's books are only a safety net. */
        if (unlinked)
            th__shm_manager_unregister(name);
        else
            th__shm_manager_release(name);
    }
    pthread_mutex_unlock(&th__shm_held_lock);
}

/* ---- creating ----------------------------------------------------------------------------------------- */

static void *th__shm_create_fd(const char *fn, int64_t nbytes)
{
    size_t segment_bytes = 0;
    if (th__shm_segment_bytes(fn, nbytes, &segment_bytes)) return NULL;
    int fd = memfd_create("th_shm", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) {
        th__shm_fail_errno(fn, errno, TH__SHM_KIND_FD, "could not create a shared segment (memfd_create)");
        return NULL;
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        th__shm_fail_errno(fn, errno, TH__SHM_KIND_FD, "could not stat a new shared segment (memfd)");
        close(fd);
        return NULL;
    }
    if (th__shm_reserve(fn, fd, segment_bytes, nbytes, NULL)) {
        close(fd);
        return NULL;
    }
    /* No holder may change the size: a shrink would make every other holder's mapping fault. */
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
        th__shm_fail_errno(fn, errno, TH__SHM_KIND_FD, "could not seal the shared segment");
        close(fd);
        return NULL;
    }
    void *data = th__shm_map(fn, fd, segment_bytes, nbytes, TH__SHM_KIND_FD);
    if (!data) {
        close(fd);
        return NULL;
    }
    th__shm_header_init(th__shm_header_of(data), TH__SHM_KIND_FD, nbytes, NULL);
    th__shm_local *local = th__shm_local_of(data);
    local->fd = fd;
    local->counted = true;
    th__shm_maps_add(local, &st);
    return data;
}

static void *th__shm_create_name(const char *fn, int64_t nbytes)
{
    size_t segment_bytes = 0;
    if (th__shm_segment_bytes(fn, nbytes, &segment_bytes)) return NULL;
    char name[TH_SHM_NAME_MAX];
    int fd = -1;
    for (int attempt = 0; fd < 0; attempt++) {
        if (th__shm_new_name(fn, name)) return NULL;
        /* Registered before it exists: a crash between the two leaves the manager a name to unlink, never an
         * unknown segment. */
        if (th__shm_hold(fn, name)) return NULL;
        fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        if (fd < 0) {
            int err = errno;
            th__shm_unhold(name, true);
            if (err == EEXIST && attempt < 3) continue; /* 128 random bits: never, but cheap to handle */
            char what[160];
            snprintf(what, sizeof what, "could not create shared segment %s in /dev/shm", name);
            th__shm_fail_errno(fn, err, TH__SHM_KIND_NAME, what);
            return NULL;
        }
    }
    void *data = NULL;
    struct stat st;
    if (fstat(fd, &st) != 0)
        th__shm_fail_errno(fn, errno, TH__SHM_KIND_NAME, "could not stat a new shared segment");
    else if (th__shm_reserve(fn, fd, segment_bytes, nbytes, name) == TH_OK)
        data = th__shm_map(fn, fd, segment_bytes, nbytes, TH__SHM_KIND_NAME);
    close(fd); /* the name reopens it when it must be sent */
    if (!data) {
        shm_unlink(name);
        th__shm_unhold(name, true);
        return NULL;
    }
    th__shm_header_init(th__shm_header_of(data), TH__SHM_KIND_NAME, nbytes, name);
    th__shm_local *local = th__shm_local_of(data);
    strcpy(local->name, name);
    local->unlink_at_zero = true;
    local->counted = true;
    th__shm_maps_add(local, &st);
    return data;
}

/* ---- attaching ----------------------------------------------------------------------------------------
 *
 * The header is shared memory that any holder may write at any moment, a hostile one included: it is read
 * once into a private copy, and every check and every use is of that copy, never a second read of the
 * shared one; the reference count, which must stay shared, is only changed after a check of the value the
 * change is made from. */

/* No set of processes gets near this many holders: a count above it was written by someone, not counted. */
#define TH__SHM_COUNT_MAX ((int64_t)1 << 40)

static void th__shm_header_read(const th__shm_header *shared, th__shm_header *copy)
{
    /* volatile: each byte is read exactly once, so the compiler may not read the shared header again later
     * in place of the copy */
    const volatile unsigned char *from = (const volatile unsigned char *)shared;
    unsigned char *to = (unsigned char *)copy;
    for (size_t i = 0; i < sizeof *copy; i++) to[i] = from[i];
}

/* Counts this process in: 1 when counted, 0 when the count is 0 or below (the segment is being freed: not
 * counted), or TH_ERR_IO when the count is no count (above TH__SHM_COUNT_MAX), left as it is. */
static int th__shm_count_in(const char *fn, th__shm_header *h, const char *what)
{
    int64_t n = __atomic_load_n(&h->refcount, __ATOMIC_ACQUIRE);
    for (;;) {
        if (n <= 0) return 0;
        if (n >= TH__SHM_COUNT_MAX)
            return th__shm_fail(TH_ERR_IO, fn,
                                "%s's header holds reference count %lld, more holders than could exist: another "
                                "process overwrote it; the segment is not opened",
                                what, (long long)n);
        if (__atomic_compare_exchange_n(&h->refcount, &n, n + 1, true, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) return 1;
    }
}

/* Counts this process out; the count left, or -1 when the count was no count (0 or below, or above
 * TH__SHM_COUNT_MAX: another process wrote it), which is left as it is. */
static int64_t th__shm_count_out(th__shm_header *h)
{
    int64_t n = __atomic_load_n(&h->refcount, __ATOMIC_ACQUIRE);
    for (;;) {
        if (n <= 0 || n > TH__SHM_COUNT_MAX) return -1;
        if (__atomic_compare_exchange_n(&h->refcount, &n, n - 1, true, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            return n - 1;
    }
}

/* Checks what fd holds before mapping it: a regular file (or memfd) exactly as big as the handle says. */
static int th__shm_check_file(const char *fn, int fd, int64_t nbytes, const char *what, size_t *segment_bytes,
                              struct stat *st)
{
    if (th__shm_segment_bytes(fn, nbytes, segment_bytes)) return th_last_status();
    if (fstat(fd, st) != 0) return th__shm_fail(TH_ERR_IO, fn, "%s: fstat: %s", what, strerror(errno));
    if (!S_ISREG(st->st_mode)) return th__shm_fail(TH_ERR_IO, fn, "%s is not a shared-memory segment", what);
    if (st->st_size < TH__SHM_HEADER_BYTES)
        return th__shm_fail(TH_ERR_SHAPE, fn, "%s holds %lld bytes, less than a segment header: not a tensor.h segment",
                            what, (long long)st->st_size);
    if ((uint64_t)st->st_size != (uint64_t)*segment_bytes)
        return th__shm_fail(TH_ERR_SHAPE, fn, "%s holds %lld bytes of data, but the handle says %lld", what,
                            (long long)(st->st_size - TH__SHM_HEADER_BYTES), (long long)nbytes);
    return TH_OK;
}

/* Checks a private copy of a header (th__shm_header_read). */
static int th__shm_check_header(const char *fn, const th__shm_header *h, int64_t nbytes, const char *what)
{
    if (memcmp(h->magic, th__shm_magic, sizeof h->magic) != 0)
        return th__shm_fail(TH_ERR_IO, fn, "%s is not a tensor.h segment (no segment header)", what);
    if (h->version != TH__SHM_SEGMENT_VERSION)
        return th__shm_fail(TH_ERR_IO, fn, "%s has segment version %u; this build reads %d", what, (unsigned)h->version,
                            TH__SHM_SEGMENT_VERSION);
    if (h->kind != TH__SHM_KIND_FD && h->kind != TH__SHM_KIND_NAME)
        return th__shm_fail(TH_ERR_IO, fn, "%s has an unknown kind %u", what, (unsigned)h->kind);
    if (h->nbytes != nbytes)
        return th__shm_fail(TH_ERR_SHAPE, fn, "%s's header says %lld bytes of data, the handle %lld", what,
                            (long long)h->nbytes, (long long)nbytes);
    if (h->kind == TH__SHM_KIND_NAME &&
        (memchr(h->name, '\0', sizeof h->name) == NULL || !th__shm_name_valid(h->name, strlen(h->name))))
        return th__shm_fail(TH_ERR_IO, fn, "%s's header holds no valid name", what);
    return TH_OK;
}

/* The mapping this process has already, when its size is the handle's (and its live storage, retained, into
 * *storage: see th__shm_maps_take); NULL (*failed false) when there is none, or NULL with the error recorded
 * (*failed true). */
static void *th__shm_reuse(const char *fn, const char *name, const struct stat *st, int64_t nbytes,
                           const char *what, bool *failed, th_storage **storage)
{
    int64_t has;
    void *data = th__shm_maps_take(name, st, nbytes, &has, storage);
    *failed = !data && has >= 0;
    if (*failed)
        th__shm_fail(TH_ERR_SHAPE, fn, "%s holds %lld bytes of data, but the handle says %lld", what, (long long)has,
                     (long long)nbytes);
    return data;
}

/* Attaches a segment by name (shm_open) or by a descriptor received from another process (which the mapping
 * then owns: it is closed on error too). nbytes is what the handle says the data holds. A segment this
 * process maps already is not mapped again: the data of that mapping comes back, and its live storage
 * (retained) into *storage, or else one use more of it. Returns the data, or NULL with the error recorded
 * under fn. */
static void *th__shm_attach_name(const char *fn, const char *name, int64_t nbytes, th_storage **storage)
{
    char what[TH_SHM_NAME_MAX + 32];
    snprintf(what, sizeof what, "shared segment %s", name);
    bool failed;
    void *data = th__shm_reuse(fn, name, NULL, nbytes, what, &failed, storage);
    if (data || failed) return data;
    /* Registered before it is opened, as when creating: the manager then never misses a holder. */
    if (th__shm_hold(fn, name)) return NULL;
    int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0);
    if (fd < 0) {
        int err = errno;
        th__shm_unhold(name, true);
        if (err == ENOENT)
            th__shm_fail(TH_ERR_IO, fn, "%s no longer exists: every process let go of it (keep the tensor alive in "
                         "the sender until the receiver has opened it) or it never existed", what);
        else if (err == EACCES)
            th__shm_fail(TH_ERR_IO, fn, "%s belongs to another user (mode 0600): permission denied", what);
        else
            th__shm_fail_errno(fn, err, TH__SHM_KIND_NAME, what);
        return NULL;
    }
    size_t segment_bytes = 0;
    struct stat st;
    if (th__shm_check_file(fn, fd, nbytes, what, &segment_bytes, &st) == TH_OK)
        data = th__shm_map(fn, fd, segment_bytes, nbytes, TH__SHM_KIND_NAME);
    close(fd);
    if (!data) {
        th__shm_unhold(name, true);
        return NULL;
    }
    th__shm_local *local = th__shm_local_of(data);
    th__shm_header h;
    th__shm_header_read(th__shm_header_of(data), &h);
    int bad = th__shm_check_header(fn, &h, nbytes, what);
    if (!bad && h.kind != TH__SHM_KIND_NAME) bad = th__shm_fail(TH_ERR_IO, fn, "%s is not a named segment", what);
    if (!bad && strcmp(h.name, name) != 0)
        bad = th__shm_fail(TH_ERR_IO, fn, "%s's header names another segment, %s", what, h.name);
    if (!bad) {
        int in = th__shm_count_in(fn, th__shm_header_of(data), what);
        if (in == 0) bad = th__shm_fail(TH_ERR_IO, fn, "%s no longer exists: its last holder is freeing it", what);
        if (in < 0) bad = in;
    }
    if (bad) {
        th__shm_unmap(local);
        th__shm_unhold(name, true);
        return NULL;
    }
    strcpy(local->name, name);
    local->unlink_at_zero = true;
    local->counted = true;
    th__shm_maps_add(local, &st);
    return data;
}

static void *th__shm_attach_fd(const char *fn, int fd, int64_t nbytes, th_storage **storage)
{
    const char *what = "the received descriptor";
    size_t segment_bytes = 0;
    struct stat st;
    bool failed = false;
    void *data = NULL;
    if (th__shm_check_file(fn, fd, nbytes, what, &segment_bytes, &st) == TH_OK)
        data = th__shm_reuse(fn, NULL, &st, nbytes, what, &failed, storage);
    else
        failed = true;
    if (data || failed) {
        close(fd); /* reused: the mapping has what it needs to send it on */
        return data;
    }
    int seals = fcntl(fd, F_GET_SEALS);
    data = th__shm_map(fn, fd, segment_bytes, nbytes, TH__SHM_KIND_FD);
    if (!data) {
        close(fd);
        return NULL;
    }
    th__shm_local *local = th__shm_local_of(data);
    local->fd = fd; /* closed with the mapping from here on */
    th__shm_header h;
    th__shm_header_read(th__shm_header_of(data), &h);
    if (th__shm_check_header(fn, &h, nbytes, what)) {
        th__shm_unmap(local);
        return NULL;
    }
    if (h.kind == TH__SHM_KIND_FD && (seals < 0 || !(seals & F_SEAL_SHRINK))) {
        th__shm_fail(TH_ERR_IO, fn, "%s is not sealed against shrinking: not a segment of ours", what);
        th__shm_unmap(local);
        return NULL;
    }
    local->kind = h.kind;
    bool hold = h.kind == TH__SHM_KIND_NAME;
    if (hold && th__shm_hold(fn, h.name)) { /* h.name: checked, in the private copy */
        th__shm_unmap(local);
        return NULL;
    }
    int in = th__shm_count_in(fn, th__shm_header_of(data), what);
    if (in < 0) {
        th__shm_unmap(local);
        if (hold) th__shm_unhold(h.name, true);
        return NULL;
    }
    local->counted = in == 1;
    if (hold && in == 1) {
        strcpy(local->name, h.name);
        local->unlink_at_zero = true;
        close(local->fd); /* the name reopens it when it must be sent on */
        local->fd = -1;
    } else if (hold) {
        /* Its name is gone (or going): the descriptor kept is the only way to send it on. */
        th__shm_unhold(h.name, true);
    }
    th__shm_maps_add(local, &st);
    return data;
}

/* ---- letting go --------------------------------------------------------------------------------------- */

void th__shm_release(void *data, size_t nbytes)
{
    (void)nbytes;
    th__shm_local *local = th__shm_local_of(data);
    if (local->magic != TH__SHM_LOCAL_MAGIC) return; /* not ours: nothing safe to do */
    if (!th__shm_maps_drop(local)) return;          /* another storage of this process still uses it */
    /* A forked child's inherited mapping was never counted by the child: it only unmaps. */
    if (!local->counted || local->owner != (int64_t)getpid()) {
        th__shm_unmap(local);
        return;
    }
    int64_t left = th__shm_count_out(th__shm_header_of(data));
    if (!local->unlink_at_zero) {
        th__shm_unmap(local);
        return;
    }
    char name[TH_SHM_NAME_MAX];
    strcpy(name, local->name);
    th__shm_unmap(local);
    /* A count that was no count (left -1) decides nothing: the manager, told of the release, unlinks the name
     * when no other live process holds it. */
    if (left == 0) shm_unlink(name); /* ENOENT: the manager was faster, after a holder died */
    th__shm_unhold(name, left == 0);
}

int th__shm_send_descriptor(const char *fn, const void *data, bool *close_after)
{
    th__shm_local *local = th__shm_local_of(data);
    *close_after = false;
    if (local->fd >= 0) return local->fd;
    int fd = shm_open(local->name, O_RDWR | O_CLOEXEC, 0);
    if (fd < 0) {
        char what[TH_SHM_NAME_MAX + 64];
        snprintf(what, sizeof what, "could not reopen shared segment %s to send it", local->name);
        th__shm_fail_errno(fn, errno, TH__SHM_KIND_NAME, what);
        return -1;
    }
    *close_after = true;
    return fd;
}

/* ---- the allocator ------------------------------------------------------------------------------------ */

/* th__shm_adopt hands a mapping it attached to th_storage_new through this, on this thread only. */
static _Thread_local void *th__shm_pending;

static void *th__shm_alloc(uint32_t kind, size_t nbytes)
{
    if (th__shm_pending) {
        void *data = th__shm_pending;
        th__shm_pending = NULL;
        if (th__shm_local_of(data)->nbytes == (int64_t)nbytes) return data;
        th__shm_release(data, nbytes);
        th__shm_fail(TH_ERR_INVALID, th__shm_fn(), "internal: adopted segment size mismatch");
        return NULL;
    }
    if (nbytes > (size_t)INT64_MAX) {
        th__shm_fail(TH_ERR_OVERFLOW, th__shm_fn(), "%zu bytes do not fit in int64", nbytes);
        return NULL;
    }
    return kind == TH__SHM_KIND_FD ? th__shm_create_fd(th__shm_fn(), (int64_t)nbytes)
                                   : th__shm_create_name(th__shm_fn(), (int64_t)nbytes);
}

static void *th__shm_alloc_fd(void *ctx, size_t nbytes)
{
    (void)ctx;
    return th__shm_alloc(TH__SHM_KIND_FD, nbytes);
}

static void *th__shm_alloc_name(void *ctx, size_t nbytes)
{
    (void)ctx;
    return th__shm_alloc(TH__SHM_KIND_NAME, nbytes);
}

static void th__shm_free(void *ctx, void *ptr, size_t nbytes)
{
    (void)ctx;
    th__shm_release(ptr, nbytes);
}

/* A shared storage keeps its size: resizing it would move it to a new segment and cut every other process off
 * from what this one writes from then on. th_storage_resize takes a NULL realloc for "allocate, copy and
 * free", so this refuses instead; th_storage_resize then reports the failure under its own name and leaves
 * the storage as it was. (To 0 bytes it asks no allocator: the storage lets go of the segment.) */
static void *th__shm_realloc(void *ctx, void *ptr, size_t old_nbytes, size_t new_nbytes)
{
    (void)ctx;
    (void)ptr;
    th__shm_fail(TH_ERR_UNSUPPORTED, "th_storage_resize",
                 "a shared storage keeps its size (%zu bytes, not %zu): other processes map its segment", old_nbytes,
                 new_nbytes);
    return NULL;
}

static const th_allocator th__shm_allocator_fd = {"shm_fd", th__shm_alloc_fd, th__shm_realloc, th__shm_free,
                                                  {TH_DEVICE_CPU, 0}};
static const th_allocator th__shm_allocator_name = {"shm_name", th__shm_alloc_name, th__shm_realloc, th__shm_free,
                                                    {TH_DEVICE_CPU, 0}};

static atomic_int th__shm_strategy = TH_SHM_FD;

int th_shm_set_strategy(th_shm_strategy strategy)
{
    if (strategy != TH_SHM_DEFAULT && strategy != TH_SHM_FD && strategy != TH_SHM_NAME)
        return th_set_error(TH_ERR_INVALID, "th_shm_set_strategy", "%d is no strategy (TH_SHM_FD or TH_SHM_NAME)",
                            (int)strategy);
    atomic_store(&th__shm_strategy, strategy == TH_SHM_DEFAULT ? TH_SHM_FD : (int)strategy);
    return TH_OK;
}

th_shm_strategy th_shm_get_strategy(void) { return (th_shm_strategy)atomic_load(&th__shm_strategy); }

const th_allocator *th_shm_allocator(th_shm_strategy strategy)
{
    if (strategy == TH_SHM_DEFAULT) strategy = th_shm_get_strategy();
    if (strategy == TH_SHM_FD) return &th__shm_allocator_fd;
    if (strategy == TH_SHM_NAME) return &th__shm_allocator_name;
    th_set_error(TH_ERR_INVALID, "th_shm_allocator", "%d is no strategy (TH_SHM_FD or TH_SHM_NAME)", (int)strategy);
    return NULL;
}

th_shm_strategy th_storage_shm_strategy(const th_storage *storage)
{
    const th_allocator *a = th_storage_allocator(storage, NULL);
    if (a == &th__shm_allocator_fd) return TH_SHM_FD;
    if (a == &th__shm_allocator_name) return TH_SHM_NAME;
    return TH_SHM_DEFAULT;
}

bool th_storage_is_shared(const th_storage *storage) { return th_storage_shm_strategy(storage) != TH_SHM_DEFAULT; }

/* A storage whose memory is data (attached), freed through the shared-memory allocator of kind. On error
 * the data is released too. */
static th_storage *th__shm_adopt(const char *fn, void *data, int64_t nbytes, uint32_t kind)
{
    const char *previous = th__shm_set_caller(fn);
    th__shm_pending = data;
    th_storage *s = th_storage_new(nbytes, kind == TH__SHM_KIND_FD ? &th__shm_allocator_fd : &th__shm_allocator_name,
                                   NULL);
    if (th__shm_pending) { /* th_storage_new failed before asking the allocator */
        th__shm_pending = NULL;
        th__shm_release(data, (size_t)nbytes);
    }
    th__shm_set_caller(previous);
    return s;
}

/* ---- opening ------------------------------------------------------------------------------------------
 *
 * Opens of one process take turns, from looking for the segment to recording the storage made for it: two
 * threads opening a segment this process does not map yet would otherwise each map it and each make a
 * storage, and an open must find the storage another made. Only opens wait for this lock; letting go takes
 * the table's lock alone. */

static pthread_mutex_t th__shm_open_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t th__shm_open_once = PTHREAD_ONCE_INIT;

static void th__shm_open_prepare(void) { pthread_mutex_lock(&th__shm_open_lock); }
static void th__shm_open_after(void) { pthread_mutex_unlock(&th__shm_open_lock); }
static void th__shm_open_init(void)
{
    /* An open holds this lock while it takes the table's, the held names' and the manager client's: fork's
     * prepare handlers, which run in the reverse order of registration, must take it before those, so it
     * registers after them. */
    pthread_once(&th__shm_maps_once, th__shm_maps_init);
    pthread_once(&th__shm_held_once, th__shm_held_init);
    pthread_atfork(th__shm_open_prepare, th__shm_open_after, th__shm_open_after);
}

th_storage *th__shm_open_storage(const char *fn, const char *name, int fd, int64_t nbytes)
{
    pthread_once(&th__shm_open_once, th__shm_open_init);
    pthread_mutex_lock(&th__shm_open_lock);
    th_storage *storage = NULL;
    void *data = name ? th__shm_attach_name(fn, name, nbytes, &storage) : th__shm_attach_fd(fn, fd, nbytes, &storage);
    if (data && !storage) {
        th__shm_local *local = th__shm_local_of(data);
        storage = th__shm_adopt(fn, data, nbytes, local->kind);
        if (storage) th__shm_maps_record(local, storage);
    }
    pthread_mutex_unlock(&th__shm_open_lock);
    return storage;
}

void th__shm_note_storage(th_storage *storage)
{
    void *data = th_storage_raw_data(storage);
    if (data && th_storage_is_shared(storage)) th__shm_maps_record(th__shm_local_of(data), storage);
}
