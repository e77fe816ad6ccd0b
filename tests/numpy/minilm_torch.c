/* tests/numpy/minilm_torch.c: docs/examples/minilm.h, the all-MiniLM-L6-v2 sentence encoder written with tensor.h,
 * against the same weights run by PyTorch (minilm_torch.py: the package's tokenizer, BERT's forward pass in
 * torch, float64) on a batch of real sentences of different lengths:
 *   - every embedding within 1e-4 of torch's (the bound of issue 16), the largest difference printed;
 *   - each embedding of unit length;
 *   - padding changes nothing: the shortest and the longest sentence encoded alone, without padding (a strided
 *     view of the ids), give the embeddings they had in the padded batch (1e-5);
 *   - the example program docs/examples/minilm.c (the path in argv[4]), run on the same .npy files, writes the
 *     same embeddings;
 *   - the errors a user meets: a missing model file, a file without the model's tensors, ids and mask of
 *     different shapes.
 * Usage: minilm_torch DIR PYTHON SCRIPT [MINILM_PROGRAM]. Skips (77) without torch or when the model package
 * can be neither imported nor installed. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../check.h"
#include "peer_files.h"
#include "../../docs/examples/minilm.h"

static char *path_in(const char *dir, const char *name)
{
    static char buf[4][4096];
    static int next;
    char *p = buf[next++ % 4];
    snprintf(p, sizeof buf[0], "%s/%s", dir, name);
    return p;
}

/* max |a - b| over two (B, 384) results, a f32, b f32 or f64 */
static double max_diff(const th_f32_tensor *a, const th_tensor *b)
{
    th_f64_tensor *b64 = th_f64_convert(b), *a64 = th_f64_convert((const th_tensor *)a);
    double worst = INFINITY;
    if (a64 && b64 && th_f64_numel(a64) == th_f64_numel(b64) && th_f64_ndim(a64) == th_f64_ndim(b64)) {
        th_f64_tensor *ac = th_f64_contiguous(a64), *bc = th_f64_contiguous(b64);
        worst = 0;
        for (int64_t i = 0; ac && bc && i < th_f64_numel(ac); i++) {
            double d = fabs(th_f64_data(ac)[i] - th_f64_data(bc)[i]);
            if (!(d <= worst)) worst = d; /* a NaN makes it NaN, which fails every bound */
        }
        th_release(ac), th_release(bc);
    }
    th_release(a64), th_release(b64);
    return worst;
}

