// The results view: verdict, per-case table with bytes per rank against the bound, messages, output.
import { h } from "./dom.js";
import { pick, t } from "./i18n.js";

let verdictTitles = {};
export const setVerdictTitles = (titles) => (verdictTitles = titles);

const message = (obj) => pick({ en: obj.message, zh: obj.message_zh });
/** A verdict code, or a submission's status (queued, running), as a coloured label. */
export const verdictBadge = (code) =>
  h(`span.verdict.v-${code}`, {}, verdictTitles[code] ? pick(verdictTitles[code]) : t(`status_${code}`));

function bytesCell(c) {
  return h(
    "td.bytes",
    {},
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
    h("div.bound", {}, t("bound", { bound: c.bytes_bound })),
  );
}

function caseRow(c) {
  return h(
    `tr.case.v-${c.verdict}`,
    { "data-case": c.name },
    h("td", {}, c.name, c.sample ? h("span.tag", {}, t("sample")) : null),
    h("td.num", {}, String(c.world_size)),
    h("td", {}, verdictBadge(c.verdict)),
    bytesCell(c),
    h("td.num", {}, `${c.wall_ms} ms`),
  );
}

// A failing case's message (unless the summary above already says it) and its tracebacks.
function caseDetails(c, summary) {
  if (c.verdict === "accepted") return null;
  return h(
    `div.case-detail.v-${c.verdict}`,
    { "data-case": c.name },
    message(c) === summary ? null : h("p.message", {}, message(c)),
    (c.details ?? []).map((text) => h("pre.traceback", { "aria-label": t("traceback") }, text)),
  );
}

/** Render a verdict JSON (browser run or the server's) into `root`; `heading` names its source. */
export function renderResult(root, result, heading) {
  const cases = result.cases ?? [];
  root.replaceChildren(
    h(
      `div.result.v-${result.verdict}`,
      { "data-verdict": result.verdict },
      h("div.result-head", {}, h("span.source", {}, heading), verdictBadge(result.verdict)),
      h("p.summary", {}, message(result)),
      cases.length
        ? h(
            "table.cases",
            {},
            h(
              "thead",
              {},
              h("tr", {}, ["case", "ranks", "verdict", "bytesSent", "time"].map((k) => h("th", {}, t(k)))),
            ),
            h("tbody", {}, cases.map(caseRow)),
          )
        : null,
      cases.map((c) => caseDetails(c, message(result))),
      result.skipped?.length ? h("p.skipped", {}, t("skipped", { cases: result.skipped.join(", ") })) : null,
      result.stdout ? h("details.stdout", { open: true }, h("summary", {}, t("stdout")), h("pre", {}, result.stdout)) : null,
    ),
  );
}

/** A one-line status in the results area (running, stopped, errors). */
export function renderStatus(root, text, kind = "info") {
  root.replaceChildren(h(`p.status.${kind}`, {}, text));
}
