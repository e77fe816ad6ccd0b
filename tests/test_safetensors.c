/* safetensors files (core/safetensors.h): round trips of every dtype, 0-d, empty, 16-d and non-contiguous
 * tensors, metadata, the lazy index, zero-copy loads and when they copy, the writer's exact layout, a corpus
 * of hand-made malformed files each with its expected error, and the save errors.
 *
 * The safetensors package's own files, and it reading ours: tests/numpy/safetensors_files.c. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static const char *path_of(const char *name)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

static void write_bytes(const char *name, const void *data, size_t n)
{
    FILE *f = fopen(path_of(name), "wb");
    CHECK(f && fwrite(data, 1, n, f) == n);
    if (f) fclose(f);
}

/* A safetensors file: the 8-byte little-endian length of header, header, then n bytes of data. */
static void write_st(const char *name, const char *header, const void *data, size_t n)
{
    size_t h = strlen(header);
    unsigned char *buf = (unsigned char *)malloc(8 + h + n + 1);
    for (int k = 0; k < 8; k++) buf[k] = (unsigned char)((uint64_t)h >> (8 * k));
    memcpy(buf + 8, header, h);
    if (n) memcpy(buf + 8 + h, data, n);
    write_bytes(name, buf, 8 + h + n);
    free(buf);
}

