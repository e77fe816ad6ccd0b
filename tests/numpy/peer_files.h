/* tests/numpy/peer_files.h: what the file-format peer tests (npy_files.c, safetensors_files.c) share: running
 * their Python side, reading a whole file, and a C-contiguous copy through the library's own copy. Include it
 * after check.h, with _POSIX_C_SOURCE 200809L defined first (posix_spawn). */
#ifndef TH_TESTS_PEER_FILES_H
#define TH_TESTS_PEER_FILES_H

#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>

extern char **environ;

/* Runs argv[0] (a path) with argv; its exit status (1 when it cannot run or does not exit), as the caller's
 * test name says when it cannot start. */
static inline int peer_spawn(const char *test, char *const *argv)
{
    pid_t pid;
    int rc = posix_spawn(&pid, argv[0], NULL, NULL, argv, environ);
    if (rc != 0) {
        fprintf(stderr, "%s: cannot run %s: %s\n", test, argv[0], strerror(rc));
        return 1;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return 1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

/* `python script verb dir`, as peer_spawn. */
static inline int peer_run(const char *test, const char *python, const char *script, const char *verb, const char *dir)
{
    char *argv[] = {(char *)python, (char *)script, (char *)verb, (char *)dir, NULL};
    return peer_spawn(test, argv);
}

/* What both tests do first, for `test DIR PYTHON SCRIPT`: checks the arguments and the host, then runs
 * `PYTHON SCRIPT write DIR`. Returns -1 to go on, else the exit status: 2 for a wrong call, 77 (a skip)
 * without a Python (an empty PYTHON) or on a big-endian host (the raw files are little-endian), or the
 * script's status (77 when it cannot import what it compares with). */
static inline int peer_start(int argc, char **argv, const char *test, const char *peer)
{
    if (argc < 4) { /* a test may take more arguments after these three */
        fprintf(stderr, "usage: %s DIR PYTHON SCRIPT ...\n", argv[0]);
        return 2;
    }
    if (argv[2][0] == '\0') {
        printf("SKIP: no /usr/bin/python3 to compare with %s\n", peer);
        return 77;
    }
    const uint16_t probe = 1;
    if (*(const unsigned char *)&probe != 1) {
        printf("SKIP: the raw files are little-endian, this host is not\n");
        return 77;
    }
    fflush(stdout);
    int rc = peer_run(test, argv[2], argv[3], "write", argv[1]);
    return rc ? rc : -1;
}

/* The whole file, malloc'd (NULL when it cannot be read); its size in *n. */
static inline void *peer_read_all(const char *path, long *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    *n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *buf = malloc(*n ? (size_t)*n : 1);
    if (buf && fread(buf, 1, (size_t)*n, f) != (size_t)*n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    return buf;
}

/* A C-contiguous copy of t, through the library's own copy. */
static inline th_tensor *peer_contiguous(const th_tensor *t)
{
    size_t es = th_dtype_info(th_tensor_dtype(t))->size;
    th_storage *s = th_storage_new(th_tensor_numel(t) * (int64_t)es, NULL, NULL);
    th_tensor *c = th_tensor_new_with_storage(th_tensor_dtype(t), s, 0, th_tensor_ndim(t), th_tensor_sizes(t), NULL);
    th_storage_release(s);
    if (c && th_tensor_copy(c, t) != TH_OK) {
        th_tensor_release(c);
        c = NULL;
    }
    return c;
}

/* one_case(line) for each line of DIR/cases.txt (the cases the peer's script wrote); a missing file fails a
 * check. Returns how many lines there were. */
static inline int peer_each_case(const char *dir, void (*one_case)(const char *line))
{
    char path[4096], line[1024];
    snprintf(path, sizeof path, "%s/cases.txt", dir);
    FILE *index = fopen(path, "r");
    CHECK(index != NULL);
    int n = 0;
    for (; index && fgets(line, sizeof line, index); n++) one_case(line);
    if (index) fclose(index);
    return n;
}

#endif
