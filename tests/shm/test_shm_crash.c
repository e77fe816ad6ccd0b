/* tests/shm/test_shm_crash.c: children killed with SIGKILL at random points leave no segment behind.
 *
 * Each child churns through every path (share, encode, open, send, receive, release) in a loop until the
 * parent kills it after a random delay. The fd strategy can leave nothing by construction (memfds have no
 * name). The name strategy relies on the manager: it unlinks the segments of a dead client that no live
 * client holds, so after the kills the test waits (up to 10 s) for /dev/shm to hold none of this run's
 * segments; a segment the parent still holds must survive its children's deaths; and a segment whose count
 * a killed holder left too high goes when the last live holder lets go.
 *
 * TH_SHM_TEST_NO_MANAGER=1 skips the name-strategy rounds (for builds with the manager stubbed out). */
#include "shm_test.h"

#include <time.h>

static void churn(th_shm_strategy strategy, const char *parent_handle)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0) _exit(2);
    th_tensor *parents = parent_handle ? th_shm_open_handle(parent_handle) : NULL;
    for (unsigned i = 0;; i++) {
        th_f32_tensor *t = th_f32_full(1, SZ(256 + (int64_t)(i % 7) * 1000), 1.0f);
        th_storage_share_memory_with(th_f32_storage(t), strategy);
        th_f32_tensor *v = th_f32_narrow(t, 0, 3, 100);
        th_shm_send_fd(sv[0], th_f32_base(v));
        if (strategy == TH_SHM_NAME) {
            char h[TH_SHM_HANDLE_MAX];
            if (th_shm_handle_encode(th_f32_base(v), h, sizeof h) > 0) th_tensor_release(th_shm_open_handle(h));
        }
        if (i % 3 == 0) th_f32_release(t), t = NULL; /* the receiver is sometimes the last holder */
        th_tensor *r = th_shm_recv_fd(sv[1]);
        if (parents) ((float *)th_tensor_data(parents))[i % 16] += 1.0f;
        th_tensor_release(r);
        th_f32_release(v);
        th_f32_release(t);
    }
}

/* This run's segments, once there are at most `expected` of them or after `seconds`. */
static int leftover_after(double seconds, int expected)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (;;) {
        int n = shm_test_segments();
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (n <= expected || (double)(now.tv_sec - start.tv_sec) + 1e-9 * (double)(now.tv_nsec - start.tv_nsec) > seconds)
            return n;
        usleep(20000);
    }
}

static void kill_rounds(th_shm_strategy strategy, int rounds, const char *parent_handle)
{
    for (int r = 0; r < rounds; r++) {
        pid_t pid = fork();
        if (pid == 0) churn(strategy, parent_handle);
        usleep((useconds_t)(rand() % 30000)); /* a random point in the churn */
        kill(pid, SIGKILL);
        CHECK_INT_EQ(shm_test_wait(pid), 128 + SIGKILL);
    }
}

/* A holder killed while it holds a named segment leaves its in-segment count too high; when the last live
 * holder lets go, the manager (which saw the death) unlinks the name all the same. */
static void test_killed_holder(void)
{
    th_f32_tensor *t = th_f32_zeros(1, SZ(64));
    char h[TH_SHM_HANDLE_MAX];
    CHECK(th_shm_handle_encode(th_f32_base(t), h, sizeof h) > 0);
    int ready[2];
    CHECK(pipe(ready) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        th_tensor *mine = th_shm_open_handle(h); /* counted in: 2 */
        (void)!write(ready[1], mine ? "y" : "n", 1);
        pause();
        _exit(0);
    }
    char byte = 0;
    CHECK(read(ready[0], &byte, 1) == 1 && byte == 'y');
    kill(pid, SIGKILL);
    CHECK_INT_EQ(shm_test_wait(pid), 128 + SIGKILL);
    close(ready[0]);
    close(ready[1]);
    CHECK_INT_EQ(shm_test_segments(), 1);
    th_f32_release(t); /* the count goes to 1, not 0: the manager's release unlinks it */
    CHECK_INT_EQ(leftover_after(10.0, 0), 0);
}

int main(void)
{
    shm_test_begin("crash");
    srand((unsigned)time(NULL) ^ (unsigned)getpid());

    kill_rounds(TH_SHM_FD, 30, NULL);
    CHECK_INT_EQ(shm_test_segments(), 0); /* at once: nothing ever had a name */

    if (getenv("TH_SHM_TEST_NO_MANAGER")) {
        printf("test_shm_crash: name strategy SKIPPED (TH_SHM_TEST_NO_MANAGER)\n");
        return shm_test_end("test_shm_crash");
    }
    test_killed_holder();
    /* The parent holds a named segment that the children open and write to while they are killed. */
    th_f32_tensor *mine = th_f32_zeros(1, SZ(16));
    char h[TH_SHM_HANDLE_MAX];
    CHECK(th_shm_handle_encode(th_f32_base(mine), h, sizeof h) > 0);
    kill_rounds(TH_SHM_NAME, 30, h);
    CHECK_INT_EQ(leftover_after(10.0, 1), 1); /* only the parent's */
    th_tensor *again = th_shm_open_handle(h);
    CHECK(again != NULL); /* survived its children's deaths */
    th_tensor_release(again);
    float sum = 0.0f;
    for (int i = 0; i < 16; i++) sum += th_f32_get(mine, IDX(i));
    printf("test_shm_crash: children wrote %g times into the parent's segment before they were killed\n", (double)sum);
    th_f32_release(mine);
    CHECK_INT_EQ(leftover_after(10.0, 0), 0);
    return shm_test_end("test_shm_crash");
}
