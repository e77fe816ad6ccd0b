#!/usr/bin/env python3
"""Writes the calls of test_dtype_check.c: every typed function, once per tensor parameter.

    gen_dtype_check.py SOURCE_ROOT HEADER OUTPUT DEPFILE CC [CC ARGS...]

HEADER is tensor.h, or a companion's header (shm/th_shm.h): then only the functions it adds to tensor.h's.
The declarations are read from the preprocessed header (as tests/check_names.py reads them, with the
compile arguments the test is built with, so DLPack's functions are there exactly when the test sees them),
and every function th_<sfx>_<verb> with a parameter of a typed tensor type (th_f32_tensor *, th_bool_tensor *,
an array of them) gets one wrapper in OUTPUT. test_dtype_check.c runs each wrapper once with every tensor of
the dtype its parameter names, then once per parameter with a tensor of another dtype in that place. Meson
runs this at build time (DEPFILE lists every header read), so no function can be left out: a new one is
called as soon as it is declared, and one whose parameters this script cannot fill stops the build.
"""
import os
import re
import subprocess
import sys

SFXS = ['bool', 'u8', 'i8', 'i16', 'i32', 'i64', 'f16', 'bf16', 'f32', 'f64', 'c64', 'c128']
ENUM = {s: 'TH_' + s.upper() for s in SFXS}
TYPED = re.compile(r'^(const )?th_(%s)_tensor \*$' % '|'.join(SFXS))
ARRAY = re.compile(r'^const th_(%s)_tensor \*const \*$' % '|'.join(SFXS))
VIEWS = re.compile(r'^th_(%s)_tensor \*\*$' % '|'.join(SFXS))
NAME = re.compile(r'^th_(%s)_(\w+)$' % '|'.join(SFXS))

# Values of the other parameters, by name, that make a sensible call on the 2x2 tensors below: the
# refused calls must not fail on them first where a dtype is checked after other arguments.
SCALARS = {
    'dim': '0', 'dim0': '0', 'dim1': '1', 'start_dim': '0', 'end_dim': '1', 'ndim': '2', 'ndims': '1', 'n': '2',
    'start': '0', 'length': '1', 'index': '0', 'size': '1', 'step': '1', 'split_size': '1', 'chunks': '2',
    'shift': '1', 'num_samples': '1', 'correction': '1', 'offset': '0', 'count': '2',
    'lo': '0', 'hi': '2', 'mean': '0', 'std': '1', 'lambda': '1', 'p': '1',
    'keepdim': 'false', 'descending': 'false', 'largest': 'true', 'sorted': 'true', 'replacement': 'true',
    'accumulate': 'false', 'gen': 'NULL', 'f': 'dc_devnull',
    'upper': 'false', 'left': 'true', 'unitriangular': 'false', 'rcond': '-1', 'rtol': '-1', 'ord': 'TH_NORM_FRO',
    'normalized_ndim': '2', 'eps': '1e-5', 'npad': '2', 'mode': 'TH_PAD_CONSTANT', 'value': '0',
    'num_groups': '1', 'approximate': 'false', 'layout': 'TH_ROPE_HALVES',
    'negative_slope': '0.01', 'alpha': '1', 'beta': '1', 'threshold': '20',
    'q': '0.5', 'method': 'TH_QUANTILE_LINEAR',
    'invert': 'false', 'right': 'false', 'equal_nan': 'false', 'atol': '1e-8', 'bins': '2', 'min': '0', 'max': '0',
    'minlength': '0',
}
# ops/search.h: where a verb needs another value than SCALARS' (isclose refuses a negative rtol).
SCALARS_BY_VERB = {v: {'rtol': '1e-5'} for v in ('isclose', 'isclose_out', 'allclose')}
POINTERS = {
    ('const int64_t *', 'sizes'): '(const int64_t[]){2, 2}',
    ('const int64_t *', 'strides'): '(const int64_t[]){2, 1}',
    ('const int64_t *', 'repeats'): '(const int64_t[]){1, 1}',
    ('const int64_t *', 'idx'): '(const int64_t[]){0, 0}',
    ('const int *', 'dims'): None,  # by verb, below
    ('int64_t *', 'count'): '&count',
    ('const int64_t *', 'kernel'): '(const int64_t[]){1, 1, 1}',  # 3 for the 3d pools
    ('const th_conv_opts *', 'opts'): 'NULL',
    ('const th_pool_opts *', 'opts'): 'NULL',
    ('const th_interp_opts *', 'opts'): '&(const th_interp_opts){.size = {2}}',  # nearest to the same size
    ('const th_loss_opts *', 'opts'): 'NULL',
    ('const th_sdpa_opts *', 'opts'): 'NULL',
    ('const th_tensor *', 'mask'): 'NULL',
    ('const int64_t *', 'output_size'): '(const int64_t[]){1, 1, 1}',
    ('const int64_t *', 'pads'): '(const int64_t[]){0, 0}',
    ('const char *', 'equation'): '"ij,jk->ik"',
    ('const int *', 'dims_a'): '(const int[]){1, 0}',
    ('const int *', 'dims_b'): '(const int[]){0, 1}',
    ('const th_search_opts *', 'opts'): 'NULL',
    ('const double *', 'range'): 'NULL',
    ('_Bool *', 'result'): '&(bool){false}',
    ('th_tensor *', 'out'): 'dc_own(c, dc_ones(TH_I64, 2, (const int64_t[]){2, 2}))',  # searchsorted's int64 out
}
# ops/search.h: shapes where the 2x2 default does not fit, by verb and parameter name.
SEARCH = {'bucketize': {'boundaries': [2]}, 'bincount': {'x': [2]}, 'bincount_weighted': {'x': [2], 'weights': [2]},
          'histc': {'out': [2]}}
