/* bench/bench_lapack.c: th_f64_solve of a 1024 x 1024 system (one right-hand side, and 1024 of them) against
 * LAPACKE_dgesv called directly on copies of the same row-major arrays (dgesv overwrites its inputs, so the copy
 * is part of any real use; the row-major A is passed as column-major A^T with trans handled by solving
 * A^T's factorisation, which is what a caller of dgesv with C arrays does, or LAPACK_ROW_MAJOR, which transposes
 * inside LAPACKE). Median of 7 runs after one warm-up. Run by bench/lapack_run.sh, which adds NumPy's time. */
#define _POSIX_C_SOURCE 200809L
#define TH_IMPLEMENTATION
#define TH_SELECT_DTYPES
#define TH_WANT_F64
#include "tensor.h"

#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define REPS 7

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1024;
    th_f64_tensor *A = th_f64_empty(2, (int64_t[]){n, n});
    double *a = th_f64_data(A);
    srand(1);
    for (int64_t i = 0; i < (int64_t)n * n; i++) a[i] = (double)rand() / RAND_MAX - 0.5;
    for (int i = 0; i < n; i++) a[(int64_t)i * n + i] += n / 4.0;
    for (int nrhs = 1; nrhs <= n; nrhs += n - 1) {
        th_f64_tensor *B = th_f64_ones(nrhs == 1 ? 1 : 2, (int64_t[]){n, nrhs});
        double *acopy = malloc(sizeof(double) * (size_t)n * (size_t)n);
        double *bcopy = malloc(sizeof(double) * (size_t)n * (size_t)nrhs);
        lapack_int *ipiv = malloc(sizeof(lapack_int) * (size_t)n);
        double t_lap[REPS], t_row[REPS], t_th[REPS];
        for (int r = -1; r < REPS; r++) {
            double t0 = now();
            memcpy(acopy, a, sizeof(double) * (size_t)n * (size_t)n);
            memcpy(bcopy, th_f64_data(B), sizeof(double) * (size_t)n * (size_t)nrhs);
            /* row-major A is column-major A^T: factor it, solve with trans 'T' (B column-major: one rhs or B^T's
             * layout; for nrhs > 1 the row-major B is passed through LAPACK_ROW_MAJOR below instead) */
            lapack_int info = LAPACKE_dgetrf_work(LAPACK_COL_MAJOR, n, n, acopy, n, ipiv);
            if (nrhs == 1) info |= LAPACKE_dgetrs_work(LAPACK_COL_MAJOR, 'T', n, 1, acopy, n, ipiv, bcopy, n);
            else info |= LAPACKE_dgetrs(LAPACK_ROW_MAJOR, 'T', n, nrhs, acopy, n, ipiv, bcopy, nrhs);
            double t1 = now();
            memcpy(acopy, a, sizeof(double) * (size_t)n * (size_t)n);
            memcpy(bcopy, th_f64_data(B), sizeof(double) * (size_t)n * (size_t)nrhs);
            info |= LAPACKE_dgesv(LAPACK_ROW_MAJOR, n, nrhs, acopy, n, ipiv, bcopy, nrhs);
            double t2 = now();
            th_f64_tensor *X = th_f64_solve(A, B);
            double t3 = now();
            if (info || !X) {
                fprintf(stderr, "failed: info %d, %s\n", (int)info, th_last_error());
                return 1;
            }
            th_f64_release(X);
            if (r >= 0) {
                t_lap[r] = t1 - t0;
                t_row[r] = t2 - t1;
                t_th[r] = t3 - t2;
            }
        }
        qsort(t_lap, REPS, sizeof(double), cmp);
        qsort(t_row, REPS, sizeof(double), cmp);
        qsort(t_th, REPS, sizeof(double), cmp);
        printf("f64 solve %d x %d, %d rhs: LAPACKE getrf+getrs on copies %.2f ms | LAPACKE_dgesv(ROW_MAJOR) %.2f ms | "
               "th_f64_solve %.2f ms (%.2fx the first)\n",
               n, n, nrhs, 1e3 * t_lap[REPS / 2], 1e3 * t_row[REPS / 2], 1e3 * t_th[REPS / 2],
               t_th[REPS / 2] / t_lap[REPS / 2]);
        free(acopy);
        free(bcopy);
        free(ipiv);
        th_f64_release(B);
    }
    th_f64_release(A);
    return 0;
}
