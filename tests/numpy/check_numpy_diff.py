"""The randomised differential test of tensor.h against NumPy (issue 11): every function numpy_diff can call,
on every dtype it exists for, with operands that are permuted, stepped, negative- and zero-strided views,
outs that overlap their inputs, and arguments the docs say must be refused.

    check_numpy_diff.py gen DIR [SEED]   draw the cases (DIR/cases.txt for numpy_diff) and their expected
                                         results (DIR/expected.pickle), from DIR/functions.txt
    check_numpy_diff.py check DIR        compare DIR/results.txt with the expectations; exit 1 on a mismatch
    check_numpy_diff.py show DIR ID...   print cases in full: arguments as NumPy sees them, expected, got

numpy_diff (the test command) runs gen, then the cases, then check. The seed is fixed (DEFAULT_SEED), so a
failure recurs on every run; NUMPY_DIFF_SEED=n and NUMPY_DIFF_EXTRA=n (cases beyond one per function) in the
environment draw others, for a longer sweep by hand. Each case draws from its own generator, seeded by the
run's seed and its id, so changing one family's drawing leaves the others' cases as they were.

A case is one call. Each tensor argument is a view (offset, sizes, strides) of a storage filled with random
values of its dtype, so an op that reads outside its view, or writes outside its out, is caught: the driver
sends back every storage's whole contents after the call, and the reference is the storages as they were with
the result written through the out's view (nothing written at all on an error).

The reference is NumPy, except where the docs choose differently; each such place cites the doc line. Exact
ops (integers, bool, moves, comparisons, the IEEE operations) must match bit for bit, the sign of zero
included; the others within a tolerance named where they are computed (accuracy proper is tests/numpy's
numpy_ulp test: here a tolerance only has to be tight enough to see a wrong element).
"""
import math
import os
import pickle
import sys

try:
    import numpy as np
except ImportError as e:
    print(f"SKIP: {sys.executable} cannot import numpy ({e}); tests/run.sh installs python3-numpy")
    sys.exit(77)

DEFAULT_SEED = 20240611
EXTRA_CASES = 1200  # drawn over all functions, after one case for each

DTYPES = "bool u8 i8 i16 i32 i64 f16 bf16 f32 f64 c64 c128".split()
INTS = ["u8", "i8", "i16", "i32", "i64"]
FLOATS = ["f16", "bf16", "f32", "f64"]
COMPLEX = ["c64", "c128"]
# bf16 values live in float32 arrays (NumPy has no bfloat16): every bf16 value is a float32 value.
NPT = {"bool": np.bool_, "u8": np.uint8, "i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64,
       "f16": np.float16, "bf16": np.float32, "f32": np.float32, "f64": np.float64, "c64": np.complex64,
       "c128": np.complex128}
MANT = {"f16": 10, "bf16": 7, "f32": 23, "f64": 52}
EMIN = {"f16": -14, "bf16": -126, "f32": -126, "f64": -1022}
FMAX = {"f16": 65504.0, "bf16": float.fromhex("0x1.fep127"), "f32": float(np.finfo(np.float32).max),
        "f64": float(np.finfo(np.float64).max)}
REAL_OF = {"c64": "f32", "c128": "f64"}


def kind(dt):
    return "b" if dt == "bool" else "u" if dt == "u8" else "i" if dt in INTS else "f" if dt in FLOATS else "c"


def irange(dt):
    if dt == "bool":
        return 0, 1
    bits = int(dt[1:])
    return (0, 2 ** bits - 1) if dt[0] == "u" else (-2 ** (bits - 1), 2 ** (bits - 1) - 1)


def part_dt(dt):
    """The real dtype a complex dtype's parts have (tolerances of complex results are per part)."""
    return REAL_OF.get(dt, dt)


class RefError(Exception):
    """The reference says the call must fail with this status."""

    def __init__(self, status, why):
        super().__init__(why)
        self.status = status
        self.why = why


# ---- values of each dtype ----

def bf16_round(x):
    """x rounded to bfloat16 (to nearest even), through float32 as the library's float computations are."""
    f = np.asarray(x, dtype=np.float32)
    bits = f.view(np.uint32).astype(np.uint64)
    sixteen = np.uint64(16)
    bits = ((bits + np.uint64(0x7FFF) + ((bits >> sixteen) & np.uint64(1))) >> sixteen) << sixteen
    r = bits.astype(np.uint32).view(np.float32)
    return np.where(np.isnan(f), np.float32("nan"), r).astype(np.float32)


def rnd(x, dt):
    """x (float32, float64 or complex) rounded once to dt, in dt's NumPy representation."""
    x = np.asarray(x)
    if dt == "bf16":
        return bf16_round(x)
    if dt in ("f16", "f32", "f64", "c64", "c128"):
        with np.errstate(over="ignore", invalid="ignore"):
            return x.astype(NPT[dt])
    raise ValueError(dt)


def fcomp(dt):
    """The NumPy type an op of dt computes in where it rounds once: docs/math.md, "float16 and bfloat16 are
    computed in float and rounded once per op"."""
    return {"f16": np.float32, "bf16": np.float32, "f32": np.float32, "f64": np.float64,
            "c64": np.complex64, "c128": np.complex128}[dt]


def ulp(dt, x):
    """The spacing of dt's values at |x| (0 where x is not finite)."""
    dt = part_dt(dt)
    x = np.abs(np.asarray(x, dtype=np.float64))
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.floor(np.log2(np.where(np.isfinite(x) & (x > 0), x, 1.0)))
    e = np.where(x > 0, np.maximum(e, EMIN[dt]), EMIN[dt])
    return np.where(np.isfinite(x), np.exp2(e - MANT[dt]), 0.0)


def eps(dt):
    return 2.0 ** -MANT[part_dt(dt)]


def acc_eps(dt):
    """The unit roundoff of dt's accumulation type (docs/reductions.md: double for f32 and f64, float for f16
    and bf16, complex double for both complex dtypes)."""
    return 2.0 ** -24 if dt in ("f16", "bf16") else 2.0 ** -53


def draw(rng, dt, n, finite=False, small=False, tame=False):
    """n random values of dt: mostly small integers and halves (exact in every dtype, so sums and products of
    a few stay exact), some of any size, and the special values: zeros of both signs, infinities and NaN
    (unless finite), the largest and the smallest values (unless tame)."""
    shape = n if isinstance(n, tuple) else (n,)
    k = kind(dt)
    u = rng.random(shape)
    if k == "b":
        return u < 0.5
    if k in "ui":
        lo, hi = irange(dt)
        near = rng.integers(max(lo, -9), min(hi, 9) + 1, shape)
        if small:
            return near.astype(NPT[dt])
        full = rng.integers(lo, hi, shape, endpoint=True, dtype=np.int64)
        special = np.array([v for v in (lo, hi, 0, 1, hi - 1, lo + 1, -1) if lo <= v <= hi], dtype=np.int64)
        spec = special[rng.integers(0, len(special), shape)]
        return np.where(u < 0.6, near, np.where(u < 0.85, full, spec)).astype(NPT[dt])
    if k == "c":
        re = draw(rng, part_dt(dt), shape, finite=True, small=small, tame=True).astype(np.float64)
        im = draw(rng, part_dt(dt), shape, finite=True, small=small, tame=True).astype(np.float64)
        return cplx(re, im).astype(NPT[dt])
    near = rng.integers(-16, 17, shape) / rng.choice([1.0, 2.0, 4.0], shape)
    if small:
        return rnd(near, dt)
    wide = rng.standard_normal(shape) * 10.0 ** rng.integers(-3, 4, shape)
    m = FMAX[dt]
    specials = np.array([0.0, -0.0, 1.0, -1.0, 0.5] +
                        ([] if tame else [m, -m, 2.0 ** EMIN[dt], -(2.0 ** (EMIN[dt] - MANT[dt]))]) +
                        ([] if finite else [np.inf, -np.inf, np.nan]))
    spec = specials[rng.integers(0, len(specials), shape)]
    v = np.where(u < 0.55, near, np.where(u < 0.88, wide, spec))
    return rnd(v, dt)


def cplx(re, im):
    """re + im i with the signs of zero kept (re + 1j * im turns a real -0.0 into 0.0)."""
    z = np.empty(np.broadcast(re, im).shape, dtype=np.complex128)
    z.real, z.imag = re, im
    return z


def nonzero_mask(a):
    """What the library counts as true: nonzero, NaN included; for complex, either part (docs/math.md:
    "logical ops count NaN as true"; docs/reductions.md for all/any)."""
    return np.asarray(a) != 0


# ---- layouts: every tensor argument is a view of a storage ----

def index_map(offset, sizes, strides):
    """The storage index of every element of the view, in the view's shape."""
    idx = np.full(tuple(sizes), offset, dtype=np.int64)
    for d, (s, st) in enumerate(zip(sizes, strides)):
        shape = [1] * len(sizes)
        shape[d] = s
        idx = idx + (np.arange(s, dtype=np.int64) * st).reshape(shape)
    return idx


LAYOUTS = ["contiguous", "contiguous", "permuted", "stepped", "negative", "expanded", "mixed", "mixed"]


def layout(rng, sizes, writable, style=None):
    """Strides and an offset for a view of these sizes: contiguous, permuted (dims laid out in another order),
    stepped (every 2nd or 3rd element, with gaps between rows), negative (dims running backwards from a later
    offset), expanded (stride 0: inputs only, since an out must not have two elements at one address), or a
    mix. Dims of size 1 get an arbitrary stride, which the library must ignore. Returns (offset, strides,
    extent), extent being the storage size the view needs."""
    nd = len(sizes)
    style = style or LAYOUTS[rng.integers(len(LAYOUTS))]
    order = list(range(nd))
    steps = [1] * nd
    flip = [False] * nd
    zero = [False] * nd
    if style in ("permuted", "mixed"):
        order = list(rng.permutation(nd)) if nd else []
    if style in ("stepped", "mixed"):
        steps = [int(rng.choice([1, 2, 3])) for _ in range(nd)]
    if style in ("negative", "mixed"):
        flip = [bool(rng.random() < 0.5) for _ in range(nd)]
        if style == "negative" and nd:
            flip[rng.integers(nd)] = True
    if style in ("expanded", "mixed") and not writable:
        zero = [bool(rng.random() < 0.4) for _ in range(nd)]
        if style == "expanded" and nd:
            zero[rng.integers(nd)] = True
    strides = [0] * nd
    step = 1
    for d in reversed(order):
        strides[d] = step * steps[d]
        step *= max(sizes[d], 1) * steps[d] + (1 if style in ("stepped", "mixed") and rng.random() < 0.3 else 0)
    for d in range(nd):
        if zero[d]:
            strides[d] = 0
        if sizes[d] == 1 and rng.random() < 0.3:
            strides[d] = int(rng.choice([0, 7, -5, 1000]))
        if flip[d]:
            strides[d] = -strides[d]
    numel = int(np.prod(sizes)) if nd else 1
    lo = sum((s - 1) * st for s, st in zip(sizes, strides) if st < 0) if numel else 0
    hi = sum((s - 1) * st for s, st in zip(sizes, strides) if st > 0) if numel else 0
    offset = -lo + int(rng.integers(0, 3))
    return offset, strides, offset + hi + 1


def overlaps_itself(sizes, strides):
    """Two elements at one address: what the docs call an expanded out (refused with TH_ERR_INVALID). The
    library refuses a stride 0 on a dim longer than 1 even where another dim is 0 and there are no elements:
    docs/math.md's "an expanded tensor is refused" read literally, and taken as the rule here."""
    if any(n > 1 and s == 0 for n, s in zip(sizes, strides)):
        return True
    if int(np.prod(sizes)) <= 1:
        return False
    idx = index_map(0, sizes, strides).ravel()
    return len(np.unique(idx)) != len(idx)


def views_overlap(a, b):
    if a.sid != b.sid:
        return False
    ia = index_map(a.offset, a.sizes, a.strides).ravel()
    ib = index_map(b.offset, b.sizes, b.strides).ravel()
    return bool(np.intersect1d(ia, ib).size)


class T:
    """A tensor argument: a view of storage sid."""

    def __init__(self, sid, dt, offset, sizes, strides):
        self.sid, self.dt, self.offset = sid, dt, offset
        self.sizes, self.strides = list(sizes), list(strides)

    @property
    def shape(self):
        return tuple(self.sizes)

    def same_view(self, other):
        return (self.sid, self.dt, self.offset, self.sizes, self.strides) == \
            (other.sid, other.dt, other.offset, other.sizes, other.strides)


class Case:
    """One call: its storages, its arguments in the C call's order, and what it must give."""

    def __init__(self, cid, fn, op, form, dt):
        self.id, self.fn, self.op, self.form, self.dt = cid, fn, op, form, dt
        self.storages = []  # [dtype, values]
        self.args = []  # ("t", T) | ("n",) | ("x", dt, value) | ("i", v) | ("l", [v...])
        self.expect = None
        self.note = ""  # what the case is about, for the report

    # -- building --

    def storage(self, dt, n, rng):
        """A new storage of n random values (zeros without an rng: the caller sets them)."""
        self.storages.append([dt, draw(rng, dt, max(n, 0)) if rng is not None else np.zeros(n, NPT[dt])])
        return len(self.storages) - 1

    def tensor(self, rng, sizes, dt=None, values=None, writable=False, style=None):
        """A new view of a new storage, random values around and under it; values (a function of the rng
        and the shape) sets the elements the view sees, where they must be valid indices or the like. With
        zero strides later elements overwrite earlier ones, so the view is read back rather than assumed."""
        dt = dt or self.dt
        sizes = [int(s) for s in sizes]
        offset, strides, extent = layout(rng, sizes, writable, style)
        sid = self.storage(dt, extent + int(rng.integers(0, 3)), rng)
        t = T(sid, dt, offset, sizes, strides)
        if values is not None and int(np.prod(sizes)) > 0:
            v = np.asarray(values(rng, tuple(sizes)), dtype=NPT[dt])
            self.storages[sid][1][index_map(offset, sizes, strides)] = v
        return t

    def view_on(self, rng, base, sizes, dt=None, exact=False, writable=True, style=None, values=None):
        """A view of base's storage: base's own view (exact) or another one at a random offset, the storage
        grown where it must be, so that it overlaps base's elements some of the time. values sets the
        elements it sees, as in tensor()."""
        dt = dt or base.dt
        sizes = [int(s) for s in sizes]
        if exact:
            t = T(base.sid, dt, base.offset, base.sizes, base.strides)
        else:
            offset, strides, extent = layout(rng, sizes, writable, style)
            have = len(self.storages[base.sid][1])
            shift = int(rng.integers(0, max(have - extent, 0) + 1))
            offset += shift
            extent += shift
            if extent > have:
                more = draw(rng, dt, extent - have)
                self.storages[base.sid][1] = np.concatenate([self.storages[base.sid][1], more])
            t = T(base.sid, dt, offset, sizes, strides)
        if values is not None and int(np.prod(sizes)) > 0:
            v = np.asarray(values(rng, tuple(sizes)), dtype=NPT[dt])
            self.storages[base.sid][1][index_map(t.offset, t.sizes, t.strides)] = v
        return t

    def out_for(self, rng, sizes, inputs, dt=None, p_alias=0.35):
        """The out argument of an _out form: usually a fresh view; sometimes (p_alias) a view of an input's
        storage, the input's own view when the shapes allow, else an overlapping one."""
        dt = dt or self.dt
        same = [t for t in inputs if t is not None and t.dt == dt]
        if same and rng.random() < p_alias:
            base = same[rng.integers(len(same))]
            exact = base.shape == tuple(sizes) and not overlaps_itself(base.sizes, base.strides) and \
                rng.random() < 0.5
            self.note += " out-aliases-input" if exact else " out-overlaps-input"
            return self.view_on(rng, base, sizes, dt, exact=exact)
        return self.tensor(rng, sizes, dt, writable=True)

    def arg(self, t):
        """The next tensor argument (None: a NULL one)."""
        self.args.append(("t", t) if t is not None else ("n",))

    def scalar(self, dt, value):
        self.args.append(("x", dt, value))

    def int(self, v):
        self.args.append(("i", int(v)))

    def list(self, vs):
        self.args.append(("l", [int(v) for v in vs]))

    # -- reading and expecting --

    def read(self, t):
        """The elements t sees, before the call (storages change only while the case is built)."""
        return self.storages[t.sid][1][index_map(t.offset, t.sizes, t.strides)]

    def fail(self, status, why):
        """status: the one the call must fail with, or a tuple of those it may (a case with two faults)."""
        self.expect = {"error": status if isinstance(status, tuple) else (status,), "why": why}

    def succeed(self, results=(), writes=(), contiguous=False, fresh=True):
        """results: [(array, dt, tol)] for the new tensors returned (None: a NULL result, as an index
        output not asked for); writes: [(T, array, tol)] for _out and _inplace. tol: an absolute tolerance
        per element (0: exact, with the sign of zero), or a scalar. contiguous: the results must be;
        fresh: True, their storage must be new; False, an argument's (views); None, either."""
        storages = [v.copy() for _, v in self.storages]
        tols = [np.zeros(len(v)) for _, v in self.storages]
        for t, value, tol in writes:
            idx = index_map(t.offset, t.sizes, t.strides)
            value = np.broadcast_to(np.asarray(value), idx.shape)
            storages[t.sid][idx] = value
            tols[t.sid][idx] = np.broadcast_to(np.asarray(tol, dtype=np.float64), idx.shape)
        res = []
        for r in results:
            if r is None:
                res.append(None)
            else:
                value, dt, tol = r
                value = np.asarray(value)
                res.append((value, dt, np.broadcast_to(np.asarray(tol, dtype=np.float64), value.shape).copy()))
        self.expect = {"results": res, "storages": storages, "tols": tols, "contiguous": contiguous,
                       "fresh": fresh}

    # -- the case file --

    def text(self):
        lines = [f"case {self.id} {self.fn}"]
        for dt, v in self.storages:
            lines.append(f"s {dt} {len(v)} " + " ".join(fmt_values(dt, v)))
        for a in self.args:
            if a[0] == "t":
                t = a[1]
                lines.append(f"t {t.sid} {t.dt} {t.offset} {len(t.sizes)} " +
                             " ".join(str(x) for x in t.sizes + t.strides))
            elif a[0] == "n":
                lines.append("n")
            elif a[0] == "x":
                lines.append("x " + fmt_scalar(a[1], a[2]))
            elif a[0] == "i":
                lines.append(f"i {a[1]}")
            else:
                lines.append(f"l {len(a[1])} " + " ".join(str(x) for x in a[1]))
        lines.append("go")
        return "\n".join(lines) + "\n"


