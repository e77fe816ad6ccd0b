/* bench/files_bench.c: the safetensors reader and writer against the machine's own limit (bench/files_run.sh
 * prints the table, with the Python peers' rows from bench/files_peer.py).
 *
 * Usage: files_bench DIR BIG. Writes DIR/small.safetensors (1 MiB) and DIR/big.safetensors (BIG bytes), each 100
 * f32 tensors t000..t099, through th_safetensors_save; prints one `key value` line a row:
 *   open_get_small / open_get_big   us: th_safetensors_open + th_safetensors_get("t050") + close, release; best of 31
 *   save_big                        ms: th_safetensors_save of the 100 tensors of BIG bytes; best of 5
 *   write_big                       ms: write(2) of the same bytes (the one buffer, in 8 MiB calls) to a new file in
 *                                   DIR, then fsync-free close, as save does; best of 5 */
#define _DEFAULT_SOURCE /* sync */
#define _POSIX_C_SOURCE 200809L
#define TH_IMPLEMENTATION
#define TH_SELECT_DTYPES
#define TH_WANT_F32
#include "tensor.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

enum { NT = 100 };

/* 100 f32 tensors t000..t099 of bytes/100 bytes each (rounded to whole floats), narrowed out of one whole. */
typedef struct set {
    th_f32_tensor *whole, *parts[NT];
    char names[NT][8];
    const char *np[NT];
    const th_tensor *ts[NT];
} set;

static int make_set(set *s, int64_t bytes)
{
    int64_t per = bytes / NT / 4, total = per * NT;
    s->whole = th_f32_empty(1, &total);
    if (!s->whole) return 1;
    float *d = th_f32_data(s->whole);
    for (int64_t i = 0; i < total; i++) d[i] = (float)(i % 1000) * 0.5f;
    for (int k = 0; k < NT; k++) {
        s->parts[k] = th_f32_narrow(s->whole, 0, k * per, per);
        snprintf(s->names[k], sizeof s->names[k], "t%03d", k);
        s->np[k] = s->names[k];
        s->ts[k] = th_f32_base(s->parts[k]);
    }
    return 0;
}

static void free_set(set *s)
{
    for (int k = 0; k < NT; k++) th_f32_release(s->parts[k]);
    th_f32_release(s->whole);
}

static int save_set(const set *s, const char *path) { return th_safetensors_save(path, NT, s->np, s->ts, 0, NULL, NULL); }

static double best_open_get(const char *path, int reps)
{
    double best = 1e9;
    for (int r = 0; r < reps; r++) {
        double t0 = now();
        th_safetensors *f = th_safetensors_open(path);
        th_tensor *t = f ? th_safetensors_get(f, "t050") : NULL;
        th_safetensors_close(f);
        volatile float x = t ? ((const float *)th_tensor_data(t))[7] : 0.0f;
        (void)x;
        th_tensor_release(t);
        double dt = now() - t0;
        if (!t) return -1;
        if (dt < best) best = dt;
    }
    return best;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: %s DIR BIG\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1];
    int64_t big = atoll(argv[2]);
    char small_path[4096], big_path[4096], raw_path[4096];
    snprintf(small_path, sizeof small_path, "%s/small.safetensors", dir);
    snprintf(big_path, sizeof big_path, "%s/big.safetensors", dir);
    snprintf(raw_path, sizeof raw_path, "%s/raw.bin", dir);
    static set small_set, big_set;
    if (make_set(&small_set, (int64_t)1 << 20) || save_set(&small_set, small_path) || make_set(&big_set, big) ||
        save_set(&big_set, big_path)) {
        fprintf(stderr, "files_bench: %s\n", th_last_error());
        return 1;
    }
    free_set(&small_set);
    double small = best_open_get(small_path, 31), large = best_open_get(big_path, 31);
    if (small < 0 || large < 0) {
        fprintf(stderr, "files_bench: %s\n", th_last_error());
        return 1;
    }
    printf("open_get_small %.1f\nopen_get_big %.1f\n", small * 1e6, large * 1e6);

    double best_save = 1e9, best_write = 1e9;
    const char *bytes = (const char *)th_f32_data(big_set.whole);
    size_t nbytes = (size_t)th_f32_numel(big_set.whole) * 4;
    for (int r = 0; r < 5; r++) {
        sync(); /* each timed write starts with no dirty pages left by the one before (writeback throttling) */
        double t0 = now();
        if (save_set(&big_set, big_path)) {
            fprintf(stderr, "files_bench: %s\n", th_last_error());
            return 1;
        }
        double t1 = now();
        sync();
        double t1s = now();
        int fd = open(raw_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd < 0) return 1;
        for (size_t done = 0; done < nbytes;) {
            size_t n = nbytes - done < ((size_t)8 << 20) ? nbytes - done : ((size_t)8 << 20);
            ssize_t w = write(fd, bytes + done, n);
            if (w <= 0) return 1;
            done += (size_t)w;
        }
        close(fd);
        double t2 = now();
        if (t1 - t0 < best_save) best_save = t1 - t0;
        if (t2 - t1s < best_write) best_write = t2 - t1s;
    }
    printf("save_big %.1f\nwrite_big %.1f\n", best_save * 1e3, best_write * 1e3);
    unlink(raw_path);
    free_set(&big_set);
    return 0;
}
