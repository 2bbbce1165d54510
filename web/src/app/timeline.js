// The run view: a case's `timeline` (cjudge.view.timeline) as a space-time diagram. One lane per
// rank, time across (dependency steps or modelled time), an arrow per message labelled with its
// size, collectives as bands, waits shaded, a deadlock's wait-for edges in red (dashed), a wrong
// answer's first wrong element and the message that last wrote into that rank, a too_slow run's
// critical path. Hover or focus shows a message's details; clicking it moves the editor's cursor
// to the line that sent it; play / pause / step walks through the run. Colours are Okabe–Ito's
// and never the only cue; every arrow is also a labelled, focusable element and a text row.
import { h } from "./dom.js";
import { pick } from "./i18n.js";
import { formatSeconds, formatSize } from "./units.js";

const SVG = "http://www.w3.org/2000/svg";
/** Above this many messages, arrows are drawn aggregated per (step range, sender, receiver). */
export const AGGREGATE_ABOVE = 800;
const TEXT_ROWS = 200;
const LEFT = 64, TOP = 34, LANE = 44, COL = 72, PAD = 7;

const S = {
  title: { en: "Run view · {name}", zh: "运行视图 · {name}" },
  summary: { en: "{ranks} ranks, {messages} messages, {steps} steps", zh: "{ranks} 个 rank，{messages} 条消息，{steps} 步" },
  steps: { en: "Steps", zh: "步数" },
  modelled: { en: "Modelled time ({size} on {topology})", zh: "建模时间（{topology} 上 {size}）" },
  clock: { en: "Time axis", zh: "时间轴" },
  play: { en: "Play", zh: "播放" },
  pause: { en: "Pause", zh: "暂停" },
  step: { en: "Step", zh: "单步" },
  position: { en: "Step {at} of {steps}", zh: "第 {at} / {steps} 步" },
  rank: { en: "rank {rank}", zh: "rank {rank}" },
  message: {
    en: "rank {src} → rank {dst}: {bytes} B, tag {tag}, sent at line {line}, received at line {recv}, step {step}{times}",
    zh: "rank {src} → rank {dst}：{bytes} 字节，tag {tag}，第 {line} 行发送，第 {recv} 行接收，第 {step} 步{times}",
  },
  times: { en: ", modelled {t0}–{t1}", zh: "，建模时间 {t0}–{t1}" },
  group: { en: "{count} messages rank {src} → rank {dst}, steps {from}–{to}, {bytes} B in all", zh: "rank {src} → rank {dst} 共 {count} 条消息，第 {from}–{to} 步，共 {bytes} 字节" },
  collective: { en: "{kind} over ranks {ranks} (line {line}), step {step}{times}", zh: "{kind}，成员 rank {ranks}（第 {line} 行），第 {step} 步{times}" },
  waits: { en: "rank {rank} waits on rank {on} in {kind} (line {line})", zh: "rank {rank} 在 {kind} 中等待 rank {on}（第 {line} 行）" },
  wrong: { en: "first wrong element: index {index}{chunk}", zh: "第一个错误元素：下标 {index}{chunk}" },
  chunk: { en: ", chunk {chunk}", zh: "，第 {chunk} 块" },
  lastWrite: { en: "last message into rank {rank}", zh: "最后一条写入 rank {rank} 的消息" },
  critical: { en: "critical path: {count} transfers, one after another", zh: "关键路径：{count} 次依次进行的传输" },
  legendMsg: { en: "message (bytes)", zh: "消息（字节）" },
  legendWait: { en: "waiting", zh: "等待" },
  legendCrit: { en: "critical path", zh: "关键路径" },
  legendDead: { en: "waits on (deadlock)", zh: "等待（死锁）" },
  legendWrong: { en: "wrong element / its last write", zh: "错误元素 / 最后写入" },
  asText: { en: "Messages as text", zh: "消息列表（文本）" },
  perfetto: { en: "Open in Perfetto", zh: "在 Perfetto 中打开" },
  perfettoTitle: { en: "This run as a Chrome trace, in ui.perfetto.dev (downloaded as a file when offline)", zh: "以 Chrome trace 格式在 ui.perfetto.dev 中查看本次运行（离线时下载为文件）" },
  cut: { en: "Only part of the run is shown: it had {what}.", zh: "只显示了运行的一部分：共有 {what}。" },
  textCut: { en: "… and {more} more", zh: "……还有 {more} 条" },
  aggregated: { en: "{count} messages: drawn per sender and receiver over step ranges.", zh: "{count} 条消息：按发送方、接收方和步数区间合并绘制。" },
  noView: { en: "No run view: {error}", zh: "没有运行视图：{error}" },
  drawing: { en: "Drawing the run view…", zh: "正在绘制运行视图……" },
  notKept: { en: "This run's view is no longer kept: run again to see it.", zh: "这次运行的视图已不再保留：再运行一次即可查看。" },
  hint: { en: "Hover an arrow for its details; click it to jump to the line that sent it.", zh: "把鼠标移到箭头上查看详情；点击可跳到发送它的代码行。" },
  hintTouch: { en: "Tap an arrow for its details and to jump to the line that sent it.", zh: "点按箭头查看详情，并跳到发送它的代码行。" },
  carries: { en: ", chunk {chunk} holding ranks {holds}", zh: "，第 {chunk} 块，含 rank {holds} 的数据" },
  buffers: { en: "Each rank's buffer at step {at}: one cell per chunk, with the ranks whose data it holds", zh: "第 {at} 步时各 rank 的缓冲区：每格一块，标出其中含有哪些 rank 的数据" },
  bufferCell: { en: "rank {rank}, chunk {chunk}: {holds}", zh: "rank {rank}，第 {chunk} 块：{holds}" },
  nothing: { en: "nothing yet", zh: "尚无数据" },
  chunkHead: { en: "chunk {chunk}", zh: "第 {chunk} 块" },
};