def fmt_float(x):
    x = float(x)
    return "nan" if math.isnan(x) else x.hex()


def fmt_values(dt, v):
    k = kind(dt)
    if k in "bui":
        return [str(int(x)) for x in v]
    if k == "f":
        return [fmt_float(x) for x in v]
    return [fmt_float(x.real) + " " + fmt_float(x.imag) for x in v]


def fmt_scalar(dt, value):
    """A scalar argument as "re im int": the driver converts the field dt uses to dt's element type."""
    k = kind(dt)
    if k in "bui":
        return f"0x0p+0 0x0p+0 {int(value)}"
    if k == "f":
        return f"{fmt_float(value)} 0x0p+0 0"
    value = complex(value)
    return f"{fmt_float(value.real)} {fmt_float(value.imag)} 0"


# ---- shapes ----

def rand_shape(rng, nd=None, max_nd=4, max_size=4, p_empty=0.04, p_long=0.25):
    """Mostly small sizes, so that every dim is short and its edges are hit; with p_long one dim of up to 48,
    so that the vectorised loops and kernels run their main bodies and not only their tails."""
    nd = int(rng.integers(0, max_nd + 1)) if nd is None else nd
    shape = [0 if rng.random() < p_empty else int(rng.integers(1, max_size + 1)) for _ in range(nd)]
    if nd and rng.random() < p_long:
        d = int(rng.integers(nd))
        if shape[d]:
            shape[d] = int(rng.integers(5, 49))
    return shape


# Shapes past the thresholds where the library changes method: pairwise sums split runs of 256 (4096 for
# float16 and bfloat16), dim reductions take blocks of 1024 outputs, the GEMM blocks 128 x 256 with 256-deep
# slices, and OpenMP splits work of more than 64K elements.
BIG = [[4200], [1030, 3], [3, 1030], [2, 2100], [300, 7], [7, 300], [66000]]


def big_shape(rng):
    return list(BIG[int(rng.integers(len(BIG)))])


def broadcastable(rng, n, full=None):
    """n shapes that broadcast together: a common shape with leading dims dropped and sizes set to 1."""
    full = rand_shape(rng) if full is None else full
    shapes = []
    for _ in range(n):
        s = list(full)
        if rng.random() < 0.3:
            s = s[int(rng.integers(0, len(s) + 1)):]
        shapes.append([1 if x != 1 and rng.random() < 0.2 else x for x in s])
    return shapes


def broadcast(*shapes):
    try:
        return list(np.broadcast_shapes(*[tuple(s) for s in shapes]))
    except ValueError:
        raise RefError("TH_ERR_SHAPE", f"shapes {shapes} do not broadcast") from None


def break_broadcast(rng, shapes, j):
    """shapes[j] changed in one dim so that it no longer broadcasts with the others; False if no dim allows."""
    full = np.broadcast_shapes(*[tuple(s) for s in shapes])
    dims = [d for d in range(1, len(full) + 1) if full[-d] != 1 and d <= len(shapes[j])]
    if not dims:
        return False
    d = dims[int(rng.integers(len(dims)))]
    shapes[j][-d] = full[-d] + 1 if full[-d] >= 2 else 2
    return True


def other_shape(rng, shape):
    """A shape that is not this one (an out of the wrong shape)."""
    s = list(shape)
    if s and rng.random() < 0.7:
        d = int(rng.integers(len(s)))
        s[d] = s[d] + 1
    else:
        s = s + [2]
    return s


# ---- integers in Python's arithmetic, wrapped to the dtype (docs/math.md: "Integer overflow wraps") ----

def ints(a):
    return np.asarray(a).astype(object)


def omap(f, *arrays):
    return np.vectorize(f, otypes=[object])(*arrays)


def wrap(x, dt):
    x = np.asarray(x, dtype=object)
    if dt == "bool":
        return omap(lambda v: v != 0, x).astype(np.bool_)
    lo, hi = irange(dt)
    m = hi - lo + 1
    return omap(lambda v: (int(v) - lo) % m + lo, x).astype(NPT[dt]) if x.size else np.zeros(x.shape, NPT[dt])


def tdiv(x, y):
    """C's division: toward zero."""
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def bits_of(dt):
    return 1 if dt == "bool" else int(dt[1:])


# ---- elementwise references: (result, tol) ----
# tol: 0 exact, sign of zero included; -1 exact but either zero; > 0 the absolute error allowed.

def nosign(x):
    return np.full(np.shape(x), -1.0)


INT_BINARY = {
    "add": lambda x, y, b: x + y,
    "sub": lambda x, y, b: x - y,
    "mul": lambda x, y, b: x * y,
    "div": lambda x, y, b: tdiv(x, y),
    "floor_divide": lambda x, y, b: x // y,
    "remainder": lambda x, y, b: x % y,
    "fmod": lambda x, y, b: x - y * tdiv(x, y),
    "maximum": lambda x, y, b: max(x, y),
    "minimum": lambda x, y, b: min(x, y),
    "pow": lambda x, y, b: pow(x, y, 2 ** b),
    "bitwise_and": lambda x, y, b: x & y,
    "bitwise_or": lambda x, y, b: x | y,
    "bitwise_xor": lambda x, y, b: x ^ y,
    # docs/math.md: "Shifts by a negative count or by the width or more give 0 (left) or the sign fill (right)"
    "shift_left": lambda x, y, b: x << y if 0 <= y < b else 0,
    "shift_right": lambda x, y, b: x >> y if 0 <= y < b else (-1 if x < 0 else 0),
}
COMPARE = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
           "ge": np.greater_equal}
LOGICAL = {"logical_and": np.logical_and, "logical_or": np.logical_or, "logical_xor": np.logical_xor}


def ref_binary(op, dt, a, b):
    k = kind(dt)
    if op in COMPARE:
        if k in "bui":
            return COMPARE[op](ints(a), ints(b)).astype(np.bool_), 0.0
        return COMPARE[op](a, b), 0.0
    if op in LOGICAL:
        return LOGICAL[op](nonzero_mask(a), nonzero_mask(b)), 0.0
    if k in "bui":
        # b's own elements, not the broadcast ones: "a zero divisor anywhere in b" fails even when the
        # result is empty
        if op in ("div", "floor_divide", "remainder", "fmod") and (ints(b) == 0).any():
            raise RefError("TH_ERR_INVALID", "docs/math.md: a zero integer divisor is refused")
        if op == "pow" and (ints(b) < 0).any():
            raise RefError("TH_ERR_INVALID", "docs/math.md: a negative integer exponent is refused")
        bits = bits_of(dt)
        A, B = np.broadcast_arrays(ints(a), ints(b))
        return wrap(omap(lambda x, y: INT_BINARY[op](x, y, bits), A, B), dt), 0.0
    if k == "c":
        return complex_binary(op, dt, a, b)
    C = fcomp(dt)
    x, y = a.astype(C), b.astype(C)
    with np.errstate(all="ignore"):
        if op in ("add", "sub", "mul", "div"):
            r = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}[op](x, y)
            return rnd(r, dt), 0.0
        if op == "floor_divide":
            # docs/math.md: Python's floor division, sign of zero included; exact while the quotient fits
            # the mantissa, within 2 ulps beyond
            r = np.floor_divide(x, y)
            big = np.abs(r.astype(np.float64)) >= 2.0 ** MANT[{np.float32: "f32", np.float64: "f64"}[C]]
            return rnd(r, dt), np.where(big, 2 * ulp(dt, r), 0.0)
        if op == "remainder":
            return rnd(np.remainder(x, y), dt), 0.0
        if op == "fmod":
            return rnd(np.fmod(x, y), dt), 0.0
        if op in ("maximum", "minimum"):
            r = (np.maximum if op == "maximum" else np.minimum)(x, y)
            # docs/math.md: "maximum/minimum of +0 and -0 give the second operand"
            opposite = (x == 0) & (y == 0) & (np.signbit(x) != np.signbit(y))
            return rnd(np.where(opposite, y, r), dt), 0.0
        X, Y = a.astype(np.float64), b.astype(np.float64)
        r = rnd({"pow": np.power, "atan2": np.arctan2, "hypot": np.hypot}[op](X, Y), dt)
        return r, 2 * ulp(dt, r)


def complex_tol(dt, r, mag, k=8):
    """Per part: k roundings of the magnitudes the result was computed from."""
    return k * eps(dt) * np.asarray(mag, dtype=np.float64) + 2 * ulp(dt, np.abs(r))


def complex_binary(op, dt, a, b):
    x, y = a.astype(np.complex128), b.astype(np.complex128)
    with np.errstate(all="ignore"):
        if op in ("add", "sub"):
            r = rnd(x + y if op == "add" else x - y, dt)
            return r, complex_tol(dt, r, np.abs(x) + np.abs(y), 1)
        if op == "mul":
            r = rnd(x * y, dt)
            return r, complex_tol(dt, r, np.abs(x) * np.abs(y))
        if op == "div":
            r = rnd(x / y, dt)
            return r, complex_tol(dt, r, np.abs(x) / np.abs(y))
        if op == "pow":
            r = rnd(np.power(x, y), dt)
            return r, complex_tol(dt, r, np.abs(r), 64)
    raise ValueError(op)


FLOAT_UNARY_EXACT = {
    "neg": np.negative, "abs": np.abs, "floor": np.floor, "ceil": np.ceil, "trunc": np.trunc, "round": np.rint,
    "frac": lambda x: x - np.trunc(x),
    # docs/math.md: sign(-0.0) and relu(-0.0) are -0.0 (NumPy: 0.0); NaN passes through
    "sign": lambda x: np.where(x == 0, x, np.sign(x)),
    "relu": lambda x: np.where(x < 0, np.zeros_like(x), x),
    "square": lambda x: x * x, "reciprocal": lambda x: 1 / x, "sqrt": np.sqrt,
}
FLOAT_UNARY_LIBM = {
    "exp": np.exp, "log": np.log, "sin": np.sin, "tanh": np.tanh, "expm1": np.expm1, "log1p": np.log1p,
    # docs/math.md: exp(x) / (1 + exp(x)) below zero, "so the subnormal tail down to x = -745 survives"
    "sigmoid": lambda x: np.where(x < 0, np.exp(x) / (1 + np.exp(x)), 1 / (1 + np.exp(-x))),
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "erf": lambda x: omap(math.erf, x).astype(np.float64),
    "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh,
    "cosh": np.cosh, "exp2": np.exp2, "log2": np.log2, "log10": np.log10,
    # docs/math.md: gelu(-inf) is -0, the limit
    "gelu": lambda x: np.where(x == -np.inf, -0.0,
                               x * (omap(lambda v: math.erfc(-v / math.sqrt(2)), x).astype(np.float64) / 2)),
}
COMPLEX_UNARY = {
    "neg": np.negative, "square": lambda z: z * z, "sqrt": np.sqrt, "exp": np.exp, "log": np.log, "sin": np.sin,
    "tanh": np.tanh, "sigmoid": lambda z: 1 / (1 + np.exp(-z)), "reciprocal": lambda z: 1 / z,
    "rsqrt": lambda z: 1 / np.sqrt(z), "cos": np.cos, "tan": np.tan, "asin": np.arcsin, "acos": np.arccos,
    "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh,
}


def ref_unary(op, dt, a):
    k = kind(dt)
    if op == "logical_not":
        return ~nonzero_mask(a), 0.0
    if op in ("isnan", "isinf", "isfinite"):
        if k in "bui":  # docs/math.md: integer (false, false, true)
            return np.full(a.shape, op == "isfinite"), 0.0
        return {"isnan": np.isnan, "isinf": np.isinf, "isfinite": np.isfinite}[op](a), 0.0
    if k in "bui":
        f = {"neg": lambda x: -x, "square": lambda x: x * x, "abs": abs, "sign": lambda x: (x > 0) - (x < 0),
             "relu": lambda x: max(x, 0), "floor": lambda x: x, "ceil": lambda x: x, "round": lambda x: x,
             "trunc": lambda x: x,
             "bitwise_not": (lambda x: 1 - x) if dt == "bool" else (lambda x: ~x)}[op]
        return wrap(omap(f, ints(a)), dt), 0.0
    with np.errstate(all="ignore"):
        if k == "c":
            z = a.astype(np.complex128)
            if op == "abs":  # docs/math.md: the magnitude, in the real dtype of the same precision
                r = rnd(np.abs(z), REAL_OF[dt])
                return r, 2 * ulp(REAL_OF[dt], r)
            if op == "angle":  # atan2(im, re) of the dtype's own parts, in the real dtype
                r = rnd(np.angle(z), REAL_OF[dt])
                return r, 2 * ulp(REAL_OF[dt], r)
            if op == "conj":  # exact: the imaginary part's sign bit flipped, NaN and zero included
                return np.conjugate(a), 0.0
            r = rnd(COMPLEX_UNARY[op](z), dt)
            if op == "neg":
                return r, 0.0
            return r, complex_tol(dt, r, np.abs(r) + np.abs(z), 16)
        if op in FLOAT_UNARY_EXACT:
            return rnd(FLOAT_UNARY_EXACT[op](a.astype(fcomp(dt))), dt), 0.0
        r = rnd(FLOAT_UNARY_LIBM[op](a.astype(np.float64)), dt)
        if op == "gelu":
            # the formula in double, the reference here, loses about x^2 ulps in the negative tail, where the
            # library is more careful (docs/math.md); tests/numpy/check_numpy.py checks it within 3.5 ulps
            x = np.abs(a.astype(np.float64))
            return r, ulp(dt, r) * (8 + np.where(np.isfinite(x), 2 * x * x, 0))
        return r, 4 * ulp(dt, r)


def ref_where(dt, cond, a, b):
    return np.where(cond, a, b), 0.0


def ref_clamp(dt, a, lo, hi):
    # docs/math.md: "clamp(a, lo, hi) is min(max(a, lo), hi), so lo > hi gives hi"; NaN stays in place
    if kind(dt) in "ui":
        return wrap(omap(lambda x: min(max(x, int(lo)), int(hi)), ints(a)), dt), 0.0
    r = np.where(a < lo, lo, a)
    r = np.where(r > hi, hi, r)
    return r.astype(NPT[dt]), nosign(r)


