/* Files: save a tensor as NumPy's .npy, load it back as a view of the mapped file, compute, save the result.
 * Python reads both: np.load("scaled.npy"). Build and run: cc -std=c11 -I. docs/examples/files.c -lm -o files && ./files */
#include <stdio.h>

#define TH_IMPLEMENTATION
/* Only the dtype used here is stamped, which keeps this build fast (see TH_SELECT_DTYPES). */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#include "tensor.h"

int main(void)
{
    th_f32_tensor *w = th_f32_arange(0, 6, 1);
    th_f32_tensor *m = th_f32_reshape(w, 2, (int64_t[]){2, 3});
    th_f32_tensor *mt = th_f32_transpose(m, 0, 1); /* column-major: written in Fortran order, as np.save would */
    if (!mt || th_tensor_save_npy("weights.npy", th_f32_base(mt)) != TH_OK) {
        fprintf(stderr, "%s\n", th_last_error());
        return 1;
    }

    /* The file's dtype comes back as a th_tensor; th_f32_from_base checks it and gives the typed handle. */
    th_tensor *loaded = th_tensor_load_npy("weights.npy");
    th_f32_tensor *x = th_f32_from_base(loaded);
    if (!x) {
        fprintf(stderr, "%s\n", th_last_error());
        return 1;
    }
    printf("loaded %s (zero-copy: %s)\n", th_dtype_name(th_tensor_dtype(loaded)),
           th_storage_is_mapped(th_tensor_storage(loaded)) ? "a view of the mapped file" : "copied");
    th_f32_tensor *scaled = th_f32_mul_scalar(x, 0.5f);
    th_print(stdout, scaled);
    int rc = th_tensor_save_npy("scaled.npy", th_f32_base(scaled));
    if (rc != TH_OK) fprintf(stderr, "%s\n", th_last_error());

    th_f32_release(scaled);
    th_tensor_release(loaded);
    th_f32_release(mt);
    th_f32_release(m);
    th_f32_release(w);
    remove("weights.npy");
    remove("scaled.npy");
    return rc == TH_OK ? 0 : 1;
}
