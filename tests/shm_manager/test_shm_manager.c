/* tests/shm_manager/test_shm_manager.c: th-shm-manager and its client, with real POSIX shm segments.
 *
 * usage: test_shm_manager [PATH-TO-th-shm-manager]   (else $TH_SHM_MANAGER)
 *
 * Clients are child processes driven over pipes (register, create, unregister, ...), so the test process
 * itself never connects. It makes itself a child subreaper, so every manager a client starts is reparented
 * to it: the test reaps them and checks that each exited 0 (an ASan build's leak check fails that too).
 * Segment names start with a prefix unique to the run, so the checks of /dev/shm see only ours, and the
 * rendezvous directories are in a private temporary directory.
 *
 * Covered: the manager unlinks a killed client's names (also when killed at random points of registering,
 * spawning the manager included), not the names it unregistered, and a name two clients registered only
 * when both are gone; release unlinks at the last live holder; 50 clients starting at once share one
 * manager; threads; fork; the manager exits when idle, leaving no process, socket or rendezvous file; a
 * killed manager and a SIGTERMed one give clients a clear error, and the next registration starts a new one
 * that takes over the client's names; fake managers that answer garbage, a wrong sequence number, another
 * version, an ERROR, nothing, or hang up give a clear error and no hang; raw protocol abuse (garbage, wrong
 * version, oversized, truncated, bad names, reply types, pipelining past the reply buffer, a stalled partial
 * message) gets an ERROR and a closed connection without hurting other clients; a manager out of file
 * descriptors refuses clients at once and carries on (skipped under valgrind, which refuses setrlimit);
 * other users are refused (when run as root); the executable lookup and the checks on the rendezvous
 * directory. TH_TEST_SEED=N repeats a run's random kills; TH_TEST_MANAGER_LOG=FILE logs the managers. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../check.h"
#include "shm/manager_client.h"
#include "shm/manager_protocol.h"

#define WAIT_MS 30000 /* the longest any condition may take (valgrind is slow) */

static char g_root[64];           /* private temporary directory */
static char g_dir[128];           /* the rendezvous directory most tests share */
static char g_exe[PATH_MAX];      /* th-shm-manager */
static char g_prefix[64];         /* "/thsmt<pid>x<rand>_" */
static pid_t g_killed[64];        /* managers the test killed itself */
static int g_nkilled;

/* ---- small helpers ---------------------------------------------------------------------------- */

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* A segment name: g_prefix, tag, i. Thread-local buffers, eight in turn. */
static const char *seg(const char *tag, int i)
{
    static _Thread_local char buf[8][128];
    static _Thread_local int k;
    char *b = buf[k++ % 8];
    snprintf(b, 128, "%s%s_%d", g_prefix, tag, i);
    return b;
}

static int seg_create(const char *name)
{
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) return -1;
    int rc = ftruncate(fd, 4096);
    close(fd);
    return rc;
}

static bool seg_exists(const char *name)
{
    char path[256];
    snprintf(path, sizeof path, "/dev/shm%s", name);
    return access(path, F_OK) == 0;
}

/* Segments in /dev/shm whose names start with g_prefix then tag. */
static int seg_count(const char *tag)
{
    char want[128];
    snprintf(want, sizeof want, "%s%s", g_prefix + 1, tag);
    size_t wl = strlen(want);
    DIR *d = opendir("/dev/shm");
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) n += strncmp(e->d_name, want, wl) == 0;
    closedir(d);
    return n;
}

/* Waits up to WAIT_MS for seg_count(tag) == want; returns the last count. */
static int seg_wait_count(const char *tag, int want)
{
    int64_t end = now_ms() + WAIT_MS;
    int n;
    while ((n = seg_count(tag)) != want && now_ms() < end) sleep_ms(5);
    return n;
}

static bool seg_wait_gone(const char *name)
{
    int64_t end = now_ms() + WAIT_MS;
    while (seg_exists(name) && now_ms() < end) sleep_ms(5);
    return !seg_exists(name);
}

/* waitpid with a deadline; on time-out the process is SIGKILLed. Returns the status or -1. */
static int wait_pid(pid_t pid, int ms)
{
    int64_t end = now_ms() + ms;
    int st;
    for (;;) {
        pid_t r = waitpid(pid, &st, WNOHANG);
        if (r == pid) return st;
        if (r < 0 && errno != EINTR) return -1;
        if (now_ms() > end) {
            fprintf(stderr, "pid %ld did not exit within %d ms: killing it\n", (long)pid, ms);
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            return -1;
        }
        sleep_ms(2);
    }
}

static bool exited_ok(int st) { return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0; }

static void kill_manager(pid_t pid, int sig)
{
    if (pid <= 0) return; /* kill(0, ...) would signal this whole process group */
    if (sig == SIGKILL && g_nkilled < 64) g_killed[g_nkilled++] = pid;
    kill(pid, sig);
}

static bool has_text(const char *msg, const char *text) { return strstr(msg, text) != NULL; }

/* ---- driven clients ------------------------------------------------------------------------------ */

/* A client is a child process that does what the pipe tells it, one command at a time:
 *   R name  register        U name  unregister       L name  release
 *   C name  create the segment                       D name  unlink it
 *   N n     set RLIMIT_NOFILE to n
 *   P       the manager pid E VAR=VALUE  setenv (VAR= unsets)                      X       exit(0)
 * and answers each with {rc, message}. */
typedef struct client {
    pid_t pid;
    int cmd, res;
} client;

typedef struct command {
    char op;
    char arg[400];
} command;

typedef struct answer {
    int rc;
    char msg[512];
} answer;

static bool read_full(int fd, void *buf, size_t n, int ms)
{
    int64_t end = now_ms() + ms;
    size_t have = 0;
    while (have < n) {
        struct pollfd p = {fd, POLLIN, 0};
        int64_t left = end - now_ms();
        if (left <= 0) return false;
        int pr = poll(&p, 1, (int)left);
        if (pr < 0 && errno == EINTR) continue;
        if (pr <= 0) return false;
        ssize_t r = read(fd, (char *)buf + have, n - have);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) return false;
        have += (size_t)r;
    }
    return true;
}

