/* tests/cuda/test_cuda_shared.c: a C program linked against the shared th_cuda and the shared libtensor, the
 * way a program of the compiled form uses the companion. It checks that both really are the shared libraries
 * (each symbol comes from its .so) and that they share one implementation: an error recorded inside
 * libth_cuda.so is the one the program reads from libtensor.so's thread-local state. Then the calls: on a device
 * a round trip through device memory; without one, each call that needs a device fails cleanly. Exits 0 in
 * both cases (the no-device path has as much to check here as the device one). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dladdr */
#endif
#include "tensor.h"
#include "th_cuda.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static int failures, checks;

#define CHECK(cond)                                                                                     \
    do {                                                                                                \
        checks++;                                                                                       \
        if (!(cond)) {                                                                                  \
            failures++;                                                                                 \
            printf("FAIL %s:%d: %s (last error: %s)\n", __FILE__, __LINE__, #cond, th_last_error());    \
        }                                                                                               \
    } while (0)

/* The file name of the shared object that defines the function at addr ("" when none does: linked in). */
static const char *object_of(void *addr)
{
    Dl_info info;
    if (!dladdr(addr, &info) || !info.dli_fname) return "";
    const char *slash = strrchr(info.dli_fname, '/');
    return slash ? slash + 1 : info.dli_fname;
}

/* dladdr takes a data pointer; a function's address is converted through an integer, as POSIX allows. */
#define FN_ADDR(f) ((void *)(uintptr_t)(f))

static int no_device(void)
{
    const char *why = th_cuda_unavailable_reason();
    printf("no usable CUDA device (%s): checking the error paths through the shared libraries\n",
           why ? why : "no reason given");
    CHECK(why != NULL && why[0] != '\0');
    /* Each call fails with TH_ERR_DEVICE, and its message, written by libth_cuda.so through libtensor.so's
     * th_set_error, is what the program reads: one implementation, one thread-local error. */
    CHECK(th_cuda_stream_new(0) == NULL && th_last_status() == TH_ERR_DEVICE &&
          strstr(th_last_error(), "th_cuda_stream_new") && strstr(th_last_error(), why));
    CHECK(th_cuda_set_device(0) == TH_ERR_DEVICE && strstr(th_last_error(), "th_cuda_set_device"));
    void *ctx = NULL;
    CHECK(th_cuda_allocator(0, &ctx) == NULL && strstr(th_last_error(), "th_cuda_allocator"));
    CHECK(th_cuda_host_allocator(&ctx) == NULL && th_last_status() == TH_ERR_DEVICE);
    th_cuda_memory_stats st;
    CHECK(th_cuda_get_memory_stats(0, &st) == TH_ERR_DEVICE);
    CHECK(th_f32_cuda_zeros(0, 1, (int64_t[]){4}) == NULL && strstr(th_last_error(), "th_f32_cuda_zeros"));
    th_f32_tensor *cpu = th_f32_arange(0, 6, 1);
    CHECK(cpu && th_f32_to_cuda(cpu, 0) == NULL && th_last_status() == TH_ERR_DEVICE);
    /* A copy between two CPU tensors needs no device: th_cuda_copy hands it to libtensor's th_tensor_copy. */
    th_f64_tensor *d = th_f64_zeros(1, (int64_t[]){6});
    CHECK(cpu && d && th_cuda_copy(th_f64_base(d), th_f32_base(cpu)) == TH_OK);
    CHECK(d && th_f64_get(d, (int64_t[]){5}) == 5.0);
    char handle[TH_CUDA_IPC_HANDLE_MAX];
    CHECK(th_cuda_ipc_open("thcuda/1:garbage") == NULL && th_last_status() == TH_ERR_INVALID);
    CHECK(cpu && th_cuda_ipc_encode(th_f32_base(cpu), handle, sizeof handle) == TH_ERR_DEVICE);
    th_f64_release(d);
    th_f32_release(cpu);
    return 0;
}

static void on_device(void)
{
    th_f32_tensor *cpu = th_f32_arange(0, 4096, 1);
    th_f32_tensor *dev = cpu ? th_f32_to_cuda(cpu, 0) : NULL;
    CHECK(dev && th_storage_device(th_f32_storage(dev)).type == TH_DEVICE_CUDA);
    th_f32_tensor *tr = dev ? th_f32_view(dev, 2, (int64_t[]){64, 64}) : NULL;
    th_f32_tensor *t = tr ? th_f32_transpose(tr, 0, 1) : NULL;
    th_f32_tensor *back = t ? th_f32_to_cpu(t) : NULL; /* a strided device copy, then to the host */
    CHECK(back && th_f32_get(back, (int64_t[]){3, 5}) == 5.0f * 64 + 3);
    th_f32_release(back);
    th_f32_release(t);
    th_f32_release(tr);
    th_f32_release(dev);
    th_f32_release(cpu);
    CHECK(th_cuda_empty_cache(0) == TH_OK);
}

int main(void)
{
    /* The program linked the shared forms: th_cuda's functions come from libth_cuda.so, tensor.h's from
     * libtensor.so (never from a copy of their own inside libth_cuda.so). */
    const char *cuda_so = object_of(FN_ADDR(th_cuda_device_count));
    const char *core_so = object_of(FN_ADDR(th_set_error));
    printf("th_cuda_device_count from %s, th_set_error from %s\n", cuda_so, core_so);
    CHECK(strncmp(cuda_so, "libth_cuda.so", 13) == 0);
    CHECK(strncmp(core_so, "libtensor.so", 12) == 0);
    void *in_cuda = dlopen(cuda_so, RTLD_NOW | RTLD_NOLOAD);
    /* libth_cuda.so defines none of tensor.h's functions: dlsym through its handle finds libtensor.so's. */
    CHECK(in_cuda && strncmp(object_of(dlsym(in_cuda, "th_tensor_copy")), "libtensor.so", 12) == 0);
    if (in_cuda) dlclose(in_cuda);

    int n = th_cuda_device_count();
    if (n == 0) {
        no_device();
    } else {
        on_device();
    }
    printf("test_cuda_shared: %d checks, %d device(s), %d failed\n", checks, n, failures);
    return failures ? 1 : 0;
}