const say = (key, params = {}) => pick(S[key]).replace(/\{(\w+)\}/g, (_, k) => String(params[k] ?? ""));
const el = (tag, attrs = {}, ...children) => {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== null && v !== undefined) node.setAttribute(k, v);
  node.append(...children.flat().filter((c) => c != null));
  return node;
};
/** A size as an arrow's label: no space, so that it stays short ("500B"). */
const size = (b) => formatSize(b).replace(" ", "");
const seconds = (ns) => formatSeconds(ns / 1e9);

/** Arrows to draw: the messages, or groups of them per (step range, src, dst) for large runs. */
function arrows(view) {
  const msgs = view.messages;
  if (msgs.length <= AGGREGATE_ABOVE) return msgs.map((m) => ({ ...m, count: 1, from: m.step, to: m.step }));
  const span = Math.ceil(view.steps / Math.max(1, Math.floor(AGGREGATE_ABOVE / view.world_size)));
  const groups = new Map();
  for (const m of msgs) {
    const bucket = Math.floor((m.step - 1) / span);
    const key = `${bucket}:${m.src}:${m.dst}`;
    const g = groups.get(key);
    if (!g) groups.set(key, { ...m, count: 1, from: m.step, to: m.step, bytes: m.bytes });
    else {
      g.count += 1;
      g.bytes += m.bytes;
      g.from = Math.min(g.from, m.step);
      g.to = Math.max(g.to, m.step);
      g.t0 = Math.min(g.t0 ?? Infinity, m.t0 ?? Infinity);
      g.t1 = Math.max(g.t1 ?? -Infinity, m.t1 ?? -Infinity);
    }
  }
  return [...groups.values()];
}

/** Points along an arrow tried for its label, from the middle outwards. */
const ALONG = [0.5, ...Array.from({ length: 22 }, (_, k) => 0.5 + (k % 2 ? -1 : 1) * 0.04 * (1 + (k >> 1)))];
const CHAR_W = 6.6; // an 11 px label's widest character, so that an estimated box holds the drawn one

