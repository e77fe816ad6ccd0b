/* tests/numpy/npz_files.c: .npz archives against NumPy, both ways.
 *
 *   npz_files DIR PYTHON SCRIPT
 *
 * runs `PYTHON SCRIPT write DIR` (np.savez and np.savez_compressed write archives of every dtype, order and byte
 * order, 0-d, empty and 16-d arrays, and np.savez one of 65536 members, with ZIP64 end records, with the raw
 * values beside each member), opens them with th_npz_open and compares the listing (names, dtypes, shapes,
 * compression) and every member's values and whether it loaded zero-copy; then writes each archive back with
 * th_npz_save (stored, deflated where the build has zlib, and stored with ZIP64 forced; each member of two dims
 * or more also transposed, which NumPy sees in Fortran order) and runs `PYTHON SCRIPT check DIR`, which reads
 * them with zipfile (testzip) and np.load and compares. This program is the test, so the sanitizers and
 * valgrind see the library's side. Skips (77) without PYTHON or NumPy; assumes a little-endian host for the raw
 * files. */
#define _POSIX_C_SOURCE 200809L
#include "../check.h"

#include "peer_files.h"

#include <sys/stat.h>

#ifdef TH_USE_ZLIB
static const bool zlib = true;
#else
static const bool zlib = false;
#endif

static const char *dir;
static int cases;

typedef struct archive {
    char name[32];
    th_npz *z;
} archive;

static archive archives[2];

static th_npz *archive_of(const char *name)
{
    for (int i = 0; i < 2; i++) {
        if (archives[i].z && strcmp(archives[i].name, name) == 0) return archives[i].z;
        if (!archives[i].z) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s.npz", dir, name);
            archives[i].z = th_npz_open(path);
            if (!archives[i].z) fprintf(stderr, "%s: %s\n", name, th_last_error());
            CHECK(archives[i].z != NULL);
            snprintf(archives[i].name, sizeof archives[i].name, "%s", name);
            return archives[i].z;
        }
    }
    return NULL;
}

