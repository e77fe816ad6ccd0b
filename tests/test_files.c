/* Files (core/file_map.h, core/npy.h): .npy round trips, zero-copy loads and when they copy, a corpus of
 * hand-made malformed files each with its expected error, and the writers' temporary file.
 *
 * NumPy's own files and NumPy reading ours: tests/numpy/npy_files.c. Built twice: as a core test, and as
 * test_files_nomap with TH_NO_FILE_MAP (its own implementation TU), where files are read instead of mapped. */
#define _POSIX_C_SOURCE 200809L
#ifdef TH_FILES_OWN_TU
#define TH_IMPLEMENTATION
#define TH_SELECT_DTYPES
#define TH_WANT_BOOL
#define TH_WANT_I16
#define TH_WANT_F32
#define TH_WANT_BF16
#endif
#include "check.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#ifdef TH_NO_FILE_MAP
static const bool maps = false;
#else
static const bool maps = true;
#endif

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

/* A file holding a string literal's bytes, without its NUL. */
#define WRITE_LITERAL(name, lit) write_bytes(name, lit, sizeof lit - 1)

/* An .npy file of version major with header text dict (padded with spaces to pad bytes of header when pad is
 * larger) followed by n bytes of data. */
static void write_npy(const char *name, int major, const char *dict, int pad, const void *data, size_t n)
{
    unsigned char buf[20000];
    size_t prefix = major == 1 ? 10 : 12, len = strlen(dict);
    memcpy(buf, "\x93NUMPY", 6);
    buf[6] = (unsigned char)major;
    buf[7] = 0;
    memcpy(buf + prefix, dict, len);
    while ((int)len < pad) buf[prefix + len++] = ' ';
    buf[8] = (unsigned char)(len & 0xff);
    buf[9] = (unsigned char)(len >> 8);
    if (major > 1) buf[10] = buf[11] = 0;
    memcpy(buf + prefix + len, data, n);
    write_bytes(name, buf, prefix + len + n);
}

/* The names in dir, to see that no temporary file was left behind. */
static int files_in_dir(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.';
    if (d) closedir(d);
    return n;
}

