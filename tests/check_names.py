#!/usr/bin/env python3
"""Checks docs/names.txt, every public name of tensor.h and the file:line of its one definition.

    check_names.py SOURCE_ROOT CC [CC ARGS...]            check (a test)
    check_names.py SOURCE_ROOT CC [CC ARGS...] --write    rewrite docs/names.txt

The names and their places are read from the preprocessed implementation (every dtype), with the line
markers kept: a marker says which file and line each token came from, and which files included that one,
so a function stamped per dtype is traced to its one generic text, and to the stamping site when an op
template (ops/*_op.h) made it. The check then compiles and links a program that takes the address of every
listed function and declares a pointer to every listed type, and checks that the dtype list, the generator
files and the selection header agree. tests/check_tags.py checks that ctags finds the same places.
"""
import os
import re
import subprocess
import sys
import tempfile
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'generate'))
import update  # noqa: E402  (generate/update.py: the dtype list and its families)

TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|([A-Za-z_]\w*)|\.?\d(?:[eEpP][+-]|[\w.])*|(\S)')
MARKER = re.compile(r'# (\d+) "((?:\\.|[^"\\])*)"((?: \d)*)$')
# Words that may stand where a declarator's name is looked for, and are not one.
NOT_NAMES = {'__attribute__', '__declspec', '__extension__', '__restrict', '__inline', 'restrict'}
# A stamping site: the op's name, then only preprocessor lines or comments before the template's #include.
OP_DEFINE = re.compile(r'^\s*#\s*define\s+TH_OP\s+(\w+)\s*$')
FILLER = re.compile(r'^\s*(#\s*(if|ifdef|ifndef|elif|else|endif|undef|define)\b.*|/\*.*\*/\s*|)$')


class Frame:
    """One inclusion of a file: tokens point at the frame they came from, so the chain of includes that
    stamped them can be walked back (stamp.h under generate/<sfx>.h; a template under its family file)."""

    def __init__(self, path, parent):
        self.path, self.parent, self.include_line = path, parent, None
        self.rel = None  # the path from the source root, for a file of the tree

    def ancestors(self):
        f = self
        while f:
            yield f
            f = f.parent


def preprocess(root, cc):
    src = '#define TH_IMPLEMENTATION\n#include "tensor.h"\n'
    return subprocess.run(cc + ['-std=c11', '-E', '-I', root, '-x', 'c', '-'], input=src, text=True,
                          capture_output=True, check=True).stdout


def tokens(root, text):
    """(word, punct, frame, line) for every token that came from a file of the source tree."""
    root = os.path.realpath(root)
    frame, line, inside = Frame('<stdin>', None), 1, False
    for raw in text.split('\n'):
        m = MARKER.match(raw) if raw.startswith('# ') else None
        if m:
            path = m.group(2) if m.group(2).startswith('<') else os.path.realpath(m.group(2))
            flags = m.group(3).split()
            if '1' in flags:
                frame = Frame(path, frame)
            elif '2' in flags:
                # Back in the includer, on the line after the #include: that line less one is the #include.
                while frame.parent and frame.path != path:
                    child, frame = frame, frame.parent
                    child.include_line = int(m.group(1)) - 1
            line = int(m.group(1))
            inside = path.startswith(root + os.sep)
            if inside:
                frame.rel = os.path.relpath(path, root)
            continue
        if inside and not raw.lstrip().startswith('#'):  # a #pragma the preprocessor passes on
            for t in TOKEN.finditer(raw):
                if t.group(1) or t.group(2):
                    yield t.group(1), t.group(2), frame, line
        line += 1


