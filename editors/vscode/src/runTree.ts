// The run view's model: runs started from the editor (or read from a trace file) as a tree of
// steps, tool calls, approvals and progress notes, built from `lait/runEvent` (PROTOCOL.md
// section 5, with its step fields), and how each node is shown. No `vscode` import: runView.ts
// binds it to a TreeDataProvider.

import { eventLine } from "./events";
import type { ApprovalDecision, ApproveParams, RunEvent, RunParams, RunResult } from "./protocol";

export type RunState = "running" | "ok" | "failed" | "cancelled";
export type StepState = "running" | "ok" | "failed" | "skipped" | "cancelled";

/** Where a step is written: LSP positions (0-based) in `uri`. */
export interface Place {
  uri: string;
  line: number;
  character: number;
  endLine: number;
  endCharacter: number;
}

interface Base {
  key: string;
  children: TreeNode[];
}

export interface RunNode extends Base {
  type: "run";
  runId: string;
  name: string;
  uri: string;
  state: RunState;
  seconds?: number;
  tokens: number;
  output?: string;
  error?: string;
  /** What started it, for "Run again" (absent for a trace file). */
  params?: RunParams;
  dryRun: boolean;
  /** The run's progress lines as the output channel shows them (for "Open output"). */
  lines: string[];
  /** Read from this trace file rather than watched live. */
  traceFile?: string;
}

export interface StepNode extends Base {
  type: "step";
  stepId: string;
  label: string;
  kind: string;
  n?: number;
  state: StepState;
  seconds?: number;
  tokens: number;
  error?: string;
  place?: Place;
}

export interface ToolNode extends Base {
  type: "tool";
  callId: string;
  name: string;
  arguments: string;
  state: "running" | "ok" | "failed" | "denied" | "cancelled";
  result?: string;
  seconds?: number;
}

export interface ApprovalNode extends Base {
  type: "approval";
  tool: string;
  decision?: ApprovalDecision;
}

export interface NoteNode extends Base {
  type: "note";
  text: string;
  /** `warning` notes get the warning icon. */
  warning?: boolean;
  /** A line of a failure (its message, or a line of the stderr it quotes): the error icon. */
  error?: boolean;
}

/** The most lines of one error shown as rows (an MCP server's stderr tail is at most 20). */
const MAX_ERROR_ROWS = 30;

export type TreeNode = RunNode | StepNode | ToolNode | ApprovalNode | NoteNode;

/** How a node is shown: plain data that runView.ts turns into a vscode.TreeItem. */
export interface Shown {
  label: string;
  description: string;
  tooltip: string;
  /** A codicon id (`pass`, `error`, `loading~spin`...). */
  icon: string;
  /** A theme colour id for the icon, if any. */
  color?: string;
  expandable: boolean;
  /** Opens the step in its file when clicked. */
  place?: Place;
  /** The `contextValue`: the node's type and state, for menus (`run.ok`, `step.failed`). */
  context: string;
}

function str(value: unknown): string {
  return typeof value === "string" ? value : value === undefined || value === null ? "" : JSON.stringify(value);
}

function num(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function oneLine(text: string, limit = 80): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}

export function duration(seconds: number | undefined): string {
  if (seconds === undefined) return "";
  if (seconds < 60) return `${seconds.toFixed(1)}s`;
  const m = Math.floor(seconds / 60);
  return `${m}m ${Math.round(seconds - m * 60)}s`;
}

function placeOf(event: RunEvent): Place | undefined {
  const uri = event["uri"];
  const range = event["range"] as { start?: { line?: unknown; character?: unknown }; end?: { line?: unknown; character?: unknown } } | undefined;
  const line = num(range?.start?.line);
  if (typeof uri !== "string" || line === undefined) return undefined;
  const character = num(range?.start?.character) ?? 0;
  return { uri, line, character, endLine: num(range?.end?.line) ?? line, endCharacter: num(range?.end?.character) ?? character };
}

/** Runs kept; older finished runs are dropped first. */
export const MAX_RUNS = 20;

export class RunTree {
  /** Newest first. */
  readonly runs: RunNode[] = [];
  private steps = new Map<string, StepNode>();
  private tools = new Map<string, ToolNode>();
  private keys = 0;

