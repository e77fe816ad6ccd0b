/* shm/manager.c: th-shm-manager, the per-user daemon that unlinks the named shared memory segments of
 * processes that died without unlinking them. Clients: shm/manager_client.c; protocol:
 * shm/manager_protocol.h; the design in short in manager_client.h.
 *
 * USAGE
 *   th-shm-manager --dir DIR [--ready-fd N] [--idle-ms MS] [--foreground]
 *     DIR         the rendezvous directory (its "lock" file is what clients lock while they start or find a
 *                 manager); the socket goes into a new private directory DIR/m-XXXXXX (or
 *                 /tmp/th-shm-m-XXXXXX when DIR is too long for a socket path)
 *     --ready-fd  where to report "OK <pid> <socket>\n" once listening, or "ERR <text>\n" (the starting
 *                 client reads it from a pipe); without it the report goes to stdout
 *     --idle-ms   how long to wait with no clients before exiting (default $TH_SHM_MANAGER_IDLE_MS, else 2000)
 *     --foreground  do not fork and setsid (for debugging)
 *   $TH_SHM_MANAGER_LOG, when set, is a file the manager appends a line per event to.
 *
 * HOW
 *   One thread, epoll over the listening socket and every client; sockets non-blocking, one read per ready
 *   client per turn, replies queued and flushed as the client takes them, so a slow or stuck client holds
 *   up nobody. A client's registrations die with its process: when its connection ends (end of file,
 *   ECONNRESET), the manager asks the kernel whether the process (the peer's pid, SO_PEERCRED) is still
 *   alive. Dead (or a zombie): every name it registered that no other live client holds is shm_unlink()ed.
 *   Alive (it gave up waiting on a stopped or starved manager and closed the connection; or closed it by
 *   mistake): its registrations are kept, "parked", until the process exits (a pidfd in the epoll set;
 *   without pidfd_open, a check every MGR_PARK_POLL_MS), and a new connection of the same process takes them
 *   over. So a slow manager never costs a live process its segments. A protocol error ends a client at once,
 *   as a death does (the manager's own decision about a client that breaks the protocol). A peer whose pid
 *   the manager cannot see (another pid namespace: SO_PEERCRED gives 0) cannot be asked after: its end of
 *   file is taken for its death. A name registered by several clients goes when the last one does.
 *   UNREGISTER only drops a registration; RELEASE drops it and unlinks the name when that was its last
 *   registration, so the count of live registrations serves as a refcount that dead holders cannot leave
 *   too high. With no clients (and none parked) for the grace period the manager takes the
 *   rendezvous lock (so no client is between finding it and saying HELLO), accepts what is pending, and
 *   when still alone removes its socket, its directory and the rendezvous file (when that names it) and
 *   exits 0. SIGTERM, SIGINT and SIGHUP: the same cleanup, and the names still held are unlinked first.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "manager_protocol.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define MGR_DEFAULT_IDLE_MS 2000
#define MGR_MAX_NAMES (1u << 22)   /* distinct names held at once */
#define MGR_IN_BUFFER 4096         /* bytes read from a client at a time */
#define MGR_OUT_PAUSE 16384        /* stop reading a client whose unread replies reach this */
#define MGR_ACCEPT_BATCH 64        /* connections accepted per turn */
#define MGR_EVENTS 128
#define MGR_PARK_POLL_MS 200       /* how often a parked client without a pidfd is looked after */

/* ---- hash tables ---------------------------------------------------------------------------- */

typedef struct hnode {
    struct hnode *next;
    uint64_t hash;
} hnode;

typedef struct htab {
    hnode **b;
    size_t nb, n;
} htab;

/* Room for one more node; false when out of memory. */
static bool ht_reserve(htab *t)
{
    if (t->n + 1 <= t->nb / 2) return true;
    size_t nb = t->nb ? t->nb * 2 : 256;
    hnode **b = calloc(nb, sizeof *b);
    if (!b) return false;
    for (size_t i = 0; i < t->nb; i++) {
        for (hnode *x = t->b[i], *next; x; x = next) {
            next = x->next;
            x->next = b[x->hash & (nb - 1)];
            b[x->hash & (nb - 1)] = x;
        }
    }
    free(t->b);
    t->b = b;
    t->nb = nb;
    return true;
}

static void ht_insert(htab *t, hnode *x)
{
    hnode **slot = &t->b[x->hash & (t->nb - 1)];
    x->next = *slot;
    *slot = x;
    t->n++;
}

static void ht_remove(htab *t, hnode *x)
{
    for (hnode **link = &t->b[x->hash & (t->nb - 1)]; *link; link = &(*link)->next) {
        if (*link == x) {
            *link = x->next;
            t->n--;
            return;
        }
    }
}

/* ---- state ---------------------------------------------------------------------------------- */

typedef struct name_entry {
    hnode h;           /* first: in M.names */
    uint32_t holders;  /* live connections that registered it */
    uint16_t len;
    char name[];       /* NUL-terminated */
} name_entry;

struct conn;

typedef struct reg {
    hnode h;           /* first: in M.regs, keyed by (conn, name) */
    struct reg *prev, *next; /* the conn's registrations */
    name_entry *ne;
    struct conn *c;
} reg;

