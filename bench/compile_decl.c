/* The "declarations only" row of the compile-time benchmark: what every user file but one pays. */
#include "tensor.h"

int64_t bench_numel(const th_f32_tensor *t)
{
    return th_f32_numel(t);
}
