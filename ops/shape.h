/* ops/shape.h: cat, stack, split, chunk, flip, roll, repeat. Stamped per dtype through
 * tensor_generic.h; the work is done once for every dtype in ops/shape_erased.h. Every dtype gets
 * them all: they move elements and never look at their values. */
#ifndef TH__DEFINING

/* ---- shape ops: each returns a new contiguous tensor (NULL on error), or with _out writes into out, which
 * must have exactly the result's shape (0 or a negative status). Dims may be negative. Inputs may overlap
 * out: they are copied first where that matters. ---- */

/* The n tensors joined along dim; their shapes must agree except in dim. 1-d tensors of size 0 are skipped
 * whatever the others' shapes (as in PyTorch). Errors: n < 1, a NULL array or tensor (TH_ERR_INVALID), a 0-d
 * tensor, different ndims or sizes outside dim (TH_ERR_SHAPE), dim out of range (TH_ERR_RANGE), sizes along dim
 * adding up past int64 (TH_ERR_OVERFLOW). */
TH_API TH_NAME(tensor) *TH_NAME(cat)(int n, const TH_NAME(tensor) *const *tensors, int dim);
TH_API int TH_NAME(cat_out)(TH_NAME(tensor) *out, int n, const TH_NAME(tensor) *const *tensors, int dim);
/* The n tensors, all of one shape, joined along a new dim (dim counts in the result's ndim + 1 dims).
 * Errors as cat, and TH_ERR_SHAPE for unequal shapes. */
TH_API TH_NAME(tensor) *TH_NAME(stack)(int n, const TH_NAME(tensor) *const *tensors, int dim);
TH_API int TH_NAME(stack_out)(TH_NAME(tensor) *out, int n, const TH_NAME(tensor) *const *tensors, int dim);

/* Views (no copy) of consecutive pieces of split_size elements along dim, the last one shorter; a dim of
 * size 0 gives one empty piece. Returns a malloc'd array of *count views: the caller releases it with
 * th_<sfx>_release_all(views, count), which releases every view and frees the array. NULL on error:
 * NULL t or count, split_size <= 0 (0 is allowed for a dim of size 0) (TH_ERR_INVALID), a 0-d tensor
 * (TH_ERR_SHAPE), dim out of range (TH_ERR_RANGE), more views than memory can list (TH_ERR_OVERFLOW), out of
 * memory. */
TH_API TH_NAME(tensor) **TH_NAME(split)(TH_NAME(tensor) *t, int64_t split_size, int dim, int64_t *count);
/* As split with pieces of ceil(size / chunks) elements, so there may be fewer than chunks pieces; a dim of
 * size 0 gives chunks empty pieces. chunks must be positive. */
TH_API TH_NAME(tensor) **TH_NAME(chunk)(TH_NAME(tensor) *t, int64_t chunks, int dim, int64_t *count);
/* Releases views[0..count-1] and frees the array split and chunk return. NULL is a no-op. */
TH_API void TH_NAME(release_all)(TH_NAME(tensor) **views, int64_t count);

/* t with the order of elements reversed along each of the ndims dims. Errors: NULL t, a NULL dims for
 * ndims > 0, a dim given twice (TH_ERR_INVALID), a dim out of range (TH_ERR_RANGE). */
TH_API TH_NAME(tensor) *TH_NAME(flip)(const TH_NAME(tensor) *t, int ndims, const int *dims);
TH_API int TH_NAME(flip_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *t, int ndims, const int *dims);
/* t with its elements moved shift places along dim, wrapping around (element i goes to (i + shift) mod
 * size; shift may be negative or larger than the size). dim TH_ROLL_FLAT rolls the flattened tensor and
 * keeps its shape. Errors: NULL t, dim out of range. */
TH_API TH_NAME(tensor) *TH_NAME(roll)(const TH_NAME(tensor) *t, int64_t shift, int dim);
TH_API int TH_NAME(roll_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *t, int64_t shift, int dim);
/* t tiled repeats[d] times along each of ndim dims (ndim >= t's ndim; t gets leading size-1 dims), like
 * torch.Tensor.repeat. Errors: ndim < t's ndim or > TH_MAX_DIMS (TH_ERR_SHAPE), NULL repeats, a negative
 * repeat (TH_ERR_INVALID), a size that overflows int64 (TH_ERR_OVERFLOW). */
TH_API TH_NAME(tensor) *TH_NAME(repeat)(const TH_NAME(tensor) *t, int ndim, const int64_t *repeats);
TH_API int TH_NAME(repeat_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *t, int ndim, const int64_t *repeats);

#else

static const th_tensor *TH_PRIVATE(tensor_at)(const void *array, int64_t i)
{
    return TH__B(((const TH_NAME(tensor) *const *)array)[i]);
}

TH_API TH_NAME(tensor) *TH_NAME(cat)(int n, const TH_NAME(tensor) *const *tensors, int dim)
{
    return TH__T(th__cat(TH__FN(cat), NULL, n, tensors, TH_PRIVATE(tensor_at), TH_DT_ENUM, dim));
}

TH_API int TH_NAME(cat_out)(TH_NAME(tensor) *out, int n, const TH_NAME(tensor) *const *tensors, int dim)
{
    if (th__shape_need_out(TH__FN(cat_out), TH__B(out))) return th_last_status();
    return th__out_status(th__cat(TH__FN(cat_out), TH__B(out), n, tensors, TH_PRIVATE(tensor_at), TH_DT_ENUM, dim));
}