/**
 * Where each arrow's label goes (its baseline's middle): the arrow's midpoint unless that box
 * meets a label placed already, else the free point nearest the middle along the arrow. Arrows
 * across fewer lanes are placed first, so a ring's wrap-around arrow (last rank → rank 0), whose
 * midpoint is its neighbours' label spot, is the one that moves.
 */
function placeLabels(drawn) {
  const placed = [];
  const spots = [];
  const order = drawn.map((_, i) => i).sort((i, j) => Math.abs(drawn[i].y2 - drawn[i].y1) - Math.abs(drawn[j].y2 - drawn[j].y1));
  for (const i of order) {
    const { x1, y1, x2, y2, label } = drawn[i];
    const half = (label.length * CHAR_W) / 2;
    const at = (t) => {
      const x = x1 + (x2 - x1) * t, y = y1 + (y2 - y1) * t - 4;
      return { x, y, left: x - half, right: x + half, top: y - 11, bottom: y + 4 };
    };
    const free = (s) => placed.every((p) => s.right <= p.left || p.right <= s.left || s.bottom <= p.top || p.bottom <= s.top);
    spots[i] = ALONG.map(at).find(free) ?? at(0.5);
    placed.push(spots[i]);
  }
  return spots;
}

const describe = (m, view) => (m.count > 1
  ? say("group", { count: m.count, src: m.src, dst: m.dst, from: m.from, to: m.to, bytes: m.bytes })
  : say("message", {
    src: m.src, dst: m.dst, bytes: m.bytes, tag: m.tag, line: m.line ?? "?", recv: m.recv_line ?? "?", step: m.step,
    times: (view.modelled && m.t0 != null ? say("times", { t0: seconds(m.t0), t1: seconds(m.t1) }) : "")
      + (m.chunk != null ? say("carries", { chunk: m.chunk, holds: runs(m.holds) }) : ""),
  }));

/** Each rank's buffer after step `at` (cjudge.view.buffers): per rank, per chunk, the ranks it holds. */
export function buffersAt(buffers, world, at) {
  const state = Array.from({ length: world }, (_, r) => Array.from({ length: buffers.chunks },
    (_, c) => (buffers.mode === "gather" && c !== r ? [] : [r])));
  for (const u of buffers.updates) if (u.step <= at) state[u.rank][u.chunk] = u.holds;
  return state;
}

/** Ranks as runs: [0, 2, 3, 4] → "0+2–4" (a cell stays narrow on 8 ranks). */
export const runs = (ranks) => ranks.reduce((out, r, i) => {
  if (i && r === ranks[i - 1] + 1) out[out.length - 1][1] = r;
  else out.push([r, r]);
  return out;
}, []).map(([a, b]) => (a === b ? `${a}` : `${a}–${b}`)).join("+");

/** The buffers table: a row per rank, a cell per chunk, filled by the share of ranks it holds. */
function buffersTable(view) {
  const { buffers } = view;
  const caption = h("caption", {});
  const cells = [];
  const body = Array.from({ length: view.world_size }, (_, r) => h("tr", {}, h("th", { scope: "row" }, say("rank", { rank: r })),
    Array.from({ length: buffers.chunks }, (_, c) => {
      const cell = h("td.tl-cell", { "data-rank": r, "data-chunk": c });
      cells.push(cell);
      return cell;
    })));
  const table = h("table.tl-buffers", {}, caption,
    h("thead", {}, h("tr", {}, h("td", {}), Array.from({ length: buffers.chunks }, (_, c) => h("th", { scope: "col" }, say("chunkHead", { chunk: c }))))),
    h("tbody", {}, body));
  const update = (at) => {
    caption.textContent = say("buffers", { at });
    const state = buffersAt(buffers, view.world_size, at);
    for (const cell of cells) {
      const r = Number(cell.dataset.rank), c = Number(cell.dataset.chunk);
      const holds = state[r][c];
      const full = buffers.mode === "gather" ? holds.length > 0 : holds.length === view.world_size;
      cell.textContent = holds.length ? runs(holds) : "·";
      cell.style.setProperty("--fill", buffers.mode === "gather" ? (holds.length ? 1 : 0) : holds.length / view.world_size);
      cell.classList.toggle("tl-full", full);
      cell.setAttribute("aria-label", say("bufferCell", { rank: r, chunk: c, holds: holds.length ? holds.join(", ") : say("nothing") }));
    }
  };
  return { table, update };
}

