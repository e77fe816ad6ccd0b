/* tests/shm/shm_test.h: what the shared-memory tests share: a prefix of their own for segment names, counts of
 * this test's segments in /dev/shm and of this process's mappings, children and their exit status, the helper
 * executable (shm_helper) for fork+exec. */
#ifndef TH_TESTS_SHM_TEST_H
#define TH_TESTS_SHM_TEST_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "th_shm.h"

#define SZ(...) ((const int64_t[]){__VA_ARGS__})
#define IDX(...) ((const int64_t[]){__VA_ARGS__})

static char shm_test_prefix[32];

/* A prefix for this run's segment names ("tt<area>_<pid>"), exported in TH_SHM_PREFIX so exec'd helpers use
 * it too: the /dev/shm checks then count only this run's segments. */
static inline void shm_test_begin(const char *area)
{
    snprintf(shm_test_prefix, sizeof shm_test_prefix, "tt%s%d", area, (int)getpid());
    setenv("TH_SHM_PREFIX", shm_test_prefix, 1);
    test_begin();
}

/* This run's segments in /dev/shm. */
static inline int shm_test_segments(void)
{
    char want[48];
    snprintf(want, sizeof want, "%s_", shm_test_prefix);
    DIR *d = opendir("/dev/shm");
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) n += strncmp(e->d_name, want, strlen(want)) == 0;
    closedir(d);
    return n;
}

/* Mappings of shared segments this process still holds (named ones of this run, and memfds). */
static inline int shm_test_mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f) return -1;
    char line[512], want[64];
    snprintf(want, sizeof want, "/dev/shm/%s_", shm_test_prefix);
    int n = 0;
    while (fgets(line, sizeof line, f)) n += strstr(line, want) != NULL || strstr(line, "/memfd:th_shm") != NULL;
    fclose(f);
    return n;
}

/* Open descriptors of this process (to see that none leak). */
static inline int shm_test_open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) n += e->d_name[0] != '.';
    closedir(d);
    return n - 1; /* the directory's own descriptor */
}

/* test_end, and no mapping or segment of this run left. */
static inline int shm_test_end(const char *name)
{
    CHECK_INT_EQ(shm_test_mappings(), 0);
    CHECK_INT_EQ(shm_test_segments(), 0);
    return test_end(name);
}

/* Waits for pid; its exit status, or 128 + the signal that killed it. */
static inline int shm_test_wait(pid_t pid)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return -1;
}

/* The path of shm_helper: $TH_SHM_HELPER, else next to this executable. */
static inline const char *shm_test_helper(void)
{
    static char path[4096];
    const char *env = getenv("TH_SHM_HELPER");
    if (env) return env;
    ssize_t n = readlink("/proc/self/exe", path, sizeof path - 32);
    if (n <= 0) return "shm_helper";
    path[n] = '\0';
    char *slash = strrchr(path, '/');
    strcpy(slash ? slash + 1 : path, "shm_helper");
    return path;
}

/* Runs shm_helper with args in a child (fork + exec) and returns its exit status. */
static inline pid_t shm_test_spawn(const char *const *args)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        const char *argv[16] = {shm_test_helper()};
        for (int i = 0; args[i] && i < 14; i++) argv[i + 1] = args[i];
        execv(argv[0], (char *const *)argv);
        fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    return pid;
}

/* A float tensor whose elements are 0, 1, 2, ... */
static inline th_f32_tensor *shm_test_arange(int ndim, const int64_t *sizes)
{
    th_f32_tensor *t = th_f32_empty(ndim, sizes);
    for (int64_t i = 0; i < th_f32_numel(t); i++) th_f32_data(t)[i] = (float)i;
    return t;
}

/* After shm_helper negated a view of a positions storage (element k held k): whether every element of the
 * view holds -(position) - 1. Then the positions are restored for the next view. */
static inline int shm_test_negated(th_f32_tensor *base, th_f32_tensor *view)
{
    int64_t n = th_f32_numel(view), idx[TH_MAX_DIMS] = {0};
    int ok = 1;
    for (int64_t i = 0; i < n; i++) {
        int64_t pos = th_f32_offset(view);
        for (int d = 0; d < th_f32_ndim(view); d++) pos += idx[d] * th_f32_stride(view, d);
        ok &= th_f32_get(view, idx) == -(float)pos - 1.0f;
        for (int d = th_f32_ndim(view) - 1; d >= 0 && ++idx[d] == th_f32_size(view, d); d--) idx[d] = 0;
    }
    for (int64_t k = 0; k < th_f32_numel(base); k++) th_f32_data(base)[k] = (float)k;
    return ok;
}

#endif
