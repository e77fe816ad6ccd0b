/* GGUF files (core/gguf.h): files built here byte by byte, little- and big-endian, versions 2 and 3: the index
 * (names, types, sizes outermost first, offsets), the metadata of every value type with nested arrays, every
 * plain tensor type as a view or (big-endian, misaligned) a converted copy, raw blocks, the dequantisers against
 * values worked out by hand, the getters' errors, a corpus of malformed files each with its expected error, and
 * every prefix of a valid file refused.
 *
 * The gguf package's own files (its writer, its quantisers): tests/numpy/gguf_files.c. */
#define _POSIX_C_SOURCE 200809L
#include "check.h"

#include <stdlib.h>
#include <unistd.h>

static char dir[256];

static const char *path_of(const char *name)
{
    static char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return p;
}

/* A file being built: bytes in the chosen byte order. */
typedef struct buf {
    unsigned char *p;
    size_t n, cap;
    bool big;
} buf;

static void put(buf *b, const void *data, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2 + 64;
        b->p = (unsigned char *)realloc(b->p, b->cap);
    }
    if (n) memcpy(b->p + b->n, data, n);
    b->n += n;
}

static void put_uint(buf *b, uint64_t v, int n)
{
    unsigned char c[8];
    for (int k = 0; k < n; k++) c[k] = (unsigned char)(v >> (8 * (b->big ? n - 1 - k : k)));
    put(b, c, (size_t)n);
}

static void put_u8(buf *b, unsigned v) { put_uint(b, v, 1); }
static void put_u32(buf *b, uint32_t v) { put_uint(b, v, 4); }
static void put_u64(buf *b, uint64_t v) { put_uint(b, v, 8); }

static void put_str(buf *b, const char *s)
{
    put_u64(b, strlen(s));
    put(b, s, strlen(s));
}

static void put_f32(buf *b, float x)
{
    uint32_t u;
    memcpy(&u, &x, 4);
    put_u32(b, u);
}

static void put_f64(buf *b, double x)
{
    uint64_t u;
    memcpy(&u, &x, 8);
    put_u64(b, u);
}

static void pad_to(buf *b, size_t align)
{
    while (b->n % align) put_u8(b, 0);
}

static void header(buf *b, uint32_t version, uint64_t nt, uint64_t nkv)
{
    put(b, "GGUF", 4);
    put_u32(b, version);
    put_u64(b, nt);
    put_u64(b, nkv);
}

static void save(const char *name, const buf *b)
{
    FILE *f = fopen(path_of(name), "wb");
    CHECK(f && fwrite(b->p, 1, b->n, f) == b->n);
    if (f) fclose(f);
}

/* A tensor info: name, dims innermost first as GGUF stores them, type, offset. */
static void info(buf *b, const char *name, int ndim, const uint64_t *ne, uint32_t type, uint64_t offset)
{
    put_str(b, name);
    put_u32(b, (uint32_t)ndim);
    for (int d = 0; d < ndim; d++) put_u64(b, ne[d]);
    put_u32(b, type);
    put_u64(b, offset);
}

/* ---- the full file: metadata of every type, every plain tensor type, quantised blocks -------------------- */

enum { N_PLAIN = 8 };
static const struct {
    const char *name;
    uint32_t type;
    th_dtype dtype;
    int size;
} plain[N_PLAIN] = {{"f32", 0, TH_F32, 4}, {"f16", 1, TH_F16, 2}, {"bf16", 30, TH_BF16, 2}, {"f64", 28, TH_F64, 8},
                    {"i8", 24, TH_I8, 1},  {"i16", 25, TH_I16, 2}, {"i32", 26, TH_I32, 4},  {"i64", 27, TH_I64, 8}};

/* Element k of plain tensor t, as its dtype's bits (the value k - 2 in that dtype). */
static uint64_t plain_bits(int t, int k)
{
    int v = k - 2;
    switch (plain[t].dtype) {
    case TH_F32: {
        float x = (float)v;
        uint32_t u;
        memcpy(&u, &x, 4);
        return u;
    }
    case TH_F16: return th_float16_from_float((float)v).bits;
    case TH_BF16: return th_bfloat16_from_float((float)v).bits;
    case TH_F64: {
        double x = v;
        uint64_t u;
        memcpy(&u, &x, 8);
        return u;
    }
    default: return (uint64_t)(int64_t)v;
    }
}

/* Q8_0 block: d = 0.5, q = j - 16. Q4_0: d = 2, nibbles j % 16. Q4_1: d = 0.25, m = -1, nibbles 15 - j % 16.
 * Q5_0: d = 1, qh 0xf0f0f0f0, nibbles j % 16. Q5_1: d = 0.5, m = 3, qh 0x0000ffff, nibbles j % 16. */
