// Boards and matchbox cards, drawn from what the server sent. No rules of the game here:
// which squares have beads, which bead was drawn and what changed all come from the engine.

import { el } from "./api.js";
import { colourName, nth, say, sayN, squareName } from "./words.js";

/**
 * Where an arrow key moves the keyboard focus on the board, from square ``index``: past
 * taken squares to the next free one (``isFree(square)``), or null when there is none.
 * Left and Right go through the squares in reading order (off the end of a row onto the
 * next); Up and Down stay in the column, else take the nearest free square in that
 * direction in reading order.
 */
export function nextSquare(index, key, isFree) {
  const free = (square) => square >= 0 && square < 9 && square !== index && isFree(square);
  if (key === "ArrowRight" || key === "ArrowLeft") {
    const step = key === "ArrowRight" ? 1 : -1;
    for (let square = index + step; square >= 0 && square < 9; square += step) if (free(square)) return square;
    return null;
  }
  if (key === "ArrowDown" || key === "ArrowUp") {
    const step = key === "ArrowDown" ? 3 : -3;
    for (let square = index + step; square >= 0 && square < 9; square += step) if (free(square)) return square;
    const along = step > 0 ? 1 : -1;
    for (let square = index + along; square >= 0 && square < 9; square += along) {
      if (free(square) && Math.sign(Math.floor(square / 3) - Math.floor(index / 3)) === along) return square;
    }
    return null;
  }
  return null;
}

// One color of bead for each square of the board, each named for screen readers (words.js: colourN).
export const BEAD_COLOURS = [
  "#c0392b", "#d35400", "#9a7d0a",
  "#1e8449", "#1f618d", "#6c3483",
  "#a04000", "#117a65", "#c2185b",
];

export function describeBeads(beads, drawn) {
  const parts = Object.entries(beads)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([square, count]) => sayN("beads", count, { square: squareName(square), count, colour: colourName(square) }));
  const text = parts.length ? parts.join(say("listSeparator")) : say("noBeads");
  return drawn === undefined || drawn === null ? text : say("beadsDrew", { beads: text, square: squareName(drawn) });
}

const beadSize = (count) => (count >= 1000 ? " bead-4" : count >= 100 ? " bead-3" : "");

/** A small board: marks, and for each colored square a circle with its bead count. */
export function miniBoard(board, beads = {}, drawn = null) {
  const cells = [];
  for (let square = 0; square < 9; square += 1) {
    const mark = board[square];
    const cell = el("span", { class: "cell", "data-square": square });
    if (mark === "X" || mark === "O") {
      cell.classList.add(`mark-${mark.toLowerCase()}`);
      cell.textContent = mark;
    } else if (beads[square] !== undefined) {
      const color = BEAD_COLOURS[square];
      const bead = el("span", {
        // Three or four digits get a smaller figure, so the number stays inside its circle.
        class: `bead${beads[square] === 0 ? " bead-empty" : ""}${beadSize(beads[square])}`,
        style: `--bead: ${color}`,
        title: say("beadTitle", { count: beads[square], colour: colourName(square) }),
        "data-count": beads[square],
      }, String(beads[square]));
      if (square === drawn) {
        cell.classList.add("drawn");
        bead.classList.add("bead-drawn");
      }
      cell.append(bead);
    }
    cells.push(cell);
  }
  return el("span", { class: "mini-board", "aria-hidden": "true" }, cells);
}

/** A card for one box MENACE opened: the board then, its beads, the drawn bead, its change. */
export function card(data, index) {
  const moveNumber = data.move + 1;
  const label = say("cardLabel", { box: index + 1, move: moveNumber, beads: describeBeads(data.beads, data.drawn) });
  const caption = el("span", { class: "card-caption" }, say("cardCaption", { move: moveNumber, nth: nth(index + 1) }));
  const item = el("li", { class: "card", "data-move": data.move, "aria-label": label, "data-label": label },
    miniBoard(data.board, data.beads, data.drawn), caption);
  if (data.change !== undefined) showChange(item, data);
  return item;
}

export function showChange(item, data) {
  const sign = data.change > 0 ? "+" : data.change < 0 ? "−" : "±";
  const text = `${sign}${Math.abs(data.change)}`;
  const kind = data.change > 0 ? "up" : "down";
  let badge = item.querySelector(".change");
  if (!badge) {
    badge = el("span", { class: `change change-${kind}` });
    item.append(badge);
  }
  badge.textContent = text;
  badge.setAttribute("aria-label", sayN("changeLabel", Math.abs(data.change), { change: text, square: squareName(data.drawn) }));
  const label = item.dataset.label || item.getAttribute("aria-label");
  item.setAttribute("aria-label", say("cardChanged", { label, change: text }));
  item.dataset.change = String(data.change);
}

export function resignedCard(data) {
  return el("li", { class: "card card-resigned", "aria-label": say("resignedLabel") },
    miniBoard(data.board), el("span", { class: "card-caption" }, say("resignedCaption")));
}

/** Show `board` (9 one-letter strings) on 9 square buttons, ringing square `ringed` (the last move). */
export function drawSquares(squares, board, ringed = null) {
  squares.forEach((button, square) => {
    const mark = board[square] === " " ? "" : board[square];
    button.textContent = mark;
    button.dataset.mark = mark;
    button.classList.toggle("mark-x", mark === "X");
    button.classList.toggle("mark-o", mark === "O");
    button.classList.toggle("last-move", square === ringed);
    button.setAttribute("aria-label", mark ? say("squareLabel", { square: squareName(square), mark }) : say("squareEmpty", { square: squareName(square) }));
  });
}
