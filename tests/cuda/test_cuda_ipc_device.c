/* tests/cuda/test_cuda_ipc_device.c: CUDA IPC between real processes on a real device. The test runs itself
 * again (/proc/self/exe, else argv[0]) as the other process:
 *
 *   consumer   the parent shares a strided view of a device tensor; a spawned consumer opens the handle (twice:
 *              one mapping), checks the view's layout and values, writes new values through it, and says so;
 *              the parent sees the writes, frees its tensor, and the block stays allocated (the consumer holds
 *              it) until the consumer releases, then goes back at the parent's next allocation, with no call
 *   killed     a consumer killed while holding a block: the parent's sweep reaps its holder word and frees it
 *   gone       a producer that exited normally, and one that was killed: its handles fail, saying it has exited
 *
 * Without a usable device it says why and exits 77 (skip); tests/cuda/test_cuda_ipc.c checks the same
 * bookkeeping over a fake backend everywhere. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pipe2 */
#endif
#include "tensor.h"
#include "th_cuda.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* cuda/ipc.h's: unlinks the counter files of producers that were killed before they could (the last case). */
int th__cuda_ipc_reap_stale_counters(void);

static int failures, checks;
static const char *self_exe;

#define CHECK(cond)                                                                                     \
    do {                                                                                                \
        checks++;                                                                                       \
        if (!(cond)) {                                                                                  \
            failures++;                                                                                 \
            printf("FAIL %s:%d: %s (last error: %s)\n", __FILE__, __LINE__, #cond, th_last_error());    \
            fflush(stdout);                                                                             \
        }                                                                                               \
    } while (0)

/* The shared view: a 30x100 f32 tensor holding k at element k, transposed and narrowed to rows 10..59, so the
 * handle carries an offset and non-contiguous strides. Element (i, j) of the view is base element
 * j * 100 + 10 + i; the consumer writes -(i * 30 + j) - 1 there. */
enum { ROWS = 30, COLS = 100, VIEW_FROM = 10, VIEW_ROWS = 50 };

static float view_value(int64_t i, int64_t j) { return (float)(j * COLS + VIEW_FROM + i); }
static float written_value(int64_t i, int64_t j) { return (float)(-(i * ROWS + j) - 1); }

/* ---- a child process of this program, talking over its stdin and stdout ---- */

typedef struct child {
    pid_t pid;
    FILE *to, *from; /* its stdin, its stdout */
} child;

static int spawn_self(child *c, const char *mode, const char *arg)
{
    int in[2], out[2];
    memset(c, 0, sizeof *c);
    c->pid = -1;
    /* close-on-exec: the child gets only the ends dup2 puts on 0 and 1 (dup2 clears the flag there). */
    if (pipe2(in, O_CLOEXEC) != 0) return -1;
    if (pipe2(out, O_CLOEXEC) != 0) {
        close(in[0]);
        close(in[1]);
        return -1;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    char *argv[] = {(char *)self_exe, (char *)mode, (char *)arg, NULL};
    int rc = posix_spawn(&c->pid, self_exe, &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(in[0]);
    close(out[1]);
    if (rc != 0) {
        printf("posix_spawn %s: %s\n", self_exe, strerror(rc));
        close(in[1]);
        close(out[0]);
        c->pid = -1;
        return -1;
    }
    c->to = fdopen(in[1], "w");
    c->from = fdopen(out[0], "r");
    return c->to && c->from ? 0 : -1;
}

/* The child's next line (without its newline) into buf; false at its end of output. */
static bool child_line(child *c, char *buf, size_t cap)
{
    if (!c->from || !fgets(buf, (int)cap, c->from)) return false;
    buf[strcspn(buf, "\n")] = '\0';
    return true;
}

static void child_say(child *c, const char *line)
{
    if (!c->to) return;
    fprintf(c->to, "%s\n", line);
    fflush(c->to);
}

/* Waits for the child; its exit status, or 128 + the signal that ended it. */
static int child_wait(child *c)
{
    if (c->to) fclose(c->to);
    if (c->from) fclose(c->from);
    c->to = c->from = NULL;
    if (c->pid <= 0) return -1;
    int status = 0;
    while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* ---- the child's side ---- */

static void say(const char *line)
{
    printf("%s\n", line);
    fflush(stdout);
}

static bool wait_for(const char *word)
{
    char buf[64];
    if (!fgets(buf, sizeof buf, stdin)) return false;
    buf[strcspn(buf, "\n")] = '\0';
    return strcmp(buf, word) == 0;
}

/* Opens the handle, checks it, writes through it, then holds it until told to release. Messages other than
 * the protocol's go to stderr, which the test's log shows. */
static int consumer(const char *handle)
{
    th_tensor *a = th_cuda_ipc_open(handle);
    th_tensor *b = th_cuda_ipc_open(handle);
    if (!a || !b) {
        fprintf(stderr, "consumer: th_cuda_ipc_open: %s\n", th_last_error());
        return 2;
    }
    int bad = 0;
    /* Two tensors over one segment: one mapping, so one address. */
    if (th_tensor_data(a) != th_tensor_data(b)) bad++;
    const int64_t *sz = th_tensor_sizes(a), *st = th_tensor_strides(a);
    if (th_tensor_dtype(a) != TH_F32 || th_tensor_ndim(a) != 2 || sz[0] != VIEW_ROWS || sz[1] != ROWS ||
        st[0] != 1 || st[1] != COLS || th_tensor_offset(a) != VIEW_FROM)
        bad++;
    if (th_storage_device(th_tensor_storage(a)).type != TH_DEVICE_CUDA) bad++;
    th_f32_tensor *host = th_f32_to_cpu(th_f32_from_base(a));
    if (!host) bad++;
    for (int64_t i = 0; host && i < VIEW_ROWS; i++)
        for (int64_t j = 0; j < ROWS; j++)
            if (th_f32_get(host, (int64_t[]){i, j}) != view_value(i, j)) bad++;
    /* The writes: a host tensor copied into the strided view (done on the device when th_cuda_copy returns). */
    for (int64_t i = 0; host && i < VIEW_ROWS; i++)
        for (int64_t j = 0; j < ROWS; j++) th_f32_set(host, (int64_t[]){i, j}, written_value(i, j));
    if (!host || th_cuda_copy(a, th_f32_base(host)) != TH_OK) bad++;
    th_f32_release(host);
    if (bad) fprintf(stderr, "consumer: %d checks failed (last error: %s)\n", bad, th_last_error());
    say(bad ? "bad" : "written");
    if (!wait_for("release")) return 3;
    th_tensor_release(b);
    th_tensor_release(a);
    say("released");
    return bad ? 1 : 0;
}

/* Shares a tensor, prints its handle, and then exits (mode "exit") or waits to be killed ("hang"). */
static int producer(const char *how)
{
    th_f32_tensor *t = th_f32_cuda_full(0, 1, (int64_t[]){256}, 4.0f);
    char handle[TH_CUDA_IPC_HANDLE_MAX];
    if (!t || th_cuda_ipc_encode(th_f32_base(t), handle, sizeof handle) < 0) {
        fprintf(stderr, "producer: %s\n", th_last_error());
        return 2;
    }
    say(handle);
    if (strcmp(how, "hang") == 0) {
        wait_for("never"); /* until killed */
        return 4;
    }
    th_f32_release(t);
    return 0;
}

/* ---- the parent ---- */

static th_cuda_memory_stats stats(void)
{
    th_cuda_memory_stats s;
    memset(&s, 0, sizeof s);
    CHECK(th_cuda_get_memory_stats(0, &s) == TH_OK);
    return s;
}

/* An allocation and its free: the allocator's calls are where deferred blocks are swept. */
static void allocator_call(void)
{
    th_f32_tensor *x = th_f32_cuda_empty(0, 1, (int64_t[]){1});
    CHECK(x != NULL);
    th_f32_release(x);
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* A device tensor of ROWS x COLS holding k at element k, and the view that is shared. */
static th_f32_tensor *make_shared_view(th_f32_tensor **base_out)
{
    th_f32_tensor *k = th_f32_arange(0, ROWS * COLS, 1);
    th_f32_tensor *m = k ? th_f32_view(k, 2, (int64_t[]){ROWS, COLS}) : NULL;
    th_f32_tensor *base = m ? th_f32_to_cuda(m, 0) : NULL;
    th_f32_tensor *tr = base ? th_f32_transpose(base, 0, 1) : NULL;
    th_f32_tensor *view = tr ? th_f32_narrow(tr, 0, VIEW_FROM, VIEW_ROWS) : NULL;
    th_f32_release(tr);
    th_f32_release(m);
    th_f32_release(k);
    *base_out = base;
    return view;
}

static void test_consumer(void)
{
    th_f32_tensor *base = NULL, *view = make_shared_view(&base);
    CHECK(view != NULL);
    char handle[TH_CUDA_IPC_HANDLE_MAX];
    CHECK(view && th_cuda_ipc_encode(th_f32_base(view), handle, sizeof handle) > 0);
    if (!view) return;
    child c;
    CHECK(spawn_self(&c, "--consumer", handle) == 0);
    char line[TH_CUDA_IPC_HANDLE_MAX + 2]; /* a handle and its newline */
    CHECK(c.pid > 0 && child_line(&c, line, sizeof line) && strcmp(line, "written") == 0);
    /* The consumer's writes landed in our memory, and only inside the view. */
    th_f32_tensor *all = th_f32_to_cpu(base);
    CHECK(all != NULL);
    int wrong = 0;
    for (int64_t r = 0; all && r < ROWS; r++)
        for (int64_t col = 0; col < COLS; col++) {
            bool in_view = col >= VIEW_FROM && col < VIEW_FROM + VIEW_ROWS;
            float want = in_view ? written_value(col - VIEW_FROM, r) : (float)(r * COLS + col);
            wrong += th_f32_get(all, (int64_t[]){r, col}) != want;
        }
    CHECK(wrong == 0);
    th_f32_release(all);

    /* Our free of a block the consumer holds is deferred: the block stays allocated through our next calls. */
    th_cuda_memory_stats before = stats();
    th_f32_release(view);
    th_f32_release(base);
    allocator_call();
    allocator_call();
    th_cuda_memory_stats held = stats();
    CHECK(held.allocations[TH_CUDA_POOL_ALL].current == before.allocations[TH_CUDA_POOL_ALL].current);
    CHECK(held.allocated_bytes[TH_CUDA_POOL_ALL].current == before.allocated_bytes[TH_CUDA_POOL_ALL].current);

    /* Once the consumer has let go, the next allocation frees it: no collect call, no wait. */
    child_say(&c, "release");
    CHECK(child_line(&c, line, sizeof line) && strcmp(line, "released") == 0);
    CHECK(child_wait(&c) == 0);
    allocator_call();
    th_cuda_memory_stats after = stats();
    CHECK(after.allocations[TH_CUDA_POOL_ALL].current == before.allocations[TH_CUDA_POOL_ALL].current - 1);
    CHECK(after.allocated_bytes[TH_CUDA_POOL_ALL].current <
          before.allocated_bytes[TH_CUDA_POOL_ALL].current);
}

static void test_killed_consumer(void)
{
    th_f32_tensor *base = NULL, *view = make_shared_view(&base);
    char handle[TH_CUDA_IPC_HANDLE_MAX];
    CHECK(view && th_cuda_ipc_encode(th_f32_base(view), handle, sizeof handle) > 0);
    if (!view) return;
    child c;
    char line[TH_CUDA_IPC_HANDLE_MAX + 2]; /* a handle and its newline */
    CHECK(spawn_self(&c, "--consumer", handle) == 0);
    CHECK(c.pid > 0 && child_line(&c, line, sizeof line) && strcmp(line, "written") == 0);
    th_cuda_memory_stats before = stats();
    th_f32_release(view);
    th_f32_release(base);
    allocator_call();
    CHECK(stats().allocations[TH_CUDA_POOL_ALL].current == before.allocations[TH_CUDA_POOL_ALL].current);
    /* Killed without releasing, and reaped (a zombie would count as dead too). The sweep checks holders'
     * processes at most every 100 ms: within a few of those the block must be back. */
    if (c.pid > 0) kill(c.pid, SIGKILL);
    CHECK(child_wait(&c) == 128 + SIGKILL);
    bool freed = false;
    for (int tries = 0; tries < 100 && !freed; tries++) {
        sleep_ms(20);
        allocator_call();
        freed = stats().allocations[TH_CUDA_POOL_ALL].current == before.allocations[TH_CUDA_POOL_ALL].current - 1;
    }
    CHECK(freed);
}

static void test_producer_gone(const char *how)
{
    child c;
    char line[TH_CUDA_IPC_HANDLE_MAX + 2]; /* a handle and its newline */
    CHECK(spawn_self(&c, "--producer", how) == 0);
    bool got = c.pid > 0 && child_line(&c, line, sizeof line);
    CHECK(got && strncmp(line, "thcuda/", 7) == 0);
    if (strcmp(how, "hang") == 0 && c.pid > 0) kill(c.pid, SIGKILL);
    int status = child_wait(&c);
    CHECK(status == (strcmp(how, "hang") == 0 ? 128 + SIGKILL : 0));
    if (!got) return;
    th_tensor *t = th_cuda_ipc_open(line);
    CHECK(t == NULL && th_last_status() == TH_ERR_IO && strstr(th_last_error(), "has exited"));
    printf("a handle of a producer that %s: %s\n", strcmp(how, "hang") == 0 ? "was killed" : "exited",
           th_last_error());
    th_tensor_release(t);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--consumer") == 0) return consumer(argv[2]);
    if (argc == 3 && strcmp(argv[1], "--producer") == 0) return producer(argv[2]);
    int n = th_cuda_device_count();
    if (n == 0) {
        const char *why = th_cuda_unavailable_reason();
        printf("SKIP: no usable CUDA device: %s\n", why ? why : "(no reason given)");
        return 77;
    }
    static char exe[4096];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len > 0) {
        exe[len] = '\0';
        self_exe = exe;
    } else {
        self_exe = argv[0];
    }
    test_consumer();
    test_killed_consumer();
    test_producer_gone("exit");
    test_producer_gone("hang");
    /* The killed producer left its counter file behind; it is ours to remove, and nothing else is stale. */
    CHECK(th__cuda_ipc_reap_stale_counters() >= 1);
    CHECK(th__cuda_ipc_reap_stale_counters() == 0);
    CHECK(th_cuda_empty_cache(0) == TH_OK);
    printf("test_cuda_ipc_device: %d checks, %d failed\n", checks, failures);
    return failures ? 1 : 0;
}
