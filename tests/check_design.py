#!/usr/bin/env python3
"""Checks that docs/design.md names a file for every layer and that every file it names exists.

    check_design.py SOURCE_ROOT

The map is only useful while it matches the tree: every `path` in backquotes that looks like a file of the
library (core/, ops/, generate/, shm/, tests/, bench/, docs/, or tensor.h / tensor_generic.h) must exist,
every row of the layers table must name at least one such file, and every file in core/ and ops/ must be
named somewhere on the page (a new layer or op file gets its row).
"""
import os
import re
import sys

FOLDERS = ('core/', 'ops/', 'generate/', 'shm/', 'cuda/', 'dist/', 'tests/', 'bench/', 'docs/')


def named_paths(text):
    for quoted in re.findall(r'`([^`\s]+)`', text):
        path = quoted.split(':')[0]
        if path in ('tensor.h', 'tensor_generic.h') or path.startswith(FOLDERS):
            yield path


def main():
    root = sys.argv[1]
    text = open(os.path.join(root, 'docs', 'design.md')).read()
    problems = []
    named = set(named_paths(text))
    for path in sorted(named):
        if '*' in path or '<' in path or path == 'cuda/':
            continue  # a pattern such as ops/*_erased.h or generate/<sfx>.h, or a companion to come
        if not os.path.exists(os.path.join(root, path)):
            problems.append('docs/design.md names %s, which does not exist' % path)
    table = text.split('## The layers, bottom up', 1)[1].split('\n## ', 1)[0]
    for row in table.splitlines():
        if not row.startswith('| ') or row.startswith('| layer') or row.startswith('|---'):
            continue
        where = row.rstrip(' |').rsplit(' | ', 1)[-1]
        if not list(named_paths(where)):
            problems.append('the layer "%s" names no file' % row.split(' | ')[0].lstrip('| '))
    bare = {os.path.basename(p) for p in named} | set(re.findall(r'`([\w.]+\.h)`', text))
    for folder in ('core', 'ops'):
        for name in sorted(os.listdir(os.path.join(root, folder))):
            if name.endswith('.h') and '%s/%s' % (folder, name) not in named and name not in bare:
                problems.append('%s/%s is on no row of docs/design.md' % (folder, name))
    for p in problems:
        print('FAIL:', p)
    print('design.md: %d files named, %d problems' % (len(named), len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
