// The app: exercise list, statement, editor, Run / Stop / Submit, results, account, history.
import { openAuthDialog, renderAccount, renderHistory } from "./account.js";
import * as api from "./api.js";
import { h } from "./dom.js";
import { drawQueue, noteQueue, syncProgress } from "./course-hooks.js";
import { createEditor } from "./editor.js";
import { currentLang, messages, pick, setLang, shortcut, t } from "./i18n.js";
import { setupLayout, showResultTab, showTab } from "./layout.js";
import { renderMarkdown } from "./markdown.js";
import { renderPast } from "./past.js";
import { diagnostics, renderResult, renderStatus, retick, setVerdictTitles, verdictBadge } from "./results.js";
import { RunnerClient, Stopped } from "./runner-client.js";
import { openInPerfetto, traceFileName } from "../runner/perfetto.js";
import { drawAll, on, state, update } from "./state.js";
import { dropPending, loadCode, notePending, pendingSubmissions, progress, recordVerdict, saveCode } from "./store.js";

// The page's state is state.js's; this module changes it through `update` and subscribes the
// drawers below (at the end, so that what changes before the page is drawn waits for `drawAll`).
const $ = (id) => document.getElementById(id);
const runner = new RunnerClient((...report) => {
  if (report[0] === "ready") registerServiceWorker();
  update({ runner: report });
});

const catalog = await (await fetch(new URL("catalog.json", import.meta.url))).json();
const exercises = Object.fromEntries(catalog.exercises.map((ex) => [ex.id, ex]));
setVerdictTitles(catalog.verdicts);

/** The file a learner's code is called in messages and submissions: the exercise's function's module. */
const fileName = (id) => `${id.replace(/[^A-Za-z0-9]+/g, "_")}.py`;

const KEYS = [
  { key: "Mod-Enter", run: () => (act("sample"), true) },
  { key: "Shift-Mod-Enter", run: () => (act("all"), true) },
  { key: "Mod-'", run: () => (act("submit"), true) },
];
const editor = createEditor($("editor"), {
  onChange: (code) => state.current && saveCode(state.current.id, code),
  keys: KEYS,
  label: () => t("exercise.editorLabel", { file: state.current ? fileName(state.current.id) : "" }),
});

/** A button's action, from a click or a shortcut; nothing when the button is disabled. */
function act(what) {
  const button = { sample: $("run-sample"), all: $("run-all"), submit: $("submit") }[what];
  if (!state.current || button.disabled || state.past || (what === "submit" && state.serverUp === false)) return;
  if (what === "submit") submitCode();
  else runTests(what === "sample");
}

function drawRunnerStatus() {
  const [now, detail] = state.runner;
  const status = $("runner-status");
  status.dataset.state = now;
  status.replaceChildren();
  if (now === "loading" && detail?.total) {
    const mb = (n) => (n / 1e6).toFixed(1);
    status.append(t("exercise.runnerDownloading", { done: mb(detail.loaded), total: mb(detail.total) }),
      h("progress", { max: detail.total, value: detail.loaded, "aria-hidden": "true" }));
  } else if (now === "failed") {
    const why = t.has(`exercise.load_${detail?.why}`) ? t(`exercise.load_${detail.why}`) : detail?.why;
    status.append(detail?.file ? t("exercise.runnerFileFailed", { file: detail.file, why }) : t("exercise.runnerFailed"), " ",
      h("button.ghost", { type: "button", id: "runner-retry", onclick: () => runner.retry() }, t("exercise.retry")));
    status.title = detail?.error ?? "";
  } else {
    status.title = "";
    status.textContent = t({ loading: "exercise.runnerLoading", ready: "exercise.runnerReady", busy: "exercise.runnerBusy" }[now]);
    if (now === "ready") status.dataset.mode = detail;
    if (now === "ready" && runner.kernelVersion) {
      status.dataset.kernel = runner.kernelVersion;
      status.title = t("exercise.kernelVersion", { version: runner.kernelVersion });
    }
  }
  const { serverKernel } = state;
  const newer = serverKernel && runner.kernelVersion && newerVersion(serverKernel, runner.kernelVersion);
  $("kernel-newer")?.remove();
  if (newer) status.after(h("span.kernel-newer", { id: "kernel-newer", role: "alert" }, t("exercise.kernelNewer", { server: serverKernel, page: runner.kernelVersion })));
}