typedef struct conn {
    int fd;            /* -1 once closed (dead, or parked) */
    int pidfd;         /* parked: a pidfd of its process, readable when it exits; -1 if none */
    uint64_t id;
    pid_t pid;
    uint32_t events;   /* what epoll watches for it */
    bool dead, paused;
    bool parked;       /* its connection closed while its process lived: on M.parked */
    reg *regs;
    size_t nregs;
    size_t inlen, outlen, outcap;
    unsigned char *out;
    struct conn *prev, *next; /* all live conns, or M.parked's; dead ones wait on M.dead */
    unsigned char in[MGR_IN_BUFFER];
} conn;

static struct {
    char dir[PATH_MAX];
    char lock_path[PATH_MAX + 16];
    char rendezvous_path[PATH_MAX + 16];
    char rendezvous_tmp_path[PATH_MAX + 16];
    char private_dir[PATH_MAX];
    char socket_path[sizeof(((struct sockaddr_un *)0)->sun_path)];
    int lock_fd, listen_fd, epoll_fd, spare_fd, log_fd;
    int64_t idle_ms, idle_since, next_exit_try, listen_paused_until, next_park_check;
    uid_t uid;
    pid_t pid;
    uint64_t next_id;
    size_t nconns, nparked;
    conn *conns, *dead, *parked;
    htab names, regs;
    sigset_t wait_mask;
    char listen_tag;   /* epoll data for the listening socket */
} M = {.lock_fd = -1, .listen_fd = -1, .epoll_fd = -1, .spare_fd = -1, .log_fd = -1};

static volatile sig_atomic_t g_signal;

static void on_signal(int sig) { g_signal = sig; }

/* ---- log ------------------------------------------------------------------------------------ */

#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
static void mlog(const char *fmt, ...)
{
    if (M.log_fd < 0) return;
    char line[512];
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    int n = snprintf(line, sizeof line, "%lld.%03ld th-shm-manager[%ld]: ", (long long)ts.tv_sec,
                     ts.tv_nsec / 1000000, (long)getpid());
    if (n < 0 || n >= (int)sizeof line) n = 0;
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (m < 0) m = 0;
    n += m;
    if (n > (int)sizeof line - 2) n = (int)sizeof line - 2;
    line[n++] = '\n';
    ssize_t w = write(M.log_fd, line, (size_t)n);
    (void)w;
}

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- names and registrations ------------------------------------------------------------------ */

static name_entry *name_find(const char *name, size_t len, uint64_t hash)
{
    if (!M.names.nb) return NULL;
    for (hnode *x = M.names.b[hash & (M.names.nb - 1)]; x; x = x->next) {
        name_entry *ne = (name_entry *)x;
        if (x->hash == hash && ne->len == len && memcmp(ne->name, name, len) == 0) return ne;
    }
    return NULL;
}

static uint64_t reg_hash(const conn *c, const name_entry *ne)
{
    uint64_t h = ne->h.hash ^ (c->id * 0x9E3779B97F4A7C15ull);
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 32);
}

static reg *reg_find(const conn *c, const name_entry *ne)
{
    if (!M.regs.nb) return NULL;
    uint64_t h = reg_hash(c, ne);
    for (hnode *x = M.regs.b[h & (M.regs.nb - 1)]; x; x = x->next) {
        reg *r = (reg *)x;
        if (x->hash == h && r->c == c && r->ne == ne) return r;
    }
    return NULL;
}

/* Drops registration r; when it was the name's last, forgets the name, unlinking it first when unlink.
 * True when it was the last. */
static bool reg_drop(reg *r, bool unlink)
{
    conn *c = r->c;
    name_entry *ne = r->ne;
    if (r->prev)
        r->prev->next = r->next;
    else
        c->regs = r->next;
    if (r->next) r->next->prev = r->prev;
    c->nregs--;
    ht_remove(&M.regs, &r->h);
    free(r);
    if (--ne->holders == 0) {
        if (unlink) {
            if (shm_unlink(ne->name) == 0)
                mlog("unlinked %s", ne->name);
            else if (errno != ENOENT)
                mlog("could not unlink %s: %s", ne->name, strerror(errno));
        }
        ht_remove(&M.names, &ne->h);
        free(ne);
        return true;
    }
    return false;
}

/* 0, or a th__shm_error code. */
static uint32_t do_register(conn *c, const char *name, size_t len)
{
    uint64_t hash = th__shm_name_hash(name, len);
    name_entry *ne = name_find(name, len, hash);
    if (ne && reg_find(c, ne)) return 0;
    if (!ne && M.names.n >= MGR_MAX_NAMES) return TH__SHM_ERR_LIMIT;
    if (!ht_reserve(&M.regs) || (!ne && !ht_reserve(&M.names))) return TH__SHM_ERR_NOMEM;
    reg *r = malloc(sizeof *r);
    if (!r) return TH__SHM_ERR_NOMEM;
    if (!ne) {
        ne = malloc(sizeof *ne + len + 1);
        if (!ne) {
            free(r);
            return TH__SHM_ERR_NOMEM;
        }
        ne->h.hash = hash;
        ne->holders = 0;
        ne->len = (uint16_t)len;
        memcpy(ne->name, name, len);
        ne->name[len] = '\0';
        ht_insert(&M.names, &ne->h);
    }
    ne->holders++;
    r->ne = ne;
    r->c = c;
    r->h.hash = reg_hash(c, ne);
    ht_insert(&M.regs, &r->h);
    r->prev = NULL;
    r->next = c->regs;
    if (c->regs) c->regs->prev = r;
    c->regs = r;
    c->nregs++;
    return 0;
}

