/* vftr-report's page script: sorts and filters the tables, draws the
 * timeline from its JSON block with zoom, pan and tooltips.  Plain ES5-ish
 * code, no library, nothing fetched.  The tables and charts are in the HTML
 * already: without this script the page still reads, only unsorted and
 * without the timeline. */
(function () {
  'use strict';

  /* ---------------------------------------------------------- tables */

  /* A number's cell shows it with its unit ("4.00 ms") and keeps it in
   * data-v in seconds (or percent, ratio): sorting reads that. */
  function cellValue(td, numeric) {
    if (!numeric) return td.textContent;
    var t = td.getAttribute('data-v');
    var v = parseFloat(t === null ? td.textContent : t);
    return isNaN(v) ? -Infinity : v;           /* "-": unknown, sorts last */
  }

  function sortTable(table, col, numeric, th) {
    var tbody = table.tBodies[0];
    var cur = th.getAttribute('aria-sort');
    /* numbers descend first, names ascend first (vftr-stats's defaults) */
    var desc = cur ? cur === 'ascending' : numeric;
    var rows = Array.prototype.slice.call(tbody.rows);
    var keyed = rows.map(function (tr, i) {
      return { tr: tr, v: cellValue(tr.cells[col], numeric), i: i };
    });
    keyed.sort(function (a, b) {
      var d;
      if (numeric) d = a.v < b.v ? -1 : a.v > b.v ? 1 : 0;
      else d = a.v < b.v ? -1 : a.v > b.v ? 1 : 0;
      if (desc) d = -d;
      return d || a.i - b.i;                  /* stable */
    });
    var frag = document.createDocumentFragment();
    keyed.forEach(function (k) { frag.appendChild(k.tr); });
    tbody.appendChild(frag);
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (h) {
      h.removeAttribute('aria-sort');
    });
    th.setAttribute('aria-sort', desc ? 'descending' : 'ascending');
  }

  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
    if (!table.tHead) return;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, col) {
      var b = th.querySelector('button') || th;
      b.addEventListener('click', function () {
        sortTable(table, col, th.getAttribute('data-type') === 'num', th);
      });
    });
  });

  Array.prototype.forEach.call(document.querySelectorAll('input[data-table]'), function (input) {
    var table = document.getElementById(input.getAttribute('data-table'));
    var count = document.getElementById(input.getAttribute('data-table').replace('-table', '-count'));
    if (!table) return;
    var col = 0;
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      if (th.getAttribute('data-type') === 'text') col = i;
    });
    function apply() {
      var re = null, shown = 0, rows = table.tBodies[0].rows;
      try { re = new RegExp(input.value, 'i'); input.removeAttribute('aria-invalid'); }
      catch (e) { input.setAttribute('aria-invalid', 'true'); return; }
      for (var i = 0; i < rows.length; i++) {
        var hit = re.test(rows[i].cells[col].textContent);
        rows[i].classList.toggle('hidden', !hit);
        if (hit) shown++;
      }
      if (count) count.textContent = shown + ' of ' + rows.length + ' shown';
    }
    input.addEventListener('input', apply);
    apply();
  });

  /* ---------------------------------------------------------- timeline */

  var dataEl = document.getElementById('vftr-timeline');
  var canvas = document.getElementById('tl-canvas');
  if (!dataEl || !canvas || !canvas.getContext) return;
  var D = JSON.parse(dataEl.textContent);
  var ctx = canvas.getContext('2d');
  var tip = document.getElementById('tl-tip');
  var rangeEl = document.getElementById('tl-range');
  var GUTTER = 130, AXIS = 22;
  var nrows = D.rows.length;
  var rowH = Math.max(3, Math.min(16, Math.floor(520 / Math.max(1, nrows))));
  var span = D.t1 - D.t0;
  var view = { a: 0, b: 1 };                  /* visible fraction of the span */
  var finest = D.levels.length ? D.levels[D.levels.length - 1].n : 1;
  var minWidth = Math.min(1, 4 / finest);     /* at most four finest bins across */

  /* run starts per level and row, for the tooltip's lookup */
  D.levels.forEach(function (L) {
    L.starts = L.runs.map(function (runs) {
      var s = [], pos = 0;
      for (var j = 0; j < runs.length; j += 2) { s.push(pos); pos += runs[j]; }
      return s;
    });
  });

  function colourOf(f) {
    var fn = D.funcs[f];
    if (!fn) return null;
    var g = D.groups[fn[1]];
    return g ? g[1] : '#999999';
  }

  function fmtTime(s) {
    var a = Math.abs(s);
    if (a === 0) return '0 s';
    if (a >= 1) return s.toFixed(a >= 100 ? 1 : 3) + ' s';
    if (a >= 1e-3) return (s * 1e3).toFixed(3) + ' ms';
    if (a >= 1e-6) return (s * 1e6).toFixed(3) + ' us';
    return (s * 1e9).toFixed(0) + ' ns';
  }
  function secondsAt(frac) { return ((D.t0 - D.first) + frac * span) / D.res; }

  function plotWidth() { return Math.max(10, canvas.clientWidth - GUTTER); }

  /* the coarsest level whose bins are no wider than a pixel in view */
  function pickLevel() {
    var px = plotWidth();
    for (var i = 0; i < D.levels.length; i++)
      if (D.levels[i].n * (view.b - view.a) >= px) return i;
    return D.levels.length - 1;
  }

  function draw() {
    var dpr = window.devicePixelRatio || 1;
    var cssW = canvas.clientWidth || 800, cssH = AXIS + rowH * nrows + 4;
    canvas.style.height = cssH + 'px';
    canvas.width = Math.round(cssW * dpr);
    canvas.height = Math.round(cssH * dpr);
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, cssW, cssH);
    var pw = cssW - GUTTER, li = pickLevel(), L = D.levels[li];
    var a = view.a, w = view.b - view.a;
    ctx.font = '11px sans-serif';
    ctx.textBaseline = 'middle';
    for (var i = 0; i < nrows; i++) {
      var y = AXIS + i * rowH, runs = L.runs[i], pos = 0;
      if (rowH >= 9) {
        ctx.fillStyle = '#1a1a1a';
        ctx.textAlign = 'right';
        ctx.fillText(D.rows[i], GUTTER - 6, y + rowH / 2);
      }
      for (var j = 0; j < runs.length; j += 2) {
        var len = runs[j], f = runs[j + 1], s = pos / L.n, e = (pos + len) / L.n;
        pos += len;
        if (!f || e <= a || s >= view.b) continue;
        var x0 = GUTTER + (Math.max(s, a) - a) / w * pw;
        var x1 = GUTTER + (Math.min(e, view.b) - a) / w * pw;
        ctx.fillStyle = colourOf(f);
        ctx.fillRect(x0, y, Math.max(x1 - x0, 0.75), rowH > 3 ? rowH - 1 : rowH);
      }
    }
    /* time axis */
    ctx.fillStyle = '#1a1a1a';
    ctx.strokeStyle = '#bbbbbb';
    for (var k = 0; k <= 5; k++) {
      var x = GUTTER + k / 5 * pw;
      ctx.textAlign = k === 0 ? 'left' : k === 5 ? 'right' : 'center';
      ctx.fillText(fmtTime(secondsAt(a + k / 5 * w)), x, 10);
      ctx.beginPath(); ctx.moveTo(x + 0.5, AXIS - 4); ctx.lineTo(x + 0.5, AXIS); ctx.stroke();
    }
    var t0 = secondsAt(view.a), t1 = secondsAt(view.b);
    rangeEl.textContent = 'visible: ' + fmtTime(t0) + ' \u2013 ' + fmtTime(t1) +
      ' (' + L.n + ' bins over the run)';
    rangeEl.setAttribute('data-t0', t0.toPrecision(9));
    rangeEl.setAttribute('data-t1', t1.toPrecision(9));
    rangeEl.setAttribute('data-level', String(li));
  }

  function setView(a, b) {
    var w = Math.max(minWidth, Math.min(1, b - a));
    if (a < 0) a = 0;
    if (a + w > 1) a = 1 - w;
    view.a = a; view.b = a + w;
    draw();
  }
  function zoom(factor, at) {               /* at: fraction of the view kept in place */
    if (at === undefined) at = 0.5;
    var w = view.b - view.a, c = view.a + at * w, nw = w * factor;
    setView(c - at * nw, c - at * nw + nw);
  }
  function pan(frac) {
    var w = view.b - view.a;
    setView(view.a + frac * w, view.b + frac * w);
  }

  function on(id, f) {
    var el = document.getElementById(id);
    if (el) el.addEventListener('click', f);
  }
  on('tl-zoom-in', function () { zoom(0.5); });
  on('tl-zoom-out', function () { zoom(2); });
  on('tl-left', function () { pan(-0.25); });
  on('tl-right', function () { pan(0.25); });
  on('tl-reset', function () { setView(0, 1); });

  canvas.addEventListener('wheel', function (ev) {
    var x = ev.offsetX - GUTTER;
    if (x < 0) return;
    ev.preventDefault();
    zoom(ev.deltaY < 0 ? 0.8 : 1.25, x / plotWidth());
  }, { passive: false });

  var drag = null;
  canvas.addEventListener('pointerdown', function (ev) {
    drag = { x: ev.clientX, a: view.a, b: view.b };
    canvas.style.cursor = 'grabbing';
  });
  window.addEventListener('pointerup', function () { drag = null; canvas.style.cursor = ''; });
  canvas.addEventListener('pointerleave', function () { tip.hidden = true; });
  canvas.addEventListener('pointermove', function (ev) {
    if (drag) {
      var d = (ev.clientX - drag.x) / plotWidth() * (drag.b - drag.a);
      setView(drag.a - d, drag.b - d);
      return;
    }
    var x = ev.offsetX - GUTTER, row = Math.floor((ev.offsetY - AXIS) / rowH);
    if (x < 0 || row < 0 || row >= nrows) { tip.hidden = true; return; }
    var L = D.levels[pickLevel()], frac = view.a + x / plotWidth() * (view.b - view.a);
    var bin = Math.min(L.n - 1, Math.floor(frac * L.n));
    var starts = L.starts[row], lo = 0, hi = starts.length - 1;
    while (lo < hi) {                       /* the run holding bin */
      var mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= bin) lo = mid; else hi = mid - 1;
    }
    var f = L.runs[row][2 * lo + 1], fn = D.funcs[f];
    var g = fn && D.groups[fn[1]] ? D.groups[fn[1]][0] : '';
    tip.textContent = D.rows[row] + ' at ' + fmtTime(secondsAt(frac)) + ': ' +
      (fn ? fn[0] + (g ? ' (' + g + ')' : '') : 'idle');
    tip.hidden = false;
    tip.style.left = Math.min(ev.offsetX + 12, canvas.clientWidth - 260) + 'px';
    tip.style.top = (ev.offsetY + 14) + 'px';
  });

  /* legend: the groups the timeline shows */
  var legendEl = document.getElementById('tl-legend'), seen = {};
  D.funcs.forEach(function (fn) { if (fn) seen[fn[1]] = true; });
  D.groups.forEach(function (g, i) {
    if (!seen[i]) return;
    var item = document.createElement('span');
    item.className = 'item';
    var sw = document.createElement('span');
    sw.className = 'swatch';
    sw.style.background = g[1];
    item.appendChild(sw);
    item.appendChild(document.createTextNode(g[0]));
    legendEl.appendChild(item);
  });
  if (seen[-1]) {
    var other = document.createElement('span');
    other.className = 'item';
    other.textContent = 'grey: functions without a group';
    legendEl.appendChild(other);
  }

  window.addEventListener('resize', draw);
  draw();
})();
