"""DLPack on the device: CUDA tensors of th_cuda (through the thcudl extension) exchanged with PyTorch and CuPy.

Run as `python test_cuda_dlpack.py` with PYTHONPATH holding the built thcudl module (Meson's test cuda_dlpack
runs it with /usr/bin/python3). Exits 77 (Meson's skip), saying why, when no device is usable or when neither
PyTorch with CUDA nor CuPy imports; each framework that is missing is skipped with its reason. Every exchange is
shown by writing on one side and reading on the other at the same address; every test checks that memory goes
back when the last user lets go (th_cuda's statistics, torch.cuda.memory_allocated), and the stream test that
a consumer's work on its own stream still reads the right values after the producer dropped the tensor.

The last line printed is "N passed, N failed"; the exit status is 1 when anything failed.
"""
import gc
import inspect
import sys
import traceback

SKIP = 77

try:
    import thcudl
except ImportError as e:
    print(f"cannot import thcudl ({e}): PYTHONPATH must hold the build directory of tests/cuda, and "
          f"{sys.executable} must be the python it was built for")
    print("0 passed, 1 failed")
    sys.exit(1)

if thcudl.device_count() == 0:
    print(f"SKIP: no usable CUDA device: {thcudl.unavailable_reason()}")
    sys.exit(SKIP)

try:
    import torch
    if not torch.cuda.is_available():
        raise ImportError(f"PyTorch {torch.__version__} has no usable CUDA (torch.cuda.is_available() is False)")
    TORCH_SKIP = ""
except Exception as e:  # noqa: BLE001  (any failure means: skip PyTorch)
    torch, TORCH_SKIP = None, f"{type(e).__name__}: {e}"

try:
    import cupy
    if cupy.cuda.runtime.getDeviceCount() < 1:
        raise ImportError("CuPy sees no CUDA device")
    CUPY_SKIP = ""
except Exception as e:  # noqa: BLE001
    cupy, CUPY_SKIP = None, f"{type(e).__name__}: {e}"

if torch is None and cupy is None:
    print(f"SKIP: neither PyTorch with CUDA nor CuPy imports in {sys.executable} "
          f"(PyTorch: {TORCH_SKIP}; CuPy: {CUPY_SKIP})")
    sys.exit(SKIP)

N = 1000
passed = failed = 0


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def run(name, fn):
    global passed, failed
    try:
        fn()
        passed += 1
        print(f"ok   {name}")
    except Exception:  # noqa: BLE001
        failed += 1
        print(f"FAIL {name}")
        traceback.print_exc(file=sys.stdout)


def th_allocations():
    gc.collect()
    return thcudl.memory_stats()["allocations"]


# ---- PyTorch ----

TORCH_DTYPES = {}
if torch is not None:
    TORCH_DTYPES = {"u8": torch.uint8, "i8": torch.int8, "i16": torch.int16, "i32": torch.int32,
                    "i64": torch.int64, "f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32,
                    "f64": torch.float64}


def torch_from_th():
    base = th_allocations()
    t = thcudl.arange("f32", N)
    x = torch.from_dlpack(t)
    check(x.is_cuda and x.data_ptr() == t.data_ptr, "torch sees the same device memory")
    check(x.tolist() == [float(k) for k in range(N)], "torch reads th's values")
    x.mul_(2)  # on torch's current stream: the legacy default stream, which th's default stream is too
    torch.cuda.synchronize()
    check(t.tolist() == [2.0 * k for k in range(N)], "th reads torch's writes")
    del t  # the export keeps th's storage alive
    check(th_allocations() == base + 1, "the block lives while torch holds it")
    del x
    check(th_allocations() == base, "torch's release ran the deleter: the block is back")


def th_from_torch():
    y = torch.arange(N, dtype=torch.float32, device="cuda") * 3
    torch.cuda.synchronize()
    held = torch.cuda.memory_allocated()
    u = thcudl.from_dlpack(y)
    check(u.data_ptr == y.data_ptr(), "th sees the same device memory")
    check(u.tolist() == [3.0 * k for k in range(N)], "th reads torch's values")
    u.assign([-float(k) for k in range(N)])
    check(y.tolist() == [-float(k) for k in range(N)], "torch reads th's writes")
    del y
    gc.collect()
    check(torch.cuda.memory_allocated() == held, "th's import keeps torch's memory alive")
    del u
    gc.collect()
    check(torch.cuda.memory_allocated() < held, "th's release ran torch's deleter")


