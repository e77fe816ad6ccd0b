/* ops/shape_erased.h: cat, stack, split and chunk, flip, roll and repeat, written once on untyped
 * elements. Every one of them moves whole elements and never looks at their values, so the per-dtype part
 * (ops/shape.h) only names the functions and checks nothing but the types. The data moves through
 * th__copy, so strided, expanded and overlapping operands cost nothing extra here. */
#ifndef TH__DEFINING

/* th_<sfx>_roll(t, shift, TH_ROLL_FLAT) rolls the elements of t in row-major order, as if t were flattened,
 * and keeps t's shape (PyTorch's roll without dims). */
enum { TH_ROLL_FLAT = INT32_MIN };

#else

/* The typed front doors pass arrays of typed tensor pointers; reading element i through this keeps the
 * erased code from reading a th_f32_tensor * object as a th_tensor * one. */
typedef const th_tensor *(*th__tensor_at_fn)(const void *array, int64_t i);

/* NULL, device memory, or a storage shrunk under the tensor: what every input of these ops is checked for. */
TH__MAYBE_UNUSED static int th__shape_check_input(const char *fn, const th_tensor *t, const char *what)
{
    if (!t) return th__fail(TH_ERR_INVALID, fn, "NULL %s", what);
    if (!th_device_is_host(t->storage->device))
        return th__fail(TH_ERR_DEVICE, fn, "%s is on device type %d, which the host cannot touch", what,
                        (int)t->storage->device.type);
    return th__check_fits(fn, t);
}

/* in, for an op that writes out while reading elements of in other than the one it writes: in itself
 * (retained) when they share no byte, else a copy. Unlike th__unalias, in == out is copied too. */
TH__MAYBE_UNUSED static th_tensor *th__shape_unalias(const char *fn, const th_tensor *out, const th_tensor *in)
{
    if (out && th__bytes_overlap(out, in)) return th__convert_new(fn, in->dtype, in);
    return th_tensor_retain((th_tensor *)in);
}

/* An _out call with a NULL out would make a new tensor and drop it: refuse it. */
TH__MAYBE_UNUSED static int th__shape_need_out(const char *fn, const th_tensor *out)
{
    return out ? TH_OK : th__fail(TH_ERR_INVALID, fn, "NULL out");
}


/* A view of t with one dim's offset and size changed: elements start .. start+length-1 of dim d. */
TH__MAYBE_UNUSED static th_tensor *th__shape_slice(const char *fn, const th_tensor *t, int d, int64_t start, int64_t length)
{
    int64_t sizes[TH_MAX_DIMS];
    memcpy(sizes, t->sizes, (size_t)t->ndim * sizeof *sizes);
    sizes[d] = length;
    return th__view_of(fn, t, t->offset + (length > 0 ? start * t->strides[d] : 0), t->ndim, sizes, t->strides);
}

/* ---- cat and stack ---- */

/* A 1-d tensor of size 0: PyTorch's cat skips these whatever the other tensors' shapes. */
TH__MAYBE_UNUSED static bool th__cat_skips(const th_tensor *t) { return t->ndim == 1 && t->sizes[0] == 0; }

/* Copies input i into slice i of result along dim d: for cat the narrow after the inputs before it, as long
 * as input i is along d; for stack the select at index i (dim d removed). Inputs that overlap result are copied out first, all of
 * them before anything is written. */
