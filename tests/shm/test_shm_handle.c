/* tests/shm/test_shm_handle.c: the name strategy and its printable handles.
 *
 * Round trips in this process and in fork+exec'd helpers, for every dtype and for views with offsets,
 * transposed, stepped, expanded (stride 0), 0-d and empty; the last process to let go unlinks the segment;
 * one th_storage per segment and process, opened twice or by four threads at once (by name and by
 * descriptor, mapped here already or not yet), and a new one once every tensor over it has gone; the strict
 * parser (every malformed field refused with a message saying which) and the formatter's round
 * trip; and opening bad handles: a segment gone, smaller than claimed, not ours, another user's, a dtype or
 * shape that does not fit; each leaving no mapping or descriptor behind. */
#include "shm_test.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/stat.h>

/* A shared f32 storage of n elements, element k holding k (the helper checks views against this). */
static th_f32_tensor *positions(int64_t n)
{
    th_f32_tensor *t = shm_test_arange(1, SZ(n));
    CHECK_INT_EQ(th_storage_share_memory_with(th_f32_storage(t), TH_SHM_NAME), TH_OK);
    return t;
}

static void test_same_process(void)
{
    th_f32_tensor *a = shm_test_arange(2, SZ(2, 3));
    char h[TH_SHM_HANDLE_MAX];
    int n = th_shm_handle_encode(th_f32_base(a), h, sizeof h);
    CHECK(n > 0 && (size_t)n == strlen(h));
    CHECK(th_f32_is_shared(a)); /* encode shared it (name strategy) */
    CHECK_INT_EQ(th_storage_shm_strategy(th_f32_storage(a)), TH_SHM_NAME);
    CHECK(strncmp(h, "thshm/1:name=/", 14) == 0);
    CHECK(strstr(h, ":bytes=24:dtype=f32:offset=0:sizes=2,3:strides=3,1") != NULL);
    th_f32_tensor *b = th_f32_from_base(th_shm_open_handle(h));
    CHECK(b != NULL);
    CHECK(th_f32_is_shared(b));
    CHECK(th_f32_data(b) == th_f32_data(a)); /* the mapping this process already has */
    th_f32_set(b, IDX(1, 2), 42.0f);
    CHECK(th_f32_get(a, IDX(1, 2)) == 42.0f);
    CHECK(th_f32_get(b, IDX(1, 1)) == 4.0f);
    CHECK_INT_EQ(shm_test_mappings(), 1);
    th_f32_release(a);
    CHECK_INT_EQ(shm_test_segments(), 1); /* b still holds it */
    char h2[TH_SHM_HANDLE_MAX];
    CHECK(th_shm_handle_encode(th_f32_base(b), h2, sizeof h2) > 0);
    CHECK(strcmp(h, h2) == 0);
    th_f32_release(b);
    CHECK_INT_EQ(shm_test_segments(), 0);
    CHECK_NULL(th_shm_open_handle(h), TH_ERR_IO, "th_shm_open_handle", "no longer exists");
}

