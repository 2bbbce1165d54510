// A learner's work on the course page: a list of submissions (a learner's own on #/me, or
// staff's view of one learner's, #/learner/<user id>/<exercise>) and one submission
// (#/submission/<id>): its code, verdict, messages and run view as the learner saw them, when it
// was late, and each regrade ("regraded on …: was X, now Y"), with staff's regrade button.
import { call } from "./api.js";
import { h } from "./dom.js";
import { dateTime, t } from "./i18n.js";
import { renderResult, verdictBadge } from "./results.js";

const POLL_MS = 1000; // a submission being judged is read again this often while it is open

/** The notes a submission's history makes: one per regrade, each "was X, now Y" (the next
 * verdict, or the current one; "being judged" while it is). */
export function regradeNotes(sub, verdictName) {
  const history = sub.history ?? [];
  return history.map((earlier, i) => {
    const now = history[i + 1]?.verdict ?? (sub.status === "done" ? sub.verdict : null);
    const version = earlier.judge_version ? ` (${t("course.judgedBy", { version: earlier.judge_version })})` : "";
    return t("course.regradedNote", { date: dateTime(earlier.regraded_at), was: verdictName(earlier.verdict) + version,
      now: now ? verdictName(now) : t("course.judging") });
  });
}

/** A table of submissions (summaries), each id a link to its view; late and regraded marked. */
export function submissionsTable(list, { id, caption, titles, verdictName }) {
  if (!list.length) return h("p.muted", { id: `${id}-empty` }, t("course.noSubmissions"));
  const rows = list.map((s) => h("tr", { "data-submission": s.id },
    h("td", {}, h("a", { href: `#/submission/${s.id}` }, `#${s.id}`)),
    h("td", {}, titles[s.exercise] ?? s.exercise),
    h("td", { class: s.verdict ? `verdict-${s.verdict}` : "verdict-none", "data-verdict": s.verdict ?? null },
      s.verdict ? verdictName(s.verdict) : t("course.judging")),
    h("td", {}, dateTime(s.created_at), s.late ? h("span.tag.late", {}, t("course.late")) : null)));
  return h("div.table-scroll", { tabindex: 0, role: "region", "aria-labelledby": `${id}-caption` },
    h("table", { id }, h("caption.visually-hidden", { id: `${id}-caption` }, caption),
      h("thead", {}, h("tr", {}, [t("course.submissionsTitle"), t("course.exercise"), t("course.verdict"), t("course.date")]
        .map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, rows)));
}

/** Staff: one learner's submissions (to one exercise, or all). */
export async function learnerView(main, userId, exercise, { titles, verdictName }) {
  const query = new URLSearchParams({ of: userId, limit: "200" });
  if (exercise) query.set("exercise", exercise);
  const [list, progress] = await Promise.all([call("GET", `/api/submissions?${query}`), call("GET", "/api/admin/progress")]);
  const row = progress.rows.find((r) => String(r.user_id) === String(userId));
  const name = row ? `${row.username}${row.display_name ? ` (${row.display_name})` : ""}` : `#${userId}`;
  const title = `${t("course.submissionsOf", { name })}: ${exercise ? titles[exercise] ?? exercise : t("course.allExercises")}`;
  main.replaceChildren(h("h1", {}, title), h("p", {}, h("a", { href: "#/staff" }, t("course.staff"))),
    submissionsTable(list, { id: "learner-submissions", caption: title, titles, verdictName }));
}

/** One submission as its learner saw it; staff may regrade it. Read again while it is judged. */
export async function submissionView(main, id, { staff, verdictName, stillHere }) {
  const sub = await call("GET", `/api/submissions/${encodeURIComponent(id)}`);
  const note = h("p", { id: "regrade-note", role: "status" });
  const regrade = staff && sub.status === "done"
    ? h("button", { type: "button", id: "regrade-submission", onclick: async () => {
      try {
        await call("POST", `/api/admin/submissions/${sub.id}/regrade`);
        await submissionView(main, id, { staff, verdictName, stillHere });
      } catch (error) {
        note.className = "error";
        note.textContent = error.message;
      }
    } }, t("course.regradeOne"))
    : null;
  const results = h("div.past-result");
  main.replaceChildren(...[
    h("h1", {}, t("course.submissionTitle", { id: sub.id })),
    h("p.submission-head", {}, verdictBadge(sub.verdict ?? sub.status), " ", sub.exercise, " · ", dateTime(sub.created_at)),
    sub.late ? h("p.late-note", { id: "late-note" }, t("course.lateNote")) : null,
    h("ul.regrades", { id: "regrade-history" }, regradeNotes(sub, verdictName).map((text) => h("li", {}, text))),
    regrade, note,
    h("h2", {}, t("course.code")),
    h("pre.submission-code", { id: "submission-code", tabindex: 0 }, sub.code),
    results].filter(Boolean));
  if (sub.result) renderResult(results, sub.result, { heading: t("course.result") });
  if (sub.status !== "done") setTimeout(() => stillHere() && submissionView(main, id, { staff, verdictName, stillHere }), POLL_MS);
}
