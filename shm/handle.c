/* shm/handle.c: the text form of handles, parsed strictly (every field checked, nothing skipped).
 *
 *   thshm/1:<locator>:bytes=<u>:dtype=<name>:offset=<u>:sizes=<u>,...:strides=<i>,...
 *   locator := name=<segment> | fd | empty
 *
 * Numbers are decimal without leading zeros ("0" itself excepted) or signs, strides alone may start with "-"
 * ("-0" is refused); sizes and strides have ndim entries each (none for a 0-d tensor). No other spelling of a
 * handle parses, so formatting a parsed handle gives back the same text. No system calls: the fuzz target
 * includes this file alone. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "shm_internal.h"

#include "manager_protocol.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static const char th__shm_handle_fn[] = "th_shm_handle_parse";

bool th__shm_name_valid(const char *name, size_t len)
{
    /* The manager's rule, so that no name a handle carries is one the manager refuses to register. */
    return len <= TH_SHM_NAME_MAX - 1 && th__shm_name_problem(name, len) == NULL;
}

th_dtype th__shm_dtype_by_name(const char *name, size_t len)
{
    for (int d = 0; d < TH_NUM_DTYPES; d++) {
        const char *n = th_dtype_name((th_dtype)d);
        if (strlen(n) == len && memcmp(n, name, len) == 0) return (th_dtype)d;
    }
    return TH_DTYPE_INVALID;
}

int th__shm_handle_check(const char *fn, const th_shm_handle *h)
{
    if (!h) return th_set_error(TH_ERR_INVALID, fn, "NULL handle");
    if (h->version != TH_SHM_HANDLE_VERSION)
        return th_set_error(TH_ERR_INVALID, fn, "handle version %d is not supported (this build reads %d)", h->version,
                            TH_SHM_HANDLE_VERSION);
    switch (h->locator) {
    case TH_SHM_LOCATOR_NAME: {
        const char *end = (const char *)memchr(h->name, '\0', sizeof h->name);
        if (!end || !th__shm_name_valid(h->name, (size_t)(end - h->name)))
            return th_set_error(TH_ERR_INVALID, fn,
                                "segment name is not \"/\" and 1 to %d characters of [A-Za-z0-9_.-], not starting "
                                "with '.'", TH_SHM_NAME_MAX - 2);
        if (h->nbytes <= 0)
            return th_set_error(TH_ERR_INVALID, fn, "a named segment holds at least 1 byte, not %lld", (long long)h->nbytes);
        break;
    }
    case TH_SHM_LOCATOR_FD:
    case TH_SHM_LOCATOR_EMPTY:
        if (h->name[0] != '\0') return th_set_error(TH_ERR_INVALID, fn, "only a name handle has a segment name");
        if (h->locator == TH_SHM_LOCATOR_FD && h->nbytes <= 0)
            return th_set_error(TH_ERR_INVALID, fn, "an fd handle's segment holds at least 1 byte, not %lld",
                                (long long)h->nbytes);
        if (h->locator == TH_SHM_LOCATOR_EMPTY && h->nbytes != 0)
            return th_set_error(TH_ERR_INVALID, fn, "an empty handle has 0 bytes, not %lld", (long long)h->nbytes);
        break;
    default:
        return th_set_error(TH_ERR_INVALID, fn, "%d is no locator (name, fd or empty)", (int)h->locator);
    }
    if ((int)h->dtype < 0 || (int)h->dtype >= TH_NUM_DTYPES)
        return th_set_error(TH_ERR_DTYPE, fn, "%d is no dtype", (int)h->dtype);
    if (h->ndim < 0 || h->ndim > TH_MAX_DIMS)
        return th_set_error(TH_ERR_RANGE, fn, "ndim %d is outside 0..%d (TH_MAX_DIMS)", h->ndim, TH_MAX_DIMS);
    if (h->offset < 0) return th_set_error(TH_ERR_RANGE, fn, "negative offset %lld", (long long)h->offset);
    int64_t numel = 1;
    bool zero = false;
    for (int d = 0; d < h->ndim; d++) {
        if (h->sizes[d] < 0)
            return th_set_error(TH_ERR_INVALID, fn, "negative size %lld in dim %d", (long long)h->sizes[d], d);
        if (h->strides[d] == INT64_MIN) return th_set_error(TH_ERR_OVERFLOW, fn, "stride of dim %d overflows", d);
        if (h->sizes[d] == 0) zero = true;
        if (__builtin_mul_overflow(numel, h->sizes[d] ? h->sizes[d] : 1, &numel))
            return th_set_error(TH_ERR_OVERFLOW, fn, "the element count overflows int64 at dim %d", d);
    }
    const int64_t es = (int64_t)th_dtype_info(h->dtype)->size;
    const int64_t avail = h->nbytes / es; /* whole elements in the storage */
    if (zero) {
        if (h->offset > avail)
            return th_set_error(TH_ERR_RANGE, fn, "offset %lld is past the %lld elements of the storage",
                                (long long)h->offset, (long long)avail);
        return TH_OK;
    }
    int64_t lo = 0, hi = 0;
    for (int d = 0; d < h->ndim; d++) {
        int64_t span;
        if (h->sizes[d] <= 1 || h->strides[d] == 0) continue;
        if (__builtin_mul_overflow(h->sizes[d] - 1, h->strides[d], &span) ||
            (span > 0 ? __builtin_add_overflow(hi, span, &hi) : __builtin_add_overflow(lo, span, &lo)))
            return th_set_error(TH_ERR_OVERFLOW, fn, "the sizes and strides address more than int64 can count");
    }
    int64_t first = h->offset + lo, last; /* offset >= 0 and lo <= 0: no overflow */
    bool past = __builtin_add_overflow(h->offset, hi, &last);
    if (past || first < 0 || last > avail - 1)
        return th_set_error(TH_ERR_RANGE, fn,
                            "offset %lld with these sizes and strides addresses elements %lld..%s%lld, outside the "
                            "storage's %lld elements of %s",
                            (long long)h->offset, (long long)first, past ? "beyond " : "",
                            (long long)(past ? INT64_MAX : last), (long long)avail, th_dtype_name(h->dtype));
    return TH_OK;
}

