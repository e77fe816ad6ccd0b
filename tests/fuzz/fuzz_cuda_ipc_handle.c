/* libFuzzer target: the CUDA IPC handle parser and formatter (cuda/ipc.c).
 *
 * The input is parsed as handle text; whatever it is, parsing must not crash or read past it, and a text that
 * parses must format back to exactly itself. A random text almost never carries the right checksum, so the
 * input is parsed a second time with its last 8 bytes replaced by the checksum of what comes before them:
 * that lets the fuzzer reach every check behind the checksum. The same bytes are also read as the fields of
 * a handle struct: the formatter either refuses them or writes a text within TH_CUDA_IPC_HANDLE_MAX that
 * parses back to the same handle. Builds alone:
 *   clang -std=c11 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_cuda_ipc_handle.c -lm */
#define _GNU_SOURCE /* before any system header: cuda/ipc.c needs POSIX and Linux declarations */
#define TH_IMPLEMENTATION
#define TH_SELECT_DTYPES /* the parser needs dtype names and sizes only, which every build has */
#define TH_WANT_F32
#include "tensor.h"
#include "cuda/ipc.c"

#include <stdlib.h>
#include <string.h>

static void same_handle(const th_cuda_ipc_handle *a, const th_cuda_ipc_handle *b)
{
    if (a->version != b->version || a->pid != b->pid || a->id != b->id || a->device != b->device ||
        memcmp(a->mem, b->mem, sizeof a->mem) != 0 || a->segment_bytes != b->segment_bytes ||
        a->segment_offset != b->segment_offset || memcmp(a->event, b->event, sizeof a->event) != 0 ||
        strcmp(a->counter, b->counter) != 0 || a->slot != b->slot || a->generation != b->generation ||
        a->nbytes != b->nbytes || a->dtype != b->dtype || a->offset != b->offset || a->ndim != b->ndim)
        abort();
    for (int d = 0; d < a->ndim; d++)
        if (a->sizes[d] != b->sizes[d] || a->strides[d] != b->strides[d]) abort();
}

/* A text that parses is canonical: it formats back to itself, and that parses to the same handle. */
static void parse_text(const char *text, size_t size)
{
    th_cuda_ipc_handle h, back;
    char again[TH_CUDA_IPC_HANDLE_MAX];
    if (th_cuda_ipc_handle_parse(text, size, &h) != TH_OK) return;
    int n = th_cuda_ipc_handle_format(&h, again, sizeof again);
    if (n < 0 || (size_t)n != size || memcmp(again, text, size) != 0) abort();
    if (th_cuda_ipc_handle_parse(again, (size_t)n, &back) != TH_OK) abort();
    same_handle(&h, &back);
}

/* Reads a field from the bytes, favouring small and boundary values. */
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
    parse_text((const char *)data, size);
    if (size >= 8 && size < TH_CUDA_IPC_HANDLE_MAX) {
        char fixed[TH_CUDA_IPC_HANDLE_MAX];
        memcpy(fixed, data, size);
        char sum[9];
        snprintf(sum, sizeof sum, "%08" PRIx32, th__ipc_checksum(fixed, size >= 13 ? size - 13 : 0));
        memcpy(fixed + size - 8, sum, 8);
        parse_text(fixed, size);
    }

    const uint8_t *p = data;
    size_t left = size;
    th_cuda_ipc_handle h, back;
    memset(&h, 0, sizeof h);
    h.version = (int)(take(&p, &left) % 3);
    h.pid = (int32_t)take(&p, &left);
    h.id = (uint64_t)take(&p, &left);
    h.device = (int)take(&p, &left);
    for (size_t i = 0; i < sizeof h.mem && left; i++, left--) h.mem[i] = *p++;
    h.segment_bytes = take(&p, &left);
    h.segment_offset = take(&p, &left);
    size_t name_len = (size_t)(take(&p, &left) & 0x7f);
    for (size_t i = 0; i < name_len && i < sizeof h.counter - 1; i++) h.counter[i] = left ? (char)(left--, *p++) : '/';
    h.slot = (int32_t)take(&p, &left);
    h.generation = (uint32_t)take(&p, &left);
    h.nbytes = take(&p, &left);
    h.dtype = (th_dtype)(take(&p, &left) % (TH_NUM_DTYPES + 2) - 1);
    h.offset = take(&p, &left);
    h.ndim = (int)(take(&p, &left) % (TH_MAX_DIMS + 3)) - 1;
    for (int d = 0; d < TH_MAX_DIMS; d++) {
        h.sizes[d] = take(&p, &left);
        h.strides[d] = take(&p, &left);
    }
    char text[TH_CUDA_IPC_HANDLE_MAX];
    int n = th_cuda_ipc_handle_format(&h, text, sizeof text);
    if (n >= 0) {
        if ((size_t)n >= sizeof text || strlen(text) != (size_t)n) abort();
        if (th_cuda_ipc_handle_parse(text, (size_t)n, &back) != TH_OK) abort();
        same_handle(&h, &back);
    }
    return 0;
}
