/* .npz archives (core/npz.h): round trips of every dtype .npy has (stored, deflated, ZIP64), 0-d, empty and
 * non-contiguous tensors, zero-copy loads of stored members, and a corpus of malformed archives made here from
 * good ones, each with its expected error.
 *
 * NumPy's own archives and NumPy reading ours: tests/numpy/npz_files.c. Built twice: as a core test (with zlib
 * where the build found it), and as test_npz_nozlib (its own implementation TU, without TH_USE_ZLIB), where a
 * deflated member is listed but refused. */
#define _POSIX_C_SOURCE 200809L
#ifdef TH_NPZ_OWN_TU
#undef TH_USE_ZLIB
#define TH_IMPLEMENTATION
#define TH_SELECT_DTYPES
#define TH_WANT_BOOL
#define TH_WANT_I16
#define TH_WANT_F32
#define TH_WANT_C128
#endif
#include "check.h"

#include <dirent.h>
#include <stdlib.h>
#include <unistd.h>

#ifdef TH_USE_ZLIB
static const bool zlib = true;
#else
static const bool zlib = false;
#endif
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

static int files_in_dir(void)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += e->d_name[0] != '.';
    if (d) closedir(d);
    return n;
}

/* A tensor of dtype and shape whose bytes are a pattern of seed (0 or 1 for bool), over a fresh storage of
 * room elements at offset with the given strides (NULL: contiguous). */
static th_tensor *make(th_dtype dt, int ndim, const int64_t *sizes, const int64_t *strides, int64_t room, int seed)
{
    size_t es = th_dtype_info(dt)->size;
    th_storage *s = th_storage_new(room * (int64_t)es, NULL, NULL);
    unsigned char *p = (unsigned char *)th_storage_raw_data(s);
    uint32_t x = 2463534242u + (uint32_t)seed;
    for (int64_t i = 0; i < room * (int64_t)es; i++) {
        x ^= x << 13, x ^= x >> 17, x ^= x << 5;
        p[i] = dt == TH_BOOL ? (unsigned char)(x & 1) : (unsigned char)x;
    }
    th_tensor *t = th_tensor_new_with_storage(dt, s, 0, ndim, sizes, strides);
    th_storage_release(s);
    return t;
}

/* A C-contiguous copy of t. */
static th_tensor *dense(const th_tensor *t)
{
    size_t es = th_dtype_info(th_tensor_dtype(t))->size;
    th_storage *s = th_storage_new(th_tensor_numel(t) * (int64_t)es, NULL, NULL);
    th_tensor *c = th_tensor_new_with_storage(th_tensor_dtype(t), s, 0, th_tensor_ndim(t), th_tensor_sizes(t), NULL);
    th_storage_release(s);
    CHECK(c && th_tensor_copy(c, t) == TH_OK);
    return c;
}

static bool same(const th_tensor *a, const th_tensor *b)
{
    if (!a || !b || th_tensor_dtype(a) != th_tensor_dtype(b) || th_tensor_ndim(a) != th_tensor_ndim(b)) return false;
    for (int d = 0; d < th_tensor_ndim(a); d++)
        if (th_tensor_sizes(a)[d] != th_tensor_sizes(b)[d]) return false;
    th_tensor *x = dense(a), *y = dense(b);
    size_t n = (size_t)th_tensor_numel(a) * th_dtype_info(th_tensor_dtype(a))->size;
    bool eq = x && y && (n == 0 || memcmp(th_tensor_data(x), th_tensor_data(y), n) == 0);
    th_tensor_release(x);
    th_tensor_release(y);
    return eq;
}

static const th_dtype npy_dtypes[] = {TH_BOOL, TH_U8, TH_I8, TH_I16, TH_I32, TH_I64,
                                      TH_F16,  TH_F32, TH_F64, TH_C64, TH_C128};
#define N_NPY ((int)(sizeof npy_dtypes / sizeof npy_dtypes[0]))

/* Every stamped dtype as 2x3x4, plus 0-d, empty, a transposed (Fortran order) and a strided view (a copy to C
 * order), saved with opts, opened, listed and loaded back. */