static void quant_blocks(buf *b, int type)
{
    uint16_t half = 0x3c00; /* 1.0 */
    switch (type) {
    case 8:
        put_uint(b, 0x3800, 2); /* 0.5 */
        for (int j = 0; j < 32; j++) put_u8(b, (unsigned)(unsigned char)(signed char)(j - 16));
        break;
    case 2:
        put_uint(b, 0x4000, 2); /* 2 */
        for (int j = 0; j < 16; j++) put_u8(b, (unsigned)(j | j << 4));
        break;
    case 3:
        put_uint(b, 0x3400, 2); /* 0.25 */
        put_uint(b, 0xbc00, 2); /* -1 */
        for (int j = 0; j < 16; j++) put_u8(b, (unsigned)((15 - j) | (15 - j) << 4));
        break;
    case 6:
        put_uint(b, half, 2);
        put_u32(b, 0xf0f0f0f0u);
        for (int j = 0; j < 16; j++) put_u8(b, (unsigned)(j | j << 4));
        break;
    case 7:
        put_uint(b, 0x3800, 2); /* 0.5 */
        put_uint(b, 0x4200, 2); /* 3 */
        put_u32(b, 0x0000ffffu);
        for (int j = 0; j < 16; j++) put_u8(b, (unsigned)(j | j << 4));
        break;
    default: /* Q4_K: 144 bytes, never decoded */
        for (int j = 0; j < 144; j++) put_u8(b, (unsigned)j);
    }
}

/* The value j of the block quant_blocks writes. */
static float quant_value(int type, int j)
{
    int nib = j % 16;
    switch (type) {
    case 8: return 0.5f * (float)(j - 16);
    case 2: return 2.0f * (float)(nib - 8);
    case 3: return 0.25f * (float)(15 - nib) - 1.0f;
    case 6: return (float)((nib | (int)((0xf0f0f0f0u >> j & 1) << 4)) - 16);
    default: return 0.5f * (float)(nib | (int)((0x0000ffffu >> j & 1) << 4)) + 3.0f;
    }
}

static const int quant_types[6] = {8, 2, 3, 6, 7, 12};
static const char *const quant_names[6] = {"Q8_0", "Q4_0", "Q4_1", "Q5_0", "Q5_1", "Q4_K"};
static const int quant_bytes[6] = {34, 18, 20, 22, 24, 144};

/* The keys: one of every scalar type, a string, arrays of numbers, bools and strings, arrays of arrays. */
static void metadata(buf *b)
{
    put_str(b, "u8"); put_u32(b, 0); put_u8(b, 200);
    put_str(b, "i8"); put_u32(b, 1); put_u8(b, 0x80);
    put_str(b, "u16"); put_u32(b, 2); put_uint(b, 60000, 2);
    put_str(b, "i16"); put_u32(b, 3); put_uint(b, 0x8001, 2);
    put_str(b, "u32"); put_u32(b, 4); put_u32(b, 4000000000u);
    put_str(b, "i32"); put_u32(b, 5); put_u32(b, 0xfffffffeu);
    put_str(b, "f32"); put_u32(b, 6); put_f32(b, 1.5f);
    put_str(b, "bool"); put_u32(b, 7); put_u8(b, 1);
    put_str(b, "general.name"); put_u32(b, 8); put_str(b, "t\xc3\xa9st");
    put_str(b, "u64"); put_u32(b, 10); put_u64(b, UINT64_MAX);
    put_str(b, "i64"); put_u32(b, 11); put_u64(b, (uint64_t)INT64_MIN);
    put_str(b, "f64"); put_u32(b, 12); put_f64(b, -0.1);
    put_str(b, "arr.i16"); put_u32(b, 9); put_u32(b, 3); put_u64(b, 3);
    put_uint(b, 1, 2); put_uint(b, 0xffff, 2); put_uint(b, 300, 2);
    put_str(b, "arr.bool"); put_u32(b, 9); put_u32(b, 7); put_u64(b, 2); put_u8(b, 0); put_u8(b, 1);
    put_str(b, "arr.str"); put_u32(b, 9); put_u32(b, 8); put_u64(b, 2); put_str(b, "a"); put_str(b, "");
    /* [[1, 2], [], [[7]]]: arrays of arrays, the last one of arrays again */
    put_str(b, "arr.nested"); put_u32(b, 9); put_u32(b, 9); put_u64(b, 3);
    put_u32(b, 5); put_u64(b, 2); put_u32(b, 1); put_u32(b, 2);
    put_u32(b, 5); put_u64(b, 0);
    put_u32(b, 9); put_u64(b, 1); put_u32(b, 5); put_u64(b, 1); put_u32(b, 7);
    put_str(b, "general.alignment"); put_u32(b, 4); put_u32(b, 32);
}
enum { N_KV = 17 };

