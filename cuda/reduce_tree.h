/* cuda/reduce_tree.h: the device reductions' order of operations and element arithmetic, written once in plain
 * C for the host and the device.
 *
 * Determinism. Each output's reduced elements are walked in the plan's one fixed order (cuda/plan.h: j = 0 ..
 * numel_red - 1, row-major over the reduced dims whatever the input's layout). A level cuts each output's run of
 * len elements into parts by a rule that depends on len alone (th__cuda_red_part): up to TH__CUDA_RED_SEQ
 * elements are one part, folded in order; longer runs are cut into tiles of TH__CUDA_RED_LANES x
 * TH__CUDA_RED_STEPS elements, lane l of a tile folding its elements l, l + LANES, l + 2 LANES, ... in order.
 * Each part is folded by one thread from the identity; the parts' partial results are the next level's
 * elements, in part order, until one part is left, whose result is finished (mean, root, ...) and stored. So
 * the tree, and with it every rounding, is a function of the sizes only: no atomics, no dependence on the
 * grid, the scheduling, the GPU or the layout. Which thread computes which part (th__cuda_red_level's
 * lane_major) only decides which reads coalesce.
 *
 * Arithmetic. As the CPU's reductions (ops/reduce.h): sums and products in the dtype's accreal (double for f32
 * and f64, float for f16 and bf16, modulo 2^64 for integers), maps and posts in double, rounded to accreal
 * where the CPU rounds. Float accreal is carried in a double rounded to float after each operation, which gives
 * float arithmetic's bits (53 >= 2 x 24 + 2 bits: the double rounding is innocuous for + - x / and sqrt). On the
 * device every add, subtract and multiply is an explicit round-to-nearest intrinsic, so nvcc contracts none
 * into a fused multiply-add and the host, running this same text, gets the device's bits
 * (tests/cuda/test_cuda_reduce.c). max/min compare (NaN first, then the key, then the smaller index), an order
 * in which any tree gives the CPU's answer: the first occurrence. exp, log and pow are the platform's (glibc on
 * the host, CUDA's libdevice on the device: within 1, 1 and 2 ulp of the exact value in double), so only the
 * ops that use them (logsumexp, norm of orders other than 0, 1, 2 and +-inf) may differ between the two.
 *
 * Needs tensor.h's declarations before it. */
#ifndef TH_CUDA_REDUCE_TREE_H
#define TH_CUDA_REDUCE_TREE_H

#include "convert.h"
#include "plan.h"

#include <math.h>

/* The tree's constants: changing one changes results' bits (within the stated bounds), so they are fixed, not
 * tuned per GPU. */
enum {
    TH__CUDA_RED_SEQ = 256,  /* runs of at most this many elements are one part */
    TH__CUDA_RED_LANES = 32, /* parts of a tile: a warp's width, so a warp reads a tile's row at once */
    TH__CUDA_RED_STEPS = 64  /* elements each part of a tile folds */
};

/* How elements combine. */
typedef enum th__cuda_red_class {
    TH__CUDA_RED_SUM,  /* add map(x): sum, mean, var, std, logsumexp, norms */
    TH__CUDA_RED_PROD, /* multiply */
    TH__CUDA_RED_EXT,  /* the extreme and its index: max, min, argmax, argmin, norm of order +-inf */
    TH__CUDA_RED_BOOL  /* all, any */
} th__cuda_red_class;

/* What each element contributes to a sum (ops/reduce_erased.h's th__reduce_map, same meanings). */
typedef enum th__cuda_red_map {
    TH__CUDA_MAP_ID,
    TH__CUDA_MAP_ABS,
    TH__CUDA_MAP_SQUARE,
    TH__CUDA_MAP_POW,
    TH__CUDA_MAP_NONZERO,
    TH__CUDA_MAP_DEV2,
    TH__CUDA_MAP_EXP
} th__cuda_red_map;

/* What the last level makes of a total (th__reduce_post), or (the CENTRE ones) the first pass of a two-pass op:
 * the per-output centre its second pass reads, stored as doubles indexed by output. */
typedef enum th__cuda_red_post {
    TH__CUDA_POST_NONE,
    TH__CUDA_POST_MEAN,
    TH__CUDA_POST_SQRT,
    TH__CUDA_POST_ROOT,
    TH__CUDA_POST_VAR,
    TH__CUDA_POST_STD,
    TH__CUDA_POST_LSE,
    TH__CUDA_POST_CENTRE_MEAN, /* var's first pass: total / n (0 for none) */
    TH__CUDA_POST_CENTRE_MAX   /* logsumexp's: the max (-inf for none) */
} th__cuda_red_post;