/* Every dtype's bytes and dtype survive. */
#define X(sfx, ENUM, elem, ...)                                                                  \
    TH__IF_##sfx(static void roundtrip_##sfx(void) {                                            \
        th_##sfx##_tensor *t = th_##sfx##_zeros(2, SZ(3, 4));                                    \
        unsigned char *p = (unsigned char *)th_##sfx##_data(t), want[12 * sizeof(elem)];          \
        for (size_t i = 0; i < sizeof want; i++) p[i] = want[i] = (unsigned char)(i * 13 + 5);     \
        th_##sfx##_tensor *v = th_##sfx##_transpose(t, 0, 1);                                    \
        char h[TH_SHM_HANDLE_MAX];                                                               \
        CHECK(th_shm_handle_encode(th_##sfx##_base(v), h, sizeof h) > 0);                        \
        th_tensor *o = th_shm_open_handle(h);                                                    \
        CHECK(o != NULL && th_tensor_dtype(o) == TH_##ENUM);                                     \
        CHECK(th_tensor_ndim(o) == 2 && th_tensor_sizes(o)[0] == 4 && th_tensor_strides(o)[0] == 1); \
        CHECK(memcmp(th_tensor_data(o), want, sizeof want) == 0);                                \
        th_tensor_release(o);                                                                    \
        th_##sfx##_release(v);                                                                   \
        th_##sfx##_release(t);                                                                   \
    })
TH_FOREACH_DTYPE(X)
#undef X

static void test_every_dtype(void)
{
#define X(sfx, ...) TH__IF_##sfx(roundtrip_##sfx();)
    TH_FOREACH_DTYPE(X)
#undef X
}

/* A view of the positions storage goes to a fork+exec'd helper, which checks every element against its
 * storage position and negates it; the parent sees the negated values. */
static void through_helper(th_f32_tensor *base, th_f32_tensor *view)
{
    char h[TH_SHM_HANDLE_MAX];
    CHECK(th_shm_handle_encode(th_f32_base(view), h, sizeof h) > 0);
    pid_t pid = shm_test_spawn((const char *[]){"open", h, NULL});
    CHECK_INT_EQ(shm_test_wait(pid), 0);
    /* Every element of the view is now -(position) - 1. */
    CHECK(shm_test_negated(base, view));
}

static void test_views_across_exec(void)
{
    th_f32_tensor *s = positions(120);
    th_f32_tensor *m = th_f32_view(s, 3, SZ(4, 5, 6));
    th_f32_tensor *v;

    through_helper(s, m);
    v = th_f32_transpose(m, 0, 2); /* strides 1, 6, 30 */
    through_helper(s, v);
    th_f32_release(v);
    v = th_f32_narrow(m, 1, 2, 3); /* offset 12 */
    th_f32_tensor *w = th_f32_narrow(v, 2, 1, 4); /* offset 13, non-contiguous */
    through_helper(s, w);
    th_f32_release(w);
    th_f32_release(v);
    th_f32_tensor *x = th_f32_select(m, 0, 3);
    v = th_f32_unfold(x, 1, 2, 2); /* offset 90, windows */
    th_f32_release(x);
    through_helper(s, v);
    th_f32_release(v);
    x = th_f32_select(m, 0, 2);
    w = th_f32_select(x, 0, 1);
    v = th_f32_select(w, 0, 5); /* 0-d at 71 */
    th_f32_release(w);
    th_f32_release(x);
    CHECK_INT_EQ(th_f32_ndim(v), 0);
    through_helper(s, v);
    th_f32_release(v);
    th_f32_tensor *row = th_f32_narrow(s, 0, 7, 1);
    v = th_f32_expand(row, 2, SZ(3, 1)); /* stride 0 */
    CHECK_INT_EQ(th_f32_stride(v, 0), 0);
    char h[TH_SHM_HANDLE_MAX];
    CHECK(th_shm_handle_encode(th_f32_base(v), h, sizeof h) > 0);
    CHECK(strstr(h, ":offset=7:sizes=3,1:strides=0,1") != NULL);
    th_tensor *o = th_shm_open_handle(h);
    CHECK(o != NULL && th_tensor_strides(o)[0] == 0 && *(float *)th_tensor_data(o) == 7.0f);
    th_tensor_release(o);
    th_f32_release(v);
    th_f32_release(row);
    v = th_f32_narrow(m, 2, 3, 0); /* no elements */
    CHECK(th_shm_handle_encode(th_f32_base(v), h, sizeof h) > 0);
    o = th_shm_open_handle(h);
    CHECK(o != NULL && th_tensor_numel(o) == 0 && th_tensor_offset(o) == th_f32_offset(v));
    CHECK(o != NULL && th_tensor_sizes(o)[2] == 0 && th_tensor_sizes(o)[1] == 5);
    th_tensor_release(o);
    th_f32_release(v);
    th_f32_release(m);
    th_f32_release(s);
}

/* An empty storage travels as an "empty" handle. */
static void test_empty(void)
{
    th_i16_tensor *e = th_i16_empty(2, SZ(0, 4));
    char h[TH_SHM_HANDLE_MAX];
    CHECK(th_shm_handle_encode(th_i16_base(e), h, sizeof h) > 0);
    CHECK(strcmp(h, "thshm/1:empty:bytes=0:dtype=i16:offset=0:sizes=0,4:strides=4,1") == 0);
    th_tensor *o = th_shm_open_handle(h);
    CHECK(o != NULL && th_tensor_numel(o) == 0 && th_tensor_dtype(o) == TH_I16 && th_tensor_is_shared(o));
    th_tensor_release(o);
    th_i16_release(e);
}

/* The last process to let go unlinks: a child opens the handle, the parent lets go first. */
static void test_last_unlinks(void)
{
    th_f32_tensor *a = positions(64);
    char h[TH_SHM_HANDLE_MAX];
    CHECK(th_shm_handle_encode(th_f32_base(a), h, sizeof h) > 0);
    int up[2], down[2];
    CHECK(pipe(up) == 0 && pipe(down) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        th_f32_release(a); /* inherited: only unmapped */
        th_tensor *t = th_shm_open_handle(h);
        char byte = t ? 'y' : 'n';
        (void)!write(up[1], &byte, 1);
        (void)!read(down[0], &byte, 1);
        int bad = !t || ((float *)th_tensor_data(t))[63] != 63.0f;
        th_tensor_release(t);
        _exit(bad);
    }
    char byte = 0;
    CHECK(read(up[0], &byte, 1) == 1 && byte == 'y');
    th_f32_release(a);
    CHECK_INT_EQ(shm_test_segments(), 1);
    (void)!write(down[1], "x", 1);
    CHECK_INT_EQ(shm_test_wait(pid), 0);
    CHECK_INT_EQ(shm_test_segments(), 0);
    close(up[0]), close(up[1]), close(down[0]), close(down[1]);
}

/* As torch.multiprocessing keeps a per-process cache of received storages: a handle opened again in the
 * same process, or received again by descriptor, is the memory this process already maps, not a second
 * mapping; the segment goes with the last of them. A forked child's opens are its own (it counts itself in). */
static void test_open_twice(void)
{
    th_f32_tensor *a = positions(32);
    th_storage *sa = th_f32_storage(a);
    char h[TH_SHM_HANDLE_MAX];
    CHECK(th_shm_handle_encode(th_f32_base(a), h, sizeof h) > 0);
    th_tensor *b = th_shm_open_handle(h), *c = th_shm_open_handle(h);
    CHECK(b != NULL && c != NULL);
    /* one th_storage per segment and process, the maker's included: only the tensor headers are new */
    CHECK(th_tensor_storage(b) == sa && th_tensor_storage(c) == sa);
    CHECK(b != th_f32_base(a) && c != b);
    CHECK_INT_EQ(th_storage_refcount(sa), 3);
    CHECK(th_tensor_data(b) == th_f32_data(a) && th_tensor_data(c) == th_f32_data(a));
    CHECK_INT_EQ(shm_test_mappings(), 1);
    /* a view's handle opens to a view: a header of its own dtype, shape and offset, over that storage */
    th_f32_tensor *v = th_f32_narrow(a, 0, 4, 8);
    char hv[TH_SHM_HANDLE_MAX];
    CHECK(th_shm_handle_encode(th_f32_base(v), hv, sizeof hv) > 0);
    th_f32_tensor *o = th_f32_from_base(th_shm_open_handle(hv));
    CHECK(o != NULL && th_f32_storage(o) == sa && th_f32_offset(o) == 4 && th_f32_size(o, 0) == 8);
    CHECK(o != NULL && th_f32_get(o, IDX(0)) == 4.0f);
    th_f32_release(o);
    th_f32_release(v);
    th_f32_release(a);
    th_tensor_release(b);
    CHECK_INT_EQ(th_storage_refcount(th_tensor_storage(c)), 1);
    CHECK_INT_EQ(shm_test_segments(), 1); /* c still holds it */
    CHECK(((float *)th_tensor_data(c))[31] == 31.0f);
    th_tensor *d = th_shm_open_handle(h);
    CHECK(d != NULL && th_tensor_storage(d) == sa && th_tensor_data(d) == th_tensor_data(c));
    th_tensor_release(c);
    th_tensor_release(d);
    CHECK_INT_EQ(shm_test_segments(), 0);
    CHECK_INT_EQ(shm_test_mappings(), 0);

    /* by descriptor: the same memfd twice is one mapping and one storage, the sender's */
    int sv[2];
    CHECK_INT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
    th_f32_tensor *f = shm_test_arange(1, SZ(8));
    for (int i = 0; i < 3; i++) CHECK_INT_EQ(th_shm_send_fd(sv[0], th_f32_base(f)), TH_OK);
    th_tensor *r1 = th_shm_recv_fd(sv[1]), *r2 = th_shm_recv_fd(sv[1]);
    CHECK(r1 != NULL && r2 != NULL && th_tensor_storage(r1) == th_f32_storage(f));
    CHECK(r2 != NULL && th_tensor_storage(r2) == th_f32_storage(f));
    CHECK(r1 != NULL && th_tensor_data(r1) == th_f32_data(f));
    CHECK_INT_EQ(th_storage_refcount(th_f32_storage(f)), 3);
    CHECK_INT_EQ(shm_test_mappings(), 1);
    th_tensor_release(r1);
    th_f32_release(f);
    CHECK(((float *)th_tensor_data(r2))[7] == 7.0f);
    ((float *)th_tensor_data(r2))[7] = 70.0f;
    th_tensor_release(r2);
    CHECK_INT_EQ(shm_test_mappings(), 0);
    /* every storage over it gone, the third descriptor (still in flight) maps it afresh: a new storage */
    th_tensor *r3 = th_shm_recv_fd(sv[1]);
    CHECK(r3 != NULL && th_storage_refcount(th_tensor_storage(r3)) == 1);
    CHECK(r3 != NULL && ((float *)th_tensor_data(r3))[7] == 70.0f);
    CHECK_INT_EQ(shm_test_mappings(), 1);
    th_tensor_release(r3);
    CHECK_INT_EQ(shm_test_mappings(), 0);
    close(sv[0]);
    close(sv[1]);

    /* a forked child's open is a holder of its own, and a storage of its own: the segment outlives the
     * parent's release, and the parent's next open makes a new storage over a new mapping */
    a = positions(16);
    CHECK(th_shm_handle_encode(th_f32_base(a), h, sizeof h) > 0);
    int up[2], down[2];
    CHECK(pipe(up) == 0 && pipe(down) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        th_tensor *t = th_shm_open_handle(h);
        char byte = t && th_tensor_data(t) != th_f32_data(a) && th_tensor_storage(t) != th_f32_storage(a) &&
                    th_storage_refcount(th_tensor_storage(t)) == 1 ? 'y' : 'n';
        th_f32_release(a);
        (void)!write(up[1], &byte, 1);
        (void)!read(down[0], &byte, 1);
        int bad = !t || ((float *)th_tensor_data(t))[15] != -15.0f;
        th_tensor_release(t);
        _exit(bad);
    }
    char byte = 0;
    CHECK(read(up[0], &byte, 1) == 1 && byte == 'y');
    th_f32_release(a);
    CHECK_INT_EQ(shm_test_segments(), 1);
    CHECK_INT_EQ(shm_test_mappings(), 0);
    th_tensor *e = th_shm_open_handle(h);
    CHECK(e != NULL && th_storage_refcount(th_tensor_storage(e)) == 1);
    CHECK_INT_EQ(shm_test_mappings(), 1);
    th_tensor *e2 = th_shm_open_handle(h);
    CHECK(e != NULL && e2 != NULL && th_tensor_storage(e2) == th_tensor_storage(e));
    if (e) ((float *)th_tensor_data(e))[15] = -15.0f;
    th_tensor_release(e);
    th_tensor_release(e2);
    CHECK_INT_EQ(shm_test_segments(), 1);
    (void)!write(down[1], "x", 1);
    CHECK_INT_EQ(shm_test_wait(pid), 0);
    CHECK_INT_EQ(shm_test_segments(), 0);
    close(up[0]), close(up[1]), close(down[0]), close(down[1]);
}

/* The segment header is shared memory that every holder may write: a count another process left at the
 * largest int64 (or below zero) is refused with an error, before any arithmetic on it. */
static int64_t *refcount_of(void *data) { return (int64_t *)((char *)data - 128 + 16); }

static void test_hostile_header(void)
{
    int fds = shm_test_open_fds();
    th_f32_tensor *a = positions(16);
    char h[TH_SHM_HANDLE_MAX];
    CHECK(th_shm_handle_encode(th_f32_base(a), h, sizeof h) > 0);
    int64_t *count = refcount_of(th_f32_data(a));
    CHECK_INT_EQ(*count, 1);
    pid_t pid = fork(); /* a process of its own, which maps the segment afresh */
    if (pid == 0) {
        *count = INT64_MAX;
        th_tensor *t = th_shm_open_handle(h);
        int ok = !t && th_last_status() == TH_ERR_IO && strstr(th_last_error(), "th_shm_open_handle: ") &&
                 strstr(th_last_error(), "reference count 9223372036854775807");
        if (!ok) fprintf(stderr, "hostile count: %s\n", th_last_error());
        ok = ok && *count == INT64_MAX; /* left as found */
        th_tensor_release(t);
        *count = -5;
        t = th_shm_open_handle(h);
        ok = ok && !t && strstr(th_last_error(), "no longer exists");
        th_tensor_release(t);
        *count = 1;
        th_f32_release(a);
        _exit(ok ? 0 : 1);
    }
    CHECK_INT_EQ(shm_test_wait(pid), 0);
    CHECK_INT_EQ(*count, 1);

    /* by descriptor, both kinds of segment */
    int sv[2];
    CHECK_INT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
    for (int kind = 0; kind < 2; kind++) {
        th_f32_tensor *f = shm_test_arange(1, SZ(4));
        CHECK_INT_EQ(th_storage_share_memory_with(th_f32_storage(f), kind ? TH_SHM_NAME : TH_SHM_FD), TH_OK);
        count = refcount_of(th_f32_data(f));
        pid = fork();
        if (pid == 0) {
            *count = INT64_MAX;
            th_f32_release(f); /* inherited: unmapped, not counted */
            th_tensor *t = th_shm_recv_fd(sv[1]);
            int ok = !t && th_last_status() == TH_ERR_IO && strstr(th_last_error(), "th_shm_recv_fd: ") &&
                     strstr(th_last_error(), "reference count 9223372036854775807");
            if (!ok) fprintf(stderr, "hostile count (%s): %s\n", kind ? "name" : "fd", th_last_error());
            th_tensor_release(t);
            _exit(ok ? 0 : 1);
        }
        CHECK_INT_EQ(th_shm_send_fd(sv[0], th_f32_base(f)), TH_OK);
        CHECK_INT_EQ(shm_test_wait(pid), 0);
        CHECK_INT_EQ(*count, INT64_MAX);
        *count = 1;
        th_f32_release(f);
    }
    close(sv[0]);
    close(sv[1]);

    /* a count knocked to zero or below while held: letting go neither wraps nor unlinks a name twice */
    th_f32_tensor *g = positions(4);
    CHECK(th_shm_handle_encode(th_f32_base(g), h, sizeof h) > 0);
    *refcount_of(th_f32_data(g)) = INT64_MIN;
    th_f32_release(g);
    CHECK_INT_EQ(shm_test_segments(), 1); /* a's: the manager, told of the release, unlinked g's */

    th_f32_release(a);
    CHECK_INT_EQ(shm_test_segments(), 0);
    CHECK_INT_EQ(shm_test_mappings(), 0);
    CHECK_INT_EQ(shm_test_open_fds(), fds);
}

/* ---- the parser ---- */

/* Threads opening one segment at once: one storage, one mapping, counted once.
 *
 * OPENERS threads are let go together, each opening n times (by a name handle, or receiving from a socket);
 * every tensor must be over want (NULL: over the first one's storage), whose count is then the tensors' plus
 * extra, with one mapping and the segment's header counting this process in once (header_count: the count
 * with the other holders). Then all are released. */
enum { OPENERS = 4, OPENS_EACH = 25 };

typedef struct opener {
    const char *handle; /* NULL: receive from sock */
    int sock, n, failed;
    th_tensor *got[OPENS_EACH];
} opener;

static atomic_bool openers_go;

static void *open_many(void *arg)
{
    opener *o = (opener *)arg;
    while (!atomic_load(&openers_go)) sched_yield();
    for (int i = 0; i < o->n; i++) {
        o->got[i] = o->handle ? th_shm_open_handle(o->handle) : th_shm_recv_fd(o->sock);
        o->failed += o->got[i] == NULL;
    }
    return NULL;
}

static void open_at_once(const char *handle, int sock, int n, th_storage *want, int64_t extra, int64_t header_count)
{
    opener ops[OPENERS];
    pthread_t threads[OPENERS];
    memset(ops, 0, sizeof ops);
    atomic_store(&openers_go, false);
    int started = 0;
    for (; started < OPENERS; started++) {
        ops[started].handle = handle;
        ops[started].sock = sock;
        ops[started].n = n;
        if (pthread_create(&threads[started], NULL, open_many, &ops[started]) != 0) break;
    }
    CHECK_INT_EQ(started, OPENERS);
    atomic_store(&openers_go, true);
    for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
    th_storage *s = want ? want : ops[0].got[0] ? th_tensor_storage(ops[0].got[0]) : NULL;
    int failed = 0, same = 0, right = 0;
    for (int i = 0; i < started; i++) {
        failed += ops[i].failed;
        for (int k = 0; k < n; k++) {
            th_tensor *t = ops[i].got[k];
            same += t && th_tensor_storage(t) == s;
            right += t && ((float *)th_tensor_data(t))[k] == (float)k;
        }
    }
    CHECK_INT_EQ(failed, 0);
    CHECK_INT_EQ(same, started * n);
    CHECK_INT_EQ(right, started * n);
    CHECK(s != NULL);
    if (s) {
        CHECK_INT_EQ(th_storage_refcount(s), started * n + extra);
        CHECK_INT_EQ(*refcount_of(th_storage_raw_data(s)), header_count);
    }
    CHECK_INT_EQ(shm_test_mappings(), 1);
    for (int i = 0; i < started; i++)
        for (int k = 0; k < n; k++) th_tensor_release(ops[i].got[k]);
    if (want) CHECK_INT_EQ(th_storage_refcount(want), extra);
}

/* A child that makes a 64-element positions tensor and hands it over (a name handle on the pipe, or by
 * descriptor, sends times, on the socket), then holds it until a byte comes on down. */
static pid_t maker(bool by_name, int out, int sends, int down)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid != 0) return pid;
    th_f32_tensor *t = shm_test_arange(1, SZ(64));
    int bad = 0;
    if (by_name) {
        char h[TH_SHM_HANDLE_MAX];
        int n = th_shm_handle_encode(th_f32_base(t), h, sizeof h);
        bad = n <= 0 || write(out, h, (size_t)n + 1) != n + 1;
    } else {
        for (int i = 0; i < sends; i++) bad |= th_shm_send_fd(out, th_f32_base(t)) != TH_OK;
    }
    char byte;
    bad |= read(down, &byte, 1) != 1;
    th_f32_release(t);
    _exit(bad);
}