  constructor(private readonly changed: () => void = () => undefined) {}

  private key(): string {
    this.keys += 1;
    return `n${this.keys}`;
  }

  run(runId: string): RunNode | undefined {
    return this.runs.find((r) => r.runId === runId);
  }

  /** A run started from the editor; `params` are kept for "Run again". */
  start(runId: string, name: string, params: RunParams): RunNode {
    const run: RunNode = {
      type: "run",
      key: this.key(),
      children: [],
      runId,
      name,
      uri: params.uri,
      state: "running",
      tokens: 0,
      params: { ...params, runId: undefined, workDoneToken: undefined },
      dryRun: params.dryRun === true,
      lines: [],
    };
    this.add(run);
    return run;
  }

  private add(run: RunNode): void {
    this.runs.unshift(run);
    while (this.runs.length > MAX_RUNS) {
      const old = [...this.runs].reverse().findIndex((r) => r.state !== "running");
      if (old < 0) break;
      this.forget(this.runs.splice(this.runs.length - 1 - old, 1)[0]!);
    }
    this.changed();
  }

  private forget(node: TreeNode): void {
    if (node.type === "step") this.steps.delete(node.stepId);
    if (node.type === "tool") this.tools.delete(node.callId);
    node.children.forEach((c) => this.forget(c));
  }

  /** Removes finished runs. */
  clear(): void {
    for (const run of this.runs.filter((r) => r.state !== "running")) {
      this.forget(run);
      this.runs.splice(this.runs.indexOf(run), 1);
    }
    this.changed();
  }

  private stepOf(run: RunNode, event: RunEvent): StepNode | undefined {
    const id = event["stepId"];
    return typeof id === "string" ? this.steps.get(`${run.runId}/${id}`) : undefined;
  }

  /** The node new children of an event go under: its step, else the run. */
  private home(run: RunNode, event: RunEvent): RunNode | StepNode {
    return this.stepOf(run, event) ?? run;
  }

  private ensureStep(run: RunNode, event: RunEvent): StepNode {
    const found = this.stepOf(run, event);
    if (found !== undefined) return found;
    const id = str(event["stepId"]) || this.key();
    const step: StepNode = {
      type: "step",
      key: this.key(),
      children: [],
      stepId: id,
      label: str(event["label"]),
      kind: str(event["kind"]),
      n: num(event["n"]),
      state: "running",
      tokens: 0,
      place: placeOf(event),
    };
    this.steps.set(`${run.runId}/${id}`, step);
    const parentId = event["parentStepId"];
    const parent = typeof parentId === "string" ? this.steps.get(`${run.runId}/${parentId}`) : undefined;
    (parent ?? run).children.push(step);
    return step;
  }

  event(runId: string, event: RunEvent): void {
    const run = this.run(runId);
    if (run === undefined) return;
    const line = eventLine(event);
    if (line !== undefined && event.type !== "runFinished") run.lines.push(line);
    switch (event.type) {
      case "runStarted":
        if (typeof event["name"] === "string" && event["name"]) run.name = event["name"];
        break;
      case "stepStarted":
        this.ensureStep(run, event);
        break;
      case "stepFinished": {
        const step = this.ensureStep(run, event);
        const status = str(event["status"]);
        step.state = status === "ok" || status === "skipped" || status === "failed" || status === "cancelled" ? status : "failed";
        step.seconds = num(event["seconds"]);
        if (typeof event["error"] === "string" && event["error"] !== "") {
          step.error = event["error"];
          // Once, under the innermost step that failed with it (a for_each repeats its item's error).
          if (step.state === "failed" && !hasError(step, event["error"])) this.errorRows(step, event["error"]);
        }
        break;
      }
      case "stepProgress":
        this.note(run, event, str(event["message"]));
        break;
      case "stepRetrying":
        if (line !== undefined) this.note(run, event, line.trim().replace(/^-> /, ""));
        break;
      case "toolCall": {
        const call: ToolNode = {
          type: "tool",
          key: this.key(),
          children: [],
          callId: str(event["callId"]),
          name: str(event["name"]),
          arguments: str(event["arguments"]),
          state: "running",
        };
        this.tools.set(`${runId}/${call.callId}`, call);
        this.home(run, event).children.push(call);
        break;
      }
      case "toolResult":
      case "toolDenied": {
        const id = `${runId}/${str(event["callId"])}`;
        let call = this.tools.get(id);
        if (call === undefined) {
          // A denial by tool_policy comes without a toolCall.
          call = { type: "tool", key: this.key(), children: [], callId: str(event["callId"]), name: str(event["name"]), arguments: "", state: "running" };
          this.tools.set(id, call);
          this.home(run, event).children.push(call);
        }
        if (event.type === "toolDenied") {
          call.state = "denied";
          call.result = str(event["reason"]);
        } else {
          call.state = event["isError"] === true ? "failed" : "ok";
          call.result = str(event["result"]);
        }
        break;
      }
      case "usage": {
        const tokens = num(event["totalTokens"]) ?? (num(event["promptTokens"]) ?? 0) + (num(event["completionTokens"]) ?? 0);
        const step = this.stepOf(run, event);
        if (step !== undefined) step.tokens += tokens;
        run.tokens += tokens;
        break;
      }
      case "warning":
        this.note(run, event, str(event["message"]), true);
        break;
      case "runFinished": {
        run.seconds = num(event["seconds"]);
        break;
      }
      default:
        break;
    }
    this.changed();
  }

