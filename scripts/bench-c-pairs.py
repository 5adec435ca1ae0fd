#!/usr/bin/env python3
"""Compares the integer C function pairs of a benchmark laid out as
ROOT/FAMILY/PROGRAM/{Eq,Neq}/{old*,new*}.c (the layout of the EqBench collection),
compiled by mips-linux-gnu-gcc at -O0 and -O2.

Every function of one to four int parameters defined in both versions of a pair is
compared four ways: old against new at -O0 and at -O2, and -O0 against -O2 of each
version. Files that use floating point are skipped. One line per comparison, then a
summary.

Usage: scripts/bench-c-pairs.py ROOT [--timeout S] [--jobs N] [--unbounded] [--engine E]
           [--family NAME]... [--tamarin PATH] [--json OUT]
"""
import argparse
import collections
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

FUNCTION = re.compile(r"^\s*(?:unsigned\s+)?(?:int|long|unsigned)\s+(\w+)\s*\(([^)]*)\)", re.M)
PARAM = re.compile(r"^(unsigned\s+)?(int|long|unsigned)\s+\w+$")


def functions(text):
    """The functions of one to four integer parameters: name -> count."""
    out = {}
    for m in FUNCTION.finditer(text):
        params = [p.strip() for p in m.group(2).split(",") if p.strip() and p.strip() != "void"]
        if 1 <= len(params) <= 4 and all(PARAM.match(p) for p in params):
            out[m.group(1)] = len(params)
    return out


def pairs(root, objs, only):
    """(name, function, args, objects by (version, level)) for every pair."""
    out = []
    for family in sorted(os.listdir(root)):
        if only and family not in only:
            continue
        for program in sorted(os.listdir(os.path.join(root, family))):
            for label in ("Eq", "Neq"):
                d = os.path.join(root, family, program, label)
                if not os.path.isdir(d):
                    continue
                cs = sorted(f for f in os.listdir(d) if f.endswith(".c"))
                old = [c for c in cs if c.startswith("old")]
                new = [c for c in cs if c.startswith("new")]
                if len(cs) != 2 or not old or not new:
                    continue
                src = {"old": os.path.join(d, old[0]), "new": os.path.join(d, new[0])}
                text = {k: open(v, errors="replace").read() for k, v in src.items()}
                if any(re.search(r"double|float|math\.h", t) for t in text.values()):
                    continue
                built = {}
                for version, path in src.items():
                    for level in ("O0", "O2"):
                        o = os.path.join(objs, f"{family}-{program}-{label}-{version}-{level}.o")
                        r = subprocess.run(
                            ["mips-linux-gnu-gcc", "-" + level, "-c", "-fno-pic", "-mno-abicalls",
                             "-w", "-o", o, path], capture_output=True)
                        if r.returncode == 0:
                            built[(version, level)] = o
                if len(built) != 4:
                    continue
                fo, fn = functions(text["old"]), functions(text["new"])
                for f, n in fo.items():
                    if fn.get(f) == n:
                        out.append((f"{family}/{program}/{label}", f, n, built))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("root")
    ap.add_argument("--timeout", default="10")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--unbounded", action="store_true")
    ap.add_argument("--engine", choices=["auto", "concolic", "bmc"], default="auto")
    ap.add_argument("--tamarin", default="target/release/tamarin")
    ap.add_argument("--json")
    ap.add_argument("--family", action="append", help="only this family (repeatable)")
    a = ap.parse_args()
    objs = tempfile.mkdtemp(prefix="c-pairs-")
    jobs = []
    for name, f, n, b in pairs(a.root, objs, a.family):
        for kind, l, r in (("O0", ("old", "O0"), ("new", "O0")),
                           ("O2", ("old", "O2"), ("new", "O2")),
                           ("same-old", ("old", "O0"), ("old", "O2")),
                           ("same-new", ("new", "O0"), ("new", "O2"))):
            jobs.append((name, f, n, kind, b[l], b[r]))

    def compare(job):
        name, f, n, kind, l, r = job
        cmd = [a.tamarin, "compare", l, r, "--function", f, "--args", str(n),
               "--timeout", a.timeout, "--format", "json", "--engine", a.engine] + (["--unbounded"] if a.unbounded else [])
        started = time.time()
        res = subprocess.run(cmd, capture_output=True, text=True)
        secs = time.time() - started
        try:
            js = json.loads(res.stdout)
            verdict, reasons = js["verdict"], [x["kind"] for x in js.get("reasons", [])]
        except (ValueError, KeyError):
            verdict, reasons = "error", [res.stderr.strip()[:200]]
        return dict(pair=name, function=f, kind=kind, verdict=verdict, seconds=round(secs, 2),
                    reasons=reasons)

    rows = []
    with ThreadPoolExecutor(a.jobs) as ex:
        for row in ex.map(compare, jobs):
            print(f"{row['pair']}/{row['function']:<10} {row['kind']:<9} {row['verdict']:<20} "
                  f"{row['seconds']:6.2f} {','.join(row['reasons']) or '-'}", flush=True)
            rows.append(row)
    count = collections.Counter(r["verdict"] for r in rows)
    proved = [r["seconds"] for r in rows if r["verdict"] == "equivalent"]
    print(f"{len(rows)} comparisons: {count['disequivalent']} disequivalent, "
          f"{count['equivalent']} equivalent (at most {max(proved, default=0):.2f} s), "
          f"{count['possibly-equivalent']} possibly-equivalent, {count['error']} errors")
    if a.json:
        json.dump(rows, open(a.json, "w"), indent=1)
    return 1 if count["error"] else 0


if __name__ == "__main__":
    sys.exit(main())
