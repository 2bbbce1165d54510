// Logging in, registering and out, and the list of one's submissions for the open exercise.
import * as api from "./api.js";
import { h } from "./dom.js";
import { dateTime, t } from "./i18n.js";
import { verdictBadge } from "./results.js";

/** Render the account corner; `onChange` runs after logging in or out. */
export function renderAccount(root, dialog, onChange) {
  const user = api.currentUser();
  root.replaceChildren(
    user
      ? h("span.user", {}, t("exercise.loggedInAs", { user }), " ",
          h("button.ghost", { type: "button", id: "logout", onclick: () => (api.logout(), onChange()) }, t("exercise.logout")))
      : h("button.ghost", { type: "button", id: "login", onclick: () => openAuthDialog(dialog, onChange) }, t("exercise.login")),
  );
}

/** Which server field errors mean what, per field (pydantic's error types; a weak password's reason). */
function fieldMessage(field, type, reason) {
  if (field === "username") return t(type === "string_too_long" ? "exercise.fieldUsernameLong" : "exercise.fieldUsername");
  if (field === "password" && type === "weak") return `${t("exercise.fieldPasswordWeak")}${reason ? ` ${t("exercise.strengthSays", { feedback: reason })}` : ""}`;
  if (field === "password") return t(type === "string_too_long" ? "exercise.fieldPasswordLong" : "exercise.fieldPassword");
  return t("exercise.err_invalid");
}

/** One line of zxcvbn's advice in the app's language (its English text for a code we lack). */
const advice = (line) => (line.code && t.has(`zxcvbn.${line.code}`) ? t(`zxcvbn.${line.code}`) : line.text);

/** Why the judge refuses a checked password, as sign-up's 422 words it (server/passwords.py), translated. */
const reasonOf = (check) => (check.warning ? advice(check.warning) : check.suggestions.map(advice).join(" "));

/**
 * The Register form's live verdict on the password: the server's own estimator and threshold
 * (`POST /api/auth/password-check`, docs/server.md), asked when typing pauses; an answer to an
 * older keystroke is dropped. `check()` asks now and resolves to the answer (null if none);
 * `cancel()` drops a check not yet asked (sign-up is about to judge the password itself).
 */
function strengthMeter(dialog, form) {
  let out = dialog.querySelector("#password-strength");
  if (!out) {
    out = h("div.rule.strength", { id: "password-strength", "aria-live": "polite" });
    dialog.querySelector("#password-rule").after(out);
    form.password.setAttribute("aria-describedby", `${form.password.getAttribute("aria-describedby")} password-strength`);
  }
  let asked = 0;
  let timer;
  const render = (check) => {
    out.dataset.verdict = check ? (check.acceptable ? "acceptable" : check.too_short ? "short" : "weak") : "";
    if (!check) return out.replaceChildren();
    if (check.acceptable) return out.replaceChildren(h("p", {}, t("password.acceptable")));
    if (check.too_short) return out.replaceChildren(h("p", {}, t("password.tooShort", { min: check.min_length })));
    out.replaceChildren(
      h("p", {}, t("password.weak", { score: check.score, min: check.min_score })),
      check.warning ? h("p.warning", {}, advice(check.warning)) : "",
      check.suggestions.length ? h("ul.suggestions", {}, check.suggestions.map((line) => h("li", {}, advice(line)))) : "",
    );
  };
  const check = async () => {
    clearTimeout(timer);
    const n = ++asked;
    const password = form.password.value;
    if (dialog.dataset.mode !== "register" || !password) return render(null), null;
    let answer = null;
    try {
      // never asked again when busy: by then the password may have changed, or sign-up judges it
      answer = await api.call("POST", "/api/auth/password-check", { username: form.username.value.trim(), password }, { retries: 0 });
    } catch {} // offline or rate-limited: sign-up itself still says why
    if (n === asked) render(answer);
    return answer;
  };
  const soon = () => {
    clearTimeout(timer);
    timer = setTimeout(check, 250);
  };
  form.password.oninput = soon;
  form.username.oninput = () => form.password.value && soon();
  return { check, cancel: () => clearTimeout(timer) };
}

