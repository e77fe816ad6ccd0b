"""Writes .ctags.d/names.ctags, the universal-ctags rule that tags the names stamped per dtype.

generate/update.py calls rule_file() and writes (or, with --check, compares) the file; universal-ctags reads
.ctags.d/*.ctags from the directory it runs in, so `ctags -R` at the repository root uses it.

A ctags regex gives one name per pattern, and the names are made by pasting a dtype suffix and, for the op
templates, a form onto a verb the regex captures; so there is one pattern per dtype and per way a name is
made. The ways are read from the sources, not listed here: TH_NAME / TH_PRIVATE / TH_DT_PASTE definitions
anywhere (the paste each one does is generate/stamp.h's), and for each op template under ops/ (a file
defining functions named with TH__OP_NAME / TH__OP_PRIVATE, tensor_generic.h's names for the op being
stamped) the forms it defines, read from its definitions (its top comment lists the public ones in prose).
A new dtype, template, form or op then needs only `python3 generate/update.py`.
"""
import os
import re

# A definition that a name-making macro names: its line starts at column 0 with the return type or with
# the name itself (so calls inside function bodies, which are indented, do not count), and the parameter
# list is followed by the body's brace (a declaration's ; is not). POSIX extended syntax, as ctags reads
# it, matched with REG_NEWLINE: a bracket list never spans lines, so ([^;{}]|\n)* lets the parameter list
# span them.
START = r'^([A-Za-z_][^;{}]*[[:blank:]*])?'
PARAMS_AND_BODY = r'\(([^;{}]|\n)*\)[[:space:]]*[{]'

# The same, for Python's re over a template's text: which forms a template defines.
TEMPLATE_DEF = re.compile(r'^(?:[A-Za-z_][^;{}\n]*[ \t*])?TH__OP_(NAME|PRIVATE)\((\w*)\)\([^;{}]*\)\s*\{', re.M)

# A stamping site: #define TH_OP <op>, then only lines that stamp nothing (other #defines, #if and friends,
# comments, blank lines) down to the template's #include. Not another TH_OP and not another #include, so
# one site never runs into the next. ctags ends a pattern at its first unescaped /, so a / is written \/.
BLANK = '[[:blank:]]'
NOT_TH_OP = ('(TH_OP[A-Za-z0-9_]+|[A-SU-Za-z_][A-Za-z0-9_]*|T([A-GI-Za-z0-9_][A-Za-z0-9_]*)?|'
             'TH([A-Za-z0-9][A-Za-z0-9_]*)?|TH_([A-NP-Za-z0-9_][A-Za-z0-9_]*)?|TH_O([A-OQ-Za-z0-9_][A-Za-z0-9_]*)?)')
FILLER = (f'{BLANK}*(#{BLANK}*(if|ifdef|ifndef|elif|else|endif|undef)([^A-Za-z0-9_].*)?|'
          f'#{BLANK}*define{BLANK}+{NOT_TH_OP}([^A-Za-z0-9_].*)?|\\/\\*.*\\*\\/{BLANK}*)?')
SITE = (f'^#{BLANK}*define{BLANK}+TH_OP{BLANK}+([A-Za-z0-9_]+){BLANK}*\\n({FILLER}\\n)*'
        f'{BLANK}*#{BLANK}*include{BLANK}+"([^"]*\\/)?%s"')

# ctags reads the .c files as C and the .h files as C++, so every pattern is given to both.
LANGUAGES = ['C', 'C++']


def templates(root):
    """{template file name: sorted [(prefix, form)]}: th_ for TH__OP_NAME, th__ for TH__OP_PRIVATE."""
    found = {}
    ops = os.path.join(root, 'ops')
    for name in sorted(os.listdir(ops)):
        if name.endswith('.h'):
            forms = {('th_' if m.group(1) == 'NAME' else 'th__', m.group(2))
                     for m in TEMPLATE_DEF.finditer(open(os.path.join(ops, name)).read())}
            if forms:
                found[name] = sorted(forms)
    return found


