/* tests/numpy/npy_files.c: .npy files against NumPy, both ways.
 *
 *   npy_files DIR PYTHON SCRIPT
 *
 * runs `PYTHON SCRIPT write DIR` (NumPy writes files of every dtype, order, byte order and format version, with
 * the raw values beside each), loads every one with th_tensor_load_npy and compares dtype, shape, values and
 * whether it came zero-copy; then writes each loaded tensor back with th_tensor_save_npy, as it is, transposed
 * (NumPy sees Fortran order) and every other row (a copy to C order), and runs `PYTHON SCRIPT check DIR`, which
 * loads those with np.load and compares. This program is the test, so the sanitizers and valgrind see the
 * library's side (as numpy_ops.c explains). Skips (77) without PYTHON or NumPy; assumes a little-endian host
 * for the raw files. */
#define _POSIX_C_SOURCE 200809L
#include "../check.h"

#include "peer_files.h"

#include <sys/stat.h>

static const char *dir;

static FILE *out_index;

static void save_as(const char *name, const char *source, const char *how, th_tensor *t)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/out/%s.npy", dir, name);
    int rc = th_tensor_save_npy(path, t);
    CHECK_INT_EQ(rc, TH_OK);
    if (rc) fprintf(stderr, "%s: %s\n", name, th_last_error());
    else fprintf(out_index, "%s %s %s\n", name, source, how);
}

static int cases;

static void one_case(char *line)
{
    char name[128], dtype[16];
    int mapped, ndim, used;
    if (sscanf(line, "%127s %15s %d %d%n", name, dtype, &mapped, &ndim, &used) != 4) {
        CHECK(!"a case line");
        return;
    }
    int64_t sizes[TH_MAX_DIMS];
    char *p = line + used;
    for (int d = 0; d < ndim; d++) sizes[d] = strtoll(p, &p, 10);
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.npy", dir, name);
    th_tensor *t = th_tensor_load_npy(path);
    CHECK(t != NULL);
    if (!t) {
        fprintf(stderr, "%s: %s\n", name, th_last_error());
        return;
    }
    cases++;
    bool same = strcmp(th_dtype_name(th_tensor_dtype(t)), dtype) == 0 && th_tensor_ndim(t) == ndim;
    for (int d = 0; same && d < ndim; d++) same = th_tensor_sizes(t)[d] == sizes[d];
    CHECK(same);
    if (th_storage_is_mapped(th_tensor_storage(t)) != (mapped != 0)) {
        fprintf(stderr, "%s: zero-copy %d, expected %d\n", name, th_storage_is_mapped(th_tensor_storage(t)), mapped);
        CHECK(!"the zero-copy flag");
    }
    snprintf(path, sizeof path, "%s/%s.bin", dir, name);
    long n = 0;
    void *raw = peer_read_all(path, &n);
    th_tensor *c = peer_contiguous(t);
    CHECK(raw && c);
    if (raw && c) {
        size_t es = th_dtype_info(th_tensor_dtype(t))->size;
        bool equal = (int64_t)n == th_tensor_numel(t) * (int64_t)es &&
                     (n == 0 || memcmp(th_tensor_data(c), raw, (size_t)n) == 0); /* no data pointer when empty */
        if (!equal) fprintf(stderr, "%s: values differ from NumPy's\n", name);
        CHECK(equal);
    }
    free(raw);
    th_tensor_release(c);

    /* Back to NumPy: as loaded (a zero-copy view of the file, or its copy), reversed dims, every other row. */
    save_as(name, name, "same", t);
    if (ndim >= 2) {
        int64_t rs[TH_MAX_DIMS], rt[TH_MAX_DIMS];
        for (int d = 0; d < ndim; d++) {
            rs[d] = th_tensor_sizes(t)[ndim - 1 - d];
            rt[d] = th_tensor_strides(t)[ndim - 1 - d];
        }
        th_tensor *tt = th_tensor_new_with_storage(th_tensor_dtype(t), th_tensor_storage(t), th_tensor_offset(t), ndim,
                                                   rs, rt);
        CHECK(tt != NULL);
        char n2[160];
        snprintf(n2, sizeof n2, "%s_T", name);
        if (tt) save_as(n2, name, "T", tt);
        th_tensor_release(tt);
    }
    if (ndim >= 1 && sizes[0] > 1) {
        int64_t ss[TH_MAX_DIMS], st[TH_MAX_DIMS];
        memcpy(ss, th_tensor_sizes(t), sizeof(int64_t) * (size_t)ndim);
        memcpy(st, th_tensor_strides(t), sizeof(int64_t) * (size_t)ndim);
        ss[0] = (ss[0] + 1) / 2;
        st[0] *= 2;
        th_tensor *ts = th_tensor_new_with_storage(th_tensor_dtype(t), th_tensor_storage(t), th_tensor_offset(t), ndim,
                                                   ss, st);
        CHECK(ts != NULL);
        char n2[160];
        snprintf(n2, sizeof n2, "%s_step", name);
        if (ts) save_as(n2, name, "step", ts);
        th_tensor_release(ts);
    }
    th_tensor_release(t);
}

int main(int argc, char **argv)
{
    dir = argc == 4 ? argv[1] : NULL;
    int rc = peer_start(argc, argv, "npy_files", "NumPy");
    if (rc >= 0) return rc; /* 77: NumPy missing */
    test_begin();
    char path[4096];
    snprintf(path, sizeof path, "%s/out", dir);
    CHECK(mkdir(path, 0777) == 0 || errno == EEXIST);
    snprintf(path, sizeof path, "%s/out/cases.txt", dir);
    out_index = fopen(path, "w");
    snprintf(path, sizeof path, "%s/cases.txt", dir);
    FILE *index = fopen(path, "r");
    CHECK(index && out_index);
    char line[1024];
    while (index && out_index && fgets(line, sizeof line, index)) one_case(line);
    if (index) fclose(index);
    if (out_index) fclose(out_index);
    printf("npy_files: loaded %d files written by NumPy\n", cases);
    CHECK(cases >= 60);
    if (test_end("npy_files") != 0) return 1;
    fflush(stdout);
    return peer_run("npy_files", argv[2], argv[3], "check", dir);
}