/* One reduction as the kernels see it; a kernel parameter (with the plan), so plain data. */
typedef struct th__cuda_red_op {
    int32_t cls, map, post; /* th__cuda_red_class, _map, _post */
    int32_t dtype;          /* the input's */
    int32_t out_dtype;      /* the values' */
    bool is_max;            /* EXT: max (else min) */
    bool all;               /* BOOL: all (else any) */
    bool values, indices;   /* which results the last level stores */
    bool acc_float;         /* accreal is float (f16, bf16): each operation rounded to float */
    bool centred;           /* the second pass of var or logsumexp: map reads the output's centre */
    bool aligned;           /* the input's data is aligned to its element size (then so is every element) */
    double p;               /* norm's order, for MAP_POW and POST_ROOT */
    int64_t correction;     /* var, std */
    int64_t n;              /* elements reduced per output (the plan's numel_red), for the posts */
} th__cuda_red_op;

/* One level: numel_out outputs, each reducing a run of len elements into parts partial results (1: the last
 * level, which finishes and stores). */
typedef struct th__cuda_red_level {
    int64_t numel_out, len, parts;
    bool first;      /* the elements are the input's, through the plan (else the previous level's partials) */
    bool lane_major; /* consecutive threads take consecutive parts of one output (else one part of consecutive
                      * outputs): which of the two reads neighbouring memory */
    bool out_by_part; /* partial c of output o is stored at c x numel_out + o (else at o x parts + c) */
    bool in_by_part;  /* element j of output o (a partial of the level before) is at j x numel_out + o (else at
                       * o x len + j) */
} th__cuda_red_level;

/* Where a level reads and writes; byte pointers, any of them NULL where the level does not use it. */
typedef struct th__cuda_red_ptrs {
    const unsigned char *in;   /* the input's th_tensor_data */
    unsigned char *values;     /* the values out's th_tensor_data */
    unsigned char *indices;    /* the int64 indices out's: same element strides as values when both are stored
                                * (offsets are the values' scaled by 8 / their element size); alone for argmax */
    const unsigned char *part_in;
    unsigned char *part_out;
    double *centre_out;        /* a CENTRE post writes here, one per output */
    const double *centre_in;   /* a centred pass reads here */
} th__cuda_red_ptrs;

/* The running state of one part. */
typedef struct th__cuda_red_acc {
    double f;      /* floating sums, products and keys */
    uint64_t u;    /* integer sums and products (mod 2^64), integer keys (int64 bits), all/any */
    int64_t index; /* EXT: the key's position in the reduced order; -1 before the first element */
} th__cuda_red_acc;

/* ---- the tree ------------------------------------------------------------------------------------------ */

TH__HD int64_t th__cuda_red_parts(int64_t len)
{
    if (len <= TH__CUDA_RED_SEQ) return 1;
    const int64_t tile = (int64_t)TH__CUDA_RED_LANES * TH__CUDA_RED_STEPS;
    return (int64_t)TH__CUDA_RED_LANES * ((len + tile - 1) / tile);
}

/* Part c of a run of len elements: its elements start, start + stride, ... (count of them). */
TH__HD void th__cuda_red_part(int64_t len, int64_t c, int64_t *start, int64_t *stride, int64_t *count)
{
    if (len <= TH__CUDA_RED_SEQ) {
        *start = 0;
        *stride = 1;
        *count = c == 0 ? len : 0;
        return;
    }
    const int64_t lanes = TH__CUDA_RED_LANES, tile = lanes * TH__CUDA_RED_STEPS;
    *start = (c / lanes) * tile + c % lanes;
    *stride = lanes;
    const int64_t left = len - *start;
    const int64_t n = left > 0 ? (left + lanes - 1) / lanes : 0;
    const int64_t steps = TH__CUDA_RED_STEPS;
    *count = n < steps ? n : steps;
}

/* Where a level with parts > 1 stores its partials. When the next level folds each output's partials in one
 * part (parts <= TH__CUDA_RED_SEQ), one thread an output, in order, those threads read neighbouring memory at
 * each step only if the partials lie part-major (partial c of every output, then partial c + 1); stored output
 * after output, the 32 threads of a warp read 32 places len partials apart at each step. Part-major storage
 * changes where partials lie, not which are folded in which order: the bits are the same. */
static inline bool th__cuda_red_by_part(int64_t numel_out, int64_t parts)
{
    return numel_out > 1 && parts > 1 && parts <= TH__CUDA_RED_SEQ;
}

/* The first level of numel_out outputs of numel_red elements each; the next one after lv (lv.parts > 1). */
static inline th__cuda_red_level th__cuda_red_first_level(int64_t numel_out, int64_t numel_red, bool lane_major)
{
    th__cuda_red_level lv;
    lv.numel_out = numel_out;
    lv.len = numel_red;
    lv.parts = th__cuda_red_parts(numel_red);
    lv.first = true;
    lv.lane_major = lane_major;
    lv.out_by_part = th__cuda_red_by_part(numel_out, lv.parts);
    lv.in_by_part = false;
    return lv;
}

