/* tests/shm/test_shm_fd.c: the fd strategy: descriptors over Unix domain sockets (SCM_RIGHTS).
 *
 * Stream, seqpacket and datagram sockets; a forked child and fork+exec'd helpers that receive views (offsets
 * and strides intact) and write through them, and a helper that sends one back; fire and forget (the sender
 * lets go before the receiver has it); a named segment sent by descriptor; empty tensors; bad messages and
 * sockets; and the descriptor limit on either side, with its advice. */
#include "shm_test.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/uio.h>

static th_f32_tensor *positions(int64_t n)
{
    th_f32_tensor *t = shm_test_arange(1, SZ(n));
    CHECK_INT_EQ(th_f32_share_memory(t), TH_OK); /* the default: fd */
    return t;
}

static void test_in_process(int type)
{
    int sv[2];
    CHECK_INT_EQ(socketpair(AF_UNIX, type, 0, sv), 0);
    th_f32_tensor *a = shm_test_arange(2, SZ(3, 4));
    th_f32_tensor *t = th_f32_transpose(a, 0, 1);
    CHECK_INT_EQ(th_shm_send_fd(sv[0], th_f32_base(t)), TH_OK);
    CHECK(th_f32_is_shared(a)); /* send shared it, in place */
    CHECK_INT_EQ(th_storage_shm_strategy(th_f32_storage(a)), TH_SHM_FD);
    th_tensor *r = th_shm_recv_fd(sv[1]);
    CHECK(r != NULL && th_tensor_dtype(r) == TH_F32 && th_tensor_ndim(r) == 2);
    CHECK(r != NULL && th_tensor_sizes(r)[0] == 4 && th_tensor_strides(r)[0] == 1 && th_tensor_strides(r)[1] == 4);
    th_f32_tensor *rf = th_f32_from_base(r);
    CHECK(th_f32_get(rf, IDX(3, 2)) == 11.0f);
    th_f32_set(rf, IDX(1, 2), -5.0f);
    CHECK(th_f32_get(a, IDX(2, 1)) == -5.0f);
    CHECK(th_tensor_data(r) == th_f32_data(a)); /* one mapping per segment and process */
    CHECK_INT_EQ(shm_test_mappings(), 1);
    th_tensor_release(r);
    th_f32_release(t);
    th_f32_release(a);
    close(sv[0]);
    close(sv[1]);
}

/* The sender lets go at once: the descriptor in flight keeps the memory. */
static void test_fire_and_forget(void)
{
    int sv[2];
    CHECK_INT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
    for (int i = 0; i < 8; i++) {
        th_i64_tensor *t = th_i64_full(1, SZ(100), i);
        CHECK_INT_EQ(th_shm_send_fd(sv[0], th_i64_base(t)), TH_OK);
        th_i64_release(t);
    }
    CHECK_INT_EQ(shm_test_mappings(), 0);
    for (int i = 0; i < 8; i++) {
        th_i64_tensor *r = th_i64_from_base(th_shm_recv_fd(sv[1]));
        CHECK(r != NULL && th_i64_get(r, IDX(99)) == i);
        th_i64_release(r);
    }
    close(sv[0]);
    close(sv[1]);
}

/* A forked child receives (after fork, so it holds its own reference) and writes back. */
static void test_fork_child(void)
{
    int sv[2];
    CHECK_INT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(sv[0]);
        th_f32_tensor *r = th_f32_from_base(th_shm_recv_fd(sv[1]));
        int bad = !r || th_f32_get(r, IDX(1)) != 21.0f;
        if (r) th_f32_set(r, IDX(0), 99.0f);
        th_f32_release(r);
        (void)!write(sv[1], "x", 1);
        _exit(bad);
    }
    close(sv[1]);
    th_f32_tensor *s = positions(40);
    th_f32_tensor *v = th_f32_narrow(s, 0, 20, 10); /* offset 20 */
    th_f32_tensor *w = th_f32_as_strided(v, 1, SZ(5), SZ(1), 20);
    CHECK_INT_EQ(th_shm_send_fd(sv[0], th_f32_base(w)), TH_OK);
    char byte;
    CHECK(read(sv[0], &byte, 1) == 1);
    CHECK_INT_EQ(shm_test_wait(pid), 0);
    CHECK(th_f32_get(s, IDX(20)) == 99.0f);
    th_f32_release(w);
    th_f32_release(v);
    th_f32_release(s);
    close(sv[0]);
}

