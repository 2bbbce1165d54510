// The exercise page's layout: on narrow screens tabs (Problem | Code | Result) show one pane at a
// time; on wide ones a splitter between the statement and the code can be dragged (or moved with
// the arrow keys), and its position is remembered.
import { load, save } from "./store.js";

export const NARROW = "(max-width: 900px)";
const MIN = 20;
const MAX = 75;

export function setupLayout() {
  const main = document.getElementById("exercise");
  const tabs = [...document.querySelectorAll("#tabs [role=tab]")];
  const select = (name) => {
    main.dataset.tab = name;
    for (const tab of tabs) {
      const on = tab.dataset.tab === name;
      tab.setAttribute("aria-selected", String(on));
      tab.tabIndex = on ? 0 : -1;
    }
  };
  for (const tab of tabs) {
    tab.onclick = () => select(tab.dataset.tab);
    tab.onkeydown = (event) => {
      const step = { ArrowRight: 1, ArrowLeft: -1 }[event.key];
      if (!step) return;
      const next = tabs[(tabs.indexOf(tab) + step + tabs.length) % tabs.length];
      select(next.dataset.tab);
      next.focus();
    };
  }
  select(main.dataset.tab ?? "problem");
  // On a phone, a run's result is what the learner waits for: show it when a run starts.
  for (const id of ["run-sample", "run-all", "submit"])
    document.getElementById(id).addEventListener("click", () => matchMedia(NARROW).matches && select("result"));

  const splitter = document.getElementById("splitter");
  const statement = document.getElementById("statement");
  const place = (percent) => {
    const p = Math.min(MAX, Math.max(MIN, percent));
    statement.style.flexBasis = `${p}%`;
    splitter.setAttribute("aria-valuenow", String(Math.round(p)));
    save("split", p);
  };
  splitter.setAttribute("aria-valuemin", String(MIN));
  splitter.setAttribute("aria-valuemax", String(MAX));
  place(load("split") ?? 40);
  splitter.onpointerdown = (event) => {
    splitter.setPointerCapture(event.pointerId);
    const box = main.getBoundingClientRect();
    splitter.onpointermove = (move) => place((100 * (move.clientX - box.left)) / box.width);
    splitter.onpointerup = () => (splitter.onpointermove = splitter.onpointerup = null);
  };
  splitter.onkeydown = (event) => {
    const step = { ArrowLeft: -5, ArrowRight: 5 }[event.key];
    if (!step) return;
    event.preventDefault();
    place(Number(splitter.getAttribute("aria-valuenow")) + step);
  };
}

/** Show tab `name` ("problem", "code", "result") on narrow screens; nothing on wide ones. */
export function showTab(name) {
  if (matchMedia(NARROW).matches) document.querySelector(`#tabs [data-tab="${name}"]`)?.click();
}

/** Show the Result tab (narrow screens), e.g. when a result arrives. */
export const showResultTab = () => showTab("result");
