"""The type-promotion table from PyTorch (torch.promote_types, torch.result_type) for promote_torch.c.

`promote_torch.py write DIR` writes DIR/promote.txt, one case a line: `promote A B R` for
torch.promote_types(A, B) = R, and `result A:DIMS B:DIMS [C:DIMS] R` for torch.result_type over tensors of those
dtypes with those numbers of dims (0 or 1). Dtypes by the library's names; PyTorch's complex32, which the library
lacks, is written as c64 (docs/core.md says so). Exits 77 when torch cannot be imported."""
import itertools
import os
import random
import sys
import warnings

try:
    import torch
except ImportError:
    print("SKIP: no torch for /usr/bin/python3")
    sys.exit(77)

NAMES = {torch.bool: "bool", torch.uint8: "u8", torch.int8: "i8", torch.int16: "i16", torch.int32: "i32",
         torch.int64: "i64", torch.float16: "f16", torch.bfloat16: "bf16", torch.float32: "f32",
         torch.float64: "f64", torch.complex64: "c64", torch.complex128: "c128", torch.complex32: "c64"}
DTYPES = [d for d in NAMES if d is not torch.complex32]


def tensor(dtype, dims):
    return torch.zeros((2,) * dims, dtype=dtype)


def main():
    warnings.filterwarnings("ignore")  # complex32 is "experimental" in torch 1.13
    os.makedirs(sys.argv[2], exist_ok=True)
    out = os.path.join(sys.argv[2], "promote.txt")
    lines = []
    for a, b in itertools.product(DTYPES, DTYPES):
        lines.append(f"promote {NAMES[a]} {NAMES[b]} {NAMES[torch.promote_types(a, b)]}")
    for a, b in itertools.product(DTYPES, DTYPES):
        for da, db in itertools.product((0, 1), (0, 1)):
            r = torch.result_type(tensor(a, da), tensor(b, db))
            lines.append(f"result {NAMES[a]}:{da} {NAMES[b]}:{db} {NAMES[r]}")
    rng = random.Random(11)
    for _ in range(2000):
        ops = [(rng.choice(DTYPES), rng.choice((0, 1))) for _ in range(3)]
        # torch.result_type takes two operands; addcmul promotes its three together (TensorIterator's common
        # dtype, the rule result_type applies to two), which chaining + would not.
        ts = [tensor(d, n) for d, n in ops]
        try:
            r = torch.addcmul(ts[0], ts[1], ts[2]).dtype
        except RuntimeError:
            continue
        lines.append("result " + " ".join(f"{NAMES[d]}:{n}" for d, n in ops) + f" {NAMES[r]}")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    print(f"promote_torch.py: {len(lines)} cases from torch {torch.__version__}")


if __name__ == "__main__":
    sys.exit(main())