/* UNREGISTER (unlink false) or RELEASE (unlink true: *unlinked says whether it was the last holder's). */
static uint32_t do_unregister(conn *c, const char *name, size_t len, bool unlink, bool *unlinked)
{
    name_entry *ne = name_find(name, len, th__shm_name_hash(name, len));
    reg *r = ne ? reg_find(c, ne) : NULL;
    if (!r) return TH__SHM_ERR_NOT_REGISTERED;
    *unlinked = reg_drop(r, unlink) && unlink;
    return 0;
}

/* ---- connections ---------------------------------------------------------------------------- */

static void conn_watch(conn *c)
{
    uint32_t ev = (c->paused ? 0u : (uint32_t)EPOLLIN) | (c->outlen ? (uint32_t)EPOLLOUT : 0u);
    if (ev == c->events) return;
    struct epoll_event e = {.events = ev, .data.ptr = c};
    if (epoll_ctl(M.epoll_fd, EPOLL_CTL_MOD, c->fd, &e) == 0) c->events = ev;
}

static void list_remove(conn **head, conn *c)
{
    if (c->prev)
        c->prev->next = c->next;
    else
        *head = c->next;
    if (c->next) c->next->prev = c->prev;
    c->prev = c->next = NULL;
}

static void list_push(conn **head, conn *c)
{
    c->prev = NULL;
    c->next = *head;
    if (*head) (*head)->prev = c;
    *head = c;
}

/* The client is gone (its process died, or it was cut off): its names go, unlinked where nobody else holds
 * them. */
static void conn_kill(conn *c, const char *why)
{
    if (c->dead) return;
    size_t n = c->nregs;
    while (c->regs) reg_drop(c->regs, true);
    mlog("client pid %ld (connection %llu) %s; it held %zu names; %zu names left", (long)c->pid,
         (unsigned long long)c->id, why, n, M.names.n);
    if (c->fd >= 0) {
        epoll_ctl(M.epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
        close(c->fd);
        c->fd = -1;
    }
    if (c->pidfd >= 0) {
        epoll_ctl(M.epoll_fd, EPOLL_CTL_DEL, c->pidfd, NULL);
        close(c->pidfd);
        c->pidfd = -1;
    }
    c->dead = true;
    if (c->parked) {
        list_remove(&M.parked, c);
        M.nparked--;
    } else {
        list_remove(&M.conns, c);
        M.nconns--;
    }
    list_push(&M.dead, c);
}

/* Whether process pid is alive: not exited, not a zombie. Where the kernel has pidfd_open, *pidfd gets a
 * descriptor of a live one, which becomes readable when it exits (and pins it: its pid is not reused while
 * we hold it). A process of another user under the pid is a reuse: ours is dead. */
static bool process_alive(pid_t pid, int *pidfd)
{
    *pidfd = -1;
    if (pid <= 0) return false;
#if defined(SYS_pidfd_open) && !defined(TH_SHM_MANAGER_NO_PIDFD) /* the latter: to test the fallback */
    int fd = (int)syscall(SYS_pidfd_open, pid, 0); /* close-on-exec */
    if (fd >= 0) {
        struct pollfd p = {fd, POLLIN, 0};
        if (poll(&p, 1, 0) == 1) {
            close(fd);
            return false;
        }
        *pidfd = fd;
        return true;
    }
    if (errno == ESRCH) return false;
#endif
    if (kill(pid, 0) != 0) return false; /* ESRCH: gone; EPERM: the pid is someone else's now */
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    int fd2 = open(path, O_RDONLY | O_CLOEXEC);
    if (fd2 < 0) return true; /* no /proc: kill says it is there */
    ssize_t r = read(fd2, buf, sizeof buf - 1);
    close(fd2);
    if (r <= 0) return true;
    buf[r] = '\0';
    const char *paren = strrchr(buf, ')'); /* the state follows the command name, which may hold anything */
    return !(paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X'));
}

/* The connection ended from the client's side. Its process may still be alive (it gave up waiting on us and
 * closed it): then its names are parked, not unlinked, until the process exits or connects again. */
static void conn_gone(conn *c, const char *why)
{
    if (c->dead || c->parked) return;
    int pidfd = -1;
    if (c->nregs == 0 || !process_alive(c->pid, &pidfd)) {
        conn_kill(c, why);
        return;
    }
    epoll_ctl(M.epoll_fd, EPOLL_CTL_DEL, c->fd, NULL);
    close(c->fd);
    c->fd = -1;
    c->inlen = c->outlen = 0; /* replies to a closed connection: nobody to take them */
    c->paused = false;
    c->pidfd = pidfd;
    if (pidfd >= 0) {
        struct epoll_event e = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(M.epoll_fd, EPOLL_CTL_ADD, pidfd, &e) != 0) {
            close(pidfd);
            c->pidfd = -1; /* looked after by the periodic check instead */
        }
    }
    list_remove(&M.conns, c);
    M.nconns--;
    c->parked = true;
    list_push(&M.parked, c);
    M.nparked++;
    mlog("client pid %ld (connection %llu) %s, but the process is alive: its %zu names are kept until it exits "
         "or comes back", (long)c->pid, (unsigned long long)c->id, why, c->nregs);
}

/* Parked clients without a pidfd: the ones whose process has died go. */
static void parked_check(void)
{
    int64_t now = now_ms();
    if (now < M.next_park_check) return;
    M.next_park_check = now + MGR_PARK_POLL_MS;
    for (conn *c = M.parked, *next; c; c = next) {
        next = c->next;
        int pidfd = -1;
        if (c->pidfd >= 0) continue;
        if (!process_alive(c->pid, &pidfd)) {
            conn_kill(c, "exited (after its connection had closed)");
        } else if (pidfd >= 0) { /* pidfd_open failed before (out of descriptors, say) and works now */
            struct epoll_event e = {.events = EPOLLIN, .data.ptr = c};
            if (epoll_ctl(M.epoll_fd, EPOLL_CTL_ADD, pidfd, &e) == 0)
                c->pidfd = pidfd;
            else
                close(pidfd);
        }
    }
}

/* A new connection of a process with parked names takes them over, when that process still lives; a
 * parked client whose pid is there but whose process died goes now. The connection to keep, or NULL. */
static conn *parked_take(pid_t pid, int fd)
{
    if (pid <= 0) return NULL;
    for (conn *c = M.parked; c; c = c->next) {
        if (c->pid != pid) continue;
        bool alive;
        if (c->pidfd >= 0) {
            struct pollfd p = {c->pidfd, POLLIN, 0};
            alive = poll(&p, 1, 0) == 0;
        } else {
            int pidfd = -1;
            alive = process_alive(pid, &pidfd);
            if (pidfd >= 0) close(pidfd);
        }
        if (!alive) {
            conn_kill(c, "exited (after its connection had closed)");
            return NULL;
        }
        if (c->pidfd >= 0) {
            epoll_ctl(M.epoll_fd, EPOLL_CTL_DEL, c->pidfd, NULL);
            close(c->pidfd);
            c->pidfd = -1;
        }
        struct epoll_event e = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(M.epoll_fd, EPOLL_CTL_ADD, fd, &e) != 0) return NULL; /* stays parked */
        c->fd = fd;
        c->events = EPOLLIN;
        c->parked = false;
        list_remove(&M.parked, c);
        M.nparked--;
        list_push(&M.conns, c);
        M.nconns++;
        mlog("client pid %ld came back (connection %llu): its %zu names are its again", (long)pid,
             (unsigned long long)c->id, c->nregs);
        return c;
    }
    return NULL;
}