/* The whole file: the plain tensors of 2x3 (ne {3, 2}), one block of each quantised type (ne {32}), a 0-d f32
 * and an empty f32 of sizes {0, 4}. */
static void full_file(buf *b, uint32_t version)
{
    int nt = N_PLAIN + 6 + 2;
    header(b, version, (uint64_t)nt, N_KV);
    metadata(b);
    uint64_t at = 0, ne[2] = {3, 2};
    for (int t = 0; t < N_PLAIN; t++) {
        info(b, plain[t].name, 2, ne, plain[t].type, at);
        at += (uint64_t)(6 * plain[t].size + 31) / 32 * 32;
    }
    for (int q = 0; q < 6; q++) {
        uint64_t one = q == 5 ? 256 : 32;
        info(b, quant_names[q], 1, &one, (uint32_t)quant_types[q], at);
        at += (uint64_t)(quant_bytes[q] + 31) / 32 * 32;
    }
    info(b, "scalar", 0, NULL, 0, at);
    uint64_t empty[2] = {4, 0};
    info(b, "empty", 2, empty, 0, at + 32);
    pad_to(b, 32);
    for (int t = 0; t < N_PLAIN; t++) {
        for (int k = 0; k < 6; k++) put_uint(b, plain_bits(t, k), plain[t].size);
        pad_to(b, 32);
    }
    for (int q = 0; q < 6; q++) {
        quant_blocks(b, quant_types[q]);
        pad_to(b, 32);
    }
    put_f32(b, 42.0f);
    pad_to(b, 32);
}

static void check_metadata(th_gguf *f)
{
    CHECK_INT_EQ(th_gguf_kv_count(f), N_KV);
    CHECK(strcmp(th_gguf_key(f, 0), "u8") == 0 && strcmp(th_gguf_key(f, N_KV - 1), "general.alignment") == 0);
    CHECK(th_gguf_key(f, N_KV) == NULL && th_gguf_value_at(f, -1) == NULL);
    const th_gguf_value *v;
#define KV(k) (v = th_gguf_value_at(f, th_gguf_find_key(f, k)))
    CHECK(KV("u8") && v->type == TH_GGUF_UINT8 && v->as.u8 == 200);
    CHECK(KV("i8") && v->type == TH_GGUF_INT8 && v->as.i8 == -128);
    CHECK(KV("u16") && v->type == TH_GGUF_UINT16 && v->as.u16 == 60000);
    CHECK(KV("i16") && v->type == TH_GGUF_INT16 && v->as.i16 == -32767);
    CHECK(KV("u32") && v->type == TH_GGUF_UINT32 && v->as.u32 == 4000000000u);
    CHECK(KV("i32") && v->type == TH_GGUF_INT32 && v->as.i32 == -2);
    CHECK(KV("f32") && v->type == TH_GGUF_FLOAT32 && v->as.f32 == 1.5f);
    CHECK(KV("bool") && v->type == TH_GGUF_BOOL && v->as.b);
    CHECK(KV("general.name") && v->type == TH_GGUF_STRING && v->as.str.len == 5 &&
          strcmp(v->as.str.data, "t\xc3\xa9st") == 0);
    CHECK(KV("u64") && v->type == TH_GGUF_UINT64 && v->as.u64 == UINT64_MAX);
    CHECK(KV("i64") && v->type == TH_GGUF_INT64 && v->as.i64 == INT64_MIN);
    CHECK(KV("f64") && v->type == TH_GGUF_FLOAT64 && v->as.f64 == -0.1);
    CHECK(KV("arr.i16") && v->type == TH_GGUF_ARRAY && v->as.array.type == TH_GGUF_INT16 && v->as.array.count == 3);
    if (v && v->as.array.count == 3) {
        const int16_t *x = (const int16_t *)v->as.array.items;
        CHECK(x[0] == 1 && x[1] == -1 && x[2] == 300);
    }
    CHECK(KV("arr.bool") && v->as.array.type == TH_GGUF_BOOL && v->as.array.count == 2 &&
          !((const bool *)v->as.array.items)[0] && ((const bool *)v->as.array.items)[1]);
    CHECK(KV("arr.str") && v->as.array.type == TH_GGUF_STRING && v->as.array.count == 2);
    if (v && v->as.array.count == 2) {
        const th_gguf_string *s = (const th_gguf_string *)v->as.array.items;
        CHECK(s[0].len == 1 && strcmp(s[0].data, "a") == 0 && s[1].len == 0 && s[1].data[0] == '\0');
    }
    CHECK(KV("arr.nested") && v->as.array.type == TH_GGUF_ARRAY && v->as.array.count == 3);
    if (v && v->as.array.count == 3) {
        const th_gguf_value *a = (const th_gguf_value *)v->as.array.items;
        CHECK(a[0].type == TH_GGUF_ARRAY && a[0].as.array.type == TH_GGUF_INT32 && a[0].as.array.count == 2 &&
              ((const int32_t *)a[0].as.array.items)[1] == 2);
        CHECK(a[1].as.array.count == 0);
        CHECK(a[2].as.array.type == TH_GGUF_ARRAY && a[2].as.array.count == 1);
        const th_gguf_value *inner = (const th_gguf_value *)a[2].as.array.items;
        CHECK(inner[0].as.array.type == TH_GGUF_INT32 && ((const int32_t *)inner[0].as.array.items)[0] == 7);
    }
    CHECK(th_gguf_find_key(f, "missing") == -1 && th_gguf_find_key(f, NULL) == -1 && th_gguf_find_key(NULL, "u8") == -1);
    CHECK(strcmp(th_gguf_type_string(TH_GGUF_FLOAT64), "FLOAT64") == 0 && strcmp(th_gguf_type_string((th_gguf_type)13), "?") == 0);
#undef KV
}

