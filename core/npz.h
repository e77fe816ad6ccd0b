/* core/npz.h: NumPy's .npz archives (zip files of .npy members): the zip directory read strictly into a lazy
 * index, stored members loaded as views of the mapped file where the bytes allow it, deflated ones through zlib
 * (TH_USE_ZLIB), written through a renamed temporary file with every stored member aligned for zero-copy.
 * Part of tensor.h, which includes it twice: its declarations, then (TH__DEFINING) its definitions. */
#ifndef TENSOR_H
#error "core/npz.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

/* The most bytes one member may hold once inflated (16 GiB unless defined before the include): a deflated
 * member announcing more is refused before anything is allocated, as is one announcing more than deflate can
 * make of its compressed bytes (1032 to 1). */
#ifndef TH_NPZ_MAX_MEMBER
#define TH_NPZ_MAX_MEMBER ((int64_t)16 << 30)
#endif

/* An open .npz archive: its index (names, dtypes, shapes, where each member lies) and one mapping of the whole
 * file, which the tensors got from it share. */
typedef struct th_npz th_npz;

/* Zero (or a NULL pointer) means the defaults: every member stored, no ZIP64 records unless sizes need them. */
typedef struct th_npz_save_options {
    bool compress;     /* deflate every member (np.savez_compressed); needs a build with TH_USE_ZLIB */
    int level;         /* deflate's level 1 (fastest) to 9 (smallest); 0: zlib's default (6) */
    bool force_zip64;  /* ZIP64 fields and end records even where the sizes fit 32 bits (as NumPy's local headers) */
} th_npz_save_options;

/* Opens the archive at path: maps it once (reads it where the build cannot map), reads the zip directory and
 * the .npy header of every member, and reads no tensor data. Strict: the end of central directory record
 * (ZIP64's locator and record where present) must end the file, the central directory must lie right before
 * it, every local header must agree with its central entry (name, method, flags, CRC, sizes: ZIP64 extra fields
 * read), every member must lie inside the file without overlapping another, names must be unique (after
 * removing ".npy"), and each member must be an .npy file whose header parses (core/npy.h). NULL on error, with
 * the path, the member, the field and the bad value in the message: TH_ERR_IO (a missing or unreadable file),
 * TH_ERR_INVALID (anything malformed, truncated or inconsistent), TH_ERR_UNSUPPORTED (split archives,
 * encryption, a compression method other than stored and deflate), TH_ERR_RANGE (a member announcing more than
 * TH_NPZ_MAX_MEMBER bytes, or more than deflate's ratio allows), TH_ERR_DTYPE (a member of a dtype the library
 * lacks). Without TH_USE_ZLIB a deflated member is listed (its name, th_npz_is_compressed) but its header is
 * not read: its dtype is TH_DTYPE_INVALID, its ndim -1, and th_npz_get refuses it. */
TH_API th_npz *th_npz_open(const char *path);
/* Lets go of the archive; tensors got from it stay valid (they hold the mapping). NULL is ignored. */
TH_API void th_npz_close(th_npz *z);
/* The number of members, and the i-th one's name without its ".npy" (as np.load's files), in the order of the
 * central directory. The strings live until th_npz_close. -1 / NULL for NULL or an i out of range. */
TH_API int th_npz_count(const th_npz *z);
TH_API const char *th_npz_name(const th_npz *z, int i);
/* The count names as one array ending in a NULL (valid until th_npz_close), NULL for NULL. */
TH_API const char *const *th_npz_names(const th_npz *z);
/* The index of the member called name, -1 if there is none (no error recorded: a question, not a failure). */
TH_API int th_npz_find(const th_npz *z, const char *name);
/* The i-th member's dtype, its dims and sizes (outermost first; valid until close), whether it is deflated,
 * and the bytes of its .npy file once inflated. TH_DTYPE_INVALID / -1 / NULL / false / -1 for NULL or an i out
 * of range (and dtype, ndim, sizes so for a deflated member in a build without zlib). */
TH_API th_dtype th_npz_dtype(const th_npz *z, int i);
TH_API int th_npz_ndim(const th_npz *z, int i);
TH_API const int64_t *th_npz_sizes(const th_npz *z, int i);
TH_API bool th_npz_is_compressed(const th_npz *z, int i);
TH_API int64_t th_npz_nbytes(const th_npz *z, int i);
/* The member called name (without ".npy"): a new reference the caller releases, valid after th_npz_close. The
 * member's CRC-32 is checked first. A stored member whose data is in this machine's byte order, aligned for its
 * dtype (th_npz_save's always are) and (bool) all 0 or 1 is a view of the private (copy-on-write) mapping and
 * th_storage_is_mapped(th_tensor_storage(t)) is true; otherwise (a deflated member, or bytes that need
 * converting, or a build that cannot map) the tensor owns its memory and that is false. NULL on error:
 * TH_ERR_INVALID (NULL, no member of that name, a CRC-32 that does not match, deflated data that is corrupt or
 * inflates to another size than announced), TH_ERR_UNSUPPORTED (a deflated member in a build without zlib),
 * TH_ERR_DTYPE (a dtype this build did not stamp), TH_ERR_NOMEM. */
TH_API th_tensor *th_npz_get(th_npz *z, const char *name);
/* Writes the n tensors tensors[i] as members names[i] + ".npy" (np.savez's layout; each member an .npy file as
 * th_tensor_save_npy writes it) to path, in the order given. Stored members are padded (an extra field of their
 * local header) so that each one's data starts at a multiple of 64 bytes of the file: th_npz_get loads them
 * zero-copy. ZIP64 is written where a size or offset needs it (or always, force_zip64). options may be NULL.
 * Through a temporary file renamed into place, as th_tensor_save_npy. 0 or a negative status: TH_ERR_INVALID
 * (NULL arguments, an empty, over-long or duplicate name, a level outside 0..9), TH_ERR_UNSUPPORTED (compress in
 * a build without zlib), TH_ERR_DTYPE (bf16, which NumPy lacks), TH_ERR_DEVICE (memory the host cannot read),
 * TH_ERR_NOMEM, TH_ERR_IO. */
TH_API int th_npz_save(const char *path, int n, const char *const *names, const th_tensor *const *tensors,
                       const th_npz_save_options *options);

#else /* TH__DEFINING */

