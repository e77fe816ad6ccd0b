/* cuda/ipc.c: CUDA IPC bookkeeping in plain C11 (POSIX): the handle's text, the counter files that keep
 * shared blocks alive, the producer's deferred frees and the consumer's cache of opened segments.
 *
 * The counter-file protocol, in one place (docs/cuda.md "## IPC" tells it for users):
 *   slot.state   = generation << 32 | phase (FREE, LIVE, DROPPED); written by the producer only.
 *   slot.holders = TH_CUDA_IPC_HOLDERS words, 0 when unused, else one consumer process: start << 32 | pid
 *                  (start: the low 32 bits of its start time, telling a reused pid apart), or FOREIGN | pid
 *                  for a process in another pid namespace, whose liveness the producer cannot check.
 *   A consumer claims a free holder word (CAS 0 -> its word), then reads state: anything but LIVE at the
 *   handle's generation undoes the claim and fails. The producer, freeing, stores DROPPED, then reads the
 *   holders: none -> FREE at generation + 1 (the block is really freed). Both sides write, then read the other
 *   side's word, all sequentially consistent: whichever writes second sees the first, so a claim is either
 *   seen by the producer or refused by the consumer, never lost. A holder word left over from a refused
 *   claim only delays a free until it is undone (or its process is found dead).
 *   The consumer closes its mapping of a segment before it clears its last holder word in it, so the
 *   producer cannot free memory that a consumer still has open. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "ipc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#if ATOMIC_LONG_LOCK_FREE != 2 || ATOMIC_LLONG_LOCK_FREE != 2
#error "cuda/ipc.c: the counter slots shared between processes need lock-free 64-bit atomics"
#endif

static const char th__ipc_parse_fn[] = "th_cuda_ipc_handle_parse";
static const char th__ipc_format_fn[] = "th_cuda_ipc_handle_format";
static const char th__ipc_encode_fn[] = "th_cuda_ipc_encode";
static const char th__ipc_open_fn[] = "th_cuda_ipc_open";

/* ==== the handle's text =================================================================================== */

static bool th__ipc_name_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '-';
}

static bool th__ipc_name_ok(const char *s, size_t n)
{
    if (n < 2 || n > TH_CUDA_IPC_COUNTER_NAME_MAX - 1 || s[0] != '/') return false;
    for (size_t i = 1; i < n; i++)
        if (!th__ipc_name_char(s[i])) return false;
    return true;
}

static th_dtype th__ipc_dtype_named(const char *s, size_t n)
{
    for (int d = 0; d < TH_NUM_DTYPES; d++) {
        const char *name = th_dtype_name((th_dtype)d);
        if (strlen(name) == n && memcmp(name, s, n) == 0) return (th_dtype)d;
    }
    return TH_DTYPE_INVALID;
}

/* FNV-1a: not a defence against forgery (the counter file's owner and the producer's id are), but enough that
 * a handle cut short or mangled on its way fails here instead of opening some other memory. */
static uint32_t th__ipc_checksum(const char *text, size_t len)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)text[i];
        h *= 16777619u;
    }
    return h;
}

static int th__ipc_version_error(const char *fn, long long version)
{
    if (version > TH_CUDA_IPC_VERSION)
        return th_set_error(TH_ERR_INVALID, fn,
                            "handle version %lld is newer than this build reads (%d): the producer runs a newer "
                            "tensor.h CUDA companion; build the consumer with it too",
                            version, TH_CUDA_IPC_VERSION);
    return th_set_error(TH_ERR_INVALID, fn, "handle version %lld does not exist (versions start at 1)", version);
}

/* offset, sizes and strides address only elements of the storage, and nothing on the way overflows. */
static int th__ipc_check_shape(const char *fn, const th_cuda_ipc_handle *h, int64_t elsize)
{
    if (h->ndim < 0 || h->ndim > TH_MAX_DIMS)
        return th_set_error(TH_ERR_RANGE, fn, "ndim %d is outside 0..%d (TH_MAX_DIMS)", h->ndim, TH_MAX_DIMS);
    if (h->offset < 0) return th_set_error(TH_ERR_RANGE, fn, "offset %lld is negative", (long long)h->offset);
    int64_t count = 1;
    bool empty = false;
    for (int d = 0; d < h->ndim; d++) {
        if (h->sizes[d] < 0)
            return th_set_error(TH_ERR_RANGE, fn, "size %lld of dim %d is negative", (long long)h->sizes[d], d);
        /* -INT64_MIN does not exist: such a stride cannot be walked backwards, nor printed as a magnitude */
        if (h->strides[d] == INT64_MIN)
            return th_set_error(TH_ERR_OVERFLOW, fn, "stride of dim %d is INT64_MIN", d);
        empty = empty || h->sizes[d] == 0;
        if (__builtin_mul_overflow(count, h->sizes[d] ? h->sizes[d] : 1, &count))
            return th_set_error(TH_ERR_OVERFLOW, fn, "sizes multiply past int64 at dim %d", d);
    }
    const int64_t have = h->nbytes / elsize;
    if (empty) {
        if (h->offset > have)
            return th_set_error(TH_ERR_RANGE, fn, "offset %lld is past the storage's %lld elements of %s",
                                (long long)h->offset, (long long)have, th_dtype_name(h->dtype));
        return TH_OK;
    }
    int64_t lo = h->offset, hi = h->offset;
    for (int d = 0; d < h->ndim; d++) {
        int64_t reach;
        if (h->sizes[d] == 1) continue;
        if (__builtin_mul_overflow(h->sizes[d] - 1, h->strides[d], &reach) ||
            __builtin_add_overflow(reach < 0 ? lo : hi, reach, reach < 0 ? &lo : &hi))
            return th_set_error(TH_ERR_OVERFLOW, fn, "sizes times strides overflow int64 at dim %d", d);
    }
    if (lo < 0 || hi >= have)
        return th_set_error(TH_ERR_RANGE, fn,
                            "offset %lld with these sizes and strides reaches elements %lld..%lld, outside the "
                            "storage's %lld elements of %s",
                            (long long)h->offset, (long long)lo, (long long)hi, (long long)have,
                            th_dtype_name(h->dtype));
    return TH_OK;
}

/* Everything a handle must satisfy, whoever filled it in. */
static int th__ipc_check(const char *fn, const th_cuda_ipc_handle *h)
{
    if (!h) return th_set_error(TH_ERR_INVALID, fn, "NULL handle");
    if (h->version != TH_CUDA_IPC_VERSION) return th__ipc_version_error(fn, h->version);
    if (h->pid <= 0) return th_set_error(TH_ERR_RANGE, fn, "pid %" PRId32 " is no process id", h->pid);
    if (h->device < 0) return th_set_error(TH_ERR_RANGE, fn, "dev %d is negative", h->device);
    const char *nul = (const char *)memchr(h->counter, '\0', sizeof h->counter);
    if (!nul || !th__ipc_name_ok(h->counter, (size_t)(nul - h->counter)))
        return th_set_error(TH_ERR_INVALID, fn, "counter name is not \"/\" and 1 to %d of [A-Za-z0-9_.-]",
                            TH_CUDA_IPC_COUNTER_NAME_MAX - 2);
    if (h->slot < 0) return th_set_error(TH_ERR_RANGE, fn, "slot %" PRId32 " is negative", h->slot);
    if (h->segment_bytes <= 0)
        return th_set_error(TH_ERR_RANGE, fn, "segbytes %lld: a segment holds at least 1 byte",
                            (long long)h->segment_bytes);
    if (h->segment_offset < 0 || h->segment_offset >= h->segment_bytes)
        return th_set_error(TH_ERR_RANGE, fn, "segoff %lld is outside the segment's %lld bytes",
                            (long long)h->segment_offset, (long long)h->segment_bytes);
    if (h->nbytes < 0 || h->nbytes > h->segment_bytes - h->segment_offset)
        return th_set_error(TH_ERR_RANGE, fn, "bytes %lld from segoff %lld run past the segment's %lld bytes",
                            (long long)h->nbytes, (long long)h->segment_offset, (long long)h->segment_bytes);
    if ((int)h->dtype < 0 || (int)h->dtype >= TH_NUM_DTYPES)
        return th_set_error(TH_ERR_DTYPE, fn, "%d is no dtype", (int)h->dtype);
    const int64_t elsize = (int64_t)th_dtype_info(h->dtype)->size;
    /* The device faults on misaligned loads: a storage must start on an element boundary. */
    if (h->segment_offset % elsize != 0)
        return th_set_error(TH_ERR_RANGE, fn, "segoff %lld is not a multiple of %s's %lld bytes",
                            (long long)h->segment_offset, th_dtype_name(h->dtype), (long long)elsize);
    return th__ipc_check_shape(fn, h, elsize);
}

/* ---- parsing ---------------------------------------------------------------------------------------------- */

typedef struct th__ipc_cursor {
    const char *start, *p, *end;
} th__ipc_cursor;

static int th__ipc_bad(const th__ipc_cursor *c, const char *field, const char *expected)
{
    return th_set_error(TH_ERR_INVALID, th__ipc_parse_fn, "bad %s at byte %td: expected %s", field,
                        c->p - c->start, expected);
}

static bool th__ipc_take(th__ipc_cursor *c, const char *lit)
{
    size_t n = strlen(lit);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n) != 0) return false;
    c->p += n;
    return true;
}

static bool th__ipc_digit(const th__ipc_cursor *c, const char *q) { return q < c->end && *q >= '0' && *q <= '9'; }

/* ":<key>=" */
static int th__ipc_take_key(th__ipc_cursor *c, const char *key)
{
    char lit[24], want[32];
    snprintf(lit, sizeof lit, ":%s=", key);
    if (th__ipc_take(c, lit)) return TH_OK;
    snprintf(want, sizeof want, "\"%s\"", lit);
    return th__ipc_bad(c, "field", want);
}

