/* libFuzzer target: random DLTensor fields into the DLPack importer.
 *
 * Whatever the fields, the import must not crash, leak, or skip the deleter: it returns a tensor (and the
 * deleter runs once when that tensor is released) or NULL (and the deleter has already run once). When the
 * imported tensor claims only memory inside our buffer and is small, every element is read too (printed). */
#define TH_IMPLEMENTATION
#include "tensor.h"

#include <stdlib.h>
#include <string.h>

enum { BUFFER_BYTES = 4096 };
static _Alignas(64) unsigned char buffer[BUFFER_BYTES];

typedef struct fuzz_producer {
    DLManagedTensor legacy;
    struct DLManagedTensorVersioned versioned;
    int64_t shape[24];
    int64_t strides[24];
    int deleted;
} fuzz_producer;

static void delete_legacy(DLManagedTensor *m) { ((fuzz_producer *)m->manager_ctx)->deleted++; }
static void delete_versioned(struct DLManagedTensorVersioned *m) { ((fuzz_producer *)m->manager_ctx)->deleted++; }

typedef struct reader {
    const uint8_t *p;
    size_t left;
} reader;

static uint64_t take(reader *r, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n && r->left; i++, r->left--) v = (v << 8) | *r->p++;
    return v;
}

/* Small values are the interesting ones; sometimes a huge one. */
static int64_t take_dim(reader *r)
{
    uint8_t kind = (uint8_t)take(r, 1);
    if (kind < 200) return (int64_t)(kind % 9) - 1;      /* -1 .. 7 */
    if (kind < 240) return (int64_t)(int16_t)take(r, 2); /* +-32767 */
    return (int64_t)take(r, 8);                          /* anything */
}

static bool inside_buffer(const th_tensor *t)
{
    if (th_tensor_numel(t) == 0) return true;
    const int64_t *sizes = th_tensor_sizes(t), *strides = th_tensor_strides(t);
    int64_t es = (int64_t)th_dtype_info(th_tensor_dtype(t))->size, lo = 0, hi = 0;
    for (int d = 0; d < th_tensor_ndim(t); d++) {
        int64_t span = (sizes[d] - 1) * strides[d]; /* the importer checked this does not overflow */
        if (span > 0) hi += span; else lo += span;
    }
    const unsigned char *first = (const unsigned char *)th_tensor_data(t);
    return first + lo * es >= buffer && first + (hi + 1) * es <= buffer + BUFFER_BYTES;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    reader r = {data, size};
    fuzz_producer p;
    memset(&p, 0, sizeof p);
    uint8_t flags = (uint8_t)take(&r, 1);
    DLTensor t;
    memset(&t, 0, sizeof t);
    t.ndim = (int32_t)(int8_t)take(&r, 1) % 20;
    t.data = (flags & 1) ? NULL : buffer + take(&r, 2) % BUFFER_BYTES;
    t.byte_offset = (flags & 2) ? take(&r, 2) % 512 : 0;
    t.device.device_type = (DLDeviceType)((flags & 4) ? take(&r, 1) % 16 : 1);
    t.dtype.code = (uint8_t)take(&r, 1) % 8;
    t.dtype.bits = (uint8_t)(8u << (take(&r, 1) % 5));
    t.dtype.lanes = (flags & 8) ? (uint16_t)take(&r, 2) : 1;
    for (int d = 0; d < 24; d++) {
        p.shape[d] = take_dim(&r);
        p.strides[d] = take_dim(&r);
    }
    t.shape = (flags & 16) ? NULL : p.shape;
    t.strides = (flags & 32) ? NULL : p.strides;
    th_tensor *got;
    if (flags & 64) {
        p.versioned.version.major = (flags & 128) ? (uint32_t)take(&r, 1) % 3 : 1;
        p.versioned.dl_tensor = t;
        p.versioned.flags = take(&r, 1) & 3;
        p.versioned.manager_ctx = &p;
        p.versioned.deleter = delete_versioned;
        got = th_tensor_from_dlpack_versioned(&p.versioned);
    } else {
        p.legacy.dl_tensor = t;
        p.legacy.manager_ctx = &p;
        p.legacy.deleter = delete_legacy;
        got = th_tensor_from_dlpack(&p.legacy);
    }
    if (!got) {
        if (p.deleted != 1) abort(); /* an error must have run the deleter exactly once */
        return 0;
    }
    if (p.deleted != 0) abort();
    /* Only tensors that print quickly: a stride-0 tensor of 16 dims fits in the buffer yet prints 6^16 values. */
    if (inside_buffer(got) && th_tensor_numel(got) <= 4096) {
        FILE *sink = fopen("/dev/null", "w");
        if (sink) {
            th_tensor_print(sink, got);
            fclose(sink);
        }
    }
    th_tensor_release(got);
    if (p.deleted != 1) abort();
    return 0;
}