/* ---- parsing ------------------------------------------------------------------------------------------ */

typedef struct th__shm_cursor {
    const char *start, *p, *end;
} th__shm_cursor;

static int th__shm_bad(const th__shm_cursor *c, const char *field, const char *expected)
{
    return th_set_error(TH_ERR_INVALID, th__shm_handle_fn, "bad %s at byte %td: expected %s", field, c->p - c->start,
                        expected);
}

static bool th__shm_take(th__shm_cursor *c, const char *lit)
{
    size_t n = strlen(lit);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n) != 0) return false;
    c->p += n;
    return true;
}

/* A number without sign or leading zeros, at most INT64_MAX. */
static bool th__shm_take_u64(th__shm_cursor *c, int64_t *out)
{
    const char *q = c->p;
    if (q == c->end || *q < '0' || *q > '9') return false;
    if (*q == '0' && q + 1 < c->end && q[1] >= '0' && q[1] <= '9') return false;
    int64_t v = 0;
    while (q < c->end && *q >= '0' && *q <= '9') {
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, *q - '0', &v)) return false;
        q++;
    }
    c->p = q;
    *out = v;
    return true;
}

static bool th__shm_take_i64(th__shm_cursor *c, int64_t *out)
{
    bool neg = c->p < c->end && *c->p == '-';
    const char *save = c->p;
    if (neg) c->p++;
    int64_t v;
    if (!th__shm_take_u64(c, &v) || (neg && v == 0)) {
        c->p = save;
        return false;
    }
    *out = neg ? -v : v;
    return true;
}

/* "name=" list: none (0-d) or comma-separated numbers; *n counts them. */
static int th__shm_take_list(th__shm_cursor *c, const char *key, bool is_signed, int64_t *vals, int *n)
{
    if (!th__shm_take(c, key)) return th__shm_bad(c, "field", key);
    *n = 0;
    if (c->p == c->end || *c->p == ':') return TH_OK;
    for (;;) {
        if (*n == TH_MAX_DIMS)
            return th_set_error(TH_ERR_RANGE, th__shm_handle_fn, "more than %d (TH_MAX_DIMS) entries in %.*s",
                                TH_MAX_DIMS, (int)strlen(key) - 1, key);
        bool ok = is_signed ? th__shm_take_i64(c, &vals[*n]) : th__shm_take_u64(c, &vals[*n]);
        if (!ok) return th__shm_bad(c, key, is_signed ? "an integer" : "a number (no sign, no leading zeros)");
        (*n)++;
        if (c->p == c->end || *c->p != ',') return TH_OK;
        c->p++;
    }
}