static void round_trip(const char *file, const th_npz_save_options *opts)
{
    th_tensor *ts[N_NPY + 4];
    char namebuf[N_NPY + 4][32];
    const char *names[N_NPY + 4];
    int n = 0;
    for (int k = 0; k < N_NPY; k++) {
        if (!th_dtype_info(npy_dtypes[k])->stamped) continue;
        ts[n] = make(npy_dtypes[k], 3, (int64_t[]){2, 3, 4}, NULL, 24, k);
        snprintf(namebuf[n], sizeof namebuf[n], "t_%s", th_dtype_name(npy_dtypes[k]));
        names[n] = namebuf[n];
        n++;
    }
    ts[n] = make(TH_F32, 0, NULL, NULL, 1, 50), names[n++] = "scalar";
    ts[n] = make(TH_I16, 2, (int64_t[]){0, 3}, NULL, 0, 51), names[n++] = "empty";
    ts[n] = make(TH_F32, 2, (int64_t[]){3, 2}, (int64_t[]){1, 3}, 6, 52), names[n++] = "fortran";
    ts[n] = make(TH_C128, 2, (int64_t[]){2, 3}, (int64_t[]){6, 1}, 12, 53), names[n++] = "every_other_row";
    CHECK_INT_EQ(th_npz_save(path_of(file), n, names, (const th_tensor *const *)ts, opts), TH_OK);
    th_npz *z = th_npz_open(path_of(file));
    CHECK(z != NULL);
    if (!z) fprintf(stderr, "%s: %s\n", file, th_last_error());
    bool compressed = opts && opts->compress;
    CHECK_INT_EQ(th_npz_count(z), n);
    for (int i = 0; z && i < n; i++) {
        CHECK(strcmp(th_npz_name(z, i), names[i]) == 0 && strcmp(th_npz_names(z)[i], names[i]) == 0);
        if (i == n - 1) CHECK(th_npz_names(z)[n] == NULL);
        CHECK_INT_EQ(th_npz_find(z, names[i]), i);
        CHECK_INT_EQ(th_npz_dtype(z, i), th_tensor_dtype(ts[i]));
        CHECK_INT_EQ(th_npz_ndim(z, i), th_tensor_ndim(ts[i]));
        for (int d = 0; d < th_tensor_ndim(ts[i]); d++) CHECK_INT_EQ(th_npz_sizes(z, i)[d], th_tensor_sizes(ts[i])[d]);
        CHECK(th_npz_is_compressed(z, i) == compressed);
        CHECK(th_npz_nbytes(z, i) > 64);
        th_tensor *t = th_npz_get(z, names[i]);
        CHECK(same(t, ts[i]));
        if (!t) fprintf(stderr, "%s %s: %s\n", file, names[i], th_last_error());
        /* Every stored member of ours loads zero-copy (an empty one has no bytes to view). */
        bool view = maps && !compressed && th_tensor_numel(ts[i]) > 0;
        CHECK(t && th_storage_is_mapped(th_tensor_storage(t)) == view);
        if (t && strcmp(names[i], "fortran") == 0) CHECK(th_tensor_strides(t)[0] == 1 && th_tensor_strides(t)[1] == 3);
        th_tensor_release(t);
    }
    th_tensor *kept = z ? th_npz_get(z, names[0]) : NULL;
    th_npz_close(z); /* a tensor outlives its archive */
    CHECK(same(kept, ts[0]));
    th_tensor_release(kept);
    for (int i = 0; i < n; i++) th_tensor_release(ts[i]);
    CHECK_INT_EQ(remove(path_of(file)), 0);
}

static void test_round_trips(void)
{
    round_trip("stored.npz", NULL);
    round_trip("zip64.npz", &(th_npz_save_options){.force_zip64 = true});
    if (zlib) {
        round_trip("deflated.npz", &(th_npz_save_options){.compress = true});
        round_trip("deflated9.npz", &(th_npz_save_options){.compress = true, .level = 9, .force_zip64 = true});
    }
    /* No members: an empty archive (as np.savez() writes). */
    CHECK_INT_EQ(th_npz_save(path_of("none.npz"), 0, NULL, NULL, NULL), TH_OK);
    th_npz *z = th_npz_open(path_of("none.npz"));
    CHECK(z && th_npz_count(z) == 0 && th_npz_names(z) != NULL);
    th_npz_close(z);
    CHECK_INT_EQ(remove(path_of("none.npz")), 0);
}

