// Bundles the compiled extension (out/extension.js, from `tsc`) and its runtime dependencies
// (vscode-languageclient and what it needs) into one file, dist/extension.js: the .vsix then holds
// one script instead of about 180, which VS Code loads faster (and vsce stops warning). `vscode`
// is provided by the editor and stays external. esbuild is pinned in tools/package-lock.json, apart
// from the extension's own node_modules. It also copies mermaid's browser build (below).
"use strict";
const path = require("node:path");

let esbuild;
try {
  esbuild = require("./node_modules/esbuild");
} catch {
  console.error("esbuild is missing: run `npm ci --prefix editors/vscode/tools` (.ci/install-test-peers does)");
  process.exit(1);
}

const root = path.join(__dirname, "..");
esbuild.buildSync({
  entryPoints: [path.join(root, "out", "extension.js")],
  outfile: path.join(root, "dist", "extension.js"),
  bundle: true,
  platform: "node",
  format: "cjs",
  target: "node18",
  external: ["vscode"],
  logLevel: "warning",
});

// The workflow graph's webview renders Mermaid offline: mermaid's own minified browser build is
// shipped beside the extension (no CDN; the webview's CSP allows only the extension's files).
const fs = require("node:fs");
const mermaid = path.join(__dirname, "node_modules", "mermaid");
fs.copyFileSync(path.join(mermaid, "dist", "mermaid.min.js"), path.join(root, "dist", "mermaid.min.js"));
fs.copyFileSync(path.join(mermaid, "LICENSE"), path.join(root, "dist", "mermaid.LICENSE.txt")); // MIT: ships with it