/* One view to a fork+exec'd helper, which checks it against storage positions and negates it (minus one);
 * the parent sees the negated values, then restores the positions. */
static void through_helper(int type, th_f32_tensor *base, th_f32_tensor *view)
{
    int sv[2];
    CHECK_INT_EQ(socketpair(AF_UNIX, type, 0, sv), 0);
    char fd[16];
    snprintf(fd, sizeof fd, "%d", sv[1]);
    pid_t pid = shm_test_spawn((const char *[]){"recv", fd, "1", NULL});
    CHECK_INT_EQ(th_shm_send_fd(sv[0], th_f32_base(view)), TH_OK);
    CHECK_INT_EQ(shm_test_wait(pid), 0);
    CHECK(shm_test_negated(base, view));
    close(sv[0]);
    close(sv[1]);
}

static void test_exec_helper(int type)
{
    th_f32_tensor *s = positions(120);
    th_f32_tensor *m = th_f32_view(s, 3, SZ(4, 5, 6));
    through_helper(type, s, m);
    th_f32_tensor *v = th_f32_permute(m, (const int[]){2, 0, 1});
    through_helper(type, s, v);
    th_f32_release(v);
    th_f32_tensor *n = th_f32_narrow(m, 2, 1, 3);
    v = th_f32_unfold(n, 0, 2, 2);
    through_helper(type, s, v);
    th_f32_release(v);
    th_f32_release(n);
    th_f32_tensor *x = th_f32_select(m, 1, 4);
    v = th_f32_select(x, 1, 5); /* offset 29, stride 30 */
    through_helper(type, s, v);
    th_f32_release(x);
    x = th_f32_select(v, 0, 2); /* 0-d, element 89 */
    through_helper(type, s, x);
    th_f32_release(x);
    th_f32_release(v);
    th_f32_release(m);
    th_f32_release(s);
}

/* A helper sends a tensor it made; the parent reads it after the helper let go of its copy. */
static void test_exec_sender(void)
{
    int sv[2];
    CHECK_INT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    char fd[16];
    snprintf(fd, sizeof fd, "%d", sv[1]);
    pid_t pid = shm_test_spawn((const char *[]){"send", fd, NULL});
    th_f32_tensor *r = th_f32_from_base(th_shm_recv_fd(sv[0]));
    CHECK(r != NULL && th_f32_ndim(r) == 2 && th_f32_get(r, IDX(1, 2)) == 5.0f);
    (void)!write(sv[0], "x", 1);
    CHECK_INT_EQ(shm_test_wait(pid), 0);
    CHECK(th_f32_get(r, IDX(1, 1)) == 4.0f); /* still valid after the sender exited */
    th_f32_release(r);
    close(sv[0]);
    close(sv[1]);
}