static unsigned char *read_file(const char *name, long *n)
{
    FILE *f = fopen(path_of(name), "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = (unsigned char *)malloc((size_t)*n + 1);
    if (fread(buf, 1, (size_t)*n, f) != (size_t)*n) *n = -1;
    fclose(f);
    return buf;
}

static int files_in_dir(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.';
    if (d) closedir(d);
    return n;
}

/* A contiguous tensor of dtype and shape whose bytes are a pattern of seed (0 or 1 for bool), so that every
 * element differs from its neighbours and between tensors. */
static th_tensor *patterned(th_dtype dtype, int ndim, const int64_t *sizes, unsigned seed)
{
    size_t es = th_dtype_info(dtype)->size;
    int64_t numel = 1;
    for (int d = 0; d < ndim; d++) numel *= sizes[d];
    th_storage *s = th_storage_new(numel * (int64_t)es, NULL, NULL);
    unsigned char *p = (unsigned char *)th_storage_raw_data(s);
    for (int64_t i = 0; i < numel * (int64_t)es; i++)
        p[i] = dtype == TH_BOOL ? (unsigned char)((i * 7 + seed) % 3 == 0) : (unsigned char)(i * 31 + seed * 17 + 5);
    /* Keep the floats finite and not NaN: NaN payloads round trip, but equal bytes read clearer. */
    if (dtype == TH_F16 || dtype == TH_BF16)
        for (int64_t i = 1; i < numel * 2; i += 2) p[i] &= 0x3f;
    th_tensor *t = th_tensor_new_with_storage(dtype, s, 0, ndim, sizes, NULL);
    th_storage_release(s);
    return t;
}

/* t's elements in C order, as bytes (a copy through the library's own copy). */
static th_tensor *contiguous(const th_tensor *t)
{
    size_t es = th_dtype_info(th_tensor_dtype(t))->size;
    th_storage *s = th_storage_new(th_tensor_numel(t) * (int64_t)es, NULL, NULL);
    th_tensor *c = th_tensor_new_with_storage(th_tensor_dtype(t), s, 0, th_tensor_ndim(t), th_tensor_sizes(t), NULL);
    th_storage_release(s);
    CHECK(c && th_tensor_copy(c, t) == TH_OK);
    return c;
}

static bool same_tensor(const th_tensor *a, const th_tensor *b)
{
    if (!a || !b || th_tensor_dtype(a) != th_tensor_dtype(b) || th_tensor_ndim(a) != th_tensor_ndim(b)) return false;
    for (int d = 0; d < th_tensor_ndim(a); d++)
        if (th_tensor_sizes(a)[d] != th_tensor_sizes(b)[d]) return false;
    th_tensor *ca = contiguous(a), *cb = contiguous(b);
    size_t n = (size_t)th_tensor_numel(a) * th_dtype_info(th_tensor_dtype(a))->size;
    bool same = n == 0 || memcmp(th_tensor_data(ca), th_tensor_data(cb), n) == 0;
    th_tensor_release(ca);
    th_tensor_release(cb);
    return same;
}

/* Whether t's data lies inside the mapping of its storage, at byte at of the file. */
static bool view_of_file_at(const th_tensor *t, int64_t at)
{
    const th_storage *s = th_tensor_storage(t);
    const char *base = (const char *)th_storage_raw_data(s), *data = (const char *)th_tensor_data(t);
    return th_storage_is_mapped(s) && data >= base && data < base + th_storage_nbytes(s) && data - base == at;
}

static const th_dtype all_dtypes[] = {TH_BOOL, TH_U8, TH_I8, TH_I16, TH_I32, TH_I64,
                                      TH_F16,  TH_BF16, TH_F32, TH_F64, TH_C64};
#define N_DTYPES ((int)(sizeof all_dtypes / sizeof all_dtypes[0]))

static void test_round_trip(void)
{
    /* Every dtype at three shapes (2-d, 0-d, empty), a 16-d one and two non-contiguous views. */
    enum { N = 3 * N_DTYPES + 3 };
    th_tensor *ts[N];
    char names[N][32];
    const char *np[N];
    int n = 0;
    static const int64_t s2[2] = {3, 5}, e3[3] = {2, 0, 3};
    static const int64_t s16[16] = {1, 2, 1, 2, 1, 1, 2, 1, 1, 1, 2, 1, 1, 1, 1, 3};
    for (int k = 0; k < N_DTYPES; k++) {
        const char *dn = th_dtype_name(all_dtypes[k]);
        snprintf(names[n], sizeof names[n], "%s.w", dn);
        ts[n++] = patterned(all_dtypes[k], 2, s2, (unsigned)k);
        snprintf(names[n], sizeof names[n], "%s.scalar", dn);
        ts[n++] = patterned(all_dtypes[k], 0, NULL, (unsigned)k + 50);
        snprintf(names[n], sizeof names[n], "%s.empty", dn);
        ts[n++] = patterned(all_dtypes[k], 3, e3, 0);
    }
    snprintf(names[n], sizeof names[n], "sixteen");
    ts[n++] = patterned(TH_F64, 16, s16, 3);
    /* A transposed matrix and every other row of it: written in logical (C) order. */
    int64_t t_sizes[2] = {5, 3}, t_strides[2] = {1, 5};
    snprintf(names[n], sizeof names[n], "transposed");
    ts[n++] = th_tensor_new_with_storage(TH_I16, th_tensor_storage(ts[3 * 3]), 0, 2, t_sizes, t_strides);
    int64_t r_sizes[2] = {3, 3}, r_strides[2] = {2, 5};
    snprintf(names[n], sizeof names[n], "stepped");
    ts[n++] = th_tensor_new_with_storage(TH_I16, th_tensor_storage(ts[3 * 3]), 0, 2, r_sizes, r_strides);
    CHECK_INT_EQ(th_tensor_dtype(ts[3 * 3]), TH_I16);
    CHECK_INT_EQ(n, N);
    for (int i = 0; i < n; i++) np[i] = names[i];

    const char *keys[] = {"format", "a \"quoted\"\\ key", "\xc3\xa9t\xc3\xa9\n\x01"};
    const char *values[] = {"pt", "tab\there", ""};
    int rc = th_safetensors_save(path_of("all.safetensors"), n, np, (const th_tensor *const *)ts, 3, keys, values);
    CHECK_INT_EQ(rc, TH_OK);
    if (rc) fprintf(stderr, "  %s\n", th_last_error());
    th_safetensors *f = th_safetensors_open(path_of("all.safetensors"));
    CHECK(f != NULL);
    if (!f) return;
    /* The index: names in byte order, each one's dtype and shape as saved. */
    CHECK_INT_EQ(th_safetensors_count(f), n);
    for (int i = 1; i < th_safetensors_count(f); i++)
        CHECK(strcmp(th_safetensors_name(f, i - 1), th_safetensors_name(f, i)) < 0);
    for (int i = 0; i < n; i++) {
        int k = th_safetensors_find(f, np[i]);
        CHECK(k >= 0 && strcmp(th_safetensors_name(f, k), np[i]) == 0);
        CHECK_INT_EQ(th_safetensors_dtype(f, k), th_tensor_dtype(ts[i]));
        CHECK_INT_EQ(th_safetensors_ndim(f, k), th_tensor_ndim(ts[i]));
        CHECK(memcmp(th_safetensors_sizes(f, k), th_tensor_sizes(ts[i]),
                     sizeof(int64_t) * (size_t)th_tensor_ndim(ts[i])) == 0);
        CHECK_INT_EQ(th_safetensors_nbytes(f, k),
                     th_tensor_numel(ts[i]) * (int64_t)th_dtype_info(th_tensor_dtype(ts[i]))->size);
    }
    CHECK_INT_EQ(th_safetensors_find(f, "nope"), -1);
    CHECK(th_safetensors_name(f, n) == NULL && th_safetensors_name(f, -1) == NULL && th_safetensors_sizes(f, n) == NULL);
    CHECK(th_safetensors_dtype(f, n) == TH_DTYPE_INVALID && th_safetensors_ndim(f, n) == -1);
    /* The metadata: every key and value back, in byte order of the keys. */
    CHECK_INT_EQ(th_safetensors_metadata_count(f), 3);
    CHECK(strcmp(th_safetensors_metadata_key(f, 0), keys[1]) == 0 &&
          strcmp(th_safetensors_metadata_value(f, 0), values[1]) == 0);
    CHECK(strcmp(th_safetensors_metadata_key(f, 1), keys[0]) == 0);
    CHECK(strcmp(th_safetensors_metadata_key(f, 2), keys[2]) == 0);
    CHECK(strcmp(th_safetensors_metadata_get(f, keys[2]), "") == 0);
    CHECK(strcmp(th_safetensors_metadata_get(f, "format"), "pt") == 0);
    CHECK(th_safetensors_metadata_get(f, "absent") == NULL && th_safetensors_metadata_key(f, 3) == NULL);

    /* The tensors: equal to what was saved; zero-copy views of the file except the empty ones. */
    long flen = 0;
    unsigned char *bytes = read_file("all.safetensors", &flen);
    int64_t hlen = 0;
    for (int k = 7; k >= 0; k--) hlen = hlen << 8 | bytes[k];
    CHECK_INT_EQ(hlen % 8, 0);
    int64_t at = 8 + hlen;
    th_tensor *loaded[N];
    for (int i = 0; i < n; i++) {
        loaded[i] = th_safetensors_get(f, np[i]);
        CHECK(same_tensor(loaded[i], ts[i]));
        if (!same_tensor(loaded[i], ts[i])) fprintf(stderr, "  %s differs\n", np[i]);
        CHECK(th_storage_is_mapped(th_tensor_storage(loaded[i])) == (th_tensor_numel(ts[i]) > 0));
    }
    /* The writer's order: dtypes as safetensors orders them, then names; without gaps. Each tensor's data
     * pointer is where that order puts it in the file: a view, not a copy. */
    static const th_dtype order[] = {TH_I64, TH_F64, TH_C64, TH_F32, TH_I32, TH_BF16, TH_F16, TH_I16, TH_I8, TH_U8,
                                     TH_BOOL};
    for (size_t o = 0; o < sizeof order / sizeof order[0]; o++)
        for (int i = 0; i < th_safetensors_count(f); i++) {
            if (th_safetensors_dtype(f, i) != order[o]) continue;
            const char *name = th_safetensors_name(f, i);
            int j = 0;
            while (strcmp(np[j], name) != 0) j++;
            if (th_tensor_numel(ts[j]) > 0) CHECK(view_of_file_at(loaded[j], at));
            at += th_safetensors_nbytes(f, i);
        }
    CHECK_INT_EQ(at, flen);
    free(bytes);
    /* The tensors outlive the file's handle: they hold the mapping. */
    th_safetensors_close(f);
    for (int i = 0; i < n; i++) {
        CHECK(same_tensor(loaded[i], ts[i]));
        th_tensor_release(loaded[i]);
    }
    /* A view is copy-on-write: writing it changes neither the file nor another load. */
    f = th_safetensors_open(path_of("all.safetensors"));
    th_tensor *a = th_safetensors_get(f, "f32.w"), *b = th_safetensors_get(f, "f32.w");
    th_f32_tensor *fa = th_f32_from_base(a);
    float before = th_f32_get(fa, (int64_t[]){1, 1});
    CHECK_INT_EQ(th_f32_set(fa, (int64_t[]){1, 1}, before + 1), TH_OK);
    CHECK(th_f32_get(th_f32_from_base(b), (int64_t[]){1, 1}) == before + 1); /* one mapping per open */
    th_safetensors_close(f);
    f = th_safetensors_open(path_of("all.safetensors"));
    th_tensor *c = th_safetensors_get(f, "f32.w");
    CHECK(th_f32_get(th_f32_from_base(c), (int64_t[]){1, 1}) == before);
    th_tensor_release(c);
    th_tensor_release(b);
    th_tensor_release(a);
    th_safetensors_close(f);
    for (int i = n - 1; i >= 0; i--) th_tensor_release(ts[i]);

    /* Saving over a file another tensor maps: renamed into place, the old mapping keeps its bytes. */
    f = th_safetensors_open(path_of("all.safetensors"));
    a = th_safetensors_get(f, "i32.w");
    th_safetensors_close(f);
    int32_t first = ((const int32_t *)th_tensor_data(a))[0];
    int files = files_in_dir();
    int64_t one = 1;
    th_tensor *small = patterned(TH_I32, 1, &one, 99);
    const char *sn = "only";
    CHECK_INT_EQ(th_safetensors_save(path_of("all.safetensors"), 1, &sn, (const th_tensor *const *)&small, 0, NULL,
                                     NULL), TH_OK);
    CHECK_INT_EQ(files_in_dir(), files);
    CHECK(((const int32_t *)th_tensor_data(a))[0] == first);
    f = th_safetensors_open(path_of("all.safetensors"));
    CHECK(f && th_safetensors_count(f) == 1 && th_safetensors_metadata_count(f) == 0);
    th_safetensors_close(f);
    th_tensor_release(small);
    th_tensor_release(a);
}

/* The exact bytes of the reference writer (safetensors.numpy.save_file, version 0.8 checked byte for byte in
 * tests/numpy/safetensors_files.py): here for a small file, so a change of layout fails without Python. */
static void test_layout(void)
{
    int64_t three = 3, two = 2;
    th_tensor *u = patterned(TH_U8, 1, &three, 0), *f = patterned(TH_F32, 1, &two, 0);
    const th_tensor *ts[2] = {u, f};
    const char *names[2] = {"b", "a"};
    const char *key = "k", *value = "v";
    CHECK_INT_EQ(th_safetensors_save(path_of("layout.safetensors"), 2, names, ts, 1, &key, &value), TH_OK);
    static const char header[] = "{\"__metadata__\":{\"k\":\"v\"},\"a\":{\"dtype\":\"F32\",\"shape\":[2],"
                                 "\"data_offsets\":[0,8]},\"b\":{\"dtype\":\"U8\",\"shape\":[3],\"data_offsets\":[8,11]}}";
    size_t h = sizeof header - 1, padded = (h + 7) / 8 * 8;
    long n = 0;
    unsigned char *bytes = read_file("layout.safetensors", &n);
    CHECK_INT_EQ(n, (long)(8 + padded + 11));
    CHECK(bytes && bytes[0] == padded && memcmp(bytes + 1, "\0\0\0\0\0\0\0", 7) == 0);
    CHECK(bytes && memcmp(bytes + 8, header, h) == 0);
    for (size_t k = h; bytes && k < padded; k++) CHECK(bytes[8 + k] == ' ');
    CHECK(bytes && memcmp(bytes + 8 + padded, th_tensor_data(f), 8) == 0 &&
          memcmp(bytes + 8 + padded + 8, th_tensor_data(u), 3) == 0);
    free(bytes);
    /* No tensors, no metadata: "{}" padded; an empty metadata map written when keys are given. */
    CHECK_INT_EQ(th_safetensors_save(path_of("layout.safetensors"), 0, NULL, NULL, 0, NULL, NULL), TH_OK);
    bytes = read_file("layout.safetensors", &n);
    CHECK(n == 16 && bytes && memcmp(bytes, "\x08\0\0\0\0\0\0\0{}      ", 16) == 0);
    free(bytes);
    CHECK_INT_EQ(th_safetensors_save(path_of("layout.safetensors"), 0, NULL, NULL, 0, &key, &value), TH_OK);
    bytes = read_file("layout.safetensors", &n);
    CHECK(n == 8 + 24 && bytes && memcmp(bytes + 8, "{\"__metadata__\":{}}     ", 24) == 0);
    free(bytes);
    th_safetensors *sf = th_safetensors_open(path_of("layout.safetensors"));
    CHECK(sf && th_safetensors_count(sf) == 0 && th_safetensors_metadata_count(sf) == 0);
    th_safetensors_close(sf);
    /* Names and values that need escapes, as serde_json writes them (the reference's JSON writer). */
    const char *odd = "q\"b\\s/\x01\x7f\xc3\xa9\t";
    CHECK_INT_EQ(th_safetensors_save(path_of("layout.safetensors"), 1, &odd, ts, 0, NULL, NULL), TH_OK);
    bytes = read_file("layout.safetensors", &n);
    static const char esc[] = "{\"q\\\"b\\\\s/\\u0001\x7f\xc3\xa9\\t\":{\"dtype\":\"U8\"";
    CHECK(bytes && memcmp(bytes + 8, esc, sizeof esc - 1) == 0);
    free(bytes);
    sf = th_safetensors_open(path_of("layout.safetensors"));
    CHECK(sf && th_safetensors_count(sf) == 1 && strcmp(th_safetensors_name(sf, 0), odd) == 0);
    th_safetensors_close(sf);
    th_tensor_release(f);
    th_tensor_release(u);
    remove(path_of("layout.safetensors"));
}

/* The loads that copy, and say so: misaligned data, bool bytes other than 0 and 1, empty tensors; and the
 * other reference dtypes, listed but not loadable. */
static void test_copies(void)
{
    /* A u8 first puts the f32 at offset 1 of the data: misaligned, copied. */
    unsigned char data[5] = {7, 0, 0, 0x80, 0x3f}; /* 7, then 1.0f */
    write_st("mis.safetensors",
             "{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
             "\"b\":{\"dtype\":\"F32\",\"shape\":[],\"data_offsets\":[1,5]}}",
             data, sizeof data);
    th_safetensors *f = th_safetensors_open(path_of("mis.safetensors"));
    CHECK(f != NULL);
    th_tensor *b = th_safetensors_get(f, "b"), *a = th_safetensors_get(f, "a");
    CHECK(b && !th_storage_is_mapped(th_tensor_storage(b)) && th_f32_get(th_f32_from_base(b), NULL) == 1.0f);
    CHECK(a && th_storage_is_mapped(th_tensor_storage(a)) && th_u8_get(th_u8_from_base(a), (int64_t[]){0}) == 7);
    th_tensor_release(a);
    th_tensor_release(b);
    th_safetensors_close(f);
    /* A bool byte of 2: C's bool holds only 0 and 1, so the bytes are copied and made 0 or 1. */
    unsigned char bools[3] = {0, 2, 1};
    write_st("bool.safetensors", "{\"m\":{\"dtype\":\"BOOL\",\"shape\":[3],\"data_offsets\":[0,3]}}", bools, 3);
    f = th_safetensors_open(path_of("bool.safetensors"));
    th_tensor *m = th_safetensors_get(f, "m");
    CHECK(m && !th_storage_is_mapped(th_tensor_storage(m)) && memcmp(th_tensor_data(m), "\0\1\1", 3) == 0);
    th_tensor_release(m);
    th_safetensors_close(f);
    /* Reference dtypes the library lacks: in the index by their names, refused by get. Whitespace between
     * tokens and keys in any order are JSON, and taken. */
    unsigned char raw[10] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
    write_st("other.safetensors",
             " {\"__metadata__\" : {} , \"h\" : { \"shape\" : [ 2 ] , \"data_offsets\":[0,4],\"dtype\":\"U16\"},\n"
             "\"q\":{\"dtype\":\"F4\",\"shape\":[2,2],\"data_offsets\":[4,6]},"
             "\"r\":{\"dtype\":\"F8_E4M3\",\"shape\":[4],\"data_offsets\":[6,10]}}   ",
             raw, sizeof raw);
    CHECK_NULL(th_safetensors_open(path_of("other.safetensors")), TH_ERR_INVALID, "th_safetensors_open",
               "does not start with '{'"); /* as the reference */
    write_st("other.safetensors",
             "{\"__metadata__\" : {} , \"h\" : { \"shape\" : [ 2 ] , \"data_offsets\":[0,4],\"dtype\":\"U16\"},\n"
             "\"q\":{\"dtype\":\"F4\",\"shape\":[2,2],\"data_offsets\":[4,6]},"
             "\"r\":{\"dtype\":\"F8_E4M3\",\"shape\":[4],\"data_offsets\":[6,10]}}   ",
             raw, sizeof raw);
    f = th_safetensors_open(path_of("other.safetensors"));
    CHECK(f && th_safetensors_count(f) == 3 && th_safetensors_metadata_count(f) == 0);
    if (f) {
        CHECK(th_safetensors_dtype(f, 0) == TH_DTYPE_INVALID && strcmp(th_safetensors_dtype_name(f, 0), "U16") == 0);
        CHECK(strcmp(th_safetensors_dtype_name(f, 1), "F4") == 0 && th_safetensors_nbytes(f, 1) == 2);
        CHECK_NULL(th_safetensors_get(f, "h"), TH_ERR_DTYPE, "th_safetensors_get", "tensor 'h' is U16, which the library lacks");
        CHECK_NULL(th_safetensors_get(f, "r"), TH_ERR_DTYPE, "th_safetensors_get", "F8_E4M3");
        CHECK_NULL(th_safetensors_get(f, "x"), TH_ERR_INVALID, "th_safetensors_get", "has no tensor 'x'");
        CHECK_NULL(th_safetensors_get(f, NULL), TH_ERR_INVALID, "th_safetensors_get", "NULL name");
    }
    CHECK_NULL(th_safetensors_get(NULL, "h"), TH_ERR_INVALID, "th_safetensors_get", "NULL file");
    CHECK(th_safetensors_count(NULL) == -1 && th_safetensors_metadata_count(NULL) == -1 &&
          th_safetensors_find(NULL, "h") == -1 && th_safetensors_metadata_get(NULL, "k") == NULL);
    th_safetensors_close(f);
    th_safetensors_close(NULL);
    remove(path_of("mis.safetensors"));
    remove(path_of("bool.safetensors"));
    remove(path_of("other.safetensors"));
}

/* Every malformed file is refused with its own error, naming the file, the field and the value. */
static void test_malformed(void)
{
#define fn "th_safetensors_open"
#define T(name, dt, shape, offs) "\"" name "\":{\"dtype\":\"" dt "\",\"shape\":" shape ",\"data_offsets\":" offs "}"
    static const struct {
        const char *header;
        th_status status;
        const char *detail;
    } bad[] = {
        {"[1]", TH_ERR_INVALID, "does not start with '{'"},
        {"{" T("a", "F32", "[2]", "[0,8]") " " T("b", "U8", "[1]", "[8,9]") "}", TH_ERR_INVALID,
         "expected ',' or '}' at byte"},
        {"{\"a\" {}}", TH_ERR_INVALID, "expected ':' after a key"},
        {"{" T("a", "F32", "[2]", "[0,8]") "} x", TH_ERR_INVALID, "bytes after the header's object"},
        {"{" T("a", "F32", "[2]", "[0,8]"), TH_ERR_INVALID, "expected ',' or '}'"},
        {"{a:1}", TH_ERR_INVALID, "expected a tensor name as a string"},
        {"{\"a\\q\":1}", TH_ERR_INVALID, "an unknown escape in a string"},
        {"{\"\\ud800x\":1}", TH_ERR_INVALID, "a lone UTF-16 surrogate"},
        {"{\"\\udc00\":1}", TH_ERR_INVALID, "a lone UTF-16 surrogate"},
        {"{\"\\u12\":1}", TH_ERR_INVALID, "without four hex digits"},
        {"{\"a\\u0000b\":1}", TH_ERR_INVALID, "a \\u0000 in a string"},
        {"{\"a\tb\":1}", TH_ERR_INVALID, "a control character inside a string"},
        {"{\"a\xff\":1}", TH_ERR_INVALID, "bytes that are not UTF-8"},
        {"{\"a\xc0\x80\":1}", TH_ERR_INVALID, "bytes that are not UTF-8"},
        {"{\"a\xed\xa0\x80\":1}", TH_ERR_INVALID, "bytes that are not UTF-8"},
        {"{\"abc", TH_ERR_INVALID, "a string without its closing quote"},
        {"{\"a\":[1]}", TH_ERR_INVALID, "tensor 'a' is not an object"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8],\"extra\":1}}", TH_ERR_INVALID,
         "tensor 'a': unknown key 'extra'"},
        {"{\"a\":{\"dtype\":\"F32\",\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[0,8]}}", TH_ERR_INVALID,
         "tensor 'a': the key 'dtype' twice"},
        {"{\"a\":{\"dtype\":\"F32\",\"shape\":[2]}}", TH_ERR_INVALID, "tensor 'a': no 'data_offsets'"},
        {"{\"a\":{\"shape\":[2],\"data_offsets\":[0,8]}}", TH_ERR_INVALID, "tensor 'a': no 'dtype'"},
        {"{\"a\":{\"dtype\":\"F32\" \"shape\":[2]}}", TH_ERR_INVALID, "expected ',' or '}'"},
        {"{" T("a", "F128", "[2]", "[0,8]") "}", TH_ERR_DTYPE, "tensor 'a': 'dtype' is 'F128', which safetensors"},
        {"{" T("a", "f32", "[2]", "[0,8]") "}", TH_ERR_DTYPE, "'dtype' is 'f32'"},
        {"{\"a\":{\"dtype\":32,\"shape\":[2],\"data_offsets\":[0,8]}}", TH_ERR_INVALID, "expected 'dtype' as a string"},
        {"{" T("a", "F32", "2", "[0,8]") "}", TH_ERR_INVALID, "tensor 'a': 'shape' is not an array"},
        {"{" T("a", "F32", "[-2]", "[0,8]") "}", TH_ERR_INVALID, "an element of 'shape' is negative"},
        {"{" T("a", "F32", "[02]", "[0,8]") "}", TH_ERR_INVALID, "an element of 'shape' has a leading zero"},
        {"{" T("a", "F32", "[2.0]", "[0,8]") "}", TH_ERR_INVALID, "an element of 'shape' is not an integer"},
        {"{" T("a", "F32", "[2e0]", "[0,8]") "}", TH_ERR_INVALID, "an element of 'shape' is not an integer"},
        {"{" T("a", "F32", "[\"2\"]", "[0,8]") "}", TH_ERR_INVALID, "an element of 'shape' is not a number"},
        {"{" T("a", "F32", "[2 2]", "[0,8]") "}", TH_ERR_INVALID, "expected ',' or ']'"},
        {"{" T("a", "F32", "[1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,2]", "[0,8]") "}", TH_ERR_RANGE,
         "tensor 'a': 'shape' has more than 16 dims"},
        {"{" T("a", "F32", "[99999999999999999999]", "[0,8]") "}", TH_ERR_OVERFLOW,
         "an element of 'shape' is more than"},
        {"{" T("a", "F32", "[4294967296,4294967296]", "[0,8]") "}", TH_ERR_OVERFLOW,
         "tensor 'a': the byte size of 'shape' overflows"},
        {"{" T("a", "F32", "[2]", "[0,8,8]") "}", TH_ERR_INVALID, "'data_offsets' has 3 numbers, not 2"},
        {"{" T("a", "F32", "[2]", "[8]") "}", TH_ERR_INVALID, "'data_offsets' has 1 numbers, not 2"},
        {"{" T("a", "F32", "[0]", "[8,0]") "}", TH_ERR_INVALID, "'data_offsets' [8, 0] end before they begin"},
        {"{" T("a", "F32", "[4]", "[0,16]") "}", TH_ERR_INVALID,
         "tensor 'a': 'data_offsets' [0, 16] reach past the 8 bytes of data"},
        {"{" T("a", "F32", "[3]", "[0,8]") "}", TH_ERR_INVALID,
         "tensor 'a': 'data_offsets' [0, 8] hold 8 bytes, its shape and dtype F32 need 12"},
        {"{" T("a", "F4", "[3]", "[0,1]") "}", TH_ERR_INVALID, "12 bits of F4 is not a whole number of bytes"},
        {"{" T("a", "F32", "[1]", "[0,4]") "," T("b", "I16", "[2]", "[2,6]") "}", TH_ERR_INVALID,
         "tensor 'b': 'data_offsets' [2, 6] overlap tensor 'a' [0, 4]"},
        {"{" T("a", "U8", "[1]", "[0,1]") "," T("b", "I16", "[2]", "[2,6]") "}", TH_ERR_INVALID,
         "tensor 'b': 'data_offsets' [2, 6] leave a gap after byte 1"},
        {"{" T("a", "U8", "[3]", "[1,4]") "}", TH_ERR_INVALID, "leave a gap after byte 0"},
        {"{" T("a", "F32", "[1]", "[0,4]") "}", TH_ERR_INVALID,
         "the tensors cover 4 bytes of data, the file has 8 after the header"},
        {"{" T("a", "F32", "[1]", "[0,4]") "," T("a", "F32", "[1]", "[4,8]") "}", TH_ERR_INVALID,
         "the tensor 'a' twice"},
        {"{\"__metadata__\":{},\"__metadata__\":{}," T("a", "F32", "[2]", "[0,8]") "}", TH_ERR_INVALID,
         "the key '__metadata__' twice"},
        {"{\"__metadata__\":{\"k\":\"1\",\"k\":\"2\"}," T("a", "F32", "[2]", "[0,8]") "}", TH_ERR_INVALID,
         "'__metadata__' has the key 'k' twice"},
        {"{\"__metadata__\":[]," T("a", "F32", "[2]", "[0,8]") "}", TH_ERR_INVALID, "'__metadata__' is not an object"},
        {"{\"__metadata__\":{\"k\":1}," T("a", "F32", "[2]", "[0,8]") "}", TH_ERR_INVALID,
         "expected the value of '__metadata__' key 'k' (a string) as a string"},
        {"{\"__metadata__\":{\"k\":\"v\" \"j\":\"w\"}}", TH_ERR_INVALID, "expected ',' or '}' in '__metadata__'"},
    };
    unsigned char data[8] = {0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_st("bad.safetensors", bad[i].header, data, sizeof data);
        CHECK_NULL(th_safetensors_open(path_of("bad.safetensors")), bad[i].status, fn, bad[i].detail);
        if (!strstr(th_last_error(), "bad.safetensors")) fprintf(stderr, "  case %zu: no file name\n", i);
        CHECK(strstr(th_last_error(), "bad.safetensors") != NULL); /* the message names the file */
    }
    /* The length prefix. */
    write_bytes("bad.safetensors", "\x02\0\0\0\0\0\0", 7);
    CHECK_NULL(th_safetensors_open(path_of("bad.safetensors")), TH_ERR_INVALID, fn,
               "7 bytes, shorter than the 8-byte header length");
    write_bytes("bad.safetensors", "\x40\0\0\0\0\0\0\0{}", 10);
    CHECK_NULL(th_safetensors_open(path_of("bad.safetensors")), TH_ERR_INVALID, fn,
               "truncated: the header length is 64 bytes, the file has 2 after the length");
    write_bytes("bad.safetensors", "\x01\xe1\xf5\x05\0\0\0\0{}", 10); /* 100000001 */
    CHECK_NULL(th_safetensors_open(path_of("bad.safetensors")), TH_ERR_INVALID, fn,
               "the header length is 100000001 bytes, more than 100000000 (TH_SAFETENSORS_MAX_HEADER)");
    write_bytes("bad.safetensors", "\xff\xff\xff\xff\xff\xff\xff\xff{}", 10);
    CHECK_NULL(th_safetensors_open(path_of("bad.safetensors")), TH_ERR_INVALID, fn,
               "the header length is 18446744073709551615 bytes");
    write_bytes("bad.safetensors", "\0\0\0\0\0\0\0\0", 8);
    CHECK_NULL(th_safetensors_open(path_of("bad.safetensors")), TH_ERR_INVALID, fn, "does not start with '{' (0 bytes");
    /* Not a file. */
    CHECK_NULL(th_safetensors_open(NULL), TH_ERR_INVALID, fn, "NULL path");
    CHECK_NULL(th_safetensors_open(""), TH_ERR_INVALID, fn, "empty path");
    CHECK_NULL(th_safetensors_open(path_of("missing.safetensors")), TH_ERR_IO, fn, "missing.safetensors");
    CHECK_NULL(th_safetensors_open(dir), TH_ERR_INVALID, fn, "is a directory, not a regular file");
    remove(path_of("bad.safetensors"));
#undef T
#undef fn
}