static void test_open_threads(void)
{
    /* a segment this process made and holds: every open is the maker's storage */
    th_f32_tensor *a = shm_test_arange(1, SZ(64));
    char h[TH_SHM_HANDLE_MAX];
    CHECK(th_shm_handle_encode(th_f32_base(a), h, sizeof h) > 0);
    open_at_once(h, -1, OPENS_EACH, th_f32_storage(a), 1, 1);
    th_f32_release(a);
    CHECK_INT_EQ(shm_test_mappings(), 0);
    CHECK_INT_EQ(shm_test_segments(), 0);

    /* one this process does not map yet, by name: the threads' first opens race to map it */
    int pipefd[2], down[2];
    CHECK(pipe(pipefd) == 0 && pipe(down) == 0);
    pid_t pid = maker(true, pipefd[1], 0, down[0]);
    ssize_t got = read(pipefd[0], h, sizeof h);
    CHECK(got > 0 && h[got - 1] == '\0');
    CHECK_INT_EQ(shm_test_mappings(), 0);
    if (got > 0 && h[got - 1] == '\0') open_at_once(h, -1, OPENS_EACH, NULL, 0, 2);
    CHECK_INT_EQ(shm_test_mappings(), 0);
    CHECK_INT_EQ(shm_test_segments(), 1); /* the child's */
    (void)!write(down[1], "x", 1);
    CHECK_INT_EQ(shm_test_wait(pid), 0);
    CHECK_INT_EQ(shm_test_segments(), 0);
    close(pipefd[0]), close(pipefd[1]), close(down[0]), close(down[1]);

    /* the same by descriptor: one memfd arriving as OPENERS * n descriptors */
    enum { RECVS_EACH = 8 };
    int sv[2];
    CHECK_INT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
    CHECK(pipe(down) == 0);
    pid = maker(false, sv[0], OPENERS * RECVS_EACH, down[0]);
    open_at_once(NULL, sv[1], RECVS_EACH, NULL, 0, 2);
    CHECK_INT_EQ(shm_test_mappings(), 0);
    (void)!write(down[1], "x", 1);
    CHECK_INT_EQ(shm_test_wait(pid), 0);
    close(sv[0]), close(sv[1]), close(down[0]), close(down[1]);
}

