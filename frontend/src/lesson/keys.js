// Arrow keys on a board of 9 square buttons: move to the next free square in that direction
// (board.js's nextSquare, the one rule, unit-tested in frontend/test). A taken (disabled)
// square is stepped over, not a wall.

import { nextSquare } from "./board.js";

/** Handle one keydown on square `index`; true when it was an arrow key (the page must not scroll). */
export function arrowKey(event, squares, index) {
  if (!event.key.startsWith("Arrow")) return false;
  event.preventDefault();
  const next = nextSquare(index, event.key, (square) => !squares[square].disabled);
  if (next !== null) squares[next].focus();
  return true;
}
