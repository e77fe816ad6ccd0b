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

typedef struct th__st_entry {
    const char *name; /* in the file's string arena */
    int type;         /* into th__st_types */
    int ndim;
    int64_t sizes[TH_MAX_DIMS];
    int64_t begin, end; /* data_offsets: from the start of the data, after the header */
} th__st_entry;

struct th_safetensors {
    th_storage *file;
    char *where;       /* "'path'" for the messages */
    int64_t data_start; /* 8 + the header's length */
    int count, meta_count;
    th__st_entry *entries;  /* sorted by name */
    const char **meta;      /* key, value, key, value..., sorted by key */
    char *arena;            /* the decoded strings */
};

/* ---- the header: a strict JSON scanner over the mapped bytes ---------------------------------------------- */

typedef struct th__st_scan {
    const char *fn, *where;
    const char *begin, *p, *end;
    char *arena; /* decoded strings go here: never more bytes than the header, as each is shorter decoded */
    size_t used;
} th__st_scan;

static int th__st_bad(th__st_scan *s, const char *what)
{
    char near[25];
    size_t n = 0;
    for (const char *q = s->p; q < s->end && n < sizeof near - 1; q++) near[n++] = (*q >= 32 && *q < 127) ? *q : '?';
    near[n] = '\0';
    return th__fail(TH_ERR_INVALID, s->fn, "%s: header: %s at byte %ld of the JSON (\"%s\")", s->where, what,
                    (long)(s->p - s->begin), near);
}

static void th__st_ws(th__st_scan *s)
{
    while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r')) s->p++;
}

static bool th__st_eat(th__st_scan *s, char c)
{
    th__st_ws(s);
    if (s->p < s->end && *s->p == c) {
        s->p++;
        return true;
    }
    return false;
}

static int th__st_hex4(const char *p)
{
    int v = 0;
    for (int k = 0; k < 4; k++) {
        char c = p[k];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        v = v * 16 + d;
    }
    return v;
}

/* The number of bytes of the UTF-8 sequence at p (at most end), 0 if it is not well formed (overlong forms,
 * surrogates and code points past U+10FFFF included, as Rust's str, which the reference uses, refuses them). */
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

