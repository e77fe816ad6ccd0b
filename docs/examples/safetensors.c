/* safetensors: save two tensors and metadata as the safetensors package would, list the file without reading
 * its data, load one tensor by name as a view of the mapped file, compute, and save the result as .npy.
 * Python reads both: safetensors.numpy.load_file("model.safetensors"), np.load("scaled.npy").
 * Build and run: cc -std=c11 -I. docs/examples/safetensors.c -lm -o st && ./st */
#include <stdio.h>

#define TH_IMPLEMENTATION
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#define TH_WANT_I64
#include "tensor.h"

int main(void)
{
    th_f32_tensor *line = th_f32_arange(0, 6, 1);
    th_f32_tensor *w = th_f32_reshape(line, 2, (int64_t[]){2, 3}); /* a view: line's storage, its own header */
    th_f32_release(line);
    th_i64_tensor *steps = th_i64_full(0, NULL, 1000);
    const char *names[2] = {"layer.weight", "steps"};
    const th_tensor *tensors[2] = {th_f32_base(w), th_i64_base(steps)};
    const char *key = "format", *value = "pt";
    if (th_safetensors_save("model.safetensors", 2, names, tensors, 1, &key, &value) != TH_OK) {
        fprintf(stderr, "%s\n", th_last_error());
        return 1;
    }

    th_safetensors *f = th_safetensors_open("model.safetensors");
    if (!f) {
        fprintf(stderr, "%s\n", th_last_error());
        return 1;
    }
    printf("metadata format = %s\n", th_safetensors_metadata_get(f, "format"));
    for (int i = 0; i < th_safetensors_count(f); i++) { /* the index only: no tensor data read */
        printf("%-13s %-4s [", th_safetensors_name(f, i), th_safetensors_dtype_name(f, i));
        for (int d = 0; d < th_safetensors_ndim(f, i); d++) printf(d ? ", %lld" : "%lld", (long long)th_safetensors_sizes(f, i)[d]);
        printf("]\n");
    }
    th_tensor *loaded = th_safetensors_get(f, "layer.weight");
    th_safetensors_close(f); /* the tensor keeps the mapping */
    th_f32_tensor *x = th_f32_from_base(loaded);
    if (!x) {
        fprintf(stderr, "%s\n", th_last_error());
        return 1;
    }
    printf("zero-copy: %s\n", th_storage_is_mapped(th_tensor_storage(loaded)) ? "a view of the mapped file" : "copied");
    th_f32_tensor *scaled = th_f32_mul_scalar(x, 0.5f);
    th_print(stdout, scaled);
    int rc = th_tensor_save_npy("scaled.npy", th_f32_base(scaled));
    if (rc != TH_OK) fprintf(stderr, "%s\n", th_last_error());

    th_f32_release(scaled);
    th_tensor_release(loaded);
    th_i64_release(steps);
    th_f32_release(w);
    remove("model.safetensors");
    remove("scaled.npy");
    return rc == TH_OK ? 0 : 1;
}
