"""Zero-copy DLPack exchange between tensor.h (through the thdl extension) and real consumers.

Run as `python test_interop.py` with PYTHONPATH pointing at the built thdl module. Each framework that
imports is tested; one that does not is skipped, but the run fails when neither NumPy nor PyTorch imports. Every exchange is shown by writing through one side and
reading on the other (JAX arrays are immutable: there the producer's values and the shared address show
it), and every test checks that the blobs thdl.arange made are freed, exactly once, when the last user lets
go. Known consumer limits (the project's REFERENCE.md, section 6) decide what each framework is handed:

  NumPy 1.x   legacy capsules only, imports are read-only arrays, no bool before 1.25, no bfloat16
  NumPy 2.1+  asks max_version=(1, 0), dl_device and copy; versioned imports are writable unless READ_ONLY
  PyTorch     legacy only; 1.13 aborts the process on negative strides (never handed any), ignores
              byte_offset, has no bool before 2.1
  JAX         legacy only; rejects non-compact strides other than transposes

The last line printed is "N passed, N failed"; the exit status is non-zero when anything failed.
"""
import gc
import importlib.util
import os
import sys
import time
import unittest
import weakref

os.environ.setdefault("JAX_PLATFORMS", "cpu")
# Under valgrind (tests/run.sh wraps the suite in it) only thdl itself is tested: the frameworks' shared
# libraries make the dynamic loader and their own allocations report errors that are none of ours.
UNDER_VALGRIND = "vgpreload" in os.environ.get("LD_PRELOAD", "")

try:
    import thdl  # noqa: E402  (PYTHONPATH: the build directory)
except ImportError as e:
    print(f"cannot import thdl: {e}\nPYTHONPATH must hold the build directory of tests/python, and "
          f"{sys.executable} must be the python thdl was built for (or a venv made from it)")
    print("0 passed, 1 failed")
    sys.exit(1)

