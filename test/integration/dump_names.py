#!/usr/bin/env python3
"""dump_names.py OTFPRINT_OUT NAMED RAW -- checks vftr-dump's names against
the definitions the reference otfprint prints (independent of vftr's reader
and printer).

NAMED is vftr-dump's readable output of a trace, RAW its --raw output,
OTFPRINT_OUT the reference otfprint's output of the same trace.  Checks:
  - every "field=N (NAME)" of NAMED names what otfprint's definition N of
    the field's kind names (a source location: "file:line");
  - every field that refers to a definition otfprint lists carries its name;
  - NAMED without the names is RAW, line for line; RAW has no names.
Prints PASS/FAIL lines; exit status 1 when one failed."""
import re
import sys

# Which fields refer to which kind of definition (vftr-dump(1)).
KIND = {'function': 'function', 'funcGroup': 'funcgroup', 'process': 'process',
        'sender': 'process', 'receiver': 'process', 'recvProc': 'process',
        'sendProc': 'process', 'rootProc': 'process', 'parent': 'process',
        'origin': 'process', 'target': 'process', 'remote': 'process', 'peer': 'process',
        'group': 'procgroup', 'procGroup': 'procgroup', 'comm': 'procgroup',
        'communicator': 'procgroup', 'counter': 'counter', 'counterGroup': 'countergroup',
        'collective': 'collop', 'collOp': 'collop', 'sourceFile': 'sclfile',
        'source': 'scl', 'scltoken': 'scl', 'fileid': 'file', 'groupid': 'filegroup'}
# A definition's own id is no reference.
OWN = {('DefProcess', 'process'), ('DefFile', 'token'), ('DefFileGroup', 'token'),
       ('DefMarker', 'token'), ('DefProcessGroup', 'procGroup'),
       ('DefFunctionGroup', 'funcGroup'), ('DefCounter', 'counter'),
       ('DefCounterGroup', 'counterGroup'), ('DefCollectiveOperation', 'collOp'),
       ('DefSclFile', 'sourceFile'), ('DefScl', 'source')}

DEFS = [
    ('process', r'DefProcess: stream \d+, process (\d+), name "(.*)", parent'),
    ('procgroup', r'DefProcessGroup: stream \d+, group (\d+), name "(.*)", procs'),
    ('funcgroup', r'DefFunctionGroup: stream \d+, group (\d+), name "(.*)"$'),
    ('function', r'DefFunction: stream \d+, function (\d+), name "(.*)", group'),
    ('countergroup', r'DefCounterGroup: stream \d+, group (\d+), name "(.*)"$'),
    ('counter', r'DefCounter: stream \d+, counter (\d+), name "(.*)", properties'),
    ('collop', r'DefCollective: stream \d+, collective (\d+), name "(.*)", type'),
    ('sclfile', r'DefSclFile: stream \d+, file (\d+), name "(.*)"$'),
    ('marker', r'DefMarker: ID (\d+), name "(.*)", type'),
]

failures = 0


def result(ok, what):
    global failures
    print('%s: %s' % ('PASS' if ok else 'FAIL', what))
    failures += not ok


def main():
    ref, named, raw = (open(f, encoding='utf-8', errors='replace').read().splitlines()
                       for f in sys.argv[1:4])
    names = {}
    scl = []
    for line in ref:
        body = re.sub(r'^\(#\d+\)\s*', '', line).strip()
        for kind, rx in DEFS:
            m = re.match(rx, body)
            if m:
                names[(kind, int(m.group(1)))] = m.group(2)
        m = re.match(r'DefFile(Group)?: (.*?), (?:stream \d+, )?token (\d+)', body)
        if m:
            names[('filegroup' if m.group(1) else 'file', int(m.group(3)))] = m.group(2)
        m = re.match(r'DefScl: stream \d+, source (\d+), file (\d+), line (\d+)$', body)
        if m:
            scl.append(m.groups())
    for s, f, ln in scl:
        names[('scl', int(s))] = '%s:%s' % (names.get(('sclfile', int(f)), '?'), ln)
    result(len(names) > 5, 'otfprint lists %d named definitions' % len(names))

    checked, kinds, wrong, missing = 0, set(), [], []
    field = re.compile(r' (\w+)=(\d+)( \(([^()]*)\))?')
    for line in named:
        rec = line.split()[0] if line[:1].isalpha() else (line.split() + ['', '', ''])[2]
        quoted = re.sub(r'"[^"]*"', '""', line)        # no fields inside strings
        for m in field.finditer(quoted):
            key, n, name = m.group(1), int(m.group(2)), m.group(4)
            if rec == 'Marker' and key == 'token':
                kind = 'marker'
            elif rec == 'DefFile' and key == 'group':
                kind = 'filegroup'
            else:
                kind = KIND.get(key)
            if not kind or (rec, key) in OWN:
                continue
            want = names.get((kind, n))
            if want is None:
                if name is not None:
                    wrong.append((line, key, None, name))
                continue
            if name is None:
                missing.append((line, key))
                continue
            checked += 1
            kinds.add(kind)
            if name != want:
                wrong.append((line, key, want, name))
    result(checked > 0 and not wrong,
           'every name after an id is otfprint\'s definition (%d references, kinds %s)%s'
           % (checked, ', '.join(sorted(kinds)), '' if not wrong else ': first %r' % (wrong[0],)))
    result(not missing, 'every reference to a defined id is named%s'
           % ('' if not missing else ' (%d are not; first %r)' % (len(missing), missing[0])))
    stripped = [re.sub(r'( \w+=\d+) \([^()]*\)', r'\1', re.sub(r'"[^"]*"', '""', l))
                for l in named]
    rawq = [re.sub(r'"[^"]*"', '""', l) for l in raw]
    result(stripped == rawq, 'without the names the lines are --raw\'s (%d lines)' % len(raw))
    result(not any(re.search(r'=\d+ \(', l) for l in rawq), '--raw prints no names')
    return 1 if failures else 0


sys.exit(main())
