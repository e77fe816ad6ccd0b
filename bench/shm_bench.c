/* bench/shm_bench.c: handing shared tensors to another process (run by bench/shm_run.sh).
 *
 *   handoff   a tensor already in shared memory (1 MiB and 1 GiB of float32) goes to a worker process, which
 *             maps it and reads its first element; the time from the parent's send until the parent has the
 *             worker's answer. Constant in the size: nothing is copied. The one-time move into shared memory
 *             (th_f32_share_memory: a copy and the reservation of the segment) is timed too, and grows with
 *             the size.
 *   roundtrip small tensors (16 floats), one after another: create, share, send, open in the worker, read,
 *             release there, answer, release here. Round trips per second.
 *
 * Both for the fd strategy (descriptor over a Unix socket) and the name strategy (a handle's text over the
 * same socket, opened by name). Prints "key value unit" lines. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "th_shm.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return v[n / 2];
}

/* The worker: a command byte on ctl ('f': a tensor by descriptor on data, 'n': a handle's text on data, 'q':
 * quit); answers with the first element read. */
static void worker(int ctl, int data)
{
    for (;;) {
        char cmd;
        if (read(ctl, &cmd, 1) != 1 || cmd == 'q') _exit(0);
        th_tensor *t = NULL;
        if (cmd == 'f') {
            t = th_shm_recv_fd(data);
        } else {
            char text[TH_SHM_HANDLE_MAX];
            ssize_t n = recv(data, text, sizeof text - 1, 0);
            text[n > 0 ? n : 0] = '\0';
            t = th_shm_open_handle(text);
        }
        float first = t ? *(const float *)th_tensor_data(t) : -1.0f;
        if (!t) fprintf(stderr, "worker: %s\n", th_last_error());
        th_tensor_release(t);
        if (write(ctl, &first, sizeof first) != sizeof first) _exit(1);
    }
}

typedef struct peer {
    int ctl, data;
    pid_t pid;
} peer;

static peer start_worker(void)
{
    int c[2], d[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, c) || socketpair(AF_UNIX, SOCK_SEQPACKET, 0, d)) exit(1);
    pid_t pid = fork();
    if (pid == 0) {
        close(c[0]);
        close(d[0]);
        worker(c[1], d[1]);
    }
    close(c[1]);
    close(d[1]);
    return (peer){c[0], d[0], pid};
}

/* Sends t to the worker by the strategy and returns the first element it read. */
static float hand_over(peer *w, th_tensor *t, th_shm_strategy strategy)
{
    if (strategy == TH_SHM_FD) {
        if (write(w->ctl, "f", 1) != 1 || th_shm_send_fd(w->data, t) != 0) goto fail;
    } else {
        char text[TH_SHM_HANDLE_MAX];
        int n = th_shm_handle_encode(t, text, sizeof text);
        if (n < 0 || write(w->ctl, "n", 1) != 1 || send(w->data, text, (size_t)n, 0) != n) goto fail;
    }
    float first;
    if (read(w->ctl, &first, sizeof first) != sizeof first) goto fail;
    return first;
fail:
    fprintf(stderr, "shm_bench: %s\n", th_last_error());
    exit(1);
}

static const char *sname(th_shm_strategy s) { return s == TH_SHM_FD ? "fd" : "name"; }

static void bench_handoff(peer *w, th_shm_strategy strategy, int64_t nbytes, const char *label)
{
    int64_t n = nbytes / 4;
    th_f32_tensor *t = th_f32_full(1, &n, 1.5f); /* touched: private pages to copy */
    double t0 = now();
    if (th_storage_share_memory_with(th_f32_storage(t), strategy)) {
        fprintf(stderr, "shm_bench: %s\n", th_last_error());
        exit(1);
    }
    double share = now() - t0;
    enum { REPS = 21 };
    double times[REPS];
    for (int r = 0; r < REPS; r++) {
        t0 = now();
        float first = hand_over(w, th_f32_base(t), strategy);
        times[r] = now() - t0;
        if (first != 1.5f) exit(1);
    }
    printf("share_%s_%s %.1f us\n", sname(strategy), label, share * 1e6);
    printf("handoff_%s_%s %.1f us\n", sname(strategy), label, median(times, REPS) * 1e6);
    fflush(stdout);
    th_f32_release(t);
}

static void bench_roundtrip(peer *w, th_shm_strategy strategy, double seconds)
{
    int64_t n = 16;
    long count = 0;
    double t0 = now(), t1;
    do {
        for (int i = 0; i < 50; i++, count++) {
            th_f32_tensor *t = th_f32_full(1, &n, 1.5f);
            if (th_storage_share_memory_with(th_f32_storage(t), strategy)) exit(1);
            if (hand_over(w, th_f32_base(t), strategy) != 1.5f) exit(1);
            th_f32_release(t);
        }
        t1 = now();
    } while (t1 - t0 < seconds);
    printf("roundtrip_%s %.0f per_s\n", sname(strategy), (double)count / (t1 - t0));
    fflush(stdout);
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 2.0;
    int64_t big = argc > 2 ? atoll(argv[2]) : (int64_t)1 << 30;
    peer w = start_worker(); /* forked before any tensor exists: it inherits nothing */
    th_shm_strategy strategies[2] = {TH_SHM_FD, TH_SHM_NAME};
    for (int s = 0; s < 2; s++) {
        bench_handoff(&w, strategies[s], (int64_t)1 << 20, "1MiB");
        bench_handoff(&w, strategies[s], big, "1GiB");
    }
    for (int s = 0; s < 2; s++) bench_roundtrip(&w, strategies[s], seconds);
    if (write(w.ctl, "q", 1) != 1) return 1;
    int status;
    waitpid(w.pid, &status, 0);
    return 0;
}
