/* tests/numpy/safetensors_files.c: safetensors files against the reference `safetensors` package, both ways.
 *
 *   safetensors_files DIR PYTHON SCRIPT
 *
 * runs `PYTHON SCRIPT write DIR` (the package writes files of every dtype through its numpy front end, bf16
 * through its torch one, 0-d, empty and 16-d tensors and metadata, with the raw bytes beside each tensor),
 * opens every file with th_safetensors_open and compares the index (names, dtypes, shapes), the metadata, each
 * tensor's bytes and that it came zero-copy; then writes each file back with th_safetensors_save, as loaded and
 * with every 2-d tensor transposed (a non-contiguous view), and runs `PYTHON SCRIPT check DIR`, which loads
 * those with the package and compares values, metadata and the bytes of its own save. This program is the
 * test, so the sanitizers and valgrind see the library's side. Skips (77) without PYTHON, NumPy or the package
 * (which the script installs with pip when it can); assumes a little-endian host for the raw files. */
#define _POSIX_C_SOURCE 200809L
#include "../check.h"

#include "peer_files.h"

#include <sys/stat.h>

static const char *dir;

/* "-" is the empty string; else hex pairs, decoded in place. */
static char *unhex(char *s)
{
    if (strcmp(s, "-") == 0) return (char *)"";
    size_t n = strlen(s) / 2;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        sscanf(s + 2 * i, "%2x", &v);
        s[i] = (char)v;
    }
    s[n] = '\0';
    return s;
}

enum { MAX_TENSORS = 64 };
static int cases, tensors_checked;

/* One file of the package: checked against the lines of cases.txt about it, then written back twice. */
static void one_file(const char *file, char lines[][512], int nlines)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.safetensors", dir, file);
    th_safetensors *f = th_safetensors_open(path);
    CHECK(f != NULL);
    if (!f) {
        fprintf(stderr, "%s: %s\n", file, th_last_error());
        return;
    }
    cases++;
    int nt = 0, nm = 0;
    th_tensor *loaded[MAX_TENSORS], *transposed[MAX_TENSORS];
    const char *names[MAX_TENSORS];
    for (int l = 0; l < nlines; l++) {
        char kind, fname[128], a[256], b[256];
        int idx, ndim, used;
        char dtype[16];
        if (lines[l][0] == 'M') {
            CHECK(sscanf(lines[l], "%c %127s %255s %255s", &kind, fname, a, b) == 4);
            const char *key = unhex(a), *value = unhex(b);
            const char *got = th_safetensors_metadata_get(f, key);
            CHECK(got && strcmp(got, value) == 0);
            if (!got || strcmp(got, value) != 0) fprintf(stderr, "%s: metadata '%s' differs\n", file, key);
            nm++;
            continue;
        }
        if (sscanf(lines[l], "%c %127s %d %255s %15s %d%n", &kind, fname, &idx, a, dtype, &ndim, &used) != 6 ||
            nt == MAX_TENSORS) {
            CHECK(!"a case line");
            continue;
        }
        int64_t sizes[TH_MAX_DIMS];
        char *p = lines[l] + used;
        for (int d = 0; d < ndim; d++) sizes[d] = strtoll(p, &p, 10);
        int i = th_safetensors_find(f, a);
        CHECK(i >= 0);
        if (i < 0) continue;
        /* The index, before any data is read. */
        bool same = strcmp(th_dtype_name(th_safetensors_dtype(f, i)), dtype) == 0 && th_safetensors_ndim(f, i) == ndim;
        for (int d = 0; same && d < ndim; d++) same = th_safetensors_sizes(f, i)[d] == sizes[d];
        CHECK(same);
        th_tensor *t = th_safetensors_get(f, a);
        CHECK(t != NULL);
        if (!t) {
            fprintf(stderr, "%s: %s: %s\n", file, a, th_last_error());
            continue;
        }
        tensors_checked++;
        bool want_mapped = th_tensor_numel(t) > 0; /* the package aligns every tensor */
        if (th_storage_is_mapped(th_tensor_storage(t)) != want_mapped) {
            fprintf(stderr, "%s: %s: zero-copy %d, expected %d\n", file, a, th_storage_is_mapped(th_tensor_storage(t)),
                    want_mapped);
            CHECK(!"the zero-copy flag");
        }
        snprintf(path, sizeof path, "%s/%s.%d.bin", dir, file, idx);
        long n = 0;
        void *raw = peer_read_all(path, &n);
        th_tensor *c = peer_contiguous(t);
        CHECK(raw && c);
        if (raw && c) {
            size_t es = th_dtype_info(th_tensor_dtype(t))->size;
            bool equal = (int64_t)n == th_tensor_numel(t) * (int64_t)es &&
                         (n == 0 || memcmp(th_tensor_data(c), raw, (size_t)n) == 0);
            if (!equal) fprintf(stderr, "%s: %s: values differ from the package's\n", file, a);
            CHECK(equal);
        }
        free(raw);
        th_tensor_release(c);
        names[nt] = th_safetensors_name(f, i);
        loaded[nt] = t;
        if (ndim == 2) {
            int64_t rs[2] = {th_tensor_sizes(t)[1], th_tensor_sizes(t)[0]};
            int64_t rt[2] = {th_tensor_strides(t)[1], th_tensor_strides(t)[0]};
            transposed[nt] = th_tensor_new_with_storage(th_tensor_dtype(t), th_tensor_storage(t), th_tensor_offset(t),
                                                        2, rs, rt);
        } else {
            transposed[nt] = th_tensor_retain(t);
        }
        nt++;
    }
    CHECK_INT_EQ(th_safetensors_count(f), nt);
    CHECK_INT_EQ(th_safetensors_metadata_count(f), nm);
    const char *keys[MAX_TENSORS], *values[MAX_TENSORS];
    int km = th_safetensors_metadata_count(f) < MAX_TENSORS ? th_safetensors_metadata_count(f) : 0;
    for (int i = 0; i < km; i++) {
        keys[i] = th_safetensors_metadata_key(f, i);
        values[i] = th_safetensors_metadata_value(f, i);
    }
    /* Back to the package: as loaded (views of the file), and transposed. A file without metadata is written
     * without the key (keys NULL), as the package does for metadata=None. */
    for (int v = 0; v < 2; v++) {
        snprintf(path, sizeof path, "%s/out/%s%s.safetensors", dir, file, v ? "_T" : "");
        int rc = th_safetensors_save(path, nt, names, (const th_tensor *const *)(v ? transposed : loaded), km,
                                     km ? keys : NULL, km ? values : NULL);
        CHECK_INT_EQ(rc, TH_OK);
        if (rc) fprintf(stderr, "%s: %s\n", path, th_last_error());
    }
    for (int i = 0; i < nt; i++) {
        th_tensor_release(loaded[i]);
        th_tensor_release(transposed[i]);
    }
    th_safetensors_close(f);
}

