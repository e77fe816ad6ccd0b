/* core/safetensors.h: Hugging Face's safetensors files: the JSON header parsed strictly into a lazy index,
 * tensors loaded by name as views of the mapped file where the bytes allow it, written through a renamed
 * temporary file in the reference writer's layout.
 * Part of tensor.h, which includes it twice: its declarations, then (TH__DEFINING) its definitions. */
#ifndef TENSOR_H
#error "core/safetensors.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

/* The most bytes a safetensors header may have: the reference implementation's own limit (100 MB). A longer
 * one is refused before anything is read or allocated in proportion to it. */
#define TH_SAFETENSORS_MAX_HEADER 100000000

/* An open safetensors file: its index (names, dtypes, shapes, offsets), its __metadata__ and one mapping of
 * the whole file, which the tensors got from it share. */
typedef struct th_safetensors th_safetensors;

/* Opens the file at path: maps it once (reads it where the build cannot map), parses and checks the header,
 * and reads no tensor data. NULL on error, with the path, the field and the bad value in the message:
 * TH_ERR_IO (a missing or unreadable file), TH_ERR_INVALID (a header that is malformed JSON, longer than
 * TH_SAFETENSORS_MAX_HEADER or than the file, duplicate keys, bad data_offsets: reversed, past the data,
 * overlapping, leaving gaps or not covering the data, or a size that does not match the shape),
 * TH_ERR_DTYPE (a dtype string safetensors does not define), TH_ERR_RANGE (a tensor of more than TH_MAX_DIMS
 * dims), TH_ERR_OVERFLOW (a shape whose byte size overflows). */
TH_API th_safetensors *th_safetensors_open(const char *path);
/* Lets go of the file; tensors got from it stay valid (they hold the mapping). NULL is ignored. */
TH_API void th_safetensors_close(th_safetensors *f);
/* The number of tensors, and the i-th one's name, in byte order of the names (as the reference's keys()).
 * The strings live until th_safetensors_close. -1 / NULL for NULL or an i out of range. */
TH_API int th_safetensors_count(const th_safetensors *f);
TH_API const char *th_safetensors_name(const th_safetensors *f, int i);
/* The index of the tensor called name, -1 if there is none (no error recorded: a question, not a failure). */
TH_API int th_safetensors_find(const th_safetensors *f, const char *name);
/* The i-th tensor's dtype: TH_DTYPE_INVALID for a safetensors dtype the library lacks (U16, U32, U64, the
 * F8, F6 and F4 types), whose name th_safetensors_dtype_name gives ("F32", "U16": the file's string). */
TH_API th_dtype th_safetensors_dtype(const th_safetensors *f, int i);
TH_API const char *th_safetensors_dtype_name(const th_safetensors *f, int i);
/* The i-th tensor's dims, its sizes (outermost first; valid until close) and its bytes in the file. */
TH_API int th_safetensors_ndim(const th_safetensors *f, int i);
TH_API const int64_t *th_safetensors_sizes(const th_safetensors *f, int i);
TH_API int64_t th_safetensors_nbytes(const th_safetensors *f, int i);
/* The __metadata__ string map: its number of entries (0 when the file has none), the i-th key and value in
 * byte order of the keys, and the value of key (NULL when absent, no error recorded). */
TH_API int th_safetensors_metadata_count(const th_safetensors *f);
TH_API const char *th_safetensors_metadata_key(const th_safetensors *f, int i);
TH_API const char *th_safetensors_metadata_value(const th_safetensors *f, int i);
TH_API const char *th_safetensors_metadata_get(const th_safetensors *f, const char *key);
/* The tensor called name: a new reference the caller releases, valid after th_safetensors_close. Where the
 * file is mapped, the data is aligned for the dtype, the host is little-endian and (bool) every byte is 0 or
 * 1, it is a view of the private (copy-on-write) mapping and th_storage_is_mapped(th_tensor_storage(t)) is
 * true; otherwise (and for an empty tensor) a converted copy, and it is false. NULL on error: TH_ERR_INVALID
 * (NULL, or no tensor of that name), TH_ERR_DTYPE (a dtype the library lacks or this build did not stamp). */
