/* The floor of the compile-time benchmark: the compiler starting up and reading the standard headers
 * that tensor.h itself includes, with no tensor.h at all. */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

int64_t bench_floor(const int64_t *p)
{
    return p ? *p : 0;
}
