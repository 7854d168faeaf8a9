// The notification at the end of a run started from the editor: ok and failed runs say so with
// "Open run" (a failed one with its cause: the last line of an MCP server's stderr, say);
// a cancelled run is not a failure. No `vscode` import.

import type { RunStatus } from "./protocol";

export interface RunNotice {
  severity: "info" | "error";
  message: string;
}

/** The error's first line, and the line that says what went wrong when the error quotes a process's
 * stderr ("its stderr ended with:" followed by indented lines, see lait_core/engine/mcp/stderr_tail.py). */
export function errorSummary(error: string, limit = 300): string {
  const lines = error.split(/\r?\n/).filter((line) => line.trim() !== "");
  const first = (lines[0] ?? "").trim();
  const quoted = lines.findIndex((line) => /its stderr ended with:\s*$/.test(line));
  let summary = first;
  if (quoted >= 0 && quoted < lines.length - 1) {
    const last = (lines[lines.length - 1] ?? "").trim();
    summary = quoted === 0 ? `${first} ${last}` : `${first} … ${last}`;
  }
  return summary.length > limit ? `${summary.slice(0, limit - 1)}…` : summary;
}

export function runNotice(name: string, dryRun: boolean, status: RunStatus, seconds: number | undefined, error: string | undefined): RunNotice {
  const what = dryRun ? `dry run of ${name}` : name;
  const took = seconds === undefined ? "" : ` in ${seconds < 60 ? `${seconds.toFixed(1)}s` : `${Math.round(seconds)}s`}`;
  switch (status) {
    case "ok":
      return { severity: "info", message: `lait: ${what} finished${took}` };
    case "cancelled":
      return { severity: "info", message: `lait: ${what} was cancelled` };
    default: {
      const why = error ? errorSummary(error.replace(/^lait: /, "")) : "see the lait output";
      return { severity: "error", message: `lait: ${what} failed: ${why}` };
    }
  }
}
