/* shm/manager_client.c: the client side of th-shm-manager (see manager_client.h and manager_protocol.h).
 *
 * One connection per process, opened by the first registration and kept until the process exits (the
 * manager learns of the death from that connection's end). Every call holds one mutex for its round trip,
 * so threads take turns; pthread_atfork makes a child of fork() drop its copy of the connection and the
 * list of names (its parent keeps both). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "manager_client.h"
#include "manager_protocol.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define MC_DEFAULT_TIMEOUT_MS 60000
#define MC_EXE_NAME "th-shm-manager"

/* ---- errors -------------------------------------------------------------------------------- */

/* tensor.h keeps th__fail private to its implementation, so the message lives here. Built with
 * -DTH_SHM_MANAGER_WITH_TH_SET_ERROR (where the program has th_set_error, which records an error the way
 * tensor.h does: "fn: detail", status, error hook), every error is recorded there as well, so that
 * th_last_error() and th_last_status() tell it too. */
#ifdef TH_SHM_MANAGER_WITH_TH_SET_ERROR
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int th_set_error(th_status status, const char *fn, const char *fmt, ...);
#endif

static _Thread_local char mc_message[512];

const char *th_shm_manager_last_error(void) { return mc_message; }

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int mc_fail(th_status status, const char *fn, const char *fmt, ...)
{
    int n = snprintf(mc_message, sizeof mc_message, "%s: ", fn);
    if (n < 0 || (size_t)n >= sizeof mc_message) n = 0;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(mc_message + n, sizeof mc_message - (size_t)n, fmt, ap);
    va_end(ap);
#ifdef TH_SHM_MANAGER_WITH_TH_SET_ERROR
    th_set_error(status, fn, "%s", mc_message + n);
#endif
    return status;
}

/* ---- state --------------------------------------------------------------------------------- */

typedef struct mc_name {
    struct mc_name *next;
    uint64_t hash;
    size_t len;
    char name[];
} mc_name;

typedef struct mc_state {
    pthread_mutex_t mu;
    int fd;             /* the connection, or -1 */
    pid_t owner;        /* the process the connection and the names belong to */
    pid_t manager_pid;  /* from HELLO_OK */
    uint32_t seq;
    char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    mc_name **buckets;  /* the names this process registered and has not unregistered */
    size_t nbuckets, count;
    bool lost;          /* a connection was lost: the next registration starts over */
} mc_state;

static mc_state mc = {.mu = PTHREAD_MUTEX_INITIALIZER, .fd = -1};
static pthread_once_t mc_once = PTHREAD_ONCE_INIT;

static void mc_free_names(void)
{
    for (size_t i = 0; i < mc.nbuckets; i++) {
        for (mc_name *n = mc.buckets[i], *next; n; n = next) {
            next = n->next;
            free(n);
        }
    }
    free(mc.buckets);
    mc.buckets = NULL;
    mc.nbuckets = mc.count = 0;
}

static void mc_atfork_prepare(void) { pthread_mutex_lock(&mc.mu); }
static void mc_atfork_parent(void) { pthread_mutex_unlock(&mc.mu); }
static void mc_atfork_child(void)
{
    /* The connection and the names are the parent's: a child holding the connection open would keep the
     * manager from cleaning up after a dead parent. The names are freed at the child's next call. */
    if (mc.fd >= 0) close(mc.fd);
    mc.fd = -1;
    mc.manager_pid = 0;
    mc.lost = false;
    pthread_mutex_unlock(&mc.mu);
}

static void mc_init_once(void) { pthread_atfork(mc_atfork_prepare, mc_atfork_parent, mc_atfork_child); }

/* Under mc.mu: make the state this process's (after fork, or after a clone that skipped the handlers). */
static void mc_own(void)
{
    pid_t self = getpid();
    if (mc.owner == self) return;
    if (mc.owner != 0) {
        if (mc.fd >= 0) close(mc.fd);
        mc.fd = -1;
        mc.manager_pid = 0;
        mc.lost = false;
        mc_free_names();
    }
    mc.owner = self;
}

static mc_name **mc_find(const char *name, size_t len, uint64_t hash)
{
    if (!mc.nbuckets) return NULL;
    mc_name **link = &mc.buckets[hash & (mc.nbuckets - 1)];
    for (; *link; link = &(*link)->next) {
        if ((*link)->hash == hash && (*link)->len == len && memcmp((*link)->name, name, len) == 0) return link;
    }
    return NULL;
}

