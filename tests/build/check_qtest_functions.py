#!/usr/bin/env python3
"""Every Qt Test binary has test functions to run. A test class whose functions lost their
`private Q_SLOTS:` compiles, runs initTestCase and cleanupTestCase only, and passes: it tests
nothing (it happened once, fixed in 4c32a4e). Each binary is asked for its functions (`-functions`,
which lists them without running any) and the check fails, naming the binary, when one lists none.

    check_qtest_functions.py LIST                       LIST: one test binary per line (CMake writes it)
    check_qtest_functions.py --self-test EMPTY GOOD     EMPTY must be refused, GOOD accepted
"""
import concurrent.futures
import os
import subprocess
import sys


def functions(binary: str):
    """The test functions `binary` lists, or an error message."""
    env = dict(os.environ, QT_QPA_PLATFORM='offscreen')
    try:
        p = subprocess.run([binary, '-functions'], capture_output=True, text=True, timeout=120, env=env)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, f'{binary}: cannot list its functions: {e}'
    if p.returncode != 0:
        return None, f'{binary}: -functions exited with {p.returncode}: {p.stderr.strip()[-500:]}'
    names = [line.strip() for line in p.stdout.splitlines() if line.strip().endswith(')')]
    return names, None


def check(binaries):
    problems = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for binary, (names, error) in zip(binaries, pool.map(functions, binaries)):
            if error:
                problems.append(error)
            elif not names:
                problems.append(f'{binary}: no test functions (are they under "private Q_SLOTS:"?)')
    return problems


def main(argv):
    if len(argv) == 4 and argv[1] == '--self-test':
        empty, good = argv[2], argv[3]
        refused = check([empty])
        accepted = check([good])
        if not refused:
            print(f'self-test: {empty} has no test functions but was accepted')
            return 1
        if accepted:
            print(f'self-test: {good} was refused: {accepted}')
            return 1
        print(f'self-test: refused as it should: {refused[0]}')
        return 0
    if len(argv) != 2:
        print(__doc__)
        return 2
    with open(argv[1], encoding='utf-8') as f:
        binaries = [line.strip() for line in f if line.strip()]
    if not binaries:
        print(f'{argv[1]} lists no test binaries')
        return 1
    problems = check(binaries)
    for p in problems:
        print(p)
    print(f'{len(binaries)} Qt Test binaries, {len(problems)} without test functions or unreadable')
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