/* A decimal number without sign or leading zeros, at most max (TH_ERR_RANGE beyond, naming the field). */
static int th__ipc_take_number(th__ipc_cursor *c, const char *field, uint64_t max, uint64_t *out)
{
    const char *q = c->p;
    if (!th__ipc_digit(c, q) || (*q == '0' && th__ipc_digit(c, q + 1)))
        return th__ipc_bad(c, field, "a number (no sign, no leading zeros)");
    uint64_t v = 0;
    bool big = false;
    for (; th__ipc_digit(c, q); q++) {
        unsigned d = (unsigned)(*q - '0');
        if (v > (UINT64_MAX - d) / 10) big = true;
        else v = v * 10 + d;
    }
    if (big || v > max)
        return th_set_error(TH_ERR_RANGE, th__ipc_parse_fn, "%s at byte %td is out of range: %.*s%s is more than %llu",
                            field, c->p - c->start, (int)(q - c->p > 24 ? 24 : q - c->p), c->p,
                            q - c->p > 24 ? "..." : "", (unsigned long long)max);
    c->p = q;
    *out = v;
    return TH_OK;
}

static int th__ipc_take_field(th__ipc_cursor *c, const char *key, uint64_t max, uint64_t *out)
{
    int rc = th__ipc_take_key(c, key);
    return rc ? rc : th__ipc_take_number(c, key, max, out);
}

static int th__ipc_hex_value(char ch)
{
    if (ch >= '0' && ch <= '9') return ch - '0';
    if (ch >= 'a' && ch <= 'f') return ch - 'a' + 10;
    return -1;
}

/* Exactly 2 * n lowercase hex digits, then the end of the field. */
static int th__ipc_take_hex(th__ipc_cursor *c, const char *field, unsigned char *out, size_t n)
{
    char want[48];
    snprintf(want, sizeof want, "%zu lowercase hex digits", 2 * n);
    for (size_t i = 0; i < n; i++) {
        int hi = c->p < c->end ? th__ipc_hex_value(c->p[0]) : -1;
        if (hi < 0) return th__ipc_bad(c, field, want);
        c->p++;
        int lo = c->p < c->end ? th__ipc_hex_value(c->p[0]) : -1;
        if (lo < 0) return th__ipc_bad(c, field, want);
        c->p++;
        out[i] = (unsigned char)(hi << 4 | lo);
    }
    if (c->p < c->end && *c->p != ':') return th__ipc_bad(c, field, want);
    return TH_OK;
}

/* none (a 0-d tensor) or comma-separated numbers */
static int th__ipc_take_list(th__ipc_cursor *c, const char *key, bool is_signed, int64_t *vals, int *n)
{
    int rc = th__ipc_take_key(c, key);
    if (rc) return rc;
    *n = 0;
    if (c->p == c->end || *c->p == ':') return TH_OK;
    for (;;) {
        if (*n == TH_MAX_DIMS)
            return th_set_error(TH_ERR_RANGE, th__ipc_parse_fn, "more than %d (TH_MAX_DIMS) %s at byte %td",
                                TH_MAX_DIMS, key, c->p - c->start);
        /* "-0" has no business in a canonical text: refused like a leading zero */
        bool neg = is_signed && c->p < c->end && *c->p == '-' && !(c->p + 1 < c->end && c->p[1] == '0');
        if (neg) c->p++;
        uint64_t v = 0; /* set by th__ipc_take_number whenever it succeeds; gcc -O3 cannot see that */
        rc = th__ipc_take_number(c, key, INT64_MAX, &v);
        if (rc) return rc;
        vals[(*n)++] = neg ? -(int64_t)v : (int64_t)v;
        if (c->p == c->end || *c->p != ',') return TH_OK;
        c->p++;
    }
}

int th_cuda_ipc_handle_parse(const char *text, size_t len, th_cuda_ipc_handle *out)
{
    const char *fn = th__ipc_parse_fn;
    if (!text || !out) return th_set_error(TH_ERR_INVALID, fn, "NULL %s", text ? "output" : "text");
    memset(out, 0, sizeof *out);
    if (len >= TH_CUDA_IPC_HANDLE_MAX)
        return th_set_error(TH_ERR_INVALID, fn, "%zu bytes is longer than any handle (at most %d)", len,
                            TH_CUDA_IPC_HANDLE_MAX - 1);
    th__ipc_cursor c = {text, text, text + len};
    th_cuda_ipc_handle h;
    memset(&h, 0, sizeof h);
    uint64_t v;
    int rc;
    if (!th__ipc_take(&c, "thcuda/")) {
        if (len >= 6 && memcmp(text, "thshm/", 6) == 0)
            return th_set_error(TH_ERR_INVALID, fn, "this is a shared-memory handle: open it with th_shm_open_handle");
        return th__ipc_bad(&c, "start", "\"thcuda/\" (this is no tensor.h CUDA IPC handle)");
    }
    /* The version comes first and is judged alone: a newer one may spell everything after it differently. */
    if ((rc = th__ipc_take_number(&c, "version", UINT32_MAX, &v))) return rc;
    if (v != TH_CUDA_IPC_VERSION) return th__ipc_version_error(fn, (long long)v);
    h.version = (int)v;
    if ((rc = th__ipc_take_field(&c, "pid", INT32_MAX, &v))) return rc;
    h.pid = (int32_t)v;
    if ((rc = th__ipc_take_key(&c, "id"))) return rc;
    unsigned char id[8];
    if ((rc = th__ipc_take_hex(&c, "id", id, sizeof id))) return rc;
    for (int i = 0; i < 8; i++) h.id = h.id << 8 | id[i];
    if ((rc = th__ipc_take_field(&c, "dev", INT32_MAX, &v))) return rc;
    h.device = (int)v;
    if ((rc = th__ipc_take_key(&c, "mem")) || (rc = th__ipc_take_hex(&c, "mem", h.mem, sizeof h.mem))) return rc;
    if ((rc = th__ipc_take_field(&c, "segbytes", INT64_MAX, &v))) return rc;
    h.segment_bytes = (int64_t)v;
    if ((rc = th__ipc_take_field(&c, "segoff", INT64_MAX, &v))) return rc;
    h.segment_offset = (int64_t)v;
    if ((rc = th__ipc_take_key(&c, "event")) || (rc = th__ipc_take_hex(&c, "event", h.event, sizeof h.event)))
        return rc;
    if ((rc = th__ipc_take_key(&c, "counter"))) return rc;
    const char *colon = (const char *)memchr(c.p, ':', (size_t)(c.end - c.p));
    size_t n = colon ? (size_t)(colon - c.p) : (size_t)(c.end - c.p);
    if (!th__ipc_name_ok(c.p, n)) return th__ipc_bad(&c, "counter", "\"/\" and 1 to 70 of [A-Za-z0-9_.-]");
    memcpy(h.counter, c.p, n);
    c.p += n;
    if ((rc = th__ipc_take_field(&c, "slot", INT32_MAX, &v))) return rc;
    h.slot = (int32_t)v;
    if ((rc = th__ipc_take_field(&c, "gen", UINT32_MAX, &v))) return rc;
    h.generation = (uint32_t)v;
    if ((rc = th__ipc_take_field(&c, "bytes", INT64_MAX, &v))) return rc;
    h.nbytes = (int64_t)v;
    if ((rc = th__ipc_take_key(&c, "dtype"))) return rc;
    colon = (const char *)memchr(c.p, ':', (size_t)(c.end - c.p));
    n = colon ? (size_t)(colon - c.p) : (size_t)(c.end - c.p);
    h.dtype = th__ipc_dtype_named(c.p, n);
    if (h.dtype == TH_DTYPE_INVALID)
        return th_set_error(TH_ERR_DTYPE, fn, "unknown dtype \"%.*s\" at byte %td", (int)(n > 16 ? 16 : n), c.p,
                            c.p - c.start);
    c.p += n;
    if ((rc = th__ipc_take_field(&c, "offset", INT64_MAX, &v))) return rc;
    h.offset = (int64_t)v;
    int nsizes, nstrides;
    if ((rc = th__ipc_take_list(&c, "sizes", false, h.sizes, &nsizes))) return rc;
    if ((rc = th__ipc_take_list(&c, "strides", true, h.strides, &nstrides))) return rc;
    const char *summed_end = c.p;
    unsigned char sum[4];
    if ((rc = th__ipc_take_key(&c, "sum")) || (rc = th__ipc_take_hex(&c, "sum", sum, sizeof sum))) return rc;
    if (c.p != c.end) return th__ipc_bad(&c, "end", "the end of the handle");
    if (nsizes != nstrides) return th_set_error(TH_ERR_INVALID, fn, "%d sizes but %d strides", nsizes, nstrides);
    h.ndim = nsizes;
    if ((rc = th__ipc_check(fn, &h))) return rc;
    uint32_t want = (uint32_t)sum[0] << 24 | (uint32_t)sum[1] << 16 | (uint32_t)sum[2] << 8 | sum[3];
    uint32_t got = th__ipc_checksum(text, (size_t)(summed_end - text));
    if (got != want)
        return th_set_error(TH_ERR_INVALID, fn,
                            "sum %08" PRIx32 " does not match the text before it (%08" PRIx32 "): the handle was "
                            "changed or mangled on its way",
                            want, got);
    *out = h;
    return TH_OK;
}

/* ---- formatting ------------------------------------------------------------------------------------------- */