/* Adds name; false when out of memory. */
static bool mc_add(const char *name, size_t len, uint64_t hash)
{
    if (mc.count + 1 > mc.nbuckets / 2) {
        size_t nb = mc.nbuckets ? mc.nbuckets * 2 : 64;
        mc_name **b = calloc(nb, sizeof *b);
        if (!b) return false;
        for (size_t i = 0; i < mc.nbuckets; i++) {
            for (mc_name *n = mc.buckets[i], *next; n; n = next) {
                next = n->next;
                n->next = b[n->hash & (nb - 1)];
                b[n->hash & (nb - 1)] = n;
            }
        }
        free(mc.buckets);
        mc.buckets = b;
        mc.nbuckets = nb;
    }
    mc_name *n = malloc(sizeof *n + len + 1);
    if (!n) return false;
    n->hash = hash;
    n->len = len;
    memcpy(n->name, name, len);
    n->name[len] = '\0';
    n->next = mc.buckets[hash & (mc.nbuckets - 1)];
    mc.buckets[hash & (mc.nbuckets - 1)] = n;
    mc.count++;
    return true;
}

static void mc_remove(mc_name **link)
{
    mc_name *n = *link;
    *link = n->next;
    free(n);
    mc.count--;
}

/* ---- time and environment ------------------------------------------------------------------ */

static int64_t mc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t mc_timeout_ms(void)
{
    const char *s = getenv("TH_SHM_MANAGER_TIMEOUT_MS");
    if (s && *s) {
        char *end;
        long long v = strtoll(s, &end, 10);
        if (*end == '\0' && v > 0 && v <= 24LL * 3600 * 1000) return v;
    }
    return MC_DEFAULT_TIMEOUT_MS;
}

static int mc_remaining(int64_t deadline)
{
    int64_t left = deadline - mc_now_ms();
    if (left < 0) return 0;
    return left > INT_MAX ? INT_MAX : (int)left;
}

static void mc_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* ---- the rendezvous directory ---------------------------------------------------------------- */

/* A directory that is ours alone: lstat shows a directory (not a symlink) owned by us, mode 0700 or less. */
static int mc_check_private_dir(const char *fn, const char *dir, const char *what)
{
    struct stat st;
    if (lstat(dir, &st) != 0)
        return mc_fail(TH_ERR_IO, fn, "th-shm-manager %s %s: %s", what, dir, strerror(errno));
    if (!S_ISDIR(st.st_mode))
        return mc_fail(TH_ERR_IO, fn, "th-shm-manager %s %s is not a directory (a symlink?)", what, dir);
    if (st.st_uid != geteuid())
        return mc_fail(TH_ERR_IO, fn, "th-shm-manager %s %s is owned by uid %ld, not by this user (%ld)", what, dir,
                       (long)st.st_uid, (long)geteuid());
    if (st.st_mode & 077)
        return mc_fail(TH_ERR_IO, fn, "th-shm-manager %s %s has mode %03o: others may enter it (want 0700)", what,
                       dir, (unsigned)(st.st_mode & 0777));
    return 0;
}

/* $XDG_RUNTIME_DIR when it is an absolute path to a directory of this user: under sudo it may still be the
 * invoking user's, and then /tmp/th-shm-<uid> serves instead. */
static bool mc_xdg_usable(const char *xdg)
{
    struct stat st;
    return xdg && xdg[0] == '/' && strlen(xdg) < PATH_MAX - 64 && stat(xdg, &st) == 0 && S_ISDIR(st.st_mode) &&
           st.st_uid == geteuid();
}

/* The rendezvous directory's absolute path into out (PATH_MAX), created 0700 when missing. */
static int mc_rendezvous_dir(const char *fn, char *out)
{
    const char *env = getenv("TH_SHM_MANAGER_DIR");
    const char *xdg = getenv("XDG_RUNTIME_DIR");
    int n;
    if (env && *env) {
        if (env[0] == '/') {
            n = snprintf(out, PATH_MAX, "%s", env);
        } else {
            char cwd[PATH_MAX];
            if (!getcwd(cwd, sizeof cwd))
                return mc_fail(TH_ERR_IO, fn, "th-shm-manager: TH_SHM_MANAGER_DIR=%s is relative and getcwd failed: %s",
                               env, strerror(errno));
            n = snprintf(out, PATH_MAX, "%s/%s", cwd, env);
        }
    } else if (mc_xdg_usable(xdg)) {
        n = snprintf(out, PATH_MAX, "%s/th-shm", xdg);
    } else {
        n = snprintf(out, PATH_MAX, "/tmp/th-shm-%ld", (long)geteuid());
    }
    if (n < 0 || n >= PATH_MAX - 64)
        return mc_fail(TH_ERR_IO, fn, "th-shm-manager rendezvous directory path is too long");
    while (n > 1 && out[n - 1] == '/') out[--n] = '\0';
    if (mkdir(out, 0700) != 0 && errno != EEXIST)
        return mc_fail(TH_ERR_IO, fn, "th-shm-manager rendezvous directory %s: mkdir: %s", out, strerror(errno));
    return mc_check_private_dir(fn, out, "rendezvous directory");
}

