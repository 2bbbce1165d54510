// The course page (course.html): per-exercise leaderboards, your display name, progress, quota
// and submissions, and the staff's page: progress grid, staff, gradebook, deadlines, regrades,
// each learner's work. Routes: #/leaderboard/<id>, #/me, #/staff, #/learner/<user id>[/<id>],
// #/submission/<id>. Logged in through the main app (its token, or the session cookie).
import "./course.css";
import { call, Unreachable } from "./api.js";
import { download, gradebookSection, staffSection, toolsSection } from "./course-staff.js";
import { learnerView, submissionsTable, submissionView } from "./course-work.js";
import { setVerdictTitles } from "./results.js";
import { h } from "./dom.js";
import { currentLang, dateTime, setLang, t as tr } from "./i18n.js";
import { on } from "./state.js";
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
  const name = (e) => (e.anonymous ? t("anonymous") : e.name);
  const rows = board.entries.map((e) => h("tr", { class: e.you ? "you" : null, "data-rank": e.rank },
    h("td", { class: "num" }, String(e.rank)),
    h("td", {}, e.user_id != null // staff: whose it is, and their submissions one click away
      ? h("a", { href: `#/learner/${e.user_id}/${encodeURIComponent(id)}`, class: "learner-link" }, e.username, ` (${name(e)})`)
      : name(e), e.you ? ` (${t("you")})` : ""),
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
  const [profile, progress, quota, list, mine] = await Promise.all([call("GET", "/api/me/profile"),
    call("GET", "/api/me/progress"), call("GET", "/api/me/quota"), exercises(), call("GET", "/api/submissions?limit=50")]);
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
    table([t("exercise"), t("best"), t("attempts"), t("firstAccepted")], rows, { id: "my-progress", caption: t("me") }),
    h("h2", {}, t("mySubmissions")),
    submissionsTable(mine, { id: "my-submissions", caption: t("mySubmissions"), titles, verdictName }));
}

async function staffView(main) {
  const [data, me] = await Promise.all([call("GET", "/api/admin/progress"), call("GET", "/api/auth/me")]);
  data.exercises = await inCatalogOrder(data.exercises, (e) => e.exercise);
  const summary = data.exercises.map((e) => h("tr", { "data-exercise": e.exercise },
    h("td", {}, e.title[currentLang()] ?? e.exercise), h("td", { class: "num" }, `${e.solved} / ${e.learners}`),
    h("td", { class: "num" }, `${(100 * e.solve_rate).toFixed(0)} %`),
    h("td", {}, e.common_failures.map((f) => `${verdictName(f.verdict)} × ${f.count}`).join(currentLang() === "zh" ? "，" : ", "))));
  const ids = data.exercises.map((e) => e.exercise);
  const learners = new Map();
  for (const row of data.rows) {
    if (!learners.has(row.user_id)) learners.set(row.user_id, { id: row.user_id, name: row.username, display: row.display_name, cells: {} });
    learners.get(row.user_id).cells[row.exercise] = row;
  }
  const grid = [...learners.values()].map((l) => h("tr", { "data-user": l.id },
    h("td", {}, h("a", { href: `#/learner/${l.id}`, class: "learner-link" }, l.name), l.display ? ` (${l.display})` : ""),
    ids.map((id) => {
      const cell = l.cells[id];
      const td = verdictCell(cell?.best_verdict);
      if (cell?.attempts) { // that learner's submissions to it, one click away
        const text = td.textContent;
        td.replaceChildren(h("a", { href: `#/learner/${l.id}/${encodeURIComponent(id)}`, "data-exercise": id }, `${text} · ${cell.attempts}`));
      }
      if (cell?.first_accepted_at) td.title = `${t("firstAccepted")}: ${when(cell.first_accepted_at)}`;
      return td;
    })));
  const csv = h("button", { type: "button", id: "download-csv", onclick: () => download("/api/admin/progress.csv", "progress.csv") }, t("csv"));
  const refresh = () => staffView(main);
  const [staff, tools] = await Promise.all([staffSection(me, refresh), toolsSection(data.exercises, verdictNames, refresh)]);
  main.replaceChildren(h("h1", {}, t("staff")), h("p.picker", {}, csv), gradebookSection(),
    table([t("exercise"), t("solved"), t("solveRate"), t("failures")], summary, { id: "solve-rates", caption: t("solveRate") }),
    table([t("learner"), ...data.exercises.map((e) => e.title[currentLang()] ?? e.exercise)], grid, { id: "progress-grid", caption: t("learner") }),
    tools, staff);
}

/** Exercise titles by id, in the current language. */
async function exerciseTitles() {
  return Object.fromEntries((await exercises()).map((e) => [e.id, e.title[currentLang()] ?? e.id]));
}

async function route() {
  const main = document.getElementById("course");
  const [, page = "leaderboard", arg, rest] = location.hash.replace(/^#\/?/, "#/").split("/");
  document.documentElement.lang = currentLang() === "zh" ? "zh-CN" : "en";
  document.getElementById("course-lang").textContent = t("lang");
  document.getElementById("course-nav").setAttribute("aria-label", t("pages"));
  document.getElementById("course-nav").replaceChildren(...[["leaderboard", "leaderboards"], ["me", "me"], ["staff", "staff"]].map(
    ([path, key]) => h("a", { href: `#/${path}`, "aria-current": page === path ? "page" : null }, t(key))));
  main.replaceChildren(h("p", { class: "muted" }, t("loading")));
  try {
    verdictNames = (await catalog()).verdicts;
    setVerdictTitles(verdictNames); // the results view's badges name verdicts as the exercise page does
    if (page === "staff") await staffView(main);
    else if (page === "learner") await learnerView(main, arg, rest ? decodeURIComponent(rest) : null, { titles: await exerciseTitles(), verdictName });
    else if (page === "submission") {
      const here = location.hash;
      const me = await call("GET", "/api/auth/me");
      await submissionView(main, arg, { staff: me.role !== "learner", verdictName, stillHere: () => location.hash === here });
    }
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
