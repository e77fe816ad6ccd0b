/* cuda/blas.c: matrix products on CUDA tensors through cuBLAS. Every decision (shapes, transpose flags,
 * leading dims, batches, copies, aliasing) is cuda/blas_plan.c's and is tested on the host; this file gives
 * that run device memory, the copy kernels and the cuBLAS calls, and keeps one cuBLAS handle per thread and
 * device.
 *
 * Handles: cublasCreate is slow (milliseconds) and a handle must not be used by two threads at once, so each
 * thread has its own per device, made on first use and bound on each call to the thread's current stream of
 * that device. A workspace is kept per (handle, stream): cuBLAS kernels queued on two streams must not share
 * scratch memory, and cublasSetStream would otherwise fall back to cuBLAS's own pool. Workspaces come from the
 * caching allocator on their stream, so giving one back is stream-ordered and never waits. At thread exit
 * (a C11 tss destructor) the handles are destroyed and the workspaces given back; the main thread's are left to
 * the process's exit, because C11 runs no tss destructor for the thread that calls exit() and destroying a
 * handle from an atexit hook may run after the CUDA runtime has torn itself down. */
#include "blas_plan.h"
#include "cuda_internal.h"

#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#if CUBLAS_VER_MAJOR < 12
#error "cuda/blas.c needs cuBLAS 12 or newer: sizes, leading dims and batch counts go through its 64-bit API"
#endif

/* ---- TF32 ---- */

/* Process-wide, as PyTorch's allow_tf32: a program decides once whether its float products may trade
 * precision for speed, and every thread's products then agree. */
static atomic_int th__allow_tf32;

int th_cuda_set_allow_tf32(int allow) { return atomic_exchange(&th__allow_tf32, allow ? 1 : 0); }
int th_cuda_allow_tf32(void) { return atomic_load(&th__allow_tf32); }

/* ---- handles per thread and device ---- */

enum { TH__BLAS_STREAMS = 8 }; /* workspaces kept per handle; the oldest goes when a ninth stream comes */

typedef struct th__blas_workspace {
    cudaStream_t stream;
    th_storage *mem;
} th__blas_workspace;

typedef struct th__blas_handle {
    cublasHandle_t handle;
    bool bound;          /* stream and workspace set at least once */
    cudaStream_t stream; /* the stream it is bound to */
    size_t ws_bytes;
    int nws;
    th__blas_workspace ws[TH__BLAS_STREAMS];
} th__blas_handle;

typedef struct th__blas_thread {
    th__blas_handle dev[TH_CUDA_MAX_DEVICES];
} th__blas_thread;

static _Thread_local th__blas_thread *th__blas_mine;
static tss_t th__blas_key;
static once_flag th__blas_once = ONCE_FLAG_INIT;
static bool th__blas_key_ok;

static void th__blas_thread_exit(void *p)
{
    th__blas_thread *t = (th__blas_thread *)p;
    /* A forked child cannot touch its parent's CUDA state: its copies of the handles are only memory. */
    const bool usable = th__cuda_forked_reason() == NULL;
    int prev = -1;
    if (usable) (void)cudaGetDevice(&prev);
    for (int d = 0; d < TH_CUDA_MAX_DEVICES; d++) {
        th__blas_handle *h = &t->dev[d];
        if (!h->handle) continue;
        if (usable && cudaSetDevice(d) == cudaSuccess) {
            (void)cublasDestroy(h->handle); /* waits for the handle's work, so the workspaces are idle after */
            for (int i = 0; i < h->nws; i++) th_storage_release(h->ws[i].mem);
        }
    }
    if (usable && prev >= 0) (void)cudaSetDevice(prev);
    free(t);
}

static void th__blas_make_key(void) { th__blas_key_ok = tss_create(&th__blas_key, th__blas_thread_exit) == thrd_success; }

static int th__cublas_fail(const char *fn, cublasStatus_t st, const char *what)
{
    return th_set_error(TH_ERR_DEVICE, fn, "%s failed: %s (%s)", what, cublasGetStatusName(st), cublasGetStatusString(st));
}