/* ---- messages over the connection ------------------------------------------------------------ */

typedef enum mc_io { MC_IO_OK, MC_IO_TIMEOUT, MC_IO_CLOSED, MC_IO_ERRNO, MC_IO_GARBAGE } mc_io;

typedef struct mc_result {
    mc_io io;
    int err;          /* MC_IO_ERRNO */
    const char *why;  /* MC_IO_GARBAGE */
} mc_result;

static mc_result mc_send_all(int fd, const unsigned char *buf, size_t n, int64_t deadline)
{
    mc_result r = {MC_IO_OK, 0, NULL};
    while (n) {
        ssize_t w = send(fd, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) {
            buf += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd p = {fd, POLLOUT, 0};
            int left = mc_remaining(deadline);
            if (left == 0) return (mc_result){MC_IO_TIMEOUT, 0, NULL};
            if (poll(&p, 1, left) < 0 && errno != EINTR) return (mc_result){MC_IO_ERRNO, errno, NULL};
            continue;
        }
        if (w < 0 && (errno == EPIPE || errno == ECONNRESET)) return (mc_result){MC_IO_CLOSED, errno, NULL};
        return (mc_result){MC_IO_ERRNO, w < 0 ? errno : EIO, NULL};
    }
    return r;
}

/* Reads one message from the manager into buf (TH__SHM_MAX_MESSAGE bytes), no byte past it. */
static mc_result mc_recv_msg(int fd, unsigned char *buf, th__shm_msg *msg, int64_t deadline)
{
    size_t have = 0, want = TH__SHM_HEADER_SIZE;
    for (;;) {
        size_t used;
        const char *why;
        int rc = th__shm_msg_parse(buf, have, TH__SHM_FROM_MANAGER, msg, &used, &why);
        if (rc == TH__SHM_PARSE_OK) return (mc_result){MC_IO_OK, 0, NULL};
        if (rc < 0) return (mc_result){MC_IO_GARBAGE, 0, why};
        if (have >= TH__SHM_HEADER_SIZE) want = TH__SHM_HEADER_SIZE + msg->length;
        ssize_t r = recv(fd, buf + have, want - have, MSG_DONTWAIT);
        if (r > 0) {
            have += (size_t)r;
            continue;
        }
        if (r == 0) return (mc_result){MC_IO_CLOSED, 0, NULL};
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
            struct pollfd p = {fd, POLLIN, 0};
            int left = mc_remaining(deadline);
            if (left == 0) return (mc_result){MC_IO_TIMEOUT, 0, NULL};
            if (poll(&p, 1, left) < 0 && errno != EINTR) return (mc_result){MC_IO_ERRNO, errno, NULL};
            continue;
        }
        if (errno == ECONNRESET) return (mc_result){MC_IO_CLOSED, errno, NULL};
        return (mc_result){MC_IO_ERRNO, errno, NULL};
    }
}

/* TH_ERR_IO naming the manager and what went wrong with it. */
static int mc_io_fail(const char *fn, mc_result r, pid_t pid, const char *path, int64_t timeout)
{
    char who[160];
    if (pid > 0)
        snprintf(who, sizeof who, "th-shm-manager (pid %ld, %s)", (long)pid, path);
    else
        snprintf(who, sizeof who, "th-shm-manager (%s)", path);
    switch (r.io) {
    case MC_IO_TIMEOUT:
        return mc_fail(TH_ERR_IO, fn, "%s did not answer within %lld ms (TH_SHM_MANAGER_TIMEOUT_MS): is it stopped?",
                       who, (long long)timeout);
    case MC_IO_CLOSED:
        return mc_fail(TH_ERR_IO, fn, "%s closed the connection: the manager is gone (exited or killed)", who);
    case MC_IO_GARBAGE: return mc_fail(TH_ERR_IO, fn, "%s answered garbage: %s", who, r.why);
    case MC_IO_ERRNO: return mc_fail(TH_ERR_IO, fn, "%s: %s", who, strerror(r.err));
    case MC_IO_OK: break;
    }
    return mc_fail(TH_ERR_IO, fn, "%s: unexpected state", who);
}

