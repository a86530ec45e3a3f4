// The challenge page (/c/<slug>): "Check my program" without leaving the page.
//
// Without JavaScript the form posts to the server and the page comes back with the
// feedback; this only makes it quicker, through the one check client (./client.js). The
// feedback frame is the page's own (#feedback), and the new attempt is added on top of the
// "Your attempts" table.

import { CheckError, checkProgram, feedbackFrame, fitFrame, wordsWith } from "./client.js";

// The page's sentences, in its language, rendered by the server into #check-words (English
// when the element is missing or unreadable).
function pageWords() {
  const element = document.getElementById("check-words");
  try {
    return wordsWith(element ? JSON.parse(element.textContent) : null);
  } catch {
    return wordsWith(null);
  }
}

function addAttempt(check, words) {
  const table = document.getElementById("attempts");
  if (!table) return; // the first attempt's row appears on the next visit
  const body = table.tBodies[0];
  const row = body.insertRow(0);
  const report = check.report || {};
  row.insertCell().textContent = new Date(check.created_at).toISOString().replace("T", " ").slice(0, 19);
  row.insertCell().textContent = `${report.score} / ${report.max_score}`;
  const links = row.insertCell();
  const page = document.createElement("a");
  page.href = `?attempt=${encodeURIComponent(check.id)}#feedback`;
  page.textContent = words.feedbackLink;
  const code = document.createElement("a");
  code.href = `/attempts/${encodeURIComponent(check.id)}/source`;
  code.textContent = words.codeLink;
  links.append(page, " · ", code);
  for (const other of body.rows) other.classList.remove("shown");
  row.classList.add("shown");
}

function showFeedback(html, words) {
  const holder = document.getElementById("feedback");
  const existing = holder.querySelector("iframe.feedback");
  const frame = feedbackFrame(document, html, { title: words.frameTitle, frame: existing });
  if (!existing) holder.replaceChildren(frame);
}

function editorValue(textarea) {
  const editor = window.MenaceEditor ? window.MenaceEditor.get(textarea) : null;
  return editor ? editor.getValue() : textarea.value;
}

function setUp() {
  const existing = document.querySelector("iframe.feedback");
  if (existing) {
    if (existing.contentDocument && existing.contentDocument.readyState === "complete") fitFrame(existing);
    existing.addEventListener("load", () => fitFrame(existing));
  }
  const form = document.getElementById("check");
  if (!form || !window.fetch) return;
  const button = document.getElementById("check-button");
  const status = document.getElementById("check-status");
  const words = pageWords();
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (button) button.disabled = true;
    status.textContent = words.checking;
    try {
      const check = await checkProgram({
        api: form.dataset.api,
        challenge: form.dataset.challenge,
        filename: form.dataset.filename,
        source: editorValue(form.querySelector("textarea[name=source]")),
        headers: {
          "X-CSRFToken": form.querySelector("input[name=csrf_token]").value,
          "X-Signed-In-As": form.querySelector("input[name=signed_in_as]").value,
        },
        onStatus: (text) => { status.textContent = text; },
        words,
      });
      showFeedback(check.feedback, words);
      addAttempt(check, words);
      status.textContent = "";
      window.history.replaceState(null, "", `?attempt=${encodeURIComponent(check.id)}`);
    } catch (error) {
      status.textContent = error instanceof CheckError ? error.message : words.tryAgain;
    } finally {
      if (button) button.disabled = false;
    }
  });
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", setUp);
else setUp();