/* Dead, or parked: no connection to read or answer. */
static bool conn_closed(const conn *c) { return c->dead || c->parked; }

static void conn_free_dead(void)
{
    for (conn *c = M.dead, *next; c; c = next) {
        next = c->next;
        free(c->out);
        free(c);
    }
    M.dead = NULL;
}

/* Queues a reply; false (and the connection killed) when out of memory. */
static bool conn_queue(conn *c, const unsigned char *msg, size_t n)
{
    if (c->outlen + n > c->outcap) {
        size_t cap = c->outcap ? c->outcap : 1024;
        while (cap < c->outlen + n) cap *= 2;
        unsigned char *out = realloc(c->out, cap);
        if (!out) {
            conn_gone(c, "lost: out of memory for its replies");
            return false;
        }
        c->out = out;
        c->outcap = cap;
    }
    memcpy(c->out + c->outlen, msg, n);
    c->outlen += n;
    return true;
}

/* Sends what is queued, as far as the socket takes it. */
static void conn_flush(conn *c)
{
    size_t done = 0;
    while (done < c->outlen) {
        ssize_t w = send(c->fd, c->out + done, c->outlen - done, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) {
            done += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR) continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
        conn_gone(c, w < 0 && (errno == EPIPE || errno == ECONNRESET) ? "disconnected" : "lost: send failed");
        return;
    }
    memmove(c->out, c->out + done, c->outlen - done);
    c->outlen -= done;
}

/* A bad message: the client gets an ERROR, one try to send it, and the connection goes. */
static void conn_protocol_error(conn *c, uint32_t code, uint32_t seq, const char *why)
{
    unsigned char msg[TH__SHM_MAX_MESSAGE];
    size_t n = th__shm_msg_encode_error(msg, seq, code, why);
    mlog("client pid %ld: protocol error: %s", (long)c->pid, why);
    if (conn_queue(c, msg, n)) conn_flush(c);
    char what[TH__SHM_TEXT_MAX + 32];
    snprintf(what, sizeof what, "cut off: %s", why);
    conn_kill(c, what);
}

