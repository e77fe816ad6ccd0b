/* ops/resize_erased.h: interpolate (torch.nn.functional.interpolate: nearest, nearest-exact, linear, bilinear,
 * bicubic, trilinear), written once for f32, f64, f16 and bf16. ops/resize.h holds the typed front doors, which
 * check the dtypes and call th__interp_run here.
 * Each spatial dim gets a table of taps (input offsets, already times the input's stride, and weights) per
 * output index, computed as PyTorch 1.13's CPU kernels compute them (ATen/native/UpSample.h); every output
 * element is then the nested weighted sum over the dims' taps, outermost dim outermost, in the compute type
 * (double for f64, float otherwise). The input is read where it lies, any strides (f16 and bf16 through a
 * float copy); planes (N * C) are split across threads (core/thread.h), each computed alone, so the result
 * does not depend on the thread count. Included twice by tensor.h: the options (public), and in the
 * implementation the definitions. docs/nn.md#interpolate. */
#ifndef TH__DEFINING

/* interpolate's modes, as torch.nn.functional.interpolate's. */
typedef enum th_interp_mode {
    TH_INTERP_NEAREST,       /* 'nearest' (the default): source floor(dst * in / out), PyTorch's legacy rule; 1-3 spatial dims */
    TH_INTERP_LINEAR,        /* 'linear': input (N, C, W) */
    TH_INTERP_BILINEAR,      /* 'bilinear': input (N, C, H, W) */
    TH_INTERP_BICUBIC,       /* 'bicubic': input (N, C, H, W); A = -0.75, taps past the border clamped to it */
    TH_INTERP_TRILINEAR,     /* 'trilinear': input (N, C, D, H, W) */
    TH_INTERP_NEAREST_EXACT  /* 'nearest-exact': source floor((dst + 0.5) * in / out); 1-3 spatial dims */
} th_interp_mode;

/* interpolate's options; zero means the default. Give exactly one of size (the output's spatial sizes, each
 * >= 1) and scale (the factors, each > 0; the output size is floor(in * scale)), index i for spatial dim i,
 * the entries past the input's spatial dims zero. With scale, the coordinate transform uses 1 / scale, as
 * F.interpolate with recompute_scale_factor None or False (its default); recompute_scale_factor true uses
 * in / out instead, as if the size had been given. align_corners as PyTorch (linear modes and bicubic only). */
typedef struct th_interp_opts {
    th_interp_mode mode;
    int64_t size[3];
    double scale[3];
    bool align_corners;
    bool recompute_scale_factor;
} th_interp_opts;

#else

/* One spatial dim's taps: for output index o, nt input offsets off[o * nt + t] (index times the input's
 * stride) and weights w[o * nt + t] of the compute type. */
typedef struct th__interp_dim {
    int64_t in, out, nt;
    int64_t *off;
    void *w;
} th__interp_dim;

/* The taps of one dim in the compute type T; scale > 0: the factor given (its 1 / scale transforms), else
 * in / out. As torch 1.13: nearest's index in float whatever the dtype, with out == in and out == 2 * in
 * exact; linear's source index in double, its lambdas in T, out == in a copy; bicubic's all in T. */