/** Waits of one rank that follow each other without a gap, merged (fewer elements to draw). */
function mergedWaits(waits, useTime) {
  const out = [];
  const last = new Map();
  for (const w of [...waits].sort((a, b) => a.rank - b.rank || a.s0 - b.s0)) {
    const prev = last.get(w.rank);
    const joins = prev && prev.s1 != null && (useTime ? prev.t1 === w.t0 : prev.s1 === w.s0);
    if (joins) Object.assign(prev, { s1: w.s1, t1: w.t1 });
    else {
      const copy = { ...w };
      out.push(copy);
      last.set(w.rank, copy);
    }
  }
  return out;
}

/** The SVG for `view` on the `clock` ("step" or "time"); `at`: the playback step shown. */
function draw(view, clock, options, info) {
  const steps = Math.max(view.steps, 1);
  const world = view.world_size;
  const width = LEFT + COL * steps;
  const useTime = clock === "time" && view.end_t > 0;
  const X = useTime ? (t) => LEFT + (width - LEFT) * (t / view.end_t) : null;
  const xs = (s) => LEFT + COL * s;
  const y = (r) => TOP + LANE * r + LANE / 2;
  const span = (step, t0, t1) => (useTime && t0 != null ? [X(t0), X(t1)] : [xs(step - 1), xs(step)]);
  const deadlocked = view.deadlock.length > 0;
  const wrong = view.wrong;
  const total = width + (deadlocked ? 250 : 0) + (wrong ? 190 : 0) + 16;
  const height = TOP + LANE * world + 8;
  const crit = new Set(view.too_slow ? view.critical.filter((c) => c.kind === "message").map((c) => c.id) : []);
  const svg = el("svg", { class: "tl-svg", width: total, height, viewBox: `0 0 ${total} ${height}`, role: "group", "aria-label": say("summary", { ranks: world, messages: view.messages.length, steps: view.steps }) });
  const grid = el("g", { class: "tl-grid", "aria-hidden": "true" });
  const ticks = Math.min(steps, 60);
  for (let i = 0; i <= ticks; i++) {
    const s = Math.round((i * steps) / ticks);
    const x = useTime ? LEFT + ((width - LEFT) * s) / steps : xs(s);
    grid.append(el("line", { x1: x, x2: x, y1: TOP - 4, y2: TOP + LANE * world }));
    if (i) grid.append(el("text", { x: x - (useTime ? 0 : COL / 2), y: TOP - 10, "text-anchor": "middle" },
      useTime ? seconds((view.end_t * s) / steps) : String(s)));
  }
  for (let r = 0; r < world; r++) {
    grid.append(el("line", { class: "tl-lane", x1: LEFT, x2: width, y1: y(r), y2: y(r) }),
      el("text", { class: "tl-rank", x: 6, y: y(r) + 4 }, say("rank", { rank: r })));
  }
  svg.append(grid);
  const layer = el("g", { class: "tl-waits", "aria-hidden": "true" });
  for (const w of mergedWaits(view.waits, useTime)) {
    const s1 = w.s1 ?? steps;
    const [a] = span(w.s0 + 1, w.t0, w.t1 ?? view.end_t);
    const [, b] = useTime && w.t0 != null ? span(0, w.t0, w.t1 ?? view.end_t) : [0, xs(s1)];
    const x0 = useTime ? a : xs(w.s0);
    if (b - x0 > 0.5) layer.append(el("rect", { class: "tl-wait", "data-step": w.s0 + 1, x: x0, y: y(w.rank) - 6, width: b - x0, height: 12 }));
  }
  svg.append(layer);
  for (const c of view.collectives) {
    const [a, b] = span(c.step, c.t0, c.t1);
    const rows = c.ranks.map(y);
    const text = say("collective", { kind: c.kind, ranks: c.ranks.join(", "), line: c.line ?? "?", step: c.step,
      times: view.modelled && c.t0 != null ? say("times", { t0: seconds(c.t0), t1: seconds(c.t1) }) : "" });
    const band = el("g", { class: "tl-band tl-item", "data-step": c.step, "data-line": c.line, tabindex: 0, role: "button", "aria-label": text },
      el("title", {}, text),
      el("rect", { x: a + 3, y: Math.min(...rows) - 14, width: Math.max(b - a - 6, 3), height: Math.max(...rows) - Math.min(...rows) + 28, rx: 5 }),
      el("text", { x: (a + b) / 2, y: Math.min(...rows) - 16, "text-anchor": "middle" }, c.kind));
    svg.append(band);
  }
  const drawn = arrows(view).map((m) => {
    const [a, b] = span(m.count > 1 ? m.from : m.step, m.t0, m.t1);
    const [, b2] = m.count > 1 && !useTime ? [0, xs(m.to)] : [0, b];
    const x1 = a + PAD;
    const label = m.count > 1 ? `×${m.count}` : `${size(m.bytes)}${m.chunk != null ? ` c${m.chunk}` : ""}`;
    return { m, x1, y1: y(m.src), x2: Math.max(b2 - PAD, x1 + 2), y2: y(m.dst), label };
  });
  const spots = placeLabels(drawn);
  drawn.forEach(({ m, x1, y1, x2, y2, label }, i) => {
    const kind = crit.has(m.id) ? ".tl-crit" : wrong && m.id === wrong.last_recv ? ".tl-last" : "";
    const text = describe(m, view);
    svg.append(el("g", {
      class: `tl-msg tl-item${kind.replace(".", " ")}`, "data-id": m.id, "data-step": m.to, "data-line": m.line,
      tabindex: 0, role: "button", "aria-label": `${label}: ${text}`, "data-detail": text, // the name starts with what the arrow shows
    },
    el("title", {}, text),
    el("line", { x1, y1, x2, y2, "marker-end": `url(#tl-head${kind ? kind.replace(".tl-", "-") : ""})` }),
    el("line", { class: "tl-hit", x1, y1, x2, y2 }),
    el("text", { x: spots[i].x, y: spots[i].y, "text-anchor": "middle" }, label)));
  });
  const defs = el("defs", {}, [["tl-head", "msg"], ["tl-head-crit", "crit"], ["tl-head-last", "dead"], ["tl-head-dead", "dead"]].map(([id, cls]) =>
    el("marker", { id, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
      el("path", { class: `tl-head-${cls}`, d: "M0,0 L10,5 L0,10 z" }))));
  svg.prepend(defs);
  if (wrong) {
    const chunk = wrong.chunk != null ? say("chunk", { chunk: wrong.chunk }) : "";
    const text = say("wrong", { index: wrong.index, chunk });
    svg.append(el("g", { class: "tl-wrong", "data-rank": wrong.rank, "data-chunk": wrong.chunk, "aria-label": text, role: "img" },
      el("circle", { cx: width + 12, cy: y(wrong.rank), r: 6 }),
      el("text", { x: width + 22, y: y(wrong.rank) + 4 }, `✗ ${text}`)));
  }
  const base = width + 14;
  view.deadlock.forEach((e, i) => {
    const y1 = y(e.rank), y2 = y(e.on);
    const bend = base + 30 + 14 * i + 8 * Math.abs(e.rank - e.on);
    const text = say("waits", { rank: e.rank, on: e.on, kind: e.kind, line: e.line ?? "?" });
    svg.append(el("g", { class: "tl-dead tl-item", "data-rank": e.rank, "data-on": e.on, "data-line": e.line, tabindex: 0, role: "button", "aria-label": text },
      el("title", {}, text),
      el("path", { d: `M${base},${y1} C${bend},${y1} ${bend},${y2} ${base + 4},${y2 - 3}`, "marker-end": "url(#tl-head-dead)" }),
      el("text", { x: base + 88, y: y1 + 4 }, text)));
  });
  svg.addEventListener("click", (event) => {
    const item = event.target.closest?.(".tl-item");
    const line = Number(item?.getAttribute("data-line"));
    if (line) options.onLine?.(line);
  });
  svg.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" && event.key !== " ") return;
    const line = Number(event.target.getAttribute?.("data-line"));
    if (line) { event.preventDefault(); options.onLine?.(line); }
  });
  const show = (event) => {
    const item = event.target.closest?.(".tl-item");
    if (item) info.textContent = item.getAttribute("data-detail") ?? item.getAttribute("aria-label");
  };
  svg.addEventListener("pointerover", show);
  svg.addEventListener("focusin", show);
  return svg;
}