def torch_dtypes():
    for name, dt in TORCH_DTYPES.items():
        t = thcudl.arange(name, 100)
        x = torch.from_dlpack(t)
        check(x.dtype == dt, f"{name}: torch dtype {x.dtype}")
        check(x.double().tolist() == t.tolist(), f"{name}: th to torch values")
        z = torch.arange(100, device="cuda").to(dt)
        check(thcudl.from_dlpack(z).tolist() == z.double().tolist(), f"{name}: torch to th values")


def torch_strided():
    t = thcudl.arange("f32", 12).view2(3, 4).transpose()
    x = torch.from_dlpack(t)
    check(tuple(x.shape) == t.shape == (4, 3) and tuple(x.stride()) == t.strides == (1, 4), "layout")
    check(x.flatten().tolist() == t.tolist(), "values of a transposed view")
    y = torch.arange(12, dtype=torch.float64, device="cuda").reshape(3, 4).t()
    u = thcudl.from_dlpack(y)
    check(u.strides == tuple(y.stride()) and u.tolist() == y.flatten().tolist(), "a torch view into th")


def torch_consumer_stream():
    """torch reads on a stream of ours: __dlpack__(stream=ours) makes it wait for our work and records the
    block as used there, so dropping every reference at once cannot hand the memory to the next allocation
    while torch's kernel on that stream is still reading it."""
    ptr = thcudl.stream_new()
    ours = torch.cuda.ExternalStream(ptr)
    for _ in range(20):
        t = thcudl.arange("f32", 1 << 20)
        with torch.cuda.stream(ours):
            x = torch.from_dlpack(t)
            out = torch.empty(1 << 20, device="cuda")
            for _ in range(8):  # enough work on ours to be in flight below
                torch.mul(x, 1.0, out=out)
        del x, t
        # Same size, on our default stream, other bits (int32 k is not float k): had it taken the block that
        # torch is reading, torch's result below would hold these bits.
        junk = thcudl.arange("i32", 1 << 20)
        ours.synchronize()
        got = out[:5].tolist() + out[-5:].tolist()
        check(got == [float(k) for k in range(5)] + [float(k) for k in range((1 << 20) - 5, 1 << 20)],
              f"torch's result on our stream: {got}")
        del junk, out


def torch_versioned():
    z = torch.arange(10, dtype=torch.float32, device="cuda")
    cap = z.__dlpack__(max_version=(1, 0))
    u = thcudl.from_dlpack(cap)
    check(u.tolist() == z.tolist(), "a versioned capsule imports")


# ---- CuPy ----

def cupy_round_trip():
    base = th_allocations()
    t = thcudl.arange("f64", N)
    a = cupy.from_dlpack(t)
    check(a.data.ptr == t.data_ptr and a.tolist() == [float(k) for k in range(N)], "cupy reads th's memory")
    a *= 5
    cupy.cuda.runtime.deviceSynchronize()
    check(t.tolist() == [5.0 * k for k in range(N)], "th reads cupy's writes")
    del t, a
    check(th_allocations() == base, "cupy's release ran the deleter")
    b = cupy.arange(N, dtype=cupy.float32)
    u = thcudl.from_dlpack(b)
    check(u.data_ptr == b.data.ptr and u.tolist() == b.tolist(), "th reads cupy's memory")
    u.assign([7.0] * N)
    check(b.tolist() == [7.0] * N, "cupy reads th's writes")
    s = thcudl.arange("i32", 12).view2(3, 4).transpose()
    c = cupy.from_dlpack(s)
    check(c.shape == (4, 3) and c.strides == (4, 16) and c.flatten().tolist() == s.tolist(), "a strided view")


if torch is not None:
    print(f"PyTorch {torch.__version__}, CUDA {torch.version.cuda}")
    run("torch: th -> torch, write back, deleter", torch_from_th)
    run("torch: torch -> th, write back, deleter", th_from_torch)
    run("torch: every dtype both ways", torch_dtypes)
    run("torch: strided views both ways", torch_strided)
    run("torch: the consumer's stream", torch_consumer_stream)
    if "max_version" in inspect.signature(torch.Tensor.__dlpack__).parameters:
        run("torch: versioned capsule", torch_versioned)
    else:
        print(f"torch: versioned capsule skipped: PyTorch {torch.__version__} exports DLPack 0.x only")
else:
    print(f"PyTorch skipped: {TORCH_SKIP}")
if cupy is not None:
    print(f"CuPy {cupy.__version__}")
    run("cupy: both ways, write back, deleter, strided", cupy_round_trip)
else:
    print(f"CuPy skipped: {CUPY_SKIP}")
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
