/* Warcodex replay viewer.
 *
 * The data (the <script id="data"> JSON) was made once by Python from the engine's replay of the
 * log: step 0 is the set-up, every later step holds what one log entry changed (unit records,
 * variables, location markers) and what it did (paths, arrows, dice). This script only applies
 * those recorded changes in order to know a position and draws it: it evaluates no rule.
 */
"use strict";

const D = JSON.parse(document.getElementById("data").textContent);
const SVGNS = "http://www.w3.org/2000/svg";
const N = D.steps.length;                       // steps 1..N follow the log entries; 0 is the set-up
const B = D.board;
const HEX = B.kind === "hex";
const BOOKKEEPING = new Set(D.bookkeeping);  // the rules' own records: not listed in what happened
const CS = HEX ? B.radius * 1.1 : 30;           // counter size on the map
const $ = (id) => document.getElementById(id);
const sideOf = (name) => D.sides.find((s) => s.name === name);
const sideColor = (name) => (sideOf(name) || { color: "#777" }).color;
const sideLabel = (name) => (sideOf(name) || { label: name || "" }).label;
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
const nameLabel = (n) => D.names[n] || String(n).replace(/_/g, " ");

// ------------------------------------------------------------------ positions
// A position: units (id -> record), v (global variables), sv (side -> variables), lv (location
// -> variables), lm (location -> markers). Positions every KEY steps are kept once computed.
const KEY = 64;
const keyframes = new Map();

function copyPosition(p) {
  const lv = {};
  for (const k in p.lv) lv[k] = Object.assign({}, p.lv[k]);
  const sv = {};
  for (const k in p.sv) sv[k] = Object.assign({}, p.sv[k]);
  return { units: new Map(p.units), v: Object.assign({}, p.v), sv, lv, lm: Object.assign({}, p.lm), c: p.c };
}

const PATCH_KEYS = ["t", "s", "n", "l", "b", "p", "m"];  // record fields 0..6, as data.py writes patches
function patched(rec, patch) {
  if (Array.isArray(patch) || !rec) return patch;
  const out = rec.slice();
  PATCH_KEYS.forEach((k, i) => { if (k in patch) out[i] = patch[k]; });
  if (patch.v || patch.x) {
    out[7] = Object.assign({}, rec[7], patch.v || {});
    for (const k of patch.x || []) delete out[7][k];
  }
  return out;
}
function applyStep(p, s) {
  if (s.u) for (const id in s.u) p.units.set(+id, patched(p.units.get(+id), s.u[id]));
  if (s.v) Object.assign(p.v, s.v);
  if (s.sv) for (const side in s.sv) p.sv[side] = Object.assign(p.sv[side] || {}, s.sv[side]);
  if (s.lv) for (const loc in s.lv) p.lv[loc] = Object.assign(p.lv[loc] || {}, s.lv[loc]);
  if (s.lm) Object.assign(p.lm, s.lm);
  if (s.c) p.c = s.c;  // the cards' places, whole (they change rarely)
}

function initialPosition() {
  const i = D.initial;
  const units = new Map();
  for (const id in i.units) units.set(+id, i.units[id]);
  return copyPosition({ units, v: i.v, sv: i.sv, lv: i.lv, lm: i.lm, c: i.c });
}

function positionAt(k) {
  const base = Math.floor(k / KEY) * KEY;
  if (!keyframes.has(base)) {
    let from = 0;
    for (const key of keyframes.keys()) if (key < base && key > from) from = key;
    let p = from === 0 && !keyframes.has(0) ? initialPosition() : copyPosition(keyframes.get(from));
    if (!keyframes.has(0)) keyframes.set(0, copyPosition(p));
    for (let i = from + 1; i <= base; i++) {
      applyStep(p, D.steps[i - 1]);
      if (i % KEY === 0 && !keyframes.has(i)) keyframes.set(i, copyPosition(p));
    }
  }
  const p = copyPosition(keyframes.get(base));
  for (let i = base + 1; i <= k; i++) applyStep(p, D.steps[i - 1]);
  return p;
}

// unit record: [type, side, label, loc, box, steps, markers, vars]
const U = { type: 0, side: 1, label: 2, loc: 3, box: 4, steps: 5, markers: 6, vars: 7 };
const typeOf = (r) => D.types[r[U.type]];
const sideName = (r) => D.sides[r[U.side]].name;
function symbolOf(r) {
  const t = typeOf(r);
  const steps = Math.max(1, Math.min(r[U.steps], t.max));
  return D.symbols.units[[t.name, sideName(r), r[U.label], steps].join("|")];
}
function unitName(id, r) { return r ? `${r[U.label]} #${id}` : `unit #${id}`; }
/* Where a unit stands, as the tests read it from the DOM: a location, else "box:NAME". */
function placeKey(r) { return r[U.loc] !== null ? r[U.loc] : "box:" + (r[U.box] || "off map"); }

// ------------------------------------------------------------------ values as text
function oddsText(rank) { return rank >= 0 ? `${rank + 1}-1` : `1-${-rank + 1}`; }
function fmt(v, pos) {
  if (v === null || v === undefined) return "none";
  if (v === true) return "yes";
  if (v === false) return "no";
  if (Array.isArray(v)) return v.length ? v.map((x) => fmt(x, pos)).join(", ") : "none";
  if (typeof v === "object") {
    if ("name" in v) return nameLabel(v.name);
    if ("unit" in v) return unitName(v.unit, pos && pos.units.get(v.unit));
    if ("frac" in v) return v.frac;
    if ("odds" in v) return oddsText(v.odds);
    if ("cell" in v) return v.cell;
    if ("set" in v) return v.set.join(", ");
    return JSON.stringify(v);
  }
  if (typeof v === "string" && B.info[v]) return locName(v);
  return String(v);
}
const varLabel = (name) => String(name).replace(/_/g, " ");
function locName(loc) {
  const i = B.info[loc];
  if (!i || !i.name || i.name === loc) return loc;
  return HEX && !i.box ? `${i.name} (${loc})` : i.name;  // a hex's number is worth reading, an area's id is not
}
function phaseLabel(name) { return name ? (D.phases[name] || nameLabel(name)) : ""; }

// ------------------------------------------------------------------ svg helpers
function el(tag, attrs, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}
function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }
const heads = new Map();
function headFor(color) {
  if (!heads.has(color)) {
    const id = "head" + heads.size;
    const m = el("marker", { id, viewBox: "0 0 10 10", refX: "6", refY: "5", markerWidth: "3.2", markerHeight: "3.2",
                             orient: "auto-start-reverse" }, $("map").querySelector("defs"));
    el("path", { d: "M0,0 L10,5 L0,10 z", fill: color }, m);
    heads.set(color, id);
  }
  return `url(#${heads.get(color)})`;
}
/* Where a location is drawn: a hex or area point; an off-map box of a hex board at the hexes it
   touches (moves into and out of boxes are drawn from there); null when it has no place. */
function pointOf(loc) { return B.points[loc] || B.anchors[loc] || null; }

