// UI text in English and Chinese, and the current language (state.js's `lang`).
import { on, state, update } from "./state.js";
import { save } from "./store.js";
import { STRINGS } from "./strings.js";

export const currentLang = () => state.lang;

const fill = (text, params) => text.replace(/\{(\w+)\}/g, (_, name) => String(params[name]));

/** The UI text `key` in the current language (English if it has none there, else the key itself). */
export function t(key, params = {}) {
  return fill(STRINGS[state.lang][key] ?? STRINGS.en[key] ?? key, params);
}

/** The UI text `key` in both languages, as a verdict's `message` and `message_zh`. */
export const messages = (key, params = {}) =>
  ({ message: fill(STRINGS.en[key], params), message_zh: fill(STRINGS.zh[key], params) });
t.has = (key) => key in STRINGS.en;

const MAC = /Mac|iPhone|iPad/.test(navigator.platform ?? "");
/** A CodeMirror key name ("Shift-Mod-Enter") as this platform writes it ("Shift+Ctrl+Enter", "⇧⌘Enter"). */
export function shortcut(keys) {
  const names = keys.split("-").map((k) => ({ Mod: MAC ? "⌘" : "Ctrl", Shift: MAC ? "⇧" : "Shift" })[k] ?? k);
  return names.join(MAC ? "" : "+");
}

/** A date and time from the API (UTC), in the app's language. */
export function dateTime(iso) {
  const date = new Date(/[zZ]|[+-]\d\d:\d\d$/.test(iso) ? iso : `${iso}Z`);
  return date.toLocaleString(state.lang === "zh" ? "zh-CN" : "en", { dateStyle: "medium", timeStyle: "short" });
}

/** Pick the current language's side of an {en, zh} pair, or of a message/message_zh pair. */
export function pick(pair) {
  return pair[state.lang] ?? pair.en;
}

export function applyI18n(root = document) {
  document.documentElement.lang = state.lang === "zh" ? "zh-CN" : "en";
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-label]")) el.setAttribute("aria-label", t(el.dataset.i18nLabel));
}

/** Switch the language (kept between visits); the page redraws through the state's `lang` drawers. */
export function setLang(next) {
  save("lang", next);
  update({ lang: next });
}

on(["lang"], () => applyI18n());
