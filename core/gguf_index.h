/* core/gguf_index.h: a GGUF file's header checked into core/gguf.h's index (the key/values, the tensor infos and
 * their offsets against the data), the accessors and the tensor getters.
 * Part of core/gguf.h, which includes it among its definitions, after the value parser. */
#ifndef TENSOR_H
#error "core/gguf_index.h is part of tensor.h: include tensor.h"
#endif

typedef struct th__gguf_named {
    const char *name;
    int index;
} th__gguf_named;

static int th__gguf_named_cmp(const void *a, const void *b)
{
    return strcmp(((const th__gguf_named *)a)->name, ((const th__gguf_named *)b)->name);
}

/* The n names sorted (into order, when not NULL, their indices); the first one twice, else NULL. *status is
 * TH_ERR_NOMEM when the scratch could not be had. */
static const char *th__gguf_sorted(const char *const *names, int n, int *order, int *status)
{
    th__gguf_named *v = (th__gguf_named *)malloc((size_t)(n ? n : 1) * sizeof *v);
    *status = v ? TH_OK : TH_ERR_NOMEM;
    if (!v) return NULL;
    for (int i = 0; i < n; i++) {
        v[i].name = names[i];
        v[i].index = i;
    }
    if (n > 1) qsort(v, (size_t)n, sizeof *v, th__gguf_named_cmp);
    const char *twice = NULL;
    for (int i = 0; i < n; i++) {
        if (i && !twice && strcmp(v[i].name, v[i - 1].name) == 0) twice = v[i].name;
        if (order) order[i] = v[i].index;
    }
    free(v);
    return twice;
}

/* A key or tensor name: at most TH_GGUF_MAX_NAME bytes, without a NUL (it is asked for as a C string). */
static int th__gguf_name(th__gguf_rd *r, th_gguf_string *s, const char *what)
{
    if (th__gguf_string(r, s, TH_GGUF_MAX_NAME, what)) return th_last_status();
    if (strlen(s->data) != s->len)
        return th__fail(TH_ERR_INVALID, r->fn, "%s: %s '%s' holds a NUL byte", r->where, what, s->data);
    return TH_OK;
}

/* The key/values (after the counts), general.alignment among them. */
static int th__gguf_kvs(th__gguf_rd *r, th_gguf *f)
{
    char what[128];
    for (int i = 0; i < f->kv_count; i++) {
        th__gguf_kv *kv = &f->kvs[i];
        snprintf(what, sizeof what, "key %d", i);
        uint64_t type;
        if (th__gguf_name(r, &kv->key, what) || th__gguf_uint(r, 4, &type, what)) return th_last_status();
        snprintf(what, sizeof what, "the value of '%.100s'", kv->key.data);
        if (th__gguf_value(r, (uint32_t)(type > 0xffffffffu ? 0xffffffffu : type), &kv->value, 0, what))
            return th_last_status();
        if (strcmp(kv->key.data, "general.alignment") == 0) {
            uint32_t a = kv->value.as.u32;
            if (kv->value.type != TH_GGUF_UINT32 || a == 0 || (a & (a - 1)))
                return th__fail(TH_ERR_INVALID, r->fn, "%s: general.alignment is %s %llu, not a UINT32 power of two",
                                r->where, th_gguf_type_string(kv->value.type),
                                kv->value.type == TH_GGUF_UINT32 ? (unsigned long long)a : 0ull);
            f->alignment = a;
        }
    }
    const char **names = (const char **)malloc((size_t)(f->kv_count ? f->kv_count : 1) * sizeof *names);
    if (!names) return th__fail(TH_ERR_NOMEM, r->fn, "out of memory for the keys of %s", r->where);
    for (int i = 0; i < f->kv_count; i++) names[i] = f->kvs[i].key.data;
    int status;
    const char *twice = th__gguf_sorted(names, f->kv_count, NULL, &status);
    free(names);
    if (status) return th__fail(status, r->fn, "out of memory for the keys of %s", r->where);
    if (twice) return th__fail(TH_ERR_INVALID, r->fn, "%s: the key '%s' twice", r->where, twice);
    return TH_OK;
}