// ------------------------------------------------------------------ the map view (pan, zoom)
const map = $("map");
const view = { x: 0, y: 0, w: B.width, h: B.height };
function setView(x, y, w, h) {
  const minW = Math.min(B.width, CS * 4);
  if (w < minW) { const f = minW / w; x -= (w * (f - 1)) / 2; y -= (h * (f - 1)) / 2; w *= f; h *= f; }
  const maxW = Math.max(B.width, B.height * aspect()) * 1.2;
  if (w > maxW) { const f = maxW / w; x += (w * (1 - f)) / 2; y += (h * (1 - f)) / 2; w *= f; h *= f; }
  const cy = y + h / 2;  // the view has the map's own shape: the board canvas and the SVG agree
  h = w / aspect();
  y = cy - h / 2;
  const edge = CS / 2;  // no more empty space beyond the board than the view needs
  x = w >= B.width + 2 * edge ? (B.width - w) / 2 : Math.min(Math.max(x, -edge), B.width + edge - w);
  y = h >= B.height + 2 * edge ? (B.height - h) / 2 : Math.min(Math.max(y, -edge), B.height + edge - h);
  Object.assign(view, { x, y, w, h });
  map.setAttribute("viewBox", `${x.toFixed(2)} ${y.toFixed(2)} ${w.toFixed(2)} ${h.toFixed(2)}`);
  requestBoard();
}
/* The map's size on screen, measured when it changes (measuring at every step forces a layout). */
const mapSize = { width: 0, height: 0 };
function measureMap() { const r = map.getBoundingClientRect(); mapSize.width = r.width; mapSize.height = r.height; }
function aspect() { return mapSize.width && mapSize.height ? mapSize.width / mapSize.height : 1.4; }
function fitBox(x0, y0, x1, y1, margin) {
  const m = margin === undefined ? CS : margin;
  x0 -= m; y0 -= m; x1 += m; y1 += m;
  let w = x1 - x0, h = y1 - y0;
  const a = aspect();
  if (w / h < a) { const nw = h * a; x0 -= (nw - w) / 2; w = nw; } else { const nh = w / a; y0 -= (nh - h) / 2; h = nh; }
  setView(x0, y0, w, h);
}
function fitAll() { fitBox(0, 0, B.width, B.height, 0); }
/* The widest view in which a counter is still READABLE screen pixels wide. */
const READABLE = 28;
function readableWidth() { return (mapSize.width || 800) * CS / READABLE; }
function fitReadable(x0, y0, x1, y1) {
  const maxW = readableWidth(), a = aspect();
  const m = CS * 1.5;
  // some of the board around the action; an area map's areas are large: as wide as stays readable
  const minW = HEX ? Math.min(B.width, CS * 14, maxW * 0.6) : Math.min(B.width, maxW);
  if (x1 - x0 + 2 * m < minW) { const c = (x0 + x1) / 2; x0 = c - minW / 2 + m; x1 = c + minW / 2 - m; }
  const w = Math.max(x1 - x0 + 2 * m, (y1 - y0 + 2 * m) * a);
  if (w <= maxW) { fitBox(x0, y0, x1, y1, m); return; }
  const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2;
  setView(cx - maxW / 2, cy - maxW / a / 2, maxW, maxW / a);
}
function svgPoint(evt) {
  const pt = map.createSVGPoint();
  pt.x = evt.clientX; pt.y = evt.clientY;
  return pt.matrixTransform(map.getScreenCTM().inverse());
}
function zoomAt(px, py, factor) {
  setView(px - (px - view.x) / factor, py - (py - view.y) / factor, view.w / factor, view.h / factor);
}
function zoomBy(factor) { zoomAt(view.x + view.w / 2, view.y + view.h / 2, factor); }
// What must be in view to see a place: an area's whole box of counters (its centre alone left an
// area half off the view), a hex's centre (the margin below covers its counter).
function extentOf(loc) {
  const a = B.areas && B.areas[loc];
  if (a) return [a[0], a[1], a[0] + a[2], a[1] + a[3]];
  const p = pointOf(loc);
  return p ? [p[0], p[1], p[0], p[1]] : null;
}
function union(a, b) { return [Math.min(a[0], b[0]), Math.min(a[1], b[1]), Math.max(a[2], b[2]), Math.max(a[3], b[3])]; }
function readable(b) {  // the box fits in a view whose counters stay readable (fitReadable's test)
  const m = CS * 1.5;
  return Math.max(b[2] - b[0] + 2 * m, (b[3] - b[1] + 2 * m) * aspect()) <= readableWidth();
}
// The box to show for these places. Places too far apart to be seen together with readable
// counters: the first place (the step's main one) and those that fit with it, rather than the
// empty middle between them.
function focusBox(locs) {
  const boxes = locs.map(extentOf).filter(Boolean);
  if (!boxes.length) return null;
  const u = boxes.reduce(union);
  if (readable(u)) return u;
  return boxes.slice(1).reduce((acc, b) => (readable(union(acc, b)) ? union(acc, b) : acc), boxes[0]);
}
function centerOn(locs) {
  const u = focusBox(locs);
  if (!u) return;
  const [x0, y0, x1, y1] = u;
  const m = CS;
  const inside = x0 - m >= view.x && x1 + m <= view.x + view.w && y0 - m >= view.y && y1 + m <= view.y + view.h;
  if (inside) return;
  if (x1 - x0 + 2 * m > view.w || y1 - y0 + 2 * m > view.h) { fitReadable(x0, y0, x1, y1); return; }
  setView((x0 + x1) / 2 - view.w / 2, (y0 + y1) / 2 - view.h / 2, view.w, view.h);
}

const pointers = new Map();
let drag = null, moved = false;
map.addEventListener("pointerdown", (e) => {
  pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
  map.setPointerCapture(e.pointerId);
  moved = false;
  if (pointers.size === 1) drag = { x: e.clientX, y: e.clientY, view: Object.assign({}, view) };
});
map.addEventListener("pointermove", (e) => {
  if (!pointers.has(e.pointerId)) { hover(e); return; }
  const prev = pointers.get(e.pointerId);
  if (pointers.size === 2) {  // pinch
    const other = [...pointers.entries()].find(([id]) => id !== e.pointerId)[1];
    const d0 = Math.hypot(prev.x - other.x, prev.y - other.y);
    const d1 = Math.hypot(e.clientX - other.x, e.clientY - other.y);
    if (d0 > 0 && d1 > 0) {
      const mid = svgPoint({ clientX: (e.clientX + other.x) / 2, clientY: (e.clientY + other.y) / 2 });
      zoomAt(mid.x, mid.y, d1 / d0);
    }
    moved = true;
  } else if (drag) {
    const scale = view.w / mapSize.width;
    if (Math.abs(e.clientX - drag.x) + Math.abs(e.clientY - drag.y) > 4) { moved = true; map.classList.add("dragging"); }
    if (moved) setView(drag.view.x - (e.clientX - drag.x) * scale, drag.view.y - (e.clientY - drag.y) * scale, view.w, view.h);
  }
  pointers.set(e.pointerId, { x: e.clientX, y: e.clientY });
});
function endPointer(e) {
  pointers.delete(e.pointerId);
  if (pointers.size === 0) {
    map.classList.remove("dragging");
    if (drag && !moved && e.type === "pointerup") click(e);
    drag = null;
  }
}
map.addEventListener("pointerup", endPointer);
map.addEventListener("pointercancel", endPointer);
map.addEventListener("pointerleave", () => { $("tooltip").hidden = true; clear($("layer-hover")); });
map.addEventListener("wheel", (e) => {
  e.preventDefault();
  const p = svgPoint(e);
  zoomAt(p.x, p.y, Math.pow(1.0015, -e.deltaY));
}, { passive: false });

// ------------------------------------------------------------------ which location is here
const buckets = new Map();
if (HEX) {
  const cell = B.radius * 2;
  for (const loc in B.points) {
    const [x, y] = B.points[loc];
    const key = Math.floor(x / cell) + ":" + Math.floor(y / cell);
    if (!buckets.has(key)) buckets.set(key, []);
    buckets.get(key).push(loc);
  }
}
/* A hex is the set of points nearer its centre than any other centre: the nearest centre within
   one hex size is the hex under the pointer. */
function locationAt(x, y) {
  if (HEX) {
    const cell = B.radius * 2, cx = Math.floor(x / cell), cy = Math.floor(y / cell);
    let best = null, bd = Infinity;
    for (let i = -1; i <= 1; i++) for (let j = -1; j <= 1; j++) {
      for (const loc of buckets.get((cx + i) + ":" + (cy + j)) || []) {
        const [px, py] = B.points[loc];
        const d = (px - x) ** 2 + (py - y) ** 2;
        if (d < bd) { bd = d; best = loc; }
      }
    }
    return bd <= B.radius * B.radius ? best : null;
  }
  for (const loc in B.areas) {
    const [ax, ay, aw, ah] = B.areas[loc];
    if (x >= ax - 6 && x <= ax + aw + 6 && y >= ay - 22 && y <= ay + ah + 24) return loc;
  }
  return null;
}

// ------------------------------------------------------------------ state of the page
let cur = 0;
let pos = initialPosition();
let selectedUnit = null;
let selectedLoc = null;
let follow = true;
const layers = { control: true, markers: true, action: true };
let controlVar = D.control.length ? D.control[0] : null;

function go(k, opts) {
  k = Math.max(0, Math.min(N, k | 0));
  cur = k;
  pos = positionAt(k);
  render(opts || {});
  clearTimeout(hashTimer);  // the address says the step shown (a link to it), set once stepping pauses
  hashTimer = setTimeout(() => history.replaceState(null, "", "#step=" + cur), 250);
}
let hashTimer = 0;

// ------------------------------------------------------------------ drawing the position
function stacks() {
  const on = new Map(), off = new Map();
  const ids = [...pos.units.keys()].sort((a, b) => a - b);
  for (const id of ids) {
    const r = pos.units.get(id);
    const where = placeKey(r);
    const target = r[U.loc] !== null && B.points[r[U.loc]] ? on : off;
    if (r[U.loc] === null && !r[U.box]) continue;  // not in play (never placed)
    if (!target.has(where)) target.set(where, []);
    const list = target.get(where);
    const sym = symbolOf(r), marks = r[U.markers].join(",");
    const same = list.find((g) => g.sym === sym && g.marks === marks && g.side === r[U.side]);
    if (same) same.ids.push(id); else list.push({ sym, marks, side: r[U.side], ids: [id], rec: r });
  }
  return { on, off };
}

