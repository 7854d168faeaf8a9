// The three server->client requests wired to their dialogs, one at a time. Shared by the
// extension (vscode-languageclient) and the end-to-end driver (a bare JSON-RPC connection).
// No `vscode` import.

import { approve, describeApproval } from "./approval";
import { ask } from "./ask";
import type { DialogQueue } from "./dialogQueue";
import { elicit } from "./elicitForm";
import type { RunLog } from "./events";
import {
  APPROVE_TOOL_CALL,
  ASK,
  ELICIT,
  RUN_EVENT,
  type ApproveParams,
  type ApproveResult,
  type AskParams,
  type ElicitParams,
  type RunEventParams,
} from "./protocol";
import type { CancelToken, Ui } from "./ui";

/** What both vscode-languageclient's LanguageClient and a vscode-jsonrpc connection offer. */
export interface Connection {
  onRequest(method: string, handler: (params: never, token: CancelToken) => unknown): unknown;
  onNotification(method: string, handler: (params: never) => void): unknown;
}

export function registerDialogs(
  connection: Connection,
  ui: Ui,
  queue: DialogQueue,
  log: RunLog,
  onEvent?: (params: RunEventParams) => void,
  onApproval?: (params: ApproveParams, answer: Promise<ApproveResult>) => void,
): void {
  connection.onRequest(APPROVE_TOOL_CALL, (params: ApproveParams, token: CancelToken) => {
    for (const line of describeApproval(params)) log.note(line);
    const answer = queue.enqueue(params.runId, (cancel) => approve(ui, params, cancel), { decision: "deny" as const }, token);
    onApproval?.(params, answer);
    return answer;
  });
  connection.onRequest(ELICIT, (params: ElicitParams, token: CancelToken) => {
    log.note(`MCP server '${params.server}' asks: ${params.message}`);
    return queue.enqueue(
      params.runId,
      (cancel) => elicit(ui, params, { cancel, log: (m) => log.note(m) }),
      { action: "cancel" as const },
      token,
    );
  });
  connection.onRequest(ASK, (params: AskParams, token: CancelToken) =>
    queue.enqueue(params.runId, (cancel) => ask(ui, params, cancel), null, token),
  );
  connection.onNotification(RUN_EVENT, (params: RunEventParams) => {
    log.event(params.runId, params.event);
    onEvent?.(params);
  });
}
