/* tests/cuda/test_cuda_ipc.c: the CUDA IPC bookkeeping (cuda/ipc.c) over the fake backend (ipc_fake.c).
 *
 * The handle's text: random handles round trip exactly; every truncation, bad hex, bad or newer version,
 * out-of-range field and overflowing shape is refused with its field named. Across fork(): a child opens and
 * releases while the parent's free of the block waits for it; a child killed without releasing (a zombie,
 * then reaped) does not hold the block forever; a child opens one segment once for two tensors over it; a
 * producer that exits (or is killed) makes its handles fail with a clear error, and its leftover counter file
 * is reaped; holder words of a reused pid are reaped, of another pid namespace never. Plus backend failures,
 * the holder limit, the same-process short cut, threads and teardown.
 *
 * Counter files are named with a prefix of this run ("ttci<pid>"), so the /dev/shm checks count only ours. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "check.h"
#include "cuda/ipc.h"
#include "ipc_fake.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static ipc_fake fake;
static char prefix[32];

/* The producer's allocator, as far as IPC sees it: the blocks it was finally told to free. */
static atomic_int freed_count; /* the threads' sweeps call it at once */
static _Atomic(void *) freed_last;
static void free_block(void *ctx, int device, void *block)
{
    (void)ctx;
    (void)device;
    freed_count++;
    freed_last = block;
}

static void configure(int devices)
{
    ipc_fake_init(&fake, devices);
    th__cuda_ipc_config c = {&fake.backend, free_block, NULL, prefix, -1};
    CHECK_INT_EQ(th__cuda_ipc_configure(&c), TH_OK);
}

/* This run's counter files in /dev/shm. */
static int counter_files(void)
{
    char want[48];
    snprintf(want, sizeof want, "%s_", prefix);
    DIR *d = opendir("/dev/shm");
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) n += strncmp(e->d_name, want, strlen(want)) == 0;
    closedir(d);
    return n;
}

static int wait_child(pid_t pid)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* fork() for a child whose checks count on their own: its verdict is its exit status (child_exit). */
static pid_t fork_child(void)
{
    fflush(stdout); /* else the child's exit writes the parent's buffered lines again */
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) check_failures = 0;
    return pid;
}

static void child_exit(void) { _exit(check_failures ? 1 : 0); }

static void put(int fd, char c) { CHECK(write(fd, &c, 1) == 1); }
static char get(int fd)
{
    char c = 0;
    return read(fd, &c, 1) == 1 ? c : 0;
}

/* Shares a 1-d f32 tensor of n elements at byte off of a segment, in a block of block_bytes there. */
static int share_f32(void *seg, size_t seg_bytes, size_t off, size_t block_bytes, int64_t n, char *text)
{
    int64_t size[1] = {n}, stride[1] = {1};
    th__cuda_ipc_block b = {0, seg, seg_bytes, (char *)seg + off, block_bytes};
    th__cuda_ipc_view v = {(char *)seg + off, n * 4, TH_F32, 0, 1, size, stride};
    return th__cuda_ipc_encode(&b, &v, NULL, text, TH_CUDA_IPC_HANDLE_MAX);
}

static th__cuda_ipc_ref *open_text(const char *text, void **data)
{
    th_cuda_ipc_handle h;
    *data = NULL;
    if (th_cuda_ipc_handle_parse(text, strlen(text), &h) != TH_OK) return NULL;
    return th__cuda_ipc_open(&h, data);
}

static th__cuda_ipc_stats stats(void)
{
    th__cuda_ipc_stats s;
    th__cuda_ipc_get_stats(&s);
    return s;
}

/* ==== the handle's text ================================================================================== */

static uint64_t rng = UINT64_C(0x243f6a8885a308d3);
static uint64_t rnd(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void random_bytes(unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)rnd();
}

/* A random handle that satisfies every rule, with boundary values now and then. */
static void random_handle(th_cuda_ipc_handle *h)
{
    static const char chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-";
    memset(h, 0, sizeof *h);
    h->version = TH_CUDA_IPC_VERSION;
    h->pid = rnd() % 8 == 0 ? INT32_MAX : (int32_t)(1 + rnd() % 4000000);
    h->id = rnd() % 8 == 0 ? 0 : rnd();
    h->device = rnd() % 8 == 0 ? INT32_MAX : (int)(rnd() % 8);
    random_bytes(h->mem, sizeof h->mem);
    random_bytes(h->event, sizeof h->event);
    size_t name_len = 1 + rnd() % (TH_CUDA_IPC_COUNTER_NAME_MAX - 2);
    h->counter[0] = '/';
    for (size_t i = 1; i <= name_len; i++) h->counter[i] = chars[rnd() % (sizeof chars - 1)];
    h->slot = rnd() % 8 == 0 ? INT32_MAX : (int32_t)(rnd() % 2048);
    h->generation = rnd() % 8 == 0 ? UINT32_MAX : (uint32_t)rnd();
    h->dtype = (th_dtype)(rnd() % TH_NUM_DTYPES);
    const int64_t es = (int64_t)th_dtype_info(h->dtype)->size;
    h->ndim = rnd() % 6 == 0 ? (int)(rnd() % (TH_MAX_DIMS + 1)) : (int)(rnd() % 4);
    bool empty = false;
    int64_t lo = 0, hi = 0;
    for (int d = 0; d < h->ndim; d++) {
        h->sizes[d] = rnd() % 10 == 0 ? 0 : (int64_t)(1 + rnd() % (h->ndim > 8 ? 2 : 5));
        h->strides[d] = (int64_t)(rnd() % 41) - 20;
        empty = empty || h->sizes[d] == 0;
        int64_t reach = (h->sizes[d] ? h->sizes[d] - 1 : 0) * h->strides[d];
        if (reach < 0) lo += reach;
        else hi += reach;
    }
    int64_t elements;
    if (empty) {
        h->offset = (int64_t)(rnd() % 10);
        elements = h->offset + (int64_t)(rnd() % 5);
    } else {
        h->offset = -lo + (int64_t)(rnd() % 10);
        elements = h->offset + hi + 1 + (int64_t)(rnd() % 10);
    }
    h->nbytes = elements * es + (int64_t)(rnd() % (uint64_t)es); /* a partial element at the end is allowed */
    h->segment_offset = es * (int64_t)(rnd() % 100000);
    h->segment_bytes = h->segment_offset + h->nbytes + 1 + (int64_t)(rnd() % 4096);
    if (rnd() % 16 == 0) { /* far apart: a storage near the end of a huge segment */
        h->segment_bytes = INT64_MAX;
        h->segment_offset = (INT64_MAX - h->nbytes - 1) / es * es;
    }
}