/* One tensor info: name, dims (innermost first in the file), type and offset; the byte size checked. */
static int th__gguf_info(th__gguf_rd *r, th__file_entry *e, int i, uint64_t *offset)
{
    char what[160];
    th_gguf_string name;
    uint64_t ndim, type, dim;
    snprintf(what, sizeof what, "the name of tensor %d", i);
    if (th__gguf_name(r, &name, what)) return th_last_status();
    e->name = name.data;
    snprintf(what, sizeof what, "tensor '%.100s'", name.data);
    if (th__gguf_uint(r, 4, &ndim, what)) return th_last_status();
    if (ndim > TH_MAX_DIMS)
        return th__fail(TH_ERR_RANGE, r->fn, "%s: %s has %llu dims, more than %d (TH_MAX_DIMS)", r->where, what,
                        (unsigned long long)ndim, TH_MAX_DIMS);
    e->ndim = (int)ndim;
    for (int d = 0; d < e->ndim; d++) {
        if (th__gguf_uint(r, 8, &dim, what)) return th_last_status();
        if (dim > (uint64_t)INT64_MAX)
            return th__fail(TH_ERR_RANGE, r->fn, "%s: %s: dim %d is %llu, past int64", r->where, what, d,
                            (unsigned long long)dim);
        e->sizes[e->ndim - 1 - d] = (int64_t)dim;
    }
    if (th__gguf_uint(r, 4, &type, what) || th__gguf_uint(r, 8, offset, what)) return th_last_status();
    int k = th__gguf_ttype_of(type);
    if (k < 0)
        return th__fail(TH_ERR_DTYPE, r->fn, "%s: %s: unknown GGML type number %llu", r->where, what,
                        (unsigned long long)type);
    const th__gguf_ttype *t = &th__gguf_ttypes[k];
    e->type = k;
    e->dtype = t->dtype;
    e->type_name = t->name;
    /* Zero dims count as one: a shape whose other dims overflow has no strides, empty or not. */
    int64_t numel = 1, span = 1;
    for (int d = 0; d < e->ndim; d++)
        if (__builtin_mul_overflow(numel, e->sizes[d], &numel) ||
            __builtin_mul_overflow(span, e->sizes[d] ? e->sizes[d] : 1, &span))
            return th__fail(TH_ERR_OVERFLOW, r->fn, "%s: %s: the number of elements overflows int64", r->where, what);
    int64_t inner = e->ndim ? e->sizes[e->ndim - 1] : 1, nbytes;
    if (inner % t->block)
        return th__fail(TH_ERR_INVALID, r->fn, "%s: %s: its first dim %lld is not a whole number of %s's blocks of %d",
                        r->where, what, (long long)inner, t->name, t->block);
    if (__builtin_mul_overflow(numel / t->block, (int64_t)t->bytes, &nbytes))
        return th__fail(TH_ERR_OVERFLOW, r->fn, "%s: %s: the byte size overflows int64", r->where, what);
    e->begin = 0;
    e->end = nbytes;
    return TH_OK;
}

/* The index of the GGUF bytes of storage s (a mapped file, or any storage: the fuzzer's); takes over the
 * caller's reference to s, released on failure. where names the file in the messages. */