/* ---- the malformed corpus -------------------------------------------------------------------------------- */

typedef struct bytes {
    unsigned char *b;
    long n;
} bytes;

static bytes read_file(const char *name)
{
    bytes r = {NULL, 0};
    FILE *f = fopen(path_of(name), "rb");
    CHECK(f != NULL);
    if (!f) return r;
    fseek(f, 0, SEEK_END);
    r.n = ftell(f);
    fseek(f, 0, SEEK_SET);
    r.b = (unsigned char *)malloc((size_t)r.n + 64);
    CHECK(r.b && fread(r.b, 1, (size_t)r.n, f) == (size_t)r.n);
    fclose(f);
    return r;
}

static void write_file(const char *name, const unsigned char *b, long n)
{
    FILE *f = fopen(path_of(name), "wb");
    CHECK(f && fwrite(b, 1, (size_t)n, f) == (size_t)n);
    if (f) fclose(f);
}

static uint32_t rd16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t rd32(const unsigned char *p) { return rd16(p) | rd16(p + 2) << 16; }
static void wr16(unsigned char *p, uint32_t v) { p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8); }
static void wr32(unsigned char *p, uint32_t v) { wr16(p, v & 0xffff), wr16(p + 2, v >> 16); }
static void wr64(unsigned char *p, uint64_t v) { wr32(p, (uint32_t)v), wr32(p + 4, (uint32_t)(v >> 32)); }

/* Where the records of an archive of ours lie (no comment, no ZIP64 unless zip64). */
typedef struct layout {
    long eocd, cd, cd2; /* the end record, the first and second central entries */
    long local2;        /* the second member's local header */
} layout;

static layout layout_of(bytes a)
{
    layout l;
    l.eocd = a.n - 22;
    l.cd = (long)rd32(a.b + l.eocd + 16);
    if (l.cd == 0xFFFFFFFFL) l.cd = (long)rd32(a.b + a.n - 22 - 20 - 56 + 48); /* the ZIP64 record's */
    l.cd2 = l.cd + 46 + (long)rd16(a.b + l.cd + 28) + (long)rd16(a.b + l.cd + 30) + (long)rd16(a.b + l.cd + 32);
    l.local2 = l.cd2 + 46 <= l.eocd ? (long)rd32(a.b + l.cd2 + 42) : -1;
    return l;
}

/* The archive a (modified) as bad.npz, which th_npz_open must refuse with status and a message holding detail. */
#define OPEN_FAILS(a, status, detail)                                                           \
    do {                                                                                        \
        write_file("bad.npz", (a).b, (a).n);                                                    \
        CHECK_NULL(th_npz_open(path_of("bad.npz")), status, "th_npz_open", detail);             \
    } while (0)

static bytes copy_of(bytes a)
{
    bytes r = {(unsigned char *)malloc((size_t)a.n + 64), a.n};
    memcpy(r.b, a.b, (size_t)a.n);
    return r;
}

