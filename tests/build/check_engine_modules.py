#!/usr/bin/env python3
"""The engine's module graph is the one docs/architecture.md declares ("Engine modules": the
"may include" column). A module's files may include their own module's headers and those of the
modules its row names, nothing else; the declared graph has no cycle; every folder of engine/ has a
row and every row a folder; a declared edge nobody uses is reported too, so the table stays true
both ways. The facade's files at the top of engine/ (engine.h, engine.cpp, ...) may include any
module; no module includes them. engineprobe.h, the tests' way past the facade to its modules, is
included by tests only: neither the facade's other files nor app/ include it.

    check_engine_modules.py SOURCE_ROOT              check engine/ against docs/architecture.md
    check_engine_modules.py SOURCE_ROOT --graph      print the graph the sources have
    check_engine_modules.py --self-test              prove that each kind of violation fails
"""
import pathlib
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
ROW = re.compile(r'^\|\s*`([a-z0-9_]+)/`\s*\|.*\|\s*([^|]*?)\s*\|\s*$')
NAME = re.compile(r'`([a-z0-9_]+)`')
SECTION = '## Engine modules'


def declared_graph(doc: str):
    """{module: set of modules it may include}, read from the table under SECTION."""
    graph = {}
    inside = False
    for line in doc.splitlines():
        if line.startswith('## '):
            inside = line.startswith(SECTION)
            continue
        if not inside:
            continue
        m = ROW.match(line)
        if m:
            cell = m.group(2)
            graph[m.group(1)] = set() if cell in ('', '—', '-') else set(NAME.findall(cell))
    return graph


def source_graph(engine: pathlib.Path):
    """{module: {included module: [file:line, ...]}} and the includes of facade files by modules."""
    modules = sorted(p.name for p in engine.iterdir() if p.is_dir() and not p.name.startswith('.'))
    facade = {p.name for p in engine.iterdir() if p.is_file() and p.suffix == '.h'}
    uses = {m: {} for m in modules}
    problems = []
    for module in modules:
        for source in sorted((engine / module).rglob('*')):
            if source.suffix not in ('.h', '.cpp'):
                continue
            for number, line in enumerate(source.read_text(encoding='utf-8').splitlines(), 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                name = m.group(1)
                where = f'{source.relative_to(engine.parent)}:{number}'
                head, _, rest = name.partition('/')
                if rest and head in modules:
                    if head != module:
                        uses[module].setdefault(head, []).append(where)
                elif not rest and name in facade and not (engine / module / name).exists():
                    problems.append(f'{where}: includes "{name}", the facade; modules never do')
    return modules, uses, problems


PROBE = 'engineprobe.h'


def probe_users(root: pathlib.Path):
    """Places outside tests/ that include engineprobe.h (the facade's files, app/)."""
    found = []
    sources = [p for p in (root / 'engine').glob('*') if p.is_file()]
    if (root / 'app').is_dir():
        sources += [p for p in (root / 'app').rglob('*') if p.is_file()]
    for source in sorted(sources):
        if source.suffix not in ('.h', '.cpp') or source.name == PROBE:
            continue
        for number, line in enumerate(source.read_text(encoding='utf-8').splitlines(), 1):
            m = INCLUDE.match(line)
            if m and m.group(1) == PROBE:
                found.append(f'{source.relative_to(root)}:{number}: includes "{PROBE}", which only tests may')
    return found


def cycle(graph):
    """One cycle of the graph as a list of modules, or None."""
    state = {}

    def visit(node, path):
        state[node] = 'open'
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 'open':
                return path[path.index(nxt):] + [nxt] if nxt in path else path + [nxt]
            if nxt not in state:
                found = visit(nxt, path + [nxt])
                if found:
                    return found
        state[node] = 'done'
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node, [node])
            if found:
                return found
    return None


