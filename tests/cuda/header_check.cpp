// th_cuda.h in C++ (built once per standard from C++11 to C++20), with no CUDA header anywhere.
#include "tensor.h"
#include "th_cuda.h"

bool th_cuda_header_check_cxx();
bool th_cuda_header_check_cxx()
{
    int (*count)(void) = th_cuda_device_count;
    th_cuda_stream *(*make)(int) = th_cuda_stream_new;
    return count == nullptr || make == nullptr;
}
