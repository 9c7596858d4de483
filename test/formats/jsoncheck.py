#!/usr/bin/python3
"""jsoncheck.py TRACE.json — checks a Chrome trace-event JSON vftr wrote as
a viewer needs it: it parses (json module), every B has its E on the same
thread in nesting order with the same name, timestamps never go back per
thread, every flow finish ("f") follows its start ("s") with the same id,
async collectives ("b"/"e") pair by id, every thread named.  Prints "begins
B ends E flows F asyncs A counters C", exit 1 with the first problem.
"""
import json
import sys

path = sys.argv[1]
with open(path) as f:
    doc = json.load(f)
ev = doc["traceEvents"]
named = set()
stacks, last, flows, asyncs = {}, {}, {}, {}
n = {"B": 0, "E": 0, "f": 0, "b": 0, "C": 0}


def fail(msg):
    print("jsoncheck: %s: %s" % (path, msg))
    sys.exit(1)


for e in ev:
    ph, key = e["ph"], (e["pid"], e["tid"])
    if ph == "M":
        if e["name"] == "thread_name":
            named.add(key)
        continue
    if key not in named:
        fail("an event on thread %s, which has no name" % (key,))
    ts = float(e["ts"])
    if ts < last.get(key, 0):
        fail("time goes back on thread %s at %s" % (key, ts))
    last[key] = ts
    if ph == "B":
        stacks.setdefault(key, []).append(e["name"])
    elif ph == "E":
        st = stacks.get(key)
        if not st or st[-1] != e["name"]:
            fail("E %r on %s does not close %r" % (e["name"], key, st[-1] if st else None))
        st.pop()
    elif ph == "s":
        flows[e["id"]] = ts
    elif ph == "f":
        if e["id"] not in flows or flows[e["id"]] > ts:
            fail("flow %s ends before it starts" % e["id"])
        del flows[e["id"]]
    elif ph == "b":
        asyncs[e["id"]] = ts
    elif ph == "e":
        if e["id"] not in asyncs:
            fail("async end %s without begin" % e["id"])
        del asyncs[e["id"]]
    if ph in n:
        n[ph] += 1
print("begins %d ends %d flows %d asyncs %d counters %d" % (n["B"], n["E"], n["f"], n["b"],
                                                             n["C"]))