static void test_round_trip(void)
{
    int64_t sizes[2] = {3, 4};
    th_f32_tensor *a = th_f32_arange(0, 12, 1);
    th_f32_tensor *m = th_f32_reshape(a, 2, sizes);
    CHECK_INT_EQ(th_tensor_save_npy(path_of("m.npy"), th_f32_base(m)), TH_OK);
    th_tensor *b = th_tensor_load_npy(path_of("m.npy"));
    CHECK(b && th_tensor_dtype(b) == TH_F32 && th_tensor_ndim(b) == 2 && th_tensor_sizes(b)[1] == 4);
    CHECK(th_storage_is_mapped(th_tensor_storage(b)) == maps);
    th_f32_tensor *fb = th_f32_from_base(b);
    CHECK(fb && th_f32_get(fb, (int64_t[]){2, 3}) == 11.0f);
    /* A zero-copy tensor is a private copy-on-write view: writable, and the file keeps its bytes. */
    CHECK_INT_EQ(th_f32_set(fb, (int64_t[]){0, 0}, -1.0f), TH_OK);
    th_tensor *again = th_tensor_load_npy(path_of("m.npy"));
    CHECK(again && th_f32_get(th_f32_from_base(again), (int64_t[]){0, 0}) == 0.0f);
    th_tensor_release(again);

    /* Saving over a file another tensor maps: the new file is renamed into place, the mapping keeps the old
     * bytes (a truncated file would fault instead), and no temporary file is left. */
    int before = files_in_dir();
    th_f32_tensor *t = th_f32_transpose(m, 0, 1); /* column-major: written in Fortran order, as np.save does */
    CHECK_INT_EQ(th_tensor_save_npy(path_of("m.npy"), th_f32_base(t)), TH_OK);
    CHECK_INT_EQ(files_in_dir(), before);
    CHECK(th_f32_get(fb, (int64_t[]){2, 3}) == 11.0f);
    th_tensor *c = th_tensor_load_npy(path_of("m.npy"));
    CHECK(c && th_tensor_sizes(c)[0] == 4 && th_tensor_strides(c)[0] == 1 && th_tensor_strides(c)[1] == 4);
    CHECK(c && th_f32_get(th_f32_from_base(c), (int64_t[]){3, 1}) == 7.0f);
    th_tensor_release(c);
    /* Neither C nor Fortran order: copied to C order. */
    th_f32_tensor *step = th_f32_narrow(t, 0, 1, 3);
    th_f32_tensor *row = th_f32_select(step, 1, 2);
    CHECK_INT_EQ(th_tensor_save_npy(path_of("row.npy"), th_f32_base(row)), TH_OK);
    c = th_tensor_load_npy(path_of("row.npy"));
    CHECK(c && th_tensor_ndim(c) == 1 && th_tensor_sizes(c)[0] == 3 &&
          th_f32_get(th_f32_from_base(c), (int64_t[]){2}) == 11.0f);
    th_tensor_release(c);
    th_f32_release(row);
    th_f32_release(step);
    th_f32_release(t);
    th_tensor_release(b);
    th_f32_release(m);
    th_f32_release(a);

    /* 0-d and empty. */
    th_f32_tensor *z = th_f32_full(0, NULL, 2.5f);
    CHECK_INT_EQ(th_tensor_save_npy(path_of("z.npy"), th_f32_base(z)), TH_OK);
    c = th_tensor_load_npy(path_of("z.npy"));
    CHECK(c && th_tensor_ndim(c) == 0 && th_f32_get(th_f32_from_base(c), NULL) == 2.5f);
    th_tensor_release(c);
    th_f32_release(z);
    th_i16_tensor *e = th_i16_empty(2, (int64_t[]){0, 5});
    CHECK_INT_EQ(th_tensor_save_npy(path_of("e.npy"), th_i16_base(e)), TH_OK);
    c = th_tensor_load_npy(path_of("e.npy"));
    CHECK(c && th_tensor_dtype(c) == TH_I16 && th_tensor_numel(c) == 0 && th_tensor_sizes(c)[1] == 5);
    th_tensor_release(c);
    th_i16_release(e);
}

