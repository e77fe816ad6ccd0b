/* libFuzzer target: the shared-memory handle parser (shm/handle.c) and formatter.
 *
 * The input is parsed as handle text; whatever it is, parsing must not crash or read past it. The grammar is
 * canonical, so a text that parses must format back to exactly itself. The same bytes are also read as the
 * fields of a handle struct: whatever they hold, the formatter validates them and either refuses or writes a
 * text within TH_SHM_HANDLE_MAX that parses back to the same handle. Builds alone:
 *   clang -std=c11 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_shm_handle.c -lm */
#define TH_IMPLEMENTATION
/* Only the dtypes used here are stamped, which keeps this build fast (see TH_SELECT_DTYPES). */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#include "tensor.h"
#include "shm/handle.c"

#include <stdlib.h>
#include <string.h>

static void same_handle(const th_shm_handle *a, const th_shm_handle *b)
{
    if (a->version != b->version || a->locator != b->locator || strcmp(a->name, b->name) != 0 ||
        a->nbytes != b->nbytes || a->dtype != b->dtype || a->offset != b->offset || a->ndim != b->ndim)
        abort();
    for (int d = 0; d < a->ndim; d++)
        if (a->sizes[d] != b->sizes[d] || a->strides[d] != b->strides[d]) abort();
}

/* Reads the struct's fields from the bytes, favouring small and boundary values. */
static int64_t take(const uint8_t **p, size_t *left)
{
    uint64_t v = 0;
    uint8_t kind = *left ? (*p)[0] : 0;
    size_t n = kind < 128 ? 1 : kind < 192 ? 2 : 8;
    if (*left) (*p)++, (*left)--;
    for (size_t i = 0; i < n && *left; i++, (*p)++, (*left)--) v = (v << 8) | **p;
    if (kind >= 250) return kind == 250 ? INT64_MAX : kind == 251 ? INT64_MIN : -(int64_t)(v & 0xff);
    return n == 1 ? (int64_t)(v % 40) - 4 : (int64_t)v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    th_shm_handle h, back;
    char text[TH_SHM_HANDLE_MAX];
    if (th_shm_handle_parse((const char *)data, size, &h) == TH_OK) {
        int n = th_shm_handle_format(&h, text, sizeof text);
        if (n < 0 || (size_t)n != size || memcmp(text, data, size) != 0) abort(); /* canonical */
        if (th_shm_handle_parse(text, (size_t)n, &back) != TH_OK) abort();
        same_handle(&h, &back);
    }

    const uint8_t *p = data;
    size_t left = size;
    memset(&h, 0, sizeof h);
    h.version = (int)take(&p, &left) % 3;
    h.locator = (th_shm_locator)(take(&p, &left) % 5);
    size_t name_len = (size_t)(take(&p, &left) & 0x7f);
    for (size_t i = 0; i < name_len && i < sizeof h.name - 1; i++) h.name[i] = left ? (char)(left--, *p++) : '/';
    h.nbytes = take(&p, &left);
    h.dtype = (th_dtype)(take(&p, &left) % 14 - 1);
    h.offset = take(&p, &left);
    h.ndim = (int)(take(&p, &left) % (TH_MAX_DIMS + 3)) - 1;
    for (int d = 0; d < TH_MAX_DIMS; d++) {
        h.sizes[d] = take(&p, &left);
        h.strides[d] = take(&p, &left);
    }
    int n = th_shm_handle_format(&h, text, sizeof text);
    if (n >= 0) {
        if ((size_t)n >= sizeof text || text[n] != '\0' || strlen(text) != (size_t)n) abort();
        if (th_shm_handle_parse(text, (size_t)n, &back) != TH_OK) abort();
        same_handle(&h, &back);
    } else if (n != th_last_status()) {
        abort();
    }
    return 0;
}