static bool same_handle(const th_cuda_ipc_handle *a, const th_cuda_ipc_handle *b)
{
    if (a->version != b->version || a->pid != b->pid || a->id != b->id || a->device != b->device ||
        memcmp(a->mem, b->mem, sizeof a->mem) != 0 || a->segment_bytes != b->segment_bytes ||
        a->segment_offset != b->segment_offset || memcmp(a->event, b->event, sizeof a->event) != 0 ||
        strcmp(a->counter, b->counter) != 0 || a->slot != b->slot || a->generation != b->generation ||
        a->nbytes != b->nbytes || a->dtype != b->dtype || a->offset != b->offset || a->ndim != b->ndim)
        return false;
    for (int d = 0; d < a->ndim; d++)
        if (a->sizes[d] != b->sizes[d] || a->strides[d] != b->strides[d]) return false;
    return true;
}

static void test_round_trip(void)
{
    char text[TH_CUDA_IPC_HANDLE_MAX], again[TH_CUDA_IPC_HANDLE_MAX];
    int failures = 0;
    for (int i = 0; i < 3000; i++) {
        th_cuda_ipc_handle h, back;
        random_handle(&h);
        int n = th_cuda_ipc_handle_format(&h, text, sizeof text);
        bool ok = n > 0 && (size_t)n == strlen(text) && th_cuda_ipc_handle_parse(text, (size_t)n, &back) == TH_OK &&
                  same_handle(&h, &back) && th_cuda_ipc_handle_format(&back, again, sizeof again) == n &&
                  strcmp(text, again) == 0;
        if (!ok && failures++ < 3) fprintf(stderr, "round trip %d: %s\n  %s\n", i, th_last_error(), text);
    }
    CHECK_INT_EQ(failures, 0);

    /* The longest handle there can be fits in TH_CUDA_IPC_HANDLE_MAX. */
    th_cuda_ipc_handle h;
    memset(&h, 0, sizeof h);
    h.version = 1;
    h.pid = INT32_MAX;
    h.id = UINT64_MAX;
    h.device = INT32_MAX;
    memset(h.counter, 'x', TH_CUDA_IPC_COUNTER_NAME_MAX - 1);
    h.counter[0] = '/';
    h.counter[TH_CUDA_IPC_COUNTER_NAME_MAX - 1] = '\0';
    h.slot = INT32_MAX;
    h.generation = UINT32_MAX;
    h.dtype = TH_C128;
    h.segment_bytes = INT64_MAX;
    h.segment_offset = INT64_C(4611686018427387904);
    h.nbytes = INT64_MAX - h.segment_offset;
    h.offset = h.nbytes / 16 - 1;
    h.ndim = TH_MAX_DIMS;
    for (int d = 0; d < TH_MAX_DIMS; d++) {
        h.sizes[d] = d == 0 ? INT64_MAX : 1; /* stride 0 reaches nothing; size-1 dims any stride */
        h.strides[d] = d == 0 ? 0 : -INT64_MAX;
    }
    int n = th_cuda_ipc_handle_format(&h, text, sizeof text);
    CHECK(n > 0 && n < TH_CUDA_IPC_HANDLE_MAX);
    printf("longest handle: %d of %d bytes\n", n, TH_CUDA_IPC_HANDLE_MAX - 1);
    th_cuda_ipc_handle back;
    CHECK(th_cuda_ipc_handle_parse(text, (size_t)n, &back) == TH_OK && same_handle(&h, &back));
    CHECK_FAILS(th_cuda_ipc_handle_format(&h, text, (size_t)n), TH_ERR_RANGE, "th_cuda_ipc_handle_format",
                "buffer holds");
}

/* A plain valid handle's text, to break in every way. */
static void base_text(char *text)
{
    th_cuda_ipc_handle h;
    memset(&h, 0, sizeof h);
    h.version = 1;
    h.pid = 4242;
    h.id = UINT64_C(0x9f86d081884c7d65);
    h.device = 0;
    for (int i = 0; i < TH_CUDA_IPC_HANDLE_BYTES; i++) {
        h.mem[i] = (unsigned char)(0xa0 + i);
        h.event[i] = (unsigned char)(0x10 + i);
    }
    snprintf(h.counter, sizeof h.counter, "/thcuipc_4242_9f86d081884c7d65_0");
    h.slot = 17;
    h.generation = 3;
    h.segment_bytes = 2097152;
    h.segment_offset = 1024;
    h.nbytes = 4096;
    h.dtype = TH_F32;
    h.offset = 2;
    h.ndim = 2;
    h.sizes[0] = 2;
    h.sizes[1] = 3;
    h.strides[0] = 1;
    h.strides[1] = 2;
    CHECK(th_cuda_ipc_handle_format(&h, text, TH_CUDA_IPC_HANDLE_MAX) > 0);
}

/* text with its first `from` replaced by `to` */
static const char *edit(const char *text, const char *from, const char *to)
{
    static char out[2 * TH_CUDA_IPC_HANDLE_MAX];
    const char *at = strstr(text, from);
    if (!at) {
        fprintf(stderr, "edit: \"%s\" not in the handle\n", from);
        return "";
    }
    snprintf(out, sizeof out, "%.*s%s%s", (int)(at - text), text, to, at + strlen(from));
    return out;
}

#define REJECT(text, status, detail) \
    CHECK_FAILS(th_cuda_ipc_handle_parse((text), strlen(text), &h), status, "th_cuda_ipc_handle_parse", detail)

