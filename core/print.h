/* core/print.h: printing (th_tensor_print), NumPy/PyTorch style, summarised above 1000 elements.
 * Part of tensor.h, which includes it twice: its declarations, then (TH__DEFINING) its definitions. */
#ifndef TENSOR_H
#error "core/print.h is part of tensor.h: include tensor.h"
#endif
#ifndef TH__DEFINING

/* Prints like "tensor([[1., 2.],\n        [3., 4.]], dtype=f32)"; more than 1000 elements are
 * summarised with "...". Returns 0, or a negative status (NULL arguments, device memory, a write error). */
TH_API int th_tensor_print(FILE *f, const th_tensor *t);

#else /* TH__DEFINING */

enum { TH__PRINT_SUMMARY_AT = 1000, TH__PRINT_EDGE = 3 };

typedef struct th__printer {
    FILE *f;
    const th_tensor *t;
    const th__kernels *k;
    th_dtype_kind kind;
    bool summarise;
    bool measuring;
    /* what the values seen so far need */
    bool all_integral, any_finite;
    double max_abs, min_abs_nonzero;
    /* how to print them */
    bool scientific;
    int width;
} th__printer;

static void th__format_real(const th__printer *p, double v, char *buf, size_t cap)
{
    if (isnan(v))
        snprintf(buf, cap, "nan");
    else if (isinf(v))
        snprintf(buf, cap, v < 0 ? "-inf" : "inf");
    else if (p->scientific)
        snprintf(buf, cap, "%.4e", v);
    else if (p->all_integral)
        snprintf(buf, cap, "%.0f.", v);
    else
        snprintf(buf, cap, "%.4f", v);
}

static void th__note_real(th__printer *p, double v)
{
    if (!isfinite(v)) return;
    double a = fabs(v);
    p->any_finite = true;
    if (a != floor(a)) p->all_integral = false;
    if (a > p->max_abs) p->max_abs = a;
    if (a > 0 && (p->min_abs_nonzero == 0 || a < p->min_abs_nonzero)) p->min_abs_nonzero = a;
}

static void th__print_element(th__printer *p, const char *ptr)
{
    char buf[128];
    switch (p->kind) {
    case TH_KIND_BOOL:
    case TH_KIND_UINT:
    case TH_KIND_INT: {
        int64_t v;
        p->k->load_i64(ptr, 0, 1, &v);
        if (p->kind == TH_KIND_BOOL)
            snprintf(buf, sizeof buf, v ? "True" : "False");
        else
            snprintf(buf, sizeof buf, "%lld", (long long)v);
        break;
    }
    case TH_KIND_FLOAT: {
        double v;
        p->k->load_f64(ptr, 0, 1, &v);
        if (p->measuring) th__note_real(p, v);
        th__format_real(p, v, buf, sizeof buf);
        break;
    }
    case TH_KIND_COMPLEX: {
        th_complex128 z;
        p->k->load_c128(ptr, 0, 1, &z);
        double re = th__c128_real(z), im = th__c128_imag(z);
        if (p->measuring) {
            th__note_real(p, re);
            th__note_real(p, im);
        }
        char a[48], b[48];
        th__format_real(p, re, a, sizeof a);
        th__format_real(p, fabs(im), b, sizeof b);
        snprintf(buf, sizeof buf, "%s%s%sj", a, signbit(im) ? "-" : "+", b);
        break;
    }
    }
    int len = (int)strlen(buf);
    if (p->measuring) {
        if (len > p->width) p->width = len;
    } else {
        fprintf(p->f, "%*s", p->width, buf);
    }
}

static void th__print_dim(th__printer *p, int dim, const char *ptr, int indent)
{
    const th_tensor *t = p->t;
    if (dim == t->ndim) {
        th__print_element(p, ptr);
        return;
    }
    int64_t size = t->sizes[dim];
    /* The stride of a size-1 dim may be anything (DLPack imports keep it): never multiply it. */
    int64_t step = size > 1 ? t->strides[dim] * (int64_t)th__elsize(t) : 0;
    bool cut = p->summarise && size > 2 * TH__PRINT_EDGE;
    bool last = dim == t->ndim - 1;
    if (!p->measuring) fputc('[', p->f);
    for (int64_t i = 0; i < size; i++) {
        if (cut && i == TH__PRINT_EDGE) {
            if (!p->measuring) fprintf(p->f, last ? ", ..." : ",\n%*s...", indent + dim + 1, "");
            i = size - TH__PRINT_EDGE;
        }
        if (i > 0 && !p->measuring) {
            if (last)
                fputs(", ", p->f);
            else {
                fputc(',', p->f);
                for (int k = dim; k < t->ndim - 1; k++) fputc('\n', p->f);
                fprintf(p->f, "%*s", indent + dim + 1, "");
            }
        }
        th__print_dim(p, dim + 1, ptr + i * step, indent);
    }
    if (!p->measuring) fputc(']', p->f);
}

static int th__print(const char *fn, FILE *f, const th_tensor *t)
{
    if (!f) return th__fail(TH_ERR_INVALID, fn, "NULL stream");
    if (th__check_readable(fn, t)) return th_last_status();
    th__printer p;
    memset(&p, 0, sizeof p);
    if (th__need_kernels(fn, t->dtype, &p.k)) return th_last_status();
    p.f = f;
    p.t = t;
    p.kind = th__dtype_traits[t->dtype].kind;
    p.summarise = th__numel(t) > TH__PRINT_SUMMARY_AT;
    p.all_integral = true;
    static const char prefix[] = "tensor(";
    const int indent = (int)sizeof prefix - 1;
    const char *data = (const char *)th_tensor_data(t);
    fputs(prefix, f);
    if (th__numel(t) == 0) {
        fputs("[], size=(", f);
        for (int d = 0; d < t->ndim; d++) fprintf(f, d ? ", %lld" : "%lld", (long long)t->sizes[d]);
        fputs(t->ndim == 1 ? ",)" : ")", f);
    } else {
        p.measuring = true;
        th__print_dim(&p, 0, data, indent);
        p.scientific = p.any_finite && (p.max_abs >= 1e8 || (p.min_abs_nonzero > 0 && p.min_abs_nonzero < 1e-4));
        p.width = 0;
        th__print_dim(&p, 0, data, indent); /* widths with the final format */
        p.measuring = false;
        th__print_dim(&p, 0, data, indent);
    }
    fprintf(f, ", dtype=%s)\n", th_dtype_name(t->dtype));
    if (ferror(f)) return th__fail(TH_ERR_IO, fn, "writing to the stream failed");
    return TH_OK;
}

TH_API int th_tensor_print(FILE *f, const th_tensor *t) { return th__print("th_tensor_print", f, t); }

#endif /* TH__DEFINING */
