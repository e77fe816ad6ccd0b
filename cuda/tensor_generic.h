/* cuda/tensor_generic.h: the per-dtype device tensor functions, stamped for every dtype through generate/
 * (docs/generic.md): th_cuda.h stamps the declarations, cuda/tensor.c the definitions (TH__DEFINING). They are
 * thin: the work is dtype-erased in cuda/tensor.c, so the library needs no per-dtype symbol of the core and
 * works with an implementation that stamps a subset of the dtypes (the others fail with TH_ERR_DTYPE). */
#ifndef TH_NAME
#error "cuda/tensor_generic.h is stamped through generate/ by th_cuda.h; include th_cuda.h instead"
#endif

#ifndef TH__DEFINING

/* A copy of t on device (t itself, retained, when already there), on the CPU, or in pinned host memory. */
TH_NAME(tensor) *TH_DT_PASTE(th_, _to_cuda)(const TH_NAME(tensor) *t, int device);
TH_NAME(tensor) *TH_DT_PASTE(th_, _to_cpu)(const TH_NAME(tensor) *t);
TH_NAME(tensor) *TH_DT_PASTE(th_, _to_pinned)(const TH_NAME(tensor) *t);
/* New contiguous tensors on device: uninitialised, zeros, every element value. */
TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_empty)(int device, int ndim, const int64_t *sizes);
TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_zeros)(int device, int ndim, const int64_t *sizes);
TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_full)(int device, int ndim, const int64_t *sizes, real value);
/* The same with t's shape on t's device (t must be a CUDA tensor). */
TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_empty_like)(const TH_NAME(tensor) *t);
TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_zeros_like)(const TH_NAME(tensor) *t);
TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_full_like)(const TH_NAME(tensor) *t, real value);
/* Every element of t (a CUDA tensor, any strides) set to value; 0 or a negative status. */
int TH_DT_PASTE(th_, _cuda_fill)(TH_NAME(tensor) *t, real value);
/* The CPU's creation ops (ops/create.h) on device: the same checks and messages, and the same values bit for
 * bit (each element is computed by the host's formula: ops/sequence.h). */
#if defined(TH_REAL_IS_FLOATING)
TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_arange)(int device, double start, double end, double step);
TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_linspace)(int device, double start, double end, int64_t steps);
#elif defined(TH_REAL_IS_INTEGER)
TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_arange)(int device, int64_t start, int64_t end, int64_t step);
#endif
TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_eye)(int device, int64_t n, int64_t m);

/* The samplers' new-tensor forms on device: th_f32_cuda_uniform(device, ndim, sizes, lo, hi, gen) is
 * th_f32_cuda_empty then th_f32_uniform_inplace (which runs on the device: the core hands it to this
 * companion), so the values are those th_f32_uniform gives on the CPU from the same generator state, and the
 * generator advances as it does. Inline here rather than in the library: they call the core's per-dtype
 * samplers, which the library must not depend on (an implementation may stamp a subset of the dtypes). An
 * error names the function that refused: th_f32_cuda_empty (the device, the shape) or th_f32_uniform_inplace
 * (the parameters). */
#if !defined(TH_REAL_IS_COMPLEX)
static inline TH_NAME(tensor) *TH_DT_PASTE(th__, _cuda_drawn)(TH_NAME(tensor) *t, int status)
{
    if (t && status) {
        TH_NAME(release)(t);
        return NULL;
    }
    return t;
}
#endif
#if defined(TH_REAL_IS_FLOATING)
static inline TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_uniform)(int device, int ndim, const int64_t *sizes, double lo,
                                                               double hi, th_generator *gen)
{
    TH_NAME(tensor) *t = TH_DT_PASTE(th_, _cuda_empty)(device, ndim, sizes);
    return TH_DT_PASTE(th__, _cuda_drawn)(t, t ? TH_NAME(uniform_inplace)(t, lo, hi, gen) : 0);
}
static inline TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_normal)(int device, int ndim, const int64_t *sizes, double mean,
                                                              double std, th_generator *gen)
{
    TH_NAME(tensor) *t = TH_DT_PASTE(th_, _cuda_empty)(device, ndim, sizes);
    return TH_DT_PASTE(th__, _cuda_drawn)(t, t ? TH_NAME(normal_inplace)(t, mean, std, gen) : 0);
}
static inline TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_exponential)(int device, int ndim, const int64_t *sizes,
                                                                   double lambda, th_generator *gen)
{
    TH_NAME(tensor) *t = TH_DT_PASTE(th_, _cuda_empty)(device, ndim, sizes);
    return TH_DT_PASTE(th__, _cuda_drawn)(t, t ? TH_NAME(exponential_inplace)(t, lambda, gen) : 0);
}
#endif
#if !defined(TH_REAL_IS_COMPLEX)
static inline TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_bernoulli)(int device, int ndim, const int64_t *sizes, double p,
                                                                 th_generator *gen)
{
    TH_NAME(tensor) *t = TH_DT_PASTE(th_, _cuda_empty)(device, ndim, sizes);
    return TH_DT_PASTE(th__, _cuda_drawn)(t, t ? TH_NAME(bernoulli_inplace)(t, p, gen) : 0);
}
#endif
#if defined(TH_REAL_IS_INTEGER) || defined(TH_REAL_IS_FLOATING)
static inline TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_randint)(int device, int ndim, const int64_t *sizes, int64_t lo,
                                                               int64_t hi, th_generator *gen)
{
    TH_NAME(tensor) *t = TH_DT_PASTE(th_, _cuda_empty)(device, ndim, sizes);
    return TH_DT_PASTE(th__, _cuda_drawn)(t, t ? TH_NAME(randint_inplace)(t, lo, hi, gen) : 0);
}
#endif

