// The code editor of menace serve's pages: CodeMirror 6 on top of a plain textarea.
//
// The contract for a page: put a `<textarea name="source" data-editor="python">` inside a
// `<form>`. Without JavaScript the textarea is the editor and the form submits it as is.
// With this bundle loaded, each such textarea is hidden and a CodeMirror editor takes its
// place; every change is copied back into the textarea at once (and again just before
// the form submits), so the form posts exactly what the student sees.
//
// A small API is exposed as `window.MenaceEditor` for pages that submit with fetch():
//   MenaceEditor.upgrade(root)      upgrade the textareas under root (done on load)
//   MenaceEditor.get(textarea)      the editor of a textarea (or its id): an object with
//                                   getValue(), setValue(text), setEditable(yes), focus()
//                                   and view (a readonly textarea starts read-only)
//   MenaceEditor.onChange(textarea, callback)   call callback(text) after every change
//
// Accessibility: the editor takes the textarea's label (a <label for=...>, aria-label or
// aria-labelledby). Tab indents, as Python needs; Escape then Tab moves on to the next
// control (CodeMirror's tab focus mode), and a note under each editable editor says so
// (KEYS_NOTE, the editor's description, with the textarea's own aria-describedby). A
// read-only editor can still take the focus, so its text can be scrolled with the keys.

import { EditorView, basicSetup } from "codemirror";
import { keymap } from "@codemirror/view";
import { Compartment, EditorState } from "@codemirror/state";
import { indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { indentUnit } from "@codemirror/language";

/** What the note under an editable editor says. */
export const KEYS_NOTE = "Tab indents. To leave the editor, press Escape, then Tab.";

const editors = new WeakMap();
let notes = 0;
const listeners = new WeakMap();

function cspNonce() {
  const meta = document.querySelector('meta[name="csp-nonce"]');
  return meta ? meta.getAttribute("content") || "" : "";
}

function labelFor(textarea) {
  const attributes = {};
  if (textarea.getAttribute("aria-label")) {
    attributes["aria-label"] = textarea.getAttribute("aria-label");
  } else if (textarea.getAttribute("aria-labelledby")) {
    attributes["aria-labelledby"] = textarea.getAttribute("aria-labelledby");
  } else if (textarea.id) {
    const label = document.querySelector(`label[for="${CSS.escape(textarea.id)}"]`);
    if (label) {
      if (!label.id) label.id = `${textarea.id}-label`;
      attributes["aria-labelledby"] = label.id;
    }
  }
  if (textarea.getAttribute("aria-describedby")) {
    attributes["aria-describedby"] = textarea.getAttribute("aria-describedby");
  }
  attributes.tabindex = "0"; // focusable even when read-only (scrolling by keyboard)
  return attributes;
}

function upgradeOne(textarea) {
  if (editors.has(textarea)) return editors.get(textarea);
  const rows = Number(textarea.getAttribute("rows")) || 12;
  const nonce = cspNonce();
  const note = document.createElement("p");
  notes += 1;
  note.id = `${textarea.id || "menace-editor"}-keys-${notes}`;
  note.className = "editor-keys";
  note.textContent = KEYS_NOTE;
  note.hidden = textarea.readOnly;
  const described = labelFor(textarea);
  described["aria-describedby"] = [described["aria-describedby"], note.id].filter(Boolean).join(" ");
  const extensions = [
    basicSetup,
    keymap.of([indentWithTab]),
    python(),
    indentUnit.of("    "), // Python's four spaces
    EditorView.contentAttributes.of(described),
    EditorView.theme({
      "&": { minHeight: `${rows * 1.45}em`, fontSize: "0.95rem" },
      ".cm-scroller": { fontFamily: "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace" },
    }),
    EditorView.updateListener.of((update) => {
      if (!update.docChanged) return;
      textarea.value = update.state.doc.toString();
      textarea.dispatchEvent(new Event("input", { bubbles: true }));
      for (const callback of listeners.get(textarea) || []) callback(textarea.value);
    }),
  ];
  if (nonce) extensions.push(EditorView.cspNonce.of(nonce));
  const editable = new Compartment();
  const editing = (yes) => [EditorView.editable.of(yes), EditorState.readOnly.of(!yes)];
  extensions.push(editable.of(editing(!textarea.readOnly)));
  const view = new EditorView({ doc: textarea.value, extensions });
  view.dom.classList.add("menace-editor");
  textarea.insertAdjacentElement("afterend", view.dom);
  view.dom.insertAdjacentElement("afterend", note);
  textarea.hidden = true;
  textarea.setAttribute("aria-hidden", "true");
  textarea.tabIndex = -1;
  const form = textarea.form;
  if (form) {
    form.addEventListener("submit", () => {
      textarea.value = view.state.doc.toString();
    });
  }
  const editor = {
    view,
    textarea,
    getValue: () => view.state.doc.toString(),
    setValue: (text) => {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: String(text) } });
    },
    setEditable: (yes) => {
      textarea.readOnly = !yes;
      view.dom.classList.toggle("menace-editor-readonly", !yes);
      note.hidden = !yes;
      view.dispatch({ effects: editable.reconfigure(editing(Boolean(yes))) });
    },
    focus: () => view.focus(),
  };
  view.dom.classList.toggle("menace-editor-readonly", textarea.readOnly);
  editors.set(textarea, editor);
  textarea.dataset.editorReady = "true";
  return editor;
}

function resolve(target) {
  if (typeof target === "string") return document.getElementById(target);
  return target;
}

function upgrade(root = document) {
  return Array.from(root.querySelectorAll('textarea[data-editor="python"]')).map(upgradeOne);
}

function get(target) {
  const textarea = resolve(target);
  if (!textarea) return null;
  if (textarea.matches && textarea.matches('textarea[data-editor="python"]')) return upgradeOne(textarea);
  return null;
}

function onChange(target, callback) {
  const textarea = resolve(target);
  if (!textarea) return;
  if (!listeners.has(textarea)) listeners.set(textarea, []);
  listeners.get(textarea).push(callback);
}

window.MenaceEditor = { upgrade, get, onChange };

if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", () => upgrade());
} else {
  upgrade();
}
