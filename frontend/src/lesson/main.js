// The lesson page: the MENACE widget, the Step programs and the challenges.

import { Widget } from "./widget.js";
import { setUpChallenge, setUpProgram } from "./programs.js";
import { setUpPresets } from "./presets.js";
import { TrainedBoard } from "./trained.js";

function ready() {
  const root = document.getElementById("widget");
  if (root) {
    window.menaceWidget = new Widget(root);
    setUpPresets(window.menaceWidget);
  }
  const trained = document.getElementById("trained");
  if (trained) window.menaceTrained = new TrainedBoard(trained);
  document.querySelectorAll("article.program").forEach(setUpProgram);
  document.querySelectorAll("article.challenge").forEach(setUpChallenge);
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", ready);
else ready();
