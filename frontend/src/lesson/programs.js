// The Step programs (Run, Edit) and the challenges (Check my program).
//
// Run sends the program, as shown or as edited, to POST /lesson/api/run: it runs in the
// same sandbox as a check. Check my program uses the service's own API, as /c/<slug> does.

import { el, getJSON, postJSON } from "./api.js";

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
  const original = textarea.value;
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    run.disabled = true;
    output.replaceChildren(el("p", { class: "note" }, "Running in the sandbox…"));
    try {
      const answer = await postJSON(form.getAttribute("action"), { step: Number(article.dataset.step), source: valueOf(textarea) });
      output.replaceChildren(...programOutput(answer));
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

function programOutput(answer) {
  const parts = [];
  if (answer.printed) {
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
    svg.setAttribute("aria-label", "The program's picture: one square for each game, green a win, gray a draw, red a loss");
    parts.push(el("h4", {}, "Picture"), el("div", { class: "picture" }, document.importNode(svg, true)));
  }
  for (const note of answer.notes || []) parts.push(el("p", { class: "note" }, note));
  if (!parts.length) parts.push(el("p", { class: "note" }, "The program ran and printed nothing."));
  parts.push(el("p", { class: "note seconds" }, `Ran in ${answer.seconds.toFixed(2)} s, in the sandbox.`));
  return parts;
}

// -- challenges ------------------------------------------------------------------

const OUTCOME_WORDS = { passed: "passed", failed: "failed", error: "stopped with an error", timeout: "took too long", skipped: "not run" };

function feedbackFrame(html) {
  // The same document `menace check --format html` prints, in a sandboxed frame (no scripts).
  const frame = el("iframe", { class: "feedback", title: "Feedback on your program", sandbox: "allow-same-origin" });
  frame.addEventListener("load", () => {
    try {
      frame.style.height = `${frame.contentDocument.documentElement.scrollHeight + 24}px`;
    } catch (error) {
      /* the frame keeps its default height */
    }
  });
  frame.srcdoc = html;
  return frame;
}

function reportView(answer) {
  const report = answer.report || {};
  const summary = reportSummary(report);
  if (typeof answer.feedback === "string" && answer.feedback) return [summary, feedbackFrame(answer.feedback)];
  return [summary, ...reportDetails(report)];
}

function reportSummary(report) {
  const tests = report.tests || [];
  const passed = tests.filter((t) => t.outcome === "passed").length;
  return el("p", { class: report.passed ? "verdict pass" : "verdict fail", role: "status" },
    report.passed ? `✓ All ${tests.length} checks pass.` : `${passed} of ${tests.length} checks pass.`);
}

function reportDetails(report) {
  const tests = report.tests || [];
  const parts = [];
  if (report.load_problem) parts.push(el("p", { class: "problem" }, report.load_problem.message));
  parts.push(el("ul", { class: "tests" }, tests.map((t) => el("li", { class: `test ${t.outcome}` },
    el("span", { class: "mark", "aria-hidden": "true" }, t.outcome === "passed" ? "✓" : "✗"),
    el("span", {}, `${t.title} — ${OUTCOME_WORDS[t.outcome] || t.outcome}`),
    t.outcome !== "passed" && t.message ? el("span", { class: "message" }, t.message) : null,
    t.outcome !== "passed" && t.hint_text ? el("span", { class: "hint" }, `Hint: ${t.hint_text}`) : null))));
  return parts;
}

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
      const body = {
        challenge: form.elements.challenge.value,
        filename: form.elements.filename.value,
        source: valueOf(textarea),
      };
      let answer = await postJSON(`${form.getAttribute("action")}?wait=10&format=html`, body);
      for (let tries = 0; answer.status !== "done" && tries < 60; tries += 1) {
        answer = await getJSON(`${answer.url}?wait=5&format=html`);
      }
      if (answer.status !== "done") throw new Error("the check is taking too long; try again in a moment");
      output.replaceChildren(...reportView(answer));
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
