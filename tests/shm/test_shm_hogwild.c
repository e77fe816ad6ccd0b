/* tests/shm/test_shm_hogwild.c: several processes updating one shared tensor at once.
 *
 * Hogwild: worker processes run lock-free SGD on one shared weight vector, each reading the others' updates;
 * the weights converge only because every process writes the same memory. Exact totals: workers add to
 * shared int64 counters with __atomic builtins, some through the mapping they inherited, some through their
 * own mapping of the same segment (opened by handle or received by descriptor), some through a strided view;
 * every increment must be there. */
#include "shm_test.h"

enum { WORKERS = 4 };

/* A gate: children block on read until the parent closes the write end, so they start together. */
static void gate_wait(int fd)
{
    char byte;
    (void)!read(fd, &byte, 1);
}

/* Linear regression y = w* . x; each worker draws its own samples and updates the shared w in place. */
enum { DIM = 16, STEPS = 40000 };

static float target(int j) { return (float)(j % 5) - 2.0f + 0.25f * (float)j; }

static void sgd_worker(th_f32_tensor *w, int seed)
{
    float *p = th_f32_data(w);
    unsigned s = (unsigned)seed * 2654435761u + 1u;
    for (int step = 0; step < STEPS; step++) {
        float x[DIM], y = 0.0f, pred = 0.0f;
        for (int j = 0; j < DIM; j++) {
            s = s * 1103515245u + 12345u;
            x[j] = (float)((s >> 8) & 0xffff) / 65536.0f - 0.5f;
            y += target(j) * x[j];
            pred += p[j] * x[j]; /* reads whatever the other workers wrote */
        }
        float err = pred - y;
        for (int j = 0; j < DIM; j++) p[j] -= 0.05f * err * x[j]; /* racy on purpose: Hogwild */
    }
}

static void test_hogwild(th_shm_strategy strategy)
{
    th_f32_tensor *w = th_f32_zeros(1, SZ(DIM));
    CHECK_INT_EQ(th_storage_share_memory_with(th_f32_storage(w), strategy), TH_OK);
    int gate[2];
    CHECK(pipe(gate) == 0);
    fflush(stdout);
    pid_t kids[WORKERS];
    for (int k = 0; k < WORKERS; k++) {
        kids[k] = fork();
        if (kids[k] == 0) {
            close(gate[1]);
            gate_wait(gate[0]);
            sgd_worker(w, k + 1);
            th_f32_release(w); /* inherited: only unmapped */
            _exit(0);
        }
    }
    close(gate[0]);
    close(gate[1]);
    for (int k = 0; k < WORKERS; k++) CHECK_INT_EQ(shm_test_wait(kids[k]), 0);
    double err = 0.0;
    for (int j = 0; j < DIM; j++) {
        double d = (double)th_f32_get(w, IDX(j)) - (double)target(j);
        err += d * d;
    }
    printf("hogwild (%s): %d processes x %d steps, |w - w*|^2 = %.3g\n", strategy == TH_SHM_FD ? "fd" : "name",
           WORKERS, STEPS, err);
    CHECK(err < 1e-3);
    th_f32_release(w);
}

/* ---- exact totals with atomics ---- */

enum { COUNTERS = 8, ADDS = 200000 };

static void add_all(int64_t *base, int64_t stride)
{
    for (int i = 0; i < ADDS; i++) __atomic_fetch_add(&base[(i % COUNTERS) * stride], 1, __ATOMIC_RELAXED);
}

static void test_atomic_totals(void)
{
    /* 16 int64; the counters are every other one (a strided view), the rest must stay 0. */
    th_i64_tensor *all = th_i64_zeros(1, SZ(2 * COUNTERS));
    th_i64_tensor *c = th_i64_as_strided(all, 1, SZ(COUNTERS), SZ(2), 1); /* elements 1, 3, 5, ... */
    CHECK_INT_EQ(th_storage_share_memory_with(th_i64_storage(c), TH_SHM_NAME), TH_OK);
    char handle[TH_SHM_HANDLE_MAX];
    CHECK(th_shm_handle_encode(th_i64_base(c), handle, sizeof handle) > 0);
    int sv[2];
    CHECK_INT_EQ(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
    int gate[2];
    CHECK(pipe(gate) == 0);
    fflush(stdout);
    pid_t kids[WORKERS];
    for (int k = 0; k < WORKERS; k++) {
        kids[k] = fork();
        if (kids[k] != 0) continue;
        close(gate[1]);
        th_tensor *own = NULL;
        if (k == 1) own = th_shm_open_handle(handle);      /* a mapping of its own, by name */
        if (k == 2) own = th_shm_recv_fd(sv[1]);           /* a mapping of its own, by descriptor */
        if ((k == 1 || k == 2) && !own) _exit(2);
        th_i64_tensor *v = own ? th_i64_from_base(own) : c;
        if (own && th_i64_data(v) == th_i64_data(c)) _exit(3); /* must be another address */
        gate_wait(gate[0]);
        add_all(th_i64_data(v), th_i64_stride(v, 0));
        th_tensor_release(own);
        th_i64_release(c);
        th_i64_release(all);
        _exit(0);
    }
    CHECK_INT_EQ(th_shm_send_fd(sv[0], th_i64_base(c)), TH_OK);
    close(gate[0]);
    add_all(th_i64_data(c), 2); /* the parent too */
    close(gate[1]);
    for (int k = 0; k < WORKERS; k++) CHECK_INT_EQ(shm_test_wait(kids[k]), 0);
    int64_t total = 0;
    for (int i = 0; i < COUNTERS; i++) {
        CHECK_INT_EQ(th_i64_get(c, IDX(i)), (int64_t)(WORKERS + 1) * ADDS / COUNTERS);
        CHECK_INT_EQ(th_i64_get(all, IDX(2 * i)), 0);
        total += th_i64_get(c, IDX(i));
    }
    CHECK_INT_EQ(total, (int64_t)(WORKERS + 1) * ADDS);
    printf("atomic totals: %d processes x %d increments = %lld, exact\n", WORKERS + 1, ADDS, (long long)total);
    th_i64_release(c);
    th_i64_release(all);
    close(sv[0]);
    close(sv[1]);
}

int main(void)
{
    shm_test_begin("hog");
    test_hogwild(TH_SHM_FD);
    test_hogwild(TH_SHM_NAME);
    test_atomic_totals();
    return shm_test_end("test_shm_hogwild");
}
