// The app: exercise list, statement, editor, Run / Stop / Submit, results, account, history.
import { openAuthDialog, renderAccount, renderHistory } from "./account.js";
import * as api from "./api.js";
import { h } from "./dom.js";
import { noteQueue, redrawQueue, syncProgress } from "./course-hooks.js";
import { createEditor } from "./editor.js";
import { applyI18n, currentLang, onLangChange, pick, setLang, shortcut, t } from "./i18n.js";
import { setupLayout, showResultTab, showTab } from "./layout.js";
import { renderMarkdown } from "./markdown.js";
import { renderPast } from "./past.js";
import { diagnostics, renderResult, renderStatus, setVerdictTitles, verdictBadge } from "./results.js";
import { Runner, Stopped } from "./runner.js";
import { openInPerfetto, traceFileName } from "../runner/perfetto.js";
import { dropPending, loadCode, notePending, pendingSubmissions, progress, recordVerdict, saveCode } from "./store.js";

const $ = (id) => document.getElementById(id);
let runnerState = ["loading"];
let drawn = false; // the runner may report before the page is drawn
const runner = new Runner((...state) => {
  runnerState = state;
  if (state[0] === "ready") registerServiceWorker();
  if (!drawn) return;
  drawRunnerStatus();
  updateButtons();
});

const catalog = await (await fetch(new URL("catalog.json", import.meta.url))).json();
const exercises = Object.fromEntries(catalog.exercises.map((ex) => [ex.id, ex]));
setVerdictTitles(catalog.verdicts);

let current = null; // the open exercise
let shown = null; // what the results area shows: {result, heading(), sampleOnly} or {status()}, redrawn on a language change
let past = null; // the past submission shown read-only instead of the editor, if any
/** Work under way per exercise (a count), and results that finished while another exercise was open. */
const running = new Map();
const waiting = new Map();

/** The file a learner's code is called in messages and submissions: the exercise's function's module. */
const fileName = (id) => `${id.replace(/[^A-Za-z0-9]+/g, "_")}.py`;

const KEYS = [
  { key: "Mod-Enter", run: () => (act("sample"), true) },
  { key: "Shift-Mod-Enter", run: () => (act("all"), true) },
  { key: "Mod-'", run: () => (act("submit"), true) },
];
const editor = createEditor($("editor"), {
  onChange: (code) => current && saveCode(current.id, code),
  keys: KEYS,
  label: () => t("editorLabel", { file: current ? fileName(current.id) : "" }),
});

/** A button's action, from a click or a shortcut; nothing when the button is disabled. */
function act(what) {
  const button = { sample: $("run-sample"), all: $("run-all"), submit: $("submit") }[what];
  if (!current || button.disabled || past || (what === "submit" && serverUp === false)) return;
  if (what === "submit") submitCode();
  else runTests(what === "sample");
}

function drawRunnerStatus() {
  const [state, detail] = runnerState;
  const status = $("runner-status");
  status.dataset.state = state;
  status.replaceChildren();
  if (state === "loading" && detail?.total) {
    const mb = (n) => (n / 1e6).toFixed(1);
    status.append(t("runnerDownloading", { done: mb(detail.loaded), total: mb(detail.total) }),
      h("progress", { max: detail.total, value: detail.loaded, "aria-hidden": "true" }));
  } else if (state === "failed") {
    const why = t.has(`load_${detail?.why}`) ? t(`load_${detail.why}`) : detail?.why;
    status.append(detail?.file ? t("runnerFileFailed", { file: detail.file, why }) : t("runnerFailed"), " ",
      h("button.ghost", { type: "button", id: "runner-retry", onclick: () => runner.retry() }, t("retry")));
    status.title = detail?.error ?? "";
  } else {
    status.title = "";
    status.textContent = t({ loading: "runnerLoading", ready: "runnerReady", busy: "runnerBusy" }[state]);
    if (state === "ready") status.dataset.mode = detail;
    if (state === "ready" && runner.kernelVersion) {
      status.dataset.kernel = runner.kernelVersion;
      status.title = t("kernelVersion", { version: runner.kernelVersion });
    }
  }
  const newer = serverKernel && runner.kernelVersion && newerVersion(serverKernel, runner.kernelVersion);
  $("kernel-newer")?.remove();
  if (newer) status.after(h("span.kernel-newer", { id: "kernel-newer", role: "alert" }, t("kernelNewer", { server: serverKernel, page: runner.kernelVersion })));
}