static void test_parse_good(void)
{
    static const char *good[] = {
        "thshm/1:name=/th_1_ab:bytes=24:dtype=f32:offset=0:sizes=2,3:strides=3,1",
        "thshm/1:name=/x.y-Z_9:bytes=1:dtype=u8:offset=0:sizes=:strides=",
        "thshm/1:fd:bytes=8:dtype=f64:offset=0:sizes=1:strides=-5",
        "thshm/1:fd:bytes=80:dtype=c64:offset=9:sizes=10:strides=-1",
        "thshm/1:empty:bytes=0:dtype=bool:offset=0:sizes=0:strides=1",
        "thshm/1:empty:bytes=0:dtype=bf16:offset=0:sizes=0,9223372036854775807:strides=0,0",
        "thshm/1:fd:bytes=4:dtype=i32:offset=0:sizes=5,7:strides=0,0",
        "thshm/1:fd:bytes=9223372036854775807:dtype=i8:offset=9223372036854775806:sizes=1:strides=-9223372036854775807",
    };
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        th_shm_handle h;
        th_clear_error();
        int rc = th_shm_handle_parse(good[i], strlen(good[i]), &h);
        if (rc) fprintf(stderr, "good[%zu]: %s\n", i, th_last_error());
        CHECK_INT_EQ(rc, TH_OK);
        char back[TH_SHM_HANDLE_MAX];
        CHECK_INT_EQ(th_shm_handle_format(&h, back, sizeof back), (int)strlen(good[i]));
        CHECK(strcmp(back, good[i]) == 0);
    }
    th_shm_handle h;
    CHECK_INT_EQ(th_shm_handle_parse(good[0], strlen(good[0]), &h), TH_OK);
    CHECK(h.version == 1 && h.locator == TH_SHM_LOCATOR_NAME && strcmp(h.name, "/th_1_ab") == 0);
    CHECK(h.nbytes == 24 && h.dtype == TH_F32 && h.offset == 0 && h.ndim == 2);
    CHECK(h.sizes[1] == 3 && h.strides[0] == 3);
    char small[10];
    CHECK_FAILS(th_shm_handle_format(&h, small, sizeof small), TH_ERR_RANGE, "th_shm_handle_format", "buffer holds 10");
    h.ndim = -1;
    CHECK_FAILS(th_shm_handle_format(&h, small, sizeof small), TH_ERR_RANGE, "th_shm_handle_format", "ndim -1");

    /* The longest handle fits TH_SHM_HANDLE_MAX. */
    th_shm_handle big;
    memset(&big, 0, sizeof big);
    big.version = 1;
    big.locator = TH_SHM_LOCATOR_NAME;
    memset(big.name, 'a', TH_SHM_NAME_MAX - 1);
    big.name[0] = '/';
    big.name[TH_SHM_NAME_MAX - 1] = '\0';
    big.nbytes = INT64_MAX;
    big.dtype = TH_BOOL;
    big.offset = INT64_MAX - 1;
    big.ndim = TH_MAX_DIMS;
    for (int d = 0; d < TH_MAX_DIMS; d++) big.sizes[d] = 1, big.strides[d] = -INT64_MAX;
    big.sizes[0] = 0; /* no elements: any strides (sizes stay short: their product must fit int64) */
    big.offset = 1000000000000000000;
    char text[TH_SHM_HANDLE_MAX];
    int n = th_shm_handle_format(&big, text, sizeof text);
    if (n < 0) fprintf(stderr, "%s\n", th_last_error());
    CHECK(n > 0 && n < TH_SHM_HANDLE_MAX);
    CHECK_INT_EQ(th_shm_handle_parse(text, (size_t)n, &h), TH_OK);
}

