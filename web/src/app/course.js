// The course page (course.html): per-exercise leaderboards, your display name, progress and
// quota, and the staff's progress table with its CSV export. Routes: #/leaderboard/<id>,
// #/me, #/staff. Logged in through the main app (its token, or the session cookie).
import "./course.css";
import { call, Unreachable } from "./api.js";
import { h } from "./dom.js";
import { currentLang, dateTime, setLang, t as tr } from "./i18n.js";
import { on } from "./state.js";
import { load } from "./store.js";
import { formatSeconds } from "./units.js";

/** A course page string (strings.js, "course." keys) in the current language. */
const t = (key, vars = {}) => tr(`course.${key}`, vars);

/** A table in a box that scrolls sideways when it is wider than the page (the staff's grid). */
function table(head, rows, { id, caption }) {
  return h("div.table-scroll", { tabindex: 0, role: "region", "aria-labelledby": `${id}-caption` },
    h("table", { id }, h("caption.visually-hidden", { id: `${id}-caption` }, caption),
      h("thead", {}, h("tr", {}, head.map((cell) => h("th", { scope: "col" }, cell)))),
      h("tbody", {}, rows)));
}

const when = (iso) => (iso ? dateTime(iso) : "");

/** A leaderboard's time: four significant digits, so that close entries stay apart. */
const seconds = (s) => (s === null || s === undefined ? "–" : formatSeconds(s, 4));


/** The app's catalog (its order, tracks and titles), fetched once: a cache, not page state. */
let catalogFile = null;
const catalog = () => (catalogFile ??= fetch(new URL("catalog.json", import.meta.url)).then((r) => r.json()));

/** `items` in the catalog's order (by `key(item)`, an exercise id); ones it does not list last. */
async function inCatalogOrder(items, key = (item) => item.id) {
  const order = new Map((await catalog()).exercises.map((e, i) => [e.id, i]));
  const at = (item) => order.get(key(item)) ?? Infinity;
  return [...items].sort((a, b) => at(a) - at(b));
}

/** The catalog's verdict names ({code: {en, zh}}), a cache of the catalog's, set once it has loaded. */
let verdictNames = {};
const verdictName = (v) => verdictNames[v]?.[currentLang()] ?? verdictNames[v]?.en ?? v;
const verdictCell = (v) => h("td", { class: v ? `verdict-${v}` : "verdict-none", "data-verdict": v ?? null },
  v ? verdictName(v) : t("notTried"));

/** The server's exercises in the catalog's order. */
async function exercises() {
  return inCatalogOrder(await call("GET", "/api/exercises"));
}

/** The exercise picker: a select of the exercises, grouped by the catalog's tracks. */
async function picker(list, id) {
  const { exercises: known, tracks } = await catalog();
  const trackOf = new Map(known.map((e) => [e.id, e.track]));
  const groups = [];
  for (const e of list) {
    const track = trackOf.get(e.id) ?? null;
    if (groups.at(-1)?.track !== track) groups.push({ track, items: [] });
    groups.at(-1).items.push(h("option", { value: e.id, selected: e.id === id }, e.title[currentLang()] ?? e.id));
  }
  const select = h("select", { id: "exercise-picker" }, groups.map((g) => (g.track && tracks[g.track]
    ? h("optgroup", { label: tracks[g.track][currentLang()] ?? g.track }, g.items) : g.items)));
  select.addEventListener("change", () => (location.hash = `#/leaderboard/${encodeURIComponent(select.value)}`));
  return h("p.picker", {}, h("label", { for: "exercise-picker" }, t("pickExercise")), select);
}

async function leaderboardView(main, id) {
  const list = await exercises();
  id = id || list[0]?.id;
  const board = await call("GET", `/api/exercises/${encodeURIComponent(id)}/leaderboard`);
  const modelled = board.ranked_by[0] === "model_time_s";
  const rows = board.entries.map((e) => h("tr", { class: e.you ? "you" : null, "data-rank": e.rank },
    h("td", { class: "num" }, String(e.rank)),
    h("td", {}, e.anonymous ? t("anonymous") : e.name, e.you ? ` (${t("you")})` : ""),
    h("td", { class: "num" }, seconds(e.model_time_s)),
    h("td", { class: "num" }, e.bytes_sent === null ? "–" : e.bytes_sent.toLocaleString()),
    h("td", {}, when(e.submitted_at), e.current_version ? "" : ` (${t("version")})`)));
  const title = `${t("leaderboards")}: ${board.title[currentLang()] ?? id}`;
  main.replaceChildren(h("h1", {}, title), await picker(list, id),
    h("p", { class: "muted" }, modelled ? t("rankedBy") : t("rankedByBytes")),
    rows.length ? table([t("rank"), t("name"), t("modelled"), t("bytes"), t("date")], rows, { id: "leaderboard", caption: title })
      : h("p", { id: "leaderboard-empty" }, t("noEntries")));
}