static void test_malformed(void)
{
    th_tensor *x = make(TH_F32, 2, (int64_t[]){3, 4}, NULL, 12, 7);
    th_tensor *y = make(TH_I16, 1, (int64_t[]){5}, NULL, 5, 8);
    const th_tensor *two[2] = {x, y};
    CHECK_INT_EQ(th_npz_save(path_of("good.npz"), 2, (const char *const[]){"a", "b"}, two, NULL), TH_OK);
    CHECK_INT_EQ(th_npz_save(path_of("good64.npz"), 2, (const char *const[]){"a", "b"}, two,
                             &(th_npz_save_options){.force_zip64 = true}), TH_OK);
    bytes good = read_file("good.npz"), good64 = read_file("good64.npz");
    layout l = layout_of(good), l64 = layout_of(good64);
    CHECK(l.cd > 0 && l.cd2 > l.cd && l.local2 > 0 && l64.cd > 0);
    bytes a;

    a = copy_of(good), a.n = 21;
    OPEN_FAILS(a, TH_ERR_INVALID, "fewer than an end of central directory record (22)");
    free(a.b);
    a = copy_of(good), a.b[a.n++] = 0; /* a byte after the end record */
    OPEN_FAILS(a, TH_ERR_INVALID, "no end of central directory record ends the file");
    free(a.b);
    a = copy_of(good), wr16(a.b + l.eocd + 4, 1);
    OPEN_FAILS(a, TH_ERR_UNSUPPORTED, "a split archive (disk 1");
    free(a.b);
    a = copy_of(good), wr32(a.b + l.eocd + 16, (uint32_t)l.cd - 1);
    OPEN_FAILS(a, TH_ERR_INVALID, "does not end where the end records begin");
    free(a.b);
    a = copy_of(good), wr16(a.b + l.eocd + 8, 60), wr16(a.b + l.eocd + 10, 60);
    OPEN_FAILS(a, TH_ERR_INVALID, "60 entries announced");
    free(a.b);
    a = copy_of(good), wr16(a.b + l.eocd + 8, 1), wr16(a.b + l.eocd + 10, 1);
    OPEN_FAILS(a, TH_ERR_INVALID, "bytes after the last central directory entry");
    free(a.b);
    a = copy_of(good), wr32(a.b + l.eocd + 16, 0xFFFFFFFFu);
    OPEN_FAILS(a, TH_ERR_INVALID, "ZIP64 markers but no ZIP64 locator");
    free(a.b);
    a = copy_of(good), a.b[l.cd2] = 'Q';
    OPEN_FAILS(a, TH_ERR_INVALID, "central directory entry 1: no central header signature");
    free(a.b);
    a = copy_of(good), wr16(a.b + l.cd + 10, 12), wr16(a.b + 8, 12);
    OPEN_FAILS(a, TH_ERR_UNSUPPORTED, "member 'a.npy': compression method 12");
    free(a.b);
    a = copy_of(good), wr16(a.b + l.cd + 8, 1);
    OPEN_FAILS(a, TH_ERR_UNSUPPORTED, "member 'a.npy': encrypted");
    free(a.b);
    a = copy_of(good), wr16(a.b + l.cd + 28, 0);
    OPEN_FAILS(a, TH_ERR_INVALID, "central directory entry 0: an empty name");
    free(a.b);
    a = copy_of(good), a.b[l.cd + 46] = 0;
    OPEN_FAILS(a, TH_ERR_INVALID, "a NUL in its name");
    free(a.b);
    a = copy_of(good), wr16(a.b + l.cd2 + 32, 400);
    OPEN_FAILS(a, TH_ERR_INVALID, "run past the central directory");
    free(a.b);
    a = copy_of(good), wr32(a.b + l.cd2 + 42, (uint32_t)a.n + 5);
    OPEN_FAILS(a, TH_ERR_INVALID, "member 'b.npy': compressed size");
    free(a.b);
    a = copy_of(good), wr32(a.b + l.cd2 + 42, 1);
    OPEN_FAILS(a, TH_ERR_INVALID, "member 'b.npy': no local header at offset 1");
    free(a.b);
    a = copy_of(good), wr32(a.b + l.cd + 20, rd32(a.b + l.cd + 20) + 1);
    OPEN_FAILS(a, TH_ERR_INVALID, "stored, but its compressed size");
    free(a.b);
    a = copy_of(good), a.b[l.local2 + 30] = 'c';
    OPEN_FAILS(a, TH_ERR_INVALID, "member 'b.npy': the local header names another member ('c.npy')");
    free(a.b);
    a = copy_of(good), wr16(a.b + l.local2 + 6, 2);
    OPEN_FAILS(a, TH_ERR_INVALID, "the local header's flags 0x0002 or method 0 differ");
    free(a.b);
    a = copy_of(good), wr32(a.b + l.local2 + 14, 12345);
    OPEN_FAILS(a, TH_ERR_INVALID, "the local header's CRC-32 0x00003039");
    free(a.b);
    a = copy_of(good), wr16(a.b + l.local2 + 28, 0xFFFF);
    OPEN_FAILS(a, TH_ERR_INVALID, "member 'b.npy': its local header runs past the end of the file");
    free(a.b);
    /* The first member grown into the second: both headers agree, so the overlap itself is what is refused. */
    a = copy_of(good);
    uint32_t big = rd32(a.b + l.cd + 20) + 64;
    wr32(a.b + l.cd + 20, big), wr32(a.b + l.cd + 24, big), wr32(a.b + 18, big), wr32(a.b + 22, big);
    OPEN_FAILS(a, TH_ERR_INVALID, "overlaps the one before it");
    free(a.b);
    /* The second member grown into the central directory. */
    a = copy_of(good);
    big = rd32(a.b + l.cd2 + 20) + 64;
    wr32(a.b + l.cd2 + 20, big), wr32(a.b + l.cd2 + 24, big), wr32(a.b + l.local2 + 18, big),
        wr32(a.b + l.local2 + 22, big);
    OPEN_FAILS(a, TH_ERR_INVALID, "run into the central directory");
    free(a.b);
    /* Two members of one name: "b" renamed "a" in both of its headers. */
    a = copy_of(good), a.b[l.cd2 + 46] = 'a', a.b[l.local2 + 30] = 'a';
    OPEN_FAILS(a, TH_ERR_INVALID, "two members named 'a'");
    free(a.b);
    /* A member that is no .npy file, and one whose header is bad. */
    a = copy_of(good), a.b[l.local2 + 30 + 5 + rd16(a.b + l.local2 + 28)] = 'X';
    OPEN_FAILS(a, TH_ERR_INVALID, "member 'b.npy': not an .npy file (no \\x93NUMPY magic)");
    free(a.b);
    a = copy_of(good), a.b[l.local2 + 30 + 5 + rd16(a.b + l.local2 + 28) + 10] = '[';
    OPEN_FAILS(a, TH_ERR_INVALID, "member 'b.npy': header: the header is not a dict");
    free(a.b);
    /* Corrupt data: found by the CRC-32 when the member is got. */
    a = copy_of(good), a.b[l.cd - 2] ^= 1;
    write_file("bad.npz", a.b, a.n);
    {
        th_npz *z = th_npz_open(path_of("bad.npz"));
        CHECK(z != NULL);
        th_tensor *ok = z ? th_npz_get(z, "a") : NULL;
        CHECK(same(ok, x));
        th_tensor_release(ok);
        if (z) CHECK_NULL(th_npz_get(z, "b"), TH_ERR_INVALID, "th_npz_get", "member 'b.npy': CRC-32 0x");
        th_npz_close(z);
    }
    free(a.b);
    /* A member announced as deflated whose bytes are not deflate's (zlib) or that cannot be read (no zlib). */
    a = copy_of(good), wr16(a.b + l.cd + 10, 8), wr16(a.b + 8, 8);
    if (zlib) OPEN_FAILS(a, TH_ERR_INVALID, "member 'a.npy': the deflated data inflates to 6 bytes, the directory announces 176");
    else {
        write_file("bad.npz", a.b, a.n);
        th_npz *z = th_npz_open(path_of("bad.npz"));
        CHECK(z && th_npz_is_compressed(z, 0) && th_npz_dtype(z, 0) == TH_DTYPE_INVALID && th_npz_ndim(z, 0) == -1 &&
              th_npz_sizes(z, 0) == NULL && th_npz_dtype(z, 1) == TH_I16);
        if (z) CHECK_NULL(th_npz_get(z, "a"), TH_ERR_UNSUPPORTED, "th_npz_get", "member 'a.npy' is deflated and this "
                          "build has no zlib");
        th_tensor *ok = z ? th_npz_get(z, "b") : NULL;
        CHECK(same(ok, y));
        th_tensor_release(ok);
        th_npz_close(z);
    }
    /* ... announcing more than deflate's ratio can make, or more than TH_NPZ_MAX_MEMBER. */
    big = rd32(a.b + l.cd + 20) * 1100;
    wr32(a.b + l.cd + 24, big), wr32(a.b + 22, big);
    OPEN_FAILS(a, TH_ERR_RANGE, "member 'a.npy': announces");
    free(a.b);
    a = copy_of(good64); /* the central entry's ZIP64 field: usize, csize, offset */
    long x64 = l64.cd + 46 + 5;
    CHECK(rd16(a.b + x64) == 1 && rd16(a.b + x64 + 2) == 24);
    wr64(a.b + x64 + 4, (uint64_t)17 << 30);
    OPEN_FAILS(a, TH_ERR_RANGE, "more than TH_NPZ_MAX_MEMBER");
    wr16(a.b + x64 + 2, 8);
    OPEN_FAILS(a, TH_ERR_INVALID, "member 'a.npy': the ZIP64 extra field (8 bytes) lacks the compressed size");
    wr16(a.b + x64 + 2, 24), wr16(a.b + l64.cd + 30, 30);
    OPEN_FAILS(a, TH_ERR_INVALID, "member 'a.npy': the extra field ends in a 2-byte fragment");
    wr16(a.b + l64.cd + 30, 28);
    wr16(a.b + x64 + 2, 30);
    OPEN_FAILS(a, TH_ERR_INVALID, "extra field 0x0001 of 30 bytes runs past the extra block (24 bytes left)");
    free(a.b);
    /* The ZIP64 end records. */
    long loc = good64.n - 22 - 20, rec = loc - 56;
    CHECK(rd32(good64.b + loc) == 0x07064b50u && rd32(good64.b + rec) == 0x06064b50u);
    a = copy_of(good64), wr64(a.b + loc + 8, (uint64_t)loc - 40);
    OPEN_FAILS(a, TH_ERR_INVALID, "leaves no room for it before the locator");
    wr64(a.b + loc + 8, (uint64_t)rec - 8);
    OPEN_FAILS(a, TH_ERR_INVALID, "no ZIP64 end of central directory record at offset");
    free(a.b);
    a = copy_of(good64), wr64(a.b + rec + 4, 40);
    OPEN_FAILS(a, TH_ERR_INVALID, "its size field says 40 bytes, 44 lie");
    free(a.b);
    a = copy_of(good64), wr32(a.b + loc + 16, 2);
    OPEN_FAILS(a, TH_ERR_UNSUPPORTED, "a split archive (disk 0 of 2)");
    free(a.b);
    a = copy_of(good64), wr64(a.b + rec + 48, (uint64_t)l64.cd + 1);
    OPEN_FAILS(a, TH_ERR_INVALID, "does not end where the end records begin");
    free(a.b);
    /* The local header's ZIP64 sizes, against the central directory's. */
    a = copy_of(good64), wr64(a.b + 30 + 5 + 4, 3);
    OPEN_FAILS(a, TH_ERR_INVALID, "/3 differ from the central directory's");
    free(a.b);
    if (zlib) { /* deflated members that inflate to other sizes than announced, or are cut short */
        CHECK_INT_EQ(th_npz_save(path_of("good.npz"), 2, (const char *const[]){"a", "b"}, two,
                                 &(th_npz_save_options){.compress = true}), TH_OK);
        bytes d = read_file("good.npz");
        layout ld = layout_of(d);
        uint32_t u = rd32(d.b + ld.cd + 24), c = rd32(d.b + ld.cd + 20);
        a = copy_of(d), wr32(a.b + ld.cd + 24, u - 1), wr32(a.b + 22, u - 1);
        OPEN_FAILS(a, TH_ERR_INVALID, "member 'a.npy': the deflated data inflates to more than the");
        wr32(a.b + ld.cd + 24, u + 1), wr32(a.b + 22, u + 1);
        OPEN_FAILS(a, TH_ERR_INVALID, "the deflated data inflates to 176 bytes, the directory announces 177");
        free(a.b);
        a = copy_of(d), wr32(a.b + ld.cd + 20, c - 8), wr32(a.b + 18, c - 8);
        OPEN_FAILS(a, TH_ERR_INVALID, "member 'a.npy': the deflated data ends before its stream does");
        free(a.b);
        /* A corrupt byte in the data of a member bigger than what open inflates: found on get. */
        th_tensor *r = make(TH_F32, 1, (int64_t[]){4000}, NULL, 4000, 9);
        CHECK_INT_EQ(th_npz_save(path_of("good.npz"), 1, (const char *const[]){"r"}, (const th_tensor *const[]){r},
                                 &(th_npz_save_options){.compress = true}), TH_OK);
        bytes rb = read_file("good.npz");
        layout lr = layout_of(rb);
        rb.b[lr.cd - 100] ^= 0x55;
        write_file("bad.npz", rb.b, rb.n);
        th_npz *z = th_npz_open(path_of("bad.npz"));
        CHECK(z != NULL);
        if (z) CHECK_NULL(th_npz_get(z, "r"), TH_ERR_INVALID, "th_npz_get", "member 'r.npy': ");
        th_npz_close(z);
        th_tensor_release(r);
        free(rb.b);
        free(d.b);
    }
    free(good.b);
    free(good64.b);
    th_tensor_release(x);
    th_tensor_release(y);
    CHECK_INT_EQ(remove(path_of("good.npz")), 0);
    CHECK_INT_EQ(remove(path_of("good64.npz")), 0);
    CHECK_INT_EQ(remove(path_of("bad.npz")), 0);
}

