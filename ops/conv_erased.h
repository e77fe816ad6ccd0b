/* ops/conv_erased.h: convolution and pooling, written once for f32, f64, f16 and bf16: conv1d/2d/3d (im2col
 * into a contiguous buffer per batch item and group, then one matrix product: CBLAS sgemm/dgemm when built
 * with TH_USE_CBLAS and th_linalg_blas() is on, else a loop here), max_pool1d/2d/3d (with indices) and
 * avg_pool1d/2d/3d, adaptive_max_pool1d/2d/3d (with indices) and adaptive_avg_pool1d/2d/3d (one kernel each
 * over three spatial dims, a 1d or 2d input with size-1 dims in front).
 * ops/conv.h holds the typed front doors, which check the dtypes and call th__conv_run / th__pool_run here.
 * Every call works in the compute type (double for f64, float otherwise) on contiguous copies of what is not
 * already so, and rounds once into the result. Included twice by tensor.h: the option structs (public), and in
 * the implementation the definitions. docs/nn.md. */
#ifndef TH__DEFINING

/* The options of conv1d/2d/3d, conv_transpose1d/2d/3d, im2col and col2im: index d of each array is spatial dim d
 * (conv1d uses index 0, conv2d 0 and 1). Zero means the default: stride 1, padding 0, dilation 1, groups 1,
 * output_padding 0; a NULL pointer means every default. Negative values are errors. output_padding (last, so
 * that older initialisers keep their meaning) is conv_transpose's only: the other ops refuse a nonzero one, and
 * im2col and col2im refuse groups other than 1. */
typedef struct th_conv_opts {
    int64_t stride[3], padding[3], dilation[3];
    int64_t groups;
    int64_t output_padding[3];
} th_conv_opts;

/* The options of the pooling functions, likewise: zero means the default (stride: the kernel's size; padding
 * 0; dilation 1, which is the only one avg_pool1d/2d/3d take), which is PyTorch's: ceil_mode false,
 * count_include_pad true, no divisor_override. The fields after dilation (last, so that older initialisers keep
 * their meaning):
 *   ceil_mode          max and avg pools: the output sizes rounded up, not down, as PyTorch's ceil_mode (a last
 *                      window that would start past the input and its left padding is dropped)
 *   count_exclude_pad  avg pools only: divide by the number of input elements the window covers, not counting
 *                      the padding (PyTorch's count_include_pad=False)
 *   divisor_override   avg pools only: 0 none, else every window's sum divided by it (>= 1) */
typedef struct th_pool_opts {
    int64_t stride[3], padding[3], dilation[3];
    bool ceil_mode, count_exclude_pad;
    int64_t divisor_override;
} th_pool_opts;

/* How pad fills what lies outside the input, as torch.nn.functional.pad's modes. */
typedef enum th_pad_mode {
    TH_PAD_CONSTANT,  /* the value given */
    TH_PAD_REFLECT,   /* the input mirrored about its edge elements (which are not repeated) */
    TH_PAD_REPLICATE, /* the edge element repeated */
    TH_PAD_CIRCULAR   /* the input repeated: the other end's elements */
} th_pad_mode;

#else

/* One call's geometry, every spatial dim count padded to 3 with size-1 dims in front. */
typedef struct th__conv_geo {
    int64_t n, c, o, g;               /* batch, input channels, output channels (pool: c), groups */
    int64_t in[3], k[3], out[3];      /* input, kernel and output spatial sizes */
    int64_t s[3], p[3], d[3];         /* stride, padding, dilation */
    int64_t inl, kl, outl;            /* their products */
} th__conv_geo;

/* Spatial dim i of nsp from an options array (NULL: every default) into dim 3 - nsp + i of g; def is the
 * default for zero; name and what for the message. */
static int th__conv_opt(const char *fn, const int64_t *a, int nsp, int64_t def, int64_t *dst, const char *name,
                        bool positive)
{
    for (int i = 0; i < 3; i++) dst[i] = i < 3 - nsp ? (positive ? 1 : 0) : def;
    if (!a) return TH_OK;
    for (int i = 0; i < nsp; i++) {
        if (a[i] < 0) return th__fail(TH_ERR_INVALID, fn, "%s[%d] is %lld; it must be >= 0 (0: the default)", name, i, (long long)a[i]);
        if (a[i] > 0) dst[3 - nsp + i] = a[i];
    }
    return TH_OK;
}

/* The output sizes of g from its input, kernel, stride, padding and dilation. */
static int th__conv_out_sizes(const char *fn, int nsp, th__conv_geo *g)
{
    g->inl = g->kl = g->outl = 1;
    for (int i = 0; i < 3 - nsp; i++) g->out[i] = 1;
    for (int i = 3 - nsp; i < 3; i++) {
        int64_t eff = g->d[i] * (g->k[i] - 1) + 1, padded = g->in[i] + 2 * g->p[i];
        if (g->k[i] < 1) return th__fail(TH_ERR_SHAPE, fn, "kernel size %lld in spatial dim %d; it must be >= 1", (long long)g->k[i], i - (3 - nsp));
        if (padded < eff)
            return th__fail(TH_ERR_SHAPE, fn,
                            "the kernel (%lld, dilated to %lld) is larger than the padded input (%lld + 2 * %lld = %lld) in spatial dim %d",
                            (long long)g->k[i], (long long)eff, (long long)g->in[i], (long long)g->p[i], (long long)padded,
                            i - (3 - nsp));
        g->out[i] = (padded - eff) / g->s[i] + 1;
    }
    for (int i = 0; i < 3; i++) {
        g->inl *= g->in[i];
        g->kl *= g->k[i];
        g->outl *= g->out[i];
    }
    return TH_OK;
}

/* t as a contiguous tensor of dtype ct (t itself retained where it already is one). NULL on error. */
static th_tensor *th__conv_dense(const char *fn, th_dtype ct, const th_tensor *t)
{
    if (t->dtype == ct && th_tensor_is_contiguous(t)) return th_tensor_retain((th_tensor *)t);
    return th__convert_new(fn, ct, t);
}

/* C (m x n, row stride ldc) = A (m x k, row stride lda) @ B (k x n, row stride ldb), every one row-major, in
 * double when f64 else float. */
static void th__conv_gemm(bool f64, int64_t m, int64_t n, int64_t k, const void *A, int64_t lda, const void *B,
                          int64_t ldb, void *C, int64_t ldc)
{
#ifdef TH_USE_CBLAS
    if (th_linalg_blas() && m <= INT_MAX && n <= INT_MAX && k <= INT_MAX && lda <= INT_MAX && ldb <= INT_MAX &&
        ldc <= INT_MAX && m > 0 && n > 0 && k > 0) {
        if (f64)
            cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0, (const double *)A,
                        (int)lda, (const double *)B, (int)ldb, 0.0, (double *)C, (int)ldc);
        else
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, (int)m, (int)n, (int)k, 1.0f, (const float *)A,
                        (int)lda, (const float *)B, (int)ldb, 0.0f, (float *)C, (int)ldc);
        return;
    }