def scan(root, text):
    """Walks the top level of the translation unit: extern function declarations, function definitions,
    typedefs and enumerators, each with the frame and line of its name (of the typedef keyword for a
    type: where its definition starts)."""
    externs, definitions, typedefs, enumerators = set(), {}, {}, {}
    stmt, depth, in_function, in_enum, parens, before = [], 0, False, False, 0, None
    for word, punct, frame, line in tokens(root, text):
        tok = (word or punct, frame, line)
        if punct == '{' and depth == 0:
            name = definition_name(stmt)
            if name:
                definitions.setdefault(name[0], []).append(name[1:])
                in_function = True
            in_enum, parens, before = not name and 'enum' in [t[0] for t in stmt], 0, '{'
        if punct in ('{', '}'):
            depth += 1 if punct == '{' else -1
            if depth == 0 and in_function:
                stmt, in_function = [], False
            in_enum = in_enum and depth > 0
        elif in_function:
            pass
        elif depth == 0:
            if punct == ';':
                declared(stmt, externs, typedefs)
                stmt = []
            else:
                stmt.append(tok)
        elif depth == 1 and in_enum:
            parens += (punct == '(') - (punct == ')')
            if word and before in ('{', ',') and parens == 0:
                if word.startswith('TH_') and not word.startswith('TH__'):
                    enumerators.setdefault(word, (frame, line))
            if parens == 0:
                before = tok[0]
    return externs, definitions, typedefs, enumerators


def definition_name(stmt):
    """The name, frame and line of the function a '{' after stmt defines, or None (a struct, an initializer)."""
    i = len(stmt) - 1
    while i >= 0 and stmt[i][0] == ')':
        depth, j = 0, i
        while j >= 0:
            depth += stmt[j][0] == ')'
            depth -= stmt[j][0] == '('
            if depth == 0:
                break
            j -= 1
        if j <= 0:
            return None
        name = stmt[j - 1]
        if name[0] in NOT_NAMES:
            i = j - 2
            continue
        return name if re.match(r'[A-Za-z_]\w*$', name[0]) else None
    return None


def declared(stmt, externs, typedefs):
    words = [t[0] for t in stmt]
    if not words:
        return
    if words[0] == 'extern':
        # The name is the word before the first top-level parenthesis that is not an attribute's.
        depth = 0
        for i, w in enumerate(words):
            if w == '(' and depth == 0 and i > 0 and words[i - 1] not in NOT_NAMES:
                if words[i - 1].startswith('th_'):
                    externs.add(words[i - 1])
                break
            depth += (w == '(') - (w == ')')
    if words[0] == 'typedef':
        name = typedef_name(words)
        if name and name.startswith('th_') and not name.startswith('th__'):
            typedefs.setdefault(name, (stmt[0][1], stmt[0][2]))


def typedef_name(words):
    """The name a typedef declares: inside (*name) for a function pointer, else the last word outside
    parentheses and brackets (the struct's fields are not in words: scan keeps the top level only)."""
    for i in range(len(words) - 2):
        if words[i] == '(' and words[i + 1] == '*':
            j = i + 1
            while words[j] == '*':
                j += 1
            return words[j]
    depth, name = 0, None
    for w in words:
        depth += (w in ('(', '[')) - (w in (')', ']'))
        if depth == 0 and re.match(r'[A-Za-z_]\w*$', w) and w not in NOT_NAMES:
            name = w
    return name


