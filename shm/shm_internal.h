/* shm/shm_internal.h: what the companion's .c files share; not installed, not public. */
#ifndef TH_SHM_INTERNAL_H
#define TH_SHM_INTERNAL_H

#include "th_shm.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#if defined(__GNUC__)
#define TH_SHM__PRINTF(f, a) __attribute__((format(printf, f, a)))
#define TH_SHM__UNUSED __attribute__((unused))
#else
#define TH_SHM__PRINTF(f, a)
#define TH_SHM__UNUSED
#endif

/* Records an error and keeps its detail on this thread, so that th__shm_share_storage can record it again
 * under its own name after th_storage_move_to has replaced it with its generic "could not allocate". */
TH_SHM__PRINTF(3, 4) int th__shm_fail(th_status status, const char *fn, const char *fmt, ...);
/* Forgets the kept detail / records it again under fn (TH_OK if none was kept). */
void th__shm_forget_error(void);
int th__shm_refail(const char *fn);

/* The name the shared-memory allocator's errors carry on this thread: the public function that asked for
 * memory ("th_f32_share_memory"), or "th_shm_allocator" when the storage layer did. Returns the previous one. */
const char *th__shm_set_caller(const char *fn);

/* ---- segments (segment.c) -------------------------------------------------------------------------------
 *
 * A mapping is a private page of process-local bookkeeping (th__shm_local) followed by the segment: a shared
 * header (th__shm_header) and the data. The allocator's block pointer is the data, so the header and the
 * bookkeeping are found from it. */

enum {
    TH__SHM_HEADER_BYTES = 128,
    TH__SHM_SEGMENT_VERSION = 1,
    TH__SHM_KIND_FD = TH_SHM_FD,
    TH__SHM_KIND_NAME = TH_SHM_NAME
};

typedef struct th__shm_header {
    char magic[8];      /* "thshmseg" */
    uint32_t version;   /* TH__SHM_SEGMENT_VERSION */
    uint32_t kind;      /* TH__SHM_KIND_FD / _NAME */
    int64_t refcount;   /* processes holding the segment; __atomic builtins (lock-free on 64-bit Linux) */
    int64_t nbytes;     /* of the data */
    char name[TH_SHM_NAME_MAX]; /* named segments: the name, for whoever lets go last */
    char reserved[TH__SHM_HEADER_BYTES - 32 - TH_SHM_NAME_MAX];
} th__shm_header;

typedef struct th__shm_local {
    uint64_t magic;
    size_t map_bytes;   /* the whole mapping: the private page, the header and the data */
    int64_t nbytes;     /* of the data */
    int64_t owner;      /* the pid that made the mapping; a forked child is not it and never counts out */
    bool counted;       /* the owner counted itself into the header's refcount (and counts out at the end) */
    int fd;             /* a descriptor of the segment kept open (fd segments), or -1 */
    uint32_t kind;
    bool unlink_at_zero; /* named, and this process unlinks the name if its release drops the count to 0 */
    char name[TH_SHM_NAME_MAX]; /* "" for a segment without a name */
    /* the process's table of mappings (segment.c): storages over this mapping, the one an open hands out
     * (no reference held: see segment.c), the segment's identity, links */
    int64_t uses;
    th_storage *storage;
    dev_t dev;
    ino_t ino;
    struct th__shm_local *next_by_id, *next_by_name;
} th__shm_local;

/* The bookkeeping of a block the shared-memory allocator handed out (NULL for any other pointer). */
th__shm_local *th__shm_local_of(const void *data);
th__shm_header *th__shm_header_of(const void *data);

/* The storage over a segment, by name (shm_open) or, name NULL, by a descriptor received from another process
 * (which is then the mapping's or closed, on error too). nbytes is what the handle says the data holds. A
 * segment this process maps already is not mapped again, and while a storage over that mapping is alive it is
 * the one that comes back (retained): one th_storage per segment and process. NULL with the error recorded
 * under fn. */
th_storage *th__shm_open_storage(const char *fn, const char *name, int fd, int64_t nbytes);
/* A shared storage this process made becomes the one th__shm_open_storage hands out for its segment (unless
 * another is already); sharing calls it, so every handle made in this process opens to its storage here. */
void th__shm_note_storage(th_storage *storage);
/* Undoes an attach or a create: the same as the allocator's free. */
void th__shm_release(void *data, size_t nbytes);

/* A descriptor to send for a shared block: its kept descriptor (*close_after false) or a fresh one opened by
 * name (*close_after true). -1 with the error recorded. */
int th__shm_send_descriptor(const char *fn, const void *data, bool *close_after);

/* The message for running out of descriptors (EMFILE), naming the limit and the fixes; the name strategy is
 * among them only where it needs fewer descriptors than what failed (advise_name: the fd strategy's). */
const char *th__shm_fd_limit_advice(char *buf, size_t cap, bool advise_name);
/* RLIMIT_FSIZE caps the size of a segment as of any file, and growing one past it sends SIGXFSZ (whose
 * default ends the process): whether bytes are over the limit, which goes to *limit. */
bool th__shm_over_fsize_limit(uint64_t bytes, unsigned long long *limit);

/* ---- sharing (share.c) ---- */

int th__shm_share_storage(const char *fn, th_storage *storage, th_shm_strategy strategy);

/* ---- handles (handle.c) ---- */

/* Validates every field of h (as th_shm_handle_parse does), recording errors under fn. */
int th__shm_handle_check(const char *fn, const th_shm_handle *h);
/* A dtype by its name ("f32"); TH_DTYPE_INVALID if none. */
th_dtype th__shm_dtype_by_name(const char *name, size_t len);
/* Whether name is a valid segment name: the manager's rule (th__shm_name_problem in manager_protocol.h: "/"
 * then characters of [A-Za-z0-9_.-], not starting with '.'), at most TH_SHM_NAME_MAX - 1 bytes. */
bool th__shm_name_valid(const char *name, size_t len);

#endif
