// Logging in and out, and the list of one's submissions for the open exercise.
import * as api from "./api.js";
import { h } from "./dom.js";
import { t } from "./i18n.js";
import { verdictBadge } from "./results.js";

/** Render the account corner; `onChange` runs after logging in or out. */
export function renderAccount(root, dialog, onChange) {
  const user = api.currentUser();
  root.replaceChildren(
    user
      ? h("span.user", {}, t("loggedInAs", { user }), " ",
          h("button.ghost", { type: "button", id: "logout", onclick: () => (api.logout(), onChange()) }, t("logout")))
      : h("button.ghost", { type: "button", id: "login", onclick: () => openDialog(dialog, onChange) }, t("login")),
  );
}

function openDialog(dialog, onChange) {
  const form = dialog.querySelector("form");
  const error = dialog.querySelector("#auth-error");
  error.textContent = "";
  form.onsubmit = async (event) => {
    const action = event.submitter?.value;
    if (action === "cancel") return;
    event.preventDefault();
    try {
      await api.authenticate(action, form.username.value, form.password.value);
      dialog.close();
      onChange();
    } catch (e) {
      error.textContent = e instanceof api.Unreachable ? t("serverUnreachable") : e.message;
    }
  };
  dialog.showModal();
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
    h("h3", {}, t("history")),
    subs.length
      ? h("ul.history", {}, subs.map((s) =>
          h("li", {},
            h("button.link", { type: "button", onclick: () => onOpen(s.id) },
              `#${s.id} `, new Date(s.created_at).toLocaleString(), " ",
              verdictBadge(s.verdict ?? s.status)))))
      : h("p.muted", {}, t("noHistory")),
  );
}