/**
 * The log-in / register dialog: two modes (Enter does what the mode says), the rules under the
 * inputs in Register mode, the server's field errors under each input, its other errors
 * translated. `onDone` runs once logged in; `reason` says why the dialog opened.
 */
export function openAuthDialog(dialog, onDone, { reason = "", mode = "login" } = {}) {
  const form = dialog.querySelector("form");
  const meter = strengthMeter(dialog, form);
  const error = dialog.querySelector("#auth-error");
  const submit = dialog.querySelector("#auth-submit");
  const setMode = (next) => {
    mode = next;
    dialog.dataset.mode = mode;
    for (const tab of dialog.querySelectorAll("[data-mode-tab]")) tab.setAttribute("aria-selected", String(tab.dataset.modeTab === mode));
    dialog.querySelector("#auth-title").textContent = t(mode === "login" ? "exercise.login" : "exercise.register");
    submit.textContent = t(mode === "login" ? "exercise.login" : "exercise.registerAction");
    form.password.autocomplete = mode === "login" ? "current-password" : "new-password";
    for (const rule of dialog.querySelectorAll(".rule")) rule.hidden = mode !== "register";
    clearErrors();
    meter.check();
  };
  const clearErrors = () => {
    error.textContent = "";
    for (const input of form.querySelectorAll("input")) {
      input.removeAttribute("aria-invalid");
      dialog.querySelector(`#${input.name}-error`).textContent = "";
    }
  };
  for (const tab of dialog.querySelectorAll("[data-mode-tab]")) tab.onclick = () => setMode(tab.dataset.modeTab);
  dialog.querySelector("#auth-reason").textContent = reason;
  dialog.querySelector("#auth-cancel").onclick = () => dialog.close();
  setMode(mode);
  form.onsubmit = async (event) => {
    event.preventDefault();
    if (submit.disabled) return; // one request at a time: Enter pressed again while it runs
    meter.cancel(); // its hashing slot would be taken from this request's
    clearErrors();
    submit.disabled = true;
    submit.setAttribute("aria-busy", "true");
    try {
      await api.authenticate(mode, form.username.value.trim(), form.password.value);
      form.password.value = "";
      dialog.close();
      onDone();
    } catch (e) {
      const fields = Object.entries(e.fields ?? {});
      const checked = e.fields?.password === "weak" ? await meter.check() : null;
      for (const [field, type] of fields) {
        const input = form.elements[field];
        if (!input) continue;
        input.setAttribute("aria-invalid", "true");
        dialog.querySelector(`#${field}-error`).textContent = fieldMessage(field, type, checked ? reasonOf(checked) : e.feedback);
      }
      if (fields.length) form.elements[fields[0][0]]?.focus();
      else error.textContent = api.describe(e);
    } finally {
      submit.disabled = false;
      submit.removeAttribute("aria-busy");
    }
  };
  if (!dialog.open) dialog.showModal();
  form.username.focus();
}

/** The caller's submissions of `exercise`, newest first; nothing when logged out or offline. */
export async function renderHistory(root, exercise, onOpen) {
  if (!api.currentUser()) return root.replaceChildren();
  let subs;
  try {
    subs = await api.history(exercise);
  } catch {
    return root.replaceChildren();
  }
  root.replaceChildren(
    h("h3", {}, t("exercise.history")),
    subs.length
      ? h("ul.history", {}, subs.map((s) =>
          h("li", { "data-submission": s.id },
            h("button.link", { type: "button", onclick: () => onOpen(s.id) },
              `#${s.id} `, dateTime(s.created_at), " ",
              verdictBadge(s.verdict ?? s.status)))))
      : h("p.muted", {}, t("exercise.noHistory")),
  );
}
