"""The elementwise float ops of tensor.h against NumPy, within the ulp bounds of docs/math.md.

Run by numpy_ops (the test command), as `python3 check_numpy.py DIR`, on the inputs and results it wrote to
DIR. The reference is NumPy evaluated one precision up: float64 for the f32 results, np.longdouble (x87,
64-bit mantissa) for the f64 results, so its own error is about 2^-29 (f32) or 2^-11 (f64) of a result ulp,
which SLACK covers. NumPy has no erf, so erf and gelu use the long double erf/erfc below (checked against
mpmath to well under 0.01 f64 ulp when it was written).

Error is measured in ulps of the result dtype at the reference value, the convention of tests/test_vecmath.c;
an infinite result, and a finite reference beyond the largest finite value, count as 2^emax, so rounding to
infinity rather than to the largest finite value is one ulp, like any other neighbour. Beyond the bounds:
  - NaN where the reference is NaN and nowhere else; an infinite reference needs the same-signed infinity;
  - a zero reference needs a zero of the same sign;
  - ops whose result is exactly representable (EXACT) must match bit for bit;
  - where tensor.h deliberately differs from NumPy (DEVIATIONS), the documented value instead;
  - where it was measured beyond the documented bound (KNOWN: each one reported), the measured bound.
Prints one line per op and dtype: the largest error seen, the bound, and where it was largest. Exits 0 when
everything is within bounds, 1 when not, 77 (skip) when NumPy cannot be imported.
"""
import os
import sys

try:
    import numpy as np
except ImportError as e:
    print(f"SKIP: {sys.executable} cannot import numpy ({e}); tests/run.sh installs python3-numpy")
    sys.exit(77)

LD = np.longdouble

# ---- the bounds: the only copy in the tests of what docs/math.md promises; change both together ----

EXACT = 0.0  # the exact result is representable in the dtype: bit for bit
ROUNDED = 0.5  # one IEEE 754 rounding of the exact result
LIBM = 1.0  # the C library's functions not listed with a figure of their own in docs/math.md
SLACK = 1 / 64  # the reference's own error, far below this
# Where long double is only double (not x86 Linux), the f64 reference itself is off by up to half an ulp.
F64_SLACK = SLACK if np.finfo(LD).nmant >= 63 else SLACK + 0.5

# (f32 bound, f64 bound) in ulps of the result. The vectorised kernels' figures are docs/math.md's
# "Accuracy" paragraph; the ops it calls the C library's are LIBM. Where docs/math.md says what an op
# computes but gives no figure (rsqrt, sigmoid f64, gelu, floor_divide, remainder), the bound is the error
# of that computation, derived in the comment.
BOUNDS = {
    "exp": (1.01, 1.00),
    "exp2": (LIBM, LIBM),
    "expm1": (1.52, LIBM),
    "log": (0.91, LIBM),
    "log2": (LIBM, LIBM),
    "log10": (2.07, 2.0),  # glibc log10f 2.06 (every float), log10 1.60 (sampled)
    "log1p": (1.30, LIBM),  # glibc log1pf 1.29 (every float)
    "sqrt": (ROUNDED, ROUNDED),
    "rsqrt": (1.5, 1.5),  # 1 / sqrt(x): sqrt's relative error (< 1 ulp of the result) plus the division's 0.5
    "sin": (LIBM, LIBM),
    "cos": (LIBM, LIBM),
    "tan": (1.48, LIBM),  # glibc tanf 1.48 (every float)
    "asin": (LIBM, LIBM),
    "acos": (LIBM, LIBM),
    "atan": (LIBM, LIBM),
    "sinh": (1.89, 2.0),  # glibc sinhf 1.89 (every float), sinh 1.84 (sampled)
    "cosh": (1.89, 2.0),  # glibc coshf 1.89 (every float), cosh 1.81 (sampled)
    "tanh": (1.47, 1.45),
    # f64: 1 / (1 + exp(-x)) with glibc's exp: exp's relative error can count twice in ulps of the quotient
    # (exp's result low in its binade, the quotient high in its own), plus 0.5 each for the addition and
    # the division (measured: 2.45 over 1e8 arguments).
    "sigmoid": (2.41, 2.5),
    "erf": (1.30, 1.5),  # f64: glibc erf 1.17 (sampled)
    # f32: computed in double and rounded once. f64: x * erfc(-x/sqrt(2)) / 2 with the rounding of the
    # argument put back in the tail, and below x = -37 the asymptotic series times exp(-x^2/2): erfc's or
    # exp's error plus three or four roundings (measured 3.2, at x = -37.2).
    "gelu": (ROUNDED, 3.5),
    "reciprocal": (ROUNDED, ROUNDED),
    "square": (ROUNDED, ROUNDED),
    "abs": (EXACT, EXACT),
    "neg": (EXACT, EXACT),
    "floor": (EXACT, EXACT),
    "ceil": (EXACT, EXACT),
    "round": (EXACT, EXACT),
    "trunc": (EXACT, EXACT),
    "frac": (EXACT, EXACT),
    "sign": (EXACT, EXACT),
    "relu": (EXACT, EXACT),
    "add": (ROUNDED, ROUNDED),
    "sub": (ROUNDED, ROUNDED),
    "mul": (ROUNDED, ROUNDED),
    "div": (ROUNDED, ROUNDED),
    "pow": (LIBM, LIBM),
    "atan2": (2.0, LIBM),  # glibc atan2f 1.48 (sampled)
    "hypot": (LIBM, LIBM),
    "fmod": (EXACT, EXACT),
    "remainder": (ROUNDED, ROUNDED),  # fmod (exact) plus b when the signs differ: one rounding
    # (a - fmod(a, b)) / b rounded to the nearest integer: exact while the quotient is below 2^mantissa;
    # beyond, a - fmod and the division round once each, a relative error under 2 ulps of the quotient.
    "floor_divide": (2.0, 2.0),
    "maximum": (EXACT, EXACT),
    "minimum": (EXACT, EXACT),
}


