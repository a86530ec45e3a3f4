// Michie's chart: the line goes up 3 for a win, up 1 for a draw, down 1 for a loss.
// A dashed vertical line marks every change of opponent.

import { svgEl } from "./api.js";
import { say, sayN } from "./words.js";

const STEP = { w: 3, d: 1, l: -1 };
const NAMES = { perfect: "chartPerfect", random: "chartRandom", menace: "chartMenace", you: "chartYou" };
const WIDTH = 640; // the widest the chart is drawn; a narrower box gets a narrower drawing
const MIN_WIDTH = 280;
const HEIGHT = 260;
const PAD = { left: 48, right: 16, top: 26, bottom: 34 };
const LABEL_CHAR = 7.5; // the width of a character of a segment's label (11px, bold), near enough
// A wide character (Chinese, Japanese, Korean) takes about two.
const labelWidth = (text) => Array.from(text).reduce((sum, c) => sum + (c.codePointAt(0) >= 0x2e80 ? 2 : 1) * LABEL_CHAR, 0);

function niceStep(range) {
  const rough = range / 5;
  const power = 10 ** Math.floor(Math.log10(Math.max(rough, 1)));
  return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) || power * 10;
}

/**
 * The drawing's width: the box's own width in CSS pixels (at most WIDTH), so that the
 * labels' 11 px are 11 px on the screen too, on a phone as on a laptop.
 */
export function chartWidth(boxWidth) {
  if (!Number.isFinite(boxWidth) || boxWidth <= 0) return WIDTH;
  return Math.round(Math.max(MIN_WIDTH, Math.min(WIDTH, boxWidth)));
}

export function drawChart(container, results, segments) {
  const width = chartWidth(container.clientWidth);
  const scores = [0];
  for (const letter of results) scores.push(scores[scores.length - 1] + STEP[letter]);
  const games = results.length;
  const xMax = Math.max(100, games);
  const yMin = Math.min(0, ...scores);
  const yMax = Math.max(10, ...scores);
  const x = (g) => PAD.left + (g / xMax) * (width - PAD.left - PAD.right);
  const y = (v) => HEIGHT - PAD.bottom - ((v - yMin) / (yMax - yMin)) * (HEIGHT - PAD.top - PAD.bottom);
  const last = scores[scores.length - 1];
  const against = segments.map((s, i) => (i + 1 < segments.length
    ? say("segmentFromTo", { opponent: say(NAMES[s.opponent]), from: s.start + 1, to: segments[i + 1].start })
    : say("segmentFrom", { opponent: say(NAMES[s.opponent]), from: s.start + 1 })));
  const summary = games
    ? sayN("chartSummary", games, { last, segments: against.join(say("segmentSeparator")) })
    : say("chartEmpty");
  const svg = svgEl("svg", {
    viewBox: `0 0 ${width} ${HEIGHT}`, role: "img", "aria-label": summary, class: "chart-svg",
    preserveAspectRatio: "xMidYMid meet",
  });
  svg.append(svgEl("title", {}, summary));
  const axes = svgEl("g", { class: "axes" });
  const yStep = niceStep(yMax - yMin);
  for (let v = Math.ceil(yMin / yStep) * yStep; v <= yMax; v += yStep) {
    axes.append(svgEl("line", { x1: PAD.left, x2: width - PAD.right, y1: y(v), y2: y(v), class: v === 0 ? "zero" : "grid" }));
    axes.append(svgEl("text", { x: PAD.left - 6, y: y(v) + 4, class: "tick", "text-anchor": "end" }, String(v)));
  }
  const xStep = niceStep(xMax);
  for (let g = 0; g <= xMax; g += xStep) {
    axes.append(svgEl("text", { x: x(g), y: HEIGHT - PAD.bottom + 16, class: "tick", "text-anchor": "middle" }, String(g)));
  }
  axes.append(svgEl("text", { x: width - PAD.right, y: HEIGHT - 4, class: "axis-label", "text-anchor": "end" }, say("axisGames")));
  axes.append(svgEl("text", { x: 4, y: 14, class: "axis-label" }, say("axisScore")));
  svg.append(axes);
  for (const [index, segment] of segments.entries()) {
    const at = x(segment.start);
    if (index > 0) {
      svg.append(svgEl("line", {
        x1: at, x2: at, y1: PAD.top - 4, y2: HEIGHT - PAD.bottom, class: "opponent-change",
        "stroke-dasharray": "5 4", "data-game": segment.start,
      }));
    }
    // A label that would run past the right edge sits on the line's left instead.
    const name = say(NAMES[segment.opponent]);
    const fits = at + 4 + labelWidth(name) <= width - PAD.right;
    svg.append(svgEl("text", {
      x: fits ? at + 4 : at - 4, y: PAD.top + 8, class: "segment-label", "text-anchor": fits ? "start" : "end",
    }, name));
  }
  if (games) {
    const every = Math.max(1, Math.ceil(games / 1200));
    const points = [];
    for (let g = 0; g <= games; g += every) points.push(`${x(g).toFixed(1)},${y(scores[g]).toFixed(1)}`);
    if (games % every) points.push(`${x(games).toFixed(1)},${y(last).toFixed(1)}`);
    svg.append(svgEl("polyline", { points: points.join(" "), class: "score-line", "data-last": last, "data-games": games }));
  }
  container.replaceChildren(svg);
}

