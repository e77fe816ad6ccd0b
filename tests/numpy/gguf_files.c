/* tests/numpy/gguf_files.c: GGUF files written by the reference `gguf` package (llama.cpp's gguf-py) read with
 * th_gguf_*.
 *
 *   gguf_files DIR PYTHON SCRIPT
 *
 * runs `PYTHON SCRIPT write DIR` (the package's GGUFWriter writes little- and big-endian files and files of
 * alignments 1 and 64 with metadata of every value type and nested arrays, a tensor of every plain type,
 * Q4_0..Q8_0 blocks from gguf.quants.quantize and raw Q4_K blocks, with the expected bytes and
 * gguf.quants.dequantize's floats beside them), opens every file with th_gguf_open and compares the metadata
 * (keys in order, types, values, as one canonical text), the index (names in order, types, sizes outermost
 * first), each tensor's bytes and whether it came zero-copy, the raw blocks, and the dequantised floats bit for
 * bit. This program is the test, so the sanitizers and valgrind see the library's side. Skips (77) without
 * PYTHON, NumPy or the package (which the script installs with pip when it can). */
#define _POSIX_C_SOURCE 200809L
#include "../check.h"

#include "peer_files.h"

#include <stdarg.h>

static const char *dir;
static int files_checked, tensors_checked, values_checked, dequantised, copies_align1;

/* The canonical text of a value, as gguf_files.py's desc() writes it. */
static void put(char **p, size_t *left, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(*p, *left, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= *left) n = (int)*left - 1;
    *p += n;
    *left -= (size_t)n;
}

static void desc_scalar(char **p, size_t *left, th_gguf_type type, const void *v)
{
    switch (type) {
    case TH_GGUF_UINT8: put(p, left, "u8:%u", *(const uint8_t *)v); break;
    case TH_GGUF_INT8: put(p, left, "i8:%d", *(const int8_t *)v); break;
    case TH_GGUF_UINT16: put(p, left, "u16:%u", *(const uint16_t *)v); break;
    case TH_GGUF_INT16: put(p, left, "i16:%d", *(const int16_t *)v); break;
    case TH_GGUF_UINT32: put(p, left, "u32:%u", *(const uint32_t *)v); break;
    case TH_GGUF_INT32: put(p, left, "i32:%d", *(const int32_t *)v); break;
    case TH_GGUF_UINT64: put(p, left, "u64:%llu", (unsigned long long)*(const uint64_t *)v); break;
    case TH_GGUF_INT64: put(p, left, "i64:%lld", (long long)*(const int64_t *)v); break;
    case TH_GGUF_FLOAT32: {
        uint32_t u;
        memcpy(&u, v, 4);
        put(p, left, "f32:%08x", u);
        break;
    }
    case TH_GGUF_FLOAT64: {
        uint64_t u;
        memcpy(&u, v, 8);
        put(p, left, "f64:%016llx", (unsigned long long)u);
        break;
    }
    case TH_GGUF_BOOL: put(p, left, "bool:%d", *(const bool *)v ? 1 : 0); break;
    case TH_GGUF_STRING: {
        const th_gguf_string *s = (const th_gguf_string *)v;
        put(p, left, "str:");
        for (uint64_t k = 0; k < s->len; k++) put(p, left, "%02x", (unsigned char)s->data[k]);
        break;
    }
    default: put(p, left, "?");
    }
}

