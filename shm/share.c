/* shm/share.c: moving storages into shared memory, and handing tensors to other processes by name handle or
 * by descriptor over a Unix domain socket. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "shm_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

/* ---- sharing ------------------------------------------------------------------------------------------ */

int th__shm_share_storage(const char *fn, th_storage *storage, th_shm_strategy strategy)
{
    if (!storage) return th_set_error(TH_ERR_INVALID, fn, "NULL tensor or storage");
    /* Noted each time, not only when moved: a storage made with th_shm_allocator is shared from the start,
     * and this is still the first time it is asked for a handle. */
    if (th_storage_is_shared(storage)) {
        th__shm_note_storage(storage);
        return TH_OK;
    }
    const th_allocator *a = th_shm_allocator(strategy);
    if (!a) return th_set_error(TH_ERR_INVALID, fn, "%d is no strategy (TH_SHM_FD or TH_SHM_NAME)", (int)strategy);
    const char *previous = th__shm_set_caller(fn);
    th__shm_forget_error();
    int rc = th_storage_move_to(storage, a, NULL);
    th__shm_set_caller(previous);
    if (rc == TH_OK) {
        th__shm_note_storage(storage);
        return TH_OK;
    }
    /* th_storage_move_to reported the allocator's failure in its own words: say what really went wrong. */
    int again = th__shm_refail(fn);
    if (again != TH_OK) return again;
    char why[512];
    snprintf(why, sizeof why, "%s", th_last_error());
    return th_set_error((th_status)rc, fn, "%s", why);
}

int th_storage_share_memory(th_storage *storage)
{
    return th__shm_share_storage("th_storage_share_memory", storage, TH_SHM_DEFAULT);
}

int th_storage_share_memory_with(th_storage *storage, th_shm_strategy strategy)
{
    return th__shm_share_storage("th_storage_share_memory_with", storage, strategy);
}

int th_tensor_share_memory(th_tensor *t)
{
    return th__shm_share_storage("th_tensor_share_memory", th_tensor_storage(t), TH_SHM_DEFAULT);
}

bool th_tensor_is_shared(const th_tensor *t) { return th_storage_is_shared(th_tensor_storage(t)); }

/* tensor.h's rule for typed functions (a tensor of another dtype: do nothing, TH_ERR_DTYPE), through the public
 * API this companion is built on. */
static bool th__shm_wrong_dtype(const char *fn, const void *t, th_dtype want)
{
    th_dtype have = th_tensor_dtype((const th_tensor *)t);
    if (!t || have == want) return false;
    th_set_error(TH_ERR_DTYPE, fn, "t is %s, not %s", th_dtype_name(have), th_dtype_name(want));
    return true;
}

#define TH__DEFINING /* the definitions pass, as tensor.h runs its own (see tensor.h) */
#define TH_GENERIC_FILE "../shm/share_generic.h"
#include "generate/all.h"
#undef TH__DEFINING

/* ---- handles of tensors ------------------------------------------------------------------------------- */

/* The constructors are referenced weakly: a program whose implementation TU stamps only some dtypes
 * (TH_SELECT_DTYPES) defines none for the others, and this library, built once for every dtype, must link
 * with it all the same. A constructor that is not there is NULL, and a handle of its dtype is refused. */
#define TH__SHM_X(sfx, ...)                                                                                    \
    extern th_##sfx##_tensor *th_##sfx##_new_with_storage(th_storage *storage, int64_t offset, int ndim,        \
                                                          const int64_t *sizes, const int64_t *strides)        \
        __attribute__((weak));
TH_FOREACH_DTYPE(TH__SHM_X)
#undef TH__SHM_X