/** Playback: items of a later step than `at` are dimmed (`at` = steps shows the whole run). */
function showUpTo(svg, at) {
  for (const item of svg.querySelectorAll("[data-step]")) item.classList.toggle("tl-future", Number(item.getAttribute("data-step")) > at);
}

function legend(view) {
  const items = [["msg", "legendMsg"], ["wait", "legendWait"]];
  if (view.too_slow && view.critical.length) items.push(["crit", "legendCrit"]);
  if (view.deadlock.length) items.push(["dead", "legendDead"]);
  if (view.wrong) items.push(["dead", "legendWrong"]);
  return h("ul.tl-legend", {}, items.map(([kind, key]) => h("li", {}, h(`span.tl-key.tl-key-${kind}`, { "aria-hidden": "true" }), say(key))));
}

function textList(view) {
  const rows = view.messages.slice(0, TEXT_ROWS).map((m) => h("li", {}, describe({ ...m, count: 1 }, view)));
  if (view.messages.length > TEXT_ROWS) rows.push(h("li", {}, say("textCut", { more: view.messages.length - TEXT_ROWS })));
  for (const e of view.deadlock) rows.push(h("li.tl-dead-text", {}, say("waits", { rank: e.rank, on: e.on, kind: e.kind, line: e.line ?? "?" })));
  return h("details.tl-text", {}, h("summary", {}, say("asText")), h("ol", {}, rows));
}