#define TH__INTERP_TAPS(T, FLOOR)                                                                                   \
    do {                                                                                                            \
        T *w = (T *)d->w;                                                                                           \
        int64_t in = d->in, out = d->out;                                                                           \
        T ratio = align ? (out > 1 ? (T)(in - 1) / (T)(out - 1) : (T)0) : scale > 0 ? (T)(1.0 / scale) : (T)in / (T)out; \
        for (int64_t o = 0; o < out; o++) {                                                                         \
            int64_t *po = d->off + o * d->nt;                                                                       \
            T *pw = w + o * d->nt;                                                                                  \
            if (mode == TH_INTERP_NEAREST || mode == TH_INTERP_NEAREST_EXACT) {                                     \
                float fs = scale > 0 ? (float)(1.0 / scale) : (float)in / (float)out;                               \
                int64_t i;                                                                                          \
                if (mode == TH_INTERP_NEAREST && out == in) i = o;                                                  \
                else if (mode == TH_INTERP_NEAREST && out == 2 * in) i = o >> 1;                                    \
                else if (mode == TH_INTERP_NEAREST) i = (int64_t)floorf((float)o * fs);                             \
                else i = (int64_t)floorf((float)(((double)o + 0.5) * (double)fs));                                  \
                if (i > in - 1) i = in - 1;                                                                         \
                po[0] = i * stride;                                                                                 \
                pw[0] = (T)1;                                                                                       \
            } else if (mode != TH_INTERP_BICUBIC) {                                                                 \
                int64_t i0 = o, i1 = o;                                                                             \
                T l1 = 0;                                                                                           \
                if (out != in) {                                                                                    \
                    double r = align ? (double)ratio * (double)o : (double)ratio * ((double)o + 0.5) - 0.5;         \
                    if (!align && r < 0) r = 0;                                                                     \
                    i0 = (int64_t)r;                                                                                \
                    i1 = i0 + (i0 < in - 1 ? 1 : 0);                                                                \
                    l1 = (T)(r - (double)i0);                                                                       \
                }                                                                                                   \
                po[0] = i0 * stride, po[1] = i1 * stride;                                                           \
                pw[0] = (T)1 - l1, pw[1] = l1;                                                                      \
            } else {                                                                                                \
                const T A = (T)-0.75;                                                                               \
                T r = align ? ratio * (T)o : ratio * ((T)o + (T)0.5) - (T)0.5;                                      \
                int64_t i = (int64_t)FLOOR(r);                                                                      \
                if (i > in - 1) i = in - 1;                                                                         \
                T t = r - (T)i;                                                                                     \
                t = t < 0 ? (T)0 : t > 1 ? (T)1 : t;                                                                \
                T x1 = t + (T)1, x2 = (T)1 - t, x3 = x2 + (T)1;                                                     \
                pw[0] = ((A * x1 - 5 * A) * x1 + 8 * A) * x1 - 4 * A;                                               \
                pw[1] = ((A + 2) * t - (A + 3)) * t * t + 1;                                                        \
                pw[2] = ((A + 2) * x2 - (A + 3)) * x2 * x2 + 1;                                                     \
                pw[3] = ((A * x3 - 5 * A) * x3 + 8 * A) * x3 - 4 * A;                                               \
                for (int k = 0; k < 4; k++) {                                                                       \
                    int64_t j = i - 1 + k;                                                                          \
                    po[k] = (j < 0 ? 0 : j > in - 1 ? in - 1 : j) * stride;                                         \
                }                                                                                                   \
            }                                                                                                       \
        }                                                                                                           \
    } while (0)

static void th__interp_taps(bool f64, th_interp_mode mode, bool align, double scale, int64_t stride,
                            th__interp_dim *d)
{
    if (f64)
        TH__INTERP_TAPS(double, floor);
    else
        TH__INTERP_TAPS(float, floorf);
}
#undef TH__INTERP_TAPS

/* What the threads share. */
typedef struct th__interp_job {
    bool f64;
    const char *x;          /* the input's first element */
    int64_t c, sn, sc;      /* channels; the input's batch and channel strides (elements) */
    char *y;                /* the contiguous result of the compute type */
    th__interp_dim dim[3];  /* the spatial dims, padded in front to 3 with one-element dims */
    bool unit_outer;        /* every weight of dims 0 and 1 is 1 (nearest modes, padding dims) */
    bool unit_inner;        /* every weight of dim 2 is 1 */
} th__interp_job;

/* The row with one outer row of taps in dim 0 (na == 1: its weight 1) and NB in dim 1, the counts constant. */
#define TH__INTERP_ROW1(T, NC, NB)                                                                                  \
    for (int64_t c = 0; c < n; c++) {                                                                               \
        const int64_t *o3 = oc + c * NC;                                                                            \
        const T *ww = w3 + c * NC;                                                                                  \
        T accb = 0;                                                                                                 \
        for (int k = 0; k < NB; k++) {                                                                              \
            const T *row = rw[k];                                                                                   \
            T s = ww[0] * row[o3[0]];                                                                               \
            for (int t = 1; t < NC; t++) s += ww[t] * row[o3[t]];                                                   \
            T v = unit ? s : wbv[k] * s;                                                                            \
            accb = k ? accb + v : v;                                                                                \
        }                                                                                                           \
        yo[c] = accb;                                                                                               \
    }