#endif
    for (int64_t i = 0; i < m; i++) {
        if (f64) {
            double *c = (double *)C + i * ldc;
            const double *a = (const double *)A + i * lda;
            for (int64_t j = 0; j < n; j++) c[j] = 0;
            for (int64_t l = 0; l < k; l++) {
                const double *b = (const double *)B + l * ldb;
                double av = a[l];
                for (int64_t j = 0; j < n; j++) c[j] += av * b[j];
            }
        } else {
            float *c = (float *)C + i * ldc;
            const float *a = (const float *)A + i * lda;
            for (int64_t j = 0; j < n; j++) c[j] = 0;
            for (int64_t l = 0; l < k; l++) {
                const float *b = (const float *)B + l * ldb;
                float av = a[l];
                for (int64_t j = 0; j < n; j++) c[j] += av * b[j];
            }
        }
    }
}

/* im2col of one group of one batch item: x is cg planes of g->inl elements, col gets cg * kl rows of outl.
 * back: col2im, its adjoint: each element of col is added to the element of x it was read from (the caller
 * zeroes x; positions in the padding are dropped). */
#define TH__CONV_COLS(T)                                                                                            \
    do {                                                                                                            \
        T *xs = (T *)(void *)xp;                                                                                    \
        T *cs = (T *)col;                                                                                           \
        for (int64_t c = 0; c < cg; c++)                                                                            \
            for (int64_t ka = 0; ka < g->k[0]; ka++)                                                                \
                for (int64_t kb = 0; kb < g->k[1]; kb++)                                                            \
                    for (int64_t kc = 0; kc < g->k[2]; kc++) {                                                      \
                        T *plane = xs + c * g->inl;                                                                 \
                        for (int64_t oa = 0; oa < g->out[0]; oa++) {                                                \
                            int64_t ia = oa * g->s[0] - g->p[0] + ka * g->d[0];                                     \
                            for (int64_t ob = 0; ob < g->out[1]; ob++) {                                            \
                                int64_t ib = ob * g->s[1] - g->p[1] + kb * g->d[1];                                 \
                                bool rowin = ia >= 0 && ia < g->in[0] && ib >= 0 && ib < g->in[1];                  \
                                T *row = rowin ? plane + (ia * g->in[1] + ib) * g->in[2] : plane;                   \
                                int64_t off = kc * g->d[2] - g->p[2];                                               \
                                if (back) {                                                                         \
                                    for (int64_t oc = 0; rowin && oc < g->out[2]; oc++) {                           \
                                        int64_t ic = oc * g->s[2] + off;                                            \
                                        if (ic >= 0 && ic < g->in[2]) row[ic] += cs[oc];                            \
                                    }                                                                               \
                                    cs += g->out[2];                                                                \
                                } else if (!rowin) {                                                                \
                                    for (int64_t oc = 0; oc < g->out[2]; oc++) *cs++ = 0;                           \
                                } else if (g->s[2] == 1) { /* zeros, one copied run, zeros */                      \
                                    int64_t a0 = -off < 0 ? 0 : -off, a1 = g->in[2] - off;                          \
                                    if (a0 > g->out[2]) a0 = g->out[2];                                             \
                                    if (a1 > g->out[2]) a1 = g->out[2];                                             \
                                    if (a1 < a0) a1 = a0;                                                           \
                                    for (int64_t oc = 0; oc < a0; oc++) *cs++ = 0;                                  \
                                    if (a1 > a0) memcpy(cs, row + a0 + off, (size_t)(a1 - a0) * sizeof(T));         \
                                    cs += a1 - a0;                                                                  \
                                    for (int64_t oc = a1; oc < g->out[2]; oc++) *cs++ = 0;                          \
                                } else {                                                                            \
                                    for (int64_t oc = 0; oc < g->out[2]; oc++) {                                    \
                                        int64_t ic = oc * g->s[2] + off;                                            \
                                        *cs++ = ic >= 0 && ic < g->in[2] ? row[ic] : (T)0;                          \
                                    }                                                                               \
                                }                                                                                   \
                            }                                                                                       \
                        }                                                                                           \
                    }                                                                                               \
    } while (0)

/* x is only written when back (const cast away by the im2col callers). */
static void th__conv_cols(bool f64, bool back, const th__conv_geo *g, int64_t cg, char *xp, void *col)
{
    if (f64)
        TH__CONV_COLS(double);
    else
        TH__CONV_COLS(float);
}
#undef TH__CONV_COLS

/* The input's shape: batched (N, C, spatial...) or not (C, spatial...); sets g->n (1 unbatched), g->c, g->in. */
static int th__conv_input(const char *fn, const char *what, int nsp, const th_tensor *x, th__conv_geo *g, bool *batched)
{
    if (x->ndim != nsp + 1 && x->ndim != nsp + 2) {
        char a[160];
        th__shape_string(x->ndim, x->sizes, a, sizeof a);
        return th__fail(TH_ERR_SHAPE, fn, "input has shape %s (%d dims); %s takes %d (C, spatial) or %d (N, C, spatial) dims", a,
                        x->ndim, what, nsp + 1, nsp + 2);
    }
    *batched = x->ndim == nsp + 2;
    int b = *batched ? 1 : 0;
    g->n = *batched ? x->sizes[0] : 1;
    g->c = x->sizes[b];
    for (int i = 0; i < 3; i++) g->in[i] = i < 3 - nsp ? 1 : x->sizes[b + 1 + i - (3 - nsp)];
    return TH_OK;
}

static int th__conv_host(const char *fn, const char *name, const th_tensor *t)
{
    if (!th_device_is_host(t->storage->device))
        return th__fail(TH_ERR_DEVICE, fn, "%s is on device type %d, which the host cannot touch", name,
                        (int)t->storage->device.type);
    return th__check_fits(fn, t);
}

/* stride, padding and dilation of nsp spatial dims from o (NULL: every default) into g. op NULL: a nonzero
 * output_padding is refused (it is conv_transpose's only); else it gets output_padding, each less than its
 * dim's stride or dilation (as PyTorch). */
static int th__conv_geo_opts(const char *fn, const th_conv_opts *o, int nsp, th__conv_geo *g, int64_t *op)
{
    if (th__conv_opt(fn, o ? o->stride : NULL, nsp, 1, g->s, "stride", true) ||
        th__conv_opt(fn, o ? o->padding : NULL, nsp, 0, g->p, "padding", false) ||
        th__conv_opt(fn, o ? o->dilation : NULL, nsp, 1, g->d, "dilation", true))
        return th_last_status();
    for (int i = 0; i < nsp; i++) {
        int64_t v = o ? o->output_padding[i] : 0, s = g->s[3 - nsp + i], d = g->d[3 - nsp + i];
        if (!op && v != 0)
            return th__fail(TH_ERR_INVALID, fn, "output_padding[%d] is %lld; only conv_transpose takes one (0)", i,
                            (long long)v);
        if (op && (v < 0 || (v >= s && v >= d)))
            return th__fail(TH_ERR_INVALID, fn,
                            "output_padding[%d] is %lld; it must be >= 0 and smaller than the stride (%lld) or the "
                            "dilation (%lld)",
                            i, (long long)v, (long long)s, (long long)d);
        if (op) op[3 - nsp + i] = v;
    }
    return TH_OK;
}

/* The result of x's dtype (out, checked and retained, or a new tensor; NULL on error): (n, c, sp[0..nsp)),
 * without n when not batched. */
static th_tensor *th__conv_result(const char *fn, th_tensor *out, const th_tensor *x, bool batched, int64_t n,
                                  int64_t c, int nsp, const int64_t *sp)
{
    int64_t rs[TH_MAX_DIMS];
    int rn = 0;
    if (batched) rs[rn++] = n;
    rs[rn++] = c;
    for (int i = 0; i < nsp; i++) rs[rn++] = sp[i];
    return th__result(fn, out, x->dtype, rn, rs);
}

