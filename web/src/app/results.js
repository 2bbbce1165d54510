// The results view: verdict, per-case table with bytes per rank against the bound, messages, the
// sample's values, output; and the diagnostics a verdict puts on the editor's lines.
import { h } from "./dom.js";
import { currentLang, pick, t } from "./i18n.js";
import { timelineView } from "./timeline.js";
import { formatSeconds, formatSize, nonFinite } from "./units.js";

let verdictTitles = {};
export const setVerdictTitles = (titles) => (verdictTitles = titles);

const message = (obj) => pick({ en: obj.message, zh: obj.message_zh });
/** A verdict code, or a submission's status (queued, running), as a coloured label. */
export const verdictBadge = (code) =>
  h(`span.verdict.v-${code}`, {}, verdictTitles[code] ? pick(verdictTitles[code]) : t(`exercise.status_${code}`));

/** `text` with every "line 12" / "第 12 行" as a button that moves the editor's cursor there. */
export function withLineLinks(text, onLine) {
  if (!onLine) return [text];
  const parts = [];
  let at = 0;
  for (const m of text.matchAll(/\bline (\d+)|第 (\d+) 行/g)) {
    const line = Number(m[1] ?? m[2]);
    parts.push(text.slice(at, m.index),
      h("button.link.line-link", { type: "button", "data-line": line, onclick: () => onLine(line) }, m[0]));
    at = m.index + m[0].length;
  }
  parts.push(text.slice(at));
  return parts;
}

function bytesCell(c) {
  return h(
    "td.bytes",
    { "data-label": t("exercise.bytesSent") },
    h(
      "div.bars",
      {},
      c.bytes_sent.map((sent, rank) =>
        h(
          "div.bar",
          { title: `rank ${rank}: ${sent} / ${c.bytes_bound}` },
          h(`span.fill${sent > c.bytes_bound ? ".over" : ""}`, {
            style: `width:${Math.min(100, (100 * sent) / Math.max(c.bytes_bound, 1)).toFixed(1)}%`,
          }),
          h("span.label", {}, `r${rank} ${sent}`),
        ),
      ),
    ),
    h("div.bound", {}, t("exercise.bound", { bound: c.bytes_bound })),
    modelBars(c.model),
    memoryBar(c.memory),
  );
}

/** The grader's memory bound (e.g. the gathered layers alive at once): the peak against it. */
function memoryBar(memory) {
  if (!memory) return null;
  const [peak, bound] = [fmt(memory.peak), fmt(memory.bound)];
  const text = pick({ en: `memory: peak ${peak} ${memory.what}, bound ${bound}`, zh: `内存：峰值 ${peak} ${memory.what_zh}，上限 ${bound}` });
  return h(
    "div.memory",
    { "data-peak": memory.peak, "data-bound": memory.bound },
    h("div.bar", { title: text },
      h(`span.fill${memory.peak > memory.bound ? ".over" : ""}`, { style: `width:${Math.min(100, (100 * memory.peak) / Math.max(memory.bound, 1)).toFixed(1)}%` }),
      h("span.label", {}, text)),
  );
}


/** The case's modelled time at each of the exercise's sizes, a bar against the time bound. */
function modelBars(model) {
  if (!model?.sizes?.length) return null;
  const where = model.topology?.name ?? "";
  return h(
    "div.modelled",
    { title: pick(model.scaled ?? { en: "", zh: "" }) },
    h("div.bound", {}, pick({ en: `modelled on ${where}`, zh: `在 ${where} 上的建模时间` })),
    h(
      "div.bars",
      {},
      model.sizes.map((row) => {
        const bound = row.bound_s;
        const label = `${formatSize(row.size)} ${formatSeconds(row.time_s)}`;
        const over = bound != null && row.over;
        return h(
          "div.bar",
          { title: bound != null ? `${label} / ${formatSeconds(bound)}` : label },
          h(`span.fill${over ? ".over" : ""}`, {
            style: `width:${bound ? Math.min(100, (100 * row.time_s) / bound).toFixed(1) : 100}%`,
          }),
          h("span.label", {}, label),
        );
      }),
    ),
  );
}

function caseRow(c) {
  return h(
    `tr.case.v-${c.verdict}`,
    { "data-case": c.name },
    h("td", { "data-label": t("exercise.case") }, c.name, c.sample ? h("span.tag", {}, t("exercise.sample")) : null),
    h("td.num", { "data-label": t("exercise.ranks") }, String(c.world_size)),
    h("td", { "data-label": t("exercise.verdict") }, verdictBadge(c.verdict)),
    bytesCell(c),
    h("td.num", { "data-label": t("exercise.time") }, `${fmt(c.wall_ms)} ms`),
  );
}

