// Michie's chart: the line goes up 3 for a win, up 1 for a draw, down 1 for a loss.
// A dashed vertical line marks every change of opponent.

import { svgEl } from "./api.js";

const STEP = { w: 3, d: 1, l: -1 };
const NAMES = { perfect: "Perfect", random: "Random", menace: "MENACE", you: "You" };
const WIDTH = 640;
const HEIGHT = 260;
const PAD = { left: 48, right: 16, top: 26, bottom: 34 };
const LABEL_CHAR = 7.5; // the width of a character of a segment's label (11px, bold), near enough

function niceStep(range) {
  const rough = range / 5;
  const power = 10 ** Math.floor(Math.log10(Math.max(rough, 1)));
  return [1, 2, 5, 10].map((m) => m * power).find((s) => s >= rough) || power * 10;
}

export function drawChart(container, results, segments) {
  const scores = [0];
  for (const letter of results) scores.push(scores[scores.length - 1] + STEP[letter]);
  const games = results.length;
  const xMax = Math.max(100, games);
  const yMin = Math.min(0, ...scores);
  const yMax = Math.max(10, ...scores);
  const x = (g) => PAD.left + (g / xMax) * (WIDTH - PAD.left - PAD.right);
  const y = (v) => HEIGHT - PAD.bottom - ((v - yMin) / (yMax - yMin)) * (HEIGHT - PAD.top - PAD.bottom);
  const last = scores[scores.length - 1];
  const summary = games
    ? `Michie's chart after ${games} game${games === 1 ? "" : "s"}: the line is at ${last}. ` +
      segments.map((s, i) => `Against ${NAMES[s.opponent]} from game ${s.start + 1}` +
        (i + 1 < segments.length ? ` to ${segments[i + 1].start}` : "")).join("; ") + "."
    : "Michie's chart: no games yet.";
  const svg = svgEl("svg", {
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-label": summary, class: "chart-svg",
    preserveAspectRatio: "xMidYMid meet",
  });
  svg.append(svgEl("title", {}, summary));
  const axes = svgEl("g", { class: "axes" });
  const yStep = niceStep(yMax - yMin);
  for (let v = Math.ceil(yMin / yStep) * yStep; v <= yMax; v += yStep) {
    axes.append(svgEl("line", { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(v), y2: y(v), class: v === 0 ? "zero" : "grid" }));
    axes.append(svgEl("text", { x: PAD.left - 6, y: y(v) + 4, class: "tick", "text-anchor": "end" }, String(v)));
  }
  const xStep = niceStep(xMax);
  for (let g = 0; g <= xMax; g += xStep) {
    axes.append(svgEl("text", { x: x(g), y: HEIGHT - PAD.bottom + 16, class: "tick", "text-anchor": "middle" }, String(g)));
  }
  axes.append(svgEl("text", { x: WIDTH - PAD.right, y: HEIGHT - 4, class: "axis-label", "text-anchor": "end" }, "games played"));
  axes.append(svgEl("text", { x: 4, y: 14, class: "axis-label" }, "wins ×3 + draws − losses"));
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
    const name = NAMES[segment.opponent];
    const fits = at + 4 + name.length * LABEL_CHAR <= WIDTH - PAD.right;
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
