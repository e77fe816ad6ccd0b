/* tests/cuda/test_cuda_blas.c: th__cuda_matmul, the cuBLAS entry point of cuda/blas.c, linked against th_cuda.
 *
 * Without a GPU: every refusal that comes before the first CUDA call (an operand on the CPU, operands on two
 * devices, an integer or bool dtype, a shape, an out of the wrong shape or read-only, NULL arguments) is
 * checked on tensors whose storages only claim to be CUDA memory (host memory wrapped with a CUDA device, never
 * read), then that a valid product fails cleanly naming why no device is usable; the TF32 switch. With a GPU:
 * products of every dtype cuBLAS takes, plain, transposed, batched and fused, against the CPU's bit for bit
 * (small integers: exact sums). Exit 77 (skip) after the host part when no device is usable. */
#include "../check.h"
#include "cuda_internal.h"

#include <stdlib.h>

#define SZ(...) ((const int64_t[]){__VA_ARGS__})

static void free_blob(void *data, void *ctx)
{
    (void)ctx;
    free(data);
}

/* A tensor that claims to live on CUDA device `device`: host memory the test never lets the library touch. */
static th_tensor *fake_cuda(int device, th_dtype dt, int ndim, const int64_t *sizes)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= sizes[d];
    int64_t bytes = n * (int64_t)th_dtype_info(dt)->size;
    void *mem = calloc(1, (size_t)(bytes ? bytes : 1));
    th_storage *s = th_storage_from_blob(mem, bytes, (th_device){TH_DEVICE_CUDA, device}, free_blob, NULL);
    th_tensor *t = s ? th_tensor_new_with_storage(dt, s, 0, ndim, sizes, NULL) : NULL;
    th_storage_release(s);
    return t;
}

static th_tensor *new_result;
#define RES (th_tensor_release(new_result), new_result = NULL, &new_result)

