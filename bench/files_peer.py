"""bench/files_peer.py DIR BIG: the Python peers' rows for bench/files_run.sh, over the files files_bench wrote
(DIR/small.safetensors, DIR/big.safetensors: 100 f32 tensors t000..t099) and .npy files of the same bytes.
Prints `key value` lines (us for opening, ms for saving); a peer that cannot be imported prints nothing."""
import os
import sys
import time

import numpy as np


def best(fn, reps, sync=False):
    b = float('inf')
    for _ in range(reps):
        if sync:
            os.sync()  # as files_bench: no write pays for the dirty pages of the one before
        t = time.perf_counter()
        fn()
        b = min(b, time.perf_counter() - t)
    return b


def main():
    d, big = sys.argv[1], int(sys.argv[2])
    try:
        from safetensors import safe_open
        from safetensors.numpy import save_file
    except ImportError:
        safe_open = save_file = None
    for size, name in ((1 << 20, 'small'), (big, 'big')):
        path = os.path.join(d, name + '.safetensors')
        if safe_open:
            def get():
                with safe_open(path, framework='np') as f:
                    f.get_tensor('t050')[7]
            print('safe_open_%s %.1f' % (name, best(get, 31) * 1e6))
        per = size // 100 // 4
        npy = os.path.join(d, name + '.npy')
        np.save(npy, (np.arange(per * 100) % 1000 * 0.5).astype(np.float32).reshape(100, per))

        def mm():
            a = np.load(npy, mmap_mode='r')
            a[50][7]
        print('np_load_mmap_%s %.1f' % (name, best(mm, 31) * 1e6))
    per = big // 100 // 4
    whole = (np.arange(per * 100) % 1000 * 0.5).astype(np.float32).reshape(100, per)
    out = os.path.join(d, 'peer.npy')
    print('np_save_big %.1f' % (best(lambda: np.save(out, whole), 5, sync=True) * 1e3))
    if save_file:
        tensors = {'t%03d' % k: whole[k] for k in range(100)}
        out = os.path.join(d, 'peer.safetensors')
        print('save_file_big %.1f' % (best(lambda: save_file(tensors, out), 5, sync=True) * 1e3))
    for f in ('peer.npy', 'peer.safetensors', 'small.npy', 'big.npy'):
        if os.path.exists(os.path.join(d, f)):
            os.unlink(os.path.join(d, f))


if __name__ == '__main__':
    main()
