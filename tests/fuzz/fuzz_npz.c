/* libFuzzer target: the .npz reader (core/npz.h): the zip directory (end records, ZIP64, central and local
 * headers, extra fields), each member's .npy header, and th_npz_get on every member.
 *
 * Whatever the bytes, opening must not crash, read past them or allocate in proportion to a length it has not
 * checked; an archive that opens lists members whose bytes lie inside it, and each tensor got from it (a view of
 * the bytes or a copy) holds only elements inside them. Built without zlib, as CI builds every fuzzer (-I. -lm):
 * deflated members are listed and refused. Seeds: tests/fuzz/seeds/fuzz_npz (archives np.savez and th_npz_save
 * wrote, stored and with ZIP64). Builds alone:
 *   clang -std=c11 -fsanitize=fuzzer,address,undefined -I. tests/fuzz/fuzz_npz.c -lm */
#define TH_IMPLEMENTATION
/* Three dtypes stamped keep the build fast; the others reach the refusal of a dtype not compiled in. */
#define TH_SELECT_DTYPES
#define TH_WANT_BOOL
#define TH_WANT_F32
#define TH_WANT_I64
#include "tensor.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* The bytes in a storage of their own, as a mapped file would be. */
    th_storage *s = th_storage_new((int64_t)size, NULL, NULL);
    if (!s) return 0;
    if (size) memcpy(th_storage_raw_data(s), data, size);
    th_npz *z = th__npz_open_storage("fuzz", "'input'", s); /* takes s over */
    if (!z) return 0;
    for (int i = 0; i < th_npz_count(z); i++) {
        const th__npz_entry *e = &z->entries[i];
        if (e->data < 0 || e->csize < 0 || e->data + e->csize > (int64_t)size) abort();
        th_tensor *t = th_npz_get(z, th_npz_name(z, i));
        if (!t) continue;
        if (th_tensor_ndim(t) != th_npz_ndim(z, i) || th_tensor_dtype(t) != th_npz_dtype(z, i)) abort();
        th_storage *cs = th_storage_new(th_tensor_numel(t) * (int64_t)th_dtype_info(th_tensor_dtype(t))->size, NULL,
                                        NULL);
        th_tensor *c = th_tensor_new_with_storage(th_tensor_dtype(t), cs, 0, th_tensor_ndim(t), th_tensor_sizes(t),
                                                  NULL);
        if (c && th_tensor_copy(c, t) != TH_OK) abort(); /* touches every element */
        th_tensor_release(c);
        th_storage_release(cs);
        th_tensor_release(t);
    }
    th_npz_close(z);
    return 0;
}
