// "Boxes": every box a MENACE has opened, all at once, grouped by the move of the game they serve.

import { el } from "./api.js";
import { describeBeads, miniBoard } from "./board.js";
import { nth, say, sayN } from "./words.js";

/** Sections of cards, one section for each move of the game, for the boxes the server listed
 * (``whose``: "Menace" or "O", MENACE's boxes or the second MENACE's). */
export function boxGroups(all, whose) {
  const groups = new Map();
  for (const box of all) {
    if (!groups.has(box.move)) groups.set(box.move, []);
    groups.get(box.move).push(box);
  }
  const sections = [];
  for (const [move, boxes] of groups) {
    const items = boxes.map((box) => el("li", {
      class: `card box-card${move === 1 ? " first" : ""}`,
      "aria-label": say("boxLabel", { position: box.position.replaceAll(" ", "·"), beads: describeBeads(box.beads) }),
    }, miniBoard(box.position, box.beads), el("span", { class: "card-caption" }, sayN("beadCount", box.total))));
    sections.push(el("section", { class: "box-group" },
      el("h4", {}, sayN(`boxGroup${whose}`, boxes.length, { nth: nth(move) })),
      el("ol", { class: "cards" }, items)));
  }
  return sections;
}

/** Fill the panel: MENACE's boxes, then (when O is a learning MENACE too) O's. */
export function showBoxes(list, others, answer) {
  if (!answer.boxes.length) list.replaceChildren(el("p", {}, say("noBoxYet")));
  else list.replaceChildren(...boxGroups(answer.boxes, "Menace"));
  if (answer.o_boxes && answer.o_boxes.length) {
    others.replaceChildren(el("h3", {}, say("oBoxes", { n: answer.o_boxes.length })),
      ...boxGroups(answer.o_boxes, "O"));
  } else {
    others.replaceChildren();
  }
}
