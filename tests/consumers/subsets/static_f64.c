/* A TU that needs a dtype the program's implementation TU does not stamp keeps a private copy of the library,
 * stamped for what it needs: TH_STATIC makes every function of this TU static, so nothing clashes at link time.
 * Its tensors belong to its copy: hand them only to this file's functions (and its error and allocator state is
 * its own). */
#define TH_STATIC
#define TH_SELECT_DTYPES
#define TH_WANT_F64
#include "tensor.h"

double f64_private_sum(void);

double f64_private_sum(void)
{
    th_f64_tensor *t = th_f64_full(1, (int64_t[]){4}, 0.25);
    double s = 0;
    for (int64_t i = 0; t && i < 4; i++)
        s += th_f64_get(t, (int64_t[]){i});
    th_f64_release(t);
    return s;
}
