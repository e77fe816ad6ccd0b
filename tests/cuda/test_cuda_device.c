/* tests/cuda/test_cuda_device.c: the companion on a real device: devices, streams, copies of every dtype pair
 * between host and device against th_tensor_copy. A plain C program linked against th_cuda; without a usable
 * device it says why and exits 77, Meson's skip. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* fork, waitpid */
#endif
#include "tensor.h"
#include "th_cuda.h"

#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int failures, checks;

#define CHECK(cond)                                                                                     \
    do {                                                                                                \
        checks++;                                                                                       \
        if (!(cond)) {                                                                                  \
            failures++;                                                                                 \
            printf("FAIL %s:%d: %s (last error: %s)\n", __FILE__, __LINE__, #cond, th_last_error());    \
        }                                                                                               \
    } while (0)

int main(void)
{
    setvbuf(stdout, NULL, _IONBF, 0); /* what was checked before a crash is in the log */
    /* A child forked after the companion's first use refuses every call, saying why, device or not. */
    CHECK(th_cuda_init() == TH_OK);
    pid_t child = fork();
    if (child == 0) {
        const bool refused = th_cuda_init() == TH_ERR_DEVICE && strstr(th_last_error(), "forked child") != NULL &&
                             th_cuda_device_count() == 0 && th_cuda_set_device(0) == TH_ERR_DEVICE &&
                             strstr(th_last_error(), "th_cuda_set_device") != NULL;
        _exit(refused ? 0 : 1);
    }
    int child_status = -1;
    CHECK(child > 0 && waitpid(child, &child_status, 0) == child && WIFEXITED(child_status) &&
          WEXITSTATUS(child_status) == 0);
    CHECK(th_cuda_init() == TH_OK); /* the parent is unaffected */
    int n = th_cuda_device_count();
    if (n == 0) {
        const char *why = th_cuda_unavailable_reason();
        printf("SKIP: no usable CUDA device: %s\n", why ? why : "(no reason given)");
        /* Even without a device, the calls that need one must fail cleanly, naming themselves. */
        CHECK(th_cuda_stream_new(0) == NULL && strstr(th_last_error(), "th_cuda_stream_new") != NULL);
        CHECK(th_cuda_set_device(0) == TH_ERR_DEVICE);
        CHECK(th_cuda_current_stream(0) == NULL);
        if (failures) return 1;
        return 77;
    }
    /* Devices and streams. */
    CHECK(th_cuda_set_device(n) == TH_ERR_RANGE);
    CHECK(th_cuda_set_device(0) == TH_OK);
    CHECK(th_cuda_current_device() == 0);
    th_cuda_stream *s = th_cuda_stream_new(0);
    CHECK(s != NULL);
    CHECK(th_cuda_stream_device(s) == 0);
    CHECK(th_cuda_current_stream(0) == th_cuda_default_stream(0));
    CHECK(th_cuda_set_current_stream(s) == TH_OK);
    CHECK(th_cuda_current_stream(0) == s);
    CHECK(th_cuda_stream_wait(s, th_cuda_default_stream(0)) == TH_OK);
    CHECK(th_cuda_stream_synchronize(s) == TH_OK);
    CHECK(th_cuda_set_current_stream(NULL) == TH_OK);
    CHECK(th_cuda_current_stream(0) == th_cuda_default_stream(0));
    CHECK(th_cuda_stream_free(s) == TH_OK);

    /* Tensors: every dtype pair from the CPU to the device (strided, converted) and back, against the CPU's
     * own th_tensor_copy. */
    int64_t sz[2] = {5, 7};
    th_f64_tensor *base = th_f64_empty(2, sz);
    double *bd = th_f64_data(base);
    for (int i = 0; i < 35; i++) bd[i] = (double)(i * 37 % 101) - 50.5;
    th_f64_tensor *tr = th_f64_transpose(base, 0, 1); /* a strided source */
    for (int a = 0; a < TH_NUM_DTYPES; a++) {
        for (int b = 0; b < TH_NUM_DTYPES; b++) {
            th_tensor *cpu_a = th_cuda_empty((th_dtype)a, 0, 2, (int64_t[]){7, 5});
            th_tensor *host_a = th_tensor_to_cpu(cpu_a); /* a CPU tensor of dtype a, to hold tr converted */
            CHECK(host_a && th_tensor_copy(host_a, th_f64_base(tr)) == TH_OK);
            th_tensor *dev = th_tensor_to_cuda(host_a, 0);
            th_tensor *dev_b = th_cuda_empty((th_dtype)b, 0, 2, (int64_t[]){7, 5});
            CHECK(dev && dev_b && th_cuda_copy(dev_b, dev) == TH_OK); /* converted on the device */
            th_tensor *back = th_tensor_to_cpu(dev_b);
            th_tensor *want = th_tensor_to_cpu(dev_b); /* same shape and dtype b, overwritten below */
            CHECK(back && want && th_tensor_copy(want, host_a) == TH_OK);
            size_t n = 35 * th_dtype_info((th_dtype)b)->size;
            CHECK(back && want && memcmp(th_tensor_data(back), th_tensor_data(want), n) == 0);
            th_tensor_release(want);
            th_tensor_release(back);
            th_tensor_release(dev_b);
            th_tensor_release(dev);
            th_tensor_release(host_a);
            th_tensor_release(cpu_a);
        }
    }
    /* Transposes on the device (cuda/copy_kernels.cu's tiled kernel): every element size it moves, tiles whole
     * and cut by the edges, one batch dim, against the CPU's copy of the same view. */
    static const th_dtype tdt[5] = {TH_U8, TH_I16, TH_F32, TH_F64, TH_C128};
    static const int64_t tshape[6][3] = {{1, 130, 67}, {1, 64, 128}, {3, 70, 65}, {2, 1, 1}, {1, 200, 64}, {1, 0, 9}};
    for (int d = 0; d < 5; d++) {
        for (int k = 0; k < 6; k++) {
            const int64_t *sh = tshape[k];
            const int64_t count = sh[0] * sh[1] * sh[2];
            /* Values that differ at every position (modulo the dtype's range): a misplaced element shows. */
            th_f64_tensor *vals = th_f64_empty(3, sh);
            for (int64_t i = 0; i < count; i++) th_f64_data(vals)[i] = (double)((i * 7919) % 251) + (double)i / 1024.0;
            th_tensor *dev_src = th_cuda_empty(tdt[d], 0, 3, sh);
            th_tensor *host_src = dev_src ? th_tensor_to_cpu(dev_src) : NULL;
            CHECK(host_src && th_tensor_copy(host_src, th_f64_base(vals)) == TH_OK);
            th_tensor_release(dev_src);
            dev_src = host_src ? th_tensor_to_cuda(host_src, 0) : NULL;
            /* The view (b, j, i) of a (b, i, j) tensor: its last two dims swapped. */
            const int64_t vsz[3] = {sh[0], sh[2], sh[1]}, vst[3] = {sh[1] * sh[2], 1, sh[2]};
            th_tensor *dev_view = dev_src ? th_tensor_new_with_storage(tdt[d], th_tensor_storage(dev_src), 0, 3, vsz, vst)
                                          : NULL;
            th_tensor *host_view = host_src ? th_tensor_new_with_storage(tdt[d], th_tensor_storage(host_src), 0, 3, vsz, vst)
                                            : NULL;
            th_tensor *dev_dst = th_cuda_empty(tdt[d], 0, 3, vsz);
            CHECK(dev_view && host_view && dev_dst && th_cuda_copy(dev_dst, dev_view) == TH_OK);
            th_tensor *got = dev_dst ? th_tensor_to_cpu(dev_dst) : NULL;
            th_tensor *want = got ? th_tensor_to_cpu(dev_dst) : NULL; /* same shape and dtype, overwritten */
            CHECK(got && want && th_tensor_copy(want, host_view) == TH_OK);
            const size_t nb = (size_t)count * th_dtype_info(tdt[d])->size;
            const bool same = got && want && (nb == 0 || memcmp(th_tensor_data(got), th_tensor_data(want), nb) == 0);
            CHECK(same);
            if (!same) printf("  the transpose of dtype %d, shape (%lld, %lld, %lld) differs\n", (int)tdt[d],
                              (long long)sh[0], (long long)sh[1], (long long)sh[2]);
            th_tensor_release(want);
            th_tensor_release(got);
            th_tensor_release(dev_dst);
            th_tensor_release(host_view);
            th_tensor_release(dev_view);
            th_tensor_release(dev_src);
            th_tensor_release(host_src);
            th_f64_release(vals);
        }
    }
    /* Pageable host memory to the device and back through two pinned chunks (cuda/tensor.c: contiguous copies
     * of at least 8 MiB): a size that ends inside the third 32 MiB chunk, against the source byte for byte;
     * then the same through pinned memory (a direct DMA) for comparison. */
    {
        const int64_t big = ((int64_t)70 << 20) / 4 + 3;
        th_f32_tensor *h = th_f32_empty(1, &big);
        float *hd = h ? th_f32_data(h) : NULL;
        for (int64_t i = 0; hd && i < big; i++) hd[i] = (float)(i % 1000003) * 0.5f - (float)(i & 7);
        th_f32_tensor *d = h ? th_f32_to_cuda(h, 0) : NULL;
        th_f32_tensor *back = th_f32_empty(1, &big);
        CHECK(d && back && th_cuda_copy(th_f32_base(back), th_f32_base(d)) == TH_OK);
        CHECK(d && back && memcmp(th_f32_data(back), hd, (size_t)big * sizeof(float)) == 0);
        th_f32_tensor *pinned_back = d ? th_f32_to_pinned(d) : NULL;
        CHECK(pinned_back && memcmp(th_f32_data(pinned_back), hd, (size_t)big * sizeof(float)) == 0);
        th_f32_release(pinned_back);
        th_f32_release(back);
        th_f32_release(d);
        th_f32_release(h);
    }
    /* Typed doors, fills, _like on the device, pinned memory, statistics. */
    th_f32_tensor *z = th_f32_cuda_full(0, 2, sz, 2.5f);
    th_f32_tensor *zl = z ? th_f32_cuda_zeros_like(z) : NULL;
    CHECK(z && zl);
    th_f32_tensor *zc = z ? th_f32_to_cpu(z) : NULL;
    CHECK(zc && th_f32_get(zc, (int64_t[]){4, 6}) == 2.5f);
    CHECK(zl && th_f32_cuda_fill(zl, -1.0f) == TH_OK);
    th_f32_tensor *pinned = zl ? th_f32_to_pinned(zl) : NULL;
    CHECK(pinned && th_storage_device(th_f32_storage(pinned)).type == TH_DEVICE_CUDA_HOST);
    CHECK(pinned && th_f32_get(pinned, (int64_t[]){0, 0}) == -1.0f);
    CHECK(th_f32_cuda_full(n, 1, sz, 1.0f) == NULL && th_last_status() == TH_ERR_RANGE);
    CHECK(th_f32_fill(z, 1.0f) == TH_ERR_DEVICE); /* the host refuses device memory */
    th_cuda_memory_stats st;
    CHECK(th_cuda_get_memory_stats(0, &st) == TH_OK && st.allocations[TH_CUDA_POOL_ALL].current >= 2);
    /* IPC within the process (the producer's own pointer comes back) and DLPack to another stream. */
    char handle[TH_CUDA_IPC_HANDLE_MAX];
    CHECK(z && th_cuda_ipc_encode(th_f32_base(z), handle, sizeof handle) > 0);
    th_tensor *opened = th_cuda_ipc_open(handle);
    CHECK(opened && th_tensor_data(opened) == th_f32_data(z));
    th_tensor_release(opened);
    th_cuda_stream *consumer = th_cuda_stream_new(0);
    DLManagedTensor *m = z ? th_cuda_to_dlpack(th_f32_base(z), consumer) : NULL;
    CHECK(m != NULL && m->dl_tensor.device.device_type == kDLCUDA);
    th_tensor *back_in = m ? th_tensor_from_dlpack(m) : NULL;
    CHECK(back_in && th_tensor_data(back_in) == th_f32_data(z) &&
          th_storage_device(th_tensor_storage(back_in)).type == TH_DEVICE_CUDA);
    th_tensor_release(back_in);
    th_cuda_stream_free(consumer);
    th_f32_release(pinned);
    th_f32_release(zc);
    th_f32_release(zl);
    th_f32_release(z);
    CHECK(th_cuda_empty_cache(0) == TH_OK);
    th_f64_release(tr);
    th_f64_release(base);
    printf("test_cuda_device: %d checks on %d device(s), %d failed\n", checks, n, failures);
    return failures ? 1 : 0;
}
