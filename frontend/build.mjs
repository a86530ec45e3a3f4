// Build the browser bundles into ../menace_course/service/static/dist/ (npm ci && npm run build).
//
// The bundles are committed, so that `pip install` needs no Node. Beside them,
// manifest.json records a digest of everything the build reads (this script,
// package.json, package-lock.json and every file under src/) and the sha256 of each file
// written. tests/lesson_page/test_bundle.py recomputes the digest from the sources: a
// change to src/ or to the pinned dependencies without a rebuild fails that test, and so
// does a bundle edited by hand.
//
// `node build.mjs --outdir DIR` builds somewhere else (the tests rebuild into a temporary
// folder and compare the bytes with the committed ones).

import * as esbuild from "esbuild";
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const flag = process.argv.indexOf("--outdir");
const outdir = flag > 0 ? process.argv[flag + 1] : join(here, "..", "menace_course", "service", "static", "dist");

// The entry points: what each page loads.
const ENTRIES = {
  "editor.js": "src/editor.js",
  "lesson.js": "src/lesson/main.js",
  "lesson.css": "src/lesson/lesson.css",
  "check.js": "src/check/page.js",
  "service.css": "src/service.css",
};

const sha256 = (data) => createHash("sha256").update(data).digest("hex");

function filesUnder(folder) {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

/** One digest of the build's inputs: for each file, sorted by path, "path\0sha256\n". */
export function inputsDigest() {
  const files = ["build.mjs", "package.json", "package-lock.json", ...filesUnder(join(here, "src"))];
  const lines = files
    .map((file) => relative(here, resolve(here, file)).split(sep).join("/"))
    .map((name) => [name, sha256(readFileSync(join(here, name)))])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, digest]) => `${name}\0${digest}\n`);
  return sha256(lines.join(""));
}

rmSync(outdir, { recursive: true, force: true });
mkdirSync(outdir, { recursive: true });
const written = {};
const bundled = new Set();
for (const [output, input] of Object.entries(ENTRIES)) {
  const result = await esbuild.build({
    entryPoints: [join(here, input)],
    bundle: true,
    minify: true,
    format: output.endsWith(".js") ? "iife" : undefined,
    target: "es2020",
    legalComments: "none",
    charset: "utf8",
    write: false,
    metafile: true,
    logLevel: "warning",
  });
  const [file] = result.outputFiles;
  writeFileSync(join(outdir, output), file.contents);
  written[output] = sha256(file.contents);
  for (const path of Object.keys(result.metafile.inputs)) {
    const match = path.match(/^(?:.*\/)?node_modules\/((?:@[^/]+\/)?[^/]+)\//);
    if (match) bundled.add(match[1]);
  }
}
// The bundles carry other people's code: their licences go beside them.
const notices = [...bundled].sort().map((name) => {
  const folder = join(here, "node_modules", name);
  const meta = JSON.parse(readFileSync(join(folder, "package.json"), "utf8"));
  const licence = readdirSync(folder).find((file) => /^licen[cs]e/i.test(file));
  const text = licence ? readFileSync(join(folder, licence), "utf8").trim() : `License: ${meta.license}`;
  return `${name} ${meta.version}\n\n${text}\n`;
});
const noticeText = `Third-party code in these bundles, with its licences.\n\n${notices.join("\n" + "-".repeat(72) + "\n\n")}`;
writeFileSync(join(outdir, "LICENSES.txt"), noticeText);
written["LICENSES.txt"] = sha256(noticeText);
const manifest = { inputs: inputsDigest(), esbuild: esbuild.version, files: written };
writeFileSync(join(outdir, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
for (const [name, digest] of Object.entries(written)) console.log(`${name}  ${digest.slice(0, 12)}`);