/* A named segment sent by descriptor: the receiver counts itself in, and the last to let go unlinks. */
static void test_named_by_fd(void)
{
    int sv[2];
    CHECK_INT_EQ(socketpair(AF_UNIX, SOCK_DGRAM, 0, sv), 0);
    th_f32_tensor *a = shm_test_arange(1, SZ(10));
    CHECK_INT_EQ(th_storage_share_memory_with(th_f32_storage(a), TH_SHM_NAME), TH_OK);
    CHECK_INT_EQ(th_shm_send_fd(sv[0], th_f32_base(a)), TH_OK);
    th_f32_release(a);
    CHECK_INT_EQ(shm_test_segments(), 0); /* the count went to 0: unlinked; the descriptor in flight holds the memory */
    th_tensor *r = th_shm_recv_fd(sv[1]);
    CHECK(r != NULL && ((float *)th_tensor_data(r))[9] == 9.0f);
    CHECK_INT_EQ(th_storage_shm_strategy(th_tensor_storage(r)), TH_SHM_NAME);
    char h[TH_SHM_HANDLE_MAX];
    CHECK_FAILS(th_shm_handle_encode(r, h, sizeof h), TH_ERR_UNSUPPORTED, "th_shm_handle_encode", "no name");
    CHECK_INT_EQ(th_shm_send_fd(sv[0], r), TH_OK); /* sent on with the descriptor it kept */
    th_tensor *r2 = th_shm_recv_fd(sv[1]);
    CHECK(r2 != NULL && ((float *)th_tensor_data(r2))[9] == 9.0f);
    th_tensor_release(r2);
    th_tensor_release(r);

    /* Received while the sender still holds it: named, counted, and sent on by reopening the name. */
    a = shm_test_arange(1, SZ(10));
    CHECK_INT_EQ(th_storage_share_memory_with(th_f32_storage(a), TH_SHM_NAME), TH_OK);
    CHECK_INT_EQ(th_shm_send_fd(sv[0], th_f32_base(a)), TH_OK);
    r = th_shm_recv_fd(sv[1]);
    CHECK(r != NULL);
    th_f32_release(a);
    CHECK_INT_EQ(shm_test_segments(), 1);
    CHECK(th_shm_handle_encode(r, h, sizeof h) > 0);
    CHECK_INT_EQ(th_shm_send_fd(sv[0], r), TH_OK);
    r2 = th_shm_recv_fd(sv[1]);
    CHECK(r2 != NULL);
    th_tensor_release(r);
    CHECK_INT_EQ(shm_test_segments(), 1);
    th_tensor_release(r2);
    CHECK_INT_EQ(shm_test_segments(), 0);
    close(sv[0]);
    close(sv[1]);
}

static void test_empty(void)
{
    int sv[2];
    CHECK_INT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
    th_u8_tensor *e = th_u8_empty(1, SZ(0));
    CHECK_INT_EQ(th_shm_send_fd(sv[0], th_u8_base(e)), TH_OK);
    th_tensor *r = th_shm_recv_fd(sv[1]);
    CHECK(r != NULL && th_tensor_numel(r) == 0 && th_tensor_dtype(r) == TH_U8);
    th_tensor_release(r);
    th_u8_release(e);
    close(sv[0]);
    close(sv[1]);
}