static void test_refusals(void)
{
    const float one = 1;
    th_tensor *a = fake_cuda(0, TH_F32, 2, SZ(2, 3)), *b = fake_cuda(0, TH_F32, 2, SZ(3, 4));
    th_tensor *b1 = fake_cuda(1, TH_F32, 2, SZ(3, 4)), *out = fake_cuda(0, TH_F32, 2, SZ(2, 4));
    th_tensor *bad = fake_cuda(0, TH_F32, 2, SZ(4, 2)), *ai = fake_cuda(0, TH_I32, 2, SZ(2, 2));
    th_tensor *ab = fake_cuda(0, TH_BOOL, 2, SZ(2, 2));
    th_f32_tensor *host = th_f32_zeros(2, SZ(3, 4));

    CHECK_ERROR(th__cuda_matmul("th_f32_mm", TH__CUDA_MM_MM, TH_F32, NULL, NULL, false, a, (th_tensor *)host, NULL,
                                &one, RES) == TH_ERR_DEVICE,
                TH_ERR_DEVICE, "th_f32_mm", "B is not on a CUDA device (device type 1) but A is on CUDA device 0");
    CHECK_ERROR(th__cuda_matmul("th_f32_mm", TH__CUDA_MM_MM, TH_F32, NULL, NULL, false, (th_tensor *)host, b, NULL,
                                &one, RES) == TH_ERR_DEVICE,
                TH_ERR_DEVICE, "th_f32_mm", "A is not on a CUDA device");
    CHECK_ERROR(th__cuda_matmul("th_f32_mm", TH__CUDA_MM_MM, TH_F32, NULL, NULL, false, a, b1, NULL, &one, RES) ==
                    TH_ERR_DEVICE,
                TH_ERR_DEVICE, "th_f32_mm", "B is on CUDA device 1 but A is on CUDA device 0");
    CHECK_ERROR(th__cuda_matmul("th_f32_addmm_out", TH__CUDA_MM_MM, TH_F32, out, b1, true, a, b, &one, &one, NULL) ==
                    TH_ERR_DEVICE,
                TH_ERR_DEVICE, "th_f32_addmm_out", "C is on CUDA device 1 but A is on CUDA device 0");
    CHECK_ERROR(th__cuda_matmul("th_f32_mm", TH__CUDA_MM_MM, TH_F32, NULL, NULL, false, (th_tensor *)host,
                                (th_tensor *)host, NULL, &one, RES) == TH_ERR_DEVICE,
                TH_ERR_DEVICE, "th_f32_mm", "no operand is a CUDA tensor");
    CHECK_ERROR(th__cuda_matmul("th_i32_mm", TH__CUDA_MM_MM, TH_I32, NULL, NULL, false, ai, ai, NULL, &one, RES) ==
                    TH_ERR_UNSUPPORTED,
                TH_ERR_UNSUPPORTED, "th_i32_mm", "matrix products of i32 tensors are not supported on CUDA devices");
    CHECK_ERROR(th__cuda_matmul("th_bool_mm", TH__CUDA_MM_MM, TH_BOOL, NULL, NULL, false, ab, ab, NULL, &one, RES) ==
                    TH_ERR_DTYPE,
                TH_ERR_DTYPE, "th_bool_mm", "no matrix product of bool");
    CHECK_ERROR(th__cuda_matmul("th_f64_mm", TH__CUDA_MM_MM, TH_F64, NULL, NULL, false, a, b, NULL, &one, RES) ==
                    TH_ERR_DTYPE,
                TH_ERR_DTYPE, "th_f64_mm", "A is f32, not f64");
    CHECK_ERROR(th__cuda_matmul("th_f32_mm", TH__CUDA_MM_MM, TH_F32, NULL, NULL, false, a, a, NULL, &one, RES) ==
                    TH_ERR_SHAPE,
                TH_ERR_SHAPE, "th_f32_mm", "A has shape (2, 3) and B has shape (2, 3): inner sizes 3 and 2 differ");
    CHECK_ERROR(th__cuda_matmul("th_f32_bmm", TH__CUDA_MM_BMM, TH_F32, NULL, NULL, false, a, b, NULL, &one, RES) ==
                    TH_ERR_SHAPE,
                TH_ERR_SHAPE, "th_f32_bmm", "A must have 3 dims; it has shape (2, 3)");
    CHECK_ERROR(th__cuda_matmul("th_f32_mm_out", TH__CUDA_MM_MM, TH_F32, bad, NULL, false, a, b, NULL, &one, NULL) ==
                    TH_ERR_SHAPE,
                TH_ERR_SHAPE, "th_f32_mm_out", "out has shape (4, 2); the result has shape (2, 4)");
    CHECK_ERROR(th__cuda_matmul("th_f32_mm_out", TH__CUDA_MM_MM, TH_F32, NULL, NULL, false, a, b, NULL, &one, NULL) ==
                    TH_ERR_INVALID,
                TH_ERR_INVALID, "th_f32_mm_out", "NULL out");
    CHECK_ERROR(th__cuda_matmul("th_f32_mm", TH__CUDA_MM_MM, TH_F32, NULL, NULL, false, NULL, b, NULL, &one, RES) ==
                    TH_ERR_INVALID,
                TH_ERR_INVALID, "th_f32_mm", "NULL A");
    CHECK_ERROR(th__cuda_matmul("th_f32_addmm", TH__CUDA_MM_MM, TH_F32, NULL, NULL, true, a, b, &one, &one, RES) ==
                    TH_ERR_INVALID,
                TH_ERR_INVALID, "th_f32_addmm", "NULL C");
    /* the CPU's message for the same mistake, word for word */
    th_f32_tensor *ha = th_f32_zeros(2, SZ(2, 3));
    th_clear_error();
    CHECK(th_f32_mm(ha, ha) == NULL);
    char cpu[512];
    snprintf(cpu, sizeof cpu, "%s", th_last_error());
    th_clear_error();
    CHECK(th__cuda_matmul("th_f32_mm", TH__CUDA_MM_MM, TH_F32, NULL, NULL, false, a, a, NULL, &one, RES) ==
          TH_ERR_SHAPE);
    CHECK(strcmp(cpu, th_last_error()) == 0);
    th_f32_release(ha);
    th_storage_make_read_only(th_tensor_storage(out));
    CHECK_ERROR(th__cuda_matmul("th_f32_mm_out", TH__CUDA_MM_MM, TH_F32, out, NULL, false, a, b, NULL, &one, NULL) ==
                    TH_ERR_READ_ONLY,
                TH_ERR_READ_ONLY, "th_f32_mm_out", "read-only");

    /* a valid product on a machine without a usable device: refused before any CUDA call touches the fake
     * memory (on a machine with one, the fake tensors must not reach cuBLAS, so this is left out) */
    if (th_cuda_device_count() == 0)
        CHECK_ERROR(th__cuda_matmul("th_f32_mm", TH__CUDA_MM_MM, TH_F32, NULL, NULL, false, a, b, NULL, &one, RES) ==
                        TH_ERR_DEVICE,
                    TH_ERR_DEVICE, "th_f32_mm", "no CUDA device");
    th_tensor *t[] = {a, b, b1, out, bad, ai, ab};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) th_tensor_release(t[i]);
    th_f32_release(host);
    th_tensor_release(new_result);
    new_result = NULL;
}