/** Whether version `a` (e.g. "0.2.0") is newer than `b`, by its release numbers. */
function newerVersion(a, b) {
  const parts = (v) => v.split("+")[0].split(".").map((n) => parseInt(n, 10) || 0);
  const [x, y] = [parts(a), parts(b)];
  for (let i = 0; i < Math.max(x.length, y.length); i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) > (y[i] ?? 0);
  return false;
}

/**
 * Ask whether a judge server answers here (the state's `serverUp`, with its kernel as
 * `serverKernel`). Unreachable, it is asked again after a growing pause, and when the browser is
 * back online; an HTTP error is still a server that answers.
 */
async function probeServer() {
  retry.cancel();
  let up;
  try {
    const list = await api.call("GET", "/api/exercises");
    update({ serverKernel: Array.isArray(list) ? list[0]?.judge_version ?? null : null });
    up = true;
  } catch (error) {
    up = !(error instanceof api.Unreachable);
  }
  setServer(up);
}

/** Call `fn` again after a pause that doubles from `first` ms up to `most` ms until `reset`. */
function backoff(fn, first, most) {
  let timer = null;
  let delay = first;
  const cancel = () => clearTimeout(timer);
  return {
    cancel,
    reset: () => (cancel(), (delay = first)),
    again: () => {
      cancel();
      timer = setTimeout(fn, delay);
      delay = Math.min(2 * delay, most);
    },
  };
}
const retry = backoff(probeServer, 3000, 30_000);

function setServer(up) {
  if (up) retry.reset();
  else retry.again();
  update({ serverUp: up });
}

/** Practice mode (no server): a banner instead of Submit, history and course links. */
function drawServer() {
  if (state.serverUp !== null) document.body.dataset.server = state.serverUp ? "up" : "down";
}

function drawPractice() {
  const banner = $("practice-banner");
  banner.hidden = state.serverUp !== false;
  const ids = state.pending.map((p) => `#${p.id}`).join(currentLang() === "zh" ? "、" : ", ");
  banner.textContent = `${t("exercise.practiceMode")}${ids ? ` ${t("exercise.practicePending", { ids })}` : ""}`;
}

/** Cache the app and Python for offline use (web/src/sw.js), once Python has first loaded. */
const registerServiceWorker = once(() => {
  if (!("serviceWorker" in navigator)) return;
  navigator.serviceWorker.register(new URL("sw.js", import.meta.url)).catch(() => {}); // e.g. not a secure origin
});

function once(fn) {
  let done = false;
  return () => done || ((done = true), fn());
}

/** The course page's leaderboard of exercise `id` (its first exercise's without one). */
const boardHref = (id) => `course.html#/leaderboard${id ? `/${encodeURIComponent(id)}` : ""}`;

/** The next exercise to open after an official accept: the catalog's next one not solved yet. */
function nextExercise() {
  const list = catalog.exercises;
  const at = list.findIndex((ex) => ex.id === state.current?.id);
  for (let k = 1; k < list.length; k++) {
    const ex = list[(at + k) % list.length];
    if (progress(ex.id) !== "solved") return { id: ex.id, title: pick(ex.title) };
  }
  return null;
}

