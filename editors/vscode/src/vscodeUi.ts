// The Ui of the dialog modules, made of VS Code quick picks and input boxes.

import * as vscode from "vscode";
import type { CancelToken, InputOptions, PickItem, PickOptions, Ui } from "./ui";

interface Item<T> extends vscode.QuickPickItem {
  value: T;
}

function toItems<T>(items: readonly PickItem<T>[]): Item<T>[] {
  return items.map((item) => {
    const q: Item<T> = { label: item.label, value: item.value };
    if (item.description !== undefined) q.description = item.description;
    if (item.detail !== undefined) q.detail = item.detail;
    if (item.picked !== undefined) q.picked = item.picked;
    return q;
  });
}

function token(cancel: CancelToken | undefined): vscode.CancellationToken | undefined {
  // vscode.CancellationToken has the same shape; the dialog closes when it fires.
  return cancel as vscode.CancellationToken | undefined;
}

export const vscodeUi: Ui = {
  async pick<T>(items: readonly PickItem<T>[], options: PickOptions): Promise<T | undefined> {
    const quickPickOptions: vscode.QuickPickOptions = { ignoreFocusOut: true, matchOnDetail: true };
    if (options.title !== undefined) quickPickOptions.title = options.title;
    if (options.placeholder !== undefined) quickPickOptions.placeHolder = options.placeholder;
    const picked = await vscode.window.showQuickPick(toItems(items), quickPickOptions, token(options.cancel));
    return picked?.value;
  },

  async pickMany<T>(items: readonly PickItem<T>[], options: PickOptions): Promise<T[] | undefined> {
    const quickPickOptions: vscode.QuickPickOptions & { canPickMany: true } = { ignoreFocusOut: true, canPickMany: true };
    if (options.title !== undefined) quickPickOptions.title = options.title;
    if (options.placeholder !== undefined) quickPickOptions.placeHolder = options.placeholder;
    const picked = await vscode.window.showQuickPick(toItems(items), quickPickOptions, token(options.cancel));
    return picked?.map((item) => item.value);
  },

  async input(options: InputOptions): Promise<string | undefined> {
    const boxOptions: vscode.InputBoxOptions = { ignoreFocusOut: true };
    if (options.title !== undefined) boxOptions.title = options.title;
    if (options.prompt !== undefined) boxOptions.prompt = options.prompt;
    if (options.placeholder !== undefined) boxOptions.placeHolder = options.placeholder;
    if (options.value !== undefined) boxOptions.value = options.value;
    const validate = options.validate;
    if (validate !== undefined) boxOptions.validateInput = (text) => validate(text) ?? null;
    return vscode.window.showInputBox(boxOptions, token(options.cancel));
  },

  async openExternal(url: string): Promise<boolean> {
    return vscode.env.openExternal(vscode.Uri.parse(url, true));
  },
};