/* A tensor of dtype over storage, checked by the dtype's th_<sfx>_new_with_storage. */
static th_tensor *th__shm_tensor_over(const char *fn, const th_shm_handle *h, th_storage *s)
{
    switch (h->dtype) {
#define TH__SHM_X(sfx, ENUM, ...)                                                                             \
    case TH_##ENUM:                                                                                           \
        if (!th_##sfx##_new_with_storage) break;                                                              \
        return (th_tensor *)th_##sfx##_new_with_storage(s, h->offset, h->ndim, h->sizes, h->strides);
        TH_FOREACH_DTYPE(TH__SHM_X)
#undef TH__SHM_X
    default:
        break;
    }
    th_set_error(TH_ERR_DTYPE, fn, "dtype %s is not compiled into this build (TH_SELECT_DTYPES)",
                 th_dtype_name(h->dtype));
    return NULL;
}

/* Describes t; locator name for a named segment, fd otherwise, empty for a storage of 0 bytes. */
static int th__shm_describe(const char *fn, th_tensor *t, th_shm_locator locator, th_shm_handle *h)
{
    th_storage *s = th_tensor_storage(t);
    memset(h, 0, sizeof *h);
    h->version = TH_SHM_HANDLE_VERSION;
    h->nbytes = th_storage_nbytes(s);
    h->dtype = th_tensor_dtype(t);
    h->offset = th_tensor_offset(t);
    h->ndim = th_tensor_ndim(t);
    if (h->ndim > 0) {
        memcpy(h->sizes, th_tensor_sizes(t), (size_t)h->ndim * sizeof h->sizes[0]);
        memcpy(h->strides, th_tensor_strides(t), (size_t)h->ndim * sizeof h->strides[0]);
    }
    if (h->nbytes == 0) {
        h->locator = TH_SHM_LOCATOR_EMPTY;
    } else if (locator == TH_SHM_LOCATOR_NAME) {
        const th__shm_local *local = th__shm_local_of(th_storage_raw_data(s));
        if (local->name[0] == '\0')
            return th_set_error(TH_ERR_UNSUPPORTED, fn,
                                "the tensor's segment has no name (it was shared with the fd strategy, or every "
                                "holder of its name let go): send it with th_shm_send_fd, or share a copy with "
                                "th_storage_share_memory_with(s, TH_SHM_NAME)");
        h->locator = TH_SHM_LOCATOR_NAME;
        strcpy(h->name, local->name);
    } else {
        h->locator = TH_SHM_LOCATOR_FD;
    }
    return th__shm_handle_check(fn, h);
}

int th_shm_handle_encode(th_tensor *t, char *buf, size_t cap)
{
    static const char fn[] = "th_shm_handle_encode";
    if (!t) return th_set_error(TH_ERR_INVALID, fn, "NULL tensor");
    if (!buf) return th_set_error(TH_ERR_INVALID, fn, "NULL buffer");
    int rc = th__shm_share_storage(fn, th_tensor_storage(t), TH_SHM_NAME);
    if (rc) return rc;
    th_shm_handle h;
    rc = th__shm_describe(fn, t, TH_SHM_LOCATOR_NAME, &h);
    if (rc) return rc;
    rc = th_shm_handle_format(&h, buf, cap);
    if (rc < 0) {
        char why[512];
        snprintf(why, sizeof why, "%s", th_last_error());
        return th_set_error((th_status)rc, fn, "%s", why);
    }
    return rc;
}

/* A tensor over the storage a parsed handle describes, attached by name or from fd (-1 if none), or over a
 * fresh empty one (no segment, so nothing to find again: every open of an empty handle is a storage of its
 * own). */
static th_tensor *th__shm_open(const char *fn, const th_shm_handle *h, int fd)
{
    if (!th_dtype_info(h->dtype)->stamped) {
        if (fd >= 0) close(fd);
        th_set_error(TH_ERR_DTYPE, fn, "dtype %s is not compiled into this build (TH_SELECT_DTYPES)",
                     th_dtype_name(h->dtype));
        return NULL;
    }
    th_storage *s;
    if (h->locator == TH_SHM_LOCATOR_EMPTY) {
        if (fd >= 0) close(fd);
        s = th_storage_new(0, th_shm_allocator(TH_SHM_DEFAULT), NULL);
    } else {
        s = th__shm_open_storage(fn, h->locator == TH_SHM_LOCATOR_NAME ? h->name : NULL, fd, h->nbytes);
    }
    if (!s) return NULL;
    th_tensor *t = th__shm_tensor_over(fn, h, s);
    th_storage_release(s);
    return t;
}

th_tensor *th_shm_open_handle(const char *text)
{
    static const char fn[] = "th_shm_open_handle";
    if (!text) {
        th_set_error(TH_ERR_INVALID, fn, "NULL handle");
        return NULL;
    }
    th_shm_handle h;
    if (th_shm_handle_parse(text, strnlen(text, TH_SHM_HANDLE_MAX), &h)) {
        char why[512];
        snprintf(why, sizeof why, "%s", th_last_error());
        th_set_error(th_last_status(), fn, "%s", why);
        return NULL;
    }
    if (h.locator == TH_SHM_LOCATOR_FD) {
        th_set_error(TH_ERR_INVALID, fn, "an fd handle needs its descriptor: receive it with th_shm_recv_fd");
        return NULL;
    }
    return th__shm_open(fn, &h, -1);
}

/* ---- descriptors over Unix domain sockets --------------------------------------------------------------
 *
 * One message: a 4-byte little-endian length, then the handle's text, with the descriptor attached as
 * SCM_RIGHTS (none for an empty handle). On a datagram or seqpacket socket the message is one packet; on a
 * stream socket the receiver reads the length, then the text. */

enum { TH__SHM_MSG_MAX = 4 + TH_SHM_HANDLE_MAX };

int th_shm_send_fd(int sock, th_tensor *t)
{
    static const char fn[] = "th_shm_send_fd";
    if (!t) return th_set_error(TH_ERR_INVALID, fn, "NULL tensor");
    if (sock < 0) return th_set_error(TH_ERR_INVALID, fn, "bad socket %d", sock);
    int rc = th__shm_share_storage(fn, th_tensor_storage(t), TH_SHM_FD);
    if (rc) return rc;
    th_shm_handle h;
    rc = th__shm_describe(fn, t, TH_SHM_LOCATOR_FD, &h);
    if (rc) return rc;
    char msg[TH__SHM_MSG_MAX];
    int n = th_shm_handle_format(&h, msg + 4, sizeof msg - 4);
    if (n < 0) return n;
    for (int i = 0; i < 4; i++) msg[i] = (char)(((uint32_t)n >> (8 * i)) & 0xffu);
    size_t len = (size_t)n + 4;

    bool close_after = false;
    int fd = -1;
    if (h.locator != TH_SHM_LOCATOR_EMPTY) {
        fd = th__shm_send_descriptor(fn, th_storage_raw_data(th_tensor_storage(t)), &close_after);
        if (fd < 0) return th_last_status();
    }
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(sizeof(int))];
    } control;
    memset(&control, 0, sizeof control);
    struct iovec iov = {msg, len};
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    if (fd >= 0) {
        m.msg_control = control.buf;
        m.msg_controllen = sizeof control.buf;
        struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cm), &fd, sizeof fd);
    }
    size_t sent = 0;
    rc = TH_OK;
    while (sent < len) {
        ssize_t r = sent == 0 ? sendmsg(sock, &m, MSG_NOSIGNAL) : send(sock, msg + sent, len - sent, MSG_NOSIGNAL);
        if (r < 0) {
            if (errno == EINTR) continue;
            int err = errno;
            if (err == ETOOMANYREFS)
                rc = th_set_error(TH_ERR_IO, fn, "sendmsg: too many descriptors in flight (ETOOMANYREFS): let the "
                                  "receiver catch up, or raise RLIMIT_NOFILE (ulimit -n)");
            else if (err == EAGAIN || err == EWOULDBLOCK)
                rc = th_set_error(TH_ERR_IO, fn, "sendmsg: the socket is non-blocking and full (%s)", strerror(err));
            else if (err == ENOTSOCK)
                rc = th_set_error(TH_ERR_INVALID, fn, "descriptor %d is not a socket", sock);
            else
                rc = th_set_error(TH_ERR_IO, fn, "sendmsg: %s", strerror(err));
            break;
        }
        sent += (size_t)r;
    }
    if (close_after) close(fd);
    return rc;
}

