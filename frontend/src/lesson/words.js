// The lesson page's sentences: what the widget, the trained board and the programs say.
//
// WORDS is the English default (the unit tests use it, and a page without the table). The
// server renders the same table in the page's language into
// <script type="application/json" id="lesson-words"> (menace_course/service/lesson/words.py,
// from its gettext catalog; a test keeps its keys and English sentences equal to these).
// Values are filled in by name (``%(n)s``). A sentence that depends on a number has two keys,
// ``KEY_one`` (n is 1) and ``KEY_other``: sayN picks one.

import { fill, wordsWith } from "../check/client.js";

export const WORDS = Object.freeze({
  // the widget's opponents, in its sentences, and on the chart
  opponentPerfect: "Perfect",
  opponentRandom: "Random",
  opponentMenace: "the second MENACE",
  opponentYou: "you",
  chartPerfect: "Perfect",
  chartRandom: "Random",
  chartMenace: "MENACE",
  chartYou: "You",
  // the widget's status line
  somethingWrong: "Something went wrong: %(message)s",
  serverAnswered: "the server answered %(status)s",
  freshMichie: "A fresh MENACE (seed %(seed)s): every box is as Michie filled it. Press Play 1 game, 100 games or Play on.",
  freshMichieYou: "A fresh MENACE (seed %(seed)s): every box is as Michie filled it. Press Play 1 game to play against it.",
  freshNumbers: "A fresh MENACE (seed %(seed)s): with your numbers: %(settings)s. Press Play 1 game, 100 games or Play on.",
  freshNumbersYou: "A fresh MENACE (seed %(seed)s): with your numbers: %(settings)s. Press Play 1 game to play against it.",
  playingMany: "Playing %(count)s games against %(opponent)s…",
  playedMany: "%(count)s more games against %(opponent)s played. The board shows the last of them.",
  settingsOn: "rewards %(rewards)s, starting beads %(start)s, symmetry on",
  settingsOff: "rewards %(rewards)s, starting beads %(start)s, symmetry off",
  stopped: "Stopped.",
  stoppedBecause: "Stopped: %(message)s",
  stoppedAfter: "Stopped after %(played)s games. The board shows the last of them.",
  buttonStop: "Stop",
  buttonPlayOn: "Play on",
  playedMost: "This MENACE has played %(n)s games, as many as one widget plays: press Start for a fresh one.",
  paceFastest: "as fast as it goes",
  pace_one: "%(n)s game a second",
  pace_other: "%(n)s games a second",
  playingOn: "Playing on against %(opponent)s, %(pace)s: %(played)s games so far. Press Stop to stop.",
  oIsYou: "O is you now. Press Play 1 game: MENACE moves first, then click a square.",
  oIsMenace: "O is a second MENACE now, with boxes of its own: it learns from its games as MENACE does. The chart marks the change.",
  oIsOther: "O is %(opponent)s now. The chart will mark the change with a dashed line.",
  yourMove: "MENACE played the %(square)s. Your move: choose an empty square.",
  opensBox: "MENACE opens its box for this position: %(beads)s.",
  resultWin: "MENACE won: each bead it drew goes back with 3 more of its color (+3).",
  resultDraw: "A draw: each bead it drew goes back with 1 more (+1).",
  resultResigned: "MENACE resigned: its box for this position was empty. That counts as a loss, and the box gets its first beads back.",
  resultLoss: "MENACE lost: each bead it drew stays out of its box (−1).",
  // the tallies under the chart
  gamesPlayed_one: "%(n)s game played",
  gamesPlayed_other: "%(n)s games played",
  tally: ": %(won)s won, %(drawn)s drawn, %(lost)s lost.",
  boxesOpened: "Boxes opened: %(n)s.",
  lastFifty: "The last 50 games: %(won)s won, %(drawn)s drawn, %(lost)s lost.",
  firstBoxNow: "The first box now: ",
  oBoxesOpened: "The second MENACE (O) has opened %(n)s boxes.",
  seedNote: "Seed %(seed)s.",
  seedSettingsNote: "Seed %(seed)s; %(settings)s.",
  noCommand: "These games changed opponent, so no single terminal command plays them all.",
  inATerminal: "The same games, move by move, in a terminal: ",
  // boards, beads and cards
  square0: "top left",
  square1: "top middle",
  square2: "top right",
  square3: "middle left",
  square4: "center",
  square5: "middle right",
  square6: "bottom left",
  square7: "bottom middle",
  square8: "bottom right",
  colour0: "red",
  colour1: "orange",
  colour2: "mustard",
  colour3: "green",
  colour4: "blue",
  colour5: "purple",
  colour6: "brown",
  colour7: "teal",
  colour8: "pink",
  nth1: "1st",
  nth2: "2nd",
  nth3: "3rd",
  nth4: "4th",
  nth5: "5th",
  nth6: "6th",
  nth7: "7th",
  nth8: "8th",
  beads_one: "%(square)s %(count)s %(colour)s bead",
  beads_other: "%(square)s %(count)s %(colour)s beads",
  listSeparator: ", ",
  noBeads: "no beads at all",
  beadsDrew: "%(beads)s; drew %(square)s",
  beadTitle: "%(count)s %(colour)s",
  cardLabel: "Box %(box)s, before move %(move)s: %(beads)s",
  cardCaption: "Move %(move)s · MENACE's %(nth)s",
  cardChanged: "%(label)s. Change %(change)s",
  changeLabel_one: "%(change)s %(square)s bead",
  changeLabel_other: "%(change)s %(square)s beads",
  resignedLabel: "MENACE's box for this position is empty: it resigns",
  resignedCaption: "Empty box: MENACE resigns",
  squareLabel: "%(square)s, %(mark)s",
  squareEmpty: "%(square)s, empty",
  // the chart
  chartSummary_one: "Michie's chart after %(n)s game: the line is at %(last)s. %(segments)s.",
  chartSummary_other: "Michie's chart after %(n)s games: the line is at %(last)s. %(segments)s.",
  segmentFrom: "Against %(opponent)s from game %(from)s",
  segmentFromTo: "Against %(opponent)s from game %(from)s to %(to)s",
  segmentSeparator: "; ",
  chartEmpty: "Michie's chart: no games yet.",
  axisGames: "games played",
  axisScore: "wins ×3 + draws − losses",
  cueWin: "a win: green",
  cueDraw: "a draw: light gray",
  cueLoss: "a loss: firebrick, with a cross",
  // all the boxes at once
  boxLabel: "Box for the position %(position)s: %(beads)s",
  beadCount_one: "%(n)s bead",
  beadCount_other: "%(n)s beads",
  boxGroupMenace_one: "Before MENACE's move %(nth)s of the game: %(n)s box",
  boxGroupMenace_other: "Before MENACE's move %(nth)s of the game: %(n)s boxes",
  boxGroupO_one: "Before O's move %(nth)s of the game: %(n)s box",
  boxGroupO_other: "Before O's move %(nth)s of the game: %(n)s boxes",
  noBoxYet: "MENACE has not opened any box yet: play a game first.",
  oBoxes: "The second MENACE's boxes (O): %(n)s",
  // the Step programs
  running: "Running in the sandbox…",
  notRun: "The program could not be run: %(message)s",
  stopEditing: "Stop editing",
  edit: "Edit",
  printed: "Printed",
  dropped: "(%(n)s more characters were printed and not kept)",
  frameLine: "line %(line)s: ",
  frameLineIn: "line %(line)s, in %(function)s: ",
  pictureLabel: "The program's picture: one square for each game, green a win, gray a draw, firebrick with a cross a loss",
  picture: "Picture",
  printedNothing: "The program ran and printed nothing.",
  ranIn: "Ran in %(seconds)s s, in the sandbox.",
  noSuchLine: "the lesson's program prints no such line",
  lessonsLine: "the lesson's line: %(line)s",
  sameLines: "Every line is the same as the lesson's.",
  linesDiffer_one: "%(n)s line differs from the lesson's (marked)",
  linesDiffer_other: "%(n)s lines differ from the lesson's (marked)",
  linesMissing_one: "%(n)s of the lesson's line is missing",
  linesMissing_other: "%(n)s of the lesson's lines are missing",
  comparedOne: "%(part)s.",
  comparedBoth: "%(differ)s; %(missing)s.",
  // the challenges
  signInFirst: "Sign in first: checks are kept under your name. %(link)s with the token or the link your teacher gave you; you come back here with your program as you left it.",
  signInLink: "Sign in",
  notChecked: "Your program could not be checked: %(message)s",
  // the board under Step 3
  trainedWin: "MENACE won. Press New game to try again.",
  trainedDraw: "A draw. Press New game to try again.",
  trainedLoss: "You beat it! Press New game: does the same way work again?",
  trainedScore: "Against your MENACE: it won %(won)s, drew %(drew)s, lost %(lost)s.",
});