static void check_full(const char *name, bool big, int version)
{
    th_gguf *f = th_gguf_open(path_of(name));
    CHECK(f != NULL);
    if (!f) {
        fprintf(stderr, "%s: %s\n", name, th_last_error());
        return;
    }
    CHECK_INT_EQ(th_gguf_version(f), version);
    CHECK(th_gguf_big_endian(f) == big);
    CHECK_INT_EQ(th_gguf_alignment(f), 32);
    CHECK_INT_EQ(th_gguf_count(f), N_PLAIN + 8);
    check_metadata(f);
    for (int t = 0; t < N_PLAIN; t++) {
        int i = th_gguf_find(f, plain[t].name);
        CHECK_INT_EQ(i, t);
        CHECK(strcmp(th_gguf_name(f, i), plain[t].name) == 0);
        CHECK_INT_EQ(th_gguf_type_id(f, i), (int)plain[t].type);
        CHECK(th_gguf_dtype(f, i) == plain[t].dtype);
        CHECK(th_gguf_ndim(f, i) == 2 && th_gguf_sizes(f, i)[0] == 2 && th_gguf_sizes(f, i)[1] == 3);
        CHECK_INT_EQ(th_gguf_nbytes(f, i), 6 * plain[t].size);
        th_tensor *x = th_gguf_get(f, plain[t].name);
        CHECK(x != NULL);
        if (!x) continue;
        CHECK(th_tensor_dtype(x) == plain[t].dtype && th_tensor_ndim(x) == 2 && th_tensor_sizes(x)[0] == 2);
        /* A view of the map where the bytes are this host's order; big-endian multi-byte types are copies. */
        CHECK(th_storage_is_mapped(th_tensor_storage(x)) == (!big || plain[t].size == 1));
        const unsigned char *p = (const unsigned char *)th_tensor_data(x);
        bool same = true;
        for (int k = 0; k < 6; k++) {
            uint64_t bits = 0;
            memcpy(&bits, p + k * plain[t].size, (size_t)plain[t].size); /* little-endian host */
            if (plain[t].size < 8) bits &= (1ull << (8 * plain[t].size)) - 1;
            same = same && bits == (plain_bits(t, k) & (plain[t].size < 8 ? (1ull << (8 * plain[t].size)) - 1 : ~0ull));
        }
        CHECK(same);
        th_tensor_release(x);
        if (plain[t].dtype == TH_I8) continue;
        th_tensor *y = th_gguf_dequantize(f, plain[t].name);
        bool floating = plain[t].dtype == TH_F32 || plain[t].dtype == TH_F16 || plain[t].dtype == TH_BF16 ||
                        plain[t].dtype == TH_F64;
        CHECK((y != NULL) == floating);
        if (y) {
            CHECK(th_tensor_dtype(y) == TH_F32 && ((const float *)th_tensor_data(y))[5] == 3.0f);
            th_tensor_release(y);
        }
    }
    for (int q = 0; q < 6; q++) {
        int i = th_gguf_find(f, quant_names[q]);
        CHECK_INT_EQ(i, N_PLAIN + q);
        CHECK(strcmp(th_gguf_type_name(f, i), quant_names[q]) == 0 && th_gguf_dtype(f, i) == TH_DTYPE_INVALID);
        CHECK_INT_EQ(th_gguf_nbytes(f, i), quant_bytes[q]);
        CHECK_NULL(th_gguf_get(f, quant_names[q]), TH_ERR_DTYPE, "th_gguf_get", "a quantised type");
        th_tensor *raw = th_gguf_get_raw(f, quant_names[q]);
        CHECK(raw && th_tensor_dtype(raw) == TH_U8 && th_tensor_ndim(raw) == 1 &&
              th_tensor_sizes(raw)[0] == quant_bytes[q] && th_storage_is_mapped(th_tensor_storage(raw)));
        th_tensor_release(raw);
        if (q == 5) {
            CHECK_NULL(th_gguf_dequantize(f, "Q4_K"), TH_ERR_DTYPE, "th_gguf_dequantize", "is Q4_K, which has no dequantiser");
            CHECK_INT_EQ(th_gguf_sizes(f, i)[0], 256);
            continue;
        }
        th_tensor *y = th_gguf_dequantize(f, quant_names[q]);
        CHECK(y && th_tensor_dtype(y) == TH_F32 && th_tensor_numel(y) == 32);
        if (!y) continue;
        bool same = true;
        for (int j = 0; j < 32; j++)
            if (same && ((const float *)th_tensor_data(y))[j] != quant_value(quant_types[q], j)) {
                fprintf(stderr, "%s: %s: value %d is %g, not %g\n", name, quant_names[q], j,
                        ((const float *)th_tensor_data(y))[j], quant_value(quant_types[q], j));
                same = false;
            }
        CHECK(same);
        th_tensor_release(y);
    }
    th_tensor *s = th_gguf_get(f, "scalar"), *e = th_gguf_get(f, "empty");
    CHECK(s && th_tensor_ndim(s) == 0 && *(const float *)th_tensor_data(s) == 42.0f);
    CHECK(e && th_tensor_ndim(e) == 2 && th_tensor_sizes(e)[0] == 0 && th_tensor_sizes(e)[1] == 4 &&
          !th_storage_is_mapped(th_tensor_storage(e)));
    th_tensor *sr = th_gguf_get_raw(f, "scalar");
    CHECK(sr && th_tensor_ndim(sr) == 1 && th_tensor_sizes(sr)[0] == 4);
    th_tensor_release(sr);
    th_tensor_release(s);
    th_gguf_close(f); /* the tensor outlives the file */
    CHECK(e && th_tensor_numel(e) == 0);
    th_tensor_release(e);
}

