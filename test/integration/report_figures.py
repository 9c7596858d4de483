#!/usr/bin/env python3
"""report_figures.py PAGE STATS [STATS_ARGS...] -- compares the figures a
vftr-report page shows with what vftr-stats prints for the same trace.

Runs STATS --json, --groups --json, --callpath --json, --messages --json and
--waits --json (each with STATS_ARGS, which end with the trace), reads the
page's tables (the profile, the function groups, the call tree, the message
pairs, the collectives, the counts, the largest waits) with Python's HTML parser, and compares them cell
by cell as text.  A cell shows a figure for people ("4.00 ms", "37.5%") and
keeps the figure itself in its data-v attribute (every digit it has; "-"
where vftr-stats's JSON has null): that attribute, formatted as vftr-stats
--json formats the column ("%.6f" seconds, "%.2f" percent, "%.4f" ratios,
whole counts), is what is compared, the text where a cell has none (counts
and names, shown as they are).  Every cell with a data-v must also show a
text that is not empty.  Prints one "PASS: ..." or "FAIL: ..." line
per comparison; exit status 1 when one failed."""
import html.parser
import json
import subprocess
import sys


class Page(html.parser.HTMLParser):
    """Tables by id (rows of cell texts), the call tree's rows, and the
    attributes of elements with an id."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.attrs = {}, {}
        self.table = None       # id of the table being read
        self.row = None
        self.cell = None
        self.in_head = False
        self.tree = []          # [depth, calls, excl, incl, name]
        self.tree_row = None
        self.tree_span = None
        self.exact = None       # data-v of the cell or span being read
        self.blank = 0          # cells with a data-v that show nothing

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if 'id' in a:
            self.attrs[a['id']] = a
        if tag == 'table' and 'id' in a:
            self.table = a['id']
            self.tables[self.table] = []
        elif tag == 'thead':
            self.in_head = True
        elif tag == 'tr' and self.table and not self.in_head:
            self.row = []
        elif tag == 'td' and self.row is not None:
            self.cell = ''
            self.exact = a.get('data-v')
        elif tag == 'li' and 'data-depth' in a:
            self.tree_row = [int(a['data-depth'])]
        elif tag == 'span' and self.tree_row is not None and a.get('class') in ('c', 'n'):
            self.tree_span = ''
            self.exact = a.get('data-v')

    def handle_endtag(self, tag):
        if tag == 'table':
            self.table = None
        elif tag == 'thead':
            self.in_head = False
        elif tag == 'tr' and self.row is not None:
            self.tables[self.table].append(self.row)
            self.row = None
        elif tag == 'td' and self.cell is not None:
            self.row.append(self.value(self.cell))
            self.cell = None
        elif tag == 'span' and self.tree_span is not None:
            self.tree_row.append(self.value(self.tree_span))
            self.tree_span = None
            if len(self.tree_row) == 5:
                self.tree.append(self.tree_row)
                self.tree_row = None

    def value(self, shown):
        """A cell's figure: its data-v, else its text."""
        if self.exact is None:
            return shown
        if not shown.strip():
            self.blank += 1
        return self.exact

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data
        if self.tree_span is not None:
            self.tree_span += data


failures = 0


def check(what, want, got):
    global failures
    if want == got:
        print('PASS: %s (%d rows)' % (what, len(want)) if isinstance(want, list)
              else 'PASS: %s' % what)
        return
    failures += 1
    print('FAIL: %s' % what)
    if isinstance(want, list) and isinstance(got, list):
        print('    rows: vftr-stats %d, page %d' % (len(want), len(got)))
        for w, g in zip(want, got):
            if w != g:
                print('    first difference: vftr-stats %r, page %r' % (w, g))
                break
    else:
        print('    vftr-stats %r, page %r' % (want, got))


def stats(cmd, *extra):
    out = subprocess.run(cmd[:1] + list(extra) + ['--json'] + cmd[1:], check=True,
                         stdout=subprocess.PIPE).stdout
    return json.loads(out)


def text(v, fmt=None):
    if v is None:
        return '-'
    if fmt == 'int':
        return '%d' % v
    return fmt % v if fmt else str(v)


KEYS = ['calls', 'excl', 'excl_pct', 'incl', 'incl_pct', 'per_call', 'min', 'avg', 'max',
        'imbalance', 'procs', 'function']
FMT = {'calls': 'int', 'procs': 'int', 'excl_pct': '%.2f', 'incl_pct': '%.2f',
       'imbalance': '%.4f', 'function': None}


def as_json(cells, fmts):
    """A page row's figures formatted as vftr-stats --json formats its
    columns (fmts: one format per cell, None to keep the cell)."""
    return [c if f is None or c == '-' else text(float(c), f) for c, f in zip(cells, fmts)]


PAGE_FMT = [FMT.get(k, '%.6f') for k in KEYS]


def profile_rows(js):
    """vftr-stats --json's rows as the page shows them (JSON numbers lose
    trailing zeros: format again as vftr-stats formats them)."""
    rows = []
    for f in js['functions']:
        rows.append([text(f[k], FMT.get(k, '%.6f')) for k in KEYS])
    return sorted(rows, key=lambda r: (r[-1], r))