typedef struct bad_case {
    const char *text;
    th_status status;
    const char *detail;
} bad_case;

static void test_parse_bad(void)
{
    static const bad_case bad[] = {
        {"", TH_ERR_INVALID, "bad start"},
        {"thshm", TH_ERR_INVALID, "bad start"},
        {"THSHM/1:fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "no tensor.h handle"},
        {"thshm/2:fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "version 2 is not supported"},
        {"thshm/01:fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad version"},
        {"thshm/1;fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad separator"},
        {"thshm/1:cuda=0:bytes=8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad locator"},
        {"thshm/1:name=th_1:bytes=8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad segment name"},
        {"thshm/1:name=/:bytes=8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad segment name"},
        {"thshm/1:name=/a/b:bytes=8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad segment name"},
        {"thshm/1:name=/a b:bytes=8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad segment name"},
        /* the manager's rule too: a name is one plain file in /dev/shm, never a hidden one */
        {"thshm/1:name=/.x:bytes=8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad segment name"},
        {"thshm/1:name=/..:bytes=8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad segment name"},
        {"thshm/1:name=/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa:bytes=8:dtype=f32:offset=0:"
         "sizes=2:strides=1", TH_ERR_INVALID, "bad segment name"},
        {"thshm/1:name=/a:bytes=0:dtype=f32:offset=0:sizes=0:strides=1", TH_ERR_INVALID, "at least 1 byte"},
        {"thshm/1:fd:bytes=0:dtype=f32:offset=0:sizes=0:strides=1", TH_ERR_INVALID, "at least 1 byte"},
        {"thshm/1:empty:bytes=4:dtype=f32:offset=0:sizes=1:strides=1", TH_ERR_INVALID, "0 bytes, not 4"},
        {"thshm/1:fd:bytes=08:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad bytes"},
        {"thshm/1:fd:bytes=+8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad bytes"},
        {"thshm/1:fd:bytes=-8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad bytes"},
        {"thshm/1:fd:bytes=9223372036854775808:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad bytes"},
        {"thshm/1:fd:bytes= 8:dtype=f32:offset=0:sizes=2:strides=1", TH_ERR_INVALID, "bad bytes"},
        {"thshm/1:fd:bytes=8:dtype=f31:offset=0:sizes=2:strides=1", TH_ERR_DTYPE, "unknown dtype \"f31\""},
        {"thshm/1:fd:bytes=8:dtype=:offset=0:sizes=2:strides=1", TH_ERR_DTYPE, "unknown dtype"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=-1:sizes=2:strides=1", TH_ERR_INVALID, "bad offset"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=-2:strides=1", TH_ERR_INVALID, "bad sizes="},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=2,:strides=1", TH_ERR_INVALID, "bad sizes="},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=,2:strides=1", TH_ERR_INVALID, "bad sizes="},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=-0", TH_ERR_INVALID, "bad strides="},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=--1", TH_ERR_INVALID, "bad strides="},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=1,1", TH_ERR_INVALID, "1 sizes but 2 strides"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=", TH_ERR_INVALID, "1 sizes but 0 strides"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=1:", TH_ERR_INVALID, "bad end"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=1\n", TH_ERR_INVALID, "bad end"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:strides=1:sizes=2", TH_ERR_INVALID, "bad field"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1:strides=", TH_ERR_RANGE,
         "more than 16"},
        /* fits the grammar, not the storage */
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=3:strides=1", TH_ERR_RANGE, "outside the storage's 2 elements"},
        {"thshm/1:fd:bytes=24:dtype=f64:offset=0:sizes=4:strides=1", TH_ERR_RANGE, "outside the storage's 3 elements"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=1:sizes=2:strides=1", TH_ERR_RANGE, "addresses elements 1..2"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=-1", TH_ERR_RANGE, "addresses elements -1..0"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=3:sizes=0:strides=1", TH_ERR_RANGE, "past the 2 elements"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=3037000500,3037000500:strides=1,1", TH_ERR_OVERFLOW,
         "element count overflows"},
        {"thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=2,2:strides=9223372036854775807,1", TH_ERR_OVERFLOW,
         "more than int64"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        th_shm_handle h;
        th_clear_error();
        int rc = th_shm_handle_parse(bad[i].text, strlen(bad[i].text), &h);
        int ok = rc == (int)bad[i].status && strstr(th_last_error(), bad[i].detail) &&
                 strncmp(th_last_error(), "th_shm_handle_parse: ", 21) == 0;
        if (!ok) fprintf(stderr, "bad[%zu] \"%s\": %d %s\n", i, bad[i].text, rc, th_last_error());
        CHECK(ok);
        /* open_handle says the same, under its own name, and leaves nothing */
        CHECK_NULL(th_shm_open_handle(bad[i].text), bad[i].status, "th_shm_open_handle", bad[i].detail);
    }
    /* An embedded NUL, and a text as long as the limit. */
    th_shm_handle h;
    CHECK_FAILS(th_shm_handle_parse("thshm/1\0:fd", 11, &h), TH_ERR_INVALID, "th_shm_handle_parse", "bad separator");
    char longtext[TH_SHM_HANDLE_MAX + 10];
    memset(longtext, 'x', sizeof longtext - 1);
    longtext[sizeof longtext - 1] = '\0';
    CHECK_FAILS(th_shm_handle_parse(longtext, strlen(longtext), &h), TH_ERR_INVALID, "th_shm_handle_parse",
                "longer than any handle");
    CHECK_NULL(th_shm_open_handle(longtext), TH_ERR_INVALID, "th_shm_open_handle", "longer than any handle");
    CHECK_FAILS(th_shm_handle_parse(NULL, 0, &h), TH_ERR_INVALID, "th_shm_handle_parse", "NULL");
    CHECK_NULL(th_shm_open_handle(NULL), TH_ERR_INVALID, "th_shm_open_handle", "NULL");
    CHECK_NULL(th_shm_open_handle("thshm/1:fd:bytes=8:dtype=f32:offset=0:sizes=2:strides=1"), TH_ERR_INVALID,
               "th_shm_open_handle", "th_shm_recv_fd");
}

