#!/usr/bin/env python3
"""The tray is a client of the engine (docs/architecture.md, "The tray"): app/tray may include its
own headers, app/common, and of engine/ only the LocalAPI client and small core utilities. Fails,
naming file and line, when it includes anything else of the engine.

    check_tray_includes.py SOURCE_ROOT            check app/tray
    check_tray_includes.py SOURCE_ROOT --self-test  prove that a forbidden include fails
"""
import pathlib
import re
import sys
import tempfile

ALLOWED_ENGINE = re.compile(
    r'^(core/[a-z_]+\.h|localapi/(localapiclient|eventfollower|sseparser|apirecords|enginestate|unixsocket)\.h'
    r'|http/httpmessage\.h)$')
INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')


def violations(root: pathlib.Path):
    tray = root / 'app' / 'tray'
    own = {p.name for p in tray.iterdir()} | {p.name for p in (root / 'app' / 'common').iterdir()}
    found = []
    for source in sorted(tray.iterdir()):
        if source.suffix not in ('.h', '.cpp'):
            continue
        for number, line in enumerate(source.read_text(encoding='utf-8').splitlines(), 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            name = m.group(1)
            if name in own or ALLOWED_ENGINE.match(name):
                continue
            found.append(f'{source.relative_to(root)}:{number}: includes "{name}", an engine internal')
    return found


def self_test() -> int:
    with tempfile.TemporaryDirectory() as d:
        root = pathlib.Path(d)
        (root / 'app' / 'tray').mkdir(parents=True)
        (root / 'app' / 'common').mkdir(parents=True)
        (root / 'app' / 'tray' / 'ok.cpp').write_text('#include "ok.h"\n#include "core/paths.h"\n')
        (root / 'app' / 'tray' / 'ok.h').write_text('#include "localapi/apirecords.h"\n')
        if violations(root):
            print('self-test: allowed includes were refused')
            return 1
        (root / 'app' / 'tray' / 'bad.cpp').write_text('#include "sessions/sessionmanager.h"\n')
        if len(violations(root)) != 1:
            print('self-test: a forbidden include passed')
            return 1
    print('self-test: ok')
    return 0


def main() -> int:
    root = pathlib.Path(sys.argv[1])
    if '--self-test' in sys.argv:
        return self_test()
    found = violations(root)
    for v in found:
        print(v)
    if found:
        print('app/tray may include only the LocalAPI client and core of engine/ (docs/architecture.md)')
        return 1
    print('app/tray includes no engine internals')
    return 0


if __name__ == '__main__':
    sys.exit(main())