/* The start of a convolution's work once its result exists: each of the n operands in (NULL where absent) as
 * a contiguous copy in the compute type (double for f64, else float), unaliased from result, into dense
 * (NULL where absent; the caller releases them on every path); *y the tensor to write: result where it is
 * contiguous in the compute type, else *tmp, new, which th__op_end copies back. 0 or the failed status. */
static int th__conv_begin(const char *fn, th_tensor *result, int n, const th_tensor *const *in, th_tensor **dense,
                          th_tensor **y, th_tensor **tmp)
{
    th_dtype ct = result->dtype == TH_F64 ? TH_F64 : TH_F32;
    for (int i = 0; i < n; i++) dense[i] = NULL;
    *y = result;
    *tmp = NULL;
    for (int i = 0; i < n; i++) {
        if (!in[i]) continue;
        th_tensor *u = th__unalias(fn, result, in[i]);
        dense[i] = u ? th__conv_dense(fn, ct, u) : NULL;
        th_tensor_release(u);
        if (!dense[i]) return th__failed_status(fn);
    }
    if (!(*y = th__ct_staging(fn, result, ct, tmp))) return th__failed_status(fn);
    return TH_OK;
}

/* A work buffer of rows x cols elements of es bytes, or NULL with TH_ERR_NOMEM naming what it is for. */
static void *th__conv_buffer(const char *fn, const char *what, int64_t rows, int64_t cols, size_t es)
{
    void *p = NULL;
    if ((uint64_t)rows <= SIZE_MAX / es / (uint64_t)(cols > 0 ? cols : 1))
        p = malloc((size_t)rows * (size_t)(cols > 0 ? cols : 1) * es);
    if (!p)
        th__fail(TH_ERR_NOMEM, fn, "out of memory for the %s buffer of %lld x %lld elements", what, (long long)rows,
                 (long long)cols);
    return p;
}

/* y (n x o planes of len elements of the compute type) += bias[c] over each plane of channel c. */
static void th__conv_add_bias(bool f64, int64_t n, int64_t o, int64_t len, const char *bd, char *yd)
{
    size_t es = f64 ? sizeof(double) : sizeof(float);
    for (int64_t i = 0; i < n; i++)
        for (int64_t c = 0; c < o; c++) {
            char *yp = yd + (size_t)((i * o + c) * len) * es;
            if (f64) {
                double bv = ((const double *)(const void *)bd)[c];
                for (int64_t e = 0; e < len; e++) ((double *)(void *)yp)[e] += bv;
            } else {
                float bv = ((const float *)(const void *)bd)[c];
                for (int64_t e = 0; e < len; e++) ((float *)(void *)yp)[e] += bv;
            }
        }
}

/* The checks conv and conv_transpose share: x and w given and on the host as bias (NULL or a tensor), x's
 * shape (into g's n, c and in, and *batched), w of nsp + 2 dims (wdims names them in the message), groups
 * >= 0 (into g->g). 0 or the failed status. */
static int th__conv_start(const char *fn, const char *what, int nsp, const th_tensor *x, const th_tensor *w,
                          const th_tensor *bias, const th_conv_opts *o, const char *wdims, th__conv_geo *g, bool *batched)
{
    if (!x || !w) return th__fail(TH_ERR_INVALID, fn, "NULL %s", x ? "weight" : "input");
    if (th__conv_host(fn, "input", x) || th__conv_host(fn, "weight", w) || (bias && th__conv_host(fn, "bias", bias)))
        return th_last_status();
    if (th__conv_input(fn, what, nsp, x, g, batched)) return th_last_status();
    if (w->ndim != nsp + 2) {
        char a[160];
        th__shape_string(w->ndim, w->sizes, a, sizeof a);
        return th__fail(TH_ERR_SHAPE, fn, "weight has shape %s (%d dims); %s takes %d (%s)", a, w->ndim, what, nsp + 2,
                        wdims);
    }
    if (o && o->groups < 0) return th__fail(TH_ERR_INVALID, fn, "groups is %lld; it must be >= 0 (0: 1)", (long long)o->groups);
    g->g = o && o->groups > 0 ? o->groups : 1;
    return TH_OK;
}

/* conv1d/2d/3d (nsp spatial dims) of x with weight (O, C/groups, kernel...) and bias (NULL or O) into out
 * (NULL: a new tensor). Returns the result (out retained) or NULL. */
TH__MAYBE_UNUSED static th_tensor *th__conv_run(const char *fn, int nsp, th_tensor *out, const th_tensor *x,
                                                const th_tensor *w, const th_tensor *bias, const th_conv_opts *o)
{
    static const char *names[4] = {"", "conv1d", "conv2d", "conv3d"};
    th__conv_geo g;
    bool batched;
    if (th__conv_start(fn, names[nsp], nsp, x, w, bias, o, "out channels, in channels / groups, kernel", &g, &batched))
        return NULL;
    g.o = w->sizes[0];
    if (g.c % g.g || g.o % g.g)
        return th__fail(TH_ERR_SHAPE, fn, "groups %lld does not divide the %s's %lld channels", (long long)g.g,
                        g.c % g.g ? "input" : "weight's output", (long long)(g.c % g.g ? g.c : g.o)),
               NULL;
    if (w->sizes[1] != g.c / g.g)
        return th__fail(TH_ERR_SHAPE, fn,
                        "weight has %lld input channels per group; the input's %lld channels in %lld groups need %lld",
                        (long long)w->sizes[1], (long long)g.c, (long long)g.g, (long long)(g.c / g.g)),
               NULL;
    if (bias && (bias->ndim != 1 || bias->sizes[0] != g.o)) {
        char a[160];
        th__shape_string(bias->ndim, bias->sizes, a, sizeof a);
        return th__fail(TH_ERR_SHAPE, fn, "bias has shape %s; the weight's %lld output channels need (%lld)", a,
                        (long long)g.o, (long long)g.o),
               NULL;
    }
    if (th__conv_geo_opts(fn, o, nsp, &g, NULL)) return NULL;
    for (int i = 0; i < 3; i++) g.k[i] = i < 3 - nsp ? 1 : w->sizes[2 + i - (3 - nsp)];
    if (th__conv_out_sizes(fn, nsp, &g)) return NULL;

    th_tensor *result = th__conv_result(fn, out, x, batched, g.n, g.o, nsp, g.out + 3 - nsp);
    if (!result) return NULL;
    if (th__numel(result) == 0) return result;

    bool f64 = x->dtype == TH_F64;
    size_t es = f64 ? sizeof(double) : sizeof(float);
    const th_tensor *ins[3] = {x, w, bias};
    th_tensor *dense[3], *y, *tmp;
    void *col = NULL;
    bool ok = false; /* set once every step went well */
    if (th__conv_begin(fn, result, 3, ins, dense, &y, &tmp)) goto done;
    th_tensor *xc = dense[0], *wc = dense[1], *bc = dense[2];
    int64_t cg = g.c / g.g, og = g.o / g.g, kk = cg * g.kl;
    bool direct = g.kl == 1 && g.outl == g.inl; /* a 1x1 kernel, stride 1, no padding: x is its own col */
    for (int i = 0; direct && i < 3; i++) direct = g.s[i] == 1 && g.p[i] == 0;
    if (!direct && kk > 0 && !(col = th__conv_buffer(fn, "im2col", kk, g.outl, es))) goto done;
    const char *xd = (const char *)th_tensor_data(xc), *wd = (const char *)th_tensor_data(wc);
    char *yd = (char *)th_tensor_data(y);
    for (int64_t n = 0; n < g.n; n++)
        for (int64_t gi = 0; gi < g.g; gi++) {
            const char *xp = xd + (size_t)((n * g.c + gi * cg) * g.inl) * es;
            char *yp = yd + (size_t)((n * g.o + gi * og) * g.outl) * es;
            const char *wp = wd + (size_t)(gi * og * kk) * es;
            if (kk == 0) {
                memset(yp, 0, (size_t)(og * g.outl) * es);
                continue;
            }
            const void *b = xp;
            if (!direct) {
                th__conv_cols(f64, false, &g, cg, (char *)xp, col);
                b = col;
            }
            th__conv_gemm(f64, og, g.outl, kk, wp, kk, b, g.outl, yp, g.outl);
        }
    if (bc) th__conv_add_bias(f64, g.n, g.o, g.outl, (const char *)th_tensor_data(bc), yd);
    ok = true;
done:
    free(col);
    TH__RELEASE(dense[0], dense[1], dense[2]);
    return th__op_end(fn, ok, result, tmp);
}