# ---- measured beyond the bounds above: reported, awaiting a decision (a docs/math.md figure, or a fix) ----
# (op, dtype) -> (bound: a number or a function of the inputs giving one per element, or None to keep BOUNDS';
#                 skip: a function of the inputs giving the elements left unchecked, or None; why)

# Empty: every op is within its documented bound. An entry records a measured excess until docs/math.md
# or the library is fixed, and the script prints it on every run.
KNOWN = {}

# ---- where tensor.h differs from NumPy on purpose: the value it documents instead ----
# op -> list of (where(inputs...) -> mask, value(inputs...) -> expected result, reason)

def neg_zero(x):
    return (x == 0) & np.signbit(x)


def opposite_zeros(a, b):
    return (a == 0) & (b == 0) & (np.signbit(a) != np.signbit(b))


OPPOSITE_ZEROS = ("IEEE 754 leaves the sign open; tensor.h gives b, as NumPy's float32 and float64 loops do, "
                  "but NumPy's long double loop (the f64 reference) gives a")

DEVIATIONS = {
    "sign": [(neg_zero, lambda x: x,
              "ops/pointwise.h: \"NaN and the sign of zero pass through\", so sign(-0.0) is -0.0; "
              "NumPy's (and PyTorch 1.13's) is 0.0")],
    "relu": [(neg_zero, lambda x: x,
              "relu is x < 0 ? 0 : x, so relu(-0.0) is -0.0 as in PyTorch; NumPy's maximum(-0.0, 0) is 0.0")],
    "maximum": [(opposite_zeros, lambda a, b: b, OPPOSITE_ZEROS)],
    "minimum": [(opposite_zeros, lambda a, b: b, OPPOSITE_ZEROS)],
}

# ---- long double erf and erfc, which NumPy lacks ----

SQRT_PI = np.sqrt(np.arccos(LD(-1)))  # not np.pi, which is only a double


def exp_neg_square(x, scale):
    """exp(-scale * x^2) for scale 1 or 1/2 without rounding x^2: x (f64) splits into a 24-bit head and a
    29-bit tail whose products are exact in long double, so the three exponentials see exact arguments (the
    rounding of x^2 would otherwise be magnified by x^2 in the tails)."""
    x = x.astype(LD)
    ok = np.abs(x) < 100  # beyond, the result is far below every f64 and the split's middle factor overflows
    xs = np.where(ok, x, 0)
    head = xs.astype(np.float32).astype(LD)
    tail = xs - head
    split = (np.exp(-scale * head * head) * np.exp(-scale * 2 * head * tail) *
             np.exp(-scale * tail * tail))
    return np.where(ok, split, np.exp(-scale * x * x))


def erfc_positive(z, e):
    """erfc(z) for z >= 0.5 given e = exp(-z^2): Laplace's continued fraction
    erfc(z) = e / sqrt(pi) / (z + (1/2) / (z + 1 / (z + (3/2) / (z + ...)))), evaluated from the back. It
    converges slowly near 0.5 (4000 terms for full long double precision) and fast from 3 up (300)."""
    t = np.ones_like(z)
    for near, terms in ((z < 3, 4000), ((z >= 3) & np.isfinite(z), 300)):
        zz = z[near]
        tt = zz.copy()
        for k in range(terms, 0, -1):
            tt = zz + LD(k / 2) / tt
        t[near] = tt
    return np.where(np.isfinite(z), e / SQRT_PI / t, 0)