TH__MAYBE_UNUSED static int th__shape_place(const char *fn, th_tensor *result, bool from_out, int n, const void *array,
                           th__tensor_at_fn at, int d, bool stack)
{
    th_tensor **copies = NULL;
    if (from_out) {
        bool any = false;
        for (int i = 0; !any && i < n; i++) any = th__bytes_overlap(result, at(array, i));
        if (any) {
            copies = (th_tensor **)calloc((size_t)n, sizeof *copies);
            if (!copies) return th__fail(TH_ERR_NOMEM, fn, "out of memory for %d input copies", n);
            for (int i = 0; i < n; i++) {
                copies[i] = th__shape_unalias(fn, result, at(array, i));
                if (!copies[i]) {
                    for (int k = 0; k < i; k++) th_tensor_release(copies[k]);
                    free(copies);
                    return th_last_status();
                }
            }
        }
    }
    int status = TH_OK;
    int64_t offset = 0;
    for (int i = 0; i < n && status == TH_OK; i++) {
        const th_tensor *src = copies ? copies[i] : at(array, i);
        th_tensor *dst = NULL;
        if (stack) {
            int64_t sizes[TH_MAX_DIMS], strides[TH_MAX_DIMS];
            for (int k = 0, o = 0; k < result->ndim; k++) {
                if (k == d) continue;
                sizes[o] = result->sizes[k];
                strides[o++] = result->strides[k];
            }
            dst = th__view_of(fn, result, result->offset + i * result->strides[d], result->ndim - 1, sizes, strides);
        } else {
            if (th__cat_skips(src) && result->ndim != 1) continue;
            int64_t length = src->sizes[d];
            if (length == 0) continue;
            dst = th__shape_slice(fn, result, d, offset, length);
            offset += length;
        }
        status = dst ? th__copy(fn, dst, src) : th_last_status();
        th_tensor_release(dst);
    }
    if (copies) {
        for (int i = 0; i < n; i++) th_tensor_release(copies[i]);
        free(copies);
    }
    return status;
}

TH__MAYBE_UNUSED static int th__shape_check_list(const char *fn, int n, const void *array, th__tensor_at_fn at, th_dtype dtype)
{
    if (n <= 0) return th__fail(TH_ERR_INVALID, fn, "needs at least one tensor, got %d", n);
    if (!array) return th__fail(TH_ERR_INVALID, fn, "NULL array of tensors");
    for (int i = 0; i < n; i++) {
        const th_tensor *t = at(array, i);
        if (!t) return th__fail(TH_ERR_INVALID, fn, "tensor %d is NULL", i);
        if (t->dtype != dtype)
            return th__fail(TH_ERR_DTYPE, fn, "tensor %d is %s, not %s", i, th_dtype_name(t->dtype),
                            th_dtype_name(dtype));
        if (th__shape_check_input(fn, t, "tensor")) return th_last_status();
    }
    return TH_OK;
}

TH__MAYBE_UNUSED static th_tensor *th__cat(const char *fn, th_tensor *out, int n, const void *array, th__tensor_at_fn at,
                          th_dtype dtype, int dim)
{
    if (th__shape_check_list(fn, n, array, at, dtype)) return NULL;
    int ref = -1;
    for (int i = 0; i < n; i++) {
        const th_tensor *t = at(array, i);
        if (t->ndim == 0) {
            th__fail(TH_ERR_SHAPE, fn, "tensor %d is 0-d and cannot be concatenated", i);
            return NULL;
        }
        if (ref < 0 && !th__cat_skips(t)) ref = i;
    }
    if (ref < 0) ref = 0; /* all are 1-d and empty: so is the result */
    const th_tensor *r = at(array, ref);
    int d = 0;
    if (th__wrap_dim(fn, dim, r->ndim, &d)) return NULL;
    int64_t sizes[TH_MAX_DIMS];
    memcpy(sizes, r->sizes, (size_t)r->ndim * sizeof *sizes);
    sizes[d] = 0;
    for (int i = 0; i < n; i++) {
        const th_tensor *t = at(array, i);
        if (th__cat_skips(t) && r->ndim != 1) continue;
        if (t->ndim != r->ndim) {
            th__fail(TH_ERR_SHAPE, fn, "tensor %d has %d dims but tensor %d has %d", i, t->ndim, ref, r->ndim);
            return NULL;
        }
        for (int k = 0; k < r->ndim; k++) {
            if (k != d && t->sizes[k] != r->sizes[k]) {
                th__fail(TH_ERR_SHAPE, fn, "tensor %d has size %lld in dim %d, tensor %d has %lld (only dim %d may differ)",
                         i, (long long)t->sizes[k], k, ref, (long long)r->sizes[k], d);
                return NULL;
            }
        }
        if (__builtin_add_overflow(sizes[d], t->sizes[d], &sizes[d])) {
            th__fail(TH_ERR_OVERFLOW, fn, "the sizes of dim %d add up past int64", d);
            return NULL;
        }
    }
    th_tensor *result = th__result(fn, out, dtype, r->ndim, sizes);
    if (!result) return NULL;
    if (th__shape_place(fn, result, out != NULL, n, array, at, d, false)) {
        th_tensor_release(result);
        return NULL;
    }
    return result;
}