static th_gguf *th__gguf_index(const char *fn, const char *where, th_storage *s)
{
    th_gguf *f = (th_gguf *)th__file_handle_new(fn, where, s, sizeof *f, offsetof(th_gguf, file),
                                                offsetof(th_gguf, where));
    if (!f) return NULL;
    const char *w = f->where;
    f->alignment = 32;
    th__gguf_rd r = {fn, w, (const unsigned char *)s->data, s->nbytes, 0, false, f};
    uint64_t version, nt, nkv;
    if (r.len < 4 || memcmp(r.data, "GGUF", 4) != 0) {
        th__fail(TH_ERR_INVALID, fn, "%s: not a GGUF file: it does not start with 'GGUF' (%lld bytes)", w,
                 (long long)r.len);
        goto fail;
    }
    r.at = 4;
    if (th__gguf_uint(&r, 4, &version, "the version")) goto fail;
    if (version != 2 && version != 3) {
        uint32_t v = (uint32_t)version, swapped = v >> 24 | (v >> 8 & 0xff00) | (v << 8 & 0xff0000) | v << 24;
        if (swapped != 2 && swapped != 3) {
            th__fail(TH_ERR_INVALID, fn, "%s: GGUF version: neither is 2 or 3: %u read little-endian, %u big-endian", w, v,
                     swapped);
            goto fail;
        }
        r.big = true;
        version = swapped;
    }
    f->version = (int)version;
    f->big = r.big;
    if (th__gguf_uint(&r, 8, &nt, "the tensor count") || th__gguf_uint(&r, 8, &nkv, "the key/value count")) goto fail;
    /* A key/value takes at least 13 bytes (length, type, a byte), a tensor info 24: counts past the bytes left
     * are refused before anything is allocated for them. */
    if (nkv > (uint64_t)(r.len - r.at) / 13 || nt > (uint64_t)(r.len - r.at) / 24) {
        th__fail(TH_ERR_INVALID, fn, "%s: %llu key/values and %llu tensors need more than the %lld bytes left after the "
                 "counts", w, (unsigned long long)nkv, (unsigned long long)nt, (long long)(r.len - r.at));
        goto fail;
    }
    f->kv_count = (int)nkv;
    f->kvs = (th__gguf_kv *)calloc(nkv ? (size_t)nkv : 1, sizeof *f->kvs);
    f->entries = (th__file_entry *)calloc(nt ? (size_t)nt : 1, sizeof *f->entries);
    f->by_name = (int *)malloc((nt ? (size_t)nt : 1) * sizeof *f->by_name);
    if (!f->kvs || !f->entries || !f->by_name) {
        th__fail(TH_ERR_NOMEM, fn, "out of memory for the index of %s", w);
        goto fail;
    }
    if (th__gguf_kvs(&r, f)) goto fail;
    {
        uint64_t *offsets = (uint64_t *)malloc((nt ? (size_t)nt : 1) * sizeof *offsets);
        const char **names = (const char **)malloc((nt ? (size_t)nt : 1) * sizeof *names);
        int status = offsets && names ? TH_OK : th__fail(TH_ERR_NOMEM, fn, "out of memory for the index of %s", w);
        for (f->count = 0; !status && f->count < (int)nt; f->count++) {
            status = th__gguf_info(&r, &f->entries[f->count], f->count, &offsets[f->count]);
            names[f->count] = f->entries[f->count].name;
        }
        const char *twice = status ? NULL : th__gguf_sorted(names, f->count, f->by_name, &status);
        if (status == TH_ERR_NOMEM) th__fail(status, fn, "out of memory for the index of %s", w);
        else if (twice) status = th__fail(TH_ERR_INVALID, fn, "%s: the tensor '%s' twice", w, twice);
        /* The data starts at the header's end rounded up to the alignment; each tensor at an aligned offset
         * from there, after the previous one's end, its bytes inside the file. */
        f->data_start = (r.at + f->alignment - 1) / f->alignment * f->alignment;
        int64_t data_len = r.len > f->data_start ? r.len - f->data_start : 0, end = 0;
        for (int i = 0; !status && i < f->count; i++) {
            th__file_entry *e = &f->entries[i];
            int64_t nbytes = e->end;
            uint64_t at = offsets[i];
            if (at % (uint64_t)f->alignment)
                status = th__fail(TH_ERR_INVALID, fn, "%s: tensor '%s': offset %llu is not a multiple of the alignment "
                                  "%lld", w, e->name, (unsigned long long)at, (long long)f->alignment);
            else if (at < (uint64_t)end)
                status = th__fail(TH_ERR_INVALID, fn, "%s: tensor '%s': offset %llu is before the end (%lld) of tensor "
                                  "'%s' before it", w, e->name, (unsigned long long)at, (long long)end, f->entries[i - 1].name);
            else if (at > (uint64_t)data_len || (uint64_t)nbytes > (uint64_t)data_len - at)
                status = th__fail(TH_ERR_INVALID, fn, "%s: tensor '%s': its %lld bytes at offset %llu reach past the %lld "
                                  "bytes of data", w, e->name, (long long)nbytes, (unsigned long long)at, (long long)data_len);
            else {
                e->begin = (int64_t)at;
                e->end = (int64_t)at + nbytes;
                end = e->end;
            }
        }
        free(offsets);
        free((void *)names);
        if (status) goto fail;
    }
    return f;
fail:
    th_gguf_close(f);
    return NULL;
}