/* One output row (the innermost dim, n outputs) over the compute type T with NC taps in it: the rows of the
 * outer dims' taps, na x nb of them, rows[i * nb + k], weights wa[i] and wb[k] (unit: every outer weight 1,
 * a multiplication that changes nothing, skipped). The sums nest as torch's: innermost first, then
 * wb[k] times it summed over k, then wa[i] times that summed over i. */
#define TH__INTERP_ROW(T, NC)                                                                                       \
    do {                                                                                                            \
        const T *const *rw = (const T *const *)rows;                                                                \
        const T *wav = (const T *)wa, *wbv = (const T *)wb, *w3 = (const T *)wc;                                    \
        T *restrict yo = (T *)yrow;                                                                                 \
        if (NC == 1 && unit && na * nb == 1) {                                                                      \
            const T *r0 = rw[0];                                                                                    \
            if (unitc)                                                                                              \
                for (int64_t c = 0; c < n; c++) yo[c] = r0[oc[c]];                                                  \
            else                                                                                                    \
                for (int64_t c = 0; c < n; c++) yo[c] = w3[c] * r0[oc[c]];                                          \
            break;                                                                                                  \
        }                                                                                                           \
        if (na == 1 && (nb == 1 || nb == 2 || nb == 4)) { /* the counts constant: loops unrolled */                 \
            if (nb == 1) {                                                                                          \
                TH__INTERP_ROW1(T, NC, 1);                                                                          \
            } else if (nb == 2) {                                                                                   \
                TH__INTERP_ROW1(T, NC, 2);                                                                          \
            } else {                                                                                                \
                TH__INTERP_ROW1(T, NC, 4);                                                                          \
            }                                                                                                       \
            break;                                                                                                  \
        }                                                                                                           \
        for (int64_t c = 0; c < n; c++) {                                                                           \
            const int64_t *o3 = oc + c * NC;                                                                        \
            const T *ww = w3 + c * NC;                                                                              \
            T acc = 0;                                                                                              \
            for (int64_t i = 0; i < na; i++) {                                                                      \
                T accb = 0;                                                                                         \
                for (int64_t k = 0; k < nb; k++) {                                                                  \
                    const T *row = rw[i * nb + k];                                                                  \
                    T s = ww[0] * row[o3[0]];                                                                       \
                    for (int t = 1; t < NC; t++) s += ww[t] * row[o3[t]];                                           \
                    T v = unit ? s : wbv[k] * s;                                                                    \
                    accb = k ? accb + v : v;                                                                        \
                }                                                                                                   \
                T v = unit ? accb : wav[i] * accb;                                                                  \
                acc = i ? acc + v : v;                                                                              \
            }                                                                                                       \
            yo[c] = acc;                                                                                            \
        }                                                                                                           \
    } while (0)

/* The row function of one compute type: the tap count chosen once per row, so each case's loops are unrolled. */
#define TH__INTERP_ROW_FN(name, T)                                                                                  \
    static void name(const void *const *rows, const void *wa, const void *wb, int64_t na, int64_t nb, bool unit,   \
                     bool unitc, const int64_t *oc, const void *wc, int nc, int64_t n, void *yrow)                  \
    {                                                                                                               \
        if (nc == 1)                                                                                                \
            TH__INTERP_ROW(T, 1);                                                                                   \
        else if (nc == 2)                                                                                           \
            TH__INTERP_ROW(T, 2);                                                                                   \
        else                                                                                                        \
            TH__INTERP_ROW(T, 4);                                                                                   \
    }
TH__INTERP_ROW_FN(th__interp_row_f, float)
TH__INTERP_ROW_FN(th__interp_row_d, double)
#undef TH__INTERP_ROW_FN
#undef TH__INTERP_ROW
#undef TH__INTERP_ROW1

