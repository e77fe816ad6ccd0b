/* libFuzzer target: the GGUF reader (core/gguf.h): the header, the metadata tree and the index as th_gguf_open
 * builds them, and the tensors got from it, as th_gguf_get, th_gguf_get_raw and th_gguf_dequantize make them.
 *
 * Whatever the bytes, opening must not crash, read past them or allocate in proportion to a count or length it
 * has not checked; an index that opens has every tensor inside the data, in order; every value of the metadata
 * can be walked (strings NUL-terminated at their length, arrays of their count); every tensor got from it (a
 * view of the bytes or a converted copy) holds only elements inside them. Seeds: tests/fuzz/seeds/fuzz_gguf
 * (files the gguf package wrote: little- and big-endian, alignment 1). Builds alone:
 *   clang -std=c11 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_gguf.c -lm */
#define TH_IMPLEMENTATION
/* A few dtypes stamped keep the build fast; the others reach the refusal of a dtype not compiled in. */
#define TH_SELECT_DTYPES
#define TH_WANT_U8
#define TH_WANT_F32
#define TH_WANT_F16
#define TH_WANT_I32
#include "tensor.h"

#include <stdlib.h>
#include <string.h>

/* Walks a value, touching every byte it points to; the number of values seen. */
static uint64_t walk(const th_gguf_value *v, int depth)
{
    if (depth > TH_GGUF_MAX_DEPTH + 1) abort();
    if (v->type == TH_GGUF_STRING) {
        if (v->as.str.data[v->as.str.len] != '\0') abort();
        return 1;
    }
    if (v->type != TH_GGUF_ARRAY) return 1;
    uint64_t n = 1, sum = 0;
    const unsigned char *items = (const unsigned char *)v->as.array.items;
    for (uint64_t k = 0; k < v->as.array.count; k++) {
        if (v->as.array.type == TH_GGUF_ARRAY) n += walk((const th_gguf_value *)(const void *)items + k, depth + 1);
        else if (v->as.array.type == TH_GGUF_STRING) {
            const th_gguf_string *s = (const th_gguf_string *)(const void *)items + k;
            if (s->data[s->len] != '\0') abort();
            n++;
        } else {
            sum += items[k]; /* the first count bytes at least exist */
            n++;
        }
    }
    (void)sum;
    return n;
}

static void touch(th_tensor *t, int64_t nbytes)
{
    if (!t) return;
    th_storage *cs = th_storage_new(th_tensor_numel(t) * (int64_t)th_dtype_info(th_tensor_dtype(t))->size, NULL, NULL);
    th_tensor *c = th_tensor_new_with_storage(th_tensor_dtype(t), cs, 0, th_tensor_ndim(t), th_tensor_sizes(t), NULL);
    if (c && th_tensor_copy(c, t) != TH_OK) abort(); /* touches every element */
    if (nbytes >= 0 && th_tensor_numel(t) * (int64_t)th_dtype_info(th_tensor_dtype(t))->size != nbytes) abort();
    th_tensor_release(c);
    th_storage_release(cs);
    th_tensor_release(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The bytes in a storage of their own (as a mapped file would be), shifted so that aligned data in the
     * input may be misaligned in memory and take the copy. */
    size_t shift = size & 3;
    th_storage *s = th_storage_new((int64_t)(size + 4), NULL, NULL);
    if (!s) return 0;
    memcpy((char *)th_storage_raw_data(s) + shift, data, size);
    th_storage *view = th_storage_from_blob((char *)th_storage_raw_data(s) + shift, (int64_t)size,
                                            th_storage_device(s), NULL, NULL);
    th_gguf *f = view ? th__gguf_index("fuzz", "'input'", view) : NULL;
    if (f) {
        for (int i = 0; i < th_gguf_kv_count(f); i++) {
            if (th_gguf_find_key(f, th_gguf_key(f, i)) != i) abort(); /* keys are unique */
            walk(th_gguf_value_at(f, i), 0);
        }
        int64_t end = 0;
        for (int i = 0; i < th_gguf_count(f); i++) {
            const th__file_entry *e = &f->entries[i];
            /* Tensors with bytes lie inside the data in file order without overlapping; one of 0 bytes may stand at
             * any aligned offset (nothing is read from it). */
            if (e->end < e->begin) abort();
            if (e->end > e->begin) {
                if (e->begin < end || f->data_start + e->end > (int64_t)size) abort();
                end = e->end;
            }
            const char *name = th_gguf_name(f, i);
            if (th_gguf_find(f, name) != i) abort();
            touch(th_gguf_get(f, name), e->end - e->begin);
            touch(th_gguf_get_raw(f, name), e->end - e->begin);
            touch(th_gguf_dequantize(f, name), -1);
        }
        th_gguf_close(f);
    }
    th_storage_release(s);
    return 0;
}
