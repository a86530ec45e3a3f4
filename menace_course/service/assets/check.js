// "Check my program" without leaving the page: the same form, sent to the JSON API.
// Without JavaScript the form posts to the server and the page comes back with the
// feedback; this only makes it quicker. The feedback is shown in a sandboxed iframe,
// exactly the document `menace check --format html` prints.
"use strict";

(function () {
  function ready(fn) {
    if (document.readyState !== "loading") fn();
    else document.addEventListener("DOMContentLoaded", fn);
  }

  function fitFrame(frame) {
    try {
      const doc = frame.contentDocument;
      if (doc && doc.documentElement) frame.style.height = (doc.documentElement.scrollHeight + 24) + "px";
    } catch (e) { /* the frame keeps its default height */ }
  }

  function showFeedback(html) {
    const holder = document.getElementById("feedback");
    let frame = holder.querySelector("iframe.feedback");
    if (!frame) {
      holder.textContent = "";
      frame = document.createElement("iframe");
      frame.className = "feedback";
      frame.title = "Feedback";
      frame.setAttribute("sandbox", "allow-same-origin");
      holder.appendChild(frame);
    }
    frame.addEventListener("load", function () { fitFrame(frame); }, { once: true });
    frame.srcdoc = html;
  }

  function addAttempt(form, check) {
    let table = document.getElementById("attempts");
    if (!table) return;  // the first attempt's row appears on the next visit
    const body = table.tBodies[0];
    const row = body.insertRow(0);
    const report = check.report || {};
    const when = new Date(check.created_at);
    row.insertCell().textContent = when.toISOString().replace("T", " ").slice(0, 19);
    row.insertCell().textContent = report.score + " / " + report.max_score;
    const links = row.insertCell();
    const page = document.createElement("a");
    page.href = "?attempt=" + encodeURIComponent(check.id) + "#feedback";
    page.textContent = "feedback";
    const code = document.createElement("a");
    code.href = "/attempts/" + encodeURIComponent(check.id) + "/source";
    code.textContent = "code";
    links.append(page, " · ", code);
    for (const other of body.rows) other.classList.remove("shown");
    row.classList.add("shown");
  }

  async function send(form, status) {
    const source = form.querySelector("textarea[name=source]").value;
    const csrf = form.querySelector("input[name=csrf_token]").value;
    const signedInAs = form.querySelector("input[name=signed_in_as]").value;
    let response = await fetch(form.dataset.api + "?wait=20&format=html", {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrf, "X-Signed-In-As": signedInAs },
      body: JSON.stringify({ challenge: form.dataset.challenge, filename: form.dataset.filename, source: source }),
    });
    let check = await response.json();
    if (response.status !== 200 && response.status !== 202) {
      const later = response.headers.get("Retry-After");
      status.textContent = check.message + (later ? " (try again in " + later + " s)" : "");
      return;
    }
    for (let tries = 0; check.status !== "done" && tries < 30; tries++) {
      status.textContent = "Checking… (" + check.status + ")";
      response = await fetch(check.url + "?wait=10&format=html", { credentials: "same-origin" });
      check = await response.json();
    }
    if (check.status !== "done") {
      status.textContent = "The check is taking long; reload the page in a while to see it.";
      return;
    }
    showFeedback(check.feedback);
    addAttempt(form, check);
    status.textContent = "";
    history.replaceState(null, "", "?attempt=" + encodeURIComponent(check.id));
  }

  ready(function () {
    const form = document.getElementById("check");
    const existing = document.querySelector("iframe.feedback");
    if (existing) {
      if (existing.contentDocument && existing.contentDocument.readyState === "complete") fitFrame(existing);
      existing.addEventListener("load", function () { fitFrame(existing); });
    }
    if (!form || !window.fetch) return;
    const button = document.getElementById("check-button");
    const status = document.getElementById("check-status");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (button) button.disabled = true;
      status.textContent = "Checking…";
      send(form, status)
        .catch(function () { status.textContent = "Could not reach the service; try again."; })
        .finally(function () { if (button) button.disabled = false; });
    });
  });
})();
