/* tests/numpy/products_numpy.c: einsum, tensordot, inner, vdot, trace, kron, cross and multi_dot (ops/products.h)
 * against NumPy (np.einsum with optimize=True, np.tensordot, np.inner, np.vdot, np.trace, np.kron, np.cross,
 * np.linalg.multi_dot), and torch.einsum against NumPy where torch imports.
 *
 *   products_numpy DIR PYTHON SCRIPT
 *
 * runs `PYTHON SCRIPT write DIR`: NumPy writes the inputs of every case (f32, f64, c64, c128, i32, i64; random
 * sizes, some 0; broadcast ellipses and letters of size 1) as .npy files and DIR/cases.txt, one line a case: "name
 * op dtype nin layouts arg". This program loads the inputs, lays each out as asked (c: as loaded, f: Fortran order,
 * which loads as a transposed view, s: stepped, every other element of a buffer twice the size), runs the op as a
 * new result (DIR/out/<name>_0.npy), into an out whose dims are laid out in reverse order
 * (DIR/out/<name>_1.npy) and through the built-in matmul kernel instead of BLAS (DIR/out/<name>_2.npy), or writes DIR/out/<name>.err when the op refused; then `PYTHON SCRIPT check DIR`
 * compares each with NumPy's result within the bound the script states. This program is the test command, so the
 * sanitizers and valgrind see the library's side. Skips (77) without PYTHON or NumPy. */
#define _POSIX_C_SOURCE 200809L
#include "../check.h"

#include "peer_files.h"

#include <sys/stat.h>

static const char *dir;
static int cases;