static void th__shm_close_fds(struct msghdr *m)
{
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(m); cm; cm = CMSG_NXTHDR(m, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) continue;
        size_t n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < n; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof fd);
            close(fd);
        }
    }
}

/* Receives one message into buf (cap bytes) with its descriptors; returns its length or a negative status. */
static ssize_t th__shm_recv_message(const char *fn, int sock, char *buf, size_t cap, int *fd, bool *truncated)
{
    int type = 0;
    socklen_t tl = sizeof type;
    if (getsockopt(sock, SOL_SOCKET, SO_TYPE, &type, &tl) != 0)
        return errno == ENOTSOCK ? th_set_error(TH_ERR_INVALID, fn, "descriptor %d is not a socket", sock)
                                 : th_set_error(TH_ERR_IO, fn, "socket %d: %s", sock, strerror(errno));
    union {
        struct cmsghdr align;
        char buf[CMSG_SPACE(4 * sizeof(int))]; /* room for a few: extra ones are closed, not leaked */
    } control;
    struct iovec iov = {buf, type == SOCK_STREAM ? 4 : cap};
    struct msghdr m;
    memset(&m, 0, sizeof m);
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    m.msg_control = control.buf;
    m.msg_controllen = sizeof control.buf;
    ssize_t r;
    do r = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
    while (r < 0 && errno == EINTR);
    if (r < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            return th_set_error(TH_ERR_IO, fn, "recvmsg: no message came (non-blocking socket, or SO_RCVTIMEO passed)");
        return th_set_error(TH_ERR_IO, fn, "recvmsg: %s", strerror(errno));
    }
    if (r == 0 && type != SOCK_DGRAM) return th_set_error(TH_ERR_IO, fn, "the peer closed the socket");
    *truncated = (m.msg_flags & MSG_CTRUNC) != 0;
    int count = 0;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) continue;
        int n = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int));
        if (n > 0 && count == 0) memcpy(fd, CMSG_DATA(cm), sizeof *fd);
        count += n;
    }
    if (count > 1) {
        th__shm_close_fds(&m);
        *fd = -1;
        return th_set_error(TH_ERR_IO, fn, "a message came with %d descriptors; th_shm_send_fd sends one", count);
    }
    if (m.msg_flags & MSG_TRUNC) {
        if (*fd >= 0) close(*fd);
        *fd = -1;
        return th_set_error(TH_ERR_INVALID, fn, "a message longer than any handle (%d bytes): not from th_shm_send_fd",
                            TH__SHM_MSG_MAX);
    }
    size_t got = (size_t)r;
    if (type == SOCK_STREAM) {
        /* The length, then exactly that many bytes. */
        while (got < 4) {
            r = recv(sock, buf + got, 4 - got, MSG_WAITALL);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) goto short_read;
            got += (size_t)r;
        }
        uint32_t len = 0;
        for (int i = 0; i < 4; i++) len |= (uint32_t)(unsigned char)buf[i] << (8 * i);
        if (len > cap - 4) {
            if (*fd >= 0) close(*fd);
            *fd = -1;
            return th_set_error(TH_ERR_INVALID, fn, "a message of %u bytes is longer than any handle: not from "
                                "th_shm_send_fd", (unsigned)len);
        }
        while (got < 4 + (size_t)len) {
            r = recv(sock, buf + got, 4 + (size_t)len - got, MSG_WAITALL);
            if (r < 0 && errno == EINTR) continue;
            if (r <= 0) goto short_read;
            got += (size_t)r;
        }
    }
    return (ssize_t)got;