/* im2col (F.unfold) of x (N, C, H, W) or (C, H, W) with kernel[2] into (N, C * kh * kw, L) or (C * kh * kw, L),
 * L the number of blocks; or, back, col2im (F.fold) of x (N, C * kh * kw, L) or (C * kh * kw, L) into (N, C,
 * output_size[0], output_size[1]) or (C, ...), the overlapping blocks summed. Into out (NULL: a new tensor).
 * Returns the result (out retained) or NULL. */
TH__MAYBE_UNUSED static th_tensor *th__fold_run(const char *fn, bool back, th_tensor *out, const th_tensor *x,
                                                const int64_t *output_size, const int64_t *kernel,
                                                const th_conv_opts *o)
{
    const char *what = back ? "col2im" : "im2col";
    if (!x) return th__fail(TH_ERR_INVALID, fn, "NULL input"), NULL;
    if (!kernel) return th__fail(TH_ERR_INVALID, fn, "NULL kernel"), NULL;
    if (back && !output_size) return th__fail(TH_ERR_INVALID, fn, "NULL output_size"), NULL;
    if (th__conv_host(fn, "input", x)) return NULL;
    if (o && o->groups != 0 && o->groups != 1)
        return th__fail(TH_ERR_INVALID, fn, "groups is %lld; %s takes none (0 or 1)", (long long)o->groups, what), NULL;
    th__conv_geo g;
    memset(&g, 0, sizeof g);
    if (th__conv_geo_opts(fn, o, 2, &g, NULL)) return NULL;
    g.k[0] = 1;
    g.k[1] = kernel[0];
    g.k[2] = kernel[1];
    bool batched = x->ndim == 3;
    if (!back && th__conv_input(fn, what, 2, x, &g, &batched)) return NULL;
    if (back) {
        if (x->ndim != 2 && x->ndim != 3) {
            char a[160];
            th__shape_string(x->ndim, x->sizes, a, sizeof a);
            return th__fail(TH_ERR_SHAPE, fn, "input has shape %s (%d dims); col2im takes 2 (C * kernel, L) or 3 (N, C * kernel, L)",
                            a, x->ndim),
                   NULL;
        }
        g.n = batched ? x->sizes[0] : 1;
        g.in[0] = 1;
        for (int i = 0; i < 2; i++) {
            if (output_size[i] < 1)
                return th__fail(TH_ERR_INVALID, fn, "output_size[%d] is %lld; it must be >= 1", i, (long long)output_size[i]),
                       NULL;
            g.in[1 + i] = output_size[i];
        }
    }
    if (th__conv_out_sizes(fn, 2, &g)) return NULL;
    if (back) {
        int64_t rows = x->sizes[batched ? 1 : 0], blocks = x->sizes[batched ? 2 : 1];
        if (rows % g.kl)
            return th__fail(TH_ERR_SHAPE, fn, "input has %lld rows (dim %d); a %lld x %lld kernel needs a multiple of %lld",
                            (long long)rows, batched ? 1 : 0, (long long)g.k[1], (long long)g.k[2], (long long)g.kl),
                   NULL;
        if (blocks != g.outl)
            return th__fail(TH_ERR_SHAPE, fn,
                            "input has %lld blocks (its last dim); output_size %lld x %lld with this kernel, stride, "
                            "padding and dilation has %lld x %lld = %lld",
                            (long long)blocks, (long long)g.in[1], (long long)g.in[2], (long long)g.out[1],
                            (long long)g.out[2], (long long)g.outl),
                   NULL;
        g.c = rows / g.kl;
    }
    th_tensor *result = back ? th__conv_result(fn, out, x, batched, g.n, g.c, 2, g.in + 1)
                             : th__conv_result(fn, out, x, batched, g.n, g.c * g.kl, 1, &g.outl);
    if (!result) return NULL;
    if (th__numel(result) == 0) return result;
    bool f64 = x->dtype == TH_F64;
    size_t es = f64 ? sizeof(double) : sizeof(float);
    th_tensor *xc, *y, *tmp;
    bool ok = false; /* set once every step went well */
    if (th__conv_begin(fn, result, 1, &x, &xc, &y, &tmp)) goto done;
    {
        char *xd = (char *)th_tensor_data(xc), *yd = (char *)th_tensor_data(y);
        int64_t planes = g.c * g.inl, cols = g.c * g.kl * g.outl; /* per batch item */
        if (back) memset(yd, 0, (size_t)(g.n * planes) * es);
        for (int64_t n = 0; n < g.n; n++) {
            char *pl = back ? yd + (size_t)(n * planes) * es : xd + (size_t)(n * planes) * es;
            char *cl = back ? xd + (size_t)(n * cols) * es : yd + (size_t)(n * cols) * es;
            th__conv_cols(f64, back, &g, g.c, pl, cl);
        }
    }
    ok = true;
done:
    th_tensor_release(xc);
    return th__op_end(fn, ok, result, tmp);
}

/* conv_transpose1d/2d/3d (nsp spatial dims) of x (N, C, spatial...) or (C, spatial...) with weight (C,
 * O / groups, kernel...) and bias (NULL or O) into out (NULL: a new tensor): per batch item and group, one product
 * weight^T (O / groups * kernel x C / groups) @ x (C / groups x in) into columns, which col2im adds into the
 * output (the adjoint of conv's im2col: the geometry is the conv from the output to the input). Returns the
 * result (out retained) or NULL. */
