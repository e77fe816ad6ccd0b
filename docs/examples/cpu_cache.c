/* The CPU allocator's cache of large blocks (docs/core.md, "The cache of large blocks"): a loop that makes a
 * large intermediate result each step gets its pages back warm, and the program decides how much memory the
 * cache may keep. Build and run: cc -std=c11 -I. docs/examples/cpu_cache.c -lm -o cpu_cache && ./cpu_cache */
#define TH_IMPLEMENTATION
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#include "tensor.h"

#include <stdio.h>

int main(void)
{
    /* At most 256 MiB kept; the default is 1 GiB or an eighth of the machine's memory. */
    if (th_cpu_cache_set_limit((int64_t)256 << 20) != TH_OK) {
        fprintf(stderr, "%s\n", th_last_error());
        return 1;
    }
    int64_t n = 4 << 20; /* 16 MiB of f32 */
    th_f32_tensor *x = th_f32_full(1, &n, 0.5f);
    if (!x) {
        fprintf(stderr, "%s\n", th_last_error());
        return 1;
    }
    double total = 0;
    for (int step = 0; step < 10; step++) {
        th_f32_tensor *y = th_f32_exp(x); /* a fresh 16 MiB result each step... */
        th_f32_tensor *s = y ? th_f32_sum_all(y) : NULL;
        if (!s) {
            fprintf(stderr, "%s\n", th_last_error());
            th_f32_release(y);
            th_f32_release(x);
            return 1;
        }
        total += (double)th_f32_data(s)[0];
        th_f32_release(s);
        th_f32_release(y); /* ...whose block goes back to the cache here */
    }
    th_cpu_cache_stats st = th_cpu_cache_get_stats();
    printf("sum %.6g; large blocks: %lld from the cache, %lld from the system; %lld bytes held\n", total,
           (long long)st.hits, (long long)st.misses, (long long)st.held_bytes);
    int ok = st.hits >= 9 && st.held_bytes <= st.limit;
    th_cpu_cache_empty(); /* give the memory back, e.g. before a phase that needs it elsewhere */
    th_f32_release(x);
    return ok ? 0 : 1;
}