#ifdef TH_USE_ZLIB
#include <zlib.h>
#endif

/* ---- CRC-32 (the zip polynomial, reflected 0xEDB88320), eight bytes a step ------------------------------- */

#ifndef TH_USE_ZLIB

/* The CRC-32 of n bytes continued from crc (0 to start). The tables are made on the stack each call (one for a
 * short run, eight, a few microseconds, for a long one), so nothing global is written. */
static uint32_t th__crc32(uint32_t crc, const unsigned char *p, size_t n)
{
    uint32_t t[8][256];
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ 0xEDB88320u : c >> 1;
        t[0][i] = c;
    }
    crc = ~crc;
    bool wide = n >= 4096; /* the other seven tables pay for themselves only over longer runs */
    for (int s = 1; wide && s < 8; s++)
        for (int i = 0; i < 256; i++) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 0xff];
    for (; wide && n >= 8; n -= 8, p += 8) {
        uint32_t lo = crc ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
        crc = t[7][lo & 0xff] ^ t[6][(lo >> 8) & 0xff] ^ t[5][(lo >> 16) & 0xff] ^ t[4][lo >> 24] ^ t[3][p[4]] ^
              t[2][p[5]] ^ t[1][p[6]] ^ t[0][p[7]];
    }
    while (n--) crc = (crc >> 8) ^ t[0][(crc ^ *p++) & 0xff];
    return ~crc;
}
#endif

/* The CRC-32 for the archives: zlib's where the build has it (twice as fast as the one above, 4 against 2 GB/s
 * here), the one above elsewhere (tests/test_npz.c's no-zlib build checks it against the standard's check value
 * and itself over long and short runs; the archives both ways against NumPy). */
static uint32_t th__npz_crc(uint32_t crc, const unsigned char *p, size_t n)
{
#ifdef TH_USE_ZLIB
    for (size_t chunk = (size_t)1 << 30; n > 0;) {
        size_t take = n < chunk ? n : chunk;
        crc = (uint32_t)crc32((uLong)crc, p, (uInt)take);
        p += take, n -= take;
    }
    return crc;
#else
    return th__crc32(crc, p, n);
#endif
}

/* ---- little-endian fields ---------------------------------------------------------------------------------- */

static uint32_t th__npz_le16(const unsigned char *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8; }
static uint32_t th__npz_le32(const unsigned char *p) { return th__npz_le16(p) | th__npz_le16(p + 2) << 16; }
static uint64_t th__npz_le64(const unsigned char *p) { return th__npz_le32(p) | (uint64_t)th__npz_le32(p + 4) << 32; }
static void th__npz_put16(unsigned char *p, uint32_t v) { p[0] = (unsigned char)v, p[1] = (unsigned char)(v >> 8); }
static void th__npz_put32(unsigned char *p, uint32_t v) { th__npz_put16(p, v & 0xffff), th__npz_put16(p + 2, v >> 16); }
static void th__npz_put64(unsigned char *p, uint64_t v) { th__npz_put32(p, (uint32_t)v), th__npz_put32(p + 4, (uint32_t)(v >> 32)); }

/* ---- the index ------------------------------------------------------------------------------------------ */

typedef struct th__npz_entry {
    char *name;         /* without ".npy" (in the arena) */
    char *member;       /* the name in the archive (in the arena) */
    int method;         /* 0 stored, 8 deflate */
    uint32_t crc;
    int64_t csize, usize;
    int64_t header;     /* offset of the local header */
    int64_t data;       /* offset of the member's bytes */
    bool have_header;   /* hdr was read (false: deflated without zlib) */
    th__npy_header hdr;
} th__npz_entry;

struct th_npz {
    th_storage *file;
    char *where; /* "'path'" for the messages */
    int count;
    th__npz_entry *entries; /* in central directory order */
    const char **names;
    th__npz_entry **sorted; /* by name, for th_npz_find */
    char *arena;
};

static void th__npz_free(th_npz *z)
{
    if (!z) return;
    th_storage_release(z->file);
    free(z->where);
    free(z->entries);
    free(z->names);
    free(z->sorted);
    free(z->arena);
    free(z);
}

/* The 1032:1 bound of deflate (a 258-byte match in about two bits) on what csize compressed bytes can make. */
static bool th__npz_ratio_ok(int64_t csize, int64_t usize)
{
    int64_t most;
    return __builtin_mul_overflow(csize + 1, (int64_t)1032, &most) || usize <= most;
}

#ifdef TH_USE_ZLIB
/* Inflates the raw deflate stream [src, src + csize), announced to make announced bytes, into out, which has
 * room for want of them: the whole stream, which must make exactly announced bytes and use all of csize, or
 * (want < announced) its first want bytes only. */
static int th__npz_inflate(const char *fn, const char *where, const unsigned char *src, int64_t csize,
                           unsigned char *out, int64_t want, int64_t announced)
{
    bool partial = want < announced;
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, -15) != Z_OK) return th__fail(TH_ERR_NOMEM, fn, "%s: zlib's inflateInit2 failed", where);
    int64_t in_left = csize, out_left = want;
    const unsigned chunk = 1u << 30;
    int rc = Z_OK;
    unsigned char spare;
    zs.next_in = (Bytef *)(uintptr_t)src;
    zs.next_out = out;
    for (;;) {
        if (zs.avail_in == 0 && in_left > 0) {
            zs.avail_in = in_left > chunk ? chunk : (uInt)in_left;
            in_left -= zs.avail_in;
        }
        if (zs.avail_out == 0 && out_left > 0) {
            zs.avail_out = out_left > chunk ? chunk : (uInt)out_left;
            out_left -= zs.avail_out;
        }
        bool full = zs.avail_out == 0;
        if (full) { /* the announced bytes are out: one more byte must be impossible (the stream ends) */
            if (partial) break;
            zs.next_out = &spare;
            zs.avail_out = 1;
        }
        rc = inflate(&zs, Z_NO_FLUSH);
        if (full && zs.avail_out == 0) {
            inflateEnd(&zs);
            return th__fail(TH_ERR_INVALID, fn, "%s: the deflated data inflates to more than the %lld bytes the "
                            "directory announces", where, (long long)want);
        }
        if (full) zs.avail_out = 0;
        if (rc == Z_STREAM_END) break;
        if (rc == Z_BUF_ERROR && zs.avail_in == 0 && in_left == 0) {
            inflateEnd(&zs);
            return th__fail(TH_ERR_INVALID, fn, "%s: the deflated data ends before its stream does (truncated)",
                            where);
        }
        if (rc != Z_OK && rc != Z_BUF_ERROR) {
            th__fail(TH_ERR_INVALID, fn, "%s: the deflated data is corrupt (zlib: %s)", where,
                     zs.msg ? zs.msg : "error");
            inflateEnd(&zs);
            return th_last_status();
        }
    }
    int64_t got = want - out_left - (int64_t)zs.avail_out;
    int64_t unused = in_left + (int64_t)zs.avail_in;
    inflateEnd(&zs);
    if (got != want)
        return th__fail(TH_ERR_INVALID, fn, "%s: the deflated data inflates to %lld bytes, the directory announces "
                        "%lld", where, (long long)got, (long long)announced);
    if (unused && !partial)
        return th__fail(TH_ERR_INVALID, fn, "%s: %lld bytes after the end of the deflated stream", where,
                        (long long)unused);
    return TH_OK;
}
#endif

