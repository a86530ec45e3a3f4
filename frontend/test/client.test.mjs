// The check client's logic under node's own test runner (npm test): requests, polling,
// Retry-After, errors and the report's summary, with fetch, the clock and the document
// replaced by small fakes (no browser).
import { test } from "node:test";
import assert from "node:assert/strict";

import {
  CheckError, MAX_DELAY_MS, MIN_DELAY_MS, MAX_REFUSALS, PATIENCE_MS,
  WORDS, checkProgram, feedbackFrame, fill, reportSummary, reportView, retryAfterMs, summaryText, wordsWith,
} from "../src/check/client.js";

/** A server that answers from a list, and a clock that moves only when the client sleeps
 *  (or when an answer says how long the server held it). */
function fakeServer(answers) {
  const requests = [];
  const slept = [];
  let clock = 1_000_000;
  const fetch = async (url, init = {}) => {
    requests.push({ url, method: init.method || "GET", headers: init.headers || {}, body: init.body });
    const next = answers.shift();
    if (next === undefined) throw new Error(`no answer left for ${url}`);
    if (next === "offline") throw new TypeError("Failed to fetch");
    clock += next.held || 0;
    const headers = new Headers(next.headers || {});
    const body = typeof next.body === "string" ? next.body : JSON.stringify(next.body);
    return new Response(body, { status: next.status || 200, headers });
  };
  const sleep = async (ms) => { slept.push(ms); clock += ms; };
  return { fetch, sleep, now: () => clock, requests, slept };
}

const done = { id: "a1", status: "done", url: "/api/v1/checks/a1", report: { passed: true, tests: [{ outcome: "passed" }] }, feedback: "<p>ok</p>" };
const queued = { id: "a1", status: "queued", url: "/api/v1/checks/a1" };
const options = (server, more = {}) => ({
  api: "/api/v1/checks", challenge: "after_game", filename: "after_game.py", source: "def f(): pass\n",
  fetch: server.fetch, sleep: server.sleep, now: server.now, ...more,
});

test("a check done within the first wait is one POST with the program, the wait and the html format", async () => {
  const server = fakeServer([{ body: done }]);
  const check = await checkProgram(options(server, { headers: { "X-CSRFToken": "t" } }));
  assert.equal(check.status, "done");
  assert.equal(server.requests.length, 1);
  const [post] = server.requests;
  assert.equal(post.method, "POST");
  assert.equal(post.url, "/api/v1/checks?wait=10&format=html");
  assert.equal(post.headers["X-CSRFToken"], "t");
  assert.deepEqual(JSON.parse(post.body), { challenge: "after_game", filename: "after_game.py", source: "def f(): pass\n" });
});

test("a queued check is asked about at its url until it is done, saying so meanwhile", async () => {
  const said = [];
  const server = fakeServer([{ status: 202, body: queued, held: 10_000 }, { body: { ...queued, status: "running" }, held: 5000 }, { body: done, held: 2000 }]);
  const check = await checkProgram(options(server, { onStatus: (text) => said.push(text) }));
  assert.equal(check.id, "a1");
  assert.deepEqual(server.requests.map((r) => r.url), [
    "/api/v1/checks?wait=10&format=html", "/api/v1/checks/a1?wait=5&format=html", "/api/v1/checks/a1?wait=5&format=html",
  ]);
  assert.deepEqual(said, ["Checking… (queued)", "Checking… (running)"]);
  assert.deepEqual(server.slept, [], "the server's long polls are the waiting: no extra sleep");
});

test("a server that answers polls at once is not asked more than once a second", async () => {
  const server = fakeServer([{ status: 202, body: queued }, { body: queued }, { body: queued }, { body: done }]);
  await checkProgram(options(server));
  assert.equal(server.requests.length, 4);
  assert.ok(server.slept.every((ms) => ms >= MIN_DELAY_MS), server.slept.join());
  assert.equal(server.slept.length, 2);
});

test("a 429 with Retry-After is waited out for exactly that long, then the POST is sent again", async () => {
  const said = [];
  const server = fakeServer([
    { status: 429, headers: { "Retry-After": "7" }, body: { error: "too_many", message: "Too many checks are waiting." } },
    { body: done },
  ]);
  await checkProgram(options(server, { onStatus: (text) => said.push(text) }));
  assert.deepEqual(server.slept, [7000]);
  assert.equal(server.requests.length, 2);
  assert.equal(server.requests[1].method, "POST");
  assert.match(said[0], /Too many checks are waiting\. Trying again in 7 s/);
});

test("a 503 with Retry-After while polling backs off as asked, never faster", async () => {
  const server = fakeServer([
    { status: 202, body: queued },
    { status: 503, headers: { "Retry-After": "30" }, body: { message: "The service is restarting." } },
    { body: done },
  ]);
  await checkProgram(options(server));
  assert.ok(server.slept.includes(30_000), server.slept.join());
  assert.equal(server.requests[2].url, "/api/v1/checks/a1?wait=5&format=html");
});

test("a refusal without Retry-After is not retried: its message is the error", async () => {
  const server = fakeServer([{ status: 429, body: { message: "You have sent too many checks this minute." } }]);
  await assert.rejects(checkProgram(options(server)), (error) => {
    assert.ok(error instanceof CheckError);
    assert.equal(error.status, 429);
    assert.equal(error.message, "You have sent too many checks this minute.");
    return true;
  });
  assert.equal(server.requests.length, 1);
});

test("refusals are retried a bounded number of times, then the student is told", async () => {
  const refusal = { status: 503, headers: { "Retry-After": "2" }, body: { message: "Busy." } };
  const server = fakeServer(Array.from({ length: MAX_REFUSALS + 1 }, () => ({ ...refusal })));
  await assert.rejects(checkProgram(options(server)), (error) => error.status === 503 && error.message === "Busy.");
  assert.equal(server.requests.length, MAX_REFUSALS + 1);
});

