// The VS Code glue: starts lait-ls, declares `experimental.lait`, answers the three dialog
// requests, runs workflows/agents from the lenses, and shows progress, output and status.
// Everything that decides *what* to ask or print lives in the vscode-free modules.

import { execFile, spawn, type ChildProcess } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as vscode from "vscode";
import {
  CloseAction,
  ErrorAction,
  LanguageClient,
  RevealOutputChannelOn,
  State,
  WorkDoneProgress,
  type ClientCapabilities,
  type LanguageClientOptions,
  type ServerOptions,
  type StaticFeature,
} from "vscode-languageclient/node";

import { DialogQueue } from "./dialogQueue";
import { registerDialogs, type Connection } from "./dialogs";
import { RunLog } from "./events";
import {
  CLIENT_CAPABILITY,
  RUN,
  STATUS,
  type RunParams,
  type RunResult,
  type RunKind,
  type RunTarget,
  type StatusResult,
} from "./protocol";
import { GRAPH, refreshOnSave, showGraph } from "./graphView";
import type { GraphResult } from "./graphPage";
import { collectRun, targetForFile } from "./runForm";
import { runNotice } from "./runNotice";
import type { RunNode } from "./runTree";
import { openOutput, openTrace, reveal, RunView, VIEW_ID } from "./runView";
import { ACTION_TITLES, CrashPolicy, healthView, menuItems, startFailure, StderrTail, type Health, type MenuAction } from "./health";
import { enableSetting, isLaitFile, shouldStart } from "./laitFiles";
import { findServer, type ServerSearch } from "./serverPath";
import { vscodeUi } from "./vscodeUi";

/** Why runs are off in Restricted Mode (the warning and the status bar tooltip). */
const RESTRICTED_RUNS =
  "running workflows and agents is disabled in Restricted Mode: a run starts the workspace's tools, MCP servers and run: steps. Trust the workspace to run them (a dry run works).";

/** How long a cancelled run may take to confirm before the extension stops waiting. */
const CANCEL_GRACE_MS = 10_000;

let client: LanguageClient | undefined;
let output: vscode.OutputChannel;
let log: RunLog;
let statusItem: vscode.StatusBarItem;
const dialogs = new DialogQueue();
const progressOf = new Map<string, vscode.Progress<{ message?: string }>>();
let runCounter = 0;
let runView: RunView;

/** The language client, whose own notifications ("couldn't create connection", "Pending response
 * rejected", "crashed 5 times") are left out: the status item and one message of the extension's
 * say what happened, with lait-ls's stderr; the client's words still go to the output channel. */
class QuietClient extends LanguageClient {
  override error(message: string, data?: unknown): void {
    super.error(message, data, false);
  }
}

class LaitCapability implements StaticFeature {
  fillClientCapabilities(capabilities: ClientCapabilities): void {
    capabilities.experimental = { ...(capabilities.experimental as object | undefined), lait: CLIENT_CAPABILITY };
  }
  initialize(): void {}
  getState(): { kind: "static" } {
    return { kind: "static" };
  }
  clear(): void {}
}

function folders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The interpreter the Python extension uses for the first folder, when it is installed. */
async function pythonInterpreter(): Promise<string | undefined> {
  try {
    const python = vscode.extensions.getExtension("ms-python.python");
    if (python !== undefined) {
      const api = (python.isActive ? python.exports : await python.activate()) as {
        environments?: { getActiveEnvironmentPath(resource?: vscode.Uri): { path: string } };
      };
      const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
      const found = api.environments?.getActiveEnvironmentPath(folder)?.path;
      if (found) return found;
    }
  } catch {
    // The Python extension is optional.
  }
  const setting = vscode.workspace.getConfiguration("python").get<string>("defaultInterpreterPath");
  return setting && setting.includes("/") ? setting : undefined;
}

/** Whether the Problems panel lists every lait file of the workspace (pull diagnostics, see PROTOCOL.md). */
function workspaceDiagnostics(): boolean {
  return vscode.workspace.getConfiguration("lait").get<boolean>("diagnostics.workspace") ?? true;
}