function drawCounter(parent, g, x, y, size) {
  const group = el("g", { class: "counter", transform: `translate(${x.toFixed(1)},${y.toFixed(1)})`,
                          "data-units": g.ids.join(" "), "data-loc": placeKey(g.rec) }, parent);
  el("use", { href: "#" + g.sym, x: -size / 2, y: -size / 2, width: size, height: size }, group);
  const marks = g.rec[U.markers];
  marks.forEach((m, i) => {
    const ms = size * 0.42;
    el("use", { href: "#" + D.symbols.markers[m], x: size / 2 - ms * 0.8 - i * ms * 0.35, y: -size / 2 - ms * 0.35 + i * ms * 0.35,
                width: ms, height: ms }, group);
  });
  if (g.ids.length > 1) {
    const t = el("text", { class: "count", x: size / 2 - 2, y: size / 2 - 3, "text-anchor": "end" }, group);
    t.textContent = "×" + g.ids.length;
  }
  if (selectedUnit !== null && g.ids.includes(selectedUnit)) {
    group.classList.add("selected");
    el("rect", { class: "frame", x: -size / 2 - 3, y: -size / 2 - 3, width: size + 6, height: size + 6, rx: 5, fill: "none" }, group);
  }
  const title = el("title", {}, group);
  title.textContent = g.ids.map((id) => unitName(id, pos.units.get(id))).join("\n");
  return group;
}

function renderUnits(st) {
  const layer = $("layer-units");
  clear(layer);
  for (const [loc, groups] of st.on) {
    const [x, y] = B.points[loc];
    if (HEX) {
      const shift = Math.min(4, 14 / groups.length);
      groups.forEach((g, i) => drawCounter(layer, g, x + i * shift - (groups.length - 1) * shift / 2,
                                           y - i * shift + (groups.length - 1) * shift / 2, CS));
    } else {
      const [ax, ay, aw, ah] = B.areas[loc];
      let size = CS, cols = Math.max(1, Math.floor(aw / (size + 3)));
      while (Math.ceil(groups.length / cols) * (size + 3) > ah + 6 && size > 14) {
        size -= 2; cols = Math.max(1, Math.floor(aw / (size + 3)));
      }
      const rows = Math.ceil(groups.length / cols);
      const top = ay + Math.max(0, (ah - rows * (size + 3)) / 2);
      groups.forEach((g, i) => {
        const r = Math.floor(i / cols), c = i % cols;
        const inRow = Math.min(cols, groups.length - r * cols);
        const left = ax + (aw - inRow * (size + 3)) / 2;
        drawCounter(layer, g, left + c * (size + 3) + size / 2 + 1.5, top + r * (size + 3) + size / 2 + 1.5, size);
      });
    }
  }
}

function renderControl() {
  const layer = $("layer-control");
  clear(layer);
  if (!layers.control || !controlVar) return;
  const owner = (loc) => {
    const v = (pos.lv[loc] || {})[controlVar];
    return v && typeof v === "object" && "name" in v && sideOf(v.name) ? v.name : null;
  };
  for (const loc in pos.lv) {
    const side = owner(loc);
    const p = B.points[loc];
    if (!side || !p) continue;
    if (HEX) {
      // a light tint, and the hexsides where control changes drawn in the side's colour: territory
      // outlines that leave the terrain readable (the hex across a side is found by its centre)
      const color = sideColor(side);
      el("polygon", { class: "control", fill: color, points: B.corners.map(([dx, dy]) => `${(p[0] + dx).toFixed(1)},${(p[1] + dy).toFixed(1)}`).join(" ") }, layer);
      B.corners.forEach(([ax, ay], i) => {
        const [bx, by] = B.corners[(i + 1) % B.corners.length];
        const across = locationAt(p[0] + ax + bx, p[1] + ay + by);
        if (across && owner(across) === side) return;
        const f = 0.9;
        el("line", { class: "control-edge", stroke: color, x1: p[0] + ax * f, y1: p[1] + ay * f, x2: p[0] + bx * f, y2: p[1] + by * f }, layer);
      });
    } else {
      const [ax, ay, aw, ah] = B.areas[loc];
      el("rect", { class: "control-ring", x: ax - 9, y: ay - 25, width: aw + 18, height: ah + 52, rx: 12, stroke: sideColor(side) }, layer);
    }
  }
}

function renderLocMarkers() {
  const layer = $("layer-lmarkers");
  clear(layer);
  if (!layers.markers) return;
  for (const loc in pos.lm) {
    const marks = pos.lm[loc];
    const p = B.points[loc];
    if (!p || !marks.length) continue;
    const s = HEX ? B.radius * 0.55 : 22;
    marks.forEach((m, i) => {
      const x = HEX ? p[0] - B.radius * 0.95 + i * s * 0.5 : B.areas[loc][0] + B.areas[loc][2] - s - i * s * 0.5;
      const y = HEX ? p[1] - B.radius * 0.55 : B.areas[loc][1] - 20;
      const u = el("use", { href: "#" + D.symbols.markers[m], x, y, width: s, height: s }, layer);
      const t = el("title", {}, u);
      t.textContent = `${locName(loc)}: ${D.markers[m] || nameLabel(m)}`;
    });
  }
}

function polylineOf(path) {
  const pts = path.map(pointOf).filter(Boolean);
  return pts.map((p) => p[0].toFixed(1) + "," + p[1].toFixed(1)).join(" ");
}

function renderEvents() {
  const paths = $("layer-paths"), top = $("layer-events");
  clear(paths); clear(top);
  if (!layers.action || cur === 0) return;
  const ev = D.steps[cur - 1].ev || {};
  const before = positionAt(cur - 1);
  for (const m of ev.moves || []) {
    const r = before.units.get(m.u) || pos.units.get(m.u);
    const color = m.kind === "retreat" ? "#e07b00" : sideColor(r ? sideName(r) : null);
    const pts = polylineOf(m.path);
    if (pts.split(" ").length < 2) continue;
    el("polyline", { class: "path " + m.kind, points: pts, stroke: "#fff", "stroke-width": 9, "stroke-opacity": 0.7 }, paths);
    el("polyline", { class: "path " + m.kind, points: pts, stroke: color, "marker-end": headFor(color) }, paths);
    const start = pointOf(m.path[0]);
    if (start) el("rect", { class: "ghost", x: start[0] - CS / 2, y: start[1] - CS / 2, width: CS, height: CS, rx: 4 }, paths);
  }
  for (const a of ev.arrows || []) {
    const p = pointOf(a.from), q = pointOf(a.to);
    if (!p || !q) continue;
    const color = a.kind === "attack" ? "#c62828" : sideColor(a.side);
    const dx = q[0] - p[0], dy = q[1] - p[1], d = Math.hypot(dx, dy) || 1;
    const trim = Math.min(CS * 0.45, d / 3);
    const x1 = p[0] + dx / d * trim, y1 = p[1] + dy / d * trim, x2 = q[0] - dx / d * trim, y2 = q[1] - dy / d * trim;
    el("line", { x1, y1, x2, y2, stroke: "#fff", "stroke-width": 10, "stroke-opacity": 0.6, "stroke-linecap": "round" }, top);
    el("line", { class: "arrow " + a.kind, x1, y1, x2, y2, stroke: color, "marker-end": headFor(color) }, top);
  }
  for (const p of ev.placed || []) {
    const q = pointOf(p.loc);
    if (q) el("circle", { class: "placed", cx: q[0], cy: q[1], r: CS * 0.75 }, top);
  }
  for (const r of ev.removed || []) {
    const q = pointOf(r.loc);
    if (!q) continue;
    const s = CS * 0.45;
    el("line", { class: r.box === "eliminated" ? "elim" : "elim boxed", x1: q[0] - s, y1: q[1] - s, x2: q[0] + s, y2: q[1] + s,
                 stroke: r.box === "eliminated" ? null : "#555" }, top);
    el("line", { class: "elim", x1: q[0] - s, y1: q[1] + s, x2: q[0] + s, y2: q[1] - s }, top);
  }
  if (!(ev.moves || []).length && !(ev.arrows || []).length) {
    for (const loc of ev.focus || []) {
      const q = B.points[loc];
      if (q) el("circle", { class: "focus", cx: q[0], cy: q[1], r: HEX ? B.radius * 0.95 : 40 }, top);
    }
  }
}