static void test_rejects(void)
{
    char text[TH_CUDA_IPC_HANDLE_MAX];
    base_text(text);
    printf("example handle: %s\n", text);
    th_cuda_ipc_handle h;
    CHECK_INT_EQ(th_cuda_ipc_handle_parse(text, strlen(text), &h), TH_OK);

    /* Every truncation fails, naming a field. */
    static const char *const fields[] = {"start", "version", "field", "pid", " id ", "dev", "mem", "segbytes",
                                         "segoff", "event", "counter", "slot", "gen", "bytes", "dtype", "offset",
                                         "sizes", "strides", "sum", "end"};
    size_t len = strlen(text);
    int silent = 0, accepted = 0;
    for (size_t k = 0; k < len; k++) {
        th_clear_error();
        if (th_cuda_ipc_handle_parse(text, k, &h) == TH_OK) {
            accepted++;
            continue;
        }
        bool named = false;
        char message[600];
        snprintf(message, sizeof message, " %s ", th_last_error());
        for (size_t f = 0; f < sizeof fields / sizeof *fields && !named; f++) named = strstr(message, fields[f]);
        if (!named && silent++ < 3) fprintf(stderr, "truncation at %zu: %s\n", k, th_last_error());
    }
    CHECK_INT_EQ(accepted, 0);
    CHECK_INT_EQ(silent, 0);

    /* versions and starts */
    REJECT(edit(text, "thcuda/1:", "thcuda/2:"), TH_ERR_INVALID, "handle version 2 is newer than this build reads (1)");
    REJECT(edit(text, "thcuda/1:", "thcuda/0:"), TH_ERR_INVALID, "version 0 does not exist");
    REJECT(edit(text, "thcuda/1:", "thcuda/01:"), TH_ERR_INVALID, "bad version at byte 7");
    REJECT(edit(text, "thcuda/1:", "thcuda/99999999999:"), TH_ERR_RANGE, "version at byte 7 is out of range");
    REJECT(edit(text, "thcuda/1:", "thcuda/v1:"), TH_ERR_INVALID, "bad version");
    REJECT(edit(text, "thcuda/1:", "THCUDA/1:"), TH_ERR_INVALID, "bad start at byte 0");
    REJECT("thshm/1:name=/th_1_0123456789abcdef0123456789abcdef:bytes=4:dtype=f32:offset=0:sizes=:strides=",
           TH_ERR_INVALID, "shared-memory handle");
    REJECT("", TH_ERR_INVALID, "bad start");

    /* hex */
    REJECT(edit(text, "mem=a0a1", "mem=A0a1"), TH_ERR_INVALID, "bad mem at byte");
    REJECT(edit(text, "mem=a0a1", "mem=a0g1"), TH_ERR_INVALID, "expected 128 lowercase hex digits");
    REJECT(edit(text, "mem=a0a1", "mem=a0a"), TH_ERR_INVALID, "bad mem");      /* 127 digits */
    REJECT(edit(text, "mem=a0a1", "mem=a0a1f"), TH_ERR_INVALID, "bad mem");    /* 129 digits */
    REJECT(edit(text, "event=1011", "event=10 1"), TH_ERR_INVALID, "bad event at byte");
    REJECT(edit(text, "id=9f86", "id=9f8"), TH_ERR_INVALID, "bad id");
    REJECT(edit(text, "id=9f86", "id=-f86"), TH_ERR_INVALID, "bad id");

    /* numbers and ranges */
    REJECT(edit(text, "pid=4242", "pid=0"), TH_ERR_RANGE, "pid 0 is no process id");
    REJECT(edit(text, "pid=4242", "pid=2147483648"), TH_ERR_RANGE, "pid at byte 13 is out of range");
    REJECT(edit(text, "pid=4242", "pid=-4242"), TH_ERR_INVALID, "bad pid");
    REJECT(edit(text, "dev=0", "dev=2147483648"), TH_ERR_RANGE, "dev at byte");
    REJECT(edit(text, "dev=0", "dev=00"), TH_ERR_INVALID, "bad dev");
    REJECT(edit(text, "slot=17", "slot=2147483648"), TH_ERR_RANGE, "slot at byte");
    REJECT(edit(text, "gen=3", "gen=4294967296"), TH_ERR_RANGE, "gen at byte");
    REJECT(edit(text, "bytes=4096", "bytes=04096"), TH_ERR_INVALID, "bad bytes");
    REJECT(edit(text, "bytes=4096", "bytes=99999999999999999999999"), TH_ERR_RANGE, "bytes at byte");
    REJECT(edit(text, "segbytes=2097152", "segbytes=0"), TH_ERR_RANGE, "segbytes 0");
    REJECT(edit(text, "segoff=1024", "segoff=2097152"), TH_ERR_RANGE, "segoff 2097152 is outside the segment");
    REJECT(edit(text, "segoff=1024", "segoff=2096128"), TH_ERR_RANGE, "run past the segment");
    REJECT(edit(text, "segoff=1024", "segoff=1026"), TH_ERR_RANGE, "segoff 1026 is not a multiple of f32's 4 bytes");
    REJECT(edit(text, "counter=/thcuipc", "counter=thcuipc"), TH_ERR_INVALID, "bad counter");
    REJECT(edit(text, "counter=/thcuipc", "counter=/th cuipc"), TH_ERR_INVALID, "bad counter");
    REJECT(edit(text, "dtype=f32", "dtype=f31"), TH_ERR_DTYPE, "unknown dtype \"f31\"");
    REJECT(edit(text, "dtype=f32", "dtype="), TH_ERR_DTYPE, "unknown dtype");

    /* shapes */
    REJECT(edit(text, "offset=2", "offset=1023"), TH_ERR_RANGE, "outside the storage's 1024 elements of f32");
    REJECT(edit(text, "strides=1,2", "strides=1,-2"), TH_ERR_RANGE, "reaches elements -2..3");
    REJECT(edit(text, "strides=1,2", "strides=1,4611686018427387904"), TH_ERR_OVERFLOW, "overflow int64 at dim 1");
    REJECT(edit(text, "strides=1,2", "strides=-9223372036854775808,1"), TH_ERR_RANGE, "strides at byte");
    char wide[TH_CUDA_IPC_HANDLE_MAX + 32];
    snprintf(wide, sizeof wide, "%s", edit(text, "sizes=2,3", "sizes=4294967296,4294967296"));
    REJECT(edit(wide, "strides=1,2", "strides=0,0"), TH_ERR_OVERFLOW, "sizes multiply past int64 at dim 1");
    REJECT(edit(text, "strides=1,2", "strides=1"), TH_ERR_INVALID, "2 sizes but 1 strides");
    REJECT(edit(text, "strides=1,2", "strides=1,-0"), TH_ERR_INVALID, "bad strides");
    REJECT(edit(text, "strides=1,2", "strides=1,2,"), TH_ERR_INVALID, "bad strides");
    REJECT(edit(text, "sizes=2,3", "sizes=1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1"), TH_ERR_RANGE,
           "more than 16 (TH_MAX_DIMS) sizes");

    /* the rest of the text */
    char longer[TH_CUDA_IPC_HANDLE_MAX + 8];
    snprintf(longer, sizeof longer, "%s:x", text);
    REJECT(longer, TH_ERR_INVALID, "bad end");
    CHECK_FAILS(th_cuda_ipc_handle_parse(text, len + 1, &h), TH_ERR_INVALID, "th_cuda_ipc_handle_parse",
                "bad sum at byte 460"); /* the NUL itself, where the sum should end */
    char *huge = (char *)malloc(TH_CUDA_IPC_HANDLE_MAX + 1);
    memset(huge, 'a', TH_CUDA_IPC_HANDLE_MAX);
    huge[TH_CUDA_IPC_HANDLE_MAX] = '\0';
    REJECT(huge, TH_ERR_INVALID, "longer than any handle");
    free(huge);
    REJECT(edit(text, "mem=a0a1", "mem=a0a2"), TH_ERR_INVALID, "was changed or mangled");
    REJECT(edit(text, "gen=3", "gen=4"), TH_ERR_INVALID, "does not match the text before it");
    CHECK_FAILS(th_cuda_ipc_handle_parse(NULL, 0, &h), TH_ERR_INVALID, "th_cuda_ipc_handle_parse", "NULL text");

    /* The formatter refuses what the parser would. */
    CHECK_INT_EQ(th_cuda_ipc_handle_parse(text, len, &h), TH_OK);
    th_cuda_ipc_handle bad = h;
    bad.version = 2;
    CHECK_FAILS(th_cuda_ipc_handle_format(&bad, text, sizeof text), TH_ERR_INVALID, "th_cuda_ipc_handle_format",
                "newer");
    bad = h;
    bad.counter[0] = 'x';
    CHECK_FAILS(th_cuda_ipc_handle_format(&bad, text, sizeof text), TH_ERR_INVALID, "th_cuda_ipc_handle_format",
                "counter name");
    bad = h;
    bad.dtype = (th_dtype)TH_NUM_DTYPES;
    CHECK_FAILS(th_cuda_ipc_handle_format(&bad, text, sizeof text), TH_ERR_DTYPE, "th_cuda_ipc_handle_format",
                "no dtype");
    bad = h;
    bad.strides[0] = INT64_MIN;
    CHECK_FAILS(th_cuda_ipc_handle_format(&bad, text, sizeof text), TH_ERR_OVERFLOW, "th_cuda_ipc_handle_format",
                "INT64_MIN");
    bad = h;
    bad.ndim = TH_MAX_DIMS + 1;
    CHECK_FAILS(th_cuda_ipc_handle_format(&bad, text, sizeof text), TH_ERR_RANGE, "th_cuda_ipc_handle_format",
                "ndim 17");
    bad = h;
    bad.slot = -1;
    CHECK_FAILS(th_cuda_ipc_handle_format(&bad, text, sizeof text), TH_ERR_RANGE, "th_cuda_ipc_handle_format",
                "slot -1");
}