static void test_save_errors(void)
{
#define fn "th_safetensors_save"
    int64_t n = 4;
    th_tensor *f = patterned(TH_F32, 1, &n, 1);
    th_c128_tensor *z = th_c128_zeros(1, &n);
    const th_tensor *two[2] = {f, f};
    const th_tensor *zz[1] = {th_c128_base(z)};
    const char *names[2] = {"x", "x"}, *bad_utf8 = "\xff", *meta = "__metadata__";
    const char *keys[2] = {"k", "k"}, *values[2] = {"v", "w"}, *null_key[1] = {NULL};
    const char *p = path_of("x.safetensors");
    int before = files_in_dir();
    CHECK_FAILS(th_safetensors_save(NULL, 1, names, two, 0, NULL, NULL), TH_ERR_INVALID, fn, "NULL path");
    CHECK_FAILS(th_safetensors_save(p, -1, names, two, 0, NULL, NULL), TH_ERR_INVALID, fn, "negative count");
    CHECK_FAILS(th_safetensors_save(p, 1, NULL, two, 0, NULL, NULL), TH_ERR_INVALID, fn, "NULL names");
    CHECK_FAILS(th_safetensors_save(p, 1, names, NULL, 0, NULL, NULL), TH_ERR_INVALID, fn, "NULL tensors");
    CHECK_FAILS(th_safetensors_save(p, 1, names, two, 1, NULL, values), TH_ERR_INVALID, fn, "NULL metadata keys");
    CHECK_FAILS(th_safetensors_save(p, 1, names, two, 1, null_key, values), TH_ERR_INVALID, fn,
                "NULL metadata key at index 0");
    const th_tensor *none[1] = {NULL};
    CHECK_FAILS(th_safetensors_save(p, 1, names, none, 0, NULL, NULL), TH_ERR_INVALID, fn, "NULL tensor at index 0");
    CHECK_FAILS(th_safetensors_save(p, 2, names, two, 0, NULL, NULL), TH_ERR_INVALID, fn, "the name 'x' twice");
    CHECK_FAILS(th_safetensors_save(p, 1, &bad_utf8, two, 0, NULL, NULL), TH_ERR_INVALID, fn,
                "the name at index 0 is not UTF-8");
    CHECK_FAILS(th_safetensors_save(p, 1, &meta, two, 0, NULL, NULL), TH_ERR_INVALID, fn,
                "cannot be called '__metadata__'");
    CHECK_FAILS(th_safetensors_save(p, 1, names, zz, 0, NULL, NULL), TH_ERR_DTYPE, fn,
                "tensor 'x' is c128, which safetensors has no dtype for");
    CHECK_FAILS(th_safetensors_save(p, 1, names, two, 2, keys, values), TH_ERR_INVALID, fn,
                "the metadata key 'k' twice");
    CHECK_FAILS(th_safetensors_save(p, 1, names, two, 1, keys, &bad_utf8), TH_ERR_INVALID, fn,
                "the metadata value at index 0 is not UTF-8");
    CHECK_FAILS(th_safetensors_save(path_of("no/such/x.safetensors"), 1, names, two, 0, NULL, NULL), TH_ERR_IO, fn,
                "cannot create");
    float fake[4];
    th_storage *dev = th_storage_from_blob(fake, sizeof fake, (th_device){TH_DEVICE_CUDA, 0}, NULL, NULL);
    const th_tensor *d[1] = {th_tensor_new_with_storage(TH_F32, dev, 0, 1, &n, NULL)};
    CHECK_FAILS(th_safetensors_save(p, 1, names, d, 0, NULL, NULL), TH_ERR_DEVICE, fn, "which the host cannot read");
    th_tensor_release((th_tensor *)d[0]);
    th_storage_release(dev);
    CHECK_INT_EQ(files_in_dir(), before); /* no file, no temporary one */
    th_c128_release(z);
    th_tensor_release(f);
#undef fn
}

int main(void)
{
    test_begin();
    snprintf(dir, sizeof dir, "test_safetensors_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    test_round_trip();
    test_layout();
    test_copies();
    test_malformed();
    test_save_errors();
    CHECK_INT_EQ(remove(path_of("all.safetensors")), 0);
    CHECK_INT_EQ(files_in_dir(), 0);
    CHECK_INT_EQ(rmdir(dir), 0);
    return test_end("safetensors");
}