static void conn_handle(conn *c, const th__shm_msg *m)
{
    unsigned char out[TH__SHM_MAX_MESSAGE];
    size_t n;
    uint32_t err = 0;
    bool unlinked = false;
    switch (m->type) {
    case TH__SHM_HELLO: {
        unsigned char pid[4];
        th__shm_put_u32(pid, (uint32_t)M.pid);
        n = th__shm_msg_encode(out, TH__SHM_HELLO_OK, m->seq, pid, 4);
        conn_queue(c, out, n);
        return;
    }
    case TH__SHM_REGISTER: err = do_register(c, m->name, m->name_len); break;
    case TH__SHM_UNREGISTER: err = do_unregister(c, m->name, m->name_len, false, &unlinked); break;
    case TH__SHM_RELEASE: err = do_unregister(c, m->name, m->name_len, true, &unlinked); break;
    default: err = TH__SHM_ERR_PROTOCOL; break; /* the parser lets no other type through */
    }
    if (err == 0 && m->type == TH__SHM_RELEASE) {
        unsigned char flag[4];
        th__shm_put_u32(flag, unlinked ? 1u : 0u);
        n = th__shm_msg_encode(out, TH__SHM_RELEASED, m->seq, flag, 4);
    } else if (err == 0)
        n = th__shm_msg_encode(out, TH__SHM_OK, m->seq, NULL, 0);
    else
        n = th__shm_msg_encode_error(out, m->seq, err,
                                     err == TH__SHM_ERR_NOT_REGISTERED ? "this connection did not register that name"
                                     : err == TH__SHM_ERR_LIMIT        ? "the manager holds too many names"
                                     : err == TH__SHM_ERR_NOMEM        ? "the manager is out of memory"
                                                                       : "unexpected message");
    conn_queue(c, out, n);
}

/* Answers the complete messages buffered, until the replies pile up. */
static void conn_process(conn *c)
{
    size_t off = 0;
    while (!conn_closed(c) && c->outlen < MGR_OUT_PAUSE) {
        th__shm_msg m;
        size_t used;
        const char *why;
        int rc = th__shm_msg_parse(c->in + off, c->inlen - off, TH__SHM_FROM_CLIENT, &m, &used, &why);
        if (rc == TH__SHM_PARSE_MORE) break;
        if (rc < 0) {
            conn_protocol_error(c, rc == TH__SHM_PERR_VERSION ? TH__SHM_ERR_VERSION : TH__SHM_ERR_PROTOCOL, m.seq,
                                why);
            return;
        }
        conn_handle(c, &m);
        off += used;
    }
    if (conn_closed(c)) return;
    memmove(c->in, c->in + off, c->inlen - off);
    c->inlen -= off;
    c->paused = c->outlen >= MGR_OUT_PAUSE;
}

/* Flushes replies and answers what is buffered, as long as the client takes the replies. */
static void conn_pump(conn *c)
{
    for (;;) {
        if (c->outlen) conn_flush(c);
        if (conn_closed(c) || !c->paused || c->outlen) return;
        c->paused = false;
        conn_process(c);
        if (conn_closed(c)) return;
    }
}

static void conn_read(conn *c)
{
    if (c->inlen == sizeof c->in) { /* cannot be: a full buffer always holds a complete message */
        conn_protocol_error(c, TH__SHM_ERR_PROTOCOL, 0, "input buffer overflow");
        return;
    }
    ssize_t r;
    do {
        r = recv(c->fd, c->in + c->inlen, sizeof c->in - c->inlen, MSG_DONTWAIT);
    } while (r < 0 && errno == EINTR);
    if (r > 0) {
        c->inlen += (size_t)r;
        conn_process(c);
        return;
    }
    if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
    if (r == 0 && c->inlen) {
        char why[96];
        snprintf(why, sizeof why, "truncated message: the connection ended after %zu bytes of one", c->inlen);
        conn_protocol_error(c, TH__SHM_ERR_PROTOCOL, 0, why);
        return;
    }
    conn_gone(c, r == 0 ? "disconnected" : errno == ECONNRESET ? "disconnected (reset)" : "lost: recv failed");
}

static void conn_event(conn *c, uint32_t events)
{
    if (c->dead) return;
    if (c->parked) { /* its pidfd: the process has exited */
        conn_kill(c, "exited (after its connection had closed)");
        return;
    }
    conn_pump(c);
    if (conn_closed(c)) return;
    if (!c->paused && (events & (EPOLLIN | EPOLLHUP | EPOLLERR))) {
        conn_read(c);
        if (!conn_closed(c)) conn_pump(c);
    }
    if (!conn_closed(c)) conn_watch(c);
}

/* Sends a one-off ERROR on a connection never taken on, and closes it. */
static void refuse(int fd, uint32_t code, const char *why)
{
    unsigned char msg[TH__SHM_MAX_MESSAGE];
    size_t n = th__shm_msg_encode_error(msg, 0, code, why);
    ssize_t w = send(fd, msg, n, MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)w;
    close(fd);
}

/* accept fails for want of descriptors or memory: stop watching the listening socket for a while rather than
 * spin on it (clients wait in the backlog meanwhile). */
static void listen_pause(int err)
{
    if (M.listen_paused_until) return;
    struct epoll_event e = {.events = 0, .data.ptr = &M.listen_tag};
    epoll_ctl(M.epoll_fd, EPOLL_CTL_MOD, M.listen_fd, &e);
    M.listen_paused_until = now_ms() + 100;
    mlog("accept: %s: not accepting for 100 ms", strerror(err));
}