function updateButtons() {
  const now = state.runner[0];
  const why = now === "ready" ? "" : t(now === "failed" ? "exercise.whyFailed" : now === "busy" ? "exercise.whyBusy" : "exercise.whyLoading");
  for (const [id, keys] of [["run-sample", "Mod-Enter"], ["run-all", "Shift-Mod-Enter"]]) {
    $(id).disabled = now !== "ready";
    $(id).title = why || shortcut(keys);
  }
  $("submit").title = shortcut("Mod-'");
  $("stop").disabled = now !== "busy";
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
  const here = ex === state.current;
  const done = state.waiting.get(ex.id);
  return h(
    `li${here ? ".current" : ""}`,
    { "data-exercise": ex.id, "data-progress": progress(ex.id) },
    h("a", { href: `#/${ex.id}`, "aria-current": here ? "page" : null }, pick(ex.title)),
    ex.chapter?.length ? h("span.chapter", { title: t("exercise.chapterFrom") }, `§ ${ex.chapter.map(pick).join(" · ")}`) : null,
    h("span.state", {},
      ex.difficulty && catalog.difficulties ? h(`span.difficulty.d-${ex.difficulty}`, { title: t("exercise.difficulty") }, pick(catalog.difficulties[ex.difficulty])) : null,
      h(`span.progress.p-${progress(ex.id)}`, {}, t(`exercise.${progress(ex.id)}`)),
      state.running.get(ex.id) ? h("span.spinner", { role: "img", "aria-label": t("exercise.pendingHere") }) : null,
      done ? h("span.waiting", { title: t("exercise.resultWaiting") }, verdictBadge(done.result.verdict)) : null),
  );
}

function drawShown() {
  const { shown, current } = state;
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
      // a browser run's case views are drawn by the runner when shown (timeline.js)
      loadTimeline: shown.local && current ? (c) => runner.timeline(current.id, c.name) : null,
      final: shown.result.verdict !== "running",
      local: shown.local,
      official: shown.official,
      next: shown.official && shown.result.verdict === "accepted" ? nextExercise() : null,
      leaderboard: current && boardHref(current.id),
      canSubmit: state.serverUp !== false,
    });
    editor.mark(shown.result.verdict === "running" ? [] : diagnostics(shown.result));
  } else {
    renderStatus($("results"), shown.status(), shown.kind);
    editor.mark([]);
  }
}

const show = (shown) => update({ shown });

/** The welcome page, the exercise or "no such exercise", by the address. */
function drawPage() {
  const { current, missing } = state;
  $("exercise").hidden = !current;
  $("welcome").hidden = !!current;
  $("not-found").hidden = !missing;
  if (missing) $("not-found").textContent = t("exercise.noExercise", { id: missing });
  if (!current) document.title = t("exercise.brand");
  $("course-link").href = boardHref(current?.id);
}

function drawExercise() {
  const { current } = state;
  if (!current) return;
  document.title = `${pick(current.title)} · ${t("exercise.brand")}`;
  $("title").textContent = pick(current.title);
  $("statement-body").innerHTML = renderMarkdown(pick(current.statement));
  // code blocks scroll sideways: keyboard users reach them too
  for (const pre of $("statement-body").querySelectorAll("pre")) pre.tabIndex = 0;
  $("statement-body").lang = currentLang() === "zh" ? "zh-CN" : "en";
  $("file-name").textContent = fileName(current.id);
  editor.relabel();
}

/** Open exercise `id` (from the address): its code, and a result that waited for it. */
function open(id) {
  const current = exercises[id] ?? null;
  update({ current, missing: id && !current ? id : null, past: null });
  if (!current) return;
  editor.load(loadCode(current.id) ?? current.starter);
  const done = state.waiting.get(current.id);
  const waiting = new Map(state.waiting);
  waiting.delete(current.id);
  update({ shown: done ?? null, ...(done ? { waiting } : {}) });
  // keyboard and screen-reader users land on the exercise, not on the page's body
  showTab("problem");
  $("title").focus({ preventScroll: true });
}

