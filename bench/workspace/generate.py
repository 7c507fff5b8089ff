#!/usr/bin/env python3
"""Generates a git repository for the workspace benchmarks: FILES files, about MB megabytes in
total (a mix of compressible text and incompressible bytes, like source plus assets), written in
COMMITS commits (the first holds 70% of the files; each later one adds and edits files), so the
repository has history. Deterministic for a given seed.

usage: generate.py OUT [--files 10000] [--mb 100] [--commits 20] [--seed 1]
OUT/repo is the repository (its worktree is the final tree)."""

import argparse
import os
import random
import subprocess
import sys


def git(repo, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="bench", GIT_AUTHOR_EMAIL="bench@isolation.local",
               GIT_COMMITTER_NAME="bench", GIT_COMMITTER_EMAIL="bench@isolation.local",
               GIT_CONFIG_NOSYSTEM="1", HOME=repo)
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, stdout=subprocess.DEVNULL)


WORDS = ("engine session bundle segment manifest workspace commit merge branch sync save cache "
         "return value error result thread worker buffer stream object hash tree blob").split()


def content(rng, size):
    if rng.random() < 0.3:
        return rng.randbytes(size)  # assets: incompressible
    out = []
    n = 0
    while n < size:
        line = " ".join(rng.choice(WORDS) for _ in range(rng.randint(3, 12))) + "\n"
        out.append(line)
        n += len(line)
    return "".join(out).encode()[:size]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("out")
    p.add_argument("--files", type=int, default=10000)
    p.add_argument("--mb", type=int, default=100)
    p.add_argument("--commits", type=int, default=20)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    rng = random.Random(a.seed)
    repo = os.path.join(a.out, "repo")
    os.makedirs(repo, exist_ok=False)
    git(repo, "init", "-q", "-b", "main")
    avg = a.mb * 1024 * 1024 // a.files
    paths = [f"dir{i % 97:02d}/sub{i % 13}/file{i:05d}.dat" for i in range(a.files)]
    first = int(a.files * 0.7)
    batches = [paths[:first]]
    rest = paths[first:]
    per = max(1, len(rest) // max(1, a.commits - 1))
    for c in range(1, a.commits):
        batch = rest[(c - 1) * per:c * per] if c < a.commits - 1 else rest[(c - 1) * per:]
        # and edits of earlier files
        batch = batch + rng.sample(paths[:first], min(first, 50))
        batches.append(batch)
    for c, batch in enumerate(batches):
        for path in batch:
            full = os.path.join(repo, path)
            os.makedirs(os.path.dirname(full), exist_ok=True)
            with open(full, "wb") as f:
                f.write(content(rng, max(1, int(rng.expovariate(1.0 / avg)))))
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"commit {c}")
    total = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(repo) if "/.git" not in d + "/"
                for f in fs)
    print(f"{repo}: {a.files} files, {total / 1048576:.1f} MiB in the tree, {a.commits} commits")


if __name__ == "__main__":
    sys.exit(main())