static void test_tf32_switch(void)
{
    CHECK_INT_EQ(th_cuda_allow_tf32(), 0); /* off by default */
    CHECK_INT_EQ(th_cuda_set_allow_tf32(5), 0);
    CHECK_INT_EQ(th_cuda_allow_tf32(), 1);
    CHECK_INT_EQ(th_cuda_set_allow_tf32(0), 1);
    CHECK_INT_EQ(th_cuda_allow_tf32(), 0);
}

/* ---- on a GPU ---- */

/* A contiguous host tensor (the thread's default allocator). */
static th_tensor *host_empty(th_dtype dt, int ndim, const int64_t *sizes)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++) n *= sizes[d];
    th_storage *s = th_storage_new(n * (int64_t)th_dtype_info(dt)->size, NULL, NULL);
    th_tensor *t = s ? th_tensor_new_with_storage(dt, s, 0, ndim, sizes, NULL) : NULL;
    th_storage_release(s);
    return t;
}

/* host (c128 or f64, small integers) -> a contiguous CUDA tensor of dtype, and back to the host type. */
static th_tensor *to_device(const th_tensor *host, th_dtype dt)
{
    th_tensor *d = th_cuda_empty(dt, 0, th_tensor_ndim(host), th_tensor_sizes(host));
    if (d && th_cuda_copy(d, host)) {
        th_tensor_release(d);
        return NULL;
    }
    return d;
}

static void fill_ints(th_tensor *t, uint32_t seed)
{
    int64_t n = th_tensor_numel(t);
    bool complex = th_tensor_dtype(t) == TH_C128;
    double *v = (double *)th_tensor_data(t);
    for (int64_t i = 0; i < n * (complex ? 2 : 1); i++) v[i] = (double)((int64_t)((i * 5 + seed) % 7) - 3);
}

/* A view of t with its last two dims swapped (a transposed operand, no copy). */
static th_tensor *swap_last(th_tensor *t)
{
    int nd = th_tensor_ndim(t);
    int64_t sizes[TH_MAX_DIMS], strides[TH_MAX_DIMS];
    memcpy(sizes, th_tensor_sizes(t), sizeof(int64_t) * (size_t)nd);
    memcpy(strides, th_tensor_strides(t), sizeof(int64_t) * (size_t)nd);
    int64_t s = sizes[nd - 1], st = strides[nd - 1];
    sizes[nd - 1] = sizes[nd - 2];
    strides[nd - 1] = strides[nd - 2];
    sizes[nd - 2] = s;
    strides[nd - 2] = st;
    return th_tensor_new_with_storage(th_tensor_dtype(t), th_tensor_storage(t), th_tensor_offset(t), nd, sizes, strides);
}

