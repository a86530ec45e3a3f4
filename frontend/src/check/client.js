// "Check my program" in the browser: the one client of the service's check API, used by the
// challenge page (/c/<slug>, through ./page.js) and by the lesson page's challenges.
//
// checkProgram() sends a program to POST /api/v1/checks?wait=S&format=html and, while the
// check is queued or running, asks GET <url>?wait=S&format=html again until it is done. A
// refusal that says when to come back (429 or 503 with Retry-After) is waited out, never
// polled faster than the server asks; a refusal without Retry-After, any other error, or
// a check still unfinished after the page's patience, is thrown as a CheckError whose
// message a student can read.
//
// The feedback is the document `menace check --format html` prints, shown in a sandboxed
// frame with no scripts (feedbackFrame); reportSummary() is the one line above it.
//
// Nothing here touches the page's globals: fetch, the clock and the document are passed in,
// so the logic runs under `node --test` (test/client.test.mjs) as it runs in the browser.

/** How long a POST and each poll may wait on the server for the check (seconds). */
export const FIRST_WAIT = 10;
export const POLL_WAIT = 5;
/** The page's patience: past this many milliseconds of waiting the student is told to look later. */
export const PATIENCE_MS = 5 * 60 * 1000;
/** Refusals with Retry-After waited out in a row before giving up. */
export const MAX_REFUSALS = 6;
/** Never wait less than this between two polls, whatever a server says (milliseconds). */
export const MIN_DELAY_MS = 1000;
/** Nor longer than this for one Retry-After (a broken header must not hang the page). */
export const MAX_DELAY_MS = 120 * 1000;

/** A check that could not be made or finished; ``status`` is the HTTP status (0: no answer). */
export class CheckError extends Error {
  constructor(message, { status = 0, retryAfterMs = null } = {}) {
    super(message);
    this.name = "CheckError";
    this.status = status;
    this.retryAfterMs = retryAfterMs;
  }
}

/**
 * Milliseconds a Retry-After header asks for: whole seconds ("5") or an HTTP date; null
 * when absent or unreadable. Bounded by MIN_DELAY_MS and MAX_DELAY_MS.
 */
export function retryAfterMs(header, now = Date.now()) {
  if (header === null || header === undefined) return null;
  const text = String(header).trim();
  let ms;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    const when = Date.parse(text);
    if (Number.isNaN(when)) return null;
    ms = when - now;
  }
  return Math.min(MAX_DELAY_MS, Math.max(MIN_DELAY_MS, ms));
}

/**
 * The client's sentences, in English: the default, which the lesson page and the unit tests
 * use. A page in another language passes its own table as ``words`` (the same keys, rendered
 * by the server from its gettext catalog: menace_course/service/browser_words.py); a key it
 * lacks falls back to these. Values are filled in by name (``%(n)s``), see fill().
 */
export const WORDS = Object.freeze({
  unreachable: "could not reach the service; check your connection and try again",
  notACheck: "the service sent an answer that is not a check",
  serverAnswered: "the server answered %(status)s",
  tryingAgain: "%(message)s Trying again in %(seconds)s s…",
  noAddress: "the service did not say where the check is",
  takingLong: "the check is taking long; reload the page in a while to see it",
  checking: "Checking…",
  checkingStatus: "Checking… (%(status)s)",
  notLoaded: "Your program could not be loaded: see below.",
  allPass: "✓ All %(n)s checks pass.",
  somePass: "%(passed)s of %(n)s checks pass.",
  feedbackTitle: "Feedback on your program",
  frameTitle: "Feedback",
  feedbackLink: "feedback",
  codeLink: "code",
  tryAgain: "Could not reach the service; try again.",
});

/** ``words`` over the English defaults: every key has a sentence, whatever a page sent. */
export function wordsWith(words) {
  const given = words && typeof words === "object" ? words : {};
  const merged = { ...WORDS };
  for (const key of Object.keys(WORDS)) if (typeof given[key] === "string" && given[key]) merged[key] = given[key];
  return merged;
}

/** ``template`` with each ``%(name)s`` replaced by ``values[name]`` (left as it is when absent). */
export function fill(template, values = {}) {
  return String(template).replace(/%\((\w+)\)s/g, (whole, name) => (name in values ? String(values[name]) : whole));
}

const RETRYABLE = new Set([429, 503]);

async function readJSON(response) {
  try {
    return await response.json();
  } catch {
    return null;
  }
}

/** The sentence an error answer carries: the service's {message}, the lesson's {error}, or the status. */
export function errorMessage(status, data, words = WORDS) {
  if (data && typeof data.message === "string" && data.message) return data.message;
  if (data && typeof data.error === "string" && data.error) return data.error;
  return fill(wordsWith(words).serverAnswered, { status });
}

const withQuery = (url, wait) => `${url}${url.includes("?") ? "&" : "?"}wait=${wait}&format=html`;