static size_t th__utf8_put(char *out, unsigned cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* A JSON string, decoded into the arena as a C string (what names the string in the messages). A \u0000 is
 * refused: a C string cannot hold it, and a name with one could not be asked for. */
static int th__st_string(th__st_scan *s, const char **out, const char *what)
{
    th__st_ws(s);
    if (s->p >= s->end || *s->p != '"') {
        char m[256];
        snprintf(m, sizeof m, "expected %.200s as a string", what);
        return th__st_bad(s, m);
    }
    s->p++;
    char *o = s->arena + s->used;
    size_t n = 0;
    for (;;) {
        if (s->p >= s->end) return th__st_bad(s, "a string without its closing quote");
        unsigned char c = (unsigned char)*s->p;
        if (c == '"') break;
        if (c < 0x20) return th__st_bad(s, "a control character inside a string");
        if (c != '\\') {
            int len = th__utf8_len((const unsigned char *)s->p, (const unsigned char *)s->end);
            if (!len) return th__st_bad(s, "bytes that are not UTF-8");
            memcpy(o + n, s->p, (size_t)len);
            n += (size_t)len;
            s->p += len;
            continue;
        }
        if (s->end - s->p < 2) return th__st_bad(s, "a string without its closing quote");
        char e = s->p[1];
        const char *simple = strchr("\"\\/bfnrt", e);
        if (e && simple) {
            static const char decoded[] = "\"\\/\b\f\n\r\t";
            o[n++] = decoded[simple - "\"\\/bfnrt"];
            s->p += 2;
            continue;
        }
        if (e != 'u') return th__st_bad(s, "an unknown escape in a string");
        int cp = s->end - s->p >= 6 ? th__st_hex4(s->p + 2) : -1;
        if (cp < 0) return th__st_bad(s, "a \\u escape without four hex digits");
        int step = 6;
        if (cp >= 0xd800 && cp <= 0xdbff) {
            int lo = s->end - s->p >= 12 && s->p[6] == '\\' && s->p[7] == 'u' ? th__st_hex4(s->p + 8) : -1;
            if (lo < 0xdc00 || lo > 0xdfff) return th__st_bad(s, "a lone UTF-16 surrogate in a \\u escape");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            step = 12;
        } else if (cp >= 0xdc00 && cp <= 0xdfff) {
            return th__st_bad(s, "a lone UTF-16 surrogate in a \\u escape");
        }
        if (cp == 0) return th__st_bad(s, "a \\u0000 in a string (a C string cannot hold it)");
        n += th__utf8_put(o + n, (unsigned)cp);
        s->p += step;
    }
    s->p++;
    o[n] = '\0';
    s->used += n + 1;
    *out = o;
    return TH_OK;
}

/* A JSON number that must be a non-negative integer (what the reference's usize fields take). */
static int th__st_uint(th__st_scan *s, int64_t *v, const char *what)
{
    th__st_ws(s);
    char m[256];
    if (s->p < s->end && *s->p == '-') {
        snprintf(m, sizeof m, "%.200s is negative", what);
        return th__st_bad(s, m);
    }
    if (s->p >= s->end || *s->p < '0' || *s->p > '9') {
        snprintf(m, sizeof m, "%.200s is not a number", what);
        return th__st_bad(s, m);
    }
    if (*s->p == '0' && s->p + 1 < s->end && s->p[1] >= '0' && s->p[1] <= '9') {
        snprintf(m, sizeof m, "%.200s has a leading zero", what);
        return th__st_bad(s, m);
    }
    int64_t x = 0;
    while (s->p < s->end && *s->p >= '0' && *s->p <= '9') {
        if (x > (INT64_MAX - (*s->p - '0')) / 10)
            return th__fail(TH_ERR_OVERFLOW, s->fn, "%s: header: %s is more than %lld", s->where, what,
                            (long long)INT64_MAX);
        x = x * 10 + (*s->p++ - '0');
    }
    if (s->p < s->end && (*s->p == '.' || *s->p == 'e' || *s->p == 'E')) {
        snprintf(m, sizeof m, "%.200s is not an integer", what);
        return th__st_bad(s, m);
    }
    *v = x;
    return TH_OK;
}

/* A growable array, its size doubled as entries arrive: never more than the header's bytes can describe.
 * The array to use from now on, or NULL (the old one still the caller's) with the error recorded. */
static void *th__st_grow(const char *fn, void *items, int *cap, int need, size_t item)
{
    if (need <= *cap) return items;
    int c = *cap ? *cap * 2 : 8;
    void *p = realloc(items, (size_t)c * item);
    if (!p) {
        th__fail(TH_ERR_NOMEM, fn, "out of memory for the index of a safetensors file");
        return NULL;
    }
    *cap = c;
    return p;
}

/* One tensor's object: {"dtype": ..., "shape": [...], "data_offsets": [begin, end]}, each key once. */
static int th__st_entry_parse(th__st_scan *s, th__st_entry *e)
{
    const char *name = e->name;
    char what[160];
    if (!th__st_eat(s, '{')) {
        snprintf(what, sizeof what, "tensor '%.100s' is not an object", name);
        return th__st_bad(s, what);
    }
    bool seen[3] = {false, false, false};
    static const char *const keys[3] = {"dtype", "shape", "data_offsets"};
    bool first = true;
    while (!th__st_eat(s, '}')) {
        if (!first && !th__st_eat(s, ',')) return th__st_bad(s, "expected ',' or '}'");
        first = false;
        size_t mark = s->used; /* the key is not kept */
        const char *key;
        if (th__st_string(s, &key, "a key")) return th_last_status();
        int k = 0;
        while (k < 3 && strcmp(key, keys[k]) != 0) k++;
        if (k == 3)
            return th__fail(TH_ERR_INVALID, s->fn, "%s: header: tensor '%s': unknown key '%.100s' (only dtype, shape, "
                            "data_offsets)", s->where, name, key);
        if (seen[k])
            return th__fail(TH_ERR_INVALID, s->fn, "%s: header: tensor '%s': the key '%s' twice", s->where, name, key);
        seen[k] = true;
        s->used = mark;
        if (!th__st_eat(s, ':')) return th__st_bad(s, "expected ':' after a key");
        if (k == 0) {
            const char *dt;
            if (th__st_string(s, &dt, "'dtype'")) return th_last_status();
            e->type = -1;
            for (int t = 0; t < TH__ST_NTYPES; t++)
                if (strcmp(dt, th__st_types[t].name) == 0) e->type = t;
            if (e->type < 0)
                return th__fail(TH_ERR_DTYPE, s->fn, "%s: header: tensor '%s': 'dtype' is '%.40s', which safetensors "
                                "does not define", s->where, name, dt);
            s->used = mark;
        } else {
            if (!th__st_eat(s, '[')) {
                snprintf(what, sizeof what, "tensor '%.100s': '%s' is not an array", name, keys[k]);
                return th__st_bad(s, what);
            }
            int n = 0;
            int64_t v[2] = {0, 0};
            while (!th__st_eat(s, ']')) {
                if (n && !th__st_eat(s, ',')) return th__st_bad(s, "expected ',' or ']'");
                snprintf(what, sizeof what, "tensor '%.100s': an element of '%s'", name, keys[k]);
                int64_t x = 0;
                if (th__st_uint(s, &x, what)) return th_last_status();
                if (k == 1) {
                    if (n == TH_MAX_DIMS)
                        return th__fail(TH_ERR_RANGE, s->fn, "%s: header: tensor '%s': 'shape' has more than %d dims "
                                        "(TH_MAX_DIMS)", s->where, name, TH_MAX_DIMS);
                    e->sizes[n] = x;
                } else if (n < 2) {
                    v[n] = x;
                }
                n++;
            }
            if (k == 1) {
                e->ndim = n;
            } else {
                if (n != 2)
                    return th__fail(TH_ERR_INVALID, s->fn, "%s: header: tensor '%s': 'data_offsets' has %d numbers, "
                                    "not 2", s->where, name, n);
                e->begin = v[0];
                e->end = v[1];
            }
        }
    }
    for (int k = 0; k < 3; k++)
        if (!seen[k]) return th__fail(TH_ERR_INVALID, s->fn, "%s: header: tensor '%s': no '%s'", s->where, name, keys[k]);
    return TH_OK;
}

static int th__st_metadata_parse(th__st_scan *s, const char ***meta, int *count, int *cap)
{
    if (!th__st_eat(s, '{')) return th__st_bad(s, "'__metadata__' is not an object");
    bool first = true;
    while (!th__st_eat(s, '}')) {
        if (!first && !th__st_eat(s, ',')) return th__st_bad(s, "expected ',' or '}' in '__metadata__'");
        first = false;
        const char *key, *value;
        if (th__st_string(s, &key, "a key of '__metadata__'")) return th_last_status();
        if (!th__st_eat(s, ':')) return th__st_bad(s, "expected ':' after a key");
        char what[160];
        snprintf(what, sizeof what, "the value of '__metadata__' key '%.100s' (a string)", key);
        if (th__st_string(s, &value, what)) return th_last_status();
        void *grown = th__st_grow(s->fn, (void *)*meta, cap, 2 * (*count + 1), sizeof(const char *));
        if (!grown) return th_last_status();
        *meta = (const char **)grown;
        (*meta)[2 * *count] = key;
        (*meta)[2 * *count + 1] = value;
        (*count)++;
    }
    return TH_OK;
}

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
    th_safetensors *f = (th_safetensors *)calloc(1, sizeof *f);
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
    f->file = s;
    f->where = w;
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
            void *grown = th__st_grow(fn, f->entries, &ecap, f->count + 1, sizeof *f->entries);
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
    th_storage *s = th__file_contents(fn, path);
    if (!s) return NULL;
    char where[512];
    snprintf(where, sizeof where, "'%s'", path);
    return th__st_index(fn, where, s);
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
    if (!f || !name) return -1;
    int lo = 0, hi = f->count - 1;
    while (lo <= hi) {
        int mid = lo + (hi - lo) / 2, c = strcmp(f->entries[mid].name, name);
        if (!c) return mid;
        if (c < 0) lo = mid + 1;
        else hi = mid - 1;
    }
    return -1;
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
    if (!th__dtype_traits[dt].stamped) {
        th__fail(TH_ERR_DTYPE, fn, "%s: tensor '%s': dtype %s is not compiled into this build (TH_SELECT_DTYPES)",
                 f->where, name, th_dtype_name(dt));
        return NULL;
    }
    size_t es = th__dtype_traits[dt].size;
    int64_t strides[TH_MAX_DIMS];
    th__contiguous_strides(e->ndim, e->sizes, strides);
    int64_t at = f->data_start + e->begin, nbytes = e->end - e->begin, n = nbytes / (int64_t)es;
    const unsigned char *src = (const unsigned char *)f->file->data + at;
    bool little = th__host_is_little();
    /* Element alignment: the storage's base is page (map) or 64-byte (allocator) aligned. */
    bool usable = n > 0 && at % (int64_t)es == 0 && little;
    if (usable && dt == TH_BOOL)
        for (int64_t k = 0; k < n && usable; k++) usable = src[k] <= 1;
    if (usable) return th__tensor_new_with_storage(fn, dt, f->file, at / (int64_t)es, e->ndim, e->sizes, strides);
    th_storage *copy = th__storage_alloc(fn, nbytes, NULL, NULL);
    if (!copy) return NULL;
    if (n > 0) {
        unsigned char *c = (unsigned char *)copy->data;
        memcpy(c, src, (size_t)nbytes);
        bool cplx = dt == TH_C64 || dt == TH_C128;
        if (!little && es > 1) th__byteswap(c, cplx ? 2 * n : n, cplx ? es / 2 : es);
        if (dt == TH_BOOL)
            for (int64_t k = 0; k < n; k++) c[k] = c[k] != 0;
    }
    th_tensor *t = th__tensor_new_with_storage(fn, dt, copy, 0, e->ndim, e->sizes, strides);
    th_storage_release(copy);
    return t;
}

