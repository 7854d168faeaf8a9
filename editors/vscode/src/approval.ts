// `lait/approveToolCall`: a quick pick "Allow once" / "Allow for this session" / "Deny" that shows
// the tool, its server, its arguments and, for shell tools, the exact argv. No `vscode` import.

import type { ApprovalDecision, ApproveParams, ApproveResult } from "./protocol";
import type { CancelToken, PickItem, Ui } from "./ui";

const SAFE = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** One argv element as a POSIX shell would need it typed. */
export function shellQuote(arg: string): string {
  if (arg !== "" && SAFE.test(arg)) {
    return arg;
  }
  return `'${arg.replace(/'/g, `'"'"'`)}'`;
}

export function argvText(argv: readonly string[]): string {
  return argv.map(shellQuote).join(" ");
}

/** The arguments as compact JSON (the model's text when it is not JSON). */
export function argumentsText(args: unknown, pretty = false): string {
  let value = args;
  if (typeof args === "string") {
    try {
      value = JSON.parse(args);
    } catch {
      return args;
    }
  }
  if (value === undefined) {
    return "{}";
  }
  return JSON.stringify(value, null, pretty ? 2 : undefined);
}

function clip(text: string, limit: number): string {
  const oneLine = text.replace(/\s*\n\s*/g, " ");
  return oneLine.length <= limit ? oneLine : `${oneLine.slice(0, limit - 1)}…`;
}

/** The full request as lines for the output channel (the quick pick has room for one line each). */
export function describeApproval(params: ApproveParams): string[] {
  const lines = [`approval needed: tool ${params.tool}${params.server ? ` (MCP server '${params.server}')` : ""}`];
  if (params.command) {
    lines.push(`    argv: ${argvText(params.command)}`);
  }
  lines.push(`    arguments: ${argumentsText(params.arguments)}`);
  return lines;
}

export interface ApprovalDialog {
  title: string;
  placeholder: string;
  items: PickItem<ApprovalDecision>[];
}

/** The quick pick for a request. */
export function approvalDialog(params: ApproveParams): ApprovalDialog {
  const where = params.server ? `MCP server '${params.server}'` : params.command ? "shell tool" : (params.kind ?? "tool");
  const what = params.command ? `runs: ${argvText(params.command)}` : `arguments: ${argumentsText(params.arguments)}`;
  const detail = clip(what, 400);
  return {
    title: `lait: allow ${params.tool}?`,
    placeholder: `${params.tool} · ${where} · ${clip(what, 160)}`,
    items: [
      { label: "Allow once", description: "run this call", detail, value: "once" },
      {
        label: "Allow for this session",
        description: `run ${params.tool} without asking until the server restarts`,
        value: "session",
      },
      { label: "Deny", description: "the model is told the call was denied", value: "deny" },
    ],
  };
}

/** Asks; Escape (or a cancelled run) is "deny". */
export async function approve(ui: Ui, params: ApproveParams, cancel?: CancelToken): Promise<ApproveResult> {
  const dialog = approvalDialog(params);
  const options: Parameters<Ui["pick"]>[1] = { title: dialog.title, placeholder: dialog.placeholder };
  if (cancel !== undefined) options.cancel = cancel;
  const decision = await ui.pick(dialog.items, options);
  if (decision === undefined || cancel?.isCancellationRequested === true) {
    return { decision: "deny" };
  }
  return { decision };
}
