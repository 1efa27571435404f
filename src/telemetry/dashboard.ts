/**
 * The observatory dashboard: one self-contained page (no CDN, no build step) that fetches the
 * public report and the hourly series and draws them as inline SVG. `__REPORT__` is replaced with
 * the configured report path. When everything is drawn, `document.body.dataset.ready` is "true".
 */
export const DASHBOARD_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Observatory</title>
<link rel="icon" href="data:,">
<style>
  body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 1000px; padding: 24px; color: #1d2330; background: #fafbfc; }
  h1 { font-size: 20px; margin: 0 0 4px; } h2 { font-size: 15px; margin: 28px 0 8px; }
  .muted { color: #667085; } .cards { display: flex; gap: 12px; flex-wrap: wrap; margin-top: 16px; }
  .card { background: #fff; border: 1px solid #e4e7ec; border-radius: 8px; padding: 12px 16px; min-width: 140px; }
  .card b { display: block; font-size: 22px; } svg { background: #fff; border: 1px solid #e4e7ec; border-radius: 8px; width: 100%; }
  .legend span { display: inline-block; width: 10px; height: 10px; margin: 0 4px 0 12px; border-radius: 2px; }
  #error { color: #b42318; }
</style>
</head>
<body>
<h1 id="title">Observatory</h1>
<div class="muted" id="meta"></div>
<div class="cards" id="totals"></div>
<h2>Challenges and paid calls per hour <span class="legend"><span style="background:#98a2b3"></span>challenges<span style="background:#1570ef"></span>paid calls</span></h2>
<svg id="timeline" viewBox="0 0 960 220" role="img" aria-label="challenges and paid calls per hour"></svg>
<h2>Revenue per hour (USDC)</h2>
<svg id="revenue" viewBox="0 0 960 160" role="img" aria-label="revenue per hour"></svg>
<h2>Payment failures by reason</h2>
<svg id="failures" role="img" aria-label="payment failures by reason"></svg>
<h2>Top endpoints by paid calls</h2>
<svg id="endpoints" role="img" aria-label="top endpoints"></svg>
<h2>Countries</h2>
<svg id="countries" role="img" aria-label="countries"></svg>
<p class="muted" id="note"></p>
<p id="error"></p>
<script>
const NS = 'http://www.w3.org/2000/svg';
function el(parent, name, attrs, text) {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  parent.appendChild(node);
  return node;
}
function clear(svg) { while (svg.firstChild) svg.removeChild(svg.firstChild); }
function columns(svg, rows, series, height) {
  clear(svg);
  const width = 960, pad = 36, plot = height - pad - 10;
  const max = Math.max(1, ...rows.flatMap((r) => series.map((s) => r[s.key])));
  const band = rows.length ? (width - pad * 2) / rows.length : 0;
  el(svg, 'line', { x1: pad, y1: 10 + plot, x2: width - pad, y2: 10 + plot, stroke: '#d0d5dd' });
  el(svg, 'text', { x: 4, y: 20, 'font-size': 11, fill: '#667085' }, String(max));
  rows.forEach((row, i) => {
    const w = Math.max(2, band / series.length - 2);
    series.forEach((s, j) => {
      const h = (row[s.key] / max) * plot;
      el(svg, 'rect', { x: pad + i * band + j * (w + 1), y: 10 + plot - h, width: w, height: h, fill: s.color }).appendChild(document.createElementNS(NS, 'title')).textContent = row.hour + ' ' + s.key + ': ' + row[s.key];
    });
    if (rows.length <= 24 || i % Math.ceil(rows.length / 24) === 0) el(svg, 'text', { x: pad + i * band, y: height - 6, 'font-size': 10, fill: '#667085' }, row.hour.slice(11) + 'h');
  });
  if (!rows.length) el(svg, 'text', { x: width / 2, y: height / 2, 'text-anchor': 'middle', fill: '#667085' }, 'no data yet');
}
function bars(svg, items, color) {
  clear(svg);
  const rowHeight = 24, width = 960, label = 330;
  svg.setAttribute('viewBox', '0 0 ' + width + ' ' + Math.max(rowHeight, items.length * rowHeight + 8));
  const max = Math.max(1, ...items.map((i) => i.count));
  items.forEach((item, i) => {
    el(svg, 'text', { x: 8, y: i * rowHeight + 18, 'font-size': 12 }, item.key);
    el(svg, 'rect', { x: label, y: i * rowHeight + 6, width: Math.max(2, ((width - label - 60) * item.count) / max), height: 14, fill: color, rx: 2 });
    el(svg, 'text', { x: width - 50, y: i * rowHeight + 18, 'font-size': 12 }, String(item.count));
  });
  if (!items.length) el(svg, 'text', { x: 8, y: 17, 'font-size': 12, fill: '#667085' }, 'none');
}
async function load() {
  const [report, series] = await Promise.all([fetch('__REPORT__').then((r) => r.json()), fetch('/observatory/series.json').then((r) => r.json())]);
  document.getElementById('title').textContent = report.observatory;
  document.getElementById('meta').textContent = 'wallet ' + report.wallet + ' on ' + report.network + ' · observing since ' + report.observing_since + ' · updated ' + report.updated_at;
  const totals = document.getElementById('totals');
  totals.textContent = '';
  const t = report.totals;
  for (const [label, value] of [['challenges', t.challenges], ['paid calls', t.paid_calls], ['revenue (USDC)', t.revenue_usdc], ['unique payers', t.unique_payers], ['payment failures', t.payment_failures], ['self-test calls', report.self_test.calls]]) {
    const card = document.createElement('div');
    card.className = 'card';
    card.dataset.metric = label;
    const b = document.createElement('b');
    b.textContent = String(value);
    card.append(b, label);
    totals.appendChild(card);
  }
  columns(document.getElementById('timeline'), series.hours, [{ key: 'challenges', color: '#98a2b3' }, { key: 'paid_calls', color: '#1570ef' }], 220);
  columns(document.getElementById('revenue'), series.hours, [{ key: 'revenue_usdc', color: '#12b76a' }], 160);
  bars(document.getElementById('failures'), report.payment_failure_reasons, '#f04438');
  bars(document.getElementById('endpoints'), report.endpoints.map((e) => ({ key: e.endpoint, count: e.paid_calls })).sort((a, b) => b.count - a.count).slice(0, 10), '#1570ef');
  bars(document.getElementById('countries'), report.geo.countries.slice(0, 15), '#7a5af8');
  document.getElementById('note').textContent = report.note;
  document.body.dataset.ready = 'true';
}
load().catch((error) => { document.getElementById('error').textContent = 'could not load the report: ' + error.message; });
setInterval(() => load().catch(() => {}), 30000);
</script>
</body>
</html>
`;