static void test_errors(void)
{
    th_tensor *x = make(TH_F32, 1, (int64_t[]){4}, NULL, 4, 1);
    const th_tensor *one[1] = {x};
    CHECK_NULL(th_npz_open(NULL), TH_ERR_INVALID, "th_npz_open", "NULL path");
    CHECK_NULL(th_npz_open(path_of("missing.npz")), TH_ERR_IO, "th_npz_open", "missing.npz");
    CHECK_NULL(th_npz_get(NULL, "a"), TH_ERR_INVALID, "th_npz_get", "NULL archive");
    CHECK(th_npz_count(NULL) == -1 && th_npz_name(NULL, 0) == NULL && th_npz_names(NULL) == NULL &&
          th_npz_find(NULL, "a") == -1 && th_npz_dtype(NULL, 0) == TH_DTYPE_INVALID && th_npz_ndim(NULL, 0) == -1 &&
          th_npz_sizes(NULL, 0) == NULL && !th_npz_is_compressed(NULL, 0) && th_npz_nbytes(NULL, 0) == -1);
    th_npz_close(NULL);
    CHECK_INT_EQ(th_npz_save(path_of("one.npz"), 1, (const char *const[]){"x"}, one, NULL), TH_OK);
    th_npz *z = th_npz_open(path_of("one.npz"));
    CHECK(z != NULL);
    CHECK_NULL(th_npz_get(z, NULL), TH_ERR_INVALID, "th_npz_get", "NULL name");
    CHECK_NULL(th_npz_get(z, "y"), TH_ERR_INVALID, "th_npz_get", "no member 'y'");
    CHECK(th_npz_find(z, "y") == -1 && th_npz_find(z, NULL) == -1 && th_npz_name(z, 1) == NULL &&
          th_npz_name(z, -1) == NULL && th_npz_dtype(z, 1) == TH_DTYPE_INVALID && th_npz_nbytes(z, 2) == -1);
    th_npz_close(z);
    CHECK_INT_EQ(remove(path_of("one.npz")), 0);

    const char *const nm[1] = {"x"};
    CHECK_FAILS(th_npz_save(NULL, 1, nm, one, NULL), TH_ERR_INVALID, "th_npz_save", "NULL path");
    CHECK_FAILS(th_npz_save(path_of("e.npz"), -1, nm, one, NULL), TH_ERR_INVALID, "th_npz_save", "negative count");
    CHECK_FAILS(th_npz_save(path_of("e.npz"), 1, NULL, one, NULL), TH_ERR_INVALID, "th_npz_save", "NULL names");
    CHECK_FAILS(th_npz_save(path_of("e.npz"), 1, (const char *const[]){""}, one, NULL), TH_ERR_INVALID, "th_npz_save",
                "names[0] is empty");
    CHECK_FAILS(th_npz_save(path_of("e.npz"), 1, (const char *const[]){NULL}, one, NULL), TH_ERR_INVALID,
                "th_npz_save", "names[0] is NULL");
    char longname[1100];
    memset(longname, 'n', sizeof longname - 1), longname[sizeof longname - 1] = '\0';
    CHECK_FAILS(th_npz_save(path_of("e.npz"), 1, (const char *const[]){longname}, one, NULL), TH_ERR_INVALID,
                "th_npz_save", "longer than 1000 bytes");
    CHECK_FAILS(th_npz_save(path_of("e.npz"), 1, nm, (const th_tensor *const[]){NULL}, NULL), TH_ERR_INVALID,
                "th_npz_save", "tensors[0] is NULL");
    CHECK_FAILS(th_npz_save(path_of("e.npz"), 2, (const char *const[]){"x", "x"}, (const th_tensor *const[]){x, x},
                            NULL), TH_ERR_INVALID, "th_npz_save", "names[0] and names[1] are both 'x'");
    CHECK_FAILS(th_npz_save(path_of("e.npz"), 1, nm, one, &(th_npz_save_options){.level = 10}), TH_ERR_INVALID,
                "th_npz_save", "level 10 is not 0..9");
    if (!zlib)
        CHECK_FAILS(th_npz_save(path_of("e.npz"), 1, nm, one, &(th_npz_save_options){.compress = true}),
                    TH_ERR_UNSUPPORTED, "th_npz_save", "compress: this build has no zlib");
    /* A tensor NumPy cannot hold, after one that was written: no file is left behind, not even a temporary one. */
    if (th_dtype_info(TH_BF16)->stamped) {
        th_tensor *b = make(TH_BF16, 1, (int64_t[]){2}, NULL, 2, 3);
        CHECK_FAILS(th_npz_save(path_of("e.npz"), 2, (const char *const[]){"x", "b"}, (const th_tensor *const[]){x, b},
                                NULL), TH_ERR_DTYPE, "th_npz_save", "bf16 has no NumPy dtype");
        th_tensor_release(b);
    }
    CHECK_INT_EQ(files_in_dir(), 0);
    th_tensor_release(x);
}