// ------------------------------------------------------------------ header
function currentEntry() { return cur > 0 ? D.steps[cur - 1].e : null; }
function renderStatus() {
  const e = currentEntry();
  const items = [];
  const turn = e ? e.turn : D.first_turn;
  const over = D.last_turn !== null && turn > D.last_turn;  // the game's end comes after its last turn
  items.push(`<span class="item"><span class="label">Turn</span><b>${esc(over ? D.last_turn : turn)}</b>${D.last_turn ? `<span class="muted"> / ${D.last_turn}${over ? ", over" : ""}</span>` : ""}</span>`);
  items.push(`<span class="item"><span class="label">Phase</span><b>${esc(e ? (phaseLabel(e.phase) || (e.k === "end" ? "Game over" : "—")) : "Set-up")}</b></span>`);
  if (e && e.side) items.push(`<span class="item"><span class="side-chip" style="background:${sideColor(e.side)}"></span><b>${esc(sideLabel(e.side))}</b></span>`);
  const changed = cur > 0 ? D.steps[cur - 1] : {};
  for (const [scope, name] of D.pins) {
    if (scope === "var") {
      const hit = changed.v && name in changed.v;
      items.push(`<span class="item"><span class="label">${esc(varLabel(name))}</span><b class="${hit ? "changed" : ""}">${esc(fmt(pos.v[name], pos))}</b></span>`);
    } else {
      const parts = D.sides.map((s) => {
        const hit = changed.sv && changed.sv[s.name] && name in changed.sv[s.name];
        const v = (pos.sv[s.name] || {})[name];
        return v === undefined ? "" : `<span class="side-chip" style="background:${s.color}" title="${esc(s.label)}"></span><b class="${hit ? "changed" : ""}">${esc(fmt(v, pos))}</b>`;
      }).filter(Boolean).join(" ");
      if (parts) items.push(`<span class="item"><span class="label">${esc(varLabel(name))}</span>${parts}</span>`);
    }
  }
  $("status").innerHTML = items.join("");
}

// ------------------------------------------------------------------ the step panel
function unitLink(id, posn) {
  const r = (posn || pos).units.get(id) || pos.units.get(id);
  const chip = r ? `<span class="side-chip" style="background:${sideColor(sideName(r))}"></span>` : "";
  return `<a class="unit-link" data-unit="${id}">${chip}${esc(unitName(id, r))}</a>`;
}
function locLink(loc) { return `<a class="unit-link loc-link" data-loc="${esc(loc)}">${esc(locName(loc))}</a>`; }

function dieSvg(value, sides, dropped) {
  const cls = "die" + (dropped ? " dropped" : "");
  if (sides === 6 && value >= 1 && value <= 6) {
    const P = { 1: [[2, 2]], 2: [[1, 1], [3, 3]], 3: [[1, 1], [2, 2], [3, 3]], 4: [[1, 1], [3, 1], [1, 3], [3, 3]],
                5: [[1, 1], [3, 1], [2, 2], [1, 3], [3, 3]], 6: [[1, 1], [3, 1], [1, 2], [3, 2], [1, 3], [3, 3]] }[value];
    const pips = P.map(([x, y]) => `<circle cx="${x * 5 + 1}" cy="${y * 5 + 1}" r="1.9"/>`).join("");
    return `<svg class="${cls}" viewBox="0 0 22 22" role="img" aria-label="${value}"><rect x="1" y="1" width="20" height="20" rx="4" fill="#fff" stroke="#222" stroke-width="1.4"/><g fill="#222">${pips}</g></svg>`;
  }
  return `<svg class="${cls}" viewBox="0 0 22 22" role="img" aria-label="${value}"><polygon points="11,1 21,8 17,21 5,21 1,8" fill="#fff" stroke="#222" stroke-width="1.4"/><text x="11" y="15.5" text-anchor="middle" font-size="${value > 9 ? 8 : 10}" font-weight="700">${value}</text></svg>`;
}
function diceHtml(d) {
  const kept = d.kept.slice();
  const faces = d.faces.map((f) => {
    const i = kept.indexOf(f);
    if (i >= 0) kept.splice(i, 1);
    return dieSvg(f, d.sides, i < 0);
  }).join("");
  return `<span class="dice" title="${esc(d.dice)}: ${d.total}${d.fixed ? " (fixed dice)" : ""}">${faces}</span>`;
}
function citeLinks(cites) {
  return (cites || []).map((c) => `<a class="cite" href="#" data-section="${esc(c)}" title="${esc("§" + c + " " + (D.sections[c] || "(not listed in the game's sections)"))}">§${esc(c)}</a>`).join("");
}
function traceHtml(nodes, depth) {
  return "<ul>" + nodes.map((d) => {
    const body = d.dice ? `${diceHtml(d.dice)} <span class="muted">${esc(d.dice.dice)}</span> = <b>${d.dice.total}</b>` : esc(d.what);
    const head = `${body}${citeLinks(d.citations)}`;
    if (d.steps && d.steps.length) {
      const open = depth < 2 || hasDice(d) ? " open" : "";
      return `<li><details${open}><summary>${head}</summary>${traceHtml(d.steps, depth + 1)}</details></li>`;
    }
    return `<li class="leaf">${head}</li>`;
  }).join("") + "</ul>";
}
function hasDice(d) { return !!d.dice || (d.steps || []).some(hasDice); }

function happenedItems(s, before) {
  const ev = s.ev || {};
  const items = [];
  const name = (id) => unitLink(id, before);
  for (const m of ev.moves || []) {
    const verb = m.kind === "retreat" ? "retreats" : m.kind === "advance" ? "advances" : "moves";
    const hexes = m.path.length - 1;
    const rule = m.rule ? ` <span class="muted">· ${esc(m.rule.what)}</span>${citeLinks(m.rule.cites)}` : "";
    items.push(`${name(m.u)} ${verb} ${m.path.map(locLink).join(" → ")} <span class="muted">(${hexes} ${HEX ? "hex" : "space"}${hexes === 1 ? "" : "es"})</span>${rule}`);
  }
  for (const a of ev.arrows || []) items.push(`${a.kind === "attack" ? "attack" : "target"}: ${locLink(a.from)} → ${locLink(a.to)}`);
  for (const p of ev.placed || []) items.push(`${name(p.u)} placed at ${locLink(p.loc)}`);
  for (const r of ev.removed || []) {
    items.push(r.box === "eliminated" ? `<span class="kind-elim">✖ ${name(r.u)} eliminated</span> at ${locLink(r.loc)}`
                                      : `${name(r.u)} leaves the map from ${locLink(r.loc)} to ${esc(boxTitle(r.box))}`);
  }
  for (const b of ev.boxed || []) items.push(`${name(b.u)}: ${esc(boxTitle(b.from))} → ${esc(boxTitle(b.to))}`);
  for (const st of ev.steps || []) {
    const n = st.from - st.to;
    items.push(`${name(st.u)} ${n > 0 ? `loses ${n} step${n > 1 ? "s" : ""}` : `regains ${-n} step${n < -1 ? "s" : ""}`} (${st.from} → ${st.to})`);
  }
  for (const m of ev.markers || []) {
    const on = m.on.map((x) => "+" + esc(D.markers[x] || nameLabel(x))), off = m.off.map((x) => "−" + esc(D.markers[x] || nameLabel(x)));
    items.push(`${name(m.u)}: ${on.concat(off).join(", ")}`);
  }
  const prev = before;
  for (const k in s.v || {}) if (!BOOKKEEPING.has(k)) items.push(`${esc(varLabel(k))}: ${esc(fmt(prev.v[k], prev))} → <b>${esc(fmt(s.v[k], pos))}</b>`);
  for (const side in s.sv || {}) for (const k in s.sv[side])
    items.push(`<span class="side-chip" style="background:${sideColor(side)}"></span>${esc(sideLabel(side))} ${esc(varLabel(k))}: ${esc(fmt((prev.sv[side] || {})[k], prev))} → <b>${esc(fmt(s.sv[side][k], pos))}</b>`);
  if (s.c) items.push(...cardChanges(prev.c, s.c));
  const locChanges = Object.keys(s.lv || {});
  for (const loc of locChanges.slice(0, 40)) for (const k in s.lv[loc])
    items.push(`${locLink(loc)} ${esc(varLabel(k))}: ${esc(fmt((prev.lv[loc] || {})[k], prev))} → <b>${esc(fmt(s.lv[loc][k], pos))}</b>`);
  if (locChanges.length > 40) items.push(`<span class="muted">… and ${locChanges.length - 40} more locations</span>`);
  const markChanges = Object.keys(s.lm || {});
  for (const loc of markChanges.slice(0, 40)) items.push(`${locLink(loc)} markers: ${esc((s.lm[loc] || []).map((m) => D.markers[m] || nameLabel(m)).join(", ") || "none")}`);
  if (markChanges.length > 40) items.push(`<span class="muted">… and ${markChanges.length - 40} more locations</span>`);
  return items;
}