/* The ZIP64 extended information of an extra block [p, p + len): replaces each of the fields whose 32-bit (or
 * 16-bit) value is all ones with the next 8 (4) bytes of the 0x0001 field, in the order usize, csize, offset,
 * disk. The fields are checked to parse exactly. */
static int th__npz_extra(const char *fn, const char *where, const char *what, const unsigned char *p, int64_t len,
                         uint64_t *usize, uint64_t *csize, uint64_t *offset, uint32_t *disk)
{
    bool seen = false;
    while (len > 0) {
        if (len < 4)
            return th__fail(TH_ERR_INVALID, fn, "%s: %s: the extra field ends in a %lld-byte fragment", where, what,
                            (long long)len);
        uint32_t id = th__npz_le16(p), n = th__npz_le16(p + 2);
        if (n > len - 4)
            return th__fail(TH_ERR_INVALID, fn, "%s: %s: extra field 0x%04x of %u bytes runs past the extra "
                            "block (%lld bytes left)", where, what, (unsigned)id, (unsigned)n, (long long)(len - 4));
        if (id == 1) {
            if (seen) return th__fail(TH_ERR_INVALID, fn, "%s: %s: two ZIP64 extra fields", where, what);
            seen = true;
            const unsigned char *q = p + 4;
            uint32_t left = n;
            uint64_t *f64[3] = {usize, csize, offset};
            for (int k = 0; k < 3; k++) {
                if (!f64[k] || *f64[k] != 0xFFFFFFFFu) continue;
                if (left < 8)
                    return th__fail(TH_ERR_INVALID, fn, "%s: %s: the ZIP64 extra field (%u bytes) lacks the %s", where,
                                    what, (unsigned)n, k == 0 ? "uncompressed size" : k == 1 ? "compressed size"
                                                                                              : "local header offset");
                *f64[k] = th__npz_le64(q);
                q += 8, left -= 8;
            }
            if (disk && *disk == 0xFFFF && left >= 4) *disk = th__npz_le32(q);
        }
        p += 4 + n, len -= 4 + (int64_t)n;
    }
    return TH_OK;
}

static int th__npz_span_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int th__npz_name_cmp(const void *a, const void *b)
{
    return strcmp((*(th__npz_entry *const *)a)->name, (*(th__npz_entry *const *)b)->name);
}

