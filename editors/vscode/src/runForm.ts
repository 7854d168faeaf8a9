// What a lens click asks before `lait/run`: the prompt (when the workflow needs or allows one)
// and each declared input, as a form built from the workflow's `inputs:`. No `vscode` import.

import { askField, fieldFromSchema, type Field } from "./fields";
import type { InputSpec, RunParams, RunTarget } from "./protocol";
import type { Ui } from "./ui";

export type RunRequest = { params: RunParams } | { cancelled: true } | { error: string };

export function inputFields(inputs: readonly InputSpec[]): { fields: Field[] } | { error: string } {
  const fields: Field[] = [];
  for (const input of inputs) {
    const result = fieldFromSchema(input.name, input.schema, input.required, true);
    if ("error" in result) {
      return { error: `input '${input.name}': ${result.error}` };
    }
    fields.push(result.field);
  }
  return { fields };
}

const VERBS: Record<RunTarget["kind"], string> = {
  workflow: "Run workflow",
  agent: "Run agent",
  test: "Run test",
  eval: "Run eval",
};

function targetName(target: RunTarget): string {
  return target.name ?? target.uri.split("/").pop() ?? target.uri;
}

/** Asks for the prompt and inputs of `target`; a dry run asks for them too (templates render with them). */
export async function collectRun(ui: Ui, target: RunTarget, dryRun = false): Promise<RunRequest> {
  const inputs = target.inputs ?? [];
  const form = inputFields(inputs);
  if ("error" in form) {
    return form;
  }
  const need = target.prompt ?? "required";
  const verb = dryRun ? "Dry run" : VERBS[target.kind];
  const title = `lait: ${verb} ${targetName(target)}`;
  const total = form.fields.length + (need === "none" ? 0 : 1);
  const params: RunParams = { uri: target.uri, kind: target.kind };
  if (dryRun) {
    params.dryRun = true;
  }
  let step = 0;
  if (need !== "none") {
    step += 1;
    const question =
      need === "required"
        ? `Prompt for ${target.kind === "agent" ? "the agent" : "the workflow"} (required)`
        : "Prompt (optional: the workflow declares inputs; empty = no prompt)";
    let prompt: string | undefined;
    let again = "";
    for (;;) {
      prompt = await ui.input({
        title: `${title} (${step}/${total})`,
        prompt: `${question}${again}`,
        validate: (text) => (need === "required" && text.trim() === "" ? "enter a prompt" : undefined),
      });
      if (prompt === undefined) {
        return { cancelled: true };
      }
      if (need !== "required" || prompt.trim() !== "") {
        break;
      }
      // The Ui may not enforce `validate`: ask again.
      again = " — ✗ enter a prompt";
    }
    if (prompt !== "") {
      params.prompt = prompt;
    }
  }
  const values: Record<string, unknown> = {};
  for (const field of form.fields) {
    step += 1;
    const answer = await askField(ui, field, { title: `${title} (${step}/${total})` });
    if (answer.status === "cancelled") {
      return { cancelled: true };
    }
    if (answer.status === "value") {
      values[field.name] = answer.value;
    }
  }
  if (form.fields.length > 0) {
    params.inputs = values;
  }
  return { params };
}

/** The target of a command run from the palette: the active file, kind from its name. */
export function targetForFile(uri: string, languageId?: string): RunTarget {
  const agent = /\.md$/i.test(uri) || languageId === "markdown";
  // test and eval files by their conventional names (the lens knows them by content too)
  if (/\.test\.ya?ml$/i.test(uri)) return { uri, kind: "test", prompt: "none", inputs: [] };
  if (/\.eval\.ya?ml$/i.test(uri)) return { uri, kind: "eval", prompt: "none", inputs: [] };
  return { uri, kind: agent ? "agent" : "workflow", prompt: agent ? "required" : "optional" };
}
