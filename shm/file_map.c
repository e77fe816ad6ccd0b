/* shm/file_map.c: storages over mapped files (TH's THMapAllocator with MAPPED_SHARED, without the flag soup). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "shm_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static void th__shm_unmap_file(void *data, void *ctx) { munmap(data, (size_t)(uintptr_t)ctx); }

/* Opens path; tells whether this call created the file (to remove it again if a later step fails). */
static int th__shm_open_file(const char *fn, const char *path, const th_file_map_options *o, bool *created)
{
    int flags = (o->shared ? O_RDWR : O_RDONLY) | O_CLOEXEC;
    *created = false;
    for (;;) {
        int fd = o->exclusive ? -1 : open(path, flags);
        if (fd >= 0 || (!o->exclusive && (errno != ENOENT || !o->create))) {
            if (fd >= 0) return fd;
            break;
        }
        /* Missing (or exclusive): create it, knowing it is ours. */
        fd = open(path, flags | O_CREAT | O_EXCL, 0600);
        if (fd >= 0) {
            *created = true;
            return fd;
        }
        if (errno == EEXIST && !o->exclusive) continue; /* someone else created it meanwhile: open theirs */
        break;
    }
    int err = errno;
    char advice[400];
    switch (err) {
    case ENOENT:
        return th_set_error(TH_ERR_IO, fn, "'%s' does not exist%s", path,
                            o->create ? " (a folder of the path is missing)" : " (set create to make it)");
    case EEXIST: return th_set_error(TH_ERR_IO, fn, "'%s' exists and exclusive was asked for", path);
    case EACCES:
    case EPERM:
        return th_set_error(TH_ERR_IO, fn, "no permission to open '%s' for %s", path,
                            o->shared ? "reading and writing (a shared map writes to it)" : "reading");
    case EISDIR: return th_set_error(TH_ERR_IO, fn, "'%s' is a directory", path);
    case EROFS: return th_set_error(TH_ERR_IO, fn, "'%s' is on a read-only file system: map it private", path);
    case EMFILE: return th_set_error(TH_ERR_IO, fn, "'%s': %s", path, th__shm_fd_limit_advice(advice, sizeof advice));
    default: return th_set_error(TH_ERR_IO, fn, "cannot open '%s': %s", path, strerror(err));
    }
}

th_storage *th_storage_map_file(const char *path, const th_file_map_options *options)
{
    static const char fn[] = "th_storage_map_file";
    th_file_map_options o;
    memset(&o, 0, sizeof o);
    if (options) o = *options;
    const char *bad = NULL;
    if (!path || !*path) bad = path ? "empty path" : "NULL path";
    else if (o.nbytes < 0) bad = "negative nbytes";
    else if (o.exclusive && !o.create) bad = "exclusive without create";
    else if (o.create && !o.shared) bad = "create with a private (copy-on-write) map: nothing would reach the file; set shared";
    else if (o.create && o.nbytes == 0) bad = "create needs nbytes > 0 (the size of the file to make)";
    if (bad) {
        th_set_error(TH_ERR_INVALID, fn, "%s", bad);
        return NULL;
    }
    bool created;
    int fd = th__shm_open_file(fn, path, &o, &created);
    if (fd < 0) return NULL;
    struct stat st;
    int64_t nbytes = 0;
    void *data = NULL;
    if (fstat(fd, &st) != 0) {
        th_set_error(TH_ERR_IO, fn, "fstat '%s': %s", path, strerror(errno));
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        th_set_error(TH_ERR_INVALID, fn, "'%s' is not a regular file", path);
        goto fail;
    }
    nbytes = o.nbytes ? o.nbytes : (int64_t)st.st_size;
    if (nbytes > (int64_t)st.st_size) {
        if (!o.create) {
            th_set_error(TH_ERR_RANGE, fn, "'%s' holds %lld bytes, fewer than the %lld asked for (set create to grow it)",
                         path, (long long)st.st_size, (long long)nbytes);
            goto fail;
        }
        /* Grow and reserve the blocks now: a full disk fails here, not as a SIGBUS on first touch. */
        int err;
        do err = posix_fallocate(fd, 0, (off_t)nbytes);
        while (err == EINTR);
        if (err) {
            th_set_error(err == ENOSPC || err == EFBIG ? TH_ERR_NOMEM : TH_ERR_IO, fn,
                         "could not grow '%s' to %lld bytes: %s", path, (long long)nbytes, strerror(err));
            if (!created) {
                int kept = ftruncate(fd, st.st_size); /* give back what posix_fallocate may have added */
                (void)kept;
            }
            goto fail;
        }
    }
    if (nbytes == 0) {
        close(fd);
        return th_storage_from_blob(NULL, 0, (th_device){TH_DEVICE_CPU, 0}, NULL, NULL);
    }
    if ((uint64_t)nbytes > (uint64_t)SIZE_MAX) {
        th_set_error(TH_ERR_OVERFLOW, fn, "%lld bytes do not fit in the address space", (long long)nbytes);
        goto fail;
    }
    data = mmap(NULL, (size_t)nbytes, PROT_READ | PROT_WRITE, o.shared ? MAP_SHARED : MAP_PRIVATE, fd, 0);
    if (data == MAP_FAILED) {
        th_set_error(errno == ENOMEM ? TH_ERR_NOMEM : TH_ERR_IO, fn, "could not map %lld bytes of '%s': %s",
                     (long long)nbytes, path, strerror(errno));
        goto fail;
    }
    close(fd);
    th_storage *s = th_storage_from_blob(data, nbytes, (th_device){TH_DEVICE_CPU, 0}, th__shm_unmap_file,
                                         (void *)(uintptr_t)nbytes);
    if (!s) {
        char why[512];
        snprintf(why, sizeof why, "%s", th_last_error());
        munmap(data, (size_t)nbytes);
        if (created) unlink(path);
        th_set_error(th_last_status(), fn, "%s", why);
    }
    return s;
fail:
    close(fd);
    if (created) unlink(path);
    return NULL;
}