static inline th__cuda_red_level th__cuda_red_next_level(const th__cuda_red_level *lv)
{
    th__cuda_red_level n;
    n.numel_out = lv->numel_out;
    n.len = lv->parts;
    n.parts = th__cuda_red_parts(n.len);
    n.first = false;
    n.lane_major = true; /* partials lie part after part for each output, or one part an output */
    n.out_by_part = th__cuda_red_by_part(n.numel_out, n.parts);
    n.in_by_part = lv->out_by_part;
    return n;
}

/* The dtype a level's step is instantiated for: the input's at the first level; after it only whether keys and
 * sums are floating matters, so f64 or i64 (fewer kernels). */
TH__HD int th__cuda_red_level_dtype(const th__cuda_red_op *op, const th__cuda_red_level *lv)
{
    if (lv->first) return op->dtype;
    return th__cv_is_floating(op->dtype) ? TH_F64 : TH_I64;
}

/* Bytes of one partial result. */
TH__HD int64_t th__cuda_red_part_size(int cls) { return cls == TH__CUDA_RED_EXT ? 16 : 8; }

/* ---- arithmetic that nvcc may not fuse ----------------------------------------------------------------- */

TH__HD double th__cuda_red_add(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}

TH__HD double th__cuda_red_sub(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dsub_rn(a, b);
#else
    return a - b;
#endif
}

TH__HD double th__cuda_red_mul(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}

/* v rounded to accreal: to float for f16 and bf16. */
TH__HD double th__cuda_red_round(bool acc_float, double v) { return acc_float ? (double)(float)v : v; }

TH__HD bool th__cuda_red_isnan(double v) { return v != v; }
TH__HD bool th__cuda_red_isfinite(double v) { return v == v && th__cuda_red_sub(v, v) == 0.0; }

TH__HD bool th__cuda_red_is_floating(int dt) { return th__cv_is_floating(dt); }

/* Bytes of an element of dtype dt (th_dtype_info is the host's). */
TH__HD int64_t th__cuda_red_elsize(int dt)
{
    switch (dt) {
    case TH_BOOL: case TH_U8: case TH_I8: return 1;
    case TH_I16: case TH_F16: case TH_BF16: return 2;
    case TH_I32: case TH_F32: return 4;
    case TH_C128: return 16;
    default: return 8; /* i64, f64, c64 */
    }
}

/* ---- elements ------------------------------------------------------------------------------------------ */

/* An input element, as convert.h loads it; on the device through a typed read-only load (__ldg) when aligned,
 * since there convert.h's memcpy compiles to one load per byte (and a plain typed load, equal to it in value,
 * is folded into the same bytewise code by nvcc). The kernels never write what they read through these. */
TH__HD int64_t th__cuda_red_load_i64(const unsigned char *p, int dt, bool aligned)
{
#ifdef __CUDA_ARCH__
    if (aligned) {
        switch (dt) {
        case TH_BOOL: return __ldg((const unsigned char *)p) != 0;
        case TH_U8: return __ldg((const unsigned char *)p);
        case TH_I8: return __ldg((const signed char *)p);
        case TH_I16: return __ldg((const short *)p);
        case TH_I32: return __ldg((const int *)p);
        case TH_I64: return __ldg((const long long *)p);
        default: break;
        }
    }
#else
    (void)aligned;
#endif
    return th__cv_load_i64(p, dt);
}

TH__HD double th__cuda_red_load_f64(const unsigned char *p, int dt, bool aligned)
{
#ifdef __CUDA_ARCH__
    if (aligned) {
        switch (dt) {
        case TH_F16: return (double)th__cv_half_to_float(__ldg((const unsigned short *)p));
        case TH_BF16: return (double)th__cv_bf16_to_float(__ldg((const unsigned short *)p));
        case TH_F32: return (double)__ldg((const float *)p);
        case TH_F64: return __ldg((const double *)p);
        default: break;
        }
    }
#else
    (void)aligned;
#endif
    return th__cv_load_f64(p, dt);
}

TH__HD th__cuda_red_acc th__cuda_red_identity(const th__cuda_red_op *op, int cls)
{
    th__cuda_red_acc a;
    a.f = cls == TH__CUDA_RED_PROD ? 1.0 : 0.0;
    a.u = cls == TH__CUDA_RED_PROD || (cls == TH__CUDA_RED_BOOL && op->all) ? 1u : 0u;
    a.index = -1;
    return a;
}

