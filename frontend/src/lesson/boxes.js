// "Boxes": every box a MENACE has opened, all at once, grouped by the move of the game they serve.

import { el } from "./api.js";
import { describeBeads, miniBoard } from "./board.js";

const ORDINALS = { 1: "1st", 2: "2nd", 3: "3rd", 4: "4th", 5: "5th", 6: "6th", 7: "7th", 8: "8th" };

/** Sections of cards, one section for each move of the game, for the boxes the server listed. */
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
      "aria-label": `Box for the position ${box.position.replaceAll(" ", "·")}: ${describeBeads(box.beads)}`,
    }, miniBoard(box.position, box.beads), el("span", { class: "card-caption" }, `${box.total} bead${box.total === 1 ? "" : "s"}`)));
    sections.push(el("section", { class: "box-group" },
      el("h4", {}, `Before ${whose} move ${ORDINALS[move] || move} of the game: ${boxes.length} box${boxes.length === 1 ? "" : "es"}`),
      el("ol", { class: "cards" }, items)));
  }
  return sections;
}

/** Fill the panel: MENACE's boxes, then (when O is a learning MENACE too) O's. */
export function showBoxes(list, others, answer) {
  if (!answer.boxes.length) list.replaceChildren(el("p", {}, "MENACE has not opened any box yet: play a game first."));
  else list.replaceChildren(...boxGroups(answer.boxes, "MENACE's"));
  if (answer.o_boxes && answer.o_boxes.length) {
    others.replaceChildren(el("h3", {}, `The second MENACE's boxes (O): ${answer.o_boxes.length}`),
      ...boxGroups(answer.o_boxes, "O's"));
  } else {
    others.replaceChildren();
  }
}
