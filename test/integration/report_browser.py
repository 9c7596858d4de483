#!/usr/bin/env python3
"""report_browser.py CHROMIUM PAGE.html SHOTDIR NAME -- loads a vftr-report
page in headless Chromium and checks it as a user would use it.

Chromium is driven through the DevTools protocol over a pipe
(--remote-debugging-pipe: commands on fd 3, replies on fd 4, NUL-separated
JSON), so no port is opened and no package beyond Debian's chromium is
needed.  Checks, each printed as "PASS: NAME: ..." or "FAIL: NAME: ...":
  - every section is there (summary, timeline, profile, call tree,
    imbalance, communication), with the timeline drawn;
  - the page asks for nothing but itself (no network, no other file);
  - a click on a column header sorts the profile table by that column
    (descending, again ascending; names ascending), times shown with their
    units ("4.00 ms", "1.20 s") in the order of their values and the
    imbalance as a percentage; the filter hides the rows that do not
    match;
  - zooming in halves the visible range, panning moves it, "whole run"
    restores it; hovering the timeline names a process and a function;
  - no console error and no uncaught exception.
Screenshots of the page (top, zoomed timeline, call tree, imbalance,
communication) go to SHOTDIR/NAME-*.png.
Exit status 1 when a check failed."""
import base64
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

failures = 0


def result(ok, what):
    global failures
    print('%s: %s: %s' % ('PASS' if ok else 'FAIL', NAME, what))
    if not ok:
        failures += 1