static void test_files(void)
{
    for (int v = 2; v <= 3; v++)
        for (int big = 0; big < 2; big++) {
            buf b = {NULL, 0, 0, big != 0};
            full_file(&b, (uint32_t)v);
            save("full.gguf", &b);
            check_full("full.gguf", big != 0, v);
            free(b.p);
        }
}

/* general.alignment 1: a tensor at an odd offset is a converted copy, its values still right. */
static void test_alignment_one(void)
{
    buf b = {NULL, 0, 0, false};
    header(&b, 3, 2, 1);
    put_str(&b, "general.alignment"); put_u32(&b, 4); put_u32(&b, 1);
    uint64_t two = 2;
    info(&b, "a", 1, &two, 24, 0);
    info(&b, "b", 1, &two, 0, 2);
    put_u8(&b, 5);
    put_u8(&b, 6); /* the header's 123 bytes and these 2: b starts at byte 125 of the file */
    put_f32(&b, 1.25f);
    put_f32(&b, -2.0f);
    save("align1.gguf", &b);
    free(b.p);
    th_gguf *f = th_gguf_open(path_of("align1.gguf"));
    CHECK(f && th_gguf_alignment(f) == 1 && th_gguf_offset(f, 1) == 2);
    if (!f) fprintf(stderr, "align1.gguf: %s\n", th_last_error());
    th_tensor *x = f ? th_gguf_get(f, "b") : NULL;
    CHECK(x && !th_storage_is_mapped(th_tensor_storage(x)) && ((const float *)th_tensor_data(x))[0] == 1.25f &&
          ((const float *)th_tensor_data(x))[1] == -2.0f);
    th_tensor_release(x);
    th_gguf_close(f);
}

