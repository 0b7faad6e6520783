#!/usr/bin/env python3
"""Compares two scans of the same trees finding by finding.

    python3 scripts/finding-diff.py BEFORE_DIR AFTER_DIR

Each directory holds one `toolaudit scan TREE --no-config --format json`
output per tree, under the same file names. Prints every finding (rule,
file, line, message) that is only in one of them, `-` before and `+` after,
with repeats counted, then the totals per rule. Used to show that a change
moved no finding it did not mean to move (an empty `{}` means none moved).
"""
import collections
import glob
import json
import os
import sys


def load(path):
    with open(path) as f:
        doc = json.load(f)
    return collections.Counter(
        (x["code"], x["file"], x["start"]["line"], x["message"]) for x in doc["findings"]
    )


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    before, after = sys.argv[1:]
    totals = collections.Counter()
    for a in sorted(glob.glob(os.path.join(before, "*.json"))):
        b = os.path.join(after, os.path.basename(a))
        if not os.path.exists(b):
            print(f"? {os.path.basename(a)}: no counterpart in {after}")
            continue
        old, new = load(a), load(b)
        for sign, diff in (("-", old - new), ("+", new - old)):
            for (code, path, line, message), n in sorted(diff.items()):
                print(f"{sign} {code} {path}:{line} {message}" + (f" (x{n})" if n > 1 else ""))
                totals[sign + code] += n
    print(dict(sorted(totals.items())))


if __name__ == "__main__":
    main()