short_read:
    if (*fd >= 0) close(*fd);
    *fd = -1;
    return th_set_error(TH_ERR_IO, fn, "the peer closed the socket in the middle of a message");
}

th_tensor *th_shm_recv_fd(int sock)
{
    static const char fn[] = "th_shm_recv_fd";
    char msg[TH__SHM_MSG_MAX];
    int fd = -1;
    bool truncated = false;
    ssize_t n = th__shm_recv_message(fn, sock, msg, sizeof msg, &fd, &truncated);
    if (n < 0) return NULL;
    uint32_t len = 0;
    for (int i = 0; n >= 4 && i < 4; i++) len |= (uint32_t)(unsigned char)msg[i] << (8 * i);
    if (n < 4 || (size_t)n != 4 + (size_t)len) {
        if (fd >= 0) close(fd);
        th_set_error(TH_ERR_INVALID, fn, "a message of %zd bytes is not one from th_shm_send_fd", n);
        return NULL;
    }
    th_shm_handle h;
    if (th_shm_handle_parse(msg + 4, len, &h)) {
        if (fd >= 0) close(fd);
        char why[512];
        snprintf(why, sizeof why, "%s", th_last_error());
        th_set_error(th_last_status(), fn, "%s", why);
        return NULL;
    }
    if (h.locator == TH_SHM_LOCATOR_FD && fd < 0) {
        char advice[400];
        th_set_error(TH_ERR_IO, fn, "the tensor's metadata came without its descriptor (%s): %s",
                     truncated ? "MSG_CTRUNC" : "0 items of ancillary data",
                     th__shm_fd_limit_advice(advice, sizeof advice, true));
        return NULL;
    }
    if (h.locator == TH_SHM_LOCATOR_NAME) {
        if (fd >= 0) close(fd);
        th_set_error(TH_ERR_INVALID, fn, "a name handle came over the socket: open it with th_shm_open_handle");
        return NULL;
    }
    if (h.locator == TH_SHM_LOCATOR_EMPTY && fd >= 0) {
        close(fd);
        fd = -1;
    }
    return th__shm_open(fn, &h, fd);
}
