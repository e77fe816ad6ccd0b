/* libFuzzer target: the .npy parser (core/npy.h), header and data, as th_tensor_load_npy and th_npz_get run it.
 *
 * Whatever the bytes, parsing must not crash, read past them or allocate in proportion to a length it has not
 * checked; a header that parses announces data inside the bytes, and the tensor made from it (a view of the
 * bytes or a converted copy) holds only elements inside them. Seeds: tests/fuzz/seeds/fuzz_npy_header (files
 * NumPy wrote). Builds alone:
 *   clang -std=c11 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_npy_header.c -lm */
#define TH_IMPLEMENTATION
/* Three dtypes stamped keep the build fast; the others reach the refusal of a dtype not compiled in. */
#define TH_SELECT_DTYPES
#define TH_WANT_BOOL
#define TH_WANT_F32
#define TH_WANT_C128
#include "tensor.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    th__npy_header h;
    if (th__npy_parse("fuzz", "'input'", data, (int64_t)size, &h) != TH_OK) return 0;
    if (h.data_offset < 10 || h.nbytes < 0 || h.data_offset + h.nbytes > (int64_t)size) abort();
    /* The bytes in a storage of their own (as a mapped file would be), at an offset the parser does not know,
     * so that misaligned data takes the copy. */
    size_t shift = size & 3;
    th_storage *s = th_storage_new((int64_t)(size + shift), NULL, NULL);
    if (!s) return 0;
    memcpy((char *)th_storage_raw_data(s) + shift, data, size);
    th_tensor *t = th__npy_tensor("fuzz", "'input'", s, (int64_t)shift, &h);
    if (t) {
        if (th_tensor_ndim(t) != h.ndim || th_tensor_numel(t) * (int64_t)th_dtype_info(h.dtype)->size != h.nbytes)
            abort();
        th_storage *cs = th_storage_new(h.nbytes, NULL, NULL);
        th_tensor *c = th_tensor_new_with_storage(th_tensor_dtype(t), cs, 0, h.ndim, h.sizes, NULL);
        if (c && th_tensor_copy(c, t) != TH_OK) abort(); /* touches every element */
        th_tensor_release(c);
        th_storage_release(cs);
        th_tensor_release(t);
    }
    th_storage_release(s);
    return 0;
}