def main():
    page_path, cmd = sys.argv[1], sys.argv[2:]
    p = Page()
    with open(page_path, encoding='utf-8') as f:
        p.feed(f.read())

    prof = stats(cmd)
    check('profile table = vftr-stats --json', profile_rows(prof),
          sorted([as_json(r, PAGE_FMT) for r in p.tables.get('profile-table', [])],
                 key=lambda r: (r[-1], r)))
    total = page_total(page_path)
    check('total exclusive time = vftr-stats total_s', '%.9g' % prof['total_s'],
          '%.9g' % float(total) if total else None)

    groups = stats(cmd, '--groups')
    check('function groups table = vftr-stats --groups --json', profile_rows(groups),
          sorted([as_json(r, PAGE_FMT) for r in p.tables.get('groups-table', [])],
                 key=lambda r: (r[-1], r)))

    paths = stats(cmd, '--callpath')
    want = [[str(x['depth']), text(x['calls'], 'int'), '%.6f' % x['excl'], '%.6f' % x['incl'],
             x['function']] for x in paths['paths']]
    got = [[str(t[0])] + as_json(t[1:], [None, '%.6f', '%.6f', None]) for t in p.tree]
    tree = p.attrs.get('tree', {})
    if tree.get('data-paths') == tree.get('data-listed'):
        check('call tree = vftr-stats --callpath --json (same order)', want, got)
    else:
        # the heaviest paths only: in vftr-stats's order, each with its caller
        it = iter(want)
        sub = all(any(g == w for w in it) for g in got)
        check('call tree: %s of %s paths, in vftr-stats --callpath --json\'s order'
              % (tree.get('data-listed'), tree.get('data-paths')), True,
              sub and str(len(want)) == tree.get('data-paths') and
              len(got) == int(tree.get('data-listed', -1)))

    msgs = stats(cmd, '--messages')
    want = [[str(x['sender']), str(x['receiver']), str(x['messages']), str(x['bytes']),
             str(x['matched']), '%.6f' % x['transfer']] for x in msgs['pairs']]
    check('message pairs = vftr-stats --messages --json', want,
          [as_json(r, [None] * 5 + ['%.6f']) for r in p.tables.get('pairs-table', [])])
    want = sorted([[x['operation'], str(x['count']), str(x['bytes']), '%.6f' % x['time']]
                   for x in msgs['collectives']])
    check('collectives = vftr-stats --messages --json', want,
          sorted(as_json(r, [None, None, None, '%.6f'])
                 for r in p.tables.get('collectives-table', [])))
    c = p.attrs.get('msg-counts', {})
    want = [msgs['sends'], msgs['recvs'], msgs['matched'], msgs['unmatched_sends'],
            msgs['unmatched_recvs'], msgs['recvs_sent_before']]
    got = [int(c.get('data-' + k, -1)) for k in ('sends', 'recvs', 'matched', 'unmatched-sends',
                                                  'unmatched-recvs', 'recvs-sent-before')]
    check('message counts = vftr-stats --messages --json', want, got)

    # the largest waits: the page lists vftr-stats --waits's first rows (its
    # order, its formats); no section when the trace has no synchronisation,
    # and then vftr-stats finds no wait either
    total, table = p.attrs.get('wait-total'), p.attrs.get('waits-table', {})
    listed = int(table.get('data-listed', 0))
    waits = stats(cmd, '--waits')
    want = [[x['pattern'], '%.6f' % x['time'], '%.2f' % x['pct'], text(x['count'], 'int'),
             '%.6f' % x['max'], text(x['process'], 'int'), x['callpath']] for x in waits['waits']]
    if total is None:
        check('no waits section: vftr-stats --waits --json finds no wait either', [],
              want + (['waits-table'] if 'waits-table' in p.tables else []))
    else:
        check('wait totals = vftr-stats --waits --json (wait_s, process_time_s)',
              ['%.9g' % waits['wait_s'], '%.9g' % waits['process_time_s']],
              [total.get('data-wait-s'), total.get('data-process-time-s')])
        check('largest waits = vftr-stats --waits --json\'s first %d rows (same order)' % listed,
              want[:listed], [as_json(r, [None, '%.6f', '%.2f', None, '%.6f', None, None])
                              for r in p.tables.get('waits-table', [])])
        check('waits table: rows in all = vftr-stats --waits --json\'s', len(want),
              int(table.get('data-rows', 0)))
    check('every figure with a data-v shows a text', 0, p.blank)
    sys.exit(1 if failures else 0)


def page_total(path):
    """The summary's total exclusive time (its cell's data-v)."""
    class T(html.parser.HTMLParser):
        def __init__(self):
            super().__init__()
            self.inrow, self.value = False, None

        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            if tag == 'tr' and a.get('data-key') == 'total':
                self.inrow = True
            elif tag == 'td' and self.inrow:
                self.value = a.get('data-v')

        def handle_endtag(self, tag):
            if tag == 'tr':
                self.inrow = False
    t = T()
    with open(path, encoding='utf-8') as f:
        t.feed(f.read())
    return t.value


main()
