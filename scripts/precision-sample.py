#!/usr/bin/env python3
"""A blind-labelling sample of held-out findings, and its score.

    python3 scripts/precision-sample.py sample SCANS_DIR OUT.md [--quota CODE=N ...] [--seed S] [--root PREFIX]
        SCANS_DIR holds one `toolaudit scan TREE --no-config --format json`
        output per held-out tree. Writes OUT.md (every finding of a rule, or
        a random N of it with --quota; message, label, notes, help, related
        places, and empty `verdict:`/`reason:` lines for the reviewer) and
        OUT.population.json (findings per rule). Findings at note severity
        form a stratum of their own (`M102:note`), so that a rule's notes
        neither hide nor stand in for its warnings.
    python3 scripts/precision-sample.py score OUT.md [MORE.md ...] --population OUT.population.json
        Counts the verdicts (TRUE / FALSE / DEBATABLE) per rule and prints
        the precision of the sample and weighted by each rule's population.
"""
import argparse
import collections
import glob
import json
import os
import random
import re


def sample(args):
    random.seed(args.seed)
    pop = collections.defaultdict(list)
    for f in sorted(glob.glob(os.path.join(args.scans, "*.json"))):
        with open(f) as fh:
            for x in json.load(fh)["findings"]:
                key = x["code"] + (":note" if x.get("severity") == "note" else "")
                pop[key].append(x)
    quota = dict(q.split("=") for q in args.quota)
    chosen = []
    for code in sorted(pop):
        k = min(len(pop[code]), int(quota.get(code, len(pop[code]))))
        chosen += [(code, x) for x in random.sample(pop[code], k)]
    strip = lambda p: p[len(args.root):] if args.root and p.startswith(args.root) else p
    lines = ["# Findings to label blind", "Population: " + ", ".join(f"{c} {len(v)}" for c, v in sorted(pop.items())), ""]
    for i, (key, x) in enumerate(chosen, 1):
        lines.append(f"## {i}. {key} ({x['name']}) — {strip(x['file'])}:{x['start']['line']}:{x['start']['column']}")
        lines.append(f"- message: {x['message']}")
        lines.append(f"- label: {x.get('label', '')}")
        lines += [f"- note: {n}" for n in x.get("notes", [])]
        if x.get("help"):
            lines.append(f"- help: {x['help']}")
        lines += [f"- related: {strip(l['file'])}:{l['start']['line']} {l['message']}" for l in x.get("labels", [])]
        lines += ["- verdict: ", "- reason: ", ""]
    with open(args.out, "w") as fh:
        fh.write("\n".join(lines))
    with open(os.path.splitext(args.out)[0] + ".population.json", "w") as fh:
        json.dump({c: len(v) for c, v in sorted(pop.items())}, fh)
    print(f"{len(chosen)} findings sampled into {args.out}")


def score(args):
    with open(args.population) as fh:
        pop = json.load(fh)
    counts = collections.defaultdict(collections.Counter)
    for f in args.labelled:
        with open(f) as fh:
            for item in fh.read().split("\n## ")[1:]:
                code = re.match(r"\d+\. ([\w:]+)", item).group(1)
                v = re.search(r"- verdict: *(\w+)", item)
                counts[code][v.group(1) if v else "UNLABELLED"] += 1
    total = sum(pop.values())
    true_w = deb_w = 0.0
    all_ = collections.Counter()
    for code, c in sorted(counts.items()):
        n = sum(c.values())
        all_.update(c)
        print(f"{code}: {c['TRUE']} true, {c['FALSE']} false, {c['DEBATABLE']} debatable of {n} sampled ({pop.get(code, 0)} found)")
        true_w += pop.get(code, 0) * c["TRUE"] / n
        deb_w += pop.get(code, 0) * (c["TRUE"] + c["DEBATABLE"]) / n
    n = sum(all_.values())
    print(f"sample: {all_['TRUE']}/{n} true, {all_['TRUE'] + all_['DEBATABLE']}/{n} with debatable")
    print(f"weighted by population: {100 * true_w / total:.1f} % true, {100 * deb_w / total:.1f} % with debatable")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("sample")
    s.add_argument("scans")
    s.add_argument("out")
    s.add_argument("--quota", nargs="*", default=[])
    s.add_argument("--seed", type=int, default=20261124)
    s.add_argument("--root", default="")
    s.set_defaults(func=sample)
    c = sub.add_parser("score")
    c.add_argument("labelled", nargs="+")
    c.add_argument("--population", required=True)
    c.set_defaults(func=score)
    args = p.parse_args()
    args.func(args)


if __name__ == "__main__":
    main()