static bool write_full(int fd, const void *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {
        ssize_t w = write(fd, (const char *)buf + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return false;
        done += (size_t)w;
    }
    return true;
}

static void client_loop(int cmd, int res)
{
    command c;
    while (read_full(cmd, &c, sizeof c, 600000)) {
        answer a = {0, ""};
        switch (c.op) {
        case 'R':
            a.rc = th__shm_manager_register(c.arg);
            break;
        case 'U':
            a.rc = th__shm_manager_unregister(c.arg);
            break;
        case 'L':
            a.rc = th__shm_manager_release(c.arg);
            break;
        case 'C':
            a.rc = seg_create(c.arg) == 0 ? 0 : -errno;
            break;
        case 'D':
            a.rc = shm_unlink(c.arg) == 0 ? 0 : -errno;
            break;
        case 'P':
            a.rc = th__shm_manager_pid();
            break;
        case 'E': {
            char *eq = strchr(c.arg, '=');
            if (!eq) break;
            *eq = '\0';
            a.rc = eq[1] ? setenv(c.arg, eq + 1, 1) : unsetenv(c.arg);
            break;
        }
        case 'N': { /* RLIMIT_NOFILE, soft and hard */
            struct rlimit rl = {strtoul(c.arg, NULL, 10), strtoul(c.arg, NULL, 10)};
            a.rc = setrlimit(RLIMIT_NOFILE, &rl) == 0 ? 0 : -errno;
            if (a.rc) snprintf(a.msg, sizeof a.msg, "setrlimit: %s", strerror(-a.rc));
            break;
        }
        case 'X': _exit(0);
        default: a.rc = -9999;
        }
        if (a.rc < 0 && !a.msg[0]) snprintf(a.msg, sizeof a.msg, "%s", th_shm_manager_last_error());
        if (!write_full(res, &a, sizeof a)) break;
    }
    _exit(0);
}

static client client_start(void)
{
    int cmd[2], res[2];
    client cl = {-1, -1, -1};
    if (pipe2(cmd, O_CLOEXEC) != 0 || pipe2(res, O_CLOEXEC) != 0) return cl;
    pid_t pid = fork();
    if (pid == 0) {
        close(cmd[1]);
        close(res[0]);
        client_loop(cmd[0], res[1]);
    }
    close(cmd[0]);
    close(res[1]);
    cl.pid = pid;
    cl.cmd = cmd[1];
    cl.res = res[0];
    return cl;
}

/* Runs one command; the answer's rc (INT_MIN when the client did not answer in time), message in msg. */
static int client_do(client *cl, char op, const char *arg, char *msg)
{
    command c;
    memset(&c, 0, sizeof c);
    c.op = op;
    snprintf(c.arg, sizeof c.arg, "%s", arg ? arg : "");
    answer a;
    if (!write_full(cl->cmd, &c, sizeof c) || !read_full(cl->res, &a, sizeof a, WAIT_MS)) {
        fprintf(stderr, "client %ld: no answer to %c %s\n", (long)cl->pid, op, arg ? arg : "");
        if (msg) msg[0] = '\0';
        return INT_MIN;
    }
    if (msg) snprintf(msg, 512, "%s", a.msg);
    if (a.rc < 0 && !msg) fprintf(stderr, "client %ld: %c %s -> %d: %s\n", (long)cl->pid, op, arg ? arg : "", a.rc, a.msg);
    return a.rc;
}

/* Register then create, the order manager_client.h asks for. */
static int client_reg_create(client *cl, const char *name)
{
    int rc = client_do(cl, 'R', name, NULL);
    return rc ? rc : client_do(cl, 'C', name, NULL);
}

static void client_kill(client *cl)
{
    kill(cl->pid, SIGKILL);
    wait_pid(cl->pid, WAIT_MS);
    close(cl->cmd);
    close(cl->res);
}

/* Tells the client to exit(0) and checks that it did. */
static void client_exit(client *cl)
{
    command c;
    memset(&c, 0, sizeof c);
    c.op = 'X';
    write_full(cl->cmd, &c, sizeof c);
    CHECK(exited_ok(wait_pid(cl->pid, WAIT_MS)));
    close(cl->cmd);
    close(cl->res);
}

static void env_set(client *cl, const char *var, const char *value)
{
    char arg[400];
    snprintf(arg, sizeof arg, "%s=%s", var, value ? value : "");
    CHECK_INT_EQ(client_do(cl, 'E', arg, NULL), 0);
}

/* The running manager of the shared rendezvous directory, from its rendezvous file; 0 if none. */
static pid_t read_rendezvous(const char *dir, char *socket_path)
{
    char file[PATH_MAX + 16], buf[512];
    snprintf(file, sizeof file, "%s/manager", dir);
    FILE *f = fopen(file, "r");
    if (!f) return 0;
    long pid = 0;
    char path[108] = "";
    if (!fgets(buf, sizeof buf, f) || sscanf(buf, "th-shm-manager 1 %ld %107s", &pid, path) != 2) pid = 0;
    fclose(f);
    if (socket_path) memcpy(socket_path, path, sizeof path);
    return (pid_t)pid;
}

/* Waits until no manager of dir runs: its rendezvous file gone. */
static bool wait_no_manager(const char *dir)
{
    int64_t end = now_ms() + WAIT_MS;
    while (read_rendezvous(dir, NULL) && now_ms() < end) sleep_ms(5);
    return read_rendezvous(dir, NULL) == 0;
}

/* ---- tests ------------------------------------------------------------------------------------ */

static void test_bad_names(void)
{
    const char *bad[] = {"", "/", "abc", "/a/b", "/.x", "/..", "/a b", "/a\xc3\xa9", "/a\n"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK_INT_EQ(th__shm_manager_register(bad[i]), TH_ERR_INVALID);
        CHECK(strncmp(th_shm_manager_last_error(), "th__shm_manager_register: segment name", 38) == 0);
        CHECK_INT_EQ(th__shm_manager_unregister(bad[i]), TH_ERR_INVALID);
    }
    CHECK_INT_EQ(th__shm_manager_register(NULL), TH_ERR_INVALID);
    CHECK(has_text(th_shm_manager_last_error(), "NULL"));
    char longname[300];
    memset(longname, 'a', sizeof longname);
    longname[0] = '/';
    longname[256] = '\0';
    CHECK_INT_EQ(th__shm_manager_register(longname), TH_ERR_INVALID);
    CHECK(has_text(th_shm_manager_last_error(), "longer than 255"));
    /* never registered: refused without asking any manager */
    CHECK_INT_EQ(th__shm_manager_unregister(seg("never", 0)), TH_ERR_INVALID);
    CHECK(has_text(th_shm_manager_last_error(), "th__shm_manager_unregister: "));
    CHECK(has_text(th_shm_manager_last_error(), "was not registered by this process"));
    CHECK_INT_EQ(th__shm_manager_pid(), 0);
}

/* A SIGKILLed client's names are unlinked; a name of the longest length works. */
static void test_kill_cleans_up(void)
{
    client a = client_start();
    for (int i = 0; i < 5; i++) CHECK_INT_EQ(client_reg_create(&a, seg("kill", i)), 0);
    char longname[256];
    int n = snprintf(longname, sizeof longname, "%skill_long_", g_prefix);
    memset(longname + n, 'z', 255 - (size_t)n);
    longname[255] = '\0';
    CHECK_INT_EQ(client_reg_create(&a, longname), 0);
    CHECK(client_do(&a, 'P', NULL, NULL) > 0);
    CHECK_INT_EQ(seg_count("kill"), 6);
    client_kill(&a);
    CHECK_INT_EQ(seg_wait_count("kill", 0), 0);
}

/* Unregistered names stay (the client unlinked them, or someone else owns them now). */
static void test_unregister(void)
{
    client a = client_start();
    char msg[512];
    CHECK_INT_EQ(client_reg_create(&a, seg("unreg", 0)), 0);
    CHECK_INT_EQ(client_reg_create(&a, seg("unreg", 1)), 0);
    CHECK_INT_EQ(client_do(&a, 'R', seg("unreg", 1), NULL), 0); /* twice is once */
    CHECK_INT_EQ(client_do(&a, 'U', seg("unreg", 0), NULL), 0);
    CHECK_INT_EQ(client_do(&a, 'U', seg("unreg", 0), msg), TH_ERR_INVALID);
    CHECK(has_text(msg, "was not registered by this process"));
    /* the normal life of a segment: register, create, unlink, unregister */
    CHECK_INT_EQ(client_reg_create(&a, seg("unreg", 2)), 0);
    CHECK_INT_EQ(client_do(&a, 'D', seg("unreg", 2), NULL), 0);
    CHECK_INT_EQ(client_do(&a, 'U', seg("unreg", 2), NULL), 0);
    client_kill(&a);
    CHECK(seg_wait_gone(seg("unreg", 1)));
    CHECK(seg_exists(seg("unreg", 0)));
    shm_unlink(seg("unreg", 0));
    CHECK_INT_EQ(seg_count("unreg"), 0);
}

/* RELEASE: the last live holder's unlinks the name, an earlier one's does not; a holder that died does
 * not count. */
static void test_release(void)
{
    client a = client_start(), b = client_start(), c = client_start();
    char msg[512];
    CHECK_INT_EQ(client_reg_create(&a, seg("rel", 0)), 0);
    CHECK_INT_EQ(client_do(&a, 'L', seg("rel", 0), NULL), 1); /* sole holder: unlinked at once */
    CHECK(!seg_exists(seg("rel", 0)));
    CHECK_INT_EQ(client_do(&a, 'L', seg("rel", 0), msg), TH_ERR_INVALID);
    CHECK(has_text(msg, "th__shm_manager_release: ") && has_text(msg, "was not registered by this process"));

    CHECK_INT_EQ(client_reg_create(&a, seg("rel", 1)), 0);
    CHECK_INT_EQ(client_do(&b, 'R', seg("rel", 1), NULL), 0);
    CHECK_INT_EQ(client_do(&c, 'R', seg("rel", 1), NULL), 0);
    CHECK_INT_EQ(client_do(&a, 'L', seg("rel", 1), NULL), 0); /* b and c still hold it */
    CHECK(seg_exists(seg("rel", 1)));
    CHECK_INT_EQ(client_reg_create(&c, seg("rel_canary", 0)), 0);
    client_kill(&c); /* a holder that dies without letting go */
    CHECK(seg_wait_gone(seg("rel_canary", 0)));
    CHECK(seg_exists(seg("rel", 1)));
    CHECK_INT_EQ(client_do(&b, 'L', seg("rel", 1), NULL), 1);
    CHECK(!seg_exists(seg("rel", 1)));
    client_exit(&a);
    client_exit(&b);
}

/* A name two clients registered goes when the second one dies. */
static void test_shared_name(void)
{
    client a = client_start(), b = client_start();
    CHECK_INT_EQ(client_reg_create(&a, seg("shared", 0)), 0);
    CHECK_INT_EQ(client_reg_create(&a, seg("shared_canary_a", 0)), 0);
    CHECK_INT_EQ(client_do(&b, 'R', seg("shared", 0), NULL), 0);
    CHECK_INT_EQ(client_reg_create(&b, seg("shared_canary_b", 0)), 0);
    CHECK_INT_EQ(client_do(&a, 'P', NULL, NULL), client_do(&b, 'P', NULL, NULL));
    client_kill(&a);
    /* the manager handles a death in one go: once a's canary is gone, so would be the shared name */
    CHECK(seg_wait_gone(seg("shared_canary_a", 0)));
    CHECK(seg_exists(seg("shared", 0)));
    CHECK(seg_exists(seg("shared_canary_b", 0)));
    client_exit(&b); /* a normal exit closes the connection too */
    CHECK(seg_wait_gone(seg("shared", 0)));
    CHECK(seg_wait_gone(seg("shared_canary_b", 0)));
}

/* Killed at a random point of registering and creating (the first iterations while spawning the
 * manager, with none running): nothing leaks. */
static void test_kill_random(unsigned seed)
{
    srand(seed);
    for (int iter = 0; iter < 40; iter++) {
        if (iter % 10 == 0) CHECK(wait_no_manager(g_dir)); /* sometimes the kill lands in the start */
        pid_t pid = fork();
        if (pid == 0) {
            for (int i = 0;; i++) {
                const char *name = seg("rand", iter * 100000 + i);
                if (th__shm_manager_register(name) != 0) _exit(3);
                if (seg_create(name) != 0) _exit(4);
                if (i % 3 == 0) { /* sometimes a normal unlink too */
                    shm_unlink(name);
                    if (th__shm_manager_unregister(name) != 0) _exit(5);
                }
            }
        }
        int us = rand() % 8000;
        struct timespec ts = {0, us * 1000L};
        nanosleep(&ts, NULL);
        kill(pid, SIGKILL);
        int st = wait_pid(pid, WAIT_MS);
        CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
    }
    int left = seg_wait_count("rand", 0);
    CHECK_INT_EQ(left, 0);
    if (left) fprintf(stderr, "test_kill_random: seed %u leaked %d segments\n", seed, left);
}

/* 50 clients start at once with no manager running: they share one, and all their names go. */
static void test_many_clients(void)
{
    enum { CLIENTS = 50, NAMES = 20 };
    CHECK(wait_no_manager(g_dir));
    int go[2], pids[2];
    CHECK(pipe(go) == 0 && pipe(pids) == 0);
    pid_t kids[CLIENTS];
    for (int k = 0; k < CLIENTS; k++) {
        kids[k] = fork();
        if (kids[k] == 0) {
            close(go[1]);
            char c;
            if (read(go[0], &c, 1) != 0) _exit(10); /* EOF when the parent lets go */
            int bad = 0;
            for (int i = 0; i < NAMES; i++) {
                const char *name = seg("many", k * 1000 + i);
                if (th__shm_manager_register(name) != 0) {
                    fprintf(stderr, "client %d: %s\n", k, th_shm_manager_last_error());
                    bad++;
                } else if (seg_create(name) != 0) {
                    bad++;
                }
            }
            int mpid = th__shm_manager_pid();
            bad += !write_full(pids[1], &mpid, sizeof mpid);
            for (int i = 0; i < NAMES; i += 2) { /* half unlinked normally */
                const char *name = seg("many", k * 1000 + i);
                shm_unlink(name);
                bad += th__shm_manager_unregister(name) != 0;
            }
            _exit(bad ? 1 : 0);
        }
    }
    close(go[0]);
    close(pids[1]);
    close(go[1]);
    int first = 0;
    for (int k = 0; k < CLIENTS; k++) {
        int mpid = 0;
        CHECK(read_full(pids[0], &mpid, sizeof mpid, WAIT_MS));
        CHECK(mpid > 0);
        if (k == 0) first = mpid;
        CHECK_INT_EQ(mpid, first);
    }
    close(pids[0]);
    for (int k = 0; k < CLIENTS; k++) CHECK(exited_ok(wait_pid(kids[k], WAIT_MS)));
    CHECK_INT_EQ(seg_wait_count("many", 0), 0);
}

typedef struct thread_arg {
    int t, bad;
} thread_arg;

static void *register_thread(void *p)
{
    thread_arg *a = p;
    for (int i = 0; i < 50; i++) {
        const char *name = seg("thr", a->t * 1000 + i);
        if (th__shm_manager_register(name) != 0 || seg_create(name) != 0) a->bad++;
        if (i % 2 == 0 && (shm_unlink(name) != 0 || th__shm_manager_unregister(name) != 0)) a->bad++;
    }
    return NULL;
}

/* Eight threads of one client register at once; then it is killed. */
static void test_threads(void)
{
    int ready[2];
    CHECK(pipe(ready) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        pthread_t th[8];
        thread_arg args[8];
        int bad = 0;
        for (int t = 0; t < 8; t++) {
            args[t] = (thread_arg){t, 0};
            bad += pthread_create(&th[t], NULL, register_thread, &args[t]) != 0;
        }
        for (int t = 0; t < 8; t++) {
            pthread_join(th[t], NULL);
            bad += args[t].bad;
        }
        write_full(ready[1], &bad, sizeof bad);
        pause();
        _exit(0);
    }
    close(ready[1]);
    int bad = -1;
    CHECK(read_full(ready[0], &bad, sizeof bad, WAIT_MS));
    close(ready[0]);
    CHECK_INT_EQ(bad, 0);
    CHECK_INT_EQ(seg_count("thr"), 8 * 25);
    kill(pid, SIGKILL);
    wait_pid(pid, WAIT_MS);
    CHECK_INT_EQ(seg_wait_count("thr", 0), 0);
}

/* A child of fork() has its own connection and names; its parent's stay its parent's. */
static void test_fork(void)
{
    int ready[2], go[2];
    CHECK(pipe(ready) == 0 && pipe(go) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(ready[0]);
        close(go[1]);
        int bad = 0;
        bad += th__shm_manager_register(seg("fork_parent", 0)) != 0 || seg_create(seg("fork_parent", 0)) != 0;
        int mpid = th__shm_manager_pid();
        pid_t g = fork();
        if (g == 0) {
            int gbad = th__shm_manager_pid() != 0; /* the parent's connection was dropped */
            gbad += th__shm_manager_unregister(seg("fork_parent", 0)) != TH_ERR_INVALID;
            gbad += th__shm_manager_register(seg("fork_child", 0)) != 0 || seg_create(seg("fork_child", 0)) != 0;
            gbad += th__shm_manager_pid() != mpid;
            _exit(gbad);
        }
        int st;
        waitpid(g, &st, 0);
        bad += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        bad += th__shm_manager_pid() != mpid; /* the parent's connection is still there */
        write_full(ready[1], &bad, sizeof bad);
        char c;
        if (read(go[0], &c, 1) < 0) bad++;
        _exit(0);
    }
    close(ready[1]);
    close(go[0]);
    int bad = -1;
    CHECK(read_full(ready[0], &bad, sizeof bad, WAIT_MS));
    CHECK_INT_EQ(bad, 0);
    CHECK(seg_wait_gone(seg("fork_child", 0))); /* the grandchild exited */
    CHECK(seg_exists(seg("fork_parent", 0)));
    close(go[1]);
    CHECK(exited_ok(wait_pid(pid, WAIT_MS)));
    close(ready[0]);
    CHECK(seg_wait_gone(seg("fork_parent", 0)));
}

/* A killed manager: the client's next registration finds it gone and, once, starts a new manager instead of
 * failing; the new one takes over the client's names. */
static void test_manager_killed(void)
{
    client a = client_start();
    CHECK_INT_EQ(client_reg_create(&a, seg("mkill", 0)), 0);
    pid_t m1 = client_do(&a, 'P', NULL, NULL);
    CHECK(m1 > 0);
    kill_manager(m1, SIGKILL);
    int st = wait_pid(m1, WAIT_MS); /* our child: we are the subreaper */
    CHECK(WIFSIGNALED(st));
    CHECK_INT_EQ(client_reg_create(&a, seg("mkill", 1)), 0);
    pid_t m2 = client_do(&a, 'P', NULL, NULL);
    CHECK(m2 > 0 && m2 != m1);
    CHECK_INT_EQ(client_reg_create(&a, seg("mkill", 2)), 0);
    CHECK_INT_EQ(client_do(&a, 'U', seg("mkill", 2), NULL), 0);
    CHECK_INT_EQ(client_do(&a, 'R', seg("mkill", 2), NULL), 0);
    client_kill(&a);
    CHECK(seg_wait_gone(seg("mkill", 0))); /* registered with the first manager, guarded by the second */
    CHECK(seg_wait_gone(seg("mkill", 1)));
    CHECK(seg_wait_gone(seg("mkill", 2)));
}

/* A manager stopped (SIGSTOP: a debugger, a swapped-out or starved process) past a client's time-out: the
 * client gives up on the request and closes its connection, but it is alive, so the manager, resumed, must
 * not take the closed connection for its death and unlink its segments. They stay guarded: the names go when
 * the process really dies, whether or not it came back to the manager in between. */
static void test_stalled_manager(void)
{
    client a = client_start(), b = client_start(), probe = client_start();
    char msg[512];
    env_set(&a, "TH_SHM_MANAGER_TIMEOUT_MS", "300");
    env_set(&b, "TH_SHM_MANAGER_TIMEOUT_MS", "300");
    CHECK_INT_EQ(client_reg_create(&a, seg("stall_a", 0)), 0);
    CHECK_INT_EQ(client_reg_create(&b, seg("stall_b", 0)), 0);
    pid_t m = client_do(&a, 'P', NULL, NULL);
    CHECK(m > 0 && client_do(&b, 'P', NULL, NULL) == m);
    kill_manager(m, SIGSTOP);
    CHECK_INT_EQ(client_do(&a, 'R', seg("stall_a", 1), msg), TH_ERR_IO);
    CHECK(has_text(msg, "did not answer within 300 ms"));
    CHECK_INT_EQ(client_do(&b, 'R', seg("stall_b", 1), msg), TH_ERR_IO);
    kill_manager(m, SIGCONT);
    /* a round trip of a third client: the manager has seen both connections close by then */
    CHECK_INT_EQ(client_reg_create(&probe, seg("stall_probe", 0)), 0);
    CHECK_INT_EQ(client_do(&probe, 'P', NULL, NULL), m);
    sleep_ms(50);
    CHECK(seg_exists(seg("stall_a", 0)));
    CHECK(seg_exists(seg("stall_b", 0)));
    /* a comes back to the same manager, which hands it its names again */
    CHECK_INT_EQ(client_reg_create(&a, seg("stall_a", 2)), 0);
    CHECK_INT_EQ(client_do(&a, 'P', NULL, NULL), m);
    /* b never does: its names go when it dies, as a's do */
    client_kill(&b);
    CHECK(seg_wait_gone(seg("stall_b", 0)));
    CHECK(seg_exists(seg("stall_a", 0)));
    client_kill(&a);
    CHECK(seg_wait_gone(seg("stall_a", 0)));
    CHECK(seg_wait_gone(seg("stall_a", 2)));
    CHECK(!seg_exists(seg("stall_a", 1)) && !seg_exists(seg("stall_b", 1)));
    client_exit(&probe);
    CHECK(seg_wait_gone(seg("stall_probe", 0)));
}

/* SIGTERM: the manager unlinks what it holds and exits 0; the client's next registration starts a new one.
 * Releasing a name held from before a lost manager asks nobody (no manager can tell who else holds it). */
static void test_manager_sigterm(void)
{
    client a = client_start();
    char msg[512];
    CHECK_INT_EQ(client_reg_create(&a, seg("term", 0)), 0);
    pid_t m = client_do(&a, 'P', NULL, NULL);
    CHECK(m > 0);
    kill_manager(m, SIGTERM);
    CHECK(exited_ok(wait_pid(m, WAIT_MS)));
    CHECK(!seg_exists(seg("term", 0)));
    CHECK_INT_EQ(client_do(&a, 'R', seg("term", 1), msg), 0);
    pid_t m2 = client_do(&a, 'P', NULL, NULL);
    CHECK(m2 > 0 && m2 != m);
    kill_manager(m2, SIGTERM);
    CHECK(exited_ok(wait_pid(m2, WAIT_MS)));
    CHECK_INT_EQ(client_do(&a, 'L', seg("term", 1), msg), TH_ERR_IO);
    CHECK(has_text(msg, "th__shm_manager_release: th-shm-manager"));
    CHECK_INT_EQ(client_do(&a, 'R', seg("term", 2), NULL), 0); /* a third manager */
    m = client_do(&a, 'P', NULL, NULL);
    CHECK(m > 0 && m != m2);
    kill_manager(m, SIGKILL);
    wait_pid(m, WAIT_MS);
    CHECK_INT_EQ(client_do(&a, 'L', seg("term", 2), msg), TH_ERR_IO);
    CHECK(has_text(msg, "th__shm_manager_release: th-shm-manager"));
    /* unregistering after the manager is gone: nothing left to tell anyone */
    CHECK_INT_EQ(client_do(&a, 'U', seg("term", 0), NULL), 0);
    client_exit(&a);
    shm_unlink(seg("term", 2));
}

/* ---- fake managers --------------------------------------------------------------------------- */

/* A fake manager on dir: listens on dir/fake/socket and writes the rendezvous file. Modes: 'g' garbage,
 * 's' silence, 'c' hang up, 'q' HELLO_OK with the wrong seq, 'v' a reply of version 2, 'h' a good HELLO_OK
 * and garbage to what follows, 'e' ERROR PROTOCOL to HELLO. */
static pid_t fake_start(const char dir[256], char mode)
{
    char sdir[300], spath[320];
    snprintf(sdir, sizeof sdir, "%s/fake", dir);
    mkdir(dir, 0700);
    mkdir(sdir, 0700);
    snprintf(spath, sizeof spath, "%s/socket", sdir);
    unlink(spath);
    int ls = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    if (strlen(spath) >= sizeof sa.sun_path) return -1;
    memcpy(sa.sun_path, spath, strlen(spath) + 1);
    if (ls < 0 || bind(ls, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(ls, 16) != 0) {
        fprintf(stderr, "fake manager: %s\n", strerror(errno));
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        for (;;) {
            int fd = accept(ls, NULL, NULL);
            if (fd < 0) continue;
            unsigned char in[TH__SHM_MAX_MESSAGE], out[TH__SHM_MAX_MESSAGE];
            ssize_t r = read(fd, in, sizeof in);
            uint32_t seq = r >= 16 ? th__shm_get_u32(in + 12) : 0;
            size_t n = 0;
            unsigned char pidb[4];
            th__shm_put_u32(pidb, (uint32_t)getpid());
            switch (mode) {
            case 'g': n = (size_t)snprintf((char *)out, sizeof out, "HTTP/1.1 400 Bad Request\r\n\r\n"); break;
            case 's': break;
            case 'c': close(fd); continue;
            case 'q': n = th__shm_msg_encode(out, TH__SHM_HELLO_OK, seq + 7, pidb, 4); break;
            case 'v':
                n = th__shm_msg_encode(out, TH__SHM_HELLO_OK, seq, pidb, 4);
                th__shm_put_u16(out + 4, 2);
                break;
            case 'h':
                n = th__shm_msg_encode(out, TH__SHM_HELLO_OK, seq, pidb, 4);
                write_full(fd, out, n);
                r = read(fd, in, sizeof in);
                n = 16;
                memset(out, 0xA5, n);
                break;
            case 'e': n = th__shm_msg_encode_error(out, seq, TH__SHM_ERR_PROTOCOL, "go away"); break;
            }
            if (n) write_full(fd, out, n);
            /* keep the connection open: the client must not wait for us to hang up */
        }
    }
    close(ls);
    char file[PATH_MAX + 16];
    snprintf(file, sizeof file, "%s/manager", dir);
    FILE *f = fopen(file, "w");
    if (f) {
        fprintf(f, "th-shm-manager 1 %ld %s\n", (long)pid, spath);
        fclose(f);
    }
    return pid;
}

static void test_fake_managers(void)
{
    static const struct {
        char mode;
        const char *text;
    } cases[] = {
        {'g', "answered garbage: bad magic"},   {'s', "did not answer within 400 ms"},
        {'c', "closed the connection"},         {'q', "sequence number"},
        {'v', "answered garbage: unsupported protocol version"},
        {'h', "answered garbage"},             {'e', "refused the request"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char dir[256];
        snprintf(dir, sizeof dir, "%s/fake_%c", g_root, cases[i].mode);
        pid_t fake = fake_start(dir, cases[i].mode);
        CHECK(fake > 0);
        client a = client_start();
        env_set(&a, "TH_SHM_MANAGER_DIR", dir);
        env_set(&a, "TH_SHM_MANAGER_TIMEOUT_MS", "400");
        char msg[512];
        int64_t t0 = now_ms();
        CHECK_INT_EQ(client_do(&a, 'R', seg("fake", (int)i), msg), TH_ERR_IO);
        int64_t took = now_ms() - t0;
        CHECK(took < 10000);
        CHECK(has_text(msg, "th-shm-manager"));
        if (!has_text(msg, cases[i].text)) {
            fprintf(stderr, "fake manager '%c': message \"%s\" lacks \"%s\"\n", cases[i].mode, msg, cases[i].text);
            CHECK(0);
        }
        CHECK_INT_EQ(client_do(&a, 'P', NULL, NULL), 0);
        client_exit(&a);
        kill(fake, SIGKILL);
        wait_pid(fake, WAIT_MS);
    }
    CHECK_INT_EQ(seg_count("fake"), 0);
}

/* ---- raw protocol against the real manager -------------------------------------------------------- */

static int raw_connect(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Reads one message from the manager; 1, 0 on EOF, -1 on time-out or garbage. */
static int raw_read(int fd, th__shm_msg *m, unsigned char *buf)
{
    size_t have = 0;
    int64_t end = now_ms() + WAIT_MS;
    for (;;) {
        size_t used;
        const char *why;
        int rc = th__shm_msg_parse(buf, have, TH__SHM_FROM_MANAGER, m, &used, &why);
        if (rc == TH__SHM_PARSE_OK) return 1;
        if (rc < 0) return -1;
        size_t want = have < 16 ? 16 : 16 + m->length;
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, (int)(end - now_ms() > 0 ? end - now_ms() : 0)) <= 0) return -1;
        ssize_t r = recv(fd, buf + have, want - have, 0);
        if (r == 0 || (r < 0 && errno == ECONNRESET)) return have ? -1 : 0;
        if (r < 0) return -1;
        have += (size_t)r;
    }
}

/* Sends bytes and expects an ERROR of code, whose text contains text, then the end of the connection. */
static void raw_expect_error(const char *path, const void *bytes, size_t n, bool shut, uint32_t code, const char *text)
{
    int fd = raw_connect(path);
    CHECK(fd >= 0);
    if (fd < 0) return;
    CHECK(send(fd, bytes, n, MSG_NOSIGNAL) == (ssize_t)n);
    if (shut) shutdown(fd, SHUT_WR);
    th__shm_msg m;
    unsigned char buf[TH__SHM_MAX_MESSAGE];
    CHECK_INT_EQ(raw_read(fd, &m, buf), 1);
    CHECK_INT_EQ(m.type, TH__SHM_ERROR);
    CHECK_INT_EQ(m.code, code);
    char t[TH__SHM_TEXT_MAX + 1] = "";
    if (m.type == TH__SHM_ERROR) {
        memcpy(t, m.text, m.text_len);
        t[m.text_len] = '\0';
    }
    if (!has_text(t, text)) {
        fprintf(stderr, "raw: error text \"%s\" lacks \"%s\"\n", t, text);
        CHECK(0);
    }
    CHECK_INT_EQ(raw_read(fd, &m, buf), 0); /* and the manager hung up */
    close(fd);
}

static size_t msg(unsigned char *buf, uint32_t type, uint32_t seq, const char *name)
{
    return th__shm_msg_encode(buf, type, seq, name, name ? strlen(name) : 0);
}

static void test_raw_protocol(void)
{
    client keeper = client_start(); /* keeps the manager up and checks it still works afterwards */
    CHECK_INT_EQ(client_reg_create(&keeper, seg("raw_keeper", 0)), 0);
    pid_t mpid = client_do(&keeper, 'P', NULL, NULL);
    char path[108];
    CHECK_INT_EQ(read_rendezvous(g_dir, path), mpid);
    unsigned char b[TH__SHM_MAX_MESSAGE * 2];
    size_t n;

    raw_expect_error(path, "hello world, garbage here", 25, false, TH__SHM_ERR_PROTOCOL, "bad magic");
    n = msg(b, TH__SHM_HELLO, 5, NULL);
    th__shm_put_u16(b + 4, 2);
    raw_expect_error(path, b, n, false, TH__SHM_ERR_VERSION, "version");
    n = msg(b, TH__SHM_REGISTER, 6, NULL);
    th__shm_put_u32(b + 8, 100000); /* header only: refused before any payload */
    raw_expect_error(path, b, n, false, TH__SHM_ERR_PROTOCOL, "oversized");
    n = msg(b, TH__SHM_HELLO, 7, NULL);
    th__shm_put_u32(b + 8, 3); /* HELLO has no payload */
    raw_expect_error(path, b, n, false, TH__SHM_ERR_PROTOCOL, "length");
    n = msg(b, TH__SHM_REGISTER, 8, seg("raw", 0));
    raw_expect_error(path, b, 10, true, TH__SHM_ERR_PROTOCOL, "truncated");
    raw_expect_error(path, b, n - 3, true, TH__SHM_ERR_PROTOCOL, "truncated");
    n = msg(b, TH__SHM_REGISTER, 9, "/../etc/passwd");
    raw_expect_error(path, b, n, false, TH__SHM_ERR_PROTOCOL, "bad segment name");
    n = msg(b, 7, 10, NULL);
    raw_expect_error(path, b, n, false, TH__SHM_ERR_PROTOCOL, "unknown message type");
    n = msg(b, TH__SHM_OK, 11, NULL);
    raw_expect_error(path, b, n, false, TH__SHM_ERR_PROTOCOL, "reply type");

    /* a good message then garbage in one write: the good one is answered, then the error */
    int fd = raw_connect(path);
    th__shm_msg m;
    unsigned char in[TH__SHM_MAX_MESSAGE];
    n = msg(b, TH__SHM_REGISTER, 12, seg("raw_cut", 0));
    CHECK(seg_create(seg("raw_cut", 0)) == 0);
    memcpy(b + n, "GARBAGE!", 8);
    CHECK(send(fd, b, n + 8, MSG_NOSIGNAL) == (ssize_t)(n + 8));
    CHECK_INT_EQ(raw_read(fd, &m, in), 1);
    CHECK(m.type == TH__SHM_OK && m.seq == 12);
    CHECK_INT_EQ(raw_read(fd, &m, in), 1);
    CHECK(m.type == TH__SHM_ERROR && m.code == TH__SHM_ERR_PROTOCOL);
    CHECK_INT_EQ(raw_read(fd, &m, in), 0);
    close(fd);
    CHECK(seg_wait_gone(seg("raw_cut", 0))); /* a connection cut off is a client gone */

    /* UNREGISTER of a name never registered: an error, and the connection stays */
    fd = raw_connect(path);
    n = msg(b, TH__SHM_UNREGISTER, 13, seg("raw", 1));
    CHECK(send(fd, b, n, MSG_NOSIGNAL) == (ssize_t)n);
    CHECK_INT_EQ(raw_read(fd, &m, in), 1);
    CHECK(m.type == TH__SHM_ERROR && m.code == TH__SHM_ERR_NOT_REGISTERED && m.seq == 13);
    n = msg(b, TH__SHM_RELEASE, 15, seg("raw", 1));
    CHECK(send(fd, b, n, MSG_NOSIGNAL) == (ssize_t)n);
    CHECK_INT_EQ(raw_read(fd, &m, in), 1);
    CHECK(m.type == TH__SHM_ERROR && m.code == TH__SHM_ERR_NOT_REGISTERED && m.seq == 15);
    n = msg(b, TH__SHM_REGISTER, 16, seg("raw", 2));
    CHECK(seg_create(seg("raw", 2)) == 0);
    CHECK(send(fd, b, n, MSG_NOSIGNAL) == (ssize_t)n);
    CHECK_INT_EQ(raw_read(fd, &m, in), 1);
    CHECK(m.type == TH__SHM_OK && m.seq == 16);
    n = msg(b, TH__SHM_RELEASE, 17, seg("raw", 2));
    CHECK(send(fd, b, n, MSG_NOSIGNAL) == (ssize_t)n);
    CHECK_INT_EQ(raw_read(fd, &m, in), 1);
    CHECK(m.type == TH__SHM_RELEASED && m.seq == 17 && m.unlinked == 1);
    CHECK(!seg_exists(seg("raw", 2)));
    n = msg(b, TH__SHM_HELLO, 14, NULL);
    CHECK(send(fd, b, n, MSG_NOSIGNAL) == (ssize_t)n);
    CHECK_INT_EQ(raw_read(fd, &m, in), 1);
    CHECK(m.type == TH__SHM_HELLO_OK && m.seq == 14 && m.pid == (uint32_t)mpid);
    close(fd);

    /* 3000 requests without reading a reply (more replies than the socket holds): all answered in order */
    enum { PIPELINED = 3000 };
    fd = raw_connect(path);
    int stalled = raw_connect(path);
    CHECK(send(stalled, "THSM\1", 5, MSG_NOSIGNAL) == 5); /* a partial message that never completes */
    size_t total = 0;
    unsigned char *big = malloc((size_t)PIPELINED * 64);
    for (int i = 0; i < PIPELINED; i++) total += msg(big + total, TH__SHM_REGISTER, (uint32_t)i, seg("pipe", i));
    fcntl(fd, F_SETFL, O_NONBLOCK);
    size_t sent = 0;
    int got = 0, in_order = 1;
    int64_t end = now_ms() + WAIT_MS;
    unsigned char rbuf[65536];
    size_t rlen = 0;
    while (got < PIPELINED && now_ms() < end) {
        if (sent < total) {
            ssize_t w = send(fd, big + sent, total - sent, MSG_NOSIGNAL);
            if (w > 0) sent += (size_t)w;
        }
        ssize_t r = recv(fd, rbuf + rlen, sizeof rbuf - rlen, 0);
        if (r > 0) rlen += (size_t)r;
        size_t off = 0, used;
        const char *why;
        while (th__shm_msg_parse(rbuf + off, rlen - off, TH__SHM_FROM_MANAGER, &m, &used, &why) == TH__SHM_PARSE_OK) {
            in_order &= m.type == TH__SHM_OK && m.seq == (uint32_t)got;
            got++;
            off += used;
        }
        memmove(rbuf, rbuf + off, rlen - off);
        rlen -= off;
        if (r <= 0) sleep_ms(1);
    }
    free(big);
    CHECK_INT_EQ(got, PIPELINED);
    CHECK(in_order);
    CHECK(seg_create(seg("pipe", 7)) == 0);
    close(fd);
    /* This process lives on: a connection it closed is not its death, and its names stay; a connection it
     * opens next takes them over, and being cut off for garbage ends them as a death does. */
    CHECK_INT_EQ(client_reg_create(&keeper, seg("raw_keeper", 2)), 0); /* a round trip after the close */
    CHECK(seg_exists(seg("pipe", 7)));
    raw_expect_error(path, "GARBAGE!", 8, false, TH__SHM_ERR_PROTOCOL, "bad magic");
    CHECK(seg_wait_gone(seg("pipe", 7)));

    /* the stalled connection held up nobody */
    int64_t t0 = now_ms();
    CHECK_INT_EQ(client_reg_create(&keeper, seg("raw_keeper", 1)), 0);
    CHECK(now_ms() - t0 < 5000);
    close(stalled);
    CHECK_INT_EQ(client_do(&keeper, 'P', NULL, NULL), mpid);
    client_kill(&keeper);
    CHECK_INT_EQ(seg_wait_count("raw", 0), 0);
}

/* A manager out of file descriptors tells the clients it cannot take at once, and carries on. */
static void test_fd_limit(void)
{
    char dir[256];
    snprintf(dir, sizeof dir, "%s/fdlimit", g_root);
    client a = client_start();
    env_set(&a, "TH_SHM_MANAGER_DIR", dir);
    char msg[512];
    if (client_do(&a, 'N', "32", msg) != 0) { /* valgrind refuses */
        printf("test_fd_limit: skipped (%s)\n", msg);
        client_exit(&a);
        return;
    }
    /* the manager the client starts inherits the limit */
    CHECK_INT_EQ(client_reg_create(&a, seg("fdl", 0)), 0);
    char path[108];
    CHECK(read_rendezvous(dir, path) > 0);
    enum { CONNS = 60 };
    int fds[CONNS], hello = 0, refused = 0;
    for (int i = 0; i < CONNS; i++) {
        fds[i] = raw_connect(path);
        if (fds[i] < 0) continue;
        unsigned char b[TH__SHM_MAX_MESSAGE], in[TH__SHM_MAX_MESSAGE];
        size_t n = th__shm_msg_encode(b, TH__SHM_HELLO, (uint32_t)i, NULL, 0);
        if (send(fds[i], b, n, MSG_NOSIGNAL) != (ssize_t)n) {
            refused++;
            continue;
        }
        th__shm_msg m;
        int rc = raw_read(fds[i], &m, in);
        if (rc == 1 && m.type == TH__SHM_HELLO_OK) hello++;
        if (rc == 1 && m.type == TH__SHM_ERROR && m.code == TH__SHM_ERR_LIMIT) refused++;
    }
    CHECK(hello >= 10);
    CHECK(refused >= 10);
    CHECK_INT_EQ(hello + refused, CONNS);
    for (int i = 0; i < CONNS; i++)
        if (fds[i] >= 0) close(fds[i]);
    CHECK_INT_EQ(client_reg_create(&a, seg("fdl", 1)), 0); /* still serving */
    client_kill(&a);
    CHECK_INT_EQ(seg_wait_count("fdl", 0), 0);
    CHECK(wait_no_manager(dir));
}

/* Run as root: a process of another uid that gets to the socket is refused by the manager. */
static void test_other_user(void)
{
    if (geteuid() != 0) {
        printf("test_other_user: skipped (not root)\n");
        return;
    }
    client keeper = client_start();
    CHECK_INT_EQ(client_reg_create(&keeper, seg("uid", 0)), 0);
    char path[108], pdir[108];
    CHECK(read_rendezvous(g_dir, path) > 0);
    snprintf(pdir, sizeof pdir, "%s", path);
    *strrchr(pdir, '/') = '\0';
    /* open the way for uid 65534 for a moment (the private directories are 0700) */
    CHECK(chmod(g_root, 0711) == 0 && chmod(g_dir, 0711) == 0 && chmod(pdir, 0711) == 0 && chmod(path, 0777) == 0);
    int res[2];
    CHECK(pipe(res) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        int out[2] = {0, 0}; /* {connected, got a PERMISSION error then EOF} */
        if (setgid(65534) == 0 && setuid(65534) == 0) {
            int fd = raw_connect(path);
            out[0] = fd >= 0;
            if (fd >= 0) {
                th__shm_msg m;
                unsigned char buf[TH__SHM_MAX_MESSAGE];
                out[1] = raw_read(fd, &m, buf) == 1 && m.type == TH__SHM_ERROR && m.code == TH__SHM_ERR_PERMISSION &&
                         raw_read(fd, &m, buf) == 0;
            }
        }
        write_full(res[1], out, sizeof out);
        _exit(0);
    }
    int out[2] = {0, 0};
    CHECK(read_full(res[0], out, sizeof out, WAIT_MS));
    wait_pid(pid, WAIT_MS);
    close(res[0]);
    close(res[1]);
    CHECK(chmod(g_root, 0700) == 0 && chmod(g_dir, 0700) == 0 && chmod(pdir, 0700) == 0 && chmod(path, 0700) == 0);
    CHECK(out[0] == 1);
    CHECK(out[1] == 1);
    CHECK_INT_EQ(client_reg_create(&keeper, seg("uid", 1)), 0);
    client_kill(&keeper);
    CHECK_INT_EQ(seg_wait_count("uid", 0), 0);
}

/* The executable lookup and the rendezvous directory's checks. */
static void test_lookup_and_dir(void)
{
    char msg[512], dir[256];
    client a = client_start();
    /* the executable matters only when a manager must be started: a rendezvous directory of its own
     * (made by the client) */
    snprintf(dir, sizeof dir, "%s/by_path", g_root);
    env_set(&a, "TH_SHM_MANAGER_DIR", dir);
    env_set(&a, "TH_SHM_MANAGER", "/nonexistent/th-shm-manager");
    CHECK_INT_EQ(client_do(&a, 'R', seg("look", 0), msg), TH_ERR_IO);
    CHECK(has_text(msg, "TH_SHM_MANAGER=/nonexistent/th-shm-manager is not an executable file"));

    /* via PATH (or next to this test, which comes first) */
    char exedir[PATH_MAX];
    snprintf(exedir, sizeof exedir, "%s", g_exe);
    *strrchr(exedir, '/') = '\0';
    env_set(&a, "TH_SHM_MANAGER", NULL);
    env_set(&a, "PATH", exedir);
    CHECK_INT_EQ(client_reg_create(&a, seg("look", 1)), 0);
    struct stat st;
    CHECK(lstat(dir, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0700);
    client_exit(&a);
    CHECK(seg_wait_gone(seg("look", 1)));
    CHECK(wait_no_manager(dir));

    /* a rendezvous directory others may enter, a symlink, one of another user: refused */
    client b = client_start();
    snprintf(dir, sizeof dir, "%s/open", g_root);
    CHECK(mkdir(dir, 0755) == 0 && chmod(dir, 0755) == 0);
    env_set(&b, "TH_SHM_MANAGER_DIR", dir);
    CHECK_INT_EQ(client_do(&b, 'R', seg("look", 2), msg), TH_ERR_IO);
    CHECK(has_text(msg, "th-shm-manager rendezvous directory") && has_text(msg, "mode 755"));
    char link[256];
    snprintf(link, sizeof link, "%s/link", g_root);
    snprintf(dir, sizeof dir, "%s/by_path", g_root);
    CHECK(symlink(dir, link) == 0);
    env_set(&b, "TH_SHM_MANAGER_DIR", link);
    CHECK_INT_EQ(client_do(&b, 'R', seg("look", 2), msg), TH_ERR_IO);
    CHECK(has_text(msg, "not a directory"));
    if (geteuid() == 0) {
        snprintf(dir, sizeof dir, "%s/theirs", g_root);
        CHECK(mkdir(dir, 0700) == 0 && chown(dir, 65534, 65534) == 0);
        env_set(&b, "TH_SHM_MANAGER_DIR", dir);
        CHECK_INT_EQ(client_do(&b, 'R', seg("look", 2), msg), TH_ERR_IO);
        CHECK(has_text(msg, "is owned by uid 65534"));
    }
    client_exit(&b);
    CHECK(!seg_exists(seg("look", 2)));
}

/* ---- the end: every manager exited 0 and left nothing behind ------------------------------------ */

static bool killed_by_us(pid_t pid)
{
    for (int i = 0; i < g_nkilled; i++)
        if (g_killed[i] == pid) return true;
    return false;
}

/* Processes whose command line mentions our temporary directory. */
static int count_our_processes(void)
{
    DIR *d = opendir("/proc");
    if (!d) return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char path[300], buf[4096];
        snprintf(path, sizeof path, "/proc/%s/cmdline", e->d_name);
        int fd = open(path, O_RDONLY);
        if (fd < 0) continue;
        ssize_t r = read(fd, buf, sizeof buf - 1);
        close(fd);
        if (r <= 0) continue;
        for (ssize_t i = 0; i < r; i++)
            if (buf[i] == '\0') buf[i] = ' ';
        buf[r] = '\0';
        if (strstr(buf, "th-shm-manager") && strstr(buf, g_root)) {
            fprintf(stderr, "still running: pid %s: %s\n", e->d_name, buf);
            n++;
        }
    }
    closedir(d);
    return n;
}

static void test_all_managers_exit(void)
{
    int64_t end = now_ms() + WAIT_MS;
    int reaped = 0;
    for (;;) {
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG);
        if (pid > 0) {
            reaped++;
            if (!killed_by_us(pid) && !exited_ok(st)) {
                fprintf(stderr, "manager %ld: %s %d\n", (long)pid, WIFEXITED(st) ? "exit status" : "signal",
                        WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
                CHECK(0);
            }
            continue;
        }
        if (pid < 0 && errno == ECHILD) break;
        if (now_ms() > end) {
            CHECK(0 && "managers still running");
            break;
        }
        sleep_ms(5);
    }
    CHECK(reaped >= 3); /* several managers came and went */
    CHECK_INT_EQ(count_our_processes(), 0);
    /* the rendezvous directory keeps only its lock file: no rendezvous file, socket or private directory */
    DIR *d = opendir(g_dir);
    CHECK(d != NULL);
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strcmp(e->d_name, "lock")) {
            fprintf(stderr, "left in %s: %s\n", g_dir, e->d_name);
            CHECK(0);
        }
    }
    if (d) closedir(d);
    CHECK_INT_EQ(seg_count(""), 0);
}