static const th__file_entry *th__gguf_at(const th_gguf *f, int i) { return f && i >= 0 && i < f->count ? &f->entries[i] : NULL; }

TH_API int th_gguf_version(const th_gguf *f) { return f ? f->version : -1; }
TH_API bool th_gguf_big_endian(const th_gguf *f) { return f && f->big; }
TH_API int64_t th_gguf_alignment(const th_gguf *f) { return f ? f->alignment : -1; }
TH_API int th_gguf_count(const th_gguf *f) { return f ? f->count : -1; }
TH_API const char *th_gguf_name(const th_gguf *f, int i) { return th__gguf_at(f, i) ? f->entries[i].name : NULL; }

TH_API int th_gguf_find(const th_gguf *f, const char *name)
{
    if (!f || !name) return -1;
    int lo = 0, hi = f->count - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, c = strcmp(f->entries[f->by_name[mid]].name, name);
        if (!c) return f->by_name[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

TH_API int th_gguf_type_id(const th_gguf *f, int i) { return th__gguf_at(f, i) ? th__gguf_ttypes[f->entries[i].type].id : -1; }
TH_API const char *th_gguf_type_name(const th_gguf *f, int i) { return th__gguf_at(f, i) ? f->entries[i].type_name : NULL; }
TH_API th_dtype th_gguf_dtype(const th_gguf *f, int i) { return th__gguf_at(f, i) ? f->entries[i].dtype : TH_DTYPE_INVALID; }
TH_API int th_gguf_ndim(const th_gguf *f, int i) { return th__gguf_at(f, i) ? f->entries[i].ndim : -1; }
TH_API const int64_t *th_gguf_sizes(const th_gguf *f, int i) { return th__gguf_at(f, i) ? f->entries[i].sizes : NULL; }
TH_API int64_t th_gguf_nbytes(const th_gguf *f, int i)
{
    return th__gguf_at(f, i) ? f->entries[i].end - f->entries[i].begin : -1;
}
TH_API int64_t th_gguf_offset(const th_gguf *f, int i) { return th__gguf_at(f, i) ? f->entries[i].begin : -1; }

TH_API int th_gguf_kv_count(const th_gguf *f) { return f ? f->kv_count : -1; }
TH_API const char *th_gguf_key(const th_gguf *f, int i) { return f && i >= 0 && i < f->kv_count ? f->kvs[i].key.data : NULL; }
TH_API const th_gguf_value *th_gguf_value_at(const th_gguf *f, int i)
{
    return f && i >= 0 && i < f->kv_count ? &f->kvs[i].value : NULL;
}

TH_API int th_gguf_find_key(const th_gguf *f, const char *key)
{
    if (!f || !key) return -1;
    for (int i = 0; i < f->kv_count; i++)
        if (strcmp(f->kvs[i].key.data, key) == 0) return i;
    return -1;
}

TH_API const char *th_gguf_type_string(th_gguf_type type)
{
    static const char *const names[13] = {"UINT8", "INT8",   "UINT16", "INT16", "UINT32", "INT32", "FLOAT32",
                                          "BOOL",  "STRING", "ARRAY",  "UINT64", "INT64", "FLOAT64"};
    return (unsigned)type < 13 ? names[type] : "?";
}

/* The entry of the tensor called name, or NULL with the error recorded. */
static const th__file_entry *th__gguf_entry(const char *fn, const th_gguf *f, const char *name)
{
    if (!f || !name) {
        th__fail(TH_ERR_INVALID, fn, "NULL %s", f ? "name" : "file");
        return NULL;
    }
    int i = th_gguf_find(f, name);
    if (i < 0) th__fail(TH_ERR_INVALID, fn, "%s has no tensor '%s'", f->where, name);
    return i < 0 ? NULL : &f->entries[i];
}

TH_API th_tensor *th_gguf_get(th_gguf *f, const char *name)
{
    static const char fn[] = "th_gguf_get";
    const th__file_entry *e = th__gguf_entry(fn, f, name);
    if (!e) return NULL;
    if (e->dtype == TH_DTYPE_INVALID) {
        th__fail(TH_ERR_DTYPE, fn, "%s: tensor '%s' is %s, a quantised type: th_gguf_get_raw gives its blocks as u8%s",
                 f->where, name, e->type_name,
                 th__gguf_dequantize_blocks(th__gguf_ttypes[e->type].id, NULL, 0, false, NULL)
                     ? ", th_gguf_dequantize its values as f32" : "");
        return NULL;
    }
    return th__file_tensor(fn, f->where, name, f->file, e->dtype, f->data_start + e->begin, e->end - e->begin, e->ndim,
                           e->sizes, !f->big);
}

TH_API th_tensor *th_gguf_get_raw(th_gguf *f, const char *name)
{
    static const char fn[] = "th_gguf_get_raw";
    const th__file_entry *e = th__gguf_entry(fn, f, name);
    if (!e) return NULL;
    const th__gguf_ttype *t = &th__gguf_ttypes[e->type];
    int64_t sizes[TH_MAX_DIMS];
    int ndim = e->ndim ? e->ndim : 1;
    memcpy(sizes, e->sizes, sizeof sizes);
    sizes[ndim - 1] = e->end - e->begin;
    /* The innermost dim in bytes: it can overflow where another dim is 0 (the tensor's bytes, 0, bound nothing). */
    if (e->ndim && __builtin_mul_overflow(e->sizes[ndim - 1] / t->block, (int64_t)t->bytes, &sizes[ndim - 1])) {
        th__fail(TH_ERR_OVERFLOW, fn, "%s: tensor '%s': %lld elements of %s in its innermost dim overflow int64 as bytes",
                 f->where, name, (long long)e->sizes[ndim - 1], t->name);
        return NULL;
    }
    return th__file_tensor(fn, f->where, name, f->file, TH_U8, f->data_start + e->begin, e->end - e->begin, ndim, sizes,
                           true);
}

TH_API th_tensor *th_gguf_dequantize(th_gguf *f, const char *name)
{
    static const char fn[] = "th_gguf_dequantize";
    const th__file_entry *e = th__gguf_entry(fn, f, name);
    if (!e) return NULL;
    const th__gguf_ttype *t = &th__gguf_ttypes[e->type];
    if (!th__dtype_traits[TH_F32].stamped) {
        th__fail(TH_ERR_DTYPE, fn, "dtype f32 is not compiled into this build (TH_SELECT_DTYPES)");
        return NULL;
    }
    if (e->dtype == TH_F32 || e->dtype == TH_F16 || e->dtype == TH_BF16 || e->dtype == TH_F64) {
        th_tensor *x = th_gguf_get(f, name);
        th_tensor *y = x ? th__convert_new(fn, TH_F32, x) : NULL;
        th_tensor_release(x);
        return y;
    }
    if (!th__gguf_dequantize_blocks(t->id, NULL, 0, false, NULL)) {
        th__fail(TH_ERR_DTYPE, fn, "%s: tensor '%s' is %s, which has no dequantiser here (Q4_0, Q4_1, Q5_0, Q5_1, "
                 "Q8_0 have; F32, F16, BF16, F64 convert)", f->where, name, t->name);
        return NULL;
    }
    int64_t nblocks = (e->end - e->begin) / t->bytes;
    th_storage *out = th__storage_alloc(fn, nblocks * t->block * 4, NULL, NULL);
    if (!out) return NULL;
    th__gguf_dequantize_blocks(t->id, (const unsigned char *)f->file->data + f->data_start + e->begin, nblocks, f->big,
                               (float *)out->data);
    th_tensor *y = th__tensor_new_with_storage(fn, TH_F32, out, 0, e->ndim, e->sizes, NULL);
    th_storage_release(out);
    return y;
}
