// libtorch's counterpart of compile_decl.c: what a file that uses the C++ API pays to include it.
#include <torch/torch.h>

int64_t bench_numel(const torch::Tensor &t)
{
    return t.numel();
}