int main(int argc, char **argv)
{
    int rc = peer_start(argc, argv, "minilm_torch", "PyTorch");
    if (rc >= 0) return rc;
    test_begin();
    const char *dir = argv[1];
    long n = 0;
    char *model = (char *)peer_read_all(path_in(dir, "model.txt"), &n);
    CHECK(model != NULL);
    if (!model) return 1;
    char model_path[4096];
    snprintf(model_path, sizeof model_path, "%.*s", (int)n, model);
    free(model);

    minilm *m = minilm_open(model_path);
    th_i64_tensor *ids = th_i64_from_base(th_tensor_load_npy(path_in(dir, "ids.npy")));
    th_i64_tensor *mask = th_i64_from_base(th_tensor_load_npy(path_in(dir, "mask.npy")));
    th_tensor *ref = th_tensor_load_npy(path_in(dir, "ref.npy"));
    CHECK(m && ids && mask && ref);
    if (!(m && ids && mask && ref)) return 1;

    th_f32_tensor *emb = minilm_encode(m, ids, mask);
    CHECK(emb != NULL);
    if (!emb) {
        fprintf(stderr, "minilm_encode: %s\n", th_last_error());
        return 1;
    }
    const int64_t B = th_i64_size(ids, 0);
    double d = max_diff(emb, ref);
    printf("%lld sentences of up to %lld tokens: largest difference from torch %.3g\n", (long long)B,
           (long long)th_i64_size(ids, 1), d);
    CHECK(d <= 1e-4);

    th_f32_tensor *len = th_f32_norm_dim(emb, 2.0, 1, false);
    for (int64_t i = 0; len && i < B; i++) CHECK(fabs(th_f32_get(len, (int64_t[]){i}) - 1.0) < 1e-5);
    CHECK(len != NULL);
    th_release(len);

    /* the shortest and the longest sentence alone, cut to their real tokens: no padding at all */
    double worst_alone = 0;
    int64_t shortest = 0, longest = 0, most = -1, least = INT64_MAX;
    for (int64_t i = 0; i < B; i++) {
        int64_t real = 0;
        for (int64_t j = 0; j < th_i64_size(mask, 1); j++) real += th_i64_get(mask, (int64_t[]){i, j});
        if (real < least) least = real, shortest = i;
        if (real > most) most = real, longest = i;
    }
    for (int64_t i = shortest;; i = longest) {
        int64_t real = 0;
        for (int64_t j = 0; j < th_i64_size(mask, 1); j++) real += th_i64_get(mask, (int64_t[]){i, j});
        th_i64_tensor *row = th_i64_narrow(ids, 0, i, 1), *mrow = th_i64_narrow(mask, 0, i, 1);
        th_i64_tensor *one = row ? th_i64_narrow(row, 1, 0, real) : NULL, *mone = mrow ? th_i64_narrow(mrow, 1, 0, real) : NULL;
        th_f32_tensor *alone = one && mone ? minilm_encode(m, one, mone) : NULL;
        th_f32_tensor *in_batch = th_f32_narrow(emb, 0, i, 1);
        double di = alone && in_batch ? max_diff(alone, (const th_tensor *)in_batch) : INFINITY;
        if (!(di <= worst_alone)) worst_alone = di;
        th_release(row), th_release(mrow), th_release(one), th_release(mone), th_release(alone), th_release(in_batch);
        if (i == longest) break;
    }
    printf("the shortest and the longest sentence alone, without padding: largest difference %.3g\n", worst_alone);
    CHECK(worst_alone <= 1e-5);

    /* the example program on the same files */
    if (argc > 4) {
        char *run[] = {argv[4], model_path, path_in(dir, "ids.npy"), path_in(dir, "mask.npy"),
                       path_in(dir, "out.npy"), NULL};
        CHECK(peer_spawn("minilm_torch", run) == 0);
        th_f32_tensor *out = th_f32_from_base(th_tensor_load_npy(path_in(dir, "out.npy")));
        double dp = out ? max_diff(out, (const th_tensor *)emb) : INFINITY;
        printf("docs/examples/minilm.c: largest difference from the test's own run %.3g\n", dp);
        CHECK(dp <= 1e-5);
        th_release(out);
    }

    /* errors: a missing file, a file without the model's tensors, ids and mask of different shapes */
    CHECK(minilm_open(path_in(dir, "no-such-model.safetensors")) == NULL);
    CHECK(th_last_status() == TH_ERR_IO);
    {
        th_f32_tensor *t = th_f32_zeros(1, (int64_t[]){4});
        const char *names[] = {"embeddings.word_embeddings.weight"};
        const th_tensor *ts[] = {(const th_tensor *)t};
        CHECK(th_safetensors_save(path_in(dir, "wrong.safetensors"), 1, names, ts, 0, NULL, NULL) == TH_OK);
        CHECK(minilm_open(path_in(dir, "wrong.safetensors")) == NULL); /* a 1-d word table: the wrong shape */
        th_release(t);
    }
    {
        th_i64_tensor *short_mask = th_i64_narrow(mask, 1, 0, 1);
        CHECK(minilm_encode(m, ids, short_mask) == NULL);
        th_release(short_mask);
    }

    th_release(emb), th_release(ids), th_release(mask), th_tensor_release(ref);
    minilm_close(m);
    return test_end("minilm_torch");
}