TH_API th_tensor *th_safetensors_get(th_safetensors *f, const char *name);
/* Writes the n tensors tensors[i] under names[i] to path, in the reference writer's layout: tensors ordered by
 * dtype as safetensors orders them (I64, F64, C64, F32, I32, BF16, F16, I16, I8, U8, BOOL) then by name,
 * packed without gaps, the header padded with spaces to a multiple of 8 bytes; a non-contiguous tensor is
 * written in its logical (C) order. keys/values (n_meta pairs) become __metadata__, sorted by key; keys NULL
 * (n_meta 0) writes none, keys non-NULL with n_meta 0 an empty one (as metadata={} does). Through a temporary
 * file renamed into place, as th_tensor_save_npy. 0 or a negative status: TH_ERR_INVALID (NULL arguments, a
 * duplicate or non-UTF-8 name or key, the name "__metadata__"), TH_ERR_DTYPE (c128: safetensors has no
 * complex128), TH_ERR_DEVICE (memory the host cannot read), TH_ERR_OVERFLOW, TH_ERR_IO. */
TH_API int th_safetensors_save(const char *path, int n, const char *const *names, const th_tensor *const *tensors,
                               int n_meta, const char *const *keys, const char *const *values);

#else /* TH__DEFINING */

/* The dtypes safetensors defines, in the order of its Dtype enum: the writer orders tensors by it, largest
 * first. bits is the element size (F4 and F6 pack below a byte). */
typedef struct th__st_type {
    const char *name;
    int bits;
    th_dtype dtype;
} th__st_type;

static const th__st_type th__st_types[] = {
    {"BOOL", 8, TH_BOOL},      {"F4", 4, TH_DTYPE_INVALID},       {"F6_E2M3", 6, TH_DTYPE_INVALID},
    {"F6_E3M2", 6, TH_DTYPE_INVALID}, {"U8", 8, TH_U8},          {"I8", 8, TH_I8},
    {"F8_E5M2", 8, TH_DTYPE_INVALID}, {"F8_E4M3", 8, TH_DTYPE_INVALID}, {"F8_E8M0", 8, TH_DTYPE_INVALID},
    {"I16", 16, TH_I16},       {"U16", 16, TH_DTYPE_INVALID},     {"F16", 16, TH_F16},
    {"BF16", 16, TH_BF16},     {"I32", 32, TH_I32},               {"U32", 32, TH_DTYPE_INVALID},
    {"F32", 32, TH_F32},       {"C64", 64, TH_C64},               {"F64", 64, TH_F64},
    {"I64", 64, TH_I64},       {"U64", 64, TH_DTYPE_INVALID},
};
#define TH__ST_NTYPES ((int)(sizeof th__st_types / sizeof th__st_types[0]))

/* The entry of th__st_types for dtype, -1 for c128 (and anything else safetensors lacks). */
static int th__st_type_of(th_dtype dtype)
{
    for (int k = 0; k < TH__ST_NTYPES; k++)
        if (th__st_types[k].dtype == dtype && dtype != TH_DTYPE_INVALID) return k;
    return -1;
}

/* The index entry of core/file_tensor.h: type is into th__st_types, begin and end the data_offsets. */
typedef th__file_entry th__st_entry;

struct th_safetensors {
    th_storage *file;
    char *where;       /* "'path'" for the messages */
    int64_t data_start; /* 8 + the header's length */
    int count, meta_count;
    th__st_entry *entries;  /* sorted by name */
    const char **meta;      /* key, value, key, value..., sorted by key */
    char *arena;            /* the decoded strings */
};

/* The header's JSON: the strict scanner, and the writer's text. */
#include "safetensors_json.h"

static int th__st_by_name(const void *a, const void *b)
{
    return strcmp(((const th__st_entry *)a)->name, ((const th__st_entry *)b)->name);
}