/* ==== sharing and opening ================================================================================ */

enum { SEG = 1 << 20 };

/* Before set-up nothing opens; in the producer's own process a handle opens without CUDA (which would refuse),
 * to the producer's pointer; sharing again keeps the slot; a freed block's handle no longer opens. */
static void test_local(void)
{
    char text[TH_CUDA_IPC_HANDLE_MAX], text2[TH_CUDA_IPC_HANDLE_MAX];
    void *data;
    base_text(text);
    CHECK_NULL(open_text(text, &data), TH_ERR_UNSUPPORTED, "th_cuda_ipc_open", "not set up");
    char *seg = (char *)ipc_fake_malloc(&fake, 0, SEG);
    CHECK_FAILS(share_f32(seg, SEG, 0, 4096, 16, text), TH_ERR_UNSUPPORTED, "th_cuda_ipc_encode", "not set up");

    configure(2);
    CHECK(share_f32(seg, SEG, 512, 4096, 16, text) > 0);
    CHECK(share_f32(seg, SEG, 512, 4096, 16, text2) > 0);
    th_cuda_ipc_handle h, h2;
    CHECK_INT_EQ(th_cuda_ipc_handle_parse(text, strlen(text), &h), TH_OK);
    CHECK_INT_EQ(th_cuda_ipc_handle_parse(text2, strlen(text2), &h2), TH_OK);
    CHECK(h.slot == h2.slot && h.generation == h2.generation); /* one slot per block */
    CHECK_INT_EQ(h.pid, getpid());
    CHECK_INT_EQ(h.segment_offset, 512);
    CHECK_INT_EQ(h.segment_bytes, SEG);
    CHECK_INT_EQ(fake.records, 2);      /* each share records the event after the writes so far */
    CHECK_INT_EQ(fake.events_created, 1);
    CHECK_INT_EQ(counter_files(), 1);
    CHECK_INT_EQ(stats().shared_blocks, 1);

    th__cuda_ipc_ref *a = open_text(text, &data);
    CHECK(a && data == seg + 512);
    th__cuda_ipc_ref *b = open_text(text2, &data);
    CHECK(b && data == seg + 512);
    CHECK_INT_EQ(fake.opens, 0);        /* nothing opened through CUDA */
    CHECK_INT_EQ(fake.syncs, 2);        /* each open waited for the event */
    th__cuda_ipc_stats s = stats();
    CHECK(s.open_refs == 2 && s.open_segments == 1 && s.held_slots == 1);
    CHECK(th__cuda_ipc_defer_free(0, seg + 512)); /* held by this very process: deferred */
    CHECK_INT_EQ(th__cuda_ipc_deferred_sweep(), 0);
    CHECK_INT_EQ(th__cuda_ipc_release(a), TH_OK);
    CHECK_INT_EQ(th__cuda_ipc_deferred_sweep(), 0);
    CHECK_INT_EQ(th__cuda_ipc_release(b), TH_OK);
    int before = freed_count;
    CHECK_INT_EQ(th__cuda_ipc_deferred_sweep(), 1);
    CHECK(freed_count == before + 1 && freed_last == seg + 512);
    CHECK_INT_EQ(fake.events_destroyed, 1);
    s = stats();
    CHECK(s.open_refs == 0 && s.open_segments == 0 && s.held_slots == 0 && s.shared_blocks == 0 &&
          s.deferred_blocks == 0);

    /* The slot moved on: the old handle fails, naming both generations. */
    char expect[96];
    snprintf(expect, sizeof expect, "is at generation %u, the handle's is %u", h.generation + 1, h.generation);
    CHECK_NULL(open_text(text, &data), TH_ERR_IO, "th_cuda_ipc_open", expect);
    CHECK(data == NULL);
    /* Shared anew, the block takes the same slot at the next generation. */
    CHECK(share_f32(seg, SEG, 512, 4096, 16, text2) > 0);
    CHECK_INT_EQ(th_cuda_ipc_handle_parse(text2, strlen(text2), &h2), TH_OK);
    CHECK(h2.slot == h.slot && h2.generation == h.generation + 1);
    /* Freed with nobody holding it: the allocator frees it at once, and its handle is dead. */
    CHECK(!th__cuda_ipc_defer_free(0, seg + 512));
    CHECK_NULL(open_text(text2, &data), TH_ERR_IO, "th_cuda_ipc_open", "has freed this tensor's memory");
    CHECK(!th__cuda_ipc_defer_free(0, seg + 1024)); /* never shared */

    /* What encode refuses before taking a slot. */
    int64_t size[1] = {16}, stride[1] = {1};
    th__cuda_ipc_block blk = {0, seg, SEG, seg + 512, 4096};
    th__cuda_ipc_view v = {seg + 512, 64, TH_F32, 0, 1, size, stride};
    v.data = seg + 512 + 4090;
    CHECK_FAILS(th__cuda_ipc_encode(&blk, &v, NULL, text, sizeof text), TH_ERR_RANGE, "th_cuda_ipc_encode",
                "not inside block");
    v.data = seg + 512;
    blk.block_bytes = SEG;
    CHECK_FAILS(th__cuda_ipc_encode(&blk, &v, NULL, text, sizeof text), TH_ERR_RANGE, "th_cuda_ipc_encode",
                "not inside segment");
    blk.block_bytes = 4096;
    size[0] = 17;
    CHECK_FAILS(th__cuda_ipc_encode(&blk, &v, NULL, text, sizeof text), TH_ERR_RANGE, "th_cuda_ipc_encode",
                "outside the storage's 16 elements");
    size[0] = 16;
    v.data = seg + 514;
    v.nbytes = 60;
    CHECK_FAILS(th__cuda_ipc_encode(&blk, &v, NULL, text, sizeof text), TH_ERR_RANGE, "th_cuda_ipc_encode",
                "not a multiple of f32's 4 bytes");
    CHECK_INT_EQ(stats().shared_blocks, 0);
    /* ... and what fails after: the backend's errors, by name; no slot or event is kept. */
    v.data = seg + 512;
    v.nbytes = 64;
    fake.fail_get_mem = IPC_FAKE_INJECTED;
    CHECK_FAILS(th__cuda_ipc_encode(&blk, &v, NULL, text, sizeof text), TH_ERR_DEVICE, "th_cuda_ipc_encode",
                "cudaIpcGetMemHandle of the segment at");
    fake.fail_create_event = IPC_FAKE_INJECTED;
    CHECK_FAILS(th__cuda_ipc_encode(&blk, &v, NULL, text, sizeof text), TH_ERR_DEVICE, "th_cuda_ipc_encode",
                "fakeErrorInjected");
    CHECK_INT_EQ(stats().shared_blocks, 0);
    CHECK_INT_EQ(fake.events_created, fake.events_destroyed);
    fake.fail_record = IPC_FAKE_INJECTED;
    CHECK_FAILS(th__cuda_ipc_encode(&blk, &v, NULL, text, sizeof text), TH_ERR_DEVICE, "th_cuda_ipc_encode",
                "recording the interprocess event failed: fakeErrorInjected");
    CHECK(share_f32(seg, SEG, 512, 4096, 16, text) > 0);
    CHECK_FAILS(th__cuda_ipc_encode(&blk, &v, NULL, text2, 10), TH_ERR_RANGE, "th_cuda_ipc_encode",
                "buffer holds 10");
    CHECK(!th__cuda_ipc_defer_free(0, seg + 512));
    ipc_fake_free(&fake, seg);
}

