/* DLPack from C: hand a view to another library as a DLManagedTensor, and take one back, without copying.
 * Build: cc -std=c11 -I. docs/examples/dlpack_roundtrip.c -lm   (needs <dlpack/dlpack.h>: libdlpack-dev) */
#define TH_IMPLEMENTATION
/* Only the dtypes used here are stamped, which keeps this build fast (see TH_SELECT_DTYPES). */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#define TH_WANT_F64
#include "tensor.h"

#include <stdlib.h>

/* What another library would do with our tensor: read it through the DLTensor, then call the deleter. */
static double consumer_sum(DLManagedTensor *m)
{
    const DLTensor *t = &m->dl_tensor;
    double sum = 0;
    for (int64_t i = 0; i < t->shape[0]; i++)
        for (int64_t j = 0; j < t->shape[1]; j++)
            sum += ((const float *)t->data)[i * t->strides[0] + j * t->strides[1]];
    m->deleter(m); /* done with it: our storage may now be freed */
    return sum;
}

/* A producer's managed tensor over memory it owns. */
static void producer_deleter(DLManagedTensor *self)
{
    free(self->dl_tensor.data);
    free(self->dl_tensor.shape);
    free(self);
}

static DLManagedTensor *producer_make(void)
{
    DLManagedTensor *m = calloc(1, sizeof *m);
    int64_t *shape = malloc(2 * sizeof *shape);
    double *data = malloc(6 * sizeof *data);
    if (!m || !shape || !data) {
        free(m), free(shape), free(data);
        return NULL;
    }
    for (int i = 0; i < 6; i++) data[i] = i;
    shape[0] = 2;
    shape[1] = 3;
    m->dl_tensor = (DLTensor){.data = data, .device = {kDLCPU, 0}, .ndim = 2, .dtype = {kDLFloat, 64, 1},
                              .shape = shape, .strides = NULL}; /* NULL strides: compact row-major */
    m->deleter = producer_deleter;
    return m;
}

int main(void)
{
    /* Export: the transpose of a 3x4 tensor, no copy; the export keeps the storage alive. */
    int64_t sizes[2] = {3, 4};
    th_f32_tensor *a = th_f32_ones(2, sizes);
    th_f32_tensor *t = th_f32_transpose(a, 0, 1);
    DLManagedTensor *out = th_f32_to_dlpack(t);
    th_f32_release(t);
    th_f32_release(a);
    double sum = consumer_sum(out);
    printf("the consumer summed %g\n", sum);

    /* Import: the producer's memory becomes a tensor; its deleter runs when our last view goes. An import
     * always takes the managed tensor: on error the deleter has already run. */
    th_tensor *in = th_tensor_from_dlpack(producer_make());
    if (!in) {
        fprintf(stderr, "%s\n", th_last_error());
        return 1;
    }
    th_f64_tensor *d = th_f64_from_base(in);
    th_f64_tensor *col = th_f64_select(d, 1, 2);
    th_f64_release(d);
    th_print(stdout, col); /* tensor([2., 5.], dtype=f64) */
    int ok = sum == 12.0 && th_f64_get(col, (int64_t[]){1}) == 5.0;
    th_f64_release(col); /* the producer's deleter runs here */
    return ok ? 0 : 1;
}