/** The server's settings (initializationOptions; later changes arrive as workspace/didChangeConfiguration). */
function laitSettings(): {
  approveTools: string;
  debounce: number;
  inlayHints: Record<string, boolean>;
  diagnostics: "pull" | "push";
} {
  const config = vscode.workspace.getConfiguration("lait");
  const inlayHints: Record<string, boolean> = {};
  for (const kind of ["modelAlias", "outputType", "forEachItem", "shellArgv"]) {
    inlayHints[kind] = config.get<boolean>(`inlayHints.${kind}`) ?? false;
  }
  return {
    approveTools: config.get<string>("approveTools") ?? "always",
    debounce: config.get<number>("debounce") ?? 150,
    inlayHints,
    // "pull": the server announces textDocument/diagnostic and workspace/diagnostic and publishes
    // nothing; vscode-languageclient then pulls open documents on change and the whole workspace
    // in a loop (the server answers a repeated workspace pull cheaply while nothing changed).
    diagnostics: workspaceDiagnostics() ? "pull" : "push",
  };
}

/** PATH as the user's login shell sets it: VS Code may start the extension host with another one
 * (code-server, a desktop launcher). Empty when it cannot be read within a few seconds. */
function loginShellPath(): Promise<string> {
  const shell = process.env["SHELL"];
  if (process.platform === "win32" || !shell) return Promise.resolve("");
  const mark = "__lait_path__";
  return new Promise((resolve) => {
    execFile(
      shell,
      ["-ilc", `printf '${mark}%s${mark}' "$PATH"`],
      { cwd: os.homedir(), timeout: 5000, encoding: "utf8", env: { ...process.env, LAIT_LS_PATH_PROBE: "1" } },
      (_error, stdout) => {
        const found = new RegExp(`${mark}(.*)${mark}`).exec(stdout ?? "");
        resolve(found?.[1] ?? "");
      },
    ).stdin?.end();
  });
}

/** The language server's state as the status bar item shows it (health.ts). */
let health: Health = { state: "starting" };
/** Crashes of a server that was running: restarted a few times, then given up on. */
const crashes = new CrashPolicy();
/** The lait-ls process of the current client: its stderr tail, how it ended, when it closed. */
let serverProcess: { tail: StderrTail; exit?: { code: number | null; signal: string | null }; closed: Promise<void>; reported: boolean } | undefined;
/** Set while the extension itself stops the client (restart, lait.enable: never, deactivate). */
let stopping = false;

function setHealth(next: Health): void {
  health = next;
  const view = healthView(health, folders(), vscode.workspace.isTrusted ? undefined : RESTRICTED_RUNS);
  statusItem.text = view.text;
  statusItem.tooltip = view.tooltip;
  statusItem.backgroundColor =
    view.tone === "error"
      ? new vscode.ThemeColor("statusBarItem.errorBackground")
      : view.tone === "warning"
        ? new vscode.ThemeColor("statusBarItem.warningBackground")
        : undefined;
  statusItem.show();
}

/** The status item's menu: Restart, Show output, Open settings (and Trust in Restricted Mode). */
async function statusMenu(): Promise<void> {
  const items = menuItems(vscode.workspace.isTrusted);
  const view = healthView(health, folders(), vscode.workspace.isTrusted ? undefined : RESTRICTED_RUNS);
  const chosen = await vscode.window.showQuickPick(items, { title: `lait: ${view.tooltip.split("\n")[0]}`, placeHolder: "lait-ls" });
  if (chosen !== undefined) await runAction(chosen.action);
}

async function runAction(action: MenuAction): Promise<void> {
  switch (action) {
    case "restart":
    case "retry":
      await vscode.commands.executeCommand("lait.restartServer");
      break;
    case "output":
      output.show();
      break;
    case "settings":
      await vscode.commands.executeCommand("workbench.action.openSettings", "lait.");
      break;
    case "trust":
      await vscode.commands.executeCommand("workbench.trust.manage");
      break;
  }
}

/** One notification with the actions that can fix it (a warning: the status item stays the truth). */
function notify(message: string, actions: MenuAction[]): void {
  const titles = actions.map((a) => ACTION_TITLES[a]);
  void vscode.window.showWarningMessage(`lait: ${message}`, ...titles).then((choice) => {
    const action = actions.find((a) => ACTION_TITLES[a] === choice);
    if (action !== undefined) void runAction(action);
  });
}