/* Reads the directory of the archive whose bytes are the storage file (which z takes over) into z. */
static int th__npz_read(const char *fn, th_npz *z)
{
    const unsigned char *b = (const unsigned char *)z->file->data;
    const int64_t size = z->file->nbytes;
    const char *w = z->where;
    /* The end of central directory record: the last one whose comment reaches exactly the end of the file. */
    if (size < 22)
        return th__fail(TH_ERR_INVALID, fn, "%s: not a zip archive: %lld bytes, fewer than an end of central "
                        "directory record (22)", w, (long long)size);
    int64_t eocd = -1;
    for (int64_t at = size - 22; at >= 0 && at >= size - 22 - 65535; at--)
        if (th__npz_le32(b + at) == 0x06054b50u && at + 22 + (int64_t)th__npz_le16(b + at + 20) == size) {
            eocd = at;
            break;
        }
    if (eocd < 0)
        return th__fail(TH_ERR_INVALID, fn, "%s: not a zip archive: no end of central directory record ends the "
                        "file", w);
    uint32_t disk = th__npz_le16(b + eocd + 4), cd_disk = th__npz_le16(b + eocd + 6);
    uint64_t n_disk = th__npz_le16(b + eocd + 8), n_total = th__npz_le16(b + eocd + 10);
    uint64_t cd_size = th__npz_le32(b + eocd + 12), cd_off = th__npz_le32(b + eocd + 16);
    int64_t end_records = eocd; /* where the central directory must end */
    bool locator = eocd >= 20 && th__npz_le32(b + eocd - 20) == 0x07064b50u;
    if (locator) {
        const unsigned char *l = b + eocd - 20;
        uint64_t rec = th__npz_le64(l + 8);
        if (th__npz_le32(l + 4) != 0 || th__npz_le32(l + 16) != 1)
            return th__fail(TH_ERR_UNSUPPORTED, fn, "%s: ZIP64 locator: a split archive (disk %u of %u)", w,
                            (unsigned)th__npz_le32(l + 4), (unsigned)th__npz_le32(l + 16));
        if (rec > (uint64_t)(eocd - 20) || eocd - 20 - (int64_t)rec < 56)
            return th__fail(TH_ERR_INVALID, fn, "%s: ZIP64 locator: the ZIP64 end record's offset %llu leaves no "
                            "room for it before the locator at %lld", w, (unsigned long long)rec, (long long)(eocd - 20));
        const unsigned char *r = b + rec;
        uint64_t rlen = th__npz_le64(r + 4);
        if (th__npz_le32(r) != 0x06064b50u)
            return th__fail(TH_ERR_INVALID, fn, "%s: no ZIP64 end of central directory record at offset %llu", w,
                            (unsigned long long)rec);
        if (rlen != (uint64_t)(eocd - 20 - (int64_t)rec - 12))
            return th__fail(TH_ERR_INVALID, fn, "%s: ZIP64 end record: its size field says %llu bytes, %lld lie "
                            "between it and the locator", w, (unsigned long long)rlen,
                            (long long)(eocd - 20 - (int64_t)rec - 12));
        disk = th__npz_le32(r + 16), cd_disk = th__npz_le32(r + 20);
        n_disk = th__npz_le64(r + 24), n_total = th__npz_le64(r + 32);
        cd_size = th__npz_le64(r + 40), cd_off = th__npz_le64(r + 48);
        end_records = (int64_t)rec;
    } else if (n_total == 0xFFFF || cd_size == 0xFFFFFFFFu || cd_off == 0xFFFFFFFFu) {
        return th__fail(TH_ERR_INVALID, fn, "%s: the end record's fields are ZIP64 markers but no ZIP64 locator "
                        "precedes it", w);
    }
    if (disk != 0 || cd_disk != 0 || n_disk != n_total)
        return th__fail(TH_ERR_UNSUPPORTED, fn, "%s: a split archive (disk %u, central directory on disk %u, %llu "
                        "of %llu entries here)", w, (unsigned)disk, (unsigned)cd_disk, (unsigned long long)n_disk,
                        (unsigned long long)n_total);
    if (cd_off > (uint64_t)end_records || cd_size != (uint64_t)end_records - cd_off)
        return th__fail(TH_ERR_INVALID, fn, "%s: the central directory (offset %llu, %llu bytes) does not end where "
                        "the end records begin (offset %lld)", w, (unsigned long long)cd_off,
                        (unsigned long long)cd_size, (long long)end_records);
    if (n_total > cd_size / 46)
        return th__fail(TH_ERR_INVALID, fn, "%s: %llu entries announced, but the central directory's %llu bytes hold "
                        "at most %llu", w, (unsigned long long)n_total, (unsigned long long)cd_size,
                        (unsigned long long)(cd_size / 46));
    if (n_total > (uint64_t)INT32_MAX / 2)
        return th__fail(TH_ERR_RANGE, fn, "%s: %llu entries, more than this index holds", w,
                        (unsigned long long)n_total);
    int count = (int)n_total;
    /* Names and their copies without ".npy" take at most twice the directory's bytes. */
    z->entries = (th__npz_entry *)calloc(count ? (size_t)count : 1, sizeof *z->entries);
    z->names = (const char **)calloc((size_t)count + 1, sizeof *z->names);
    z->arena = (char *)malloc((size_t)cd_size * 2 + 2);
    if (!z->entries || !z->names || !z->arena) return th__fail(TH_ERR_NOMEM, fn, "%s: out of memory for the index", w);
    char *arena = z->arena;
    const unsigned char *c = b + cd_off, *cend = b + cd_off + cd_size;
    for (int i = 0; i < count; i++) {
        th__npz_entry *e = &z->entries[i];
        char what[96];
        snprintf(what, sizeof what, "central directory entry %d", i);
        if (cend - c < 46 || th__npz_le32(c) != 0x02014b50u)
            return th__fail(TH_ERR_INVALID, fn, "%s: %s: %s at offset %lld", w, what,
                            cend - c < 46 ? "truncated" : "no central header signature", (long long)(c - b));
        uint32_t flags = th__npz_le16(c + 8), method = th__npz_le16(c + 10);
        uint32_t nlen = th__npz_le16(c + 28), xlen = th__npz_le16(c + 30), klen = th__npz_le16(c + 32);
        uint32_t dstart = th__npz_le16(c + 34);
        uint64_t csize = th__npz_le32(c + 20), usize = th__npz_le32(c + 24), off = th__npz_le32(c + 42);
        if ((int64_t)(46 + nlen + xlen + klen) > cend - c)
            return th__fail(TH_ERR_INVALID, fn, "%s: %s: its name, extra field and comment (%u + %u + %u bytes) run "
                            "past the central directory", w, what, (unsigned)nlen, (unsigned)xlen, (unsigned)klen);
        if (nlen == 0 || memchr(c + 46, 0, nlen))
            return th__fail(TH_ERR_INVALID, fn, "%s: %s: %s", w, what, nlen ? "a NUL in its name" : "an empty name");
        e->member = arena;
        memcpy(arena, c + 46, nlen);
        arena[nlen] = '\0';
        arena += nlen + 1;
        snprintf(what, sizeof what, "member '%.64s'", e->member);
        if (th__npz_extra(fn, w, what, c + 46 + nlen, xlen, &usize, &csize, &off, &dstart)) return th_last_status();
        if (dstart != 0) return th__fail(TH_ERR_UNSUPPORTED, fn, "%s: %s: starts on disk %u", w, what, (unsigned)dstart);
        if (flags & 0x41)
            return th__fail(TH_ERR_UNSUPPORTED, fn, "%s: %s: encrypted (flags 0x%04x)", w, what, (unsigned)flags);
        if (method != 0 && method != 8)
            return th__fail(TH_ERR_UNSUPPORTED, fn, "%s: %s: compression method %u: only 0 (stored) and 8 (deflate) "
                            "are supported", w, what, (unsigned)method);
        if (csize > (uint64_t)size || usize > (uint64_t)INT64_MAX || off > (uint64_t)size)
            return th__fail(TH_ERR_INVALID, fn, "%s: %s: compressed size %llu or offset %llu lies past the file's %lld "
                            "bytes", w, what, (unsigned long long)csize, (unsigned long long)off, (long long)size);
        if ((int64_t)usize > TH_NPZ_MAX_MEMBER)
            return th__fail(TH_ERR_RANGE, fn, "%s: %s: %llu bytes, more than TH_NPZ_MAX_MEMBER (%lld)", w, what,
                            (unsigned long long)usize, (long long)TH_NPZ_MAX_MEMBER);
        if (method == 0 && csize != usize)
            return th__fail(TH_ERR_INVALID, fn, "%s: %s: stored, but its compressed size %llu is not its size %llu", w,
                            what, (unsigned long long)csize, (unsigned long long)usize);
        if (method == 8 && !th__npz_ratio_ok((int64_t)csize, (int64_t)usize))
            return th__fail(TH_ERR_RANGE, fn, "%s: %s: announces %llu bytes from %llu deflated ones, more than "
                            "deflate's 1032:1 can make", w, what, (unsigned long long)usize, (unsigned long long)csize);
        e->method = (int)method;
        e->crc = th__npz_le32(c + 16);
        e->csize = (int64_t)csize, e->usize = (int64_t)usize, e->header = (int64_t)off;
        /* The local header, against this entry. */
        const unsigned char *l = b + off;
        if (size - (int64_t)off < 30 || th__npz_le32(l) != 0x04034b50u)
            return th__fail(TH_ERR_INVALID, fn, "%s: %s: no local header at offset %llu", w, what,
                            (unsigned long long)off);
        uint32_t lnlen = th__npz_le16(l + 26), lxlen = th__npz_le16(l + 28);
        if ((int64_t)(30 + lnlen + lxlen) > size - (int64_t)off)
            return th__fail(TH_ERR_INVALID, fn, "%s: %s: its local header runs past the end of the file", w, what);
        if (lnlen != nlen || memcmp(l + 30, c + 46, nlen) != 0)
            return th__fail(TH_ERR_INVALID, fn, "%s: %s: the local header names another member ('%.*s')", w, what,
                            (int)(lnlen < 64 ? lnlen : 64), (const char *)(l + 30));
        if (th__npz_le16(l + 6) != flags || th__npz_le16(l + 8) != method)
            return th__fail(TH_ERR_INVALID, fn, "%s: %s: the local header's flags 0x%04x or method %u differ from the "
                            "central directory's (0x%04x, %u)", w, what, (unsigned)th__npz_le16(l + 6),
                            (unsigned)th__npz_le16(l + 8), (unsigned)flags, (unsigned)method);
        uint64_t lcsize = th__npz_le32(l + 18), lusize = th__npz_le32(l + 22);
        uint32_t lcrc = th__npz_le32(l + 14);
        if (th__npz_extra(fn, w, what, l + 30 + lnlen, lxlen, &lusize, &lcsize, NULL, NULL)) return th_last_status();
        bool deferred = (flags & 8) && lcrc == 0 && lcsize == 0 && lusize == 0; /* sizes in a data descriptor */
        if (!deferred && (lcrc != e->crc || lcsize != csize || lusize != usize))
            return th__fail(TH_ERR_INVALID, fn, "%s: %s: the local header's CRC-32 0x%08x and sizes %llu/%llu differ "
                            "from the central directory's (0x%08x, %llu/%llu)", w, what, (unsigned)lcrc,
                            (unsigned long long)lcsize, (unsigned long long)lusize, (unsigned)e->crc,
                            (unsigned long long)csize, (unsigned long long)usize);
        e->data = (int64_t)off + 30 + lnlen + lxlen;
        if (e->csize > (int64_t)cd_off - e->data)
            return th__fail(TH_ERR_INVALID, fn, "%s: %s: its %lld bytes at offset %lld run into the central directory "
                            "(offset %llu)", w, what, (long long)e->csize, (long long)e->data,
                            (unsigned long long)cd_off);
        /* The name np.load shows: without ".npy". */
        e->name = arena;
        size_t kept = nlen >= 4 && memcmp(e->member + nlen - 4, ".npy", 4) == 0 ? nlen - 4 : nlen;
        memcpy(arena, e->member, kept);
        arena[kept] = '\0';
        arena += kept + 1;
        z->names[i] = e->name;
        c += 46 + nlen + xlen + klen;
    }
    if (c != cend)
        return th__fail(TH_ERR_INVALID, fn, "%s: %lld bytes after the last central directory entry", w,
                        (long long)(cend - c));
    z->count = count;
    /* No two members overlap, no two share a name: checked on sorted copies of the offsets and names. */
    int64_t *spans = (int64_t *)malloc((count ? (size_t)count : 1) * 2 * sizeof *spans);
    th__npz_entry **sorted = z->sorted = (th__npz_entry **)malloc((count ? (size_t)count : 1) * sizeof *sorted);
    if (!spans || !sorted) {
        free(spans);
        return th__fail(TH_ERR_NOMEM, fn, "%s: out of memory for the index", w);
    }
    for (int i = 0; i < count; i++) {
        spans[2 * i] = z->entries[i].header;
        spans[2 * i + 1] = z->entries[i].data + z->entries[i].csize;
        sorted[i] = &z->entries[i];
    }
    /* Insertion sorts would be quadratic in a hostile count: qsort. */
    qsort(spans, (size_t)count, 2 * sizeof *spans, th__npz_span_cmp);
    qsort(sorted, (size_t)count, sizeof *sorted, th__npz_name_cmp);
    int status = TH_OK;
    for (int i = 1; i < count && !status; i++) {
        if (spans[2 * i] < spans[2 * i - 1])
            status = th__fail(TH_ERR_INVALID, fn, "%s: the member whose local header is at offset %lld overlaps the "
                              "one before it (which ends at %lld)", w, (long long)spans[2 * i],
                              (long long)spans[2 * i - 1]);
        else if (strcmp(sorted[i]->name, sorted[i - 1]->name) == 0)
            status = th__fail(TH_ERR_INVALID, fn, "%s: two members named '%.64s' (a name may end in .npy or not, "
                              "not both)", w, sorted[i]->name);
    }
    free(spans);
    if (status) return status;
    /* Every member's .npy header, read now so that the listing has dtypes and shapes. */
    for (int i = 0; i < count; i++) {
        th__npz_entry *e = &z->entries[i];
        char where[160];
        snprintf(where, sizeof where, "%.96s member '%.48s'", w, e->member);
        if (e->method == 0) {
            if (th__npy_parse(fn, where, b + e->data, e->usize, &e->hdr)) return th_last_status();
            e->have_header = true;
            continue;
        }
#ifdef TH_USE_ZLIB
        /* The header is within its first 12 + TH_NPY_MAX_HEADER bytes: only those are inflated. th__npy_parse,
         * given the member's whole size, reads no further than an accepted header. */
        unsigned char head[12 + TH_NPY_MAX_HEADER];
        int64_t want = e->usize < (int64_t)sizeof head ? e->usize : (int64_t)sizeof head;
        if (th__npz_inflate(fn, where, b + e->data, e->csize, head, want, e->usize)) return th_last_status();
        if (th__npy_parse(fn, where, head, e->usize, &e->hdr)) return th_last_status();
        e->have_header = true;
#endif
    }
    return TH_OK;
}