static void test_getter_errors(void)
{
    buf b = {NULL, 0, 0, false};
    full_file(&b, 3);
    save("full.gguf", &b);
    free(b.p);
    th_gguf *f = th_gguf_open(path_of("full.gguf"));
    CHECK_NULL(th_gguf_get(NULL, "f32"), TH_ERR_INVALID, "th_gguf_get", "NULL file");
    CHECK_NULL(th_gguf_get(f, NULL), TH_ERR_INVALID, "th_gguf_get", "NULL name");
    CHECK_NULL(th_gguf_get(f, "nope"), TH_ERR_INVALID, "th_gguf_get", "has no tensor 'nope'");
    CHECK_NULL(th_gguf_get_raw(f, "nope"), TH_ERR_INVALID, "th_gguf_get_raw", "has no tensor 'nope'");
    CHECK_NULL(th_gguf_dequantize(NULL, "x"), TH_ERR_INVALID, "th_gguf_dequantize", "NULL file");
    CHECK_NULL(th_gguf_dequantize(f, "i16"), TH_ERR_DTYPE, "th_gguf_dequantize", "is I16, which has no dequantiser");
    CHECK_NULL(th_gguf_get(f, "Q8_0"), TH_ERR_DTYPE, "th_gguf_get", "th_gguf_dequantize its values as f32");
    CHECK(th_gguf_find(f, NULL) == -1 && th_gguf_find(NULL, "a") == -1 && th_gguf_name(f, 99) == NULL &&
          th_gguf_type_name(f, -1) == NULL && th_gguf_dtype(f, 99) == TH_DTYPE_INVALID && th_gguf_ndim(f, 99) == -1 &&
          th_gguf_sizes(f, 99) == NULL && th_gguf_nbytes(f, 99) == -1 && th_gguf_offset(f, 99) == -1 &&
          th_gguf_type_id(f, 99) == -1);
    CHECK(th_gguf_count(NULL) == -1 && th_gguf_kv_count(NULL) == -1 && th_gguf_version(NULL) == -1 &&
          !th_gguf_big_endian(NULL) && th_gguf_alignment(NULL) == -1);
    th_gguf_close(f);
    th_gguf_close(NULL);
    CHECK_NULL(th_gguf_open(path_of("missing.gguf")), TH_ERR_IO, "th_gguf_open", "missing.gguf");
    CHECK_NULL(th_gguf_open(NULL), TH_ERR_INVALID, "th_gguf_open", "NULL");
}

/* Every prefix of the valid file is refused with a message, and nothing leaks (test_end counts). */
static void test_prefixes(void)
{
    buf b = {NULL, 0, 0, false};
    full_file(&b, 3);
    int refused = 0;
    for (size_t n = 0; n < b.n; n++) {
        buf p = {b.p, n, n, false};
        save("prefix.gguf", &p);
        th_clear_error();
        th_gguf *f = th_gguf_open(path_of("prefix.gguf"));
        refused += f == NULL && th_last_status() != TH_OK && strncmp(th_last_error(), "th_gguf_open: ", 14) == 0;
        if (f) fprintf(stderr, "prefix of %zu bytes opened\n", n);
        th_gguf_close(f);
    }
    CHECK_INT_EQ(refused, (int)b.n);
    free(b.p);
}

/* ---- the malformed corpus --------------------------------------------------------------------------------- */

typedef void (*maker)(buf *b);