def erf_small(z):
    """erf(z) for |z| < 0.5: the Taylor series, whose terms fall by z^2 / n each. z times the rest, so that
    erf(-0.0) keeps its sign."""
    z2 = z * z
    term = np.ones_like(z)
    total = np.ones_like(z)
    for n in range(1, 40):
        term = -term * z2 / n
        total = total + term / (2 * n + 1)
    return 2 / SQRT_PI * z * total


def erf_ld(x):
    x = x.astype(LD)
    ax = np.abs(x)
    small = ax < 0.5
    tail = 1 - erfc_positive(np.where(small, 1, ax), exp_neg_square(x, 1))
    return np.where(np.isnan(x), x, np.where(small, erf_small(np.where(small, x, 0)), np.copysign(tail, x)))


def erfc_ld(z, e):
    """erfc(z) of any sign given e = exp(-z^2)."""
    az = np.abs(z)
    small = az < 0.5
    upper = np.where(small, 1 - erf_small(np.where(small, z, 0)), erfc_positive(np.where(small, 1, az), e))
    return np.where(~small & (z < 0), 2 - upper, upper)


def gelu_ld(x):
    x = x.astype(LD)
    with np.errstate(invalid="ignore"):
        g = 0.5 * x * erfc_ld(-x / np.sqrt(LD(2)), exp_neg_square(x, 0.5))
    return np.where(x == -np.inf, LD(-0.0), g)  # the limit; the formula alone gives -inf * 0 = NaN


# ---- the references ----

UNARY = {
    "exp": np.exp, "exp2": np.exp2, "expm1": np.expm1, "log": np.log, "log2": np.log2, "log10": np.log10,
    "log1p": np.log1p, "sqrt": np.sqrt, "rsqrt": lambda x: 1 / np.sqrt(x), "sin": np.sin, "cos": np.cos,
    "tan": np.tan, "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh, "cosh": np.cosh,
    "tanh": np.tanh, "sigmoid": lambda x: 1 / (1 + np.exp(-x)), "erf": erf_ld, "gelu": gelu_ld,
    "reciprocal": np.reciprocal, "square": np.square, "abs": np.abs, "neg": np.negative, "floor": np.floor,
    "ceil": np.ceil, "round": np.rint, "trunc": np.trunc, "frac": lambda x: x - np.trunc(x), "sign": np.sign,
    "relu": lambda x: np.maximum(x, 0),
}
BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide, "pow": np.power,
    "atan2": np.arctan2, "hypot": np.hypot, "fmod": np.fmod, "remainder": np.remainder,
    "floor_divide": np.floor_divide, "maximum": np.maximum, "minimum": np.minimum,
}
DTYPES = {"f32": (np.float32, np.float64), "f64": (np.float64, LD)}  # result dtype, reference dtype


def ulp_errors(got, ref, dtype):
    """|got - ref| in ulps of dtype at ref (both finite after clamping to +-2^emax)."""
    info = np.finfo(dtype)
    p, emin, emax = info.nmant + 1, info.minexp, info.maxexp
    top = np.ldexp(LD(1), emax)
    g = np.clip(got.astype(LD), -top, top)
    r = np.clip(ref.astype(LD), -top, top)
    _, e = np.frexp(r)
    e = np.where(r == 0, emin, np.clip(e - 1, emin, emax - 1))
    return np.abs(g - r) / np.ldexp(LD(1), (e - (p - 1)).astype(np.int32))


def same_bits(got, want):
    """Equal, with the sign of zero, and NaN matching NaN."""
    return ((got == want) & (np.signbit(got) == np.signbit(want))) | (np.isnan(got) & np.isnan(want))


