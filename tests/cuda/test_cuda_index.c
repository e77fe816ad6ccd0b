/* tests/cuda/test_cuda_index.c: the index math of strided device copies (cuda/index_math.h), run over host
 * buffers with the device's conversion (cuda/convert.h), against th_tensor_copy: random shapes, permuted,
 * stepped, flipped (negative strides) and broadcast (zero strides) sources, every dtype pair on the way, in
 * 64-bit and (where the plan allows) 32-bit index math. Runs without a GPU. */
#include "tensor.h"
#include "../../cuda/convert.h"
#include "../../cuda/index_math.h"

#include <stdlib.h>

static int failures, checks;
static uint64_t rng = 0x243f6a8885a308d3u;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}
static int64_t below(int64_t n) { return (int64_t)(next() % (uint64_t)n); }

/* A view of base (contiguous, numel >= needed) with the given shape and a random layout. */
static th_f64_tensor *random_view(th_f64_tensor *base, int ndim, const int64_t *sizes)
{
    int perm[TH_MAX_DIMS];
    for (int k = 0; k < ndim; k++) perm[k] = k;
    for (int k = ndim - 1; k > 0; k--) {
        int j = (int)below(k + 1), t = perm[k];
        perm[k] = perm[j];
        perm[j] = t;
    }
    int64_t strides[TH_MAX_DIMS], step = 1, span = 0;
    for (int k = ndim - 1; k >= 0; k--) { /* a permuted, stepped layout */
        int d = perm[k];
        int64_t s = 1 + below(2);
        strides[d] = step * s;
        step *= sizes[d] * s;
    }
    int64_t offset = 0;
    for (int k = 0; k < ndim; k++) {
        if (below(4) == 0) { /* flipped: start at the far end, step back */
            offset += strides[k] * (sizes[k] - 1);
            strides[k] = -strides[k];
        }
        span += (strides[k] < 0 ? -strides[k] : strides[k]) * (sizes[k] - 1);
    }
    if (offset + 1 > th_f64_numel(base) || span + 1 > th_f64_numel(base)) return NULL;
    return th_f64_as_strided(base, ndim, sizes, strides, offset);
}

