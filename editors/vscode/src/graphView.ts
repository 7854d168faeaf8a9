// "lait: Show workflow graph": a webview beside the workflow with its `lait graph` (Mermaid,
// rendered by the bundled mermaid), refreshed when the file is saved; a click on a step's node
// reveals the step. The page and its messages are in graphPage.ts; this is the VS Code glue.

import { randomBytes } from "node:crypto";
import * as vscode from "vscode";

import { graphMessage, graphPage, isReveal, type GraphResult } from "./graphPage";
import type { Place } from "./runTree";

export const GRAPH = "lait/graph";

type Ask = (uri: string) => Promise<GraphResult>;

/** One panel per workflow file. */
const panels = new Map<string, GraphPanel>();

class GraphPanel {
  private result: GraphResult | undefined;
  private ready = false;

  constructor(
    readonly uri: vscode.Uri,
    readonly panel: vscode.WebviewPanel,
    private readonly ask: Ask,
    private readonly reveal: (place: Place) => Promise<void>,
  ) {
    panel.webview.onDidReceiveMessage((message: unknown) => {
      if (typeof message === "object" && message !== null && (message as { type?: unknown }).type === "ready") {
        this.ready = true;
        this.post();
      } else if (isReveal(message)) {
        const node = this.result?.nodes?.find((n) => n.id === message.id);
        if (node !== undefined) {
          void this.reveal({ uri: this.uri.toString(), line: node.range.start.line, character: node.range.start.character, endLine: node.range.end.line, endCharacter: node.range.end.character });
        }
      }
    });
  }

  async refresh(): Promise<void> {
    try {
      this.result = await this.ask(this.uri.toString());
    } catch (error) {
      this.result = { uri: this.uri.toString(), error: `lait: ${error instanceof Error ? error.message : String(error)}` };
    }
    this.post();
  }

  private post(): void {
    if (!this.ready || this.result === undefined) return;
    void this.panel.webview.postMessage(graphMessage(this.result, vscode.workspace.asRelativePath(this.uri)));
  }
}

export async function showGraph(extensionUri: vscode.Uri, uri: vscode.Uri, ask: Ask, reveal: (place: Place) => Promise<void>): Promise<void> {
  const key = uri.toString();
  const open = panels.get(key);
  if (open !== undefined) {
    open.panel.reveal(vscode.ViewColumn.Beside, true);
    await open.refresh();
    return;
  }
  const dist = vscode.Uri.joinPath(extensionUri, "dist");
  const name = vscode.workspace.asRelativePath(uri);
  const panel = vscode.window.createWebviewPanel("lait.graph", `Graph: ${name.split("/").pop() ?? name}`, { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, {
    enableScripts: true,
    localResourceRoots: [dist],
    retainContextWhenHidden: false,
  });
  const dark = vscode.window.activeColorTheme.kind === vscode.ColorThemeKind.Dark || vscode.window.activeColorTheme.kind === vscode.ColorThemeKind.HighContrast;
  const graph = new GraphPanel(uri, panel, ask, reveal);
  panels.set(key, graph);
  panel.onDidDispose(() => panels.delete(key));
  panel.webview.html = graphPage({
    nonce: randomBytes(16).toString("base64"),
    cspSource: panel.webview.cspSource,
    mermaidUri: panel.webview.asWebviewUri(vscode.Uri.joinPath(dist, "mermaid.min.js")).toString(),
    title: name,
    dark,
  });
  await graph.refresh();
}

/** A saved workflow refreshes its open graph. */
export function refreshOnSave(document: vscode.TextDocument): void {
  void panels.get(document.uri.toString())?.refresh();
}
