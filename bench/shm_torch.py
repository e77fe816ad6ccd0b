"""bench/shm_torch.py: PyTorch's torch.multiprocessing, timed like bench/shm_bench.c (run by bench/shm_run.sh).

handoff: a float32 tensor already in shared memory (share_memory_()) goes through a torch.multiprocessing
Queue to a worker, which reads its first element and answers through a second queue; the median time of
that trip. roundtrip: small tensors (16 floats) created, put on the queue (which moves them into shared
memory), read in the worker and answered; round trips per second. Both sharing strategies: file_descriptor
(PyTorch's default on Linux) and file_system. Prints "key value unit" lines.
"""
import statistics
import sys
import time

import torch
import torch.multiprocessing as mp


def worker(inq, outq):
    while True:
        t = inq.get()
        if t is None:
            return
        outq.put(float(t[0]))
        del t


def main():
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 2.0
    big = int(sys.argv[2]) if len(sys.argv) > 2 else 1 << 30
    torch.set_num_threads(1)
    ctx = mp.get_context("fork")
    names = {"file_descriptor": "fd", "file_system": "name"}
    results = []
    for strategy in ("file_descriptor", "file_system"):
        mp.set_sharing_strategy(strategy)
        inq, outq = ctx.Queue(), ctx.Queue()
        p = ctx.Process(target=worker, args=(inq, outq))
        p.start()
        for nbytes, label in ((1 << 20, "1MiB"), (big, "1GiB")):
            t = torch.full((nbytes // 4,), 1.5)
            t0 = time.perf_counter()
            t.share_memory_()
            share = time.perf_counter() - t0
            times = []
            for _ in range(21):
                t0 = time.perf_counter()
                inq.put(t)
                assert outq.get() == 1.5
                times.append(time.perf_counter() - t0)
            results.append(f"share_{names[strategy]}_{label} {share * 1e6:.1f} us")
            results.append(f"handoff_{names[strategy]}_{label} {statistics.median(times) * 1e6:.1f} us")
            del t
        count = 0
        t0 = time.perf_counter()
        while True:
            for _ in range(50):
                inq.put(torch.full((16,), 1.5))
                assert outq.get() == 1.5
                count += 1
            t1 = time.perf_counter()
            if t1 - t0 >= seconds:
                break
        results.append(f"roundtrip_{names[strategy]} {count / (t1 - t0):.0f} per_s")
        inq.put(None)
        p.join()
    print("\n".join(results))


if __name__ == "__main__":
    main()