DIMS = {'permute': '(const int[]){1, 0}', 'flip': '(const int[]){0}', 'flip_out': '(const int[]){0}'}
K = {'topk': '2', 'topk_out': '2', 'kthvalue': '1', 'kthvalue_out': '1'}  # topk keeps the 2x2 shape, so the outs fit; diag, tril and triu take 0

# The matrix products' operands by parameter name: (shape, name in the message), from ops/linalg_erased.h.
PRODUCTS = {
    'dot': {'a': ([2], 'a'), 'b': ([2], 'b'), 'out': ([], 'out')},
    'mv': {'a': ([2, 2], 'A'), 'b': ([2], 'x'), 'bias': ([2], 'y'), 'out': ([2], 'out')},
    'mm': {'a': ([2, 2], 'A'), 'b': ([2, 2], 'B'), 'bias': ([2, 2], 'C'), 'out': ([2, 2], 'out')},
    'bmm': {'a': ([1, 2, 2], 'A'), 'b': ([1, 2, 2], 'B'), 'bias': ([1, 2, 2], 'C'), 'out': ([1, 2, 2], 'out')},
    'matmul': {'a': ([2, 2], 'a'), 'b': ([2, 2], 'b'), 'out': ([2, 2], 'out')},
    'outer': {'a': ([2], 'x'), 'b': ([2], 'y'), 'bias': ([2, 2], 'A'), 'out': ([2, 2], 'out')},
}
# ops/lapack.h: 1x1 matrices (a 2x2 of ones is singular) and outs of their results' shapes, by parameter name
# (1x1 by default). qr, eigh, eig, eigvals, svd, svd_full and svdvals refuse every call without LAPACK (TH_ERR_UNSUPPORTED): accepted then.
LAPACK = {'solve': {}, 'inv': {}, 'det': {'out': []}, 'slogdet': {'sign': [], 'logabsdet': []}, 'cholesky': {},
          'qr': {}, 'eigh': {'eigenvalues': [1]}, 'eig': {'eigenvalues': [1]}, 'eigvals': {'out': [1]},
          'svd': {'S': [1]}, 'svd_full': {'S': [1]}, 'svdvals': {'out': [1]}}