/* The loads that must copy, and say so. */
static void test_copies(void)
{
    /* Data at byte 69 of the file: misaligned for f32. */
    float v[3] = {1.5f, -2.0f, 3.25f};
    write_npy("misaligned.npy", 1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", 59, v, sizeof v);
    th_tensor *t = th_tensor_load_npy(path_of("misaligned.npy"));
    CHECK(t && !th_storage_is_mapped(th_tensor_storage(t)));
    CHECK(t && th_f32_get(th_f32_from_base(t), (int64_t[]){2}) == 3.25f);
    th_tensor_release(t);
    /* Big-endian i16 (NumPy's own are in tests/numpy): swapped. */
    unsigned char be[4] = {0x01, 0x02, 0xff, 0xfe};
    write_npy("be.npy", 1, "{'descr': '>i2', 'fortran_order': False, 'shape': (2,), }", 118, be, sizeof be);
    t = th_tensor_load_npy(path_of("be.npy"));
    CHECK(t && !th_storage_is_mapped(th_tensor_storage(t)));
    CHECK(t && th_i16_get(th_i16_from_base(t), (int64_t[]){0}) == 0x0102 &&
          th_i16_get(th_i16_from_base(t), (int64_t[]){1}) == -2);
    th_tensor_release(t);
    /* A bool byte other than 0 or 1 is no C bool: copied, and true. */
    unsigned char b[4] = {0, 1, 2, 255};
    write_npy("bool.npy", 1, "{'descr': '|b1', 'fortran_order': False, 'shape': (4,), }", 118, b, sizeof b);
    t = th_tensor_load_npy(path_of("bool.npy"));
    CHECK(t && !th_storage_is_mapped(th_tensor_storage(t)));
    bool ok = t != NULL;
    for (int i = 0; ok && i < 4; i++) ok = th_bool_get(th_bool_from_base(t), (int64_t[]){i}) == (i > 0);
    CHECK(ok);
    th_tensor_release(t);
    /* Versions 2.0 and 3.0 (4-byte header length), double quotes, no trailing comma, another key order. */
    write_npy("v3.npy", 3, "{\"shape\": (1, 3), \"fortran_order\": False, \"descr\": \"<f4\"}", 116, v, sizeof v);
    t = th_tensor_load_npy(path_of("v3.npy"));
    CHECK(t && th_tensor_ndim(t) == 2 && th_storage_is_mapped(th_tensor_storage(t)) == maps);
    CHECK(t && th_f32_get(th_f32_from_base(t), (int64_t[]){0, 1}) == -2.0f);
    th_tensor_release(t);
}

/* Every malformed file is refused with its own error, naming the file and the field. */
static void test_malformed(void)
{
#define fn "th_tensor_load_npy"
    static const struct {
        int major;
        const char *dict;
        th_status status;
        const char *detail;
    } bad[] = {
        {4, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }", TH_ERR_INVALID, "format version 4.0"},
        {1, "['descr', '<f4']", TH_ERR_INVALID, "the header is not a dict"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'x': 1}", TH_ERR_INVALID, "unknown key 'x'"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'shape': (3,)}", TH_ERR_INVALID,
         "the key 'shape' twice"},
        {1, "{'fortran_order': False, 'shape': (3,)}", TH_ERR_INVALID, "no 'descr' key"},
        {1, "{'descr': '<U5', 'fortran_order': False, 'shape': (3,)}", TH_ERR_DTYPE, "'descr' is '<U5'"},
        {1, "{'descr': '<u4', 'fortran_order': False, 'shape': (3,)}", TH_ERR_DTYPE, "'descr' is '<u4'"},
        {1, "{'descr': '<f04', 'fortran_order': False, 'shape': (3,)}", TH_ERR_DTYPE, "'descr' is '<f04'"},
        {1, "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,)}", TH_ERR_DTYPE, "structured"},
        {1, "{'descr': '|f4', 'fortran_order': False, 'shape': (3,)}", TH_ERR_INVALID, "needs a byte order"},
        {1, "{'descr': '<f4', 'fortran_order': maybe, 'shape': (3,)}", TH_ERR_INVALID, "neither True nor False"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3)}", TH_ERR_INVALID, "without its comma"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (-3,)}", TH_ERR_INVALID, "not a size"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (03,)}", TH_ERR_INVALID, "leading zero"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': [3]}", TH_ERR_INVALID, "'shape' is not a tuple"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1)}", TH_ERR_RANGE,
         "more than 16 dims"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,)}", TH_ERR_OVERFLOW,
         "is more than"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (0, 4294967296, 4294967296)}", TH_ERR_OVERFLOW,
         "overflows int64"},
        /* the element count alone overflows too (fuzz_npy_header's find: it was multiplied before the check) */
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296)}", TH_ERR_OVERFLOW,
         "overflows int64"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (5,)}", TH_ERR_INVALID,
         "truncated: the shape needs 20 bytes of data, the file has 12"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,)} x", TH_ERR_INVALID, "bytes after the dict"},
        {1, "{'descr': '<f4' 'fortran_order': False}", TH_ERR_INVALID, "expected ',' or '}'"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,)", TH_ERR_INVALID, "expected ',' or '}'"},
        {1, "{'descr\\n': '<f4'}", TH_ERR_INVALID, "not a short plain string"},
        {1, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'descr: 1}", TH_ERR_INVALID,
         "without its closing quote"},
        {1, "{'descr' '<f4'}", TH_ERR_INVALID, "expected ':' after a key"},
    };
    float v[3] = {1, 2, 3};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        write_npy("bad.npy", bad[i].major, bad[i].dict, 0, v, sizeof v);
        CHECK_NULL(th_tensor_load_npy(path_of("bad.npy")), bad[i].status, fn, bad[i].detail);
        CHECK(strstr(th_last_error(), "bad.npy") != NULL); /* the message names the file */
    }
    /* The preamble itself. */
    WRITE_LITERAL("bad.npy", "\x93NUMPY\x01");
    CHECK_NULL(th_tensor_load_npy(path_of("bad.npy")), TH_ERR_INVALID, fn, "shorter than the 10-byte preamble");
    WRITE_LITERAL("bad.npy", "PK\x03\x04 not an npy file");
    CHECK_NULL(th_tensor_load_npy(path_of("bad.npy")), TH_ERR_INVALID, fn, "no \\x93NUMPY magic");
    WRITE_LITERAL("bad.npy", "\x93NUMPY\x01\x00\x40\x00{'descr'");
    CHECK_NULL(th_tensor_load_npy(path_of("bad.npy")), TH_ERR_INVALID, fn,
               "truncated: the header length is 64 bytes, the file has 8 after the preamble");
    WRITE_LITERAL("bad.npy", "\x93NUMPY\x02\x00\x00\x00\x01\x00");
    CHECK_NULL(th_tensor_load_npy(path_of("bad.npy")), TH_ERR_INVALID, fn,
               "the header length is 65536 bytes, more than 10000 (TH_NPY_MAX_HEADER)");
    WRITE_LITERAL("bad.npy", "\x93NUMPY\x02\x00\x01\x00");
    CHECK_NULL(th_tensor_load_npy(path_of("bad.npy")), TH_ERR_INVALID, fn, "truncated in the preamble");
    /* Not a file. */
    CHECK_NULL(th_tensor_load_npy(NULL), TH_ERR_INVALID, fn, "NULL path");
    CHECK_NULL(th_tensor_load_npy(""), TH_ERR_INVALID, fn, "empty path");
    CHECK_NULL(th_tensor_load_npy(path_of("missing.npy")), TH_ERR_IO, fn, "missing.npy");