static void listen_resume(void)
{
    struct epoll_event e = {.events = EPOLLIN, .data.ptr = &M.listen_tag};
    epoll_ctl(M.epoll_fd, EPOLL_CTL_MOD, M.listen_fd, &e);
    M.listen_paused_until = 0;
}

static void accept_some(void)
{
    for (int i = 0; i < MGR_ACCEPT_BATCH; i++) {
        int fd = accept4(M.listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED) continue;
            if ((errno == EMFILE || errno == ENFILE) && M.spare_fd >= 0) {
                /* Out of descriptors: take the connection with the spare one and close it, so the client
                 * hears at once instead of waiting in the backlog. */
                close(M.spare_fd);
                M.spare_fd = -1;
                fd = accept4(M.listen_fd, NULL, NULL, SOCK_CLOEXEC);
                if (fd >= 0) refuse(fd, TH__SHM_ERR_LIMIT, "the manager is out of file descriptors");
                M.spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
                mlog("out of file descriptors: refused a client");
                continue;
            }
            if (errno != EAGAIN && errno != EWOULDBLOCK) listen_pause(errno);
            return;
        }
        struct ucred cred;
        socklen_t clen = sizeof cred;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0) {
            close(fd);
            continue;
        }
        if (cred.uid != M.uid) {
            mlog("refused pid %ld of uid %ld", (long)cred.pid, (long)cred.uid);
            refuse(fd, TH__SHM_ERR_PERMISSION, "permission denied: the manager serves only its own user");
            continue;
        }
        if (parked_take(cred.pid, fd)) continue;
        conn *c = calloc(1, sizeof *c);
        if (!c) {
            refuse(fd, TH__SHM_ERR_NOMEM, "the manager is out of memory");
            continue;
        }
        c->fd = fd;
        c->pidfd = -1;
        c->id = ++M.next_id;
        c->pid = cred.pid;
        c->events = EPOLLIN;
        struct epoll_event e = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(M.epoll_fd, EPOLL_CTL_ADD, fd, &e) != 0) {
            free(c);
            refuse(fd, TH__SHM_ERR_NOMEM, "the manager could not watch the connection");
            continue;
        }
        list_push(&M.conns, c);
        M.nconns++;
        mlog("client pid %ld connected (connection %llu, %zu clients)", (long)c->pid, (unsigned long long)c->id,
             M.nconns);
    }
}

/* ---- start and end -------------------------------------------------------------------------- */