LAPACK.update({'solve_triangular': {}, 'cholesky_solve': {}, 'lu_factor': {'pivots': [1]}, 'lu_solve': {'pivots': [1]},
               'lstsq': {'A': [2, 1], 'B': [2, 1], 'residuals': [1], 'rank': [], 'S': [1]}, 'pinv': {}, 'matrix_rank': {'out': []},
               'matrix_norm': {'out': []}, 'cond': {'out': []}, 'matrix_power': {}})
LAPACK_ONLY = ('qr', 'eigh', 'eig', 'eigvals', 'svd', 'svd_full', 'svdvals', 'lstsq', 'pinv', 'matrix_rank')
# ops/conv.h: operand shapes a call accepts, by verb and parameter name (1x1 kernels, unit pooling windows).
CONV = {'conv1d': {'input': [1, 1, 2], 'weight': [1, 1, 1], 'bias': [1], 'out': [1, 1, 2]},
        'conv2d': {'input': [1, 1, 2, 2], 'weight': [1, 1, 1, 1], 'bias': [1], 'out': [1, 1, 2, 2]},
        'conv3d': {'input': [1, 1, 1, 2, 2], 'weight': [1, 1, 1, 1, 1], 'bias': [1], 'out': [1, 1, 1, 2, 2]},
        'max_pool2d': {'input': [1, 2, 2], 'out': [1, 2, 2], 'indices_out': [1, 2, 2]},
        'avg_pool2d': {'input': [1, 2, 2], 'out': [1, 2, 2]},
        'adaptive_avg_pool2d': {'input': [1, 2, 2], 'out': [1, 1, 1]},
        'adaptive_max_pool2d': {'input': [1, 2, 2], 'out': [1, 1, 1], 'indices_out': [1, 1, 1]},
        'max_pool1d': {'input': [1, 2], 'out': [1, 2], 'indices_out': [1, 2]},
        'avg_pool1d': {'input': [1, 2], 'out': [1, 2]},
        'adaptive_avg_pool1d': {'input': [1, 2], 'out': [1, 1]},
        'adaptive_max_pool1d': {'input': [1, 2], 'out': [1, 1], 'indices_out': [1, 1]},
        'max_pool3d': {'input': [1, 2, 2, 2], 'out': [1, 2, 2, 2], 'indices_out': [1, 2, 2, 2]},
        'avg_pool3d': {'input': [1, 2, 2, 2], 'out': [1, 2, 2, 2]},
        'adaptive_avg_pool3d': {'input': [1, 2, 2, 2], 'out': [1, 1, 1, 1]},
        'adaptive_max_pool3d': {'input': [1, 2, 2, 2], 'out': [1, 1, 1, 1], 'indices_out': [1, 1, 1, 1]},
        'conv_transpose1d': {'input': [1, 1, 2], 'weight': [1, 1, 1], 'bias': [1], 'out': [1, 1, 2]},
        'conv_transpose2d': {'input': [1, 1, 2, 2], 'weight': [1, 1, 1, 1], 'bias': [1], 'out': [1, 1, 2, 2]},
        'conv_transpose3d': {'input': [1, 1, 1, 2, 2], 'weight': [1, 1, 1, 1, 1], 'bias': [1], 'out': [1, 1, 1, 2, 2]},
        'im2col': {'input': [1, 1, 1, 1], 'out': [1, 1, 1]},
        'col2im': {'input': [1, 1, 1], 'out': [1, 1, 1, 1]},
        'interpolate': {'input': [1, 1, 2], 'out': [1, 1, 2]}}