def ref_combine(op, dt, a, b, c, v):
    """add_alpha(a, b, alpha), lerp(a, b, weight), addcmul(a, t1, t2, value), addcdiv(a, t1, t2, value)."""
    k = kind(dt)
    if k in "ui":
        A, B, V = ints(a), ints(b), int(v)
        if op == "add_alpha":
            return wrap(A + V * B, dt), 0.0
        return wrap(A + V * B * ints(c), dt), 0.0
    W = np.complex128 if k == "c" else np.float64
    x, y, s = a.astype(W), b.astype(W), W(v)
    with np.errstate(all="ignore"):
        if op == "add_alpha":
            terms = [x, s * y]
        elif op == "lerp":
            # docs/math.md: "lerp computes from the nearer end, so weight 1 gives exactly b"
            r = np.where(s < 0.5, x + s * (y - x), y - (y - x) * (1 - s))
            r = rnd(r, dt)
            return r, 4 * ulp(dt, np.maximum(np.abs(x), np.abs(y)))
        elif op == "addcmul":
            terms = [x, s * y * c.astype(W)]
        else:
            terms = [x, s * y / c.astype(W)]
        r = rnd(terms[0] + terms[1], dt)
        mag = np.abs(terms[0]) + np.abs(terms[1])
        return r, 4 * eps(dt) * mag + 2 * ulp(dt, np.abs(r))


# ---- elementwise cases ----

def plain(dt, **kw):
    """Values of dt for an operand: f(rng, shape, safe) -> array. safe: the case tests another error, so the
    values must not add one of their own (a zero divisor, a negative exponent)."""
    return lambda rng, shape, safe: draw(rng, dt, shape, **kw)


def divisor(dt):
    def f(rng, shape, safe):
        v = draw(rng, dt, shape)
        if kind(dt) in "ui":
            v = np.where(v == 0, np.ones_like(v), v)
            if not safe and v.size and rng.random() < 0.2:
                v.flat[int(rng.integers(v.size))] = 0
        return v
    return f


def exponent(dt):
    def f(rng, shape, safe):
        if kind(dt) not in "ui":
            return draw(rng, dt, shape, small=True) if kind(dt) == "c" else draw(rng, dt, shape)
        v = np.where(rng.random(shape) < 0.85, rng.integers(0, 7, shape), rng.integers(0, 70, shape))
        v = np.minimum(v, irange(dt)[1]).astype(NPT[dt])
        if dt != "u8" and not safe and v.size and rng.random() < 0.2:
            v.flat[int(rng.integers(v.size))] = -1
        return v
    return f


def shift_count(dt):
    def f(rng, shape, safe):
        lo, hi = irange(dt)
        return np.clip(rng.integers(-2, bits_of(dt) + 3, shape), lo, hi).astype(NPT[dt])
    return f


def nonzero_values(dt, **kw):
    def f(rng, shape, safe):
        v = draw(rng, dt, shape, **kw)
        return np.where(v == 0, np.ones_like(v), v)
    return f


def scalar_of(dt, gen, rng, safe):
    """A scalar argument drawn as a 0-d array, so that the reference sees dt's value."""
    return np.asarray(gen(rng, (), safe), dtype=NPT[dt])


def pyvalue(x):
    x = np.asarray(x)
    return bool(x) if x.dtype == np.bool_ else complex(x) if np.iscomplexobj(x) else \
        int(x) if np.issubdtype(x.dtype, np.integer) else float(x)


def gen_elementwise(c, rng, form, in_dts, gens, scal, ref, out_dt):
    """One elementwise call. in_dts/gens: the tensor operands (the first is the in-place target); scal: the
    scalar arguments as (dt, gen); ref(*arrays, *scalars) -> (result, tol); form: new, out or inplace.
    Sometimes one thing is wrong on purpose: a NULL operand, shapes that do not broadcast, an out of
    another shape, an out with two elements at one address, an in-place target smaller than the result."""
    n = len(in_dts)
    shapes = broadcastable(rng, n, big_shape(rng) if rng.random() < 0.006 else None)
    if form == "inplace":
        shapes[0] = broadcast(*shapes)
    u = rng.random()
    err = None
    if u < 0.03:
        err = "null"
    elif u < 0.07 and n >= 2:
        err = "broadcast" if break_broadcast(rng, shapes, int(rng.integers(n))) else None
    elif u < 0.10 and form == "out":
        err = "out-shape"
    elif u < 0.13 and form in ("out", "inplace"):
        err = "out-overlaps-itself"
    elif u < 0.16 and form == "inplace" and n >= 2:
        full = shapes[0]
        dims = [d for d in range(len(full)) if full[d] >= 2]
        if dims:
            d = dims[int(rng.integers(len(dims)))]
            shapes[0] = full[:d] + [1] + full[d + 1:]
            shapes[1] = list(full)
            err = "inplace-smaller"
    safe = err is not None
    c.note = err or ""
    ins = []
    for k in range(n):
        # one tensor as two operands, where they draw from one distribution (a divisor is kept from zero, a
        # dividend is not)
        if k > 0 and gens[k] is gens[0] and in_dts[k] == in_dts[0] and shapes[k] == shapes[0] and \
                rng.random() < 0.1:
            ins.append(ins[0])
            c.note += " same-tensor-twice"
            continue
        target = form == "inplace" and k == 0
        style = "expanded" if target and err == "out-overlaps-itself" else None
        ins.append(c.tensor(rng, shapes[k], in_dts[k], values=lambda r, s, g=gens[k]: g(r, s, safe),
                            writable=target and style is None, style=style))
    scalars = [scalar_of(dt, g, rng, safe) for dt, g in scal]
    out = None
    try:
        full = broadcast(*[t.shape for t in ins]) if err != "broadcast" else None
    except RefError:
        full = None
    if form == "out":
        sizes = full if full is not None else broadcast(*[s for s in shapes[:1]])
        if err == "out-shape":
            sizes = other_shape(rng, sizes)
        if err == "out-overlaps-itself":
            out = c.tensor(rng, sizes, out_dt, style="expanded")
        else:
            out = c.out_for(rng, sizes, ins, out_dt)
    args = ([out] if form == "out" else []) + ins
    if err == "null":
        args[int(rng.integers(len(args)))] = None
    for t in args:
        c.arg(t)
    for (dt, _), v in zip(scal, scalars):
        c.scalar(dt, pyvalue(v))
    try:
        if any(t is None for t in args):
            raise RefError("TH_ERR_INVALID", "a NULL tensor")
        full = broadcast(*[t.shape for t in ins])
        if form == "out":
            if list(out.shape) != full:
                raise RefError("TH_ERR_SHAPE", "out's shape is not the result's")
            if overlaps_itself(out.sizes, out.strides):
                raise RefError("TH_ERR_INVALID", "out has two elements at one address")
        if form == "inplace":
            if list(ins[0].shape) != full:
                raise RefError("TH_ERR_SHAPE", "the operands broadcast beyond the in-place target")
            if overlaps_itself(ins[0].sizes, ins[0].strides):
                raise RefError("TH_ERR_INVALID", "the target has two elements at one address")
        r, tol = ref(*[c.read(t) for t in ins], *scalars)
        r = np.broadcast_to(np.asarray(r), full)
    except RefError as e:
        c.fail(e.status, e.why)
        return
    if form == "new":
        c.succeed([(r, out_dt, tol)])
    else:
        c.succeed(writes=[(out if form == "out" else ins[0], r, tol)])


def split_form(form):
    """("scalar_out") -> (True, "out"); ("inplace") -> (False, "inplace")."""
    if form.startswith("scalar"):
        return True, form[7:] or "new"
    return False, form


def operand_gens(op, dt):
    """(a's values, b's values) for a binary op."""
    k = kind(dt)
    a = plain(dt, small=True) if k == "c" else plain(dt)
    b = a
    if op in ("div", "floor_divide", "remainder", "fmod"):
        b = divisor(dt) if k != "c" else nonzero_values(dt, small=True)
    elif op == "pow":
        a = plain(dt, small=True) if k in "ui" else nonzero_values(dt, small=True) if k == "c" else a
        b = exponent(dt)
    elif op in ("shift_left", "shift_right"):
        b = shift_count(dt)
    return a, b


def gen_binary(c, rng):
    op, dt = c.op, c.dt
    scalar, form = split_form(c.form)
    ga, gb = operand_gens(op, dt)
    out_dt = "bool" if op in COMPARE or op in LOGICAL else dt
    ref = lambda a, b: ref_binary(op, dt, a, b)
    if scalar:
        gen_elementwise(c, rng, form, [dt], [ga], [(dt, gb)], ref, out_dt)
    else:
        gen_elementwise(c, rng, form, [dt, dt], [ga, gb], [], ref, out_dt)


def gen_unary(c, rng):
    op, dt = c.op, c.dt
    out_dt = "bool" if op in ("logical_not", "isnan", "isinf", "isfinite") else \
        REAL_OF[dt] if op in ("abs", "angle") and kind(dt) == "c" else dt
    g = plain(dt, small=True) if kind(dt) == "c" else plain(dt)
    if kind(dt) == "c" and op in ("asin", "acos", "atan", "log", "sqrt", "rsqrt"):
        g = off_branch_cuts(dt)
    gen_elementwise(c, rng, c.form, [dt], [g], [], lambda a: ref_unary(op, dt, a), out_dt)


def off_branch_cuts(dt):
    """Complex values off the real and imaginary axes, where the branch cuts of the inverse functions lie:
    on a cut the result depends on the sign of a zero part, a convention this test does not pin down."""
    def f(rng, shape, safe):
        z = draw(rng, dt, shape, small=True).astype(np.complex128)
        re = np.where(z.real == 0, 0.5, z.real)
        im = np.where(z.imag == 0, -0.25, z.imag)
        return cplx(re, im).astype(NPT[dt])
    return f


def gen_where(c, rng):
    dt = c.dt
    gen_elementwise(c, rng, c.form, ["bool", dt, dt], [plain("bool"), plain(dt), plain(dt)], [],
                    lambda m, a, b: ref_where(dt, m, a, b), dt)


def ref_polar(dt, r, t):
    # abs cos(angle) + i abs sin(angle), each part one product in the real dtype: torch.polar's definition;
    # NumPy gives the same parts as r * cos(t) and r * sin(t) in float64, rounded once here, so the library's
    # two roundings (the cosine's, the product's) are within 2 ulps of the part, or of r where cos(t) is tiny
    R = REAL_OF[dt]
    r64, t64 = r.astype(np.float64), t.astype(np.float64)
    with np.errstate(all="ignore"):
        re, im = r64 * np.cos(t64), r64 * np.sin(t64)
    z = np.empty(np.broadcast(re, im).shape, dtype=np.complex128)
    z.real, z.imag = re, im
    mag = np.abs(np.broadcast_to(r64, z.shape))
    with np.errstate(all="ignore"):
        tol = 4 * ulp(R, np.abs(re)) + 4 * ulp(R, np.abs(im)) + 4 * eps(R) * np.where(np.isfinite(mag), mag, 0)
    return rnd(z, dt), tol


def gen_polar(c, rng):
    dt = c.dt
    R = REAL_OF[dt]
    gen_elementwise(c, rng, c.form, [R, R], [plain(R), plain(R, small=True)], [],
                    lambda r, t: ref_polar(dt, r, t), dt)


def gen_clamp(c, rng):
    dt = c.dt
    bound = plain(dt, small=True) if kind(dt) in "ui" else plain(dt, finite=True, tame=True)
    gen_elementwise(c, rng, c.form, [dt], [plain(dt)], [(dt, bound), (dt, bound)],
                    lambda a, lo, hi: ref_clamp(dt, a, lo, hi), dt)


def weight(dt):
    def f(rng, shape, safe):
        w = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0, 1.5, -0.5, float(rng.random())])
        return rnd(np.float64(w), dt)
    return f


def gen_combine(c, rng):
    op, dt = c.op, c.dt
    k = kind(dt)
    v = plain(dt, small=True) if k in "uic" else plain(dt, finite=True, tame=True)
    if op == "add_alpha":
        gen_elementwise(c, rng, c.form, [dt, dt], [v, v], [(dt, v)],
                        lambda a, b, s: ref_combine(op, dt, a, b, None, s), dt)
    elif op == "lerp":
        gen_elementwise(c, rng, c.form, [dt, dt], [v, v], [(dt, weight(dt))],
                        lambda a, b, s: ref_combine(op, dt, a, b, None, s), dt)
    else:
        t2 = nonzero_values(dt, small=True) if op == "addcdiv" else v
        gen_elementwise(c, rng, c.form, [dt, dt, dt], [v, v, t2], [(dt, v)],
                        lambda a, b, t, s: ref_combine(op, dt, a, b, t, s), dt)


# ---- reductions (docs/reductions.md) ----

def reduce_rows(a, dim, keepdim):
    """a as a 2-d array, one row per output in row-major order of the outputs, and the result's shape. dim
    None: the whole tensor in row-major order (the _all forms)."""
    if dim is None:
        return a.reshape(1, -1), []
    nd = a.ndim
    if nd == 0:
        # docs/reductions.md: "A 0-d tensor accepts dim 0 and -1 and reduces over its one element"
        if dim not in (0, -1):
            raise RefError("TH_ERR_RANGE", f"dim {dim} of a 0-d tensor")
        return a.reshape(1, 1), []
    if not -nd <= dim < nd:
        raise RefError("TH_ERR_RANGE", f"dim {dim} out of range for {nd} dims")
    d = dim % nd
    shape = list(a.shape)
    kept = shape[:d] + shape[d + 1:]
    rows = int(np.prod(kept)) if kept else 1
    x = np.moveaxis(a, d, -1).reshape(rows, shape[d])
    return x, shape[:d] + ([1] if keepdim else []) + shape[d + 1:]


def first_best(row, better):
    """The index max/min/argmax/argmin pick: the first NaN, else the first of the best (docs/reductions.md:
    "NaN wins (the first NaN), as NumPy's max and argmax; ties give the first index")."""
    best = 0
    for i, x in enumerate(row):
        if x != x:
            return i
        if i and better(x, row[best]):
            best = i
    return best


def sum_tol(dt, r, n, mag):
    """Rounding to dt, n roundings in the accumulator, and for float32 one more in float: docs/reductions.md,
    "contiguous runs add pairs of elements in float first, one rounding per pair"."""
    return 2 * ulp(dt, np.abs(r)) + (n + 1) * acc_eps(dt) * mag + (eps("f32") * mag if dt == "f32" else 0.0)


def reduce_row(op, dt, row, extra):
    """(value, tol) of one output."""
    k = kind(dt)
    n = len(row)
    if op == "all":
        return bool(nonzero_mask(row).all()), 0.0
    if op == "any":
        return bool(nonzero_mask(row).any()), 0.0
    if op in ("max", "min", "argmax", "argmin"):
        if n == 0:
            raise RefError("TH_ERR_SHAPE", "docs/reductions.md: max/min/argmax/argmin over no elements")
        vals = ints(row) if k in "bui" else row
        i = first_best(vals, (lambda x, y: x > y) if op in ("max", "argmax") else (lambda x, y: x < y))
        return (i, 0.0) if op.startswith("arg") else (row[i], 0.0)
    if op in ("sum", "prod") and k in "bui":
        total = sum(ints(row)) if op == "sum" else math.prod(ints(row))
        return wrap(total, dt)[()], 0.0
    W = np.complex128 if k == "c" else np.float64
    x = row.astype(W)
    mag = float(np.sum(np.abs(x))) if n else 0.0
    with np.errstate(all="ignore"):
        if op == "sum":
            s = np.sum(x)
            r = rnd(s, dt)
            return r, sum_tol(dt, r, n, mag)
        if op == "prod":
            p = np.prod(x)
            r = rnd(p, dt)
            return r, sum_tol(dt, r, n, abs(p) if np.isfinite(p) else 0.0)
        if op == "mean":
            # docs/reductions.md: empty gives NaN (complex: NaN + NaN i)
            m = np.sum(x) / n if n else (W(complex(np.nan, np.nan)) if k == "c" else W(np.nan))
            r = rnd(m, dt)
            return r, sum_tol(dt, r, n, mag / max(n, 1))
        if op in ("var", "std"):
            corr = extra
            if n == 0:
                return rnd(np.nan, dt), 0.0
            mean = np.sum(x) / n
            ss = np.sum((x - mean) ** 2)
            div = max(0, n - corr)  # docs/reductions.md: "divided by max(0, n - correction)"
            var = ss / div if div else (np.float64(np.nan) if ss == 0 or ss != ss else np.float64(np.inf))
            big = float(np.sum(x * x)) if np.isfinite(mag) else 0.0
            tvar = (8 * (n + 2) * acc_eps(dt) + (4 * eps("f32") if dt == "f32" else 0.0)) * big / max(div, 1)
            if op == "var":
                r = rnd(var, dt)
                return r, 2 * ulp(dt, r) + tvar
            sd = np.sqrt(var)
            r = rnd(sd, dt)
            return r, 2 * ulp(dt, r) + (tvar / (2 * sd) if sd > 0 else math.sqrt(tvar))
        if op == "logsumexp":
            # docs/reductions.md: max + log(sum(exp(x - max))); an infinite or NaN max is the result;
            # empty gives -inf
            if n == 0:
                return rnd(-np.inf, dt), 0.0
            m = np.nan if np.isnan(x).any() else np.max(x)
            if not np.isfinite(m):
                return rnd(m, dt), 0.0
            r = rnd(m + np.log(np.sum(np.exp(x - m))), dt)
            return r, 4 * ulp(dt, r) + 4 * (n + 1) * acc_eps(dt) * max(1.0, abs(float(m)))
        if op == "norm":
            p = extra
            out = REAL_OF.get(dt, dt)
            a = np.abs(x).astype(np.float64)
            if p == 0:
                v = float(np.count_nonzero(a))
            elif p == 1:
                v = np.sum(a)
            elif p == 2:
                v = np.sqrt(np.sum(a * a))  # docs/reductions.md: not scaled, as PyTorch
            elif p == np.inf:
                v = (np.nan if np.isnan(a).any() else np.max(a)) if n else 0.0
            elif p == -np.inf:
                if n == 0:
                    raise RefError("TH_ERR_SHAPE", "docs/reductions.md: norm with p = -inf over no elements")
                v = np.nan if np.isnan(a).any() else np.min(a)
            else:
                v = np.sum(a ** p) ** (1 / p)
            r = rnd(v, out)
            return r, 2 * ulp(out, r) + 4 * (n + 2) * acc_eps(dt) * (abs(float(v)) if np.isfinite(v) else 0)
    raise ValueError(op)