/* A floating element's contribution to a sum, in accreal (ops/reduce.h's map). */
TH__HD double th__cuda_red_apply_map(const th__cuda_red_op *op, double v, double centre)
{
    switch (op->map) {
    case TH__CUDA_MAP_ABS: return fabs(v);
    case TH__CUDA_MAP_SQUARE: return th__cuda_red_round(op->acc_float, th__cuda_red_mul(v, v));
    case TH__CUDA_MAP_POW: return th__cuda_red_round(op->acc_float, pow(fabs(v), op->p));
    case TH__CUDA_MAP_NONZERO: return v != 0.0 ? 1.0 : 0.0;
    case TH__CUDA_MAP_DEV2: {
        const double d = th__cuda_red_sub(v, centre);
        return th__cuda_red_round(op->acc_float, th__cuda_red_mul(d, d));
    }
    case TH__CUDA_MAP_EXP: return th__cuda_red_round(op->acc_float, exp(th__cuda_red_sub(v, centre)));
    default: return v;
    }
}

/* Whether (k, i) comes before the current extreme of a in the order NaN first, then the larger (max) or smaller
 * (min) key, then the smaller index: a total order, so the result is the CPU's (the first NaN, else the first
 * occurrence of the extreme) whatever the tree. */
TH__HD bool th__cuda_red_better(bool floating, bool is_max, const th__cuda_red_acc *a, double kf, int64_t ki,
                                int64_t i)
{
    if (a->index < 0) return true;
    if (floating) {
        const bool nan_new = th__cuda_red_isnan(kf), nan_old = th__cuda_red_isnan(a->f);
        if (nan_new || nan_old) return nan_new && (!nan_old || i < a->index);
        if (kf == a->f) return i < a->index;
        return is_max ? kf > a->f : kf < a->f;
    }
    const int64_t old = (int64_t)a->u;
    if (ki == old) return i < a->index;
    return is_max ? ki > old : ki < old;
}

/* Element j (its position in the reduced order) of the input, of dtype dt, at p, into a. */
TH__HD void th__cuda_red_accumulate(const th__cuda_red_op *op, int dt, int cls, th__cuda_red_acc *a,
                                    const unsigned char *p, int64_t j, double centre)
{
    const bool floating = th__cuda_red_is_floating(dt);
    switch (cls) {
    case TH__CUDA_RED_SUM:
        if (floating)
            a->f = th__cuda_red_round(op->acc_float,
                                      th__cuda_red_add(a->f, th__cuda_red_apply_map(op, th__cuda_red_load_f64(p, dt, op->aligned), centre)));
        else
            a->u += (uint64_t)th__cuda_red_load_i64(p, dt, op->aligned);
        break;
    case TH__CUDA_RED_PROD:
        if (floating) a->f = th__cuda_red_round(op->acc_float, th__cuda_red_mul(a->f, th__cuda_red_load_f64(p, dt, op->aligned)));
        else a->u *= (uint64_t)th__cuda_red_load_i64(p, dt, op->aligned);
        break;
    case TH__CUDA_RED_EXT: {
        double kf = 0.0;
        int64_t ki = 0;
        if (floating) {
            kf = th__cuda_red_load_f64(p, dt, op->aligned);
            if (op->map == TH__CUDA_MAP_ABS) kf = fabs(kf);
        } else {
            ki = th__cuda_red_load_i64(p, dt, op->aligned);
        }
        if (th__cuda_red_better(floating, op->is_max, a, kf, ki, j)) {
            a->f = kf;
            a->u = (uint64_t)ki;
            a->index = j;
        }
        break;
    }
    default: { /* BOOL: nonzero, NaN too */
        const bool nz = floating ? th__cuda_red_load_f64(p, dt, op->aligned) != 0.0 : th__cuda_red_load_i64(p, dt, op->aligned) != 0;
        a->u = op->all ? (a->u && nz) : (a->u || nz);
        break;
    }
    }
}

/* A partial result b folded into a. */
TH__HD void th__cuda_red_combine(const th__cuda_red_op *op, int dt, int cls, th__cuda_red_acc *a,
                                 const th__cuda_red_acc *b)
{
    const bool floating = th__cuda_red_is_floating(dt);
    switch (cls) {
    case TH__CUDA_RED_SUM:
        if (floating) a->f = th__cuda_red_round(op->acc_float, th__cuda_red_add(a->f, b->f));
        else a->u += b->u;
        break;
    case TH__CUDA_RED_PROD:
        if (floating) a->f = th__cuda_red_round(op->acc_float, th__cuda_red_mul(a->f, b->f));
        else a->u *= b->u;
        break;
    case TH__CUDA_RED_EXT:
        if (b->index >= 0 && th__cuda_red_better(floating, op->is_max, a, b->f, (int64_t)b->u, b->index)) *a = *b;
        break;
    default: a->u = op->all ? (a->u && b->u) : (a->u || b->u); break;
    }
}

/* 8 bytes at p, which is 8-aligned (partials lie in scratch memory, each at a multiple of its size): typed on
 * the device, where memcpy would be byte by byte; a level reads only the previous level's partials. */
