// A program's printed lines beside the lesson's: which lines came out differently.

import { el } from "./api.js";

/** The lines of `printed`, each marked when it is not the lesson's line at that place. */
export function comparedOutput(printed, expected) {
  const got = printed.replace(/\n$/, "").split("\n");
  const want = expected.replace(/\n$/, "").split("\n");
  let differ = 0;
  const lines = got.map((line, i) => {
    const same = want[i] === line;
    if (!same) differ += 1;
    return same ? el("span", { class: "line" }, line, "\n")
      : el("mark", { class: "line differs", title: want[i] === undefined ? "the lesson's program prints no such line" : `the lesson's line: ${want[i]}` }, line, "\n");
  });
  const missing = Math.max(0, want.length - got.length);
  const words = differ === 0 && missing === 0
    ? "Every line is the same as the lesson's."
    : [differ ? `${differ} line${differ === 1 ? "" : "s"} differ${differ === 1 ? "s" : ""} from the lesson's (marked)` : "",
        missing ? `${missing} of the lesson's line${missing === 1 ? " is" : "s are"} missing` : ""].filter(Boolean).join("; ") + ".";
  return { pre: el("pre", { class: "printed compared" }, lines), note: el("p", { class: `note comparison${differ || missing ? " differs" : ""}` }, words), differ, missing };
}
