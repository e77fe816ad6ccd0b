/* core/file_map.h: files as storages: a storage over a mapped file (Linux), the whole of a file as a storage for
 * the file formats (mapped where the platform maps, read elsewhere), and the writers' temporary file that is
 * renamed into place.
 * Part of tensor.h, which includes it twice: its declarations, then (TH__DEFINING) its definitions. */
#ifndef TENSOR_H
#error "core/file_map.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

/* Zero means the default: a private (copy-on-write) map of an existing file, as big as the file. */
typedef struct th_file_map_options {
    bool shared;     /* writes reach the file (MAP_SHARED, file opened read-write); else copy on write */
    bool create;     /* create the file if it is missing (needs shared and nbytes > 0); grow it to nbytes */
    bool exclusive;  /* with create: fail if the file exists */
    int64_t nbytes;  /* bytes to map; 0: the file's size. The file must hold them unless create. */
    bool read_only;  /* map the pages read-only; the storage is read-only (th_storage_is_read_only). Not with
                      * create. A read-only map never takes a private copy of a page, shared or not. */
} th_file_map_options;

/* A storage over the file at path (options may be NULL: all defaults). Not resizable; the mapping is undone
 * when the last user lets go. Space for a created or grown file is reserved up front (posix_fallocate), so a
 * full disk is an error here, not a SIGBUS later. Errors (NULL): NULL path, a missing file without create, an
 * existing file with exclusive, a file smaller than nbytes, no permission, bad options, and anything but a
 * regular file (TH_ERR_INVALID: a directory, a FIFO, a device, a socket), refused by its type before it is
 * opened, so that none can block the call or have an open's side effects. TH_ERR_UNSUPPORTED where the build
 * cannot map files (not Linux, or TH_NO_FILE_MAP). As with any mapped file, another process that truncates it
 * makes reads past the new end fault: the library's own writers never truncate, they rename a new file into
 * place. */
TH_API th_storage *th_storage_map_file(const char *path, const th_file_map_options *options);
/* Whether the storage's memory is a mapping of a file (th_storage_map_file, or a file loaded zero-copy by
 * th_tensor_load_npy and its kin); false for NULL and for memory of an allocator or a blob. */
TH_API bool th_storage_is_mapped(const th_storage *storage);

#else /* TH__DEFINING */

#if defined(__linux__) && !defined(TH_NO_FILE_MAP)
#define TH__HAVE_FILE_MAP 1
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
/* A strict -std=c11 build hides these two (the prototypes are POSIX's; with 64-bit file offsets on a 32-bit
 * system glibc's names for them end in 64). A repeated identical prototype changes nothing where they are
 * visible. */
#if defined(__USE_FILE_OFFSET64) && !defined(__LP64__)
extern int th__posix_fallocate(int fd, off_t offset, off_t len) __asm__("posix_fallocate64");
extern int th__ftruncate(int fd, off_t length) __asm__("ftruncate64");
#else
extern int posix_fallocate(int fd, off_t offset, off_t len);
extern int ftruncate(int fd, off_t length);
#define th__posix_fallocate posix_fallocate
#define th__ftruncate ftruncate
#endif
#else
#include <errno.h>
#endif

#ifdef TH__HAVE_FILE_MAP

static void th__unmap_file(void *data, void *ctx) { munmap(data, (size_t)(uintptr_t)ctx); }

/* What a file that is not a regular one is, for the error. */
static const char *th__file_kind(mode_t mode)
{
    if (S_ISDIR(mode)) return "a directory";
    if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
    if (S_ISCHR(mode)) return "a character device";
    if (S_ISBLK(mode)) return "a block device";
#ifdef S_ISSOCK /* hidden by a strict C11 build */
    if (S_ISSOCK(mode)) return "a socket";
#endif
    return "a special file";
}

static int th__file_not_regular(const char *fn, const char *path, const char *kind)
{
    return th__fail(TH_ERR_INVALID, fn, "'%s' is %s, not a regular file: only regular files can be mapped", path,
                    kind);
}

/* open(2) with close-on-exec: by the flag where the headers show it, else (a strict C11 build) set right after,
 * which leaves a window in which another thread's fork+exec inherits the descriptor. */
static int th__open_cloexec(const char *path, int flags, int mode)
{
#ifdef O_CLOEXEC
    return open(path, flags | O_CLOEXEC, mode);
#else
    int fd = open(path, flags, mode);
    if (fd >= 0) (void)fcntl(fd, F_SETFD, FD_CLOEXEC);
    return fd;
#endif
}

