/* A sentence encoder in C: all-MiniLM-L6-v2's weights loaded from its model.safetensors (mapped, not copied),
 * a batch of token ids from .npy files, the embeddings saved as .npy. The model itself is minilm.h.
 *
 *   minilm MODEL.safetensors IDS.npy MASK.npy OUT.npy [REPEAT]
 *
 * IDS and MASK are (B, L) int64, as a BERT tokenizer gives them (input_ids, attention_mask); OUT gets (B, 384)
 * float32. With REPEAT, the batch is encoded that many times and the best time printed (bench/minilm_run.sh).
 * The test suite runs it on real sentences against PyTorch (tests/numpy/minilm_torch.c).
 * Build: cc -std=c11 -O2 -I. docs/examples/minilm.c -lm (plus -DTH_USE_CBLAS and OpenBLAS for speed) */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#define TH_IMPLEMENTATION
#define TH_SELECT_DTYPES /* only what the model needs is stamped: a faster build */
#define TH_WANT_F32
#define TH_WANT_I64
#define TH_WANT_BOOL
#include <time.h>

#include "minilm.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: %s MODEL.safetensors IDS.npy MASK.npy OUT.npy [REPEAT]\n", argv[0]);
        return 2;
    }
    int repeat = argc == 6 ? atoi(argv[5]) : 1;
    minilm *m = minilm_open(argv[1]);
    th_i64_tensor *ids = th_i64_from_base(th_tensor_load_npy(argv[2]));
    th_i64_tensor *mask = th_i64_from_base(th_tensor_load_npy(argv[3]));
    th_f32_tensor *emb = NULL;
    double best = INFINITY;
    for (int r = 0; m && ids && mask && r < (repeat > 0 ? repeat : 1); r++) {
        th_release(emb);
        double t0 = now();
        emb = minilm_encode(m, ids, mask);
        if (!emb) break;
        if (now() - t0 < best) best = now() - t0;
    }
    int ok = emb && th_tensor_save_npy(argv[4], (const th_tensor *)emb) == TH_OK;
    if (!ok) fprintf(stderr, "minilm: %s\n", th_last_error());
    else if (repeat > 1) printf("encode %.3f ms\n", best * 1e3);
    th_release(emb), th_release(ids), th_release(mask);
    minilm_close(m);
    return ok ? 0 : 1;
}
