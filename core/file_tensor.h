/* core/file_tensor.h: what the multi-tensor file formats (safetensors, GGUF) share: the lazy index entry, the one
 * maker of a tensor from a file's bytes (a view of the file's mapping where the bytes allow it, else a converted
 * copy), a growable array for an index, and UTF-8 checks.
 * Part of tensor.h, which includes it twice: it declares nothing public, its definitions come the second time. */
#ifndef TENSOR_H
#error "core/file_tensor.h is part of tensor.h: include tensor.h"
#endif
#ifdef TH__DEFINING

/* One tensor of a file's index, read from its header without touching the data. */
typedef struct th__file_entry {
    const char *name;      /* in the file's string arena */
    int type;              /* into the format's own table of types */
    th_dtype dtype;        /* TH_DTYPE_INVALID for a type the library lacks (a quantised one, U16...) */
    const char *type_name; /* the format's name of the type ("F32", "Q4_0") */
    int ndim;
    int64_t sizes[TH_MAX_DIMS]; /* outermost first */
    int64_t begin, end;         /* the bytes, from the start of the format's data area */
} th__file_entry;

/* The number of bytes of the UTF-8 sequence at p (at most end), 0 if it is not well formed (overlong forms,
 * surrogates and code points past U+10FFFF included, as Rust's str and Python's utf-8 codec refuse them). */
static int th__utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    if (c < 0x80) return 1;
    int n = c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
    if (!n || end - p < n) return 0;
    for (int k = 1; k < n; k++)
        if ((p[k] & 0xc0) != 0x80) return 0;
    if (c == 0xe0 && p[1] < 0xa0) return 0; /* overlong */
    if (c == 0xed && p[1] >= 0xa0) return 0; /* a surrogate */
    if (c == 0xf0 && p[1] < 0x90) return 0; /* overlong */
    if (c == 0xf4 && p[1] >= 0x90) return 0; /* past U+10FFFF */
    return n;
}

/* Whether the n bytes at s are UTF-8. */
static bool th__utf8_valid_n(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    while (p < end) {
        int k = th__utf8_len(p, end);
        if (!k) return false;
        p += k;
    }
    return true;
}

TH__MAYBE_UNUSED static bool th__utf8_valid(const char *s) { return th__utf8_valid_n(s, strlen(s)); }

/* A growable array, its size doubled as entries arrive: never more than the header's bytes can describe.
 * The array to use from now on, or NULL (the old one still the caller's) with the error recorded. */
static void *th__index_grow(const char *fn, void *items, int *cap, int need, size_t item)
{
    if (need <= *cap) return items;
    int c = *cap ? *cap * 2 : 8;
    void *p = realloc(items, (size_t)c * item);
    if (!p) {
        th__fail(TH_ERR_NOMEM, fn, "out of memory for the index of a file");
        return NULL;
    }
    *cap = c;
    return p;
}

/* The tensor of dtype dt (one the library has) and the given C-order shape whose nbytes bytes begin at byte at
 * of the file's storage, stored little-endian (file_little) or big-endian. A view of the storage where the
 * data is aligned for the dtype, in this host's byte order and (bool) every byte is 0 or 1, so that
 * th_storage_is_mapped(th_tensor_storage(t)) says whether it is zero-copy; otherwise (and for an empty
 * tensor) a converted copy. where and name only name the tensor in the messages. A new reference, or NULL:
 * TH_ERR_DTYPE (a dtype this build did not stamp), TH_ERR_NOMEM. */
static th_tensor *th__file_tensor(const char *fn, const char *where, const char *name, th_storage *file, th_dtype dt,
                                  int64_t at, int64_t nbytes, int ndim, const int64_t *sizes, bool file_little)
{
    if (!th__dtype_traits[dt].stamped) {
        th__fail(TH_ERR_DTYPE, fn, "%s: tensor '%s': dtype %s is not compiled into this build (TH_SELECT_DTYPES)",
                 where, name, th_dtype_name(dt));
        return NULL;
    }
    size_t es = th__dtype_traits[dt].size;
    int64_t n = nbytes / (int64_t)es;
    const unsigned char *src = (const unsigned char *)file->data + at;
    bool swap = es > 1 && file_little != th__host_is_little();
    /* Element alignment: the storage's base is page (map) or 64-byte (allocator) aligned. */
    bool usable = n > 0 && at % (int64_t)es == 0 && !swap;
    if (usable && dt == TH_BOOL)
        for (int64_t k = 0; k < n && usable; k++) usable = src[k] <= 1;
    if (usable) return th__tensor_new_with_storage(fn, dt, file, at / (int64_t)es, ndim, sizes, NULL);
    th_storage *copy = th__storage_alloc(fn, nbytes, NULL, NULL);
    if (!copy) return NULL;
    if (n > 0) {
        unsigned char *c = (unsigned char *)copy->data;
        memcpy(c, src, (size_t)nbytes);
        bool cplx = dt == TH_C64 || dt == TH_C128;
        if (swap) th__byteswap(c, cplx ? 2 * n : n, cplx ? es / 2 : es);
        if (dt == TH_BOOL)
            for (int64_t k = 0; k < n; k++) c[k] = c[k] != 0;
    }
    th_tensor *t = th__tensor_new_with_storage(fn, dt, copy, 0, ndim, sizes, NULL); /* C order, checked */
    th_storage_release(copy);
    return t;
}


/* A zeroed handle of size bytes for a file format's index of storage s, holding s and a copy of where (the file's
 * name in messages) in its fields at byte offsets file_at (a th_storage *) and where_at (a char *): each format's
 * handle has both. NULL on out of memory, with s released: the index makers take over the caller's reference
 * to s. */
static void *th__file_handle_new(const char *fn, const char *where, th_storage *s, size_t size, size_t file_at,
                                 size_t where_at)
{
    char *f = (char *)calloc(1, size);
    size_t wl = strlen(where);
    char *w = (char *)malloc(wl + 1);
    if (!f || !w) {
        free(f);
        free(w);
        th_storage_release(s);
        th__fail(TH_ERR_NOMEM, fn, "out of memory for %s", where);
        return NULL;
    }
    memcpy(w, where, wl + 1);
    memcpy(f + file_at, &s, sizeof s);
    memcpy(f + where_at, &w, sizeof w);
    return f;
}
/* The index of the entry called name among count entries sorted by name (byte order), -1 if none. */
static int th__file_find_sorted(const th__file_entry *entries, int count, const char *name)
{
    int lo = 0, hi = count - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, c = strcmp(entries[mid].name, name);
        if (!c) return mid;
        if (c < 0) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
}

#endif /* TH__DEFINING */