TH__MAYBE_UNUSED static th_tensor *th__convt_run(const char *fn, int nsp, th_tensor *out, const th_tensor *x,
                                                 const th_tensor *w, const th_tensor *bias, const th_conv_opts *o)
{
    static const char *names[4] = {"", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"};
    th__conv_geo xi, g; /* xi: the input's sizes; g: the conv from the result (g.in) to the input (g.out) */
    memset(&g, 0, sizeof g);
    bool batched;
    if (th__conv_start(fn, names[nsp], nsp, x, w, bias, o, "in channels, out channels / groups, kernel", &xi, &batched))
        return NULL;
    g.g = xi.g;
    g.n = xi.n;
    g.o = xi.c; /* the input's channels */
    if (w->sizes[0] != g.o)
        return th__fail(TH_ERR_SHAPE, fn, "weight has %lld input channels (dim 0); the input has %lld", (long long)w->sizes[0],
                        (long long)g.o),
               NULL;
    if (g.o % g.g)
        return th__fail(TH_ERR_SHAPE, fn, "groups %lld does not divide the input's %lld channels", (long long)g.g, (long long)g.o),
               NULL;
    g.c = w->sizes[1] * g.g; /* the result's channels */
    if (bias && (bias->ndim != 1 || bias->sizes[0] != g.c)) {
        char a[160];
        th__shape_string(bias->ndim, bias->sizes, a, sizeof a);
        return th__fail(TH_ERR_SHAPE, fn, "bias has shape %s; the weight's %lld x %lld groups output channels need (%lld)",
                        a, (long long)w->sizes[1], (long long)g.g, (long long)g.c),
               NULL;
    }
    int64_t op[3] = {0, 0, 0};
    if (th__conv_geo_opts(fn, o, nsp, &g, op)) return NULL;
    g.inl = g.kl = g.outl = 1;
    for (int i = 0; i < 3; i++) {
        bool sp = i >= 3 - nsp;
        g.k[i] = sp ? w->sizes[2 + i - (3 - nsp)] : 1;
        g.out[i] = xi.in[i];
        if (sp && g.k[i] < 1)
            return th__fail(TH_ERR_SHAPE, fn, "kernel size %lld in spatial dim %d; it must be >= 1", (long long)g.k[i],
                            i - (3 - nsp)),
                   NULL;
        g.in[i] = (xi.in[i] - 1) * g.s[i] - 2 * g.p[i] + g.d[i] * (g.k[i] - 1) + op[i] + 1;
        if (sp && g.in[i] < 1)
            return th__fail(TH_ERR_SHAPE, fn,
                            "the output would have size %lld in spatial dim %d: (%lld - 1) * stride %lld - 2 * padding "
                            "%lld + dilation %lld * (kernel %lld - 1) + output_padding %lld + 1",
                            (long long)g.in[i], i - (3 - nsp), (long long)xi.in[i], (long long)g.s[i], (long long)g.p[i],
                            (long long)g.d[i], (long long)g.k[i], (long long)op[i]),
                   NULL;
        g.inl *= g.in[i];
        g.kl *= g.k[i];
        g.outl *= g.out[i];
    }
    th_tensor *result = th__conv_result(fn, out, x, batched, g.n, g.c, nsp, g.in + 3 - nsp);
    if (!result || th__numel(result) == 0) return result;
    const th_tensor *ins[3] = {x, w, bias};
    th_tensor *dense[3], *y, *tmp;
    char *wt = NULL;
    void *col = NULL;
    bool ok = false, f64 = x->dtype == TH_F64; /* ok: set once every step went well */
    size_t es = f64 ? sizeof(double) : sizeof(float);
    if (th__conv_begin(fn, result, 3, ins, dense, &y, &tmp)) goto done;
    int64_t cg = g.o / g.g, og = g.c / g.g, rows = og * g.kl; /* per group: input channels, output ones, col rows */
    if (!(col = th__conv_buffer(fn, "col2im", rows, g.outl, es)) || !(wt = (char *)th__conv_buffer(fn, "weight", g.o, rows, es)))
        goto done;
    {
        const char *xd = (const char *)th_tensor_data(dense[0]), *wd = (const char *)th_tensor_data(dense[1]);
        char *yd = (char *)th_tensor_data(y);
        /* weight (C, O / groups * kernel) to one (O / groups * kernel, C / groups) row-major matrix per group */
        for (int64_t gi = 0; gi < g.g; gi++)
            for (int64_t r = 0; r < rows; r++)
                for (int64_t ic = 0; ic < cg; ic++)
                    memcpy(wt + (size_t)((gi * rows + r) * cg + ic) * es, wd + (size_t)(((gi * cg + ic) * rows) + r) * es, es);
        memset(yd, 0, (size_t)th__numel(result) * es);
        for (int64_t n = 0; n < g.n; n++)
            for (int64_t gi = 0; gi < g.g; gi++) {
                const char *xp = xd + (size_t)((n * g.o + gi * cg) * g.outl) * es;
                th__conv_gemm(f64, rows, g.outl, cg, wt + (size_t)(gi * rows * cg) * es, cg, xp, g.outl, col, g.outl);
                th__conv_cols(f64, true, &g, og, yd + (size_t)((n * g.c + gi * og) * g.inl) * es, col);
            }
        if (dense[2]) th__conv_add_bias(f64, g.n, g.c, g.inl, (const char *)th_tensor_data(dense[2]), yd);
    }
    ok = true;
done:
    free(col);
    free(wt);
    TH__RELEASE(dense[0], dense[1], dense[2]);
    return th__op_end(fn, ok, result, tmp);
}

/* One plane of pooling in the compute type T over g's three spatial dims (1d and 2d with size-1 dims in front):
 * max (with the flat input index of each maximum, NaN winning as in PyTorch) or the average: the window's sum
 * over divisor where it is not 0, else over its size clipped to the padded input (count_include_pad), or, with
 * excl, to the input (no window of a valid geometry lies wholly in the padding; one would give 0). */
#define TH__POOL_PLANE(T)                                                                                           \
    do {                                                                                                            \
        const T *xs = (const T *)xp;                                                                                \
        T *ys = (T *)yp;                                                                                            \
        for (int64_t od = 0; od < g->out[0]; od++)                                                                  \
            for (int64_t oh = 0; oh < g->out[1]; oh++)                                                              \
                for (int64_t ow = 0; ow < g->out[2]; ow++) {                                                        \
                    int64_t d0 = od * g->s[0] - g->p[0], h0 = oh * g->s[1] - g->p[1], w0 = ow * g->s[2] - g->p[2];  \
                    if (is_max) {                                                                                   \
                        T best = (T)-INFINITY;                                                                      \
                        int64_t at = -1;                                                                            \
                        for (int64_t kd = 0; kd < g->k[0]; kd++) {                                                  \
                            int64_t id = d0 + kd * g->d[0];                                                         \
                            if (id < 0 || id >= g->in[0]) continue;                                                 \
                            for (int64_t kh = 0; kh < g->k[1]; kh++) {                                              \
                                int64_t ih = h0 + kh * g->d[1];                                                     \
                                if (ih < 0 || ih >= g->in[1]) continue;                                             \
                                for (int64_t kw = 0; kw < g->k[2]; kw++) {                                          \
                                    int64_t iw = w0 + kw * g->d[2];                                                 \
                                    if (iw < 0 || iw >= g->in[2]) continue;                                         \
                                    int64_t fi = (id * g->in[1] + ih) * g->in[2] + iw;                              \
                                    T v = xs[fi];                                                                   \
                                    if (at < 0 || v > best || isnan(v)) best = v, at = fi;                          \
                                }                                                                                   \
                            }                                                                                       \
                        }                                                                                           \
                        *ys++ = best;                                                                               \
                        if (ip) *ip++ = at;                                                                         \
                    } else {                                                                                        \
                        int64_t d1 = d0 + g->k[0], h1 = h0 + g->k[1], w1 = w0 + g->k[2];                            \
                        int64_t dend = d1 < g->in[0] + g->p[0] ? d1 : g->in[0] + g->p[0];                           \
                        int64_t hend = h1 < g->in[1] + g->p[1] ? h1 : g->in[1] + g->p[1];                           \
                        int64_t wend = w1 < g->in[2] + g->p[2] ? w1 : g->in[2] + g->p[2];                           \
                        int64_t count = (dend - d0) * (hend - h0) * (wend - w0);                                    \
                        int64_t dlo = d0 > 0 ? d0 : 0, dhi = dend < g->in[0] ? dend : g->in[0];                     \
                        int64_t hlo = h0 > 0 ? h0 : 0, hhi = hend < g->in[1] ? hend : g->in[1];                     \
                        int64_t wlo = w0 > 0 ? w0 : 0, whi = wend < g->in[2] ? wend : g->in[2];                     \
                        if (excl) count = dhi > dlo && hhi > hlo && whi > wlo ? (dhi - dlo) * (hhi - hlo) * (whi - wlo) : 0; \
                        if (divisor) count = divisor;                                                               \
                        double sum = 0; /* in double: a float sum of mixed signs loses the small averages' bits */ \
                        for (int64_t id = dlo; id < dhi; id++)                                                      \
                            for (int64_t ih = hlo; ih < hhi; ih++)                                                  \
                                for (int64_t iw = wlo; iw < whi; iw++)                                              \
                                    sum += xs[(id * g->in[1] + ih) * g->in[2] + iw];                                \
                        *ys++ = (T)(count ? sum / (double)count : 0.0);                                             \
                    }                                                                                               \
                }                                                                                                   \
    } while (0)

static void th__pool_plane(bool f64, bool is_max, bool excl, int64_t divisor, const th__conv_geo *g, const char *xp,
                           char *yp, int64_t *ip)
{
    if (f64)
        TH__POOL_PLANE(double);
    else
        TH__POOL_PLANE(float);
}
#undef TH__POOL_PLANE

/* ceil_mode: g's output sizes (floor ones, from th__conv_out_sizes) rounded up where the stride leaves a part
 * window, less a last window that would start past the input and its left padding (PyTorch's rule). */
static void th__pool_ceil_sizes(int nsp, th__conv_geo *g)
{
    g->outl = 1;
    for (int i = 3 - nsp; i < 3; i++) {
        int64_t span = g->in[i] + 2 * g->p[i] - (g->d[i] * (g->k[i] - 1) + 1); /* >= 0: checked before */
        g->out[i] = (span + g->s[i] - 1) / g->s[i] + 1;
        if ((g->out[i] - 1) * g->s[i] >= g->in[i] + g->p[i]) g->out[i]--;
    }
    for (int i = 0; i < 3; i++) g->outl *= g->out[i];
}

/* The name of a pooling op of nsp spatial dims, for messages: max (is_max) or average, adaptive or not. */
static const char *th__pool_name(bool adaptive, bool is_max, int nsp)
{
    static const char *const names[2][2][3] = {
        {{"avg_pool1d", "avg_pool2d", "avg_pool3d"}, {"max_pool1d", "max_pool2d", "max_pool3d"}},
        {{"adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d"},
         {"adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d"}}};
    return names[adaptive][is_max][nsp - 1];
}

/* max_pool1d/2d/3d (is_max; indices, when not NULL, an i64 out of the result's shape) or avg_pool1d/2d/3d of x
 * (nsp spatial dims) with kernel[nsp] into out (NULL: a new tensor). Returns the result (out retained) or NULL. */
TH__MAYBE_UNUSED static th_tensor *th__pool_run(const char *fn, int nsp, bool is_max, th_tensor *out,
                                                th_tensor *indices_out, th_tensor **indices, const th_tensor *x,
                                                const int64_t *kernel, const th_pool_opts *o)
{
    const char *what = th__pool_name(false, is_max, nsp);
    if (indices) *indices = NULL;
    if (!x) return th__fail(TH_ERR_INVALID, fn, "NULL input"), NULL;
    if (!kernel) return th__fail(TH_ERR_INVALID, fn, "NULL kernel"), NULL;
    if (th__conv_host(fn, "input", x)) return NULL;
    th__conv_geo g;
    bool batched;
    if (th__conv_input(fn, what, nsp, x, &g, &batched)) return NULL;
    g.o = g.c;
    g.g = 1;
    for (int i = 0; i < nsp; i++)
        if (kernel[i] < 1)
            return th__fail(TH_ERR_INVALID, fn, "kernel[%d] is %lld; it must be >= 1", i, (long long)kernel[i]), NULL;
    for (int i = 0; i < 3; i++) g.k[i] = i < 3 - nsp ? 1 : kernel[i - (3 - nsp)];
    if (o && is_max && (o->count_exclude_pad || o->divisor_override))
        return th__fail(TH_ERR_INVALID, fn, "%s is %lld; %s takes none (0): it is the average pools' option",
                        o->divisor_override ? "divisor_override" : "count_exclude_pad",
                        o->divisor_override ? (long long)o->divisor_override : 1LL, what),
               NULL;
    if (o && o->divisor_override < 0)
        return th__fail(TH_ERR_INVALID, fn, "divisor_override is %lld; it must be >= 1 (0: none, the window's size)",
                        (long long)o->divisor_override),
               NULL;
    if (th__conv_opt(fn, o ? o->stride : NULL, nsp, 1, g.s, "stride", true) ||
        th__conv_opt(fn, o ? o->padding : NULL, nsp, 0, g.p, "padding", false) ||
        th__conv_opt(fn, o ? o->dilation : NULL, nsp, 1, g.d, "dilation", true))
        return NULL;
    for (int i = 0, j = 3 - nsp; i < nsp; i++, j++) {
        if (!o || o->stride[i] == 0) g.s[j] = kernel[i];
        if (!is_max && g.d[j] != 1)
            return th__fail(TH_ERR_INVALID, fn, "dilation[%d] is %lld; %s takes none (0 or 1)", i, (long long)g.d[j],
                            what),
                   NULL;
        if (2 * g.p[j] > kernel[i])
            return th__fail(TH_ERR_INVALID, fn, "padding[%d] is %lld; it must be at most half the kernel (%lld)", i,
                            (long long)g.p[j], (long long)kernel[i]),
                   NULL;
    }
    if (th__conv_out_sizes(fn, nsp, &g)) return NULL;
    if (o && o->ceil_mode) th__pool_ceil_sizes(nsp, &g);
    int64_t rs[TH_MAX_DIMS];
    int rn = 0;
    if (batched) rs[rn++] = g.n;
    rs[rn++] = g.c;
    for (int i = 3 - nsp; i < 3; i++) rs[rn++] = g.out[i];
    if (indices_out && th__check_out(fn, indices_out, TH_I64, rn, rs)) return NULL;
    th_tensor *result = th__result(fn, out, x->dtype, rn, rs);
    if (!result) return NULL;
    bool f64 = x->dtype == TH_F64;
    th_dtype ct = f64 ? TH_F64 : TH_F32;
    size_t es = f64 ? sizeof(double) : sizeof(float);
    th_tensor *xu = NULL, *xc = NULL, *y = result, *tmp = NULL, *ix = NULL;
    int status = TH_OK;
    bool want_ix = indices || indices_out;
    if (want_ix && !(ix = th__tensor_empty(fn, TH_I64, rn, rs))) goto fail;
    if (th__numel(result) == 0) goto finish;
    if (!(xu = th__unalias(fn, result, x)) || !(xc = th__conv_dense(fn, ct, xu))) goto fail;
    if (!(y = th__ct_staging(fn, result, ct, &tmp))) goto fail;
    {
        const char *xd = (const char *)th_tensor_data(xc);
        char *yd = (char *)th_tensor_data(y);
        int64_t *id = ix ? (int64_t *)th_tensor_data(ix) : NULL;
        for (int64_t pl = 0; pl < g.n * g.c; pl++)
            th__pool_plane(f64, is_max, o && o->count_exclude_pad, o ? o->divisor_override : 0, &g, xd + (size_t)(pl * g.inl) * es, yd + (size_t)(pl * g.outl) * es,
                           id ? id + pl * g.outl : NULL);
    }
    if (tmp && th_tensor_copy(result, tmp)) goto fail;
finish:
    if (indices_out && th_tensor_copy(indices_out, ix)) goto fail;
    goto done;
fail:
    status = th__failed_status(fn);
done:
    TH__RELEASE(xu, xc, tmp);
    if (status != TH_OK || !indices) th_tensor_release(ix);
    if (status != TH_OK) {
        th_tensor_release(result);
        return NULL;
    }
    if (indices) *indices = ix;
    return result;
}

/* pad: x padded (negative pads crop) over its last npad / 2 dims, pads[2i] before and pads[2i + 1] after dim
 * ndim - 1 - i, into out (NULL: a new tensor). A copy in x's own dtype, element by element. Returns the result
 * (out retained) or NULL. */
TH__MAYBE_UNUSED static th_tensor *th__pad_run(const char *fn, th_tensor *out, const th_tensor *x, int npad,
                                               const int64_t *pads, th_pad_mode mode, double value)
{
    static const char *modes[4] = {"constant", "reflect", "replicate", "circular"};
    if (!x) return th__fail(TH_ERR_INVALID, fn, "NULL x"), NULL;
    if (th__conv_host(fn, "x", x)) return NULL;
    if ((int)mode < 0 || (int)mode > 3) return th__fail(TH_ERR_INVALID, fn, "mode %d is no th_pad_mode", (int)mode), NULL;
    if (npad < 0 || npad % 2 || npad / 2 > x->ndim)
        return th__fail(TH_ERR_INVALID, fn, "npad is %d; it must be even, >= 0 and at most twice x's %d dims", npad,
                        x->ndim),
               NULL;
    if (npad > 0 && !pads) return th__fail(TH_ERR_INVALID, fn, "NULL pads"), NULL;
    int nd = x->ndim;
    int64_t lo[TH_MAX_DIMS] = {0}, rs[TH_MAX_DIMS], ca[TH_MAX_DIMS], cm[TH_MAX_DIMS]; /* the crop: start, size */
    for (int d = 0; d < nd; d++) rs[d] = cm[d] = x->sizes[d], ca[d] = 0;
    for (int i = 0; i < npad / 2; i++) {
        int d = nd - 1 - i;
        int64_t l = pads[2 * i], r = pads[2 * i + 1], n = x->sizes[d];
        if (n + l + r < 0)
            return th__fail(TH_ERR_SHAPE, fn, "dim %d of size %lld padded by %lld and %lld would have size %lld", d,
                            (long long)n, (long long)l, (long long)r, (long long)(n + l + r)),
                   NULL;
        /* negative pads crop first; the positive ones then fill from the cropped input (as torch's circular) */
        int64_t a = l < 0 ? -l : 0, m = n - a - (r < 0 ? -r : 0), most = l > r ? l : r;
        if (m < 0) m = 0;
        if (mode == TH_PAD_REFLECT && most > 0 && most >= m)
            return th__fail(TH_ERR_SHAPE, fn, "reflect padding %lld of dim %d must be less than its size %lld (cropped)",
                            (long long)most, d, (long long)m),
                   NULL;
        if ((mode == TH_PAD_CIRCULAR || mode == TH_PAD_REPLICATE) && most > 0 && (m == 0 || (mode == TH_PAD_CIRCULAR && most > m)))
            return th__fail(TH_ERR_SHAPE, fn, "%s padding %lld of dim %d needs a size of at least %lld; it is %lld (cropped)",
                            modes[mode], (long long)most, d, (long long)(mode == TH_PAD_CIRCULAR ? most : 1),
                            (long long)m),
                   NULL;
        ca[d] = a;
        cm[d] = m;
        lo[d] = l;
        rs[d] = n + l + r;
    }
    th_tensor *result = th__result(fn, out, x->dtype, nd, rs);
    if (!result) return NULL;
    int64_t total = th__numel(result);
    if (total == 0) return result;
    th_tensor *xu = NULL, *xc = NULL, *y = result, *tmp = NULL;
    bool ok = false; /* set once every step went well */
    /* the constant as one element of x's dtype, rounded once */
    union {
        double d;
        float f;
        th_float16 h;
        th_bfloat16 b;
    } v;
    if (x->dtype == TH_F64) v.d = value;
    else if (x->dtype == TH_F32) v.f = (float)value;
    else if (x->dtype == TH_F16) v.h = th_float16_from_double(value);
    else v.b = th_bfloat16_from_double(value);
    size_t es = th_dtype_info(x->dtype)->size;
    if (!(xu = th__unalias(fn, result, x)) || !(xc = th__conv_dense(fn, x->dtype, xu))) goto done;
    if (!th_tensor_is_contiguous(result)) {
        if (!(tmp = th__tensor_empty(fn, x->dtype, nd, rs))) goto done;
        y = tmp;
    }
    {
        const char *xd = (const char *)th_tensor_data(xc), *vd = (const char *)&v;
        char *yd = (char *)th_tensor_data(y);
        int64_t idx[TH_MAX_DIMS] = {0}, xstr[TH_MAX_DIMS];
        int64_t span = 1;
        for (int d = nd - 1; d >= 0; d--) xstr[d] = span, span *= x->sizes[d];
        for (int64_t e = 0; e < total; e++) {
            int64_t off = 0;
            bool inside = true;
            for (int d = 0; d < nd; d++) {
                int64_t i = idx[d] - lo[d], n = x->sizes[d];
                if (i < 0 || i >= n || (mode != TH_PAD_CONSTANT && (i < ca[d] || i >= ca[d] + cm[d]))) {
                    int64_t j = i - ca[d], m = cm[d]; /* in the cropped input */
                    if (mode == TH_PAD_CONSTANT) {
                        inside = false;
                        break;
                    } else if (mode == TH_PAD_REFLECT)
                        j = j < 0 ? -j : 2 * (m - 1) - j;
                    else if (mode == TH_PAD_REPLICATE)
                        j = j < 0 ? 0 : m - 1;
                    else
                        j = ((j % m) + m) % m;
                    i = ca[d] + j;
                }
                off += i * xstr[d];
            }
            memcpy(yd + (size_t)e * es, inside ? xd + (size_t)off * es : vd, es);
            for (int d = nd - 1; d >= 0; d--) {
                if (++idx[d] < rs[d]) break;
                idx[d] = 0;
            }
        }
    }
    ok = true;
done:
    TH__RELEASE(xu, xc);
    return th__op_end(fn, ok, result, tmp);
}

/* adaptive_avg_pool1d/2d/3d / adaptive_max_pool1d/2d/3d over three spatial dims (in[3] to out[3]; 1d and 2d
 * with size-1 dims in front): output cell i of a dim of input size n and output size m covers inputs
 * floor(i * n / m) .. ceil((i + 1) * n / m) - 1, as PyTorch's adaptive pooling. */
#define TH__APOOL_START(i, n, m) ((i) * (n) / (m))
#define TH__APOOL_END(i, n, m) ((((i) + 1) * (n) + (m) - 1) / (m))
#define TH__APOOL_PLANE(T)                                                                                          \
    do {                                                                                                            \
        const T *xs = (const T *)xp;                                                                                \
        T *ys = (T *)yp;                                                                                            \
        for (int64_t od = 0; od < on[0]; od++) {                                                                    \
            int64_t d0 = TH__APOOL_START(od, in[0], on[0]), d1 = TH__APOOL_END(od, in[0], on[0]);                   \
            for (int64_t oh = 0; oh < on[1]; oh++) {                                                                \
                int64_t h0 = TH__APOOL_START(oh, in[1], on[1]), h1 = TH__APOOL_END(oh, in[1], on[1]);               \
                for (int64_t ow = 0; ow < on[2]; ow++) {                                                            \
                    int64_t w0 = TH__APOOL_START(ow, in[2], on[2]), w1 = TH__APOOL_END(ow, in[2], on[2]);           \
                    if (is_max) {                                                                                   \
                        int64_t at = (d0 * in[1] + h0) * in[2] + w0;                                                \
                        T best = xs[at];                                                                            \
                        for (int64_t d = d0; d < d1 && !isnan(best); d++)                                           \
                            for (int64_t h = h0; h < h1 && !isnan(best); h++)                                       \
                                for (int64_t w = w0; w < w1; w++) {                                                 \
                                    int64_t fi = (d * in[1] + h) * in[2] + w;                                       \
                                    T v = xs[fi];                                                                   \
                                    if (v > best || isnan(v)) {                                                     \
                                        best = v, at = fi;                                                          \
                                        if (isnan(v)) break;                                                        \
                                    }                                                                               \
                                }                                                                                   \
                        *ys++ = best;                                                                               \
                        if (ip) *ip++ = at;                                                                         \
                    } else {                                                                                        \
                        double sum = 0;                                                                             \
                        for (int64_t d = d0; d < d1; d++)                                                           \
                            for (int64_t h = h0; h < h1; h++)                                                       \
                                for (int64_t w = w0; w < w1; w++) sum += xs[(d * in[1] + h) * in[2] + w];           \
                        *ys++ = (T)(sum / (double)((d1 - d0) * (h1 - h0) * (w1 - w0)));                             \
                    }                                                                                               \
                }                                                                                                   \
            }                                                                                                       \
        }                                                                                                           \
    } while (0)

static void th__apool_plane(bool f64, bool is_max, const int64_t *in, const int64_t *on, const char *xp, char *yp,
                            int64_t *ip)
{
    if (f64)
        TH__APOOL_PLANE(double);
    else
        TH__APOOL_PLANE(float);
}
#undef TH__APOOL_PLANE
#undef TH__APOOL_START
#undef TH__APOOL_END

/* adaptive max (is_max; indices as max_pool's) or average pooling of x (N, C, spatial...) or (C, spatial...), nsp
 * spatial dims, to output_size[nsp] into out (NULL: a new tensor). Returns the result (out retained) or NULL. */
TH__MAYBE_UNUSED static th_tensor *th__apool_run(const char *fn, int nsp, bool is_max, th_tensor *out,
                                                 th_tensor *indices_out, th_tensor **indices, const th_tensor *x,
                                                 const int64_t *output_size)
{
    const char *what = th__pool_name(true, is_max, nsp);
    if (indices) *indices = NULL;
    if (!x) return th__fail(TH_ERR_INVALID, fn, "NULL input"), NULL;
    if (!output_size) return th__fail(TH_ERR_INVALID, fn, "NULL output_size"), NULL;
    if (th__conv_host(fn, "input", x)) return NULL;
    th__conv_geo g;
    bool batched;
    if (th__conv_input(fn, what, nsp, x, &g, &batched)) return NULL;
    int64_t on[3] = {1, 1, 1};
    for (int i = 0; i < nsp; i++) {
        if (output_size[i] < 1)
            return th__fail(TH_ERR_INVALID, fn, "output_size[%d] is %lld; it must be >= 1", i, (long long)output_size[i]),
                   NULL;
        on[3 - nsp + i] = output_size[i];
    }
    if (g.n * g.c > 0 && (g.in[0] == 0 || g.in[1] == 0 || g.in[2] == 0)) {
        char a[96];
        int at = 0;
        for (int i = 3 - nsp; i < 3; i++)
            at += snprintf(a + at, sizeof a - (size_t)at, "%s%lld", i > 3 - nsp ? " x " : "", (long long)g.in[i]);
        return th__fail(TH_ERR_SHAPE, fn, "input has an empty spatial dim (%s); %s needs at least one element", a, what),
               NULL;
    }
    g.inl = g.in[0] * g.in[1] * g.in[2];
    int64_t rs[5];
    int rn = 0;
    if (batched) rs[rn++] = g.n;
    rs[rn++] = g.c;
    for (int i = 0; i < nsp; i++) rs[rn++] = output_size[i];
    if (indices_out && th__check_out(fn, indices_out, TH_I64, rn, rs)) return NULL;
    th_tensor *result = th__result(fn, out, x->dtype, rn, rs);
    if (!result) return NULL;
    bool f64 = x->dtype == TH_F64;
    th_dtype ct = f64 ? TH_F64 : TH_F32;
    size_t es = f64 ? sizeof(double) : sizeof(float);
    th_tensor *xu = NULL, *xc = NULL, *y = result, *tmp = NULL, *ix = NULL;
    int status = TH_OK;
    if ((indices || indices_out) && !(ix = th__tensor_empty(fn, TH_I64, rn, rs))) goto fail;
    if (th__numel(result) == 0) goto finish;
    if (!(xu = th__unalias(fn, result, x)) || !(xc = th__conv_dense(fn, ct, xu))) goto fail;
    if (!(y = th__ct_staging(fn, result, ct, &tmp))) goto fail;
    {
        const char *xd = (const char *)th_tensor_data(xc);
        char *yd = (char *)th_tensor_data(y);
        int64_t *id = ix ? (int64_t *)th_tensor_data(ix) : NULL, outl = on[0] * on[1] * on[2];
        for (int64_t pl = 0; pl < g.n * g.c; pl++)
            th__apool_plane(f64, is_max, g.in, on, xd + (size_t)(pl * g.inl) * es, yd + (size_t)(pl * outl) * es,
                            id ? id + pl * outl : NULL);
    }
    if (tmp && th_tensor_copy(result, tmp)) goto fail;
finish:
    if (indices_out && th_tensor_copy(indices_out, ix)) goto fail;
    goto done;
fail:
    status = th__failed_status(fn);
done:
    TH__RELEASE(xu, xc, tmp);
    if (status != TH_OK || !indices) th_tensor_release(ix);
    if (status != TH_OK) {
        th_tensor_release(result);
        return NULL;
    }
    if (indices) *indices = ix;
    return result;
}


#endif /* TH__DEFINING */