/* ---- the writer ------------------------------------------------------------------------------------------- */

/* A growing string for the header. Its first failure sticks (status), so the appends need no checks. */
typedef struct th__st_text {
    char *s;
    size_t n, cap;
    int status;
    const char *fn;
} th__st_text;

static void th__st_put(th__st_text *t, const char *s, size_t n)
{
    if (t->status) return;
    if (t->n + n + 1 > t->cap) {
        size_t c = t->cap ? t->cap : 256;
        while (c < t->n + n + 1) c *= 2;
        char *p = (char *)realloc(t->s, c);
        if (!p) {
            t->status = th__fail(TH_ERR_NOMEM, t->fn, "out of memory for a safetensors header");
            return;
        }
        t->s = p;
        t->cap = c;
    }
    memcpy(t->s + t->n, s, n);
    t->n += n;
}

static void th__st_puts(th__st_text *t, const char *s) { th__st_put(t, s, strlen(s)); }

/* A JSON string as serde_json writes it (the reference's writer): the short escapes for ", \, \b, \f, \n, \r,
 * \t, \u00xx for the other control characters, every other byte as it is. */
static void th__st_put_string(th__st_text *t, const char *s)
{
    th__st_put(t, "\"", 1);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        const char *esc = NULL;
        char buf[8];
        switch (*p) {
        case '"': esc = "\\\""; break;
        case '\\': esc = "\\\\"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        default:
            if (*p < 0x20) {
                snprintf(buf, sizeof buf, "\\u%04x", *p);
                esc = buf;
            }
        }
        if (esc) th__st_puts(t, esc);
        else th__st_put(t, (const char *)p, 1);
    }
    th__st_put(t, "\"", 1);
}

static bool th__utf8_valid(const char *s)
{
    const unsigned char *p = (const unsigned char *)s, *end = p + strlen(s);
    while (p < end) {
        int n = th__utf8_len(p, end);
        if (!n) return false;
        p += n;
    }
    return true;
}

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