function trustAction(): MenuAction[] {
  return vscode.workspace.isTrusted ? [] : ["trust"];
}

/** A start that failed: the process's own words (its stderr) in the status item and one message. */
async function reportStartFailure(command: string, error?: string): Promise<void> {
  const proc = serverProcess;
  if (proc !== undefined) {
    if (proc.reported) return;
    proc.reported = true;
    // stderr may still be arriving when the connection closes: wait for the process to end.
    await Promise.race([proc.closed, new Promise((resolve) => setTimeout(resolve, 2000))]);
  }
  const message = startFailure(command, proc?.exit, proc?.tail ?? new StderrTail(), error);
  output.appendLine(`lait: ${message}`);
  setHealth({ state: "stopped", reason: message });
  notify(message, ["output", "settings", "restart", ...trustAction()]);
}

function spawnServer(command: string, args: string[], cwd: string | undefined): Promise<ChildProcess> {
  return new Promise((resolve, reject) => {
    const tail = new StderrTail();
    let closed = (): void => undefined;
    const proc: NonNullable<typeof serverProcess> = { tail, closed: new Promise<void>((resolve) => (closed = resolve)), reported: false };
    serverProcess = proc;
    const child = spawn(command, args, { cwd, env: process.env, stdio: "pipe" });
    child.stderr.setEncoding("utf8");
    // The language client copies stderr into the same output channel; the tail is for messages.
    child.stderr.on("data", (chunk: string) => tail.push(chunk));
    child.on("exit", (code, signal) => (proc.exit = { code, signal }));
    child.on("close", () => closed());
    child.once("spawn", () => resolve(child));
    child.once("error", (error) => {
      closed();
      reject(error);
    });
  });
}

/** The settings lait-ls is started with, as one string; and the value the current start used. */
function serverSettings(): string {
  const config = vscode.workspace.getConfiguration("lait");
  return JSON.stringify([config.get("server.path"), config.get("server.args"), config.get("diagnostics.workspace"), vscode.workspace.isTrusted]);
}
let startedWith = "";

