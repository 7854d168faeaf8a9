import assert from "node:assert/strict";
import { test } from "node:test";

import { graphMessage, graphPage, isReveal, nodeIdOf } from "../graphPage";

test("mermaid's node ids map back to lait graph's", () => {
  assert.equal(nodeIdOf("flowchart-n3-12"), "n3");
  assert.equal(nodeIdOf("lait-graph-2-flowchart-n_start-0"), "n_start");
  assert.equal(nodeIdOf("flowchart-n12-3"), "n12");
  assert.equal(nodeIdOf("c4"), undefined);
});

test("the graph message: the Mermaid text and the linked nodes, or the error", () => {
  const range = { start: { line: 2, character: 4 }, end: { line: 5, character: 0 } };
  assert.deepEqual(graphMessage({ uri: "file:///w.yml", title: "each", mermaid: "flowchart TD\n", nodes: [{ id: "n1", range }] }, "w.yml"), {
    type: "graph",
    title: "each",
    mermaid: "flowchart TD\n",
    links: ["n1"],
  });
  assert.deepEqual(graphMessage({ uri: "file:///w.yml", error: "lait: w.yml:3:5: LAIT301 x" }, "w.yml"), {
    type: "graph",
    title: "w.yml",
    links: [],
    error: "lait: w.yml:3:5: LAIT301 x",
  });
  assert.equal(graphMessage({ uri: "file:///w.yml" }, "w.yml").error, "lait: the server sent no graph");
  assert.ok(isReveal({ type: "reveal", id: "n1" }) && !isReveal({ type: "reveal" }) && !isReveal(null));
});

test("the page loads only the extension's mermaid, by nonce, and nothing from the network", () => {
  const page = graphPage({ nonce: "abc123", cspSource: "vscode-webview://x", mermaidUri: "vscode-webview://x/dist/mermaid.min.js", title: "<each>", dark: false });
  const csp = /Content-Security-Policy" content="([^"]*)"/.exec(page)?.[1] ?? "";
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'nonce-abc123'/);
  assert.doesNotMatch(page, /https?:\/\//);
  const scripts = page.match(/<script[^>]*>/g) ?? [];
  assert.equal(scripts.length, 2);
  assert.ok(scripts.every((s) => s.includes('nonce="abc123"')));
  assert.ok(page.includes('src="vscode-webview://x/dist/mermaid.min.js"'));
  assert.ok(page.includes("&#60;each&#62;") && !page.includes("<each>"));
  // The page's own copy of nodeIdOf is the tested one.
  assert.ok(page.includes(nodeIdOf.toString()));
});
