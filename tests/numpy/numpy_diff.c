/* tests/numpy/numpy_diff.c: the randomised differential test against NumPy (issue 11). Python draws the cases
 * and computes the references; this program only makes the calls, so that the sanitizers and valgrind, which
 * wrap the test command, check every call into the library while NumPy runs unwrapped.
 *
 *   numpy_diff DIR PYTHON SCRIPT [SEED]   the test: writes DIR/functions.txt (this driver's table), runs
 *                                         `PYTHON SCRIPT gen DIR [SEED]` (DIR/cases.txt), makes the calls
 *                                         into DIR/results.txt, and exits with `PYTHON SCRIPT check DIR`'s
 *                                         status (77: skipped)
 *   numpy_diff --run CASES RESULTS        the calls alone: how a case printed by a failure is reproduced
 *   numpy_diff --list                     every public function this driver can call, one a line
 *
 * A case is one call, in lines of space-separated words:
 *
 *   case ID NAME                          NAME: the public function, th_f32_add_out
 *   s DTYPE N V...                        a storage of N values (integers in decimal, floating values as C99
 *                                         hex floats, inf or nan, complex ones as two of those)
 *   t SID DTYPE OFFSET NDIM SIZES... STRIDES...   the next tensor argument: a view of storage SID
 *   n                                     the next tensor argument is NULL
 *   x RE IM INT                           the next scalar argument, read from the field its dtype uses
 *   i V                                   the next integer argument (dims, flags, counts)
 *   l N V...                              the integer list argument (flip's dims, repeat's repeats)
 *   go
 *
 * The arguments of each kind are numbered in order, and each wrapper below passes them where its function
 * takes them. The results say, per case: the status and message; every tensor returned (dtype, shape,
 * whether it is contiguous and whether its storage is new, values); and every storage's whole contents after
 * the call, so a write outside an out view, or into an input, shows as well as a wrong value. */
#define _POSIX_C_SOURCE 200809L
#include "../check.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <spawn.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>

/* <stdbool.h>'s bool is a macro for _Bool, and a macro argument that is not pasted is expanded before it is
 * substituted: the dtype lists below hand the suffix bool through several macros, which would make
 * th_bool_eq th__Bool_eq. So bool is a plain token from here on (C11 7.18.4 allows undefining it), and this
 * file spells the type _Bool. */
#undef bool

extern char **environ;

enum { MAX_TENSORS = 10, MAX_SCALARS = 4, MAX_INTS = 8, MAX_LIST = 16, MAX_RESULTS = 64, MAX_STORAGES = 10 };

typedef struct {
    double re, im;
    int64_t i;
} scalar;

/* One call: the arguments as read, the results as returned. Wrappers index t, s, i and list in the order the
 * C function takes them, so a wrapper is one line. */
typedef struct {
    th_tensor *t[MAX_TENSORS];
    int nt;
    scalar s[MAX_SCALARS];
    int ns;
    int64_t i[MAX_INTS];
    int ni;
    int64_t list[MAX_LIST];
    int nlist;
    th_tensor *res[MAX_RESULTS];
    int nres;
    _Bool returns_status; /* an _out or _inplace form: rc is the result */
    int rc;
    _Bool too_many; /* split or chunk gave more views than res holds */
} call;

/* ---- a scalar argument as each dtype's element type: Python writes values the dtype holds exactly ---- */

static _Bool sc_bool(const scalar *s) { return s->i != 0; }
static uint8_t sc_u8(const scalar *s) { return (uint8_t)s->i; }
static int8_t sc_i8(const scalar *s) { return (int8_t)s->i; }
static int16_t sc_i16(const scalar *s) { return (int16_t)s->i; }
static int32_t sc_i32(const scalar *s) { return (int32_t)s->i; }
static int64_t sc_i64(const scalar *s) { return s->i; }
static th_float16 sc_f16(const scalar *s) { return th_float16_from_double(s->re); }
static th_bfloat16 sc_bf16(const scalar *s) { return th_bfloat16_from_double(s->re); }
static float sc_f32(const scalar *s) { return (float)s->re; }
static double sc_f64(const scalar *s) { return s->re; }
/* A complex number is laid out as an array of its two parts (C11 6.2.5p13), which is how the library builds
 * them too: CMPLX is missing from glibc's <complex.h> under clang. */
static th_complex64 sc_c64(const scalar *s)
{
    const float parts[2] = {(float)s->re, (float)s->im};
    th_complex64 z;
    memcpy(&z, parts, sizeof z);
    return z;
}
static th_complex128 sc_c128(const scalar *s)
{
    const double parts[2] = {s->re, s->im};
    th_complex128 z;
    memcpy(&z, parts, sizeof z);
    return z;
}

/* ---- the wrappers: one per public function, generated per dtype class from the lists further down ---- */

/* Argument k as dtype S's handle. A NULL argument stays NULL (the error cases pass some): from_base would
 * record an error of its own first. */
#define A(S, k) (c->t[k] ? th_##S##_from_base(c->t[k]) : NULL)
#define SC(S, k) sc_##S(&c->s[k])
#define DIM(k) ((int)c->i[k])
#define FLAG(k) (c->i[k] != 0)
#define NEW(expr) (c->res[c->nres++] = th_base(expr))
#define RC(expr) (c->returns_status = true, c->rc = (expr))
#define WRAP(S, NAME) static void w_##S##_##NAME(call *c)

/* Each kind K has DEF_K(S, op), defining its wrappers for dtype S, and REG_K(S, op), their table rows. */
#define ROW(S, NAME) {"th_" #S "_" #NAME, w_##S##_##NAME},

#define DEF_U_NEW(S, op) WRAP(S, op) { NEW(th_##S##_##op(A(S, 0))); }
#define REG_U_NEW(S, op) ROW(S, op)
#define DEF_U_OUT(S, op, OUT) DEF_U_OUT_(S, op, RESOLVE(OUT, S))
#define DEF_U_OUT_(S, op, OUT) WRAP(S, op##_out) { RC(th_##S##_##op##_out(A(OUT, 0), A(S, 1))); }
#define REG_U_OUT(S, op, OUT) ROW(S, op##_out)
#define DEF_U_IP(S, op) WRAP(S, op##_inplace) { RC(th_##S##_##op##_inplace(A(S, 0))); }
#define REG_U_IP(S, op) ROW(S, op##_inplace)

/* unary, same dtype out: new, _out, _inplace */
#define DEF_UNARY(S, op) DEF_U_NEW(S, op) DEF_U_OUT(S, op, SAME) DEF_U_IP(S, op)
#define REG_UNARY(S, op) REG_U_NEW(S, op) REG_U_OUT(S, op, SAME) REG_U_IP(S, op)
/* unary with a bool result: new, _out */
#define DEF_UPRED(S, op) DEF_U_NEW(S, op) DEF_U_OUT(S, op, bool)
#define REG_UPRED(S, op) REG_U_NEW(S, op) REG_U_OUT(S, op, bool)