/* One request and its reply. type HELLO (name NULL), REGISTER, UNREGISTER or RELEASE. Returns 0 or a
 * th_status, and sets *broken when the connection is of no further use (lost, garbage, or closed by the
 * manager after a PROTOCOL, VERSION or PERMISSION error), and *gone (may be NULL) when the manager closed it
 * without a word: it exited or was killed. *value_out (may be NULL) gets HELLO_OK's pid or RELEASED's flag. */
static int mc_request(const char *fn, int fd, pid_t pid, const char *path, uint32_t type, const char *name,
                      size_t len, uint32_t *value_out, bool *broken, bool *gone)
{
    *broken = true;
    if (gone) *gone = false;
    unsigned char buf[TH__SHM_MAX_MESSAGE];
    uint32_t seq = ++mc.seq;
    size_t n = th__shm_msg_encode(buf, type, seq, name, name ? len : 0);
    int64_t timeout = mc_timeout_ms();
    int64_t deadline = mc_now_ms() + timeout;
    mc_result r = mc_send_all(fd, buf, n, deadline);
    th__shm_msg msg;
    if (r.io == MC_IO_OK) r = mc_recv_msg(fd, buf, &msg, deadline);
    if (gone) *gone = r.io == MC_IO_CLOSED;
    if (r.io != MC_IO_OK) return mc_io_fail(fn, r, pid, path, timeout);
    if (msg.seq != seq) {
        r = (mc_result){MC_IO_GARBAGE, 0, "a reply to another request (sequence number)"};
        return mc_io_fail(fn, r, pid, path, timeout);
    }
    if (msg.type == TH__SHM_ERROR) {
        char text[TH__SHM_TEXT_MAX + 1];
        memcpy(text, msg.text, msg.text_len);
        text[msg.text_len] = '\0';
        *broken = !(msg.code == TH__SHM_ERR_NOT_REGISTERED || msg.code == TH__SHM_ERR_NOMEM ||
                    msg.code == TH__SHM_ERR_LIMIT);
        switch (msg.code) {
        case TH__SHM_ERR_NOT_REGISTERED:
            return mc_fail(TH_ERR_INVALID, fn, "%s was not registered with th-shm-manager: %s", name, text);
        case TH__SHM_ERR_NOMEM: return mc_fail(TH_ERR_NOMEM, fn, "th-shm-manager: %s", text);
        case TH__SHM_ERR_LIMIT: return mc_fail(TH_ERR_IO, fn, "th-shm-manager refused %s: %s", name, text);
        default:
            return mc_fail(TH_ERR_IO, fn, "th-shm-manager (pid %ld) refused the request (code %u): %s", (long)pid,
                           (unsigned)msg.code, text);
        }
    }
    uint32_t expect = type == TH__SHM_HELLO ? TH__SHM_HELLO_OK : type == TH__SHM_RELEASE ? TH__SHM_RELEASED : TH__SHM_OK;
    if (msg.type != expect) {
        r = (mc_result){MC_IO_GARBAGE, 0, "a reply of the wrong type"};
        return mc_io_fail(fn, r, pid, path, timeout);
    }
    if (value_out) *value_out = msg.type == TH__SHM_RELEASED ? msg.unlinked : msg.pid;
    *broken = false;
    return 0;
}

/* ---- finding or starting the manager --------------------------------------------------------- */

static bool mc_executable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* Tries dir/th-shm-manager and dir/../libexec/th-shm-manager, dir being the directory of file. */
static bool mc_try_next_to(const char *file, char *out)
{
    const char *slash = strrchr(file, '/');
    if (!slash) return false;
    int dlen = (int)(slash - file);
    if (dlen == 0) dlen = 1; /* "/" */
    int n = snprintf(out, PATH_MAX, "%.*s/" MC_EXE_NAME, dlen, file);
    if (n > 0 && n < PATH_MAX && mc_executable(out)) return true;
    n = snprintf(out, PATH_MAX, "%.*s/../libexec/" MC_EXE_NAME, dlen, file);
    return n > 0 && n < PATH_MAX && mc_executable(out);
}

/* The manager executable into out (PATH_MAX); the lookup order is in manager_client.h. */
static int mc_find_executable(const char *fn, char *out)
{
    const char *env = getenv("TH_SHM_MANAGER");
    if (env && *env) {
        if (strlen(env) >= PATH_MAX || !mc_executable(env))
            return mc_fail(TH_ERR_IO, fn, "th-shm-manager: TH_SHM_MANAGER=%s is not an executable file", env);
        strcpy(out, env);
        return 0;
    }
    Dl_info info;
    if (dladdr(&mc, &info) && info.dli_fname && mc_try_next_to(info.dli_fname, out))
        return 0;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        if (mc_try_next_to(exe, out)) return 0;
    }
