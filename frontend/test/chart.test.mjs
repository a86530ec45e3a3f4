// The chart's drawing width (chartWidth in src/lesson/chart.js): the box's own width, so
// its 11 px labels stay 11 px on a phone instead of being scaled down to about 5.
import { test } from "node:test";
import assert from "node:assert/strict";

import { OUTCOME_FILLS, chartWidth } from "../src/lesson/chart.js";

test("the chart is drawn as wide as its box, between a phone's width and a laptop's", () => {
  assert.equal(chartWidth(350), 350);
  assert.equal(chartWidth(640.4), 640);
  assert.equal(chartWidth(1200), 640);
  assert.equal(chartWidth(120), 280);
  assert.equal(chartWidth(0), 640, "a hidden box (no width yet) gets the full drawing");
  assert.equal(chartWidth(Number.NaN), 640);
});

test("the pictures' three colours are the lesson's, as the server draws them", () => {
  assert.deepEqual(Object.values(OUTCOME_FILLS).sort(), ["draw", "loss", "win"]);
  assert.equal(OUTCOME_FILLS["#b22222"], "loss"); // firebrick
  assert.equal(OUTCOME_FILLS["#008000"], "win"); // green
});