/** Whether version `a` (e.g. "0.2.0") is newer than `b`, by its release numbers. */
function newerVersion(a, b) {
  const parts = (v) => v.split("+")[0].split(".").map((n) => parseInt(n, 10) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  return false;
}

/** The judge server's kernel (GET /api/exercises gives it with each exercise); none without a server. */
let serverKernel = null;

/**
 * Whether a judge server answers here: null until asked, false on a static host or while it is
 * unreachable (practice mode: a banner instead of Submit, history and course links; asked again
 * with a growing pause, and when the browser is back online), true once it answers.
 */
let serverUp = null;
let probeTimer = null;
let probeDelay = 3000;
async function probeServer() {
  clearTimeout(probeTimer);
  let up;
  try {
    const list = await api.call("GET", "/api/exercises");
    serverKernel = Array.isArray(list) ? list[0]?.judge_version ?? null : null;
    up = true;
  } catch (error) {
    up = !(error instanceof api.Unreachable); // an HTTP error is still a server that answers
  }
  setServer(up);
}

function setServer(up) {
  const was = serverUp;
  serverUp = up;
  document.body.dataset.server = up ? "up" : "down";
  clearTimeout(probeTimer);
  if (up) probeDelay = 3000;
  else {
    probeTimer = setTimeout(probeServer, probeDelay);
    probeDelay = Math.min(2 * probeDelay, 30_000);
  }
  if (was === up) return;
  drawPractice();
  drawRunnerStatus();
  drawShown();
  if (up) {
    drawAccount();
    drawHistory();
    resumePending();
  }
}

function drawPractice() {
  const banner = $("practice-banner");
  banner.hidden = serverUp !== false;
  const ids = pendingSubmissions().map((p) => `#${p.id}`).join(currentLang() === "zh" ? "、" : ", ");
  banner.textContent = `${t("practiceMode")}${ids ? ` ${t("practicePending", { ids })}` : ""}`;
}

/** Cache the app and Python for offline use (web/src/sw.js), once Python has loaded. */
let swRegistered = false;
function registerServiceWorker() {
  if (swRegistered || !("serviceWorker" in navigator)) return;
  swRegistered = true;
  navigator.serviceWorker.register(new URL("sw.js", import.meta.url)).catch(() => {}); // e.g. not a secure origin
}

/** The course page's leaderboard of exercise `id` (its first exercise's without one). */
const boardHref = (id) => `course.html#/leaderboard${id ? `/${encodeURIComponent(id)}` : ""}`;

/** The next exercise to open after an official accept: the catalog's next one not solved yet. */
function nextExercise() {
  const list = catalog.exercises;
  const at = list.findIndex((ex) => ex.id === current?.id);
  for (let k = 1; k < list.length; k++) {
    const ex = list[(at + k) % list.length];
    if (progress(ex.id) !== "solved") return { id: ex.id, title: pick(ex.title) };
  }
  return null;
}

function updateButtons() {
  const state = runnerState[0];
  const why = state === "ready" ? "" : t(state === "failed" ? "whyFailed" : state === "busy" ? "whyBusy" : "whyLoading");
  for (const [id, keys] of [["run-sample", "Mod-Enter"], ["run-all", "Shift-Mod-Enter"]]) {
    $(id).disabled = state !== "ready";
    $(id).title = why || shortcut(keys);
  }
  $("submit").title = shortcut("Mod-'");
  $("stop").disabled = state !== "busy";
}

function drawList() {
  $("exercise-list").replaceChildren(
    ...catalog.exercises.flatMap((ex, i) => {
      const track = ex.track !== catalog.exercises[i - 1]?.track && ex.track; // each track's heading
      const heading = track ? [h("li.track", { "data-track": track }, h("h3", {}, pick(catalog.tracks[track])))] : [];
      return [...heading, exerciseItem(ex)];
    }),
  );
}

function exerciseItem(ex) {
  const here = ex === current;
  const done = waiting.get(ex.id);
  return h(
    `li${here ? ".current" : ""}`,
    { "data-exercise": ex.id, "data-progress": progress(ex.id) },
    h("a", { href: `#/${ex.id}`, "aria-current": here ? "page" : null }, pick(ex.title)),
    ex.chapter?.length ? h("span.chapter", { title: t("chapterFrom") }, `§ ${ex.chapter.map(pick).join(" · ")}`) : null,
    h("span.state", {},
      ex.difficulty && catalog.difficulties ? h(`span.difficulty.d-${ex.difficulty}`, { title: t("difficulty") }, pick(catalog.difficulties[ex.difficulty])) : null,
      h(`span.progress.p-${progress(ex.id)}`, {}, t(progress(ex.id))),
      running.get(ex.id) ? h("span.spinner", { role: "img", "aria-label": t("pendingHere") }) : null,
      done ? h("span.waiting", { title: t("resultWaiting") }, verdictBadge(done.result.verdict)) : null),
  );
}

function drawShown() {
  if (!shown) return $("results").replaceChildren();
  if (shown.result) {
    renderResult($("results"), shown.result, {
      heading: shown.heading(),
      sampleOnly: shown.sampleOnly,
      file: current && fileName(current.id),
      onLine: (line) => {
        showTab("code"); // on a phone the editor is on its own tab
        editor.goToLine(line);
      },
      onRunAll: () => act("all"),
      onSubmit: () => act("submit"),
      onPerfetto: current && ((c) => openInPerfetto(() => runner.perfetto(c, `${current.id} · ${c.name}`), traceFileName(current.id, c.name))),
      local: shown.local,
      official: shown.official,
      next: shown.official && shown.result.verdict === "accepted" ? nextExercise() : null,
      leaderboard: current && boardHref(current.id),
      canSubmit: serverUp !== false,
    });
    editor.mark(shown.result.verdict === "running" ? [] : diagnostics(shown.result));
  } else {
    renderStatus($("results"), shown.status(), shown.kind);
    editor.mark([]);
  }
}

function show(next) {
  shown = next;
  drawShown();
}

function drawExercise() {
  document.title = `${pick(current.title)} · ${t("brand")}`;
  $("title").textContent = pick(current.title);
  $("statement-body").innerHTML = renderMarkdown(pick(current.statement));
  // code blocks scroll sideways: keyboard users reach them too
  for (const pre of $("statement-body").querySelectorAll("pre")) pre.tabIndex = 0;
  $("statement-body").lang = currentLang() === "zh" ? "zh-CN" : "en";
  $("file-name").textContent = fileName(current.id);
}

function open(id) {
  const missing = id && !exercises[id];
  current = exercises[id] ?? null;
  closePast();
  $("exercise").hidden = !current;
  $("welcome").hidden = !!current;
  $("not-found").hidden = !missing;
  if (missing) $("not-found").textContent = t("noExercise", { id });
  if (!current) document.title = t("brand");
  $("course-link").href = boardHref(current?.id);
  $("queue-note").hidden = $("queue-note").dataset.exercise !== current?.id; // a note of its own exercise only
  drawList();
  if (!current) return;
  drawExercise();
  editor.load(loadCode(current.id) ?? current.starter);
  editor.relabel();
  const done = waiting.get(current.id);
  waiting.delete(current.id);
  show(done ?? null);
  if (done) drawList();
  drawHistory();
  // keyboard and screen-reader users land on the exercise, not on the page's body
  showTab("problem");
  $("title").focus({ preventScroll: true });
}

const drawHistory = () => current && renderHistory($("history"), current.id, openPast);

/** A verdict-shaped view of work in progress: its status as the verdict, the cases so far. */
const pending = (status, key, cases, extra = {}) => ({ verdict: status, message: t(key), message_zh: t(key), cases, ...extra });

/** Show `view` if its exercise is open; otherwise it waits in the sidebar until it is opened. */
function showFor(id, view) {
  if (current?.id === id) show(view);
}

/** A run or submission of exercise `id` ended; full runs and official verdicts count as progress. */
function finished(id, view, counts) {
  if (counts) recordVerdict(id, view.result.verdict);
  if (current?.id === id && !past) {
    show(view);
    showResultTab();
  }
  else waiting.set(id, view);
  drawList();
}

function busy(id, delta) {
  running.set(id, (running.get(id) ?? 0) + delta);
  drawList();
}

async function runTests(samples) {
  const id = current.id;
  const cases = [];
  const heading = () => t("localResult");
  let ticking = null; // the case running now: its elapsed time against its limit
  const draw = () => showFor(id, { heading, sampleOnly: samples, local: true, result: pending("running", "running", cases, { ticking }) });
  show({ status: () => t("running") });
  const timer = setInterval(() => ticking && draw(), 250);
  busy(id, +1);
  try {
    const result = await runner.run(id, editor.code, samples, {
      onCase: (c) => {
        cases.push(c);
        ticking = null;
        draw();
      },
      onCaseStart: (name, limitS) => {
        ticking = { name, limit_s: limitS, started: performance.now() };
        draw();
      },
    });
    finished(id, { heading, result, sampleOnly: samples, local: true }, !samples);
  } catch (error) {
    showFor(id, error instanceof Stopped ? { status: () => t("stopped") } : { status: () => error.message, kind: "error" });
  } finally {
    clearInterval(timer);
    busy(id, -1);
  }
}

/**
 * Follow submission `subId` of exercise `id` to its verdict. It stays pending (in localStorage)
 * until then: a reload, or a server that stops answering, leaves it to be followed again when
 * the page loads or the server answers (`resumePending`).
 */
const following = new Set();
async function followSubmission(id, subId) {
  if (following.has(subId)) return;
  following.add(subId);
  const heading = () => t("officialResult", { runtime: "torch" });
  busy(id, +1);
  try {
    const done = await api.follow(subId, ({ status, cases }) =>
      showFor(id, { heading, result: pending(status, status === "queued" ? "queued" : "judging", cases) }),
    );
    dropPending(subId);
    finished(id, { result: done.result, official: true, heading: () => t("officialResult", { runtime: done.result.runtime }) }, true);
  } catch (error) {
    if (error instanceof api.Unreachable) {
      showFor(id, { status: () => t("followLater", { id: subId }), kind: "error" });
      setServer(false);
    } else {
      dropPending(subId); // gone, or not this login's: nothing more to follow
      showFor(id, { status: () => api.describe(error), kind: "error" });
    }
  } finally {
    following.delete(subId);
    busy(id, -1);
  }
  drawPractice();
  if (current?.id === id) drawHistory();
}

/** Follow again the submissions a reload or an outage interrupted. */
function resumePending() {
  for (const { id, exercise } of pendingSubmissions()) {
    if (exercises[exercise]) followSubmission(exercise, id);
    else dropPending(id);
  }
}

async function submitCode() {
  if (!api.currentUser()) return openAuthDialog($("auth-dialog"), () => (drawAccount(), drawHistory(), submitCode()), { reason: t("loginToSubmit") });
  const id = current.id;
  $("submit").disabled = true;
  show({ status: () => t("submitting") });
  try {
    const sub = await api.submit(id, editor.code, fileName(id));
    notePending(sub.id, id);
    drawHistory(); // the new submission, queued, rather than "No submissions yet"
    noteQueue($("queue-note"), sub, id);
    await followSubmission(id, sub.id);
  } catch (error) {
    if (error instanceof api.Unreachable) {
      showFor(id, { status: () => t("serverUnreachable"), kind: "error" });
      setServer(false);
    } else if (error.status === 401) {
      api.forget();
      drawAccount();
      openAuthDialog($("auth-dialog"), () => (drawAccount(), drawHistory(), submitCode()), { reason: t("loginToSubmit") });
    } else showFor(id, { status: () => api.describe(error), kind: "error" });
  } finally {
    $("submit").disabled = false;
  }
}

/** Show a past submission read-only in place of the editor. */
async function openPast(subId) {
  const id = current.id;
  let sub;
  try {
    sub = await api.submission(subId);
  } catch (error) {
    return show({ status: () => api.describe(error), kind: "error" });
  }
  if (current?.id !== id) return;
  past = sub;
  drawPast();
  if (sub.status !== "done") followPast(id, sub);
}

async function followPast(id, sub) {
  const done = await api.follow(sub.id, ({ status, cases }) => {
    if (past?.id !== sub.id) return;
    past = { ...sub, status, result: pending(status, status === "queued" ? "queued" : "judging", cases) };
    drawPast();
  });
  if (past?.id === sub.id) {
    past = done;
    drawPast();
  }
  dropPending(sub.id);
  finished(id, { result: done.result, official: true, heading: () => t("officialResult", { runtime: done.result.runtime }) }, true);
}

function drawPast() {
  const work = $("work");
  work.dataset.view = past ? "past" : "edit";
  if (!past) return $("past").replaceChildren();
  renderPast($("past"), past, {
    current: () => editor.code,
    file: fileName(current.id),
    onLoad: () => {
      if (!confirm(t("loadConfirm", { id: past.id }))) return;
      editor.load(past.code);
      saveCode(current.id, past.code);
      closePast();
      $("editor").querySelector(".cm-content")?.focus();
    },
    onClose: () => {
      closePast();
      $("editor").querySelector(".cm-content")?.focus();
    },
  });
}

function closePast() {
  past = null;
  drawPast();
}

function drawAccount() {
  renderAccount($("account"), $("auth-dialog"), () => {
    drawAccount();
    drawHistory();
  });
}

function drawAll() {
  $("lang-toggle").textContent = t("langButton");
  drawRunnerStatus();
  updateButtons();
  drawList();
  drawAccount();
  if (current) {
    drawExercise();
    editor.relabel();
  } else document.title = t("brand");
  drawShown();
  drawPast();
  drawHistory();
  drawPractice();
  redrawQueue();
  const first = catalog.exercises[0];
  $("start-first").href = `#/${first.id}`;
  $("start-first").textContent = t("startFirst", { title: pick(first.title) });
  $("shortcut-hint").textContent = t("shortcutHint", {
    sample: shortcut("Mod-Enter"), all: shortcut("Shift-Mod-Enter"), submit: shortcut("Mod-'"),
  });
}

$("skip-run").onclick = (event) => {
  event.preventDefault(); // the hash names the open exercise
  showTab("code");
  $("run-sample").focus();
};
$("run-sample").onclick = () => act("sample");
$("run-all").onclick = () => act("all");
$("stop").onclick = () => runner.stop();
$("submit").onclick = () => act("submit");
$("reset").onclick = () => {
  if (!confirm(t("resetConfirm"))) return;
  editor.load(current.starter);
  saveCode(current.id, null);
};
$("lang-toggle").onclick = () => setLang(currentLang() === "en" ? "zh" : "en");
// The shortcuts work outside the editor too (the editor's own keymap handles them inside).
addEventListener("keydown", (event) => {
  if (!(event.ctrlKey || event.metaKey) || event.target.closest?.(".cm-editor, dialog")) return;
  if (event.key === "Enter") act(event.shiftKey ? "all" : "sample");
  else if (event.key === "'") act("submit");
  else return;
  event.preventDefault();
});
onLangChange(drawAll);
addEventListener("online", probeServer);
addEventListener("hashchange", () => open(decodeURIComponent(location.hash.replace(/^#\/?/, ""))));

applyI18n();
setupLayout();
drawn = true;
drawAll();
open(decodeURIComponent(location.hash.replace(/^#\/?/, "")));
syncProgress(drawList);
probeServer();