/* ---- opening bad segments ---- */

/* Replaces the ":bytes=N:" of a handle with bytes. */
static void set_bytes(char *h, long long bytes)
{
    char *p = strstr(h, ":bytes="), *q = strchr(p + 1, ':');
    char rest[TH_SHM_HANDLE_MAX];
    strcpy(rest, q);
    sprintf(p, ":bytes=%lld%s", bytes, rest);
}

static void test_open_bad(void)
{
    int fds = shm_test_open_fds();
    th_f32_tensor *a = positions(16);
    char h[TH_SHM_HANDLE_MAX], tmp[TH_SHM_HANDLE_MAX];
    CHECK(th_shm_handle_encode(th_f32_base(a), h, sizeof h) > 0);

    /* Larger or smaller than the segment. */
    strcpy(tmp, h);
    set_bytes(tmp, 128);
    CHECK_NULL(th_shm_open_handle(tmp), TH_ERR_SHAPE, "th_shm_open_handle", "holds 64 bytes of data, but the handle says 128");
    strcpy(tmp, h);
    set_bytes(tmp, 1 << 20);
    CHECK_NULL(th_shm_open_handle(tmp), TH_ERR_SHAPE, "th_shm_open_handle", "but the handle says 1048576");
    /* A dtype that does not fit the segment's bytes: f64 x 16 needs 128. */
    strcpy(tmp, h);
    char *d = strstr(tmp, "dtype=f32");
    memcpy(d, "dtype=f64", 9);
    CHECK_NULL(th_shm_open_handle(tmp), TH_ERR_RANGE, "th_shm_open_handle", "outside the storage's 8 elements of f64");
    /* Same dtype size, fine: i32 over the f32 bytes. */
    memcpy(d, "dtype=i32", 9);
    th_tensor *o = th_shm_open_handle(tmp);
    CHECK(o != NULL && th_tensor_dtype(o) == TH_I32);
    th_tensor_release(o);
    /* A name that does not exist. */
    strcpy(tmp, h);
    char *name = strstr(tmp, "name=/") + 6;
    name[0] = name[0] == 'z' ? 'y' : 'z';
    CHECK_NULL(th_shm_open_handle(tmp), TH_ERR_IO, "th_shm_open_handle", "no longer exists");
    CHECK_INT_EQ(shm_test_mappings(), 1);
    th_f32_release(a);

    /* A segment that is not ours: right size, no header. */
    char fake[64];
    snprintf(fake, sizeof fake, "/%s_fake", shm_test_prefix);
    int fd = shm_open(fake, O_RDWR | O_CREAT | O_EXCL, 0600);
    CHECK(fd >= 0 && ftruncate(fd, 128 + 64) == 0);
    close(fd);
    snprintf(tmp, sizeof tmp, "thshm/1:name=%s:bytes=64:dtype=f32:offset=0:sizes=16:strides=1", fake);
    CHECK_NULL(th_shm_open_handle(tmp), TH_ERR_IO, "th_shm_open_handle", "is not a tensor.h segment");
    fd = shm_open(fake, O_RDWR, 0);
    CHECK(fd >= 0 && ftruncate(fd, 100) == 0);
    close(fd);
    CHECK_NULL(th_shm_open_handle(tmp), TH_ERR_SHAPE, "th_shm_open_handle", "less than a segment header");
    shm_unlink(fake);

    CHECK_INT_EQ(shm_test_mappings(), 0);
    CHECK_INT_EQ(shm_test_open_fds(), fds);
}