/* The archive whose bytes are file (a reference taken over, also on error); where names it in the messages. */
static th_npz *th__npz_open_storage(const char *fn, const char *where, th_storage *file)
{
    th_npz *z = (th_npz *)calloc(1, sizeof *z);
    char *wcopy = z ? (char *)malloc(strlen(where) + 1) : NULL;
    if (!z || !wcopy) {
        free(z);
        th_storage_release(file);
        th__fail(TH_ERR_NOMEM, fn, "%s: out of memory", where);
        return NULL;
    }
    strcpy(wcopy, where);
    z->where = wcopy;
    z->file = file;
    if (th__npz_read(fn, z)) {
        th__npz_free(z);
        return NULL;
    }
    return z;
}

TH_API th_npz *th_npz_open(const char *path)
{
    static const char fn[] = "th_npz_open";
    th__file_bytes b = th__file_read(fn, path);
    return b.s ? th__npz_open_storage(fn, b.where, b.s) : NULL;
}

TH_API void th_npz_close(th_npz *z) { th__npz_free(z); }

TH_API int th_npz_count(const th_npz *z) { return z ? z->count : -1; }

static const th__npz_entry *th__npz_at(const th_npz *z, int i)
{
    return z && i >= 0 && i < z->count ? &z->entries[i] : NULL;
}

