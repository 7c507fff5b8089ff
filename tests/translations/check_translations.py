#!/usr/bin/env python3
"""Checks translations/*.ts against the sources.

Usage: check_translations.py LUPDATE SOURCE_ROOT TS_FILE...

Fails when the sources have a string a .ts file lacks (or a .ts file keeps one the sources no
longer have), when a translation is missing or unfinished, or when a translation drops or adds a
placeholder (%1, %n) or a keyboard mnemonic (&). Prints what to fix.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

PLACEHOLDER = re.compile(r"%(?:\d+|n)")


def messages(path):
    out = []
    for context in ET.parse(path).getroot().iter("context"):
        name = context.findtext("name")
        for message in context.iter("message"):
            translation = message.find("translation")
            forms = [f.text or "" for f in translation.iter("numerusform")] or [translation.text or ""]
            out.append((name, message.findtext("source"), translation.get("type"), forms))
    return out


def main():
    lupdate, root, ts_files = sys.argv[1], sys.argv[2], sys.argv[3:]
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        copies = []
        for ts in ts_files:
            copy = os.path.join(tmp, os.path.basename(ts))
            shutil.copyfile(ts, copy)
            copies.append(copy)
        # The same commands as the update_translations target: the English catalogue holds only
        # the plural forms (the sources are English).
        for copy in copies:
            plural = ["-pluralonly"] if copy.endswith("_en.ts") else []
            subprocess.run([lupdate, "-locations", "none", "-no-obsolete", "-silent", "-extensions", "cpp,h", *plural,
                            os.path.join(root, "engine"), os.path.join(root, "app"), "-ts", copy],
                           check=True, cwd=root)
        for ts, copy in zip(ts_files, copies):
            committed = {(c, s) for c, s, _, _ in messages(ts)}
            current = {(c, s) for c, s, _, _ in messages(copy)}
            for context, source in sorted(current - committed):
                problems.append(f"{os.path.basename(ts)}: new in the sources, missing here: [{context}] {source!r}")
            for context, source in sorted(committed - current):
                problems.append(f"{os.path.basename(ts)}: gone from the sources, still here: [{context}] {source!r}")
    for ts in ts_files:
        name = os.path.basename(ts)
        count = 0
        for context, source, kind, forms in messages(ts):
            count += 1
            where = f"{name}: [{context}] {source!r}"
            if kind in ("unfinished", "vanished", "obsolete") or not all(f.strip() for f in forms):
                problems.append(f"{where}: not translated ({kind or 'empty'})")
                continue
            for form in forms:
                if sorted(set(PLACEHOLDER.findall(source))) != sorted(set(PLACEHOLDER.findall(form))):
                    problems.append(f"{where}: placeholders differ in {form!r}")
                if ("&" in source.replace("&&", "")) != ("&" in form.replace("&&", "")):
                    problems.append(f"{where}: keyboard mnemonic (&) added or lost in {form!r}")
        print(f"{name}: {count} strings")
    for p in problems:
        print(p)
    if problems:
        print(f"\n{len(problems)} problem(s). Run `cmake --build BUILD --target update_translations`, "
              "then translate the new strings (Qt Linguist, or edit the .ts files).")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