test("a sign-in refusal (401) comes back with its status, for the page to offer signing in", async () => {
  const server = fakeServer([{ status: 401, body: { error: "unauthorized", message: "Sign in first." } }]);
  await assert.rejects(checkProgram(options(server)), (error) => error.status === 401 && error.message === "Sign in first.");
});

test("an error page that is not JSON, and no network at all, each give a sentence", async () => {
  await assert.rejects(checkProgram(options(fakeServer([{ status: 500, body: "<h1>oops</h1>" }]))),
    (error) => error.message === "the server answered 500");
  await assert.rejects(checkProgram(options(fakeServer(["offline"]))), (error) => /could not reach the service/.test(error.message));
});

test("a check that never finishes ends with the page's patience, not an endless poll", async () => {
  const answers = [{ status: 202, body: queued }];
  for (let i = 0; i < 100; i += 1) answers.push({ body: queued, held: 5000 });
  const server = fakeServer(answers);
  await assert.rejects(checkProgram(options(server)), /taking long/);
  assert.ok(server.requests.length <= 2 + PATIENCE_MS / 5000, String(server.requests.length));
});

test("Retry-After is read as seconds or as a date, and kept within bounds", () => {
  assert.equal(retryAfterMs("5"), 5000);
  assert.equal(retryAfterMs("0"), MIN_DELAY_MS);
  assert.equal(retryAfterMs("999999"), MAX_DELAY_MS);
  assert.equal(retryAfterMs(null), null);
  assert.equal(retryAfterMs("soon"), null);
  const now = Date.parse("Wed, 02 Dec 2026 01:00:00 GMT");
  assert.equal(retryAfterMs("Wed, 02 Dec 2026 01:00:20 GMT", now), 20_000);
});

// -- rendering, into a document small enough to write here ---------------------------

class FakeElement {
  constructor(tag) { this.tagName = tag.toUpperCase(); this.attributes = {}; this.style = {}; this.listeners = {}; this.textContent = ""; this.className = ""; }
  setAttribute(name, value) { this.attributes[name] = String(value); }
  getAttribute(name) { return this.attributes[name] ?? null; }
  addEventListener(type, listener) { this.listeners[type] = listener; }
}
const fakeDocument = { createElement: (tag) => new FakeElement(tag) };

test("the summary says how many checks pass, as a status a screen reader announces", () => {
  const tests = [{ outcome: "passed" }, { outcome: "failed" }, { outcome: "timeout" }];
  const line = reportSummary(fakeDocument, { passed: false, tests });
  assert.equal(line.textContent, "1 of 3 checks pass.");
  assert.equal(line.className, "verdict fail");
  assert.equal(line.getAttribute("role"), "status");
  assert.equal(summaryText({ passed: true, tests: [{ outcome: "passed" }, { outcome: "passed" }] }), "✓ All 2 checks pass.");
  assert.equal(summaryText({ passed: false, tests: [], load_problem: { message: "SyntaxError" } }), "Your program could not be loaded: see below.");
  assert.equal(summaryText({}), "0 of 0 checks pass.");
});

test("the feedback goes in a sandboxed frame that runs no scripts, below the summary", () => {
  const parts = reportView(fakeDocument, done);
  assert.equal(parts.length, 2);
  const frame = parts[1];
  assert.equal(frame.tagName, "IFRAME");
  assert.equal(frame.getAttribute("sandbox"), "allow-same-origin");
  assert.equal(frame.srcdoc, "<p>ok</p>");
  assert.equal(frame.title, "Feedback on your program");
  assert.equal(reportView(fakeDocument, { ...done, feedback: undefined }).length, 1);
  const kept = new FakeElement("iframe");
  assert.equal(feedbackFrame(fakeDocument, "<p>again</p>", { frame: kept, title: "Feedback" }), kept);
  assert.equal(kept.srcdoc, "<p>again</p>");
});

// A page in another language gives the client its own words (the server renders them).
const chinese = { checkingStatus: "檢查中…（%(status)s）", somePass: "%(n)s 項檢查中有 %(passed)s 項通過。", unreachable: "連不上服務" };

test("a page's own words are what the student reads while waiting, in its language", async () => {
  const said = [];
  const server = fakeServer([{ status: 202, body: queued }, { body: done }]);
  await checkProgram(options(server, { onStatus: (text) => said.push(text), words: chinese }));
  assert.deepEqual(said, ["檢查中…（queued）"]);
});

test("a page's own words say the summary and the errors; a word it lacks is English", async () => {
  const report = { passed: false, tests: [{ outcome: "passed" }, { outcome: "failed" }] };
  assert.equal(summaryText(report, chinese), "2 項檢查中有 1 項通過。");
  assert.equal(summaryText({ passed: true, tests: [{ outcome: "passed" }] }, chinese), "✓ All 1 checks pass.");
  const server = fakeServer(["offline"]);
  await assert.rejects(checkProgram(options(server, { words: chinese })), { message: "連不上服務" });
});

test("words that are not sentences are ignored, and fill leaves an unknown name as it is", () => {
  const words = wordsWith({ checking: 42, allPass: "", codeLink: "程式碼", stray: "x" });
  assert.equal(words.checking, WORDS.checking);
  assert.equal(words.allPass, WORDS.allPass);
  assert.equal(words.codeLink, "程式碼");
  assert.equal("stray" in words, false);
  assert.deepEqual(Object.keys(wordsWith(null)), Object.keys(WORDS));
  assert.equal(fill("%(a)s and %(b)s", { a: 1 }), "1 and %(b)s");
});