/* Sends raw bytes with n descriptors (which may be -1: none). */
static void send_raw(int sock, const char *text, int nfds, const int *fds)
{
    char msg[1024];
    uint32_t len = (uint32_t)strlen(text);
    for (int i = 0; i < 4; i++) msg[i] = (char)((len >> (8 * i)) & 0xff);
    memcpy(msg + 4, text, len);
    struct iovec iov = {msg, len + 4};
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(4 * sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    if (nfds > 0) {
        m.msg_control = control.buf;
        m.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
        struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
        memcpy(CMSG_DATA(cm), fds, (size_t)nfds * sizeof(int));
    }
    CHECK(sendmsg(sock, &m, 0) == (ssize_t)(len + 4));
}

static void test_bad_messages(void)
{
    int fds_before = shm_test_open_fds();
    int sv[2];
    CHECK_INT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
    const char *fdh = "thshm/1:fd:bytes=64:dtype=f32:offset=0:sizes=16:strides=1";

    send_raw(sv[0], fdh, 0, NULL);
    CHECK_NULL(th_shm_recv_fd(sv[1]), TH_ERR_IO, "th_shm_recv_fd", "came without its descriptor (0 items of ancillary data)");
    CHECK(strstr(th_last_error(), "ulimit -n") && strstr(th_last_error(), "RLIMIT_NOFILE"));

    send_raw(sv[0], "thshm/1:fd:bytes=64:dtype=f32:offset=0:sizes=17:strides=1", 0, NULL);
    CHECK_NULL(th_shm_recv_fd(sv[1]), TH_ERR_RANGE, "th_shm_recv_fd", "outside the storage");

    int devnull = open("/dev/null", O_RDWR);
    send_raw(sv[0], fdh, 1, &devnull);
    CHECK_NULL(th_shm_recv_fd(sv[1]), TH_ERR_IO, "th_shm_recv_fd", "is not a shared-memory segment");
    int two[2] = {devnull, devnull};
    send_raw(sv[0], fdh, 2, two);
    CHECK_NULL(th_shm_recv_fd(sv[1]), TH_ERR_IO, "th_shm_recv_fd", "came with 2 descriptors");
    send_raw(sv[0], "hello", 1, &devnull);
    CHECK_NULL(th_shm_recv_fd(sv[1]), TH_ERR_INVALID, "th_shm_recv_fd", "bad start");
    CHECK(write(sv[0], "ab", 2) == 2);
    CHECK_NULL(th_shm_recv_fd(sv[1]), TH_ERR_INVALID, "th_shm_recv_fd", "not one from th_shm_send_fd");
    close(devnull);

    /* A memfd of the right size but not ours: no header, no seals. */
    int mfd = memfd_create("fake", 0);
    CHECK(mfd >= 0 && ftruncate(mfd, 128 + 64) == 0);
    send_raw(sv[0], fdh, 1, &mfd);
    CHECK_NULL(th_shm_recv_fd(sv[1]), TH_ERR_IO, "th_shm_recv_fd", "not a tensor.h segment");
    /* A real segment, the handle claiming another size. */
    send_raw(sv[0], "thshm/1:fd:bytes=128:dtype=f32:offset=0:sizes=16:strides=1", 1, &mfd);
    CHECK_NULL(th_shm_recv_fd(sv[1]), TH_ERR_SHAPE, "th_shm_recv_fd", "holds 64 bytes of data, but the handle says 128");
    close(mfd);
    /* A name handle does not travel by descriptor. */
    send_raw(sv[0], "thshm/1:name=/x:bytes=64:dtype=f32:offset=0:sizes=16:strides=1", 0, NULL);
    CHECK_NULL(th_shm_recv_fd(sv[1]), TH_ERR_INVALID, "th_shm_recv_fd", "th_shm_open_handle");

    /* A real segment with one byte of header flipped: refused, nothing kept. Received by another process:
     * this one would take its own mapping, which it checked when it made it. */
    th_f32_tensor *a = th_f32_ones(1, SZ(16));
    CHECK_INT_EQ(th_f32_share_memory(a), TH_OK);
    ((char *)th_f32_data(a))[-128] ^= 1; /* the magic */
    CHECK_INT_EQ(th_shm_send_fd(sv[0], th_f32_base(a)), TH_OK);
    pid_t pid = fork();
    if (pid == 0) {
        int fds = shm_test_open_fds();
        th_tensor *r = th_shm_recv_fd(sv[1]);
        int ok = !r && th_last_status() == TH_ERR_IO && strstr(th_last_error(), "th_shm_recv_fd: ") &&
                 strstr(th_last_error(), "not a tensor.h segment") && shm_test_open_fds() == fds;
        _exit(ok ? 0 : 1);
    }
    CHECK_INT_EQ(shm_test_wait(pid), 0);
    ((char *)th_f32_data(a))[-128] ^= 1;
    th_f32_release(a);

    /* Sockets that are none, or closed. */
    CHECK_FAILS(th_shm_send_fd(-1, NULL), TH_ERR_INVALID, "th_shm_send_fd", "NULL tensor");
    a = th_f32_ones(1, SZ(2));
    CHECK_FAILS(th_shm_send_fd(-1, th_f32_base(a)), TH_ERR_INVALID, "th_shm_send_fd", "bad socket -1");
    int p[2];
    CHECK(pipe(p) == 0);
    CHECK_FAILS(th_shm_send_fd(p[1], th_f32_base(a)), TH_ERR_INVALID, "th_shm_send_fd", "is not a socket");
    CHECK_NULL(th_shm_recv_fd(p[0]), TH_ERR_INVALID, "th_shm_recv_fd", "is not a socket");
    close(p[0]);
    close(p[1]);
    close(sv[0]);
    CHECK_NULL(th_shm_recv_fd(sv[1]), TH_ERR_IO, "th_shm_recv_fd", "the peer closed the socket");
    CHECK_FAILS(th_shm_send_fd(sv[1], th_f32_base(a)), TH_ERR_IO, "th_shm_send_fd", "sendmsg:");
    close(sv[1]);
    th_f32_release(a);
    CHECK_INT_EQ(shm_test_open_fds(), fds_before);
    CHECK_INT_EQ(shm_test_mappings(), 0);
}

/* The highest descriptor number in use, so a limit just above it leaves room for exactly a few more. */
static int highest_fd(void)
{
    int hi = 2;
    DIR *d = opendir("/proc/self/fd");
    for (struct dirent *e; d && (e = readdir(d));)
        if (e->d_name[0] != '.' && atoi(e->d_name) > hi) hi = atoi(e->d_name);
    if (d) closedir(d);
    return hi;
}

/* Lowers the descriptor limit so that exactly `room` descriptors can still be opened. */
static void leave_fd_room(int room)
{
    struct rlimit rl;
    getrlimit(RLIMIT_NOFILE, &rl);
    rl.rlim_cur = (rlim_t)highest_fd() + 1 + (rlim_t)room;
    setrlimit(RLIMIT_NOFILE, &rl);
    int fill[1024], n = 0;
    while (n < 1024 && (fill[n] = dup(0)) >= 0) n++; /* the gaps below the highest one */
    for (int i = 0; i < room && n > 0; i++) close(fill[--n]);
}

/* Runs body in a child whose descriptor limit is a few above what it uses; the child writes its last error
 * to a pipe. Returns the child's exit status; *msg gets the error. */
static int limited_child(void (*body)(int sock, int out), int sock, char *msg, size_t cap)
{
    int out[2];
    CHECK(pipe(out) == 0);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(out[0]);
        alarm(30); /* never hang the suite */
        body(sock, out[1]);
        _exit(9);
    }
    close(out[1]);
    ssize_t n = read(out[0], msg, cap - 1);
    msg[n > 0 ? n : 0] = '\0';
    close(out[0]);
    return shm_test_wait(pid);
}

