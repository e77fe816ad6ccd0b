/* .npz archives: save two tensors in one archive (stored, so each loads back as a view of the mapped file),
 * list it, load one by name, compute, and save the result deflated where the build has zlib. Python reads both:
 * np.load("model.npz")["w"]. Build and run:
 *   cc -std=c11 -I. docs/examples/npz.c -lm -o npz && ./npz                  (stored members only)
 *   cc -std=c11 -I. -DTH_USE_ZLIB docs/examples/npz.c -lz -lm -o npz && ./npz (deflated ones too) */
#include <stdio.h>

#define TH_IMPLEMENTATION
/* Only the dtypes used here are stamped, which keeps this build fast (see TH_SELECT_DTYPES). */
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#define TH_WANT_I64
#include "tensor.h"

int main(void)
{
    th_f32_tensor *w = th_f32_full(2, (int64_t[]){2, 3}, 0.25f);
    th_i64_tensor *steps = th_i64_arange(0, 4, 1);
    const char *names[2] = {"w", "steps"};
    const th_tensor *tensors[2] = {th_f32_base(w), th_i64_base(steps)};
    int rc = th_npz_save("model.npz", 2, names, tensors, NULL); /* NULL: the defaults (stored) */
    th_i64_release(steps);
    th_f32_release(w);
    if (rc != TH_OK) {
        fprintf(stderr, "%s\n", th_last_error());
        return 1;
    }

    /* Opening reads the directory and each member's header, no data: the listing is there at once. */
    th_npz *z = th_npz_open("model.npz");
    if (!z) {
        fprintf(stderr, "%s\n", th_last_error());
        return 1;
    }
    for (int i = 0; i < th_npz_count(z); i++) {
        printf("%s: %s, %d dims (", th_npz_name(z, i), th_dtype_name(th_npz_dtype(z, i)), th_npz_ndim(z, i));
        for (int d = 0; d < th_npz_ndim(z, i); d++) printf(d ? " x %lld" : "%lld", (long long)th_npz_sizes(z, i)[d]);
        printf(")\n");
    }
    th_tensor *loaded = th_npz_get(z, "w");
    th_npz_close(z); /* the tensor keeps the mapping alive */
    th_f32_tensor *x = th_f32_from_base(loaded);
    if (!x) {
        fprintf(stderr, "%s\n", th_last_error());
        th_tensor_release(loaded);
        return 1;
    }
    printf("w: zero-copy: %s\n", th_storage_is_mapped(th_tensor_storage(loaded)) ? "a view of the mapped file"
                                                                                  : "copied");
    th_f32_tensor *doubled = th_f32_mul_scalar(x, 2.0f);
    th_print(stdout, doubled);

#ifdef TH_USE_ZLIB
    th_npz_save_options options = {.compress = true}; /* as np.savez_compressed */
#else
    th_npz_save_options options = {0};
#endif
    rc = th_npz_save("doubled.npz", 1, (const char *const[]){"w2"}, (const th_tensor *const[]){th_f32_base(doubled)},
                     &options);
    if (rc != TH_OK) fprintf(stderr, "%s\n", th_last_error());
    th_f32_release(doubled);
    th_tensor_release(loaded);
    remove("model.npz");
    remove("doubled.npz");
    return rc == TH_OK ? 0 : 1;
}