async function startClient(context: vscode.ExtensionContext): Promise<void> {
  setHealth({ state: "starting" });
  startedWith = serverSettings();
  const config = vscode.workspace.getConfiguration("lait");
  const trusted = vscode.workspace.isTrusted;
  const search: ServerSearch = {
    // In Restricted Mode `lait.server.path` is a restricted configuration: VS Code gives the user's value only.
    configured: config.get<string>("server.path") ?? "",
    workspaceFolders: folders(),
    // In Restricted Mode the Python extension's interpreter may be a workspace venv: not asked.
    pythonInterpreter: trusted ? await pythonInterpreter() : undefined,
    env: process.env,
    platform: process.platform,
    home: os.homedir(),
    isExecutable,
    trusted,
  };
  let found = findServer(search);
  if ("error" in found && search.configured.trim() === "") {
    found = findServer({ ...search, loginPath: await loginShellPath() });
  }
  if ("error" in found) {
    output.appendLine(`lait: ${found.error}`);
    for (const file of found.tried) output.appendLine(`    tried ${file}`);
    setHealth({ state: "notFound", reason: found.error });
    notify(found.error, ["settings", "retry", ...trustAction()]);
    return;
  }
  const command = found.command;
  output.appendLine(`lait: starting ${command} (from ${found.source})`);
  // Runs started from the editor use the server's working directory for shell tools, `run:` steps
  // and `write:` paths, as `lait run` uses the shell's: start it in the (first) workspace folder.
  // In Restricted Mode (no runs) it starts in the home folder, so nothing resolves from the workspace.
  const cwd = trusted ? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath : os.homedir();
  const args = config.get<string[]>("server.args") ?? [];
  // The extension spawns lait-ls itself, so that its stderr is at hand for the messages.
  const serverOptions: ServerOptions = () => spawnServer(command, args, cwd);
  let c: LanguageClient;
  const clientOptions: LanguageClientOptions = {
    documentSelector: [
      { scheme: "file", language: "yaml" },
      { scheme: "file", language: "markdown" },
    ],
    // `trusted` from the editor, never from settings (a workspace can write those): lait-ls
    // refuses every run but a dry run when it is false.
    initializationOptions: { ...laitSettings(), trusted: vscode.workspace.isTrusted },
    middleware: {
      // Restricted Mode: no Run lenses that could only say "disabled"; Dry run works there.
      provideCodeLenses: async (document, token, next) => {
        const lenses = await next(document, token);
        if (vscode.workspace.isTrusted || !lenses) return lenses;
        return lenses.filter((lens) => !RUN_COMMANDS.has(lens.command?.command ?? ""));
      },
    },
    // Pull mode only (lait.diagnostics.workspace): pull an open document again on every change and
    // on save; closed files come from the workspace pull.
    diagnosticPullOptions: { onChange: true, onSave: true },
    synchronize: { configurationSection: "lait" },
    // One output channel: the run log, the client's messages and lait-ls's stderr.
    outputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationFailedHandler: () => false,
    errorHandler: {
      error: (_error, _message, count) => ({ action: (count ?? 0) < 3 ? ErrorAction.Continue : ErrorAction.Shutdown, handled: true }),
      closed: async () => {
        if (stopping) return { action: CloseAction.DoNotRestart, handled: true };
        const wasRunning = c.state === State.Running;
        if (!wasRunning) {
          await reportStartFailure(command);
          return { action: CloseAction.DoNotRestart, handled: true };
        }
        const proc = serverProcess;
        await Promise.race([proc?.closed, new Promise((resolve) => setTimeout(resolve, 1000))]);
        const how = proc?.exit?.signal ? `killed by ${proc.exit.signal}` : `exit status ${proc?.exit?.code ?? "unknown"}`;
        const cause = proc?.tail.cause();
        const said = cause === undefined ? "" : `: ${cause}`;
        output.appendLine(`lait: lait-ls ended (${how})${said}`);
        if (crashes.crashed(Date.now())) {
          // A new client rather than the language client's own restart: one start path, whose
          // failure is reported like any other.
          setHealth({ state: "starting", why: `restarting after it ended (${how})` });
          setTimeout(() => {
            if (client !== c) return;
            client = undefined;
            void startClient(context);
          }, 0);
          return { action: CloseAction.DoNotRestart, handled: true };
        }
        const reason = `it ended ${crashes.count()} times in 3 minutes (last: ${how}${said}) and is not restarted`;
        setHealth({ state: "stopped", reason });
        notify(`lait-ls stopped: ${reason}.`, ["restart", "output"]);
        return { action: CloseAction.DoNotRestart, handled: true };
      },
    },
  };
  c = new QuietClient("lait", "lait-ls", serverOptions, clientOptions);
  c.registerFeature(new LaitCapability());
  const connection: Connection = {
    onRequest: (method, handler) => c.onRequest(method, (params: unknown, token) => handler(params as never, token)),
    onNotification: (method, handler) => c.onNotification(method, (params: unknown) => handler(params as never)),
  };
  registerDialogs(
    connection,
    vscodeUi,
    dialogs,
    log,
    (params) => {
      runView.tree.event(params.runId, params.event);
      const progress = progressOf.get(params.runId);
      if (progress !== undefined && params.event.type === "stepStarted") {
        progress.report({ message: String(params.event["label"] ?? "") });
      }
    },
    (params, answer) => runView.tree.approval(params, answer),
  );
  client = c;
  context.subscriptions.push(c);
  try {
    await c.start();
  } catch (error) {
    if (client !== c || stopping) return;
    await reportStartFailure(command, error instanceof Error ? error.message : String(error));
    return;
  }
  await refreshStatus();
}

async function refreshStatus(): Promise<void> {
  const c = client;
  if (c === undefined || !c.isRunning()) return;
  const version = c.initializeResult?.serverInfo?.version;
  const editor = vscode.window.activeTextEditor;
  let status: StatusResult | undefined;
  try {
    const params = editor?.document.uri.scheme === "file" ? { uri: editor.document.uri.toString() } : {};
    status = await c.sendRequest<StatusResult>(STATUS, params);
  } catch {
    status = undefined; // an older server without lait/status: the version alone
  }
  if (client !== c || !c.isRunning()) return; // stopped or replaced meanwhile: not this one's state
  setHealth({ state: "ready", version, status: status ?? undefined });
}

