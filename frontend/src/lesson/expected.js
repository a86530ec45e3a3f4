// A program's printed lines beside the lesson's: which lines came out differently.

import { el } from "./api.js";
import { say, sayN } from "./words.js";

/** The lines of `printed`, each marked when it is not the lesson's line at that place. */
export function comparedOutput(printed, expected) {
  const got = printed.replace(/\n$/, "").split("\n");
  const want = expected.replace(/\n$/, "").split("\n");
  let differ = 0;
  const lines = got.map((line, i) => {
    const same = want[i] === line;
    if (!same) differ += 1;
    return same ? el("span", { class: "line" }, line, "\n")
      : el("mark", { class: "line differs", title: want[i] === undefined ? say("noSuchLine") : say("lessonsLine", { line: want[i] }) }, line, "\n");
  });
  const missing = Math.max(0, want.length - got.length);
  const parts = { differ: differ ? sayN("linesDiffer", differ) : "", missing: missing ? sayN("linesMissing", missing) : "" };
  const words = differ === 0 && missing === 0
    ? say("sameLines")
    : differ && missing ? say("comparedBoth", parts) : say("comparedOne", { part: parts.differ || parts.missing });
  return { pre: el("pre", { class: "printed compared" }, lines), note: el("p", { class: `note comparison${differ || missing ? " differs" : ""}` }, words), differ, missing };
}