/* Device index and version, checked when opening. */
static void test_open_errors(void)
{
    char *seg = (char *)ipc_fake_malloc(&fake, 0, SEG);
    char text[TH_CUDA_IPC_HANDLE_MAX];
    CHECK(share_f32(seg, SEG, 0, 4096, 16, text) > 0);
    th_cuda_ipc_handle h;
    CHECK_INT_EQ(th_cuda_ipc_handle_parse(text, strlen(text), &h), TH_OK);
    void *data;
    h.device = 5;
    CHECK_NULL(th__cuda_ipc_open(&h, &data), TH_ERR_RANGE, "th_cuda_ipc_open",
               "device 5 is out of range: this process sees 2 CUDA devices (0..1)");
    h.device = 0;
    fake.devices = 0;
    CHECK_NULL(th__cuda_ipc_open(&h, &data), TH_ERR_DEVICE, "th_cuda_ipc_open", "no CUDA device is usable");
    fake.devices = 2;
    h.version = 2;
    CHECK_NULL(th__cuda_ipc_open(&h, &data), TH_ERR_INVALID, "th_cuda_ipc_open", "handle version 2 is newer");
    h.version = 1;
    h.slot = TH_CUDA_IPC_HOLDERS * 1000;
    CHECK_NULL(th__cuda_ipc_open(&h, &data), TH_ERR_RANGE, "th_cuda_ipc_open", "slots of counter file");
    CHECK_NULL(th__cuda_ipc_open(NULL, &data), TH_ERR_INVALID, "th_cuda_ipc_open", "NULL handle");
    th__cuda_ipc_stats s = stats();
    CHECK(s.open_refs == 0 && s.held_slots == 0 && s.open_segments == 0);
    CHECK(!th__cuda_ipc_defer_free(0, seg));
    ipc_fake_free(&fake, seg);
}

/* A child opens two tensors over one segment (and one of them twice): one cudaIpcOpenMemHandle, one close
 * after the last release; each block's holder word is taken once. */
