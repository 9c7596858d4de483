#!/usr/bin/env python3
"""xcheck.py — the cross-checks of test/integration/crosscheck.sh: one
figure, computed by different routes, must agree.

  xcheck.py csv CSV                    prints a vftr-stats --csv profile as
                                       "function calls excl incl rows" lines,
                                       the form crosscheck.sh gives the log's
                                       profile in (from logrows, logcalls.sh)
  xcheck.py compare NAME A B [options] compares two such profiles (files
                                       written by the two commands above)
  xcheck.py tui NAME STATS SCREEN      compares vftr-tui's profile table (the
                                       text of its screen) with vftr-stats'
                                       text profile of the same trace and
                                       window: every row the TUI shows must
                                       be in vftr-stats' with the same
                                       figures as printed (excl, incl,
                                       calls, imbalance; lib/util/fmt.h
                                       writes both), names compared as
                                       vftr-stats elides them (the middle)
  xcheck.py counts NAME OUT PROFILE [SPEC...]
                                       compares the program's own "count F N"
                                       lines (summed over its processes) with
                                       a profile's calls; SPEC F=REGEX counts
                                       F as the calls of the functions REGEX
                                       matches (mangled or module names, a
                                       total over several), -F skips F

A profile is "function calls excl incl rows" per line (times in seconds,
rows: how many printed rows were summed into it).  The log's profile is
summed over its rows (threads and call paths) by function name: calls and
exclusive time add up, and so does inclusive time, since every call of a
function belongs to exactly one call path (the function inclusive time
vftr-stats shows, summed over calls).

compare options:
  --exact EVENTS [RATE]  an exact capture: calls equal, times within what the
                   printing and the trace's time stamps allow: 0.5 us for
                   each printed row summed into the figure (6 decimals: the
                   log prints one row per call path and thread) plus 1 ns
                   per time stamp of the function's calls and of its
                   callees' calls that the conversion to ns rounded, which
                   is at most 2 ns per event of the rank (EVENTS: the
                   rank's events).  An optional RATE adds RATE times the
                   figure: the trace puts every rank on rank 0's clock (on
                   one host the same time-stamp counter, whose rate each
                   rank measured for itself), the log keeps the rank's own
                   rate; RATE = |rate of the rank / rate of rank 0 - 1|.
  --sampled S SPAN a sampled capture with interval S over SPAN seconds: A is
                   exact (the log), B the statistical profile; calls are
                   compared only where B knows them (not "-"); times within
                   five standard deviations of the sampling error, 5 * S *
                   sqrt(N p (1 - p)) with N = SPAN / S samples and p the
                   share of the function, plus 2 S for the first and the last
                   interval.
  --same           the two must be identical (two routes to one output).
Prints one PASS or FAIL line per comparison; exits 1 on a failure.
"""
import csv
import math
import re
import sys


def parse_csv(path):
    """Function -> [calls or None, excl, incl] from vftr-stats --csv."""
    prof = {}
    with open(path, encoding="utf-8") as f:
        rows = [r for r in csv.reader(f) if r]
    if not rows or rows[0][0] != "calls":
        raise SystemExit("%s: not a vftr-stats CSV profile" % path)
    head = rows[0]
    ci, ei, ii, fi = (head.index(k) for k in ("calls", "excl", "incl", "function"))
    for r in rows[1:]:
        calls = int(r[ci]) if r[ci] != "" else None
        prof[r[fi]] = [calls, float(r[ei]), float(r[ii]), 1]
    return prof


def write_prof(prof):
    for fn in sorted(prof):
        c, e, i, rows = prof[fn]
        print("%s\t%s\t%.9f\t%.9f\t%d" % (fn, "-" if c is None else c, e, i, rows))


def read_prof(path):
    prof = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            fn, c, e, i, rows = line.rstrip("\n").split("\t")
            prof[fn] = [None if c == "-" else int(c), float(e), float(i), int(rows)]
    return prof


def compare(name, a, b, mode, args):
    bad = []
    if mode == "same":
        if a != b:
            diff = [fn for fn in sorted(set(a) | set(b)) if a.get(fn) != b.get(fn)]
            bad.append("profiles differ: %s" % ", ".join(diff[:5]))
    else:
        names = set(a) | set(b)
        total = sum(v[1] for v in a.values()) or 1.0
        for fn in sorted(names):
            if fn not in a or fn not in b:
                row = a.get(fn) or b.get(fn)
                if mode == "sampled":
                    # never sampled (or sampled with no time): zero on that side
                    if fn not in a:
                        a[fn] = [0, 0.0, 0.0, 0]
                    else:
                        b[fn] = [None, 0.0, 0.0, 0]
                elif row[0] or row[1] > 1e-6:
                    # a function of no time and no call may be left out by either
                    bad.append("%s only in %s" % (fn, "A" if fn in a else "B"))
                    continue
                else:
                    continue
            (ca, ea, ia, ra), (cb, eb, ib, rb) = a[fn], b[fn]
            if mode == "exact":
                # each printed row rounded to 0.5 us, each time stamp to 1 ns,
                # rank 0's clock rate against the rank's own
                tol = (0.5e-6 * (ra + rb) + 2e-9 * args["events"]
                       + args["rate"] * max(abs(ea), abs(eb), abs(ia), abs(ib)))
                if ca != cb:
                    bad.append("%s: calls %s / %s" % (fn, ca, cb))
            else:
                s, span = args["interval"], args["span"]
                n = span / s
                tol = {}
                for k, v in (("e", ea), ("i", ia)):
                    p = min(max(v / span, 0.0), 1.0)
                    tol[k] = 5 * s * math.sqrt(n * p * (1 - p)) + 2 * s
                if cb is not None and ca != cb:
                    bad.append("%s: calls %s / %s (precise)" % (fn, ca, cb))
            te = tol if mode == "exact" else tol["e"]
            ti = tol if mode == "exact" else tol["i"]
            if abs(ea - eb) > te:
                bad.append("%s: excl %.9f / %.9f (tolerance %.9f)" % (fn, ea, eb, te))
            if abs(ia - ib) > ti:
                bad.append("%s: incl %.9f / %.9f (tolerance %.9f)" % (fn, ia, ib, ti))
        del total
    if bad:
        print("FAIL: %s: %s" % (name, "; ".join(bad[:6])))
        return 1
    print("PASS: %s" % name)
    return 0


