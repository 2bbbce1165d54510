// UI text in English and Chinese, and the current language.
import { load, save } from "./store.js";
import { STRINGS } from "./strings.js";

const listeners = [];
let lang = load("lang") ?? (navigator.language?.startsWith("zh") ? "zh" : "en");

export const currentLang = () => lang;

/** The UI text `key` in the current language (English if it has none there, else the key itself). */
export function t(key, params = {}) {
  const text = STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(params[name]));
}
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
  return date.toLocaleString(lang === "zh" ? "zh-CN" : "en", { dateStyle: "medium", timeStyle: "short" });
}

/** Pick the current language's side of an {en, zh} pair, or of a message/message_zh pair. */
export function pick(pair) {
  return pair[lang] ?? pair.en;
}

export function applyI18n(root = document) {
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-label]")) el.setAttribute("aria-label", t(el.dataset.i18nLabel));
}

export function setLang(next) {
  lang = next;
  save("lang", lang);
  applyI18n();
  for (const fn of listeners) fn(lang);
}

export const onLangChange = (fn) => listeners.push(fn);