/* One product on the device in dtype against the CPU's in the host type, bitwise. a_shape / b_shape are
 * stored transposed when ta / tb (the operand is then a transposed view). */
static void device_case(th_dtype dt, th__cuda_mm_kind kind, int nda, const int64_t *as, int ndb, const int64_t *bs,
                        bool ta, bool tb, bool fused)
{
    const th_dtype ht = th_dtype_info(dt)->kind == TH_KIND_COMPLEX ? TH_C128 : TH_F64;
    th_tensor *a0 = host_empty(ht, nda, as), *b0 = host_empty(ht, ndb, bs);
    fill_ints(a0, 1);
    fill_ints(b0, 2);
    th_tensor *da0 = to_device(a0, dt), *db0 = to_device(b0, dt);
    th_tensor *ha_v = ta ? swap_last(a0) : th_tensor_retain(a0), *hb_v = tb ? swap_last(b0) : th_tensor_retain(b0);
    th_tensor *da = ta ? swap_last(da0) : th_tensor_retain(da0), *db = tb ? swap_last(db0) : th_tensor_retain(db0);

    /* the CPU's result in the host type */
    th_tensor *want = NULL;
    if (ht == TH_F64) {
        want = (th_tensor *)(kind == TH__CUDA_MM_BMM ? th_f64_bmm((th_f64_tensor *)ha_v, (th_f64_tensor *)hb_v)
                                                     : th_f64_matmul((th_f64_tensor *)ha_v, (th_f64_tensor *)hb_v));
    } else {
        want = (th_tensor *)(kind == TH__CUDA_MM_BMM ? th_c128_bmm((th_c128_tensor *)ha_v, (th_c128_tensor *)hb_v)
                                                     : th_c128_matmul((th_c128_tensor *)ha_v, (th_c128_tensor *)hb_v));
    }
    /* fused: want = 2*want + 3*want (bias = the product itself), computed on the host */
    unsigned char alpha[16] = {0}, beta[16] = {0};
    size_t ss = th__cuda_mm_scalar_size(dt);
    if (ss == 4) {
        float f = fused ? 3.0f : 1.0f, g = 2.0f;
        memcpy(alpha, &f, 4);
        memcpy(beta, &g, 4);
    } else if (ss == 8 && dt == TH_F64) {
        double f = fused ? 3.0 : 1.0, g = 2.0;
        memcpy(alpha, &f, 8);
        memcpy(beta, &g, 8);
    } else if (ss == 8) {
        float f[2] = {fused ? 3.0f : 1.0f, 0}, g[2] = {2.0f, 0};
        memcpy(alpha, f, 8);
        memcpy(beta, g, 8);
    } else {
        double f[2] = {fused ? 3.0 : 1.0, 0}, g[2] = {2.0, 0};
        memcpy(alpha, f, 16);
        memcpy(beta, g, 16);
    }
    th_tensor *got = NULL, *bias = NULL;
    int st = 0;
    if (fused && want) {
        bias = to_device(want, dt);
        st = th__cuda_matmul("device_case", kind, dt, bias, bias, true, da, db, beta, alpha, NULL);
        got = th_tensor_retain(bias);
        if (ht == TH_F64) { /* 2*want + 3*want = 5*want exactly */
            for (int64_t i = 0; i < th_tensor_numel(want); i++) ((double *)th_tensor_data(want))[i] *= 5;
        } else {
            for (int64_t i = 0; i < 2 * th_tensor_numel(want); i++) ((double *)th_tensor_data(want))[i] *= 5;
        }
    } else {
        st = th__cuda_matmul("device_case", kind, dt, NULL, NULL, false, da, db, NULL, alpha, &got);
    }
    if (st) fprintf(stderr, "device_case %s: %s\n", th_dtype_name(dt), th_last_error());
    CHECK_INT_EQ(st, 0);
    if (!st && want && got) {
        th_tensor *back = th_tensor_to_cpu(got);
        th_tensor *back_ht = back ? host_empty(ht, th_tensor_ndim(back), th_tensor_sizes(back)) : NULL;
        if (back_ht) {
            CHECK_INT_EQ(th_tensor_copy(back_ht, back), 0);
            CHECK(th_tensor_numel(back_ht) == th_tensor_numel(want));
            const double *g = th_tensor_data(back_ht), *w = th_tensor_data(want);
            const int64_t nv = th_tensor_numel(want) * (ht == TH_C128 ? 2 : 1);
            int64_t bad = -1;
            /* Bitwise, but for the sign of a zero: the inputs are small integers, so every product and sum is
             * exact and the values must be the CPU's bits; a zero's sign depends on the order of the terms, which
             * is cuBLAS's own (complex products with a transposed a give +0 where the CPU's order gives -0 for
             * an imaginary part whose terms are all zeros, on an H200). */
            for (int64_t i = 0; i < nv && bad < 0; i++)
                if (memcmp(&g[i], &w[i], sizeof *g) != 0 && !(g[i] == 0 && w[i] == 0)) bad = i;
            CHECK(bad < 0);
            if (bad >= 0)
                fprintf(stderr, "  %s %s %dd x %dd%s%s%s: value %lld of %lld is %.17g, the CPU's %.17g\n",
                        th_dtype_name(dt), kind == TH__CUDA_MM_BMM ? "bmm" : "matmul", nda, ndb, ta ? " a^T" : "",
                        tb ? " b^T" : "", fused ? " fused" : "", (long long)bad, (long long)nv, g[bad], w[bad]);
        }
        th_tensor_release(back_ht);
        th_tensor_release(back);
    }
    th_tensor *all[] = {a0, b0, da0, db0, ha_v, hb_v, da, db, want, got, bias};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) th_tensor_release(all[i]);
}