RESULT_DT = {"argmax": lambda dt: "i64", "argmin": lambda dt: "i64", "all": lambda dt: "bool",
             "any": lambda dt: "bool", "norm": lambda dt: REAL_OF.get(dt, dt)}


def ref_reduce(op, dt, a, dim, keepdim, extra):
    """[(values, dt, tol)] of a reduction; max and min with a dim give their indices too."""
    if op in ("var", "std") and extra < 0:
        raise RefError("TH_ERR_INVALID", "docs/reductions.md: a negative correction")
    if op == "norm" and extra != extra:
        raise RefError("TH_ERR_INVALID", "docs/reductions.md: a NaN p")
    rows, shape = reduce_rows(a, dim, keepdim)
    out_dt = RESULT_DT.get(op, lambda d: d)(dt)
    vals, tols, idx = [], [], []
    for row in rows:
        if op in ("max", "min"):
            i, _ = reduce_row("arg" + op, dt, row, extra)
            vals.append(row[i])
            tols.append(0.0)
            idx.append(i)
        else:
            v, t = reduce_row(op, dt, row, extra)
            vals.append(v)
            tols.append(t)
    if rows.shape[0] == 0:  # no outputs: the row functions decide nothing, but an empty max still has none
        if op in ("max", "min", "argmax", "argmin") and rows.shape[1] == 0:
            raise RefError("TH_ERR_SHAPE", "docs/reductions.md: max/min/argmax/argmin over no elements")
    v = np.array(vals, dtype=NPT[out_dt]).reshape(shape)
    t = np.array(tols, dtype=np.float64).reshape(shape)
    res = [(v, out_dt, t)]
    if op in ("max", "min") and dim is not None:
        res.append((np.array(idx, dtype=np.int64).reshape(shape), "i64", 0.0))
    return res


def ref_scan(op, dt, a, dim):
    nd = a.ndim
    if not (-max(nd, 1) <= dim < max(nd, 1)):
        raise RefError("TH_ERR_RANGE", f"dim {dim} out of range")
    if nd == 0:  # one element, summed onto 0 (or multiplied onto 1): the sign of a zero is not kept
        return a.copy(), nosign(a)
    d = dim % nd
    k = kind(dt)
    if k in "ui":
        f = np.cumsum if op == "cumsum" else np.cumprod
        return wrap(f(ints(a), axis=d), dt), 0.0
    W = np.complex128 if k == "c" else np.float64
    x = a.astype(W)
    with np.errstate(all="ignore"):
        if op == "cumsum":
            s = np.cumsum(x, axis=d)
            mag = np.cumsum(np.abs(x), axis=d)
        else:
            s = np.cumprod(x, axis=d)
            mag = np.where(np.isfinite(s), np.abs(s), 0.0)
        n = np.cumsum(np.ones(a.shape), axis=d) if a.size else np.zeros(a.shape)
        r = rnd(s, dt)
        tol = 2 * ulp(dt, np.abs(r)) + (n + 1) * acc_eps(dt) * np.where(np.isfinite(mag), mag, 0.0)
    return r, tol


def reduce_values(op, dt):
    k = kind(dt)

    def f(rng, shape, safe):
        if op in ("prod", "cumprod") and k in "fc":
            # factors near 1, so that no partial product overflows or underflows in one accumulator and
            # not in another
            pick = np.array([-2.0, -1.5, -1.0, -0.5, 0.5, 1.0, 1.5, 2.0, 0.0, 1.0])
            v = pick[rng.integers(0, len(pick), shape)]
            if k == "c":
                v = cplx(v, pick[rng.integers(0, len(pick), shape)] / 2)
            elif rng.random() < 0.2 and v.size:
                v.flat[int(rng.integers(v.size))] = rng.choice([np.inf, -np.inf, np.nan])
            return rnd(v, dt)
        if op in ("all", "any"):
            v = draw(rng, dt, shape)
            return np.where(rng.random(shape) < rng.random(), np.zeros_like(v), v)
        if op in ("max", "min", "argmax", "argmin"):
            return draw(rng, dt, shape, small=rng.random() < 0.5)
        if k == "c":
            return draw(rng, dt, shape, small=True)
        return draw(rng, dt, shape, tame=True)
    return f


def gen_reduce(c, rng):
    op, dt, form = c.op, c.dt, c.form  # form: all, all_out, dim, dim_out
    use_dim = form.startswith("dim")
    out_form = form.endswith("out")
    u = rng.random()
    err = None
    if u < 0.03:
        err = "null"
    elif u < 0.07 and use_dim:
        err = "dim-range"
    elif u < 0.10 and out_form:
        err = "out-shape"
    elif u < 0.13 and out_form and use_dim:
        err = "out-overlaps-itself"
    elif u < 0.16 and op in ("var", "std"):
        err = "negative-correction"
    elif u < 0.16 and op == "norm":
        err = "nan-p"
    shape = rand_shape(rng, p_empty=0 if err else 0.06) if rng.random() > 0.02 else big_shape(rng)
    if err == "out-overlaps-itself":
        shape = [max(s, 2) for s in shape] + [2, 2]
    nd = len(shape)
    a = c.tensor(rng, shape, values=lambda r, s: reduce_values(op, dt)(r, s, False))
    dim, keepdim = None, False
    if use_dim:
        dim = int(rng.integers(-max(nd, 1), max(nd, 1)))
        if err == "dim-range":
            dim = int(rng.choice([max(nd, 1), -max(nd, 1) - 1, 7]))
        keepdim = bool(rng.random() < 0.5)
    extra = None
    if op in ("var", "std"):
        extra = int(rng.choice([0, 1, 1, 2, 5])) if err != "negative-correction" else -1
    if op == "norm":
        extra = float(rng.choice([0.0, 1.0, 2.0, 2.0, 3.0, 0.5, np.inf, -np.inf])) if err != "nan-p" else np.nan
    want_idx = op in ("max", "min") and use_dim and rng.random() < 0.7
    try:
        res = ref_reduce(op, dt, c.read(a), dim, keepdim, extra)
        err_ref = None
    except RefError as e:
        res = None
        err_ref = e
    out_dt = RESULT_DT.get(op, lambda d: d)(dt)
    if res is not None:
        out_shape = list(res[0][0].shape)
    elif use_dim and nd and dim is not None and -nd <= dim < nd:
        d = dim % nd
        out_shape = shape[:d] + ([1] if keepdim else []) + shape[d + 1:]
    else:
        out_shape = [] if not use_dim else shape[:-1]
    outs = []
    if out_form:
        sizes = other_shape(rng, out_shape) if err == "out-shape" else out_shape
        if err == "out-overlaps-itself":
            outs.append(c.tensor(rng, sizes, out_dt, style="expanded"))
        else:
            outs.append(c.out_for(rng, sizes, [a], out_dt))
        if op in ("max", "min") and use_dim:
            ind = c.out_for(rng, sizes, [a], "i64")
            if views_overlap(ind, outs[0]):  # which of two outs sharing an element wins is not defined
                ind = c.tensor(rng, sizes, "i64", writable=True)
            outs.append(ind)
    args = outs + [a]
    null_at = None
    if err == "null":
        null_at = int(rng.integers(len(args)))
        args[null_at] = None
    for t in args:
        c.arg(t)
    if use_dim:
        c.int(dim)
    if op in ("var", "std"):
        if use_dim:
            c.int(extra)
            c.int(keepdim)
        else:
            c.int(extra)
    elif use_dim:
        c.int(keepdim)
    if op == "norm":
        c.scalar("f64", extra)
    if op in ("max", "min") and use_dim and not out_form:
        c.int(want_idx)
    # ops/reduce.h: "In max_dim_out(out, indices_out, a, dim, keepdim), indices_out may be NULL"
    optional_null = op in ("max", "min") and out_form and use_dim and null_at == 1
    if optional_null:
        outs, res = outs[:1], res[:1] if res else res
    elif any(t is None for t in args):
        return c.fail("TH_ERR_INVALID", "a NULL tensor")
    if err_ref is not None:
        return c.fail(err_ref.status, err_ref.why)
    if out_form:
        for o in outs:
            if list(o.shape) != out_shape:
                return c.fail("TH_ERR_SHAPE", "out's shape is not the result's")
        for o in outs:
            if overlaps_itself(o.sizes, o.strides):
                return c.fail("TH_ERR_INVALID", "out has two elements at one address")
        return c.succeed(writes=[(o, v, t) for o, (v, _, t) in zip(outs, res)])
    if op in ("max", "min") and use_dim and not want_idx:
        res = res[:1] + [None]
    c.succeed(res)


def gen_scan(c, rng):
    op, dt = c.op, c.dt
    out_form = c.form == "out"
    u = rng.random()
    err = "null" if u < 0.03 else "dim-range" if u < 0.07 else "out-shape" if u < 0.1 and out_form else None
    shape = rand_shape(rng)
    nd = len(shape)
    a = c.tensor(rng, shape, values=lambda r, s: reduce_values(op, dt)(r, s, False))
    dim = int(rng.integers(-max(nd, 1), max(nd, 1)))
    if err == "dim-range":
        dim = int(rng.choice([max(nd, 1), -max(nd, 1) - 1]))
    out = None
    if out_form:
        out = c.out_for(rng, other_shape(rng, shape) if err == "out-shape" else shape, [a], p_alias=0.5)
    args = ([out] if out_form else []) + [a]
    if err == "null":
        args[int(rng.integers(len(args)))] = None
    for t in args:
        c.arg(t)
    c.int(dim)
    if any(t is None for t in args):
        return c.fail("TH_ERR_INVALID", "a NULL tensor")
    try:
        r, tol = ref_scan(op, dt, c.read(a), dim)
    except RefError as e:
        return c.fail(e.status, e.why)
    if out_form:
        if list(out.shape) != shape:
            return c.fail("TH_ERR_SHAPE", "out's shape is not the input's")
        return c.succeed(writes=[(out, r, tol)])
    c.succeed([(r, dt, tol)])


# ---- shape ops (docs/indexing.md, "Shape ops") ----

def wrap_dim(dim, nd):
    """dim counted from the end when negative. A 0-d tensor takes dim 0 and -1, as PyTorch's dims do and as
    docs/reductions.md says for the reductions (the shape ops do the same, undocumented)."""
    nd = max(nd, 1)
    if not -nd <= dim < nd:
        raise RefError("TH_ERR_RANGE", f"dim {dim} out of range for {nd} dims")
    return dim % nd


def finish(c, rng, form, make_ref, out_sizes_guess, inputs, out_dt=None, contiguous=True, null_p=0.03,
           out_err_p=0.06, extra_args=()):
    """The common tail of the moving ops: an out (for _out) that may overlap an input, wrong on purpose
    sometimes; arguments in order; the expectation from make_ref() -> result array (or a RefError)."""
    out_dt = out_dt or c.dt
    out = None
    err = None
    if form == "out":
        u = rng.random()
        sizes = out_sizes_guess
        if u < out_err_p / 2:
            sizes, err = other_shape(rng, sizes), "out-shape"
        elif u < out_err_p and int(np.prod(sizes)) > 1:
            out, err = c.tensor(rng, sizes, out_dt, style="expanded"), "out-overlaps-itself"
        if out is None:
            out = c.out_for(rng, sizes, inputs, out_dt, p_alias=0.5)
    target = inputs[0] if form == "inplace" else None
    args = ([out] if form == "out" else []) + list(inputs)
    if rng.random() < null_p:
        args[int(rng.integers(len(args)))] = None
    for t in args:
        c.arg(t)
    for kind_, v in extra_args:
        if kind_ == "i":
            c.int(v)
        elif kind_ == "l":
            c.list(v)
        else:
            c.scalar(c.dt, v)
    c.note += " " + (err or "")
    try:
        r = make_ref()
    except RefError as e:
        # with a NULL argument as well, either fault may be the one reported
        statuses = ("TH_ERR_INVALID",) + tuple(np.atleast_1d(e.status)) if any(t is None for t in args) \
            else e.status
        return c.fail(statuses, e.why)
    if any(t is None for t in args):
        return c.fail("TH_ERR_INVALID", "a NULL tensor")
    if isinstance(r, tuple):
        r, tol = r
    else:
        tol = 0.0
    if form == "out":
        if list(out.shape) != list(r.shape):
            return c.fail("TH_ERR_SHAPE", "out's shape is not the result's")
        if overlaps_itself(out.sizes, out.strides):
            return c.fail("TH_ERR_INVALID", "out has two elements at one address")
        return c.succeed(writes=[(out, r, tol)])
    if form == "inplace":
        if overlaps_itself(target.sizes, target.strides):
            return c.fail("TH_ERR_INVALID", "the target has two elements at one address")
        if list(target.shape) != list(r.shape):
            return c.fail("TH_ERR_SHAPE", "the result's shape is not the target's")
        return c.succeed(writes=[(target, r, tol)])
    c.succeed([(r, out_dt, tol)], contiguous=contiguous)


def gen_join(c, rng):
    op, dt, form = c.op, c.dt, c.form
    nd = int(rng.integers(1, 4))
    base = rand_shape(rng, nd, p_empty=0.05)
    n = int(rng.integers(1, 5))
    u = rng.random()
    if op == "cat":
        dim = int(rng.integers(-nd, nd))
        shapes = []
        for _ in range(n):
            s = list(base)
            s[dim % nd] = int(rng.integers(0, 4))
            shapes.append(s)
        if u < 0.1:
            # docs/indexing.md: "A 1-d tensor of size 0 is skipped whatever the other shapes"
            shapes.insert(int(rng.integers(0, n + 1)), [0])
        elif u < 0.14 and nd >= 2:
            j = int(rng.integers(len(shapes)))
            d = (dim % nd + 1) % nd
            shapes[j][d] += 1
        elif u < 0.16:
            shapes[int(rng.integers(len(shapes)))] = []  # a 0-d tensor is an error
        elif u < 0.19:
            dim = int(rng.choice([nd, -nd - 1]))
    else:
        dim = int(rng.integers(-nd - 1, nd + 1))
        shapes = [list(base) for _ in range(n)]
        if u < 0.05 and n >= 2:
            shapes[1] = other_shape(rng, base)
        elif u < 0.08:
            dim = int(rng.choice([nd + 1, -nd - 2]))
    ins = []
    for s in shapes:
        if ins and rng.random() < 0.1 and s == ins[0].sizes:
            ins.append(ins[0])
        else:
            ins.append(c.tensor(rng, s))

    def ref():
        arrs = [c.read(t) for t in ins]
        if op == "stack":
            if any(a.shape != arrs[0].shape for a in arrs):
                raise RefError("TH_ERR_SHAPE", "stack of unequal shapes")
            d = wrap_dim(dim, arrs[0].ndim + 1)
            return np.stack(arrs, axis=d)
        if any(a.ndim == 0 for a in arrs):
            raise RefError("TH_ERR_SHAPE", "a 0-d tensor in cat")
        kept = [a for a in arrs if not (a.ndim == 1 and a.shape[0] == 0)]
        if not kept:  # only skipped tensors: dim counts in their one dim (as PyTorch)
            wrap_dim(dim, 1)
            return np.zeros((0,), NPT[dt])
        d = wrap_dim(dim, kept[0].ndim)
        for a in kept:
            if a.ndim != kept[0].ndim or any(a.shape[k] != kept[0].shape[k] for k in range(a.ndim) if k != d):
                raise RefError("TH_ERR_SHAPE", "cat of shapes that differ outside dim")
        return np.concatenate(kept, axis=d)
    try:
        guess = list(ref().shape)
    except RefError:
        guess = base
    finish(c, rng, "out" if form == "out" else "new", ref, guess, ins, extra_args=[("i", dim)])