// -- the programs' pictures: a second cue besides colour ------------------------------

// Step 3 and Step 4 draw one square per game: green a win, light gray a draw, firebrick a
// loss (the lesson's colours, as the server draws them). Green and firebrick look alike to
// many colour-blind people, so each loss also gets a white cross, and a legend says so; a
// win stays a plain square, a draw a light one (lightness tells it apart).
export const OUTCOME_FILLS = { "#008000": "win", "#d3d3d3": "draw", "#b22222": "loss" };
const CUE_WORDS = { win: "cueWin", draw: "cueDraw", loss: "cueLoss" };

function cueFor(outcome, x, y, size) {
  if (outcome === "loss") {
    const a = size * 0.22;
    const b = size - a;
    return svgEl("path", {
      d: `M${x + a} ${y + a}L${x + b} ${y + b}M${x + b} ${y + a}L${x + a} ${y + b}`,
      stroke: "#fff", "stroke-width": Math.max(1.5, size / 7), "stroke-linecap": "round", class: "cue cue-loss",
    });
  }
  return null;
}

/**
 * Mark each loss square of a program's picture (an SVG from the server) with its
 * second cue; return the outcomes it holds, in the order win, draw, loss.
 */
export function addOutcomeCues(svg) {
  const seen = new Set();
  for (const square of Array.from(svg.querySelectorAll("rect[fill]"))) {
    const outcome = OUTCOME_FILLS[(square.getAttribute("fill") || "").toLowerCase()];
    if (!outcome) continue;
    seen.add(outcome);
    const size = Number(square.getAttribute("width"));
    const cue = cueFor(outcome, Number(square.getAttribute("x")), Number(square.getAttribute("y")), size);
    if (cue) square.after(cue);
  }
  return ["win", "draw", "loss"].filter((outcome) => seen.has(outcome));
}

/** The legend under a picture: a small square, with its cue, and its words, per outcome. */
export function outcomeLegend(outcomes) {
  const list = document.createElement("ul");
  list.className = "picture-legend";
  for (const outcome of outcomes) {
    const fill = Object.keys(OUTCOME_FILLS).find((key) => OUTCOME_FILLS[key] === outcome);
    const swatch = svgEl("svg", { viewBox: "0 0 12 12", width: 14, height: 14, "aria-hidden": "true" },
      svgEl("rect", { width: 12, height: 12, fill }), cueFor(outcome, 0, 0, 12));
    const item = document.createElement("li");
    item.append(swatch, ` ${say(CUE_WORDS[outcome])}`);
    list.append(item);
  }
  return list;
}