/**
 * The run view of a graded case `c` (null when it has no timeline): a collapsible panel, open
 * when the case failed; it is drawn when first opened. options.onLine(line) moves the cursor.
 */
export function timelineView(c, options = {}) {
  if (!c.timeline && !options.loadTimeline) return null;
  const summary = h("summary", {}, say("title", { name: c.name }));
  const panel = h("details.timeline", { "data-case": c.name, open: c.verdict !== "accepted" || null }, summary);
  const counted = (view) => {
    if (view && !view.error) summary.append(h("span.muted", {}, ` — ${say("summary", { ranks: view.world_size, messages: view.messages.length, steps: view.steps })}`));
  };
  let built = false;
  const build = async () => {
    if (built || !panel.open) return;
    built = true;
    let view = c.timeline;
    if (!view) {
      const note = h("p.muted.tl-drawing", {}, say("drawing"));
      panel.append(note);
      view = await laterTimeline(c, options.loadTimeline).catch((error) => ({ error: error.message }));
      note.remove();
      if (!view) return panel.append(h("p.muted", {}, say("notKept")));
    }
    if (view.error) return panel.append(h("p.muted", {}, say("noView", { error: view.error })));
    renderTimeline(panel, view, { ...options, perfetto: options.onPerfetto && (() => options.onPerfetto(c)) });
  };
  if (c.timeline) counted(c.timeline);
  else if (options.final) laterTimeline(c, options.loadTimeline).then(counted, () => {}); // the summary's counts, after the verdict
  panel.addEventListener("toggle", build);
  queueMicrotask(build);
  return panel;
}

/** Asked for once per case: `load(c)` draws a local run's case view in the runner (null: not kept). */
const asked = new WeakMap();

/**
 * The view of case `c` of a browser run, drawn by the runner when the page first shows it (not
 * while the cases run: an accepted case's panel is closed); kept as `c.timeline` once drawn, as a
 * server's verdict carries it, which Perfetto's export reads.
 */