class Places:
    """Turns a token's frame and line into the place a reader wants, and the row a name belongs to."""

    def __init__(self, root, dtypes):
        self.root, self.dtypes, self.lines = root, dtypes, {}
        self.sfxs = [d['sfx'] for d in dtypes]
        self.enums = {d['enum']: d['sfx'] for d in dtypes}
        self.site_files = set()  # the family files whose stamping sites placed a name

    def text(self, rel):
        if rel not in self.lines:
            self.lines[rel] = open(os.path.join(self.root, rel)).read().split('\n')
        return self.lines[rel]

    def stamping(self, frame):
        """The dtype stamping this frame (generate/<sfx>.h above generate/stamp.h), or None."""
        for f in frame.ancestors():
            if f.rel == os.path.join('generate', 'stamp.h') and f.parent:
                return os.path.splitext(os.path.basename(f.parent.path))[0]
        return None

    def site(self, frame):
        """Where a template's inclusion was asked for: the #define TH_OP line above the #include, with its op."""
        parent = frame.parent
        if not parent or not frame.include_line or not parent.rel:
            return None
        lines = self.text(parent.rel)
        i = frame.include_line - 2
        while i >= 0 and FILLER.match(lines[i]) and not OP_DEFINE.match(lines[i]):
            i -= 1
        m = OP_DEFINE.match(lines[i]) if i >= 0 else None
        return (parent.rel, i + 1, m.group(1)) if m else None

    def place(self, name, frame, line):
        """(row name, dtype suffix or None, file, line) of one name."""
        sfx = self.stamping(frame)
        if sfx:
            for prefix in ('th_', 'th__'):
                if name.startswith(prefix + sfx + '_'):
                    verb = name[len(prefix + sfx + '_'):]
                    site = self.site(frame)
                    if site and verb.startswith(site[2]):
                        self.site_files.add(site[0])
                        return prefix + '<sfx>_' + verb, sfx, site[0], site[1]
                    return prefix + '<sfx>_' + verb, sfx, frame.rel, line
        lines = self.text(frame.rel)
        if re.search(r'\b%s\b' % re.escape(name), lines[line - 1]):
            return name, None, frame.rel, line
        # Made by an X-macro over the dtype list: the place is the macro's line that pastes the name.
        for part, placeholder in [(s, '<sfx>') for s in self.sfxs] + [(e, '<ENUM>') for e in self.enums]:
            for m in re.finditer(r'(?<![A-Za-z0-9])%s(?![A-Za-z0-9])' % re.escape(part), name):
                head, tail = name[:m.start()], name[m.end():]
                pasted = re.compile(r'\b%s##\s*\w+\s*(##\s*)?%s\b' % (re.escape(head), re.escape(tail)))
                for i in range(line - 1, -1, -1):
                    if pasted.search(lines[i]):
                        sfx = part if placeholder == '<sfx>' else self.enums[part]
                        return head + placeholder + tail, sfx, frame.rel, i + 1
        return name, None, frame.rel, line


def extract(root, cc):
    """Rows: {section: {(row name, file, line): set of dtype suffixes}}, and the problems found."""
    dtypes = update.read_dtypes()
    places = Places(root, dtypes)
    externs, definitions, typedefs, enumerators = scan(root, preprocess(root, cc))
    rows = {'functions': {}, 'types': {}, 'constants': {}, 'macros': {}}
    problems = []
    functions = set()
    for name in sorted(externs):
        found = definitions.get(name)
        if not found:
            problems.append('%s is declared but defined nowhere in the source tree' % name)
            continue
        if len(found) > 1:
            problems.append('%s is defined %d times' % (name, len(found)))
        functions.add(name)
        add_row(rows['functions'], places.place(name, *found[0]))
    for name, where in typedefs.items():
        add_row(rows['types'], places.place(name, *where))
    for name, where in enumerators.items():
        add_row(rows['constants'], places.place(name, *where))
    front = os.path.join('core', 'front.h')
    for i, text in enumerate(places.text(front)):
        m = re.match(r'#define (th_\w+)\(', text)
        if m:
            add_row(rows['macros'], (m.group(1), None, front, i + 1))
    return rows, functions, set(typedefs), set(enumerators), sorted(places.site_files), problems


def stamped_definitions(root, cc):
    """(name, file, line) of every function, public or private, defined in a file stamped per dtype."""
    places = Places(root, update.read_dtypes())
    _, definitions, _, _ = scan(root, preprocess(root, cc))
    for name, found in sorted(definitions.items()):
        if places.stamping(found[0][0]):
            yield (name,) + places.place(name, *found[0])[2:]


def add_row(section, place):
    name, sfx, path, line = place
    section.setdefault((name, path, line), set())
    if sfx:
        section[(name, path, line)].add(sfx)