TH__HD void th__cuda_red_put8(unsigned char *p, const void *v)
{
#ifdef __CUDA_ARCH__
    *(uint64_t *)p = *(const uint64_t *)v;
#else
    memcpy(p, v, 8);
#endif
}

TH__HD void th__cuda_red_get8(void *v, const unsigned char *p)
{
#ifdef __CUDA_ARCH__
    *(unsigned long long *)v = __ldg((const unsigned long long *)p);
#else
    memcpy(v, p, 8);
#endif
}

TH__HD void th__cuda_red_store_part(int cls, unsigned char *p, const th__cuda_red_acc *a, bool floating)
{
    if (floating && cls != TH__CUDA_RED_BOOL) th__cuda_red_put8(p, &a->f);
    else th__cuda_red_put8(p, &a->u);
    if (cls == TH__CUDA_RED_EXT) th__cuda_red_put8(p + 8, &a->index);
}

TH__HD th__cuda_red_acc th__cuda_red_load_part(int cls, const unsigned char *p, bool floating)
{
    th__cuda_red_acc a;
    a.f = 0.0;
    a.u = 0;
    a.index = -1;
    if (floating && cls != TH__CUDA_RED_BOOL) th__cuda_red_get8(&a.f, p);
    else th__cuda_red_get8(&a.u, p);
    if (cls == TH__CUDA_RED_EXT) th__cuda_red_get8(&a.index, p + 8);
    return a;
}

/* A floating total of n elements made the op's result, in accreal (ops/reduce.h's post). */
TH__HD double th__cuda_red_apply_post(const th__cuda_red_op *op, double t, double centre, int64_t n)
{
    switch (op->post) {
    case TH__CUDA_POST_MEAN: return th__cuda_red_round(op->acc_float, t / (double)n);
    case TH__CUDA_POST_SQRT: return th__cuda_red_round(op->acc_float, sqrt(t));
    case TH__CUDA_POST_ROOT: return th__cuda_red_round(op->acc_float, pow(t, 1.0 / op->p));
    case TH__CUDA_POST_VAR:
    case TH__CUDA_POST_STD: {
        const double v = t / (double)(n > op->correction ? n - op->correction : 0);
        return th__cuda_red_round(op->acc_float, op->post == TH__CUDA_POST_STD ? sqrt(v) : v);
    }
    case TH__CUDA_POST_LSE:
        return th__cuda_red_isfinite(centre) ? th__cuda_red_round(op->acc_float, th__cuda_red_add(centre, log(t)))
                                             : centre;
    default: return t;
    }
}

/* The last level's result for output o: values and indices stored at byte offset off of the values out (the
 * indices out alone for argmax), or a CENTRE post's centre. */
TH__HD void th__cuda_red_finish(const th__cuda_red_op *op, int dt, int cls, const th__cuda_red_ptrs *ptrs, int64_t o,
                                int64_t off, const th__cuda_red_acc *a, double centre)
{
    const bool floating = th__cuda_red_is_floating(dt);
    if (op->post == TH__CUDA_POST_CENTRE_MEAN) {
        ptrs->centre_out[o] = op->n > 0 ? th__cuda_red_round(op->acc_float, a->f / (double)op->n) : 0.0;
        return;
    }
    if (op->post == TH__CUDA_POST_CENTRE_MAX) {
        ptrs->centre_out[o] = a->index >= 0 ? a->f : -(double)INFINITY;
        return;
    }
    if (cls == TH__CUDA_RED_EXT) {
        /* No element only for norm of order +inf, whose max of no |x| is 0. */
        const int64_t index = a->index >= 0 ? a->index : 0;
        if (op->values) {
            unsigned char *v = ptrs->values + off;
            if (floating) th__cv_store_f64(v, op->out_dtype, a->index >= 0 ? a->f : 0.0);
            else th__cv_store_i64(v, op->out_dtype, a->index >= 0 ? (int64_t)a->u : 0);
        }
        if (op->indices) {
            const int64_t es = th__cuda_red_elsize(op->values ? op->out_dtype : TH_I64);
            memcpy(ptrs->indices + off / es * 8, &index, 8);
        }
        return;
    }
    unsigned char *v = ptrs->values + off;
    if (cls == TH__CUDA_RED_BOOL) v[0] = a->u ? 1 : 0;
    else if (floating) th__cv_store_f64(v, op->out_dtype, th__cuda_red_apply_post(op, a->f, centre, op->n));
    else th__cv_store_i64(v, op->out_dtype, (int64_t)a->u); /* wraps modulo 2^bits, as the CPU's */
}

/* ---- one thread's work --------------------------------------------------------------------------------- */

