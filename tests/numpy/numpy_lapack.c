/* tests/numpy/numpy_lapack.c: solve, inv, det, slogdet, cholesky, qr, eigh, svd and svdvals (ops/lapack.h) against
 * numpy.linalg; solve_triangular, cholesky_solve, lu_factor and lu_solve against scipy.linalg; lstsq, pinv and
 * matrix_rank, matrix_norm, cond, matrix_power, eig and eigvals against numpy.linalg; matrix_exp against
 * scipy.linalg.expm.
 *
 *   numpy_lapack DIR PYTHON SCRIPT
 *
 * (and qr, eigh, svd, svdvals: sign- and phase-invariant comparisons; refused in a build without LAPACK)
 * runs `PYTHON SCRIPT write DIR`: NumPy writes the inputs of every case as .npy files (random, ill-conditioned,
 * singular and not positive-definite, batched, broadcast, Fortran order: a transposed view here, f32 / f64 /
 * c64 / c128) and DIR/cases.txt, one line a case: "name op inputs [flags]". This program loads the inputs, runs the op
 * and writes each result as DIR/out/<name>_<k>.npy, or DIR/out/<name>.err holding the status name and message
 * when the op refused; then `PYTHON SCRIPT check DIR` compares every result with numpy.linalg's within a bound
 * of c * n * cond(A) * eps, and every refusal with NumPy's LinAlgError on the same input (the batch index named).
 * This program is the test command, so the sanitizers and valgrind see the library's side. Skips (77) without
 * PYTHON or NumPy. */
#define _POSIX_C_SOURCE 200809L
#include "../check.h"

#include "peer_files.h"

#include <math.h>
#include <sys/stat.h>

static const char *dir;
static int cases;