static void one_case(char *line)
{
    char arch[32], name[128], dtype[16];
    int compressed, mapped, ndim, used;
    if (sscanf(line, "%31s %127s %15s %d %d %d%n", arch, name, dtype, &compressed, &mapped, &ndim, &used) != 6) {
        CHECK(!"a case line");
        return;
    }
    int64_t sizes[TH_MAX_DIMS];
    char *p = line + used;
    for (int d = 0; d < ndim; d++) sizes[d] = strtoll(p, &p, 10);
    th_npz *z = archive_of(arch);
    if (!z) return;
    int i = th_npz_find(z, name);
    CHECK(i >= 0);
    if (i < 0) return;
    bool listed = strcmp(th_dtype_name(th_npz_dtype(z, i)), dtype) == 0 && th_npz_ndim(z, i) == ndim &&
                  th_npz_is_compressed(z, i) == (compressed != 0);
    for (int d = 0; listed && d < ndim; d++) listed = th_npz_sizes(z, i)[d] == sizes[d];
    if (!listed) fprintf(stderr, "%s %s: listed otherwise\n", arch, name);
    CHECK(listed);
    th_tensor *t = th_npz_get(z, name);
    CHECK(t != NULL);
    if (!t) {
        fprintf(stderr, "%s %s: %s\n", arch, name, th_last_error());
        return;
    }
    cases++;
    if (th_storage_is_mapped(th_tensor_storage(t)) != (mapped != 0)) {
        fprintf(stderr, "%s %s: zero-copy %d, expected %d\n", arch, name, th_storage_is_mapped(th_tensor_storage(t)),
                mapped);
        CHECK(!"the zero-copy flag");
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%s.bin", dir, arch, name);
    long n = 0;
    void *raw = peer_read_all(path, &n);
    th_tensor *c = peer_contiguous(t);
    CHECK(raw && c);
    if (raw && c) {
        size_t es = th_dtype_info(th_tensor_dtype(t))->size;
        bool equal = (int64_t)n == th_tensor_numel(t) * (int64_t)es &&
                     (n == 0 || memcmp(th_tensor_data(c), raw, (size_t)n) == 0);
        if (!equal) fprintf(stderr, "%s %s: values differ from NumPy's\n", arch, name);
        CHECK(equal);
    }
    free(raw);
    th_tensor_release(c);
    th_tensor_release(t);
}

/* Every member of the archive source loaded and written back as out/<out>.npz with opts, each member of two dims
 * or more also transposed as <name>_T; listed in index as "<out> <source> <how>". */
static void write_back(FILE *index, const char *source, const char *out, const char *how,
                       const th_npz_save_options *opts, bool transposed)
{
    th_npz *z = archive_of(source);
    if (!z) return;
    int n = th_npz_count(z), m = 0;
    th_tensor **ts = (th_tensor **)calloc((size_t)n * 2, sizeof *ts);
    char **names = (char **)calloc((size_t)n * 2, sizeof *names);
    for (int i = 0; i < n; i++) {
        const char *name = th_npz_name(z, i);
        th_tensor *t = th_npz_get(z, name);
        CHECK(t != NULL);
        if (!t) continue;
        names[m] = (char *)malloc(strlen(name) + 3);
        strcpy(names[m], name);
        ts[m++] = t;
        int nd = th_tensor_ndim(t);
        if (transposed && nd >= 2) {
            int64_t rs[TH_MAX_DIMS], rt[TH_MAX_DIMS];
            for (int d = 0; d < nd; d++) {
                rs[d] = th_tensor_sizes(t)[nd - 1 - d];
                rt[d] = th_tensor_strides(t)[nd - 1 - d];
            }
            ts[m] = th_tensor_new_with_storage(th_tensor_dtype(t), th_tensor_storage(t), th_tensor_offset(t), nd, rs,
                                               rt);
            CHECK(ts[m] != NULL);
            names[m] = (char *)malloc(strlen(name) + 3);
            sprintf(names[m], "%s_T", name);
            m++;
        }
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/out/%s.npz", dir, out);
    int rc = th_npz_save(path, m, (const char *const *)names, (const th_tensor *const *)ts, opts);
    CHECK_INT_EQ(rc, TH_OK);
    if (rc) fprintf(stderr, "%s: %s\n", out, th_last_error());
    else fprintf(index, "%s %s %s\n", out, source, how);
    for (int i = 0; i < m; i++) {
        th_tensor_release(ts[i]);
        free(names[i]);
    }
    free(ts);
    free(names);
}

int main(int argc, char **argv)
{
    dir = argc == 4 ? argv[1] : NULL;
    int rc = peer_start(argc, argv, "npz_files", "NumPy");
    if (rc >= 0) return rc; /* 77: NumPy missing */
    test_begin();
    char path[4096];
    snprintf(path, sizeof path, "%s/out", dir);
    CHECK(mkdir(path, 0777) == 0 || errno == EEXIST);
    snprintf(path, sizeof path, "%s/cases.txt", dir);
    FILE *index = fopen(path, "r");
    CHECK(index != NULL);
    char line[1024];
    while (index && fgets(line, sizeof line, index)) one_case(line);
    if (index) fclose(index);
    printf("npz_files: loaded %d members of archives written by np.savez and np.savez_compressed\n", cases);
    CHECK(cases >= 2 * 60);

    snprintf(path, sizeof path, "%s/out/cases.txt", dir);
    FILE *out_index = fopen(path, "w");
    CHECK(out_index != NULL);
    if (out_index) {
        write_back(out_index, "savez", "savez_stored", "stored", NULL, true);
        write_back(out_index, "savez", "savez_zip64", "zip64", &(th_npz_save_options){.force_zip64 = true}, true);
        if (zlib) {
            write_back(out_index, "compressed", "compressed_deflated", "deflated",
                       &(th_npz_save_options){.compress = true}, true);
            write_back(out_index, "savez", "savez_deflated9", "deflated",
                       &(th_npz_save_options){.compress = true, .level = 9, .force_zip64 = true}, true);
        }
    }
    for (int i = 0; i < 2; i++) {
        th_npz_close(archives[i].z);
        archives[i].z = NULL;
    }
    /* Python's ZIP64 end records (65536 members), read; ours written back (the count needs them too). */
    th_npz *many = out_index ? archive_of("many") : NULL;
    const char *many_env = getenv("TH_NPZ_MANY"); /* fewer under valgrind (npz_files.py says why) */
    const long nmany = many_env && *many_env ? atol(many_env) : 65536;
    CHECK_INT_EQ(th_npz_count(many), nmany);
    char last_name[32];
    snprintf(last_name, sizeof last_name, "m%05ld", nmany - 1);
    th_tensor *last = th_npz_get(many, last_name);
    CHECK(last && th_tensor_dtype(last) == TH_I64 && th_tensor_ndim(last) == 0 &&
          *(const int64_t *)th_tensor_data(last) == (int64_t)(nmany - 1) * 7 - 3);
    th_tensor_release(last);
    if (out_index) write_back(out_index, "many", "many_stored", "stored", NULL, false);
    th_npz_close(archives[0].z);
    if (out_index) fclose(out_index);
    if (test_end("npz_files") != 0) return 1;
    fflush(stdout);
    return peer_run("npz_files", argv[2], argv[3], "check", dir);
}
