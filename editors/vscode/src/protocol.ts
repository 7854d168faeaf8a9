// The custom LSP methods of lait-ls, as PROTOCOL.md fixes them. No `vscode` import here.

export const RUN = "lait/run";
export const RUN_EVENT = "lait/runEvent";
export const STATUS = "lait/status";
export const APPROVE_TOOL_CALL = "lait/approveToolCall";
export const ELICIT = "lait/elicit";
export const ASK = "lait/ask";

/** What the client declares under `capabilities.experimental.lait`. */
export const CLIENT_CAPABILITY = {
  version: 1,
  requests: [APPROVE_TOOL_CALL, ELICIT, ASK],
  runEvents: true,
} as const;

export type RunKind = "workflow" | "agent" | "test" | "eval";
export type PromptNeed = "required" | "optional" | "none";

export interface InputSpec {
  name: string;
  schema: JsonSchema;
  required: boolean;
}

/** The argument of the lens commands lait.runWorkflow / lait.runAgent / lait.dryRun / lait.runTest / lait.runEval. */
export interface RunTarget {
  uri: string;
  kind: RunKind;
  name?: string;
  prompt?: PromptNeed;
  inputs?: InputSpec[];
}

export interface RunParams {
  uri: string;
  kind: RunKind;
  prompt?: string;
  inputs?: Record<string, unknown>;
  dryRun?: boolean;
  repeat?: number;
  runId?: string;
  workDoneToken?: string;
}

export type RunStatus = "ok" | "failed" | "cancelled";

export interface RunResult {
  runId: string;
  status: RunStatus;
  output: string;
  error?: string;
}

export interface StatusParams {
  uri?: string;
}

export interface StatusResult {
  version?: string;
  configFile?: string | null;
  configError?: string | null;
}

/** One `lait/runEvent` event; `type` selects the other fields (PROTOCOL.md section 5). */
export interface RunEvent {
  type: string;
  [field: string]: unknown;
}

export interface RunEventParams {
  runId: string;
  event: RunEvent;
}

export type ApprovalDecision = "once" | "session" | "deny";

export interface ApproveParams {
  runId?: string;
  tool: string;
  server?: string | null;
  kind?: string;
  arguments?: unknown;
  command?: string[] | null;
  /** The workflow step asking (PROTOCOL.md section 5, step fields). */
  stepId?: string;
}

export interface ApproveResult {
  decision: ApprovalDecision;
}

export type ElicitAction = "accept" | "decline" | "cancel";
export type ElicitValue = string | number | boolean | string[];

export interface ElicitParams {
  runId?: string;
  server: string;
  mode: string;
  message: string;
  requestedSchema?: JsonSchema | null;
  url?: string | null;
  elicitationId?: string | null;
  /** URL mode: a tool call failed until the page is visited; lait retries it when the server reports completion. */
  retriesCall?: boolean;
}

export interface ElicitResult {
  action: ElicitAction;
  content?: Record<string, ElicitValue>;
}

export interface AskParams {
  runId?: string;
  question: string;
  choices?: string[] | null;
  default?: string | null;
  multiline?: boolean;
}

export type AskResult = { answer: string } | null;

/** A JSON Schema object, as it arrives over the wire (nothing is trusted). */
export type JsonSchema = { [key: string]: unknown };

export function isObject(value: unknown): value is { [key: string]: unknown } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