static int th__ipc_format(const char *fn, const th_cuda_ipc_handle *h, char *buf, size_t cap)
{
    if (!buf && cap) return th_set_error(TH_ERR_INVALID, fn, "NULL buffer");
    int rc = th__ipc_check(fn, h);
    if (rc) return rc;
    char text[TH_CUDA_IPC_HANDLE_MAX];
    size_t n = 0;
#define TH__IPC_PUT(...) \
    if (n < sizeof text) n += (size_t)snprintf(text + n, sizeof text - n, __VA_ARGS__)
#define TH__IPC_PUT_HEX(bytes, count)                    \
    for (size_t i_ = 0; i_ < (count); i_++) {            \
        TH__IPC_PUT("%02x", (unsigned)(bytes)[i_]);      \
    }
    TH__IPC_PUT("thcuda/%d:pid=%" PRId32 ":id=%016" PRIx64 ":dev=%d:mem=", h->version, h->pid, h->id, h->device);
    TH__IPC_PUT_HEX(h->mem, sizeof h->mem);
    TH__IPC_PUT(":segbytes=%" PRId64 ":segoff=%" PRId64 ":event=", h->segment_bytes, h->segment_offset);
    TH__IPC_PUT_HEX(h->event, sizeof h->event);
    TH__IPC_PUT(":counter=%s:slot=%" PRId32 ":gen=%" PRIu32 ":bytes=%" PRId64 ":dtype=%s:offset=%" PRId64 ":sizes=",
                h->counter, h->slot, h->generation, h->nbytes, th_dtype_name(h->dtype), h->offset);
    for (int d = 0; d < h->ndim; d++) {
        TH__IPC_PUT("%s%" PRId64, d ? "," : "", h->sizes[d]);
    }
    TH__IPC_PUT(":strides=");
    for (int d = 0; d < h->ndim; d++) {
        TH__IPC_PUT("%s%" PRId64, d ? "," : "", h->strides[d]);
    }
    if (n < sizeof text) {
        uint32_t sum = th__ipc_checksum(text, n);
        TH__IPC_PUT(":sum=%08" PRIx32, sum);
    }
#undef TH__IPC_PUT_HEX
#undef TH__IPC_PUT
    /* The longest handle fits (tests/cuda/test_cuda_ipc.c builds it); a truncated one would show up here. */
    if (n >= sizeof text)
        return th_set_error(TH_ERR_OVERFLOW, fn, "internal: handle longer than TH_CUDA_IPC_HANDLE_MAX");
    if (n >= cap)
        return th_set_error(TH_ERR_RANGE, fn,
                            "the handle needs %zu bytes, the buffer holds %zu (TH_CUDA_IPC_HANDLE_MAX always "
                            "suffices)",
                            n + 1, cap);
    memcpy(buf, text, n + 1);
    return (int)n;
}

int th_cuda_ipc_handle_format(const th_cuda_ipc_handle *h, char *buf, size_t cap)
{
    return th__ipc_format(th__ipc_format_fn, h, buf, cap);
}

/* ==== processes =========================================================================================== */

/* What a process is known by in the counter files: its pid, its start time (clock ticks since boot, which
 * tells a reused pid apart from the process that had it), and its pid namespace (pids mean nothing across
 * namespaces). 0 where /proc cannot say. */
typedef struct th__ipc_self {
    int32_t pid;
    uint64_t start;
    uint64_t pidns;
} th__ipc_self;

/* Reads the state letter and the start time of /proc/<pid>/stat (pid 0: this process). false (errno set)
 * when the file cannot be read, e.g. ENOENT for a process that is gone. */
static bool th__ipc_proc_stat(int32_t pid, char *state, uint64_t *start)
{
    char path[48], buf[1024];
    if (pid) snprintf(path, sizeof path, "/proc/%" PRId32 "/stat", pid);
    else snprintf(path, sizeof path, "/proc/self/stat");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    int err = errno;
    close(fd);
    if (n <= 0) {
        errno = n < 0 ? err : EIO;
        return false;
    }
    buf[n] = '\0';
    /* The command name (field 2) may hold spaces and parentheses: the fields resume after the last ')'. */
    char *p = strrchr(buf, ')');
    if (!p || p[1] != ' ' || !p[2]) {
        errno = EIO;
        return false;
    }
    *state = p[2];
    p += 2;
    for (int field = 3; field < 22; field++) { /* the start time is field 22 */
        p = strchr(p, ' ');
        if (!p) {
            errno = EIO;
            return false;
        }
        p++;
    }
    *start = strtoull(p, NULL, 10);
    return true;
}

static th__ipc_self th__ipc_read_self(void)
{
    th__ipc_self s = {(int32_t)getpid(), 0, 0};
    char state;
    if (!th__ipc_proc_stat(0, &state, &s.start)) s.start = 0;
    struct stat st;
    if (stat("/proc/self/ns/pid", &st) == 0) s.pidns = (uint64_t)st.st_ino;
    return s;
}

/* Whether process pid, started at start_low (the low 32 bits of its start time; 0: unknown), has ended. A
 * zombie has: its device memory went with its exit, only its parent has not reaped it yet. Unknown (no
 * /proc, a permission) counts as alive: freeing memory a live process uses would be far worse than keeping
 * it. */
static bool th__ipc_process_gone(int32_t pid, uint32_t start_low)
{
    if (pid <= 0) return false;
    if (kill(pid, 0) != 0 && errno == ESRCH) return true;
    char state;
    uint64_t start;
    if (!th__ipc_proc_stat(pid, &state, &start)) return errno == ENOENT || errno == ESRCH;
    if (state == 'Z' || state == 'X') return true;
    return start_low != 0 && (uint32_t)start != start_low;
}

/* ==== counter files ======================================================================================= */

enum {
    TH__IPC_LAYOUT = 1,          /* of the counter file; consumers refuse others */
    TH__IPC_SLOTS_PER_FILE = 512,
    TH__IPC_FREE = 0,            /* phases of a slot's state */
    TH__IPC_LIVE = 1,
    TH__IPC_DROPPED = 2,
    TH__IPC_PREFIX_MAX = 24
};
#define TH__IPC_FOREIGN UINT64_C(0x80000000) /* in a holder word: a pid of another namespace, never reaped */

static const char th__ipc_magic[8] = {'t', 'h', 'c', 'u', 'i', 'p', 'c', '1'};

typedef struct th__ipc_header {
    char magic[8];       /* written last: a file without it is still being made */
    uint32_t layout;     /* TH__IPC_LAYOUT */
    uint32_t nslots;
    uint32_t slot_bytes; /* sizeof(th__ipc_slot), so a consumer of another build cannot misread the slots */
    int32_t pid;         /* the producer */
    uint64_t id;
    uint64_t pidns;
    uint64_t start;
    char reserved[16];
} th__ipc_header;

typedef struct th__ipc_slot {
    _Atomic uint64_t state;
    _Atomic uint64_t holders[TH_CUDA_IPC_HOLDERS];
} th__ipc_slot;

_Static_assert(sizeof(th__ipc_header) == 64, "the slots stay 64-byte aligned");
_Static_assert(sizeof(th__ipc_slot) == 256, "a slot is four cache lines");

static th__ipc_slot *th__ipc_slot_at(th__ipc_header *header, int32_t slot)
{
    return (th__ipc_slot *)(void *)((char *)header + sizeof *header) + slot;
}

static size_t th__ipc_file_bytes(uint32_t nslots) { return sizeof(th__ipc_header) + nslots * sizeof(th__ipc_slot); }

static uint64_t th__ipc_state(uint32_t generation, uint32_t phase) { return (uint64_t)generation << 32 | phase; }
static uint32_t th__ipc_generation(uint64_t state) { return (uint32_t)(state >> 32); }
static uint32_t th__ipc_phase(uint64_t state) { return (uint32_t)state; }

static bool th__ipc_prefix_ok(const char *p)
{
    size_t n = strlen(p);
    if (n < 1 || n > TH__IPC_PREFIX_MAX) return false;
    for (size_t i = 0; i < n; i++)
        if (!th__ipc_name_char(p[i])) return false;
    return true;
}

/* ==== this process's state ================================================================================ */

/* A counter file this process made (producer). */
typedef struct th__ipc_file {
    char name[TH_CUDA_IPC_COUNTER_NAME_MAX];
    th__ipc_header *map;
    size_t map_bytes;
    int32_t nfree;
    int32_t *free_slots;        /* a stack; the lowest slots on top, so a quiet process touches few pages */
    struct th__ipc_rec **recs;  /* per slot: the block in it, or NULL */
} th__ipc_file;

/* A block this process shares (producer). */
typedef struct th__ipc_rec {
    struct th__ipc_rec *next_hash, *next_pending;
    int device;
    void *block;
    size_t block_bytes;
    void *segment;
    size_t segment_bytes;
    th__ipc_file *file;
    int32_t slot;
    uint32_t generation;
    bool dropped;               /* the allocator freed it; waiting for its holders */
    void *event;
    unsigned char mem[TH_CUDA_IPC_HANDLE_BYTES], event_handle[TH_CUDA_IPC_HANDLE_BYTES];
} th__ipc_rec;

/* A counter file this process mapped to hold slots in (consumer). */
typedef struct th__ipc_map {
    struct th__ipc_map *next;
    char name[TH_CUDA_IPC_COUNTER_NAME_MAX];
    th__ipc_header *map;
    size_t map_bytes;
    bool same_pidns;            /* pids in it mean the same processes here */
    int64_t refs;               /* holds in it */
} th__ipc_map;

/* A holder word this process claimed (consumer). */
typedef struct th__ipc_hold {
    struct th__ipc_hold *next;
    th__ipc_map *map;
    int32_t slot;
    uint32_t generation;
    int index;
    uint64_t word;
    int64_t refs;
} th__ipc_hold;

