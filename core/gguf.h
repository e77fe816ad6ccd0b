/* core/gguf.h: GGUF files (llama.cpp's weights), read only: the header parsed strictly into a lazy index of
 * tensors and a walkable tree of metadata, tensors loaded by name as views of the mapped file where the bytes
 * allow it, quantised blocks as raw bytes, Q4_0, Q4_1, Q5_0, Q5_1 and Q8_0 dequantised to f32.
 * Part of tensor.h, which includes it twice: its declarations, then (TH__DEFINING) its definitions. */
#ifndef TENSOR_H
#error "core/gguf.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

/* The limits of the parser: a key or tensor name of more bytes (GGUF's own limit for keys), arrays nested
 * deeper, are refused before anything is allocated for them. */
#define TH_GGUF_MAX_NAME 65535
#define TH_GGUF_MAX_DEPTH 16

/* An open GGUF file: its index, its metadata and one mapping of the whole file, shared by the tensors got
 * from it. */
typedef struct th_gguf th_gguf;

/* GGUF's metadata value types, with the file's numbers. */
typedef enum th_gguf_type {
    TH_GGUF_UINT8 = 0, TH_GGUF_INT8 = 1, TH_GGUF_UINT16 = 2, TH_GGUF_INT16 = 3, TH_GGUF_UINT32 = 4,
    TH_GGUF_INT32 = 5, TH_GGUF_FLOAT32 = 6, TH_GGUF_BOOL = 7, TH_GGUF_STRING = 8, TH_GGUF_ARRAY = 9,
    TH_GGUF_UINT64 = 10, TH_GGUF_INT64 = 11, TH_GGUF_FLOAT64 = 12
} th_gguf_type;

/* A string of the file: len bytes of UTF-8 (checked), which may hold NUL bytes; data has a NUL after them. */
typedef struct th_gguf_string {
    uint64_t len;
    const char *data;
} th_gguf_string;

/* A metadata value, in this machine's byte order, valid until th_gguf_close. An array's items are a C array
 * of count elements of its item type: uint8_t ... double for the numbers, bool for TH_GGUF_BOOL,
 * th_gguf_string for strings, th_gguf_value (each itself an array) for arrays of arrays. */
typedef struct th_gguf_value {
    th_gguf_type type;
    union {
        uint8_t u8; int8_t i8; uint16_t u16; int16_t i16; uint32_t u32; int32_t i32; uint64_t u64; int64_t i64;
        float f32; double f64; bool b;
        th_gguf_string str;
        struct {
            th_gguf_type type;
            uint64_t count;
            const void *items;
        } array;
    } as;
} th_gguf_value;

/* Opens the file at path: maps it once (reads it where the build cannot map), parses and checks the header
 * (GGUF versions 2 and 3, either byte order) and reads no tensor data. NULL on error, the path, the field and
 * the bad value in the message: TH_ERR_IO (a missing or unreadable file), TH_ERR_INVALID (not GGUF, another
 * version, a truncated header, a count or length past the file's bytes, a string that is not UTF-8, a key or
 * name longer than TH_GGUF_MAX_NAME, arrays nested deeper than TH_GGUF_MAX_DEPTH, an unknown value type, a bool
 * not 0 or 1, duplicate keys or tensor names, a general.alignment that is not a uint32 power of two, a tensor's
 * offset unaligned, before the previous tensor's end or its bytes past the file, a first dim that is not a
 * whole number of its type's blocks), TH_ERR_DTYPE (an unknown tensor type number), TH_ERR_RANGE (more than
 * TH_MAX_DIMS dims, a dim past int64), TH_ERR_OVERFLOW (a shape whose byte size overflows). */
TH_API th_gguf *th_gguf_open(const char *path);
/* Lets go of the file; tensors got from it stay valid (they hold the mapping). NULL is ignored. */
TH_API void th_gguf_close(th_gguf *f);
/* The file's version (2 or 3), whether it is big-endian, and its data alignment (general.alignment, else 32). */
TH_API int th_gguf_version(const th_gguf *f);
TH_API bool th_gguf_big_endian(const th_gguf *f);
TH_API int64_t th_gguf_alignment(const th_gguf *f);

/* The tensors, in the file's order: their number (-1 for NULL), the i-th one's name, the index of the one called
 * name (-1 if none, no error recorded). NULL / -1 for an i out of range. */