#ifdef __CUDA_ARCH__
/* On the device the elements of a batch are read before any of them is folded. The folds keep their order (the
 * bits are the tree's, as on the host), but a thread then has TH__CUDA_RED_BATCH reads in flight instead of one:
 * a 16384^2 f32 sum on an H200 went from 0.21 to 0.37 of a device copy's rate, and to 0.48 with volatile loads
 * and a product for the offsets of one reduced dim. (A separate loop for plain sums, loading doubles and adding
 * them, measured slower, 0.23: nvcc moved each load back next to its add.) */
enum { TH__CUDA_RED_BATCH = 8 };
typedef union th__cuda_red_elem {
    unsigned char b[16];
    unsigned short h;
    unsigned int w;
    unsigned long long d[2];
} th__cuda_red_elem;

__device__ static inline void th__cuda_red_fetch(th__cuda_red_elem *e, const unsigned char *p, int dt)
{
    /* Volatile loads: nvcc may neither drop nor move them, so the batch's loads stay ahead of its folds. Plain
     * loads were sunk into the branches of th__cuda_red_accumulate, each next to its use: a batch of 8 issued
     * 4 reads at once. */
    switch (dt) {
    case TH_BOOL: case TH_U8: case TH_I8: {
        unsigned short v;
        asm volatile("ld.global.nc.u8 %0, [%1];" : "=h"(v) : "l"(p));
        e->b[0] = (unsigned char)v;
        break;
    }
    case TH_I16: case TH_F16: case TH_BF16: asm volatile("ld.global.nc.u16 %0, [%1];" : "=h"(e->h) : "l"(p)); break;
    case TH_I32: case TH_F32: asm volatile("ld.global.nc.u32 %0, [%1];" : "=r"(e->w) : "l"(p)); break;
    case TH_C128:
        asm volatile("ld.global.nc.v2.u64 {%0, %1}, [%2];" : "=l"(e->d[0]), "=l"(e->d[1]) : "l"(p));
        break;
    default: asm volatile("ld.global.nc.u64 %0, [%1];" : "=l"(e->d[0]) : "l"(p)); break; /* i64, f64, c64 */
    }
}
#endif

/* Where thread t of level lv works: its output o and part c, the part's elements (th__cuda_red_part), and the
 * byte offsets of o's result and of o's first input element (those at the first and the last level only). */
typedef struct th__cuda_red_where {
    int64_t o, c, start, stride, count, out_off, in_off;
} th__cuda_red_where;

TH__HD th__cuda_red_where th__cuda_red_locate(const th__cuda_reduce_plan *plan, const th__cuda_red_level *lv, int64_t t)
{
    th__cuda_red_where w;
    w.o = lv->lane_major ? t / lv->parts : t % lv->numel_out;
    w.c = lv->lane_major ? t % lv->parts : t / lv->numel_out;
    th__cuda_red_part(lv->len, w.c, &w.start, &w.stride, &w.count);
    w.out_off = 0;
    w.in_off = 0;
    if (lv->first || lv->parts == 1) th__cuda_reduce_out_offsets(plan, w.o, &w.out_off, &w.in_off);
    return w;
}

/* A thread's part folded into a: stored as a partial or, at the last level, finished as the result. */
TH__HD void th__cuda_red_store(const th__cuda_red_op *op, const th__cuda_red_level *lv, const th__cuda_red_ptrs *ptrs,
                               const th__cuda_red_where *w, const th__cuda_red_acc *a, double centre, int dt, int cls)
{
    if (lv->parts == 1) th__cuda_red_finish(op, dt, cls, ptrs, w->o, w->out_off, a, centre);
    else th__cuda_red_store_part(cls,
                                 ptrs->part_out + (lv->out_by_part ? w->c * lv->numel_out + w->o : w->o * lv->parts + w->c) *
                                                      th__cuda_red_part_size(cls),
                                 a, th__cuda_red_is_floating(dt));
}

/* Thread t (0 <= t < numel_out x parts) of level lv: folds its part of its output's run, then stores the partial
 * or, at the last level, the result. dt and cls are op's dtype and class, passed apart so that a kernel
 * instantiated for them has them as constants. */