TH_API const char *th_npz_name(const th_npz *z, int i)
{
    const th__npz_entry *e = th__npz_at(z, i);
    return e ? e->name : NULL;
}

TH_API const char *const *th_npz_names(const th_npz *z) { return z ? z->names : NULL; }

TH_API int th_npz_find(const th_npz *z, const char *name)
{
    if (!z || !name) return -1;
    int lo = 0, hi = z->count; /* a binary search of the names sorted at open */
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2, c = strcmp(z->sorted[mid]->name, name);
        if (c == 0) return (int)(z->sorted[mid] - z->entries);
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return -1;
}

TH_API th_dtype th_npz_dtype(const th_npz *z, int i)
{
    const th__npz_entry *e = th__npz_at(z, i);
    return e && e->have_header ? e->hdr.dtype : TH_DTYPE_INVALID;
}

TH_API int th_npz_ndim(const th_npz *z, int i)
{
    const th__npz_entry *e = th__npz_at(z, i);
    return e && e->have_header ? e->hdr.ndim : -1;
}

TH_API const int64_t *th_npz_sizes(const th_npz *z, int i)
{
    const th__npz_entry *e = th__npz_at(z, i);
    return e && e->have_header ? e->hdr.sizes : NULL;
}

TH_API bool th_npz_is_compressed(const th_npz *z, int i)
{
    const th__npz_entry *e = th__npz_at(z, i);
    return e && e->method == 8;
}

TH_API int64_t th_npz_nbytes(const th_npz *z, int i)
{
    const th__npz_entry *e = th__npz_at(z, i);
    return e ? e->usize : -1;
}

TH_API th_tensor *th_npz_get(th_npz *z, const char *name)
{
    static const char fn[] = "th_npz_get";
    if (!z || !name) {
        th__fail(TH_ERR_INVALID, fn, "NULL %s", z ? "name" : "archive");
        return NULL;
    }
    int i = th_npz_find(z, name);
    if (i < 0) {
        th__fail(TH_ERR_INVALID, fn, "%s: no member '%.200s'", z->where, name);
        return NULL;
    }
    const th__npz_entry *e = &z->entries[i];
    char where[160];
    snprintf(where, sizeof where, "%.96s member '%.48s'", z->where, e->member);
    const unsigned char *src = (const unsigned char *)z->file->data + e->data;
    if (e->method == 0) {
        uint32_t crc = th__npz_crc(0, src, (size_t)e->usize);
        if (crc != e->crc) {
            th__fail(TH_ERR_INVALID, fn, "%s: CRC-32 0x%08x, the directory says 0x%08x (corrupt data)", where,
                     (unsigned)crc, (unsigned)e->crc);
            return NULL;
        }
        return th__npy_tensor(fn, where, z->file, e->data, &e->hdr);
    }
#ifdef TH_USE_ZLIB
    th_storage *s = th__storage_alloc(fn, e->usize, NULL, NULL);
    if (!s) return NULL;
    th_tensor *t = NULL;
    if (th__npz_inflate(fn, where, src, e->csize, (unsigned char *)s->data, e->usize, e->usize) == TH_OK) {
        uint32_t crc = th__npz_crc(0, (const unsigned char *)s->data, (size_t)e->usize);
        if (crc != e->crc)
            th__fail(TH_ERR_INVALID, fn, "%s: CRC-32 0x%08x, the directory says 0x%08x (corrupt data)", where,
                     (unsigned)crc, (unsigned)e->crc);
        else
            t = th__npy_tensor(fn, where, s, 0, &e->hdr);
    }
    th_storage_release(s);
    return t;
#else
    th__fail(TH_ERR_UNSUPPORTED, fn, "%s is deflated and this build has no zlib (compile with TH_USE_ZLIB and "
             "-lz; Meson option zlib)", where);
    return NULL;
#endif
}

/* ---- writing ------------------------------------------------------------------------------------------- */

typedef struct th__npz_out {
    uint32_t crc;
    int64_t csize, usize, header; /* the local header's offset */
    int method;
} th__npz_out;