ALL_DTYPES = ["bool", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64", "c64", "c128"]
INTS = {"u8": (8, False), "i8": (8, True), "i16": (16, True), "i32": (32, True), "i64": (64, True)}
# Two values per dtype, exactly representable in it, different from every arange value used here.
VALUES = {"bool": (True, False), "u8": (201, 17), "i8": (-7, 99), "i16": (-300, 1234), "i32": (-70000, 123456),
          "i64": (-(2 ** 40), 2 ** 41 + 5), "f16": (-1.5, 0.25), "bf16": (-2.5, 96.0), "f32": (3.25, -0.125),
          "f64": (1e300, -2.5e-300), "c64": (1.5 - 2j, -0.25 + 8j), "c128": (1e200 + 1j, -3 - 4.5j)}
CPU = (1, 0)  # kDLCPU, device 0


def version_of(module):
    return tuple(int("".join(c for c in part if c.isdigit()) or 0) for part in module.__version__.split(".")[:2])


# ---- the frameworks: each one that fails to import is skipped, with the reason ----


def not_under_valgrind():
    if UNDER_VALGRIND:
        raise ImportError("not imported under valgrind")


try:
    not_under_valgrind()
    import numpy as np
    NP = version_of(np)
    NP_SKIP = ""
except Exception as e:  # noqa: BLE001  (any failure to import means: skip)
    np, NP, NP_SKIP = None, (0, 0), f"NumPy does not import: {type(e).__name__}: {e}"

try:
    not_under_valgrind()
    import torch
    import torch.utils.dlpack
    TORCH = version_of(torch)
    TORCH_SKIP = ""
except Exception as e:  # noqa: BLE001
    torch, TORCH, TORCH_SKIP = None, (0, 0), f"PyTorch does not import: {type(e).__name__}: {e}"

try:
    not_under_valgrind()
    import jax
    jax.config.update("jax_enable_x64", True)  # i64, f64 and c128 stay what they are
    import jax.dlpack
    import jax.numpy as jnp
    JAX_SKIP = ""
except Exception as e:  # noqa: BLE001
    jax, jnp, JAX_SKIP = None, None, f"JAX does not import: {type(e).__name__}: {e}"

NP_NAMES = {"bool": "bool", "u8": "uint8", "i8": "int8", "i16": "int16", "i32": "int32", "i64": "int64",
            "f16": "float16", "f32": "float32", "f64": "float64", "c64": "complex64", "c128": "complex128"}
NP_DTYPES = {d: n for d, n in NP_NAMES.items() if d != "bool" or NP >= (1, 25)}  # NumPy has no bfloat16
NP_VERSIONED = NP >= (2, 1)  # asks for DLPack 1.0 and honours READ_ONLY
TORCH_DTYPES = {}
if torch is not None:
    TORCH_DTYPES = {"u8": torch.uint8, "i8": torch.int8, "i16": torch.int16, "i32": torch.int32,
                    "i64": torch.int64, "f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32,
                    "f64": torch.float64, "c64": torch.complex64, "c128": torch.complex128}
    if TORCH >= (2, 1):  # kDLBool came with PyTorch 2.1 (pytorch#108486); 1.13 refuses bool
        TORCH_DTYPES["bool"] = torch.bool
JAX_NAMES = dict(NP_NAMES, bf16="bfloat16")


# ---- expected values ----

def arange_value(dtype, k):
    """Element k of thdl.arange(dtype, ...)."""
    if dtype == "bool":
        return k % 2 == 1
    if dtype in INTS:
        bits, signed = INTS[dtype]
        v = k % (1 << bits)
        return v - (1 << bits) if signed and v >= 1 << (bits - 1) else v
    if dtype in ("c64", "c128"):
        return complex(k, -k)
    return float(k)


def expected(dtype, shape):
    """thdl.arange(dtype, shape).tolist(), computed in Python."""
    def build(dims, start):
        if not dims:
            return arange_value(dtype, start)
        step = 1
        for s in dims[1:]:
            step *= s
        return [build(dims[1:], start + i * step) for i in range(dims[0])]
    return build(list(shape), 0)


def np_writable(a):
    """A writable NumPy array over the memory of a (a itself if it is writable). NumPy 1.x and legacy
    imports of NumPy 2.x are read-only, so writes on the NumPy side go through an alias at the address and
    with the strides NumPy reports for the imported array."""
    if a.flags.writeable:
        return a

    class Alias:
        pass
    alias = Alias()
    iface = dict(a.__array_interface__)
    iface["data"] = (iface["data"][0], False)
    alias.__array_interface__ = iface
    alias.owner = a  # keeps the import alive while the alias lives
    return np.asarray(alias)


class Recorder:
    """A producer that wraps a thdl.Tensor and records the keywords each consumer passes to __dlpack__."""

    def __init__(self, tensor, legacy_only=False):
        self.tensor = tensor
        self.legacy_only = legacy_only
        self.calls = []
        self.device_calls = 0

    def __dlpack__(self, **kwargs):
        self.calls.append(kwargs)
        if self.legacy_only and kwargs:
            raise TypeError(f"__dlpack__() got unexpected keyword arguments {sorted(kwargs)}")
        return self.tensor.__dlpack__(**kwargs)

    def __dlpack_device__(self):
        self.device_calls += 1
        return self.tensor.__dlpack_device__()


# ---- the base of every test: blobs come back, exactly once ----

def settle(target, timeout=5.0):
    """Collects garbage until blobs_alive() <= target (deleters may run on other threads); returns it."""
    deadline = time.monotonic() + timeout
    while True:
        gc.collect()
        alive = thdl.blobs_alive()
        if alive <= target or time.monotonic() > deadline:
            return alive
        time.sleep(0.01)


class Case(unittest.TestCase):
    def problems(self):
        """Failures and errors reported so far in this run (0 when the runner does not say)."""
        result = getattr(getattr(self, "_outcome", None), "result", None)
        return len(getattr(result, "failures", ())) + len(getattr(result, "errors", ()))

    def setUp(self):
        gc.collect()
        self.start = thdl.blobs_alive()
        self.mismatches = thdl.blob_stats()["mismatches"]
        self.problems_at_start = self.problems()

    def tearDown(self):
        if self.problems() != self.problems_at_start:
            return  # a failed test may leave tensors in a traceback: its failure is reported already
        self.assertEqual(settle(self.start), self.start, "a blob was never freed (a deleter did not run)")
        self.assertEqual(thdl.blob_stats()["mismatches"], self.mismatches,
                         "a blob's deleter got a pointer other than the blob")

    def assertAlive(self, n, msg=None):
        """n blobs of this test are alive; waits for deleters that are still to run."""
        self.assertEqual(settle(self.start + n), self.start + n, msg)


# ---- thdl against itself: the protocol, the keywords, the ownership rule ----

class OwnProtocol(Case):
    def test_legacy_capsule_round_trip(self):
        t = thdl.arange("f32", (3, 4))
        cap = t.__dlpack__()
        info = thdl.capsule_info(cap)
        self.assertEqual(info["name"], "dltensor")
        self.assertEqual((info["data"], info["shape"], info["strides"]), (t.data_ptr, (3, 4), (4, 1)))
        self.assertEqual((info["device"], info["dtype"], info["byte_offset"]), (CPU, (2, 32, 1), 0))
        u = thdl.from_dlpack(cap)
        self.assertEqual(thdl.capsule_info(cap)["name"], "used_dltensor")  # the consumer took it
        self.assertEqual(u.data_ptr, t.data_ptr)
        u.set((1, 2), 42.5)
        self.assertEqual(t.get((1, 2)), 42.5)
        t.set((0, 0), -1.0)
        self.assertEqual(u.get((0, 0)), -1.0)
        del t
        self.assertAlive(1)  # the import holds the blob
        self.assertEqual(u.tolist()[2], [8.0, 9.0, 10.0, 11.0])
        del u
        self.assertAlive(0)
        del cap  # consumed: its destructor must not run the deleter again
        self.assertAlive(0)

    def test_versioned_through_the_protocol(self):
        t = thdl.arange("i32", (2, 3))
        rec = Recorder(t)
        u = thdl.from_dlpack(rec)
        self.assertEqual(rec.device_calls, 1)
        self.assertEqual(rec.calls, [{"max_version": (1, 0)}])
        cap = t.__dlpack__(max_version=(1, 0))
        info = thdl.capsule_info(cap)
        self.assertEqual((info["name"], info["version"], info["flags"]), ("dltensor_versioned", (1, 0), 0))
        u.set((1, 1), -9)
        self.assertEqual(t.get((1, 1)), -9)
        v = thdl.from_dlpack(cap)
        self.assertEqual(thdl.capsule_info(cap)["name"], "used_dltensor_versioned")
        self.assertEqual(v.get((1, 1)), -9)
        del t, u, rec
        self.assertAlive(1)
        del v
        self.assertAlive(0)

    def test_consumer_falls_back_to_legacy_on_type_error(self):
        t = thdl.arange("i16", (5,))
        rec = Recorder(t, legacy_only=True)
        u = thdl.from_dlpack(rec)
        self.assertEqual(rec.calls, [{"max_version": (1, 0)}, {}])
        u.set(4, 1234)
        self.assertEqual(t.get(4), 1234)

    def test_consumer_asks_the_device_first(self):
        class OnCuda:
            calls = 0

            def __dlpack_device__(self):
                return (2, 0)

            def __dlpack__(self, **kwargs):
                OnCuda.calls += 1
                raise AssertionError("must not be asked for a capsule")
        with self.assertRaises(BufferError):
            thdl.from_dlpack(OnCuda())
        self.assertEqual(OnCuda.calls, 0)
        with self.assertRaises(TypeError):
            thdl.from_dlpack(object())

    def test_every_dtype_round_trips(self):
        for d in ALL_DTYPES:
            for versioned in (False, True):
                with self.subTest(dtype=d, versioned=versioned):
                    t = thdl.arange(d, (2, 3))
                    u = thdl.from_dlpack(t.__dlpack__(max_version=(1, 0) if versioned else None))
                    self.assertEqual((u.dtype, u.shape, u.data_ptr), (d, (2, 3), t.data_ptr))
                    self.assertEqual(u.tolist(), expected(d, (2, 3)))
                    u.set((0, 1), VALUES[d][0])
                    self.assertEqual(t.get((0, 1)), VALUES[d][0])

    def test_unconsumed_capsules_free_once(self):
        for max_version in (None, (1, 0)):
            with self.subTest(max_version=max_version):
                t = thdl.arange("f64", (4,))
                cap = t.__dlpack__(max_version=max_version)
                del t
                self.assertAlive(1)  # the capsule holds the blob
                del cap
                self.assertAlive(0)
                caps = [thdl.arange("u8", (3,)).__dlpack__(max_version=max_version) for _ in range(5)]
                self.assertAlive(5)
                del caps
                self.assertAlive(0)

    def test_zero_size_and_0d_free_their_blobs(self):
        for max_version in (None, (1, 0)):
            for shape in [(), (0,), (0, 3), (3, 0)]:
                with self.subTest(max_version=max_version, shape=shape):
                    t = thdl.arange("c64", shape)
                    cap = t.__dlpack__(max_version=max_version)
                    del t
                    u = thdl.from_dlpack(cap)
                    self.assertEqual((u.shape, u.tolist()), (shape, expected("c64", shape)))
                    del cap
                    self.assertAlive(1)
                    del u
                    self.assertAlive(0)

    def test_consumed_capsule_is_refused(self):
        t = thdl.arange("f32", (2,))
        cap = t.__dlpack__()
        u = thdl.from_dlpack(cap)
        with self.assertRaisesRegex(BufferError, "used_dltensor"):
            thdl.from_dlpack(cap)
        del t, cap
        self.assertAlive(1)
        self.assertEqual(u.tolist(), [0.0, 1.0])

    def test_import_errors_run_the_deleter_once(self):
        """On any import error tensor.h has run the deleter: the export's reference to t is gone, once."""
        cases = [
            ("CUDA device memory", dict(device_type=2)),
            ("device type 4", dict(device_type=4)),
            ("lanes", dict(lanes=2)),
            ("NULL data", dict(null_data=True)),
            ("CUDA device memory", dict(versioned=True, device_type=2)),
            ("major version 2", dict(versioned=True, major=2)),
        ]
        for message, spoil in cases:
            with self.subTest(**spoil):
                t = thdl.arange("f32", (2, 3))
                cap = thdl.export_raw(t, **spoil)
                name = thdl.capsule_info(cap)["name"]
                with self.assertRaisesRegex(BufferError, message):
                    thdl.from_dlpack(cap)
                self.assertEqual(thdl.capsule_info(cap)["name"], "used_" + name)
                del cap  # renamed: no second deleter call
                self.assertAlive(1)  # t still holds its blob: the deleter released only the export's reference
                self.assertEqual(t.get((1, 2)), 5.0)
                del t
                self.assertAlive(0)

    def test_byte_offset_and_null_strides(self):
        """What PyTorch and NumPy never send but a producer may: both must read the same."""
        t = thdl.arange("f64", (3, 4))
        v = t.narrow(0, 1, 2)
        for versioned in (False, True):
            for spoil in (dict(byte_offset=8), dict(byte_offset=32), dict(null_strides=True),
                          dict(null_strides=True, byte_offset=24)):
                with self.subTest(versioned=versioned, **spoil):
                    cap = thdl.export_raw(v, versioned=versioned, **spoil)
                    info = thdl.capsule_info(cap)
                    self.assertEqual(info["data"] + info["byte_offset"], v.data_ptr)
                    u = thdl.from_dlpack(cap)
                    self.assertEqual((u.shape, u.strides, u.data_ptr), ((2, 4), (4, 1), v.data_ptr))
                    self.assertEqual(u.tolist(), v.tolist())
                    u.set((1, 3), -float(len(spoil)))
                    self.assertEqual(t.get((2, 3)), -float(len(spoil)))

    def test_views(self):
        t = thdl.arange("i64", (3, 4))
        views = {
            "transposed": t.transpose(0, 1),
            "narrowed": t.narrow(1, 1, 2),
            "selected": t.select(0, 2),
            "0-d": t.select(0, 1).select(0, 3),
            "zero-size": t.narrow(0, 1, 0),
            "negative strides": t.as_strided((3, 4), (-4, -1), 11),
            "zero strides": t.as_strided((2, 4), (0, 1), 4),
        }
        for name, v in views.items():
            for max_version in (None, (1, 0)):
                with self.subTest(view=name, max_version=max_version):
                    cap = v.__dlpack__(max_version=max_version)
                    info = thdl.capsule_info(cap)
                    self.assertEqual(info["byte_offset"], 0)  # the offset is folded into data
                    if v.numel:
                        self.assertEqual(info["data"], v.data_ptr)
                    elif max_version:
                        self.assertEqual(info["data"], 0)  # DLPack 1.0: zero-size data is NULL
                    else:
                        self.assertNotEqual(info["data"], 0)  # PyTorch 1.13 never frees NULL-data tensors
                    self.assertEqual((info["shape"], info["strides"]), (v.shape, v.strides))
                    u = thdl.from_dlpack(cap)
                    self.assertEqual((u.shape, u.strides), (v.shape, v.strides))
                    self.assertEqual(u.tolist(), v.tolist())
                    if v.numel and name != "zero strides":
                        idx = (0,) * v.ndim
                        u.set(idx, 1000 + len(name))
                        self.assertEqual(v.get(idx), 1000 + len(name))
        self.assertEqual(t.get((2, 3)), 1000 + len("negative strides"))  # [0, 0] of the flip is t[2, 3]


class OwnDlpackKeywords(Case):
    def test_signature(self):
        t = thdl.arange("f32", (2, 2))
        self.assertEqual(t.__dlpack_device__(), CPU)
        with self.assertRaises(TypeError):
            t.__dlpack__(None)  # keyword-only
        with self.assertRaises(TypeError):
            t.__dlpack__(max_versions=(1, 0))
        for bad in ("1.0", (1,), (1, 0, 0), ("1", "0")):
            with self.subTest(max_version=bad), self.assertRaises(TypeError):
                t.__dlpack__(max_version=bad)
        with self.assertRaises(TypeError):
            t.__dlpack__(copy=1)
        with self.assertRaises(TypeError):
            t.__dlpack__(dl_device="cpu")
        with self.assertRaises(ValueError):
            t.__dlpack__(stream=1)  # host memory has no streams
        self.assertEqual(thdl.capsule_info(t.__dlpack__(stream=None))["name"], "dltensor")

    def test_max_version(self):
        t = thdl.arange("f32", (2, 2))
        for max_version, name in [(None, "dltensor"), ((0, 8), "dltensor"), ((1, 0), "dltensor_versioned"),
                                  ((1, 3), "dltensor_versioned"), ((2, 0), "dltensor_versioned")]:
            with self.subTest(max_version=max_version):
                info = thdl.capsule_info(t.__dlpack__(max_version=max_version))
                self.assertEqual(info["name"], name)
                if name == "dltensor_versioned":
                    self.assertEqual(info["version"], (1, 0))  # what we write, never above what was asked

    def test_dl_device(self):
        t = thdl.arange("f32", (2, 2))
        self.assertEqual(thdl.capsule_info(t.__dlpack__(dl_device=CPU))["data"], t.data_ptr)
        for device in [(2, 0), (1, 1), (13, 0)]:
            for copy in (None, True, False):
                with self.subTest(dl_device=device, copy=copy), self.assertRaises(BufferError):
                    t.__dlpack__(dl_device=device, copy=copy)

    def test_copy(self):
        t = thdl.arange("c128", (2, 3))
        for max_version in (None, (1, 0)):
            with self.subTest(max_version=max_version):
                cap = t.__dlpack__(max_version=max_version, copy=False)
                self.assertEqual(thdl.capsule_info(cap)["data"], t.data_ptr)
                if max_version:
                    self.assertEqual(thdl.capsule_info(cap)["flags"], 0)
                cap = t.__dlpack__(max_version=max_version, copy=True)
                info = thdl.capsule_info(cap)
                self.assertNotEqual(info["data"], t.data_ptr)
                if max_version:
                    self.assertEqual(info["flags"], thdl.FLAG_IS_COPIED)
                u = thdl.from_dlpack(cap)
                self.assertEqual(u.tolist(), t.tolist())
                u.set((0, 0), 5j)  # the copy is the consumer's own
                self.assertEqual(t.get((0, 0)), 0j)
        # a transposed view copies into a contiguous tensor
        cap = t.transpose(0, 1).__dlpack__(copy=True)
        self.assertEqual(thdl.capsule_info(cap)["strides"], (2, 1))
        self.assertEqual(thdl.from_dlpack(cap).tolist(), t.transpose(0, 1).tolist())

    def test_read_only(self):
        t = thdl.arange("f32", (2, 3))
        thdl.read_only(t)
        self.assertTrue(t.read_only)
        with self.assertRaisesRegex(ValueError, "read-only"):
            t.set((0, 0), 1.0)
        cap = t.__dlpack__(max_version=(1, 0))
        info = thdl.capsule_info(cap)
        self.assertEqual((info["flags"], info["data"]), (thdl.FLAG_READ_ONLY, t.data_ptr))
        u = thdl.from_dlpack(cap)
        self.assertTrue(u.read_only)
        with self.assertRaisesRegex(ValueError, "read-only"):
            u.set((1, 1), 7.0)
        info = thdl.capsule_info(t.__dlpack__(max_version=(1, 0), copy=True))
        self.assertEqual(info["flags"], thdl.FLAG_IS_COPIED)  # a copy is writable
        # A legacy capsule cannot say read-only: it gets a writable copy, or BufferError with copy=False.
        cap = t.__dlpack__()
        self.assertNotEqual(thdl.capsule_info(cap)["data"], t.data_ptr)
        w = thdl.from_dlpack(cap)
        self.assertFalse(w.read_only)
        w.set((0, 0), 9.0)
        self.assertEqual(t.get((0, 0)), 0.0)
        with self.assertRaises(BufferError):
            t.__dlpack__(copy=False)


# ---- NumPy ----

@unittest.skipIf(np is None, NP_SKIP)
class NumPyReadsOurs(Case):
    def check(self, v, base=None, write=True):
        """NumPy imports v without a copy; writes each way show through."""
        a = np.from_dlpack(v)
        self.assertEqual(a.shape, v.shape)
        self.assertEqual(a.tolist(), v.tolist())
        if NP_VERSIONED:
            self.assertTrue(a.flags.writeable)
        if not v.numel:
            return a
        self.assertEqual(a.ctypes.data, v.data_ptr)
        self.assertEqual(a.strides, tuple(s * a.itemsize for s in v.strides))
        if write:
            d = v.dtype
            idx = (0,) * v.ndim
            np_writable(a)[idx] = VALUES[d][0]
            self.assertEqual(v.get(idx), VALUES[d][0])
            last = tuple(n - 1 for n in v.shape)
            v.set(last, VALUES[d][1])
            self.assertEqual(a[last].item(), VALUES[d][1])
        return a

    def test_every_dtype(self):
        for d, name in NP_DTYPES.items():
            with self.subTest(dtype=d):
                t = thdl.arange(d, (3, 4))
                a = np.from_dlpack(t)
                self.assertEqual(a.dtype, np.dtype(name))
                self.assertEqual(a.tolist(), expected(d, (3, 4)))
                self.check(t)

    def test_unsupported_dtypes_are_refused_cleanly(self):
        for d in ALL_DTYPES:
            if d in NP_DTYPES:
                continue
            with self.subTest(dtype=d):
                t = thdl.arange(d, (3,))
                with self.assertRaises((BufferError, TypeError, ValueError, RuntimeError)):
                    np.from_dlpack(t)
                self.assertAlive(1)  # NumPy left the capsule unconsumed: its destructor ran the deleter
                del t
                self.assertAlive(0)

    def test_views(self):
        t = thdl.arange("f64", (3, 4))
        for name, make in [("transposed", lambda: t.transpose(0, 1)), ("narrowed", lambda: t.narrow(1, 1, 2)),
                           ("narrowed rows", lambda: t.narrow(0, 1, 2)), ("selected", lambda: t.select(1, 2)),
                           ("0-d view", lambda: t.select(0, 2).select(0, 1)),
                           ("negative strides", lambda: t.as_strided((3, 4), (-4, -1), 11)),
                           ("negative row stride", lambda: t.as_strided((3, 2), (-4, 2), 8))]:
            with self.subTest(view=name):
                self.check(make())
        a = np.from_dlpack(t.narrow(1, 1, 2))
        self.assertEqual(a.ctypes.data, t.data_ptr + 8)  # the element offset, folded into data
        z = self.check(t.as_strided((2, 4), (0, 1), 4), write=False)  # zero strides
        self.assertEqual(z.strides, (0, 8))
        t.set((1, 1), 77.0)
        self.assertEqual(z[:, 1].tolist(), [77.0, 77.0])
        self.check(thdl.arange("c64", ()))  # 0-d
        for shape in [(0,), (0, 3), (3, 0, 2)]:
            with self.subTest(zero_size=shape):
                self.check(thdl.arange("i32", shape))
        self.check(t.narrow(0, 1, 0))  # zero-size view

    def test_consumer_outlives_producer(self):
        t = thdl.arange("i64", (4, 5))
        a = np.from_dlpack(t.transpose(0, 1))
        del t
        self.assertAlive(1)
        self.assertEqual(a.tolist(), [list(range(j, 20, 5)) for j in range(5)])
        np_writable(a)[4, 3] = -1
        self.assertEqual(a[4, 3], -1)
        del a
        self.assertAlive(0)

    def test_producer_outlives_consumer(self):
        t = thdl.arange("i64", (4, 5))
        a = np.from_dlpack(t)
        np_writable(a)[3, 4] = 123
        del a
        self.assertAlive(1)
        self.assertEqual(t.get((3, 4)), 123)
        del t
        self.assertAlive(0)

    @unittest.skipUnless(NP_VERSIONED, f"NumPy {NP} reads no versioned capsules (>= 2.1 does)")
    def test_numpy_asks_for_dlpack_1(self):
        t = thdl.arange("f32", (2, 3))
        rec = Recorder(t)
        a = np.from_dlpack(rec)
        self.assertEqual(rec.calls[-1].get("max_version"), (1, 0))
        self.assertTrue(a.flags.writeable)
        a[1, 2] = 8.5  # a plain NumPy write
        self.assertEqual(t.get((1, 2)), 8.5)
        b = np.from_dlpack(t, device="cpu")
        self.assertEqual(b.ctypes.data, t.data_ptr)
        c = np.from_dlpack(t, copy=True)  # our clone, with IS_COPIED
        self.assertNotEqual(c.ctypes.data, t.data_ptr)
        c[0, 0] = -4.0
        self.assertEqual(t.get((0, 0)), 0.0)
        d = np.from_dlpack(t, copy=False)
        self.assertEqual(d.ctypes.data, t.data_ptr)

    @unittest.skipUnless(NP_VERSIONED, f"NumPy {NP} cannot mark an import read-only (>= 2.1 can)")
    def test_read_only_export_is_not_writeable(self):
        t = thdl.arange("i32", (2, 3))
        thdl.read_only(t)
        a = np.from_dlpack(t)
        self.assertFalse(a.flags.writeable)
        self.assertEqual(a.ctypes.data, t.data_ptr)  # versioned with READ_ONLY: no copy needed
        with self.assertRaises(ValueError):
            a[0, 0] = 1
        self.assertEqual(a.tolist(), [[0, 1, 2], [3, 4, 5]])

    @unittest.skipIf(NP_VERSIONED, "NumPy >= 2.1 reads the versioned, read-only export")
    def test_read_only_export_is_a_copy_for_legacy_numpy(self):
        t = thdl.arange("i32", (2, 3))
        thdl.read_only(t)
        a = np.from_dlpack(t)  # legacy capsule: our __dlpack__ hands out a copy rather than lie
        self.assertNotEqual(a.ctypes.data, t.data_ptr)
        self.assertEqual(a.tolist(), [[0, 1, 2], [3, 4, 5]])


@unittest.skipIf(np is None, NP_SKIP)
class WeReadNumPy(Case):
    def check(self, a, write=True):
        u = thdl.from_dlpack(a)
        self.assertEqual(u.shape, a.shape)
        self.assertEqual(u.tolist(), a.tolist())
        if a.size:
            self.assertEqual(u.data_ptr, a.ctypes.data)
            self.assertEqual(u.strides, tuple(s // a.itemsize for s in a.strides))
        if write and a.size:
            d = u.dtype
            idx = (0,) * a.ndim
            u.set(idx, VALUES[d][0])
            self.assertEqual(a[idx].item(), VALUES[d][0])
            last = tuple(n - 1 for n in a.shape)
            a[last] = VALUES[d][1]
            self.assertEqual(u.get(last), VALUES[d][1])
        return u

    def test_every_dtype(self):
        for d, name in NP_DTYPES.items():
            with self.subTest(dtype=d):
                a = np.array(expected(d, (3, 4)), dtype=name)
                u = self.check(a)
                self.assertEqual(u.dtype, d)
                self.assertFalse(u.read_only)

    def test_views(self):
        base = np.arange(24, dtype=np.float32).reshape(4, 6)
        for name, make in [("reversed", lambda: base[::-1]), ("reversed columns", lambda: base[:, ::-1]),
                           ("both reversed, stepped", lambda: base[::-2, ::-3]), ("offset", lambda: base[2:]),
                           ("offset and stepped", lambda: base[1:, 1::2]), ("transposed", lambda: base.T),
                           ("selected column", lambda: base[:, 1]), ("size-1 dim", lambda: base[1:2]),
                           ("0-d", lambda: base[2, 3, ...]), ("zero-size", lambda: base[2:2]),
                           ("zero-size columns", lambda: base[:, 6:])]:
            with self.subTest(view=name):
                v = make()
                self.check(v)
        flipped = thdl.from_dlpack(base[::-1])
        self.assertEqual(flipped.strides, (-6, 1))
        base[0, 0] = 500.0
        self.assertEqual(flipped.get((3, 0)), 500.0)

    def test_scalars_and_unaligned(self):
        self.check(np.array(2.5))
        self.check(np.zeros((0, 3), dtype=np.int16))
        buf = bytearray(64)
        a = np.frombuffer(buf, dtype=np.float32, offset=1, count=6).reshape(2, 3)  # unaligned data
        self.assertFalse(a.flags.aligned)
        u = self.check(a)
        self.assertEqual(u.data_ptr % 4, 1)
        u.set((1, 2), 1.5)
        self.assertEqual(np.frombuffer(bytes(buf[1 + 20:1 + 24]), dtype=np.float32)[0], 1.5)

    def test_refcount_of_the_producer(self):
        a = np.arange(10, dtype=np.int64)
        before = sys.getrefcount(a)
        u = thdl.from_dlpack(a)
        held = sys.getrefcount(a)
        self.assertGreater(held, before)  # NumPy's manager_ctx holds the array
        v = u.narrow(0, 2, 5)
        del u
        gc.collect()
        self.assertEqual(sys.getrefcount(a), held)  # the view keeps the import alive
        v.set(0, -2)
        self.assertEqual(a[2], -2)
        del v
        gc.collect()
        self.assertEqual(sys.getrefcount(a), before)  # the deleter ran: NumPy's reference is gone

    def test_consumer_outlives_producer(self):
        a = np.array([[0.0, 1.0, 2.0, 3.0], [4.0, 5.0, 6.0, 7.0], [8.0, 9.0, 10.0, 11.0]])  # owns its memory
        alive = weakref.ref(a)
        u = thdl.from_dlpack(a[:, ::-1])
        del a
        gc.collect()
        self.assertIsNotNone(alive())  # the import keeps NumPy's array alive
        self.assertEqual(u.tolist(), [[3.0, 2.0, 1.0, 0.0], [7.0, 6.0, 5.0, 4.0], [11.0, 10.0, 9.0, 8.0]])
        u.set((0, 0), 30.0)
        self.assertEqual(alive()[0, 3], 30.0)
        del u
        gc.collect()
        self.assertIsNone(alive())

    @unittest.skipUnless(NP_VERSIONED, f"NumPy {NP} exports no read-only arrays (>= 2.1 does, versioned)")
    def test_read_only_numpy(self):
        a = np.arange(6, dtype=np.int32)
        a.flags.writeable = False
        u = thdl.from_dlpack(a)
        self.assertTrue(u.read_only)
        self.assertEqual(u.data_ptr, a.ctypes.data)
        with self.assertRaisesRegex(ValueError, "read-only"):
            u.set(0, 1)
        b = np.broadcast_to(np.arange(3.0), (2, 3))  # zero strides, read-only
        v = thdl.from_dlpack(b)
        self.assertEqual((v.strides, v.read_only), ((0, 1), True))
        self.assertEqual(v.tolist(), b.tolist())

    @unittest.skipIf(NP >= (2, 0), "NumPy >= 2.0 exports read-only arrays")
    def test_read_only_numpy_1(self):
        a = np.arange(6, dtype=np.int32)
        a.flags.writeable = False
        with self.assertRaises(BufferError):
            thdl.from_dlpack(a)  # NumPy 1.x refuses: a legacy capsule cannot say read-only


# ---- PyTorch ----

def torch_values(d, shape):
    return torch.tensor(expected(d, shape), dtype=TORCH_DTYPES[d])


@unittest.skipIf(torch is None, TORCH_SKIP)
class TorchReadsOurs(Case):
    def check(self, v, write=True):
        assert all(s >= 0 for s in v.strides), "PyTorch 1.13 aborts the process on negative strides"
        x = torch.utils.dlpack.from_dlpack(v)
        self.assertEqual(tuple(x.shape), v.shape)
        self.assertEqual(x.tolist(), v.tolist())
        if v.numel:
            self.assertEqual(x.data_ptr(), v.data_ptr)
            if write:
                d = v.dtype
                idx = (0,) * v.ndim
                x[idx] = VALUES[d][0]
                self.assertEqual(v.get(idx), VALUES[d][0])
                last = tuple(n - 1 for n in v.shape)
                v.set(last, VALUES[d][1])
                self.assertEqual(x[last].item(), VALUES[d][1])
        return x

    def test_every_dtype(self):
        for d, dtype in TORCH_DTYPES.items():
            with self.subTest(dtype=d):
                t = thdl.arange(d, (3, 4))
                x = torch.utils.dlpack.from_dlpack(t)
                self.assertEqual(x.dtype, dtype)
                self.assertEqual(x.tolist(), expected(d, (3, 4)))
                self.check(t)

    def test_views(self):
        t = thdl.arange("f32", (3, 4))
        x = self.check(t.narrow(1, 1, 2))  # PyTorch ignores byte_offset: ours is folded into data
        self.assertEqual(x.data_ptr(), t.data_ptr + 4)
        self.assertEqual(x.stride(), (4, 1))
        self.assertEqual(self.check(t.transpose(0, 1)).stride(), (1, 4))
        self.check(t.narrow(0, 2, 1))
        self.check(t.select(0, 1))
        self.check(t.select(1, 3))
        self.check(t.select(0, 2).select(0, 1))  # 0-d view
        self.check(thdl.arange("i64", ()))
        z = self.check(t.as_strided((2, 4), (0, 1), 4), write=False)
        self.assertEqual(z.stride(), (0, 1))
        t.set((1, 2), 55.0)
        self.assertEqual(z[:, 2].tolist(), [55.0, 55.0])

    def test_zero_size_is_freed(self):
        """PyTorch 1.13 never calls the deleter of a zero-size tensor whose data is NULL: ours is not NULL."""
        for shape in [(0,), (0, 3), (2, 0)]:
            with self.subTest(shape=shape):
                t = thdl.arange("f32", shape)
                x = self.check(t)
                self.assertEqual(tuple(x.shape), shape)
                del t
                self.assertAlive(1)
                del x
                self.assertAlive(0)
        t = thdl.arange("f32", (3, 4))
        self.check(t.narrow(1, 2, 0))
        del t
        self.assertAlive(0)

    def test_lifetimes(self):
        t = thdl.arange("i32", (3, 4))
        x = torch.utils.dlpack.from_dlpack(t.transpose(0, 1))
        del t
        self.assertAlive(1)
        x[3, 2] = -5
        self.assertEqual(x.tolist(), [[0, 4, 8], [1, 5, 9], [2, 6, 10], [3, 7, -5]])
        y = x[1:]  # a PyTorch view keeps the import
        del x
        self.assertAlive(1)
        self.assertEqual(y[2, 2].item(), -5)
        del y
        self.assertAlive(0)
        t = thdl.arange("i32", (3,))
        x = torch.utils.dlpack.from_dlpack(t)
        x[1] = 10
        del x
        self.assertAlive(1)
        self.assertEqual(t.tolist(), [0, 10, 2])

    def test_unsupported_dtypes_are_refused_cleanly(self):
        if "bool" in TORCH_DTYPES:
            self.skipTest(f"PyTorch {TORCH} takes every dtype we have")
        # Not handed to PyTorch at all (REFERENCE: 1.13 has no bool): our own export still works.
        t = thdl.arange("bool", (4,))
        self.assertEqual(thdl.from_dlpack(t).tolist(), [False, True, False, True])
        with self.assertRaises(RuntimeError):
            torch.tensor([True, False]).__dlpack__()  # PyTorch 1.13 refuses to export bool


@unittest.skipIf(torch is None, TORCH_SKIP)
class WeReadTorch(Case):
    def check(self, x, write=True):
        u = thdl.from_dlpack(x)
        self.assertEqual(u.shape, tuple(x.shape))
        self.assertEqual(u.tolist(), x.tolist())
        if x.numel():
            self.assertEqual(u.data_ptr, x.data_ptr())
            if write:
                d = u.dtype
                idx = (0,) * x.dim()
                u.set(idx, VALUES[d][0])
                self.assertEqual(x[idx].item(), VALUES[d][0])
                last = tuple(n - 1 for n in x.shape)
                x[last] = VALUES[d][1]
                self.assertEqual(u.get(last), VALUES[d][1])
        return u

    def test_every_dtype(self):
        for d in TORCH_DTYPES:
            with self.subTest(dtype=d):
                u = self.check(torch_values(d, (3, 4)))
                self.assertEqual(u.dtype, d)

    def test_views(self):
        base = torch.arange(24, dtype=torch.float64).reshape(4, 6)
        for name, make in [("offset", lambda: base[1:, 2:]), ("transposed", lambda: base.t()),
                           ("selected column", lambda: base[:, 1]), ("selected row", lambda: base[2]),
                           ("stepped", lambda: base[::2, 1::3]), ("0-d", lambda: base[3, 4]),
                           ("zero-size", lambda: base[2:2]), ("fresh zero-size", lambda: torch.zeros(0, 3)),
                           ("fresh 0-d", lambda: torch.tensor(2.5))]:
            with self.subTest(view=name):
                self.check(make())
        u = self.check(torch.arange(6.0).reshape(1, 6))  # PyTorch exports stride 1 for the size-1 dim
        self.assertTrue(u.is_contiguous)
        src = torch.arange(4.0).reshape(4, 1)
        u = self.check(src.expand(4, 3), write=False)  # zero strides
        self.assertEqual(u.strides, (1, 0))
        src[2, 0] = 9.0
        self.assertEqual(u.get((2, 1)), 9.0)

    def test_consumer_outlives_producer(self):
        x = torch.arange(12, dtype=torch.int64).reshape(3, 4)
        u = thdl.from_dlpack(x[1:, 1:])
        del x
        gc.collect()
        filler = [torch.full((3, 4), -7, dtype=torch.int64) for _ in range(8)]  # reuse freed memory, if any
        self.assertEqual(u.tolist(), [[5, 6, 7], [9, 10, 11]])
        u.set((1, 2), 99)
        self.assertEqual(u.get((1, 2)), 99)
        self.assertTrue(all(f.eq(-7).all() for f in filler))

    def test_producer_outlives_consumer(self):
        x = torch.arange(6, dtype=torch.int16)
        u = thdl.from_dlpack(x)
        u.set(5, -6)
        del u
        gc.collect()
        self.assertEqual(x.tolist(), [0, 1, 2, 3, 4, -6])


# ---- JAX ----

@unittest.skipIf(jax is None, JAX_SKIP)
class JaxReadsOurs(Case):
    def test_every_dtype(self):
        for d in ALL_DTYPES:
            with self.subTest(dtype=d):
                t = thdl.arange(d, (3, 4))
                t.set((2, 1), VALUES[d][0])  # written through ours before JAX reads it
                j = jax.dlpack.from_dlpack(t)
                self.assertEqual(j.dtype, jnp.dtype(JAX_NAMES[d]))
                self.assertEqual(j.unsafe_buffer_pointer(), t.data_ptr)  # no copy
                want = expected(d, (3, 4))
                want[2][1] = VALUES[d][0]
                self.assertEqual(j.tolist(), want)

    def test_transposed(self):
        t = thdl.arange("f32", (3, 4))
        t.set((0, 3), -3.0)
        j = jax.dlpack.from_dlpack(t.transpose(0, 1))  # a transpose is compact: JAX takes it
        self.assertEqual(j.shape, (4, 3))
        self.assertEqual(j.tolist(), t.transpose(0, 1).tolist())
        self.assertEqual(j[3, 0].item(), -3.0)
        self.assertEqual(j.unsafe_buffer_pointer(), t.data_ptr)
        k = jax.dlpack.from_dlpack(thdl.arange("i64", (2, 3, 4)).transpose(0, 2))
        self.assertEqual(k.tolist(), thdl.arange("i64", (2, 3, 4)).transpose(0, 2).tolist())

    def test_non_compact_views_are_refused_cleanly(self):
        t = thdl.arange("f32", (3, 4))
        for v in (t.narrow(1, 1, 2), t.as_strided((2, 4), (0, 1), 0)):
            with self.assertRaises(Exception):
                jax.dlpack.from_dlpack(v)
        del t, v
        self.assertAlive(0)  # whether JAX took the capsule or not, the deleter ran once

    def test_lifetimes(self):
        t = thdl.arange("f64", (2, 3))
        j = jax.dlpack.from_dlpack(t)
        del t
        self.assertAlive(1)
        self.assertEqual((j * 2).tolist(), [[0.0, 2.0, 4.0], [6.0, 8.0, 10.0]])
        del j
        self.assertAlive(0)
        t = thdl.arange("f64", (2, 3))
        j = jax.dlpack.from_dlpack(t)
        del j
        self.assertAlive(1)
        t.set((1, 1), 2.25)
        self.assertEqual(t.get((1, 1)), 2.25)


@unittest.skipIf(jax is None, JAX_SKIP)
class WeReadJax(Case):
    def test_every_dtype(self):
        for d in ALL_DTYPES:
            with self.subTest(dtype=d):
                want = expected(d, (3, 4))
                a = jnp.asarray(want, dtype=JAX_NAMES[d])
                u = thdl.from_dlpack(a)
                self.assertEqual((u.dtype, u.shape), (d, (3, 4)))
                self.assertEqual(u.data_ptr, a.unsafe_buffer_pointer())  # no copy
                self.assertEqual(u.tolist(), want)

    def test_shapes(self):
        for a in (jnp.asarray(2.5), jnp.zeros((0, 3)), jnp.arange(24.0).reshape(2, 3, 4).transpose(2, 0, 1),
                  jnp.arange(10)[::-2]):
            with self.subTest(shape=a.shape):
                u = thdl.from_dlpack(a)
                self.assertEqual(u.shape, a.shape)
                self.assertEqual(u.tolist(), a.tolist())

    def test_consumer_outlives_producer(self):
        a = jnp.arange(12, dtype=jnp.int32).reshape(3, 4) * 3
        u = thdl.from_dlpack(a)
        del a
        gc.collect()
        filler = [jnp.full((3, 4), -1, dtype=jnp.int32) + i for i in range(8)]
        self.assertEqual(u.tolist(), [[3 * (4 * i + j) for j in range(4)] for i in range(3)])
        self.assertEqual(len(filler), 8)


# ---- the run ----

def describe():
    parts = [f"python {sys.version.split()[0]} ({sys.executable})"]
    parts.append(f"numpy {np.__version__}" if np is not None else NP_SKIP)
    parts.append(f"torch {torch.__version__}" if torch is not None else TORCH_SKIP)
    parts.append(f"jax {jax.__version__}" if jax is not None else JAX_SKIP)
    return "; ".join(parts)


def frameworks_missing():
    """Why this run cannot test anything that matters, or "". Without NumPy and PyTorch nearly every case
    would be skipped and the run would pass; that must fail instead. Under valgrind the frameworks are left
    out on purpose, so there it is whether they are installed at all that counts."""
    if np is not None or torch is not None:
        return ""
    if UNDER_VALGRIND and (importlib.util.find_spec("numpy") or importlib.util.find_spec("torch")):
        return ""
    return (f"neither NumPy nor PyTorch imports in {sys.executable} (python {sys.version.split()[0]}), so "
            f"almost every case would be skipped: install them for this interpreter (Debian: apt-get install "
            f"python3-numpy python3-torch) or run the tests with one that has them")


def main():
    print(describe(), flush=True)
    missing = frameworks_missing()
    if missing:
        print(missing)
        print("0 passed, 1 failed", flush=True)
        return 1
    suite = unittest.defaultTestLoader.loadTestsFromModule(sys.modules[__name__])
    result = unittest.TextTestRunner(stream=sys.stdout, verbosity=2).run(suite)
    # Counted per test method: a test with failing subtests (or a failing tearDown) fails once.
    failed = {getattr(test, "test_case", test).id() for test, _ in result.failures + result.errors}
    failed |= {test.id() for test in result.unexpectedSuccesses}
    skipped = {test.id() for test, _ in result.skipped} - failed
    passed = result.testsRun - len(failed) - len(skipped)
    print(f"{len(skipped)} skipped")
    print(f"{passed} passed, {len(failed)} failed", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
