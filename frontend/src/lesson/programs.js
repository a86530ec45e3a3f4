// The Step programs (Run, Edit) and the challenges (Check my program).
//
// Run sends the program, as shown or as edited, to POST /lesson/api/run: it runs in the
// same sandbox as a check. Check my program uses the service's own API, as /c/<slug> does.

import { el, postJSON } from "./api.js";
import { checkProgram, reportView } from "../check/client.js";
import { addOutcomeCues, outcomeLegend } from "./chart.js";
import { comparedOutput } from "./expected.js";

const editorOf = (textarea) => (window.MenaceEditor ? window.MenaceEditor.get(textarea) : null);
const valueOf = (textarea) => (editorOf(textarea) ? editorOf(textarea).getValue() : textarea.value);

function showError(output, message) {
  output.replaceChildren(el("p", { class: "problem", role: "alert" }, message));
}

export function setUpProgram(article) {
  const form = article.querySelector("form");
  const textarea = form.querySelector("textarea");
  const output = form.querySelector(".program-output");
  const edit = form.querySelector(".edit");
  const reset = form.querySelector(".reset");
  const run = form.querySelector(".run");
  const expected = form.querySelector("pre.expected");
  const original = textarea.value;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    run.disabled = true;
    output.replaceChildren(el("p", { class: "note" }, "Running in the sandbox…"));
    try {
      const answer = await postJSON(form.getAttribute("action"), { step: Number(article.dataset.step), source: valueOf(textarea) });
      output.replaceChildren(...programOutput(answer, expected ? expected.textContent : null));
    } catch (error) {
      showError(output, `The program could not be run: ${error.message}`);
    } finally {
      run.disabled = false;
    }
  });
  edit.addEventListener("click", () => {
    const editor = editorOf(textarea);
    const editing = edit.getAttribute("aria-pressed") !== "true";
    if (editor) editor.setEditable(editing);
    else textarea.readOnly = !editing;
    edit.setAttribute("aria-pressed", editing ? "true" : "false");
    edit.textContent = editing ? "Stop editing" : "Edit";
    reset.hidden = false;
    if (editing && editor) editor.focus();
  });
  reset.addEventListener("click", () => {
    const editor = editorOf(textarea);
    if (editor) editor.setValue(original);
    else textarea.value = original;
  });
}

function programOutput(answer, expected) {
  const parts = [];
  if (answer.printed && expected !== null) {
    const compared = comparedOutput(answer.printed, expected);
    parts.push(el("h4", {}, "Printed"), compared.pre, compared.note);
  } else if (answer.printed) {
    parts.push(el("h4", {}, "Printed"), el("pre", { class: "printed" }, answer.printed));
  }
  if (answer.dropped) parts.push(el("p", { class: "note" }, `(${answer.dropped} more characters were printed and not kept)`));
  if (answer.error) {
    const frames = answer.error.frames.map((f) => el("li", {}, `line ${f.line}${f.function !== "<module>" ? `, in ${f.function}` : ""}: `, el("code", {}, f.code)));
    parts.push(el("div", { class: "problem", role: "alert" },
      el("p", {}, el("strong", {}, answer.error.type), answer.error.message ? `: ${answer.error.message}` : ""),
      frames.length ? el("ol", { class: "frames" }, frames) : null));
  }
  if (answer.problem) parts.push(el("p", { class: "problem", role: "alert" }, answer.problem));
  for (const svgText of answer.pictures || []) {
    const svg = new DOMParser().parseFromString(svgText, "image/svg+xml").documentElement;
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", "The program's picture: one square for each game, green a win, gray a draw, firebrick with a cross a loss");
    const shown = document.importNode(svg, true);
    const outcomes = addOutcomeCues(shown); // a cross on each loss: not colour alone
    parts.push(el("h4", {}, "Picture"), el("div", { class: "picture" }, shown));
    if (outcomes.length) parts.push(outcomeLegend(outcomes));
  }
  for (const note of answer.notes || []) parts.push(el("p", { class: "note" }, note));
  if (!parts.length) parts.push(el("p", { class: "note" }, "The program ran and printed nothing."));
  parts.push(el("p", { class: "note seconds" }, `Ran in ${answer.seconds.toFixed(2)} s, in the sandbox.`));
  return parts;
}

// -- challenges: the one check client (../check/client.js) ---------------------------

// A program typed before signing in is kept in this tab while the student signs in.
const draftKey = (slug) => `menace-lesson-draft:${slug}`;

function keepDraft(slug, source) {
  try {
    window.sessionStorage.setItem(draftKey(slug), source);
  } catch (error) {
    /* no storage: the student types it again */
  }
}

function takeDraft(slug) {
  try {
    const draft = window.sessionStorage.getItem(draftKey(slug));
    window.sessionStorage.removeItem(draftKey(slug));
    return draft;
  } catch (error) {
    return null;
  }
}

function signInFirst(output, signInUrl) {
  output.replaceChildren(el("p", { class: "sign-in", role: "alert" },
    "Sign in first: checks are kept under your name. ",
    el("a", { href: signInUrl, class: "sign-in-link" }, "Sign in"),
    " with the token or the link your teacher gave you; you come back here with your program as you left it."));
}

export function setUpChallenge(article) {
  const form = article.querySelector("form");
  const textarea = form.querySelector("textarea");
  const output = form.querySelector(".check-output");
  const button = form.querySelector("button[type=submit]");
  const slug = form.elements.challenge.value;
  const signInUrl = article.closest("[data-sign-in]")?.dataset.signIn || "";
  const starter = textarea.value;
  const draft = takeDraft(slug);
  if (draft !== null) {
    if (editorOf(textarea)) editorOf(textarea).setValue(draft);
    else textarea.value = draft;
  }
  document.querySelectorAll("a.sign-in-link").forEach((link) => link.addEventListener("click", () => {
    if (valueOf(textarea) !== starter) keepDraft(slug, valueOf(textarea));
  }));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    button.disabled = true;
    output.replaceChildren(el("p", { class: "note" }, "Checking…"));
    try {
      const token = document.querySelector('meta[name="csrf-token"]');
      const answer = await checkProgram({
        api: form.getAttribute("action"),
        challenge: form.elements.challenge.value,
        filename: form.elements.filename.value,
        source: valueOf(textarea),
        headers: token ? { "X-CSRFToken": token.getAttribute("content") } : {},
        onStatus: (text) => output.replaceChildren(el("p", { class: "note" }, text)),
      });
      output.replaceChildren(...reportView(document, answer));
    } catch (error) {
      if (error.status === 401 && signInUrl) {
        keepDraft(slug, valueOf(textarea));
        signInFirst(output, `${signInUrl}${signInUrl.includes("?") ? "&" : "?"}next=${encodeURIComponent(`${window.location.pathname}${window.location.search}#challenge-${slug}`)}`);
        return;
      }
      showError(output, `Your program could not be checked: ${error.message}`);
    } finally {
      button.disabled = false;
    }
  });
}