function drawHistory() {
  // hidden in practice mode: drawn again when the server answers
  if (state.current && state.serverUp !== false) renderHistory($("history"), state.current.id, openPast);
}

/** A verdict-shaped view of work under way: its status as the verdict, the cases so far. */
const pending = (status, key, cases, extra = {}) => ({ verdict: status, message: t(key), message_zh: t(key), cases, ...extra });

/** Show `view` if its exercise is open; otherwise it waits in the sidebar until it is opened. */
function showFor(id, view) {
  if (state.current?.id === id) show(view);
}

/** A run or submission of exercise `id` ended; full runs and official verdicts count as progress. */
function finished(id, view, counts) {
  if (counts) recordVerdict(id, view.result.verdict);
  const here = state.current?.id === id && !state.past;
  const recorded = state.recorded + 1;
  update(here ? { shown: view, recorded } : { waiting: new Map(state.waiting).set(id, view), recorded });
  if (here) showResultTab();
}

function busy(id, delta) {
  update({ running: new Map(state.running).set(id, (state.running.get(id) ?? 0) + delta) });
}

/** The learner's submissions changed: the pending ones (kept by store.js) and the history. */
function submissionsChanged() {
  update({ pending: pendingSubmissions(), submitted: state.submitted + 1 });
}

/**
 * A run the browser's judge could not finish: its own fault, a judge_error after the cases
 * graded, saying why (a Python error's last line, not its traceback).
 */
const judgeFailed = (error, cases) => {
  const why = String(error?.message ?? error).trim().split("\n").at(-1);
  return { verdict: "judge_error", cases, ...messages("exercise.judgeFailed", { why }) };
};

async function runTests(samples) {
  const id = state.current.id;
  const cases = [];
  const heading = () => t("exercise.localResult");
  let ticking = null; // the case running now: its elapsed time against its limit
  const draw = () => showFor(id, { heading, sampleOnly: samples, local: true, result: pending("running", "exercise.running", cases, { ticking }) });
  show({ status: () => t("exercise.running") });
  const timer = setInterval(() => ticking && !(state.current?.id === id && retick($("results"), ticking)) && draw(), 250);
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
    if (error instanceof Stopped) showFor(id, { status: () => t("exercise.stopped") });
    else finished(id, { heading, result: judgeFailed(error, cases), sampleOnly: samples, local: true }, false);
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
  const heading = () => t("exercise.officialResult", { runtime: "torch" });
  busy(id, +1);
  try {
    const done = await api.follow(subId, ({ status, cases }) =>
      showFor(id, { heading, result: pending(status, status === "queued" ? "exercise.queued" : "exercise.judging", cases) }),
    );
    dropPending(subId);
    finished(id, { result: done.result, official: true, heading: () => t("exercise.officialResult", { runtime: done.result.runtime }) }, true);
  } catch (error) {
    if (error instanceof api.Unreachable) {
      showFor(id, { status: () => t("exercise.followLater", { id: subId }), kind: "error" });
      setServer(false);
    } else {
      dropPending(subId); // gone, or not this login's: nothing more to follow
      showFor(id, { status: () => api.describe(error), kind: "error" });
    }
  } finally {
    following.delete(subId);
    busy(id, -1);
  }
  submissionsChanged();
}

/** Follow again the submissions a reload or an outage interrupted. */
function resumePending() {
  for (const { id, exercise } of pendingSubmissions()) {
    if (exercises[exercise]) followSubmission(exercise, id);
    else dropPending(id);
  }
}

