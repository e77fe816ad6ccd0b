/* docs/examples/shm_example.c: four processes filling one shared tensor (see docs/shm.md).
 *
 * The parent makes a 3x4 tensor and moves it into shared memory. Three workers each fill one row, reaching
 * the memory three ways: a forked child simply inherits the mapping (row 0); a worker receives its row as a
 * view, by descriptor over a Unix socket (row 1); a worker gets its row as a printable handle through a pipe
 * and opens it (row 2). Every write lands in the parent's tensor: nothing is copied.
 *
 * The tensor is shared with the name strategy so that it can have a printable handle; sending by descriptor
 * works for any shared tensor. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "th_shm.h"

static int fail(const char *what)
{
    fprintf(stderr, "%s: %s\n", what, th_last_error());
    return 1;
}

static int wait_ok(pid_t pid)
{
    int status;
    return pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(void)
{
    th_f32_tensor *t = th_f32_zeros(2, (int64_t[]){3, 4});
    if (th_storage_share_memory_with(th_f32_storage(t), TH_SHM_NAME) != 0) return fail("share");

    int sv[2], p[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) != 0 || pipe(p) != 0) return 1;

    /* Row 0: a forked child inherits the mapping. */
    pid_t inherits = fork();
    if (inherits == 0) {
        th_f32_tensor *row = th_f32_select(t, 0, 0);
        int rc = th_f32_fill(row, 1.0f) == 0 ? 0 : 1;
        th_f32_release(row);
        th_f32_release(t); /* an inherited mapping: only unmapped */
        _exit(rc);
    }

    /* Row 1: a worker receives a view by descriptor: its own mapping of the same memory. */
    pid_t by_fd = fork();
    if (by_fd == 0) {
        th_tensor *row = th_shm_recv_fd(sv[1]);
        int rc = row && th_f32_fill(th_f32_from_base(row), 2.0f) == 0 ? 0 : 1;
        th_tensor_release(row);
        th_f32_release(t);
        _exit(rc);
    }
    th_f32_tensor *row1 = th_f32_select(t, 0, 1);
    if (th_shm_send_fd(sv[0], th_f32_base(row1)) != 0) return fail("send");
    th_f32_release(row1);

    /* Row 2: a worker reads a handle from a pipe and opens it. */
    pid_t by_name = fork();
    if (by_name == 0) {
        char text[TH_SHM_HANDLE_MAX] = "";
        ssize_t n = read(p[0], text, sizeof text - 1);
        th_tensor *row = n > 0 ? th_shm_open_handle(text) : NULL;
        int rc = row && th_f32_fill(th_f32_from_base(row), 3.0f) == 0 ? 0 : 1;
        th_tensor_release(row);
        th_f32_release(t);
        _exit(rc);
    }
    th_f32_tensor *row2 = th_f32_select(t, 0, 2);
    char handle[TH_SHM_HANDLE_MAX];
    int n = th_shm_handle_encode(th_f32_base(row2), handle, sizeof handle);
    th_f32_release(row2);
    if (n < 0) return fail("encode");
    printf("row 2's handle: %s\n", handle);
    if (write(p[1], handle, (size_t)n) != n) return 1;

    int ok = wait_ok(inherits) && wait_ok(by_fd) && wait_ok(by_name);
    th_f32_print(stdout, t);
    printf("\n");
    for (int i = 0; i < 3; i++)
        for (int j = 0; j < 4; j++) ok = ok && th_f32_get(t, (int64_t[]){i, j}) == (float)(i + 1);
    th_f32_release(t); /* the last holder: the segment goes */
    printf("%s\n", ok ? "ok: four processes, one tensor" : "FAILED");
    return ok ? 0 : 1;
}