static void desc(char **p, size_t *left, const th_gguf_value *v)
{
    if (v->type != TH_GGUF_ARRAY) {
        desc_scalar(p, left, v->type, v->type == TH_GGUF_STRING ? (const void *)&v->as.str : (const void *)&v->as);
        return;
    }
    th_gguf_type it = v->as.array.type;
    put(p, left, "arr:%s:%llu{", th_gguf_type_string(it), (unsigned long long)v->as.array.count);
    static const size_t sizes[13] = {1, 1, 2, 2, 4, 4, 4, sizeof(bool), sizeof(th_gguf_string), sizeof(th_gguf_value),
                                     8, 8, 8};
    const unsigned char *items = (const unsigned char *)v->as.array.items;
    for (uint64_t k = 0; k < v->as.array.count; k++) {
        if (k) put(p, left, ",");
        if (it == TH_GGUF_ARRAY) desc(p, left, (const th_gguf_value *)(const void *)(items + k * sizes[it]));
        else desc_scalar(p, left, it, items + k * sizes[it]);
    }
    put(p, left, "}");
}

/* The bytes of t in C order equal the file's n bytes at path. */
static bool same_bytes(const th_tensor *t, const char *path)
{
    long n = 0;
    void *want = peer_read_all(path, &n);
    th_tensor *c = peer_contiguous(t);
    size_t es = th_dtype_info(th_tensor_dtype(t))->size;
    bool ok = want && c && (int64_t)n == th_tensor_numel(t) * (int64_t)es &&
              (n == 0 || memcmp(th_tensor_data(c), want, (size_t)n) == 0);
    free(want);
    th_tensor_release(c);
    return ok;
}

enum { MAX_LINES = 128 };

static void one_file(const char *file, char lines[][1024], int nlines)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.gguf", dir, file);
    th_gguf *f = th_gguf_open(path);
    CHECK(f != NULL);
    if (!f) {
        fprintf(stderr, "%s: %s\n", file, th_last_error());
        return;
    }
    files_checked++;
    bool big = strcmp(file, "be") == 0, align1 = strcmp(file, "align1") == 0;
    CHECK(th_gguf_big_endian(f) == big && th_gguf_version(f) == 3);
    int nm = 0, nt = 0;
    for (int l = 0; l < nlines; l++) {
        char kind, fname[64], key[256];
        int used;
        if (lines[l][0] == 'M') {
            CHECK(sscanf(lines[l], "%c %63s %255s %n", &kind, fname, key, &used) == 3);
            const char *want = lines[l] + used;
            CHECK(th_gguf_key(f, nm) && strcmp(th_gguf_key(f, nm), key) == 0);
            const th_gguf_value *v = th_gguf_value_at(f, th_gguf_find_key(f, key));
            char text[4096], *p = text;
            size_t left = sizeof text;
            text[0] = '\0';
            if (v) desc(&p, &left, v);
            bool same = v && strcmp(text, want) == 0;
            if (!same) fprintf(stderr, "%s: key '%s': %s, the package wrote %s\n", file, key, text, want);
            CHECK(same);
            if (strcmp(key, "general.alignment") == 0) CHECK_INT_EQ(th_gguf_alignment(f), v ? v->as.u32 : 0);
            values_checked++;
            nm++;
            continue;
        }
        int idx, ndim;
        char name[128], tname[16];
        CHECK(sscanf(lines[l], "%c %63s %d %127s %15s %d%n", &kind, fname, &idx, name, tname, &ndim, &used) == 6);
        int64_t sizes[TH_MAX_DIMS];
        char *q = lines[l] + used;
        for (int d = 0; d < ndim && d < TH_MAX_DIMS; d++) sizes[d] = strtoll(q, &q, 10);
        /* The index, in the file's order, before any data is read. */
        int i = th_gguf_find(f, name);
        CHECK_INT_EQ(i, idx);
        if (i < 0) continue;
        bool same = strcmp(th_gguf_type_name(f, i), tname) == 0 && th_gguf_ndim(f, i) == ndim;
        for (int d = 0; same && d < ndim; d++) same = th_gguf_sizes(f, i)[d] == sizes[d];
        if (!same) fprintf(stderr, "%s: %s: the index differs\n", file, name);
        CHECK(same);
        nt++;
        tensors_checked++;
        snprintf(path, sizeof path, "%s/%s.%d.bin", dir, file, idx);
        th_dtype dt = th_gguf_dtype(f, i);
        if (dt != TH_DTYPE_INVALID) {
            th_tensor *t = th_gguf_get(f, name);
            CHECK(t != NULL);
            if (!t) {
                fprintf(stderr, "%s: %s: %s\n", file, name, th_last_error());
                continue;
            }
            bool mapped = th_storage_is_mapped(th_tensor_storage(t));
            size_t es = th_dtype_info(dt)->size;
            if (align1) copies_align1 += !mapped;
            else CHECK(mapped == (!big || es == 1));
            if (!same_bytes(t, path)) {
                fprintf(stderr, "%s: %s: values differ from the package's\n", file, name);
                CHECK(!"the values");
            }
            th_tensor_release(t);
        } else {
            CHECK_NULL(th_gguf_get(f, name), TH_ERR_DTYPE, "th_gguf_get", tname);
            th_tensor *raw = th_gguf_get_raw(f, name);
            CHECK(raw && th_storage_is_mapped(th_tensor_storage(raw)) && th_tensor_ndim(raw) == ndim);
            if (raw && !same_bytes(raw, path)) {
                fprintf(stderr, "%s: %s: raw blocks differ from the package's\n", file, name);
                CHECK(!"the raw blocks");
            }
            th_tensor_release(raw);
        }
        snprintf(path, sizeof path, "%s/%s.%d.f32", dir, file, idx);
        FILE *probe = fopen(path, "rb");
        if (probe) {
            fclose(probe);
            th_tensor *y = th_gguf_dequantize(f, name);
            CHECK(y && th_tensor_dtype(y) == TH_F32 && th_tensor_ndim(y) == ndim);
            if (y && !same_bytes(y, path)) {
                fprintf(stderr, "%s: %s: dequantised floats differ from gguf.quants.dequantize's\n", file, name);
                CHECK(!"the dequantised floats");
            }
            dequantised += y != NULL;
            th_tensor_release(y);
        } else if (dt == TH_DTYPE_INVALID) {
            CHECK_NULL(th_gguf_dequantize(f, name), TH_ERR_DTYPE, "th_gguf_dequantize", "which has no dequantiser");
        }
    }
    CHECK_INT_EQ(th_gguf_kv_count(f), nm);
    CHECK_INT_EQ(th_gguf_count(f), nt);
    th_gguf_close(f);
}

