// Bundles the compiled extension (out/extension.js, from `tsc`) and its runtime dependencies
// (vscode-languageclient and what it needs) into one file, dist/extension.js: the .vsix then holds
// one script instead of about 180, which VS Code loads faster (and vsce stops warning). `vscode`
// is provided by the editor and stays external. esbuild is pinned in tools/package-lock.json, apart
// from the extension's own node_modules. It also builds mermaid for the graph view (below).
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

// The workflow graph's webview renders Mermaid offline: a browser build of mermaid is shipped beside
// the extension (no CDN; the webview's CSP allows only the extension's files). `lait graph` draws
// flowcharts only, so the build keeps mermaid's flowchart diagram (and its dagre layout) and
// leaves the other diagram types out: about half the size of mermaid.min.js, and the graph is drawn
// about twice as soon (bench/mermaid_build.py measures both in one run).
const fs = require("node:fs");
const mermaid = path.join(__dirname, "node_modules", "mermaid");
/** mermaid.core.mjs loads each diagram type with a dynamic import of its chunk: all but these become stubs. */
const KEEP = /(flowDiagram|dagre)-[A-Z0-9]+\.mjs$/;
const LAZY = /[\\/]chunks[\\/]mermaid\.core[\\/](?!chunk-)[^\\/]+\.mjs$/;
const flowchartOnly = {
  name: "flowchart-only",
  setup(build) {
    build.onResolve({ filter: /\.\/chunks\/mermaid\.core\/.*\.mjs$/ }, (args) => {
      const full = path.resolve(args.resolveDir, args.path);
      return LAZY.test(full) && !KEEP.test(full) ? { path: full, namespace: "lait-stub" } : undefined;
    });
    build.onLoad({ filter: /.*/, namespace: "lait-stub" }, () => ({ contents: "export const diagram = undefined;", loader: "js" }));
  },
};
esbuild
  .build({
    stdin: { contents: 'import mermaid from "mermaid/dist/mermaid.core.mjs"; globalThis.mermaid = mermaid;', resolveDir: __dirname, loader: "js" },
    outfile: path.join(root, "dist", "mermaid.min.js"),
    bundle: true,
    minify: true,
    format: "iife",
    platform: "browser",
    target: "es2020",
    legalComments: "eof", // the bundled libraries' licence notes stay
    plugins: [flowchartOnly],
    logLevel: "warning",
  })
  .then(() => fs.copyFileSync(path.join(mermaid, "LICENSE"), path.join(root, "dist", "mermaid.LICENSE.txt"))) // MIT: ships with it
  .catch((error) => {
    console.error(`the mermaid build failed: ${error.message}`);
    process.exit(1);
  });