# ops/nn.h's per-channel norms and gated units: x (2, 2), parameters (C) = (2); glu halves dim 0; embedding's
# indices (2, 2) of ones pick rows of a (2, 2) weight; rope's tables (2, 1) rotate one pair; the losses' input
# (2, 2) has targets (2) of ones and a mean (0-d) out.
NN_SHAPES = {'group_norm': {'weight': [2], 'bias': [2]},
             'batch_norm': {'running_mean': [2], 'running_var': [2], 'weight': [2], 'bias': [2]},
             'glu': {'out': [1, 2]}, 'swiglu': {'out': [1, 2]}, 'geglu': {'out': [1, 2]},
             'embedding': {'out': [2, 2, 2]}, 'rope': {'cosines': [2, 1], 'sines': [2, 1]},
             'nll_loss': {'target': [2], 'weight': [2], 'out': []},
             'cross_entropy': {'target': [2], 'weight': [2], 'out': []}}
# ops/products.h: shapes where the 2x2 default does not fit, by verb and parameter name.
PRODUCTS2 = {'vdot': {'a': [2], 'b': [2], 'out': []}, 'trace': {'out': []}, 'kron': {'out': [4, 4]},
             'cross': {'a': [3, 3], 'b': [3, 3], 'out': [3, 3]}, 'tensordot_axes': {'out': []}}
PRODUCT_OF = {'dot': 'dot', 'mv': 'mv', 'addmv': 'mv', 'mm': 'mm', 'addmm': 'mm', 'bmm': 'bmm',
              'baddbmm': 'bmm', 'matmul': 'matmul', 'outer': 'outer', 'addr': 'outer'}

# 1 as each element type: a divisor, an exponent, a bound, a fill value that no op refuses.
ONE = {'th_f16_elem': '0x3C00', 'th_bf16_elem': '0x3F80'}  # the bits of th_float16 and th_bfloat16

# What a refusal returns, for the functions whose result is a value rather than a pointer or a status.
VALUE_ON_ERROR = {'ndim': '0', 'numel': '0', 'size': '-1', 'stride': '0', 'offset': '0', 'is_contiguous': 'false',
                  'is_shared': 'false'}


def preprocess(root, header, cc, depfile=None, output=None):
    src = '#include "%s"\n' % os.path.basename(header)
    deps = ['-MD', '-MF', depfile, '-MT', output] if depfile else []
    return subprocess.run(cc + ['-std=c11', '-E', '-P', '-I', root, '-I', os.path.join(root, os.path.dirname(header))]
                          + deps + ['-x', 'c', '-'], input=src, text=True, capture_output=True, check=True).stdout


def declarations(text):
    text = re.sub(r'\s+', ' ', text)
    for stmt in text.split(';'):
        stmt = stmt.strip()
        m = re.match(r'^(?:extern )?(.+?)\b(th_\w+) ?\((.*)\)$', stmt)  # a companion may omit extern
        if m and NAME.match(m.group(2)):
            ret, name, params = m.group(1).strip(), m.group(2), m.group(3).strip()
            params = [] if params in ('', 'void') else [split_param(p) for p in params.split(',')]
            yield ret, name, params


def split_param(p):
    m = re.match(r'^(.*?)\s*\b(\w+)$', p.strip())
    ptype = re.sub(r'\s*\*\s*', ' *', m.group(1)).replace('* *', '**').replace('*const', '*const ').strip()
    return re.sub(r'\s+', ' ', ptype), m.group(2)


