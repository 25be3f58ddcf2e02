#!/usr/bin/env python3
"""Costs per function from a callgrind output file, divided by a request count.

callgrind_annotate mis-attributes files whose objects carry DWARF for some libraries and not others (everything lands on
`clone`); this reads the format directly. Functions without a symbol are named by address and object.

    costs.py FILE [TOP] [REQUESTS] [CALLERS_OF] [INCLUSIVE_REGEX] [CALLEES_OF]

TOP functions by self cost; CALLERS_OF: comma-separated substrings, each listing who calls it (inclusive cost of the
call); INCLUSIVE_REGEX: inclusive cost of every function whose name matches; CALLEES_OF: comma-separated substrings,
each listing what the matching functions call. Pass `x` and `'^$'` to skip the optional ones before.
"""
import re, sys, collections
path = sys.argv[1]; top = int(sys.argv[2]) if len(sys.argv) > 2 else 40; div = float(sys.argv[3]) if len(sys.argv) > 3 else 1
names = {}; selfc = collections.Counter(); incl = collections.Counter()
fn = None; skip = False; ob = ''; cob = ''
def name(v):
    m = re.match(r"\((\d+)\)(?: (.*))?", v)
    if not m: return v
    if m.group(2): names[m.group(1)] = m.group(2)
    return names.get(m.group(1), m.group(1))
pending_call = None
for line in open(path, errors="replace"):
    line = line.rstrip("\n")
    if line.startswith("ob="):
        ob = name(line[3:]); cob = ob; continue
    if line.startswith("cob="):
        cob = name(line[4:]); continue
    if line.startswith("fn="):
        fn = name(line[3:]);
        if fn.startswith("0x"): fn += "@" + ob.split("/")[-1]
        cob = ob; continue
    if line.startswith("cfn="):
        pending_call = name(line[4:])
        if pending_call.startswith("0x"): pending_call += "@" + cob.split("/")[-1]
        cob = ob; continue
    if line.startswith("calls="):
        skip = True; continue
    if line and (line[0].isdigit() or line[0] in "+-*"):
        parts = line.split()
        if len(parts) < 2: continue
        c = int(parts[1])
        if skip:
            skip = False
            if pending_call and pending_call != fn: incl[(fn, pending_call)] += c
            continue
        selfc[fn] += c
        continue
    for p in ("ob=", "fl=", "fi=", "fe=", "cob=", "cfi=", "cfl="):
        if line.startswith(p):
            v = line[len(p):]
            m = re.match(r"\((\d+)\)", v)
            break
total = sum(selfc.values())
print("total", total, "per unit", total / div)
for f, c in selfc.most_common(top):
    print(f"{c/div:12.0f} {100*c/total:5.1f}%  {f[:110]}")
if len(sys.argv) > 4:
    for target in sys.argv[4].split(","):
        print(f"-- callers of {target}")
        rows = [(c, f) for (f, t), c in incl.items() if target in t]
        for c, f in sorted(rows, reverse=True)[:12]: print(f"{c/div:12.0f}  {f[:110]}")
if len(sys.argv) > 5:
    inc = collections.Counter(selfc)
    for (f, t), c in incl.items(): inc[f] += c
    pat = sys.argv[5]
    print("-- inclusive")
    for f, c in inc.most_common():
        if re.search(pat, f): print(f"{c/div:12.0f}  {f[:120]}")
if len(sys.argv) > 6:
    for target in sys.argv[6].split(","):
        print(f"-- callees of {target}")
        rows = collections.Counter()
        for (f, t), c in incl.items():
            if target in f: rows[t] += c
        for f, c in [(f, selfc[f]) for f in selfc if target in f]: rows["(self) " + f] += c
        for t, c in rows.most_common(25): print(f"{c/div:12.0f}  {t[:120]}")
