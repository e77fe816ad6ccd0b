/* libFuzzer target: the safetensors header parser and index (core/safetensors.h), and the tensors got from it,
 * as th_safetensors_open and th_safetensors_get run them.
 *
 * Whatever the bytes, opening must not crash, read past them or allocate in proportion to a length it has not
 * checked; an index that opens has every tensor inside the data area, and every tensor got from it (a view of
 * the bytes or a converted copy) holds only elements inside them. Seeds: tests/fuzz/seeds/fuzz_safetensors_header
 * (files the safetensors package wrote). Builds alone:
 *   clang -std=c11 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_safetensors_header.c -lm */
#define TH_IMPLEMENTATION
/* A few dtypes stamped keep the build fast; the others reach the refusal of a dtype not compiled in. */
#define TH_SELECT_DTYPES
#define TH_WANT_BOOL
#define TH_WANT_F32
#define TH_WANT_BF16
#include "tensor.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The bytes in a storage of their own (as a mapped file would be), shifted so that aligned data in the
     * input may be misaligned in memory and take the copy. */
    size_t shift = size & 3;
    th_storage *s = th_storage_new((int64_t)(size + 4), NULL, NULL); /* never empty: an empty one has no data */
    if (!s) return 0;
    memcpy((char *)th_storage_raw_data(s) + shift, data, size);
    th_storage *view = th_storage_from_blob((char *)th_storage_raw_data(s) + shift, (int64_t)size,
                                            th_storage_device(s), NULL, NULL);
    th_safetensors *f = view ? th__st_index("fuzz", "'input'", view) : NULL;
    if (f) {
        int64_t total = 0;
        for (int i = 0; i < th_safetensors_count(f); i++) {
            const th__st_entry *e = &f->entries[i];
            if (e->begin < 0 || e->end < e->begin || f->data_start + e->end > (int64_t)size) abort();
            total += e->end - e->begin;
            th_tensor *t = th_safetensors_get(f, th_safetensors_name(f, i));
            if (!t) continue;
            if (th_tensor_numel(t) * (int64_t)th_dtype_info(th_tensor_dtype(t))->size != e->end - e->begin) abort();
            th_storage *cs = th_storage_new(e->end - e->begin, NULL, NULL);
            th_tensor *c = th_tensor_new_with_storage(th_tensor_dtype(t), cs, 0, e->ndim, e->sizes, NULL);
            if (c && th_tensor_copy(c, t) != TH_OK) abort(); /* touches every element */
            th_tensor_release(c);
            th_storage_release(cs);
            th_tensor_release(t);
        }
        if (total != (int64_t)size - f->data_start) abort(); /* the tensors cover the data */
        for (int i = 0; i < th_safetensors_metadata_count(f); i++)
            if (!th_safetensors_metadata_value(f, i) || th_safetensors_metadata_get(f, th_safetensors_metadata_key(f, i)) !=
                                                            th_safetensors_metadata_value(f, i))
                abort();
        th_safetensors_close(f);
    }
    th_storage_release(s);
    return 0;
}