def counts(name, out, prof, specs):
    import re
    rules = {}
    for sp in specs:
        if sp.startswith("-"):
            rules[sp[1:]] = None
        else:
            k, v = sp.split("=", 1)
            rules[k] = re.compile(v)
    own = {}
    with open(out, encoding="utf-8", errors="replace") as f:
        for line in f:
            w = line.split()
            if len(w) == 3 and w[0] == "count":
                own[w[1]] = own.get(w[1], 0) + int(w[2])
    bad = []
    if not own:
        bad.append("the program printed no counts")
    for fn, n in sorted(own.items()):
        if fn in rules and rules[fn] is None:
            continue
        if fn in rules:
            got = sum(v[0] or 0 for f, v in prof.items() if rules[fn].search(f))
        else:
            got = prof.get(fn, [0])[0]
        if got != n:
            bad.append("%s: the program counts %d, the profile %s" % (fn, n, got))
    if bad:
        print("FAIL: %s: %s" % (name, "; ".join(bad[:6])))
        return 1
    print("PASS: %s" % name)
    return 0


# vftr-stats' text profile: calls 10, excl 10, excl% 7, incl 10, imbal 7,
# two blanks and the name in the rest of 80 columns (analyzers/vftr-stats).
STATS_ROW = re.compile(r"^(.{10})(.{10})(.{7})(.{10})(.{7})  (.+)$")
STATS_NAME_WIDTH = 80 - 2 - (10 + 10 + 7 + 10 + 7)
# vftr-tui's profile rows: the selection mark, excl 9, incl 9, calls 9,
# imbal 6, two blanks, the function's symbol and its name (tui/screen.c).
TUI_ROW = re.compile(r"^[> ](.{9}) (.{9}) (.{9}) (.{6})  . (.+)$")
TIME = re.compile(r"^[0-9]+(\.[0-9]+)? (ns|us|ms|s)$")
PCT = re.compile(r"^[0-9]+\.[0-9]%$")


def elide(name, width):
    """The name as lib/util/fmt.h's vftr_fmt_elide cuts it (ASCII names)."""
    if len(name) <= width:
        return name
    head = (width - 3) // 2
    tail = width - 3 - head
    return name[:head] + "..." + name[len(name) - tail:]


def tui(name, stats_path, screen_path):
    stats = {}
    with open(stats_path) as f:
        for line in f:
            m = STATS_ROW.match(line.rstrip("\n"))
            if m and m.group(1).strip().isdigit():
                calls, excl, _, incl, imbal, fn = (g.strip() for g in m.groups())
                stats[fn] = (excl, incl, calls, imbal)
    rows, bad = 0, []
    with open(screen_path) as f:
        for line in f:
            m = TUI_ROW.match(line.rstrip("\n"))
            if not m:
                continue
            excl, incl, calls, imbal, fn = (g.strip() for g in m.groups())
            if not (TIME.match(excl) and TIME.match(incl) and calls.isdigit() and PCT.match(imbal)):
                continue
            rows += 1
            got = (excl, incl, calls, imbal)
            want = stats.get(elide(fn, STATS_NAME_WIDTH))
            if want != got:
                bad.append("%s: tui %s, vftr-stats %s" % (fn, got, want))
    if rows == 0:
        print("FAIL: %s: no profile rows on the screen" % name)
        return 1
    if bad:
        print("FAIL: %s: %s" % (name, "; ".join(bad[:3])))
        return 1
    print("PASS: %s (%d rows)" % (name, rows))
    return 0


def main(argv):
    if len(argv) < 3:
        raise SystemExit(__doc__)
    if argv[1] == "csv":
        write_prof(parse_csv(argv[2]))
        return 0
    if argv[1] == "compare":
        name, a, b = argv[2], read_prof(argv[3]), read_prof(argv[4])
        opts = argv[5:]
        if opts[0] == "--exact":
            return compare(name, a, b, "exact", {"events": int(opts[1]),
                                                 "rate": float(opts[2]) if len(opts) > 2 else 0.0})
        if opts[0] == "--sampled":
            return compare(name, a, b, "sampled",
                           {"interval": float(opts[1]), "span": float(opts[2])})
        if opts[0] == "--same":
            return compare(name, a, b, "same", {})
        raise SystemExit("compare: --exact, --sampled or --same")
    if argv[1] == "tui":
        return tui(argv[2], argv[3], argv[4])
    if argv[1] == "counts":
        return counts(argv[2], argv[3], read_prof(argv[4]), argv[5:])
    raise SystemExit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
