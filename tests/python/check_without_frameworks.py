"""The interop run must fail, naming its interpreter, when neither NumPy nor PyTorch imports.

Usage: python check_without_frameworks.py test_interop.py (with the environment of the interop tests).
Runs the interop tests under this interpreter with -S, which leaves site-packages out of sys.path and with
it both frameworks (thdl still imports, from PYTHONPATH), and checks their exit status and message."""
import subprocess
import sys


def main():
    run = subprocess.run([sys.executable, "-S", sys.argv[1]], capture_output=True, text=True, timeout=300)
    out = run.stdout + run.stderr
    print(out)
    want = f"neither NumPy nor PyTorch imports in {sys.executable}"
    if run.returncode != 1 or want not in out or not out.rstrip().endswith("0 passed, 1 failed"):
        print(f"expected exit status 1, '{want} ...' and '0 passed, 1 failed'; got exit status {run.returncode}")
        return 1
    print("ok: the run without NumPy and PyTorch failed and said why")
    return 0


if __name__ == "__main__":
    sys.exit(main())
