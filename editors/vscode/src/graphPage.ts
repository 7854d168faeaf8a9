// The workflow graph webview's page: HTML with a strict CSP (only the extension's own scripts, by
// nonce; no network), mermaid's bundled browser build, and a small script that renders the
// `lait/graph` Mermaid text and turns each node that stands for a step into a link back to the
// editor. No `vscode` import: graphView.ts creates the panel and answers the page's messages.

/** `lait/graph`'s answer (PROTOCOL.md section 7). */
export interface GraphResult {
  uri: string;
  title?: string;
  mermaid?: string;
  nodes?: { id: string; range: { start: { line: number; character: number }; end: { line: number; character: number } } }[];
  error?: string;
}

/** What the page shows: the graph (or the error) and which nodes are links. */
export interface GraphMessage {
  type: "graph";
  title: string;
  mermaid?: string;
  links: string[];
  error?: string;
}

/** The message the page sends when a linked node is clicked. */
export interface RevealMessage {
  type: "reveal";
  id: string;
}

export function graphMessage(result: GraphResult, fallbackTitle: string): GraphMessage {
  const message: GraphMessage = { type: "graph", title: result.title ?? fallbackTitle, links: (result.nodes ?? []).map((n) => n.id) };
  if (result.error !== undefined) message.error = result.error;
  else if (typeof result.mermaid === "string") message.mermaid = result.mermaid;
  else message.error = "lait: the server sent no graph";
  return message;
}

export function isReveal(value: unknown): value is RevealMessage {
  return typeof value === "object" && value !== null && (value as RevealMessage).type === "reveal" && typeof (value as RevealMessage).id === "string";
}

/** Mermaid's SVG ids for flowchart nodes look like `flowchart-n3-12` (or `<svg id>-flowchart-n3-12`). */
export function nodeIdOf(svgId: string): string | undefined {
  const found = /(?:^|-)flowchart-(.+)-\d+$/.exec(svgId);
  return found?.[1];
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page. `mermaidUri` is the webview URI of dist/mermaid.min.js; `cspSource` the webview's. */
export function graphPage(options: { nonce: string; cspSource: string; mermaidUri: string; title: string; dark: boolean }): string {
  const { nonce, cspSource, mermaidUri, title, dark } = options;
  const csp = [
    "default-src 'none'",
    `img-src ${cspSource} data:`,
    `style-src ${cspSource} 'unsafe-inline'`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join("; ");
  // nodeIdOf, as the page's own function (kept in one place: its source is inlined).
  const nodeId = nodeIdOf.toString();
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<title>${escapeHtml(title)}</title>
<style>
  body { font-family: var(--vscode-font-family); color: var(--vscode-foreground); padding: 8px 16px; }
  #status { color: var(--vscode-descriptionForeground); margin-bottom: 8px; }
  #error { color: var(--vscode-errorForeground); white-space: pre-wrap; font-family: var(--vscode-editor-font-family); }
  #graph svg { max-width: 100%; height: auto; }
  #graph g.node.lait-link { cursor: pointer; }
  #graph g.node.lait-link:hover rect, #graph g.node.lait-link:hover polygon { stroke-width: 3px; }
</style>
</head>
<body>
<div id="status">${escapeHtml(title)}</div>
<div id="error"></div>
<div id="graph"></div>
<script nonce="${nonce}" src="${mermaidUri}"></script>
<script nonce="${nonce}">
(function () {
  const vscode = acquireVsCodeApi();
  const nodeIdOf = ${nodeId};
  mermaid.initialize({ startOnLoad: false, securityLevel: "strict", theme: ${dark ? '"dark"' : '"default"'} });
  let rendering = 0;
  async function show(message) {
    const id = ++rendering;
    document.getElementById("status").textContent = message.title;
    const error = document.getElementById("error");
    const graph = document.getElementById("graph");
    if (message.error !== undefined) {
      error.textContent = message.error;
      graph.setAttribute("data-state", "error");
      return;
    }
    try {
      const { svg } = await mermaid.render("lait-graph-" + id, message.mermaid);
      if (id !== rendering) return;
      error.textContent = "";
      graph.innerHTML = svg;
      const links = new Set(message.links);
      for (const node of graph.querySelectorAll("g.node")) {
        const nodeId = nodeIdOf(node.id);
        if (nodeId === undefined || !links.has(nodeId)) continue;
        node.classList.add("lait-link");
        node.setAttribute("data-lait-node", nodeId);
        node.addEventListener("click", () => vscode.postMessage({ type: "reveal", id: nodeId }));
      }
      graph.setAttribute("data-state", "shown");
    } catch (e) {
      error.textContent = "lait: the graph did not render: " + (e && e.message ? e.message : String(e));
      graph.setAttribute("data-state", "error");
    }
  }
  window.addEventListener("message", (event) => { if (event.data && event.data.type === "graph") show(event.data); });
  vscode.postMessage({ type: "ready" });
})();
</script>
</body>
</html>`;
}