  /** A failure's lines as rows under the failed step or run: the message, then each line of the
   * stderr it quotes (an MCP server's last words, e.g. its ModuleNotFoundError). */
  private errorRows(parent: RunNode | StepNode, error: string): void {
    const lines = error.split(/\r?\n/).filter((line) => line.trim() !== "");
    const shown = lines.length > MAX_ERROR_ROWS ? [...lines.slice(0, 1), `… ${lines.length - MAX_ERROR_ROWS} line(s) left out`, ...lines.slice(-(MAX_ERROR_ROWS - 2))] : lines;
    for (const text of shown) parent.children.push({ type: "note", key: this.key(), children: [], text, error: true });
  }

  private note(run: RunNode, event: RunEvent, text: string, warning = false): void {
    const note: NoteNode = { type: "note", key: this.key(), children: [], text };
    if (warning) note.warning = true;
    this.home(run, event).children.push(note);
  }

  /** An approval was asked (`answer` settles with the person's decision). */
  approval(params: ApproveParams, answer?: Promise<{ decision: ApprovalDecision }>): void {
    const run = params.runId === undefined ? undefined : this.run(params.runId);
    if (run === undefined) return;
    const node: ApprovalNode = { type: "approval", key: this.key(), children: [], tool: params.tool };
    const stepId = (params as { stepId?: unknown }).stepId;
    const step = typeof stepId === "string" ? this.steps.get(`${run.runId}/${stepId}`) : undefined;
    (step ?? run).children.push(node);
    this.changed();
    void answer?.then(
      (result) => {
        node.decision = result.decision;
        this.changed();
      },
      () => undefined,
    );
  }

  /** The run's answer from `lait/run`. Steps still running are marked cancelled (or failed). */
  finish(result: RunResult): void {
    const run = this.run(result.runId);
    if (run === undefined) return;
    run.state = result.status;
    run.output = result.output;
    if (result.error !== undefined) run.error = result.error;
    const cancelled = result.status === "cancelled";
    let stepErrors = false;
    const open = (node: TreeNode): void => {
      if ((node.type === "step" || node.type === "tool") && node.state === "running") {
        node.state = cancelled ? "cancelled" : "failed";
      }
      // What a cancellation stopped is cancelled, not failed (a tool or step ended by it says so).
      if (cancelled && node.type === "step" && node.state === "failed" && /cancel/i.test(node.error ?? "")) node.state = "cancelled";
      if (cancelled && node.type === "tool" && node.state === "failed" && /cancel/i.test(node.result ?? "")) node.state = "cancelled";
      if (node.type === "step" && node.error !== undefined && node.state === "failed") stepErrors = true;
      node.children.forEach(open);
    };
    run.children.forEach(open);
    // The run's error as rows when no failed step shows it already.
    if (result.status === "failed" && result.error && !stepErrors) this.errorRows(run, result.error);
    run.lines.push(result.status === "ok" ? `==> ok${run.seconds === undefined ? "" : ` in ${run.seconds.toFixed(1)}s`}` : `==> ${result.status}${result.error ? `: ${result.error}` : ""}`);
    this.changed();
  }

