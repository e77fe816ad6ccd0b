/* docs/examples/cuda_matmul.c: a CPU program moved to the GPU by moving its tensors (docs/cuda.md, "Ops on
 * CUDA tensors"). The same typed calls run on both; the device's result is checked against the CPU's. Built
 * by the test suite where nvcc is found; without a usable GPU it says why and exits 77 (a skip). */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#define TH_IMPLEMENTATION
#include "tensor.h"
#include "th_cuda.h"

#include <math.h>
#include <stdio.h>

/* y = gelu(x @ w + bias) (bias broadcast over rows), wherever x, w and bias live. */
static th_f32_tensor *layer(const th_f32_tensor *x, const th_f32_tensor *w, const th_f32_tensor *bias)
{
    th_f32_tensor *h = th_f32_addmm(bias, x, w, 1.0f, 1.0f);
    if (!h || th_f32_mul_scalar_inplace(h, 2.0f) != TH_OK) return h; /* the scalar form: 2 travels with the launch */
    th_f32_tensor *y = th_f32_gelu(h);
    th_f32_release(h);
    return y;
}

int main(void)
{
    if (th_cuda_device_count() == 0) {
        printf("no usable CUDA device: %s\n", th_cuda_unavailable_reason());
        return 77;
    }
    th_f32_tensor *x = th_f32_uniform(2, (int64_t[]){64, 32}, -1.0, 1.0, NULL);
    th_f32_tensor *w = th_f32_uniform(2, (int64_t[]){32, 16}, -1.0, 1.0, NULL);
    th_f32_tensor *bias = th_f32_full(1, (int64_t[]){16}, 0.25f);
    th_f32_tensor *on_cpu = layer(x, w, bias);

    /* The move: the same call on CUDA tensors. */
    th_f32_tensor *dx = th_f32_to_cuda(x, 0), *dw = th_f32_to_cuda(w, 0), *db = th_f32_to_cuda(bias, 0);
    th_f32_tensor *on_gpu = dx && dw && db ? layer(dx, dw, db) : NULL;
    th_f32_tensor *back = on_gpu ? th_f32_to_cpu(on_gpu) : NULL;
    if (!on_cpu || !back) {
        fprintf(stderr, "%s\n", th_last_error());
        return 1;
    }
    float worst = 0;
    for (int64_t i = 0; i < 64 * 16; i++) {
        float d = fabsf(th_f32_data(back)[i] - th_f32_data(on_cpu)[i]);
        if (d > worst) worst = d;
    }
    printf("gelu(2 (64x32 @ 32x16 + bias)) on device 0: largest difference from the CPU %g\n", (double)worst);
    th_f32_release(back);
    th_f32_release(on_gpu);
    th_f32_release(db);
    th_f32_release(dw);
    th_f32_release(dx);
    th_f32_release(on_cpu);
    th_f32_release(bias);
    th_f32_release(w);
    th_f32_release(x);
    return worst <= 1e-4f ? 0 : 1; /* sums of 32 products in another order, doubled, through gelu: a few ulp */
}