#ifdef TH_SHM_MANAGER_PATH
    if (strlen(TH_SHM_MANAGER_PATH) < PATH_MAX && mc_executable(TH_SHM_MANAGER_PATH)) {
        strcpy(out, TH_SHM_MANAGER_PATH);
        return 0;
    }
#endif
    const char *path = getenv("PATH");
    for (const char *p = path; p && *p;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int m = len ? snprintf(out, PATH_MAX, "%.*s/" MC_EXE_NAME, (int)len, p)
                    : snprintf(out, PATH_MAX, "./" MC_EXE_NAME);
        if (m > 0 && m < PATH_MAX && mc_executable(out)) return 0;
        if (!end) break;
        p = end + 1;
    }
    return mc_fail(TH_ERR_IO, fn,
                   "th-shm-manager not found: set TH_SHM_MANAGER to its path (looked next to this library, next to "
                   "the executable and in PATH)");
}

/* Starts the manager; on success its pid and socket path (sun_path-sized) are out. The manager reports
 * "OK <pid> <socket>\n" or "ERR <text>\n" on the pipe it gets as fd 3, then closes it. */
static int mc_spawn(const char *fn, const char *dir, pid_t *pid_out, char *path_out, int64_t deadline)
{
    char exe[PATH_MAX];
    int rc = mc_find_executable(fn, exe);
    if (rc) return rc;
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        return mc_fail(TH_ERR_IO, fn, "could not start th-shm-manager: pipe: %s", strerror(errno));
    /* Above 3 so the dup2 onto fd 3 in the child neither clobbers it nor is a no-op. */
    int wfd = fcntl(p[1], F_DUPFD_CLOEXEC, 10);
    close(p[1]);
    if (wfd < 0) {
        close(p[0]);
        return mc_fail(TH_ERR_IO, fn, "could not start th-shm-manager: fcntl: %s", strerror(errno));
    }
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawn_file_actions_adddup2(&fa, wfd, 3);
    sigset_t none, def;
    sigemptyset(&none);
    sigemptyset(&def);
    sigaddset(&def, SIGTERM);
    sigaddset(&def, SIGINT);
    sigaddset(&def, SIGHUP);
    sigaddset(&def, SIGPIPE);
    sigaddset(&def, SIGCHLD);
    posix_spawnattr_setsigmask(&attr, &none);
    posix_spawnattr_setsigdefault(&attr, &def);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
    char *argv[] = {exe, (char *)"--dir", (char *)dir, (char *)"--ready-fd", (char *)"3", NULL};
    pid_t child;
    int err = posix_spawn(&child, exe, &fa, &attr, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(wfd);
    if (err) {
        close(p[0]);
        return mc_fail(TH_ERR_IO, fn, "could not start th-shm-manager %s: %s", exe, strerror(err));
    }
    /* The manager forks and its first process exits at once; the daemon is reparented to init. */
    int status = 0;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
    char line[64 + sizeof(((struct sockaddr_un *)0)->sun_path) + TH__SHM_TEXT_MAX];
    size_t have = 0;
    bool timed_out = false;
    for (;;) {
        if (have && line[have - 1] == '\n') break;
        if (have == sizeof line - 1) break;
        struct pollfd pf = {p[0], POLLIN, 0};
        int left = mc_remaining(deadline);
        int pr = left ? poll(&pf, 1, left) : 0;
        if (pr < 0 && errno == EINTR) continue;
        if (pr == 0) {
            timed_out = true;
            break;
        }
        ssize_t r = read(p[0], line + have, sizeof line - 1 - have);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        have += (size_t)r;
    }
    close(p[0]);
    line[have] = '\0';
    if (have && line[have - 1] == '\n') line[--have] = '\0';
    if (timed_out)
        return mc_fail(TH_ERR_IO, fn, "th-shm-manager %s did not report ready within %lld ms", exe,
                       (long long)mc_timeout_ms());
    if (strncmp(line, "ERR ", 4) == 0)
        return mc_fail(TH_ERR_IO, fn, "th-shm-manager %s could not start: %s", exe, line + 4);
    long pid;
    int off = 0;
    if (sscanf(line, "OK %ld %n", &pid, &off) != 1 || off == 0 || pid <= 0 || line[off] != '/' ||
        strlen(line + off) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
        if (have == 0)
            return mc_fail(TH_ERR_IO, fn, "th-shm-manager %s exited without reporting (status %d)", exe, status);
        return mc_fail(TH_ERR_IO, fn, "th-shm-manager %s reported garbage: \"%.80s\"", exe, line);
    }
    *pid_out = (pid_t)pid;
    strcpy(path_out, line + off);
    return 0;
}

/* Reads the rendezvous file "th-shm-manager 1 <pid> <socket>\n"; false when missing or not believable. */
static bool mc_read_rendezvous(const char *file, pid_t *pid, char *path)
{
    int fd = open(file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st;
    char buf[512];
    ssize_t n = -1;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid()) n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return false;
    buf[n] = '\0';
    long v;
    int off = 0;
    if (sscanf(buf, "th-shm-manager 1 %ld %n", &v, &off) != 1 || off == 0 || v <= 0 || buf[off] != '/') return false;
    char *nl = strchr(buf + off, '\n');
    if (!nl || nl[1] != '\0') return false;
    *nl = '\0';
    if (strlen(buf + off) >= sizeof(((struct sockaddr_un *)0)->sun_path)) return false;
    *pid = (pid_t)v;
    strcpy(path, buf + off);
    return true;
}

static int mc_write_rendezvous(const char *fn, const char *dir, pid_t pid, const char *path)
{
    char tmp[PATH_MAX + 16], file[PATH_MAX + 16], text[300];
    /* One name for the temporary file will do: only the holder of the lock writes it. */
    snprintf(tmp, sizeof tmp, "%s/manager.tmp", dir);
    snprintf(file, sizeof file, "%s/manager", dir);
    int len = snprintf(text, sizeof text, "th-shm-manager 1 %ld %s\n", (long)pid, path);
    unlink(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return mc_fail(TH_ERR_IO, fn, "th-shm-manager rendezvous file %s: %s", tmp, strerror(errno));
    bool ok = write(fd, text, (size_t)len) == len;
    ok = close(fd) == 0 && ok;
    if (!ok || rename(tmp, file) != 0) {
        int e = errno;
        unlink(tmp);
        return mc_fail(TH_ERR_IO, fn, "th-shm-manager rendezvous file %s: %s", file, strerror(e));
    }
    return 0;
}

/* A dead manager's socket and private directory: removed when they look like one of ours. */
static void mc_remove_stale(const char *dir, const char *path)
{
    char sdir[sizeof(((struct sockaddr_un *)0)->sun_path)];
    strcpy(sdir, path);
    char *slash = strrchr(sdir, '/');
    if (!slash || strcmp(slash, "/socket") != 0) return;
    *slash = '\0';
    const char *base = strrchr(sdir, '/');
    size_t dlen = strlen(dir);
    bool in_dir = base && (size_t)(base - sdir) == dlen && strncmp(sdir, dir, dlen) == 0 && strncmp(base, "/m-", 3) == 0;
    bool in_tmp = strncmp(sdir, "/tmp/th-shm-m-", 14) == 0 && !strchr(sdir + 5, '/');
    if (!in_dir && !in_tmp) return;
    struct stat st;
    if (lstat(sdir, &st) != 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077)) return;
    unlink(path);
    rmdir(sdir);
}

/* Connects to path, checks the peer's uid and says HELLO. 0 with *fd_out, or MC_STALE (nothing listens),
 * or a th_status. */
#define MC_STALE 1
static int mc_connect(const char *fn, const char *path, pid_t pid, int *fd_out, pid_t *manager_pid, int64_t deadline)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return mc_fail(TH_ERR_IO, fn, "th-shm-manager: socket: %s", strerror(errno));
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    strcpy(sa.sun_path, path);
    int left = mc_remaining(deadline);
    if (left == 0) left = 1;
    struct timeval tv = {left / 1000, (left % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    int rc;
    while ((rc = connect(fd, (struct sockaddr *)&sa, sizeof sa)) != 0 && errno == EINTR) {
    }
    if (rc != 0) {
        int e = errno;
        close(fd);
        if (e == ECONNREFUSED || e == ENOENT || e == ENOTDIR) return MC_STALE;
        if (e == EAGAIN || e == EINPROGRESS)
            return mc_fail(TH_ERR_IO, fn, "th-shm-manager (pid %ld, %s) did not accept the connection in time",
                           (long)pid, path);
        return mc_fail(TH_ERR_IO, fn, "th-shm-manager (pid %ld): connect %s: %s", (long)pid, path, strerror(e));
    }
    struct ucred cred;
    socklen_t clen = sizeof cred;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0) {
        int e = errno;
        close(fd);
        return mc_fail(TH_ERR_IO, fn, "th-shm-manager socket %s: SO_PEERCRED: %s", path, strerror(e));
    }
    if (cred.uid != geteuid()) {
        close(fd);
        return mc_fail(TH_ERR_IO, fn, "th-shm-manager socket %s is served by uid %ld, not by this user (%ld): refused",
                       path, (long)cred.uid, (long)geteuid());
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    uint32_t mpid = 0;
    bool broken;
    rc = mc_request(fn, fd, pid, path, TH__SHM_HELLO, NULL, 0, &mpid, &broken, NULL);
    if (rc) {
        close(fd);
        return rc;
    }
    *fd_out = fd;
    *manager_pid = (pid_t)mpid;
    return 0;
}

/* Under mc.mu with no connection: connect to the user's manager, starting one if none answers, then
 * register again the names this process holds (after a lost manager). */
static int mc_ensure_connected(const char *fn)
{
    char dir[PATH_MAX], lockfile[PATH_MAX + 16], file[PATH_MAX + 16];
    int rc = mc_rendezvous_dir(fn, dir);
    if (rc) return rc;
    snprintf(lockfile, sizeof lockfile, "%s/lock", dir);
    snprintf(file, sizeof file, "%s/manager", dir);
    int64_t timeout = mc_timeout_ms();
    int64_t deadline = mc_now_ms() + timeout;

    int lock = open(lockfile, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (lock < 0) return mc_fail(TH_ERR_IO, fn, "th-shm-manager lock %s: %s", lockfile, strerror(errno));
    struct stat st;
    if (fstat(lock, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
        close(lock);
        return mc_fail(TH_ERR_IO, fn, "th-shm-manager lock %s is not a file of this user", lockfile);
    }
    for (int nap = 1;; nap = nap < 20 ? nap * 2 : 20) {
        if (flock(lock, LOCK_EX | LOCK_NB) == 0) break;
        if (errno != EWOULDBLOCK && errno != EINTR) {
            int e = errno;
            close(lock);
            return mc_fail(TH_ERR_IO, fn, "th-shm-manager lock %s: %s", lockfile, strerror(e));
        }
        if (mc_remaining(deadline) == 0) {
            close(lock);
            return mc_fail(TH_ERR_IO, fn,
                           "th-shm-manager lock %s still held after %lld ms (TH_SHM_MANAGER_TIMEOUT_MS): another "
                           "process is stuck starting the manager",
                           lockfile, (long long)timeout);
        }
        mc_sleep_ms(nap);
    }

    int fd = -1;
    pid_t pid = 0, mpid = 0;
    char path[sizeof mc.socket_path];
    rc = MC_STALE;
    if (mc_read_rendezvous(file, &pid, path)) {
        rc = mc_connect(fn, path, pid, &fd, &mpid, deadline);
        if (rc == MC_STALE) {
            unlink(file);
            mc_remove_stale(dir, path);
        }
    }
    if (rc == MC_STALE) {
        rc = mc_spawn(fn, dir, &pid, path, deadline);
        if (rc == 0) rc = mc_write_rendezvous(fn, dir, pid, path);
        if (rc == 0) {
            rc = mc_connect(fn, path, pid, &fd, &mpid, deadline);
            if (rc == MC_STALE)
                rc = mc_fail(TH_ERR_IO, fn, "th-shm-manager (pid %ld) started but nothing listens on %s", (long)pid, path);
        }
    }
    close(lock); /* releases the flock */
    if (rc) return rc;

    mc.fd = fd;
    mc.manager_pid = mpid;
    strcpy(mc.socket_path, path);
    if (mc.lost) {
        /* The names this process still holds, for the new manager to look after. A name it refuses (out of
         * memory, its limit) stays unguarded rather than costing the others their guard. */
        for (size_t i = 0; i < mc.nbuckets; i++) {
            for (mc_name *n = mc.buckets[i]; n; n = n->next) {
                bool broken;
                rc = mc_request(fn, mc.fd, mc.manager_pid, mc.socket_path, TH__SHM_REGISTER, n->name, n->len, NULL,
                                &broken, NULL);
                if (rc && broken) {
                    close(mc.fd);
                    mc.fd = -1;
                    mc.manager_pid = 0;
                    return rc;
                }
            }
        }
        mc.lost = false;
    }
    return 0;
}

static void mc_drop_connection(void)
{
    if (mc.fd >= 0) close(mc.fd);
    mc.fd = -1;
    mc.manager_pid = 0;
    mc.lost = true;
}

/* ---- the API ------------------------------------------------------------------------------- */

/* Copies name into copy (TH__SHM_NAME_MAX + 1 bytes) and checks the copy, which is all that is used after:
 * a caller's buffer that changes under us cannot make us send one name and book another. */
static int mc_check_name(const char *fn, const char *name, char *copy, size_t *len)
{
    if (!name) return mc_fail(TH_ERR_INVALID, fn, "name is NULL");
    *len = strnlen(name, TH__SHM_NAME_MAX + 1);
    memcpy(copy, name, *len);
    copy[*len < TH__SHM_NAME_MAX ? *len : TH__SHM_NAME_MAX] = '\0';
    const char *problem = th__shm_name_problem(copy, *len);
    if (problem) return mc_fail(TH_ERR_INVALID, fn, "segment name \"%.40s%s\" %s", copy, *len > 40 ? "..." : "", problem);
    return 0;
}

/* The client set up once, its lock taken (the caller unlocks) and the books owned by this process. */
static void mc_lock(void)
{
    pthread_once(&mc_once, mc_init_once);
    pthread_mutex_lock(&mc.mu);
    mc_own();
}

/* The start of a request about name: the name checked (mc_check_name), then mc_lock. Nothing is locked on
 * error. */
static int mc_begin(const char *fn, const char *name, char *copy, size_t *len)
{
    int rc = mc_check_name(fn, name, copy, len);
    if (!rc) mc_lock();
    return rc;
}

int th__shm_manager_register(const char *name)
{
    static const char fn[] = "th__shm_manager_register";
    char copy[TH__SHM_NAME_MAX + 1];
    size_t len;
    int rc = mc_begin(fn, name, copy, &len);
    if (rc) return rc;
    name = copy;
    uint64_t hash = th__shm_name_hash(name, len);
    bool added = false;
    if (!mc_find(name, len, hash)) {
        /* Recorded first: a manager that learns of the name always has it on our books too. */
        if (!mc_add(name, len, hash)) {
            pthread_mutex_unlock(&mc.mu);
            return mc_fail(TH_ERR_NOMEM, fn, "out of memory");
        }
        added = true;
    }
    /* A manager gone since the last request (killed, crashed, or SIGTERMed: while this process is connected it
     * never exits idle) is replaced, once, here: the registration comes first in every name share, and the
     * first share after such a loss should go through. Not after a time-out: a manager that does not answer
     * in time is still there, and a new one would not be found but that one again. */
    for (int attempt = 0; rc == 0; attempt++) {
        if (mc.fd < 0) rc = mc_ensure_connected(fn);
        if (rc) break;
        bool broken, gone;
        rc = mc_request(fn, mc.fd, mc.manager_pid, mc.socket_path, TH__SHM_REGISTER, name, len, NULL, &broken, &gone);
        if (rc && broken) mc_drop_connection();
        if (rc && gone && attempt == 0) {
            rc = 0;
            continue;
        }
        break;
    }
    if (rc && added) {
        mc_name **link = mc_find(name, len, hash);
        if (link) mc_remove(link);
    }
    pthread_mutex_unlock(&mc.mu);
    return rc;
}

/* UNREGISTER or RELEASE: drops name from this process's books and tells the manager. */
static int mc_let_go(const char *fn, const char *name, uint32_t type)
{
    char copy[TH__SHM_NAME_MAX + 1];
    size_t len;
    int rc = mc_begin(fn, name, copy, &len);
    if (rc) return rc;
    name = copy;
    mc_name **link = mc_find(name, len, th__shm_name_hash(name, len));
    if (!link) {
        pthread_mutex_unlock(&mc.mu);
        return mc_fail(TH_ERR_INVALID, fn, "%s was not registered by this process", name);
    }
    mc_remove(link);
    uint32_t unlinked = 0;
    if (mc.fd >= 0) {
        bool broken;
        rc = mc_request(fn, mc.fd, mc.manager_pid, mc.socket_path, type, name, len, &unlinked, &broken, NULL);
        if (rc && broken) mc_drop_connection();
    } else if (type == TH__SHM_RELEASE) {
        rc = mc_fail(TH_ERR_IO, fn,
                     "th-shm-manager was lost earlier: nobody can tell whether another process holds %s (left as is)",
                     name);
    }
    pthread_mutex_unlock(&mc.mu);
    return rc ? rc : (int)unlinked;
}

int th__shm_manager_unregister(const char *name)
{
    return mc_let_go("th__shm_manager_unregister", name, TH__SHM_UNREGISTER);
}

int th__shm_manager_release(const char *name)
{
    return mc_let_go("th__shm_manager_release", name, TH__SHM_RELEASE);
}

int th__shm_manager_pid(void)
{
    mc_lock();
    int pid = mc.fd >= 0 ? (int)mc.manager_pid : 0;
    pthread_mutex_unlock(&mc.mu);
    return pid;
}
