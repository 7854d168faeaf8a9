import assert from "node:assert/strict";
import { test } from "node:test";

import type { RunTarget } from "../protocol";
import { collectRun, targetForFile } from "../runForm";
import { ESC, ScriptedUi } from "./scriptedUi";

const triage: RunTarget = {
  uri: "file:///w/workflows/triage.yml",
  kind: "workflow",
  name: "triage",
  prompt: "optional",
  inputs: [
    { name: "repo", schema: { type: "string", description: "owner/name", pattern: "^[^/]+/[^/]+$" }, required: true },
    { name: "limit", schema: { type: "integer", minimum: 1, default: 10 }, required: false },
    { name: "labels", schema: { type: "array" }, required: false },
    { name: "mode", schema: { enum: ["fast", "careful"], default: "careful" }, required: false },
    { name: "dry", schema: { type: "boolean" }, required: true },
  ],
};

test("a form from the workflow's inputs: typed values, defaults offered, optional prompt", async () => {
  const ui = new ScriptedUi(["", "acme/app", "5", '["bug", "ui"]', "careful", "No"]);
  const request = await collectRun(ui, triage);
  assert.deepEqual(request, {
    params: { uri: triage.uri, kind: "workflow", inputs: { repo: "acme/app", limit: 5, labels: ["bug", "ui"], mode: "careful", dry: false } },
  });
  assert.equal(ui.calls[0]?.title, "lait: Run workflow triage (1/6)");
  assert.match(ui.calls[0]?.prompt ?? "", /optional/);
  assert.match(ui.calls[1]?.prompt ?? "", /^repo \(required\) — owner\/name/);
  assert.equal(ui.calls[2]?.value, "10");
  assert.deepEqual(ui.calls[4]?.labels, ["careful", "fast", "Leave out"]);
});

test("invalid input values are asked again; optional inputs can be left out", async () => {
  const ui = new ScriptedUi(["fix the login", "acme", "acme/app", "0", "", "{bad", "", "Leave out", "Yes"]);
  const request = await collectRun(ui, triage);
  assert.deepEqual(request, { params: { uri: triage.uri, kind: "workflow", prompt: "fix the login", inputs: { repo: "acme/app", dry: true } } });
  const validations = ui.calls.filter((c) => c.method === "input").map((c) => c.validation);
  assert.deepEqual(validations, [
    undefined,
    "the text must match the pattern ^[^/]+/[^/]+$",
    undefined,
    "enter a number ≥ 1",
    undefined,
    'enter JSON of type array, e.g. ["a", "b"]',
    undefined,
  ]);
});

test("Escape anywhere cancels the run before it starts", async () => {
  assert.deepEqual(await collectRun(new ScriptedUi([ESC]), triage), { cancelled: true });
  assert.deepEqual(await collectRun(new ScriptedUi(["", "acme/app", ESC]), triage), { cancelled: true });
});

test("an agent needs a prompt; a dry run is flagged", async () => {
  const agent: RunTarget = { uri: "file:///w/agents/reviewer.md", kind: "agent" };
  const ui = new ScriptedUi(["review main.py"]);
  assert.deepEqual(await collectRun(ui, agent), { params: { uri: agent.uri, kind: "agent", prompt: "review main.py" } });
  assert.equal(ui.calls[0]?.title, "lait: Run agent reviewer.md (1/1)");
  assert.equal(ui.calls[0]?.validation, undefined);
  const retry = new ScriptedUi(["  ", "again"]);
  assert.deepEqual(await collectRun(retry, agent), { params: { uri: agent.uri, kind: "agent", prompt: "again" } });
  assert.deepEqual(retry.calls.map((c) => c.validation), ["enter a prompt", undefined]);
  assert.match(retry.calls[1]?.prompt ?? "", /✗ enter a prompt/);
  const noInputs: RunTarget = { uri: "file:///w/w.yml", kind: "workflow" };
  assert.deepEqual(await collectRun(new ScriptedUi(["hi"]), noInputs, true), { params: { uri: noInputs.uri, kind: "workflow", prompt: "hi", dryRun: true } });
  assert.deepEqual(await collectRun(new ScriptedUi([]), { ...noInputs, prompt: "none" }), { params: { uri: noInputs.uri, kind: "workflow" } });
});

test("targetForFile: the kind from the file", () => {
  assert.deepEqual(targetForFile("file:///w/a.md"), { uri: "file:///w/a.md", kind: "agent", prompt: "required" });
  assert.deepEqual(targetForFile("file:///w/a.yml", "yaml"), { uri: "file:///w/a.yml", kind: "workflow", prompt: "optional" });
  assert.deepEqual(targetForFile("file:///w/a.test.yml", "yaml"), { uri: "file:///w/a.test.yml", kind: "test", prompt: "none", inputs: [] });
  assert.deepEqual(targetForFile("file:///w/b.eval.yaml", "yaml"), { uri: "file:///w/b.eval.yaml", kind: "eval", prompt: "none", inputs: [] });
});

test("a test or eval lens asks nothing: lait/run gets the uri and the kind", async () => {
  const target: RunTarget = { uri: "file:///w/smoke.test.yml", kind: "test", prompt: "none", inputs: [] };
  assert.deepEqual(await collectRun(new ScriptedUi([]), target), { params: { uri: target.uri, kind: "test" } });
  const evals: RunTarget = { uri: "file:///w/cats.eval.yml", kind: "eval", prompt: "none", inputs: [] };
  assert.deepEqual(await collectRun(new ScriptedUi([]), evals), { params: { uri: evals.uri, kind: "eval" } });
});
