// The staff page's tools beside the progress grid: the course's staff (the admin adds one),
// the gradebook download with its late policy, and per exercise a deadline and a regrade (the
// count it will re-queue shown on its button, an optional verdict filter).
import { call } from "./api.js";
import { h } from "./dom.js";
import { currentLang, dateTime, t } from "./i18n.js";
import { load } from "./store.js";

/** Save what GET `path` answers as `filename` (sent with the app's token). */
export async function download(path, filename) {
  const token = load("token");
  const response = await fetch(path, { credentials: "same-origin", headers: token ? { Authorization: `Bearer ${token}` } : {} });
  const link = h("a", { href: URL.createObjectURL(await response.blob()), download: filename });
  document.body.append(link);
  link.click();
  link.remove();
}

/** Show `text` in `note` (an error in red). */
const say = (note, text, error = false) => {
  note.className = error ? "error" : "muted";
  note.textContent = text;
};

/** The staff, and for the admin a form that adds one by username. */
export async function staffSection(me, refresh) {
  const members = await call("GET", "/api/admin/staff");
  const list = h("ul", { id: "staff-list" }, members.map((m) => h("li", { "data-username": m.username },
    m.username, m.display_name ? ` (${m.display_name})` : "", " · ", t(m.role === "admin" ? "course.roleAdmin" : "course.roleStaff"))));
  const section = h("section", { "aria-labelledby": "staff-heading" }, h("h2", { id: "staff-heading" }, t("course.staffList")), list);
  if (me.role !== "admin") return section;
  const input = h("input", { id: "staff-username", maxlength: "32", autocomplete: "off" });
  const note = h("span", { id: "staff-note", role: "status" });
  const form = h("form", { id: "add-staff" }, h("label", { for: "staff-username" }, t("course.username")), input,
    h("button", { type: "submit" }, t("course.addStaff")), note);
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      const user = await call("PUT", `/api/admin/users/${encodeURIComponent(input.value.trim())}/role`, { role: "staff" });
      await refresh();
      say(document.getElementById("staff-note"), t("course.staffAdded", { name: user.username }));
    } catch (error) {
      say(note, currentLang() === "zh" && error.messageZh ? error.messageZh : error.message, true);
    }
  });
  section.append(form);
  return section;
}

/** The gradebook's download button and its late policy. */
export function gradebookSection() {
  const policy = h("select", { id: "late-policy" }, h("option", { value: "not_counted" }, t("course.lateNotCounted")),
    h("option", { value: "counted" }, t("course.lateCounted")));
  const button = h("button", { type: "button", id: "download-gradebook", class: "primary",
    onclick: () => download(`/api/admin/gradebook.csv?late=${policy.value}`, "gradebook.csv") }, t("course.gradebook"));
  return h("section", {}, h("p.picker", {}, button, h("label", { for: "late-policy" }, t("course.lateCounts")), policy),
    h("p.muted", {}, t("course.gradebookNote")));
}

/** A datetime-local input's value for an ISO time (in this browser's time zone). */
const localInput = (iso) => {
  if (!iso) return "";
  const d = new Date(iso);
  return new Date(d.getTime() - d.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
};

/** Per exercise: its deadline, and a regrade of its submissions (with a verdict filter). */
export async function toolsSection(exercises, verdictNames, refresh) {
  const assignments = new Map((await call("GET", "/api/admin/assignments")).map((a) => [a.exercise, a.due]));
  const pick = h("select", { id: "tools-exercise" }, exercises.map((e) =>
    h("option", { value: e.exercise }, e.title[currentLang()] ?? e.exercise)));
  const due = h("input", { id: "deadline", type: "datetime-local" });
  const dueNow = h("span.muted", { id: "deadline-now" });
  const verdict = h("select", { id: "regrade-verdict" }, h("option", { value: "" }, t("course.anyVerdict")),
    Object.entries(verdictNames).map(([code, name]) => h("option", { value: code }, name[currentLang()] ?? name.en ?? code)));
  const regrade = h("button", { type: "button", id: "regrade-exercise" });
  const note = h("p", { id: "tools-note", role: "status" });
  let count = 0;
  const show = async () => {
    const current = assignments.get(pick.value) ?? null;
    due.value = localInput(current);
    dueNow.textContent = `${t("course.deadline")}: ${current ? dateTime(current) : t("course.noDeadline")}`;
    const query = new URLSearchParams({ exercise: pick.value });
    if (verdict.value) query.set("verdict", verdict.value);
    count = (await call("GET", `/api/admin/regrade/count?${query}`)).count;
    regrade.textContent = t("course.regradeCount", { n: count });
    regrade.disabled = count === 0;
  };
  const setDeadline = async (value) => {
    try {
      const saved = await call("PUT", `/api/admin/exercises/${encodeURIComponent(pick.value)}/deadline`,
        { due: value ? new Date(value).toISOString() : null });
      assignments.set(pick.value, saved.due);
      await show();
      say(note, t("course.deadlineSaved", { late: saved.late }));
    } catch (error) {
      say(note, error.message, true);
    }
  };
  regrade.addEventListener("click", async () => {
    if (!confirm(t("course.regradeConfirm", { n: count }))) return;
    const body = { exercise: pick.value };
    if (verdict.value) body.verdict = verdict.value;
    const done = await call("POST", "/api/admin/regrade", body);
    await refresh();
    say(document.getElementById("tools-note"), t("course.regradeQueued", { n: done.queued }));
  });
  pick.addEventListener("change", show);
  verdict.addEventListener("change", show);
  await show();
  return h("section", { "aria-labelledby": "tools-heading" }, h("h2", { id: "tools-heading" }, t("course.tools")),
    h("p.picker", {}, h("label", { for: "tools-exercise" }, t("course.exercise")), pick),
    h("p.picker", {}, h("label", { for: "deadline" }, t("course.deadline")), due,
      h("button", { type: "button", id: "set-deadline", onclick: () => setDeadline(due.value) }, t("course.setDeadline")),
      h("button", { type: "button", id: "clear-deadline", onclick: () => setDeadline(null) }, t("course.clearDeadline")), dueNow),
    h("p.picker", {}, h("label", { for: "regrade-verdict" }, t("course.onlyVerdict")), verdict, regrade),
    note);
}