/* A member's local header (with ZIP64 sizes where asked, and pad bytes of padding field) into buf; its length. */
static size_t th__npz_local(unsigned char *buf, const char *name, size_t nlen, const th__npz_out *m, bool zip64,
                            size_t pad)
{
    th__npz_put32(buf, 0x04034b50u);
    th__npz_put16(buf + 4, zip64 ? 45 : 20);
    th__npz_put16(buf + 6, 0);
    th__npz_put16(buf + 8, (uint32_t)m->method);
    th__npz_put16(buf + 10, 0);      /* 00:00:00 */
    th__npz_put16(buf + 12, 0x0021); /* 1980-01-01: the same bytes for the same tensors */
    th__npz_put32(buf + 14, m->crc);
    th__npz_put32(buf + 18, zip64 ? 0xFFFFFFFFu : (uint32_t)m->csize);
    th__npz_put32(buf + 22, zip64 ? 0xFFFFFFFFu : (uint32_t)m->usize);
    th__npz_put16(buf + 26, (uint32_t)nlen);
    size_t x = 30 + nlen;
    memcpy(buf + 30, name, nlen);
    if (zip64) {
        th__npz_put16(buf + x, 1), th__npz_put16(buf + x + 2, 16);
        th__npz_put64(buf + x + 4, (uint64_t)m->usize), th__npz_put64(buf + x + 12, (uint64_t)m->csize);
        x += 20;
    }
    if (pad) { /* an extra field of an id no reader knows, whose zeros move the data to an aligned offset */
        th__npz_put16(buf + x, 0x7468), th__npz_put16(buf + x + 2, (uint32_t)(pad - 4));
        memset(buf + x + 4, 0, pad - 4);
        x += pad;
    }
    th__npz_put16(buf + 28, (uint32_t)(x - 30 - nlen));
    return x;
}

/* A member's central directory entry into buf; its length. */
static size_t th__npz_central(unsigned char *buf, const char *name, size_t nlen, const th__npz_out *m, bool force)
{
    bool big_u = force || m->usize >= 0xFFFFFFFF, big_c = force || m->csize >= 0xFFFFFFFF;
    bool big_o = force || m->header >= 0xFFFFFFFF;
    th__npz_put32(buf, 0x02014b50u);
    th__npz_put16(buf + 4, 3u << 8 | 45); /* made by: Unix, 4.5 */
    th__npz_put16(buf + 6, big_u || big_c || big_o ? 45 : 20);
    th__npz_put16(buf + 8, 0);
    th__npz_put16(buf + 10, (uint32_t)m->method);
    th__npz_put16(buf + 12, 0);
    th__npz_put16(buf + 14, 0x0021);
    th__npz_put32(buf + 16, m->crc);
    th__npz_put32(buf + 20, big_c ? 0xFFFFFFFFu : (uint32_t)m->csize);
    th__npz_put32(buf + 24, big_u ? 0xFFFFFFFFu : (uint32_t)m->usize);
    th__npz_put16(buf + 28, (uint32_t)nlen);
    th__npz_put16(buf + 32, 0), th__npz_put16(buf + 34, 0), th__npz_put16(buf + 36, 0);
    th__npz_put32(buf + 38, 0644u << 16); /* -rw-r--r-- */
    th__npz_put32(buf + 42, big_o ? 0xFFFFFFFFu : (uint32_t)m->header);
    memcpy(buf + 46, name, nlen);
    size_t x = 46 + nlen, f = x + 4;
    if (big_u) th__npz_put64(buf + f, (uint64_t)m->usize), f += 8;
    if (big_c) th__npz_put64(buf + f, (uint64_t)m->csize), f += 8;
    if (big_o) th__npz_put64(buf + f, (uint64_t)m->header), f += 8;
    if (f > x + 4) {
        th__npz_put16(buf + x, 1), th__npz_put16(buf + x + 2, (uint32_t)(f - x - 4));
        x = f;
    }
    th__npz_put16(buf + 30, (uint32_t)(x - 46 - nlen));
    return x;
}