/* The calling thread's handle for device (the current device), bound to stream with its workspace. */
static int th__blas_handle_for(const char *fn, int device, cudaStream_t stream, cublasHandle_t *out)
{
    th__blas_thread *t = th__blas_mine;
    if (!t) {
        call_once(&th__blas_once, th__blas_make_key);
        t = (th__blas_thread *)calloc(1, sizeof *t);
        if (!t) return th_set_error(TH_ERR_NOMEM, fn, "out of memory for the thread's cuBLAS handles");
        /* without a key the table lives until the process ends: a leak, never a crash */
        if (th__blas_key_ok) (void)tss_set(th__blas_key, t);
        th__blas_mine = t;
    }
    th__blas_handle *h = &t->dev[device];
    if (!h->handle) {
        cublasStatus_t st = cublasCreate(&h->handle);
        if (st != CUBLAS_STATUS_SUCCESS) {
            h->handle = NULL;
            return th__cublas_fail(fn, st, "cublasCreate");
        }
        /* NVIDIA's advice: 32 MiB for Hopper and later, 4 MiB before */
        int major = 0;
        (void)cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
        h->ws_bytes = (size_t)(major >= 9 ? 32 : 4) << 20;
    }
    if (!h->bound || h->stream != stream) {
        cublasStatus_t st = cublasSetStream(h->handle, stream);
        if (st != CUBLAS_STATUS_SUCCESS) return th__cublas_fail(fn, st, "cublasSetStream");
        h->bound = false;
        int i = 0;
        while (i < h->nws && h->ws[i].stream != stream) i++;
        if (i == h->nws) {
            if (h->nws == TH__BLAS_STREAMS) { /* given back on its own stream: stream-ordered, no wait */
                th_storage_release(h->ws[0].mem);
                memmove(&h->ws[0], &h->ws[1], sizeof h->ws[0] * (TH__BLAS_STREAMS - 1));
                i = --h->nws;
            }
            void *ctx = NULL;
            const th_allocator *a = th_cuda_allocator(device, &ctx); /* takes memory for this stream */
            th_storage *mem = a ? th_storage_new((int64_t)h->ws_bytes, a, ctx) : NULL;
            if (!mem) return th_last_status();
            h->ws[i].stream = stream;
            h->ws[i].mem = mem;
            h->nws++;
        }
        st = cublasSetWorkspace(h->handle, th_storage_raw_data(h->ws[i].mem), h->ws_bytes);
        if (st != CUBLAS_STATUS_SUCCESS) return th__cublas_fail(fn, st, "cublasSetWorkspace");
        h->stream = stream;
        h->bound = true;
    }
    *out = h->handle;
    return TH_OK;
}

/* ---- the table of operations on the device ---- */

typedef struct th__blas_ctx {
    int device;          /* the product's device: that of its first CUDA operand; -1: none */
    const char *first;   /* that operand's name */
    bool ready;          /* the device checked and made current */
    int prev_device;
    cudaStream_t stream;
    cublasHandle_t handle;
} th__blas_ctx;

static bool th__is_cuda(const th_tensor *t)
{
    return t && th_storage_device(th_tensor_storage(t)).type == TH_DEVICE_CUDA;
}

static int th__blas_check(void *ctx, const char *fn, const char *name, const th_tensor *t)
{
    const th__blas_ctx *x = (const th__blas_ctx *)ctx;
    th_device d = th_storage_device(th_tensor_storage(t));
    if (x->device < 0)
        return th_set_error(TH_ERR_DEVICE, fn, "no operand is a CUDA tensor (%s is on device type %d)", name,
                            (int)d.type);
    if (d.type != TH_DEVICE_CUDA)
        return th_set_error(TH_ERR_DEVICE, fn,
                            "%s is not on a CUDA device (device type %d) but %s is on CUDA device %d: a product's "
                            "operands must all be on one device",
                            name, (int)d.type, x->first, x->device);
    if ((int)d.index != x->device)
        return th_set_error(TH_ERR_DEVICE, fn, "%s is on CUDA device %d but %s is on CUDA device %d", name,
                            (int)d.index, x->first, x->device);
    return TH_OK;
}

