// The language server's health as the status bar item shows it: one state at a time (starting,
// ready, degraded, stopped, not found), what the item says in each, the tail of lait-ls's stderr
// (so a failed start names its cause, e.g. a ModuleNotFoundError) and when a crashed server is
// restarted or given up on. No `vscode` import.

import type { StatusResult } from "./protocol";
import { statusView } from "./statusText";

export type Health =
  | { state: "starting"; why?: string }
  | { state: "ready"; version: string | undefined; status: StatusResult | undefined }
  | { state: "stopped"; reason: string }
  | { state: "notFound"; reason: string };

export interface HealthView {
  text: string;
  tooltip: string;
  /** The item's background: "error" (stopped, not found), "warning" (degraded) or none. */
  tone: "error" | "warning" | undefined;
  /** ready with a problem (a config error): the server runs, but not everything works. */
  degraded: boolean;
}

const ACTIONS = "Click for Restart, Show output, Open settings.";

export function healthView(health: Health, folders: readonly string[], restricted: string | undefined): HealthView {
  const suffix = restricted === undefined ? "" : ` · $(shield) restricted`;
  const restrictedNote = restricted === undefined ? "" : `\n${restricted}`;
  switch (health.state) {
    case "starting":
      // No version: the one of a previous server would be stale.
      return { text: `$(sync~spin) lait starting${suffix}`, tooltip: `lait-ls is starting${health.why ? ` (${health.why})` : ""}\n${ACTIONS}`, tone: undefined, degraded: false };
    case "ready": {
      const view = statusView(health.version, health.status, folders);
      return { text: `${view.text}${suffix}`, tooltip: `${view.tooltip}${restrictedNote}\n${ACTIONS}`, tone: view.warning ? "warning" : undefined, degraded: view.warning };
    }
    case "stopped":
      return { text: `$(debug-stop) lait stopped${suffix}`, tooltip: `lait-ls stopped: ${health.reason}\n${ACTIONS}`, tone: "error", degraded: false };
    case "notFound":
      return { text: `$(warning) lait-ls not found${suffix}`, tooltip: `${health.reason}\n${ACTIONS}`, tone: "error", degraded: false };
  }
}

/** The last lines a process wrote to stderr (bounded: a chatty server cannot grow it). */
export class StderrTail {
  private text = "";
  constructor(private readonly maxChars = 8192) {}

  push(chunk: string): void {
    this.text = (this.text + chunk).slice(-this.maxChars);
  }

  lines(): string[] {
    return this.text.split(/\r?\n/).filter((line) => line.trim() !== "");
  }

  /** The line that says what went wrong: the last `SomethingError: ...` line, else the last line. */
  cause(): string | undefined {
    const lines = this.lines();
    for (let i = lines.length - 1; i >= 0; i--) {
      const line = (lines[i] ?? "").trim();
      if (/^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt)\b.*/.test(line)) return line;
    }
    const last = lines[lines.length - 1];
    return last === undefined ? undefined : last.trim();
  }
}

/** Why a start failed, in one line: the process's own words first. */
export function startFailure(command: string, exit: { code: number | null; signal: string | null } | undefined, tail: StderrTail, error?: string): string {
  const cause = tail.cause();
  const status = exit === undefined ? "" : exit.signal ? ` (killed by ${exit.signal})` : exit.code !== null ? ` (exit status ${exit.code})` : "";
  if (cause !== undefined) return `${command} did not start: ${cause}${status}`;
  if (error) return `${command} did not start: ${error}${status}`;
  return `${command} did not start${status}, and wrote nothing on stderr`;
}

/** Restarts a crashed server a few times, then gives up (as VS Code's default: 4 in 3 minutes). */
export class CrashPolicy {
  private crashes: number[] = [];
  constructor(
    private readonly maxRestarts = 4,
    private readonly windowMs = 3 * 60_000,
  ) {}

  /** A crash at `now`: whether to restart. */
  crashed(now: number): boolean {
    this.crashes = this.crashes.filter((t) => now - t < this.windowMs);
    this.crashes.push(now);
    return this.crashes.length <= this.maxRestarts;
  }

  count(): number {
    return this.crashes.length;
  }

  reset(): void {
    this.crashes = [];
  }
}

export type MenuAction = "restart" | "retry" | "output" | "settings" | "trust";

/** The button titles of the notifications (Retry is Restart under the name a failed search reads as). */
export const ACTION_TITLES: Record<MenuAction, string> = {
  restart: "Restart",
  retry: "Retry",
  output: "Show Output",
  settings: "Open Settings",
  trust: "Trust Workspace",
};

/** The status item's menu; Trust only in Restricted Mode. */
export function menuItems(trusted: boolean): Array<{ label: string; description?: string; action: MenuAction }> {
  const items: Array<{ label: string; description?: string; action: MenuAction }> = [
    { label: "$(debug-restart) Restart lait-ls", action: "restart" },
    { label: "$(output) Show output", description: "the lait output channel: runs, lait-ls's messages and stderr", action: "output" },
    { label: "$(gear) Open settings", description: "lait.*", action: "settings" },
  ];
  if (!trusted) items.push({ label: "$(shield) Trust this workspace", description: "runs need a trusted workspace", action: "trust" });
  return items;
}