def dtype_sets(dtypes):
    """The named sets of dtypes a row may say, largest first: the families generate/ stamps."""
    sfxs = [d['sfx'] for d in dtypes]
    of_kind = lambda kinds: [d['sfx'] for d in dtypes if d['kind'] in kinds]  # noqa: E731
    named = [('all', sfxs)]
    named.append(('real', [s for s in sfxs if s not in of_kind(['TH_KIND_COMPLEX'])]))
    named += [(name, of_kind(kinds)) for name, _, kinds in update.FAMILIES]
    named += [('bool', of_kind(['TH_KIND_BOOL']))]
    return [(n, s) for n, s in named if s]


def dtype_column(sfxs, named, order):
    """A set of dtypes as families joined by +, with single suffixes for what no family covers."""
    if not sfxs:
        return '-'
    left, parts = set(sfxs), []
    for name, members in named:
        if set(members) <= left:
            parts.append((order.index(members[0]), name))
            left -= set(members)
    return '+'.join(name for _, name in sorted(parts + [(order.index(s), s) for s in left]))


SECTIONS = [('functions', 'functions'), ('types', 'types'), ('constants', 'constants'),
            ('macros', '_Generic front end (C only)')]


def render(rows, dtypes, site_files):
    named = dtype_sets(dtypes)
    order = [d['sfx'] for d in dtypes]
    names = [name for name, _, _ in rows['functions']]
    split = sorted({name for name in names if names.count(name) > 1})
    para = lambda text: textwrap.wrap(text, 108, initial_indent='# ', subsequent_indent='# ')  # noqa: E731
    lines = para('docs/names.txt: every public name of tensor.h and the file:line of its one definition. Generated '
                 'by tests/check_names.py --write from the preprocessed header; the names test fails when it is '
                 'stale.') + ['#']
    lines += para('One row per name: NAME  DTYPES  FILE:LINE. A name made for each dtype is one row, its dtype '
                  'suffix written <sfx> (<ENUM> for TH_F32 and the like): th_f32_narrow, th_i64_narrow, ... are the '
                  'row th_<sfx>_narrow. To find th_bf16_narrow, grep for th_<sfx>_narrow (or for _narrow). DTYPES '
                  'are the suffixes it exists for (a name of no dtype has -): families joined by +, then single '
                  'suffixes.')
    lines += ['#   %-9s %s' % (n, ' '.join(s)) for n, s in named]
    lines += para('FILE:LINE is the one generic definition, from the repository root. For a name stamped from an op '
                  'template (ops/*_op.h) it is the stamping site, the #define TH_OP line in %s: the op\'s element '
                  'function and options are there, its template in the #include below. A verb defined at two '
                  'places, for different dtypes, has a row for each: %s. Types are placed at their typedef, '
                  'per-dtype types at the X-macro line that pastes them.' % (' or '.join(site_files), ', '.join(split)))
    lines += para('ctags -R at the repository root tags the same places (.ctags.d/names.ctags, which '
                  'generate/update.py writes; tests/check_tags.py checks it).')
    width = max(len(name) for section in rows.values() for name, _, _ in section)
    dwidth = max(len(dtype_column(s, named, order)) for section in rows.values() for s in section.values())
    for key, title in SECTIONS:
        lines.append('# ' + title)
        for (name, path, line), sfxs in sorted(rows[key].items()):
            lines.append('%-*s  %-*s  %s:%d' % (width, name, dwidth, dtype_column(sfxs, named, order), path, line))
    return '\n'.join(lines) + '\n'


def read_rows(path, dtypes):
    """{section: [(row name, [dtype suffixes], file, line)]} from a names.txt render() wrote."""
    named = dict(dtype_sets(dtypes))
    titles = {title: key for key, title in SECTIONS}
    rows, section = {}, None
    for text in open(path):
        if text.startswith('# '):
            section = titles.get(text[2:].strip(), section)
            continue
        fields = text.split()
        if len(fields) == 3 and section:
            name, column, place = fields
            sfxs = [] if column == '-' else [s for part in column.split('+') for s in named.get(part, [part])]
            path_, line = place.rsplit(':', 1)
            rows.setdefault(section, []).append((name, sfxs, path_, int(line)))
    return rows