/**
 * Send ``source`` to be checked and wait for the report.
 *
 * Options: ``api`` (the checks' address), ``challenge``, ``filename``, ``source``;
 * ``headers`` (CSRF token, X-Signed-In-As); ``onStatus(text)`` to say what is happening;
 * ``fetch``, ``sleep(ms)`` and ``now()`` (the browser's by default, replaced in tests).
 * Resolves with the finished check (``{id, status: "done", report, feedback, ...}``).
 */
export async function checkProgram({
  api, challenge, filename, source, headers = {}, onStatus = () => {}, words = WORDS,
  fetch = globalThis.fetch, sleep = (ms) => new Promise((done) => setTimeout(done, ms)), now = Date.now,
}) {
  const said = wordsWith(words);
  const started = now();
  let refusals = 0;
  // One request, with the Retry-After of a 429/503 waited out; resolves with the JSON of a 2xx.
  async function ask(url, init) {
    for (;;) {
      let response;
      try {
        response = await fetch(url, { credentials: "same-origin", ...init });
      } catch {
        throw new CheckError(said.unreachable);
      }
      const data = await readJSON(response);
      if (response.ok) {
        refusals = 0;
        if (!data || typeof data !== "object") throw new CheckError(said.notACheck, { status: response.status });
        return data;
      }
      const delay = retryAfterMs(response.headers.get("Retry-After"), now());
      const message = errorMessage(response.status, data, said);
      const tooLong = delay !== null && now() + delay - started > PATIENCE_MS;
      if (!RETRYABLE.has(response.status) || delay === null || refusals >= MAX_REFUSALS || tooLong) {
        throw new CheckError(message, { status: response.status, retryAfterMs: delay });
      }
      refusals += 1;
      onStatus(fill(said.tryingAgain, { message, seconds: Math.round(delay / 1000) }));
      await sleep(delay);
    }
  }
  let check = await ask(withQuery(api, FIRST_WAIT), {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json", ...headers },
    body: JSON.stringify({ challenge, filename, source }),
  });
  while (check.status !== "done") {
    if (typeof check.url !== "string" || !check.url) throw new CheckError(said.noAddress);
    if (now() - started > PATIENCE_MS) {
      throw new CheckError(said.takingLong);
    }
    onStatus(fill(said.checkingStatus, { status: check.status }));
    const before = now();
    check = await ask(withQuery(check.url, POLL_WAIT), { headers: { Accept: "application/json" } });
    // A server that answers at once (no long poll) is not asked again at once.
    const spent = now() - before;
    if (check.status !== "done" && spent < MIN_DELAY_MS) await sleep(MIN_DELAY_MS - spent);
  }
  return check;
}

// -- showing a report ------------------------------------------------------------

/** The words of the one line above the feedback: how many of the checks pass. */
export function summaryText(report, words = WORDS) {
  const said = wordsWith(words);
  const tests = Array.isArray(report && report.tests) ? report.tests : [];
  const passed = tests.filter((t) => t && t.outcome === "passed").length;
  if (report && report.load_problem && !tests.length) return said.notLoaded;
  if (report && report.passed) return fill(said.allPass, { n: tests.length });
  return fill(said.somePass, { passed, n: tests.length });
}

/** That line, as an element of ``doc`` (a status, so a screen reader says it). */
export function reportSummary(doc, report, words = WORDS) {
  const line = doc.createElement("p");
  line.className = report && report.passed ? "verdict pass" : "verdict fail";
  line.setAttribute("role", "status");
  line.textContent = summaryText(report, words);
  return line;
}

/** Make a feedback frame as tall as its document (it keeps its own height when it cannot be read). */
export function fitFrame(frame) {
  try {
    const root = frame.contentDocument && frame.contentDocument.documentElement;
    if (root) frame.style.height = `${root.scrollHeight + 24}px`;
  } catch {
    /* the frame keeps its height from the stylesheet */
  }
}

/**
 * The feedback document in a sandboxed frame: no scripts run in it, it only shows.
 * ``frame`` is reused when given (the challenge page keeps one), else a new one is made.
 */
export function feedbackFrame(doc, html, { title = WORDS.feedbackTitle, frame = null } = {}) {
  const shown = frame || doc.createElement("iframe");
  shown.className = "feedback";
  shown.title = title;
  shown.setAttribute("sandbox", "allow-same-origin");
  shown.addEventListener("load", () => fitFrame(shown), { once: true });
  shown.srcdoc = typeof html === "string" ? html : "";
  return shown;
}

/** The summary line and the frame, for a finished check. */
export function reportView(doc, check, words = WORDS) {
  const said = wordsWith(words);
  const parts = [reportSummary(doc, check.report || {}, said)];
  if (typeof check.feedback === "string" && check.feedback) {
    parts.push(feedbackFrame(doc, check.feedback, { title: said.feedbackTitle }));
  }
  return parts;
}