TH__MAYBE_UNUSED static th_tensor *th__stack(const char *fn, th_tensor *out, int n, const void *array, th__tensor_at_fn at,
                            th_dtype dtype, int dim)
{
    if (th__shape_check_list(fn, n, array, at, dtype)) return NULL;
    const th_tensor *r = at(array, 0);
    if (r->ndim >= TH_MAX_DIMS) {
        th__fail(TH_ERR_RANGE, fn, "the tensors already have TH_MAX_DIMS (%d) dims", TH_MAX_DIMS);
        return NULL;
    }
    int d = 0;
    if (th__wrap_dim(fn, dim, r->ndim + 1, &d)) return NULL;
    for (int i = 1; i < n; i++) {
        const th_tensor *t = at(array, i);
        if (!th__shape_equal(t->ndim, t->sizes, r->ndim, r->sizes)) {
            char a[160], b[160];
            th__shape_string(t->ndim, t->sizes, a, sizeof a);
            th__shape_string(r->ndim, r->sizes, b, sizeof b);
            th__fail(TH_ERR_SHAPE, fn, "tensor %d has shape %s, tensor 0 has %s (stack needs equal shapes)", i, a, b);
            return NULL;
        }
    }
    int64_t sizes[TH_MAX_DIMS];
    for (int k = 0, o = 0; k <= r->ndim; k++) sizes[k] = k == d ? n : r->sizes[o++];
    th_tensor *result = th__result(fn, out, dtype, r->ndim + 1, sizes);
    if (!result) return NULL;
    if (th__shape_place(fn, result, out != NULL, n, array, at, d, true)) {
        th_tensor_release(result);
        return NULL;
    }
    return result;
}

/* ---- split and chunk ---- */

/* Pieces of `piece` elements along dim d (the last one shorter); the typed front doors make the views. */
TH__MAYBE_UNUSED static int th__split_plan(const char *fn, const th_tensor *t, int dim, int64_t split_size, int64_t chunks, int *d,
                          int64_t *count, int64_t *piece)
{
    if (!t) return th__fail(TH_ERR_INVALID, fn, "NULL tensor");
    if (t->ndim == 0) return th__fail(TH_ERR_SHAPE, fn, "cannot split a 0-d tensor");
    if (th__wrap_dim(fn, dim, t->ndim, d)) return th_last_status();
    int64_t size = t->sizes[*d];
    if (chunks == 0) { /* split */
        if (split_size < 0 || (split_size == 0 && size > 0))
            return th__fail(TH_ERR_INVALID, fn, "split_size %lld must be positive (0 only for a dim of size 0)",
                            (long long)split_size);
        *piece = split_size;
        *count = size == 0 ? 1 : size / split_size + (size % split_size != 0);
        return TH_OK;
    }
    if (chunks < 0) return th__fail(TH_ERR_INVALID, fn, "chunks %lld must be positive", (long long)chunks);
    *piece = size / chunks + (size % chunks != 0);
    /* A dim of size 0 gives `chunks` empty pieces, as PyTorch does; otherwise pieces of ceil(size / chunks),
     * so there may be fewer than asked for. */
    *count = size == 0 ? chunks : size / *piece + (size % *piece != 0);
    return TH_OK;
}

TH__MAYBE_UNUSED static th_tensor *th__split_piece(const char *fn, const th_tensor *t, int d, int64_t piece, int64_t i)
{
    int64_t size = t->sizes[d];
    int64_t start = i * piece; /* i < count, so start < size, or 0 for a dim of size 0: no overflow */
    int64_t length = size - start < piece ? size - start : piece;
    return th__shape_slice(fn, t, d, start, length);
}

/* ---- flip, roll, repeat ---- */