/* A segment this process opened (consumer). */
typedef struct th__ipc_seg {
    struct th__ipc_seg *next;
    int32_t pid;
    uint64_t id;
    int device;
    unsigned char mem[TH_CUDA_IPC_HANDLE_BYTES];
    int64_t segment_bytes;
    void *ptr;
    bool local;                 /* the producer's own memory: nothing was opened, nothing to close */
    int64_t refs;
} th__ipc_seg;

struct th__cuda_ipc_ref {
    int32_t owner;              /* the process that opened it; a forked child's copy holds nothing */
    th__ipc_seg *seg;
    th__ipc_hold *hold;
};

/* One lock for everything: sharing and opening are rare next to the allocator's calls, which touch only
 * th__ipc_nrecs and th__ipc_npending while nothing is shared. */
static pthread_mutex_t th__ipc_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t th__ipc_once = PTHREAD_ONCE_INIT;
static atomic_long th__ipc_nrecs;    /* records in the producer's table */
static atomic_long th__ipc_npending; /* of which deferred */

static struct {
    bool configured;
    th__cuda_ipc_config config;
    char prefix[TH__IPC_PREFIX_MAX + 1];
    int32_t owner;              /* the process these tables belong to; 0 before first use */
    bool self_known;
    th__ipc_self self;
    uint64_t id;                /* this process as a producer; 0 until it first shares */
    bool stale_reaped, atexit_set;
    int64_t last_reap_ns;
    /* producer */
    th__ipc_file **files;
    int nfiles;
    th__ipc_rec **buckets;
    size_t nbuckets;
    int64_t nrecs;
    th__ipc_rec *pending;
    int64_t npending, deferred_bytes, reaped;
    /* consumer */
    th__ipc_map *maps;
    th__ipc_hold *holds;
    th__ipc_seg *segs;
    int64_t nrefs, nsegs, nholds;
} th__ipc;

static void th__ipc_prepare_fork(void) { pthread_mutex_lock(&th__ipc_lock); }
static void th__ipc_after_fork(void) { pthread_mutex_unlock(&th__ipc_lock); }
static void th__ipc_init_once(void) { pthread_atfork(th__ipc_prepare_fork, th__ipc_after_fork, th__ipc_after_fork); }

static void th__ipc_free_file(th__ipc_file *f)
{
    munmap(f->map, f->map_bytes);
    free(f->free_slots);
    free(f->recs);
    free(f);
}

/* A forked child inherits the tables but none of what they stand for: the blocks are its parent's to free,
 * the holder words carry its parent's pid, and CUDA handles do not survive fork. It forgets them (only its
 * own copies of mappings and memory are released) and starts afresh, with an id of its own. */
static void th__ipc_forget_inherited(void)
{
    for (int i = 0; i < th__ipc.nfiles; i++) th__ipc_free_file(th__ipc.files[i]);
    free(th__ipc.files);
    for (size_t b = 0; b < th__ipc.nbuckets; b++)
        for (th__ipc_rec *r = th__ipc.buckets[b], *next; r; r = next) {
            next = r->next_hash;
            free(r);
        }
    free(th__ipc.buckets);
    for (th__ipc_map *m = th__ipc.maps, *next; m; m = next) {
        next = m->next;
        munmap(m->map, m->map_bytes);
        free(m);
    }
    for (th__ipc_hold *h = th__ipc.holds, *next; h; h = next) {
        next = h->next;
        free(h);
    }
    for (th__ipc_seg *s = th__ipc.segs, *next; s; s = next) {
        next = s->next;
        free(s);
    }
    th__ipc.files = NULL;
    th__ipc.nfiles = 0;
    th__ipc.buckets = NULL;
    th__ipc.nbuckets = 0;
    th__ipc.nrecs = th__ipc.npending = th__ipc.deferred_bytes = th__ipc.reaped = 0;
    th__ipc.pending = NULL;
    th__ipc.maps = NULL;
    th__ipc.holds = NULL;
    th__ipc.segs = NULL;
    th__ipc.nrefs = th__ipc.nsegs = th__ipc.nholds = 0;
    th__ipc.id = 0;
    th__ipc.self_known = false;
    th__ipc.stale_reaped = false;
    atomic_store(&th__ipc_nrecs, 0);
    atomic_store(&th__ipc_npending, 0);
}

/* Every entry point but the two fast paths: takes the lock and makes the tables this process's own. */
static void th__ipc_enter(void)
{
    pthread_once(&th__ipc_once, th__ipc_init_once);
    pthread_mutex_lock(&th__ipc_lock);
    int32_t me = (int32_t)getpid();
    if (th__ipc.owner != me) {
        if (th__ipc.owner != 0) th__ipc_forget_inherited();
        th__ipc.owner = me;
    }
}

static void th__ipc_leave(void) { pthread_mutex_unlock(&th__ipc_lock); }

static const th__ipc_self *th__ipc_me(void)
{
    if (!th__ipc.self_known) {
        th__ipc.self = th__ipc_read_self();
        th__ipc.self_known = true;
    }
    return &th__ipc.self;
}

/* The word this process writes into a holder slot of a file whose producer lives in pidns. */
static uint64_t th__ipc_holder_word(uint64_t pidns)
{
    const th__ipc_self *me = th__ipc_me();
    if (pidns == 0 || pidns != me->pidns) return TH__IPC_FOREIGN | (uint32_t)me->pid;
    return (me->start & 0xffffffffu) << 32 | (uint32_t)me->pid;
}

/* Whether a holder word's process has ended (never for a foreign one: its pid is not ours to look up). */
static bool th__ipc_holder_gone(uint64_t word)
{
    if (word & TH__IPC_FOREIGN) return false;
    return th__ipc_process_gone((int32_t)(word & 0x7fffffffu), (uint32_t)(word >> 32));
}

static int64_t th__ipc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Whether this sweep may spend system calls on the holders' liveness. */
static bool th__ipc_reap_due(void)
{
    int ms = th__ipc.config.reap_interval_ms;
    if (ms < 0) return true;
    int64_t now = th__ipc_now_ns(), every = (int64_t)(ms ? ms : 100) * 1000000;
    if (th__ipc.last_reap_ns != 0 && now - th__ipc.last_reap_ns < every) return false;
    th__ipc.last_reap_ns = now;
    return true;
}

static const char *th__ipc_cuda_error(int code)
{
    const th_cuda_backend *b = th__ipc.config.backend;
    const char *name = b && b->error_name ? b->error_name(b->ctx, code) : NULL;
    return name ? name : "an unnamed CUDA error";
}

int th__cuda_ipc_configure(const th__cuda_ipc_config *config)
{
    static const char fn[] = "th__cuda_ipc_configure";
    if (!config || !config->backend) return th_set_error(TH_ERR_INVALID, fn, "NULL %s", config ? "backend" : "config");
    const th_cuda_backend *b = config->backend;
    if (!b->device_count || !b->ipc_get_mem_handle || !b->ipc_open_mem_handle || !b->ipc_close_mem_handle ||
        !b->event_create_ipc || !b->ipc_get_event_handle || !b->ipc_open_event_handle || !b->event_record ||
        !b->event_synchronize || !b->event_destroy)
        return th_set_error(TH_ERR_INVALID, fn, "backend \"%s\" lacks an IPC or event function",
                            b->name ? b->name : "?");
    const char *prefix = config->prefix ? config->prefix : getenv("TH_CUDA_IPC_PREFIX");
    if (!prefix || !*prefix) prefix = "thcuipc";
    if (!th__ipc_prefix_ok(prefix))
        return th_set_error(TH_ERR_INVALID, fn, "prefix \"%.32s\" is not 1 to %d of [A-Za-z0-9_.-]", prefix,
                            TH__IPC_PREFIX_MAX);
    th__ipc_enter();
    if (th__ipc.nrecs || th__ipc.nrefs) {
        th__ipc_leave();
        return th_set_error(TH_ERR_UNSUPPORTED, fn, "this process shares or holds CUDA IPC memory: configure "
                            "before the first share or open, or after th__cuda_ipc_teardown");
    }
    th__ipc.config = *config;
    th__ipc.config.prefix = NULL; /* the caller's string need not outlive this call */
    snprintf(th__ipc.prefix, sizeof th__ipc.prefix, "%s", prefix);
    th__ipc.configured = true;
    th__ipc_leave();
    return TH_OK;
}

/* ==== producer ============================================================================================ */

static uint64_t th__ipc_new_id(void)
{
    uint64_t id = 0;
    if (getrandom(&id, sizeof id, GRND_NONBLOCK) != (ssize_t)sizeof id) {
        /* No entropy this early in boot: the id only has to differ from a dead process's with the same pid. */
        id = (uint64_t)th__ipc_now_ns() * UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t)getpid() << 40 ^
             (uint64_t)(uintptr_t)&id;
    }
    return id ? id : 1;
}

/* At exit the names go, so nothing of this process stays in /dev/shm; consumers keep their mappings. A
 * process killed before it gets here leaves its files to th__cuda_ipc_reap_stale_counters. */
static void th__ipc_at_exit(void)
{
    if (pthread_mutex_trylock(&th__ipc_lock) != 0) return; /* another thread is inside: leave it to the reaper */
    if (th__ipc.owner == (int32_t)getpid())
        for (int i = 0; i < th__ipc.nfiles; i++) shm_unlink(th__ipc.files[i]->name);
    pthread_mutex_unlock(&th__ipc_lock);
}

/* Reads the header of the counter file called name without mapping it; false if it is not one of ours. */
static bool th__ipc_read_header(const char *name, th__ipc_header *out)
{
    int fd = shm_open(name, O_RDONLY | O_CLOEXEC, 0);
    if (fd < 0) return false;
    struct stat st;
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
              st.st_size >= (off_t)sizeof *out && pread(fd, out, sizeof *out, 0) == (ssize_t)sizeof *out &&
              memcmp(out->magic, th__ipc_magic, sizeof th__ipc_magic) == 0 && out->layout == TH__IPC_LAYOUT;
    close(fd);
    return ok;
}