/* Removes the rendezvous file when it still names this manager. */
static void remove_rendezvous(void)
{
    char want[300], have[300];
    int wn = snprintf(want, sizeof want, "th-shm-manager 1 %ld %s\n", (long)M.pid, M.socket_path);
    int fd = open(M.rendezvous_path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;
    ssize_t n = read(fd, have, sizeof have);
    close(fd);
    if (n == wn && memcmp(have, want, (size_t)wn) == 0) unlink(M.rendezvous_path);
}

static void remove_socket(void)
{
    if (M.listen_fd >= 0) close(M.listen_fd);
    M.listen_fd = -1;
    if (M.socket_path[0]) unlink(M.socket_path);
    if (M.private_dir[0]) rmdir(M.private_dir);
    M.socket_path[0] = M.private_dir[0] = '\0';
}

/* Everything the manager holds goes: connections, names (unlinked when unlink), tables. */
static void teardown(bool unlink)
{
    while (M.conns || M.parked) {
        conn *c = M.conns ? M.conns : M.parked;
        if (!unlink) {
            while (c->regs) reg_drop(c->regs, false);
        }
        conn_kill(c, "dropped: the manager is exiting");
    }
    conn_free_dead();
    free(M.names.b);
    free(M.regs.b);
    M.names = M.regs = (htab){0};
    if (M.epoll_fd >= 0) close(M.epoll_fd);
    if (M.spare_fd >= 0) close(M.spare_fd);
    if (M.lock_fd >= 0) close(M.lock_fd);
    M.epoll_fd = M.spare_fd = M.lock_fd = -1;
}

/* Idle for the grace period: exit unless a client is on its way. True when it is time to exit. */
static bool try_exit_idle(void)
{
    if (flock(M.lock_fd, LOCK_EX | LOCK_NB) != 0) return false; /* a client is finding or starting a manager */
    accept_some();
    if (M.nconns || M.nparked) {
        flock(M.lock_fd, LOCK_UN);
        return false;
    }
    remove_rendezvous();
    remove_socket();
    unlink(M.rendezvous_tmp_path); /* left by a client killed while writing the rendezvous file */
    flock(M.lock_fd, LOCK_UN);
    mlog("idle for %lld ms: exiting", (long long)M.idle_ms);
    return true;
}

/* A signal (or a failing epoll): tidy up, unlinking every name still held. */
static void exit_now(const char *why)
{
    mlog("%s: unlinking %zu names and exiting", why, M.names.n);
    bool locked = false;
    for (int i = 0; M.lock_fd >= 0 && i < 100 && !locked; i++) {
        locked = flock(M.lock_fd, LOCK_EX | LOCK_NB) == 0;
        if (!locked) {
            struct timespec ts = {0, 2000000};
            nanosleep(&ts, NULL);
        }
    }
    remove_rendezvous(); /* first, so clients from now on start a new manager */
    remove_socket();
    teardown(true);      /* closes the lock file, which releases the lock */
}

static int run(void)
{
    struct epoll_event evs[MGR_EVENTS];
    for (;;) {
        if (g_signal) {
            char why[32];
            snprintf(why, sizeof why, "signal %d", (int)g_signal);
            exit_now(why);
            return 0;
        }
        int timeout = -1;
        if (M.nparked) {
            parked_check();
            for (conn *c = M.parked; c; c = c->next) {
                if (c->pidfd >= 0) continue; /* the others wake us when their process exits */
                int64_t wait = M.next_park_check - now_ms();
                timeout = wait <= 0 ? 0 : wait > INT_MAX ? INT_MAX : (int)wait;
                break;
            }
        }
        if (M.nconns == 0 && M.nparked == 0) {
            int64_t now = now_ms();
            if (M.idle_since < 0) M.idle_since = now;
            int64_t due = M.idle_since + M.idle_ms;
            if (due < M.next_exit_try) due = M.next_exit_try;
            if (now >= due) {
                if (try_exit_idle()) {
                    teardown(false);
                    return 0;
                }
                M.next_exit_try = now + 20;
                continue;
            }
            timeout = due - now > INT_MAX ? INT_MAX : (int)(due - now);
        } else {
            M.idle_since = -1;
        }
        if (M.listen_paused_until) {
            int64_t wait = M.listen_paused_until - now_ms();
            if (wait <= 0) {
                listen_resume();
                continue;
            }
            if (timeout < 0 || wait < timeout) timeout = (int)wait;
        }
        int n = epoll_pwait(M.epoll_fd, evs, MGR_EVENTS, timeout, &M.wait_mask);
        if (n < 0) {
            if (errno == EINTR) continue;
            exit_now(strerror(errno));
            return 1;
        }
        for (int i = 0; i < n; i++) {
            if (evs[i].data.ptr == &M.listen_tag)
                accept_some();
            else
                conn_event(evs[i].data.ptr, evs[i].events);
        }
        conn_free_dead();
    }
}

static void close_inherited_fds(int keep)
{
    /* Whatever the starter left open (a test harness's pipes, say) must not stay open for our lifetime. */
#ifdef SYS_close_range
    if (keep < 0 || keep < 3) {
        if (syscall(SYS_close_range, 3u, ~0u, 0) == 0) return;
    } else {
        bool ok = keep == 3 || syscall(SYS_close_range, 3u, (unsigned)keep - 1, 0) == 0;
        if (ok && syscall(SYS_close_range, (unsigned)keep + 1, ~0u, 0) == 0) return;
    }
#endif
    struct rlimit rl;
    long max = getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY ? (long)rl.rlim_cur : 65536;
    if (max > 65536) max = 65536;
    for (long fd = 3; fd < max; fd++) {
        if (fd != keep) close((int)fd);
    }
}

/* Reports to the starter (ready_fd) or stdout; closes ready_fd. */
static void report(int ready_fd, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (n >= (int)sizeof line) n = (int)sizeof line - 1;
    int fd = ready_fd >= 0 ? ready_fd : 1;
    ssize_t w = write(fd, line, (size_t)n);
    (void)w;
    if (ready_fd >= 0) close(ready_fd);
}

static int fail_start(int ready_fd, const char *what, int err)
{
    if (err)
        report(ready_fd, "ERR %s: %s\n", what, strerror(err));
    else
        report(ready_fd, "ERR %s\n", what);
    fprintf(stderr, "th-shm-manager: %s%s%s\n", what, err ? ": " : "", err ? strerror(err) : "");
    remove_socket();
    teardown(false);
    return 1;
}

static bool parse_int(const char *s, long long lo, long long hi, long long *out)
{
    if (!s || !*s) return false;
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || *end || v < lo || v > hi) return false;
    *out = v;
    return true;
}

static void usage(FILE *f)
{
    fputs("usage: th-shm-manager --dir DIR [--ready-fd N] [--idle-ms MS] [--foreground]\n"
          "Unlinks the POSIX shared memory segments (\"name\" strategy) of client processes that die.\n"
          "Started on demand by clients (see shm/manager_client.h); not normally run by hand.\n",
          f);
}

