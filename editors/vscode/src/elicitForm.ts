// `lait/elicit`: an MCP server's question as a field-by-field form. Decline and cancel stay
// distinct: "Decline" is an answer ("I won't give this"), Escape anywhere is "cancel" ("stop
// asking"). No `vscode` import.

import { askField, fieldFromSchema, type Field } from "./fields";
import { isObject, type ElicitParams, type ElicitResult, type ElicitValue } from "./protocol";
import type { CancelToken, PickItem, Ui } from "./ui";

export type FormOrError = { fields: Field[] } | { error: string };

/** The fields of a flat `requestedSchema` (MCP allows primitive properties and enums only). */
export function formFields(schema: unknown): FormOrError {
  if (schema === undefined || schema === null) {
    return { fields: [] };
  }
  if (!isObject(schema)) {
    return { error: "the requested schema is not an object" };
  }
  if (schema["type"] !== undefined && schema["type"] !== "object") {
    return { error: `the requested schema has type ${JSON.stringify(schema["type"])}, not "object"` };
  }
  const properties = schema["properties"] ?? {};
  if (!isObject(properties)) {
    return { error: "the requested schema's 'properties' is not an object" };
  }
  const required = Array.isArray(schema["required"]) ? schema["required"] : [];
  const fields: Field[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const result = fieldFromSchema(name, property, required.includes(name), false);
    if ("error" in result) {
      return result;
    }
    fields.push(result.field);
  }
  return { fields };
}

type Choice = "answer" | "decline" | "cancel";

export interface ElicitOptions {
  cancel?: CancelToken;
  /** Told why a request was declined without asking (a schema the form cannot show). */
  log?: (message: string) => void;
}

/** The dialog's title keeps the server's question in view (a placeholder vanishes on typing). */
function title(params: ElicitParams, step?: string): string {
  const question = oneLine(params.message ?? "");
  return `lait: MCP server '${params.server}' asks${step === undefined ? "" : ` (${step})`}${question === "" ? "" : `: ${question}`}`;
}

function oneLine(text: string, limit = 160): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length > limit ? `${line.slice(0, limit - 1)}…` : line;
}

async function firstChoice(
  ui: Ui,
  params: ElicitParams,
  answerLabel: string,
  detail: string | undefined,
  cancel?: CancelToken,
  description?: string,
): Promise<Choice> {
  const answer: PickItem<Choice> = { label: answerLabel, value: "answer" };
  if (detail !== undefined) answer.detail = detail;
  if (description !== undefined) answer.description = description;
  const items: PickItem<Choice>[] = [
    answer,
    { label: "Decline", description: "tell the server you will not answer", value: "decline" },
    { label: "Cancel", description: "dismiss; the server may ask again or stop", value: "cancel" },
  ];
  const options: Parameters<Ui["pick"]>[1] = { title: title(params), placeholder: params.message };
  if (cancel !== undefined) options.cancel = cancel;
  const choice = await ui.pick(items, options);
  return choice ?? "cancel";
}

async function elicitUrl(ui: Ui, params: ElicitParams, options: ElicitOptions): Promise<ElicitResult> {
  const url = params.url ?? "";
  if (!/^https?:\/\//i.test(url)) {
    options.log?.(`lait: declined an elicitation from '${params.server}': its URL is not http(s): ${JSON.stringify(url)}`);
    return { action: "decline" };
  }
  // A tool call that failed until the person visits the page (-32042) is retried by lait once the
  // server reports them done: say so, so they know the run continues by itself.
  const retry = params.retriesCall === true ? "the tool call is retried when you are done there" : undefined;
  const choice = await firstChoice(ui, params, `Open ${url}`, "opens the page in your browser", options.cancel, retry);
  if (choice !== "answer") {
    return { action: choice };
  }
  const opened = await ui.openExternal(url);
  return opened ? { action: "accept" } : { action: "cancel" };
}

async function elicitForm(ui: Ui, params: ElicitParams, options: ElicitOptions): Promise<ElicitResult> {
  const form = formFields(params.requestedSchema);
  if ("error" in form) {
    options.log?.(`lait: declined an elicitation from '${params.server}': ${form.error}`);
    return { action: "decline" };
  }
  const { fields } = form;
  const names = fields.map((f) => f.title).join(", ");
  const choice = await firstChoice(
    ui,
    params,
    fields.length === 0 ? "Accept" : "Answer",
    fields.length === 0 ? undefined : `asks for: ${names}`,
    options.cancel,
  );
  if (choice !== "answer") {
    return { action: choice };
  }
  const content: Record<string, ElicitValue> = {};
  for (const [i, field] of fields.entries()) {
    const ctx: Parameters<typeof askField>[2] = { title: title(params, `${i + 1}/${fields.length}`) };
    if (options.cancel !== undefined) ctx.cancel = options.cancel;
    const answer = await askField(ui, field, ctx);
    if (answer.status === "cancelled") {
      return { action: "cancel" };
    }
    if (answer.status === "value") {
      content[field.name] = answer.value as ElicitValue;
    }
  }
  return { action: "accept", content };
}

/** Runs the dialog for one `lait/elicit` request and returns the answer to send back. */
export async function elicit(ui: Ui, params: ElicitParams, options: ElicitOptions = {}): Promise<ElicitResult> {
  const result =
    params.mode === "url"
      ? await elicitUrl(ui, params, options)
      : params.mode === "form" || params.mode === undefined
        ? await elicitForm(ui, params, options)
        : (options.log?.(`lait: declined an elicitation from '${params.server}': unknown mode '${params.mode}'`),
          { action: "decline" as const });
  if (options.cancel?.isCancellationRequested === true) {
    return { action: "cancel" };
  }
  return result;
}