TH__MAYBE_UNUSED static th_tensor *th__flip(const char *fn, th_tensor *out, const th_tensor *t, int ndims, const int *dims)
{
    if (th__shape_check_input(fn, t, "tensor")) return NULL;
    if (ndims < 0 || (ndims > 0 && !dims)) {
        th__fail(TH_ERR_INVALID, fn, ndims < 0 ? "negative ndims %d" : "NULL dims for ndims %d", ndims);
        return NULL;
    }
    bool seen[TH_MAX_DIMS] = {false};
    int64_t strides[TH_MAX_DIMS];
    memcpy(strides, t->strides, (size_t)t->ndim * sizeof *strides);
    int64_t offset = t->offset;
    for (int i = 0; i < ndims; i++) {
        int d = 0;
        if (th__wrap_dim_once(fn, dims[i], t->ndim, seen, "dims", &d)) return NULL;
        if (t->ndim == 0 || t->sizes[d] <= 1) continue;
        offset += (t->sizes[d] - 1) * t->strides[d];
        strides[d] = -t->strides[d];
    }
    th_tensor *result = th__result(fn, out, t->dtype, t->ndim, t->sizes);
    if (!result) return NULL;
    if (th__numel(t) == 0) return result;
    th_tensor *flipped = th__view_of(fn, t, offset, t->ndim, t->sizes, strides);
    int status = flipped ? th__copy(fn, result, flipped) : th_last_status(); /* th__copy unaliases */
    th_tensor_release(flipped);
    return th__result_or_release(status, result);
}

/* dst[i + s mod n] = src[i] along dim d (dst and src of one shape, disjoint). */
TH__MAYBE_UNUSED static int th__roll_dim(const char *fn, th_tensor *dst, const th_tensor *src, int d, int64_t s)
{
    int64_t n = dst->sizes[d];
    th_tensor *a = th__shape_slice(fn, dst, d, s, n - s), *b = th__shape_slice(fn, src, d, 0, n - s);
    th_tensor *c = th__shape_slice(fn, dst, d, 0, s), *e = th__shape_slice(fn, src, d, n - s, s);
    int status = a && b && c && e ? TH_OK : th_last_status();
    if (!status) status = th__copy(fn, a, b);
    if (!status) status = th__copy(fn, c, e);
    TH__RELEASE(a, b, c, e);
    return status;
}

TH__MAYBE_UNUSED static int64_t th__roll_amount(int64_t shift, int64_t n)
{
    int64_t r = shift % n;
    return r < 0 ? r + n : r;
}

TH__MAYBE_UNUSED static th_tensor *th__roll(const char *fn, th_tensor *out, const th_tensor *t, int64_t shift, int dim)
{
    if (th__shape_check_input(fn, t, "tensor")) return NULL;
    int d = 0;
    if (dim != TH_ROLL_FLAT && th__wrap_dim(fn, dim, t->ndim, &d)) return NULL;
    th_tensor *result = th__result(fn, out, t->dtype, t->ndim, t->sizes);
    if (!result) return NULL;
    int64_t numel = th__numel(t);
    if (numel == 0) return result;
    th_tensor *src = th__shape_unalias(fn, result, t);
    int status = src ? TH_OK : th_last_status();
    if (!status && dim != TH_ROLL_FLAT && t->ndim > 0) {
        status = th__roll_dim(fn, result, src, d, th__roll_amount(shift, t->sizes[d]));
    } else if (!status) {
        /* Flat: roll the row-major sequence. A non-contiguous result is rolled in a contiguous temporary. */
        const int64_t one = 1;
        bool direct = th_tensor_is_contiguous(result);
        th_tensor *flat_dst = direct ? th_tensor_retain(result) : th__tensor_empty(fn, t->dtype, t->ndim, t->sizes);
        th_tensor *dst1 = flat_dst ? th__view_of(fn, flat_dst, flat_dst->offset, 1, &numel, &one) : NULL;
        th_tensor *src1 = th__reshape(fn, src, 1, &numel);
        status = dst1 && src1 ? th__roll_dim(fn, dst1, src1, 0, th__roll_amount(shift, numel)) : th_last_status();
        if (!status && !direct) status = th__copy(fn, result, flat_dst);
        TH__RELEASE(src1, dst1, flat_dst);
    }
    th_tensor_release(src);
    return th__result_or_release(status, result);
}

/* dst (sizes src[d] * reps[d]) gets src tiled reps[d] times along each dim. Each dim that is both repeated and
 * longer than 1 becomes two dims (the repeat, src's dim) of one copy with src's repeat stride 0; when that
 * needs more than TH_MAX_DIMS dims, the first such dim is done one repetition at a time. */