TH_API int th_gguf_count(const th_gguf *f);
TH_API const char *th_gguf_name(const th_gguf *f, int i);
TH_API int th_gguf_find(const th_gguf *f, const char *name);
/* The i-th tensor's GGML type number and name ("F32", "Q4_0", "Q6_K"), its dtype (TH_DTYPE_INVALID for a
 * quantised type), its dims and sizes outermost first (GGUF stores them innermost first), its bytes in the
 * file and their offset from the start of the data. */
TH_API int th_gguf_type_id(const th_gguf *f, int i);
TH_API const char *th_gguf_type_name(const th_gguf *f, int i);
TH_API th_dtype th_gguf_dtype(const th_gguf *f, int i);
TH_API int th_gguf_ndim(const th_gguf *f, int i);
TH_API const int64_t *th_gguf_sizes(const th_gguf *f, int i);
TH_API int64_t th_gguf_nbytes(const th_gguf *f, int i);
TH_API int64_t th_gguf_offset(const th_gguf *f, int i);

/* The tensor called name, of type F32, F16, BF16, F64, I8, I16, I32 or I64: a new reference the caller releases,
 * valid after th_gguf_close. A view of the file's private mapping when the data is aligned for the dtype and in
 * this machine's byte order (th_storage_is_mapped(th_tensor_storage(t)) is then true), else a converted copy.
 * NULL on error: TH_ERR_INVALID (NULL, no tensor of that name), TH_ERR_DTYPE (a quantised type: its name in the
 * message; th_gguf_get_raw and th_gguf_dequantize read those). */
TH_API th_tensor *th_gguf_get(th_gguf *f, const char *name);
/* The bytes of the tensor called name, of any type, as a u8 tensor: the sizes outermost first with the last
 * one in bytes (the gguf package's reader's shape: a Q8_0 tensor of sizes {4, 64} is {4, 68}), as the file
 * holds them (its byte order). A view of the mapping. NULL on error: TH_ERR_INVALID, TH_ERR_DTYPE (a build
 * without u8). */
TH_API th_tensor *th_gguf_get_raw(th_gguf *f, const char *name);
/* The tensor called name as a new f32 tensor: Q4_0, Q4_1, Q5_0, Q5_1 and Q8_0 dequantised bit for bit as the
 * gguf package's gguf.quants.dequantize (in a big-endian file the blocks' scales are big-endian, as the
 * package's gguf_convert_endian writes them), F32, F16, BF16 and F64 converted. NULL on error:
 * TH_ERR_INVALID, TH_ERR_DTYPE (another type, named; a build without f32), TH_ERR_NOMEM. */
TH_API th_tensor *th_gguf_dequantize(th_gguf *f, const char *name);

/* The metadata, in the file's order: the number of key/value pairs (-1 for NULL), the i-th key and value
 * (NULL for an i out of range), the index of key (-1 if absent, no error recorded). */
TH_API int th_gguf_kv_count(const th_gguf *f);
TH_API const char *th_gguf_key(const th_gguf *f, int i);
TH_API const th_gguf_value *th_gguf_value_at(const th_gguf *f, int i);
TH_API int th_gguf_find_key(const th_gguf *f, const char *key);
/* The name of a value type ("UINT8", "STRING"...), "?" for a number that is none. */
TH_API const char *th_gguf_type_string(th_gguf_type type);

#else /* TH__DEFINING */

#include "gguf_types.h"

typedef struct th__gguf_kv {
    th_gguf_string key;
    th_gguf_value value;
} th__gguf_kv;

/* A block of memory the file's index owns (strings, arrays), freed at close. */
typedef struct th__gguf_block {
    struct th__gguf_block *next;
    max_align_t align[1];
} th__gguf_block;

struct th_gguf {
    th_storage *file;
    char *where; /* "'path'" for the messages */
    int version;
    bool big;
    int64_t alignment, data_start;
    int count, kv_count;
    th__file_entry *entries; /* in the file's order */
    int *by_name;            /* entries' indices sorted by name */
    th__gguf_kv *kvs;
    th__gguf_block *blocks;
};

/* The parser's place in the file. */
typedef struct th__gguf_rd {
    const char *fn, *where;
    const unsigned char *data;
    int64_t len, at;
    bool big;
    th_gguf *f;
} th__gguf_rd;