static int th__ipc_reap_stale_locked(void)
{
    const th__ipc_self *me = th__ipc_me();
    if (me->pidns == 0) return 0; /* cannot tell whose pids the names carry */
    DIR *dir = opendir("/dev/shm");
    if (!dir) return 0;
    char want[TH__IPC_PREFIX_MAX + 2];
    snprintf(want, sizeof want, "%s_", th__ipc.prefix);
    size_t wlen = strlen(want);
    int removed = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        /* <prefix>_<pid>_<16 hex>_<n> */
        const char *p = e->d_name;
        if (strncmp(p, want, wlen) != 0) continue;
        p += wlen;
        char *end;
        long pid = strtol(p, &end, 10);
        if (end == p || *end != '_' || pid <= 0 || pid > INT32_MAX || pid == me->pid) continue;
        size_t hex = strspn(end + 1, "0123456789abcdef");
        if (hex != 16 || end[17] != '_' || !end[18] || strspn(end + 18, "0123456789") != strlen(end + 18)) continue;
        char name[TH_CUDA_IPC_COUNTER_NAME_MAX + 8];
        if (snprintf(name, sizeof name, "/%s", e->d_name) >= TH_CUDA_IPC_COUNTER_NAME_MAX) continue;
        th__ipc_header h;
        if (!th__ipc_read_header(name, &h) || h.pid != (int32_t)pid || h.pidns != me->pidns) continue;
        if (th__ipc_process_gone(h.pid, (uint32_t)h.start) && shm_unlink(name) == 0) removed++;
    }
    closedir(dir);
    return removed;
}

int th__cuda_ipc_reap_stale_counters(void)
{
    th__ipc_enter();
    if (!th__ipc.prefix[0]) snprintf(th__ipc.prefix, sizeof th__ipc.prefix, "thcuipc");
    int n = th__ipc_reap_stale_locked();
    th__ipc_leave();
    return n;
}