static void m_magic(buf *b) { put(b, "GGUG", 4); put_u32(b, 3); put_u64(b, 0); put_u64(b, 0); }
static void m_version1(buf *b) { header(b, 1, 0, 0); }
static void m_version4(buf *b) { header(b, 4, 0, 0); }
static void m_kv_count(buf *b) { header(b, 3, 0, 1000); }
static void m_tensor_count(buf *b) { header(b, 3, UINT64_MAX, 0); }
static void m_key_long(buf *b) { header(b, 3, 0, 1); put_u64(b, 65536); for (int k = 0; k < 65540; k++) put_u8(b, 'a'); }
static void m_key_past(buf *b) { header(b, 3, 0, 1); put_u64(b, 1000); put(b, "abcdefghijklm", 13); }
static void m_key_utf8(buf *b) { header(b, 3, 0, 1); put_u64(b, 2); put(b, "\xc0\x80", 2); put_u32(b, 0); put_u8(b, 0); }
static void m_key_nul(buf *b) { header(b, 3, 0, 1); put_u64(b, 3); put(b, "a\0b", 3); put_u32(b, 0); put_u8(b, 0); }
static void m_value_type(buf *b) { header(b, 3, 0, 1); put_str(b, "k"); put_u32(b, 13); put_u64(b, 0); }
static void m_bool(buf *b) { header(b, 3, 0, 1); put_str(b, "k"); put_u32(b, 7); put_u8(b, 2); }
static void m_dup_key(buf *b)
{
    header(b, 3, 0, 2);
    put_str(b, "k"); put_u32(b, 0); put_u8(b, 1);
    put_str(b, "k"); put_u32(b, 0); put_u8(b, 2);
}
static void m_array_count(buf *b) { header(b, 3, 0, 1); put_str(b, "k"); put_u32(b, 9); put_u32(b, 10); put_u64(b, 1ull << 40); put_u64(b, 0); }
static void m_array_type(buf *b) { header(b, 3, 0, 1); put_str(b, "k"); put_u32(b, 9); put_u32(b, 99); put_u64(b, 1); put_u64(b, 0); }
static void m_array_str_past(buf *b)
{
    header(b, 3, 0, 1); put_str(b, "k"); put_u32(b, 9); put_u32(b, 8); put_u64(b, 1); put_u64(b, 99); put_u64(b, 0);
}
static void m_deep(buf *b)
{
    header(b, 3, 0, 1);
    put_str(b, "k");
    put_u32(b, 9);
    for (int d = 0; d < 17; d++) { put_u32(b, 9); put_u64(b, 1); }
    put_u32(b, 0); put_u64(b, 0);
    for (int k = 0; k < 64; k++) put_u8(b, 0);
}
static void m_align_type(buf *b) { header(b, 3, 0, 1); put_str(b, "general.alignment"); put_u32(b, 10); put_u64(b, 32); }
static void m_align_pow2(buf *b) { header(b, 3, 0, 1); put_str(b, "general.alignment"); put_u32(b, 4); put_u32(b, 24); }
static void m_align_zero(buf *b) { header(b, 3, 0, 1); put_str(b, "general.alignment"); put_u32(b, 4); put_u32(b, 0); }
static void one_tensor(buf *b, const char *name, int ndim, const uint64_t *ne, uint32_t type, uint64_t offset, size_t data)
{
    header(b, 3, 1, 0);
    info(b, name, ndim, ne, type, offset);
    pad_to(b, 32);
    for (size_t k = 0; k < data; k++) put_u8(b, 0);
}
static const uint64_t ne4[1] = {4};
static void m_ndim(buf *b) { uint64_t ne[17] = {0}; one_tensor(b, "t", 17, ne, 0, 0, 0); }
static void m_dim_big(buf *b) { uint64_t ne[1] = {1ull << 63}; one_tensor(b, "t", 1, ne, 0, 0, 0); }
static void m_numel_overflow(buf *b) { uint64_t ne[3] = {1ull << 30, 1ull << 30, 1ull << 30}; one_tensor(b, "t", 3, ne, 0, 0, 0); }
static void m_zero_overflow(buf *b) { uint64_t ne[3] = {0, 1ull << 40, 1ull << 40}; one_tensor(b, "t", 3, ne, 0, 0, 0); }
static void m_bytes_overflow(buf *b) { uint64_t ne[2] = {1ull << 31, 1ull << 31}; one_tensor(b, "t", 2, ne, 28, 0, 0); }
static void m_type(buf *b) { one_tensor(b, "t", 1, ne4, 4, 0, 16); }
static void m_type_huge(buf *b) { one_tensor(b, "t", 1, ne4, 0xffffffffu, 0, 16); }
static void m_block(buf *b) { uint64_t ne[1] = {48}; one_tensor(b, "t", 1, ne, 8, 0, 64); }
static void m_offset_unaligned(buf *b) { one_tensor(b, "t", 1, ne4, 0, 4, 64); }
static void m_offset_past(buf *b) { one_tensor(b, "t", 1, ne4, 0, 32, 32); }
static void m_offset_huge(buf *b) { one_tensor(b, "t", 1, ne4, 0, UINT64_MAX - 31, 32); }
static void m_data_short(buf *b) { one_tensor(b, "t", 1, ne4, 0, 0, 15); }
static void m_name_long(buf *b) { header(b, 3, 1, 0); put_u64(b, 70000); for (int k = 0; k < 70000; k++) put_u8(b, 'n'); }
static void two_tensors(buf *b, const char *n1, const char *n2, uint64_t off2)
{
    header(b, 3, 2, 0);
    info(b, n1, 1, ne4, 0, 0);
    info(b, n2, 1, ne4, 0, off2);
    pad_to(b, 32);
    for (int k = 0; k < 96; k++) put_u8(b, 0);
}
static void m_dup_tensor(buf *b) { two_tensors(b, "t", "t", 32); }
static void m_overlap(buf *b) { two_tensors(b, "a", "b", 0); }
static void m_order(buf *b)
{
    header(b, 3, 2, 0);
    info(b, "a", 1, ne4, 0, 32);
    info(b, "b", 1, ne4, 0, 0);
    pad_to(b, 32);
    for (int k = 0; k < 64; k++) put_u8(b, 0);
}
static void m_truncated_info(buf *b) { header(b, 3, 1, 0); put_str(b, "t"); put_u32(b, 1); put_u64(b, 4); put(b, "xyz", 3); }