function activeTarget(kind: RunKind | undefined): RunTarget | undefined {
  const document = vscode.window.activeTextEditor?.document;
  if (document === undefined || document.uri.scheme !== "file") {
    void vscode.window.showErrorMessage("lait: open a workflow or agent file to run it");
    return undefined;
  }
  const target = targetForFile(document.uri.toString(), document.languageId);
  if (kind !== undefined) target.kind = kind;
  return target;
}

function isTarget(value: unknown): value is RunTarget {
  return typeof value === "object" && value !== null && typeof (value as RunTarget).uri === "string";
}

/** The lens commands that start something (a dry run starts nothing). */
const RUN_COMMANDS = new Set(["lait.runWorkflow", "lait.runAgent", "lait.runTest", "lait.runEval"]);

async function run(arg: unknown, kind: RunKind | undefined, dryRun: boolean): Promise<void> {
  if (!vscode.workspace.isTrusted && !dryRun) {
    void vscode.window.showWarningMessage(`lait: ${RESTRICTED_RUNS}`, "Manage Workspace Trust").then((choice) => {
      if (choice) void vscode.commands.executeCommand("workbench.trust.manage");
    });
    return;
  }
  const c = client;
  if (c === undefined || !c.isRunning()) {
    void vscode.window.showErrorMessage("lait: the language server is not running (see the lait output)");
    return;
  }
  const target = isTarget(arg) ? arg : activeTarget(kind);
  if (target === undefined) return;
  const request = await collectRun(vscodeUi, target, dryRun);
  if ("cancelled" in request) return;
  if ("error" in request) {
    void vscode.window.showErrorMessage(`lait: ${request.error}`);
    return;
  }
  const name = target.name ?? vscode.workspace.asRelativePath(vscode.Uri.parse(target.uri));
  await execute(c, request.params, name, dryRun);
}

/** Sends `lait/run` and follows it: output channel, progress notification, run view. */
async function execute(c: LanguageClient, params: RunParams, name: string, dryRun: boolean): Promise<void> {
  runCounter += 1;
  const runId = `vscode-${Date.now().toString(36)}-${runCounter}`;
  params.runId = runId;
  params.workDoneToken = `lait-run/${runId}`;
  runView.tree.start(runId, name, params);
  output.show(true);
  log.note(`--- ${dryRun ? "dry run" : "run"} ${name} (${new Date().toLocaleTimeString()})`);
  /** The run's end: the output channel, the Runs view and one notification with "Open run". */
  const ended = (result: RunResult): void => {
    log.finished(result);
    runView.tree.finish(result);
    const node = runView.tree.run(runId);
    const notice = runNotice(name, dryRun, result.status, node?.seconds, result.error);
    const show = notice.severity === "error" ? vscode.window.showErrorMessage : vscode.window.showInformationMessage;
    void show(notice.message, "Open run").then(async (choice) => {
      if (choice === undefined || node === undefined) return;
      await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
      await openOutput(runView.tree, node);
    });
  };
  await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `lait: ${dryRun ? "dry run" : "running"} ${name}`, cancellable: true },
    async (progress, token) => {
      progressOf.set(runId, progress);
      const progressSub = c.onProgress(WorkDoneProgress.type, params.workDoneToken ?? "", (value) => {
        if (value.kind !== "end" && value.message) progress.report({ message: value.message });
      });
      const cancelSub = token.onCancellationRequested(() => dialogs.endRun(runId));
      // A cancelled run whose server never confirms must not keep the notification forever.
      const gaveUp = new Promise<"gave-up">((resolve) => {
        token.onCancellationRequested(() => setTimeout(() => resolve("gave-up"), CANCEL_GRACE_MS));
      });
      try {
        const result = await Promise.race([c.sendRequest<RunResult | null>(RUN, params, token), gaveUp]);
        if (result === "gave-up" || result === null || result === undefined) {
          ended({ runId, status: "cancelled", output: "" });
        } else {
          ended({ ...result, runId });
        }
      } catch (error) {
        if (token.isCancellationRequested) {
          ended({ runId, status: "cancelled", output: "" });
        } else {
          const message = error instanceof Error ? error.message : String(error);
          ended({ runId, status: "failed", output: "", error: `lait: ${message}` });
        }
      } finally {
        progressSub.dispose();
        cancelSub.dispose();
        progressOf.delete(runId);
        dialogs.endRun(runId);
      }
    },
  );
}

