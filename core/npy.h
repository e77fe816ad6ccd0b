/* core/npy.h: NumPy's .npy files (and the members of .npz archives: core/npz.h): the header parsed strictly,
 * tensors loaded as views of the mapped file where the bytes allow it, written through a renamed temporary file.
 * Part of tensor.h, which includes it twice: its declarations, then (TH__DEFINING) its definitions. */
#ifndef TENSOR_H
#error "core/npy.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

/* The most bytes an .npy header may have (NumPy's own limit when loading, max_header_size): a header is a
 * short dict, and a longer one is refused before anything is read in proportion to it. */
#define TH_NPY_MAX_HEADER 10000

/* The array in the .npy file at path as a tensor of the file's dtype (th_f32_from_base and its kin give the
 * typed handle): bool, u8, i8, i16, i32, i64, f16, f32, f64, c64, c128, in C or Fortran order (a Fortran array
 * keeps its column-major strides), format versions 1.0, 2.0 and 3.0. Where the platform maps files and the
 * data is in this machine's byte order and aligned for the dtype, the tensor is a view of a private
 * (copy-on-write) mapping of the file: nothing is read until an element is touched, writes stay in this
 * process, and th_storage_is_mapped(th_tensor_storage(t)) says so. Otherwise (the other byte order, data
 * misaligned for its dtype, a bool byte other than 0 or 1, no mmap) the data is copied and converted, and
 * th_storage_is_mapped says false. NULL on error, with the path, the field and the bad value in the message:
 * TH_ERR_IO (a missing or unreadable file), TH_ERR_INVALID (no .npy magic, a malformed or oversized header, a
 * truncated file), TH_ERR_DTYPE (a dtype the library lacks, e.g. '<U5', '<u4', a structured dtype, or one not
 * compiled into this build), TH_ERR_RANGE (more than TH_MAX_DIMS dims), TH_ERR_OVERFLOW (a shape whose byte
 * size overflows). */
TH_API th_tensor *th_tensor_load_npy(const char *path);
/* Writes t to path as format version 1.0, in its dtype and this machine's byte order: C order, or Fortran
 * order for a tensor whose strides are column-major (as np.save does), anything else copied to C order first.
 * The file is written under a temporary name in the same folder and renamed into place, so path never holds
 * half a file and a reader's mapping of the old one stays valid. 0 or a negative status: TH_ERR_INVALID (NULL),
 * TH_ERR_DTYPE (bf16, which NumPy lacks), TH_ERR_DEVICE (memory the host cannot read), TH_ERR_IO. */
TH_API int th_tensor_save_npy(const char *path, const th_tensor *t);

#else /* TH__DEFINING */

static bool th__host_is_little(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 1;
}

/* The dtype of a NumPy type character and size (the 'f4' of '<f4'), TH_DTYPE_INVALID if the library has none. */
static th_dtype th__npy_dtype_of(char kind, int64_t size)
{
    switch (kind) {
    case 'b': return size == 1 ? TH_BOOL : TH_DTYPE_INVALID;
    case 'u': return size == 1 ? TH_U8 : TH_DTYPE_INVALID;
    case 'i':
        return size == 1 ? TH_I8 : size == 2 ? TH_I16 : size == 4 ? TH_I32 : size == 8 ? TH_I64
                                                                                     : TH_DTYPE_INVALID;
    case 'f': return size == 2 ? TH_F16 : size == 4 ? TH_F32 : size == 8 ? TH_F64 : TH_DTYPE_INVALID;
    case 'c': return size == 8 ? TH_C64 : size == 16 ? TH_C128 : TH_DTYPE_INVALID;
    default: return TH_DTYPE_INVALID;
    }
}

/* The type string of a dtype without its byte-order character ("f4"), or NULL for bf16. */
static const char *th__npy_type_name(th_dtype dtype)
{
    switch (dtype) {
    case TH_BOOL: return "b1";
    case TH_U8: return "u1";
    case TH_I8: return "i1";
    case TH_I16: return "i2";
    case TH_I32: return "i4";
    case TH_I64: return "i8";
    case TH_F16: return "f2";
    case TH_F32: return "f4";
    case TH_F64: return "f8";
    case TH_C64: return "c8";
    case TH_C128: return "c16";
    default: return NULL;
    }
}