/* Planes begin..end-1 (threads' body for th__parallel_chunks). */
static void th__interp_planes(void *ctx, int64_t begin, int64_t end)
{
    const th__interp_job *j = (const th__interp_job *)ctx;
    const th__interp_dim *da = &j->dim[0], *db = &j->dim[1], *dc = &j->dim[2];
    size_t es = j->f64 ? sizeof(double) : sizeof(float);
    int64_t outl = da->out * db->out * dc->out, na = da->nt, nb = db->nt;
    /* the outer weights are all 1 when the outer dims are nearest's or size-1 padding */
    bool unit = j->unit_outer, unitc = j->unit_inner;
    const void *rows[16];
    for (int64_t p = begin; p < end; p++) {
        const char *xp = j->x + (size_t)((p / j->c) * j->sn + (p % j->c) * j->sc) * es;
        char *yp = j->y + (size_t)(p * outl) * es;
        for (int64_t a = 0; a < da->out; a++)
            for (int64_t b = 0; b < db->out; b++) {
                for (int64_t i = 0; i < na; i++)
                    for (int64_t k = 0; k < nb; k++)
                        rows[i * nb + k] = xp + (ptrdiff_t)(da->off[a * na + i] + db->off[b * nb + k]) * (ptrdiff_t)es;
                const char *wa = (const char *)da->w + (size_t)(a * na) * es, *wb = (const char *)db->w + (size_t)(b * nb) * es;
                char *yrow = yp + (size_t)((a * db->out + b) * dc->out) * es;
                if (j->f64)
                    th__interp_row_d(rows, wa, wb, na, nb, unit, unitc, dc->off, dc->w, (int)dc->nt, dc->out, yrow);
                else
                    th__interp_row_f(rows, wa, wb, na, nb, unit, unitc, dc->off, dc->w, (int)dc->nt, dc->out, yrow);
            }
    }
}