def check_dtype_list(root, functions):
    problems = []
    dtypes = open(os.path.join(root, 'generate', 'dtypes.h')).read()
    select = open(os.path.join(root, 'generate', 'select.h')).read()
    every = open(os.path.join(root, 'generate', 'all.h')).read()
    families = ''.join(open(os.path.join(root, 'generate', f + '.h')).read()
                       for f in ('bool', 'integer', 'floating', 'complex'))
    sfxs = re.findall(r'^\s*X\((\w+),\s*(\w+),', dtypes, re.M)
    if not sfxs:
        problems.append('no dtypes found in generate/dtypes.h')
    for sfx, enum in sfxs:
        if not os.path.exists(os.path.join(root, 'generate', sfx + '.h')):
            problems.append('dtype %s has no generator generate/%s.h' % (sfx, sfx))
        if 'TH__IF_%s(' % sfx not in select or 'TH_WANT_%s' % enum not in select:
            problems.append('dtype %s has no block in generate/select.h' % sfx)
        if '"%s.h"' % sfx not in families + every:
            problems.append('dtype %s is not stamped by generate/all.h' % sfx)
        if 'th_%s_empty' % sfx not in functions:
            problems.append('dtype %s was not stamped (no th_%s_empty)' % (sfx, sfx))
    return problems


def compile_every_name(root, cc, functions, types):
    with tempfile.TemporaryDirectory() as tmp:
        prog = os.path.join(tmp, 'every_name.c')
        with open(prog, 'w') as f:
            f.write('#define TH_IMPLEMENTATION\n#include "tensor.h"\n')
            for i, t in enumerate(sorted(types)):
                f.write('static %s *type_%d;\n' % (t, i))
            f.write('int main(void) {\n    const void *volatile p;\n')
            for i, _ in enumerate(sorted(types)):
                f.write('    p = &type_%d;\n' % i)
            for fn in sorted(functions):
                f.write('    p = (const void *)(size_t)&%s;\n' % fn)
            f.write('    (void)p;\n    return 0;\n}\n')
        exe = os.path.join(tmp, 'every_name')
        r = subprocess.run(cc + ['-std=c11', '-w', '-I', root, prog, '-o', exe, '-lm'], capture_output=True, text=True)
        if r.returncode != 0:
            return ['a program naming every listed name does not build:\n' + r.stderr[-3000:]]
        subprocess.run([exe], check=True)
    return []


def main():
    args = sys.argv[1:]
    write = '--write' in args
    args = [a for a in args if a != '--write']
    root, cc = args[0], args[1:] or ['cc']
    rows, functions, types, constants, site_files, problems = extract(root, cc)
    macros = {name for name, _, _ in rows['macros']}
    wanted = render(rows, update.read_dtypes(), site_files)
    path = os.path.join(root, 'docs', 'names.txt')
    counts = '%d functions, %d types, %d constants, %d macros in %d rows' % (
        len(functions), len(types), len(constants), len(macros), sum(len(s) for s in rows.values()))
    if write:
        open(path, 'w').write(wanted)
        print('wrote %s: %s' % (path, counts))
        for p in problems:
            print('FAIL:', p)
        return 1 if problems else 0
    problems += check_dtype_list(root, functions)
    update_check = subprocess.run([sys.executable, os.path.join(root, 'generate', 'update.py'), '--check'],
                                  capture_output=True, text=True)
    if update_check.returncode != 0:
        problems.append(update_check.stdout.strip() or update_check.stderr.strip())
    for clash in sorted((functions & types) | (macros & (functions | types))):
        problems.append('%s names both a type and a function (or macro)' % clash)
    have = open(path).read() if os.path.exists(path) else ''
    if have != wanted:
        old, new = set(have.splitlines()), set(wanted.splitlines())
        problems.append('docs/names.txt is stale (run tests/check_names.py ROOT cc --write); missing: %s; extra: %s'
                        % (sorted(new - old)[:20], sorted(old - new)[:20]))
    problems += compile_every_name(root, cc, functions, types)
    for p in problems:
        print('FAIL:', p)
    print('names: %s; %d problems' % (counts, len(problems)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
