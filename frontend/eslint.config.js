// eslint's flat config: the recommended rules for every script here; the browser's globals
// for src/, node's for the build script and the tests. `npm run lint` (CI runs it).
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/"] },
  js.configs.recommended,
  {
    files: ["src/**/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.browser },
    rules: { "no-unused-vars": ["error", { caughtErrors: "none" }], eqeqeq: ["error", "always"] },
  },
  {
    files: ["*.js", "*.mjs", "test/**/*.mjs"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.node },
  },
];