static void test_cache_across_fork(void)
{
    char *seg = (char *)ipc_fake_malloc(&fake, 0, SEG);
    for (int i = 0; i < 2048; i++) ((float *)(void *)seg)[i] = (float)i;
    char ta[TH_CUDA_IPC_HANDLE_MAX], tb[TH_CUDA_IPC_HANDLE_MAX];
    CHECK(share_f32(seg, SEG, 0, 4096, 1024, ta) > 0);
    CHECK(share_f32(seg, SEG, 4096, 4096, 1024, tb) > 0);
    int opens = fake.opens, event_opens = fake.event_opens, syncs = fake.syncs;
    pid_t pid = fork_child();
    if (pid == 0) {
        void *da, *db, *da2;
        th__cuda_ipc_ref *a = open_text(ta, &da);
        th__cuda_ipc_ref *b = open_text(tb, &db);
        th__cuda_ipc_ref *a2 = open_text(ta, &da2);
        CHECK(a && b && a2);
        CHECK(da == seg && da2 == seg && db == seg + 4096);
        CHECK(db && ((float *)db)[5] == 1029.0f);
        CHECK_INT_EQ(fake.opens, opens + 1);
        CHECK_INT_EQ(fake.event_opens, event_opens + 3);
        CHECK_INT_EQ(fake.syncs, syncs + 3);
        th__cuda_ipc_stats s = stats();
        CHECK(s.open_refs == 3 && s.open_segments == 1 && s.held_slots == 2 && s.shared_blocks == 0);
        CHECK_INT_EQ(th__cuda_ipc_release(a), TH_OK);
        CHECK_INT_EQ(th__cuda_ipc_release(b), TH_OK);
        CHECK_INT_EQ(fake.closes, 0);
        CHECK_INT_EQ(th__cuda_ipc_release(a2), TH_OK);
        CHECK_INT_EQ(fake.closes, 1);
        CHECK_INT_EQ(fake.open_memory, 0);
        s = stats();
        CHECK(s.open_refs == 0 && s.open_segments == 0 && s.held_slots == 0);
        child_exit();
    }
    CHECK_INT_EQ(wait_child(pid), 0);
    CHECK(!th__cuda_ipc_defer_free(0, seg));        /* the child let go of both */
    CHECK(!th__cuda_ipc_defer_free(0, seg + 4096));
    ipc_fake_free(&fake, seg);
}

/* The parent frees a block a child holds: the free waits, with no collect call, until the child lets go. */
static void test_deferred_free_across_fork(void)
{
    char *seg = (char *)ipc_fake_malloc(&fake, 0, SEG);
    char text[TH_CUDA_IPC_HANDLE_MAX];
    CHECK(share_f32(seg, SEG, 8192, 4096, 1024, text) > 0);
    int up[2], down[2];
    CHECK(pipe(up) == 0 && pipe(down) == 0);
    pid_t pid = fork_child();
    if (pid == 0) {
        void *data;
        th__cuda_ipc_ref *ref = open_text(text, &data);
        CHECK(ref && data == seg + 8192);
        put(up[1], 'o');
        CHECK(get(down[0]) == 'r');
        CHECK_INT_EQ(th__cuda_ipc_release(ref), TH_OK);
        put(up[1], 'd');
        child_exit();
    }
    CHECK(get(up[0]) == 'o');
    int before = freed_count;
    CHECK(th__cuda_ipc_defer_free(0, seg + 8192));
    th__cuda_ipc_stats s = stats();
    CHECK(s.deferred_blocks == 1 && s.deferred_bytes == 4096);
    for (int i = 0; i < 3; i++) CHECK_INT_EQ(th__cuda_ipc_deferred_sweep(), 0);
    CHECK_INT_EQ(freed_count, before);
    /* A handle of a block freed by its producer opens nowhere, even while a consumer keeps it alive. */
    void *data;
    CHECK_NULL(open_text(text, &data), TH_ERR_IO, "th_cuda_ipc_open", "the producer must keep a tensor");
    put(down[1], 'r');
    CHECK(get(up[0]) == 'd');
    CHECK_INT_EQ(th__cuda_ipc_deferred_sweep(), 1);
    CHECK(freed_count == before + 1 && freed_last == seg + 8192);
    CHECK_INT_EQ(stats().deferred_blocks, 0);
    CHECK_INT_EQ(th__cuda_ipc_deferred_sweep(), 0);
    CHECK_INT_EQ(wait_child(pid), 0);
    close(up[0]);
    close(up[1]);
    close(down[0]);
    close(down[1]);
    ipc_fake_free(&fake, seg);
}

/* A consumer killed while holding a block: the sweep clears its holder word once it is a zombie, or once it
 * is gone altogether, so the block is freed without anyone releasing it. */
static void test_killed_consumer(void)
{
    char *seg = (char *)ipc_fake_malloc(&fake, 0, SEG);
    for (int round = 0; round < 2; round++) {
        char text[TH_CUDA_IPC_HANDLE_MAX];
        CHECK(share_f32(seg, SEG, 0, 4096, 1024, text) > 0);
        int up[2];
        CHECK(pipe(up) == 0);
        pid_t pid = fork_child();
        if (pid == 0) {
            void *data;
            th__cuda_ipc_ref *ref = open_text(text, &data);
            put(up[1], ref ? 'o' : 'x');
            for (;;) pause(); /* never releases */
        }
        CHECK(get(up[0]) == 'o');
        close(up[0]);
        close(up[1]);
        int64_t reaped = stats().reaped_holders, before = freed_count;
        if (round == 0) {
            CHECK(th__cuda_ipc_defer_free(0, seg)); /* alive: deferred */
            CHECK_INT_EQ(th__cuda_ipc_deferred_sweep(), 0);
            kill(pid, SIGKILL);
            siginfo_t info;
            CHECK(waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) == 0); /* a zombie now, not reaped */
            CHECK_INT_EQ(th__cuda_ipc_deferred_sweep(), 1);
            CHECK(freed_count == before + 1 && freed_last == seg);
            CHECK_INT_EQ(wait_child(pid), 128 + SIGKILL);
        } else {
            kill(pid, SIGKILL);
            CHECK_INT_EQ(wait_child(pid), 128 + SIGKILL);
            CHECK(!th__cuda_ipc_defer_free(0, seg)); /* its pid gone: freed at once */
            CHECK_INT_EQ(freed_count, before);
        }
        CHECK_INT_EQ(stats().reaped_holders, reaped + 1);
    }
    ipc_fake_free(&fake, seg);
}

/* Holder words as the counter file holds them (white box: the layout of cuda/ipc.c, 64-byte header, 256-byte
 * slots of a state word and TH_CUDA_IPC_HOLDERS holder words): a live pid with another start time is a reused
 * pid, so its holder is dead; a foreign word (another pid namespace) is never reaped; start 0 means unknown,
 * so a live pid holds. */
