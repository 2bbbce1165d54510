// The app: exercise list, statement, editor, Run / Stop / Submit, results, account.
import { renderAccount, renderHistory } from "./account.js";
import * as api from "./api.js";
import { h } from "./dom.js";
import { createEditor } from "./editor.js";
import { applyI18n, currentLang, onLangChange, pick, setLang, t } from "./i18n.js";
import { renderMarkdown } from "./markdown.js";
import { renderResult, renderStatus, setVerdictTitles } from "./results.js";
import { Runner, Stopped } from "./runner.js";
import { loadCode, progress, recordVerdict, saveCode } from "./store.js";

const $ = (id) => document.getElementById(id);
let runnerState = ["loading"];
let drawn = false; // the runner may report before the page is drawn
const runner = new Runner((...state) => {
  runnerState = state;
  if (!drawn) return;
  drawRunnerStatus();
  updateButtons();
});

const catalog = await (await fetch(new URL("catalog.json", import.meta.url))).json();
const exercises = Object.fromEntries(catalog.exercises.map((ex) => [ex.id, ex]));
setVerdictTitles(catalog.verdicts);

let current = null; // the open exercise
let shown = null; // what the results area shows: {result, heading()} or {status()}, redrawn on a language change
const editor = createEditor($("editor"), (code) => current && saveCode(current.id, code));

function drawRunnerStatus() {
  const [state, detail] = runnerState;
  const key = { loading: "runnerLoading", ready: "runnerReady", busy: "runnerBusy", failed: "runnerFailed" }[state];
  $("runner-status").dataset.state = state;
  // A load failure is a Python traceback: its last line says what went wrong, the rest is a tooltip.
  const error = detail?.trim().split("\n").at(-1);
  $("runner-status").textContent = t(key, { mode: detail, error });
  $("runner-status").title = state === "failed" ? detail : "";
}

function updateButtons() {
  const busy = runnerState[0] === "busy";
  $("run-sample").disabled = $("run-all").disabled = runnerState[0] !== "ready";
  $("stop").disabled = !busy;
}

function drawList() {
  $("exercise-list").replaceChildren(
    ...catalog.exercises.map((ex) =>
      h(
        `li${ex === current ? ".current" : ""}`,
        { "data-exercise": ex.id, "data-progress": progress(ex.id) },
        h("a", { href: `#/${ex.id}` }, pick(ex.title)),
        h(`span.progress.p-${progress(ex.id)}`, {}, t(progress(ex.id))),
      ),
    ),
  );
}

function drawShown() {
  if (!shown) return $("results").replaceChildren();
  if (shown.result) renderResult($("results"), shown.result, shown.heading());
  else renderStatus($("results"), shown.status(), shown.kind);
}

function show(next) {
  shown = next;
  drawShown();
}

function drawExercise() {
  $("title").textContent = pick(current.title);
  $("statement-body").innerHTML = renderMarkdown(pick(current.statement));
}

function open(id) {
  current = exercises[id] ?? null;
  $("exercise").hidden = !current;
  $("welcome").hidden = !!current;
  drawList();
  if (!current) return;
  drawExercise();
  editor.load(loadCode(current.id) ?? current.starter);
  show(null);
  drawHistory();
}

const drawHistory = () => current && renderHistory($("history"), current.id, followSubmission);

/** A verdict-shaped view of work in progress: its status as the verdict, the cases so far. */
const pending = (status, key, cases) => ({ verdict: status, message: t(key), message_zh: t(key), cases });

function finished(result, heading) {
  recordVerdict(current.id, result.verdict);
  drawList();
  show({ result, heading });
}

async function runTests(samples) {
  const id = current.id;
  const cases = [];
  const heading = () => t("localResult");
  show({ status: () => t("running") });
  try {
    const result = await runner.run(id, editor.code, samples, (c) => {
      cases.push(c);
      show({ heading, result: pending("running", "running", cases) });
    });
    if (current?.id === id) finished(result, heading);
  } catch (error) {
    show(error instanceof Stopped ? { status: () => t("stopped") } : { status: () => error.message, kind: "error" });
  }
}

async function followSubmission(subId) {
  const heading = () => t("officialResult", { runtime: "torch" });
  const done = await api.follow(subId, ({ status, cases }) =>
    show({ heading, result: pending(status, status === "queued" ? "queued" : "judging", cases) }),
  );
  finished(done.result, () => t("officialResult", { runtime: done.result.runtime }));
  drawHistory();
}

async function submitCode() {
  $("submit").disabled = true;
  show({ status: () => t("submitting") });
  try {
    const sub = await api.submit(current.id, editor.code);
    await followSubmission(sub.id);
  } catch (error) {
    if (error instanceof api.Unreachable) show({ status: () => t("serverUnreachable"), kind: "error" });
    else if (error.status === 401) show({ status: () => t("loginNeeded"), kind: "error" });
    else show({ status: () => error.message, kind: "error" });
  } finally {
    $("submit").disabled = false;
  }
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
  drawList();
  drawAccount();
  if (current) drawExercise();
  drawShown();
  drawHistory();
}

$("run-sample").onclick = () => runTests(true);
$("run-all").onclick = () => runTests(false);
$("stop").onclick = () => runner.stop();
$("submit").onclick = submitCode;
$("reset").onclick = () => {
  if (!confirm(t("resetConfirm"))) return;
  editor.load(current.starter);
  saveCode(current.id, null);
};
$("lang-toggle").onclick = () => setLang(currentLang() === "en" ? "zh" : "en");
onLangChange(drawAll);
addEventListener("hashchange", () => open(decodeURIComponent(location.hash.replace(/^#\/?/, ""))));

applyI18n();
drawn = true;
drawAll();
updateButtons();
open(decodeURIComponent(location.hash.replace(/^#\/?/, "")));