static void test_malformed(void)
{
    static const struct {
        maker make;
        th_status status;
        const char *detail;
    } bad[] = {
        {m_magic, TH_ERR_INVALID, "not a GGUF file: it does not start with 'GGUF'"},
        {m_version1, TH_ERR_INVALID, "GGUF version: neither is 2 or 3"},
        {m_version4, TH_ERR_INVALID, "neither is 2 or 3"},
        {m_kv_count, TH_ERR_INVALID, "1000 key/values and 0 tensors need more than the 0 bytes left"},
        {m_tensor_count, TH_ERR_INVALID, "18446744073709551615 tensors need more than"},
        {m_key_long, TH_ERR_INVALID, "key 0 is 65536 bytes long, more than 65535 (TH_GGUF_MAX_NAME)"},
        {m_key_past, TH_ERR_INVALID, "key 0's length 1000 at byte 24 reaches past the file's"},
        {m_key_utf8, TH_ERR_INVALID, "key 0 at byte 32 is not UTF-8"},
        {m_key_nul, TH_ERR_INVALID, "key 0 'a' holds a NUL byte"},
        {m_value_type, TH_ERR_INVALID, "the value of 'k': unknown value type 13"},
        {m_bool, TH_ERR_INVALID, "the value of 'k': a bool of value 2 (0 or 1)"},
        {m_dup_key, TH_ERR_INVALID, "the key 'k' twice"},
        {m_array_count, TH_ERR_INVALID, "an array of 1099511627776 UINT64 items needs more than the 8 bytes left"},
        {m_array_type, TH_ERR_INVALID, "an array of unknown value type 99"},
        {m_array_str_past, TH_ERR_INVALID, "the value of 'k''s length 99"},
        {m_deep, TH_ERR_INVALID, "arrays nested more than 16 deep (TH_GGUF_MAX_DEPTH)"},
        {m_align_type, TH_ERR_INVALID, "general.alignment is UINT64 0, not a UINT32 power of two"},
        {m_align_pow2, TH_ERR_INVALID, "general.alignment is UINT32 24, not a UINT32 power of two"},
        {m_align_zero, TH_ERR_INVALID, "general.alignment is UINT32 0"},
        {m_ndim, TH_ERR_RANGE, "tensor 't' has 17 dims, more than 16 (TH_MAX_DIMS)"},
        {m_dim_big, TH_ERR_RANGE, "tensor 't': dim 0 is 9223372036854775808, past int64"},
        {m_numel_overflow, TH_ERR_OVERFLOW, "tensor 't': the number of elements overflows int64"},
        {m_zero_overflow, TH_ERR_OVERFLOW, "tensor 't': the number of elements overflows int64"},
        {m_bytes_overflow, TH_ERR_OVERFLOW, "tensor 't': the byte size overflows int64"},
        {m_type, TH_ERR_DTYPE, "tensor 't': unknown GGML type number 4"},
        {m_type_huge, TH_ERR_DTYPE, "unknown GGML type number 4294967295"},
        {m_block, TH_ERR_INVALID, "tensor 't': its first dim 48 is not a whole number of Q8_0's blocks of 32"},
        {m_offset_unaligned, TH_ERR_INVALID, "tensor 't': offset 4 is not a multiple of the alignment 32"},
        {m_offset_past, TH_ERR_INVALID, "tensor 't': its 16 bytes at offset 32 reach past the 32 bytes of data"},
        {m_offset_huge, TH_ERR_INVALID, "reach past the 32 bytes of data"},
        {m_data_short, TH_ERR_INVALID, "tensor 't': its 16 bytes at offset 0 reach past the 15 bytes of data"},
        {m_name_long, TH_ERR_INVALID, "the name of tensor 0 is 70000 bytes long, more than 65535"},
        {m_dup_tensor, TH_ERR_INVALID, "the tensor 't' twice"},
        {m_overlap, TH_ERR_INVALID, "tensor 'b': offset 0 is before the end (16) of tensor 'a' before it"},
        {m_order, TH_ERR_INVALID, "tensor 'b': offset 0 is before the end (48) of tensor 'a'"},
        {m_truncated_info, TH_ERR_INVALID, "truncated: tensor 't' needs 4 bytes at byte 45, the file has 48"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        for (int big = 0; big < 2; big++) {
            buf b = {NULL, 0, 0, big != 0};
            bad[i].make(&b);
            save("bad.gguf", &b);
            free(b.p);
            CHECK_NULL(th_gguf_open(path_of("bad.gguf")), bad[i].status, "th_gguf_open", bad[i].detail);
        }
    }
}

int main(void)
{
    test_begin();
    snprintf(dir, sizeof dir, "test_gguf_XXXXXX");
    CHECK(mkdtemp(dir) != NULL);
    test_files();
    test_alignment_one();
    test_getter_errors();
    test_prefixes();
    test_malformed();
    const char *files[] = {"full.gguf", "align1.gguf", "prefix.gguf", "bad.gguf"};
    for (int i = 0; i < 4; i++) CHECK_INT_EQ(remove(path_of(files[i])), 0);
    if (!getenv("KEEP")) CHECK_INT_EQ(rmdir(dir), 0);
    return test_end("gguf");
}