// NaN and the infinities arrive as the verdict JSON writes them ("nan", "inf", "-inf")
const fmt = (x) => nonFinite(x) ?? (typeof x !== "number" || Number.isInteger(x) ? String(x) : String(Number(x.toPrecision(10))));
const close = (a, b) => a === b || (typeof a === "number" && typeof b === "number" && Math.abs(a - b) <= 1e-5 * Math.max(1, Math.abs(b)));

/**
 * The sample's values per rank: Input / Expected / Your output, wrong cells marked, and lines
 * between chunks (a rank's tensor split in world_size chunks, as the ring and transpose work).
 */
/**
 * A value's leaves with their places (cjudge/contract/values.py): [["", tensor]] for one tensor,
 * [["[0]", tensor], ["[1]", 3]] for a list or tuple; a call's input as its arguments.
 */
export function leaves(value, path = "") {
  const items = Array.isArray(value) ? value : Array.isArray(value?.tuple) ? value.tuple : Array.isArray(value?.call) ? value.call : null;
  if (items) return items.flatMap((v, i) => leaves(v, `${path}[${i}]`));
  return [[path, value]];
}

/** A leaf as the row's values: a tensor's data, a number, or a word for what is not data. */
const leafData = (leaf) => {
  if (leaf === undefined) return null;
  if (Array.isArray(leaf?.data)) return leaf.data;
  if (typeof leaf === "number" || typeof leaf === "string" || typeof leaf === "boolean") return [leaf];
  if (leaf === null) return ["None"];
  return [leaf.fn ? `${leaf.fn}()` : leaf.any ? "…" : leaf.object ?? "?"];
};

function samplePanel(c) {
  const s = c.sample;
  if (!s?.inputs || !s?.expected) return null;
  const world = c.world_size;
  const rows = (label, value, wantValue, kind) => {
    const wants = wantValue === null ? null : new Map(leaves(wantValue));
    const got = leaves(value ?? undefined);
    const places = wants ? [...wants.keys()] : got.map(([p]) => p);
    const mine = new Map(got);
    return places.map((place) => {
      const want = wants?.get(place);
      const leaf = mine.get(place);
      return row(`${label}${place}`, leafData(leaf) === null ? null : { data: leafData(leaf) },
        want === undefined || want?.any ? null : { data: leafData(want) }, kind, value == null ? "exercise.noOutput" : "exercise.missingValue");
    });
  };
  let wrongCells = 0;
  // `missing`: what to say where there is no value (the rank did not finish, or this part is absent)
  const row = (label, tensor, want, kind, missing) => {
    const data = tensor?.data ?? null;
    const n = data?.length ?? 0;
    const chunk = n % world === 0 && n > world ? n / world : 0;
    return h(`tr.${kind}`, {},
      h("th", { scope: "row" }, label),
      h("td", {}, data === null
        ? h("span.muted.no-value", {}, t(missing))
        : h("span.values", {}, data.map((x, i) => {
          const wrong = want && !(want.data && i < want.data.length && close(x, want.data[i]));
          if (wrong) wrongCells += 1;
          const cls = `span.cell${wrong ? ".wrong" : ""}${chunk && i % chunk === 0 && i ? ".chunk-start" : ""}`;
          return h(cls, wrong ? { title: t("exercise.expectedValue", { value: fmt(want.data?.[i]) }) } : {}, fmt(x));
        }))));
  };
  const table = h("table.sample", {},
    s.inputs.map((input, rank) => h("tbody", { "data-rank": rank },
      h("tr.rank-head", {}, h("th", { colspan: 2, scope: "rowgroup" }, `rank ${rank}`)),
      rows(t("exercise.input"), input, null, "input"),
      rows(t("exercise.expected"), s.expected[rank], null, "expected"),
      rows(t("exercise.yourOutput"), s.outputs?.[rank], s.expected[rank], "output"))));
  // open only when a value is wrong: a slow or stuck run's correct values would push the rest down
  return h("details.sample-values", { open: wrongCells > 0 },
    h("summary", {}, t("exercise.sampleValues", { name: c.name })),
    h("div.sample-scroll", { tabindex: 0, role: "region", "aria-label": t("exercise.sampleValues", { name: c.name }) }, table));
}

/**
 * A deadlock from the case's data (`c.deadlock`: the cycle, each blocked rank's call and line, and
 * the kernel's sentences, ranks stuck the same way said once): the cycle first, then the
 * sentences, then the fix.
 */
