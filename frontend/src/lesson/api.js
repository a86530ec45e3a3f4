// Talking to the server: JSON in, JSON out, with the page's CSRF token when it has one.

import { say } from "./words.js";

/** The page's language, asked for in the server's answers (its refusals' sentences), as a header. */
export function pageLanguage() {
  const lang = typeof document !== "undefined" ? document.documentElement.getAttribute("lang") : null;
  return lang ? { "Accept-Language": lang } : {};
}

export async function postJSON(url, body) {
  const headers = { "Content-Type": "application/json", Accept: "application/json" };
  const token = document.querySelector('meta[name="csrf-token"]');
  if (token) headers["X-CSRFToken"] = token.getAttribute("content");
  Object.assign(headers, pageLanguage());
  const response = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
    credentials: "same-origin",
  });
  let data = null;
  try {
    data = await response.json();
  } catch (error) {
    data = null;
  }
  if (!response.ok) {
    // Every refusal of the service is {error: code, message: sentence} (service/refusal.py).
    const message = (data && data.message) || say("serverAnswered", { status: response.status });
    const failure = new Error(message);
    failure.status = response.status;
    failure.retryAfter = response.headers.get("Retry-After");
    throw failure;
  }
  return data;
}

export async function getJSON(url) {
  const response = await fetch(url, { headers: { Accept: "application/json", ...pageLanguage() }, credentials: "same-origin" });
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new Error((data && data.message) || say("serverAnswered", { status: response.status }));
  return data;
}

/** Make an element with attributes and children (strings become text: nothing is parsed as HTML). */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function svgEl(tag, attributes = {}, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}