async function meView(main) {
  const [profile, progress, quota, list] = await Promise.all([call("GET", "/api/me/profile"),
    call("GET", "/api/me/progress"), call("GET", "/api/me/quota"), exercises()]);
  const titles = Object.fromEntries(list.map((e) => [e.id, e.title[currentLang()]]));
  const input = h("input", { id: "display-name", value: profile.display_name ?? "", maxlength: "32",
    "aria-label": t("displayName") });
  const note = h("span", { id: "profile-note", role: "status" });
  const send = async (name) => {
    try {
      const saved = await call("PUT", "/api/me/profile", { display_name: name });
      input.value = saved.display_name ?? "";
      note.className = "muted";
      note.textContent = t("nameSaved");
    } catch (error) {
      note.className = "error";
      note.textContent = error.message;
    }
  };
  const form = h("form", { id: "profile-form" }, h("label", { for: "display-name" }, t("displayName")), input,
    h("button", { type: "submit", class: "primary" }, t("save")),
    h("button", { type: "button", id: "stay-anonymous" }, t("stayAnonymous")), note);
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    send(input.value.trim() || null);
  });
  form.querySelector("#stay-anonymous").addEventListener("click", () => send(null));
  const rows = (await inCatalogOrder(progress, (p) => p.exercise)).map((p) => h("tr", {}, h("td", {}, titles[p.exercise] ?? p.exercise),
    verdictCell(p.best_verdict), h("td", { class: "num" }, String(p.attempts)), h("td", {}, when(p.first_accepted_at))));
  main.replaceChildren(h("h1", {}, t("me")), form,
    h("p", { id: "quota" }, t("quota", { left: quota.remaining_this_minute, rate: quota.rate_per_minute,
      pending: quota.pending, max: quota.max_pending })),
    table([t("exercise"), t("best"), t("attempts"), t("firstAccepted")], rows, { id: "my-progress", caption: t("me") }));
}

async function staffView(main) {
  const data = await call("GET", "/api/admin/progress");
  data.exercises = await inCatalogOrder(data.exercises, (e) => e.exercise);
  const summary = data.exercises.map((e) => h("tr", { "data-exercise": e.exercise },
    h("td", {}, e.title[currentLang()] ?? e.exercise), h("td", { class: "num" }, `${e.solved} / ${e.learners}`),
    h("td", { class: "num" }, `${(100 * e.solve_rate).toFixed(0)} %`),
    h("td", {}, e.common_failures.map((f) => `${verdictName(f.verdict)} × ${f.count}`).join(currentLang() === "zh" ? "，" : ", "))));
  const ids = data.exercises.map((e) => e.exercise);
  const learners = new Map();
  for (const row of data.rows) {
    if (!learners.has(row.user_id)) learners.set(row.user_id, { name: row.username, display: row.display_name, cells: {} });
    learners.get(row.user_id).cells[row.exercise] = row;
  }
  const grid = [...learners.values()].map((l) => h("tr", {},
    h("td", {}, l.name, l.display ? ` (${l.display})` : ""),
    ids.map((id) => {
      const cell = l.cells[id];
      const td = verdictCell(cell?.best_verdict);
      if (cell?.attempts) td.append(` · ${cell.attempts}`);
      if (cell?.first_accepted_at) td.title = `${t("firstAccepted")}: ${when(cell.first_accepted_at)}`;
      return td;
    })));
  const csv = h("button", { type: "button", id: "download-csv", class: "primary" }, t("csv"));
  csv.addEventListener("click", async () => {
    const token = load("token");
    const response = await fetch("/api/admin/progress.csv", { credentials: "same-origin",
      headers: token ? { Authorization: `Bearer ${token}` } : {} });
    const link = h("a", { href: URL.createObjectURL(await response.blob()), download: "progress.csv" });
    document.body.append(link);
    link.click();
    link.remove();
  });
  main.replaceChildren(h("h1", {}, t("staff")), csv,
    table([t("exercise"), t("solved"), t("solveRate"), t("failures")], summary, { id: "solve-rates", caption: t("solveRate") }),
    table([t("learner"), ...data.exercises.map((e) => e.title[currentLang()] ?? e.exercise)], grid, { id: "progress-grid", caption: t("learner") }));
}

async function route() {
  const main = document.getElementById("course");
  const [, page = "leaderboard", arg] = location.hash.replace(/^#\/?/, "#/").split("/");
  document.documentElement.lang = currentLang() === "zh" ? "zh-CN" : "en";
  document.getElementById("course-lang").textContent = t("lang");
  document.getElementById("course-nav").setAttribute("aria-label", t("pages"));
  document.getElementById("course-nav").replaceChildren(...[["leaderboard", "leaderboards"], ["me", "me"], ["staff", "staff"]].map(
    ([path, key]) => h("a", { href: `#/${path}`, "aria-current": page === path ? "page" : null }, t(key))));
  main.replaceChildren(h("p", { class: "muted" }, t("loading")));
  try {
    verdictNames = (await catalog()).verdicts;
    if (page === "staff") await staffView(main);
    else if (page === "me") await meView(main);
    else await leaderboardView(main, arg ? decodeURIComponent(arg) : null);
  } catch (error) {
    const key = error instanceof Unreachable ? "offline" : error.status === 401 ? "loginFirst" : error.status === 403 ? "staffOnly" : null;
    main.replaceChildren(h("p", { class: "error", id: "course-error" }, key ? t(key) : error.message,
      " ", h("a", { href: "./#/" }, t("back"))));
  }
}

// the app's language too (state.js's `lang`): dates follow it
document.getElementById("course-lang").addEventListener("click", () => setLang(currentLang() === "zh" ? "en" : "zh"));
on(["lang"], route);
window.addEventListener("hashchange", route);
route();
