#!/usr/bin/env python3
"""Replays a repository's history through the tool-surface snapshot: for
each commit, writes the snapshot of its parent and scans the commit with
the P rules, so every P101 finding can be checked against what the commit
really changed.

    python3 scripts/surface-history.py GIT_DIR [--commits N] [--bin PATH]
        [--truth GLOB] [--rev REV]

GIT_DIR is a (bare) git repository. The last N first-parent commits of REV
(default HEAD) that have a parent are replayed. With --truth GLOB (a glob of
files that each define one tool, such as github-mcp-server's
`pkg/github/__toolsnaps__/*.snap`), the tools (by the `name` in the file)
whose file the commit added, changed or deleted, other than by
reformatting, are the ground truth: the script prints, per commit,
the tools changed, the tools P101 reported, and what it missed or reported
without a change, then the totals. Without --truth it prints the findings
for a reader to judge.
"""
import argparse
import fnmatch
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from recall import extract_blobs  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def git(git_dir, *args):
    return subprocess.run(["git", "--git-dir", git_dir, *args], capture_output=True, check=True).stdout


def extract(git_dir, commit, out):
    os.makedirs(out, exist_ok=True)
    archive = subprocess.run(["git", "--git-dir", git_dir, "archive", "--format=tar", commit], capture_output=True)
    if archive.returncode == 0:
        subprocess.run(["tar", "-x", "-C", out], input=archive.stdout, check=True)
    else:
        # A snapshot without its largest blobs: extract file by file.
        extract_blobs(git_dir, commit, out)
    return bool(os.listdir(out))


def tool_name(git_dir, commit, path):
    """The `name` of the one tool a truth file defines at `commit`, and its
    parsed content (None when the file is absent there)."""
    shown = subprocess.run(["git", "--git-dir", git_dir, "show", f"{commit}:{path}"], capture_output=True)
    if shown.returncode != 0:
        return None, None
    try:
        doc = json.loads(shown.stdout)
    except ValueError:
        return None, None
    return (doc.get("name") if isinstance(doc, dict) else None), doc


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("git_dir")
    ap.add_argument("--commits", type=int, default=20)
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--bin", default=os.path.join(ROOT, "target", "release", "toolaudit"))
    ap.add_argument("--truth", help="glob of one-tool files whose changes are the ground truth")
    a = ap.parse_args()
    log = git(a.git_dir, "log", "--first-parent", "--format=%H %P", f"-n{a.commits}", a.rev).decode().split("\n")
    totals = {"changed": 0, "found": 0, "reported": 0, "false": 0}
    for line in filter(None, log):
        commit, *parents = line.split()
        if not parents:
            continue
        parent = parents[0]
        with tempfile.TemporaryDirectory() as tmp:
            before, after = os.path.join(tmp, "before"), os.path.join(tmp, "after")
            if not (extract(a.git_dir, parent, before) and extract(a.git_dir, commit, after)):
                print(f"{commit[:10]}: tree missing, skipped")
                continue
            snap = os.path.join(tmp, "toolaudit.surface.json")
            subprocess.run(
                [a.bin, "surface", ".", "--no-config", "--surface", snap, "--write"],
                cwd=before, capture_output=True, check=True,
            )
            scan = subprocess.run(
                [a.bin, "scan", ".", "--no-config", "--surface", snap, "--select", "P", "--format", "json"],
                cwd=after, capture_output=True,
            )
            findings = json.loads(scan.stdout)["findings"]
        subject = git(a.git_dir, "log", "-1", "--format=%s", commit).decode().strip()
        reported = sorted({f["tool"] for f in findings if f.get("tool")})
        print(f"{commit[:10]} {subject[:70]}")
        for f in findings:
            print(f"    {f['code']} {f['severity']:7} {f['message']}")
        if a.truth:
            names = git(a.git_dir, "diff", "--name-only", parent, commit).decode().split("\n")
            changed = set()
            for n in names:
                if not (n and fnmatch.fnmatch(n, a.truth)):
                    continue
                old_name, old_doc = tool_name(a.git_dir, parent, n)
                new_name, new_doc = tool_name(a.git_dir, commit, n)
                # Reformatted only: the same JSON is not a change.
                if old_doc != new_doc:
                    changed.update(x for x in (old_name, new_name) if x)
            changed = sorted(changed)
            missed = [t for t in changed if t not in reported]
            false = [t for t in reported if t not in changed]
            print(f"    truth: {len(changed)} tools changed; missed {missed or 'none'}; reported without a change {false or 'none'}")
            totals["changed"] += len(changed)
            totals["found"] += len(changed) - len(missed)
            totals["reported"] += len(reported)
            totals["false"] += len(false)
    if a.truth:
        t = totals
        print(
            f"\ntools changed: {t['changed']}, reported: {t['found']} "
            f"({100 * t['found'] / max(t['changed'], 1):.0f} %); tools reported: {t['reported']}, "
            f"of which unchanged: {t['false']}"
        )


if __name__ == "__main__":
    sys.exit(main())