/** "Run again": the same request (prompt, inputs) as the run shown, without asking again. */
async function runAgain(node: RunNode | undefined): Promise<void> {
  if (node?.params === undefined) return;
  if (!vscode.workspace.isTrusted && !node.dryRun) return run(undefined, undefined, false);
  const c = client;
  if (c === undefined || !c.isRunning()) {
    void vscode.window.showErrorMessage("lait: the language server is not running (see the lait output)");
    return;
  }
  await execute(c, { ...node.params }, node.name, node.dryRun);
}

/** The restart in progress, if any. */
let restarting: Promise<void> | undefined;

function restart(context: vscode.ExtensionContext): Promise<void> {
  const previous = restarting;
  const run = (async () => {
    await previous?.catch(() => undefined);
    crashes.reset();
    await stopCurrent();
    await startClient(context);
  })();
  restarting = run;
  const done = (): void => {
    if (restarting === run) restarting = undefined;
  };
  run.then(done, done);
  return run;
}

/** Stops the current client, if any, without its close counting as a crash. */
async function stopCurrent(): Promise<void> {
  const old = client;
  client = undefined;
  if (old === undefined) return;
  stopping = true;
  try {
    await old.stop().catch(() => undefined);
  } finally {
    stopping = false;
  }
}

/** Whether lait-ls was started in this window (it starts once lait applies, see laitFiles.ts). */
let started = false;
let deciding: Promise<void> | undefined;

function enable(): ReturnType<typeof enableSetting> {
  return enableSetting(vscode.workspace.getConfiguration("lait").get<string>("enable"));
}

/** The head of an open document: enough to tell a lait file by its keys. */
function head(document: vscode.TextDocument): { file: string; languageId: string; text: string } {
  const text = document.lineCount > 2000 ? document.getText(new vscode.Range(0, 0, 2000, 0)) : document.getText();
  return { file: document.uri.fsPath, languageId: document.languageId, text };
}

function openFiles(): Array<{ file: string; languageId: string; text: string }> {
  return vscode.workspace.textDocuments.filter((d) => d.uri.scheme === "file").map(head);
}