/* Another user's segment (mode 0600): EACCES. Needs root, to become someone else in a child. */
static void test_other_user(void)
{
    if (geteuid() != 0) {
        printf("test_other_user: SKIPPED (needs root to switch to another user)\n");
        return;
    }
    th_f32_tensor *a = positions(8);
    char h[TH_SHM_HANDLE_MAX];
    CHECK(th_shm_handle_encode(th_f32_base(a), h, sizeof h) > 0);
    int out[2];
    CHECK(pipe(out) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        th_f32_release(a);
        if (setgid(65534) != 0 || setuid(65534) != 0) _exit(3);
        /* The other user must be able to start the manager; from a private (0700) checkout it cannot, and
         * the open would fail for that reason instead. */
        const char *manager = getenv("TH_SHM_MANAGER");
        if (manager && access(manager, X_OK) != 0) _exit(4);
        th_tensor *t = th_shm_open_handle(h);
        (void)!write(out[1], th_last_error(), strlen(th_last_error()));
        _exit(t == NULL && th_last_status() == TH_ERR_IO ? 0 : 1);
    }
    close(out[1]);
    char msg[512] = "";
    ssize_t n = read(out[0], msg, sizeof msg - 1);
    msg[n > 0 ? n : 0] = '\0';
    close(out[0]);
    int status = shm_test_wait(pid);
    if (status == 4) {
        printf("test_other_user: SKIPPED (user 65534 cannot run TH_SHM_MANAGER: a private checkout)\n");
        th_f32_release(a);
        return;
    }
    CHECK_INT_EQ(status, 0);
    CHECK(strstr(msg, "th_shm_open_handle: shared segment /") == msg);
    CHECK(strstr(msg, "belongs to another user (mode 0600): permission denied") != NULL);
    /* and the segment is 0600 */
    struct stat st;
    char path[128];
    snprintf(path, sizeof path, "/dev/shm%s", strstr(h, "name=") + 5);
    *strchr(path, ':') = '\0';
    CHECK(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600);
    th_f32_release(a);
}

