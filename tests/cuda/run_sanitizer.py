"""The CUDA device tests under compute-sanitizer, with the caching allocators off.

Usage: run_sanitizer.py TEST_CUDA_DEVICE TEST_CUDA_STREAMS

With TH_CUDA_NO_CACHING=1 every tensor is its own cudaMalloc of the exact size asked for, so memcheck sees a
kernel that reads or writes past a tensor as an access outside an allocation (inside a cached segment it would
land in a neighbouring block, unseen). Runs memcheck (with the leak check: every tensor the tests free must
reach cudaFree) and racecheck (shared-memory hazards in the kernels) over test_cuda_device and a short
test_cuda_streams. Exits 77 (Meson's skip) when compute-sanitizer is not installed or no device is usable,
saying which; 1 when a run fails or reports an error.
"""
import glob
import os
import re
import shutil
import subprocess
import sys

SKIP = 77


def find_sanitizer():
    """compute-sanitizer on PATH, else where the CUDA Toolkit puts it."""
    found = shutil.which("compute-sanitizer")
    if found:
        return found
    places = []
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(var):
            places.append(os.path.join(os.environ[var], "bin"))
            places.append(os.path.join(os.environ[var], "compute-sanitizer"))
    nvcc = shutil.which("nvcc")
    if nvcc:
        places.append(os.path.dirname(os.path.realpath(nvcc)))
    places += ["/usr/local/cuda/bin", "/usr/local/cuda/compute-sanitizer", "/opt/cuda/bin"]
    places += sorted(glob.glob("/usr/local/cuda-*/bin"), reverse=True)
    for place in places:
        candidate = os.path.join(place, "compute-sanitizer")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    return None


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    device_test, streams_test = sys.argv[1], sys.argv[2]
    sanitizer = find_sanitizer()
    if sanitizer is None:
        print("SKIP: compute-sanitizer not found (not on PATH, nor in $CUDA_HOME, next to nvcc or under "
              "/usr/local/cuda*/bin)")
        return SKIP
    env = dict(os.environ, TH_CUDA_NO_CACHING="1")
    # Is a device usable? The device test itself says so (77 and why), and its plain run with caching off is a
    # check of its own.
    plain = subprocess.run([device_test], env=env, capture_output=True, text=True, timeout=600)
    print(plain.stdout + plain.stderr)
    if plain.returncode == SKIP:
        return SKIP
    if plain.returncode != 0:
        print(f"test_cuda_device failed with caching off (exit status {plain.returncode})")
        return 1
    runs = [
        ("memcheck", ["--leak-check", "full"], [device_test]),
        ("memcheck", ["--leak-check", "full"], [streams_test, "200"]),
        ("racecheck", [], [device_test]),
        ("racecheck", [], [streams_test, "100"]),
    ]
    failed = 0
    for tool, extra, target in runs:
        cmd = [sanitizer, "--tool", tool, "--error-exitcode", "99"] + extra + target
        print("$ TH_CUDA_NO_CACHING=1 " + " ".join(cmd), flush=True)
        run = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1200)
        out = run.stdout + run.stderr
        print(out)
        # The summary line is compute-sanitizer's own (memcheck: "ERROR SUMMARY: 0 errors", racecheck:
        # "RACECHECK SUMMARY: 0 hazards displayed (0 errors, 0 warnings)"); a run without one did not finish
        # under the tool.
        clean = re.search(r"ERROR SUMMARY: 0 errors|SUMMARY: 0 hazards displayed \(0 errors", out) is not None
        if run.returncode != 0 or not clean:
            print(f"{tool} on {os.path.basename(target[0])}: exit status {run.returncode}"
                  f"{'' if clean else ', no clean ERROR SUMMARY'}")
            failed += 1
    print(f"{len(runs) - failed} of {len(runs)} compute-sanitizer runs clean")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
