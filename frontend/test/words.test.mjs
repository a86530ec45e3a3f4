// The lesson page's sentences (src/lesson/words.js): English by default, values by name, plurals by n.
import { test } from "node:test";
import assert from "node:assert/strict";

import { WORDS, nth, say, sayN, sayWith } from "../src/lesson/words.js";

test("without the page's table the sentences are English, their values filled in by name", () => {
  assert.equal(say("boxesOpened", { n: 12 }), "Boxes opened: 12.");
  assert.equal(sayN("gamesPlayed", 1), "1 game played");
  assert.equal(sayN("gamesPlayed", 100), "100 games played");
  assert.equal(nth(3), "3rd");
  assert.equal(nth(12), "12", "past the table: the number");
});

test("a node goes into a sentence where its value is named", () => {
  const link = { link: true };
  assert.deepEqual(sayWith("signInFirst", { link }).map((part) => (part === link ? "LINK" : part)), [
    "Sign in first: checks are kept under your name. ",
    "LINK",
    " with the token or the link your teacher gave you; you come back here with your program as you left it.",
  ]);
});

test("every sentence that depends on a number has both forms", () => {
  for (const key of Object.keys(WORDS)) {
    const stem = key.replace(/_(one|other)$/, "");
    if (stem !== key) assert.ok(`${stem}_one` in WORDS && `${stem}_other` in WORDS, key);
  }
});