// ------------------------------------------------------------------ cards
const PILES = { draw: "draw pile", discard: "discard pile", removed: "removed from the game", set_aside: "set aside", play: "in play" };
const cardLabel = (c) => nameLabel(c);
// who sees a pile's cards (the rules' `pile "cup" face_down`): face_down shows a count only, like
// the draw pile; owner_only shows the cards, marked as known to their owners only
const pileSeen = (deck, pile) => ((D.hidden_piles || {})[deck] || {})[pile] || (pile === "draw" ? "face_down" : "face_up");
function cardChanges(before, after) {
  const out = [];
  const diff = (a, b) => [b.filter((c) => !a.includes(c)), a.filter((c) => !b.includes(c))];
  for (const side of new Set([...Object.keys(before.hands), ...Object.keys(after.hands)])) {
    const [gained, lost] = diff(before.hands[side] || [], after.hands[side] || []);
    if (gained.length || lost.length)
      out.push(`<span class="side-chip" style="background:${sideColor(side)}"></span>${esc(sideLabel(side))} hand: ` +
               gained.map((c) => "+" + esc(cardLabel(c))).concat(lost.map((c) => "−" + esc(cardLabel(c)))).join(", "));
  }
  for (const deck in after.decks) for (const pile in after.decks[deck]) {
    if (pileSeen(deck, pile) === "face_down") continue;  // a face-down pile's order is secret: its count shows in the cards panel
    const [gained, lost] = diff((before.decks[deck] || {})[pile] || [], after.decks[deck][pile]);
    const secret = pileSeen(deck, pile) === "owner_only" ? ` <span class="muted">(known to its owner only)</span>` : "";
    if (gained.length || lost.length)
      out.push(`${esc(nameLabel(deck))}, ${esc(PILES[pile] || varLabel(pile))}: ` +
               gained.map((c) => "+" + esc(cardLabel(c))).concat(lost.map((c) => "−" + esc(cardLabel(c)))).join(", ") + secret);
  }
  return out;
}
function cardsHtml(c) {
  if (!c || (!Object.keys(c.hands).length && !Object.keys(c.decks).length)) return "";
  const hands = D.sides.filter((sd) => c.hands[sd.name] !== undefined).map((sd) => {
    const cards = c.hands[sd.name];
    return `<div class="box"><h4><span class="side-chip" style="background:${sd.color}"></span>${esc(sd.label)} hand <span class="muted">(${cards.length})</span></h4>` +
      (cards.length ? `<ul class="cards">${cards.map((x) => `<li>${esc(cardLabel(x))}</li>`).join("")}</ul>` : `<span class="muted">empty</span>`) + "</div>";
  });
  const decks = Object.keys(c.decks).map((d) => {
    const piles = c.decks[d];
    const rows = Object.keys(piles).map((pile) => {
      const cards = piles[pile];
      const seen = pileSeen(d, pile);
      const shown = seen === "face_down" || !cards.length ? "" : `: ${cards.map((x) => esc(cardLabel(x))).join(" · ")}`;
      const note = seen === "face_down" ? ` <span class="muted">(face down)</span>`
        : seen === "owner_only" && cards.length ? ` <span class="muted">(known to its owner only)</span>` : "";
      return `<li><b>${esc(PILES[pile] || varLabel(pile))}</b> ${cards.length}${shown}${note}</li>`;
    });
    return `<div class="box"><h4>${esc(nameLabel(d))}</h4><ul class="cards">${rows.join("")}</ul></div>`;
  });
  return `<h3>Cards</h3>${hands.join("")}${decks.join("")}`;
}

/* Every global and side variable at this step, those the step changed marked. */
function variablesHtml(s) {
  const globals = Object.keys(pos.v).sort();
  const sideNames = [...new Set(Object.values(pos.sv).flatMap((vals) => Object.keys(vals)))].sort();
  if (!globals.length && !sideNames.length) return "";
  const row = (k, hit, value) => `<tr><td>${esc(varLabel(k))}</td><td class="${hit ? "changed" : ""}">${value}</td></tr>`;
  const g = globals.map((k) => row(k, s.v && k in s.v, esc(fmt(pos.v[k], pos))));
  const sv = sideNames.map((k) => `<tr><td>${esc(varLabel(k))}</td>${D.sides.map((sd) => {
    const hit = s.sv && s.sv[sd.name] && k in s.sv[sd.name];
    const v = (pos.sv[sd.name] || {})[k];
    return `<td class="${hit ? "changed" : ""}">${v === undefined ? "" : esc(fmt(v, pos))}</td>`;
  }).join("")}</tr>`);
  const changed = Object.keys(s.v || {}).length + Object.values(s.sv || {}).reduce((n, vals) => n + Object.keys(vals).length, 0);
  return `<details class="variables"><summary><h3>Variables${changed ? ` <span class="badge">${changed} changed</span>` : ""}</h3></summary>` +
    (g.length ? `<table class="kv vars">${g.join("")}</table>` : "") +
    (sv.length ? `<table class="kv vars"><tr><td></td>${D.sides.map((sd) => `<td><span class="side-chip" style="background:${sd.color}"></span>${esc(sd.label)}</td>`).join("")}</tr>${sv.join("")}</table>` : "") +
    "</details>";
}

function entryTitle(e) {
  if (!e) return "Set-up";
  if (e.k === "action") return e.title;
  if (e.k === "pass") return `${sideLabel(e.side)} passes`;
  if (e.k === "end") return `Game over: ${e.winner ? sideLabel(e.winner) + " wins" : "no winner"}`;
  return e.what || "Automatic rules";
}

function renderStep() {
  const tab = $("tab-step");
  const e = currentEntry();
  const parts = [];
  if (!e) {
    parts.push(`<h2>Set-up</h2><p class="where">${esc(D.scenario)} · seed ${esc(D.seed)} · ${N} steps${D.complete ? "" : " (the log stops before the game's end)"}</p>`);
    parts.push(`<p>Step through the game with <kbd>→</kbd>, or press <b>Play</b>. Every position is the engine's own, replayed from the log.</p>`);
    const count = (side, on) => [...pos.units.values()].filter((r) => sideName(r) === side && !!B.points[r[U.loc]] === on && (on || r[U.loc] !== null || r[U.box])).length;
    parts.push(`<table class="kv"><tr><td></td><td>on the map</td><td>off the map</td></tr>${D.sides.map((sd) =>
      `<tr><td><span class="side-chip" style="background:${sd.color}"></span>${esc(sd.label)}</td><td>${count(sd.name, true)}</td><td>${count(sd.name, false)}</td></tr>`).join("")}</table>`);
    const actions = D.steps.filter((st) => st.e.k === "action").length;
    const combats = D.steps.filter((st) => st.ev && st.ev.dice).length;
    parts.push(`<p class="muted">Turns ${esc(D.first_turn)}–${esc(D.last_turn ?? "?")}; this record: ${actions} actions, ${combats} steps with dice (<kbd>c</kbd> goes to the next one).</p>`);
    parts.push(variablesHtml({}));
    tab.innerHTML = parts.join("");
    return;
  }
  const s = D.steps[cur - 1];
  const before = positionAt(cur - 1);
  const where = [`step ${cur} of ${N}`, D.last_turn !== null && e.turn > D.last_turn ? "after the last turn" : `turn ${e.turn}`];
  if (e.phase) where.push(esc(phaseLabel(e.phase)));
  const side = e.side ? `<span class="side-chip" style="background:${sideColor(e.side)}"></span>${esc(sideLabel(e.side))}` : "";
  parts.push(`<p class="where">${where.join(" · ")}${side ? " · " + side : ""}</p>`);
  parts.push(`<h2>${esc(entryTitle(e))}${citeLinks(e.cites)}${e.hidden_from ? `<span class="badge hidden" title="Other sides would not see this: the replay shows everything">hidden from ${esc(e.hidden_from.map(sideLabel).join(", "))}</span>` : ""}</h2>`);
  if (e.args && e.args.length) parts.push(`<ul class="args">${e.args.map(([k, v]) => `<li><b>${esc(varLabel(k))}</b>${esc(v)}</li>`).join("")}</ul>`);
  if (e.k === "end") {
    if (e.reason) parts.push(`<p>${esc(e.reason)}${e.sudden_death ? " (before the last turn)" : ""}</p>`);
    const names = [...new Set(Object.values(e.sides || {}).flatMap((vals) => Object.keys(vals)))];
    const globals = D.pins.filter(([scope]) => scope === "var").map(([, n]) => n);
    if (names.length || globals.length) {
      parts.push(`<h3>Final</h3><table class="kv">${globals.map((n) => `<tr><td>${esc(varLabel(n))}</td><td colspan="${D.sides.length}"><b>${esc(fmt(pos.v[n], pos))}</b></td></tr>`).join("")}` +
        (names.length ? `<tr><td></td>${D.sides.map((sd) => `<td><span class="side-chip" style="background:${sd.color}"></span>${esc(sd.label)}</td>`).join("")}</tr>` : "") +
        names.map((n) => `<tr><td>${esc(varLabel(n))}</td>${D.sides.map((sd) => `<td>${esc(fmt(((e.sides || {})[sd.name] || {})[n], pos))}</td>`).join("")}</tr>`).join("") + "</table>");
    }
  }
  const ev = s.ev || {};
  if (ev.dice && ev.dice.length) {
    parts.push(`<h3>Dice</h3><div class="dice-row">${ev.dice.map((d) => `<span>${diceHtml(d)}<span class="dice-total">${d.total}</span></span>`).join("")}</div>`);
  }
  const items = happenedItems(s, before);
  if (items.length) parts.push(`<h3>What happened</h3><ul class="happened">${items.map((i) => `<li>${i}</li>`).join("")}</ul>`);
  else if (e.k === "pass") parts.push(`<p class="muted">No more actions in this phase.</p>`);
  if (s.t && s.t.length) parts.push(`<h3>Explanation</h3><div class="trace">${traceHtml(s.t, 0)}</div>`);
  else if (e.k !== "pass" && e.k !== "end") parts.push(`<p class="muted">No explanation was recorded for this step.</p>`);
  parts.push(variablesHtml(s));
  if (e.choices && e.choices.length) {
    parts.push(`<h3>Decisions</h3><ul class="happened">${e.choices.map((c) => `<li>${esc(sideLabel(c.by))} chooses ${esc(varLabel(c.choice))}: ${esc(fmt(c.value, before))}</li>`).join("")}</ul>`);
  }
  tab.innerHTML = parts.join("");
}