#ifdef TH_USE_ZLIB
/* Deflates the two runs [a, a + na) and [d, d + nd) as one raw stream into a new buffer (*out, *nout). */
static int th__npz_deflate(const char *fn, const char *name, int level, const void *a, size_t na, const void *d,
                           size_t nd, unsigned char **out, int64_t *nout)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    *out = NULL;
    if (deflateInit2(&zs, level ? level : Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return th__fail(TH_ERR_NOMEM, fn, "zlib's deflateInit2 failed for '%s'", name);
    /* deflateBound's figure for the total, computed in 64 bits (its uLong argument is 32 bits on some systems). */
    uint64_t total = (uint64_t)na + nd, cap = total + total / 1000 + (total >> 12) + (total >> 14) + (total >> 25) + 64;
    if (cap > (uint64_t)SIZE_MAX) {
        deflateEnd(&zs);
        return th__fail(TH_ERR_OVERFLOW, fn, "'%s': %llu bytes to deflate do not fit in memory", name,
                        (unsigned long long)total);
    }
    unsigned char *buf = (unsigned char *)malloc((size_t)cap);
    if (!buf) {
        deflateEnd(&zs);
        return th__fail(TH_ERR_NOMEM, fn, "'%s': out of memory for %llu deflated bytes", name, (unsigned long long)cap);
    }
    const unsigned char *parts[2] = {(const unsigned char *)a, (const unsigned char *)d};
    size_t lens[2] = {na, nd};
    const size_t chunk = (size_t)1 << 30;
    size_t produced = 0;
    int rc = Z_OK;
    for (int k = 0; k < 2; k++) {
        size_t off = 0;
        do {
            size_t take = lens[k] - off < chunk ? lens[k] - off : chunk;
            bool last = k == 1 && off + take == lens[k];
            zs.next_in = (Bytef *)(uintptr_t)(parts[k] + off);
            zs.avail_in = (uInt)take;
            do {
                size_t room = (size_t)cap - produced;
                zs.next_out = buf + produced;
                zs.avail_out = room < chunk ? (uInt)room : (uInt)chunk;
                rc = deflate(&zs, last ? Z_FINISH : Z_NO_FLUSH);
                produced += (room < chunk ? room : chunk) - zs.avail_out;
            } while (rc == Z_OK && (zs.avail_in > 0 || (last && rc != Z_STREAM_END)) && produced < cap);
            off += take;
        } while (off < lens[k]);
    }
    deflateEnd(&zs);
    if (rc != Z_STREAM_END) {
        free(buf);
        return th__fail(TH_ERR_NOMEM, fn, "'%s': zlib's deflate did not finish (%d)", name, rc);
    }
    *out = buf;
    *nout = (int64_t)produced;
    return TH_OK;
}
#endif

TH_API int th_npz_save(const char *path, int n, const char *const *names, const th_tensor *const *tensors,
                       const th_npz_save_options *options)
{
    static const char fn[] = "th_npz_save";
    th_npz_save_options o;
    memset(&o, 0, sizeof o);
    if (options) o = *options;
    if (!path || n < 0 || (n > 0 && (!names || !tensors)))
        return th__fail(TH_ERR_INVALID, fn, "%s", !path ? "NULL path" : n < 0 ? "negative count" : "NULL names or "
                        "tensors");
    if (o.level < 0 || o.level > 9) return th__fail(TH_ERR_INVALID, fn, "level %d is not 0..9", o.level);
#ifndef TH_USE_ZLIB
    if (o.compress)
        return th__fail(TH_ERR_UNSUPPORTED, fn, "compress: this build has no zlib (compile with TH_USE_ZLIB and -lz; "
                        "Meson option zlib)");
#endif
    for (int i = 0; i < n; i++) {
        if (!names[i] || !*names[i] || strlen(names[i]) > 1000)
            return th__fail(TH_ERR_INVALID, fn, "names[%d] is %s", i, !names[i] ? "NULL" : *names[i] ? "longer than "
                            "1000 bytes" : "empty");
        if (!tensors[i]) return th__fail(TH_ERR_INVALID, fn, "tensors[%d] is NULL", i);
        for (int j = 0; j < i; j++)
            if (strcmp(names[i], names[j]) == 0)
                return th__fail(TH_ERR_INVALID, fn, "names[%d] and names[%d] are both '%s'", j, i, names[i]);
    }
    th__npz_out *outs = (th__npz_out *)calloc(n ? (size_t)n : 1, sizeof *outs);
    unsigned char *buf = (unsigned char *)malloc(2048 + 1100); /* a header, name and extra fields */
    if (!outs || !buf) {
        free(outs);
        free(buf);
        return th__fail(TH_ERR_NOMEM, fn, "out of memory");
    }
    th__file_writer w;
    int status = th__file_writer_open(&w, fn, path);
    int64_t at = 0;
    char member[1010];
    for (int i = 0; i < n && !status; i++) {
        const th_tensor *t = tensors[i];
        bool fortran = false;
        const void *data = NULL;
        th_tensor *hold = NULL;
        char header[1024];
        snprintf(member, sizeof member, "%s.npy", names[i]);
        size_t nlen = strlen(member);
        if (th__npy_prepare(fn, t, &fortran, &data, &hold)) {
            status = th_last_status();
            break;
        }
        int64_t hlen = th__npy_header_text(fn, t->dtype, fortran, t->ndim, t->sizes, header, sizeof header);
        size_t nd = (size_t)th__numel(t) * th__dtype_traits[t->dtype].size;
        th__npz_out *m = &outs[i];
        unsigned char *packed = NULL;
        if (hlen < 0) status = (int)hlen;
        if (!status) {
            m->usize = hlen + (int64_t)nd;
            m->crc = th__npz_crc(th__npz_crc(0, (const unsigned char *)header, (size_t)hlen),
                               (const unsigned char *)data, nd);
            m->header = at;
            m->method = o.compress ? 8 : 0;
            m->csize = m->usize;
#ifdef TH_USE_ZLIB
            if (o.compress) status = th__npz_deflate(fn, member, o.level, header, (size_t)hlen, data, nd, &packed, &m->csize);
#endif
        }
        if (!status) {
            bool zip64 = o.force_zip64 || m->usize >= 0xFFFFFFFF || m->csize >= 0xFFFFFFFF;
            size_t pad = 0;
            if (!o.compress) { /* the data (after the 64-byte multiple of the .npy header) at a multiple of 64 */
                int64_t end = at + 30 + (int64_t)nlen + (zip64 ? 20 : 0);
                pad = (size_t)((64 - end % 64) % 64);
                if (pad && pad < 4) pad += 64;
            }
            size_t lh = th__npz_local(buf, member, nlen, m, zip64, pad);
            th__file_write(&w, buf, lh);
            if (packed) {
                th__file_write(&w, packed, (size_t)m->csize);
            } else {
                th__file_write(&w, header, (size_t)hlen);
                th__file_write(&w, data, nd);
            }
            status = w.status;
            at += (int64_t)lh + m->csize;
        }
        free(packed);
        th_tensor_release(hold);
    }
    /* The central directory and the end records. */
    int64_t cd_off = at;
    for (int i = 0; i < n && !status; i++) {
        snprintf(member, sizeof member, "%s.npy", names[i]);
        size_t len = th__npz_central(buf, member, strlen(member), &outs[i], o.force_zip64);
        status = th__file_write(&w, buf, len);
        at += (int64_t)len;
    }
    int64_t cd_size = at - cd_off;
    if (!status) {
        size_t len = 0;
        bool zip64 = o.force_zip64 || n >= 0xFFFF || cd_off >= 0xFFFFFFFF || cd_size >= 0xFFFFFFFF;
        if (zip64) {
            unsigned char *r = buf;
            th__npz_put32(r, 0x06064b50u);
            th__npz_put64(r + 4, 44);
            th__npz_put16(r + 12, 3u << 8 | 45), th__npz_put16(r + 14, 45);
            th__npz_put32(r + 16, 0), th__npz_put32(r + 20, 0);
            th__npz_put64(r + 24, (uint64_t)n), th__npz_put64(r + 32, (uint64_t)n);
            th__npz_put64(r + 40, (uint64_t)cd_size), th__npz_put64(r + 48, (uint64_t)cd_off);
            th__npz_put32(r + 56, 0x07064b50u);
            th__npz_put32(r + 60, 0);
            th__npz_put64(r + 64, (uint64_t)at);
            th__npz_put32(r + 72, 1);
            len = 76;
        }
        unsigned char *e = buf + len;
        th__npz_put32(e, 0x06054b50u);
        th__npz_put16(e + 4, 0), th__npz_put16(e + 6, 0);
        th__npz_put16(e + 8, zip64 ? 0xFFFF : (uint32_t)n), th__npz_put16(e + 10, zip64 ? 0xFFFF : (uint32_t)n);
        th__npz_put32(e + 12, zip64 ? 0xFFFFFFFFu : (uint32_t)cd_size);
        th__npz_put32(e + 16, zip64 ? 0xFFFFFFFFu : (uint32_t)cd_off);
        th__npz_put16(e + 20, 0);
        status = th__file_write(&w, buf, len + 22);
    }
    if (status && !w.status) w.status = status; /* so that the close removes the temporary file */
    int closed = th__file_writer_close(&w);
    free(outs);
    free(buf);
    return status ? status : closed;
}

#endif /* TH__DEFINING */
