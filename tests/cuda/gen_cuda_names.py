#!/usr/bin/env python3
"""Writes a C program that names every function th_cuda.h declares beyond tensor.h's (the per-dtype ones of
cuda/tensor_generic.h included), so that linking it against th_cuda proves each one is defined.

    gen_cuda_names.py SOURCE_ROOT OUTPUT DEPFILE CC [CC ARGS...]

The declarations come from the preprocessed headers, as tests/check_names.py reads tensor.h's; Meson runs
this at build time (DEPFILE lists the headers read), so a function declared and never defined fails the link.
"""
import re
import subprocess
import sys


def declared(cc, root, source):
    out = subprocess.run(cc + ['-std=c11', '-E', '-P', '-I', root, '-I', root + '/cuda', '-x', 'c', '-'],
                         input=source, text=True, capture_output=True, check=True).stdout
    names = set()
    for stmt in re.sub(r'\s+', ' ', out).split(';'):
        head = stmt.strip().split('(', 1)[0]
        if '(' in stmt and not stmt.strip().startswith(('typedef', 'static')):
            m = re.search(r'\b(th_\w+)\s*$', head)
            if m:
                names.add(m.group(1))
    return names


def main():
    root, output, depfile, cc = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    core = declared(cc, root, '#include "tensor.h"\n')
    cuda = sorted(declared(cc, root, '#include "tensor.h"\n#include "th_cuda.h"\n') - core)
    if len(cuda) < 50:
        sys.exit('gen_cuda_names.py: only %d functions found in th_cuda.h: the reading is broken' % len(cuda))
    with open(output, 'w') as f:
        f.write('/* Written by tests/cuda/gen_cuda_names.py: every function th_cuda.h declares. */\n')
        f.write('#include "tensor.h"\n#include "th_cuda.h"\n\n#include <stdio.h>\n\nint main(void)\n{\n')
        f.write('    const void *volatile p[] = {\n')
        for name in cuda:
            f.write('        (const void *)(size_t)&%s,\n' % name)
        f.write('    };\n    printf("%zu th_cuda functions, every one defined\\n", sizeof p / sizeof *p);\n')
        f.write('    return p[0] == NULL;\n}\n')
    with open(depfile, 'w') as f:
        f.write('%s: %s/cuda/th_cuda.h %s/cuda/tensor_generic.h\n' % (output, root, root))


if __name__ == '__main__':
    main()