int main(int argc, char **argv)
{
    dir = argc == 4 ? argv[1] : NULL;
    int rc = peer_start(argc, argv, "safetensors_files", "the safetensors package");
    if (rc >= 0) return rc; /* 77: NumPy or the package missing */
    test_begin();
    char path[4096];
    snprintf(path, sizeof path, "%s/out", dir);
    CHECK(mkdir(path, 0777) == 0 || errno == EEXIST);
    snprintf(path, sizeof path, "%s/cases.txt", dir);
    FILE *index = fopen(path, "r");
    CHECK(index != NULL);
    /* The lines of one file follow each other; each group is checked when the next file's begins. */
    static char lines[2 * MAX_TENSORS][512];
    int nlines = 0;
    char current[128] = "", line[512];
    for (bool more = index != NULL; more;) {
        more = fgets(line, sizeof line, index) != NULL;
        char file[128] = "";
        if (more) sscanf(line + 2, "%127s", file);
        if (nlines && (!more || strcmp(file, current) != 0)) {
            one_file(current, lines, nlines);
            nlines = 0;
        }
        if (more && nlines < 2 * MAX_TENSORS) {
            snprintf(current, sizeof current, "%s", file);
            memcpy(lines[nlines++], line, sizeof line);
        }
    }
    if (index) fclose(index);
    printf("safetensors_files: opened %d files written by the safetensors package, %d tensors\n", cases,
           tensors_checked);
    CHECK(cases >= 3 && tensors_checked >= 30);
    if (test_end("safetensors_files") != 0) return 1;
    fflush(stdout);
    return peer_run("safetensors_files", argv[2], argv[3], "check", dir);
}