export function deadlockView(c, onLine) {
  const facts = c.deadlock ?? { cycle: [], blocked: [], lines: [{ en: c.message, zh: c.message_zh }] };
  const blocked = new Map(facts.blocked.map((b) => [b.rank, b]));
  const cycle = facts.cycle.length ? facts.cycle : null;
  let head = null;
  let fix = t("exercise.fixCollective");
  if (cycle) {
    const members = cycle.slice(0, -1).map((r) => blocked.get(r));
    const ops = new Set(members.map((b) => b.api));
    const kinds = new Set(members.map((b) => b.kind));
    const lineNos = new Set(members.map((b) => b.line));
    const op = ops.size === 1 ? [...ops][0] : null;
    const kind = kinds.size === 1 ? [...kinds][0] : null;
    const line = lineNos.size === 1 ? [...lineNos][0] : null;
    const every = cycle.length - 1 === c.world_size;
    const who = every ? t("exercise.everyRank") : t("exercise.theseRanks");
    head = t("exercise.cycleHead", { cycle: cycle.join(" → "), what: op ? t("exercise.waitIn", { who, op }) : t("exercise.waitEachOther", { who }),
      line: line ? t("exercise.atLine", { line: t("exercise.lineN", { line }) }) : "" });
    fix = kind === "send" ? t("exercise.fixSend") : kind === "recv" ? t("exercise.fixRecv") : t("exercise.fixMixed");
  }
  return h("div.deadlock", {},
    head ? h("p.cycle", {}, withLineLinks(head, onLine)) : null,
    h("ul.waits", {}, facts.lines.map((line) => h("li", {}, withLineLinks(pick(line), onLine)))),
    h("p.fix", {}, t("exercise.fixLabel"), " ", fix));
}

// A failing case's message (unless the summary above already says it) and its tracebacks.
function caseDetails(c, summary, options) {
  if (c.verdict === "accepted" && !c.sample) return null;
  return h(
    `div.case-detail.v-${c.verdict}`,
    { "data-case": c.name },
    c.verdict === "accepted" ? null
      : c.verdict === "deadlock" ? deadlockView(c, options.onLine)
        : message(c) === summary ? null : h("p.message", {}, withLineLinks(message(c), options.onLine)),
    (c.details ?? []).map((text) => h("pre.traceback", { "aria-label": t("exercise.traceback") }, withLineLinks(text, options.onLine))),
    c.sample ? samplePanel(c) : null,
    c.smallest ? smallestView(c.smallest, options.onLine) : null,
  );
}

// The smallest case that fails as this one does ("fails already at n = 2, numel = 2: …"), with
// each rank's values.
function smallestView(small, onLine) {
  return h("div.smallest", {},
    h("p.message", {}, withLineLinks(message(small), onLine)),
    samplePanel(small));
}

/** The case running now: its elapsed time against its time limit. */
function ticker(ticking) {
  const elapsed = (performance.now() - ticking.started) / 1000;
  return h("p.ticking", {}, t("exercise.caseElapsed", { name: ticking.name, elapsed: elapsed.toFixed(1), limit: ticking.limit_s }),
    h("progress", { max: ticking.limit_s, value: Math.min(elapsed, ticking.limit_s), "aria-hidden": "true" }));
}

/**
 * The running case's elapsed time in `root` (drawn there by renderResult) brought up to date in
 * place, rather than drawing the whole result again four times a second; false when `root`
 * shows none.
 */
export function retick(root, ticking) {
  const shown = root.querySelector(".result p.ticking");
  if (!shown) return false;
  shown.replaceWith(ticker(ticking));
  return true;
}

/**
 * Render a verdict JSON (browser run or the server's) into `root`.
 * options: heading (its source), sampleOnly (a Run sample: not the verdict), onLine(line)
 * (moves the cursor), onRunAll / onSubmit (offered after a sample passes), local (a browser run:
 * an accepted full run offers Submit for the official verdict), canSubmit (false without a judge
 * server: nothing offers Submit), official and next ({id, title}: after an official accept, the
 * next exercise to open) with leaderboard (the course page's board of this exercise).
 */
