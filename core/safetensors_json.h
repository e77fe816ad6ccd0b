/* core/safetensors_json.h: the JSON of safetensors headers: a strict scanner over the mapped bytes into
 * core/safetensors.h's index (each tensor's object, __metadata__), and the writer's text as serde_json writes it.
 * Part of core/safetensors.h, which includes it among its definitions, after th__st_types and th__st_entry. */
#ifndef TENSOR_H
#error "core/safetensors_json.h is part of tensor.h: include tensor.h"
#endif

/* ---- the header: a strict JSON scanner over the mapped bytes ---------------------------------------------- */

typedef struct th__st_scan {
    const char *fn, *where;
    const char *begin, *p, *end;
    char *arena; /* decoded strings go here: never more bytes than the header, as each is shorter decoded */
    size_t used;
} th__st_scan;

/* The scanning steps are npy.h's (th__scan_ws, th__scan_eat, th__scan_bad). */
static void th__st_ws(th__st_scan *s) { th__scan_ws(&s->p, s->end); }
static bool th__st_eat(th__st_scan *s, char c) { return th__scan_eat(&s->p, s->end, c); }
static int th__st_bad(th__st_scan *s, const char *what)
{
    return th__scan_bad(s->fn, s->where, "JSON", s->begin, s->p, s->end, what);
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
            e->dtype = th__st_types[e->type].dtype;
            e->type_name = th__st_types[e->type].name;
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
        void *grown = th__index_grow(s->fn, (void *)*meta, cap, 2 * (*count + 1), sizeof(const char *));
        if (!grown) return th_last_status();
        *meta = (const char **)grown;
        (*meta)[2 * *count] = key;
        (*meta)[2 * *count + 1] = value;
        (*count)++;
    }
    return TH_OK;
}

/* ---- the writer's text ------------------------------------------------------------------------------------ */

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
