// The code editor: CodeMirror 6 in Python mode, reporting every change the learner makes.
import { indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { indentUnit } from "@codemirror/language";
import { EditorState } from "@codemirror/state";
import { keymap } from "@codemirror/view";
import { basicSetup, EditorView } from "codemirror";

export function createEditor(parent, onChange) {
  const extensions = [
    basicSetup,
    python(),
    indentUnit.of("    "),
    keymap.of([indentWithTab]),
    EditorView.updateListener.of((update) => {
      if (update.docChanged) onChange(update.state.doc.toString());
    }),
  ];
  const view = new EditorView({ parent });
  return {
    view,
    get code() {
      return view.state.doc.toString();
    },
    /** Show `code` with a fresh undo history, without reporting it as the learner's change. */
    load(code) {
      view.setState(EditorState.create({ doc: code, extensions }));
    },
  };
}