/* What an .npy header says. */
typedef struct th__npy_header {
    th_dtype dtype;
    bool swap;     /* the data is in the other byte order */
    bool fortran;
    int ndim;
    int64_t sizes[TH_MAX_DIMS];
    int64_t data_offset; /* from the start of the file (or member) */
    int64_t nbytes;
} th__npy_header;

/* The header's dict, read by a strict scanner: Python literal syntax as np.save writes it (either quote,
 * whitespace between tokens, a trailing comma), exactly the keys 'descr', 'fortran_order' and 'shape', each
 * once. where names the file (and member) for the messages. */
typedef struct th__npy_scan {
    const char *fn, *where;
    const char *begin, *p, *end;
} th__npy_scan;

/* The steps every header scanner takes (this one and safetensors' JSON), over the text begin..end read up to
 * *p: white space skipped; the character c eaten after white space (false when it is not there); a failure
 * recorded at *p, naming the file (where), the text (doc: "dict", "JSON") and the text there, up to 24
 * printable bytes, so that the message shows what was found. */
static void th__scan_ws(const char **p, const char *end)
{
    while (*p < end && (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r')) (*p)++;
}

static bool th__scan_eat(const char **p, const char *end, char c)
{
    th__scan_ws(p, end);
    if (*p < end && **p == c) {
        (*p)++;
        return true;
    }
    return false;
}

static int th__scan_bad(const char *fn, const char *where, const char *doc, const char *begin, const char *p,
                        const char *end, const char *what)
{
    char near[25];
    size_t n = 0;
    for (const char *q = p; q < end && n < sizeof near - 1; q++) near[n++] = (*q >= 32 && *q < 127) ? *q : '?';
    near[n] = '\0';
    return th__fail(TH_ERR_INVALID, fn, "%s: header: %s at byte %ld of the %s (\"%s\")", where, what,
                    (long)(p - begin), doc, near);
}

static void th__npy_ws(th__npy_scan *s) { th__scan_ws(&s->p, s->end); }
static bool th__npy_eat(th__npy_scan *s, char c) { return th__scan_eat(&s->p, s->end, c); }
static int th__npy_bad(th__npy_scan *s, const char *what)
{
    return th__scan_bad(s->fn, s->where, "dict", s->begin, s->p, s->end, what);
}

/* A quoted string without escapes (a descr or a key never needs one); its bytes go to out (cap with NUL). */
static int th__npy_string(th__npy_scan *s, char *out, size_t cap, const char *what)
{
    th__npy_ws(s);
    if (s->p >= s->end || (*s->p != '\'' && *s->p != '"')) {
        char m[64];
        snprintf(m, sizeof m, "expected %s as a quoted string", what);
        return th__npy_bad(s, m);
    }
    char q = *s->p++;
    size_t n = 0;
    while (s->p < s->end && *s->p != q) {
        if (*s->p == '\\' || (unsigned char)*s->p < 32 || (unsigned char)*s->p > 126 || n + 1 >= cap) {
            char m[64];
            snprintf(m, sizeof m, "%s is not a short plain string", what);
            return th__npy_bad(s, m);
        }
        out[n++] = *s->p++;
    }
    if (s->p >= s->end) return th__npy_bad(s, "a string without its closing quote");
    s->p++;
    out[n] = '\0';
    return TH_OK;
}

static int th__npy_descr(th__npy_scan *s, th__npy_header *h)
{
    th__npy_ws(s);
    if (s->p < s->end && *s->p == '[')
        return th__fail(TH_ERR_DTYPE, s->fn, "%s: header: 'descr' is a list: structured dtypes are not supported",
                        s->where);
    char d[32];
    if (th__npy_string(s, d, sizeof d, "'descr'")) return th_last_status();
    const char *c = d;
    char order = '=';
    if (*c == '<' || *c == '>' || *c == '|' || *c == '=') order = *c++;
    char kind = *c ? *c++ : 0;
    int64_t size = 0;
    bool digits = *c >= '1' && *c <= '9';
    for (; digits && *c >= '0' && *c <= '9' && size < 1000; c++) size = size * 10 + (*c - '0');
    th_dtype dt = digits && !*c ? th__npy_dtype_of(kind, size) : TH_DTYPE_INVALID;
    if (dt == TH_DTYPE_INVALID)
        return th__fail(TH_ERR_DTYPE, s->fn,
                        "%s: header: 'descr' is '%s', which is no dtype of the library (b1, u1, i1, i2, i4, i8, f2, f4, "
                        "f8, c8, c16)", s->where, d);
    size_t es = th__dtype_traits[dt].size;
    if (order == '|' && es > 1)
        return th__fail(TH_ERR_INVALID, s->fn, "%s: header: 'descr' is '%s': a %zu-byte type needs a byte order "
                        "('<' or '>'), not '|'", s->where, d, es);
    bool little = order == '<' || (order == '=' && th__host_is_little());
    h->dtype = dt;
    h->swap = es > 1 && order != '|' && little != th__host_is_little();
    return TH_OK;
}

static int th__npy_shape(th__npy_scan *s, th__npy_header *h)
{
    if (!th__npy_eat(s, '(')) return th__npy_bad(s, "'shape' is not a tuple");
    int n = 0;
    bool comma = true; /* "(3)" is an int in Python, not a tuple: one element needs its comma */
    for (;;) {
        th__npy_ws(s);
        if (s->p < s->end && *s->p == ')') break;
        if (!comma) return th__npy_bad(s, "expected ',' or ')' in 'shape'");
        if (s->p >= s->end || *s->p < '0' || *s->p > '9') return th__npy_bad(s, "'shape' holds something not a size");
        if (*s->p == '0' && s->p + 1 < s->end && s->p[1] >= '0' && s->p[1] <= '9')
            return th__npy_bad(s, "a size in 'shape' has a leading zero");
        int64_t v = 0;
        while (s->p < s->end && *s->p >= '0' && *s->p <= '9') {
            if (v > (INT64_MAX - (*s->p - '0')) / 10)
                return th__fail(TH_ERR_OVERFLOW, s->fn, "%s: header: a size in 'shape' is more than %lld", s->where,
                                (long long)INT64_MAX);
            v = v * 10 + (*s->p++ - '0');
        }
        if (n == TH_MAX_DIMS)
            return th__fail(TH_ERR_RANGE, s->fn, "%s: header: 'shape' has more than %d dims (TH_MAX_DIMS)", s->where,
                            TH_MAX_DIMS);
        h->sizes[n++] = v;
        comma = th__npy_eat(s, ',');
    }
    if (n == 1 && !comma) return th__npy_bad(s, "'shape' of one dim without its comma ('(n)' is no tuple)");
    s->p++;
    h->ndim = n;
    return TH_OK;
}

/* Parses the header of the .npy bytes [data, data + len) into *h and checks that the data it announces lies
 * inside them. where names the file (and member) in the messages. */
static int th__npy_parse(const char *fn, const char *where, const unsigned char *data, int64_t len, th__npy_header *h)
{
    memset(h, 0, sizeof *h);
    if (len < 10 || memcmp(data, "\x93NUMPY", 6) != 0)
        return th__fail(TH_ERR_INVALID, fn, "%s: not an .npy file (%s)", where,
                        len < 10 ? "shorter than the 10-byte preamble" : "no \\x93NUMPY magic");
    int major = data[6], minor = data[7];
    if (major < 1 || major > 3 || minor != 0)
        return th__fail(TH_ERR_INVALID, fn, "%s: format version %d.%d: only 1.0, 2.0 and 3.0 are known", where, major,
                        minor);
    int64_t prefix = major == 1 ? 10 : 12, hlen;
    if (len < prefix) return th__fail(TH_ERR_INVALID, fn, "%s: truncated in the preamble (%lld bytes)", where, (long long)len);
    hlen = major == 1 ? (int64_t)data[8] | (int64_t)data[9] << 8
                      : (int64_t)data[8] | (int64_t)data[9] << 8 | (int64_t)data[10] << 16 | (int64_t)data[11] << 24;
    if (hlen > TH_NPY_MAX_HEADER)
        return th__fail(TH_ERR_INVALID, fn, "%s: the header length is %lld bytes, more than %d (TH_NPY_MAX_HEADER)",
                        where, (long long)hlen, TH_NPY_MAX_HEADER);
    if (hlen > len - prefix)
        return th__fail(TH_ERR_INVALID, fn, "%s: truncated: the header length is %lld bytes, the file has %lld after "
                        "the preamble", where, (long long)hlen, (long long)(len - prefix));
    const char *dict = (const char *)data + prefix;
    th__npy_scan sc = {fn, where, dict, dict, dict + hlen};
    th__npy_scan *s = &sc;
    if (!th__npy_eat(s, '{')) return th__npy_bad(s, "the header is not a dict");
    bool seen[3] = {false, false, false};
    static const char *const keys[3] = {"descr", "fortran_order", "shape"};
    for (;;) {
        th__npy_ws(s);
        if (s->p < s->end && *s->p == '}') break;
        char key[16];
        if (th__npy_string(s, key, sizeof key, "a key")) return th_last_status();
        int k = 0;
        while (k < 3 && strcmp(key, keys[k]) != 0) k++;
        if (k == 3)
            return th__fail(TH_ERR_INVALID, fn, "%s: header: unknown key '%s' (only descr, fortran_order, shape)", where,
                            key);
        if (seen[k]) return th__fail(TH_ERR_INVALID, fn, "%s: header: the key '%s' twice", where, key);
        seen[k] = true;
        if (!th__npy_eat(s, ':')) return th__npy_bad(s, "expected ':' after a key");
        if (k == 0 && th__npy_descr(s, h)) return th_last_status();
        if (k == 1) {
            th__npy_ws(s);
            if (s->end - s->p >= 4 && memcmp(s->p, "True", 4) == 0) h->fortran = true, s->p += 4;
            else if (s->end - s->p >= 5 && memcmp(s->p, "False", 5) == 0) s->p += 5;
            else return th__npy_bad(s, "'fortran_order' is neither True nor False");
        }
        if (k == 2 && th__npy_shape(s, h)) return th_last_status();
        if (!th__npy_eat(s, ',')) {
            th__npy_ws(s);
            if (s->p >= s->end || *s->p != '}') return th__npy_bad(s, "expected ',' or '}'");
        }
    }
    s->p++;
    th__npy_ws(s);
    if (s->p != s->end) return th__npy_bad(s, "bytes after the dict");
    for (int k = 0; k < 3; k++)
        if (!seen[k]) return th__fail(TH_ERR_INVALID, fn, "%s: header: no '%s' key", where, keys[k]);
    /* The product of the nonzero sizes too: the strides of an empty array are made from them. */
    int64_t numel = 1, span = (int64_t)th__dtype_traits[h->dtype].size;
    for (int d = 0; d < h->ndim; d++)
        if (__builtin_mul_overflow(span, h->sizes[d] ? h->sizes[d] : 1, &span)) span = -1;
    if (span < 0)
        return th__fail(TH_ERR_OVERFLOW, fn, "%s: header: the byte size of 'shape' overflows int64", where);
    for (int d = 0; d < h->ndim; d++) numel *= h->sizes[d]; /* at most span: no overflow once span fits */
    h->nbytes = numel * (int64_t)th__dtype_traits[h->dtype].size;
    h->data_offset = prefix + hlen;
    if (h->nbytes > len - h->data_offset)
        return th__fail(TH_ERR_INVALID, fn, "%s: truncated: the shape needs %lld bytes of data, the file has %lld",
                        where, (long long)h->nbytes, (long long)(len - h->data_offset));
    return TH_OK;
}

/* Reverses the bytes of each of n items of size es in place (a complex item is two reals, each reversed). */
static void th__byteswap(unsigned char *p, int64_t n, size_t es)
{
    for (int64_t i = 0; i < n; i++, p += es)
        for (size_t a = 0, b = es - 1; a < b; a++, b--) {
            unsigned char t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
}

/* The tensor the header h describes, whose file (or member) starts at byte start of storage: a view of the
 * storage where its bytes can be used as they are, otherwise a copy in memory of the default allocator. */
static th_tensor *th__npy_tensor(const char *fn, const char *where, th_storage *storage, int64_t start,
                                 const th__npy_header *h)
{
    th_dtype dt = h->dtype;
    if (!th__dtype_traits[dt].stamped) {
        th__fail(TH_ERR_DTYPE, fn, "%s: dtype %s is not compiled into this build (TH_SELECT_DTYPES)", where,
                 th_dtype_name(dt));
        return NULL;
    }
    size_t es = th__dtype_traits[dt].size;
    int64_t strides[TH_MAX_DIMS];
    th__contiguous_strides(h->ndim, h->sizes, strides);
    if (h->fortran) { /* column-major; the parser checked that the sizes' product (zeros as ones) fits */
        int64_t step = 1;
        for (int d = 0; d < h->ndim; d++) {
            strides[d] = step;
            step *= h->sizes[d] ? h->sizes[d] : 1;
        }
    }
    int64_t at = start + h->data_offset, n = h->nbytes / (int64_t)es;
    const unsigned char *src = (const unsigned char *)storage->data + at;
    /* Element alignment: the storage's base is page (map) or 64-byte (allocator) aligned. */
    bool usable = n > 0 && at % (int64_t)es == 0 && !h->swap;
    if (usable && dt == TH_BOOL)
        for (int64_t i = 0; i < n && usable; i++) usable = src[i] <= 1;
    if (usable) return th__tensor_new_with_storage(fn, dt, storage, at / (int64_t)es, h->ndim, h->sizes, strides);
    th_storage *copy = th__storage_alloc(fn, h->nbytes, NULL, NULL);
    if (!copy) return NULL;
    if (n > 0) {
        memcpy(copy->data, src, (size_t)h->nbytes);
        if (h->swap) th__byteswap((unsigned char *)copy->data, dt == TH_C64 || dt == TH_C128 ? 2 * n : n,
                                  dt == TH_C64 || dt == TH_C128 ? es / 2 : es);
        if (dt == TH_BOOL)
            for (int64_t i = 0; i < n; i++) ((unsigned char *)copy->data)[i] = ((unsigned char *)copy->data)[i] != 0;
    }
    th_tensor *t = th__tensor_new_with_storage(fn, dt, copy, 0, h->ndim, h->sizes, strides);
    th_storage_release(copy);
    return t;
}

TH_API th_tensor *th_tensor_load_npy(const char *path)
{
    static const char fn[] = "th_tensor_load_npy";
    th__file_bytes b = th__file_read(fn, path);
    if (!b.s) return NULL;
    th__npy_header h;
    th_tensor *t = NULL;
    if (th__npy_parse(fn, b.where, (const unsigned char *)b.s->data, b.s->nbytes, &h) == TH_OK)
        t = th__npy_tensor(fn, b.where, b.s, 0, &h);
    th_storage_release(b.s);
    return t;
}

/* Whether t's strides are column-major (dims of size 1 may have any stride): np.save writes such an array in
 * Fortran order. */
static bool th__is_fortran_contiguous(const th_tensor *t)
{
    int64_t expected = 1;
    for (int d = 0; d < t->ndim; d++) {
        if (t->sizes[d] == 1) continue;
        if (t->strides[d] != expected) return false;
        expected *= t->sizes[d];
    }
    return true;
}

/* The header np.save writes for t, preamble included: "{'descr': '<f4', 'fortran_order': False, 'shape': (2,
 * 3), }" padded with spaces and a newline to a multiple of 64 bytes, so that the data after it is aligned. Its
 * length, or a negative status. */
static int64_t th__npy_header_text(const char *fn, th_dtype dtype, bool fortran, int ndim, const int64_t *sizes,
                                   char *buf, size_t cap)
{
    const char *type = th__npy_type_name(dtype);
    if (!type)
        return th__fail(TH_ERR_DTYPE, fn, "%s has no NumPy dtype (convert it to f32 first)", th_dtype_name(dtype));
    char shape[TH_MAX_DIMS * 22 + 4];
    size_t n = 0;
    shape[n++] = '(';
    for (int d = 0; d < ndim; d++)
        n += (size_t)snprintf(shape + n, sizeof shape - n, d ? ", %lld" : "%lld", (long long)sizes[d]);
    if (ndim == 1) shape[n++] = ',';
    shape[n++] = ')';
    shape[n] = '\0';
    char order = th__dtype_traits[dtype].size == 1 ? '|' : th__host_is_little() ? '<' : '>';
    int len = snprintf(buf + 10, cap - 10, "{'descr': '%c%s', 'fortran_order': %s, 'shape': %s, }", order, type,
                       fortran ? "True" : "False", shape);
    int64_t total = 10 + len + 1;
    int64_t padded = (total + 63) / 64 * 64;
    if (len < 0 || (size_t)padded > cap)
        return th__fail(TH_ERR_INVALID, fn, "the .npy header does not fit in %zu bytes", cap);
    memset(buf + 10 + len, ' ', (size_t)(padded - total));
    buf[padded - 1] = '\n';
    memcpy(buf, "\x93NUMPY\x01\x00", 8);
    buf[8] = (char)((padded - 10) & 0xff);
    buf[9] = (char)((padded - 10) >> 8);
    return padded;
}

/* t's data in the order the header says, as a contiguous run of bytes: t itself, or a C-order copy that
 * *hold keeps (released by the caller). */
static int th__npy_prepare(const char *fn, const th_tensor *t, bool *fortran, const void **data, th_tensor **hold)
{
    *hold = NULL;
    if (!t) return th__fail(TH_ERR_INVALID, fn, "NULL tensor");
    if (!th_device_is_host(t->storage->device))
        return th__fail(TH_ERR_DEVICE, fn, "the tensor is on device type %d, which the host cannot read",
                        (int)t->storage->device.type);
    if (!th__npy_type_name(t->dtype))
        return th__fail(TH_ERR_DTYPE, fn, "%s has no NumPy dtype (convert it to f32 first)", th_dtype_name(t->dtype));
    *fortran = false;
    if (!th_tensor_is_contiguous(t)) {
        if (th__is_fortran_contiguous(t)) {
            *fortran = true;
        } else {
            *hold = th__contiguous(fn, (th_tensor *)t);
            if (!*hold) return th_last_status();
            t = *hold;
        }
    }
    *data = th_tensor_data(t);
    return TH_OK;
}

TH_API int th_tensor_save_npy(const char *path, const th_tensor *t)
{
    static const char fn[] = "th_tensor_save_npy";
    bool fortran = false;
    const void *data = NULL;
    th_tensor *hold = NULL;
    if (th__npy_prepare(fn, t, &fortran, &data, &hold)) return th_last_status();
    char header[1024];
    int64_t hlen = th__npy_header_text(fn, t->dtype, fortran, t->ndim, t->sizes, header, sizeof header);
    int status = (int)hlen;
    th__file_writer w;
    if (hlen >= 0 && (status = th__file_writer_open(&w, fn, path)) == TH_OK) {
        th__file_write(&w, header, (size_t)hlen);
        th__file_write(&w, data, (size_t)th__numel(t) * th__dtype_traits[t->dtype].size);
        status = th__file_writer_close(&w);
    }
    th_tensor_release(hold);
    return status;
}

#endif /* TH__DEFINING */