int main(void)
{
    int64_t cap = 1 << 16;
    th_f64_tensor *base = th_f64_empty(1, &cap);
    double *bd = th_f64_data(base);
    for (int64_t i = 0; i < cap; i++) bd[i] = (double)(i % 1000) - 500.25;
    for (int trial = 0; trial < 400; trial++) {
        int ndim = 1 + (int)below(5);
        int64_t sizes[TH_MAX_DIMS];
        for (int k = 0; k < ndim; k++) sizes[k] = 1 + below(5);
        th_f64_tensor *view = random_view(base, ndim, sizes);
        if (!view) continue;
        /* The source: the view, possibly broadcast along its first dim (size 1, stride 0 there). */
        th_tensor *src = th_f64_base(view);
        th_f64_tensor *narrowed = NULL;
        if (below(3) == 0) {
            narrowed = th_f64_narrow(view, 0, 0, 1);
            src = th_f64_base(narrowed);
        }
        th_dtype sdt = (th_dtype)below(TH_NUM_DTYPES), ddt = (th_dtype)below(TH_NUM_DTYPES);
        /* The source in sdt, the same layout: converted by the CPU into a fresh random layout of sdt. */
        th_tensor *typed = NULL;
        switch (sdt) {
        case TH_BOOL: typed = th_bool_base(th_bool_convert(src)); break;
        case TH_U8: typed = th_u8_base(th_u8_convert(src)); break;
        case TH_I8: typed = th_i8_base(th_i8_convert(src)); break;
        case TH_I16: typed = th_i16_base(th_i16_convert(src)); break;
        case TH_I32: typed = th_i32_base(th_i32_convert(src)); break;
        case TH_I64: typed = th_i64_base(th_i64_convert(src)); break;
        case TH_F16: typed = th_f16_base(th_f16_convert(src)); break;
        case TH_BF16: typed = th_bf16_base(th_bf16_convert(src)); break;
        case TH_F32: typed = th_f32_base(th_f32_convert(src)); break;
        case TH_F64: typed = th_tensor_retain(src); break;
        case TH_C64: typed = th_c64_base(th_c64_convert(src)); break;
        default: typed = th_c128_base(th_c128_convert(src)); break;
        }
        /* dst: a random (stepped) layout of ddt with the full shape, over a zeroed buffer of ddt just large
         * enough for it. */
        int64_t dstrides[TH_MAX_DIMS], step = 1;
        for (int k = ndim - 1; k >= 0; k--) {
            dstrides[k] = step * (1 + below(2));
            step = dstrides[k] * sizes[k];
        }
        int64_t n = 1;
        for (int k = 0; k < ndim; k++) n += dstrides[k] * (sizes[k] - 1);
        th_f64_tensor *zero = th_f64_zeros(1, &n);
        th_tensor *dbase = NULL;
        switch (ddt) {
        case TH_BOOL: dbase = th_bool_base(th_bool_convert(th_f64_base(zero))); break;
        case TH_U8: dbase = th_u8_base(th_u8_convert(th_f64_base(zero))); break;
        case TH_I8: dbase = th_i8_base(th_i8_convert(th_f64_base(zero))); break;
        case TH_I16: dbase = th_i16_base(th_i16_convert(th_f64_base(zero))); break;
        case TH_I32: dbase = th_i32_base(th_i32_convert(th_f64_base(zero))); break;
        case TH_I64: dbase = th_i64_base(th_i64_convert(th_f64_base(zero))); break;
        case TH_F16: dbase = th_f16_base(th_f16_convert(th_f64_base(zero))); break;
        case TH_BF16: dbase = th_bf16_base(th_bf16_convert(th_f64_base(zero))); break;
        case TH_F32: dbase = th_f32_base(th_f32_convert(th_f64_base(zero))); break;
        case TH_F64: dbase = th_tensor_retain(th_f64_base(zero)); break;
        case TH_C64: dbase = th_c64_base(th_c64_convert(th_f64_base(zero))); break;
        default: dbase = th_c128_base(th_c128_convert(th_f64_base(zero))); break;
        }
        th_f64_release(zero);
        size_t des = th_dtype_info(ddt)->size;
        /* The plan writes into its own zeroed buffer, the CPU into dbase: the two must end byte-equal. */
        unsigned char *mine = (unsigned char *)calloc((size_t)n, des);
        unsigned char *cpu_bytes = (unsigned char *)th_tensor_data(dbase);
        th_tensor *dview = NULL;
        {
            int64_t off = 0;
            th_storage *st = th_tensor_storage(dbase);
            switch (ddt) { /* a view of dbase with dst's layout, by the dtype's own as_strided */
            case TH_BOOL: dview = th_bool_base(th_bool_new_with_storage(st, off, ndim, sizes, dstrides)); break;
            case TH_U8: dview = th_u8_base(th_u8_new_with_storage(st, off, ndim, sizes, dstrides)); break;
            case TH_I8: dview = th_i8_base(th_i8_new_with_storage(st, off, ndim, sizes, dstrides)); break;
            case TH_I16: dview = th_i16_base(th_i16_new_with_storage(st, off, ndim, sizes, dstrides)); break;
            case TH_I32: dview = th_i32_base(th_i32_new_with_storage(st, off, ndim, sizes, dstrides)); break;
            case TH_I64: dview = th_i64_base(th_i64_new_with_storage(st, off, ndim, sizes, dstrides)); break;
            case TH_F16: dview = th_f16_base(th_f16_new_with_storage(st, off, ndim, sizes, dstrides)); break;
            case TH_BF16: dview = th_bf16_base(th_bf16_new_with_storage(st, off, ndim, sizes, dstrides)); break;
            case TH_F32: dview = th_f32_base(th_f32_new_with_storage(st, off, ndim, sizes, dstrides)); break;
            case TH_F64: dview = th_f64_base(th_f64_new_with_storage(st, off, ndim, sizes, dstrides)); break;
            case TH_C64: dview = th_c64_base(th_c64_new_with_storage(st, off, ndim, sizes, dstrides)); break;
            default: dview = th_c128_base(th_c128_new_with_storage(st, off, ndim, sizes, dstrides)); break;
            }
        }
        th__cuda_copy_plan plan;
        if (!dview || th_tensor_copy(dview, typed) != TH_OK || !th__cuda_plan_copy(dview, typed, &plan)) {
            printf("FAIL trial %d: setup: %s\n", trial, th_last_error());
            failures++;
        } else {
            const unsigned char *sp = (const unsigned char *)th_tensor_data(typed);
            unsigned char *dp = mine + ((unsigned char *)th_tensor_data(dview) - cpu_bytes);
            for (int64_t i = 0; i < plan.numel; i++) {
                int64_t so, dof;
                if (plan.use32 && (i & 1)) { /* both paths, alternately: they must agree */
                    int32_t s32, d32;
                    th__cuda_offsets32(&plan, (int32_t)i, &s32, &d32);
                    so = s32;
                    dof = d32;
                } else {
                    th__cuda_offsets(&plan, i, &so, &dof);
                }
                th__cv_convert(dp + dof, plan.dst_dtype, sp + so, plan.src_dtype);
            }
            checks++;
            if (memcmp(mine, cpu_bytes, (size_t)n * des) != 0) {
                /* NaN payloads may differ (convert.h's promise); the sources here hold no NaN. */
                printf("FAIL trial %d: %s -> %s, %d dims: the plan's copy differs from th_tensor_copy\n", trial,
                       th_dtype_name(sdt), th_dtype_name(ddt), ndim);
                failures++;
            }
        }
        free(mine);
        th_tensor_release(dview);
        th_tensor_release(dbase);
        th_tensor_release(typed);
        th_f64_release(narrowed);
        th_f64_release(view);
    }
    th_f64_release(base);
    printf("test_cuda_index: %d copies checked, %d failed\n", checks, failures);
    return failures || checks < 100 ? 1 : 0;
}