/* Everything before this only read the operands' headers; from here on CUDA is used. */
static int th__blas_ready(th__blas_ctx *x, const char *fn)
{
    if (x->ready) return TH_OK;
    if (th__cuda_check_device(fn, x->device)) return th_last_status();
    cudaError_t e = cudaGetDevice(&x->prev_device);
    if (e == cudaSuccess && x->prev_device != x->device) e = cudaSetDevice(x->device);
    if (e != cudaSuccess) return th__cuda_fail(fn, (int)e, "cudaSetDevice");
    x->ready = true;
    x->stream = (cudaStream_t)th_cuda_stream_handle(th_cuda_current_stream(x->device));
    return TH_OK;
}

static th_tensor *th__blas_empty(void *ctx, const char *fn, th_dtype dtype, int ndim, const int64_t *sizes)
{
    th__blas_ctx *x = (th__blas_ctx *)ctx;
    if (th__blas_ready(x, fn)) return NULL;
    return th__cuda_empty(fn, dtype, x->device, ndim, sizes);
}

static int th__blas_copy(void *ctx, const char *fn, th_tensor *dst, const th_tensor *src)
{
    th__blas_ctx *x = (th__blas_ctx *)ctx;
    if (th__blas_ready(x, fn)) return th_last_status();
    return th__cuda_copy(fn, dst, src);
}

static cublasOperation_t th__op(int op) { return op == TH__CUDA_OP_T ? CUBLAS_OP_T : CUBLAS_OP_N; }

