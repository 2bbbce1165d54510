// A past submission, read-only: its own code (with the verdict's marks on it), verdict, size and
// time, "Load into editor" and "Diff with current".
import { h } from "./dom.js";
import { createEditor } from "./editor.js";
import { dateTime, t } from "./i18n.js";
import { diagnostics, renderResult, verdictBadge } from "./results.js";

/** A line diff (longest common subsequence): [{kind: " " | "-" | "+", text}], old → new. */
export function lineDiff(before, after) {
  const a = before.split("\n");
  const b = after.split("\n");
  const n = a.length;
  const m = b.length;
  const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--) lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
  const out = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) out.push({ kind: " ", text: a[i++] }), j++;
    else if (j < m && (i === n || lcs[i][j + 1] > lcs[i + 1][j])) out.push({ kind: "+", text: b[j++] });
    else out.push({ kind: "-", text: a[i++] });
  }
  return out;
}

function diffView(before, after) {
  const lines = lineDiff(before, after);
  if (lines.every((l) => l.kind === " ")) return h("p.muted.diff-same", {}, t("exercise.diffSame"));
  return h("pre.diff", { "aria-label": t("exercise.diffLabel") },
    lines.map((l) => h(`span.d${l.kind === "+" ? ".add" : l.kind === "-" ? ".del" : ""}`, {}, `${l.kind} ${l.text}\n`)));
}

/**
 * Render submission `sub` (the API's SubmissionOut) into `root`.
 * options: current() (the editor's code, for the diff), file, onLoad, onClose.
 */
export function renderPast(root, sub, options) {
  const bytes = new TextEncoder().encode(sub.code).length;
  const viewer = h("div.past-code");
  const diffBox = h("div.diff-box", { hidden: true });
  const diffButton = h("button", {
    type: "button", id: "past-diff", "aria-expanded": "false",
    onclick: () => {
      const open = diffBox.hidden;
      diffBox.hidden = !open;
      diffButton.setAttribute("aria-expanded", String(open));
      if (open) diffBox.replaceChildren(h("p.muted", {}, t("exercise.diffLegend")), diffView(sub.code, options.current()));
    },
  }, t("exercise.diffWithCurrent"));
  const results = h("div.past-result");
  root.replaceChildren(
    h("div.past-head", {},
      h("h2", { id: "past-title" }, t("exercise.submissionTitle", { id: sub.id })),
      verdictBadge(sub.verdict ?? sub.status),
      h("span.muted", {}, [
        dateTime(sub.created_at),
        t("exercise.codeBytes", { bytes }),
        sub.grading_ms != null ? t("exercise.gradedIn", { ms: Math.round(sub.grading_ms) }) : null,
      ].filter(Boolean).join(" · "))),
    h("p.muted", {}, t("exercise.readOnlyNote")),
    h("div.row.past-actions", {},
      h("button.primary", { type: "button", id: "past-load", onclick: options.onLoad }, t("exercise.loadIntoEditor")),
      diffButton,
      h("button.ghost", { type: "button", id: "past-close", onclick: options.onClose }, t("exercise.backToCode"))),
    viewer,
    diffBox,
    results,
  );
  const code = createEditor(viewer, { readOnly: true, label: () => t("exercise.pastCodeLabel", { id: sub.id }) });
  code.load(sub.code);
  if (sub.result) {
    renderResult(results, sub.result, {
      heading: t("exercise.officialResult", { runtime: sub.result.runtime ?? "torch" }),
      file: options.file,
      onLine: (line) => code.goToLine(line),
    });
    if (sub.status === "done") code.mark(diagnostics(sub.result));
  }
}