async function submitCode() {
  if (!api.currentUser()) return openAuthDialog($("auth-dialog"), () => (loggedIn(), submitCode()), { reason: t("exercise.loginToSubmit") });
  const id = state.current.id;
  $("submit").disabled = true;
  show({ status: () => t("exercise.submitting") });
  try {
    const sub = await api.submit(id, editor.code, fileName(id));
    notePending(sub.id, id);
    submissionsChanged(); // the new submission, queued, rather than "No submissions yet"
    noteQueue(sub, id);
    await followSubmission(id, sub.id);
  } catch (error) {
    if (error instanceof api.Unreachable) {
      showFor(id, { status: () => t("exercise.serverUnreachable"), kind: "error" });
      setServer(false);
    } else if (error.status === 401) {
      api.forget();
      loggedIn();
      openAuthDialog($("auth-dialog"), () => (loggedIn(), submitCode()), { reason: t("exercise.loginToSubmit") });
    } else showFor(id, { status: () => api.describe(error), kind: "error" });
  } finally {
    $("submit").disabled = false;
  }
}

/** Show a past submission read-only in place of the editor. */
async function openPast(subId) {
  const id = state.current.id;
  let sub;
  try {
    sub = await api.submission(subId);
  } catch (error) {
    return show({ status: () => api.describe(error), kind: "error" });
  }
  if (state.current?.id !== id) return;
  update({ past: sub });
  if (sub.status !== "done") followPast(id, sub);
}

async function followPast(id, sub) {
  const done = await api.follow(sub.id, ({ status, cases }) => {
    if (state.past?.id !== sub.id) return;
    update({ past: { ...sub, status, result: pending(status, status === "queued" ? "exercise.queued" : "exercise.judging", cases) } });
  });
  if (state.past?.id === sub.id) update({ past: done });
  dropPending(sub.id);
  update({ pending: pendingSubmissions() });
  finished(id, { result: done.result, official: true, heading: () => t("exercise.officialResult", { runtime: done.result.runtime }) }, true);
}

function drawPast() {
  const { past, current } = state;
  const work = $("work");
  work.dataset.view = past ? "past" : "edit";
  if (!past) return $("past").replaceChildren();
  renderPast($("past"), past, {
    current: () => editor.code,
    file: fileName(current.id),
    onLoad: () => {
      if (!confirm(t("exercise.loadConfirm", { id: past.id }))) return;
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

const closePast = () => update({ past: null });

/** Logged in or out (api.js keeps who): the account corner and the history follow. */
const loggedIn = () => update({ user: api.currentUser() });

const drawAccount = () => renderAccount($("account"), $("auth-dialog"), loggedIn);

/** The parts of the page that only the language changes. */
function drawChrome() {
  $("lang-toggle").textContent = t("exercise.langButton");
  const first = catalog.exercises[0];
  $("start-first").href = `#/${first.id}`;
  $("start-first").textContent = t("exercise.startFirst", { title: pick(first.title) });
  $("shortcut-hint").textContent = t("exercise.shortcutHint", {
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
  if (!confirm(t("exercise.resetConfirm"))) return;
  editor.load(state.current.starter);
  saveCode(state.current.id, null);
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
addEventListener("online", probeServer);
addEventListener("hashchange", () => open(decodeURIComponent(location.hash.replace(/^#\/?/, ""))));

// What redraws what: each drawer with the state keys it reads.
on(["lang"], drawChrome);
on(["runner", "serverKernel", "lang"], drawRunnerStatus);
on(["runner", "lang"], updateButtons);
on(["current", "missing", "lang"], drawPage);
on(["current", "running", "waiting", "recorded", "lang"], drawList);
on(["user", "lang"], drawAccount);
on(["current", "lang"], drawExercise);
on(["shown", "serverUp", "lang"], drawShown);
on(["past", "lang"], drawPast);
on(["current", "user", "submitted", "serverUp", "lang"], drawHistory);
on(["serverUp"], drawServer);
on(["serverUp", "pending", "lang"], drawPractice);
on(["queue", "current", "lang"], () => drawQueue($("queue-note")));
on(["serverUp"], () => state.serverUp && resumePending()); // follow again what an outage interrupted

setupLayout();
drawAll();
open(decodeURIComponent(location.hash.replace(/^#\/?/, "")));
syncProgress();
probeServer();
