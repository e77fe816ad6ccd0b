/* bench/dist_bench.c: th_f32_all_reduce (TH_REDUCE_SUM, in place) against MPI_Allreduce on the same buffer, from
 * 1 KiB to DIST_MAX_MIB (default 256) MiB of float32 (run by bench/dist_run.sh under mpirun, which sets the
 * torch.distributed gloo figures of bench/dist_torch.py beside these).
 *
 * Per size the columns alternate, round after round (a round is enough calls to last about 20 ms; their order
 * rotates from round to round), for about DIST_SECONDS (default 0.5) per size, and each reports the median time
 * of one call over its rounds: what drifts on a shared machine drifts for all. A third column times the same
 * all_reduce on a strided view: every other column of a row-major matrix of twice the elements (x[:, ::2],
 * rows of 128 floats viewed as 64; packed, reduced, unpacked). Bandwidths as nccl-tests reports them:
 * algbw = bytes / time, busbw = algbw * 2 (n - 1) / n for an all_reduce on n ranks. Rank 0 prints. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "th_dist.h"

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

enum { RAW, TH, STRIDED, KINDS, MAX_ROUNDS = 400 };

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    th_dist_comm *c = th_dist_comm_from_mpi(MPI_COMM_WORLD);
    if (!c) {
        fprintf(stderr, "%s\n", th_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm comm = th_dist_mpi_comm(c);
    int rank = th_dist_rank(c), n = th_dist_size(c);
    const char *env = getenv("DIST_SECONDS");
    double seconds = env ? atof(env) : 0.5;
    const char *max_env = getenv("DIST_MAX_MIB");
    int64_t max_bytes = (int64_t)(max_env ? atoi(max_env) : 256) << 20;
    if (rank == 0) {
        printf("all_reduce sum, float32, in place, %d ranks; median us per call\n", n);
        printf("%10s %12s %12s %8s %12s %8s %10s %10s\n", "bytes", "MPI_Allreduce", "th_f32", "th/MPI",
               "th strided", "str/th", "algbw GB/s", "busbw GB/s");
    }
    for (int64_t bytes = 1024; bytes <= max_bytes; bytes *= 2) {
        int64_t count = bytes / 4;
        th_f32_tensor *t = th_f32_zeros(1, &count);
        /* every other column of a (count / 64) x 128 matrix: a (count / 64) x 64 view of strides (128, 2) */
        int64_t rows = count / 64;
        th_f32_tensor *wide = th_f32_zeros(2, (int64_t[]){rows, 128});
        th_f32_tensor *view = th_f32_as_strided(wide, 2, (int64_t[]){rows, 64}, (int64_t[]){128, 2}, 0);
        float *raw = th_f32_data(t);
        /* calls per round: about 20 ms, agreed on by all ranks (rank 0's estimate) */
        double t0 = MPI_Wtime();
        MPI_Allreduce(MPI_IN_PLACE, raw, (int)count, MPI_FLOAT, MPI_SUM, comm);
        double one = MPI_Wtime() - t0;
        MPI_Bcast(&one, 1, MPI_DOUBLE, 0, comm);
        int calls = one > 0.02 ? 1 : (int)(0.02 / (one > 1e-6 ? one : 1e-6));
        int rounds = (int)(seconds / (3 * 0.02));
        if (rounds < 5) rounds = 5;
        if (rounds > MAX_ROUNDS) rounds = MAX_ROUNDS;
        static double times[KINDS][MAX_ROUNDS];
        for (int r = 0; r < rounds; r++) {
            for (int j = 0; j < KINDS; j++) {
                int k = (j + r) % KINDS; /* each column first in a third of the rounds: none always follows the
                                          * strided one's sweep over twice the memory */
                MPI_Barrier(comm);
                double s = MPI_Wtime();
                for (int i = 0; i < calls; i++) {
                    int rc = k == RAW ? MPI_Allreduce(MPI_IN_PLACE, raw, (int)count, MPI_FLOAT, MPI_SUM, comm)
                             : k == TH ? th_f32_all_reduce(c, t, TH_REDUCE_SUM)
                                       : th_f32_all_reduce(c, view, TH_REDUCE_SUM);
                    if (rc != 0) {
                        fprintf(stderr, "rank %d: %s\n", rank, th_last_error());
                        MPI_Abort(MPI_COMM_WORLD, 1);
                    }
                }
                double e = (MPI_Wtime() - s) / calls, worst = 0;
                MPI_Allreduce(&e, &worst, 1, MPI_DOUBLE, MPI_MAX, comm); /* the slowest rank's time */
                times[k][r] = worst;
            }
        }
        if (rank == 0) {
            double med[KINDS];
            for (int k = 0; k < KINDS; k++) {
                qsort(times[k], (size_t)rounds, sizeof(double), cmp);
                med[k] = times[k][rounds / 2];
            }
            double algbw = (double)bytes / med[TH] / 1e9;
            printf("%10lld %12.1f %12.1f %8.3f %12.1f %8.3f %10.2f %10.2f\n", (long long)bytes, med[RAW] * 1e6,
                   med[TH] * 1e6, med[TH] / med[RAW], med[STRIDED] * 1e6, med[STRIDED] / med[TH], algbw,
                   algbw * 2.0 * (n - 1) / n);
            fflush(stdout);
        }
        th_f32_release(view);
        th_f32_release(wide);
        th_f32_release(t);
    }
    th_dist_comm_free(c);
    MPI_Finalize();
    return 0;
}