static void report(int out, int code)
{
    (void)!write(out, th_last_error(), strlen(th_last_error()));
    _exit(code);
}

/* Receiver at its limit: every received tensor keeps a descriptor, so the receiver runs out. */
static void receive_until_full(int sock, int out)
{
    leave_fd_room(3);
    th_tensor *kept[64];
    for (int i = 0; i < 64; i++) {
        kept[i] = th_shm_recv_fd(sock);
        if (!kept[i]) report(out, i == 3 && th_last_status() == TH_ERR_IO ? 0 : 1);
    }
    report(out, 2);
}

/* Sender at its limit: every storage it shares with the fd strategy holds a descriptor. */
static void share_until_full(int sock, int out)
{
    (void)sock;
    leave_fd_room(3);
    th_f32_tensor *kept[64];
    for (int i = 0; i < 64; i++) {
        kept[i] = th_f32_ones(1, SZ(8));
        if (th_f32_share_memory(kept[i]) != TH_OK) report(out, i == 3 && th_last_status() == TH_ERR_IO ? 0 : 1);
    }
    report(out, 2);
}

/* A named segment's descriptor reopened at the limit. */
static void send_named_at_limit(int sock, int out)
{
    th_f32_tensor *t = th_f32_ones(1, SZ(8));
    th_storage_share_memory_with(th_f32_storage(t), TH_SHM_NAME);
    leave_fd_room(0);
    int rc = th_shm_send_fd(sock, th_f32_base(t));
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", th_last_error());
    th_f32_release(t); /* a named segment: unlinked here, not left for the manager */
    (void)!write(out, msg, strlen(msg));
    _exit(rc == TH_ERR_IO ? 0 : 1);
}

/* The name strategy at the limit: the advice must not be to use the name strategy. The manager's connection
 * is made first, with room to spare. */
