/* docs/examples/cuda_devices.c: devices and streams of the CUDA companion (docs/cuda.md). Built by the test
 * suite where nvcc is found; on a machine without a GPU it says why and exits 77 (a skip). */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#define TH_IMPLEMENTATION
#include "tensor.h"
#include "th_cuda.h"

int main(void)
{
    int n = th_cuda_device_count(); /* 0, never an error, without a driver or a GPU */
    if (n == 0) {
        printf("no usable CUDA device: %s\n", th_cuda_unavailable_reason());
        return 77;
    }
    th_cuda_stream *s = th_cuda_stream_new(0);
    if (!s) {
        fprintf(stderr, "%s\n", th_last_error());
        return 1;
    }
    th_cuda_set_current_stream(s); /* this thread's work on device 0 now goes to s */
    th_cuda_stream_wait(s, th_cuda_default_stream(0));
    int status = th_cuda_stream_synchronize(s);
    printf("%d device(s); stream on device %d synchronised: %s\n", n, th_cuda_stream_device(s),
           status == TH_OK ? "ok" : th_last_error());
    th_cuda_set_current_stream(NULL);
    th_cuda_stream_free(s);
    return status == TH_OK ? 0 : 1;
}