int th_shm_handle_parse(const char *text, size_t len, th_shm_handle *out)
{
    const char *fn = th__shm_handle_fn;
    if (!text || !out) return th_set_error(TH_ERR_INVALID, fn, "NULL %s", text ? "handle" : "text");
    memset(out, 0, sizeof *out);
    if (len >= TH_SHM_HANDLE_MAX)
        return th_set_error(TH_ERR_INVALID, fn, "%zu bytes is longer than any handle (at most %d)", len,
                            TH_SHM_HANDLE_MAX - 1);
    th__shm_cursor c = {text, text, text + len};
    th_shm_handle h;
    memset(&h, 0, sizeof h);
    int64_t v;
    if (!th__shm_take(&c, "thshm/")) return th__shm_bad(&c, "start", "\"thshm/\" (this is no tensor.h handle)");
    if (!th__shm_take_u64(&c, &v)) return th__shm_bad(&c, "version", "a number");
    if (v != TH_SHM_HANDLE_VERSION)
        return th_set_error(TH_ERR_INVALID, fn, "handle version %lld is not supported (this build reads %d)",
                            (long long)v, TH_SHM_HANDLE_VERSION);
    h.version = (int)v;
    if (!th__shm_take(&c, ":")) return th__shm_bad(&c, "separator", "\":\"");
    if (th__shm_take(&c, "name=")) {
        const char *colon = (const char *)memchr(c.p, ':', (size_t)(c.end - c.p));
        size_t n = colon ? (size_t)(colon - c.p) : (size_t)(c.end - c.p);
        if (!th__shm_name_valid(c.p, n))
            return th__shm_bad(&c, "segment name",
                               "\"/\" and 1 to 70 characters of [A-Za-z0-9_.-], not starting with '.'");
        memcpy(h.name, c.p, n);
        h.name[n] = '\0';
        c.p += n;
        h.locator = TH_SHM_LOCATOR_NAME;
    } else if (th__shm_take(&c, "fd")) {
        h.locator = TH_SHM_LOCATOR_FD;
    } else if (th__shm_take(&c, "empty")) {
        h.locator = TH_SHM_LOCATOR_EMPTY;
    } else {
        return th__shm_bad(&c, "locator", "\"name=\", \"fd\" or \"empty\"");
    }
    if (!th__shm_take(&c, ":bytes=")) return th__shm_bad(&c, "field", "\":bytes=\"");
    if (!th__shm_take_u64(&c, &h.nbytes)) return th__shm_bad(&c, "bytes", "a number (no sign, no leading zeros)");
    if (!th__shm_take(&c, ":dtype=")) return th__shm_bad(&c, "field", "\":dtype=\"");
    const char *colon = (const char *)memchr(c.p, ':', (size_t)(c.end - c.p));
    size_t n = colon ? (size_t)(colon - c.p) : (size_t)(c.end - c.p);
    h.dtype = th__shm_dtype_by_name(c.p, n);
    if (h.dtype == TH_DTYPE_INVALID)
        return th_set_error(TH_ERR_DTYPE, fn, "unknown dtype \"%.*s\" at byte %td", (int)(n > 16 ? 16 : n), c.p,
                            c.p - c.start);
    c.p += n;
    if (!th__shm_take(&c, ":offset=")) return th__shm_bad(&c, "field", "\":offset=\"");
    if (!th__shm_take_u64(&c, &h.offset)) return th__shm_bad(&c, "offset", "a number (no sign, no leading zeros)");
    if (!th__shm_take(&c, ":")) return th__shm_bad(&c, "separator", "\":\"");
    int nsizes, nstrides;
    if (th__shm_take_list(&c, "sizes=", false, h.sizes, &nsizes)) return th_last_status();
    if (!th__shm_take(&c, ":")) return th__shm_bad(&c, "separator", "\":\"");
    if (th__shm_take_list(&c, "strides=", true, h.strides, &nstrides)) return th_last_status();
    if (c.p != c.end) return th__shm_bad(&c, "end", "the end of the handle");
    if (nsizes != nstrides)
        return th_set_error(TH_ERR_INVALID, fn, "%d sizes but %d strides", nsizes, nstrides);
    h.ndim = nsizes;
    int rc = th__shm_handle_check(fn, &h);
    if (rc) return rc;
    *out = h;
    return TH_OK;
}

/* ---- formatting --------------------------------------------------------------------------------------- */

int th_shm_handle_format(const th_shm_handle *h, char *buf, size_t cap)
{
    static const char fn[] = "th_shm_handle_format";
    if (!buf && cap) return th_set_error(TH_ERR_INVALID, fn, "NULL buffer");
    int rc = th__shm_handle_check(fn, h);
    if (rc) return rc;
    char text[TH_SHM_HANDLE_MAX];
    size_t n = 0;
#define TH__SHM_PUT(...) \
    if (n < sizeof text) n += (size_t)snprintf(text + n, sizeof text - n, __VA_ARGS__)
    TH__SHM_PUT("thshm/%d:", h->version);
    TH__SHM_PUT("%s%s", h->locator == TH_SHM_LOCATOR_NAME ? "name=" : h->locator == TH_SHM_LOCATOR_FD ? "fd" : "empty",
                h->name);
    TH__SHM_PUT(":bytes=%" PRId64 ":dtype=%s:offset=%" PRId64 ":sizes=", h->nbytes, th_dtype_name(h->dtype),
                h->offset);
    for (int d = 0; d < h->ndim; d++) {
        TH__SHM_PUT("%s%" PRId64, d ? "," : "", h->sizes[d]);
    }
    TH__SHM_PUT(":strides=");
    for (int d = 0; d < h->ndim; d++) {
        TH__SHM_PUT("%s%" PRId64, d ? "," : "", h->strides[d]);
    }
#undef TH__SHM_PUT
    /* The longest handle (a 70-character name, 19-digit numbers, 21-character strides) fits: checked by the
     * tests; a truncated one would show up here. */
    if (n >= sizeof text) return th_set_error(TH_ERR_OVERFLOW, fn, "internal: handle longer than TH_SHM_HANDLE_MAX");
    if (n >= cap)
        return th_set_error(TH_ERR_RANGE, fn, "the handle needs %zu bytes, the buffer holds %zu (TH_SHM_HANDLE_MAX "
                            "always suffices)", n + 1, cap);
    memcpy(buf, text, n + 1);
    return (int)n;
}