def gen_pieces(c, rng):
    op, dt = c.op, c.dt
    u = rng.random()
    shape = rand_shape(rng, int(rng.integers(1, 4)), p_empty=0.1) if u > 0.03 else []
    nd = len(shape)
    dim = int(rng.integers(-max(nd, 1), max(nd, 1)))
    if 0.03 <= u < 0.06:
        dim = int(rng.choice([nd, -nd - 1]))
    size = shape[dim % nd] if nd and -nd <= dim < nd else 1
    if op == "split":
        arg = int(rng.integers(1, 4)) if size else int(rng.choice([0, 1, 2]))
        if 0.06 <= u < 0.09:
            arg = int(rng.choice([0, -1])) if size else -1
    else:
        arg = int(rng.integers(1, 6))
        if 0.06 <= u < 0.09:
            arg = int(rng.choice([0, -2]))
    t = c.tensor(rng, shape)
    c.arg(t)
    c.int(arg)
    c.int(dim)
    try:
        if nd == 0:
            raise RefError("TH_ERR_SHAPE", "docs/indexing.md: a 0-d tensor in split")
        d = wrap_dim(dim, nd)
        a = c.read(t)
        if op == "split":
            if arg < 0 or (arg == 0 and size != 0):
                raise RefError("TH_ERR_INVALID", "split_size must be positive (0 only for a dim of size 0)")
            piece = arg
            count = 1 if size == 0 else -(-size // piece)
        else:
            if arg <= 0:
                raise RefError("TH_ERR_INVALID", "chunks must be positive")
            # docs/indexing.md: pieces of ceil(size / chunks); a dim of size 0 gives chunks empty pieces
            piece = -(-size // arg)
            count = arg if size == 0 else -(-size // piece)
        res = []
        for k in range(count):
            sl = [slice(None)] * nd
            sl[d] = slice(k * piece, min((k + 1) * piece, size)) if size else slice(0, 0)
            res.append((a[tuple(sl)], dt, 0.0))
    except RefError as e:
        return c.fail(e.status, e.why)
    c.succeed(res, fresh=False)


def gen_flip(c, rng):
    form = c.form
    shape = rand_shape(rng)
    nd = len(shape)
    dims = [int(d) for d in rng.permutation(nd)[:int(rng.integers(0, nd + 1))]] if nd else []
    dims = [d - nd if rng.random() < 0.3 else d for d in dims]
    u = rng.random()
    if u < 0.05 and dims:
        dims.append(dims[0] - nd if dims[0] >= 0 else dims[0] + nd)  # the same dim twice
    elif u < 0.08:
        dims.append(int(rng.choice([nd, -nd - 1])))
    t = c.tensor(rng, shape)

    def ref():
        seen = set()
        for d in dims:
            w = wrap_dim(d, nd)
            if w in seen:
                raise RefError("TH_ERR_INVALID", "docs/indexing.md: a dim listed twice in flip")
            seen.add(w)
        return np.flip(c.read(t), axis=tuple(seen)) if seen and nd else c.read(t)
    finish(c, rng, form, ref, shape, [t], extra_args=[("l", dims)])


ROLL_FLAT = -2 ** 31  # TH_ROLL_FLAT (INT32_MIN, ops/shape_erased.h)


def gen_roll(c, rng):
    form = c.form
    shape = rand_shape(rng)
    nd = len(shape)
    shift = int(rng.choice([int(rng.integers(-6, 7)), int(rng.integers(-1000, 1000)), 2 ** 40 + 3]))
    u = rng.random()
    dim = ROLL_FLAT if u < 0.3 else int(rng.integers(-max(nd, 1), max(nd, 1)))
    if u > 0.95:
        dim = int(rng.choice([max(nd, 1), -max(nd, 1) - 1]))
    t = c.tensor(rng, shape)

    def ref():
        a = c.read(t)
        if dim == ROLL_FLAT:
            return np.roll(a.ravel(), shift).reshape(a.shape) if a.size else a
        d = wrap_dim(dim, nd)
        if nd == 0:
            return a.copy()
        return np.roll(a, shift % a.shape[d] if a.shape[d] else 0, axis=d)
    finish(c, rng, form, ref, shape, [t], extra_args=[("i", shift), ("i", dim)])


def gen_repeat(c, rng):
    form = c.form
    shape = rand_shape(rng, max_nd=3, max_size=3)
    nd = len(shape)
    reps = [int(x) for x in rng.integers(0, 4, nd + int(rng.integers(0, 3)))]
    u = rng.random()
    if u < 0.05 and nd:
        reps = reps[:nd - 1]
    elif u < 0.08 and reps:
        reps[int(rng.integers(len(reps)))] = -1
    t = c.tensor(rng, shape)

    def ref():
        if len(reps) < nd:
            raise RefError("TH_ERR_SHAPE", "docs/indexing.md: fewer repeats than dims")
        if any(r < 0 for r in reps):
            raise RefError("TH_ERR_INVALID", "docs/indexing.md: a negative repeat")
        return np.tile(c.read(t), reps) if reps else c.read(t).copy()
    try:
        guess = list(ref().shape)
    except RefError:
        guess = shape
    finish(c, rng, form, ref, guess, [t], extra_args=[("l", reps)])


# ---- indexing (docs/indexing.md, "Indexing ops") ----

NO_EXPAND = ["contiguous", "permuted", "stepped", "negative"]


def valid_indices(bound, bad=False):
    """Index values in -bound..bound-1 (negative ones count from the end: docs/indexing.md), one of them out
    of range when bad."""
    def f(rng, shape):
        if bound == 0:
            v = np.zeros(shape, dtype=np.int64)
        else:
            v = rng.integers(-bound, bound, shape)
        if bad and v.size:
            v.flat[int(rng.integers(v.size))] = int(rng.choice([bound, -bound - 1, bound + 5]))
        return v
    return f


def add_elem(dt, x, y):
    """One addition of the dtype's own (docs/indexing.md: "integers wrap, bool adds as logical or, float16
    and bfloat16 add in float and round once")."""
    k = kind(dt)
    if k == "b":
        return np.bool_(bool(x) or bool(y))
    if k in "ui":
        return wrap(int(x) + int(y), dt)[()]
    with np.errstate(all="ignore"):
        return rnd(fcomp(dt)(x) + fcomp(dt)(y), dt)[()]


def gen_dimidx(c, rng):
    """index_select and gather, new and _out."""
    op, dt, form = c.op, c.dt, c.form
    u = rng.random()
    bad = u < 0.05
    nd = int(rng.integers(0 if op == "index_select" else 1, 4))
    shape = rand_shape(rng, nd, p_empty=0.05)
    dim = int(rng.integers(-max(nd, 1), max(nd, 1)))
    if 0.05 <= u < 0.08:
        dim = int(rng.choice([max(nd, 1), -max(nd, 1) - 1]))
    size = (shape[dim % nd] if nd else 1) if -max(nd, 1) <= dim < max(nd, 1) else 1
    if op == "index_select":
        ishape = [] if nd == 0 or rng.random() < 0.15 else [int(rng.integers(0, 6))]
        if 0.08 <= u < 0.11:
            ishape = [2, 2]
    else:
        if rng.random() < 0.3:
            ishape = list(shape)
        else:
            ishape = [int(rng.integers(0, s + 1)) for s in shape]
            if nd:
                ishape[dim % nd if -nd <= dim < nd else 0] = int(rng.integers(0, 5))
        if 0.08 <= u < 0.11 and nd >= 2:
            k = (dim % nd + 1) % nd
            ishape[k] = shape[k] + 1
        elif 0.11 <= u < 0.13:
            ishape = ishape + [1]
    if size == 0 and not bad:
        ishape = [0] * len(ishape) if ishape else ishape
    t = c.tensor(rng, shape)
    idx = c.tensor(rng, ishape, "i64", values=valid_indices(size, bad))

    def ref():
        a, ix = c.read(t), c.read(idx)
        if op == "index_select":
            if ix.ndim > 1:
                raise RefError("TH_ERR_SHAPE", "docs/indexing.md: an index of more than one dim")
            d = wrap_dim(dim, max(nd, 1))
            check_range(ix, size, d)
            if nd == 0:
                if ix.size != 1:
                    raise RefError("TH_ERR_SHAPE", "a 0-d tensor takes exactly one index")
                return a.copy()
            return np.take(a, ix.reshape(-1) % max(size, 1), axis=d)
        if ix.ndim != nd:
            raise RefError("TH_ERR_SHAPE", "gather: index has another ndim")
        d = wrap_dim(dim, nd)
        for k in range(nd):
            if k != d and ix.shape[k] > a.shape[k]:
                raise RefError("TH_ERR_SHAPE", "gather: index longer than t outside dim")
        check_range(ix, size, d)
        r = np.zeros(ix.shape, NPT[dt])
        for p in np.ndindex(*ix.shape):
            q = list(p)
            q[d] = int(ix[p]) % size
            r[p] = a[tuple(q)]
        return r
    try:
        guess = list(ref().shape)
    except RefError:
        guess = ishape
    c.note = "bad-index" if bad else ""
    finish(c, rng, form, ref, guess, [t, idx], extra_args=[("i", dim)])


def check_range(ix, bound, d):
    if ix.size and (ix.min() < -bound or ix.max() >= bound):
        raise RefError("TH_ERR_RANGE", f"docs/indexing.md: an index out of range for dim {d} of size {bound}")


def gen_scatter(c, rng):
    op, dt, form = c.op, c.dt, c.form
    u = rng.random()
    bad = u < 0.05
    nd = int(rng.integers(1, 4))
    shape = rand_shape(rng, nd, p_empty=0.03)
    dim = int(rng.integers(-nd, nd))
    d = dim % nd
    size = shape[d]
    ishape = [int(rng.integers(0, s + 1)) for s in shape]
    ishape[d] = int(rng.integers(0, (size if op == "scatter" else 4) + 1))
    if size == 0:
        ishape[d] = 0
    sshape = [s + int(rng.integers(0, 2)) for s in ishape]
    if 0.05 <= u < 0.08 and nd >= 2:
        sshape[(d + 1) % nd] = max(ishape[(d + 1) % nd] - 1, 0)
        if sshape[(d + 1) % nd] == ishape[(d + 1) % nd]:
            ishape[(d + 1) % nd] += 1
            sshape[(d + 1) % nd] = ishape[(d + 1) % nd] - 1
    elif 0.08 <= u < 0.10:
        dim = int(rng.choice([nd, -nd - 1]))

    def unique_targets(r, s):
        """Distinct targets along dim for each position outside it: scatter does not promise which of
        several writes to one element wins (docs/indexing.md)."""
        v = np.zeros(s, dtype=np.int64)
        if not v.size:
            return v
        moved = np.moveaxis(v, d, -1)
        for p in np.ndindex(*moved.shape[:-1]):
            perm = r.permutation(size)[:moved.shape[-1]]
            moved[p] = np.where(r.random(len(perm)) < 0.3, perm - size, perm)
        if bad:
            v.flat[int(r.integers(v.size))] = size + 1
        return v
    values = unique_targets if op == "scatter" else valid_indices(size, bad)
    target = form == "inplace"
    t = c.tensor(rng, shape, writable=target)
    istyle = NO_EXPAND[int(rng.integers(4))] if op == "scatter" else None
    if dt == "i64" and rng.random() < 0.3:  # the index in the target's memory: it must be read before writes
        idx = c.view_on(rng, t, ishape, "i64", writable=False, style=istyle, values=values)
        c.note += " index-overlaps-t"
    else:
        idx = c.tensor(rng, ishape, "i64", values=values, style=istyle)
    if rng.random() < 0.3:
        src = c.view_on(rng, t, sshape, writable=False)
        c.note += " src-overlaps-t"
    else:
        src = c.tensor(rng, sshape)
    if target and u > 0.1 and rng.random() < 0.05:
        t = c.tensor(rng, shape, style="expanded")

    def ref():
        a, ix, sv = c.read(t), c.read(idx), c.read(src)
        dd = wrap_dim(dim, nd)
        if ix.ndim != nd or sv.ndim != nd:
            raise RefError("TH_ERR_SHAPE", "scatter: ndims differ")
        for k in range(nd):
            if ix.shape[k] > sv.shape[k] or (k != dd and ix.shape[k] > a.shape[k]):
                raise RefError("TH_ERR_SHAPE", "docs/indexing.md: index longer than src, or than t outside dim")
        check_range(ix, a.shape[dd], dd)
        r = a.copy()
        for p in np.ndindex(*ix.shape):
            q = list(p)
            q[dd] = int(ix[p]) % a.shape[dd]
            q = tuple(q)
            r[q] = sv[p] if op == "scatter" else add_elem(dt, r[q], sv[p])
        return r
    c.note += " bad-index" if bad else ""
    finish(c, rng, form, ref, shape, [t, idx, src], extra_args=[("i", dim)])


def gen_masked_fill(c, rng):
    dt = c.dt
    gen_elementwise(c, rng, c.form, [dt, "bool"], [plain(dt), plain("bool")], [(dt, plain(dt))],
                    lambda a, m, v: (np.where(m, v, a), 0.0), dt)


def gen_masked_select(c, rng):
    shapes = broadcastable(rng, 2)
    if rng.random() < 0.05:
        break_broadcast(rng, shapes, 1)
    t = c.tensor(rng, shapes[0])
    m = c.tensor(rng, shapes[1], "bool")

    def ref():
        full = broadcast(t.shape, m.shape)
        a = np.broadcast_to(c.read(t), full)
        return a[np.broadcast_to(c.read(m), full)]
    finish(c, rng, "new", ref, [], [t, m])


def gen_nonzero(c, rng):
    dt = c.dt
    t = c.tensor(rng, rand_shape(rng), values=lambda r, s: np.where(r.random(s) < 0.4, np.zeros(s, NPT[dt]),
                                                                   draw(r, dt, s)))
    finish(c, rng, "new", lambda: np.argwhere(nonzero_mask(c.read(t))).astype(np.int64), [], [t],
           out_dt="i64")


def gen_take(c, rng):
    dt, form = c.dt, c.form
    shape = rand_shape(rng, p_empty=0.05)
    n = int(np.prod(shape)) if shape else 1
    bad = rng.random() < 0.05
    ishape = rand_shape(rng, max_nd=3)
    if n == 0 and not bad:
        ishape = ishape[:-1] + [0] if ishape else [0]
    t = c.tensor(rng, shape)
    idx = c.tensor(rng, ishape, "i64", values=valid_indices(n, bad))

    def ref():
        ix = c.read(idx)
        check_range(ix, n, "flat")
        return c.read(t).reshape(-1)[ix % max(n, 1)] if ix.size else np.zeros(ix.shape, NPT[dt])
    finish(c, rng, form, ref, ishape, [t, idx])


def gen_put(c, rng):
    dt, form = c.dt, c.form
    shape = rand_shape(rng, p_empty=0)
    n = int(np.prod(shape)) if shape else 1
    bad = rng.random() < 0.05
    ishape = rand_shape(rng, max_nd=2, max_size=5)
    k = int(np.prod(ishape)) if ishape else 1
    sshape = [k] if rng.random() < 0.5 else list(ishape)
    if not bad and rng.random() < 0.05:
        sshape = [k + 1]
    accumulate = bool(rng.random() < 0.5)
    t = c.tensor(rng, shape, writable=form == "inplace")
    if dt == "i64" and rng.random() < 0.3:
        idx = c.view_on(rng, t, ishape, "i64", writable=False, values=valid_indices(n, bad))
        c.note += " index-overlaps-t"
    else:
        idx = c.tensor(rng, ishape, "i64", values=valid_indices(n, bad))
    if rng.random() < 0.3:
        src = c.view_on(rng, t, sshape, writable=False)
        c.note += " src-overlaps-t"
    else:
        src = c.tensor(rng, sshape)

    def ref():
        ix, sv = c.read(idx).reshape(-1), c.read(src).reshape(-1)
        if len(ix) != len(sv):
            raise RefError("TH_ERR_SHAPE", "docs/indexing.md: put's index and src counts differ")
        check_range(ix, n, "flat")
        r = c.read(t).reshape(-1).copy()
        for i, v in zip(ix, sv):
            j = int(i) % n
            r[j] = add_elem(dt, r[j], v) if accumulate else v
        return r.reshape(t.shape)
    finish(c, rng, form, ref, shape, [t, idx, src], extra_args=[("i", accumulate)])


# ---- creation (docs/creation.md) ----

def gen_arange(c, rng):
    dt = c.dt
    u = rng.random()
    if kind(dt) == "f":
        grid = lambda: float(rng.integers(-12, 13)) / float(rng.choice([1, 2, 4, 3]))
        start, end, step = grid(), grid(), grid()
        if u < 0.05:
            step = 0.0
        elif u < 0.08:
            start = float(rng.choice([np.inf, np.nan]))
        for v in (start, end, step):
            c.scalar("f64", v)

        def ref():
            if step == 0 or not all(math.isfinite(v) for v in (start, end, step)):
                raise RefError("TH_ERR_INVALID", "docs/creation.md: step 0 or a bound that is not finite")
            n = max(0, math.ceil((end - start) / step))
            return rnd(start + np.arange(n, dtype=np.float64) * step, dt)
    else:
        lo, hi = irange(dt)
        start = int(rng.integers(max(lo, -20), min(hi, 20) + 1))
        end = int(rng.integers(max(lo, -20), min(hi, 20) + 1))
        step = int(rng.choice([1, 2, 3, -1, -2, 5]))
        if u < 0.05:
            step = 0
        elif u < 0.1:
            # values beyond the dtype; for i64, whose arguments cannot go beyond, more than 2^63 - 1 of them
            start, end, step = (hi - 2, hi + 3, 1) if dt != "i64" else (lo, hi, 1)
        elif u < 0.13:
            start, end, step = lo, hi, (hi - lo) // 3  # the extremes
        for v in (start, end, step):
            c.int(v)

        def ref():
            if step == 0:
                raise RefError("TH_ERR_INVALID", "docs/creation.md: step 0")
            n = max(0, -((start - end) // step))
            if n > 2 ** 63 - 1:
                raise RefError("TH_ERR_OVERFLOW", "docs/creation.md: an arange of more than 2^63 - 1 elements")
            vals = [start + i * step for i in range(n)]
            if any(not lo <= v <= hi for v in vals):
                raise RefError("TH_ERR_RANGE", "docs/creation.md: integer arange values outside the dtype")
            return np.array(vals, dtype=NPT[dt])
    finish(c, rng, "new", ref, [], [], null_p=0)


def gen_linspace(c, rng):
    dt = c.dt
    start = float(rng.integers(-20, 21)) / float(rng.choice([1, 3, 4]))
    end = float(rng.integers(-20, 21)) / float(rng.choice([1, 3, 4]))
    steps = int(rng.integers(0, 10)) if rng.random() > 0.05 else -1
    c.scalar("f64", start)
    c.scalar("f64", end)
    c.int(steps)

    def ref():
        if steps < 0:
            raise RefError("TH_ERR_INVALID", "docs/creation.md: negative steps")
        if steps == 1:
            return rnd(np.array([start]), dt)
        # docs/creation.md: "both exact: the first half counted from start, the second from end"
        step = (end - start) / (steps - 1) if steps > 1 else 0.0
        i = np.arange(steps, dtype=np.float64)
        v = np.where(i < steps // 2, start + step * i, end - step * (steps - 1 - i))
        r = rnd(v, dt)
        return r, np.where((i == 0) | (i == steps - 1), 0.0, 2 * ulp(dt, r) + 4 * eps("f64") * np.abs(v))
    finish(c, rng, "new", ref, [], [], null_p=0)


def gen_eye(c, rng):
    dt = c.dt
    n, m = int(rng.integers(0, 6)), int(rng.integers(0, 6))
    c.int(n)
    c.int(m)
    finish(c, rng, "new", lambda: np.eye(n, m).astype(NPT[dt]), [], [], null_p=0)


def gen_diag(c, rng):
    dt = c.dt
    nd = int(rng.choice([1, 1, 2, 2, 2, 0, 3]))
    shape = rand_shape(rng, nd, max_size=5, p_empty=0.05)
    k = int(rng.integers(-4, 5))
    t = c.tensor(rng, shape)

    def ref():
        if nd not in (1, 2):
            raise RefError("TH_ERR_SHAPE", "docs/creation.md: diag of other than 1-d or 2-d")
        a = c.read(t)
        if nd == 1:
            r = np.zeros((len(a) + abs(k),) * 2, NPT[dt])
            if len(a):
                r[np.arange(len(a)) + max(-k, 0), np.arange(len(a)) + max(k, 0)] = a
            return r
        return np.diagonal(a, k).copy()
    finish(c, rng, "new", ref, [], [t], extra_args=[("i", k)])


def gen_tri(c, rng):
    op, form = c.op, c.form
    nd = int(rng.choice([2, 2, 3, 4, 1, 0])) if rng.random() < 0.95 else 1
    shape = rand_shape(rng, nd, max_size=5)
    k = int(rng.integers(-5, 6))
    t = c.tensor(rng, shape, writable=form == "inplace")

    def ref():
        if nd < 2:
            raise RefError("TH_ERR_SHAPE", "docs/creation.md: triangles of fewer than 2 dims")
        return (np.tril if op == "tril" else np.triu)(c.read(t), k)
    finish(c, rng, form, ref, shape, [t], extra_args=[("i", k)])


# ---- sorting (docs/creation.md, "Sorting") ----

def sort_key(dt):
    """NaN above every number and all NaNs equal, -0.0 equal to 0.0 (docs/creation.md, "Order")."""
    if kind(dt) in "bui":
        return lambda x: (0, int(x))
    return lambda x: (1, 0.0) if x != x else (0, float(x))


def stable_order(row, dt, descending):
    key = sort_key(dt)
    return sorted(range(len(row)), key=lambda i: key(row[i]), reverse=descending)


def along(a, d, f):
    """f(row) -> list of arrays, for every row of a along dim d; the results stacked back along d."""
    moved = np.moveaxis(a, d, -1)
    # the shapes and dtypes of the outputs come from a row of zeros, so that no rows at all still have them
    outs = [np.zeros(moved.shape[:-1] + (len(r),), dtype=r.dtype) for r in f(np.zeros(moved.shape[-1], a.dtype))]
    for p in np.ndindex(*moved.shape[:-1]):
        for o, r in zip(outs, f(moved[p])):
            o[p] = r
    return [np.moveaxis(o, -1, d) for o in outs]


def gen_sort(c, rng):
    op, dt, form = c.op, c.dt, c.form
    shape = rand_shape(rng, p_empty=0.03)
    nd = len(shape)
    dim = int(rng.integers(-max(nd, 1), max(nd, 1)))
    if rng.random() < 0.04:
        dim = int(rng.choice([max(nd, 1), -max(nd, 1) - 1]))
    t = c.tensor(rng, shape, values=lambda r, s: draw(r, dt, s, small=r.random() < 0.6))
    flags = [bool(x) for x in rng.random(3) < 0.5]
    length = (shape[dim % nd] if nd else 1) if -max(nd, 1) <= dim < max(nd, 1) else 1
    # docs/creation.md: "a 0-d tensor has one element, so k is 1"
    kk = int(rng.integers(0, length + 1)) if nd else 1
    if op == "topk" and rng.random() < 0.05 and -max(nd, 1) <= dim < max(nd, 1):
        kk = int(rng.choice([length + 1, -1]))
    want_idx = bool(rng.random() < 0.7)

    def ref():
        a = c.read(t)
        d = wrap_dim(dim, max(nd, 1))
        x = a.reshape(1) if nd == 0 else a
        dd = 0 if nd == 0 else d
        if op == "sort":
            desc = flags[0]
            vals, idx = along(x, dd, lambda row: (row[stable_order(row, dt, desc)],
                                                  np.array(stable_order(row, dt, desc), dtype=np.int64)))
        else:
            if not 0 <= kk <= length:
                raise RefError("TH_ERR_RANGE", "docs/creation.md: k outside 0..size of dim")
            largest, sort_them = flags[0], flags[1]

            def pick(row):
                order = stable_order(row, dt, largest)[:kk]
                if not sort_them:
                    order = sorted(order)  # "the same k elements in their order along the dim"
                return row[order], np.array(order, dtype=np.int64)
            vals, idx = along(x, dd, pick)
        if nd == 0:
            vals, idx = vals.reshape(()), idx.reshape(())
        return vals, idx
    args_ints = [("i", kk)] if op == "topk" else []
    args_ints.append(("i", dim))
    args_ints += [("i", flags[0])] + ([("i", flags[1])] if op == "topk" else [])
    if form == "out":
        try:
            vals, idx = ref()
            sizes = list(vals.shape)
        except RefError:
            sizes = shape
        u = rng.random()
        if u < 0.5:
            values_out = c.view_on(rng, t, sizes, exact=t.shape == tuple(sizes) and
                                   not overlaps_itself(t.sizes, t.strides)) if u < 0.3 else \
                c.out_for(rng, sizes, [t], p_alias=0.5)
        else:
            values_out = c.tensor(rng, other_shape(rng, sizes) if u > 0.96 else sizes, writable=True)
        indices_out = c.tensor(rng, sizes, "i64", writable=True) if want_idx else None
        if want_idx and dt == "i64" and rng.random() < 0.4:
            indices_out = c.view_on(rng, t, sizes, "i64")
            if views_overlap(indices_out, values_out):  # which of two outs wins is not defined
                indices_out = c.tensor(rng, sizes, "i64", writable=True)
        c.arg(values_out)
        c.arg(indices_out)
        c.arg(t)
        for _, v in args_ints:
            c.int(v)
        try:
            vals, idx = ref()
        except RefError as e:
            return c.fail(e.status, e.why)
        for o in (values_out, indices_out):
            if o is not None and list(o.shape) != list(vals.shape):
                return c.fail("TH_ERR_SHAPE", "an out of another shape")
            if o is not None and overlaps_itself(o.sizes, o.strides):
                return c.fail("TH_ERR_INVALID", "an out with two elements at one address")
        writes = [(values_out, vals, 0.0)] + ([(indices_out, idx, 0.0)] if want_idx else [])
        return c.succeed(writes=writes)
    c.arg(t)
    for _, v in args_ints:
        c.int(v)
    c.int(want_idx)
    try:
        vals, idx = ref()
    except RefError as e:
        return c.fail(e.status, e.why)
    c.succeed([(vals, dt, 0.0), (idx, "i64", 0.0) if want_idx else None], contiguous=True)


def gen_unique(c, rng):
    dt = c.dt
    t = c.tensor(rng, rand_shape(rng, p_empty=0.05), values=lambda r, s: draw(r, dt, s, small=r.random() < 0.7))
    sorted_, want_inv, want_counts = [bool(x) for x in rng.random(3) < 0.5]
    c.arg(t)
    c.int(sorted_)
    c.int(want_inv)
    c.int(want_counts)
    a = c.read(t)
    key = sort_key(dt)
    first = {}
    order = []
    counts = {}
    for x in a.reshape(-1):
        kx = key(x)
        if kx not in first:
            first[kx] = x  # "of -0.0 and 0.0 the first seen is kept"
            order.append(kx)
        counts[kx] = counts.get(kx, 0) + 1
    if sorted_:
        order = sorted(order)
    pos = {kx: i for i, kx in enumerate(order)}
    vals = np.array([first[kx] for kx in order], dtype=NPT[dt]).reshape(-1)
    inv = np.array([pos[key(x)] for x in a.reshape(-1)], dtype=np.int64).reshape(a.shape)
    cnt = np.array([counts[kx] for kx in order], dtype=np.int64).reshape(-1)
    c.succeed([(vals, dt, 0.0), (inv, "i64", 0.0) if want_inv else None,
               (cnt, "i64", 0.0) if want_counts else None], contiguous=True)


# ---- linear algebra (docs/linalg.md) ----

def product_ref(dt, a, b):
    """a @ b as np.matmul shapes it; integers exactly and wrapped (docs/linalg.md: "Integers accumulate in
    uint64_t, so they wrap"), floating in long double with a tolerance of the sum of |products|."""
    k = kind(dt)
    if k in "ui":
        return wrap(np.matmul(ints(a), ints(b)), dt), 0.0, None
    W = np.clongdouble if k == "c" else np.longdouble
    with np.errstate(all="ignore"):
        p = np.matmul(a.astype(W), b.astype(W))
        mag = np.matmul(np.abs(a).astype(np.longdouble), np.abs(b).astype(np.longdouble))
    return p, mag, W


def gen_product(c, rng):
    op, dt, form = c.op, c.dt, c.form
    add = op in ("addmm", "addmv", "baddbmm", "addr")
    m, kk, n, bb = (int(rng.integers(0, 5)) if rng.random() < 0.1 else int(rng.integers(1, 6)) for _ in range(4))
    if rng.random() < 0.15:  # past the kernel's 4-row panels, 64-byte column panels and eight running sums
        m, kk, n = (int(rng.integers(5, 40)) for _ in range(3))
    elif rng.random() < 0.03:  # past its 128 x 256 blocks and 256-deep slices
        m, kk, n = int(rng.integers(129, 140)), int(rng.integers(257, 270)), int(rng.integers(1, 4))
        if rng.random() < 0.5:
            m, n = n, m
    shapes = {"dot": ([kk], [kk]), "mv": ([m, kk], [kk]), "mm": ([m, kk], [kk, n]), "bmm": ([bb, m, kk], [bb, kk, n]),
              "outer": ([m], [n]), "addmm": ([m, kk], [kk, n]), "addmv": ([m, kk], [kk]),
              "baddbmm": ([bb, m, kk], [bb, kk, n]), "addr": ([m], [n])}
    if op == "matmul":
        na, nb = int(rng.integers(1, 5)), int(rng.integers(1, 5))
        batch = rand_shape(rng, max(na, nb) - 2, max_size=3, p_empty=0) if max(na, nb) > 2 else []
        sa = [1 if rng.random() < 0.25 else x for x in batch[len(batch) - (na - 2):]] if na > 2 else []
        sb = [1 if rng.random() < 0.25 else x for x in batch[len(batch) - (nb - 2):]] if nb > 2 else []
        sa = sa + ([m, kk] if na >= 2 else [kk])
        sb = sb + ([kk, n] if nb >= 2 else [kk])
    else:
        sa, sb = shapes[op]
        sa, sb = list(sa), list(sb)
    u = rng.random()
    if u < 0.05 and op != "outer" and op != "addr":
        sb[0 if len(sb) == 1 else -2] += 1  # inner sizes differ
    elif u < 0.08 and op in ("bmm", "baddbmm"):
        sb[0] += 1
    elif u < 0.10 and op not in ("matmul",):
        sa = sa + [1]  # the wrong number of dims
    vals = plain(dt, small=True) if kind(dt) in "uic" else plain(dt, finite=True, tame=True)
    A = c.tensor(rng, sa, values=lambda r, s: vals(r, s, False))
    B = c.tensor(rng, sb, values=lambda r, s: vals(r, s, False))

    def base_ref():
        a, b = c.read(A), c.read(B)
        want = {"dot": (1, 1), "mv": (2, 1), "mm": (2, 2), "bmm": (3, 3), "outer": (1, 1), "addmm": (2, 2),
                "addmv": (2, 1), "baddbmm": (3, 3), "addr": (1, 1)}.get(op)
        if want and (a.ndim, b.ndim) != want:
            raise RefError("TH_ERR_SHAPE", "operands of the wrong number of dims")
        if op in ("outer", "addr"):
            a, b = a.reshape(-1, 1), b.reshape(1, -1)
        if a.shape[-1] != b.shape[0 if b.ndim == 1 else -2]:
            raise RefError("TH_ERR_SHAPE", "inner sizes differ")
        if op in ("bmm", "baddbmm") and a.shape[0] != b.shape[0]:
            raise RefError("TH_ERR_SHAPE", "batch sizes differ")
        try:
            np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        except ValueError:
            raise RefError("TH_ERR_SHAPE", "batch dims do not broadcast") from None
        return product_ref(dt, a, b)
    try:
        p0, _, _ = base_ref()
        rshape = list(np.shape(p0))
    except RefError:
        rshape = [m, n]
    C = None
    beta = alpha = None
    if add:
        cshape = broadcastable(rng, 1, rshape)[0]
        beta = pyvalue(vals(rng, (), False))
        alpha = pyvalue(vals(rng, (), False))
        if rng.random() < 0.2:
            beta = 0 if kind(dt) in "ui" else 0.0
        # docs/linalg.md: "With beta == 0 the added tensor is not read, so NaN in it does not reach the result"
        cvals = plain(dt) if beta == 0 and kind(dt) in "f" else vals
        C = c.tensor(rng, cshape if form != "inplace" else rshape, values=lambda r, s: cvals(r, s, False),
                     writable=form == "inplace")

    def ref():
        p, mag, W = base_ref()
        if add:
            cv = c.read(C)
            try:
                np.broadcast_shapes(cv.shape, np.shape(p))
                if np.broadcast_shapes(cv.shape, np.shape(p)) != np.shape(p):
                    raise ValueError
            except ValueError:
                raise RefError("TH_ERR_SHAPE", "the added tensor does not broadcast to the result") from None
            if kind(dt) in "ui":
                return wrap(int(beta) * ints(cv) + int(alpha) * ints(p), dt), 0.0
            with np.errstate(all="ignore"):
                cterm = np.zeros(np.shape(p), W) if beta == 0 else W(beta) * cv.astype(W)
                p = cterm + W(alpha) * p
                mag = np.abs(cterm).astype(np.longdouble) + abs(alpha) * mag
        if kind(dt) in "ui":
            return p, 0.0
        r = rnd(np.asarray(p).astype(np.complex128 if kind(dt) == "c" else np.float64), dt)
        kdim = np.shape(c.read(A))[-1] if op not in ("outer", "addr") else 1
        # docs/linalg.md: the built-in kernel accumulates in accreal, but CBLAS (f32, f64, c64, c128 when
        # built with it) in the dtype itself
        unit = acc_eps(dt) if dt in ("f16", "bf16") else eps(dt)
        tol = 2 * ulp(dt, np.abs(r)) + (kdim + 3) * unit * np.asarray(mag, dtype=np.float64)
        return r, tol
    ins = [C, A, B] if add else [A, B]
    extra = [("x", beta), ("x", alpha)] if add else []
    finish(c, rng, form, ref, rshape, ins, extra_args=extra)


# ---- logspace, copies and conversions (docs/creation.md, docs/core.md) ----

def gen_logspace(c, rng):
    dt = c.dt
    start, end = float(rng.integers(-6, 7)) / 2, float(rng.integers(-6, 7)) / 2
    steps = int(rng.integers(0, 8))
    base = float(rng.choice([10.0, 2.0, 0.5, 3.0]))
    c.scalar("f64", start)
    c.scalar("f64", end)
    c.scalar("f64", base)
    c.int(steps)

    def ref():
        # docs/creation.md: pow(base, linspace(...))
        i = np.arange(steps, dtype=np.float64)
        step = (end - start) / (steps - 1) if steps > 1 else 0.0
        v = np.where(i < steps // 2, start + step * i, end - step * (steps - 1 - i)) if steps > 1 else \
            np.full(steps, start)
        r = rnd(np.power(base, v), dt)
        return r, 4 * ulp(dt, r) + 8 * eps("f64") * np.abs(np.power(base, v)) * (1 + np.abs(v))
    finish(c, rng, "new", ref, [], [], null_p=0)


def gen_clone(c, rng):
    """clone copies; contiguous (docs/core.md) returns t itself, retained, when it is contiguous."""
    dt = c.dt
    t = c.tensor(rng, rand_shape(rng))
    c.arg(t)
    a = c.read(t)
    view_kept = c.op == "contiguous" and is_contiguous(t)
    c.succeed([(a, dt, 0.0)], contiguous=True, fresh=not view_kept)


def is_contiguous(t):
    """Row-major with no gaps, ignoring the strides of dims of size 1 (and of empty tensors)."""
    if any(s == 0 for s in t.sizes):
        return True
    want = 1
    for s, st in reversed(list(zip(t.sizes, t.strides))):
        if s != 1 and st != want:
            return False
        want *= s
    return True


def gen_copy(c, rng):
    """th_<sfx>_copy(dst, src): src broadcasts to dst's shape and may overlap it (docs/core.md)."""
    full = rand_shape(rng)
    src_shape = broadcastable(rng, 1, full)[0]
    if rng.random() < 0.05:
        src_shape = other_shape(rng, full) if full else [2]
    src = c.tensor(rng, src_shape)
    dst = c.view_on(rng, src, full, exact=False) if rng.random() < 0.4 else c.tensor(rng, full, writable=True)
    if rng.random() < 0.1 and src.shape == tuple(full) and not overlaps_itself(src.sizes, src.strides):
        dst = src
    c.arg(dst)
    c.arg(src)
    try:
        if broadcast(src_shape, full) != full:
            raise RefError("TH_ERR_SHAPE", "src does not broadcast to dst's shape")
    except RefError as e:
        return c.fail(e.status, e.why)
    c.succeed(writes=[(dst, np.broadcast_to(c.read(src), full), 0.0)])


def round_int(n, dt):
    """The integer n rounded once to floating dt (to nearest, ties to even), as docs/core.md says every
    conversion not listed otherwise does; NumPy's int64 -> float32 goes through double and may round twice."""
    if n == 0:
        return 0.0
    bits = MANT[dt] + 1
    m = abs(n)
    shift = max(m.bit_length() - bits, 0)
    q, r = divmod(m, 1 << shift)
    half = 1 << shift >> 1
    if shift and (r > half or (r == half and q & 1)):
        q += 1
    v = float(q << shift) if (q << shift).bit_length() <= 1024 else math.inf
    if v > FMAX[dt]:
        v = math.inf
    return math.copysign(v, n)


def bf16_from_f64(x):
    """float64 -> bfloat16 in one rounding: to float32 rounding to odd first, which a second rounding to
    nearest even at 8 bits cannot tell from the exact value."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(over="ignore", invalid="ignore"):
        t = x.astype(np.float32)
        bits = t.view(np.uint32).copy()
        inexact = np.isfinite(x) & (t.astype(np.float64) != x) & ((bits & 1) == 0)
        toward = np.where(np.abs(t.astype(np.float64)) > np.abs(x), -1, 1).astype(np.int64)
        bits = np.where(inexact, (bits.astype(np.int64) + toward).astype(np.uint32), bits)
    return bf16_round(bits.view(np.float32))


def convert_value(x, src, dst):
    """One element converted by docs/core.md's rules: to bool, nonzero (NaN too) is true; floating to integer
    truncates toward zero, saturates at the range, NaN gives 0; integer to a narrower integer wraps; complex
    to real keeps the real part; everything else rounds to nearest even, once."""
    ks, kd = kind(src), kind(dst)
    if kd == "b":
        return bool(x != 0)
    if ks == "c" and kd != "c":
        x, ks = x.real, "f"
    if kd in "ui":
        if ks in "bui":
            return int(wrap(int(x), dst)[()])
        f = float(x)
        if f != f:
            return 0
        lo, hi = irange(dst)
        return int(min(max(math.trunc(f) if math.isfinite(f) else (hi if f > 0 else lo), lo), hi))
    part = part_dt(dst)
    if ks in "bui":
        v = round_int(int(x), part)
        return complex(v, 0.0) if kd == "c" else v
    if kd == "c":
        z = complex(x)
        return complex(float(one_float(z.real, part)), float(one_float(z.imag, part)))
    return float(one_float(float(x), part))


def one_float(f, dt):
    """f rounded once to dt."""
    if dt == "bf16":
        return bf16_from_f64(np.float64(f))[()]
    with np.errstate(over="ignore"):
        return np.asarray(np.float64(f)).astype(NPT[dt])[()]


def gen_convert(c, rng):
    dst = c.dt
    src = DTYPES[int(rng.integers(len(DTYPES)))]
    t = c.tensor(rng, rand_shape(rng), src, values=lambda r, s: draw(r, src, s, small=r.random() < 0.3))
    c.arg(t)
    c.note = f"from {src}"
    a = c.read(t)
    r = np.array([convert_value(x, src, dst) for x in a.reshape(-1)], dtype=NPT[dst]).reshape(a.shape)
    c.succeed([(r, dst, 0.0)])


def gen_tensor_copy(c, rng):
    """th_tensor_copy(dst, src) between any two dtypes, src broadcast to dst's shape."""
    src_dt = DTYPES[int(rng.integers(len(DTYPES)))]
    dst_dt = DTYPES[int(rng.integers(len(DTYPES)))]
    full = rand_shape(rng)
    src_shape = broadcastable(rng, 1, full)[0]
    src = c.tensor(rng, src_shape, src_dt, values=lambda r, s: draw(r, src_dt, s, small=r.random() < 0.3))
    dst = c.tensor(rng, full, dst_dt, writable=True)
    c.arg(dst)
    c.arg(src)
    c.note = f"{src_dt} -> {dst_dt}"
    a = np.broadcast_to(c.read(src), full)
    r = np.array([convert_value(x, src_dt, dst_dt) for x in a.reshape(-1)], dtype=NPT[dst_dt]).reshape(full)
    c.succeed(writes=[(dst, r, 0.0)])

# ---- views (docs/core.md, "Views"): results share the storage ----

def strided(c, t):
    """t as a NumPy view with t's own strides, to ask NumPy whether a shape can be had without a copy."""
    buf = np.arange(len(c.storages[t.sid][1]), dtype=np.int64)
    return np.lib.stride_tricks.as_strided(buf[t.offset:], shape=t.shape, strides=[8 * st for st in t.strides])


def viewable(c, t, shape):
    v = strided(c, t).view()
    try:
        v.shape = tuple(shape)
    except AttributeError:
        return False
    return True


def other_factoring(rng, shape):
    """Another shape of the same element count: reversed, two dims merged, one split, flat, or with a -1."""
    n = int(np.prod(shape)) if shape else 1
    u = rng.random()
    if u < 0.2 or len(shape) == 0:
        return [n]
    if u < 0.4:
        return list(reversed(shape))
    if u < 0.6 and len(shape) >= 2:
        d = int(rng.integers(len(shape) - 1))
        return shape[:d] + [shape[d] * shape[d + 1]] + shape[d + 2:]
    if u < 0.8:
        d = int(rng.integers(len(shape)))
        f = next((k for k in (2, 3) if shape[d] % k == 0 and shape[d] > k), None)
        if f:
            return shape[:d] + [f, shape[d] // f] + shape[d + 1:]
    s = list(shape)
    s[int(rng.integers(len(s)))] = -1
    return s


def resolve_sizes(shape, n):
    known = int(np.prod([x for x in shape if x != -1])) if shape else 1
    if -1 in shape:
        if known == 0 or n % known:
            raise RefError("TH_ERR_SHAPE", "no size for -1 gives the element count")
        shape = [n // known if x == -1 else x for x in shape]
    if (int(np.prod(shape)) if shape else 1) != n:
        raise RefError("TH_ERR_SHAPE", "another element count")
    return shape


def gen_view(c, rng):
    op, dt = c.op, c.dt
    nd_min = 1 if op in ("narrow", "select", "unfold", "transpose") else 0
    shape = rand_shape(rng, int(rng.integers(nd_min, 5)), p_long=0.1)
    nd = len(shape)
    t = c.tensor(rng, shape)
    c.arg(t)
    a = c.read(t)
    n = a.size
    bad = rng.random() < 0.06
    fresh = False

    def dim_in(extra=0):
        lim = max(nd + extra, 1)
        return int(rng.choice([lim, -lim - 1])) if bad else int(rng.integers(-lim, lim))
    try:
        if op in ("view", "reshape"):
            new = other_factoring(rng, shape)
            if bad:
                new = new + [2]
            c.list(new)
            sizes = resolve_sizes(new, n)
            if op == "view" and not viewable(c, t, sizes):
                raise RefError("TH_ERR_SHAPE", "docs/core.md: view when the strides do not allow the shape")
            r = a.reshape(sizes)
            fresh = None if op == "reshape" else False
        elif op == "flatten":
            d0, d1 = sorted(int(x) % max(nd, 1) for x in rng.integers(-max(nd, 1), max(nd, 1), 2))
            if bad:
                d0, d1 = d1 + 1, d0
            c.int(d0)
            c.int(d1)
            s, e = wrap_dim(d0, nd), wrap_dim(d1, nd)
            if s > e:
                raise RefError("TH_ERR_RANGE", "start_dim after end_dim")
            sizes = [1] if nd == 0 else shape[:s] + [int(np.prod(shape[s:e + 1]))] + shape[e + 1:]
            if not viewable(c, t, sizes):
                raise RefError("TH_ERR_SHAPE", "docs/core.md: flatten when the strides do not allow it")
            r = a.reshape(sizes)
        elif op == "expand":
            lead = int(rng.integers(0, 3))
            new = [int(rng.integers(0, 4)) for _ in range(lead)] + \
                [-1 if rng.random() < 0.3 else (int(rng.integers(1, 4)) if x == 1 else x) for x in shape]
            if bad and shape:
                new = new[:lead] + [x + 1 if x > 1 else 5 for x in new[lead:]]
            c.list(new)
            sizes = new[:lead] + [shape[k] if x == -1 else x for k, x in enumerate(new[lead:])]
            for k in range(nd):
                if shape[k] != 1 and shape[k] != sizes[lead + k]:
                    raise RefError("TH_ERR_SHAPE", "a size other than 1 expanded")
            r = np.broadcast_to(a, sizes)
        elif op == "permute":
            perm = [int(x) for x in rng.permutation(nd)]
            c.list(perm)
            r = np.transpose(a, perm)
        elif op == "transpose":
            d0, d1 = dim_in(), int(rng.integers(-nd, nd))
            c.int(d0)
            c.int(d1)
            r = np.swapaxes(a, wrap_dim(d0, nd), wrap_dim(d1, nd))
        elif op == "squeeze":
            r = np.squeeze(a)
        elif op == "squeeze_dim":
            d = dim_in()
            c.int(d)
            w = wrap_dim(d, nd)
            r = np.squeeze(a, axis=w) if nd and shape[w] == 1 else a
        elif op == "unsqueeze":
            d = dim_in(1)
            c.int(d)
            r = np.expand_dims(a, wrap_dim(d, nd + 1))
        elif op == "narrow":
            d = int(rng.integers(-nd, nd))
            size = shape[d % nd]
            start = int(rng.integers(-size, size + 1)) if size else 0
            s0 = start + size if start < 0 else start
            length = int(rng.integers(0, size - s0 + 1)) if not bad else size - s0 + 1
            for v in (d, start, length):
                c.int(v)
            if s0 + length > size:
                raise RefError("TH_ERR_RANGE", "docs/core.md: start + length exceeds the size")
            sl = [slice(None)] * nd
            sl[d % nd] = slice(s0, s0 + length)
            r = a[tuple(sl)]
        elif op == "select":
            d = int(rng.integers(-nd, nd))
            size = shape[d % nd]
            idx = int(rng.integers(-size, size)) if size and not bad else size
            c.int(d)
            c.int(idx)
            if not -size <= idx < size:
                raise RefError("TH_ERR_RANGE", "an index out of range")
            r = np.take(a, idx, axis=d % nd)
        else:  # unfold
            d = int(rng.integers(-nd, nd))
            size = shape[d % nd]
            win = int(rng.integers(0, size + 1)) if not bad else size + 1
            step = int(rng.integers(1, 4))
            for v in (d, win, step):
                c.int(v)
            if win > size:
                raise RefError(("TH_ERR_RANGE", "TH_ERR_SHAPE"), "a window longer than the dim")
            w = np.lib.stride_tricks.sliding_window_view(a, win, axis=d % nd)
            sl = [slice(None)] * w.ndim
            sl[d % nd] = slice(None, None, step)
            r = w[tuple(sl)]
    except RefError as e:
        return c.fail(e.status, e.why)
    c.succeed([(np.array(r, order="C"), dt, 0.0)], fresh=fresh)

# ---- the functions, by family ----

FAMILIES = {}


def family(gen, ops):
    for op in ops.split():
        FAMILIES[op] = gen


family(gen_binary, "add sub mul div floor_divide remainder fmod maximum minimum pow atan2 hypot bitwise_and "
                   "bitwise_or bitwise_xor shift_left shift_right eq ne lt le gt ge logical_and logical_or "
                   "logical_xor")
family(gen_unary, "logical_not isnan isinf isfinite neg square sign relu floor ceil round trunc bitwise_not frac "
                  "sqrt exp log sin tanh sigmoid reciprocal rsqrt expm1 log1p erf abs cos tan asin acos atan "
                  "sinh cosh exp2 log2 log10 gelu conj angle")
family(gen_where, "where")
family(gen_polar, "polar")
family(gen_clamp, "clamp")
family(gen_combine, "add_alpha lerp addcmul addcdiv")
family(gen_reduce, "sum prod mean var std logsumexp norm max min argmax argmin all any")
family(gen_scan, "cumsum cumprod")
family(gen_join, "cat stack")
family(gen_pieces, "split chunk")
family(gen_flip, "flip")
family(gen_roll, "roll")
family(gen_repeat, "repeat")
family(gen_dimidx, "index_select gather")
family(gen_scatter, "scatter scatter_add")
family(gen_masked_fill, "masked_fill")
family(gen_masked_select, "masked_select")
family(gen_nonzero, "nonzero")
family(gen_take, "take")
family(gen_put, "put")
family(gen_arange, "arange")
family(gen_linspace, "linspace")
family(gen_eye, "eye")
family(gen_diag, "diag")
family(gen_tri, "tril triu")
family(gen_sort, "sort topk")
family(gen_unique, "unique")
family(gen_product, "dot mv mm bmm matmul outer addmm addmv baddbmm addr")
family(gen_logspace, "logspace")
family(gen_clone, "clone contiguous")
family(gen_copy, "copy")
family(gen_convert, "convert")
family(gen_view, "view reshape flatten expand permute transpose squeeze squeeze_dim unsqueeze narrow select "
                 "unfold")

SUFFIXES = ["_scalar_inplace", "_scalar_out", "_all_out", "_dim_out", "_inplace", "_scalar", "_all", "_dim",
            "_out", ""]


def parse_fn(fn):
    """th_u8_div_scalar_out -> ("u8", "div", "scalar_out")."""
    if fn == "th_tensor_copy":
        return None, "tensor_copy", "new"
    dt, rest = fn[3:].split("_", 1)
    if rest in FAMILIES:  # squeeze_dim is an op of its own, not squeeze's _dim form
        return dt, rest, "new"
    for suffix in SUFFIXES:
        if rest.endswith(suffix) and rest[:len(rest) - len(suffix)] in FAMILIES:
            return dt, rest[:len(rest) - len(suffix)], suffix[1:] or "new"
    raise KeyError(f"no family draws cases for {fn}")


# ---- the two wrong results of issue 11, pinned (each also has a test of its own in tests/) ----

def pinned_cases():
    """Cases built by hand rather than drawn: they must be in every run."""
    out = []

    def u8_by_255(op, fn, form, scalar):
        c = Case(len(out), fn, op, form, "u8")
        c.note = "issue 11: u8 division by 255 (the guard for MIN / -1 matched 255)"
        a = T(c.storage("u8", 2, None), "u8", 0, [2], [1])
        c.storages[a.sid][1] = np.array([15, 200], np.uint8)
        b = np.array(255, np.uint8) if scalar else np.array([255, 255], np.uint8)
        r, _ = ref_binary(op, "u8", c.storages[a.sid][1], b)
        if form == "out":
            o = T(c.storage("u8", 2, None), "u8", 0, [2], [1])
            c.storages[o.sid][1] = np.zeros(2, np.uint8)
            c.arg(o)
        c.arg(a)
        if scalar:
            c.scalar("u8", 255)
        else:
            bt = T(c.storage("u8", 2, None), "u8", 0, [2], [1])
            c.storages[bt.sid][1] = np.array([255, 255], np.uint8)
            c.arg(bt)
        if form == "new":
            c.succeed([(r, "u8", 0.0)])
        else:
            c.succeed(writes=[(o if form == "out" else a, r, 0.0)])
        out.append(c)
    for op in ("div", "floor_divide", "remainder", "fmod"):
        for suffix, form, scalar in (("", "new", False), ("_out", "out", False), ("_inplace", "inplace", False),
                                     ("_scalar", "new", True), ("_scalar_out", "out", True),
                                     ("_scalar_inplace", "inplace", True)):
            u8_by_255(op, f"th_u8_{op}{suffix}", form, scalar)
    # gather_out(t, t, 0, idx) on the transposed 2x2 [[0, 2], [1, 3]] with idx [[1, 1], [0, 0]]: the docs
    # allow the in-place call; [[1, 3], [0, 2]] is right, the bug gave [[2, 1], [0, 2]]
    c = Case(len(out), "th_f32_gather_out", "gather", "out", "f32")
    c.note = "issue 11: gather_out in place on a transposed tensor"
    sid = c.storage("f32", 4, None)
    c.storages[sid][1] = np.array([0, 1, 2, 3], np.float32)
    t = T(sid, "f32", 0, [2, 2], [1, 2])
    isid = c.storage("i64", 4, None)
    c.storages[isid][1] = np.array([1, 1, 0, 0], np.int64)
    idx = T(isid, "i64", 0, [2, 2], [2, 1])
    c.arg(t)
    c.arg(t)
    c.arg(idx)
    c.int(0)
    c.succeed(writes=[(t, np.array([[1, 3], [0, 2]], np.float32), 0.0)])
    out.append(c)
    # and an out that overlaps the input without being it, with strides larger than the copy's (ASan saw a
    # read past the copy)
    c = Case(len(out), "th_f64_gather_out", "gather", "out", "f64")
    c.note = "issue 11: gather_out into an out overlapping its input, strided"
    sid = c.storage("f64", 24, None)
    c.storages[sid][1] = np.arange(24, dtype=np.float64)
    t = T(sid, "f64", 0, [3, 3], [1, 6])  # columns of a 3x6 row-major block, every other one
    o = T(sid, "f64", 1, [3, 3], [6, 2])
    isid = c.storage("i64", 9, None)
    c.storages[isid][1] = np.array([2, 0, 1, 1, 2, 0, 0, 1, 2], np.int64)
    idx = T(isid, "i64", 0, [3, 3], [3, 1])
    a = c.read(t)
    ix = c.read(idx)
    r = np.take_along_axis(a, ix, axis=1)
    c.arg(o)
    c.arg(t)
    c.arg(idx)
    c.int(1)
    c.succeed(writes=[(o, r, 0.0)])
    out.append(c)
    return out


# ---- gen ----

def gen(dirname, seed):
    with open(os.path.join(dirname, "functions.txt")) as f:
        fns = [line.strip() for line in f if line.strip()]
    for fn in fns:
        parse_fn(fn)
    extra = int(os.environ.get("NUMPY_DIFF_EXTRA", EXTRA_CASES))
    plan = list(fns) + [fns[i] for i in np.random.default_rng(seed).integers(0, len(fns), extra)]
    cases = pinned_cases()
    for fn in plan:
        dt, op, form = parse_fn(fn)
        c = Case(len(cases), fn, op, form, dt)
        (gen_tensor_copy if op == "tensor_copy" else FAMILIES[op])(c, np.random.default_rng([seed, c.id]))
        if c.expect is None:
            raise AssertionError(f"case {c.id} ({fn}) has no expectation")
        cases.append(c)
    with open(os.path.join(dirname, "cases.txt"), "w") as f:
        for c in cases:
            f.write(c.text())
    with open(os.path.join(dirname, "expected.pickle"), "wb") as f:
        pickle.dump({"seed": seed, "cases": cases}, f)
    print(f"numpy_diff: seed {seed}: {len(cases)} cases over {len(fns)} functions")


# ---- check ----

class Got:
    def __init__(self):
        self.status, self.status_name, self.messages, self.results, self.storages = 0, "", [], [], []


def parse_values(dt, words):
    k = kind(dt)
    if k in "bui":
        return np.array([int(w) for w in words], dtype=np.int64)
    vals = [float.fromhex(w) if w not in ("nan", "-nan", "inf", "-inf") else float(w.replace("-nan", "nan"))
            for w in words]
    if k == "c":
        return cplx(np.array(vals[0::2]), np.array(vals[1::2]))
    return np.array(vals)


def read_results(path, cases):
    by_id = {c.id: c for c in cases}
    got = {}
    cur = None
    with open(path) as f:
        for line in f:
            w = line.split()
            if not w:
                continue
            if w[0] == "case":
                cur = Got()
                cid = int(w[1])
                cur.status, cur.status_name = int(w[2]), w[3]
                got[cid] = cur
                storage_dts = [dt for dt, _ in by_id[cid].storages]
            elif w[0] == "m":
                cur.messages.append(line[2:].rstrip("\n"))
            elif w[0] == "r":
                if w[1] == "null":
                    cur.results.append(None)
                    continue
                dt, nd = w[1], int(w[2])
                sizes = [int(x) for x in w[3:3 + nd]]
                contig, fresh = int(w[3 + nd]), int(w[4 + nd])
                vals = parse_values(dt, w[5 + nd:])
                cur.results.append((dt, sizes, bool(contig), bool(fresh), vals.reshape(sizes)))
            elif w[0] == "s":
                cur.storages.append(parse_values(storage_dts[len(cur.storages)], w[1:]))
    return got


def differs(got, want, tol, dt):
    """Mask of the elements of got (wide values) that do not match want (dt's values) within tol."""
    k = kind(dt)
    want = np.asarray(want)
    tol = np.broadcast_to(np.asarray(tol, dtype=np.float64), want.shape)
    if k in "bui":
        return ints(got) != ints(want)
    if k == "c":
        return differs(got.real, want.real, tol, part_dt(dt)) | differs(got.imag, want.imag, tol, part_dt(dt))
    g, w = np.asarray(got, dtype=np.float64), want.astype(np.float64)
    with np.errstate(invalid="ignore"):
        nan = np.isnan(w)
        inf = np.isinf(w)
        ok = (nan & np.isnan(g)) | (inf & (g == w)) | (~nan & ~inf & (np.abs(g - w) <= np.maximum(tol, 0)))
        wrong_zero = (tol == 0) & (w == 0) & (np.signbit(g) != np.signbit(w))
    return ~ok | wrong_zero


def first_differences(got, want, tol, dt, limit=4):
    bad = differs(got, want, tol, dt)
    where = np.argwhere(bad)[:limit]
    tol = np.broadcast_to(np.asarray(tol, dtype=np.float64), np.shape(want))
    return [f"[{','.join(str(int(i)) for i in p)}] {got[tuple(p)]!r} (want {want[tuple(p)]!r}"
            + (f", within {float(tol[tuple(p)])!r})" if tol[tuple(p)] > 0 else ")") for p in where], int(bad.sum())


def compare(c, g):
    """What is wrong with the result of case c; [] when nothing."""
    e = c.expect
    problems = []
    if g is None:
        return ["no result (the driver stopped before this case)"]
    msg = g.messages[0] if g.messages else ""
    if "error" in e:
        if g.status == 0:
            problems.append(f"succeeded, but should fail with {'/'.join(e['error'])} ({e['why']})")
        elif g.status_name not in e["error"]:
            problems.append(f"failed with {g.status_name} ({msg}), but should with {'/'.join(e['error'])} "
                            f"({e['why']})")
        elif not msg.startswith(c.fn + ": "):
            problems.append(f"the message does not name {c.fn}: {msg!r}")
        want_storages = [v for _, v in c.storages]
        tols = [np.zeros(len(v)) for v in want_storages]
    else:
        if g.status != 0:
            return [f"failed with {g.status_name}: {msg}"]
        want_storages, tols = e["storages"], e["tols"]
        if len(g.results) != len(e["results"]):
            problems.append(f"{len(g.results)} results, not {len(e['results'])}")
        for k, (r, w) in enumerate(zip(g.results, e["results"])):
            if (r is None) != (w is None):
                problems.append(f"result {k} is {'NULL' if r is None else 'a tensor'}, not the other")
                continue
            if r is None:
                continue
            dt, sizes, contig, fresh, vals = r
            wv, wdt, wtol = w
            if dt != wdt or list(sizes) != list(wv.shape):
                problems.append(f"result {k} is {dt} {tuple(sizes)}, not {wdt} {wv.shape}")
                continue
            diffs, n = first_differences(vals, wv, wtol, dt)
            if n:
                problems.append(f"result {k}: {n} of {wv.size} elements wrong: " + "; ".join(diffs))
            if e["contiguous"] and not contig:
                problems.append(f"result {k} is not contiguous (the docs promise a new contiguous tensor)")
            if e["fresh"] is not None and fresh != e["fresh"]:
                problems.append(f"result {k} " + ("shares an argument's storage" if e["fresh"] else
                                                  "is not a view of the argument (the docs promise views)"))
    if len(g.storages) != len(want_storages):
        problems.append(f"{len(g.storages)} storages back, not {len(want_storages)}")
    for k, (gs, ws, ts) in enumerate(zip(g.storages, want_storages, tols)):
        dt = c.storages[k][0]
        diffs, n = first_differences(gs, ws, ts, dt)
        if n:
            problems.append(f"storage {k} ({dt}): {n} of {len(ws)} elements wrong: " + "; ".join(diffs))
    return problems


def describe(c, g=None):
    """The case in full: the call, each argument as NumPy reads it, what was expected and what came."""
    lines = [f"case {c.id}: {c.fn} ({c.op}, form {c.form}){' [' + c.note.strip() + ']' if c.note.strip() else ''}"]
    np.set_printoptions(threshold=60, linewidth=110)
    k = 0
    for a in c.args:
        if a[0] == "t":
            t = a[1]
            lines.append(f"  arg {k}: {t.dt} view of storage {t.sid} offset {t.offset} sizes {t.sizes} "
                         f"strides {t.strides}:")
            lines.append("    " + np.array2string(c.read(t), prefix="    ").replace("\n", "\n    "))
        elif a[0] == "n":
            lines.append(f"  arg {k}: NULL")
        elif a[0] == "x":
            lines.append(f"  scalar: {a[1]} {a[2]!r}")
        elif a[0] == "i":
            lines.append(f"  int: {a[1]}")
        else:
            lines.append(f"  list: {a[1]}")
        k += 1
    e = c.expect
    if "error" in e:
        lines.append(f"  expected: {'/'.join(e['error'])} ({e['why']})")
    else:
        for i, r in enumerate(e["results"]):
            if r is not None:
                lines.append(f"  expected result {i} ({r[1]}):\n    " +
                             np.array2string(r[0], prefix="    ").replace("\n", "\n    "))
    if g is not None:
        lines.append(f"  got: {g.status_name} {' | '.join(g.messages)}")
        for i, r in enumerate(g.results):
            if r is not None:
                lines.append(f"  got result {i} ({r[0]}):\n    " +
                             np.array2string(r[4], prefix="    ").replace("\n", "\n    "))
    lines.append("  reproduce: save the lines below as case.txt and run `numpy_diff --run case.txt out.txt`")
    lines.append("    " + c.text().strip().replace("\n", "\n    "))
    return "\n".join(lines)


def check(dirname):
    with open(os.path.join(dirname, "expected.pickle"), "rb") as f:
        data = pickle.load(f)
    cases = data["cases"]
    got = read_results(os.path.join(dirname, "results.txt"), cases)
    failures = []
    per_fn = {}
    errors_expected = 0
    for c in cases:
        problems = compare(c, got.get(c.id))
        errors_expected += "error" in c.expect
        per_fn.setdefault(c.fn, [0, 0])
        per_fn[c.fn][0] += 1
        if problems:
            per_fn[c.fn][1] += 1
            failures.append((c, problems))
    print(f"numpy_diff: seed {data['seed']}: {len(cases)} cases over {len(per_fn)} functions, "
          f"{errors_expected} of them expected to fail; {len(failures)} mismatches")
    shown = 0
    for c, problems in failures:
        print(f"MISMATCH case {c.id} {c.fn}: " + " | ".join(problems))
    for c, problems in failures[:int(os.environ.get("NUMPY_DIFF_SHOW", 12))]:
        print()
        print(describe(c, got.get(c.id)))
        shown += 1
    if failures:
        bad = sorted(fn for fn, (n, f) in per_fn.items() if f)
        print(f"\n{len(bad)} functions with mismatches: {' '.join(bad)}")
        print(f"(`{os.path.basename(sys.argv[0])} show {dirname} ID` prints any case in full)")
    return 1 if failures else 0


def show(dirname, ids):
    with open(os.path.join(dirname, "expected.pickle"), "rb") as f:
        cases = pickle.load(f)["cases"]
    got = {}
    if os.path.exists(os.path.join(dirname, "results.txt")):
        got = read_results(os.path.join(dirname, "results.txt"), cases)
    for i in ids:
        c = cases[int(i)]
        print(describe(c, got.get(c.id)))
        problems = compare(c, got.get(c.id)) if got else []
        for p in problems:
            print("  MISMATCH: " + p)


def main(argv):
    if len(argv) >= 3 and argv[1] == "gen":
        seed = int(os.environ.get("NUMPY_DIFF_SEED", argv[3] if len(argv) > 3 and argv[3] else DEFAULT_SEED))
        gen(argv[2], seed)
        return 0
    if len(argv) == 3 and argv[1] == "check":
        return check(argv[2])
    if len(argv) >= 4 and argv[1] == "show":
        show(argv[2], argv[3:])
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