/* polar: two operands of the real dtype of S's precision; new, _out */
#define DEF_POLAR(S, op) DEF_POLAR_(S, op, REALOF_##S)
#define DEF_POLAR_(S, op, R)                                                                      \
    WRAP(S, op) { NEW(th_##S##_##op(A(R, 0), A(R, 1))); }                                        \
    WRAP(S, op##_out) { RC(th_##S##_##op##_out(A(S, 0), A(R, 1), A(R, 2))); }
#define REG_POLAR(S, op) ROW(S, op) ROW(S, op##_out)

/* binary: new, _out, _inplace and the three _scalar forms */
#define DEF_BINARY(S, op)                                                                         \
    WRAP(S, op) { NEW(th_##S##_##op(A(S, 0), A(S, 1))); }                                        \
    WRAP(S, op##_out) { RC(th_##S##_##op##_out(A(S, 0), A(S, 1), A(S, 2))); }                    \
    WRAP(S, op##_inplace) { RC(th_##S##_##op##_inplace(A(S, 0), A(S, 1))); }                     \
    WRAP(S, op##_scalar) { NEW(th_##S##_##op##_scalar(A(S, 0), SC(S, 0))); }                     \
    WRAP(S, op##_scalar_out) { RC(th_##S##_##op##_scalar_out(A(S, 0), A(S, 1), SC(S, 0))); }     \
    WRAP(S, op##_scalar_inplace) { RC(th_##S##_##op##_scalar_inplace(A(S, 0), SC(S, 0))); }
#define REG_BINARY(S, op)                                                                         \
    ROW(S, op) ROW(S, op##_out) ROW(S, op##_inplace) ROW(S, op##_scalar) ROW(S, op##_scalar_out)  \
    ROW(S, op##_scalar_inplace)
/* comparisons and logical ops, bool result: new, _out and the two _scalar forms */
#define DEF_CMP(S, op)                                                                            \
    WRAP(S, op) { NEW(th_##S##_##op(A(S, 0), A(S, 1))); }                                        \
    WRAP(S, op##_out) { RC(th_##S##_##op##_out(A(bool, 0), A(S, 1), A(S, 2))); }                 \
    WRAP(S, op##_scalar) { NEW(th_##S##_##op##_scalar(A(S, 0), SC(S, 0))); }                     \
    WRAP(S, op##_scalar_out) { RC(th_##S##_##op##_scalar_out(A(bool, 0), A(S, 1), SC(S, 0))); }
#define REG_CMP(S, op) ROW(S, op) ROW(S, op##_out) ROW(S, op##_scalar) ROW(S, op##_scalar_out)

/* binary with one scalar more (add_alpha, lerp) */
#define DEF_BX(S, op)                                                                             \
    WRAP(S, op) { NEW(th_##S##_##op(A(S, 0), A(S, 1), SC(S, 0))); }                              \
    WRAP(S, op##_out) { RC(th_##S##_##op##_out(A(S, 0), A(S, 1), A(S, 2), SC(S, 0))); }          \
    WRAP(S, op##_inplace) { RC(th_##S##_##op##_inplace(A(S, 0), A(S, 1), SC(S, 0))); }
#define REG_BX(S, op) ROW(S, op) ROW(S, op##_out) ROW(S, op##_inplace)
/* three tensors and a scalar (addcmul, addcdiv) */
#define DEF_TX(S, op)                                                                             \
    WRAP(S, op) { NEW(th_##S##_##op(A(S, 0), A(S, 1), A(S, 2), SC(S, 0))); }                     \
    WRAP(S, op##_out) { RC(th_##S##_##op##_out(A(S, 0), A(S, 1), A(S, 2), A(S, 3), SC(S, 0))); } \
    WRAP(S, op##_inplace) { RC(th_##S##_##op##_inplace(A(S, 0), A(S, 1), A(S, 2), SC(S, 0))); }
#define REG_TX(S, op) REG_BX(S, op)
#define DEF_CLAMP(S, op)                                                                          \
    WRAP(S, op) { NEW(th_##S##_##op(A(S, 0), SC(S, 0), SC(S, 1))); }                             \
    WRAP(S, op##_out) { RC(th_##S##_##op##_out(A(S, 0), A(S, 1), SC(S, 0), SC(S, 1))); }         \
    WRAP(S, op##_inplace) { RC(th_##S##_##op##_inplace(A(S, 0), SC(S, 0), SC(S, 1))); }
#define REG_CLAMP(S, op) REG_BX(S, op)
#define DEF_WHERE(S, op)                                                                          \
    WRAP(S, op) { NEW(th_##S##_##op(A(bool, 0), A(S, 1), A(S, 2))); }                            \
    WRAP(S, op##_out) { RC(th_##S##_##op##_out(A(S, 0), A(bool, 1), A(S, 2), A(S, 3))); }
#define REG_WHERE(S, op) ROW(S, op) ROW(S, op##_out)

/* ---- reductions: _all and _dim with their _out forms; OUT is the result's dtype ---- */

#define DEF_RED(S, op, OUT) DEF_RED_(S, op, RESOLVE(OUT, S))
#define DEF_RED_(S, op, OUT)                                                                      \
    WRAP(S, op##_all) { NEW(th_##S##_##op##_all(A(S, 0))); }                                     \
    WRAP(S, op##_all_out) { RC(th_##S##_##op##_all_out(A(OUT, 0), A(S, 1))); }                   \
    WRAP(S, op##_dim) { NEW(th_##S##_##op##_dim(A(S, 0), DIM(0), FLAG(1))); }                    \
    WRAP(S, op##_dim_out) { RC(th_##S##_##op##_dim_out(A(OUT, 0), A(S, 1), DIM(0), FLAG(1))); }
#define REG_RED(S, op, OUT) ROW(S, op##_all) ROW(S, op##_all_out) ROW(S, op##_dim) ROW(S, op##_dim_out)
#define DEF_RED_C(S, op)                                                                               \
    WRAP(S, op##_all) { NEW(th_##S##_##op##_all(A(S, 0), c->i[0])); }                                 \
    WRAP(S, op##_all_out) { RC(th_##S##_##op##_all_out(A(S, 0), A(S, 1), c->i[0])); }                \
    WRAP(S, op##_dim) { NEW(th_##S##_##op##_dim(A(S, 0), DIM(0), c->i[1], FLAG(2))); }                \
    WRAP(S, op##_dim_out) { RC(th_##S##_##op##_dim_out(A(S, 0), A(S, 1), DIM(0), c->i[1], FLAG(2))); }
#define REG_RED_C(S, op) REG_RED(S, op, SAME)
#define DEF_RED_P(S, op, OUT) DEF_RED_P_(S, op, RESOLVE(OUT, S))
#define DEF_RED_P_(S, op, OUT)                                                                           \
    WRAP(S, op##_all) { NEW(th_##S##_##op##_all(A(S, 0), c->s[0].re)); }                                \
    WRAP(S, op##_all_out) { RC(th_##S##_##op##_all_out(A(OUT, 0), A(S, 1), c->s[0].re)); }              \
    WRAP(S, op##_dim) { NEW(th_##S##_##op##_dim(A(S, 0), c->s[0].re, DIM(0), FLAG(1))); }               \
    WRAP(S, op##_dim_out) { RC(th_##S##_##op##_dim_out(A(OUT, 0), A(S, 1), c->s[0].re, DIM(0), FLAG(1))); }
#define REG_RED_P(S, op, OUT) REG_RED(S, op, OUT)
/* max and min: the _dim forms give indices too (i[2] says whether to ask for them) */
#define DEF_MAXMIN(S, op)                                                                         \
    WRAP(S, op##_all) { NEW(th_##S##_##op##_all(A(S, 0))); }                                     \
    WRAP(S, op##_all_out) { RC(th_##S##_##op##_all_out(A(S, 0), A(S, 1))); }                     \
    WRAP(S, op##_dim)                                                                             \
    {                                                                                             \
        th_i64_tensor *ind = NULL;                                                                \
        NEW(th_##S##_##op##_dim(A(S, 0), DIM(0), FLAG(1), FLAG(2) ? &ind : NULL));                \
        NEW(ind);                                                                                 \
    }                                                                                             \
    WRAP(S, op##_dim_out) { RC(th_##S##_##op##_dim_out(A(S, 0), A(i64, 1), A(S, 2), DIM(0), FLAG(1))); }
#define REG_MAXMIN(S, op) REG_RED(S, op, SAME)
#define DEF_SCAN(S, op)                                                                           \
    WRAP(S, op) { NEW(th_##S##_##op(A(S, 0), DIM(0))); }                                         \
    WRAP(S, op##_out) { RC(th_##S##_##op##_out(A(S, 0), A(S, 1), DIM(0))); }
#define REG_SCAN(S, op) ROW(S, op) ROW(S, op##_out)

/* ---- shape ops ---- */

/* cat and stack take every tensor argument after the out as the list */
#define DEF_JOIN(S, op)                                                                           \
    WRAP(S, op)                                                                                   \
    {                                                                                             \
        const th_##S##_tensor *list[MAX_TENSORS];                                                 \
        for (int k = 0; k < c->nt; k++) list[k] = A(S, k);                                        \
        NEW(th_##S##_##op(c->nt, list, DIM(0)));                                                  \
    }                                                                                             \
    WRAP(S, op##_out)                                                                             \
    {                                                                                             \
        const th_##S##_tensor *list[MAX_TENSORS];                                                 \
        for (int k = 1; k < c->nt; k++) list[k - 1] = A(S, k);                                    \
        RC(th_##S##_##op##_out(A(S, 0), c->nt - 1, list, DIM(0)));                                \
    }
#define REG_JOIN(S, op) ROW(S, op) ROW(S, op##_out)
/* split and chunk: views, kept (retained) as results */
#define DEF_PIECES(S, op)                                                                         \
    WRAP(S, op)                                                                                   \
    {                                                                                             \
        int64_t count = 0;                                                                        \
        th_##S##_tensor **views = th_##S##_##op(A(S, 0), c->i[0], DIM(1), &count);                \
        if (!views) {                                                                             \
            NEW((th_##S##_tensor *)NULL);                                                         \
            return;                                                                               \
        }                                                                                         \
        for (int64_t k = 0; k < count; k++) {                                                     \
            if (c->nres == MAX_RESULTS) {                                                         \
                c->too_many = true;                                                               \
                break;                                                                            \
            }                                                                                     \
            NEW(th_##S##_retain(views[k]));                                                       \
        }                                                                                         \
        th_##S##_release_all(views, count);                                                       \
    }
#define REG_PIECES(S, op) ROW(S, op)
#define DEF_LISTOP(S, op)                                                                         \
    WRAP(S, op) { NEW(th_##S##_##op(A(S, 0), c->nlist, c->list)); }                              \
    WRAP(S, op##_out) { RC(th_##S##_##op##_out(A(S, 0), A(S, 1), c->nlist, c->list)); }
#define REG_LISTOP(S, op) ROW(S, op) ROW(S, op##_out)
/* flip takes int dims where repeat takes int64 repeats */
#define DEF_FLIP(S, op)                                                                           \
    WRAP(S, op)                                                                                   \
    {                                                                                             \
        int dims[MAX_LIST];                                                                       \
        for (int k = 0; k < c->nlist; k++) dims[k] = (int)c->list[k];                             \
        NEW(th_##S##_##op(A(S, 0), c->nlist, dims));                                              \
    }                                                                                             \
    WRAP(S, op##_out)                                                                             \
    {                                                                                             \
        int dims[MAX_LIST];                                                                       \
        for (int k = 0; k < c->nlist; k++) dims[k] = (int)c->list[k];                             \
        RC(th_##S##_##op##_out(A(S, 0), A(S, 1), c->nlist, dims));                                \
    }
#define REG_FLIP(S, op) REG_LISTOP(S, op)
#define DEF_ROLL(S, op)                                                                           \
    WRAP(S, op) { NEW(th_##S##_##op(A(S, 0), c->i[0], DIM(1))); }                                \
    WRAP(S, op##_out) { RC(th_##S##_##op##_out(A(S, 0), A(S, 1), c->i[0], DIM(1))); }
#define REG_ROLL(S, op) ROW(S, op) ROW(S, op##_out)

/* ---- indexing ---- */

/* (t, dim, index) with an _out form: index_select, gather */
#define DEF_DIMIDX(S, op)                                                                         \
    WRAP(S, op) { NEW(th_##S##_##op(A(S, 0), DIM(0), A(i64, 1))); }                              \
    WRAP(S, op##_out) { RC(th_##S##_##op##_out(A(S, 0), A(S, 1), DIM(0), A(i64, 2))); }
#define REG_DIMIDX(S, op) ROW(S, op) ROW(S, op##_out)
#define DEF_SCATTER(S, op)                                                                        \
    WRAP(S, op) { NEW(th_##S##_##op(A(S, 0), DIM(0), A(i64, 1), A(S, 2))); }                     \
    WRAP(S, op##_inplace) { RC(th_##S##_##op##_inplace(A(S, 0), DIM(0), A(i64, 1), A(S, 2))); }
#define REG_SCATTER(S, op) ROW(S, op) ROW(S, op##_inplace)
#define DEF_MASKED_FILL(S, op)                                                                    \
    WRAP(S, op) { NEW(th_##S##_##op(A(S, 0), A(bool, 1), SC(S, 0))); }                           \
    WRAP(S, op##_out) { RC(th_##S##_##op##_out(A(S, 0), A(S, 1), A(bool, 2), SC(S, 0))); }       \
    WRAP(S, op##_inplace) { RC(th_##S##_##op##_inplace(A(S, 0), A(bool, 1), SC(S, 0))); }
#define REG_MASKED_FILL(S, op) REG_BX(S, op)
#define DEF_MASKED_SELECT(S, op) WRAP(S, op) { NEW(th_##S##_##op(A(S, 0), A(bool, 1))); }
#define REG_MASKED_SELECT(S, op) ROW(S, op)
#define DEF_TAKE(S, op)                                                                           \
    WRAP(S, op) { NEW(th_##S##_##op(A(S, 0), A(i64, 1))); }                                      \
    WRAP(S, op##_out) { RC(th_##S##_##op##_out(A(S, 0), A(S, 1), A(i64, 2))); }
#define REG_TAKE(S, op) ROW(S, op) ROW(S, op##_out)
#define DEF_PUT(S, op)                                                                            \
    WRAP(S, op) { NEW(th_##S##_##op(A(S, 0), A(i64, 1), A(S, 2), FLAG(0))); }                    \
    WRAP(S, op##_inplace) { RC(th_##S##_##op##_inplace(A(S, 0), A(i64, 1), A(S, 2), FLAG(0))); }
#define REG_PUT(S, op) ROW(S, op) ROW(S, op##_inplace)

/* ---- creation ---- */

#define DEF_ARANGE_F(S, op) WRAP(S, op) { NEW(th_##S##_##op(c->s[0].re, c->s[1].re, c->s[2].re)); }
#define DEF_ARANGE_I(S, op) WRAP(S, op) { NEW(th_##S##_##op(c->i[0], c->i[1], c->i[2])); }
#define DEF_LINSPACE(S, op) WRAP(S, op) { NEW(th_##S##_##op(c->s[0].re, c->s[1].re, c->i[0])); }
#define DEF_LOGSPACE(S, op) WRAP(S, op) { NEW(th_##S##_##op(c->s[0].re, c->s[1].re, c->i[0], c->s[2].re)); }
#define DEF_EYE(S, op) WRAP(S, op) { NEW(th_##S##_##op(c->i[0], c->i[1])); }
#define DEF_DIAG(S, op) WRAP(S, op) { NEW(th_##S##_##op(A(S, 0), c->i[0])); }
#define REG_ARANGE_F(S, op) ROW(S, op)
#define REG_ARANGE_I(S, op) ROW(S, op)
#define REG_LINSPACE(S, op) ROW(S, op)
#define REG_LOGSPACE(S, op) ROW(S, op)
#define REG_EYE(S, op) ROW(S, op)
#define REG_DIAG(S, op) ROW(S, op)
#define DEF_TRI(S, op)                                                                            \
    WRAP(S, op) { NEW(th_##S##_##op(A(S, 0), c->i[0])); }                                        \
    WRAP(S, op##_out) { RC(th_##S##_##op##_out(A(S, 0), A(S, 1), c->i[0])); }                    \
    WRAP(S, op##_inplace) { RC(th_##S##_##op##_inplace(A(S, 0), c->i[0])); }
#define REG_TRI(S, op) REG_BX(S, op)

/* ---- views (docs/core.md): no copies, so every result shares its storage ---- */

/* view, reshape and expand take the list as sizes */
#define DEF_SIZES(S, op) WRAP(S, op) { NEW(th_##S##_##op(A(S, 0), c->nlist, c->list)); }
#define REG_SIZES(S, op) ROW(S, op)
#define DEF_PERMUTE(S, op)                                                                        \
    WRAP(S, op)                                                                                   \
    {                                                                                             \
        int dims[MAX_LIST];                                                                       \
        for (int k = 0; k < c->nlist; k++) dims[k] = (int)c->list[k];                             \
        NEW(th_##S##_##op(A(S, 0), dims));                                                        \
    }
#define REG_PERMUTE(S, op) ROW(S, op)
/* transpose(t, dim0, dim1), flatten(t, start_dim, end_dim), squeeze_dim and unsqueeze(t, dim) */
#define DEF_DIMS2(S, op) WRAP(S, op) { NEW(th_##S##_##op(A(S, 0), DIM(0), DIM(1))); }
#define REG_DIMS2(S, op) ROW(S, op)
#define DEF_DIMS1(S, op) WRAP(S, op) { NEW(th_##S##_##op(A(S, 0), DIM(0))); }
#define REG_DIMS1(S, op) ROW(S, op)
/* narrow(t, dim, start, length), unfold(t, dim, size, step), select(t, dim, index) */
#define DEF_DIM_I2(S, op) WRAP(S, op) { NEW(th_##S##_##op(A(S, 0), DIM(0), c->i[1], c->i[2])); }
#define REG_DIM_I2(S, op) ROW(S, op)
#define DEF_DIM_I1(S, op) WRAP(S, op) { NEW(th_##S##_##op(A(S, 0), DIM(0), c->i[1])); }
#define REG_DIM_I1(S, op) ROW(S, op)

/* ---- copies and conversions (docs/core.md) ---- */

#define DEF_COPY(S, op) WRAP(S, op) { RC(th_##S##_##op(A(S, 0), A(S, 1))); }
#define REG_COPY(S, op) ROW(S, op)
/* convert takes a source of any dtype */
#define DEF_CONVERT(S, op) WRAP(S, op) { NEW(th_##S##_##op(c->t[0])); }
#define REG_CONVERT(S, op) ROW(S, op)

static void w_tensor_copy(call *c) { RC(th_tensor_copy(c->t[0], c->t[1])); }

/* ---- sorting: index outputs are asked for when their flag is set ---- */

#define DEF_SORT(S, op)                                                                           \
    WRAP(S, op)                                                                                   \
    {                                                                                             \
        th_i64_tensor *ind = NULL;                                                                \
        NEW(th_##S##_##op(A(S, 0), DIM(0), FLAG(1), FLAG(2) ? &ind : NULL));                      \
        NEW(ind);                                                                                 \
    }                                                                                             \
    WRAP(S, op##_out) { RC(th_##S##_##op##_out(A(S, 0), A(i64, 1), A(S, 2), DIM(0), FLAG(1))); }
#define REG_SORT(S, op) ROW(S, op) ROW(S, op##_out)
#define DEF_TOPK(S, op)                                                                           \
    WRAP(S, op)                                                                                   \
    {                                                                                             \
        th_i64_tensor *ind = NULL;                                                                \
        NEW(th_##S##_##op(A(S, 0), c->i[0], DIM(1), FLAG(2), FLAG(3), FLAG(4) ? &ind : NULL));    \
        NEW(ind);                                                                                 \
    }                                                                                             \
    WRAP(S, op##_out)                                                                             \
    {                                                                                             \
        RC(th_##S##_##op##_out(A(S, 0), A(i64, 1), A(S, 2), c->i[0], DIM(1), FLAG(2), FLAG(3)));   \
    }
#define REG_TOPK(S, op) ROW(S, op) ROW(S, op##_out)
#define DEF_UNIQUE(S, op)                                                                         \
    WRAP(S, op)                                                                                   \
    {                                                                                             \
        th_i64_tensor *inverse = NULL, *counts = NULL;                                            \
        NEW(th_##S##_##op(A(S, 0), FLAG(0), FLAG(1) ? &inverse : NULL, FLAG(2) ? &counts : NULL)); \
        NEW(inverse);                                                                             \
        NEW(counts);                                                                              \
    }
#define REG_UNIQUE(S, op) ROW(S, op)

/* ---- linear algebra ---- */

#define DEF_PRODUCT(S, op)                                                                        \
    WRAP(S, op) { NEW(th_##S##_##op(A(S, 0), A(S, 1))); }                                        \
    WRAP(S, op##_out) { RC(th_##S##_##op##_out(A(S, 0), A(S, 1), A(S, 2))); }
#define REG_PRODUCT(S, op) ROW(S, op) ROW(S, op##_out)
/* addmm and its kin: (C, A, B, beta, alpha) */
#define DEF_ADDPRODUCT(S, op)                                                                     \
    WRAP(S, op) { NEW(th_##S##_##op(A(S, 0), A(S, 1), A(S, 2), SC(S, 0), SC(S, 1))); }           \
    WRAP(S, op##_out) { RC(th_##S##_##op##_out(A(S, 0), A(S, 1), A(S, 2), A(S, 3), SC(S, 0), SC(S, 1))); } \
    WRAP(S, op##_inplace) { RC(th_##S##_##op##_inplace(A(S, 0), A(S, 1), A(S, 2), SC(S, 0), SC(S, 1))); }
#define REG_ADDPRODUCT(S, op) REG_BX(S, op)

/* ---- the dtype classes, as docs/math.md's tables and docs/names.txt group them ---- */

#define D_BOOL(X, ...) X(bool, __VA_ARGS__)
#define D_INT(X, ...) X(u8, __VA_ARGS__) X(i8, __VA_ARGS__) X(i16, __VA_ARGS__) X(i32, __VA_ARGS__) X(i64, __VA_ARGS__)
#define D_FLT(X, ...) X(f16, __VA_ARGS__) X(bf16, __VA_ARGS__) X(f32, __VA_ARGS__) X(f64, __VA_ARGS__)
#define D_CPX(X, ...) X(c64, __VA_ARGS__) X(c128, __VA_ARGS__)
#define D_ALL(X, ...) D_BOOL(X, __VA_ARGS__) D_INT(X, __VA_ARGS__) D_FLT(X, __VA_ARGS__) D_CPX(X, __VA_ARGS__)
#define D_NUM(X, ...) D_INT(X, __VA_ARGS__) D_FLT(X, __VA_ARGS__) D_CPX(X, __VA_ARGS__)
#define D_REAL(X, ...) D_BOOL(X, __VA_ARGS__) D_INT(X, __VA_ARGS__) D_FLT(X, __VA_ARGS__)
#define D_INTFLT(X, ...) D_INT(X, __VA_ARGS__) D_FLT(X, __VA_ARGS__)
#define D_INTB(X, ...) D_BOOL(X, __VA_ARGS__) D_INT(X, __VA_ARGS__)
#define D_FLTC(X, ...) D_FLT(X, __VA_ARGS__) D_CPX(X, __VA_ARGS__)

/* OPS(F) lists every (kind, dtype class, op) the driver calls; F(K, D, ...) is expanded once to define the
 * wrappers and once to list them. */
#define OPS(F)                                                                                    \
    F(BINARY, D_NUM, add) F(BINARY, D_NUM, sub) F(BINARY, D_NUM, mul) F(BINARY, D_NUM, div)      \
    F(BINARY, D_INTFLT, floor_divide) F(BINARY, D_INTFLT, remainder) F(BINARY, D_INTFLT, fmod)   \
    F(BINARY, D_REAL, maximum) F(BINARY, D_REAL, minimum) F(BINARY, D_NUM, pow)                  \
    F(BINARY, D_FLT, atan2) F(BINARY, D_FLT, hypot)                                               \
    F(BINARY, D_INTB, bitwise_and) F(BINARY, D_INTB, bitwise_or) F(BINARY, D_INTB, bitwise_xor)  \
    F(BINARY, D_INT, shift_left) F(BINARY, D_INT, shift_right)                                    \
    F(CMP, D_ALL, eq) F(CMP, D_ALL, ne) F(CMP, D_REAL, lt) F(CMP, D_REAL, le) F(CMP, D_REAL, gt)  \
    F(CMP, D_REAL, ge) F(CMP, D_ALL, logical_and) F(CMP, D_ALL, logical_or)                       \
    F(CMP, D_ALL, logical_xor)                                                                    \
    F(UPRED, D_ALL, logical_not) F(UPRED, D_NUM, isnan) F(UPRED, D_NUM, isinf)                    \
    F(UPRED, D_NUM, isfinite)                                                                     \
    F(UNARY, D_NUM, neg) F(UNARY, D_NUM, square) F(UNARY, D_INTFLT, sign) F(UNARY, D_INTFLT, relu) \
    F(UNARY, D_INTFLT, floor) F(UNARY, D_INTFLT, ceil) F(UNARY, D_INTFLT, round)                  \
    F(UNARY, D_INTFLT, trunc) F(UNARY, D_INTB, bitwise_not) F(UNARY, D_FLT, frac)                 \
    F(UNARY, D_FLTC, sqrt) F(UNARY, D_FLTC, exp) F(UNARY, D_FLTC, log) F(UNARY, D_FLTC, sin)      \
    F(UNARY, D_FLTC, tanh) F(UNARY, D_FLTC, sigmoid) F(UNARY, D_FLTC, reciprocal)                 \
    F(UNARY, D_FLTC, rsqrt) F(UNARY, D_FLT, expm1) F(UNARY, D_FLT, log1p) F(UNARY, D_FLT, erf)    \
    F(UNARY, D_FLTC, cos) F(UNARY, D_FLTC, tan) F(UNARY, D_FLTC, asin) F(UNARY, D_FLTC, acos)     \
    F(UNARY, D_FLTC, atan) F(UNARY, D_FLTC, sinh) F(UNARY, D_FLTC, cosh) F(UNARY, D_FLT, exp2)    \
    F(UNARY, D_FLT, log2) F(UNARY, D_FLT, log10) F(UNARY, D_FLT, gelu)                            \
    F(U_NEW, D_NUM, abs) F(U_IP, D_INTFLT, abs) F(U_OUT, D_INTFLT, abs, SAME)                        \
    F(U_OUT, D_CPX, abs, REALOF) F(UNARY, D_CPX, conj) F(U_NEW, D_CPX, angle)                     \
    F(U_OUT, D_CPX, angle, REALOF) F(POLAR, D_CPX, polar)                                         \
    F(WHERE, D_ALL, where) F(CLAMP, D_INTFLT, clamp) F(BX, D_NUM, add_alpha) F(BX, D_FLT, lerp)   \
    F(TX, D_NUM, addcmul) F(TX, D_FLTC, addcdiv)                                                  \
    F(RED, D_NUM, sum, SAME) F(RED, D_NUM, prod, SAME) F(RED, D_FLTC, mean, SAME) F(RED_C, D_FLT, var)     \
    F(RED_C, D_FLT, std) F(RED, D_FLT, logsumexp, SAME) F(RED_P, D_FLT, norm, SAME)                     \
    F(RED_P, D_CPX, norm, REALOF) F(MAXMIN, D_REAL, max) F(MAXMIN, D_REAL, min)                   \
    F(RED, D_REAL, argmax, i64) F(RED, D_REAL, argmin, i64) F(RED, D_ALL, all, bool)              \
    F(RED, D_ALL, any, bool) F(SCAN, D_NUM, cumsum) F(SCAN, D_NUM, cumprod)                       \
    F(JOIN, D_ALL, cat) F(JOIN, D_ALL, stack) F(PIECES, D_ALL, split) F(PIECES, D_ALL, chunk)     \
    F(FLIP, D_ALL, flip) F(ROLL, D_ALL, roll) F(LISTOP, D_ALL, repeat)                            \
    F(DIMIDX, D_ALL, index_select) F(DIMIDX, D_ALL, gather) F(SCATTER, D_ALL, scatter)            \
    F(SCATTER, D_ALL, scatter_add) F(MASKED_FILL, D_ALL, masked_fill)                             \
    F(MASKED_SELECT, D_ALL, masked_select) F(U_NEW, D_ALL, nonzero) F(TAKE, D_ALL, take)          \
    F(PUT, D_ALL, put)                                                                            \
    F(ARANGE_F, D_FLT, arange) F(ARANGE_I, D_INT, arange) F(LINSPACE, D_FLT, linspace) \
    F(EYE, D_ALL, eye) F(DIAG, D_ALL, diag) F(TRI, D_ALL, tril) F(TRI, D_ALL, triu)       \
    F(LOGSPACE, D_FLT, logspace) F(U_NEW, D_ALL, clone) F(U_NEW, D_ALL, contiguous)           \
    F(COPY, D_ALL, copy) F(CONVERT, D_ALL, convert)                                               \
    F(SIZES, D_ALL, view) F(SIZES, D_ALL, reshape) F(SIZES, D_ALL, expand) F(PERMUTE, D_ALL, permute) \
    F(DIMS2, D_ALL, transpose) F(DIMS2, D_ALL, flatten) F(DIMS1, D_ALL, squeeze_dim)              \
    F(DIMS1, D_ALL, unsqueeze) F(U_NEW, D_ALL, squeeze) F(DIM_I2, D_ALL, narrow)                  \
    F(DIM_I2, D_ALL, unfold) F(DIM_I1, D_ALL, select)                                             \
    F(SORT, D_REAL, sort) F(TOPK, D_REAL, topk) F(UNIQUE, D_REAL, unique)                         \
    F(PRODUCT, D_NUM, dot) F(PRODUCT, D_NUM, mv) F(PRODUCT, D_NUM, mm) F(PRODUCT, D_NUM, bmm)     \
    F(PRODUCT, D_NUM, matmul) F(PRODUCT, D_NUM, outer) F(ADDPRODUCT, D_NUM, addmm)                \
    F(ADDPRODUCT, D_NUM, addmv) F(ADDPRODUCT, D_NUM, baddbmm) F(ADDPRODUCT, D_NUM, addr)

/* The dtype of a result: SAME (the input's), bool, i64, or REALOF (the real dtype of a complex one's
 * precision: abs and norm of c64 give f32). */
#define OUT_SAME(S) S
#define OUT_bool(S) bool
#define OUT_i64(S) i64
#define OUT_REALOF(S) REALOF_##S
#define REALOF_c64 f32
#define REALOF_c128 f64
#define RESOLVE(OUT, S) RESOLVE_(OUT_##OUT(S))
#define RESOLVE_(x) x

#define KIND_DEF(K, D, ...) D(DEF_##K, __VA_ARGS__)
#define KIND_REG(K, D, ...) D(REG_##K, __VA_ARGS__)

OPS(KIND_DEF)

typedef struct {
    const char *name;
    void (*fn)(call *c);
} entry;

static entry table[] = {OPS(KIND_REG){"th_tensor_copy", w_tensor_copy}};
enum { TABLE_SIZE = sizeof table / sizeof table[0] };

static int entry_cmp(const void *a, const void *b)
{
    return strcmp(((const entry *)a)->name, ((const entry *)b)->name);
}

static const entry *find_entry(const char *name)
{
    entry key = {name, NULL};
    return bsearch(&key, table, TABLE_SIZE, sizeof table[0], entry_cmp);
}

/* ---- per-dtype plumbing: tensors over a storage, and conversions to and from the wide dtypes ---- */

typedef th_tensor *(*make_fn)(th_storage *s, int64_t offset, int ndim, const int64_t *sizes,
                              const int64_t *strides);
typedef th_tensor *(*convert_fn)(const th_tensor *src);

#define X(sfx, ENUM, elem, acc, kind, code, bits)                                                     \
    static th_tensor *make_##sfx(th_storage *s, int64_t offset, int ndim, const int64_t *sizes,       \
                                 const int64_t *strides)                                              \
    {                                                                                                 \
        return th_##sfx##_base(th_##sfx##_new_with_storage(s, offset, ndim, sizes, strides));         \
    }                                                                                                 \
    static th_tensor *convert_##sfx(const th_tensor *src) { return th_##sfx##_base(th_##sfx##_convert(src)); }
TH_FOREACH_DTYPE(X)
#undef X

static const make_fn make_of[TH_NUM_DTYPES] = {
#define X(sfx, ENUM, elem, acc, kind, code, bits) [TH_##ENUM] = make_##sfx,
    TH_FOREACH_DTYPE(X)
#undef X
};
static const convert_fn convert_of[TH_NUM_DTYPES] = {
#define X(sfx, ENUM, elem, acc, kind, code, bits) [TH_##ENUM] = convert_##sfx,
    TH_FOREACH_DTYPE(X)
#undef X
};

static th_dtype dtype_of_name(const char *name)
{
    for (int d = 0; d < TH_NUM_DTYPES; d++)
        if (strcmp(th_dtype_name((th_dtype)d), name) == 0) return (th_dtype)d;
    return TH_DTYPE_INVALID;
}

/* Values travel as int64 (bool, integers), double (floating: every f16, bf16 and f32 value is a double) or
 * complex double: each dtype converts to its wide one exactly. */
static th_dtype wide_of(th_dtype d)
{
    switch (th_dtype_info(d)->kind) {
    case TH_KIND_FLOAT: return TH_F64;
    case TH_KIND_COMPLEX: return TH_C128;
    default: return TH_I64;
    }
}

/* ---- reading the case file ---- */

typedef struct {
    char *line;
    size_t cap;
    char *tok; /* strtok_r state over line */
    FILE *f;
    int lineno;
    const char *path;
} reader;

static _Bool parse_failed;

static void parse_error(reader *r, const char *what)
{
    fprintf(stderr, "numpy_diff: %s:%d: %s\n", r->path, r->lineno, what);
    parse_failed = true;
}

static _Bool next_line(reader *r)
{
    if (getline(&r->line, &r->cap, r->f) < 0) return false;
    r->lineno++;
    r->tok = NULL;
    return true;
}

static const char *word(reader *r)
{
    const char *w = strtok_r(r->tok ? NULL : r->line, " \n", &r->tok);
    if (!w) {
        parse_error(r, "line ends early");
        return "";
    }
    return w;
}

static int64_t int_word(reader *r)
{
    const char *w = word(r);
    char *end;
    errno = 0;
    long long v = strtoll(w, &end, 10);
    if (*end || errno) parse_error(r, "not an integer");
    return (int64_t)v;
}

static double real_word(reader *r)
{
    const char *w = word(r);
    char *end;
    double v = strtod(w, &end); /* reads Python's float.hex(), "inf" and "nan" */
    if (*end) parse_error(r, "not a number");
    return v;
}

/* n values of dtype d into a new contiguous tensor of d, through its wide dtype */
static th_tensor *read_values(reader *r, th_dtype d, int64_t n)
{
    th_dtype w = wide_of(d);
    int64_t sizes[1] = {n};
    th_tensor *wide = w == TH_F64 ? th_f64_base(th_f64_empty(1, sizes))
                      : w == TH_C128 ? th_c128_base(th_c128_empty(1, sizes))
                                     : th_i64_base(th_i64_empty(1, sizes));
    if (!wide) return NULL;
    void *data = th_tensor_data(wide);
    for (int64_t k = 0; k < n; k++) {
        if (w == TH_F64) {
            ((double *)data)[k] = real_word(r);
        } else if (w == TH_C128) {
            ((double *)data)[2 * k] = real_word(r); /* as an array of two doubles, see sc_c128 */
            ((double *)data)[2 * k + 1] = real_word(r);
        } else {
            ((int64_t *)data)[k] = int_word(r);
        }
    }
    th_tensor *t = convert_of[d](wide);
    th_tensor_release(wide);
    return t;
}

/* ---- writing the results ---- */

static void write_values(FILE *out, const th_tensor *t)
{
    th_dtype w = wide_of(th_tensor_dtype(t));
    int nd = th_tensor_ndim(t);
    const int64_t *sizes = th_tensor_sizes(t);
    th_tensor *wide = w == TH_F64 ? th_f64_base(th_f64_empty(nd, sizes))
                      : w == TH_C128 ? th_c128_base(th_c128_empty(nd, sizes))
                                     : th_i64_base(th_i64_empty(nd, sizes));
    if (!wide || th_tensor_copy(wide, t) != TH_OK) {
        fprintf(out, " ?copy-failed");
        th_tensor_release(wide);
        return;
    }
    const void *data = th_tensor_data(wide);
    int64_t n = th_tensor_numel(wide);
    for (int64_t k = 0; k < n; k++) {
        if (w == TH_F64) {
            fprintf(out, " %a", ((const double *)data)[k]);
        } else if (w == TH_C128) {
            fprintf(out, " %a %a", ((const double *)data)[2 * k], ((const double *)data)[2 * k + 1]);
        } else {
            fprintf(out, " %" PRId64, ((const int64_t *)data)[k]);
        }
    }
    th_tensor_release(wide);
}

typedef struct {
    th_tensor *whole[MAX_STORAGES]; /* each storage as one contiguous 1-d tensor of its dtype */
    int n;
} storages;

static _Bool shares_storage(const storages *st, const th_tensor *t)
{
    for (int k = 0; k < st->n; k++)
        if (th_tensor_storage(st->whole[k]) == th_tensor_storage(t)) return true;
    return false;
}

/* Reads the arguments of one case up to "go", runs it, writes its results. Returns false at the end of the
 * file or on a malformed case. */
static _Bool run_case(reader *r, FILE *out)
{
    _Bool have;
    while ((have = next_line(r)) && r->line[0] == '\n') {}
    if (!have) return false;
    if (strncmp(r->line, "case ", 5) != 0) {
        parse_error(r, "expected a case");
        return false;
    }
    (void)word(r);
    int64_t id = int_word(r);
    char name[128];
    snprintf(name, sizeof name, "%s", word(r));
    const entry *e = find_entry(name);
    if (!e) parse_error(r, "no such function in the driver's table");

    call c;
    memset(&c, 0, sizeof c);
    storages st = {{NULL}, 0};
    _Bool ok = !parse_failed;
    while (ok && next_line(r)) {
        const char *w = word(r);
        if (strcmp(w, "go") == 0) break;
        if (strcmp(w, "s") == 0) {
            th_dtype d = dtype_of_name(word(r));
            int64_t n = int_word(r);
            if (d == TH_DTYPE_INVALID || st.n == MAX_STORAGES) parse_error(r, "bad storage");
            th_tensor *t = parse_failed ? NULL : read_values(r, d, n);
            if (!t && !parse_failed) parse_error(r, th_last_error());
            if (t) st.whole[st.n++] = t;
        } else if (strcmp(w, "t") == 0) {
            int64_t sid = int_word(r);
            th_dtype d = dtype_of_name(word(r));
            int64_t offset = int_word(r);
            int64_t nd = int_word(r);
            int64_t sizes[TH_MAX_DIMS], strides[TH_MAX_DIMS];
            if (sid < 0 || sid >= st.n || d == TH_DTYPE_INVALID || nd < 0 || nd > TH_MAX_DIMS ||
                c.nt == MAX_TENSORS) {
                parse_error(r, "bad tensor");
                break;
            }
            for (int64_t k = 0; k < nd; k++) sizes[k] = int_word(r);
            for (int64_t k = 0; k < nd; k++) strides[k] = int_word(r);
            th_tensor *t = make_of[d](th_tensor_storage(st.whole[sid]), offset, (int)nd, sizes, strides);
            if (!t) parse_error(r, th_last_error());
            c.t[c.nt++] = t;
        } else if (strcmp(w, "n") == 0 && c.nt < MAX_TENSORS) {
            c.t[c.nt++] = NULL;
        } else if (strcmp(w, "x") == 0 && c.ns < MAX_SCALARS) {
            scalar *s = &c.s[c.ns++];
            s->re = real_word(r);
            s->im = real_word(r);
            s->i = int_word(r);
        } else if (strcmp(w, "i") == 0 && c.ni < MAX_INTS) {
            c.i[c.ni++] = int_word(r);
        } else if (strcmp(w, "l") == 0) {
            int64_t n = int_word(r);
            if (n < 0 || n > MAX_LIST) parse_error(r, "bad list");
            for (int64_t k = 0; k < n && !parse_failed; k++) c.list[c.nlist++] = int_word(r);
        } else {
            parse_error(r, "unknown argument");
        }
        ok = !parse_failed;
    }
    if (ok) {
        th_clear_error();
        e->fn(&c);
        /* the status of a new form is NULL or not; the message is read before anything else can reset it */
        th_status status = c.returns_status ? (th_status)c.rc : c.res[0] ? TH_OK : th_last_status();
        if (c.returns_status && c.rc != TH_OK && th_last_status() != (th_status)c.rc) status = -1000;
        fprintf(out, "case %" PRId64 " %d %s\n", id, (int)status,
                status == -1000 ? "returned-status-differs-from-th_last_status" : th_status_name(status));
        if (status != TH_OK) fprintf(out, "m %s\n", th_last_error());
        if (c.too_many) fprintf(out, "m too many results\n");
        for (int k = 0; k < c.nres; k++) {
            const th_tensor *t = c.res[k];
            if (!t) {
                fprintf(out, "r null\n");
                continue;
            }
            fprintf(out, "r %s %d", th_dtype_name(th_tensor_dtype(t)), th_tensor_ndim(t));
            for (int d = 0; d < th_tensor_ndim(t); d++) fprintf(out, " %" PRId64, th_tensor_sizes(t)[d]);
            fprintf(out, " %d %d", (int)th_tensor_is_contiguous(t), (int)!shares_storage(&st, t));
            write_values(out, t);
            fputc('\n', out);
        }
        for (int k = 0; k < st.n; k++) {
            fputs("s", out);
            write_values(out, st.whole[k]);
            fputc('\n', out);
        }
        fputs("end\n", out);
    }
    for (int k = 0; k < c.nres; k++) th_tensor_release(c.res[k]);
    for (int k = 0; k < c.nt; k++) th_tensor_release(c.t[k]);
    for (int k = 0; k < st.n; k++) th_tensor_release(st.whole[k]);
    return ok;
}

static _Bool run_file(const char *cases_path, const char *results_path)
{
    reader r = {NULL, 0, NULL, fopen(cases_path, "r"), 0, cases_path};
    if (!r.f) {
        fprintf(stderr, "numpy_diff: cannot read %s: %s\n", cases_path, strerror(errno));
        return false;
    }
    FILE *out = fopen(results_path, "w");
    if (!out) {
        fprintf(stderr, "numpy_diff: cannot write %s: %s\n", results_path, strerror(errno));
        fclose(r.f);
        return false;
    }
    qsort(table, TABLE_SIZE, sizeof table[0], entry_cmp);
    int n = 0;
    while (run_case(&r, out)) n++;
    free(r.line);
    fclose(r.f);
    _Bool ok = fclose(out) == 0 && !parse_failed;
    printf("numpy_diff: ran %d cases\n", n);
    return ok;
}

/* PYTHON SCRIPT VERB DIR [SEED], waited for: its exit status, or 1 if it could not run or died of a signal. */
static int run_python(const char *python, const char *script, const char *verb, const char *dir, const char *seed)
{
    char *argv[] = {(char *)python, (char *)script, (char *)verb, (char *)dir, (char *)seed, NULL};
    pid_t pid;
    fflush(stdout);
    int rc = posix_spawn(&pid, python, NULL, NULL, argv, environ);
    if (rc != 0) {
        fprintf(stderr, "numpy_diff: cannot run %s: %s\n", python, strerror(rc));
        return 1;
    }
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            fprintf(stderr, "numpy_diff: waitpid: %s\n", strerror(errno));
            return 1;
        }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    fprintf(stderr, "numpy_diff: %s %s ended abnormally (status %d)\n", script, verb, status);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        qsort(table, TABLE_SIZE, sizeof table[0], entry_cmp);
        for (size_t k = 0; k < TABLE_SIZE; k++) printf("%s\n", table[k].name);
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "--run") == 0) {
        test_begin();
        CHECK(run_file(argv[2], argv[3]));
        return test_end("numpy_diff");
    }
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: %s DIR PYTHON SCRIPT [SEED] | --run CASES RESULTS | --list\n", argv[0]);
        return 2;
    }
    const char *dir = argv[1], *python = argv[2], *script = argv[3], *seed = argc == 5 ? argv[4] : NULL;
    /* Meson passes an empty PYTHON when /usr/bin/python3 is missing: a skip, never a silent pass. */
    if (python[0] == '\0') {
        printf("SKIP: no /usr/bin/python3 to compare with NumPy\n");
        return 77;
    }
    /* The driver's table tells gen what to draw cases for: one list, here. */
    char path[4096];
    snprintf(path, sizeof path, "%s/functions.txt", dir);
    FILE *list = NULL;
    if ((mkdir(dir, 0777) != 0 && errno != EEXIST) || !(list = fopen(path, "w"))) {
        fprintf(stderr, "numpy_diff: cannot write %s: %s\n", path, strerror(errno));
        return 1;
    }
    qsort(table, TABLE_SIZE, sizeof table[0], entry_cmp);
    for (size_t k = 0; k < TABLE_SIZE; k++) fprintf(list, "%s\n", table[k].name);
    if (fclose(list) != 0) return 1;
    int rc = run_python(python, script, "gen", dir, seed);
    if (rc != 0) return rc;
    char cases[4096], results[4096];
    snprintf(cases, sizeof cases, "%s/cases.txt", dir);
    snprintf(results, sizeof results, "%s/results.txt", dir);
    test_begin();
    CHECK(run_file(cases, results));
    if (test_end("numpy_diff") != 0) return 1;
    return run_python(python, script, "check", dir, NULL);
}