static int th__gguf_short(th__gguf_rd *r, int64_t need, const char *what)
{
    return th__fail(TH_ERR_INVALID, r->fn, "%s: truncated: %s needs %lld bytes at byte %lld, the file has %lld",
                    r->where, what, (long long)need, (long long)r->at, (long long)r->len);
}

/* An unsigned integer of n bytes (1, 2, 4, 8) in the file's byte order. */
static int th__gguf_uint(th__gguf_rd *r, int n, uint64_t *v, const char *what)
{
    *v = 0;
    if (r->len - r->at < n) return th__gguf_short(r, n, what);
    uint64_t x = 0;
    for (int k = 0; k < n; k++) x |= (uint64_t)r->data[r->at + k] << (8 * (r->big ? n - 1 - k : k));
    r->at += n;
    *v = x;
    return TH_OK;
}

static void *th__gguf_alloc(th__gguf_rd *r, size_t n)
{
    th__gguf_block *b = (th__gguf_block *)malloc(offsetof(th__gguf_block, align) + (n ? n : 1));
    if (!b) {
        th__fail(TH_ERR_NOMEM, r->fn, "out of memory for %zu bytes of %s's metadata", n, r->where);
        return NULL;
    }
    b->next = r->f->blocks;
    r->f->blocks = b;
    return b->align;
}

/* A string: a u64 length checked against the bytes left (and max, when not 0), the bytes UTF-8. */
static int th__gguf_string(th__gguf_rd *r, th_gguf_string *s, uint64_t max, const char *what)
{
    uint64_t n;
    if (th__gguf_uint(r, 8, &n, what)) return th_last_status();
    if (max && n > max)
        return th__fail(TH_ERR_INVALID, r->fn, "%s: %s is %llu bytes long, more than %llu (TH_GGUF_MAX_NAME)",
                        r->where, what, (unsigned long long)n, (unsigned long long)max);
    if (n > (uint64_t)(r->len - r->at))
        return th__fail(TH_ERR_INVALID, r->fn, "%s: %s's length %llu at byte %lld reaches past the file's %lld bytes",
                        r->where, what, (unsigned long long)n, (long long)(r->at - 8), (long long)r->len);
    const char *p = (const char *)r->data + r->at;
    if (!th__utf8_valid_n(p, (size_t)n))
        return th__fail(TH_ERR_INVALID, r->fn, "%s: %s at byte %lld is not UTF-8", r->where, what, (long long)r->at);
    char *c = (char *)th__gguf_alloc(r, (size_t)n + 1);
    if (!c) return th_last_status();
    memcpy(c, p, (size_t)n);
    c[n] = '\0';
    r->at += (int64_t)n;
    s->len = n;
    s->data = c;
    return TH_OK;
}

/* The bytes of one item of a scalar type, 0 for a string, an array or an unknown type. */
static int th__gguf_scalar_size(uint32_t type)
{
    static const signed char sizes[13] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
    return type < 13 ? sizes[type] : 0;
}

/* One scalar of the given type (known and not a string or array) into v. */
static int th__gguf_scalar(th__gguf_rd *r, uint32_t type, th_gguf_value *v, const char *what)
{
    uint64_t x;
    if (th__gguf_uint(r, th__gguf_scalar_size(type), &x, what)) return th_last_status();
    switch ((th_gguf_type)type) {
    case TH_GGUF_UINT8: v->as.u8 = (uint8_t)x; break;
    case TH_GGUF_INT8: v->as.i8 = (int8_t)(uint8_t)x; break;
    case TH_GGUF_UINT16: v->as.u16 = (uint16_t)x; break;
    case TH_GGUF_INT16: v->as.i16 = (int16_t)(uint16_t)x; break;
    case TH_GGUF_UINT32: v->as.u32 = (uint32_t)x; break;
    case TH_GGUF_INT32: v->as.i32 = (int32_t)(uint32_t)x; break;
    case TH_GGUF_UINT64: v->as.u64 = x; break;
    case TH_GGUF_INT64: memcpy(&v->as.i64, &x, 8); break;
    case TH_GGUF_FLOAT32: {
        uint32_t b = (uint32_t)x;
        memcpy(&v->as.f32, &b, 4);
        break;
    }
    case TH_GGUF_FLOAT64: memcpy(&v->as.f64, &x, 8); break;
    case TH_GGUF_BOOL:
        if (x > 1)
            return th__fail(TH_ERR_INVALID, r->fn, "%s: %s: a bool of value %llu (0 or 1) at byte %lld", r->where, what,
                            (unsigned long long)x, (long long)(r->at - 1));
        v->as.b = x != 0;
        break;
    default: break;
    }
    return TH_OK;
}

