/* core/error.h: th_status, the thread's last error (th_last_error) and the process-wide error hook.
 * Part of tensor.h, which includes it twice: its declarations, then (TH__DEFINING) its definitions. */
#ifndef TENSOR_H
#error "core/error.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

typedef enum th_status {
    TH_OK = 0,
    TH_ERR_INVALID = -1,     /* a bad argument: NULL where an object is needed, a negative size, ... */
    TH_ERR_NOMEM = -2,       /* an allocator failed */
    TH_ERR_RANGE = -3,       /* an index, dim or range outside its bounds */
    TH_ERR_SHAPE = -4,       /* shapes or strides that do not fit together */
    TH_ERR_DTYPE = -5,       /* a dtype that does not fit, or was not compiled in */
    TH_ERR_DEVICE = -6,      /* memory on a device this build cannot touch */
    TH_ERR_OVERFLOW = -7,    /* an element count or byte size that overflows */
    TH_ERR_UNSUPPORTED = -8, /* an operation the object does not allow (resizing a wrapped blob, ...) */
    TH_ERR_READ_ONLY = -9,   /* a write to read-only memory */
    TH_ERR_IO = -10,         /* a stream that could not be written */
    TH_ERR_LINALG = -11      /* a matrix the op cannot take: singular, not positive-definite, inf or NaN */
} th_status;

/* The message of the last error on this thread ("" if none since th_clear_error). Valid until the
 * next error on this thread. */
TH_API const char *th_last_error(void);
/* The status of the last error on this thread (TH_OK if none since th_clear_error). */
TH_API th_status th_last_status(void);
TH_API void th_clear_error(void);
/* "TH_ERR_RANGE" and so on; "TH_ERR_?" for an unknown value. */
TH_API const char *th_status_name(th_status status);
/* Records an error as the library does ("fn: message", the hook called) and returns status: for companions
 * (shm/, cuda/) and extensions built on tensor.h, so their errors reach th_last_error too. */
TH_API int th_set_error(th_status status, const char *fn, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Called, on the thread that hit it, for every error the library records. */
typedef struct th_error_hook {
    void (*on_error)(th_status status, const char *message, void *ctx);
    void *ctx;
} th_error_hook;
/* Installs hook for the whole process (NULL removes it) and returns the previous one. A thread that failed
 * just before the swap may still be inside the old hook: keep a hook (and its ctx) alive as long as any
 * thread that may have seen it can run. */
TH_API const th_error_hook *th_set_error_hook(const th_error_hook *hook);

#else /* TH__DEFINING */

static _Thread_local char th__error_message[1024];
static _Thread_local th_status th__error_status;
/* Counts the errors recorded on this thread, so a caller can tell whether a callee (an allocator) recorded
 * its own reason before failing, and keep it in the message it records (th__alloc_failed). */
static _Thread_local unsigned th__error_count;
/* Process-wide because a logger is a process-wide concern; atomic so any thread may swap it. */
static _Atomic(const th_error_hook *) th__error_hook;

TH_API const char *th_last_error(void) { return th__error_message; }
TH_API th_status th_last_status(void) { return th__error_status; }
TH_API void th_clear_error(void)
{
    th__error_message[0] = '\0';
    th__error_status = TH_OK;
}

TH_API const char *th_status_name(th_status status)
{
    switch (status) {
    case TH_OK: return "TH_OK";
    case TH_ERR_INVALID: return "TH_ERR_INVALID";
    case TH_ERR_NOMEM: return "TH_ERR_NOMEM";
    case TH_ERR_RANGE: return "TH_ERR_RANGE";
    case TH_ERR_SHAPE: return "TH_ERR_SHAPE";
    case TH_ERR_DTYPE: return "TH_ERR_DTYPE";
    case TH_ERR_DEVICE: return "TH_ERR_DEVICE";
    case TH_ERR_OVERFLOW: return "TH_ERR_OVERFLOW";
    case TH_ERR_UNSUPPORTED: return "TH_ERR_UNSUPPORTED";
    case TH_ERR_READ_ONLY: return "TH_ERR_READ_ONLY";
    case TH_ERR_IO: return "TH_ERR_IO";
    case TH_ERR_LINALG: return "TH_ERR_LINALG";
    }
    return "TH_ERR_?";
}

TH_API const th_error_hook *th_set_error_hook(const th_error_hook *hook)
{
    return atomic_exchange(&th__error_hook, hook);
}

static int th__fail_v(th_status status, const char *fn, const char *fmt, va_list ap)
{
    int n = snprintf(th__error_message, sizeof th__error_message, "%s: ", fn ? fn : "?");
    if (n < 0 || (size_t)n >= sizeof th__error_message) n = 0;
    vsnprintf(th__error_message + n, sizeof th__error_message - (size_t)n, fmt, ap);
    th__error_status = status;
    th__error_count++;
    const th_error_hook *hook = atomic_load(&th__error_hook);
    if (hook && hook->on_error) hook->on_error(status, th__error_message, hook->ctx);
    return status;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int th__fail(th_status status, const char *fn, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = th__fail_v(status, fn, fmt, ap);
    va_end(ap);
    return r;
}

TH_API int th_set_error(th_status status, const char *fn, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = th__fail_v(status, fn, fmt ? fmt : "", ap);
    va_end(ap);
    return r;
}

#endif /* TH__DEFINING */
