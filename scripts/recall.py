#!/usr/bin/env python3
"""Recall on real defects: scans the pre-fix tree of every entry of
docs/recall.toml and says which defects toolaudit reports.

    python3 scripts/recall.py prepare --mirrors DIR --trees DIR
        extracts each entry's pre-fix commit from a bare git mirror
        (DIR/<owner>+<name>/repo, or any bare repository at DIR/<owner>+<name>)
        into TREES/<id>/
    python3 scripts/recall.py run --trees DIR [--bin PATH] [--select CODES]
        scans each prepared tree with default settings (--no-config) and
        prints a line per defect and the recall, overall and per rule

A defect counts as found when a finding of its rule is reported in its file
within --tolerance lines (default 3) of its line: the recorded line is where
the defect is; toolaudit may point at the start of the same expression or
at the property key above a value.
"""
import argparse
import json
import os
import subprocess
import sys
import tomllib
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORPUS = os.path.join(ROOT, "docs", "recall.toml")


def load():
    with open(CORPUS, "rb") as f:
        return tomllib.load(f)["defect"]


def mirror_dir(mirrors, repo):
    base = os.path.join(mirrors, repo.replace("/", "+"))
    for cand in (os.path.join(base, "repo"), base):
        if os.path.isdir(cand) and os.path.exists(os.path.join(cand, "HEAD")):
            return cand
    return None


def extract_blobs(git, commit, out):
    listing = subprocess.run(
        ["git", "--git-dir", git, "ls-tree", "-r", "-z", commit],
        capture_output=True, check=True,
    ).stdout.split(b"\0")
    skipped = 0
    for entry in listing:
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        _mode, kind, sha = meta.split()
        if kind != b"blob":
            continue
        blob = subprocess.run(["git", "--git-dir", git, "cat-file", "blob", sha], capture_output=True)
        if blob.returncode != 0:
            skipped += 1
            continue
        dest = os.path.join(out, os.fsdecode(path))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "wb") as f:
            f.write(blob.stdout)
    return skipped


def prepare(args):
    missing = 0
    for d in load():
        out = os.path.join(args.trees, d["id"])
        if os.path.isdir(out) and os.listdir(out):
            continue
        git = mirror_dir(args.mirrors, d.get("mirror", d["repo"]))
        if git is None:
            print(f"{d['id']}: no mirror of {d.get('mirror', d['repo'])} in {args.mirrors}")
            missing += 1
            continue
        os.makedirs(out, exist_ok=True)
        archive = subprocess.run(
            ["git", "--git-dir", git, "archive", d["pre_fix_commit"]],
            capture_output=True,
        )
        if archive.returncode == 0:
            subprocess.run(["tar", "-x", "-C", out], input=archive.stdout, check=True)
        else:
            # Snapshots leave out files of 4 MiB and more: write the blobs
            # one by one and skip the absent ones.
            skipped = extract_blobs(git, d["pre_fix_commit"], out)
            print(f"{d['id']}: {skipped} absent files left out")
        print(f"{d['id']}: prepared")
    return 1 if missing else 0


def run(args):
    defects = load()
    found_by_rule = defaultdict(lambda: [0, 0])
    found = 0
    scanned = 0
    rows = []
    for d in defects:
        tree = os.path.join(args.trees, d["id"])
        rule = d["rule"]
        if not os.path.isdir(tree):
            rows.append((d["id"], rule, "not prepared"))
            continue
        cmd = [args.bin, "scan", tree, "--no-config", "--format", "json", "-q"]
        if args.select:
            cmd += ["--select", args.select]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode not in (0, 1):
            rows.append((d["id"], rule, f"scan failed ({p.returncode}): {p.stderr.strip()[:200]}"))
            continue
        scanned += 1
        report = json.loads(p.stdout)
        target = os.path.normpath(os.path.join(tree, d["path"]))
        hits = [
            f for f in report["findings"]
            if f["code"] == rule
            and os.path.normpath(os.path.abspath(f["file"])) == os.path.abspath(target)
            and abs(f["start"]["line"] - d["line"]) <= args.tolerance
        ]
        near = [
            f"{f['code']}@{f['start']['line']}" for f in report["findings"]
            if os.path.normpath(os.path.abspath(f["file"])) == os.path.abspath(target)
        ]
        found_by_rule[rule][1] += 1
        if hits:
            found += 1
            found_by_rule[rule][0] += 1
            rows.append((d["id"], rule, f"found at line {hits[0]['start']['line']}"))
        else:
            rows.append((d["id"], rule, "missed" + (f" (in that file: {', '.join(near[:6])})" if near else "")))
    width = max(len(r[0]) for r in rows)
    for id_, rule, what in rows:
        print(f"{id_:<{width}}  {rule:<5} {what}")
    print()
    for rule in sorted(found_by_rule):
        f, n = found_by_rule[rule]
        print(f"{rule:<5} {f}/{n}")
    total = len(defects)
    pct = 100.0 * found / total if total else 0.0
    print(f"\nrecall: {found}/{total} defects found ({pct:.0f} %); {scanned} trees scanned")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("--mirrors", required=True)
    p.add_argument("--trees", required=True)
    r = sub.add_parser("run")
    r.add_argument("--trees", required=True)
    r.add_argument("--bin", default=os.path.join(
        os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "toolaudit"))
    r.add_argument("--select", default=None)
    r.add_argument("--tolerance", type=int, default=3)
    args = ap.parse_args()
    sys.exit(prepare(args) if args.cmd == "prepare" else run(args))


if __name__ == "__main__":
    main()