int main(int argc, char **argv)
{
    const char *dir = NULL;
    int ready_fd = -1;
    bool foreground = false;
    long long v;
    M.idle_ms = MGR_DEFAULT_IDLE_MS;
    const char *idle_env = getenv("TH_SHM_MANAGER_IDLE_MS");
    if (idle_env && parse_int(idle_env, 0, 24LL * 3600 * 1000, &v)) M.idle_ms = v;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--ready-fd") == 0 && i + 1 < argc && parse_int(argv[i + 1], 0, INT_MAX, &v)) {
            ready_fd = (int)v;
            i++;
        } else if (strcmp(argv[i], "--idle-ms") == 0 && i + 1 < argc &&
                   parse_int(argv[i + 1], 0, 24LL * 3600 * 1000, &v)) {
            M.idle_ms = v;
            i++;
        } else if (strcmp(argv[i], "--foreground") == 0) {
            foreground = true;
        } else if (strcmp(argv[i], "--version") == 0) {
            printf("th-shm-manager (tensor.h) protocol %u\n", TH__SHM_VERSION);
            return 0;
        } else if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "th-shm-manager: bad argument %s\n", argv[i]);
            usage(stderr);
            if (ready_fd >= 0) report(ready_fd, "ERR bad argument %s\n", argv[i]);
            return 2;
        }
    }
    if (ready_fd >= 0 && fcntl(ready_fd, F_GETFD) < 0) {
        fprintf(stderr, "th-shm-manager: --ready-fd %d is not open\n", ready_fd);
        return 2;
    }
    if (!dir || !*dir) {
        usage(stderr);
        if (ready_fd >= 0) report(ready_fd, "ERR no --dir\n");
        return 2;
    }
    close_inherited_fds(ready_fd);
    umask(077);
    M.uid = geteuid();

    /* Signals: SIGPIPE ignored; SIGTERM, SIGINT and SIGHUP blocked except while waiting in epoll_pwait. */
    sigset_t all;
    sigemptyset(&all);
    sigprocmask(SIG_SETMASK, &all, NULL);
    signal(SIGPIPE, SIG_IGN);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigset_t term;
    sigemptyset(&term);
    sigaddset(&term, SIGTERM);
    sigaddset(&term, SIGINT);
    sigaddset(&term, SIGHUP);
    sigprocmask(SIG_BLOCK, &term, &M.wait_mask); /* wait_mask: the mask without them */
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    if (dir[0] != '/') {
        if (!realpath(dir, M.dir)) return fail_start(ready_fd, "--dir", errno);
    } else if (snprintf(M.dir, sizeof M.dir, "%s", dir) >= (int)sizeof M.dir) {
        return fail_start(ready_fd, "--dir is too long", 0);
    }
    snprintf(M.lock_path, sizeof M.lock_path, "%s/lock", M.dir);
    snprintf(M.rendezvous_path, sizeof M.rendezvous_path, "%s/manager", M.dir);
    snprintf(M.rendezvous_tmp_path, sizeof M.rendezvous_tmp_path, "%s/manager.tmp", M.dir);
    struct stat st;
    if (lstat(M.dir, &st) != 0) return fail_start(ready_fd, M.dir, errno);
    if (!S_ISDIR(st.st_mode) || st.st_uid != M.uid || (st.st_mode & 077))
        return fail_start(ready_fd, "the rendezvous directory is not a directory of this user with mode 0700", 0);

    const char *log = getenv("TH_SHM_MANAGER_LOG");
    if (log && *log) M.log_fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);

    /* Detach: the first process returns to the starter at once, the second leads a new session, so no
     * terminal's hangup or the starter's process group reaches it and it outlives the starter. */
    if (!foreground) {
        pid_t child = fork();
        if (child < 0) return fail_start(ready_fd, "fork", errno);
        if (child > 0) _exit(0);
        setsid();
    }
    M.pid = getpid();
    if (chdir("/") != 0) { /* keep no directory busy */
    }

    M.lock_fd = open(M.lock_path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (M.lock_fd < 0) return fail_start(ready_fd, M.lock_path, errno);

    /* The socket, in a private directory: in DIR when the path fits a socket address, else in /tmp. */
    int n = snprintf(M.private_dir, sizeof M.private_dir, "%s/m-XXXXXX", M.dir);
    if (n < 0 || (size_t)n + sizeof "/socket" > sizeof M.socket_path)
        snprintf(M.private_dir, sizeof M.private_dir, "/tmp/th-shm-m-XXXXXX");
    if (!mkdtemp(M.private_dir)) {
        int e = errno;
        M.private_dir[0] = '\0';
        return fail_start(ready_fd, "mkdtemp", e);
    }
    size_t plen = strlen(M.private_dir); /* fits: checked above */
    memcpy(M.socket_path, M.private_dir, plen);
    memcpy(M.socket_path + plen, "/socket", sizeof "/socket");
    M.listen_fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (M.listen_fd < 0) return fail_start(ready_fd, "socket", errno);
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    strcpy(addr.sun_path, M.socket_path);
    if (bind(M.listen_fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
        int e = errno;
        M.socket_path[0] = '\0';
        return fail_start(ready_fd, "bind", e);
    }
    if (listen(M.listen_fd, SOMAXCONN) != 0) return fail_start(ready_fd, "listen", errno);

    /* As many descriptors as we may have: one per client. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    M.spare_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    M.epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (M.epoll_fd < 0) return fail_start(ready_fd, "epoll_create1", errno);
    struct epoll_event e = {.events = EPOLLIN, .data.ptr = &M.listen_tag};
    if (epoll_ctl(M.epoll_fd, EPOLL_CTL_ADD, M.listen_fd, &e) != 0) return fail_start(ready_fd, "epoll_ctl", errno);

    M.idle_since = -1;
    mlog("listening on %s (rendezvous %s, idle %lld ms)", M.socket_path, M.dir, (long long)M.idle_ms);
    report(ready_fd, "OK %ld %s\n", (long)M.pid, M.socket_path);
    int rc = run();
    if (M.log_fd >= 0) close(M.log_fd);
    return rc;
}