def sites(root, found):
    """The files under ops/ that stamp a template: named in the comment, so it stays true."""
    include = re.compile(r'^\s*#\s*include\s+"(?:[^"]*/)?(%s)"' % '|'.join(re.escape(t) for t in found), re.M)
    ops = os.path.join(root, 'ops')
    return [f for f in os.listdir(ops) if f.endswith('.h') and include.search(open(os.path.join(ops, f)).read())]


def rule_file(root, dtypes, generated):
    sfxs = [d['sfx'] for d in dtypes]
    found = templates(root)
    families = sorted({os.path.join('ops', f) for f in sites(root, found)})
    lines = generated + [
        '# .ctags.d/names.ctags: tags th_f32_narrow, th_bf16_add_out, th__f32_to_f64, ... at their one generic',
        '# definition, which the C parser sees only as TH_NAME(narrow), TH_PRIVATE(to_f64), TH__OP_NAME(_out).',
        '#',
        '# A name stamped from an op template (%s) is tagged' % ', '.join(os.path.join('ops', t) for t in found),
        '# at its stamping site, the `#define TH_OP add` line in %s, not in the template:' % ' or '.join(families),
        '# the template\'s line is the same for every op, while the stamping site is where this op\'s own parts',
        '# are (its element function just above, its options), with the template one #include below. Each',
        '# pattern reads which template that #include names, and tags one form that template defines.',
        '#',
        '# A regex cannot evaluate #if, so every dtype\'s name is tagged at every definition: th_bool_sqrt is',
        '# tagged at sqrt\'s site though sqrt is not stamped for bool, and a verb defined at two places for',
        '# different dtypes (th_f32_abs: one for integer and floating, one for complex) is tagged at both.',
        '# docs/names.txt says which dtypes each name exists for, and which of the two places is whose.',
        '']
    # Read from the dtype list rather than named here, as everything else in this file.
    for macro, param in re.findall(r'^#define (TH_FOREACH_\w+)\((\w+)\)', open(
            os.path.join(root, 'generate', 'dtypes.h')).read(), re.M):
        lines += ['# %s(X) is called at file scope with no semicolon after it (core/dtype.h, core/copy.h): the' % macro,
                  '# C parser would read what follows as part of it and miss th_dtype_info, th_dtype_name, ...',
                  '-D%s(%s)=;' % (macro, param), '']
    for lang in LANGUAGES:
        lines.append('# ---- %s ----' % lang)
        for sfx in sfxs:
            for macro, prefix in (('TH_NAME', 'th_'), ('TH_PRIVATE', 'th__')):
                lines.append('--mline-regex-%s=/%s%s\\(([A-Za-z0-9_]+)\\)%s/%s%s_\\2/f/{mgroup=2}'
                             % (lang, START, macro, PARAMS_AND_BODY, prefix, sfx))
            lines.append('--mline-regex-%s=/%sTH_DT_PASTE\\((th_|th__),[[:blank:]]*_([A-Za-z0-9_]+)\\)%s/\\2%s_\\3/f/'
                         '{mgroup=3}' % (lang, START, PARAMS_AND_BODY, sfx))
            lines.append('--regex-%s=/^[[:blank:]]*typedef[[:blank:]].*[[:blank:]*]th_##[[:blank:]]*[A-Za-z_]+'
                         '[[:blank:]]*##_([A-Za-z0-9_]+)[[:blank:]]*;/th_%s_\\1/t/' % (lang, sfx))
            for template, forms in found.items():
                site = SITE % re.escape(template).replace('\\_', '_')
                for prefix, form in forms:
                    lines.append('--mline-regex-%s=/%s/%s%s_\\1%s/f/{mgroup=1}{_advanceTo=1end}'
                                 % (lang, site, prefix, sfx, form))
    return '\n'.join(lines) + '\n'