static int th__st_by_key(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int th__st_by_offsets(const void *a, const void *b)
{
    const th__st_entry *x = *(const th__st_entry *const *)a, *y = *(const th__st_entry *const *)b;
    if (x->begin != y->begin) return x->begin < y->begin ? -1 : 1;
    if (x->end != y->end) return x->end < y->end ? -1 : 1;
    return 0;
}

/* The checks of the index against the data area of data_len bytes: each tensor's byte size from its shape
 * (checked products), its offsets in order and inside the data, and the tensors together covering the data
 * without overlap or gap, as the reference requires. */
static int th__st_check_offsets(const char *fn, const char *where, th__st_entry *entries, int count, int64_t data_len)
{
    for (int i = 0; i < count; i++) {
        th__st_entry *e = &entries[i];
        int64_t bits = th__st_types[e->type].bits;
        for (int d = 0; d < e->ndim; d++)
            if (__builtin_mul_overflow(bits, e->sizes[d], &bits))
                return th__fail(TH_ERR_OVERFLOW, fn, "%s: header: tensor '%s': the byte size of 'shape' overflows "
                                "int64", where, e->name);
        if (bits % 8)
            return th__fail(TH_ERR_INVALID, fn, "%s: header: tensor '%s': %lld bits of %s is not a whole number of "
                            "bytes", where, e->name, (long long)bits, th__st_types[e->type].name);
        if (e->begin > e->end)
            return th__fail(TH_ERR_INVALID, fn, "%s: header: tensor '%s': 'data_offsets' [%lld, %lld] end before they "
                            "begin", where, e->name, (long long)e->begin, (long long)e->end);
        if (e->end > data_len)
            return th__fail(TH_ERR_INVALID, fn, "%s: header: tensor '%s': 'data_offsets' [%lld, %lld] reach past the "
                            "%lld bytes of data after the header", where, e->name, (long long)e->begin,
                            (long long)e->end, (long long)data_len);
        if (e->end - e->begin != bits / 8)
            return th__fail(TH_ERR_INVALID, fn, "%s: header: tensor '%s': 'data_offsets' [%lld, %lld] hold %lld bytes, "
                            "its shape and dtype %s need %lld", where, e->name, (long long)e->begin, (long long)e->end,
                            (long long)(e->end - e->begin), th__st_types[e->type].name, (long long)(bits / 8));
    }
    th__st_entry **order = (th__st_entry **)malloc((count > 0 ? (size_t)count : 1) * sizeof *order);
    if (!order) return th__fail(TH_ERR_NOMEM, fn, "out of memory for the index of %s", where);
    for (int i = 0; i < count; i++) order[i] = &entries[i];
    if (count > 1) qsort(order, (size_t)count, sizeof *order, th__st_by_offsets);
    int64_t at = 0;
    int status = TH_OK;
    for (int i = 0; i < count && !status; i++) {
        const th__st_entry *e = order[i];
        if (e->begin < at)
            status = th__fail(TH_ERR_INVALID, fn, "%s: header: tensor '%s': 'data_offsets' [%lld, %lld] overlap tensor "
                              "'%s' [%lld, %lld]", where, e->name, (long long)e->begin, (long long)e->end,
                              order[i - 1]->name, (long long)order[i - 1]->begin, (long long)order[i - 1]->end);
        else if (e->begin > at)
            status = th__fail(TH_ERR_INVALID, fn, "%s: header: tensor '%s': 'data_offsets' [%lld, %lld] leave a gap "
                              "after byte %lld", where, e->name, (long long)e->begin, (long long)e->end, (long long)at);
        at = e->end;
    }
    free(order);
    if (!status && at != data_len)
        status = th__fail(TH_ERR_INVALID, fn, "%s: the tensors cover %lld bytes of data, the file has %lld after the "
                          "header", where, (long long)at, (long long)data_len);
    return status;
}

TH_API void th_safetensors_close(th_safetensors *f)
{
    if (!f) return;
    th_storage_release(f->file);
    free(f->entries);
    free((void *)f->meta);
    free(f->arena);
    free(f->where);
    free(f);
}

/* The index of the safetensors bytes of storage s (a mapped file, or any storage: the fuzzer's); takes over the
 * caller's reference to s, released on failure. where names the file in the messages. */
static th_safetensors *th__st_index(const char *fn, const char *where, th_storage *s)
{
    th_safetensors *f = (th_safetensors *)th__file_handle_new(fn, where, s, sizeof *f, offsetof(th_safetensors, file),
                                                              offsetof(th_safetensors, where));
    if (!f) return NULL;
    const unsigned char *data = (const unsigned char *)s->data;
    int64_t len = s->nbytes, hlen = 0;
    int ecap = 0, mcap = 0, status = TH_OK;
    if (len < 8) {
        status = th__fail(TH_ERR_INVALID, fn, "%s: not a safetensors file: %lld bytes, shorter than the 8-byte header "
                          "length", where, (long long)len);
        goto fail;
    }
    {
        uint64_t n = 0;
        for (int k = 7; k >= 0; k--) n = n << 8 | data[k];
        if (n > TH_SAFETENSORS_MAX_HEADER) {
            status = th__fail(TH_ERR_INVALID, fn, "%s: the header length is %llu bytes, more than %d "
                              "(TH_SAFETENSORS_MAX_HEADER)", where, (unsigned long long)n, TH_SAFETENSORS_MAX_HEADER);
            goto fail;
        }
        hlen = (int64_t)n;
    }
    if (hlen > len - 8) {
        status = th__fail(TH_ERR_INVALID, fn, "%s: truncated: the header length is %lld bytes, the file has %lld after "
                          "the length", where, (long long)hlen, (long long)(len - 8));
        goto fail;
    }
    if (hlen < 2 || data[8] != '{') {
        status = th__fail(TH_ERR_INVALID, fn, "%s: the header does not start with '{' (%lld bytes, first 0x%02x)",
                          where, (long long)hlen, hlen ? data[8] : 0);
        goto fail;
    }
    f->data_start = 8 + hlen;
    f->arena = (char *)malloc((size_t)hlen);
    if (!f->arena) {
        status = th__fail(TH_ERR_NOMEM, fn, "out of memory for the %lld-byte header of %s", (long long)hlen, where);
        goto fail;
    }
    {
        th__st_scan sc = {fn, where, (const char *)data + 8, (const char *)data + 8, (const char *)data + 8 + hlen,
                          f->arena, 0};
        th__st_scan *sp = &sc;
        bool have_meta = false, first = true;
        sp->p++;
        while (!th__st_eat(sp, '}')) {
            if (!first && !th__st_eat(sp, ',')) {
                status = th__st_bad(sp, "expected ',' or '}'");
                goto fail;
            }
            first = false;
            const char *key;
            if ((status = th__st_string(sp, &key, "a tensor name"))) goto fail;
            if (!th__st_eat(sp, ':')) {
                status = th__st_bad(sp, "expected ':' after a key");
                goto fail;
            }
            if (strcmp(key, "__metadata__") == 0) {
                if (have_meta) {
                    status = th__fail(TH_ERR_INVALID, fn, "%s: header: the key '__metadata__' twice", where);
                    goto fail;
                }
                have_meta = true;
                if ((status = th__st_metadata_parse(sp, &f->meta, &f->meta_count, &mcap))) goto fail;
                continue;
            }
            void *grown = th__index_grow(fn, f->entries, &ecap, f->count + 1, sizeof *f->entries);
            if (!grown) {
                status = th_last_status();
                goto fail;
            }
            f->entries = (th__st_entry *)grown;
            th__st_entry *e = &f->entries[f->count];
            memset(e, 0, sizeof *e);
            e->name = key;
            if ((status = th__st_entry_parse(sp, e))) goto fail;
            f->count++;
        }
        th__st_ws(sp);
        if (sp->p != sp->end) {
            status = th__st_bad(sp, "bytes after the header's object");
            goto fail;
        }
    }
    /* The strings point into the arena, which no longer moves; sorting moves only the pointers. */
    /* qsort's array must not be NULL even when empty: sorted only when there is something to sort. */
    if (f->count > 1) qsort(f->entries, (size_t)f->count, sizeof *f->entries, th__st_by_name);
    for (int i = 1; i < f->count; i++)
        if (strcmp(f->entries[i].name, f->entries[i - 1].name) == 0) {
            status = th__fail(TH_ERR_INVALID, fn, "%s: header: the tensor '%s' twice", where, f->entries[i].name);
            goto fail;
        }
    if (f->meta_count > 1) qsort((void *)f->meta, (size_t)f->meta_count, 2 * sizeof *f->meta, th__st_by_key);
    for (int i = 1; i < f->meta_count; i++)
        if (strcmp(f->meta[2 * i], f->meta[2 * i - 2]) == 0) {
            status = th__fail(TH_ERR_INVALID, fn, "%s: header: '__metadata__' has the key '%s' twice", where,
                              f->meta[2 * i]);
            goto fail;
        }
    if ((status = th__st_check_offsets(fn, where, f->entries, f->count, len - f->data_start))) goto fail;
    return f;
fail:
    (void)status;
    th_safetensors_close(f);
    return NULL;
}

TH_API th_safetensors *th_safetensors_open(const char *path)
{
    static const char fn[] = "th_safetensors_open";
    th__file_bytes b = th__file_read(fn, path);
    return b.s ? th__st_index(fn, b.where, b.s) : NULL;
}

static const th__st_entry *th__st_at(const th_safetensors *f, int i)
{
    return f && i >= 0 && i < f->count ? &f->entries[i] : NULL;
}

TH_API int th_safetensors_count(const th_safetensors *f) { return f ? f->count : -1; }

TH_API const char *th_safetensors_name(const th_safetensors *f, int i)
{
    const th__st_entry *e = th__st_at(f, i);
    return e ? e->name : NULL;
}

TH_API int th_safetensors_find(const th_safetensors *f, const char *name)
{
    return f && name ? th__file_find_sorted(f->entries, f->count, name) : -1;
}

TH_API th_dtype th_safetensors_dtype(const th_safetensors *f, int i)
{
    const th__st_entry *e = th__st_at(f, i);
    return e ? th__st_types[e->type].dtype : TH_DTYPE_INVALID;
}

TH_API const char *th_safetensors_dtype_name(const th_safetensors *f, int i)
{
    const th__st_entry *e = th__st_at(f, i);
    return e ? th__st_types[e->type].name : NULL;
}

TH_API int th_safetensors_ndim(const th_safetensors *f, int i)
{
    const th__st_entry *e = th__st_at(f, i);
    return e ? e->ndim : -1;
}

TH_API const int64_t *th_safetensors_sizes(const th_safetensors *f, int i)
{
    const th__st_entry *e = th__st_at(f, i);
    return e ? e->sizes : NULL;
}

TH_API int64_t th_safetensors_nbytes(const th_safetensors *f, int i)
{
    const th__st_entry *e = th__st_at(f, i);
    return e ? e->end - e->begin : -1;
}

TH_API int th_safetensors_metadata_count(const th_safetensors *f) { return f ? f->meta_count : -1; }

TH_API const char *th_safetensors_metadata_key(const th_safetensors *f, int i)
{
    return f && i >= 0 && i < f->meta_count ? f->meta[2 * i] : NULL;
}

TH_API const char *th_safetensors_metadata_value(const th_safetensors *f, int i)
{
    return f && i >= 0 && i < f->meta_count ? f->meta[2 * i + 1] : NULL;
}

TH_API const char *th_safetensors_metadata_get(const th_safetensors *f, const char *key)
{
    if (!f || !key) return NULL;
    for (int i = 0; i < f->meta_count; i++)
        if (strcmp(f->meta[2 * i], key) == 0) return f->meta[2 * i + 1];
    return NULL;
}

TH_API th_tensor *th_safetensors_get(th_safetensors *f, const char *name)
{
    static const char fn[] = "th_safetensors_get";
    if (!f || !name) {
        th__fail(TH_ERR_INVALID, fn, "NULL %s", f ? "name" : "file");
        return NULL;
    }
    int i = th_safetensors_find(f, name);
    if (i < 0) {
        th__fail(TH_ERR_INVALID, fn, "%s has no tensor '%s'", f->where, name);
        return NULL;
    }
    const th__st_entry *e = &f->entries[i];
    th_dtype dt = th__st_types[e->type].dtype;
    if (dt == TH_DTYPE_INVALID) {
        th__fail(TH_ERR_DTYPE, fn, "%s: tensor '%s' is %s, which the library lacks", f->where, name,
                 th__st_types[e->type].name);
        return NULL;
    }
    return th__file_tensor(fn, f->where, name, f->file, dt, f->data_start + e->begin, e->end - e->begin, e->ndim,
                           e->sizes, true);
}

/* ---- the writer ------------------------------------------------------------------------------------------- */

typedef struct th__st_item {
    const char *name;
    int index; /* into the caller's arrays */
    int type;  /* into th__st_types */
} th__st_item;

static int th__st_item_by_name(const void *a, const void *b)
{
    return strcmp(((const th__st_item *)a)->name, ((const th__st_item *)b)->name);
}

/* The reference writer's order: its Dtype enum descending, then the name. */
static int th__st_item_by_layout(const void *a, const void *b)
{
    const th__st_item *x = (const th__st_item *)a, *y = (const th__st_item *)b;
    if (x->type != y->type) return x->type > y->type ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The checks of save's arguments, the items in the writer's order (sorted), and the metadata keys' order
 * (meta_order, sorted by key). */
static int th__st_save_check(const char *fn, int n, const char *const *names, const th_tensor *const *tensors,
                             int n_meta, const char *const *keys, const char *const *values, th__st_item *items,
                             int *meta_order)
{
    for (int i = 0; i < n; i++) {
        const th_tensor *t = tensors[i];
        if (!names[i] || !t) return th__fail(TH_ERR_INVALID, fn, "NULL %s at index %d", t ? "name" : "tensor", i);
        if (!th__utf8_valid(names[i]))
            return th__fail(TH_ERR_INVALID, fn, "the name at index %d is not UTF-8 (safetensors names are)", i);
        if (strcmp(names[i], "__metadata__") == 0)
            return th__fail(TH_ERR_INVALID, fn, "a tensor cannot be called '__metadata__' (the header's metadata key)");
        if (!th_device_is_host(t->storage->device))
            return th__fail(TH_ERR_DEVICE, fn, "tensor '%s' is on device type %d, which the host cannot read", names[i],
                            (int)t->storage->device.type);
        int type = th__st_type_of(t->dtype);
        if (type < 0)
            return th__fail(TH_ERR_DTYPE, fn, "tensor '%s' is %s, which safetensors has no dtype for", names[i],
                            th_dtype_name(t->dtype));
        items[i].name = names[i];
        items[i].index = i;
        items[i].type = type;
    }
    if (n > 1) qsort(items, (size_t)n, sizeof *items, th__st_item_by_name);
    for (int i = 1; i < n; i++)
        if (strcmp(items[i].name, items[i - 1].name) == 0)
            return th__fail(TH_ERR_INVALID, fn, "the name '%s' twice", items[i].name);
    if (n > 1) qsort(items, (size_t)n, sizeof *items, th__st_item_by_layout);
    for (int i = 0; i < n_meta; i++) {
        if (!keys[i] || !values[i])
            return th__fail(TH_ERR_INVALID, fn, "NULL metadata %s at index %d", keys[i] ? "value" : "key", i);
        if (!th__utf8_valid(keys[i]) || !th__utf8_valid(values[i]))
            return th__fail(TH_ERR_INVALID, fn, "the metadata %s at index %d is not UTF-8",
                            th__utf8_valid(keys[i]) ? "value" : "key", i);
        meta_order[i] = i;
    }
    /* An insertion sort: metadata is a handful of entries. */
    for (int i = 1; i < n_meta; i++)
        for (int j = i; j > 0 && strcmp(keys[meta_order[j - 1]], keys[meta_order[j]]) > 0; j--) {
            int x = meta_order[j];
            meta_order[j] = meta_order[j - 1];
            meta_order[j - 1] = x;
        }
    for (int i = 1; i < n_meta; i++)
        if (strcmp(keys[meta_order[i]], keys[meta_order[i - 1]]) == 0)
            return th__fail(TH_ERR_INVALID, fn, "the metadata key '%s' twice", keys[meta_order[i]]);
    return TH_OK;
}

TH_API int th_safetensors_save(const char *path, int n, const char *const *names, const th_tensor *const *tensors,
                               int n_meta, const char *const *keys, const char *const *values)
{
    static const char fn[] = "th_safetensors_save";
    if (n < 0 || n_meta < 0) return th__fail(TH_ERR_INVALID, fn, "negative count (n %d, n_meta %d)", n, n_meta);
    if (n > 0 && (!names || !tensors)) return th__fail(TH_ERR_INVALID, fn, "NULL %s", names ? "tensors" : "names");
    if (n_meta > 0 && (!keys || !values)) return th__fail(TH_ERR_INVALID, fn, "NULL metadata %s", keys ? "values" : "keys");
    th__st_item *items = (th__st_item *)malloc((size_t)(n ? n : 1) * sizeof *items);
    int *meta_order = (int *)malloc((size_t)(n_meta ? n_meta : 1) * sizeof *meta_order);
    th__st_text h = {NULL, 0, 0, TH_OK, fn};
    int status = !items || !meta_order ? th__fail(TH_ERR_NOMEM, fn, "out of memory") : TH_OK;
    if (!status) status = th__st_save_check(fn, n, names, tensors, n_meta, keys, values, items, meta_order);
    if (!status) {
        th__st_puts(&h, "{");
        if (keys) {
            th__st_puts(&h, "\"__metadata__\":{");
            for (int i = 0; i < n_meta; i++) {
                if (i) th__st_puts(&h, ",");
                th__st_put_string(&h, keys[meta_order[i]]);
                th__st_puts(&h, ":");
                th__st_put_string(&h, values[meta_order[i]]);
            }
            th__st_puts(&h, "}");
        }
        int64_t at = 0;
        for (int i = 0; i < n && !status; i++) {
            const th_tensor *t = tensors[items[i].index];
            int64_t nbytes = th__numel(t) * (int64_t)th__dtype_traits[t->dtype].size, end;
            if (__builtin_add_overflow(at, nbytes, &end)) {
                status = th__fail(TH_ERR_OVERFLOW, fn, "the tensors' bytes together overflow int64");
                break;
            }
            char num[64];
            if (i || keys) th__st_puts(&h, ",");
            th__st_put_string(&h, items[i].name);
            th__st_puts(&h, ":{\"dtype\":\"");
            th__st_puts(&h, th__st_types[items[i].type].name);
            th__st_puts(&h, "\",\"shape\":[");
            for (int d = 0; d < t->ndim; d++) {
                snprintf(num, sizeof num, d ? ",%lld" : "%lld", (long long)t->sizes[d]);
                th__st_puts(&h, num);
            }
            snprintf(num, sizeof num, "],\"data_offsets\":[%lld,%lld]}", (long long)at, (long long)end);
            th__st_puts(&h, num);
            at = end;
        }
        th__st_puts(&h, "}");
        while (!h.status && h.n % 8) th__st_puts(&h, " ");
        if (!status) status = h.status;
        if (!status && h.n > TH_SAFETENSORS_MAX_HEADER)
            status = th__fail(TH_ERR_INVALID, fn, "the header would be %zu bytes, more than %d "
                              "(TH_SAFETENSORS_MAX_HEADER), which readers refuse", h.n, TH_SAFETENSORS_MAX_HEADER);
    }
    th__file_writer w;
    if (!status && (status = th__file_writer_open(&w, fn, path)) == TH_OK) {
        unsigned char len[8];
        for (int k = 0; k < 8; k++) len[k] = (unsigned char)((uint64_t)h.n >> (8 * k));
        th__file_write(&w, len, 8);
        th__file_write(&w, h.s, h.n);
        bool little = th__host_is_little();
        for (int i = 0; i < n && !w.status; i++) {
            th_tensor *t = (th_tensor *)tensors[items[i].index];
            size_t es = th__dtype_traits[t->dtype].size;
            int64_t numel = th__numel(t);
            if (!numel) continue;
            /* A copy where the bytes are not already in C order and little-endian; else the tensor's own. */
            th_tensor *c = little ? th__contiguous(fn, t) : th__convert_new(fn, t->dtype, t);
            if (!c) {
                w.status = th_last_status();
                break;
            }
            if (!little && es > 1) {
                bool cplx = t->dtype == TH_C64 || t->dtype == TH_C128;
                th__byteswap((unsigned char *)th_tensor_data(c), cplx ? 2 * numel : numel, cplx ? es / 2 : es);
            }
            th__file_write(&w, th_tensor_data(c), (size_t)numel * es);
            th_tensor_release(c);
        }
        status = th__file_writer_close(&w);
    }
    free(h.s);
    free(items);
    free(meta_order);
    return status;
}

#endif /* TH__DEFINING */
