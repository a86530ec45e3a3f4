// The board's arrow keys (nextSquare in src/lesson/board.js): past taken squares, never onto one.
import { test } from "node:test";
import assert from "node:assert/strict";

import { nextSquare } from "../src/lesson/board.js";

const freeOf = (board) => (square) => board[square] === " ";

test("right and left go past taken squares to the next free one, across rows", () => {
  const board = "XO X  O  ".split("");
  assert.equal(nextSquare(2, "ArrowRight", freeOf(board)), 4);
  assert.equal(nextSquare(4, "ArrowRight", freeOf(board)), 5);
  assert.equal(nextSquare(5, "ArrowRight", freeOf(board)), 7);
  assert.equal(nextSquare(4, "ArrowLeft", freeOf(board)), 2);
  assert.equal(nextSquare(2, "ArrowLeft", freeOf(board)), null, "nothing free before it");
});

test("up and down keep to the column, else go to the nearest free square that way", () => {
  const board = " X  O  X ".split("");
  assert.equal(nextSquare(0, "ArrowDown", freeOf(board)), 3);
  assert.equal(nextSquare(2, "ArrowDown", freeOf(board)), 5);
  assert.equal(nextSquare(6, "ArrowUp", freeOf(board)), 3);
  // the middle column is taken below the top: down goes to the first free square below
  assert.equal(nextSquare(1, "ArrowDown", freeOf("XX XX  X ".split(""))), 5);
  assert.equal(nextSquare(8, "ArrowDown", freeOf(board)), null);
});

test("only free squares are ever chosen, and other keys choose none", () => {
  for (let board = 0; board < 512; board += 37) {
    const free = (square) => ((board >> square) & 1) === 0;
    for (let from = 0; from < 9; from += 1) {
      for (const key of ["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown"]) {
        const next = nextSquare(from, key, free);
        if (next !== null) assert.ok(free(next) && next !== from, `${board} ${from} ${key} -> ${next}`);
      }
    }
  }
  assert.equal(nextSquare(0, "Enter", () => true), null);
});