def shape_of(verb, pname, sfx_param):
    """The shape of a tensor parameter and the name the error message gives it."""
    base = re.sub(r'_(out|inplace)$', '', verb)
    if base in PRODUCT_OF:
        shape, label = PRODUCTS[PRODUCT_OF[base]][pname]
        return shape, label
    if base in LAPACK:
        return LAPACK[base].get(pname, [1, 1]), pname
    if base in CONV:
        return CONV[base][pname], pname
    if base in PRODUCTS2 and pname in PRODUCTS2[base]:
        return PRODUCTS2[base][pname], pname
    if base in SEARCH and pname in SEARCH[base]:
        return SEARCH[base][pname], pname
    if base in NN_SHAPES:
        return NN_SHAPES[base].get(pname, [2, 2]), pname
    if pname == 'index' and base == 'index_select':
        return [2], 'index'
    if verb.endswith('_all_out') and pname == 'out':
        return [], 'out'
    if verb.endswith('_dim_out') and pname in ('out', 'indices_out'):
        return [2], 'out'
    if verb in ('cat_out',) and pname == 'out':
        return [4, 2], 'out'
    if verb in ('stack_out',) and pname == 'out':
        return [2, 2, 2], 'out'
    if verb == 'multinomial':
        return [2], pname
    if verb == 'kthvalue_out' and pname in ('values', 'indices'):
        return [2], 'out'  # k 1 of dim 0 of a 2x2
    if verb in ('sort_out', 'topk_out') and pname in ('values', 'indices'):
        return [2, 2], 'out'  # th__check_out calls both outs "out"
    return [2, 2], pname


def c_shape(shape):
    return '%d, %s' % (len(shape), '(const int64_t[]){%s}' % ', '.join(map(str, shape)) if shape else 'NULL')


def wrapper(ret, name, params):
    """The C wrapper of one function and its table row, or None when it takes no typed tensor."""
    sfx, verb = NAME.match(name).groups()
    if not any(TYPED.match(t) or ARRAY.match(t) or (VIEWS.match(t) and n == 'views') for t, n in params):
        return None
    args, pre, post, positions = [], [], [], []
    for ptype, pname in params:
        m_t, m_a, m_v = TYPED.match(ptype), ARRAY.match(ptype), VIEWS.match(ptype)
        k = len(positions)
        if m_t:
            shape, label = shape_of(verb, pname, m_t.group(2))
            positions.append((label, ENUM[m_t.group(2)]))
            args.append('(%s)dc_tensor(c, %d, %s, %s)' % (ptype, k, ENUM[m_t.group(2)], c_shape(shape)))
        elif m_a:
            positions.append(('tensor 1', ENUM[m_a.group(1)]))  # the wrong tensor is the second
            args.append('(%s)dc_array(c, %d, %s)' % (ptype, k, ENUM[m_a.group(1)]))
        elif m_v and pname == 'views':
            positions.append(('views[1]', ENUM[m_v.group(1)]))
            pre.append('%s views = (%s)dc_views(c, %d, %s);' % (ptype, ptype, k, ENUM[m_v.group(1)]))
            post.append('if (c->bad == %d) dc_views_free((th_tensor **)views); /* refused: still ours */' % k)
            args.append('views')
        elif m_v:  # an output: th_i64_tensor **indices and the like
            pre.append('%s o_%s = (%s)dc_unset;' % (ptype[:-1], pname, ptype[:-1]))
            post.append('dc_output(c, (th_tensor *)o_%s);' % pname)
            args.append('&o_' + pname)
        elif re.match(r'^th_\w+_elem$', ptype):
            args.append('(%s){%s}' % (ptype, ONE.get(ptype, '1')))
        elif ptype == 'const int *' and pname == 'dims':
            args.append(DIMS[verb])
        elif (ptype, pname) in POINTERS:
            if pname == 'count' and ptype == 'int64_t *':
                pre.append('int64_t count = -1;')
                post.append('dc_count(c, count);')
            args.append(POINTERS[(ptype, pname)])
        elif pname == 'k':
            args.append(K.get(verb, '0'))
        elif pname in SCALARS and '*' not in ptype:
            args.append(SCALARS_BY_VERB.get(verb, {}).get(pname, SCALARS[pname]))
        elif pname in SCALARS and ptype in ('FILE *', 'th_generator *'):
            args.append(SCALARS[pname])
        else:
            sys.exit('gen_dtype_check.py: no value for parameter "%s %s" of %s: add one' % (ptype, pname, name))
    call = '%s(%s)' % (name, ', '.join(args))
    decl = ret + ('' if ret.endswith('*') else ' ')  # "th_f32_tensor *r", "int r"
    if verb == 'release':  # the call takes our reference; a refused one leaves it with us
        body = ['th_tensor *t = dc_tensor(c, 0, %s, %s);' % (ENUM[sfx], c_shape([2, 2])),
                'th_tensor_retain(t);', '%s((th_%s_tensor *)t);' % (name, sfx),
                'if (c->bad == 0) th_tensor_release(t);', 'c->refused = true;']
        return emit(name, body, positions)
    body = list(pre)
    if ret == 'void':
        body += [call + ';', 'c->refused = true; /* nothing returned: the status says it */']
    elif re.match(r'^th_\w+_tensor \*\*$', ret):
        body += [decl + 'r = %s;' % call, 'c->refused = r == NULL;',
                 'if (r) th_%s_release_all(r, count);' % sfx]
    elif re.match(r'^th_(%s)_tensor \*$' % '|'.join(SFXS), ret):
        body += [decl + 'r = %s;' % call, 'c->refused = r == NULL;', 'th_tensor_release((th_tensor *)r);']
    elif ret.startswith('DLManagedTensor') or ret.startswith('struct DLManagedTensorVersioned'):
        body += [decl + 'r = %s;' % call, 'c->refused = r == NULL;', 'if (r) r->deleter(r);']
    elif ret.endswith('*'):
        body += [decl + 'r = %s;' % call, 'c->refused = r == NULL;']
    elif verb in VALUE_ON_ERROR:
        body += [decl + 'r = %s;' % call, 'c->refused = r == %s;' % VALUE_ON_ERROR[verb]]
    elif ret == 'int':
        body += ['int r = %s;' % call, 'c->refused = r == TH_ERR_DTYPE;']
    elif re.match(r'^th_\w+_elem$', ret):
        body += [decl + 'r = %s, zero;' % call, 'memset(&zero, 0, sizeof zero);',
                 'c->refused = memcmp(&r, &zero, sizeof r) == 0;']
    else:
        sys.exit('gen_dtype_check.py: no check for the result "%s" of %s: add one' % (ret, name))
    if re.sub(r'_out$', '', verb) in LAPACK_ONLY:
        post.append('if (c->bad < 0 && th_last_status() == TH_ERR_UNSUPPORTED && !th_linalg_lapack()) '
                    'th_clear_error();')
    return emit(name, body + post, positions)