static int rm_rf(const char *path)
{
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", path);
    return system(cmd);
}

int main(int argc, char **argv)
{
    const char *exe = argc > 1 ? argv[1] : getenv("TH_SHM_MANAGER");
    if (!exe || !realpath(exe, g_exe)) {
        fprintf(stderr, "usage: %s PATH-TO-th-shm-manager (or set TH_SHM_MANAGER)\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IONBF, 0);
    unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
    if (getenv("TH_TEST_SEED")) seed = (unsigned)strtoul(getenv("TH_TEST_SEED"), NULL, 10);
    snprintf(g_root, sizeof g_root, "/tmp/thsm-test-XXXXXX");
    if (!mkdtemp(g_root)) return 2;
    snprintf(g_dir, sizeof g_dir, "%s/rv", g_root);
    snprintf(g_prefix, sizeof g_prefix, "/thsmt%ldx%u_", (long)getpid(), seed % 100000u);
    setenv("TH_SHM_MANAGER", g_exe, 1);
    setenv("TH_SHM_MANAGER_DIR", g_dir, 1);
    setenv("TH_SHM_MANAGER_IDLE_MS", "150", 1);
    setenv("TH_SHM_MANAGER_TIMEOUT_MS", "30000", 1);
    if (getenv("TH_TEST_MANAGER_LOG")) setenv("TH_SHM_MANAGER_LOG", getenv("TH_TEST_MANAGER_LOG"), 1);
    signal(SIGPIPE, SIG_IGN);
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) {
        fprintf(stderr, "prctl(PR_SET_CHILD_SUBREAPER): %s\n", strerror(errno));
        return 2;
    }
    printf("test_shm_manager: manager %s, rendezvous %s, names %s*, seed %u\n", g_exe, g_dir, g_prefix, seed);

    struct {
        const char *name;
        void (*fn)(void);
    } tests[] = {
        {"bad_names", test_bad_names},
        {"kill_cleans_up", test_kill_cleans_up},
        {"unregister", test_unregister},
        {"shared_name", test_shared_name},
        {"release", test_release},
        {"many_clients", test_many_clients},
        {"threads", test_threads},
        {"fork", test_fork},
        {"manager_killed", test_manager_killed},
        {"manager_sigterm", test_manager_sigterm},
        {"stalled_manager", test_stalled_manager},
        {"fake_managers", test_fake_managers},
        {"raw_protocol", test_raw_protocol},
        {"fd_limit", test_fd_limit},
        {"other_user", test_other_user},
        {"lookup_and_dir", test_lookup_and_dir},
    };
    for (size_t i = 0; i < sizeof tests / sizeof *tests; i++) {
        int before = check_failures;
        int64_t t0 = now_ms();
        tests[i].fn();
        printf("  %-16s %s (%lld ms)\n", tests[i].name, check_failures == before ? "ok" : "FAILED",
               (long long)(now_ms() - t0));
    }
    {
        int before = check_failures;
        int64_t t0 = now_ms();
        test_kill_random(seed);
        printf("  %-16s %s (%lld ms, seed %u)\n", "kill_random", check_failures == before ? "ok" : "FAILED",
               (long long)(now_ms() - t0), seed);
    }
    int before = check_failures;
    test_all_managers_exit();
    printf("  %-16s %s\n", "managers_exit", check_failures == before ? "ok" : "FAILED");

    /* leave nothing behind, whatever failed */
    DIR *d = opendir("/dev/shm");
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strncmp(e->d_name, g_prefix + 1, strlen(g_prefix) - 1) == 0) {
            char name[300];
            snprintf(name, sizeof name, "/%s", e->d_name);
            shm_unlink(name);
        }
    }
    if (d) closedir(d);
    if (!check_failures) rm_rf(g_root);
    printf("test_shm_manager: %d checks, %d failed\n", check_count, check_failures);
    return check_failures ? 1 : 0;
}