  /** A run read from a trace file (JSONL, docs/workflows.md): one step per step label, its
   * model calls (tokens) and tool calls with their arguments and decisions. Replaces an earlier
   * view of the same file. */
  addTrace(file: string, name: string, text: string): RunNode {
    const old = this.runs.find((r) => r.traceFile === file);
    if (old !== undefined) {
      this.forget(old);
      this.runs.splice(this.runs.indexOf(old), 1);
    }
    const runId = `trace:${file}`;
    const run: RunNode = { type: "run", key: this.key(), children: [], runId, name, uri: "", state: "ok", tokens: 0, dryRun: false, lines: [], traceFile: file };
    const byLabel = new Map<string, StepNode>();
    let first: number | undefined;
    let last: number | undefined;
    const problems: string[] = [];
    text.split(/\r?\n/).forEach((raw, index) => {
      if (raw.trim() === "") return;
      let record: { [key: string]: unknown };
      try {
        const parsed: unknown = JSON.parse(raw);
        if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
        record = parsed as { [key: string]: unknown };
      } catch {
        problems.push(`line ${index + 1}: not a JSON object`);
        return;
      }
      run.lines.push(raw);
      const attributes = (typeof record["attributes"] === "object" && record["attributes"] !== null ? record["attributes"] : {}) as { [key: string]: unknown };
      const label = str(record["label"]) || "(run)";
      let step = byLabel.get(label);
      if (step === undefined) {
        step = { type: "step", key: this.key(), children: [], stepId: label, label, kind: "", state: "ok", tokens: 0, seconds: 0 };
        byLabel.set(label, step);
        run.children.push(step);
      }
      const ms = num(record["duration_ms"]) ?? 0;
      step.seconds = (step.seconds ?? 0) + ms / 1000;
      const start = Date.parse(str(record["start"]));
      const end = Date.parse(str(record["end"]));
      if (!Number.isNaN(start)) first = first === undefined ? start : Math.min(first, start);
      if (!Number.isNaN(end)) last = last === undefined ? end : Math.max(last, end);
      const operation = str(record["operation"]);
      if (operation === "chat") {
        const tokens = (num(attributes["gen_ai.usage.input_tokens"]) ?? 0) + (num(attributes["gen_ai.usage.output_tokens"]) ?? 0);
        step.tokens += tokens;
        run.tokens += tokens;
        if (step.kind === "") step.kind = "model";
        const model = str(attributes["gen_ai.request.model"]);
        const source = str(attributes["lait.source"]);
        step.children.push({ type: "note", key: this.key(), children: [], text: `model ${model}${source && source !== "live" ? ` (${source})` : ""}: ${tokens} tokens in ${duration(ms / 1000)}` });
      } else if (operation === "execute_tool") {
        const decision = str(attributes["lait.tool.decision"]);
        const denied = decision === "deny" || decision === "denied" || attributes["lait.tool.denial_reason"] !== undefined;
        const tool: ToolNode = {
          type: "tool",
          key: this.key(),
          children: [],
          callId: str(attributes["gen_ai.tool.call.id"]),
          name: str(attributes["gen_ai.tool.name"]),
          arguments: str(attributes["gen_ai.tool.arguments"]),
          state: denied ? "denied" : attributes["lait.tool.is_error"] === true ? "failed" : "ok",
          seconds: ms / 1000,
        };
        if (denied) tool.result = str(attributes["lait.tool.denial_reason"]);
        step.children.push(tool);
      } else if (operation === "compact") {
        step.children.push({ type: "note", key: this.key(), children: [], text: "compacted the history" });
      }
    });
    if (first !== undefined && last !== undefined) run.seconds = (last - first) / 1000;
    if (problems.length > 0) {
      run.children.push({ type: "note", key: this.key(), children: [], text: `${problems.length} line(s) skipped: ${problems.slice(0, 3).join("; ")}`, warning: true });
    }
    this.add(run);
    return run;
  }

  /** The text "Open output" shows: the progress lines and the result. */
  outputText(run: RunNode): string {
    // A failed run's error is already on its `==> failed: ...` line.
    const result = run.state === "ok" && run.output ? ["", run.output] : [];
    return [...run.lines, ...result].join("\n").replace(/\n*$/, "\n");
  }
}

