/* th_cuda.h in a C11 translation unit with every warning an error, and no CUDA header anywhere: taking the
 * address of each declared function proves the declarations are well formed. */
#include "tensor.h"
#include "th_cuda.h"

const void *th_cuda_header_check_c11(void);
const void *th_cuda_header_check_c11(void)
{
    const void *volatile p[] = {
        (const void *)(size_t)&th_cuda_device_count,   (const void *)(size_t)&th_cuda_unavailable_reason,
        (const void *)(size_t)&th_cuda_set_device,     (const void *)(size_t)&th_cuda_current_device,
        (const void *)(size_t)&th_cuda_stream_new,     (const void *)(size_t)&th_cuda_stream_free,
        (const void *)(size_t)&th_cuda_default_stream, (const void *)(size_t)&th_cuda_current_stream,
        (const void *)(size_t)&th_cuda_set_current_stream, (const void *)(size_t)&th_cuda_stream_synchronize,
        (const void *)(size_t)&th_cuda_stream_wait,    (const void *)(size_t)&th_cuda_stream_device,
        (const void *)(size_t)&th_cuda_stream_handle,  (const void *)(size_t)&th_cuda_allocator,
        (const void *)(size_t)&th_cuda_host_allocator, (const void *)(size_t)&th_cuda_record_stream,
        (const void *)(size_t)&th_cuda_empty_cache,    (const void *)(size_t)&th_cuda_get_memory_stats,
        (const void *)(size_t)&th_cuda_empty,          (const void *)(size_t)&th_cuda_copy,
        (const void *)(size_t)&th_tensor_to_cuda,      (const void *)(size_t)&th_tensor_to_cpu,
        (const void *)(size_t)&th_tensor_to_pinned,    (const void *)(size_t)&th_cuda_ipc_encode,
        (const void *)(size_t)&th_cuda_ipc_open,       (const void *)(size_t)&th_f32_to_cuda,
        (const void *)(size_t)&th_bf16_cuda_full,      (const void *)(size_t)&th_c128_cuda_zeros_like,
        (const void *)(size_t)&th_bool_cuda_fill,
    };
    return p[0];
}