/* One op for the dtype dt; the typed pointers are th_tensor * underneath. */
#define CALL(dt, verb, ...)                                                                                      \
    ((dt) == TH_F32   ? (th_tensor *)th_f32_##verb(__VA_ARGS__)                                                \
     : (dt) == TH_F64 ? (th_tensor *)th_f64_##verb(__VA_ARGS__)                                                \
     : (dt) == TH_C64 ? (th_tensor *)th_c64_##verb(__VA_ARGS__)                                                \
     : (dt) == TH_C128 ? (th_tensor *)th_c128_##verb(__VA_ARGS__)                                              \
     : (dt) == TH_I32 ? (th_tensor *)th_i32_##verb(__VA_ARGS__)                                                \
                      : (th_tensor *)th_i64_##verb(__VA_ARGS__))
#define CALL_OUT(dt, verb, out, ...)                                                                             \
    ((dt) == TH_F32   ? th_f32_##verb((th_f32_tensor *)(out), __VA_ARGS__)                                     \
     : (dt) == TH_F64 ? th_f64_##verb((th_f64_tensor *)(out), __VA_ARGS__)                                     \
     : (dt) == TH_C64 ? th_c64_##verb((th_c64_tensor *)(out), __VA_ARGS__)                                     \
     : (dt) == TH_C128 ? th_c128_##verb((th_c128_tensor *)(out), __VA_ARGS__)                                  \
     : (dt) == TH_I32 ? th_i32_##verb((th_i32_tensor *)(out), __VA_ARGS__)                                     \
                      : th_i64_##verb((th_i64_tensor *)(out), __VA_ARGS__))

static void save(const char *name, int k, th_tensor *t)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/out/%s_%d.npy", dir, name, k);
    int rc = th_tensor_save_npy(path, t);
    CHECK_INT_EQ(rc, TH_OK);
    if (rc) fprintf(stderr, "%s: %s\n", name, th_last_error());
}

/* t laid out as layout asks: 's' copies it into every other element of a buffer twice its size. */
static th_tensor *laid_out(th_tensor *t, char layout)
{
    if (layout != 's') return th_tensor_retain(t);
    int nd = th_tensor_ndim(t);
    const int64_t *sizes = th_tensor_sizes(t);
    int64_t strides[TH_MAX_DIMS], n = 1;
    for (int d = nd - 1; d >= 0; d--) {
        strides[d] = 2 * n;
        n *= sizes[d] > 0 ? sizes[d] : 1;
    }
    th_storage *s = th_storage_new(2 * n * (int64_t)th_dtype_info(th_tensor_dtype(t))->size, NULL, NULL);
    th_tensor *v = th_tensor_new_with_storage(th_tensor_dtype(t), s, 0, nd, sizes, strides);
    th_storage_release(s);
    CHECK(v != NULL && th_tensor_copy(v, t) == TH_OK);
    return v;
}

/* "1,-2" into dims; returns how many. */
static int parse_dims(const char *s, int *dims)
{
    int n = 0;
    while (*s && n < TH_MAX_DIMS) {
        char *end;
        dims[n++] = (int)strtol(s, &end, 10);
        s = *end == ',' ? end + 1 : end;
        if (end == s && *end != ',') break;
    }
    return n;
}

/* The op into out (NULL: a new result, returned; else the status as a pointer-sized flag: out or NULL). */
static th_tensor *run(const char *op, th_dtype dt, th_tensor *out, int nin, th_tensor **in, const char *arg)
{
    const void *a = in[0], *b = nin > 1 ? in[1] : NULL;
    const void *const *arr = (const void *const *)in;
    int status = TH_OK;
    th_tensor *r = NULL;
    if (strcmp(op, "einsum") == 0) {
        if (!out) r = CALL(dt, einsum, arg, nin, (const void *)arr);
        else status = CALL_OUT(dt, einsum_out, out, arg, nin, (const void *)arr);
    } else if (strcmp(op, "tensordot") == 0) {
        int64_t n = atoll(arg);
        if (!out) r = CALL(dt, tensordot, a, b, n);
        else status = CALL_OUT(dt, tensordot_out, out, a, b, n);
    } else if (strcmp(op, "tensordot_axes") == 0) {
        int da[TH_MAX_DIMS], db[TH_MAX_DIMS];
        const char *semi = strchr(arg, ';');
        int na = semi && semi != arg ? parse_dims(arg, da) : 0, nb = semi && semi[1] ? parse_dims(semi + 1, db) : 0;
        CHECK_INT_EQ(na, nb);
        if (!out) r = CALL(dt, tensordot_axes, a, b, na, da, db);
        else status = CALL_OUT(dt, tensordot_axes_out, out, a, b, na, da, db);
    } else if (strcmp(op, "inner") == 0) {
        if (!out) r = CALL(dt, inner, a, b);
        else status = CALL_OUT(dt, inner_out, out, a, b);
    } else if (strcmp(op, "vdot") == 0) {
        if (!out) r = CALL(dt, vdot, a, b);
        else status = CALL_OUT(dt, vdot_out, out, a, b);
    } else if (strcmp(op, "trace") == 0) {
        if (!out) r = CALL(dt, trace, a);
        else status = CALL_OUT(dt, trace_out, out, a);
    } else if (strcmp(op, "kron") == 0) {
        if (!out) r = CALL(dt, kron, a, b);
        else status = CALL_OUT(dt, kron_out, out, a, b);
    } else if (strcmp(op, "cross") == 0) {
        int dim = atoi(arg);
        if (!out) r = CALL(dt, cross, a, b, dim);
        else status = CALL_OUT(dt, cross_out, out, a, b, dim);
    } else if (strcmp(op, "multi_dot") == 0) {
        if (!out) r = CALL(dt, multi_dot, nin, (const void *)arr);
        else status = CALL_OUT(dt, multi_dot_out, out, nin, (const void *)arr);
    } else {
        CHECK(!"a known op");
        return NULL;
    }
    if (out) return status == TH_OK ? out : NULL;
    return r;
}

static void one_case(const char *line)
{
    char name[64], op[32], dts[8], layouts[32], arg[256];
    int nin;
    if (sscanf(line, "%63s %31s %7s %d %31s %255s", name, op, dts, &nin, layouts, arg) != 6 || nin < 1 || nin > 16 ||
        (int)strlen(layouts) != nin) {
        CHECK(!"a case line");
        return;
    }
    th_tensor *loaded[16] = {NULL}, *in[16] = {NULL};
    char path[4096];
    bool ok = true;
    for (int k = 0; k < nin; k++) {
        snprintf(path, sizeof path, "%s/%s_in%d.npy", dir, name, k);
        loaded[k] = th_tensor_load_npy(path);
        if (!loaded[k]) fprintf(stderr, "%s: %s\n", path, th_last_error());
        in[k] = loaded[k] ? laid_out(loaded[k], layouts[k]) : NULL;
        ok = ok && in[k];
    }
    CHECK(ok);
    if (ok) {
        cases++;
        th_dtype dt = th_tensor_dtype(in[0]);
        th_clear_error();
        th_tensor *r = run(op, dt, NULL, nin, in, arg);
        if (!r) {
            snprintf(path, sizeof path, "%s/out/%s.err", dir, name);
            FILE *f = fopen(path, "w");
            CHECK(f != NULL);
            if (f) {
                fprintf(f, "%s %s\n", th_status_name(th_last_status()), th_last_error());
                fclose(f);
            }
        } else {
            save(name, 0, r);
            /* the _out form into an out of the result's shape whose dims are laid out in reverse order */
            int nd = th_tensor_ndim(r);
            const int64_t *sizes = th_tensor_sizes(r);
            int64_t strides[TH_MAX_DIMS], n = 1;
            for (int d = 0; d < nd; d++) { /* column-major: dim 0 fastest */
                strides[d] = n;
                n *= sizes[d] > 0 ? sizes[d] : 1;
            }
            th_storage *s = th_storage_new(n * (int64_t)th_dtype_info(dt)->size, NULL, NULL);
            th_tensor *ov = th_tensor_new_with_storage(dt, s, 0, nd, sizes, strides);
            th_storage_release(s);
            CHECK(ov != NULL);
            if (ov) {
                th_tensor *got = run(op, dt, ov, nin, in, arg);
                CHECK(got == ov);
                if (got) save(name, 1, ov);
                else fprintf(stderr, "%s: %s_out: %s\n", name, op, th_last_error());
            }
            th_tensor_release(ov);
            /* again through the built-in matmul kernel, as a build without BLAS computes it */
            bool was = th_linalg_set_blas(false);
            th_tensor *rb = run(op, dt, NULL, nin, in, arg);
            th_linalg_set_blas(was);
            CHECK(rb != NULL);
            if (rb) save(name, 2, rb);
            else fprintf(stderr, "%s: %s without BLAS: %s\n", name, op, th_last_error());
            th_tensor_release(rb);
            th_tensor_release(r);
        }
    }
    for (int k = 0; k < nin; k++) {
        th_tensor_release(in[k]);
        th_tensor_release(loaded[k]);
    }
}

int main(int argc, char **argv)
{
    (void)peer_read_all; /* peer_files.h's file helpers: not needed here */
    (void)peer_contiguous;
    dir = argc == 4 ? argv[1] : NULL;
    int rc = peer_start(argc, argv, "products_numpy", "NumPy");
    if (rc >= 0) return rc; /* 77: NumPy missing */
    test_begin();
    char path[4096];
    snprintf(path, sizeof path, "%s/out", dir);
    CHECK(mkdir(path, 0777) == 0 || errno == EEXIST);
    peer_each_case(dir, one_case);
    printf("products_numpy: ran %d cases written by NumPy\n", cases);
    CHECK(cases >= 300);
    if (test_end("products_numpy") != 0) return 1;
    fflush(stdout);
    return peer_run("products_numpy", argv[2], argv[3], "check", dir);
}
