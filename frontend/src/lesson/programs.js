// The Step programs (Run, Edit) and the challenges (Check my program).
//
// Run sends the program, as shown or as edited, to POST /lesson/api/run: it runs in the
// same sandbox as a check. Check my program uses the service's own API, as /c/<slug> does.

import { el, pageLanguage, postJSON } from "./api.js";
import { checkProgram, reportView } from "../check/client.js";
import { addOutcomeCues, outcomeLegend } from "./chart.js";
import { comparedOutput } from "./expected.js";
import { checkWords, say, sayWith } from "./words.js";

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
    output.replaceChildren(el("p", { class: "note" }, say("running")));
    try {
      const answer = await postJSON(form.getAttribute("action"), { step: Number(article.dataset.step), source: valueOf(textarea) });
      output.replaceChildren(...programOutput(answer, expected ? expected.textContent : null));
    } catch (error) {
      showError(output, say("notRun", { message: error.message }));
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
    edit.textContent = editing ? say("stopEditing") : say("edit");
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
    parts.push(el("h4", {}, say("printed")), compared.pre, compared.note);
  } else if (answer.printed) {
    parts.push(el("h4", {}, say("printed")), el("pre", { class: "printed" }, answer.printed));
  }
  if (answer.dropped) parts.push(el("p", { class: "note" }, say("dropped", { n: answer.dropped })));
  if (answer.error) {
    const frames = answer.error.frames.map((f) => el("li", {},
      f.function !== "<module>" ? say("frameLineIn", { line: f.line, function: f.function }) : say("frameLine", { line: f.line }),
      el("code", {}, f.code)));
    parts.push(el("div", { class: "problem", role: "alert" },
      el("p", {}, el("strong", {}, answer.error.type), answer.error.message ? `: ${answer.error.message}` : ""),
      frames.length ? el("ol", { class: "frames" }, frames) : null));
  }
  if (answer.problem) parts.push(el("p", { class: "problem", role: "alert" }, answer.problem));
  for (const svgText of answer.pictures || []) {
    const svg = new DOMParser().parseFromString(svgText, "image/svg+xml").documentElement;
    svg.setAttribute("role", "img");
    svg.setAttribute("aria-label", say("pictureLabel"));
    const shown = document.importNode(svg, true);
    const outcomes = addOutcomeCues(shown); // a cross on each loss: not colour alone
    parts.push(el("h4", {}, say("picture")), el("div", { class: "picture" }, shown));
    if (outcomes.length) parts.push(outcomeLegend(outcomes));
  }
  for (const note of answer.notes || []) parts.push(el("p", { class: "note" }, note));
  if (!parts.length) parts.push(el("p", { class: "note" }, say("printedNothing")));
  parts.push(el("p", { class: "note seconds" }, say("ranIn", { seconds: answer.seconds.toFixed(2) })));
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
  const link = el("a", { href: signInUrl, class: "sign-in-link" }, say("signInLink"));
  output.replaceChildren(el("p", { class: "sign-in", role: "alert" }, ...sayWith("signInFirst", { link })));
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
    const words = checkWords();
    output.replaceChildren(el("p", { class: "note" }, words.checking));
    try {
      const token = document.querySelector('meta[name="csrf-token"]');
      const answer = await checkProgram({
        api: form.getAttribute("action"),
        challenge: form.elements.challenge.value,
        filename: form.elements.filename.value,
        source: valueOf(textarea),
        headers: { ...(token ? { "X-CSRFToken": token.getAttribute("content") } : {}), ...pageLanguage() },
        onStatus: (text) => output.replaceChildren(el("p", { class: "note" }, text)),
        words,
      });
      output.replaceChildren(...reportView(document, answer, words));
    } catch (error) {
      if (error.status === 401 && signInUrl) {
        keepDraft(slug, valueOf(textarea));
        signInFirst(output, `${signInUrl}${signInUrl.includes("?") ? "&" : "?"}next=${encodeURIComponent(`${window.location.pathname}${window.location.search}#challenge-${slug}`)}`);
        return;
      }
      showError(output, say("notChecked", { message: error.message }));
    } finally {
      button.disabled = false;
    }
  });
}