TH__HD void th__cuda_red_step(const th__cuda_reduce_plan *plan, const th__cuda_red_op *op, const th__cuda_red_level *lv,
                              const th__cuda_red_ptrs *ptrs, int64_t t, int dt, int cls)
{
    const th__cuda_red_where w = th__cuda_red_locate(plan, lv, t);
    const int64_t start = w.start, stride = w.stride, count = w.count, in_off = w.in_off, o = w.o;
    const double centre = op->centred ? ptrs->centre_in[o] : 0.0;
    const bool floating = th__cuda_red_is_floating(dt);
    th__cuda_red_acc a = th__cuda_red_identity(op, cls);
    const int64_t psize = th__cuda_red_part_size(cls);
    if (lv->first) {
        int64_t k = 0;
#ifdef __CUDA_ARCH__
        if (op->aligned) {
            th__cuda_red_op local = *op;
            local.aligned = false; /* the folds read the batch's registers, not global memory */
            /* One reduced dim (any contiguous run, after the plan's merging): an element's offset is a product,
             * without th__cuda_reduce_in_offset's loop between one load and the next. */
            const bool one_dim = plan->ndim_red == 1;
            const int64_t step = one_dim ? stride * plan->in_strides[plan->ndim_out] : 0;
            for (; k + TH__CUDA_RED_BATCH <= count; k += TH__CUDA_RED_BATCH) {
                th__cuda_red_elem e[TH__CUDA_RED_BATCH];
                if (one_dim) {
                    const unsigned char *q = ptrs->in + in_off + (start + k * stride) * plan->in_strides[plan->ndim_out];
#pragma unroll
                    for (int u = 0; u < TH__CUDA_RED_BATCH; u++) th__cuda_red_fetch(&e[u], q + u * step, dt);
                } else {
#pragma unroll
                    for (int u = 0; u < TH__CUDA_RED_BATCH; u++)
                        th__cuda_red_fetch(&e[u],
                                           ptrs->in + in_off + th__cuda_reduce_in_offset(plan, start + (k + u) * stride), dt);
                }
#pragma unroll
                for (int u = 0; u < TH__CUDA_RED_BATCH; u++)
                    th__cuda_red_accumulate(&local, dt, cls, &a, e[u].b, start + (k + u) * stride, centre);
            }
        }
#endif
        for (; k < count; k++) {
            const int64_t j = start + k * stride;
            th__cuda_red_accumulate(op, dt, cls, &a, ptrs->in + in_off + th__cuda_reduce_in_offset(plan, j), j, centre);
        }
    } else {
        /* element j of output o: at src + j x step */
        const unsigned char *src = ptrs->part_in + (lv->in_by_part ? o : o * lv->len) * psize;
        const int64_t step = (lv->in_by_part ? lv->numel_out : 1) * psize;
        for (int64_t k = 0; k < count; k++) {
            const th__cuda_red_acc b = th__cuda_red_load_part(cls, src + (start + k * stride) * step, floating);
            th__cuda_red_combine(op, dt, cls, &a, &b);
        }
    }
    th__cuda_red_store(op, lv, ptrs, &w, &a, centre, dt, cls);
}

/* ---- the lean sum ---------------------------------------------------------------------------------------- */

/* Whether level lv of op runs th__cuda_red_step_lean, in a kernel of its own: a floating sum's first level when it
 * is a plain sum over one reduced dim of aligned elements (sum, mean, var's first pass), and every later level of
 * a floating sum-class op (sum, mean, var, std, logsumexp, norms: partials are doubles, added). The generic
 * fold keeps the map, the centre, the other classes and their state in registers (80 of them: 37.5% occupancy)
 * and spends some twenty instructions an element: a 16384^2 f32 sum ran at 0.48 of a device copy's rate on an
 * H200, limited by issue slots, not memory. And a later level folding each output's partials in one part has a
 * thread an output: with one load in flight a thread, 16,384 threads folding 256 partials each waited on
 * memory 256 times in a row. */
TH__HD bool th__cuda_red_lean(const th__cuda_reduce_plan *plan, const th__cuda_red_op *op, const th__cuda_red_level *lv)
{
    if (op->cls != TH__CUDA_RED_SUM || !th__cv_is_floating(op->dtype)) return false;
    if (!lv->first) return true;
    const bool half = op->dtype == TH_F16 || op->dtype == TH_BF16;
    return op->aligned && plan->ndim_red == 1 && op->map == TH__CUDA_MAP_ID && !op->centred && op->acc_float == half;
}

#ifdef __CUDA_ARCH__
/* Loads in flight a thread of the lean sum has: 16 of up to 4 bytes, 32 of 8 (f64 inputs and every later level's
 * partials). A later level of a reduction over a dim has few threads (a 16384^2 sum over dim 1: 16,384 threads
 * folding 256 partials each), so what each has in flight is what the memory sees: with 8 doubles in flight
 * (against 16) that sum went from 0.87 to 0.83 of a device copy's rate on an H200. */
enum { TH__CUDA_RED_LEAN_BATCH = 32 };

/* A fetched element of floating dtype dt as a double (dt a constant where this is inlined). */
__device__ static inline double th__cuda_red_elem_f64(const th__cuda_red_elem *e, int dt)
{
    switch (dt) {
    case TH_F16: return (double)th__cv_half_to_float(e->h);
    case TH_BF16: return (double)th__cv_bf16_to_float(e->h);
    case TH_F32: return (double)__uint_as_float(e->w);
    default: return __longlong_as_double((long long)e->d[0]);
    }
}
/* The lean sum's batches of batch elements (a constant where this is inlined), from q on, while whole ones fit
 * in count; k and q move past them. */