TH_API TH_NAME(tensor) *TH_NAME(stack)(int n, const TH_NAME(tensor) *const *tensors, int dim)
{
    return TH__T(th__stack(TH__FN(stack), NULL, n, tensors, TH_PRIVATE(tensor_at), TH_DT_ENUM, dim));
}

TH_API int TH_NAME(stack_out)(TH_NAME(tensor) *out, int n, const TH_NAME(tensor) *const *tensors, int dim)
{
    if (th__shape_need_out(TH__FN(stack_out), TH__B(out))) return th_last_status();
    return th__out_status(
        th__stack(TH__FN(stack_out), TH__B(out), n, tensors, TH_PRIVATE(tensor_at), TH_DT_ENUM, dim));
}

static TH_NAME(tensor) **TH_PRIVATE(pieces)(const char *fn, TH_NAME(tensor) *t, int64_t split_size,
                                             int64_t chunks, int dim, int64_t *count)
{
    if (!count) {
        th__fail(TH_ERR_INVALID, fn, "NULL count");
        return NULL;
    }
    *count = 0;
    if (th__dtype_mismatch(fn, "t", TH__B(t), TH_DT_ENUM)) return NULL; /* split's and chunk's one check */
    int d = 0;
    int64_t n = 0, piece = 0;
    if (th__split_plan(fn, TH__B(t), dim, split_size, chunks, &d, &n, &piece)) return NULL;
    if ((uint64_t)n > SIZE_MAX / sizeof(TH_NAME(tensor) *)) {
        th__fail(TH_ERR_OVERFLOW, fn, "%lld pieces do not fit in memory", (long long)n);
        return NULL;
    }
    TH_NAME(tensor) **views = (TH_NAME(tensor) **)malloc((size_t)n * sizeof *views);
    if (!views) {
        th__fail(TH_ERR_NOMEM, fn, "out of memory for %lld views", (long long)n);
        return NULL;
    }
    for (int64_t i = 0; i < n; i++) {
        views[i] = TH__T(th__split_piece(fn, TH__B(t), d, piece, i));
        if (!views[i]) {
            TH_NAME(release_all)(views, i);
            return NULL;
        }
    }
    *count = n;
    return views;
}

TH_API TH_NAME(tensor) **TH_NAME(split)(TH_NAME(tensor) *t, int64_t split_size, int dim, int64_t *count)
{
    return TH_PRIVATE(pieces)(TH__FN(split), t, split_size, 0, dim, count);
}

TH_API TH_NAME(tensor) **TH_NAME(chunk)(TH_NAME(tensor) *t, int64_t chunks, int dim, int64_t *count)
{
    if (chunks == 0) { /* 0 means "split" to th__split_plan */
        th__fail(TH_ERR_INVALID, TH__FN(chunk), "chunks %lld must be positive", (long long)chunks);
        if (count) *count = 0;
        return NULL;
    }
    return TH_PRIVATE(pieces)(TH__FN(chunk), t, 0, chunks, dim, count);
}

TH_API void TH_NAME(release_all)(TH_NAME(tensor) **views, int64_t count)
{
    if (!views) return;
    for (int64_t i = 0; i < count; i++) { /* all or nothing, as release: a wrong handle frees nothing */
        if (views[i] && TH__B(views[i])->dtype != TH_DT_ENUM) {
            th__fail(TH_ERR_DTYPE, TH__FN(release_all), "views[%lld] is %s, not %s", (long long)i,
                     th_dtype_name(TH__B(views[i])->dtype), th_dtype_name(TH_DT_ENUM));
            return;
        }
    }
    for (int64_t i = 0; i < count; i++) TH_NAME(release)(views[i]);
    free(views);
}

TH_API TH_NAME(tensor) *TH_NAME(flip)(const TH_NAME(tensor) *t, int ndims, const int *dims)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__flip(TH__FN(flip), NULL, TH__B(t), ndims, dims));
}

TH_API int TH_NAME(flip_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *t, int ndims, const int *dims)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    if (th__shape_need_out(TH__FN(flip_out), TH__B(out))) return th_last_status();
    return th__out_status(th__flip(TH__FN(flip_out), TH__B(out), TH__B(t), ndims, dims));
}

TH_API TH_NAME(tensor) *TH_NAME(roll)(const TH_NAME(tensor) *t, int64_t shift, int dim)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__roll(TH__FN(roll), NULL, TH__B(t), shift, dim));
}

TH_API int TH_NAME(roll_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *t, int64_t shift, int dim)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    if (th__shape_need_out(TH__FN(roll_out), TH__B(out))) return th_last_status();
    return th__out_status(th__roll(TH__FN(roll_out), TH__B(out), TH__B(t), shift, dim));
}

TH_API TH_NAME(tensor) *TH_NAME(repeat)(const TH_NAME(tensor) *t, int ndim, const int64_t *repeats)
{
    if (TH__WRONG_DTYPE(t)) return NULL;
    return TH__T(th__repeat(TH__FN(repeat), NULL, TH__B(t), ndim, repeats));
}

TH_API int TH_NAME(repeat_out)(TH_NAME(tensor) *out, const TH_NAME(tensor) *t, int ndim, const int64_t *repeats)
{
    if (TH__WRONG_DTYPE(t)) return TH_ERR_DTYPE;
    if (th__shape_need_out(TH__FN(repeat_out), TH__B(out))) return th_last_status();
    return th__out_status(th__repeat(TH__FN(repeat_out), TH__B(out), TH__B(t), ndim, repeats));
}

#endif
