/* tests/numpy/promote_torch.c: th_promote_types and th_result_type against PyTorch's table
 * (promote_torch.py writes it from torch.promote_types, torch.result_type and torch.addcmul): every pair of the
 * 12 dtypes, every pair as tensors with and without dims, and 3-tensor cases. Usage: promote_torch DIR PYTHON
 * SCRIPT; skips (77) without /usr/bin/python3 or torch. */
#define _POSIX_C_SOURCE 200809L
#define TH_FILES_OWN_TU
#include "../check.h"
#include "peer_files.h"

static th_dtype dtype_named(const char *name)
{
    for (int d = 0; d < TH_NUM_DTYPES; d++)
        if (strcmp(th_dtype_name((th_dtype)d), name) == 0) return (th_dtype)d;
    return TH_DTYPE_INVALID;
}

int main(int argc, char **argv)
{
    int rc = peer_start(argc, argv, "promote_torch", "PyTorch");
    if (rc >= 0) return rc;
    test_begin();
    char path[4096];
    snprintf(path, sizeof path, "%s/promote.txt", argv[1]);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    if (!f) return test_end("promote_torch");
    char line[256];
    long promotes = 0, results = 0;
    while (fgets(line, sizeof line, f)) {
        char *words[5];
        int n = 0;
        for (char *w = strtok(line, " \n"); w && n < 5; w = strtok(NULL, " \n")) words[n++] = w;
        if (n == 4 && strcmp(words[0], "promote") == 0) {
            th_dtype a = dtype_named(words[1]), b = dtype_named(words[2]), want = dtype_named(words[3]);
            th_dtype got = th_promote_types(a, b);
            if (got != want) fprintf(stderr, "promote %s %s: %s, torch %s\n", words[1], words[2], th_dtype_name(got), words[3]);
            CHECK(got == want && a != TH_DTYPE_INVALID);
            promotes++;
        } else if ((n == 4 || n == 5) && strcmp(words[0], "result") == 0) {
            th_tensor *ts[3] = {NULL, NULL, NULL};
            int k = n - 2;
            for (int i = 0; i < k; i++) {
                char *colon = strchr(words[1 + i], ':');
                CHECK(colon != NULL);
                if (!colon) break;
                *colon = '\0';
                /* a tensor of that dtype with 0 or 1 dims (2 elements): its values never matter */
                th_storage *st = th_storage_new(64, NULL, NULL);
                ts[i] = th_tensor_new_with_storage(dtype_named(words[1 + i]), st, 0, atoi(colon + 1), (int64_t[]){2}, NULL);
                th_storage_release(st);
                CHECK(ts[i] != NULL);
            }
            th_dtype want = dtype_named(words[n - 1]);
            th_dtype got = th_result_type(k, (const th_tensor *const *)ts);
            if (got != want) {
                fprintf(stderr, "result of");
                for (int i = 0; i < k; i++)
                    fprintf(stderr, " %s:%d", th_dtype_name(th_tensor_dtype(ts[i])), th_tensor_ndim(ts[i]));
                fprintf(stderr, ": %s, torch %s\n", th_dtype_name(got), th_dtype_name(want));
            }
            CHECK(got == want && want != TH_DTYPE_INVALID);
            for (int i = 0; i < k; i++) th_tensor_release(ts[i]);
            results++;
        } else {
            fprintf(stderr, "promote_torch: a line it cannot read\n");
            CHECK(0);
        }
    }
    fclose(f);
    CHECK_INT_EQ(promotes, 144);
    CHECK(results >= 576);
    printf("promote_torch: %ld pairs of dtypes, %ld result types\n", promotes, results);
    return test_end("promote_torch");
}