/* interpolate of x by o into out (NULL: a new tensor). Returns the result (out retained) or NULL. */
TH__MAYBE_UNUSED static th_tensor *th__interp_run(const char *fn, th_tensor *out, const th_tensor *x,
                                                  const th_interp_opts *o)
{
    static const char *const names[6] = {"nearest", "linear", "bilinear", "bicubic", "trilinear", "nearest-exact"};
    if (!x) return th__fail(TH_ERR_INVALID, fn, "NULL input"), NULL;
    if (!o) return th__fail(TH_ERR_INVALID, fn, "NULL opts; give the output size or the scale factors"), NULL;
    if (th__conv_host(fn, "input", x)) return NULL;
    int mode = (int)o->mode;
    if (mode < 0 || mode > 5) return th__fail(TH_ERR_INVALID, fn, "mode %d is no th_interp_mode", mode), NULL;
    int nsp = x->ndim - 2;
    int want = mode == TH_INTERP_LINEAR ? 1 : mode == TH_INTERP_BILINEAR || mode == TH_INTERP_BICUBIC ? 2
             : mode == TH_INTERP_TRILINEAR ? 3 : 0;
    if (want ? nsp != want : nsp < 1 || nsp > 3) {
        char a[160];
        th__shape_string(x->ndim, x->sizes, a, sizeof a);
        if (want)
            return th__fail(TH_ERR_SHAPE, fn, "input has shape %s (%d dims); %s takes %d (N, C, spatial) dims", a,
                            x->ndim, names[mode], want + 2),
                   NULL;
        return th__fail(TH_ERR_SHAPE, fn, "input has shape %s (%d dims); %s takes 3 to 5 (N, C, spatial) dims", a,
                        x->ndim, names[mode]),
               NULL;
    }
    bool nearest = mode == TH_INTERP_NEAREST || mode == TH_INTERP_NEAREST_EXACT;
    if (nearest && o->align_corners)
        return th__fail(TH_ERR_INVALID, fn, "align_corners is for the linear modes and bicubic, not %s", names[mode]),
               NULL;
    bool has_size = false, has_scale = false;
    for (int i = 0; i < 3; i++) {
        if (o->size[i] != 0) has_size = true;
        if (o->scale[i] != 0) has_scale = true;
    }
    if (has_size == has_scale)
        return th__fail(TH_ERR_INVALID, fn, "%s; give exactly one of size and scale",
                        has_size ? "both size and scale are given" : "neither size nor scale is given"),
               NULL;
    th__interp_job job;
    memset(&job, 0, sizeof job);
    double scale[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        int64_t in = i < nsp ? x->sizes[2 + i] : 1;
        if (i >= nsp) {
            if (o->size[i] != 0 || o->scale[i] != 0)
                return th__fail(TH_ERR_INVALID, fn, "%s[%d] is given but the input has %d spatial dims",
                                has_size ? "size" : "scale", i, nsp),
                       NULL;
            continue;
        }
        if (in < 1)
            return th__fail(TH_ERR_SHAPE, fn, "spatial dim %d of the input has size %lld; it must be >= 1", i,
                            (long long)in),
                   NULL;
        int64_t os;
        if (has_size) {
            if (o->size[i] < 1)
                return th__fail(TH_ERR_INVALID, fn, "size[%d] is %lld; it must be >= 1", i, (long long)o->size[i]), NULL;
            os = o->size[i];
        } else {
            double s = o->scale[i];
            if (!(s > 0) || !isfinite(s))
                return th__fail(TH_ERR_INVALID, fn, "scale[%d] is %g; it must be > 0 and finite", i, s), NULL;
            double f = floor((double)in * s);
            if (f < 1 || f > (double)INT64_MAX / 2)
                return th__fail(TH_ERR_SHAPE, fn, "scale[%d] %g makes spatial dim %d of size %lld %.0f; it must be from 1 to 2^62",
                                i, s, i, (long long)in, f),
                       NULL;
            os = (int64_t)f;
            if (!o->recompute_scale_factor) scale[i] = s;
        }
        job.dim[3 - nsp + i].in = in;
        job.dim[3 - nsp + i].out = os;
    }
    int64_t rs[5] = {x->sizes[0], x->sizes[1], 0, 0, 0};
    for (int i = 0; i < nsp; i++) rs[2 + i] = job.dim[3 - nsp + i].out;
    th_tensor *result = th__result(fn, out, x->dtype, x->ndim, rs);
    if (!result) return NULL;
    if (th__numel(result) == 0) return result;
    bool f64 = x->dtype == TH_F64;
    th_dtype ct = f64 ? TH_F64 : TH_F32;
    size_t es = f64 ? sizeof(double) : sizeof(float);
    th_tensor *xu = NULL, *xc = NULL, *y = result, *tmp = NULL;
    bool ok = false;
    int64_t taps = mode == TH_INTERP_BICUBIC ? 4 : nearest ? 1 : 2, total = 0;
    for (int d = 0; d < 3; d++) {
        th__interp_dim *dm = &job.dim[d];
        if (d < 3 - nsp) dm->in = dm->out = 1;
        dm->nt = d < 3 - nsp ? 1 : taps;
        total += dm->out * dm->nt;
    }
    char *buf = (char *)th__conv_buffer(fn, "interpolation taps", total, 1, sizeof(int64_t) + es);
    if (!buf) goto done;
    if (!(xu = th__unalias(fn, result, x))) goto done;
    if (xu->dtype != ct && !(xc = th__convert_new(fn, ct, xu))) goto done;
    {
        const th_tensor *xr = xc ? xc : xu;
        int64_t *offs = (int64_t *)(void *)buf;
        char *ws = buf + (size_t)total * sizeof(int64_t);
        for (int d = 0; d < 3; d++) {
            th__interp_dim *dm = &job.dim[d];
            dm->off = offs;
            dm->w = ws;
            offs += dm->out * dm->nt;
            ws += (size_t)(dm->out * dm->nt) * es;
            if (d < 3 - nsp) {
                dm->off[0] = 0;
                if (f64) *(double *)dm->w = 1;
                else *(float *)dm->w = 1;
            } else {
                int i = d - (3 - nsp);
                th__interp_taps(f64, (th_interp_mode)mode, o->align_corners, scale[i], xr->strides[2 + i], dm);
            }
        }
        if (!(y = th__ct_staging(fn, result, ct, &tmp))) goto done;
        job.f64 = f64;
        job.unit_outer = nearest || nsp == 1;
        job.unit_inner = nearest;
        job.x = (const char *)th_tensor_data(xr);
        job.c = xr->sizes[1];
        job.sn = xr->strides[0];
        job.sc = xr->strides[1];
        job.y = (char *)th_tensor_data(y);
        int64_t planes = rs[0] * rs[1];
        int64_t work = th__numel(result) * (nsp == 1 ? taps : nsp == 2 ? taps * taps : taps * taps * taps);
        th__parallel_chunks(planes, th__threads_for(work), th__interp_planes, &job);
    }
    ok = true;
done:
    free(buf);
    TH__RELEASE(xu, xc);
    return th__op_end(fn, ok, result, tmp);
}

#endif /* TH__DEFINING */