/* Opens path; tells whether this call created the file (to remove it again if a later step fails). */
static int th__file_open(const char *fn, const char *path, const th_file_map_options *o, bool *created, bool advise)
{
    /* The type is checked before the open, which a special file may answer by blocking (a FIFO without a
     * writer) or with side effects (a device); O_NONBLOCK and O_NOCTTY cover one swapped in between, which
     * the fstat after the open then refuses. They change nothing for a regular file. */
    struct stat st;
    *created = false;
    if (!o->exclusive && stat(path, &st) == 0 && !S_ISREG(st.st_mode))
        return th__file_not_regular(fn, path, th__file_kind(st.st_mode));
    int flags = (o->shared && !o->read_only ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_NOCTTY;
    for (;;) {
        int fd = o->exclusive ? -1 : th__open_cloexec(path, flags, 0);
        if (fd >= 0) return fd;
        if (!o->exclusive && (errno != ENOENT || !o->create)) break;
        /* Missing (or exclusive): create it, knowing it is ours. */
        fd = th__open_cloexec(path, flags | O_CREAT | O_EXCL, 0600);
        if (fd >= 0) {
            *created = true;
            return fd;
        }
        if (errno == EEXIST && !o->exclusive) continue; /* someone else created it meanwhile: open theirs */
        break;
    }
    int err = errno;
    struct rlimit rl;
    switch (err) {
    case ENOENT:
        return th__fail(TH_ERR_IO, fn, "'%s' does not exist%s", path,
                        !advise ? "" : o->create ? " (a folder of the path is missing)" : " (set create to make it)");
    case EEXIST: return th__fail(TH_ERR_IO, fn, "'%s' exists and exclusive was asked for", path);
    case EACCES:
    case EPERM:
        return th__fail(TH_ERR_IO, fn, "no permission to open '%s' for %s", path,
                        flags & O_RDWR ? "reading and writing (a shared map writes to it)" : "reading");
    case EISDIR: return th__file_not_regular(fn, path, "a directory");
    case EROFS: return th__fail(TH_ERR_IO, fn, "'%s' is on a read-only file system: map it private", path);
    case EMFILE:
        if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
            return th__fail(TH_ERR_IO, fn,
                            "cannot open '%s': this process has reached its limit of open file descriptors "
                            "(RLIMIT_NOFILE = %llu): raise the limit (ulimit -n, or setrlimit(RLIMIT_NOFILE))",
                            path, (unsigned long long)rl.rlim_cur);
        return th__fail(TH_ERR_IO, fn, "cannot open '%s': %s", path, strerror(err));
    default: return th__fail(TH_ERR_IO, fn, "cannot open '%s': %s", path, strerror(err));
    }
}

/* Grows the open file to nbytes, reserving the blocks now: a full disk fails here, not as a SIGBUS on first
 * touch. Past RLIMIT_FSIZE the kernel would also send SIGXFSZ, which ends the process by default: checked
 * first. old_size is given back when the reservation fails on a file that was there before. */
static int th__file_grow(const char *fn, const char *path, int fd, int64_t nbytes, int64_t old_size, bool created)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (uint64_t)nbytes > (uint64_t)rl.rlim_cur)
        return th__fail(TH_ERR_NOMEM, fn,
                        "could not grow '%s' to %lld bytes: more than this process's file size limit (RLIMIT_FSIZE "
                        "= %llu bytes): raise the limit (ulimit -f, or setrlimit(RLIMIT_FSIZE))",
                        path, (long long)nbytes, (unsigned long long)rl.rlim_cur);
    int err;
    do err = th__posix_fallocate(fd, 0, (off_t)nbytes);
    while (err == EINTR);
    if (!err) return TH_OK;
    th__fail(err == ENOSPC || err == EFBIG ? TH_ERR_NOMEM : TH_ERR_IO, fn, "could not grow '%s' to %lld bytes: %s",
             path, (long long)nbytes, strerror(err));
    if (!created) { /* give back what posix_fallocate may have added */
        int kept = th__ftruncate(fd, (off_t)old_size);
        (void)kept;
    }
    return th_last_status();
}

/* th_storage_map_file's work, its errors recorded under fn (and the advice on its options only where the caller
 * gave them: advise). */
