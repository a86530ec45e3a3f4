// The lesson page: the MENACE widget, the Step programs and the challenges.

import { Widget } from "./widget.js";
import { setUpChallenge, setUpProgram } from "./programs.js";

function ready() {
  const root = document.getElementById("widget");
  if (root) window.menaceWidget = new Widget(root);
  document.querySelectorAll("article.program").forEach(setUpProgram);
  document.querySelectorAll("article.challenge").forEach(setUpChallenge);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
else ready();
