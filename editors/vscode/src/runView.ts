// The run view's VS Code binding: a TreeDataProvider over runTree.ts (where all the logic is) and
// the commands of its items. Thin on purpose.

import * as vscode from "vscode";

import { RunTree, show, type Place, type RunNode, type TreeNode } from "./runTree";

export const VIEW_ID = "lait.runs";

export class RunView implements vscode.TreeDataProvider<TreeNode> {
  private readonly emitter = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  readonly tree: RunTree;
  private pending: NodeJS.Timeout | undefined;

  constructor() {
    // Events come in bursts (a streamed answer): one refresh per 100 ms is plenty.
    this.tree = new RunTree(() => {
      if (this.pending === undefined) {
        this.pending = setTimeout(() => {
          this.pending = undefined;
          this.emitter.fire(undefined);
        }, 100);
      }
    });
  }

  getChildren(node?: TreeNode): TreeNode[] {
    return node === undefined ? this.tree.runs : node.children;
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    const shown = show(node);
    // Nodes start expanded, so the steps show as they run; a stable id keeps what the person folded.
    const state = shown.expandable ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None;
    const item = new vscode.TreeItem(shown.label, state);
    // VS Code remembers an item's collapsible state by id: a step first shown without children
    // would stay collapsed once its children come. A new id when it gets some shows it expanded.
    item.id = shown.expandable ? `${node.key}+` : node.key;
    item.description = shown.description;
    item.tooltip = shown.tooltip;
    item.iconPath = new vscode.ThemeIcon(shown.icon, shown.color ? new vscode.ThemeColor(shown.color) : undefined);
    item.contextValue = shown.context;
    if (shown.place !== undefined) {
      item.command = { command: "lait.runs.reveal", title: "Reveal step", arguments: [shown.place] };
    }
    return item;
  }

  dispose(): void {
    if (this.pending !== undefined) clearTimeout(this.pending);
    this.emitter.dispose();
  }
}

/** Opens the step's file with the step's first line selected: in the editor that already shows the
 * file, else in the first column (never in the graph's column beside it). */
export async function reveal(place: Place): Promise<void> {
  const start = new vscode.Position(place.line, place.character);
  const document = await vscode.workspace.openTextDocument(vscode.Uri.parse(place.uri));
  const shown = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === document.uri.toString());
  const editor = await vscode.window.showTextDocument(document, {
    viewColumn: shown?.viewColumn ?? vscode.ViewColumn.One,
    preserveFocus: false,
    preview: false,
  });
  const end = document.lineAt(Math.min(place.line, document.lineCount - 1)).range.end;
  editor.selection = new vscode.Selection(start, end);
  editor.revealRange(new vscode.Range(start, end), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}

/** "Open output": the run's progress lines and result in a read-only-ish untitled document. */
export async function openOutput(tree: RunTree, run: RunNode): Promise<void> {
  const document = await vscode.workspace.openTextDocument({ content: tree.outputText(run), language: "log" });
  await vscode.window.showTextDocument(document, { preview: true });
}

/** "Open run trace": a JSONL trace file shown as a run of the view. */
export async function openTrace(tree: RunTree, uri?: vscode.Uri): Promise<RunNode | undefined> {
  let file = uri;
  if (file === undefined) {
    const picked = await vscode.window.showOpenDialog({
      canSelectMany: false,
      openLabel: "Show in the run view",
      filters: { "lait trace": ["jsonl"], "all files": ["*"] },
      title: "lait: open a run trace (--trace-file)",
    });
    file = picked?.[0];
  }
  if (file === undefined) return undefined;
  const stat = await vscode.workspace.fs.stat(file);
  const limit = 64 * 1024 * 1024;
  if (stat.size > limit) {
    void vscode.window.showErrorMessage(`lait: ${file.fsPath} is larger than 64 MiB; not opened`);
    return undefined;
  }
  const text = new TextDecoder("utf-8").decode(await vscode.workspace.fs.readFile(file));
  return tree.addTrace(file.fsPath, vscode.workspace.asRelativePath(file), text);
}
