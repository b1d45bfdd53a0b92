// The dashboard, served by the case server itself: one page, no outside assets, reading the public API
// it sits beside. Recent cases (filterable), statistics over time by offense, verdict and severity, and
// the transparency log's size and latest signed checkpoint. Every value is put in the page as text
// (textContent), never as markup: a case's words cannot run as script here.

export function dashboardHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Ratchet — case record</title>
<style>
  :root { --ink:#1d232b; --muted:#5c6773; --line:#dde3ea; --guilty:#c2410c; --ng:#2563eb; --minor:#65a30d; --moderate:#d97706; --severe:#b91c1c; --bg:#f6f8fa; }
  * { box-sizing: border-box; }
  body { margin:0; font:14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--ink); background:var(--bg); }
  header { background:#111827; color:#f9fafb; padding:14px 24px; display:flex; align-items:baseline; gap:16px; flex-wrap:wrap; }
  header h1 { margin:0; font-size:18px; }
  header .sub { color:#9ca3af; }
  main { padding:18px 24px; display:grid; gap:16px; grid-template-columns: repeat(12, 1fr); }
  section { background:#fff; border:1px solid var(--line); border-radius:8px; padding:14px 16px; }
  h2 { font-size:13px; text-transform:uppercase; letter-spacing:.04em; color:var(--muted); margin:0 0 10px; }
  .cards { grid-column: span 12; display:grid; grid-template-columns: repeat(5, 1fr); gap:16px; background:none; border:0; padding:0; }
  .card { background:#fff; border:1px solid var(--line); border-radius:8px; padding:12px 16px; }
  .card .n { font-size:26px; font-weight:650; }
  .card .l { color:var(--muted); font-size:12px; }
  .w4 { grid-column: span 4; } .w8 { grid-column: span 8; } .w12 { grid-column: span 12; } .w6 { grid-column: span 6; }
  .bar { display:flex; align-items:center; gap:8px; margin:4px 0; }
  .bar .k { width:170px; overflow:hidden; text-overflow:ellipsis; white-space:nowrap; }
  .bar .track { flex:1; background:#eef2f6; border-radius:4px; height:14px; position:relative; overflow:hidden; display:flex; }
  .bar .seg { height:100%; }
  .bar .v { width:48px; text-align:right; font-variant-numeric: tabular-nums; }
  table { width:100%; border-collapse:collapse; }
  th, td { text-align:left; padding:6px 8px; border-bottom:1px solid var(--line); vertical-align:top; }
  th { font-size:12px; color:var(--muted); font-weight:600; }
  td.pf { max-width:420px; }
  .pill { display:inline-block; padding:1px 8px; border-radius:999px; font-size:12px; color:#fff; white-space:nowrap; }
  .GUILTY { background:var(--guilty); } .NOT_GUILTY { background:var(--ng); }
  .minor { background:var(--minor); } .moderate { background:var(--moderate); } .severe { background:var(--severe); }
  .tofu { background:#6b7280; }
  pre { background:#0f172a; color:#e2e8f0; padding:10px; border-radius:6px; font-size:12px; overflow:auto; margin:0; white-space:pre-wrap; word-break:break-all; }
  .filters { display:flex; gap:8px; margin-bottom:8px; align-items:center; }
  select { font:inherit; padding:2px 6px; }
  .muted { color:var(--muted); }
  .legend span { margin-right:12px; font-size:12px; }
  .legend i { display:inline-block; width:10px; height:10px; border-radius:2px; margin-right:4px; vertical-align:middle; }
  svg text { font-size:11px; fill:var(--muted); }
  #error { color:var(--guilty); }
</style>
</head>
<body>
<header><h1>Ratchet — the team's case record</h1><span class="sub" id="logname"></span><span class="sub" id="error" role="alert"></span></header>
<main>
  <div class="cards">
    <div class="card"><div class="n" id="total">–</div><div class="l">cases</div></div>
    <div class="card"><div class="n" id="guilty">–</div><div class="l">guilty</div></div>
    <div class="card"><div class="n" id="notguilty">–</div><div class="l">not guilty</div></div>
    <div class="card"><div class="n" id="agents">–</div><div class="l">agents</div></div>
    <div class="card"><div class="n" id="logsize">–</div><div class="l">entries on the transparency log</div></div>
  </div>
  <section class="w8"><h2>Cases over time</h2><div class="filters"><label>by <select id="tgroup"><option value="verdict">verdict</option><option value="severity">severity</option><option value="offense">offense</option></select></label><span class="legend" id="legend"></span></div><svg id="timeline" width="100%" height="170" role="img" aria-label="cases per day"></svg></section>
  <section class="w4"><h2>By verdict</h2><div id="byverdict"></div><h2 style="margin-top:14px">By severity</h2><div id="byseverity"></div></section>
  <section class="w6"><h2>By offense</h2><div id="byoffense"></div></section>
  <section class="w6"><h2>Latest signed checkpoint</h2><pre id="checkpoint">…</pre><p class="muted" id="verifier"></p></section>
  <section class="w12"><h2>Recent cases</h2>
    <div class="filters"><label>verdict <select id="fverdict"><option value="">any</option><option>GUILTY</option><option>NOT GUILTY</option></select></label>
    <label>severity <select id="fseverity"><option value="">any</option><option>minor</option><option>moderate</option><option>severe</option></select></label></div>
    <table><thead><tr><th>case</th><th>when</th><th>offense</th><th>severity</th><th>verdict</th><th>vote</th><th>primary failure</th><th>leaf</th></tr></thead><tbody id="cases"></tbody></table>
    <p class="muted" id="empty" hidden>No cases on record yet.</p>
  </section>
</main>
<script>
(function () {
  'use strict';
  var $ = function (id) { return document.getElementById(id); };
  var el = function (tag, text, cls) { var e = document.createElement(tag); if (text !== undefined) e.textContent = String(text); if (cls) e.className = cls; return e; };
  var get = function (path, text) { return fetch(path, { headers: { accept: text ? 'text/plain' : 'application/json' } }).then(function (r) { if (!r.ok) throw new Error(path + ': ' + r.status); return text ? r.text() : r.json(); }); };
  function bars(target, rows, label, parts) {
    var box = $(target); box.textContent = '';
    var max = Math.max.apply(null, rows.map(function (r) { return r.count; }).concat([1]));
    rows.forEach(function (r) {
      var line = el('div', undefined, 'bar'), k = el('span', label(r), 'k'), track = el('span', undefined, 'track');
      k.title = label(r);
      parts(r).forEach(function (p) { var s = el('span', undefined, 'seg'); s.style.width = (100 * p.n / max) + '%'; s.style.background = p.color; track.appendChild(s); });
      line.appendChild(k); line.appendChild(track); line.appendChild(el('span', r.count, 'v')); box.appendChild(line);
    });
    if (!rows.length) box.appendChild(el('p', 'nothing yet', 'muted'));
  }
  var SEV = { minor: 'var(--minor)', moderate: 'var(--moderate)', severe: 'var(--severe)' };
  var PALETTE = ['#c2410c', '#2563eb', '#65a30d', '#d97706', '#7c3aed', '#0891b2', '#be185d', '#4b5563'];
  var GROUPS = {
    verdict: { key: function (r) { return r.verdict; }, color: function (k) { return k === 'GUILTY' ? 'var(--guilty)' : 'var(--ng)'; } },
    severity: { key: function (r) { return r.severity; }, color: function (k) { return SEV[k] || '#999'; } },
    offense: { key: function (r) { return r.offense_type; }, color: null },
  };
  var lastRows = [];
  function timeline(rows) {
    lastRows = rows;
    var g = GROUPS[$('tgroup').value] || GROUPS.verdict;
    var svg = $('timeline'), ns = 'http://www.w3.org/2000/svg'; while (svg.firstChild) svg.removeChild(svg.firstChild);
    var days = {}, keys = [];
    rows.forEach(function (r) { var k = g.key(r), d = days[r.day] || (days[r.day] = {}); d[k] = (d[k] || 0) + r.count; if (keys.indexOf(k) < 0) keys.push(k); });
    keys.sort();
    var color = function (k) { return g.color ? g.color(k) : PALETTE[keys.indexOf(k) % PALETTE.length]; };
    var dayKeys = Object.keys(days).sort().slice(-30), W = svg.clientWidth || 600, H = 150, max = 1;
    dayKeys.forEach(function (d) { var t = 0; keys.forEach(function (k) { t += days[d][k] || 0; }); max = Math.max(max, t); });
    var bw = Math.max(4, Math.min(40, (W - 40) / Math.max(dayKeys.length, 1) - 6));
    dayKeys.forEach(function (d, i) {
      var x = 30 + i * (bw + 6), y = H - 20;
      keys.forEach(function (k) {
        var n = days[d][k] || 0, h = (H - 20) * n / max; if (!n) return; y -= h;
        var r = document.createElementNS(ns, 'rect'); r.setAttribute('x', x); r.setAttribute('y', y); r.setAttribute('width', bw); r.setAttribute('height', h); r.setAttribute('fill', color(k));
        var t = document.createElementNS(ns, 'title'); t.textContent = d + ' ' + k + ': ' + n; r.appendChild(t); svg.appendChild(r);
      });
      var t = document.createElementNS(ns, 'text'); t.setAttribute('x', x); t.setAttribute('y', H - 4); t.textContent = d.slice(5); svg.appendChild(t);
    });
    var m = document.createElementNS(ns, 'text'); m.setAttribute('x', 0); m.setAttribute('y', 12); m.textContent = String(max); svg.appendChild(m);
    if (!dayKeys.length) { var e = document.createElementNS(ns, 'text'); e.setAttribute('x', 30); e.setAttribute('y', 80); e.textContent = 'no cases yet'; svg.appendChild(e); }
    var legend = $('legend'); legend.textContent = '';
    keys.forEach(function (k) { var s = el('span'), i = el('i'); i.style.background = color(k); s.appendChild(i); s.appendChild(document.createTextNode(k)); legend.appendChild(s); });
  }
  function pill(text, cls) { return el('span', text, 'pill ' + cls); }
  function loadCases() {
    var q = ['limit=25'], v = $('fverdict').value, s = $('fseverity').value;
    if (v) q.push('verdict=' + encodeURIComponent(v)); if (s) q.push('severity=' + encodeURIComponent(s));
    return get('/api/v1/public/cases?' + q.join('&')).then(function (page) {
      var tb = $('cases'); tb.textContent = '';
      page.cases.forEach(function (c) {
        var tr = el('tr'); tr.dataset.caseId = c.case_id;
        var td = function (x, cls) { var t = el('td', undefined, cls); if (x instanceof Node) t.appendChild(x); else t.textContent = String(x); tr.appendChild(t); };
        td(c.case_id); td(String(c.timestamp).slice(0, 16).replace('T', ' ')); td(c.offense_name + ' (' + c.pack + ')');
        td(pill(c.severity, c.severity)); var vv = el('span'); vv.appendChild(pill(c.verdict, c.verdict.replace(' ', '_'))); if (c.trust === 'tofu') { vv.appendChild(document.createTextNode(' ')); vv.appendChild(pill('trust on first use', 'tofu')); } td(vv);
        td(c.vote); td(c.primary_failure, 'pf'); td(c.leaf_index);
        tb.appendChild(tr);
      });
      $('empty').hidden = page.cases.length > 0;
    });
  }
  function load() {
    return Promise.all([
      get('/api/v1/public/statistics').then(function (s) {
        $('total').textContent = s.total_cases; $('guilty').textContent = s.guilty; $('notguilty').textContent = s.not_guilty; $('agents').textContent = s.agents; $('logsize').textContent = s.log.size;
        bars('byverdict', s.by_verdict, function (r) { return r.verdict; }, function (r) { return [{ n: r.count, color: r.verdict === 'GUILTY' ? 'var(--guilty)' : 'var(--ng)' }]; });
        bars('byseverity', s.by_severity, function (r) { return r.severity; }, function (r) { return [{ n: r.count, color: SEV[r.severity] || '#999' }]; });
        bars('byoffense', s.by_offense, function (r) { return r.offense_name; }, function (r) { return [{ n: r.guilty, color: 'var(--guilty)' }, { n: r.count - r.guilty, color: 'var(--ng)' }]; });
        timeline(s.over_time);
      }),
      get('/api/v1/log/checkpoint', true).then(function (t) { $('checkpoint').textContent = t; $('logname').textContent = 'log ' + t.split('\\n')[0]; }),
      get('/api/v1/log/key', true).then(function (k) { $('verifier').textContent = 'Verifier key: ' + k.trim(); }),
      loadCases(),
    ]).then(function () { $('error').textContent = ''; document.body.dataset.loaded = 'yes'; }, function (e) { $('error').textContent = 'could not load: ' + e.message; document.body.dataset.loaded = 'error'; });
  }
  $('tgroup').addEventListener('change', function () { timeline(lastRows); });
  $('fverdict').addEventListener('change', loadCases); $('fseverity').addEventListener('change', loadCases);
  load(); setInterval(load, 30000);
})();
</script>
</body>
</html>
`
}