/** Starts lait-ls when lait applies to this window (lait.enable, a lait.config.yml, an open lait file). */
function startIfLait(context: vscode.ExtensionContext): Promise<void> {
  if (started) return Promise.resolve();
  deciding ??= (async () => {
    try {
      const setting = enable();
      if (setting === "never") return;
      const hasConfig =
        setting === "always" ||
        (await vscode.workspace.findFiles(`**/lait.config.yml`, "**/node_modules/**", 1)).length > 0;
      if (started || !shouldStart(setting, hasConfig, openFiles())) return;
      started = true;
      await vscode.commands.executeCommand("setContext", "lait.active", true);
      await startClient(context);
    } finally {
      deciding = undefined;
    }
  })();
  return deciding;
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("lait");
  log = new RunLog((text) => output.append(text));
  runView = new RunView();
  statusItem = vscode.window.createStatusBarItem("lait.status", vscode.StatusBarAlignment.Right, 100);
  statusItem.name = "lait";
  statusItem.command = "lait.statusMenu";
  context.subscriptions.push(
    output,
    statusItem,
    vscode.commands.registerCommand("lait.runWorkflow", (arg: unknown) => run(arg, "workflow", false)),
    vscode.commands.registerCommand("lait.runAgent", (arg: unknown) => run(arg, "agent", false)),
    vscode.commands.registerCommand("lait.dryRun", (arg: unknown) => run(arg, undefined, true)),
    vscode.commands.registerCommand("lait.runTest", (arg: unknown) => run(arg, "test", false)),
    vscode.commands.registerCommand("lait.runEval", (arg: unknown) => run(arg, "eval", false)),
    vscode.commands.registerCommand("lait.showOutput", () => output.show()),
    vscode.commands.registerCommand("lait.statusMenu", () => statusMenu()),
    vscode.commands.registerCommand("lait.restartServer", () => {
      started = true; // asked for: start it whether or not lait applies here
      void vscode.commands.executeCommand("setContext", "lait.active", true);
      return restart(context);
    }),
    runView,
    vscode.window.registerTreeDataProvider(VIEW_ID, runView),
    vscode.commands.registerCommand("lait.runs.reveal", (place: Parameters<typeof reveal>[0]) => reveal(place)),
    vscode.commands.registerCommand("lait.runs.openOutput", (node: RunNode | undefined) => {
      const target = node ?? runView.tree.runs[0];
      return target === undefined ? undefined : openOutput(runView.tree, target);
    }),
    vscode.commands.registerCommand("lait.runs.runAgain", (node: RunNode | undefined) => runAgain(node ?? runView.tree.runs.find((r) => r.params !== undefined))),
    vscode.commands.registerCommand("lait.runs.openTrace", async (uri?: vscode.Uri) => {
      const shown = await openTrace(runView.tree, uri instanceof vscode.Uri ? uri : undefined);
      if (shown !== undefined) {
        await vscode.commands.executeCommand("setContext", "lait.traceOpened", true);
        await vscode.commands.executeCommand(`${VIEW_ID}.focus`);
      }
    }),
    vscode.commands.registerCommand("lait.runs.clear", () => runView.tree.clear()),
    vscode.commands.registerCommand("lait.showGraph", async (arg: unknown) => {
      const uri = arg instanceof vscode.Uri ? arg : isTarget(arg) ? vscode.Uri.parse(arg.uri) : vscode.window.activeTextEditor?.document.uri;
      const c = client;
      if (uri === undefined || uri.scheme !== "file") {
        void vscode.window.showErrorMessage("lait: open a workflow file to see its graph");
        return;
      }
      if (c === undefined || !c.isRunning()) {
        void vscode.window.showErrorMessage("lait: the language server is not running (see the lait output)");
        return;
      }
      await showGraph(context.extensionUri, uri, (u) => c.sendRequest<GraphResult>(GRAPH, { uri: u }), reveal);
    }),
    vscode.workspace.onDidSaveTextDocument(refreshOnSave),
    // Trust granted: start again with the usual discovery (the workspace's environments, its settings).
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      output.appendLine("lait: the workspace is trusted now; restarting lait-ls");
      void restart(context);
    }),
    vscode.window.onDidChangeActiveTextEditor(() => void refreshStatus()),
    // A lait file opened, or a lait.config.yml created, in a window where lait-ls did not start yet.
    vscode.workspace.onDidOpenTextDocument((document) => {
      if (!started && document.uri.scheme === "file" && enable() !== "never") {
        const { file, languageId, text } = head(document);
        if (isLaitFile(file, languageId, text)) void startIfLait(context);
      }
    }),
    watchConfigFiles(context),
    vscode.workspace.onDidSaveTextDocument((document) => {
      if (/lait\.config\.ya?ml$/.test(document.uri.path)) void refreshStatus();
    }),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration("lait.enable")) {
        if (enable() === "never") void stopClient();
        else void startIfLait(context);
        return;
      }
      if (!started) return;
      if (event.affectsConfiguration("lait.server") || event.affectsConfiguration("lait.diagnostics")) {
        // The server path and the diagnostics mode are read when lait-ls starts. A change that a
        // restart in progress already picks up (granting trust makes the workspace's settings
        // count and restarts) asks nothing.
        void (async () => {
          await restarting;
          if (serverSettings() === startedWith) return;
          const choice = await vscode.window.showInformationMessage("lait: restart the language server to use the new setting?", "Restart");
          if (choice) void vscode.commands.executeCommand("lait.restartServer");
        })();
      }
    }),
  );
  await startIfLait(context);
}

function watchConfigFiles(context: vscode.ExtensionContext): vscode.Disposable {
  const watcher = vscode.workspace.createFileSystemWatcher("**/lait.config.yml", false, true, true);
  watcher.onDidCreate(() => void startIfLait(context));
  return watcher;
}

/** lait.enable switched to "never": the server stops and the status item goes away. */
async function stopClient(): Promise<void> {
  started = false;
  void vscode.commands.executeCommand("setContext", "lait.active", false);
  statusItem.hide();
  await stopCurrent();
}

export async function deactivate(): Promise<void> {
  await stopCurrent();
}