#ifdef TH_NPZ_OWN_TU
/* The CRC-32 of the own implementation against the check value of the standard ("123456789"). */
static void test_crc(void)
{
    CHECK_INT_EQ(th__crc32(0, (const unsigned char *)"123456789", 9), 0xCBF43926u);
    CHECK_INT_EQ(th__crc32(th__crc32(0, (const unsigned char *)"1234", 4), (const unsigned char *)"56789", 5),
                 0xCBF43926u);
    CHECK_INT_EQ(th__crc32(0, NULL, 0), 0);
    /* A long run (eight tables) against the same bytes fed in short pieces (one table). */
    static unsigned char buf[10007];
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)(i * 131 + (i >> 7));
    uint32_t pieces = 0;
    for (size_t i = 0; i < sizeof buf; i += 1000)
        pieces = th__crc32(pieces, buf + i, sizeof buf - i < 1000 ? sizeof buf - i : 1000);
    CHECK_INT_EQ(th__crc32(0, buf, sizeof buf), pieces);
}
#endif

int main(void)
{
    test_begin();
    snprintf(dir, sizeof dir, "test_npz_%s_XXXXXX", zlib ? "zlib" : "nozlib");
    CHECK(mkdtemp(dir) != NULL);
#ifdef TH_NPZ_OWN_TU
    test_crc();
#endif
    test_round_trips();
    test_malformed();
    test_errors();
    CHECK_INT_EQ(files_in_dir(), 0);
    CHECK_INT_EQ(rmdir(dir), 0);
    return test_end(zlib ? "npz" : "npz_nozlib");
}