static void test_device(void)
{
    const th_dtype dts[] = {TH_F32, TH_F64, TH_C64, TH_C128, TH_F16, TH_BF16};
    for (size_t i = 0; i < sizeof dts / sizeof dts[0]; i++)
        for (int t = 0; t < 4; t++) {
            bool ta = t & 1, tb = t & 2;
            device_case(dts[i], TH__CUDA_MM_MATMUL, 2, ta ? SZ(7, 5) : SZ(5, 7), 2, tb ? SZ(3, 7) : SZ(7, 3), ta, tb,
                        false);
            device_case(dts[i], TH__CUDA_MM_MATMUL, 2, ta ? SZ(7, 5) : SZ(5, 7), 2, tb ? SZ(3, 7) : SZ(7, 3), ta, tb,
                        true);
            device_case(dts[i], TH__CUDA_MM_BMM, 3, ta ? SZ(4, 7, 5) : SZ(4, 5, 7), 3, tb ? SZ(4, 3, 7) : SZ(4, 7, 3),
                        ta, tb, false);
            device_case(dts[i], TH__CUDA_MM_MATMUL, 4, ta ? SZ(2, 1, 7, 5) : SZ(2, 1, 5, 7), 4,
                        tb ? SZ(1, 3, 3, 7) : SZ(1, 3, 7, 3), ta, tb, false);
        }
    CHECK_INT_EQ(th_cuda_stream_synchronize(th_cuda_current_stream(0)), 0);
}

int main(void)
{
    test_begin();
    test_refusals();
    test_tf32_switch();
    if (th_cuda_device_count() == 0) {
        printf("no usable CUDA device (%s): the device products are skipped\n", th_cuda_unavailable_reason());
        int rc = test_end("cuda_blas");
        return rc ? rc : 77;
    }
    test_device();
    return test_end("cuda_blas");
}