let shown = null;

/** The page's sentences (read once from #lesson-words), over the English defaults. */
export function lessonWords() {
  if (shown) return shown;
  let given = null;
  if (typeof document !== "undefined") {
    const element = document.getElementById("lesson-words");
    try {
      given = element ? JSON.parse(element.textContent) : null;
    } catch {
      given = null;
    }
  }
  const merged = { ...WORDS };
  if (given && typeof given === "object") {
    for (const key of Object.keys(WORDS)) if (typeof given[key] === "string" && given[key]) merged[key] = given[key];
  }
  shown = Object.freeze(merged);
  return shown;
}

/** The sentence ``key`` in the page's language, its ``%(name)s`` values filled in. */
export function say(key, values = {}) {
  return fill(lessonWords()[key], values);
}

/** ``KEY_one`` when ``n`` is 1, else ``KEY_other``; ``n`` is also the value ``%(n)s``. */
export function sayN(key, n, values = {}) {
  return say(`${key}_${n === 1 ? "one" : "other"}`, { n, ...values });
}

/** The name of square ``square`` (0 to 8, in reading order) and of its bead's colour. */
export const squareName = (square) => say(`square${square}`);
export const colourName = (square) => say(`colour${square}`);

/** ``1st``, ``2nd``… (the number itself past the table). */
export const nth = (n) => (`nth${n}` in WORDS ? say(`nth${n}`) : String(n));

/**
 * The sentence ``key`` as a list of nodes and strings, with a node in place of ``%(name)s``
 * (a link inside a sentence), the other values filled in as text.
 */
export function sayWith(key, nodes, values = {}) {
  const parts = [];
  const template = lessonWords()[key];
  let rest = template;
  for (;;) {
    const found = /%\((\w+)\)s/.exec(rest);
    if (!found) break;
    const name = found[1];
    if (name in nodes) {
      parts.push(fill(rest.slice(0, found.index), values), nodes[name]);
      rest = rest.slice(found.index + found[0].length);
    } else {
      parts.push(fill(rest.slice(0, found.index + found[0].length), values));
      rest = rest.slice(found.index + found[0].length);
    }
  }
  parts.push(fill(rest, values));
  return parts.filter((part) => part !== "");
}

/** The check client's sentences, in the page's language (#check-words, as on a challenge page). */
export function checkWords() {
  const element = typeof document !== "undefined" ? document.getElementById("check-words") : null;
  try {
    return wordsWith(element ? JSON.parse(element.textContent) : null);
  } catch {
    return wordsWith(null);
  }
}