export function renderResult(root, result, options = {}) {
  const cases = result.cases ?? [];
  const summary = message(result);
  const deadlockFirst = result.verdict === "deadlock";
  const sampleNote = options.sampleOnly && result.verdict === "accepted";
  const fullPass = options.local && !options.sampleOnly && result.verdict === "accepted";
  const canSubmit = options.canSubmit !== false;
  root.replaceChildren(
    h(
      `div.result.v-${result.verdict}`,
      { "data-verdict": result.verdict, "data-sample-only": options.sampleOnly ? "" : null },
      h("div.result-head", {}, h("span.source", {}, options.heading ?? ""),
        sampleNote ? h("span.verdict.v-sample", {}, t("exercise.samplePasses")) : verdictBadge(result.verdict)),
      result.verdict === "compile_error"
        ? h("pre.summary.compile-error", {}, withLineLinks(summary, options.onLine))
        : deadlockFirst ? null : h("p.summary", {}, withLineLinks(summary, options.onLine)),
      sampleNote
        ? h("div.sample-only", {}, h("p", {}, t("exercise.sampleOnlyPass")),
          h("div.row", {},
            h("button", { type: "button", id: "then-run-all", onclick: options.onRunAll }, t("exercise.runAll")),
            canSubmit ? h("button.primary", { type: "button", id: "then-submit", onclick: options.onSubmit }, t("exercise.submit")) : null))
        : null,
      fullPass && canSubmit
        ? h("div.next-step", {}, h("p", {}, t("exercise.fullPass")),
          h("button.primary", { type: "button", id: "then-official", onclick: options.onSubmit }, t("exercise.submitOfficial")))
        : null,
      options.official && result.verdict === "accepted"
        ? h("div.next-step", {}, h("div.row", {}, options.next
          ? h("a.button.primary", { id: "next-exercise", href: `#/${options.next.id}` }, t("exercise.nextExercise", { title: options.next.title }))
          : h("p", {}, t("exercise.allSolved")),
        options.leaderboard ? h("a.button", { id: "see-leaderboard", href: options.leaderboard }, t("exercise.seeLeaderboard")) : null))
        : null,
      result.ticking ? ticker(result.ticking) : null,
      cases.length
        ? h("div.cases-scroll", { tabindex: 0, role: "region", "aria-label": t("exercise.casesLabel") }, h(
          "table.cases",
          {},
          h("thead", {}, h("tr", {}, ["case", "ranks", "verdict", "bytesSent", "time"].map((k) => h("th", { scope: "col" }, t(`exercise.${k}`))))),
          h("tbody", {}, cases.map(caseRow)),
        ))
        : null,
      cases.map((c) => caseDetails(c, deadlockFirst ? null : summary, options)),
      cases.map((c) => timelineView(c, options)),
      result.skipped?.length ? h("p.skipped", {}, t("exercise.skipped", { cases: result.skipped.join(currentLang() === "zh" ? "、" : ", ") })) : null,
      result.stdout?.trim() ? h("details.stdout", { open: true }, h("summary", {}, t("exercise.stdout")), h("pre", {}, result.stdout)) : null,
    ),
  );
}

/**
 * The editor marks a verdict asks for: the compile error's line and column, every line a case's
 * message or traceback names (runtime errors, forbidden calls, deadlocks), and for a wrong answer
 * the failing rank's last receive (the last write into its tensor the trace knows of).
 */
export function diagnostics(result) {
  const marks = [];
  const seen = new Set();
  const add = (line, text, severity = "error", column) => {
    if (!line || seen.has(line)) return;
    seen.add(line);
    marks.push({ line, column, severity, message: text });
  };
  if (result.verdict === "compile_error") add(result.line, message(result), "error", result.column);
  for (const c of result.cases ?? []) {
    if (c.verdict === "accepted") continue;
    const text = message(c);
    for (const m of c.message.matchAll(/\bline (\d+)/g)) add(Number(m[1]), text);
    for (const tb of c.details ?? []) {
      const frames = [...tb.matchAll(/File "[^"]*", line (\d+)/g)];
      // the learner's frames are the ones not inside the judge (which it cannot see)
      const own = frames.filter((f) => !/cjudge|site-packages|<frozen/.test(f[0]));
      if (own.length) add(Number(own.at(-1)[1]), text);
    }
    if (c.verdict === "wrong_answer") {
      const rank = Number(c.message.match(/rank (\d+)/)?.[1]);
      const last = (c.trace ?? []).filter((e) => e.rank === rank && /recv|all_to_all|all_gather|reduce/.test(e.op) && e.line).at(-1);
      if (last) add(last.line, t("exercise.lastWrite", { rank, message: text }), "warning");
    }
  }
  return marks;
}

/** A one-line status in the results area (running, stopped, errors). */
export function renderStatus(root, text, kind = "info") {
  root.replaceChildren(h(`p.status.${kind}`, {}, text));
}
