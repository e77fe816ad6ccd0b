/* gguf: read a GGUF file written by the gguf package (docs/examples/data/tiny.gguf, made by tiny_gguf.py
 * beside it): walk its metadata, list its tensors without reading their data, get the f32 embedding as a view
 * of the mapped file, dequantise the Q8_0 weight to f32, and compute with them.
 * Build and run: cc -std=c11 -I. docs/examples/gguf.c -lm -o gguf && ./gguf docs/examples/data/tiny.gguf */
#include <stdio.h>

#define TH_IMPLEMENTATION
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#define TH_WANT_F16
#define TH_WANT_U8
#include "tensor.h"

/* One metadata value on a line: scalars and strings as they are, arrays by their first items. */
static void print_value(const th_gguf_value *v)
{
    switch (v->type) {
    case TH_GGUF_UINT32: printf("%u", v->as.u32); break;
    case TH_GGUF_FLOAT32: printf("%g", v->as.f32); break;
    case TH_GGUF_STRING: printf("\"%s\"", v->as.str.data); break;
    case TH_GGUF_ARRAY:
        printf("%s[%llu]:", th_gguf_type_string(v->as.array.type), (unsigned long long)v->as.array.count);
        for (uint64_t k = 0; k < v->as.array.count && k < 4; k++) {
            if (v->as.array.type == TH_GGUF_STRING) printf(" %s", ((const th_gguf_string *)v->as.array.items)[k].data);
            if (v->as.array.type == TH_GGUF_FLOAT32) printf(" %g", ((const float *)v->as.array.items)[k]);
        }
        break;
    default: printf("(%s)", th_gguf_type_string(v->type));
    }
}

int main(int argc, char **argv)
{
    th_gguf *f = th_gguf_open(argc > 1 ? argv[1] : "docs/examples/data/tiny.gguf");
    if (!f) {
        fprintf(stderr, "%s\n", th_last_error());
        return 1;
    }
    printf("GGUF v%d, %d key/values, %d tensors\n", th_gguf_version(f), th_gguf_kv_count(f), th_gguf_count(f));
    for (int i = 0; i < th_gguf_kv_count(f); i++) {
        printf("  %-24s ", th_gguf_key(f, i));
        print_value(th_gguf_value_at(f, i));
        printf("\n");
    }
    for (int i = 0; i < th_gguf_count(f); i++) { /* the index only: no tensor data read */
        printf("  %-20s %-5s %6lld bytes [", th_gguf_name(f, i), th_gguf_type_name(f, i), (long long)th_gguf_nbytes(f, i));
        for (int d = 0; d < th_gguf_ndim(f, i); d++) printf(d ? ", %lld" : "%lld", (long long)th_gguf_sizes(f, i)[d]);
        printf("]\n");
    }
    th_tensor *embd = th_gguf_get(f, "token_embd.weight");            /* F32: a view of the mapping */
    th_tensor *norm = th_gguf_dequantize(f, "output_norm.weight");     /* F16, converted to f32 */
    th_tensor *wq = th_gguf_dequantize(f, "blk.0.attn_q.weight");      /* Q8_0, dequantised to f32 */
    th_tensor *blocks = th_gguf_get_raw(f, "blk.0.attn_q.weight");     /* its 2 x 34 bytes as they are */
    th_tensor *refused = th_gguf_get(f, "blk.0.attn_q.weight");        /* a quantised type: NULL */
    if (!refused) printf("th_gguf_get on Q8_0: %s\n", th_last_error());
    th_gguf_close(f); /* the tensors keep the mapping */
    int rc = 1;
    if (embd && norm && wq && blocks) {
        printf("embedding zero-copy: %s; raw blocks %lld x %lld bytes\n",
               th_storage_is_mapped(th_tensor_storage(embd)) ? "a view of the mapped file" : "copied",
               (long long)th_tensor_sizes(blocks)[0], (long long)th_tensor_sizes(blocks)[1]);
        th_f32_tensor *scaled = th_f32_mul(th_f32_from_base(embd), th_f32_from_base(norm)); /* 4x8 times 8 */
        th_print(stdout, scaled);
        printf("dequantised Q8_0, first row:\n");
        th_f32_tensor *row = th_f32_select(th_f32_from_base(wq), 0, 0);
        th_print(stdout, row);
        rc = scaled && row ? 0 : 1;
        th_f32_release(row);
        th_f32_release(scaled);
    } else {
        fprintf(stderr, "%s\n", th_last_error());
    }
    th_tensor_release(embd);
    th_tensor_release(norm);
    th_tensor_release(wq);
    th_tensor_release(blocks);
    return rc;
}