int main(int argc, char **argv)
{
    dir = argc == 4 ? argv[1] : NULL;
    int rc = peer_start(argc, argv, "gguf_files", "the gguf package");
    if (rc >= 0) return rc; /* 77: NumPy or the package missing */
    test_begin();
    char path[4096];
    snprintf(path, sizeof path, "%s/cases.txt", dir);
    FILE *idx = fopen(path, "r");
    CHECK(idx != NULL);
    static char lines[MAX_LINES][1024];
    char file[64] = "", line[1024];
    int n = 0;
    while (idx && fgets(line, sizeof line, idx)) {
        line[strcspn(line, "\n")] = '\0';
        char f2[64];
        if (sscanf(line, "%*c %63s", f2) != 1) continue;
        if (n && strcmp(f2, file) != 0) {
            one_file(file, lines, n);
            n = 0;
        }
        snprintf(file, sizeof file, "%s", f2);
        if (n < MAX_LINES) snprintf(lines[n++], sizeof lines[0], "%s", line);
    }
    if (n) one_file(file, lines, n);
    if (idx) fclose(idx);
    CHECK_INT_EQ(files_checked, 4);
    CHECK(copies_align1 > 0); /* alignment 1 put some tensors at offsets their dtype cannot view */
    printf("gguf_files: %d files, %d tensors (%d dequantised bit for bit), %d metadata values, %d copies at "
           "alignment 1\n", files_checked, tensors_checked, dequantised, values_checked, copies_align1);
    return test_end("gguf_files");
}
