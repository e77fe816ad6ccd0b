#!/usr/bin/env python3
"""Checks that ctags -R at the repository root tags the stamped names where docs/names.txt places them.

    check_tags.py SOURCE_ROOT [CC [CC ARGS...]]

Runs universal-ctags as a reader would (at the root, so it reads .ctags.d/names.ctags, the rule
generate/update.py writes), into a temporary tags file, then checks
  - a handful of names, each of one way a name is made, against the line a pattern picks out of the file
    that holds its definition: found there, and nowhere else;
  - every function and type of docs/names.txt, for every dtype its row gives: tagged at the row's file:line;
  - given a compiler, every function defined in a file stamped per dtype, private ones too, found in the
    preprocessed implementation as tests/check_names.py finds the public ones: tagged at its place.
Exit 77 (skipped) when universal-ctags is not installed.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_names  # noqa: E402

# name, the file holding its one generic definition, a pattern matching that one line of the file.
EXPECTED = [
    ('th_f32_sum_dim', 'ops/reduce.h', r'^#define TH_OP sum$'),                        # a reduction's form
    ('th_c64_mean_all_out', 'ops/reduce.h', r'^#define TH_OP mean$'),
    ('th_bf16_add_out', 'ops/pointwise.h', r'^#define TH_OP add$'),                    # a binary op's form
    ('th_i32_lt_scalar', 'ops/pointwise.h', r'^#define TH_OP lt$'),
    ('th_f64_exp_inplace', 'ops/pointwise.h', r'^#define TH_OP exp$'),                 # a unary op's form
    ('th__f32_add_row', 'ops/pointwise.h', r'^#define TH_OP add$'),                    # a template's private
    ('th_i64_narrow', 'tensor_generic.h', r'^TH_API .*\bTH_NAME\(narrow\)\(.*[^;]$'),  # tensor_generic.h
    ('th_u8_storage_new', 'tensor_generic.h', r'^TH_API .*\bTH_NAME\(storage_new\)\(.*[^;]$'),
    ('th__f32_to_f64', 'tensor_generic.h', r'^static inline double TH_PRIVATE\(to_f64\)\('),  # a th__ private
    ('th_f16_add_alpha', 'ops/ternary.h', r'^TH_API .*\bTH_NAME\(add_alpha\)\(.*[^;]$'),
    ('th_bf16_tensor', 'core/dtype.h', r'typedef struct th_##sfx##_tensor'),          # a per-dtype type
    ('th_tensor_numel', 'core/tensors.h', r'^TH_API int64_t th_tensor_numel\(.*\{'),       # no dtype: C parser
]


def find_ctags():
    ctags = os.environ.get('CTAGS') or shutil.which('ctags') or shutil.which('universal-ctags')
    if not ctags:
        return None, 'ctags is not installed (apt-get install universal-ctags)'
    version = subprocess.run([ctags, '--version'], capture_output=True, text=True).stdout
    if 'Universal Ctags' not in version:
        return None, '%s is not universal-ctags, which alone reads .ctags.d/ (apt-get install universal-ctags)' % ctags
    return ctags, None


def run_ctags(ctags, root):
    """{name: {(file, line)}} from ctags -R at root."""
    with tempfile.TemporaryDirectory() as tmp:
        # A home of its own: the reader's own ~/.ctags.d must not change what the repository's rule gives.
        env = dict(os.environ, HOME=tmp, XDG_CONFIG_HOME=tmp)
        args = [ctags, '-R', '-f', os.path.join(tmp, 'tags'), '--fields=+n']
        # A Meson build directory inside the tree holds copies of sources (subprojects): not the definitions.
        args += ['--exclude=' + d for d in sorted(os.listdir(root))
                 if os.path.isdir(os.path.join(root, d, 'meson-private'))]
        r = subprocess.run(args, cwd=root, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            raise SystemExit('ctags failed:\n' + r.stderr)
        tags = {}
        for row in open(os.path.join(tmp, 'tags'), errors='replace'):
            if row.startswith('!_TAG_'):
                continue
            fields = row.rstrip('\n').split('\t')
            line = re.search(r'\tline:(\d+)', row)
            if len(fields) > 2 and line:
                tags.setdefault(fields[0], set()).add((os.path.normpath(fields[1]), int(line.group(1))))
        return tags


def check_expected(root, tags):
    problems = []
    for name, path, pattern in EXPECTED:
        lines = [i + 1 for i, text in enumerate(open(os.path.join(root, path)).read().split('\n'))
                 if re.search(pattern, text)]
        if len(lines) != 1:
            problems.append('expectation for %s: /%s/ matches %d lines of %s, not one'
                            % (name, pattern, len(lines), path))
            continue
        want = {(path, lines[0])}
        if tags.get(name) != want:
            problems.append('%s: tagged at %s, not at %s:%d' % (
                name, ', '.join('%s:%d' % t for t in sorted(tags.get(name, ()))) or 'nothing', path, lines[0]))
    return problems


def check_names_txt(root, tags):
    """Every function and type of docs/names.txt, for each of its dtypes, tagged at its row's place."""
    dtypes = check_names.update.read_dtypes()
    rows = check_names.read_rows(os.path.join(root, 'docs', 'names.txt'), dtypes)
    missing, checked = [], 0
    for section in ('functions', 'types'):
        for name, sfxs, path, line in rows.get(section, []):
            for sfx in sfxs or [None]:
                full = name.replace('<sfx>', sfx) if sfx else name
                checked += 1
                if (path, line) not in tags.get(full, ()):
                    missing.append('%s (%s:%d; ctags: %s)' % (full, path, line, ', '.join(
                        '%s:%d' % t for t in sorted(tags.get(full, ()))) or 'nothing'))
    problems = ['%d of %d names of docs/names.txt are not tagged at their place: %s' % (
        len(missing), checked, '; '.join(missing[:20]))] if missing else []
    return problems, checked


def check_stamped(root, cc, tags):
    missing, checked = [], 0
    for name, path, line in check_names.stamped_definitions(root, cc):
        checked += 1
        if (path, line) not in tags.get(name, ()):
            missing.append('%s (%s:%d)' % (name, path, line))
    problems = ['%d of %d functions defined in stamped files are not tagged at their place: %s' % (
        len(missing), checked, '; '.join(missing[:20]))] if missing else []
    return problems, checked


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else '.')
    cc = sys.argv[2:]
    ctags, why = find_ctags()
    if not ctags:
        print('SKIP:', why)
        return 77
    tags = run_ctags(ctags, root)
    problems = check_expected(root, tags)
    more, checked = check_names_txt(root, tags)
    problems += more
    if cc:
        more, stamped = check_stamped(root, cc, tags)
        problems += more
        checked += stamped
    for p in problems:
        print('FAIL:', p)
    print('tags: %d names checked against their place, %d problems' % (len(EXPECTED) + checked, len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