#ifndef TH_NO_FILE_MAP
    CHECK_NULL(th_tensor_load_npy(dir), TH_ERR_INVALID, fn, "is a directory, not a regular file");
#endif
    remove(path_of("bad.npy"));
#undef fn
}

static void test_save_errors(void)
{
#define fn "th_tensor_save_npy"
    int64_t n = 4;
    th_f32_tensor *f = th_f32_zeros(1, &n);
    th_bf16_tensor *bf = th_bf16_zeros(1, &n);
    int before = files_in_dir();
    CHECK_FAILS(th_tensor_save_npy(path_of("x.npy"), NULL), TH_ERR_INVALID, fn, "NULL tensor");
    CHECK_FAILS(th_tensor_save_npy(NULL, th_f32_base(f)), TH_ERR_INVALID, fn, "NULL path");
    CHECK_FAILS(th_tensor_save_npy(path_of("x.npy"), th_bf16_base(bf)), TH_ERR_DTYPE, fn, "bf16 has no NumPy dtype");
    CHECK_FAILS(th_tensor_save_npy(path_of("no/such/x.npy"), th_f32_base(f)), TH_ERR_IO, fn, "cannot create");
    /* Memory the host cannot read. */
    float fake[4];
    th_storage *dev = th_storage_from_blob(fake, sizeof fake, (th_device){TH_DEVICE_CUDA, 0}, NULL, NULL);
    th_tensor *d = th_tensor_new_with_storage(TH_F32, dev, 0, 1, &n, NULL);
    CHECK_FAILS(th_tensor_save_npy(path_of("x.npy"), d), TH_ERR_DEVICE, fn, "which the host cannot read");
    th_tensor_release(d);
    th_storage_release(dev);
    CHECK_INT_EQ(files_in_dir(), before); /* no file, no temporary one */
    th_bf16_release(bf);
    th_f32_release(f);
#undef fn
}

int main(void)
{
    test_begin();
    snprintf(dir, sizeof dir, "test_files_%s_XXXXXX", maps ? "map" : "nomap");
    CHECK(mkdtemp(dir) != NULL);
    test_round_trip();
    test_copies();
    test_malformed();
    test_save_errors();
    static const char *const made[] = {"m.npy", "row.npy", "z.npy", "e.npy", "misaligned.npy", "be.npy", "bool.npy",
                                       "v3.npy"};
    for (size_t i = 0; i < sizeof made / sizeof made[0]; i++) CHECK_INT_EQ(remove(path_of(made[i])), 0);
    CHECK_INT_EQ(files_in_dir(), 0);
    CHECK_INT_EQ(rmdir(dir), 0);
    return test_end(maps ? "files" : "files_nomap");
}