static int th__gguf_value(th__gguf_rd *r, uint32_t type, th_gguf_value *v, int depth, const char *what);

/* An array's item type, count and items (v->type already TH_GGUF_ARRAY). The count is checked against the bytes
 * left (each item takes at least 1 byte, a string 8, an array 12) before anything is allocated for it. */
static int th__gguf_array(th__gguf_rd *r, th_gguf_value *v, int depth, const char *what)
{
    uint64_t type, n;
    if (depth >= TH_GGUF_MAX_DEPTH)
        return th__fail(TH_ERR_INVALID, r->fn, "%s: %s: arrays nested more than %d deep (TH_GGUF_MAX_DEPTH)", r->where,
                        what, TH_GGUF_MAX_DEPTH);
    if (th__gguf_uint(r, 4, &type, what) || th__gguf_uint(r, 8, &n, what)) return th_last_status();
    if (type > TH_GGUF_FLOAT64)
        return th__fail(TH_ERR_INVALID, r->fn, "%s: %s: an array of unknown value type %llu", r->where, what,
                        (unsigned long long)type);
    int least = type == TH_GGUF_STRING ? 8 : type == TH_GGUF_ARRAY ? 12 : th__gguf_scalar_size((uint32_t)type);
    if (n > (uint64_t)(r->len - r->at) / (uint64_t)least)
        return th__fail(TH_ERR_INVALID, r->fn, "%s: %s: an array of %llu %s items needs more than the %lld bytes left",
                        r->where, what, (unsigned long long)n, th_gguf_type_string((th_gguf_type)type),
                        (long long)(r->len - r->at));
    size_t item = type == TH_GGUF_STRING ? sizeof(th_gguf_string) : type == TH_GGUF_ARRAY ? sizeof(th_gguf_value)
                  : type == TH_GGUF_BOOL ? sizeof(bool) : (size_t)least;
    unsigned char *items = (unsigned char *)th__gguf_alloc(r, (size_t)n * item);
    if (!items) return th_last_status();
    v->as.array.type = (th_gguf_type)type;
    v->as.array.count = n;
    v->as.array.items = items;
    for (uint64_t k = 0; k < n; k++) {
        th_gguf_value one;
        if (type == TH_GGUF_STRING) {
            if (th__gguf_string(r, (th_gguf_string *)(void *)(items + k * item), 0, what)) return th_last_status();
            continue;
        }
        if (th__gguf_value(r, (uint32_t)type, &one, depth + 1, what)) return th_last_status();
        if (type == TH_GGUF_ARRAY) memcpy(items + k * item, &one, item);
        else if (type == TH_GGUF_BOOL) memcpy(items + k * item, &one.as.b, item);
        else memcpy(items + k * item, &one.as, item); /* the union's members all start at its beginning */
    }
    return TH_OK;
}

static int th__gguf_value(th__gguf_rd *r, uint32_t type, th_gguf_value *v, int depth, const char *what)
{
    memset(v, 0, sizeof *v);
    if (type > TH_GGUF_FLOAT64)
        return th__fail(TH_ERR_INVALID, r->fn, "%s: %s: unknown value type %u at byte %lld", r->where, what,
                        (unsigned)type, (long long)(r->at - 4));
    v->type = (th_gguf_type)type;
    if (type == TH_GGUF_STRING) return th__gguf_string(r, &v->as.str, 0, what);
    if (type == TH_GGUF_ARRAY) return th__gguf_array(r, v, depth, what);
    return th__gguf_scalar(r, type, v, what);
}

TH_API void th_gguf_close(th_gguf *f)
{
    if (!f) return;
    th_storage_release(f->file);
    while (f->blocks) {
        th__gguf_block *n = f->blocks->next;
        free(f->blocks);
        f->blocks = n;
    }
    free(f->entries);
    free(f->by_name);
    free(f->kvs);
    free(f->where);
    free(f);
}

#include "gguf_index.h"

TH_API th_gguf *th_gguf_open(const char *path)
{
    static const char fn[] = "th_gguf_open";
    th__file_bytes b = th__file_read(fn, path);
    return b.s ? th__gguf_index(fn, b.where, b.s) : NULL;
}

#endif /* TH__DEFINING */
