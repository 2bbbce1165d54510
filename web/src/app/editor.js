// The code editor: CodeMirror 6 in Python mode, reporting every change the learner makes, with
// the app's shortcuts and the verdict's diagnostics (lint markers on the lines a verdict names).
import { indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { indentUnit } from "@codemirror/language";
import { lintGutter, setDiagnostics } from "@codemirror/lint";
import { Compartment, EditorSelection, EditorState, Prec, StateEffect, StateField } from "@codemirror/state";
import { Decoration, EditorView, keymap } from "@codemirror/view";
import { basicSetup } from "codemirror";

/** The line a jump (a "line 12" link, a run-view arrow) went to, highlighted until the text changes. */
const jumpTo = StateEffect.define();
const jumpMark = Decoration.line({ class: "cm-jump-target" });
const jumped = StateField.define({
  create: () => Decoration.none,
  update(marks, tr) {
    for (const effect of tr.effects) if (effect.is(jumpTo)) return Decoration.set([jumpMark.range(effect.value)]);
    return tr.docChanged ? Decoration.none : marks;
  },
  provide: (field) => EditorView.decorations.from(field),
});

/**
 * @param {HTMLElement} parent
 * @param {{onChange?: (code: string) => void, keys?: object[], readOnly?: boolean, label?: () => string}} options
 *   keys: CodeMirror key bindings that win over the editor's own (Mod-Enter would insert a line)
 */
export function createEditor(parent, { onChange, keys = [], readOnly = false, label = () => "" } = {}) {
  const labelled = new Compartment();
  // tabindex: the content is reachable by keyboard even read-only (its scroller must be)
  const nameAttr = () => EditorView.contentAttributes.of({ "aria-label": label(), tabindex: "0" });
  const extensions = () => [
    Prec.highest(keymap.of(keys)),
    basicSetup,
    python(),
    jumped,
    EditorView.lineWrapping,
    lintGutter(),
    indentUnit.of("    "),
    keymap.of([indentWithTab]),
    labelled.of(nameAttr()),
    readOnly ? [EditorState.readOnly.of(true), EditorView.editable.of(false)] : [],
    EditorView.updateListener.of((update) => {
      if (update.docChanged && onChange) onChange(update.state.doc.toString());
    }),
  ];
  const view = new EditorView({ parent });
  let marked = {}; // the text and the diagnostics last marked on it
  return {
    view,
    get code() {
      return view.state.doc.toString();
    },
    /** Show `code` with a fresh undo history, without reporting it as the learner's change. */
    load(code) {
      view.setState(EditorState.create({ doc: code, extensions: extensions() }));
    },
    /** Redraw the accessible name (after a language change), keeping the text and history. */
    relabel() {
      view.dispatch({ effects: labelled.reconfigure(nameAttr()) });
    },
    /** Mark lines: [{line, column?, severity, message}] (1-based lines; out-of-range ones are dropped). */
    mark(marks) {
      const doc = view.state.doc;
      const diagnostics = marks
        .filter((m) => m.line >= 1 && m.line <= doc.lines)
        .map((m) => {
          const line = doc.line(m.line);
          const from = m.column ? Math.min(line.from + m.column - 1, line.to) : line.from;
          return { from, to: Math.max(line.to, from), severity: m.severity ?? "error", message: m.message };
        });
      // the same marks on the same text again (a redraw while a run goes on): nothing to do, and
      // a transaction would make the editor read the page's layout at once
      const key = JSON.stringify(diagnostics);
      if (view.state.doc === marked.doc && key === marked.key) return;
      marked = { doc: view.state.doc, key };
      view.dispatch(setDiagnostics(view.state, diagnostics));
    },
    /**
     * Put the cursor at the start of `line`, highlight it and scroll it into view; focus the
     * editor, except on a touch screen (where focus opens the keyboard over the line).
     */
    goToLine(line) {
      const doc = view.state.doc;
      if (line < 1 || line > doc.lines) return;
      const at = doc.line(line).from;
      view.dispatch({ selection: EditorSelection.cursor(at), effects: [jumpTo.of(at), EditorView.scrollIntoView(at, { y: "center" })] });
      if (!matchMedia("(hover: none)").matches) view.focus();
    },
  };
}
