// Arrow keys on a board of 9 square buttons: move to the next free square in that direction.
// A taken (disabled) square is stepped over, not a wall; the edge of the board is.

const STEPS = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };

/** Handle one keydown on square `index`; true when it was an arrow key (the page must not scroll). */
export function arrowKey(event, squares, index) {
  if (!(event.key in STEPS)) return false;
  event.preventDefault();
  const [dr, dc] = STEPS[event.key];
  let [row, column] = [Math.floor(index / 3), index % 3];
  for (;;) {
    row += dr;
    column += dc;
    if (row < 0 || row > 2 || column < 0 || column > 2) return true;
    const next = squares[row * 3 + column];
    if (!next.disabled) {
      next.focus();
      return true;
    }
  }
}