static void test_holder_words(void)
{
    char *seg = (char *)ipc_fake_malloc(&fake, 0, SEG);
    char text[TH_CUDA_IPC_HANDLE_MAX];
    CHECK(share_f32(seg, SEG, 0, 4096, 1024, text) > 0);
    th_cuda_ipc_handle h;
    CHECK_INT_EQ(th_cuda_ipc_handle_parse(text, strlen(text), &h), TH_OK);
    char path[128];
    snprintf(path, sizeof path, "/dev/shm%s", h.counter);
    int fd = open(path, O_RDWR);
    CHECK(fd >= 0);
    size_t bytes = 64 + ((size_t)h.slot + 1) * 256;
    void *map = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    CHECK(map != MAP_FAILED);
    _Atomic uint64_t *slot = (_Atomic uint64_t *)(void *)((char *)map + 64 + (size_t)h.slot * 256);
    CHECK_INT_EQ(atomic_load(&slot[0]), (uint64_t)h.generation << 32 | 1); /* live */
    const uint64_t me = (uint64_t)(uint32_t)getpid();
    atomic_store(&slot[1], UINT64_C(1) << 32 | me);      /* this pid, started at tick 1: another process */
    atomic_store(&slot[2], UINT64_C(0x80000000) | 12345); /* foreign */
    atomic_store(&slot[3], me);                          /* this pid, start unknown */
    int64_t reaped = stats().reaped_holders;
    CHECK(th__cuda_ipc_defer_free(0, seg));
    CHECK_INT_EQ(stats().reaped_holders, reaped + 1);
    CHECK_INT_EQ(atomic_load(&slot[1]), 0);
    CHECK_INT_EQ(atomic_load(&slot[0]), (uint64_t)h.generation << 32 | 2); /* dropped */
    CHECK_INT_EQ(th__cuda_ipc_deferred_sweep(), 0);
    atomic_store(&slot[3], 0);
    CHECK_INT_EQ(th__cuda_ipc_deferred_sweep(), 0); /* the foreign word still holds it */
    atomic_store(&slot[2], 0);
    CHECK_INT_EQ(th__cuda_ipc_deferred_sweep(), 1);
    CHECK_INT_EQ(atomic_load(&slot[0]), (uint64_t)(h.generation + 1) << 32); /* free, next generation */
    munmap(map, bytes);
    ipc_fake_free(&fake, seg);
}

/* A producer that exits, or is killed, before its consumer opens: a clear error, and no file left behind. */
static void test_producer_gone(void)
{
    for (int killed = 0; killed < 2; killed++) {
        int up[2];
        CHECK(pipe(up) == 0);
        int files = counter_files();
        pid_t pid = fork_child();
        if (pid == 0) {
            static char *seg; /* still reachable when exit's leak checks look */
            seg = (char *)ipc_fake_malloc(&fake, 0, SEG);
            char text[TH_CUDA_IPC_HANDLE_MAX];
            int n = share_f32(seg, SEG, 0, 4096, 1024, text);
            CHECK(n > 0 && write(up[1], text, (size_t)n + 1) == n + 1);
            if (killed)
                for (;;) pause();
            exit(check_failures ? 1 : 0); /* exit, not _exit: the counter file's name goes at exit */
        }
        char text[TH_CUDA_IPC_HANDLE_MAX] = "";
        size_t got = 0;
        while (got < sizeof text - 1) {
            ssize_t n = read(up[0], text + got, sizeof text - 1 - got);
            if (n <= 0) break;
            got += (size_t)n;
            if (memchr(text, '\0', got)) break;
        }
        close(up[0]);
        close(up[1]);
        if (killed) {
            CHECK_INT_EQ(counter_files(), files + 1);
            kill(pid, SIGKILL);
            CHECK_INT_EQ(wait_child(pid), 128 + SIGKILL);
        } else {
            CHECK_INT_EQ(wait_child(pid), 0);
        }
        th_cuda_ipc_handle h;
        CHECK_INT_EQ(th_cuda_ipc_handle_parse(text, strlen(text), &h), TH_OK);
        CHECK_INT_EQ(h.pid, pid);
        char expect[64];
        snprintf(expect, sizeof expect, "the producer (pid %d) has exited", (int)pid);
        void *data;
        CHECK_NULL(th__cuda_ipc_open(&h, &data), TH_ERR_IO, "th_cuda_ipc_open", expect);
        if (killed) {
            CHECK_INT_EQ(counter_files(), files + 1); /* a killed producer could not remove its file ... */
            CHECK_INT_EQ(th__cuda_ipc_reap_stale_counters(), 1); /* ... so the next one does */
            CHECK_NULL(th__cuda_ipc_open(&h, &data), TH_ERR_IO, "th_cuda_ipc_open", "counter file");
        }
        CHECK_INT_EQ(counter_files(), files);
        th__cuda_ipc_stats s = stats();
        CHECK(s.open_refs == 0 && s.held_slots == 0);
    }
}

/* Failures of the backend on the consumer's side leave nothing held: the producer frees at once after. */
static void test_consumer_backend_errors(void)
{
    char *seg = (char *)ipc_fake_malloc(&fake, 0, SEG);
    char text[TH_CUDA_IPC_HANDLE_MAX];
    CHECK(share_f32(seg, SEG, 0, 4096, 1024, text) > 0);
    pid_t pid = fork_child();
    if (pid == 0) {
        void *data;
        fake.fail_open_mem = IPC_FAKE_INJECTED;
        CHECK_NULL(open_text(text, &data), TH_ERR_DEVICE, "th_cuda_ipc_open",
                   "cudaIpcOpenMemHandle on device 0 failed: fakeErrorInjected");
        fake.fail_open_event = IPC_FAKE_INVALID_VALUE;
        CHECK_NULL(open_text(text, &data), TH_ERR_DEVICE, "th_cuda_ipc_open",
                   "cudaIpcOpenEventHandle on device 0 failed: fakeErrorInvalidValue");
        fake.fail_sync = IPC_FAKE_INJECTED;
        CHECK_NULL(open_text(text, &data), TH_ERR_DEVICE, "th_cuda_ipc_open",
                   "waiting for the producer's event on device 0 failed");
        CHECK(data == NULL);
        CHECK_INT_EQ(fake.open_memory, 0);
        CHECK_INT_EQ(fake.events_created, fake.events_destroyed + 1); /* the producer's own, inherited */
        th__cuda_ipc_stats s = stats();
        CHECK(s.open_refs == 0 && s.open_segments == 0 && s.held_slots == 0);
        /* A close that fails is reported, and everything is let go all the same. */
        th__cuda_ipc_ref *ref = open_text(text, &data);
        CHECK(ref != NULL);
        fake.fail_close = IPC_FAKE_INJECTED;
        CHECK_FAILS(th__cuda_ipc_release(ref), TH_ERR_DEVICE, "th_cuda_ipc_release",
                    "cudaIpcCloseMemHandle on device 0 failed: fakeErrorInjected");
        s = stats();
        CHECK(s.open_refs == 0 && s.open_segments == 0 && s.held_slots == 0);
        child_exit();
    }
    CHECK_INT_EQ(wait_child(pid), 0);
    CHECK(!th__cuda_ipc_defer_free(0, seg));
    ipc_fake_free(&fake, seg);
}