static th_storage *th__map_file(const char *fn, const char *path, const th_file_map_options *options, bool advise)
{
    th_file_map_options o;
    memset(&o, 0, sizeof o);
    if (options) o = *options;
    const char *bad = NULL;
    if (!path || !*path) bad = path ? "empty path" : "NULL path";
    else if (o.nbytes < 0) bad = "negative nbytes";
    else if (o.exclusive && !o.create) bad = "exclusive without create";
    else if (o.create && o.read_only) bad = "create with read_only: a created file is zeros until written";
    else if (o.create && !o.shared) bad = "create with a private (copy-on-write) map: nothing would reach the file; set shared";
    else if (o.create && o.nbytes == 0) bad = "create needs nbytes > 0 (the size of the file to make)";
    if (bad) {
        th__fail(TH_ERR_INVALID, fn, "%s", bad);
        return NULL;
    }
    bool created = false;
    int fd = th__file_open(fn, path, &o, &created, advise);
    if (fd < 0) return NULL;
    struct stat st;
    int64_t nbytes = 0;
    void *data = NULL;
    th_storage *s = NULL;
    if (fstat(fd, &st) != 0) {
        th__fail(TH_ERR_IO, fn, "fstat '%s': %s", path, strerror(errno));
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        th__file_not_regular(fn, path, th__file_kind(st.st_mode));
        goto fail;
    }
    nbytes = o.nbytes ? o.nbytes : (int64_t)st.st_size;
    if (nbytes > (int64_t)st.st_size) {
        if (!o.create) {
            th__fail(TH_ERR_RANGE, fn, "'%s' holds %lld bytes, fewer than the %lld asked for (set create to grow it)",
                     path, (long long)st.st_size, (long long)nbytes);
            goto fail;
        }
        if (th__file_grow(fn, path, fd, nbytes, (int64_t)st.st_size, created)) goto fail;
    }
    if (nbytes == 0) {
        close(fd);
        s = th__storage_wrap(fn, NULL, 0, (th_device){TH_DEVICE_CPU, 0}, NULL, NULL, NULL);
        if (s && o.read_only) s->flags |= TH__STORAGE_READ_ONLY;
        return s;
    }
    if ((uint64_t)nbytes > (uint64_t)SIZE_MAX) {
        th__fail(TH_ERR_OVERFLOW, fn, "%lld bytes do not fit in the address space", (long long)nbytes);
        goto fail;
    }
    data = mmap(NULL, (size_t)nbytes, o.read_only ? PROT_READ : PROT_READ | PROT_WRITE,
                o.shared ? MAP_SHARED : MAP_PRIVATE, fd, 0);
    if (data == MAP_FAILED) {
        int err = errno;
        th__fail(err == ENOMEM ? TH_ERR_NOMEM : TH_ERR_IO, fn, "could not map %lld bytes of '%s': %s",
                 (long long)nbytes, path, strerror(err));
        goto fail;
    }
    close(fd);
    s = th__storage_wrap(fn, data, nbytes, (th_device){TH_DEVICE_CPU, 0}, th__unmap_file, data,
                         (void *)(uintptr_t)nbytes);
    if (!s) {
        munmap(data, (size_t)nbytes);
        if (created) unlink(path);
        return NULL;
    }
    if (o.read_only) s->flags |= TH__STORAGE_READ_ONLY;
    return s;
fail:
    close(fd);
    if (created) unlink(path);
    return NULL;
}

TH_API th_storage *th_storage_map_file(const char *path, const th_file_map_options *options)
{
    return th__map_file("th_storage_map_file", path, options, true);
}

TH_API bool th_storage_is_mapped(const th_storage *storage)
{
    return storage && storage->deleter == th__unmap_file;
}

#else /* !TH__HAVE_FILE_MAP */

TH_API th_storage *th_storage_map_file(const char *path, const th_file_map_options *options)
{
    (void)options;
    th__fail(TH_ERR_UNSUPPORTED, "th_storage_map_file",
             "cannot map '%s': this build maps files only on Linux (and not with TH_NO_FILE_MAP)",
             path ? path : "(NULL)");
    return NULL;
}

TH_API bool th_storage_is_mapped(const th_storage *storage)
{
    (void)storage;
    return false;
}

#endif /* TH__HAVE_FILE_MAP */

/* ---- the whole of a file, for the formats ---------------------------------------------------------------- */

/* The bytes of the file at path as a storage, its errors recorded under fn: a private (copy-on-write) map where
 * the build maps files, so that the tensors a format hands out are views of the page cache; elsewhere the file
 * read into memory of the default allocator with stdio. */