static int th__blas_gemm(void *ctx, const char *fn, const th__cuda_gemm_call *c)
{
    th__blas_ctx *x = (th__blas_ctx *)ctx;
    if (th__blas_ready(x, fn)) return th_last_status();
    if (!x->handle && th__blas_handle_for(fn, x->device, x->stream, &x->handle)) return th_last_status();
    cublasHandle_t h = x->handle;
    const cublasOperation_t ta = th__op(c->opa), tb = th__op(c->opb);
    const bool one = c->batch == 1;
    /* TF32 is a float-precision question (f32 and c64); halves keep their products' sums in float
     * throughout, as the CPU does, so cuBLAS may not reduce split-k partial sums in half precision. */
    cublasMath_t mode = CUBLAS_DEFAULT_MATH;
    if ((c->dtype == TH_F32 || c->dtype == TH_C64) && th_cuda_allow_tf32()) mode = CUBLAS_TF32_TENSOR_OP_MATH;
    if (c->dtype == TH_F16 || c->dtype == TH_BF16)
        mode = (cublasMath_t)(CUBLAS_DEFAULT_MATH | CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION);
    cublasStatus_t st = cublasSetMathMode(h, mode);
    if (st != CUBLAS_STATUS_SUCCESS) return th__cublas_fail(fn, st, "cublasSetMathMode");
    const char *what = "";
    switch (c->dtype) {
    case TH_F32:
        what = one ? "cublasSgemm_64" : "cublasSgemmStridedBatched_64";
        st = one ? cublasSgemm_64(h, ta, tb, c->m, c->n, c->k, (const float *)c->alpha, (const float *)c->a, c->lda,
                                  (const float *)c->b, c->ldb, (const float *)c->beta, (float *)c->c, c->ldc)
                 : cublasSgemmStridedBatched_64(h, ta, tb, c->m, c->n, c->k, (const float *)c->alpha,
                                                (const float *)c->a, c->lda, c->stride_a, (const float *)c->b, c->ldb,
                                                c->stride_b, (const float *)c->beta, (float *)c->c, c->ldc, c->stride_c,
                                                c->batch);
        break;
    case TH_F64:
        what = one ? "cublasDgemm_64" : "cublasDgemmStridedBatched_64";
        st = one ? cublasDgemm_64(h, ta, tb, c->m, c->n, c->k, (const double *)c->alpha, (const double *)c->a, c->lda,
                                  (const double *)c->b, c->ldb, (const double *)c->beta, (double *)c->c, c->ldc)
                 : cublasDgemmStridedBatched_64(h, ta, tb, c->m, c->n, c->k, (const double *)c->alpha,
                                                (const double *)c->a, c->lda, c->stride_a, (const double *)c->b,
                                                c->ldb, c->stride_b, (const double *)c->beta, (double *)c->c, c->ldc,
                                                c->stride_c, c->batch);
        break;
    case TH_C64:
        what = one ? "cublasCgemm_64" : "cublasCgemmStridedBatched_64";
        st = one ? cublasCgemm_64(h, ta, tb, c->m, c->n, c->k, (const cuComplex *)c->alpha, (const cuComplex *)c->a,
                                  c->lda, (const cuComplex *)c->b, c->ldb, (const cuComplex *)c->beta,
                                  (cuComplex *)c->c, c->ldc)
                 : cublasCgemmStridedBatched_64(h, ta, tb, c->m, c->n, c->k, (const cuComplex *)c->alpha,
                                                (const cuComplex *)c->a, c->lda, c->stride_a, (const cuComplex *)c->b,
                                                c->ldb, c->stride_b, (const cuComplex *)c->beta, (cuComplex *)c->c,
                                                c->ldc, c->stride_c, c->batch);
        break;
    case TH_C128:
        what = one ? "cublasZgemm_64" : "cublasZgemmStridedBatched_64";
        st = one ? cublasZgemm_64(h, ta, tb, c->m, c->n, c->k, (const cuDoubleComplex *)c->alpha,
                                  (const cuDoubleComplex *)c->a, c->lda, (const cuDoubleComplex *)c->b, c->ldb,
                                  (const cuDoubleComplex *)c->beta, (cuDoubleComplex *)c->c, c->ldc)
                 : cublasZgemmStridedBatched_64(h, ta, tb, c->m, c->n, c->k, (const cuDoubleComplex *)c->alpha,
                                                (const cuDoubleComplex *)c->a, c->lda, c->stride_a,
                                                (const cuDoubleComplex *)c->b, c->ldb, c->stride_b,
                                                (const cuDoubleComplex *)c->beta, (cuDoubleComplex *)c->c, c->ldc,
                                                c->stride_c, c->batch);
        break;
    case TH_F16:
    case TH_BF16: {
        const cudaDataType t = c->dtype == TH_F16 ? CUDA_R_16F : CUDA_R_16BF;
        what = one ? "cublasGemmEx_64" : "cublasGemmStridedBatchedEx_64";
        st = one ? cublasGemmEx_64(h, ta, tb, c->m, c->n, c->k, c->alpha, c->a, t, c->lda, c->b, t, c->ldb, c->beta,
                                   c->c, t, c->ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT)
                 : cublasGemmStridedBatchedEx_64(h, ta, tb, c->m, c->n, c->k, c->alpha, c->a, t, c->lda, c->stride_a,
                                                 c->b, t, c->ldb, c->stride_b, c->beta, c->c, t, c->ldc, c->stride_c,
                                                 c->batch, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        break;
    }
    default: /* th__cuda_mm_run refuses every other dtype before any call */
        return th_set_error(TH_ERR_DTYPE, fn, "no cuBLAS GEMM for %s", th_dtype_name(c->dtype));
    }
    return st == CUBLAS_STATUS_SUCCESS ? TH_OK : th__cublas_fail(fn, st, what);
}

static const th__cuda_mm_ops th__blas_ops = {th__blas_check, th__blas_empty, th__blas_copy, th__blas_gemm};

int th__cuda_matmul(const char *fn, th__cuda_mm_kind kind, th_dtype dtype, th_tensor *out, const th_tensor *bias,
                    bool has_bias, const th_tensor *a, const th_tensor *b, const void *beta, const void *alpha,
                    th_tensor **result)
{
    th__blas_ctx x = {-1, NULL, false, 0, NULL, NULL};
    const th_tensor *ops[4] = {a, b, has_bias ? bias : NULL, out};
    for (int i = 0; i < 4 && x.device < 0; i++)
        if (th__is_cuda(ops[i])) {
            x.device = (int)th_storage_device(th_tensor_storage(ops[i])).index;
            x.first = i == 3 ? "out" : th__cuda_mm_name(kind, i);
        }
    int status = th__cuda_mm_run(&th__blas_ops, &x, fn, kind, dtype, out, bias, has_bias, a, b, beta, alpha, result);
    if (x.ready && x.prev_device != x.device) (void)cudaSetDevice(x.prev_device);
    return status;
}