static void share_named_until_full(int sock, int out)
{
    (void)sock;
    th_f32_tensor *first = th_f32_ones(1, SZ(8));
    if (th_storage_share_memory_with(th_f32_storage(first), TH_SHM_NAME) != TH_OK) report(out, 3);
    leave_fd_room(0);
    th_f32_tensor *t = th_f32_ones(1, SZ(8));
    int rc = th_storage_share_memory_with(th_f32_storage(t), TH_SHM_NAME);
    char msg[1024];
    snprintf(msg, sizeof msg, "%s", th_last_error());
    th_f32_release(t);
    th_f32_release(first);
    (void)!write(out, msg, strlen(msg));
    _exit(rc == TH_ERR_IO ? 0 : 1);
}

static void test_fd_limit(void)
{
    const char *preload = getenv("LD_PRELOAD");
    if (preload && strstr(preload, "vgpreload")) {
        printf("test_fd_limit: SKIPPED under valgrind (it keeps descriptors of its own above the limit)\n");
        return;
    }
    int sv[2];
    CHECK_INT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
    for (int i = 0; i < 12; i++) {
        th_f32_tensor *t = th_f32_ones(1, SZ(4));
        CHECK_INT_EQ(th_shm_send_fd(sv[0], th_f32_base(t)), TH_OK);
        th_f32_release(t);
    }
    char msg[1024];
    CHECK_INT_EQ(limited_child(receive_until_full, sv[1], msg, sizeof msg), 0);
    CHECK(strstr(msg, "th_shm_recv_fd: the tensor's metadata came without its descriptor (MSG_CTRUNC)") == msg);
    CHECK(strstr(msg, "RLIMIT_NOFILE = ") && strstr(msg, "ulimit -n") && strstr(msg, "TH_SHM_NAME"));
    printf("receiver at its limit: %s\n", msg);

    CHECK_INT_EQ(limited_child(share_until_full, -1, msg, sizeof msg), 0);
    CHECK(strstr(msg, "th_f32_share_memory: could not create a shared segment (memfd_create): this process has "
                      "reached its limit of open file descriptors") == msg);
    CHECK(strstr(msg, "ulimit -n") && strstr(msg, "TH_SHM_NAME"));
    printf("sender at its limit: %s\n", msg);

    CHECK_INT_EQ(limited_child(send_named_at_limit, sv[0], msg, sizeof msg), 0);
    CHECK(strstr(msg, "th_shm_send_fd: could not reopen shared segment /") == msg);
    CHECK(strstr(msg, "limit of open file descriptors"));
    CHECK(!strstr(msg, "TH_SHM_NAME") && !strstr(msg, "name strategy"));

    CHECK_INT_EQ(limited_child(share_named_until_full, -1, msg, sizeof msg), 0);
    CHECK(strstr(msg, "th_storage_share_memory_with: could not create shared segment /") == msg);
    CHECK(strstr(msg, "RLIMIT_NOFILE = ") && strstr(msg, "ulimit -n"));
    CHECK(!strstr(msg, "TH_SHM_NAME") && !strstr(msg, "name strategy"));
    printf("name strategy at its limit: %s\n", msg);
    close(sv[0]);
    close(sv[1]);
}

int main(void)
{
    shm_test_begin("fd");
    /* The first named segment connects this process to the manager for good: one descriptor more. */
    th_f32_tensor *warm = th_f32_ones(1, SZ(1));
    CHECK_INT_EQ(th_storage_share_memory_with(th_f32_storage(warm), TH_SHM_NAME), TH_OK);
    th_f32_release(warm);
    int fds = shm_test_open_fds();
    test_in_process(SOCK_SEQPACKET);
    test_in_process(SOCK_STREAM);
    test_in_process(SOCK_DGRAM);
    test_fire_and_forget();
    test_fork_child();
    test_exec_helper(SOCK_SEQPACKET);
    test_exec_helper(SOCK_STREAM);
    test_exec_sender();
    test_named_by_fd();
    test_empty();
    test_bad_messages();
    test_fd_limit();
    CHECK_INT_EQ(shm_test_open_fds(), fds);
    return shm_test_end("test_shm_fd");
}
