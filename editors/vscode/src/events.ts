// `lait/runEvent` -> the text of the output channel: step progress as `lait run` prints it on
// stderr (docs/workflows.md) and the streamed answer. No `vscode` import.

import type { RunEvent, RunResult } from "./protocol";

function s(value: unknown): string {
  return typeof value === "string" ? value : value === undefined || value === null ? "" : JSON.stringify(value);
}

function n(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

function firstLine(text: string, limit = 200): string {
  const line = text.split(/\r?\n/, 1)[0] ?? "";
  const more = line.length < text.length;
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : more ? `${line} …` : line;
}

function seconds(value: unknown): string {
  const v = n(value);
  return v === undefined ? "" : ` in ${v.toFixed(1)}s`;
}

/** One line (without newline) for an event, or undefined when the event prints nothing. */
export function eventLine(event: RunEvent): string | undefined {
  const prefix = s(event["prefix"]);
  const step = (): string => {
    const num = n(event["n"]);
    return `${prefix}${num === undefined ? "" : `[${num}] `}${s(event["label"])}`;
  };
  switch (event.type) {
    case "runStarted":
      // The extension prints its own header line when it starts a run.
      return undefined;
    case "workflowStarted": {
      const name = s(event["name"]);
      const description = s(event["description"]);
      const about = description ? `${name}: ${description}` : name;
      return (n(event["depth"]) ?? 0) === 0 ? `==> ${about}` : `${prefix}-> ${about}`;
    }
    case "stepStarted":
      return step();
    case "stepFinished":
      switch (event["status"]) {
        case "skipped":
          return `${step()} (skipped)`;
        case "failed":
          return `${prefix}    -> ${s(event["label"])} failed${seconds(event["seconds"])}${event["error"] ? `: ${s(event["error"])}` : ""}`;
        default:
          return undefined;
      }
    case "stepProgress":
      return `${prefix}    -> ${s(event["message"])}`;
    case "stepRetrying": {
      const delay = n(event["delaySeconds"]) ?? 0;
      const max = event["maxAttempts"] === undefined ? "" : `/${s(event["maxAttempts"])}`;
      return `${prefix}    -> attempt ${s(event["attempt"])}${max} failed: ${s(event["error"])}; retrying in ${delay.toFixed(1)}s`;
    }
    case "toolCall":
      return `    -> tool ${s(event["name"])}(${firstLine(s(event["arguments"]))})`;
    case "toolResult":
      return event["isError"] === true
        ? `    <- ${s(event["name"])} failed: ${firstLine(s(event["result"]))}`
        : `    <- ${s(event["name"])}: ${firstLine(s(event["result"]))}`;
    case "toolDenied":
      return `    -> tool ${s(event["name"])} denied: ${s(event["reason"])}`;
    case "usage": {
      const p = n(event["promptTokens"]) ?? 0;
      const c = n(event["completionTokens"]) ?? 0;
      const t = n(event["totalTokens"]) ?? p + c;
      return `usage: ${p} prompt + ${c} completion = ${t} tokens`;
    }
    case "warning":
      return `warning: ${s(event["message"])}`;
    case "note":
      return `note: ${s(event["message"])}`;
    case "compacted":
      return `    -> compacted history: ${s(event["messagesBefore"])} -> ${s(event["messagesAfter"])} messages`;
    case "testResult": {
      const failures = Array.isArray(event["failures"]) ? event["failures"].map((f) => `\n  ${s(f)}`).join("") : "";
      return `${s(event["file"])}: ${event["status"] === "pass" ? "PASS" : "FAIL"}${failures}`;
    }
    case "evalCase": {
      const rate = n(event["successRate"]);
      const percent = rate === undefined ? "" : ` (${Math.round(rate * 100)}%)`;
      const full = event["passed"] === event["total"];
      return `case ${s(event["case"])}: ${s(event["passed"])}/${s(event["total"])}${percent} ${full ? "PASS" : "FAIL"}`;
    }
    case "runFinished":
      return event["status"] === "ok"
        ? `==> ok${seconds(event["seconds"])}`
        : `==> ${s(event["status"]) || "failed"}${seconds(event["seconds"])}${event["error"] ? `: ${s(event["error"])}` : ""}`;
    case "round":
    case "reasoning":
    case "text":
    case "streamEnded":
      return undefined;
    default: {
      const { type, ...rest } = event;
      return `${type}: ${JSON.stringify(rest)}`;
    }
  }
}

/**
 * Turns events into output-channel text. Streamed text deltas are written as they come; a
 * progress line that arrives in the middle of a streamed line starts on a new line.
 */
export class RunLog {
  private atLineStart = true;
  private streamed = new Set<string>();
  private finishSeconds = new Map<string, number>();

  constructor(private readonly write: (text: string) => void) {}

  private line(text: string): void {
    this.write(`${this.atLineStart ? "" : "\n"}${text}\n`);
    this.atLineStart = true;
  }

  /** Prints a line that is not an event (approval details, errors). */
  note(text: string): void {
    this.line(text);
  }

  event(runId: string, event: RunEvent): void {
    if (event.type === "text") {
      const text = s(event["text"]);
      if (text !== "") {
        this.streamed.add(runId);
        this.write(text);
        this.atLineStart = text.endsWith("\n");
      }
      return;
    }
    if (event.type === "streamEnded") {
      if (!this.atLineStart) {
        this.write("\n");
        this.atLineStart = true;
      }
      return;
    }
    if (event.type === "runFinished") {
      // Printed by finished(), after the run's output.
      const secs = n(event["seconds"]);
      if (secs !== undefined) this.finishSeconds.set(runId, secs);
      return;
    }
    const line = eventLine(event);
    if (line !== undefined) {
      this.line(line);
    }
  }

  /** The end of a run: its output unless it was already streamed, then `==> ok in 1.2s` (or why not). */
  finished(result: RunResult): void {
    const streamed = this.streamed.delete(result.runId);
    const took = seconds(this.finishSeconds.get(result.runId));
    this.finishSeconds.delete(result.runId);
    if (result.status === "ok") {
      if (!streamed && result.output !== "") {
        this.line(result.output.replace(/\n$/, ""));
      }
      this.line(`==> ok${took}`);
    } else if (result.status === "cancelled") {
      this.line(`==> cancelled${took}`);
    } else {
      this.line(`==> failed${took}: ${result.error ?? "lait: the run failed"}`);
    }
  }
}
