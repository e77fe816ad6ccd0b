/* tests/cuda/test_cuda_ew_table.c: prints the device's elementwise kernel table (cuda/ew_kernels.cu), one
 * "op dtype out_dtype nin" line per kernel, for check_ew_table.py to compare with the host's op list. The
 * table is filled in static initialisation, so this needs no GPU. */
#include "tensor.h"

#include "ew.h"

#include <stdio.h>

int main(void)
{
    int n = th__cuda_ew_count();
    if (n < 0) {
        printf("the kernel table overflowed its capacity\n");
        return 1;
    }
    for (int i = 0; i < n; i++) {
        const th__cuda_ew_kernel *k = th__cuda_ew_at(i);
        printf("%s %s %s %d\n", k->op, th_dtype_name((th_dtype)k->dtype), th_dtype_name((th_dtype)k->out_dtype),
               k->nin);
    }
    /* Lookups find each entry, and nothing else. */
    for (int i = 0; i < n; i++) {
        const th__cuda_ew_kernel *k = th__cuda_ew_at(i);
        if (th__cuda_ew_find(k->op, k->dtype) != k) {
            printf("lookup of %s %d found another entry\n", k->op, k->dtype);
            return 1;
        }
    }
    if (th__cuda_ew_find("no_such_op", TH_F32) || th__cuda_ew_find("add", TH_C64)) {
        printf("lookup found a kernel that does not exist\n");
        return 1;
    }
    return 0;
}