static void test_encode_errors(void)
{
    char h[TH_SHM_HANDLE_MAX];
    th_f32_tensor *a = th_f32_ones(1, SZ(4));
    CHECK_INT_EQ(th_storage_share_memory_with(th_f32_storage(a), TH_SHM_FD), TH_OK);
    CHECK_FAILS(th_shm_handle_encode(th_f32_base(a), h, sizeof h), TH_ERR_UNSUPPORTED, "th_shm_handle_encode",
                "has no name (it was shared with the fd strategy");
    th_f32_release(a);
    a = th_f32_ones(1, SZ(4));
    CHECK_FAILS(th_shm_handle_encode(th_f32_base(a), h, 20), TH_ERR_RANGE, "th_shm_handle_encode", "buffer holds 20");
    CHECK(th_f32_is_shared(a)); /* shared all the same */
    CHECK_FAILS(th_shm_handle_encode(NULL, h, sizeof h), TH_ERR_INVALID, "th_shm_handle_encode", "NULL tensor");
    CHECK_FAILS(th_shm_handle_encode(th_f32_base(a), NULL, 0), TH_ERR_INVALID, "th_shm_handle_encode", "NULL buffer");
    th_storage_make_read_only(th_f32_storage(a));
    CHECK(th_shm_handle_encode(th_f32_base(a), h, sizeof h) > 0); /* already shared: nothing to move */
    th_f32_release(a);
    a = th_f32_ones(1, SZ(4));
    th_storage_make_read_only(th_f32_storage(a));
    CHECK_FAILS(th_shm_handle_encode(th_f32_base(a), h, sizeof h), TH_ERR_READ_ONLY, "th_shm_handle_encode", "read-only");
    th_f32_release(a);
}

int main(void)
{
    shm_test_begin("hdl");
    test_same_process();
    test_every_dtype();
    test_views_across_exec();
    test_empty();
    test_last_unlinks();
    test_open_twice();
    test_hostile_header();
    test_open_threads();
    test_parse_good();
    test_parse_bad();
    test_open_bad();
    test_other_user();
    test_encode_errors();
    return shm_test_end("test_shm_handle");
}
