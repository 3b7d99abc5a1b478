/// The live map (`GET /?token=VIEWER`): one self-contained page, no build step and no external assets. It draws the
/// floorplan from `/v1/venue` as SVG (rooms, walls, beacons, checkpoints), follows `/v1/viewer` over a WebSocket, and
/// shows each phone's position, 95% ellipse, room and recent trail; its log lists the locations and presence events
/// as they arrive. Opened with the survey token, it takes a surveyor's taps: pick a phone, click where it stands.
enum MapPage {
    static let html = #"""
<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>IndoorLab live map</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
  body { font: 14px system-ui, sans-serif; margin: 0; display: grid; grid-template-columns: 1fr 320px; height: 100vh; color: #222; }
  header { grid-column: 1 / 3; padding: 8px 14px; background: #1f3b57; color: white; display: flex; gap: 18px; align-items: baseline; }
  header h1 { font-size: 17px; margin: 0; }
  #status { font-size: 13px; opacity: 0.85; }
  #map { width: 100%; height: calc(100vh - 40px); background: #fafafa; }
  aside { border-left: 1px solid #ddd; display: flex; flex-direction: column; height: calc(100vh - 40px); }
  aside h2 { font-size: 13px; margin: 8px 10px 4px; text-transform: uppercase; color: #555; }
  #phones { margin: 0 10px; font-size: 13px; }
  #log { flex: 1; overflow: auto; margin: 0; padding: 6px 10px; font: 11px ui-monospace, monospace; background: #f4f4f4; }
  .room { fill: #e8eef5; stroke: #9bb0c8; stroke-width: 0.05; }
  .room-name { font-size: 0.8px; fill: #6a7f96; }
  .wall { stroke: #333; stroke-width: 0.15; stroke-linecap: round; }
  .beacon { fill: #1f77b4; }
  .checkpoint { fill: none; stroke: #2ca02c; stroke-width: 0.12; }
  .trail { fill: none; stroke-width: 0.12; stroke-opacity: 0.6; }
  .ellipse { fill-opacity: 0.15; stroke-width: 0.06; }
  .dot { stroke: white; stroke-width: 0.1; }
  .label { font-size: 0.6px; }
</style>
</head>
<body>
<header><h1 id="title">IndoorLab live map</h1><span id="status">connecting…</span></header>
<svg id="map" xmlns="http://www.w3.org/2000/svg"></svg>
<aside><h2>Phones</h2><div id="phones"></div><h2>Log</h2><pre id="log"></pre></aside>
<script>
"use strict";
const token = new URLSearchParams(location.search).get("token") || "";
const svg = document.getElementById("map"), logEl = document.getElementById("log"), statusEl = document.getElementById("status");
const NS = "http://www.w3.org/2000/svg";
const colors = ["#d62728", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#2ca02c"];
const phones = new Map();
let venue = null;

function log(line) {
  const t = new Date().toISOString().slice(11, 23);
  logEl.textContent = t + " " + line + "\n" + logEl.textContent.slice(0, 20000);
  console.log(line);
}
function el(name, attrs, parent) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  (parent || svg).appendChild(e);
  return e;
}
// Venue metres (x east, y north) to the drawing's (y down).
const Y = (y) => venue.bounds.maxY + venue.bounds.minY - y;

function drawVenue(v) {
  venue = v;
  document.getElementById("title").textContent = "IndoorLab live map — " + v.name;
  const b = v.bounds, pad = 1;
  svg.setAttribute("viewBox", `${b.minX - pad} ${b.minY - pad} ${b.maxX - b.minX + 2 * pad} ${b.maxY - b.minY + 2 * pad}`);
  el("rect", { x: b.minX, y: b.minY, width: b.maxX - b.minX, height: b.maxY - b.minY, fill: "white", stroke: "#bbb", "stroke-width": 0.05 });
  for (const r of v.rooms) {
    el("polygon", { class: "room", points: r.outline.map(p => `${p[0]},${Y(p[1])}`).join(" ") });
    const cx = r.outline.reduce((s, p) => s + p[0], 0) / r.outline.length, cy = r.outline.reduce((s, p) => s + p[1], 0) / r.outline.length;
    el("text", { class: "room-name", x: cx, y: Y(cy), "text-anchor": "middle" }).textContent = r.name;
  }
  for (const w of v.walls) el("line", { class: "wall", x1: w.from[0], y1: Y(w.from[1]), x2: w.to[0], y2: Y(w.to[1]) });
  for (const c of v.checkpoints) el("circle", { class: "checkpoint", cx: c.position[0], cy: Y(c.position[1]), r: 0.35 });
  for (const bc of v.beacons) {
    const s = el("rect", { class: "beacon", x: bc.position[0] - 0.2, y: Y(bc.position[1]) - 0.2, width: 0.4, height: 0.4 });
    el("title", {}, s).textContent = bc.id;
  }
}

function phone(id) {
  if (!phones.has(id)) {
    const color = colors[phones.size % colors.length];
    const g = el("g", {});
    const p = {
      color, trail: [], room: null, last: null,
      trailEl: el("polyline", { class: "trail", stroke: color }, g),
      ellipseEl: el("ellipse", { class: "ellipse", fill: color, stroke: color, rx: 0, ry: 0 }, g),
      dotEl: el("circle", { class: "dot", fill: color, r: 0.35 }, g),
      labelEl: el("text", { class: "label", fill: color }, g),
    };
    phones.set(id, p);
  }
  return phones.get(id);
}

// Labels of phones close together are stacked, not drawn over each other (once per frame).
let labelsPending = false;
function placeLabels() {
  labelsPending = false;
  const placed = [];
  for (const p of phones.values()) {
    if (!p.last) continue;
    const x = p.last.x + 0.5;
    let y = Y(p.last.y) - 0.5;
    while (placed.some(q => Math.abs(q.y - y) < 0.7 && Math.abs(q.x - x) < 6)) y += 0.7;
    placed.push({ x, y });
    p.labelEl.setAttribute("x", x); p.labelEl.setAttribute("y", y);
  }
}

function showLocation(m) {
  const p = phone(m.phone);
  if (m.x === undefined) { log(`${m.phone}: no location (${m.reason || "?"})`); return; }
  p.last = m;
  p.trail.push([m.x, Y(m.y)]);
  if (p.trail.length > 40) p.trail.shift();
  p.trailEl.setAttribute("points", p.trail.map(q => q.join(",")).join(" "));
  p.dotEl.setAttribute("cx", m.x); p.dotEl.setAttribute("cy", Y(m.y));
  p.labelEl.textContent = m.phone + (m.room ? " · " + m.room : "");
  if (!labelsPending) { labelsPending = true; requestAnimationFrame(placeLabels); }
  if (m.ellipse) {
    const e = m.ellipse;
    p.ellipseEl.setAttribute("rx", e.semiMajor); p.ellipseEl.setAttribute("ry", e.semiMinor);
    p.ellipseEl.setAttribute("transform", `translate(${m.x},${Y(m.y)}) rotate(${-e.orientation})`);
  }
  log(`location ${m.phone} (${m.x.toFixed(2)}, ${m.y.toFixed(2)})${m.room ? " in " + m.room : ""}`);
  renderPhones();
}

// A surveyor (the survey token) taps where a phone truly stands: pick the phone in the list, then click the map.
let surveyor = false, selected = null, socket = null;
function renderPhones() {
  const rows = [];
  for (const [id, p] of phones) {
    const l = p.last;
    const mark = surveyor && selected === id ? " ◀ tap the map where it stands" : "";
    rows.push(`<div class="phone" data-id="${id}" style="color:${p.color};cursor:${surveyor ? "pointer" : "default"}">● <b>${id}</b> ${l ? `(${l.x.toFixed(1)}, ${l.y.toFixed(1)}) ±${l.ellipse ? l.ellipse.semiMajor.toFixed(1) : "?"} m` : ""} ${p.room ? "in " + p.room : ""}${mark}</div>`);
  }
  document.getElementById("phones").innerHTML = rows.join("");
  for (const d of document.querySelectorAll("#phones .phone")) d.onclick = () => { if (surveyor) { selected = d.dataset.id; renderPhones(); } };
}
svg.addEventListener("click", (ev) => {
  if (!surveyor || !selected || !venue || !socket) return;
  const p = svg.createSVGPoint(); p.x = ev.clientX; p.y = ev.clientY;
  const q = p.matrixTransform(svg.getScreenCTM().inverse());
  socket.send(JSON.stringify({ type: "tap", phone: selected, x: q.x, y: Y(q.y) }));
});

function connect() {
  const ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/v1/viewer?token=${encodeURIComponent(token)}`);
  socket = ws;
  ws.onopen = () => { statusEl.textContent = "live"; log("connected"); };
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.type === "viewer") { surveyor = m.role === "surveyor"; if (surveyor) statusEl.textContent = "live — survey: pick a phone, tap where it stands"; }
    else if (m.type === "tap") log(`tap ${m.phone} (${m.x.toFixed(2)}, ${m.y.toFixed(2)}) ${m.stored ? "stored" : "NOT stored"}`);
    else if (m.type === "error") log(`error ${m.code}: ${m.message}`);
    else if (m.type === "location") showLocation(m);
    else if (m.type === "presence") {
      phone(m.phone).room = m.event === "enter" ? m.room : null;
      log(`presence ${m.phone} ${m.event} ${m.room}`);
      renderPhones();
    }
  };
  ws.onclose = () => { statusEl.textContent = "disconnected; retrying…"; setTimeout(connect, 2000); };
}

fetch("/v1/venue").then(r => r.json()).then(v => { drawVenue(v); connect(); })
  .catch(e => { statusEl.textContent = "cannot load the venue: " + e; });
</script>
</body>
</html>
"""#
}