// ------------------------------------------------------------------ off the map
function boxTitle(box) {
  if (!box) return "Off the map";
  if (B.info[box] && B.info[box].name) return B.info[box].name;
  return box.charAt(0).toUpperCase() + box.slice(1).replace(/_/g, " ");
}
function chipHtml(g) {
  const sel = selectedUnit !== null && g.ids.includes(selectedUnit) ? " selected" : "";
  const n = g.ids.length > 1 ? `<span class="n">×${g.ids.length}</span>` : "";
  const names = g.ids.map((id) => unitName(id, pos.units.get(id))).join("\n");
  return `<span class="chip counter${sel}" data-units="${g.ids.join(" ")}" data-loc="${esc(placeKey(g.rec))}" title="${esc(names)}"><svg viewBox="0 0 ${D.symbols.size} ${D.symbols.size}"><use href="#${g.sym}"/></svg>${n}</span>`;
}
function renderOffmap(st) {
  const order = [...st.off.keys()].sort((a, b) => {
    const rank = (k) => (k === "box:eliminated" ? 2 : k.startsWith("box:") ? 1 : 0);
    return rank(a) - rank(b) || a.localeCompare(b);
  });
  const html = order.map((key) => {
    const groups = st.off.get(key);
    const count = groups.reduce((n, g) => n + g.ids.length, 0);
    const title = key.startsWith("box:") ? boxTitle(key.slice(4)) : boxTitle(key);
    return `<div class="box"><h4>${esc(title)} <span class="muted">(${count})</span></h4><div class="chips">${groups.map(chipHtml).join("")}</div></div>`;
  });
  $("tab-offmap").innerHTML = (html.length ? html.join("") : `<p class="muted">No unit is off the map.</p>`) + cardsHtml(pos.c);
  const tabButton = document.querySelector('#tabs [data-tab="offmap"]');
  const total = [...st.off.values()].reduce((n, gs) => n + gs.reduce((m, g) => m + g.ids.length, 0), 0);
  tabButton.textContent = `Off map (${total})`;
}

// ------------------------------------------------------------------ a unit, a location
function unitValues(r) {
  const t = typeOf(r);
  return t.values[String(Math.max(1, Math.min(r[U.steps], t.max)))] || {};
}
function renderUnit(id) {
  const r = pos.units.get(id);
  if (!r) { $("tab-detail").innerHTML = `<p class="muted">Unit #${id} is not in play at this step.</p>`; return; }
  const t = typeOf(r);
  const rows = [];
  rows.push(["type", esc(t.label) + (t.provisional ? ' <span class="badge" title="values marked provisional in the rules">provisional</span>' : "")]);
  rows.push(["side", `<span class="side-chip" style="background:${sideColor(sideName(r))}"></span>${esc(sideLabel(sideName(r)))}`]);
  rows.push(["where", r[U.loc] !== null ? locLink(r[U.loc]) : esc(boxTitle(r[U.box]))]);
  rows.push(["steps", `${r[U.steps]} of ${t.max}`]);
  if (t.classes.length) rows.push(["classes", esc(t.classes.join(", "))]);
  if (r[U.markers].length) rows.push(["markers", esc(r[U.markers].map((m) => D.markers[m] || nameLabel(m)).join(", "))]);
  const vals = unitValues(r);
  const valueRows = Object.keys(vals).filter((k) => k !== "steps").map((k) => [varLabel(k), esc(fmt(vals[k], pos))]);
  const varRows = Object.keys(r[U.vars]).map((k) => [varLabel(k), esc(fmt(r[U.vars][k], pos))]);
  const hist = (D.history[id] || []).map((k) => {
    const e = D.steps[k - 1].e;
    const mine = happenedItems(D.steps[k - 1], positionAt(k - 1)).filter((h) => h.includes(`data-unit="${id}"`));
    const what = mine.length ? mine.join("; ") : esc(entryTitle(e));
    return `<li class="${k === cur ? "current" : ""}"><a data-step="${k}">T${esc(e.turn)} ${esc(phaseLabel(e.phase))}</a>: ${what}</li>`;
  });
  $("tab-detail").innerHTML = `
    <div class="unit-head"><svg viewBox="0 0 ${D.symbols.size} ${D.symbols.size}"><use href="#${symbolOf(r)}"/></svg>
    <div><h2>${esc(r[U.label])} <span class="muted">#${id}</span></h2>
    <table class="kv">${rows.map(([k, v]) => `<tr><td>${esc(k)}</td><td>${v}</td></tr>`).join("")}</table></div></div>
    <h3>Values at ${r[U.steps]} step${r[U.steps] === 1 ? "" : "s"}</h3>
    <table class="kv">${valueRows.map(([k, v]) => `<tr><td>${esc(k)}</td><td>${v}</td></tr>`).join("") || "<tr><td>none</td></tr>"}</table>
    ${varRows.length ? `<h3>Variables</h3><table class="kv">${varRows.map(([k, v]) => `<tr><td>${esc(k)}</td><td>${v}</td></tr>`).join("")}</table>` : ""}
    <h3>History (${hist.length})</h3><ul class="history">${hist.join("") || "<li class='muted'>Nothing happened to it.</li>"}</ul>
    ${alsoHere(id, r)}`;
}
/* The other units in the same place (a stack, a box): each a link to its own panel. */
function alsoHere(id, r) {
  const key = placeKey(r);
  const others = [...pos.units.entries()].filter(([other, o]) => other !== id && placeKey(o) === key).map(([other]) => other);
  if (!others.length) return "";
  return `<h3>Also here (${others.length})</h3><ul class="history">${others.map((o) => `<li>${unitLink(o)}</li>`).join("")}</ul>`;
}
function locationHtml(loc, brief) {
  const i = B.info[loc] || {};
  const lines = [];
  if (i.terrain) lines.push(["terrain", esc(i.terrain)]);
  if (i.features) lines.push(["features", esc(i.features.join(", "))]);
  for (const k in i.attrs || {}) lines.push([k, esc(i.attrs[k])]);
  if (i.edges && !brief) for (const [n, f] of i.edges) lines.push([`side to ${n}`, esc(f.join(", "))]);
  for (const k in pos.lv[loc] || {}) {
    const v = pos.lv[loc][k];
    if (v === null || v === false || v === 0 || (Array.isArray(v) && !v.length)) continue;
    const chip = v && typeof v === "object" && sideOf(v.name) ? `<span class="side-chip" style="background:${sideColor(v.name)}"></span>` : "";
    lines.push([varLabel(k), chip + esc(fmt(v, pos))]);
  }
  if ((pos.lm[loc] || []).length) lines.push(["markers", esc(pos.lm[loc].map((m) => D.markers[m] || nameLabel(m)).join(", "))]);
  const here = [...pos.units.entries()].filter(([, r]) => r[U.loc] === loc).map(([id]) => id);
  return { lines, here };
}
function renderLocation(loc) {
  const { lines, here } = locationHtml(loc, false);
  $("tab-detail").innerHTML = `<h2>${esc(locName(loc))}</h2>
    <table class="kv">${lines.map(([k, v]) => `<tr><td>${esc(k)}</td><td>${v}</td></tr>`).join("")}</table>
    <h3>Units (${here.length})</h3><ul class="history">${here.map((id) => `<li>${unitLink(id)}</li>`).join("") || "<li class='muted'>none</li>"}</ul>`;
}