def emit(name, body, positions):
    fn = 'static void dc_%s(dc_call *c)\n{\n%s\n}\n' % (name, '\n'.join('    ' + line for line in body))
    row = '    {"%s", dc_%s, %d, {%s}},' % (name, name, len(positions),
                                           ', '.join('{"%s", %s}' % p for p in positions))
    return fn, row


def main():
    root, header, output, depfile, cc = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
    covered = set()  # a companion's test calls only what it adds: tensor.h's own functions have their test
    if header != 'tensor.h':
        covered = {name for _, name, _ in declarations(preprocess(root, 'tensor.h', cc))}
    fns, rows, skipped = [], [], []
    for ret, name, params in sorted(declarations(preprocess(root, header, cc, depfile, output)), key=lambda d: d[1]):
        if name in covered:
            continue
        made = wrapper(ret, name, params)
        if made:
            fns.append(made[0])
            rows.append(made[1])
        else:
            skipped.append(name)
    with open(output, 'w') as f:
        f.write('/* Generated by tests/gen_dtype_check.py from the declarations of %s: do not edit.\n'
                ' * %d functions take a typed tensor; %d others (creation, storages, ...) take none. */\n'
                % (header, len(rows), len(skipped)))
        f.write('#include "%s"\n\n' % os.path.basename(header))
        f.write('\n'.join(fns))
        f.write('\nstatic const dc_fn dc_fns[] = {\n%s\n};\n' % '\n'.join(rows))
        f.write('\nenum { DC_UNTYPED = %d }; /* the functions that take no typed tensor */\n' % len(skipped))
    return 0


if __name__ == '__main__':
    sys.exit(main())