def check(root: pathlib.Path):
    doc_path = root / 'docs' / 'architecture.md'
    declared = declared_graph(doc_path.read_text(encoding='utf-8'))
    modules, uses, problems = source_graph(root / 'engine')
    if not declared:
        return [f'{doc_path}: no module table under "{SECTION}"']
    for module in modules:
        if module not in declared:
            problems.append(f'engine/{module}/: a module with no row in docs/architecture.md')
    for module in sorted(declared):
        if module not in modules:
            problems.append(f'docs/architecture.md: a row for `{module}/`, a folder engine/ does not have')
        for dep in sorted(declared[module]):
            if dep not in declared:
                problems.append(f'docs/architecture.md: `{module}/` may include `{dep}`, which is no module')
    for module in modules:
        allowed = declared.get(module, set())
        for dep, places in sorted(uses[module].items()):
            if dep not in allowed:
                problems.append(f'{places[0]}: {module} includes {dep}, which its row does not allow'
                                + (f' (and {len(places) - 1} more)' if len(places) > 1 else ''))
        for dep in sorted(allowed - set(uses[module])):
            if dep in modules:
                problems.append(f'docs/architecture.md: `{module}/` may include `{dep}` but includes '
                                'nothing of it; take it out of the row')
    problems += probe_users(root)
    loop = cycle(declared)
    if loop:
        problems.append('docs/architecture.md: the declared graph has a cycle: ' + ' -> '.join(loop))
    return problems


def self_test() -> int:
    doc = ('# A\n\n## Engine modules (`engine/`)\n\n| module | owns | may include |\n|---|---|---|\n'
           '| `core/` | basics | — |\n| `a/` | a | `core` |\n| `b/` | b | `a`, `core` |\n\n## Next\n')
    files = {'core/c.h': '', 'a/a.h': '#include "core/c.h"\n', 'b/b.cpp': '#include "a/a.h"\n#include "core/c.h"\n',
             'engine.h': '#include "b/b.h"\n'}

    def run(doc_text, extra=None):
        with tempfile.TemporaryDirectory() as d:
            root = pathlib.Path(d)
            (root / 'docs').mkdir()
            (root / 'docs' / 'architecture.md').write_text(doc_text)
            for name, text in {**files, **(extra or {})}.items():
                (root / 'engine' / name).parent.mkdir(parents=True, exist_ok=True)
                (root / 'engine' / name).write_text(text)
            return check(root)

    cases = [
        ('the true graph', doc, None, 0),
        ('an include the row does not allow', doc, {'a/bad.cpp': '#include "b/b.h"\n'}, 1),
        ('a module includes the facade', doc, {'a/bad.cpp': '#include "engine.h"\n'}, 1),
        ('the facade reaches past itself', doc, {'engine.cpp': '#include "engineprobe.h"\n'}, 1),
        ('a folder without a row', doc, {'c/c.h': ''}, 1),
        ('a row without a folder', doc.replace('\n\n## Next', '\n| `gone/` | x | — |\n\n## Next'), None, 1),
        ('a declared edge nobody uses', doc, {'b/b.cpp': '#include "a/a.h"\n'}, 1),
        ('a cycle in the table (and its unused edge)', doc.replace('| a | `core` |', '| a | `core`, `b` |'), None, 2),
    ]
    failed = 0
    for what, doc_text, extra, expected in cases:
        got = run(doc_text, extra)
        if len(got) != expected:
            print(f'self-test: {what}: expected {expected} problem(s), got {len(got)}: {got}')
            failed += 1
    if not cycle({'a': {'b'}, 'b': {'c'}, 'c': {'a'}}) or cycle({'a': {'b'}, 'b': set()}):
        print('self-test: cycle detection is wrong')
        failed += 1
    if failed:
        return 1
    print(f'self-test: {len(cases)} cases and the cycle check behave')
    return 0


def main(argv) -> int:
    if argv[1:] == ['--self-test']:
        return self_test()
    if len(argv) < 2:
        print(__doc__)
        return 2
    root = pathlib.Path(argv[1])
    if argv[2:] == ['--graph']:
        modules, uses, problems = source_graph(root / 'engine')
        for module in modules:
            print(f'{module}: {", ".join(sorted(uses[module])) or "—"}')
        return 0
    problems = check(root)
    for p in problems:
        print(p)
    if problems:
        print(f'{len(problems)} problem(s): the engine\'s includes and docs/architecture.md disagree')
        return 1
    print('engine modules: the includes follow the graph docs/architecture.md declares')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
