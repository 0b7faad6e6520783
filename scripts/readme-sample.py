#!/usr/bin/env python3
"""Refreshes the sample output in README.md from `toolaudit scan examples`.

Usage: cargo run -q -- scan examples --color never | python3 scripts/readme-sample.py
The excerpt shows one finding per family (the first of the codes below) and
the summary, so the README shows real, current output.
"""
import re
import sys

SHOWN = ["M103", "M202", "M301", "N101", "S104"]

lines = sys.stdin.read().split("\n")
headers = [i for i, l in enumerate(lines) if l.startswith("── ")]


def block(start):
    out = []
    for l in lines[start:]:
        out.append(l)
        if l.strip().startswith("= help"):
            break
    return out


parts = []
for code in SHOWN:
    at = next(i for i, l in enumerate(lines) if re.match(rf"(error|warning|note)\[{code}\]", l)
              and (code != "N101" or "built as" in l))
    header = max(h for h in headers if h < at)
    parts += [lines[header], ""] + block(at) + [""]
summary = lines.index("Summary")
tail = lines[summary:]
while tail and tail[-1] == "":
    tail.pop()
parts += tail
found = next(l for l in lines if l.startswith("Found "))
count = int(found.split()[1])

readme = open("README.md").read()
start = readme.index("```text\n", readme.index("## What it says")) + len("```text\n")
end = readme.index("```\n", start)
readme = readme[:start] + "\n".join(parts) + "\n" + readme[end:]
readme = re.sub(r"prints \d+\nfindings grouped by family", f"prints {count}\nfindings grouped by family", readme)
open("README.md", "w").write(readme)