/* TH_CUDA_IPC_HOLDERS processes may hold a block at once; one more is refused, clearly, and holds nothing. */
static void test_holder_limit(void)
{
    char *seg = (char *)ipc_fake_malloc(&fake, 0, SEG);
    char text[TH_CUDA_IPC_HANDLE_MAX];
    CHECK(share_f32(seg, SEG, 0, 4096, 1024, text) > 0);
    int up[2], down[2];
    CHECK(pipe(up) == 0 && pipe(down) == 0);
    pid_t pids[TH_CUDA_IPC_HOLDERS];
    for (int i = 0; i < TH_CUDA_IPC_HOLDERS; i++) {
        pids[i] = fork_child();
        if (pids[i] == 0) {
            close(down[1]);
            void *data;
            th__cuda_ipc_ref *ref = open_text(text, &data);
            put(up[1], ref ? 'o' : 'x');
            get(down[0]); /* returns when the parent closes the pipe */
            CHECK_INT_EQ(th__cuda_ipc_release(ref), TH_OK);
            child_exit();
        }
    }
    int opened = 0;
    for (int i = 0; i < TH_CUDA_IPC_HOLDERS; i++) opened += get(up[0]) == 'o';
    CHECK_INT_EQ(opened, TH_CUDA_IPC_HOLDERS);
    void *data;
    CHECK_NULL(open_text(text, &data), TH_ERR_UNSUPPORTED, "th_cuda_ipc_open",
               "open in 31 processes already, the most its counter slot records");
    CHECK_INT_EQ(stats().held_slots, 0);
    CHECK(th__cuda_ipc_defer_free(0, seg));
    close(down[1]);
    int ok = 0;
    for (int i = 0; i < TH_CUDA_IPC_HOLDERS; i++) ok += wait_child(pids[i]) == 0;
    CHECK_INT_EQ(ok, TH_CUDA_IPC_HOLDERS);
    CHECK_INT_EQ(th__cuda_ipc_deferred_sweep(), 1);
    close(down[0]);
    close(up[0]);
    close(up[1]);
    ipc_fake_free(&fake, seg);
}

/* Threads sharing, opening, releasing, freeing and sweeping at once, each with blocks of its own. */
enum { THREADS = 4, ROUNDS = 200 };
static char *thread_seg;

static void *thread_main(void *arg)
{
    int t = (int)(intptr_t)arg, failures = 0;
    for (int r = 0; r < ROUNDS; r++) {
        char text[TH_CUDA_IPC_HANDLE_MAX];
        size_t off = (size_t)(t * ROUNDS + r) * 512; /* a block per round: none is met while its free waits */
        void *data = NULL;
        th__cuda_ipc_ref *ref = NULL;
        failures += share_f32(thread_seg, THREADS * ROUNDS * 512, off, 512, 128, text) <= 0;
        failures += (ref = open_text(text, &data)) == NULL || data != thread_seg + off;
        bool deferred = r % 2 && th__cuda_ipc_defer_free(0, thread_seg + off);
        failures += th__cuda_ipc_release(ref) != TH_OK;
        if (!deferred) failures += th__cuda_ipc_defer_free(0, thread_seg + off); /* not held: freed at once */
        th__cuda_ipc_deferred_sweep();
    }
    return (void *)(intptr_t)failures;
}

static void test_threads(void)
{
    thread_seg = (char *)ipc_fake_malloc(&fake, 0, THREADS * ROUNDS * 512);
    int before = freed_count;
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++) CHECK(pthread_create(&threads[t], NULL, thread_main, (void *)(intptr_t)t) == 0);
    int failures = 0;
    for (int t = 0; t < THREADS; t++) {
        void *ret;
        pthread_join(threads[t], &ret);
        failures += (int)(intptr_t)ret;
    }
    CHECK_INT_EQ(failures, 0);
    while (stats().deferred_blocks) th__cuda_ipc_deferred_sweep(); /* a sweep may have skipped its turn */
    CHECK_INT_EQ(freed_count - before, THREADS * ROUNDS / 2);
    th__cuda_ipc_stats s = stats();
    CHECK(s.shared_blocks == 0 && s.open_refs == 0 && s.held_slots == 0 && s.open_segments == 0);
    ipc_fake_free(&fake, thread_seg);
}

/* Teardown waits for references; then no counter file of this run is left. */
static void test_teardown(void)
{
    char *seg = (char *)ipc_fake_malloc(&fake, 0, SEG);
    char text[TH_CUDA_IPC_HANDLE_MAX];
    void *data;
    CHECK(share_f32(seg, SEG, 0, 4096, 1024, text) > 0);
    th__cuda_ipc_ref *ref = open_text(text, &data);
    CHECK(ref != NULL);
    CHECK_FAILS(th__cuda_ipc_teardown(), TH_ERR_UNSUPPORTED, "th__cuda_ipc_teardown", "1 references open here");
    th__cuda_ipc_config c = {&fake.backend, free_block, NULL, prefix, -1};
    CHECK_FAILS(th__cuda_ipc_configure(&c), TH_ERR_UNSUPPORTED, "th__cuda_ipc_configure", "shares or holds");
    CHECK_INT_EQ(th__cuda_ipc_release(ref), TH_OK);
    CHECK(counter_files() >= 1);
    CHECK_INT_EQ(th__cuda_ipc_teardown(), TH_OK);
    CHECK_INT_EQ(counter_files(), 0);
    CHECK_INT_EQ(fake.events_created, fake.events_destroyed);
    CHECK_NULL(open_text(text, &data), TH_ERR_UNSUPPORTED, "th_cuda_ipc_open", "not set up");
    c.prefix = "bad/prefix";
    CHECK_FAILS(th__cuda_ipc_configure(&c), TH_ERR_INVALID, "th__cuda_ipc_configure", "prefix");
    ipc_fake_free(&fake, seg);
}

int main(void)
{
    snprintf(prefix, sizeof prefix, "ttci%d", (int)getpid());
    test_begin();
    test_round_trip();
    test_rejects();
    test_local();
    test_open_errors();
    test_cache_across_fork();
    test_deferred_free_across_fork();
    test_killed_consumer();
    test_holder_words();
    test_producer_gone();
    test_consumer_backend_errors();
    test_holder_limit();
    test_threads();
    test_teardown();
    return test_end("test_cuda_ipc");
}
