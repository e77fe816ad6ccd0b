/* tests/cuda/ew_device_main.h: the main of the generated test_cuda_ew_device.c. */
int main(void)
{
    if (th_cuda_device_count() == 0) {
        const char *why = th_cuda_unavailable_reason();
        printf("SKIP: no usable CUDA device: %s\n", why ? why : "(no reason given)");
        return 77;
    }
    for (int i = 0; i < nchecks; i++) ew_checks[i]();
    printf("test_cuda_ew_device: %d ops x dtypes, %d comparisons, %d failed\n", nchecks, checks, failures);
    return failures ? 1 : 0;
}
