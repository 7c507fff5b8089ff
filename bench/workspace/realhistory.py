#!/usr/bin/env python3
"""Gives the files of a fresh git repository a history, the same for the same files every time:
70 % of them (a seeded shuffle) in a first commit, then 30 commits that each add a thirtieth of
the rest and append a line to 20 files already committed. Author, committer and dates are fixed.
Files the tree's .gitignore names are left out, as `git add -A` would.
usage: realhistory.py REPO"""
import os
import random
import subprocess
import sys

repo = sys.argv[1]
os.chdir(repo)
env = dict(os.environ, GIT_AUTHOR_NAME='bench', GIT_AUTHOR_EMAIL='bench@example.com',
           GIT_COMMITTER_NAME='bench', GIT_COMMITTER_EMAIL='bench@example.com',
           GIT_AUTHOR_DATE='2024-01-01T00:00:00Z', GIT_COMMITTER_DATE='2024-01-01T00:00:00Z')
listed = subprocess.run(['git', 'ls-files', '-o', '--exclude-standard', '-z'], capture_output=True, check=True).stdout
files = sorted(f for f in listed.split(b'\0') if f)
rng = random.Random(25)
rng.shuffle(files)
first = int(len(files) * 0.7)
base, rest = files[:first], files[first:]


def add(paths):
    for i in range(0, len(paths), 2000):
        subprocess.run(['git', 'add', '--'] + [p.decode() for p in paths[i:i + 2000]], check=True, env=env)


def commit(message):
    subprocess.run(['git', 'commit', '-q', '--no-verify', '-m', message], check=True, env=env)


add(base)
commit('commit 1')
editable = sorted(p for p in base if not os.path.islink(p))
per = (len(rest) + 29) // 30
for c in range(30):
    add(rest[c * per:(c + 1) * per])
    for p in rng.sample(editable, 20):
        with open(p, 'ab') as f:
            f.write(b'/* edit %d */\n' % c)
        add([p])
    commit('commit %d' % (c + 2))