#else

#define TH__CUDA_FN(verb) TH_CUDA__STR(TH_DT_PASTE(th_, _##verb))

TH_NAME(tensor) *TH_DT_PASTE(th_, _to_cuda)(const TH_NAME(tensor) *t, int device)
{
    return (TH_NAME(tensor) *)th__cuda_to(TH__CUDA_FN(to_cuda), (const th_tensor *)t, TH_DT_ENUM, TH_DEVICE_CUDA,
                                          device);
}

TH_NAME(tensor) *TH_DT_PASTE(th_, _to_cpu)(const TH_NAME(tensor) *t)
{
    return (TH_NAME(tensor) *)th__cuda_to(TH__CUDA_FN(to_cpu), (const th_tensor *)t, TH_DT_ENUM, TH_DEVICE_CPU, 0);
}

TH_NAME(tensor) *TH_DT_PASTE(th_, _to_pinned)(const TH_NAME(tensor) *t)
{
    return (TH_NAME(tensor) *)th__cuda_to(TH__CUDA_FN(to_pinned), (const th_tensor *)t, TH_DT_ENUM,
                                          TH_DEVICE_CUDA_HOST, 0);
}

TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_empty)(int device, int ndim, const int64_t *sizes)
{
    return (TH_NAME(tensor) *)th__cuda_empty(TH__CUDA_FN(cuda_empty), TH_DT_ENUM, device, ndim, sizes);
}

TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_full)(int device, int ndim, const int64_t *sizes, real value)
{
    return (TH_NAME(tensor) *)th__cuda_full(TH__CUDA_FN(cuda_full), TH_DT_ENUM, device, ndim, sizes, &value);
}

TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_zeros)(int device, int ndim, const int64_t *sizes)
{
    return (TH_NAME(tensor) *)th__cuda_full(TH__CUDA_FN(cuda_zeros), TH_DT_ENUM, device, ndim, sizes, NULL);
}

TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_empty_like)(const TH_NAME(tensor) *t)
{
    return (TH_NAME(tensor) *)th__cuda_like(TH__CUDA_FN(cuda_empty_like), (const th_tensor *)t, TH_DT_ENUM, NULL,
                                            false);
}

TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_zeros_like)(const TH_NAME(tensor) *t)
{
    return (TH_NAME(tensor) *)th__cuda_like(TH__CUDA_FN(cuda_zeros_like), (const th_tensor *)t, TH_DT_ENUM, NULL,
                                            true);
}

TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_full_like)(const TH_NAME(tensor) *t, real value)
{
    return (TH_NAME(tensor) *)th__cuda_like(TH__CUDA_FN(cuda_full_like), (const th_tensor *)t, TH_DT_ENUM, &value,
                                            true);
}

int TH_DT_PASTE(th_, _cuda_fill)(TH_NAME(tensor) *t, real value)
{
    return th__cuda_fill_checked(TH__CUDA_FN(cuda_fill), (th_tensor *)t, TH_DT_ENUM, &value);
}

#if defined(TH_REAL_IS_FLOATING)
TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_arange)(int device, double start, double end, double step)
{
    return (TH_NAME(tensor) *)th__cuda_arange_f64(TH__CUDA_FN(cuda_arange), TH_DT_ENUM, device, start, end, step);
}

TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_linspace)(int device, double start, double end, int64_t steps)
{
    return (TH_NAME(tensor) *)th__cuda_linspace(TH__CUDA_FN(cuda_linspace), TH_DT_ENUM, device, start, end, steps);
}
#elif defined(TH_REAL_IS_INTEGER)
TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_arange)(int device, int64_t start, int64_t end, int64_t step)
{
    return (TH_NAME(tensor) *)th__cuda_arange_i64(TH__CUDA_FN(cuda_arange), TH_DT_ENUM, device, start, end, step);
}
#endif

TH_NAME(tensor) *TH_DT_PASTE(th_, _cuda_eye)(int device, int64_t n, int64_t m)
{
    return (TH_NAME(tensor) *)th__cuda_eye(TH__CUDA_FN(cuda_eye), TH_DT_ENUM, device, n, m);
}

#undef TH__CUDA_FN

#endif
