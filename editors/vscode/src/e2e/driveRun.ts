// End-to-end driver: the extension's own dialog and run modules against a real lait-ls, over a
// bare JSON-RPC connection (vscode-languageclient needs a running VS Code). The person is a script
// of answers; tests/editors/test_vscode.py builds the project and checks what came out.
//
//   node out/e2e/driveRun.js spec.json
//
// spec: {server: string[], rootUri, fileUri, lens: "lait.runWorkflow"|"lait.runAgent"|"lait.dryRun",
//        answers: Array<string | string[] | "<ESC>" | "<HANG>">, out: path}
// A "<HANG>" dialog stays open; the driver then cancels the run, as the progress notification's
// Cancel button does, and records whether the dialog was dismissed and how the request ended.

import { spawn } from "node:child_process";
import * as fs from "node:fs";
import {
  CancellationTokenSource,
  createProtocolConnection,
  ResponseError,
  StreamMessageReader,
  StreamMessageWriter,
  type CodeLens,
} from "vscode-languageserver-protocol/node";

import { DialogQueue } from "../dialogQueue";
import { registerDialogs, type Connection } from "../dialogs";
import { RunLog } from "../events";
import { CLIENT_CAPABILITY, RUN, STATUS, type RunEventParams, type RunResult, type RunTarget, type StatusResult } from "../protocol";
import { collectRun } from "../runForm";
import { ESC, HANG, ScriptedUi, type Scripted } from "../test/scriptedUi";

interface Spec {
  server: string[];
  rootUri: string;
  fileUri: string;
  lens: string;
  answers: Array<string | string[]>;
  out: string;
}

async function main(): Promise<void> {
  const specPath = process.argv[2];
  if (specPath === undefined) throw new Error("usage: driveRun.js SPEC.json");
  const spec = JSON.parse(fs.readFileSync(specPath, "utf8")) as Spec;
  const [command, ...args] = spec.server;
  if (command === undefined) throw new Error("spec.server is empty");
  const child = spawn(command, args, { stdio: ["pipe", "pipe", "inherit"] });
  const conn = createProtocolConnection(new StreamMessageReader(child.stdout), new StreamMessageWriter(child.stdin));

  const answers: Scripted[] = spec.answers.map((a) => (a === "<ESC>" ? ESC : a === "<HANG>" ? HANG : a));
  const ui = new ScriptedUi(answers);
  const queue = new DialogQueue();
  const runCancel = new CancellationTokenSource();
  let text = "";
  const log = new RunLog((t) => (text += t));
  const events: RunEventParams[] = [];
  const connection: Connection = {
    onRequest: (method, handler) => conn.onRequest(method, (params: unknown, token) => handler(params as never, token)),
    onNotification: (method, handler) => conn.onNotification(method, (params: unknown) => handler(params as never)),
  };
  registerDialogs(connection, ui, queue, log, (params) => events.push(params));
  conn.listen();

  const init = (await conn.sendRequest("initialize", {
    processId: process.pid,
    rootUri: spec.rootUri,
    capabilities: { experimental: { lait: CLIENT_CAPABILITY }, window: { workDoneProgress: true } },
    initializationOptions: { approveTools: "always" },
  })) as { serverInfo?: { name: string; version?: string } };
  await conn.sendNotification("initialized", {});
  const status = (await conn.sendRequest(STATUS, { uri: spec.fileUri })) as StatusResult;
  const statusAfter = async (): Promise<StatusResult> => (await conn.sendRequest(STATUS, { uri: spec.fileUri })) as StatusResult;
  const content = fs.readFileSync(new URL(spec.fileUri), "utf8");
  const languageId = spec.fileUri.endsWith(".md") ? "markdown" : "yaml";
  await conn.sendNotification("textDocument/didOpen", { textDocument: { uri: spec.fileUri, languageId, version: 1, text: content } });
  const lenses = ((await conn.sendRequest("textDocument/codeLens", { textDocument: { uri: spec.fileUri } })) ?? []) as CodeLens[];
  const lens = lenses.find((l) => l.command?.command === spec.lens);
  const target = lens?.command?.arguments?.[0] as RunTarget | undefined;

  let result: RunResult | { error: string } | { cancelled: true } | { errorCode: number; message: string } | undefined;
  if (target === undefined) {
    result = { error: `no ${spec.lens} lens in ${JSON.stringify(lenses.map((l) => l.command?.command))}` };
  } else {
    const request = await collectRun(ui, target, spec.lens === "lait.dryRun");
    if ("params" in request) {
      const runId = "e2e-1";
      request.params.runId = runId;
      // What the extension does when the progress notification is cancelled.
      ui.onHang = () => {
        runCancel.cancel();
        queue.endRun(runId);
      };
      try {
        result = (await conn.sendRequest(RUN, request.params, runCancel.token)) as RunResult;
        log.finished(result);
      } catch (error) {
        if (!(error instanceof ResponseError)) throw error;
        result = { errorCode: error.code, message: error.message };
        log.finished({ runId, status: "cancelled", output: "" });
      }
    } else {
      result = request;
    }
  }
  fs.writeFileSync(
    spec.out,
    JSON.stringify(
      {
        serverInfo: init.serverInfo ?? null,
        status,
        target: target ?? null,
        result,
        output: text,
        calls: ui.calls,
        unusedAnswers: ui.remaining,
        eventTypes: events.map((e) => e.event.type),
        pendingDialogs: queue.pending,
        statusAfter: await statusAfter(),
      },
      null,
      2,
    ),
  );
  await conn.sendRequest("shutdown");
  await conn.sendNotification("exit");
  conn.dispose();
  await new Promise<void>((resolve) => {
    if (child.exitCode !== null) resolve();
    child.on("exit", () => resolve());
    setTimeout(() => {
      child.kill();
      resolve();
    }, 5000).unref();
  });
}

main().catch((error: unknown) => {
  process.stderr.write(`driveRun: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
