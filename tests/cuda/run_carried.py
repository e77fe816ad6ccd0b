"""Runs the tests of one suite from a Meson build directory that was built on another machine and carried here
(the GPU machine that sessions borrow has the CUDA runtime but not this project's build tools, and its time is
too short to build there). Meson's own `meson test` would look at the build files' times, which a copy does
not keep, and try to rebuild; this reads the test list Meson wrote (meson-info/intro-tests.json) and runs each
test's command as Meson would: its environment, its working directory, its timeout, 77 as a skip.

Usage: run_carried.py BUILD_DIR SUITE LOG_DIR [-NAME...|NAME...]   (NAME runs only those; -NAME leaves one out)
Environment: RUN_CARRIED_MAX_TIMEOUT caps each test's timeout in seconds (a borrowed machine's time is short).

Run it from the checkout's root. The paths in the list are those of the machine and directory that configured
the build: they are mapped onto BUILD_DIR and the current directory (the build may travel under another name). Prints one line a test and a summary; exits 1
if any test failed.
"""
import json
import os
import subprocess
import sys
import time


def main():
    build, suite, logs = sys.argv[1], sys.argv[2], sys.argv[3]
    only = {a for a in sys.argv[4:] if not a.startswith("-")}
    skip = {a[1:] for a in sys.argv[4:] if a.startswith("-")}
    cap = float(os.environ.get("RUN_CARRIED_MAX_TIMEOUT", "0")) or None
    build = os.path.abspath(build)
    with open(os.path.join(build, "meson-info", "intro-tests.json")) as f:
        tests = json.load(f)
    # Where the build was configured (meson-info.json keeps the source and build directories): those paths
    # are mapped onto this build directory and the checkout the command runs in.
    with open(os.path.join(build, "meson-info", "meson-info.json")) as f:
        dirs = json.load(f)["directories"]
    moves = [(dirs["build"], build), (dirs["source"], os.getcwd())]

    def here(s):
        if isinstance(s, str):
            for there, place in moves:
                if there != place:
                    s = s.replace(there, place)
        return s

    def program(p):
        p = here(p)
        if p.endswith("python3") and not os.path.exists(p):
            return sys.executable
        return p

    os.makedirs(logs, exist_ok=True)
    counts = {"OK": 0, "SKIP": 0, "FAIL": 0, "TIMEOUT": 0}
    for t in tests:
        if not any(s.split(":")[-1] == suite for s in t["suite"]):
            continue
        if (only and t["name"] not in only) or t["name"] in skip:
            continue
        cmd = [program(t["cmd"][0])] + [here(a) for a in t["cmd"][1:]]
        env = dict(os.environ)
        env.update({k: here(v) for k, v in (t.get("env") or {}).items()})
        cwd = here(t.get("workdir") or build)
        if not os.path.isdir(cwd):
            cwd = build
        start = time.time()
        log_path = os.path.join(logs, t["name"] + ".log")
        with open(log_path, "w") as log:
            try:
                rc = subprocess.run(cmd, env=env, cwd=cwd, stdout=log, stderr=subprocess.STDOUT,
                                    timeout=min(t.get("timeout") or 30, cap or 1e9)).returncode
                result = "OK" if rc == 0 else "SKIP" if rc == 77 else "FAIL"
            except subprocess.TimeoutExpired:
                rc, result = None, "TIMEOUT"
        counts[result] += 1
        print("%-24s %-7s rc=%s %6.1fs" % (t["name"], result, rc, time.time() - start), flush=True)
        if result in ("FAIL", "TIMEOUT", "SKIP"):
            with open(log_path) as log:
                tail = log.read()[-3000:]
            print("    " + tail.replace("\n", "\n    "), flush=True)
    print(" ".join("%s %d" % kv for kv in counts.items()))
    return 1 if counts["FAIL"] or counts["TIMEOUT"] else 0


if __name__ == "__main__":
    sys.exit(main())