/** Whether an inner step of `node` shows `error` already. */
function hasError(node: TreeNode, error: string): boolean {
  return node.children.some((c) => (c.type === "step" && c.error === error && c.state === "failed") || hasError(c, error));
}

function tokensOf(node: StepNode): number {
  let total = node.tokens;
  for (const child of node.children) if (child.type === "step") total += tokensOf(child);
  return total;
}

const STATE_ICON: { [state: string]: [string, string | undefined] } = {
  running: ["loading~spin", undefined],
  ok: ["pass", "testing.iconPassed"],
  failed: ["error", "testing.iconFailed"],
  cancelled: ["circle-slash", "disabledForeground"],
  skipped: ["debug-step-over", "disabledForeground"],
  denied: ["circle-slash", "testing.iconFailed"],
};

const DECISIONS: { [d: string]: string } = { once: "allowed once", session: "allowed for this session", deny: "denied" };

export function show(node: TreeNode): Shown {
  const expandable = node.children.length > 0;
  switch (node.type) {
    case "run": {
      const [icon, color] = STATE_ICON[node.state] ?? ["circle-outline", undefined];
      const parts = [node.traceFile !== undefined ? "trace" : node.dryRun ? "dry run" : "", node.state, duration(node.seconds), node.tokens ? `${node.tokens} tokens` : ""];
      const description = parts.filter((p) => p !== "").join(" · ");
      const tooltip = [node.name, description, node.traceFile ?? node.uri, node.error ?? ""].filter((p) => p !== "").join("\n");
      return { label: node.name, description, tooltip, icon, color, expandable: true, context: `run.${node.state}${node.traceFile !== undefined ? ".trace" : ""}` };
    }
    case "step": {
      const [icon, color] = STATE_ICON[node.state] ?? ["circle-outline", undefined];
      const tokens = tokensOf(node);
      const parts = [node.kind, node.state, duration(node.seconds), tokens ? `${tokens} tokens` : ""];
      const description = parts.filter((p) => p !== "").join(" · ");
      const label = node.n === undefined ? node.label : `[${node.n}] ${node.label}`;
      const tooltip = [label, description, node.error ?? ""].filter((p) => p !== "").join("\n");
      const shown: Shown = { label, description, tooltip, icon, color, expandable, context: `step.${node.state}` };
      if (node.place !== undefined) shown.place = node.place;
      return shown;
    }
    case "tool": {
      const [icon, color] = node.state === "running" ? STATE_ICON["running"]! : node.state === "ok" ? ["tools", undefined] : STATE_ICON[node.state]!;
      const result = node.result === undefined ? "" : ` → ${oneLine(node.result, 60)}`;
      const verb = node.state === "denied" ? " denied" : node.state === "failed" ? " failed" : node.state === "cancelled" ? " cancelled" : "";
      const tooltip = [`tool ${node.name}${verb}`, `arguments: ${node.arguments}`, node.result === undefined ? "" : `${node.state === "denied" ? "reason" : "result"}: ${node.result}`]
        .filter((p) => p !== "")
        .join("\n");
      return { label: `tool ${node.name}${verb}`, description: `${oneLine(node.arguments, 60)}${result}`, tooltip, icon, color, expandable: false, context: `tool.${node.state}` };
    }
    case "approval": {
      const answer = node.decision === undefined ? "waiting for an answer" : DECISIONS[node.decision] ?? node.decision;
      return {
        label: `approval asked: ${node.tool}`,
        description: answer,
        tooltip: `lait asked to allow ${node.tool}: ${answer}`,
        icon: node.decision === "deny" ? "shield" : node.decision === undefined ? "question" : "workspace-trusted",
        expandable: false,
        context: "approval",
      };
    }
    case "note":
      if (node.error) {
        return { label: oneLine(node.text, 160), description: "", tooltip: node.text, icon: "error", color: "testing.iconFailed", expandable: false, context: "note.error" };
      }
      return { label: oneLine(node.text, 120), description: "", tooltip: node.text, icon: node.warning ? "warning" : "info", expandable: false, context: "note" };
  }
}
