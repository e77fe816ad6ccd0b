/* tests/shm/shm_helper.c: the other process of the fork+exec tests.
 *
 *   shm_helper open <handle>        opens a name handle
 *   shm_helper recv <socket> [n]    receives n (default 1) tensors by descriptor on an inherited socket
 *   shm_helper send <socket>        makes a 2x3 f32 tensor 0..5, sends it by descriptor, waits for a byte back
 *   shm_helper fail <handle>        opens a handle that must fail; prints the error
 *
 * The tests fill a float storage with each element's own position (element k holds k), so every element of
 * any view over it must hold offset + sum(index[d] * stride[d]): a check that the dtype, shape, strides and
 * offset arrived intact. The helper then negates every element of what it received (minus one), so the parent
 * sees the writes of this process through its own tensors. Exit 0: all good; 1: a wrong element; 2: an error
 * (printed). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "th_shm.h"

/* Checks that element idx holds its storage position, then writes -(position) - 1 there. */
static int visit(th_f32_tensor *t, int dim, int64_t *idx)
{
    if (dim == th_f32_ndim(t)) {
        int64_t pos = th_f32_offset(t);
        for (int d = 0; d < dim; d++) pos += idx[d] * th_f32_stride(t, d);
        float v = th_f32_get(t, idx);
        if (v != (float)pos) {
            fprintf(stderr, "shm_helper: element at position %lld holds %g\n", (long long)pos, (double)v);
            return 1;
        }
        th_f32_set(t, idx, -(float)pos - 1.0f);
        return 0;
    }
    for (idx[dim] = 0; idx[dim] < th_f32_size(t, dim); idx[dim]++)
        if (visit(t, dim + 1, idx)) return 1;
    return 0;
}

static int check_and_negate(th_tensor *base)
{
    th_f32_tensor *t = th_f32_from_base(base);
    if (!t || !th_f32_is_shared(t)) {
        fprintf(stderr, "shm_helper: not a shared f32 tensor\n");
        return 2;
    }
    int64_t idx[TH_MAX_DIMS];
    return visit(t, 0, idx);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: shm_helper open|recv|send|fail ARG\n");
        return 2;
    }
    const char *mode = argv[1];
    if (strcmp(mode, "open") == 0 || strcmp(mode, "fail") == 0) {
        th_tensor *t = th_shm_open_handle(argv[2]);
        if (strcmp(mode, "fail") == 0) {
            printf("%s\n", th_last_error());
            th_tensor_release(t);
            return t ? 1 : 0;
        }
        if (!t) {
            fprintf(stderr, "shm_helper: %s\n", th_last_error());
            return 2;
        }
        int rc = check_and_negate(t);
        th_tensor_release(t);
        return rc;
    }
    int sock = atoi(argv[2]);
    if (strcmp(mode, "recv") == 0) {
        int n = argc > 3 ? atoi(argv[3]) : 1;
        for (int i = 0; i < n; i++) {
            th_tensor *t = th_shm_recv_fd(sock);
            if (!t) {
                fprintf(stderr, "shm_helper: %s\n", th_last_error());
                return 2;
            }
            int rc = check_and_negate(t);
            th_tensor_release(t);
            if (rc) return rc;
        }
        return 0;
    }
    if (strcmp(mode, "send") == 0) {
        th_f32_tensor *t = th_f32_empty(2, (const int64_t[]){2, 3});
        for (int i = 0; i < 6; i++) th_f32_data(t)[i] = (float)i;
        int rc = th_shm_send_fd(sock, th_f32_base(t));
        th_f32_release(t); /* the descriptor in flight keeps the memory */
        if (rc) {
            fprintf(stderr, "shm_helper: %s\n", th_last_error());
            return 2;
        }
        char byte;
        return read(sock, &byte, 1) == 1 ? 0 : 2;
    }
    fprintf(stderr, "shm_helper: unknown mode %s\n", mode);
    return 2;
}