class Browser:
    def __init__(self, chromium, profile):
        cmd_r, cmd_w = os.pipe()
        res_r, res_w = os.pipe()

        def child():
            # dup2 onto itself keeps close-on-exec (pipes are made with it)
            for fd, want in ((cmd_r, 3), (res_w, 4)):
                if fd != want:
                    os.dup2(fd, want)
                os.set_inheritable(want, True)
        self.proc = subprocess.Popen(
            [chromium, '--headless=new', '--no-sandbox', '--disable-gpu', '--hide-scrollbars',
             '--no-first-run', '--no-default-browser-check', '--disable-extensions',
             '--remote-debugging-pipe', '--user-data-dir=' + profile, 'about:blank'],
            preexec_fn=child, close_fds=False, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(cmd_r)
        os.close(res_w)
        self.w, self.r = cmd_w, res_r
        self.buf = b''
        self.next_id = 0
        self.events = []
        self.session = None

    def _read(self, deadline):
        while b'\0' not in self.buf:
            left = deadline - time.time()
            if left <= 0 or not select.select([self.r], [], [], left)[0]:
                raise TimeoutError('no answer from chromium')
            chunk = os.read(self.r, 1 << 16)
            if not chunk:
                raise EOFError('chromium closed the pipe')
            self.buf += chunk
        msg, self.buf = self.buf.split(b'\0', 1)
        return json.loads(msg)

    def send(self, method, params=None, session=True, timeout=20):
        self.next_id += 1
        m = {'id': self.next_id, 'method': method, 'params': params or {}}
        if session and self.session:
            m['sessionId'] = self.session
        os.write(self.w, json.dumps(m).encode() + b'\0')
        deadline = time.time() + timeout
        while True:
            x = self._read(deadline)
            if x.get('id') == self.next_id:
                if 'error' in x:
                    raise RuntimeError('%s: %s' % (method, x['error']))
                return x.get('result', {})
            self.events.append(x)

    def wait_event(self, method, timeout=20):
        deadline = time.time() + timeout
        while True:
            for i, e in enumerate(self.events):
                if e.get('method') == method:
                    return self.events.pop(i)
            self.events.append(self._read(deadline))

    def eval(self, expr):
        r = self.send('Runtime.evaluate', {'expression': expr, 'returnByValue': True,
                                           'awaitPromise': True})
        if 'exceptionDetails' in r:
            raise RuntimeError('script failed: %s' % json.dumps(r['exceptionDetails'])[:400])
        return r['result'].get('value')

    def screenshot(self, path):
        r = self.send('Page.captureScreenshot', {'format': 'png'})
        with open(path, 'wb') as f:
            f.write(base64.b64decode(r['data']))

    def close(self):
        try:
            self.send('Browser.close', session=False, timeout=5)
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


SECTIONS = ['summary', 'waits', 'timeline', 'profile', 'calltree', 'imbalance', 'communication']

# The profile table's column values, numbers as the script reads them (a
# figure's cell keeps it in data-v, shown with its unit).
COLUMN = '''(function (key) {
  var t = document.getElementById('profile-table'), col = -1;
  Array.prototype.forEach.call(t.tHead.rows[0].cells, function (th, i) {
    if (th.getAttribute('data-key') === key) col = i; });
  return Array.prototype.map.call(t.tBodies[0].rows, function (tr) {
    var s = tr.cells[col].getAttribute('data-v');
    if (s === null) s = tr.cells[col].textContent;
    return key === 'function' ? s : (s === '-' ? null : parseFloat(s)); });
})'''
# ... and the texts it shows.
SHOWN = '''(function (key) {
  var t = document.getElementById('profile-table'), col = -1;
  Array.prototype.forEach.call(t.tHead.rows[0].cells, function (th, i) {
    if (th.getAttribute('data-key') === key) col = i; });
  return Array.prototype.map.call(t.tBodies[0].rows, function (tr) {
    return tr.cells[col].textContent; });
})'''
UNITS = {'s': 1.0, 'ms': 1e-3, 'us': 1e-6, 'ns': 1e-9}


def seconds(text):
    """A time as the page shows it ("4.00 ms") in seconds; None for "-"
    or a text without a unit."""
    parts = text.split()
    if len(parts) != 2 or parts[1] not in UNITS:
        return None
    return float(parts[0]) * UNITS[parts[1]]
CLICK = '''(function (key) {
  document.querySelector('#profile-table th[data-key="' + key + '"] button').click();
  return document.querySelector('#profile-table th[data-key="' + key + '"]').getAttribute('aria-sort');
})'''
RANGE = '''(function () { var e = document.getElementById('tl-range');
  return [parseFloat(e.getAttribute('data-t0')), parseFloat(e.getAttribute('data-t1'))]; })()'''


def ordered(v, desc):
    v = [x for x in v if x is not None]
    return all((a >= b) if desc else (a <= b) for a, b in zip(v, v[1:]))


def main():
    global NAME
    chromium, page, shots, NAME = sys.argv[1:5]
    os.makedirs(shots, exist_ok=True)
    profile = tempfile.mkdtemp(prefix='vftr_chromium.')
    url = 'file://' + os.path.abspath(page)
    b = Browser(chromium, profile)
    try:
        tid = b.send('Target.createTarget', {'url': 'about:blank'})['targetId']
        b.session = b.send('Target.attachToTarget', {'targetId': tid, 'flatten': True})['sessionId']
        for m in ('Page.enable', 'Runtime.enable', 'Log.enable', 'Network.enable'):
            b.send(m)
        b.send('Emulation.setDeviceMetricsOverride', {'width': 1300, 'height': 1000,
                                                      'deviceScaleFactor': 1, 'mobile': False})
        b.send('Page.navigate', {'url': url})
        b.wait_event('Page.loadEventFired')

        have = b.eval('[%s].map(function (id) { var s = document.getElementById(id); '
                      'return !!(s && s.tagName === "SECTION" && s.querySelector("h2")); })'
                      % ','.join('"%s"' % s for s in SECTIONS))
        result(all(have), 'every section is there (%s)' % ', '.join(
            s + ('' if ok else ' MISSING') for s, ok in zip(SECTIONS, have)))
        drawn = b.eval('(function () { var c = document.getElementById("tl-canvas"); '
                       'if (!c) return 0; var d = c.getContext("2d").getImageData(0, 0, c.width, '
                       'c.height).data, n = 0; for (var i = 0; i < d.length; i += 4) '
                       'if (d[i] !== 255 || d[i + 1] !== 255 || d[i + 2] !== 255) n++; '
                       'return n; })()')
        result(drawn > 1000, 'the timeline is drawn (%d coloured pixels)' % drawn)
        b.screenshot(os.path.join(shots, NAME + '-top.png'))

        urls = sorted(set(e['params']['request']['url'] for e in b.events
                          if e.get('method') == 'Network.requestWillBeSent'))
        result(urls == [url], 'the page requests nothing but itself (%s)' % ', '.join(urls))

        n = len(b.eval(COLUMN + '("calls")'))
        s1 = b.eval(CLICK + '("calls")')
        v1 = b.eval(COLUMN + '("calls")')
        s2 = b.eval(CLICK + '("calls")')
        v2 = b.eval(COLUMN + '("calls")')
        s3 = b.eval(CLICK + '("function")')
        v3 = b.eval(COLUMN + '("function")')
        result(n > 1 and s1 == 'descending' and ordered(v1, True) and s2 == 'ascending' and
               ordered(v2, False) and s3 == 'ascending' and v3 == sorted(v3) and
               len(v1) == len(v2) == len(v3) == n and v1 != v2,
               'a click sorts the profile: calls %s then %s, names %s (%d rows)' % (s1, s2, s3, n))

        # times are shown with their unit (4.00 ms, 1.20 s) but sort by value:
        # the order of the texts read back as seconds is the order of the values
        s4 = b.eval(CLICK + '("excl")')
        v4 = b.eval(COLUMN + '("excl")')
        t4 = b.eval(SHOWN + '("excl")')
        secs = [seconds(t) for t in t4]
        units = sorted(set(t.split()[-1] for t in t4 if t != '-'))
        result(s4 == 'descending' and ordered(v4, True) and None not in secs and
               ordered(secs, True) and
               all(abs(a - b) <= 0.005 * b + 1e-9 for a, b in zip(secs, v4)),
               'a click sorts the profile by exclusive time (%s), shown with units (%s), in '
               'the order of the values (%d rows: %s)' % (s4, ', '.join(units), len(v4), ', '.join(
                   '%s = %s' % (t, v) for t, v in list(zip(t4, v4))[:4])))
        s5 = b.eval(CLICK + '("imbalance")')
        t5 = b.eval(SHOWN + '("imbalance")')
        v5 = b.eval(COLUMN + '("imbalance")')
        result(s5 == 'descending' and ordered(v5, True) and
               all(t.endswith('%') and abs(float(t[:-1]) - 100 * v) <= 0.06
                   for t, v in zip(t5, v5)),
               'the imbalance is shown as a percentage and sorts by its value (%s ...)'
               % ', '.join(t5[:3]))

        shown = b.eval('(function () { var i = document.getElementById("profile-filter"); '
                       'i.value = "^MPI_"; i.dispatchEvent(new Event("input")); '
                       'return Array.prototype.filter.call(document.querySelectorAll('
                       '"#profile-table tbody tr"), function (tr) { return '
                       'getComputedStyle(tr).display !== "none"; }).map(function (tr) { '
                       'return tr.cells[tr.cells.length - 1].textContent; }); })()')
        b.eval('(function () { var i = document.getElementById("profile-filter"); i.value = ""; '
               'i.dispatchEvent(new Event("input")); })()')
        result(0 < len(shown) < n and all(x.startswith('MPI_') for x in shown),
               'the filter ^MPI_ keeps %d of %d rows, all MPI_' % (len(shown), n))

        r0 = b.eval(RANGE)
        b.eval('document.getElementById("tl-zoom-in").click()')
        r1 = b.eval(RANGE)
        b.eval('document.getElementById("tl-right").click()')
        r2 = b.eval(RANGE)
        b.eval('document.getElementById("tl-zoom-in").click(); '
               'document.getElementById("tl-zoom-in").click()')
        b.eval('document.getElementById("timeline").scrollIntoView()')
        b.screenshot(os.path.join(shots, NAME + '-zoomed.png'))
        b.eval('document.getElementById("tl-reset").click()')
        r3 = b.eval(RANGE)
        w0, w1 = r0[1] - r0[0], r1[1] - r1[0]
        result(abs(w1 - w0 / 2) <= 1e-6 * w0 and r2[0] > r1[0] and
               abs((r2[1] - r2[0]) - w1) <= 1e-6 * w0 and r3 == r0,
               'zoom halves the visible range (%.6g s -> %.6g s), pan moves it (start %.6g s -> '
               '%.6g s), whole run restores it' % (w0, w1, r1[0], r2[0]))

        tipped = b.eval('(function () { var c = document.getElementById("tl-canvas"), '
                        'r = c.getBoundingClientRect(); c.dispatchEvent(new PointerEvent('
                        '"pointermove", {clientX: r.left + 130 + (r.width - 130) * 0.6, '
                        'clientY: r.top + 22 + 4, bubbles: true})); var t = '
                        'document.getElementById("tl-tip"); return t.hidden ? "" : t.textContent; })()')
        result(tipped.startswith('rank 0') and ': ' in tipped,
               'hovering the timeline names the process and function ("%s")' % tipped)

        for sec in ('calltree', 'imbalance', 'communication'):
            b.eval('document.getElementById("%s").scrollIntoView()' % sec)
            b.screenshot(os.path.join(shots, '%s-%s.png' % (NAME, sec)))

        b.send('Runtime.evaluate', {'expression': '0'})      # flush pending events
        errors = [e for e in b.events if
                  e.get('method') == 'Runtime.exceptionThrown' or
                  (e.get('method') == 'Runtime.consoleAPICalled' and
                   e['params'].get('type') in ('error', 'assert')) or
                  (e.get('method') == 'Log.entryAdded' and
                   e['params']['entry'].get('level') == 'error')]
        result(not errors, 'no console error (%s)' % (json.dumps(errors)[:300] if errors else 'none'))
    except (RuntimeError, TimeoutError, EOFError, OSError) as e:
        result(False, 'the browser session failed: %s' % e)
    finally:
        b.close()
        shutil.rmtree(profile, ignore_errors=True)
    sys.exit(1 if failures else 0)


NAME = 'page'
main()