TH__MAYBE_UNUSED static int th__repeat_into(const char *fn, th_tensor *dst, const th_tensor *src, const int64_t *reps)
{
    const int nd = dst->ndim;
    int64_t ds[2 * TH_MAX_DIMS], dt[2 * TH_MAX_DIMS], ss[2 * TH_MAX_DIMS], st[2 * TH_MAX_DIMS];
    int n = 0, first_split = -1;
    for (int d = 0; d < nd; d++) {
        int64_t size = src->sizes[d];
        if (reps[d] > 1 && size > 1) {
            if (first_split < 0) first_split = d;
            ds[n] = reps[d], dt[n] = dst->strides[d] * size, ss[n] = reps[d], st[n++] = 0;
            ds[n] = size, dt[n] = dst->strides[d], ss[n] = size, st[n++] = src->strides[d];
        } else {
            ds[n] = dst->sizes[d], dt[n] = dst->strides[d], ss[n] = dst->sizes[d];
            st[n++] = size == 1 ? 0 : src->strides[d];
        }
    }
    if (n <= TH_MAX_DIMS) {
        th_tensor *dv = th__view_of(fn, dst, dst->offset, n, ds, dt), *sv = th__view_of(fn, src, src->offset, n, ss, st);
        int status = dv && sv ? th__copy(fn, dv, sv) : th_last_status();
        th_tensor_release(dv);
        th_tensor_release(sv);
        return status;
    }
    int64_t once[TH_MAX_DIMS];
    memcpy(once, reps, (size_t)nd * sizeof *reps);
    once[first_split] = 1;
    int64_t size = src->sizes[first_split];
    for (int64_t k = 0; k < reps[first_split]; k++) {
        th_tensor *part = th__shape_slice(fn, dst, first_split, k * size, size);
        int status = part ? th__repeat_into(fn, part, src, once) : th_last_status();
        th_tensor_release(part);
        if (status) return status;
    }
    return TH_OK;
}

TH__MAYBE_UNUSED static th_tensor *th__repeat(const char *fn, th_tensor *out, const th_tensor *t, int ndim, const int64_t *repeats)
{
    if (th__shape_check_input(fn, t, "tensor")) return NULL;
    if (ndim < t->ndim || ndim > TH_MAX_DIMS) {
        th__fail(TH_ERR_SHAPE, fn, "%d repeats for a %d-d tensor (needs %d..%d)", ndim, t->ndim, t->ndim, TH_MAX_DIMS);
        return NULL;
    }
    if (ndim > 0 && !repeats) {
        th__fail(TH_ERR_INVALID, fn, "NULL repeats for ndim %d", ndim);
        return NULL;
    }
    /* t with leading size-1 dims up to ndim; the result's sizes are its sizes times the repeats. */
    int64_t padded[TH_MAX_DIMS], pstrides[TH_MAX_DIMS], sizes[TH_MAX_DIMS];
    int lead = ndim - t->ndim;
    for (int d = 0; d < ndim; d++) {
        padded[d] = d < lead ? 1 : t->sizes[d - lead];
        pstrides[d] = 0;
        if (repeats[d] < 0) {
            th__fail(TH_ERR_INVALID, fn, "repeat %lld for dim %d is negative", (long long)repeats[d], d);
            return NULL;
        }
        if (__builtin_mul_overflow(padded[d], repeats[d], &sizes[d])) {
            th__fail(TH_ERR_OVERFLOW, fn, "size %lld times repeat %lld of dim %d overflows int64", (long long)padded[d],
                     (long long)repeats[d], d);
            return NULL;
        }
    }
    th_tensor *result = th__result(fn, out, t->dtype, ndim, sizes);
    if (!result) return NULL;
    if (th__numel(result) == 0) return result;
    th_tensor *src = th__shape_unalias(fn, result, t); /* may be a copy, with its own strides */
    for (int d = lead; src && d < ndim; d++) pstrides[d] = src->strides[d - lead];
    th_tensor *padded_src = src ? th__view_of(fn, src, src->offset, ndim, padded, pstrides) : NULL;
    int status = padded_src ? th__repeat_into(fn, result, padded_src, repeats) : th_last_status();
    th_tensor_release(padded_src);
    th_tensor_release(src);
    return th__result_or_release(status, result);
}

#endif