def compare(op, dt, inputs, got):
    """The reference, the error of each element in ulps, the bound of each, the elements compared in ulps,
    and the failures: a list of (index, why)."""
    dtype, ref_dtype = DTYPES[dt]
    with np.errstate(all="ignore"):
        fn = UNARY.get(op) or BINARY[op]
        ref = np.asarray(fn(*[x.astype(ref_dtype) for x in inputs]))
        exact = BOUNDS[op][dt == "f64"] == EXACT
        known_bound, known_skip, _ = KNOWN.get((op, dt), (None, None, None))
        bound = BOUNDS[op][dt == "f64"] if known_bound is None else known_bound
        bounds = np.broadcast_to(bound(*inputs) if callable(bound) else bound, got.shape).astype(np.float64)
        failures = []
        # Elements a deviation or a known issue covers are not compared with NumPy.
        covered = known_skip(*inputs) if known_skip else np.zeros(got.shape, dtype=bool)
        for where, value, _ in DEVIATIONS.get(op, []):
            mask = where(*inputs) & ~covered
            want = np.asarray(value(*inputs), dtype=dtype)
            failures += [(i, f"tensor.h documents {show(want[i])} here")
                         for i in np.nonzero(mask & ~same_bits(got, want))[0]]
            covered |= mask
        nan_ref, nan_got, inf_ref, zero_ref = np.isnan(ref), np.isnan(got), np.isinf(ref), ref == 0
        rounded = ref.astype(dtype)
        for mask, why in ((nan_ref & ~nan_got, "not NaN where NumPy's is"),
                          (nan_got & ~nan_ref, "NaN where NumPy's is not"),
                          (inf_ref & ~same_bits(got, rounded), "NumPy's is an infinity"),
                          (zero_ref & ~same_bits(got, rounded), "NumPy's is a zero of this sign"),
                          (exact & ~nan_ref & ~same_bits(got, rounded), "not the exact result")):
            failures += [(i, why) for i in np.nonzero(mask & ~covered)[0]]
            covered |= mask
        err = np.zeros(got.shape, dtype=LD)
        compared = ~covered & ~nan_ref & ~inf_ref
        err[compared] = ulp_errors(got[compared], ref[compared], dtype)
        slack = F64_SLACK if dt == "f64" else SLACK
        failures += [(i, f"{float(err[i]):.3f} ulp > {bounds[i]:.3f}")
                     for i in np.nonzero(compared & (err > bounds + slack))[0]]
        return ref, err, bounds, compared, sorted(failures)


def load(directory):
    with open(os.path.join(directory, "index.txt")) as f:
        lines = [line.split() for line in f if line.strip()]
    if not lines or lines[0][0] != "byteorder":
        raise ValueError("index.txt does not start with its byteorder line")
    order = "<" if lines[0][1] == "little" else ">"
    entries = []
    for kind, op, dt, n, *files in lines[1:]:
        width = 4 if dt == "f32" else 8
        arrays = [np.fromfile(os.path.join(directory, name), dtype=f"{order}f{width}").astype(DTYPES[dt][0])
                  for name in files]
        if any(a.size != int(n) for a in arrays) or len(files) != (2 if kind == "unary" else 3):
            raise ValueError(f"{op} {dt}: the files do not hold {n} elements each")
        entries.append((kind, op, dt, arrays[:-1], arrays[-1]))
    return entries


def show(x):
    return np.format_float_scientific(x, unique=True) if np.isfinite(x) else repr(float(x))


def main():
    if len(sys.argv) != 2:
        print("usage: check_numpy.py DIR (the folder numpy_ops wrote)")
        return 2
    entries = load(sys.argv[1])
    seen = {(op, dt) for _, op, dt, _, _ in entries}
    problems = [f"{op}: no bound in BOUNDS (docs/math.md)"
                for op in sorted({op for op, _ in seen} - set(BOUNDS))]
    problems += [f"{op} {dt}: in BOUNDS but not computed by numpy_ops" for op in BOUNDS for dt in DTYPES
                 if (op, dt) not in seen]
    if problems:
        print("\n".join(problems))
        print("FAIL")
        return 1
    print(f"NumPy {np.__version__}; long double: {np.finfo(LD).nmant + 1}-bit mantissa; "
          f"TH_SIMD={os.environ.get('TH_SIMD', '(unset: the best level)')}")
    print(f"{'op':<13}{'dtype':<6}{'n':>6}  {'max ulp':>8}  {'bound':>7}  worst at: ours (NumPy)")
    failed = 0
    for _kind, op, dt, inputs, got in entries:
        ref, err, bounds, compared, failures = compare(op, dt, inputs, got)
        i = int(np.argmax(np.where(compared, err, -1)))
        known = (op, dt) in KNOWN
        bound_text = "exact" if BOUNDS[op][dt == "f64"] == EXACT else f"{bounds[i]:.2f}"
        print(f"{op:<13}{dt:<6}{got.size:>6}  {float(err[i]):>8.3f}  {bound_text:>7}{'*' if known else ' '} "
              f"{op}({', '.join(show(x[i]) for x in inputs)}) = {show(got[i])} ({show(ref[i])})")
        for j, why in failures[:5]:
            print(f"    FAIL {op}({', '.join(show(x[j]) for x in inputs)}) = {show(got[j])}, "
                  f"NumPy {show(ref[j])}: {why}")
        if len(failures) > 5:
            print(f"    ... and {len(failures) - 5} more")
        failed += bool(failures)
    print("* a known issue, not yet within docs/math.md:")
    for (op, dt), (_, _, why) in KNOWN.items():
        print(f"    {op} {dt}: {why}")
    print(f"{len(entries) - failed} ops within bounds, {failed} not")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