__device__ static __forceinline__ void th__cuda_red_lean_batches(double *f, const unsigned char **q, int64_t *k,
                                                                   int64_t count, int64_t step, int dt, bool acc_float,
                                                                   int batch)
{
    for (; *k + batch <= count; *k += batch, *q += batch * step) {
        th__cuda_red_elem e[TH__CUDA_RED_LEAN_BATCH];
#pragma unroll
        for (int u = 0; u < batch; u++) th__cuda_red_fetch(&e[u], *q + u * step, dt);
#pragma unroll
        for (int u = 0; u < batch; u++)
            *f = th__cuda_red_round(acc_float, th__cuda_red_add(*f, th__cuda_red_elem_f64(&e[u], dt)));
    }
}

#endif

/* th__cuda_red_step for a level th__cuda_red_lean accepts: the same elements (dt: the input's at the first level,
 * f64 partials after it) added in the same order with the same roundings, so the same bits (tests/cuda/
 * test_cuda_reduce.c compares the two on the host), with only a double and the addresses live across the loop. */
TH__HD void th__cuda_red_step_lean(const th__cuda_reduce_plan *plan, const th__cuda_red_op *op,
                                   const th__cuda_red_level *lv, const th__cuda_red_ptrs *ptrs, int64_t t, int dt)
{
    const th__cuda_red_where w = th__cuda_red_locate(plan, lv, t);
    const bool acc_float = op->acc_float;
    /* element j of the run at q + (j - start) / stride x step */
    const unsigned char *q;
    int64_t step;
    if (lv->first) {
        step = w.stride * plan->in_strides[plan->ndim_out];
        q = ptrs->in + w.in_off + w.start * plan->in_strides[plan->ndim_out];
    } else {
        const int64_t along = lv->in_by_part ? lv->numel_out : 1; /* partials between element j and j + 1 */
        step = w.stride * along * 8;
        q = ptrs->part_in + ((lv->in_by_part ? w.o : w.o * lv->len) + w.start * along) * 8;
    }
    double f = 0.0; /* the sum's identity, as th__cuda_red_identity's */
    int64_t k = 0;
#ifdef __CUDA_ARCH__
    if (dt == TH_F64) th__cuda_red_lean_batches(&f, &q, &k, w.count, step, dt, acc_float, TH__CUDA_RED_LEAN_BATCH);
    else th__cuda_red_lean_batches(&f, &q, &k, w.count, step, dt, acc_float, TH__CUDA_RED_LEAN_BATCH / 2);
#endif
    for (; k < w.count; k++, q += step)
        f = th__cuda_red_round(acc_float, th__cuda_red_add(f, th__cuda_red_load_f64(q, dt, lv->first ? op->aligned : true)));
    th__cuda_red_acc a = th__cuda_red_identity(op, TH__CUDA_RED_SUM);
    a.f = f;
    const double centre = op->centred && lv->parts == 1 ? ptrs->centre_in[w.o] : 0.0; /* logsumexp's finish */
    th__cuda_red_store(op, lv, ptrs, &w, &a, centre, dt, TH__CUDA_RED_SUM);
}

/* ---- scans --------------------------------------------------------------------------------------------- */

/* Row o of a scan (cumsum: product false) along a dim of len elements, in order, the running total in accreal
 * rounded into out at each element, as the CPU's (so the bits are the CPU's: the same operations in the same
 * order). The plan's output space is the rows; out_step is out's byte stride along the dim, the plan's reduced
 * space the input's. */
TH__HD void th__cuda_red_scan_row(const th__cuda_reduce_plan *plan, int dt, bool product, bool acc_float,
                                  const unsigned char *in, unsigned char *out, int64_t out_step, int64_t len, int64_t o)
{
    int64_t out_off, in_off;
    th__cuda_reduce_out_offsets(plan, o, &out_off, &in_off);
    const bool floating = th__cuda_red_is_floating(dt);
    double f = product ? 1.0 : 0.0;
    uint64_t u = product ? 1u : 0u;
    for (int64_t j = 0; j < len; j++) {
        const unsigned char *p = in + in_off + th__cuda_reduce_in_offset(plan, j);
        unsigned char *q = out + out_off + j * out_step;
        if (floating) {
            const double x = th__cv_load_f64(p, dt);
            f = th__cuda_red_round(acc_float, product ? th__cuda_red_mul(f, x) : th__cuda_red_add(f, x));
            th__cv_store_f64(q, dt, f);
        } else {
            const uint64_t x = (uint64_t)th__cv_load_i64(p, dt);
            u = product ? u * x : u + x;
            th__cv_store_i64(q, dt, (int64_t)u);
        }
    }
}

#endif