// ------------------------------------------------------------------ the rules tab
let citedIndex = null;
function renderSection(number) {
  if (!citedIndex) {
    citedIndex = new Map();
    const visit = (nodes, k) => { for (const d of nodes) { for (const c of d.citations || []) { if (!citedIndex.has(c)) citedIndex.set(c, new Set()); citedIndex.get(c).add(k); } visit(d.steps || [], k); } };
    D.steps.forEach((s, i) => { visit(s.t || [], i + 1); for (const c of s.e.cites || []) { if (!citedIndex.has(c)) citedIndex.set(c, new Set()); citedIndex.get(c).add(i + 1); } });
  }
  const chain = [];
  const parts = number.split(".");
  for (let i = 1; i <= parts.length; i++) {
    const n = parts.slice(0, i).join(".");
    if (D.sections[n]) chain.push(`§${esc(n)} ${esc(D.sections[n])}`);
  }
  const steps = [...(citedIndex.get(number) || [])].sort((a, b) => a - b);
  const list = steps.slice(0, 200).map((k) => `<li class="${k === cur ? "current" : ""}"><a data-step="${k}">step ${k}</a>: T${esc(D.steps[k - 1].e.turn)} ${esc(phaseLabel(D.steps[k - 1].e.phase))} · ${esc(entryTitle(D.steps[k - 1].e))}</li>`);
  $("tab-rules").innerHTML = `<h2>§${esc(number)} ${esc(D.sections[number] || "")}</h2>
    ${D.sections[number] ? "" : `<p class="muted">This number is not listed in the game's sections.</p>`}
    <p class="where">${chain.join(" › ")}</p>
    <h3>Applied in this game (${steps.length} step${steps.length === 1 ? "" : "s"})</h3>
    <ul class="history">${list.join("")}${steps.length > 200 ? "<li class='muted'>…</li>" : ""}</ul>`;
  showTab("rules");
}

// ------------------------------------------------------------------ hover and click on the map
function hover(e) {
  const p = svgPoint(e);
  const loc = locationAt(p.x, p.y);
  const tip = $("tooltip");
  const ring = $("layer-hover");
  if (!loc) { tip.hidden = true; clear(ring); return; }
  if (tip.dataset.loc !== loc || tip.hidden) {
    tip.dataset.loc = loc;
    const { lines, here } = locationHtml(loc, true);
    const units = here.slice(0, 12).map((id) => { const r = pos.units.get(id); return `<li><span class="side-chip" style="background:${sideColor(sideName(r))}"></span>${esc(unitName(id, r))}</li>`; });
    if (here.length > 12) units.push(`<li class="muted">… ${here.length - 12} more</li>`);
    tip.innerHTML = `<h4>${esc(locName(loc))}</h4>${lines.map(([k, v]) => `<div><span class="muted">${esc(k)}:</span> ${v}</div>`).join("")}${units.length ? `<ul>${units.join("")}</ul>` : ""}`;
    clear(ring);
    const q = B.points[loc];
    if (HEX) el("circle", { class: "hover-ring", cx: q[0], cy: q[1], r: B.radius * 0.9 }, ring);
    else { const [ax, ay, aw, ah] = B.areas[loc]; el("rect", { class: "hover-ring", x: ax - 6, y: ay - 22, width: aw + 12, height: ah + 46, rx: 10 }, ring); }
  }
  tip.hidden = false;
  const wrap = $("map-wrap").getBoundingClientRect();
  let x = e.clientX - wrap.left + 16, y = e.clientY - wrap.top + 16;
  if (x + tip.offsetWidth > wrap.width - 4) x = e.clientX - wrap.left - tip.offsetWidth - 12;
  if (y + tip.offsetHeight > wrap.height - 4) y = Math.max(4, e.clientY - wrap.top - tip.offsetHeight - 12);
  tip.style.left = x + "px"; tip.style.top = y + "px";
}
function click(e) {
  const target = document.elementFromPoint(e.clientX, e.clientY);
  const counter = target && target.closest(".counter");
  if (counter) { selectUnit(+counter.dataset.units.split(" ")[0]); return; }
  const p = svgPoint(e);
  const loc = locationAt(p.x, p.y);
  if (loc) { selectedUnit = null; selectedLoc = loc; renderLocation(loc); showTab("detail"); renderUnits(stacks()); }
}
function selectUnit(id) {
  selectedUnit = id; selectedLoc = null;
  renderUnit(id);
  showTab("detail");
  const st = stacks();
  renderUnits(st);
  renderOffmap(st);
}

// ------------------------------------------------------------------ tabs, layers, timeline
function showTab(name) {
  for (const b of document.querySelectorAll("#tabs button")) b.setAttribute("aria-selected", b.dataset.tab === name ? "true" : "false");
  for (const t of document.querySelectorAll(".tab")) t.classList.toggle("active", t.id === "tab-" + name);
}
function buildLayers() {
  const box = $("layers");
  const opts = [["action", "Action"], ["markers", "Markers"]];
  if (controlVar) opts.unshift(["control", "Control"]);
  box.innerHTML = opts.map(([k, l]) => `<label><input type="checkbox" data-layer="${k}" checked> ${l}</label>`).join("") +
    (D.control.length > 1 ? ` <label>by <select id="control-var" aria-label="The location variable whose side colours the map">${D.control.map((v) => `<option value="${esc(v)}">${esc(varLabel(v))}</option>`).join("")}</select></label>` : "") +
    `<label title="Keep the current action in view (f)"><input type="checkbox" id="follow" checked> Follow</label>`;
  box.addEventListener("change", (e) => {
    if (e.target.dataset.layer) { layers[e.target.dataset.layer] = e.target.checked; render({ keepView: true }); }
    if (e.target.id === "follow") follow = e.target.checked;
    if (e.target.id === "control-var") { controlVar = e.target.value; renderControl(); }
  });
}
function turnLabel(turn) { return D.last_turn !== null && turn > D.last_turn ? "End" : "T" + turn; }
function buildTimeline() {
  const slider = $("slider");
  slider.max = N;
  const sel = $("segment");
  const byTurn = new Map();
  D.segments.forEach((seg, i) => { if (!byTurn.has(seg.turn)) byTurn.set(seg.turn, []); byTurn.get(seg.turn).push(i); });
  let html = `<option value="0">Set-up</option>`;
  for (const [turn, segs] of byTurn) {
    html += `<optgroup label="${D.last_turn !== null && turn > D.last_turn ? "After the last turn" : "Turn " + esc(turn)}">` + segs.map((i) => {
      const s = D.segments[i];
      const label = s.label + (s.side ? ` – ${sideLabel(s.side)}` : "");
      const text = D.last_turn !== null && turn > D.last_turn ? label : `${turnLabel(turn)} ${label}`;
      return `<option value="${s.start}">${esc(text)}</option>`;
    }).join("") + "</optgroup>";
  }
  sel.innerHTML = html;
  const ticks = $("ticks");
  const turns = [...byTurn.keys()];
  const every = Math.max(1, Math.ceil(turns.length / 12));
  ticks.innerHTML = turns.filter((t, i) => i % every === 0).map((t) => {
    const first = D.segments[byTurn.get(t)[0]].start;
    return `<span style="left:${(first / Math.max(N, 1)) * 100}%">${esc(turnLabel(t))}</span>`;
  }).join("");
}
function segmentIndex(k) {
  let found = -1;
  for (let i = 0; i < D.segments.length && D.segments[i].start <= k; i++) found = i;
  return found;
}
function renderTimeline() {
  $("slider").value = cur;
  $("counter").textContent = `${cur} / ${N}`;
  const i = segmentIndex(cur);
  $("segment").value = i >= 0 ? String(D.segments[i].start) : "0";
  $("prev").disabled = cur === 0; $("first").disabled = cur === 0;
  $("next").disabled = cur === N; $("last").disabled = cur === N;
}
function render(opts) {
  const st = stacks();
  renderControl();
  renderLocMarkers();
  renderEvents();
  renderUnits(st);
  renderOffmap(st);
  renderStatus();
  renderStep();
  renderTimeline();
  if (selectedUnit !== null && document.querySelector('#tabs [data-tab="detail"]').getAttribute("aria-selected") === "true") renderUnit(selectedUnit);
  else if (selectedLoc !== null) renderLocation(selectedLoc);
  if (follow && !opts.keepView && cur > 0) {
    const ev = D.steps[cur - 1].ev;
    if (ev && ev.focus) centerOn(ev.focus);
  }
}

const ICONS = {
  play: '<svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M4 2v12l9-6z" fill="currentColor"/></svg>',
  pause: '<svg viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M3 2h4v12H3zM9 2h4v12H9z" fill="currentColor"/></svg>',
};
let timer = null;
function play(on) {
  if (on === undefined) on = timer === null;
  if (timer !== null) { clearInterval(timer); timer = null; }
  if (on) {
    if (cur === N) go(0);
    timer = setInterval(() => {  // a pass shows nothing: playing goes on to the next step that does something
      if (cur >= N) { play(false); return; }
      let k = cur + 1;
      while (k < N && D.steps[k - 1].e.k === "pass") k++;
      go(k);
    }, +$("speed").value);
  }
  $("play").innerHTML = timer !== null ? ICONS.pause + '<span class="words"> Pause</span>' : ICONS.play + '<span class="words"> Play</span>';
}
function jumpSegment(delta) {
  const i = segmentIndex(cur);
  if (delta < 0 && i >= 0 && D.segments[i].start < cur) { go(D.segments[i].start); return; }
  const j = i + delta;
  if (j < 0) go(0); else if (j < D.segments.length) go(D.segments[j].start); else go(N);
}
function jumpTurn(delta) {
  const e = currentEntry();
  const turn = e ? e.turn : D.first_turn - 1;
  if (delta > 0) { const s = D.segments.find((g) => g.turn > turn); go(s ? s.start : N); }
  else {
    const starts = D.segments.filter((g) => g.turn === turn);
    if (starts.length && starts[0].start < cur) { go(starts[0].start); return; }
    const prev = D.segments.filter((g) => g.turn < turn);
    if (!prev.length) { go(0); return; }
    const t = prev[prev.length - 1].turn;
    go(D.segments.find((g) => g.turn === t).start);
  }
}
function nextWhere(test) {
  for (let k = cur + 1; k <= N; k++) if (test(D.steps[k - 1])) { go(k); return; }
  go(N);
}

$("first").onclick = () => go(0);
$("prev").onclick = () => go(cur - 1);
$("next").onclick = () => go(cur + 1);
$("last").onclick = () => go(N);
$("play").onclick = () => play();
$("speed").onchange = () => { if (timer !== null) play(true); };
$("slider").oninput = (e) => go(+e.target.value);
$("segment").onchange = (e) => go(+e.target.value);
$("zoom-in").onclick = () => zoomBy(1.4);
$("zoom-out").onclick = () => zoomBy(1 / 1.4);
$("zoom-fit").onclick = fitAll;
$("help-button").onclick = () => { $("help").hidden = false; };
$("help-close").onclick = () => { $("help").hidden = true; };
$("help").onclick = (e) => { if (e.target.id === "help") $("help").hidden = true; };
for (const b of document.querySelectorAll("#tabs button")) b.onclick = () => showTab(b.dataset.tab);
document.addEventListener("click", (e) => {
  const a = e.target.closest("a[data-unit], a[data-loc], a[data-step], a[data-section], .chip");
  if (!a) return;
  e.preventDefault();
  if (a.classList.contains("chip")) selectUnit(+a.dataset.units.split(" ")[0]);
  else if (a.dataset.unit) selectUnit(+a.dataset.unit);
  else if (a.dataset.loc) { selectedUnit = null; selectedLoc = a.dataset.loc; renderLocation(a.dataset.loc); showTab("detail"); centerOn([a.dataset.loc]); }
  else if (a.dataset.step) go(+a.dataset.step);
  else if (a.dataset.section) renderSection(a.dataset.section);
});
document.addEventListener("keydown", (e) => {
  if (e.target.matches("input[type=text], textarea") || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.target.matches("select") && ["ArrowUp", "ArrowDown"].includes(e.key)) return;
  const k = e.key;
  let handled = true;
  if (k === "ArrowRight") e.shiftKey ? jumpSegment(1) : go(cur + 1);
  else if (k === "ArrowLeft") e.shiftKey ? jumpSegment(-1) : go(cur - 1);
  else if (k === "PageDown" || k === "]") jumpTurn(1);
  else if (k === "PageUp" || k === "[") jumpTurn(-1);
  else if (k === "Home") go(0);
  else if (k === "End") go(N);
  else if (k === " ") play();
  else if (k === "a") nextWhere((s) => s.e.k !== "pass" && (s.ev || s.v || s.sv));
  else if (k === "c") nextWhere((s) => s.ev && s.ev.dice);
  else if (k === "+" || k === "=") zoomBy(1.4);
  else if (k === "-" || k === "_") zoomBy(1 / 1.4);
  else if (k === "0") fitAll();
  else if (k === "f") { follow = !follow; $("follow").checked = follow; }
  else if (k >= "1" && k <= "4") showTab(["step", "detail", "offmap", "rules"][+k - 1]);
  else if (k === "?") $("help").hidden = !$("help").hidden;
  else if (k === "Escape") { $("help").hidden = true; selectedUnit = null; selectedLoc = null; render({ keepView: true }); }
  else handled = false;
  if (handled) e.preventDefault();
});
window.addEventListener("resize", () => { measureMap(); setView(view.x, view.y, view.w, view.h); drawBoard(true); });

// ------------------------------------------------------------------ the board image
/* The board image (the shared renderer's SVG) is shipped gzipped - a large map's SVG is megabytes
   of text - and inflated by the browser's own DecompressionStream. It is drawn on a canvas under
   the SVG of counters and arrows: from a bitmap made once while the view moves (a map of thousands
   of hexes is too slow to rasterise at every frame), then from the vector image itself once the
   view rests, so it stays sharp at any zoom. */
const boardCanvas = $("board-canvas");
const boardContext = boardCanvas.getContext("2d");
const board = { image: null, bitmap: null, scale: 1, frame: 0, sharp: 0 };
const BITMAP_PIXELS = 16e6;  // the bitmap's budget (phones refuse larger canvases)

async function loadBoard() {
  const text = $("board-image").textContent.trim();
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  if (typeof DecompressionStream === "undefined") throw new Error("this browser cannot inflate the board image (DecompressionStream)");
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  const svg = await new Response(stream).blob();
  const url = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
  const image = new Image();
  image.src = url;
  try { await image.decode(); } catch (err) { throw new Error("the board image did not load"); }
  board.image = image;
  board.scale = Math.min(2, Math.sqrt(BITMAP_PIXELS / (B.width * B.height)));
  const c = document.createElement("canvas");
  c.width = Math.round(B.width * board.scale);
  c.height = Math.round(B.height * board.scale);
  c.getContext("2d").drawImage(image, 0, 0, c.width, c.height);
  board.bitmap = c;
  drawBoard(false);
  drawBoard(true);
}
function drawBoard(sharp) {
  const dpr = window.devicePixelRatio || 1;
  const cw = Math.max(1, Math.round(mapSize.width * dpr)), ch = Math.max(1, Math.round(mapSize.height * dpr));
  if (boardCanvas.width !== cw || boardCanvas.height !== ch) { boardCanvas.width = cw; boardCanvas.height = ch; }
  const g = boardContext;
  g.clearRect(0, 0, cw, ch);
  if (!board.image) return;
  const x0 = Math.max(0, view.x), y0 = Math.max(0, view.y);
  const x1 = Math.min(B.width, view.x + view.w), y1 = Math.min(B.height, view.y + view.h);
  if (x1 <= x0 || y1 <= y0) return;
  const k = cw / view.w;  // canvas pixels per board pixel
  const src = sharp ? board.image : board.bitmap, s = sharp ? 1 : board.scale;
  g.imageSmoothingEnabled = true;
  g.imageSmoothingQuality = "high";
  g.drawImage(src, x0 * s, y0 * s, (x1 - x0) * s, (y1 - y0) * s, (x0 - view.x) * k, (y0 - view.y) * k, (x1 - x0) * k, (y1 - y0) * k);
}
function requestBoard() {
  if (!board.image) return;
  if (!board.frame) board.frame = requestAnimationFrame(() => { board.frame = 0; drawBoard(false); });
  clearTimeout(board.sharp);
  board.sharp = setTimeout(() => drawBoard(true), 160);
}

// ------------------------------------------------------------------ start
measureMap();
buildLayers();
buildTimeline();
(function start() {
  const m = /step=(\d+)/.exec(location.hash);
  const k = m ? +m[1] : 0;
  const p = positionAt(k);
  // the units in view, as wide as counters stay readable, around the action of the step shown
  const ev = k > 0 ? D.steps[k - 1].ev : null;
  const focus = ev && ev.focus ? focusBox(ev.focus) : null;
  const pts = focus ? [] : [...p.units.values()].map((r) => r[U.loc] !== null && B.points[r[U.loc]]).filter(Boolean);
  if (focus) fitReadable(...focus);
  else if (pts.length) {
    const xs = pts.map((q) => q[0]).sort((a, b) => a - b), ys = pts.map((q) => q[1]).sort((a, b) => a - b);
    if (xs[xs.length - 1] - xs[0] <= readableWidth()) fitReadable(xs[0], ys[0], xs[xs.length - 1], ys[ys.length - 1]);
    else {  // units spread wider than a readable view: around the middle one of them
      const mx = xs[xs.length >> 1], my = ys[ys.length >> 1];
      fitReadable(mx, my, mx, my);
      const w = readableWidth();
      setView(mx - w / 2, my - w / aspect() / 2, w, w / aspect());
    }
  } else fitAll();
  go(k, { keepView: true });
})();
window.viewer = { go, steps: N, get step() { return cur; }, position: () => pos };
loadBoard().then(() => { document.body.dataset.ready = "board"; }, (err) => {
  document.body.dataset.ready = "no-board";
  $("layers").insertAdjacentHTML("beforeend", `<span style="color:#b3261e">${esc(err.message)}</span>`);
});