static th_storage *th__file_contents(const char *fn, const char *path)
{
    if (!path || !*path) {
        th__fail(TH_ERR_INVALID, fn, "%s path", path ? "empty" : "NULL");
        return NULL;
    }
#ifdef TH__HAVE_FILE_MAP
    return th__map_file(fn, path, NULL, false);
#else
    FILE *f = fopen(path, "rb");
    if (!f) {
        th__fail(TH_ERR_IO, fn, "cannot open '%s': %s", path, strerror(errno));
        return NULL;
    }
    /* A size that could not be read (a pipe) or is too big is refused rather than read in unbounded. */
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0) size = ftell(f);
    if (size < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        th__fail(TH_ERR_IO, fn, "cannot find the size of '%s' (not a regular file?)", path);
        return NULL;
    }
    th_storage *s = th__storage_alloc(fn, (int64_t)size, NULL, NULL);
    if (s && size > 0 && fread(s->data, 1, (size_t)size, f) != (size_t)size) {
        th__fail(TH_ERR_IO, fn, "could not read the %ld bytes of '%s'", size, path);
        th_storage_release(s);
        s = NULL;
    }
    fclose(f);
    return s;
#endif
}

/* A file the formats read: its bytes (th__file_contents; NULL on error) and the name their messages give it,
 * the path quoted, at most 500 of its bytes ("'w.npz'"). */
typedef struct th__file_bytes {
    th_storage *s;
    char where[512];
} th__file_bytes;

static th__file_bytes th__file_read(const char *fn, const char *path)
{
    th__file_bytes b;
    b.s = th__file_contents(fn, path);
    snprintf(b.where, sizeof b.where, "'%.500s'", path ? path : "");
    return b;
}

/* ---- writing a file: a temporary one in the same folder, renamed into place ------------------------------- */

/* A file is written under a temporary name next to path and renamed over path only when complete, so a
 * crash never leaves half a file under the final name, and a reader's mapping of the old file keeps its
 * pages (the old inode lives on until unmapped) instead of faulting on a truncated file. Plain stdio, so the
 * writers work wherever C11 does. */
typedef struct th__file_writer {
    const char *fn;
    const char *path;
    char *tmp;
    FILE *f;
    int status; /* the first error, TH_OK while none */
} th__file_writer;

static _Atomic unsigned th__file_writer_count;

static int th__file_writer_open(th__file_writer *w, const char *fn, const char *path)
{
    memset(w, 0, sizeof *w);
    w->fn = fn;
    w->path = path;
    if (!path || !*path) return w->status = th__fail(TH_ERR_INVALID, fn, "%s path", path ? "empty" : "NULL");
    size_t n = strlen(path) + 64;
    w->tmp = (char *)malloc(n);
    if (!w->tmp) return w->status = th__fail(TH_ERR_NOMEM, fn, "out of memory for a file name");
    /* The name need only be unlikely to be taken: "x" (C11's exclusive create) refuses one that is, and the
     * next try differs. A static's address differs between processes under ASLR, the counter within one. */
    static const char tag = 0;
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned k = atomic_fetch_add(&th__file_writer_count, 1);
        snprintf(w->tmp, n, "%s.tmp-%lx-%u", path, (unsigned long)((uintptr_t)&tag >> 4) & 0xffffffUL, k);
        errno = 0;
        w->f = fopen(w->tmp, "wbx");
        if (w->f || errno != EEXIST) break;
    }
    if (!w->f) {
        int err = errno;
        w->status = th__fail(TH_ERR_IO, fn, "cannot create '%s' (to be renamed to '%s'): %s", w->tmp, path,
                             err ? strerror(err) : "no free temporary name");
        free(w->tmp);
        w->tmp = NULL;
        return w->status;
    }
    return TH_OK;
}

static int th__file_write(th__file_writer *w, const void *data, size_t n)
{
    if (w->status) return w->status;
    if (n && fwrite(data, 1, n, w->f) != n) {
        int err = errno;
        w->status = th__fail(TH_ERR_IO, w->fn, "could not write %zu bytes to '%s': %s", n, w->tmp,
                             err ? strerror(err) : "write error");
    }
    return w->status;
}

/* Finishes the file: renamed into place when every write succeeded (and the close too), else removed.
 * Returns the writer's status. */
static int th__file_writer_close(th__file_writer *w)
{
    if (!w->f) return w->status;
    if (fclose(w->f) != 0 && !w->status)
        w->status = th__fail(TH_ERR_IO, w->fn, "could not write '%s': %s", w->tmp, strerror(errno));
    w->f = NULL;
    if (!w->status && rename(w->tmp, w->path) != 0)
        w->status = th__fail(TH_ERR_IO, w->fn, "could not rename '%s' to '%s': %s", w->tmp, w->path, strerror(errno));
    if (w->status) remove(w->tmp);
    free(w->tmp);
    w->tmp = NULL;
    return w->status;
}

#endif /* TH__DEFINING */