function laterTimeline(c, load) {
  if (!asked.has(c)) {
    asked.set(c, load(c).then((view) => {
      if (view) c.timeline = view;
      return view;
    }));
  }
  return asked.get(c);
}

/** Draw `view` into `root` (appended): controls, the diagram, legend, notes, the text list. */
export function renderTimeline(root, view, options = {}) {
  const info = h("p.tl-info", { "aria-live": "polite" }, say(matchMedia("(hover: none)").matches ? "hintTouch" : "hint"));
  const frame = h("div.tl-scroll", { tabindex: 0, role: "region", "aria-label": say("summary", { ranks: view.world_size, messages: view.messages.length, steps: view.steps }) });
  const steps = Math.max(view.steps, 1);
  let clock = "step";
  let at = steps;
  let timer = null;
  let svg;
  const position = h("span.tl-position", {});
  const slider = h("input.tl-slider", { type: "range", min: 0, max: steps, value: steps, "aria-label": say("position", { at: steps, steps }) });
  const buffers = view.buffers ? buffersTable(view) : null;
  const update = () => {
    showUpTo(svg, at);
    buffers?.update(at);
    slider.value = at;
    position.textContent = say("position", { at, steps });
    root.setAttribute("data-at", at);
  };
  const redraw = () => {
    svg = draw(view, clock, options, info);
    frame.replaceChildren(svg);
    update();
  };
  const stop = () => {
    clearInterval(timer);
    timer = null;
    play.textContent = say("play");
    play.setAttribute("aria-pressed", "false");
  };
  const play = h("button.tl-play", { type: "button", "aria-pressed": "false", onclick: () => {
    if (timer) return stop();
    if (at >= steps) at = 0;
    play.textContent = say("pause");
    play.setAttribute("aria-pressed", "true");
    update();
    timer = setInterval(() => {
      if (!svg.isConnected) return stop();
      at += 1;
      update();
      if (at >= steps) stop();
    }, Math.max(120, Math.min(700, 8000 / steps)));
  } }, say("play"));
  const step = h("button.tl-step", { type: "button", onclick: () => { stop(); at = at >= steps ? 1 : at + 1; update(); } }, say("step"));
  slider.addEventListener("input", () => { stop(); at = Number(slider.value); update(); });
  const name = `tl-clock-${Math.random().toString(36).slice(2)}`;
  const radio = (value, label, disabled) => h("label", {}, h("input", {
    type: "radio", name, value, checked: value === clock || null, disabled: disabled || null,
    onchange: (e) => { clock = e.target.value; redraw(); },
  }), label);
  const clocks = h("fieldset.tl-clock", {}, h("legend", {}, say("clock")),
    radio("step", say("steps")), radio("time", say("modelled", { size: formatSize(view.size), topology: view.topology }), !(view.modelled && view.end_t > 0)));
  const notes = [];
  if (view.cut) notes.push(h("p.tl-note", {}, say("cut", { what: Object.entries(view.cut).map(([k, v]) => `${v} ${k}`).join(", ") })));
  if (view.messages.length > AGGREGATE_ABOVE) notes.push(h("p.tl-note", {}, say("aggregated", { count: view.messages.length })));
  if (view.too_slow && view.critical.length) notes.push(h("p.tl-note.tl-crit-note", {}, say("critical", { count: view.critical.length })));
  if (view.wrong?.last_recv != null) notes.push(h("p.tl-note", {}, say("lastWrite", { rank: view.wrong.rank })));
  const perfetto = options.perfetto
    ? h("button.tl-perfetto", { type: "button", title: say("perfettoTitle"), onclick: options.perfetto }, say("perfetto"))
    : null;
  root.append(h("div.tl-controls", {}, clocks, play, step, slider, position, perfetto), frame, info,
    ...(buffers ? [h("div.tl-buffers-scroll", {}, buffers.table)] : []), legend(view), ...notes, textList(view));
  redraw();
}