#define CALL(dt, verb, ...)                                                                                      \
    ((dt) == TH_F32 ? (th_tensor *)th_f32_##verb(__VA_ARGS__)                                                  \
     : (dt) == TH_F64 ? (th_tensor *)th_f64_##verb(__VA_ARGS__)                                                 \
     : (dt) == TH_C64 ? (th_tensor *)th_c64_##verb(__VA_ARGS__)                                                 \
                      : (th_tensor *)th_c128_##verb(__VA_ARGS__))
#define CALL_INT(dt, verb, ...)                                                                                  \
    ((dt) == TH_F32 ? th_f32_##verb(__VA_ARGS__)                                                                \
     : (dt) == TH_F64 ? th_f64_##verb(__VA_ARGS__)                                                              \
     : (dt) == TH_C64 ? th_c64_##verb(__VA_ARGS__)                                                              \
                      : th_c128_##verb(__VA_ARGS__))

static void save(const char *name, int k, th_tensor *t)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/out/%s_%d.npy", dir, name, k);
    int rc = th_tensor_save_npy(path, t);
    CHECK_INT_EQ(rc, TH_OK);
    if (rc) fprintf(stderr, "%s: %s\n", name, th_last_error());
}

static void one_case(char *line)
{
    char name[128], op[32];
    int nin, flags = 0; /* solve_triangular's and cholesky_solve's: 1 upper, 2 left, 4 unitriangular */
    int fields = sscanf(line, "%127s %31s %d %d", name, op, &nin, &flags);
    if (fields < 3 || nin < 1 || nin > 3) {
        CHECK(!"a case line");
        return;
    }
    th_tensor *in[3] = {NULL, NULL, NULL};
    char path[4096];
    for (int k = 0; k < nin; k++) {
        snprintf(path, sizeof path, "%s/%s_in%d.npy", dir, name, k);
        in[k] = th_tensor_load_npy(path);
        CHECK(in[k] != NULL);
        if (!in[k]) fprintf(stderr, "%s: %s\n", path, th_last_error());
    }
    if (!in[0] || (nin >= 2 && !in[1]) || (nin == 3 && !in[2])) {
        for (int k = 0; k < 3; k++) th_tensor_release(in[k]);
        return;
    }
    cases++;
    th_dtype dt = th_tensor_dtype(in[0]);
    void *a = in[0], *b = in[1], *c = in[2];
    bool upper = flags & 1, left = flags & 2, unit = flags & 4;
    double rtol = flags ? pow(10.0, -flags) : -1.0; /* lstsq's, pinv's and matrix_rank's; flags 0: the default */
    th_tensor *r[4] = {NULL, NULL, NULL, NULL};
    int status = TH_OK;
    th_clear_error();
    if (strcmp(op, "solve") == 0) r[0] = CALL(dt, solve, a, b);
    else if (strcmp(op, "inv") == 0) r[0] = CALL(dt, inv, a);
    else if (strcmp(op, "det") == 0) r[0] = CALL(dt, det, a);
    else if (strcmp(op, "cholesky") == 0) r[0] = CALL(dt, cholesky, a);
    else if (strcmp(op, "slogdet") == 0) status = CALL_INT(dt, slogdet, a, (void *)&r[0], (void *)&r[1]);
    else if (strcmp(op, "qr") == 0) status = CALL_INT(dt, qr, a, (void *)&r[0], (void *)&r[1]);
    else if (strcmp(op, "eigh") == 0) status = CALL_INT(dt, eigh, a, (void *)&r[0], (void *)&r[1]);
    else if (strcmp(op, "svd") == 0) status = CALL_INT(dt, svd, a, (void *)&r[0], (void *)&r[1], (void *)&r[2]);
    else if (strcmp(op, "svd_full") == 0) status = CALL_INT(dt, svd_full, a, (void *)&r[0], (void *)&r[1], (void *)&r[2]);
    else if (strcmp(op, "svdvals") == 0) r[0] = CALL(dt, svdvals, a);
    else if (strcmp(op, "solve_triangular") == 0) r[0] = CALL(dt, solve_triangular, a, b, upper, left, unit);
    else if (strcmp(op, "cholesky_solve") == 0) r[0] = CALL(dt, cholesky_solve, a, b, upper);
    else if (strcmp(op, "lu_factor") == 0) status = CALL_INT(dt, lu_factor, a, (void *)&r[0], (th_i32_tensor **)&r[1]);
    else if (strcmp(op, "lu_solve") == 0) r[0] = CALL(dt, lu_solve, a, (th_i32_tensor *)b, c);
    else if (strcmp(op, "lstsq") == 0)
        status = CALL_INT(dt, lstsq, a, b, rtol, (void *)&r[0], (void *)&r[1], (th_i64_tensor **)&r[2], (void *)&r[3]);
    else if (strcmp(op, "pinv") == 0) r[0] = CALL(dt, pinv, a, rtol);
    else if (strcmp(op, "matrix_rank") == 0) r[0] = (th_tensor *)CALL(dt, matrix_rank, a, rtol);
    else if (strcmp(op, "matrix_norm") == 0) r[0] = CALL(dt, matrix_norm, a, (th_norm_ord)flags);
    else if (strcmp(op, "cond") == 0) r[0] = CALL(dt, cond, a, (th_norm_ord)flags);
    else if (strcmp(op, "matrix_power") == 0) r[0] = CALL(dt, matrix_power, a, (int64_t)flags);
    else if (strcmp(op, "matrix_exp") == 0) r[0] = CALL(dt, matrix_exp, a);
    else if (strcmp(op, "eig") == 0) status = CALL_INT(dt, eig, a, (void *)&r[0], (void *)&r[1]);
    else if (strcmp(op, "eigvals") == 0) r[0] = CALL(dt, eigvals, a);
    else CHECK(!"a known op");
    if (!r[0]) status = th_last_status();
    if (status) {
        snprintf(path, sizeof path, "%s/out/%s.err", dir, name);
        FILE *f = fopen(path, "w");
        CHECK(f != NULL);
        if (f) {
            fprintf(f, "%s %s\n", th_status_name((th_status)status), th_last_error());
            fclose(f);
        }
    } else {
        for (int k = 0; k < 4; k++)
            if (r[k]) save(name, k, r[k]);
    }
    for (int k = 0; k < 4; k++) th_tensor_release(r[k]);
    for (int k = 0; k < 3; k++) th_tensor_release(in[k]);
}

int main(int argc, char **argv)
{
    (void)peer_read_all; /* peer_files.h's file helpers: not needed here */
    (void)peer_contiguous;
    dir = argc == 4 ? argv[1] : NULL;
    int rc = peer_start(argc, argv, "numpy_lapack", "NumPy");
    if (rc >= 0) return rc; /* 77: NumPy missing */
    test_begin();
    printf("numpy_lapack: LAPACK %s\n", th_linalg_lapack() ? "yes" : "no (the built-in LU / Cholesky)");
    char path[4096];
    snprintf(path, sizeof path, "%s/out", dir);
    CHECK(mkdir(path, 0777) == 0 || errno == EEXIST);
    snprintf(path, sizeof path, "%s/out/lapack.txt", dir); /* qr, eigh, svd, svdvals refuse without it */
    FILE *flag = fopen(path, "w");
    CHECK(flag != NULL);
    if (flag) {
        fprintf(flag, "%s\n", th_linalg_lapack() ? "yes" : "no");
        fclose(flag);
    }
    snprintf(path, sizeof path, "%s/cases.txt", dir);
    FILE *index = fopen(path, "r");
    CHECK(index != NULL);
    char line[1024];
    while (index && fgets(line, sizeof line, index)) one_case(line);
    if (index) fclose(index);
    printf("numpy_lapack: ran %d cases written by NumPy\n", cases);
    CHECK(cases >= 100);
    if (test_end("numpy_lapack") != 0) return 1;
    fflush(stdout);
    return peer_run("numpy_lapack", argv[2], argv[3], "check", dir);
}
