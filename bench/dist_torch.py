"""bench/dist_torch.py: torch.distributed all_reduce (sum, float32, in place) with the gloo backend, on the sizes of
bench/dist_bench.c, timed the same way (rounds of about 20 ms, the median over the rounds of the slowest rank's
time per call). Started by bench/dist_run.sh under mpirun: the rank and size come from Open MPI's environment
(OMPI_COMM_WORLD_RANK / _SIZE, or PMI_RANK / PMI_SIZE), the rendezvous is tcp://127.0.0.1:DIST_TORCH_PORT.
Rank 0 prints one line per size: bytes and microseconds per call."""
import os
import sys
import time

import torch
import torch.distributed as dist


def env_int(*names):
    for name in names:
        if name in os.environ:
            return int(os.environ[name])
    sys.exit("dist_torch.py: start it under mpirun (no %s in the environment)" % names[0])


def main():
    rank = env_int("OMPI_COMM_WORLD_RANK", "PMI_RANK")
    size = env_int("OMPI_COMM_WORLD_SIZE", "PMI_SIZE")
    port = int(os.environ.get("DIST_TORCH_PORT", "29533"))
    seconds = float(os.environ.get("DIST_SECONDS", "0.5"))
    max_bytes = int(os.environ.get("DIST_MAX_MIB", "256")) << 20
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method="tcp://127.0.0.1:%d" % port, rank=rank, world_size=size)
    if rank == 0:
        print("torch %s gloo all_reduce sum, float32, %d ranks; median us per call" % (torch.__version__, size))
    nbytes = 1024
    while nbytes <= max_bytes:
        t = torch.zeros(nbytes // 4, dtype=torch.float32)
        start = time.perf_counter()
        dist.all_reduce(t)
        one = torch.tensor([time.perf_counter() - start], dtype=torch.float64)
        dist.broadcast(one, 0)
        one = one.item()
        calls = 1 if one > 0.02 else int(0.02 / max(one, 1e-6))
        rounds = min(max(int(seconds / (3 * 0.02)), 5), 400)
        times = []
        for _ in range(rounds):
            dist.barrier()
            start = time.perf_counter()
            for _ in range(calls):
                dist.all_reduce(t)
            worst = torch.tensor([(time.perf_counter() - start) / calls], dtype=torch.float64)
            dist.all_reduce(worst, op=dist.ReduceOp.MAX)
            times.append(worst.item())
        times.sort()
        if rank == 0:
            print("%10d %12.1f" % (nbytes, times[len(times) // 2] * 1e6), flush=True)
        nbytes *= 2
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