static th__ipc_file *th__ipc_new_file(const char *fn)
{
    const th__ipc_self *me = th__ipc_me();
    if (!th__ipc.stale_reaped) {
        th__ipc.stale_reaped = true;
        th__ipc_reap_stale_locked();
    }
    th__ipc_file **files = (th__ipc_file **)realloc(th__ipc.files, (size_t)(th__ipc.nfiles + 1) * sizeof *files);
    if (!files) {
        th_set_error(TH_ERR_NOMEM, fn, "out of memory for the table of counter files");
        return NULL;
    }
    th__ipc.files = files;
    th__ipc_file *f = (th__ipc_file *)calloc(1, sizeof *f);
    int32_t *free_slots = (int32_t *)malloc(TH__IPC_SLOTS_PER_FILE * sizeof *free_slots);
    th__ipc_rec **recs = (th__ipc_rec **)calloc(TH__IPC_SLOTS_PER_FILE, sizeof *recs);
    if (!f || !free_slots || !recs) {
        free(f);
        free(free_slots);
        free(recs);
        th_set_error(TH_ERR_NOMEM, fn, "out of memory for a counter file's table");
        return NULL;
    }
    snprintf(f->name, sizeof f->name, "/%s_%" PRId32 "_%016" PRIx64 "_%d", th__ipc.prefix, me->pid, th__ipc.id,
             th__ipc.nfiles);
    f->map_bytes = th__ipc_file_bytes(TH__IPC_SLOTS_PER_FILE);
    int fd = shm_open(f->name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        th_set_error(errno == ENOMEM ? TH_ERR_NOMEM : TH_ERR_IO, fn, "could not create counter file %s: %s",
                     f->name, strerror(errno));
        goto fail;
    }
    /* Reserved up front, as shm/ does: a full /dev/shm is an error now, not a SIGBUS at some slot's first write. */
    int err = posix_fallocate(fd, 0, (off_t)f->map_bytes);
    if (err == EINVAL || err == EOPNOTSUPP) err = ftruncate(fd, (off_t)f->map_bytes) == 0 ? 0 : errno;
    if (err) {
        th_set_error(err == ENOSPC ? TH_ERR_NOMEM : TH_ERR_IO, fn, "could not size counter file %s to %zu bytes: %s%s",
                     f->name, f->map_bytes, strerror(err), err == ENOSPC ? " (/dev/shm is full)" : "");
        close(fd);
        shm_unlink(f->name);
        goto fail;
    }
    void *map = mmap(NULL, f->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    err = errno;
    close(fd);
    if (map == MAP_FAILED) {
        th_set_error(TH_ERR_NOMEM, fn, "could not map counter file %s: %s", f->name, strerror(err));
        shm_unlink(f->name);
        goto fail;
    }
    f->map = (th__ipc_header *)map;
    f->map->layout = TH__IPC_LAYOUT;
    f->map->nslots = TH__IPC_SLOTS_PER_FILE;
    f->map->slot_bytes = (uint32_t)sizeof(th__ipc_slot);
    f->map->pid = me->pid;
    f->map->id = th__ipc.id;
    f->map->pidns = me->pidns;
    f->map->start = me->start;
    atomic_thread_fence(memory_order_release);
    memcpy(f->map->magic, th__ipc_magic, sizeof th__ipc_magic);
    f->free_slots = free_slots;
    f->recs = recs;
    for (int32_t i = 0; i < TH__IPC_SLOTS_PER_FILE; i++) free_slots[i] = TH__IPC_SLOTS_PER_FILE - 1 - i;
    f->nfree = TH__IPC_SLOTS_PER_FILE;
    th__ipc.files[th__ipc.nfiles++] = f;
    if (!th__ipc.atexit_set) th__ipc.atexit_set = atexit(th__ipc_at_exit) == 0;
    return f;
fail:
    free(f);
    free(free_slots);
    free(recs);
    return NULL;
}

static size_t th__ipc_bucket(int device, const void *block, size_t nbuckets)
{
    uint64_t k = ((uint64_t)(uintptr_t)block ^ (uint64_t)(unsigned)device << 56) * UINT64_C(0x9e3779b97f4a7c15);
    return (size_t)(k >> 32) & (nbuckets - 1);
}

static th__ipc_rec *th__ipc_find(int device, const void *block)
{
    if (!th__ipc.nbuckets) return NULL;
    for (th__ipc_rec *r = th__ipc.buckets[th__ipc_bucket(device, block, th__ipc.nbuckets)]; r; r = r->next_hash)
        if (r->block == block && r->device == device) return r;
    return NULL;
}

/* Grows the table before it passes one record per bucket; false when even the first table cannot be had. */
static bool th__ipc_grow(void)
{
    if (th__ipc.nbuckets && (size_t)th__ipc.nrecs < th__ipc.nbuckets) return true;
    size_t n = th__ipc.nbuckets ? 2 * th__ipc.nbuckets : 64;
    th__ipc_rec **b = (th__ipc_rec **)calloc(n, sizeof *b);
    if (!b) return th__ipc.nbuckets != 0; /* a longer chain is slower, not wrong */
    for (size_t i = 0; i < th__ipc.nbuckets; i++)
        for (th__ipc_rec *r = th__ipc.buckets[i], *next; r; r = next) {
            next = r->next_hash;
            size_t j = th__ipc_bucket(r->device, r->block, n);
            r->next_hash = b[j];
            b[j] = r;
        }
    free(th__ipc.buckets);
    th__ipc.buckets = b;
    th__ipc.nbuckets = n;
    return true;
}

static void th__ipc_unhash(th__ipc_rec *rec)
{
    th__ipc_rec **p = &th__ipc.buckets[th__ipc_bucket(rec->device, rec->block, th__ipc.nbuckets)];
    while (*p != rec) p = &(*p)->next_hash;
    *p = rec->next_hash;
    th__ipc.nrecs--;
    atomic_fetch_sub(&th__ipc_nrecs, 1);
}

/* Gives the record's slot back, at the next generation, so its handles no longer open. */
static void th__ipc_release_slot(th__ipc_rec *rec)
{
    th__ipc_slot *slot = th__ipc_slot_at(rec->file->map, rec->slot);
    atomic_store(&slot->state, th__ipc_state(rec->generation + 1, TH__IPC_FREE));
    rec->file->recs[rec->slot] = NULL;
    rec->file->free_slots[rec->file->nfree++] = rec->slot;
}

/* For a record already marked DROPPED in its slot: whether no live process holds it any more (dead holders'
 * words are cleared on the way, when reap). Then the slot is released and the block may be freed. */
static bool th__ipc_retire(th__ipc_rec *rec, bool reap)
{
    th__ipc_slot *slot = th__ipc_slot_at(rec->file->map, rec->slot);
    bool busy = false;
    for (int i = 0; i < TH_CUDA_IPC_HOLDERS; i++) {
        uint64_t w = atomic_load(&slot->holders[i]);
        if (!w) continue;
        if (reap && th__ipc_holder_gone(w)) {
            /* A live consumer only ever clears its own word, so a failed exchange means it let go meanwhile. */
            if (atomic_compare_exchange_strong(&slot->holders[i], &w, 0)) th__ipc.reaped++;
            continue;
        }
        busy = true;
        if (!reap) break;
    }
    if (busy) return false;
    th__ipc_release_slot(rec);
    return true;
}

/* A new record for block, with a slot, its event and the segment's memory handle. */
static th__ipc_rec *th__ipc_share_block(const char *fn, const th__cuda_ipc_block *b)
{
    const th_cuda_backend *be = th__ipc.config.backend;
    if (!th__ipc.id) th__ipc.id = th__ipc_new_id();
    th__ipc_file *file = NULL;
    for (int i = 0; i < th__ipc.nfiles && !file; i++)
        if (th__ipc.files[i]->nfree) file = th__ipc.files[i];
    if (!file && !(file = th__ipc_new_file(fn))) return NULL;
    th__ipc_rec *rec = (th__ipc_rec *)calloc(1, sizeof *rec);
    if (!rec || !th__ipc_grow()) {
        free(rec);
        th_set_error(TH_ERR_NOMEM, fn, "out of memory for the table of shared blocks");
        return NULL;
    }
    rec->device = b->device;
    rec->block = b->block;
    rec->block_bytes = b->block_bytes;
    rec->segment = b->segment;
    rec->segment_bytes = b->segment_bytes;
    int code = be->ipc_get_mem_handle(be->ctx, b->segment, rec->mem);
    if (code) {
        th_set_error(TH_ERR_DEVICE, fn, "cudaIpcGetMemHandle of the segment at %p (device %d) failed: %s",
                     b->segment, b->device, th__ipc_cuda_error(code));
        free(rec);
        return NULL;
    }
    if ((code = be->event_create_ipc(be->ctx, b->device, &rec->event))) {
        th_set_error(TH_ERR_DEVICE, fn, "creating an interprocess event on device %d failed: %s", b->device,
                     th__ipc_cuda_error(code));
        free(rec);
        return NULL;
    }
    if ((code = be->ipc_get_event_handle(be->ctx, rec->event, rec->event_handle))) {
        th_set_error(TH_ERR_DEVICE, fn, "cudaIpcGetEventHandle failed: %s", th__ipc_cuda_error(code));
        be->event_destroy(be->ctx, rec->event);
        free(rec);
        return NULL;
    }
    rec->file = file;
    rec->slot = file->free_slots[--file->nfree];
    file->recs[rec->slot] = rec;
    th__ipc_slot *slot = th__ipc_slot_at(file->map, rec->slot);
    rec->generation = th__ipc_generation(atomic_load(&slot->state));
    atomic_store(&slot->state, th__ipc_state(rec->generation, TH__IPC_LIVE));
    size_t j = th__ipc_bucket(rec->device, rec->block, th__ipc.nbuckets);
    rec->next_hash = th__ipc.buckets[j];
    th__ipc.buckets[j] = rec;
    th__ipc.nrecs++;
    atomic_fetch_add(&th__ipc_nrecs, 1);
    return rec;
}

int th__cuda_ipc_encode(const th__cuda_ipc_block *b, const th__cuda_ipc_view *v, void *stream, char *buf,
                        size_t cap)
{
    const char *fn = th__ipc_encode_fn;
    if (!b || !v) return th_set_error(TH_ERR_INVALID, fn, "NULL %s", b ? "view" : "block");
    if (!b->segment || !b->block || !v->data)
        return th_set_error(TH_ERR_INVALID, fn, "NULL %s", !b->segment ? "segment" : !b->block ? "block" : "data");
    if (b->device < 0) return th_set_error(TH_ERR_RANGE, fn, "device %d is negative", b->device);
    if (v->ndim > 0 && (!v->sizes || !v->strides))
        return th_set_error(TH_ERR_INVALID, fn, "NULL %s with ndim %d", v->sizes ? "strides" : "sizes", v->ndim);
    const uintptr_t seg = (uintptr_t)b->segment, blk = (uintptr_t)b->block, data = (uintptr_t)v->data;
    if (b->segment_bytes == 0 || b->segment_bytes > INT64_MAX || blk < seg || blk - seg > b->segment_bytes ||
        b->block_bytes > b->segment_bytes - (blk - seg))
        return th_set_error(TH_ERR_RANGE, fn, "block %p of %zu bytes is not inside segment %p of %zu bytes", b->block,
                            b->block_bytes, b->segment, b->segment_bytes);
    if (data < blk || data - blk > b->block_bytes || v->nbytes < 0 ||
        (uint64_t)v->nbytes > b->block_bytes - (data - blk))
        return th_set_error(TH_ERR_RANGE, fn, "storage at %p of %lld bytes is not inside block %p of %zu bytes",
                            v->data, (long long)v->nbytes, b->block, b->block_bytes);
    th_cuda_ipc_handle h;
    memset(&h, 0, sizeof h);
    h.version = TH_CUDA_IPC_VERSION;
    /* Placeholders until the slot is known: the view is checked first, so a bad one costs no slot. */
    h.pid = 1;
    snprintf(h.counter, sizeof h.counter, "/x");
    h.device = b->device;
    h.segment_bytes = (int64_t)b->segment_bytes;
    h.segment_offset = (int64_t)(data - seg);
    h.nbytes = v->nbytes;
    h.dtype = v->dtype;
    h.offset = v->offset;
    h.ndim = v->ndim;
    if (v->ndim >= 0 && v->ndim <= TH_MAX_DIMS)
        for (int d = 0; d < v->ndim; d++) {
            h.sizes[d] = v->sizes[d];
            h.strides[d] = v->strides[d];
        }
    int rc = th__ipc_check(fn, &h);
    if (rc) return rc;

    th__ipc_enter();
    if (!th__ipc.configured || !th__ipc.config.free_block) {
        th__ipc_leave();
        return th_set_error(TH_ERR_UNSUPPORTED, fn, "%s", !th__ipc.configured
                            ? "CUDA IPC is not set up in this process (th__cuda_ipc_configure)"
                            : "this process was set up without free_block, so it cannot share");
    }
    th__ipc_rec *rec = th__ipc_find(b->device, b->block);
    if (rec && (rec->segment != b->segment || rec->dropped)) {
        th__ipc_leave();
        return th_set_error(TH_ERR_INVALID, fn, "block %p is %s", b->block,
                            rec->dropped ? "freed (its free is deferred): it cannot be shared again"
                                         : "shared already as part of another segment");
    }
    if (!rec && !(rec = th__ipc_share_block(fn, b))) {
        th__ipc_leave();
        return th_last_status();
    }
    const th_cuda_backend *be = th__ipc.config.backend;
    int code = be->event_record(be->ctx, rec->event, stream);
    if (code) {
        th__ipc_leave();
        return th_set_error(TH_ERR_DEVICE, fn, "recording the interprocess event failed: %s",
                            th__ipc_cuda_error(code));
    }
    h.pid = th__ipc_me()->pid;
    h.id = th__ipc.id;
    memcpy(h.mem, rec->mem, sizeof h.mem);
    memcpy(h.event, rec->event_handle, sizeof h.event);
    snprintf(h.counter, sizeof h.counter, "%s", rec->file->name);
    h.slot = rec->slot;
    h.generation = rec->generation;
    th__ipc_leave();
    return th__ipc_format(fn, &h, buf, cap);
}

bool th__cuda_ipc_defer_free(int device, void *block)
{
    if (atomic_load(&th__ipc_nrecs) == 0) return false;
    th__ipc_enter();
    th__ipc_rec *rec = th__ipc_find(device, block);
    if (!rec || rec->dropped) {
        th__ipc_leave();
        return rec != NULL; /* freed twice while deferred: still deferred, never freed twice */
    }
    th__ipc_slot *slot = th__ipc_slot_at(rec->file->map, rec->slot);
    /* Stored before the holders are read: see the protocol at the top of this file. */
    atomic_store(&slot->state, th__ipc_state(rec->generation, TH__IPC_DROPPED));
    rec->dropped = true;
    if (th__ipc_retire(rec, th__ipc_reap_due())) {
        th__ipc_unhash(rec);
        void *event = rec->event;
        const th_cuda_backend *be = th__ipc.config.backend;
        th__ipc_leave();
        be->event_destroy(be->ctx, event);
        free(rec);
        return false;
    }
    rec->next_pending = th__ipc.pending;
    th__ipc.pending = rec;
    th__ipc.npending++;
    th__ipc.deferred_bytes += (int64_t)rec->block_bytes;
    atomic_fetch_add(&th__ipc_npending, 1);
    th__ipc_leave();
    return true;
}

int th__cuda_ipc_deferred_sweep(void)
{
    if (atomic_load(&th__ipc_npending) == 0) return 0;
    pthread_once(&th__ipc_once, th__ipc_init_once);
    /* The allocator calls this on its every call: rather skip a turn than queue behind an open. */
    if (pthread_mutex_trylock(&th__ipc_lock) != 0) return 0;
    if (th__ipc.owner != (int32_t)getpid()) {
        pthread_mutex_unlock(&th__ipc_lock);
        th__ipc_enter(); /* a forked child: forget the parent's blocks, which are not ours to free */
        th__ipc_leave();
        return 0;
    }
    bool reap = th__ipc_reap_due();
    th__ipc_rec *done = NULL;
    for (th__ipc_rec **p = &th__ipc.pending; *p;) {
        th__ipc_rec *rec = *p;
        if (!th__ipc_retire(rec, reap)) {
            p = &rec->next_pending;
            continue;
        }
        *p = rec->next_pending;
        th__ipc_unhash(rec);
        th__ipc.npending--;
        th__ipc.deferred_bytes -= (int64_t)rec->block_bytes;
        atomic_fetch_sub(&th__ipc_npending, 1);
        rec->next_pending = done;
        done = rec;
    }
    const th_cuda_backend *be = th__ipc.config.backend;
    void (*free_block)(void *, int, void *) = th__ipc.config.free_block;
    void *free_ctx = th__ipc.config.free_ctx;
    pthread_mutex_unlock(&th__ipc_lock);
    int n = 0;
    for (th__ipc_rec *rec = done, *next; rec; rec = next, n++) {
        next = rec->next_pending;
        be->event_destroy(be->ctx, rec->event);
        free_block(free_ctx, rec->device, rec->block);
        free(rec);
    }
    return n;
}

/* ==== consumer ============================================================================================ */

/* Why a counter file cannot be had: the producer's exit is the likely reason, and the one worth saying. */
static int th__ipc_producer_gone(const char *fn, const th_cuda_ipc_handle *h, const char *what)
{
    return th_set_error(TH_ERR_IO, fn,
                        "the producer (pid %" PRId32 ") has exited%s%s: the tensors it shared can no longer be "
                        "opened",
                        h->pid, what ? ": " : "", what ? what : "");
}

static th__ipc_map *th__ipc_attach(const char *fn, const th_cuda_ipc_handle *h)
{
    for (th__ipc_map *m = th__ipc.maps; m; m = m->next)
        if (strcmp(m->name, h->counter) == 0) {
            if (m->map->pid != h->pid || m->map->id != h->id) break; /* reported below, after a fresh look */
            return m;
        }
    int fd = shm_open(h->counter, O_RDWR | O_CLOEXEC, 0);
    if (fd < 0) {
        int err = errno;
        if (err == ENOENT) {
            char what[120];
            snprintf(what, sizeof what, "its counter file %s is gone", h->counter);
            return th__ipc_producer_gone(fn, h, what), NULL;
        }
        th_set_error(TH_ERR_IO, fn, "cannot open counter file %s: %s%s", h->counter, strerror(err),
                     err == EACCES ? " (it belongs to another user: CUDA IPC works between processes of one user)"
                                   : "");
        return NULL;
    }
    struct stat st;
    th__ipc_header head;
    bool ok = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= (off_t)sizeof head &&
              pread(fd, &head, sizeof head, 0) == (ssize_t)sizeof head;
    if (ok && st.st_uid != geteuid()) {
        close(fd);
        th_set_error(TH_ERR_IO, fn, "counter file %s belongs to another user (uid %u)", h->counter,
                     (unsigned)st.st_uid);
        return NULL;
    }
    atomic_thread_fence(memory_order_acquire);
    if (!ok || memcmp(head.magic, th__ipc_magic, sizeof head.magic) != 0 || head.layout != TH__IPC_LAYOUT ||
        head.slot_bytes != sizeof(th__ipc_slot) || head.nslots == 0 || head.nslots > INT32_MAX ||
        (off_t)th__ipc_file_bytes(head.nslots) != st.st_size) {
        close(fd);
        th_set_error(TH_ERR_IO, fn, "%s is no counter file of this build (layout %d, %zu-byte slots)", h->counter,
                     TH__IPC_LAYOUT, sizeof(th__ipc_slot));
        return NULL;
    }
    if (head.pid != h->pid || head.id != h->id) {
        close(fd);
        /* The name carries the producer's pid and id, so another producer's file under it is a forged name or
         * a stale handle whose producer's name was taken over: either way the handle's producer is gone. */
        char what[160];
        snprintf(what, sizeof what, "counter file %s belongs to pid %" PRId32 ", id %016" PRIx64, h->counter,
                 head.pid, head.id);
        return th__ipc_producer_gone(fn, h, what), NULL;
    }
    void *map = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int err = errno;
    close(fd);
    th__ipc_map *m = map == MAP_FAILED ? NULL : (th__ipc_map *)calloc(1, sizeof *m);
    if (!m) {
        if (map != MAP_FAILED) munmap(map, (size_t)st.st_size);
        th_set_error(TH_ERR_NOMEM, fn, "could not map counter file %s: %s", h->counter,
                     map == MAP_FAILED ? strerror(err) : "out of memory");
        return NULL;
    }
    snprintf(m->name, sizeof m->name, "%s", h->counter);
    m->map = (th__ipc_header *)map;
    m->map_bytes = (size_t)st.st_size;
    m->same_pidns = head.pidns != 0 && head.pidns == th__ipc_me()->pidns;
    m->next = th__ipc.maps;
    th__ipc.maps = m;
    return m;
}

static void th__ipc_map_unref(th__ipc_map *m)
{
    if (--m->refs > 0) return;
    th__ipc_map **p = &th__ipc.maps;
    while (*p != m) p = &(*p)->next;
    *p = m->next;
    munmap(m->map, m->map_bytes);
    free(m);
}

/* Claims a holder word of h's slot, and checks, after the claim, that the slot still holds h's block. */
static th__ipc_hold *th__ipc_claim(const char *fn, th__ipc_map *m, const th_cuda_ipc_handle *h)
{
    th__ipc_slot *slot = th__ipc_slot_at(m->map, h->slot);
    uint64_t word = th__ipc_holder_word(m->map->pidns);
    int index = -1;
    for (int i = 0; i < TH_CUDA_IPC_HOLDERS && index < 0; i++) {
        uint64_t expected = 0;
        if (atomic_compare_exchange_strong(&slot->holders[i], &expected, word)) index = i;
    }
    if (index < 0) {
        th_set_error(TH_ERR_UNSUPPORTED, fn,
                     "the block is open in %d processes already, the most its counter slot records "
                     "(TH_CUDA_IPC_HOLDERS)",
                     TH_CUDA_IPC_HOLDERS);
        return NULL;
    }
    uint64_t state = atomic_load(&slot->state);
    th__ipc_hold *hold = NULL;
    if (th__ipc_generation(state) != h->generation)
        th_set_error(TH_ERR_IO, fn,
                     "the producer has freed this tensor's memory (slot %" PRId32 " of %s is at generation %" PRIu32
                     ", the handle's is %" PRIu32 ")",
                     h->slot, h->counter, th__ipc_generation(state), h->generation);
    else if (th__ipc_phase(state) == TH__IPC_DROPPED)
        th_set_error(TH_ERR_IO, fn,
                     "the producer freed this tensor before this process opened it (slot %" PRId32 " of %s, "
                     "generation %" PRIu32 "): the producer must keep a tensor until every consumer has opened "
                     "its handle",
                     h->slot, h->counter, h->generation);
    else if (th__ipc_phase(state) != TH__IPC_LIVE)
        th_set_error(TH_ERR_IO, fn, "slot %" PRId32 " of %s holds no shared block at generation %" PRIu32, h->slot,
                     h->counter, h->generation);
    else if (!(hold = (th__ipc_hold *)calloc(1, sizeof *hold)))
        th_set_error(TH_ERR_NOMEM, fn, "out of memory");
    if (!hold) {
        uint64_t mine = word;
        atomic_compare_exchange_strong(&slot->holders[index], &mine, 0);
        return NULL;
    }
    hold->map = m;
    hold->slot = h->slot;
    hold->generation = h->generation;
    hold->index = index;
    hold->word = word;
    m->refs++;
    hold->next = th__ipc.holds;
    th__ipc.holds = hold;
    th__ipc.nholds++;
    return hold;
}

static void th__ipc_hold_unref(th__ipc_hold *hold)
{
    if (--hold->refs > 0) return;
    th__ipc_slot *slot = th__ipc_slot_at(hold->map->map, hold->slot);
    uint64_t mine = hold->word;
    atomic_compare_exchange_strong(&slot->holders[hold->index], &mine, 0);
    th__ipc_hold **p = &th__ipc.holds;
    while (*p != hold) p = &(*p)->next;
    *p = hold->next;
    th__ipc.nholds--;
    th__ipc_map_unref(hold->map);
    free(hold);
}

/* This process's own record of the block h names, when this process is h's producer. */
static th__ipc_rec *th__ipc_own_record(const th_cuda_ipc_handle *h)
{
    if (!th__ipc.id || h->id != th__ipc.id || h->pid != th__ipc_me()->pid) return NULL;
    for (int i = 0; i < th__ipc.nfiles; i++)
        if (strcmp(th__ipc.files[i]->name, h->counter) == 0 && h->slot < TH__IPC_SLOTS_PER_FILE) {
            th__ipc_rec *rec = th__ipc.files[i]->recs[h->slot];
            return rec && rec->generation == h->generation ? rec : NULL;
        }
    return NULL;
}

static th__ipc_seg *th__ipc_segment(const char *fn, const th_cuda_ipc_handle *h)
{
    for (th__ipc_seg *s = th__ipc.segs; s; s = s->next)
        if (s->pid == h->pid && s->id == h->id && s->device == h->device &&
            memcmp(s->mem, h->mem, sizeof s->mem) == 0) {
            if (s->segment_bytes != h->segment_bytes) {
                th_set_error(TH_ERR_INVALID, fn,
                             "the handle says its segment holds %lld bytes, but this process opened that segment "
                             "as %lld bytes",
                             (long long)h->segment_bytes, (long long)s->segment_bytes);
                return NULL;
            }
            return s;
        }
    th__ipc_seg *s = (th__ipc_seg *)calloc(1, sizeof *s);
    if (!s) {
        th_set_error(TH_ERR_NOMEM, fn, "out of memory");
        return NULL;
    }
    th__ipc_rec *own = th__ipc_own_record(h);
    if (own) {
        /* CUDA refuses to open a handle in the process that made it: the producer's pointer is the memory. */
        if (memcmp(own->mem, h->mem, sizeof own->mem) != 0 || (int64_t)own->segment_bytes != h->segment_bytes) {
            free(s);
            th_set_error(TH_ERR_INVALID, fn, "the handle's segment is not the one this process shares in slot %" PRId32,
                         h->slot);
            return NULL;
        }
        s->ptr = own->segment;
        s->local = true;
    } else {
        const th_cuda_backend *be = th__ipc.config.backend;
        int code = be->ipc_open_mem_handle(be->ctx, h->device, h->mem, &s->ptr);
        if (code) {
            free(s);
            th_set_error(TH_ERR_DEVICE, fn, "cudaIpcOpenMemHandle on device %d failed: %s", h->device,
                         th__ipc_cuda_error(code));
            return NULL;
        }
    }
    s->pid = h->pid;
    s->id = h->id;
    s->device = h->device;
    memcpy(s->mem, h->mem, sizeof s->mem);
    s->segment_bytes = h->segment_bytes;
    s->next = th__ipc.segs;
    th__ipc.segs = s;
    th__ipc.nsegs++;
    return s;
}

/* Closes the segment after its last reference; 0 or TH_ERR_DEVICE (recorded under fn). */
static int th__ipc_seg_unref(const char *fn, th__ipc_seg *s)
{
    if (--s->refs > 0) return TH_OK;
    int rc = TH_OK;
    if (!s->local) {
        const th_cuda_backend *be = th__ipc.config.backend;
        int code = be->ipc_close_mem_handle(be->ctx, s->device, s->ptr);
        if (code)
            rc = th_set_error(TH_ERR_DEVICE, fn, "cudaIpcCloseMemHandle on device %d failed: %s", s->device,
                              th__ipc_cuda_error(code));
    }
    th__ipc_seg **p = &th__ipc.segs;
    while (*p != s) p = &(*p)->next;
    *p = s->next;
    th__ipc.nsegs--;
    free(s);
    return rc;
}

/* The device index must name a device here too. */
static int th__ipc_check_device(const char *fn, int device)
{
    const th_cuda_backend *be = th__ipc.config.backend;
    int count = 0, code = be->device_count(be->ctx, &count);
    if (code)
        return th_set_error(TH_ERR_DEVICE, fn, "counting CUDA devices failed: %s", th__ipc_cuda_error(code));
    if (count <= 0) return th_set_error(TH_ERR_DEVICE, fn, "no CUDA device is usable in this process");
    if (device >= count)
        return th_set_error(TH_ERR_RANGE, fn,
                            "device %d is out of range: this process sees %d CUDA device%s (0..%d); "
                            "CUDA_VISIBLE_DEVICES may number them differently from the producer's",
                            device, count, count == 1 ? "" : "s", count - 1);
    return TH_OK;
}

th__cuda_ipc_ref *th__cuda_ipc_open(const th_cuda_ipc_handle *h, void **data)
{
    const char *fn = th__ipc_open_fn;
    if (data) *data = NULL;
    if (!data) return th_set_error(TH_ERR_INVALID, fn, "NULL data"), NULL;
    if (th__ipc_check(fn, h)) return NULL;
    /* Had first, so that opening the segment is the last step that can fail and needs no undoing. */
    th__cuda_ipc_ref *ref = (th__cuda_ipc_ref *)malloc(sizeof *ref);
    if (!ref) return th_set_error(TH_ERR_NOMEM, fn, "out of memory"), NULL;
    th__ipc_enter();
    th__ipc_hold *hold = NULL;
    if (!th__ipc.configured) {
        th_set_error(TH_ERR_UNSUPPORTED, fn, "CUDA IPC is not set up in this process (th__cuda_ipc_configure)");
        goto fail;
    }
    if (th__ipc_check_device(fn, h->device)) goto fail;
    for (th__ipc_hold *x = th__ipc.holds; x && !hold; x = x->next)
        if (x->slot == h->slot && strcmp(x->map->name, h->counter) == 0 && x->map->map->pid == h->pid &&
            x->map->map->id == h->id)
            hold = x;
    if (hold && hold->generation != h->generation) {
        /* While this process holds the slot it cannot move on: the handle is older than the block in it. */
        th_set_error(TH_ERR_IO, fn,
                     "the producer has freed this tensor's memory (slot %" PRId32 " of %s is at generation %" PRIu32
                     ", the handle's is %" PRIu32 ")",
                     h->slot, h->counter, hold->generation, h->generation);
        hold = NULL;
        goto fail;
    }
    if (!hold) {
        th__ipc_map *m = th__ipc_attach(fn, h);
        if (!m) goto fail;
        if ((uint32_t)h->slot >= m->map->nslots)
            th_set_error(TH_ERR_RANGE, fn, "slot %" PRId32 " is past the %" PRIu32 " slots of counter file %s",
                         h->slot, m->map->nslots, h->counter);
        else if (m->same_pidns && th__ipc_process_gone(h->pid, (uint32_t)m->map->start))
            th__ipc_producer_gone(fn, h, NULL);
        else
            hold = th__ipc_claim(fn, m, h);
        if (!hold) {
            if (m->refs == 0) {
                m->refs = 1;
                th__ipc_map_unref(m);
            }
            goto fail;
        }
    }
    /* The hold comes first: while it stands the producer cannot free the segment being opened. */
    hold->refs++;
    th__ipc_seg *seg = th__ipc_segment(fn, h);
    if (!seg) goto fail;
    seg->refs++;
    ref->owner = th__ipc_me()->pid;
    ref->seg = seg;
    ref->hold = hold;
    th__ipc.nrefs++;
    *data = (char *)seg->ptr + h->segment_offset;
    th__ipc_rec *own = seg->local ? th__ipc_own_record(h) : NULL;
    void *own_event = own ? own->event : NULL;
    const th_cuda_backend *be = th__ipc.config.backend;
    th__ipc_leave();

    /* Waited for outside the lock: the producer's kernels may take long, and other threads may open or sweep. */
    int code;
    const char *what;
    if (own_event) {
        what = "waiting for the producer's event";
        code = be->event_synchronize(be->ctx, own_event);
    } else {
        void *event = NULL;
        what = "cudaIpcOpenEventHandle";
        code = be->ipc_open_event_handle(be->ctx, h->device, h->event, &event);
        if (!code) {
            what = "waiting for the producer's event";
            code = be->event_synchronize(be->ctx, event);
            int destroyed = be->event_destroy(be->ctx, event);
            if (!code && destroyed) {
                what = "destroying the opened event";
                code = destroyed;
            }
        }
    }
    if (code) {
        char message[160];
        snprintf(message, sizeof message, "%s on device %d failed: %s", what, h->device, th__ipc_cuda_error(code));
        th__cuda_ipc_release(ref);
        *data = NULL;
        th_set_error(TH_ERR_DEVICE, fn, "%s", message);
        return NULL;
    }
    return ref;

fail:
    if (hold) th__ipc_hold_unref(hold);
    th__ipc_leave();
    free(ref);
    return NULL;
}

int th__cuda_ipc_release(th__cuda_ipc_ref *ref)
{
    static const char fn[] = "th_cuda_ipc_release";
    if (!ref) return TH_OK;
    th__ipc_enter();
    int rc = TH_OK;
    if (ref->owner == th__ipc.owner) {
        /* The segment goes before the holder word: once the word is clear the producer may free the memory. */
        rc = th__ipc_seg_unref(fn, ref->seg);
        th__ipc_hold_unref(ref->hold);
        th__ipc.nrefs--;
    }
    th__ipc_leave();
    free(ref);
    return rc;
}

/* ==== inspection and shutdown ============================================================================= */

void th__cuda_ipc_get_stats(th__cuda_ipc_stats *out)
{
    if (!out) return;
    th__ipc_enter();
    out->shared_blocks = th__ipc.nrecs;
    out->deferred_blocks = th__ipc.npending;
    out->deferred_bytes = th__ipc.deferred_bytes;
    out->reaped_holders = th__ipc.reaped;
    out->counter_files = th__ipc.nfiles;
    out->open_refs = th__ipc.nrefs;
    out->open_segments = th__ipc.nsegs;
    out->held_slots = th__ipc.nholds;
    th__ipc_leave();
}

int th__cuda_ipc_teardown(void)
{
    static const char fn[] = "th__cuda_ipc_teardown";
    th__ipc_enter();
    int64_t held = 0;
    for (size_t b = 0; b < th__ipc.nbuckets; b++)
        for (th__ipc_rec *r = th__ipc.buckets[b]; r; r = r->next_hash) {
            th__ipc_slot *slot = th__ipc_slot_at(r->file->map, r->slot);
            for (int i = 0; i < TH_CUDA_IPC_HOLDERS; i++) held += atomic_load(&slot->holders[i]) != 0;
        }
    if (th__ipc.nrefs || th__ipc.npending || held) {
        th__ipc_leave();
        return th_set_error(TH_ERR_UNSUPPORTED, fn,
                            "%lld references open here, %lld blocks deferred and %lld holder words taken in this "
                            "process's slots: release them first",
                            (long long)th__ipc.nrefs, (long long)th__ipc.npending, (long long)held);
    }
    const th_cuda_backend *be = th__ipc.config.backend;
    for (size_t b = 0; b < th__ipc.nbuckets; b++)
        for (th__ipc_rec *r = th__ipc.buckets[b], *next; r; r = next) {
            next = r->next_hash;
            th__ipc_release_slot(r);
            be->event_destroy(be->ctx, r->event);
            free(r);
        }
    free(th__ipc.buckets);
    th__ipc.buckets = NULL;
    th__ipc.nbuckets = 0;
    th__ipc.nrecs = 0;
    atomic_store(&th__ipc_nrecs, 0);
    for (int i = 0; i < th__ipc.nfiles; i++) {
        shm_unlink(th__ipc.files[i]->name);
        th__ipc_free_file(th__ipc.files[i]);
    }
    free(th__ipc.files);
    th__ipc.files = NULL;
    th__ipc.nfiles = 0;
    th__ipc.reaped = 0;
    th__ipc.id = 0; /* a later share starts new files, under a new id, so no old handle can name them */
    th__ipc.configured = false;
    memset(&th__ipc.config, 0, sizeof th__ipc.config);
    th__ipc_leave();
    return TH_OK;
}
