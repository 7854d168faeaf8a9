import assert from "node:assert/strict";
import { test } from "node:test";

import type { RunEvent } from "../protocol";
import { RunTree, show, type RunNode, type TreeNode } from "../runTree";

const URI = "file:///w/each.yml";
const range = (line: number) => ({ start: { line, character: 4 }, end: { line: line + 3, character: 0 } });

/** The events lait-ls sends for a for_each of two items whose prompt step calls a shell tool. */
const FOR_EACH: RunEvent[] = [
  { type: "runStarted", uri: URI, kind: "workflow", name: "each" },
  { type: "workflowStarted", name: "each", description: null, depth: 0, prefix: "" },
  { type: "stepStarted", label: "each", kind: "for_each", n: 1, prefix: "", stepId: "1", parentStepId: null, uri: URI, range: range(2) },
  { type: "stepProgress", label: "each", message: "item 1/2", prefix: "", stepId: "1" },
  { type: "stepStarted", label: "shout_item", kind: "prompt", n: 2, prefix: "", stepId: "2", parentStepId: "1", uri: URI, range: range(5) },
  { type: "toolCall", callId: "c1", name: "tool__shout", arguments: '{"text": "apple"}', stepId: "2" },
  { type: "toolResult", callId: "c1", name: "tool__shout", result: "APPLE\n", isError: false, stepId: "2" },
  { type: "usage", promptTokens: 10, completionTokens: 5, totalTokens: 15, stepId: "2" },
  { type: "stepFinished", label: "shout_item", kind: "prompt", n: 2, seconds: 0.25, status: "ok", prefix: "", stepId: "2", parentStepId: "1", uri: URI, range: range(5) },
  { type: "stepProgress", label: "each", message: "item 2/2", prefix: "", stepId: "1" },
  { type: "stepStarted", label: "shout_item", kind: "prompt", n: 3, prefix: "", stepId: "3", parentStepId: "1", uri: URI, range: range(5) },
  { type: "toolCall", callId: "c2", name: "tool__shout", arguments: '{"text": "pear"}', stepId: "3" },
  { type: "toolResult", callId: "c2", name: "tool__shout", result: "exit 1", isError: true, stepId: "3" },
  { type: "usage", promptTokens: 20, completionTokens: 5, totalTokens: 25, stepId: "3" },
  { type: "stepFinished", label: "shout_item", kind: "prompt", n: 3, seconds: 1.5, status: "failed", error: "boom", prefix: "", stepId: "3", parentStepId: "1", uri: URI, range: range(5) },
  { type: "stepFinished", label: "each", kind: "for_each", n: 1, seconds: 2, status: "failed", error: "boom", prefix: "", stepId: "1", parentStepId: null, uri: URI, range: range(2) },
  { type: "runFinished", status: "failed", seconds: 2.5, error: "lait: step 'each': boom" },
];

function outline(node: TreeNode, depth = 0): string[] {
  const s = show(node);
  return [`${"  ".repeat(depth)}${s.label} | ${s.description} | ${s.icon}`, ...node.children.flatMap((c) => outline(c, depth + 1))];
}

function started(tree: RunTree): RunNode {
  return tree.start("r1", "each.yml", { uri: URI, kind: "workflow", prompt: "go", runId: "r1", workDoneToken: "t" });
}

test("a for_each's steps nest under it with their tool calls, states, durations and tokens", () => {
  let changes = 0;
  const tree = new RunTree(() => (changes += 1));
  const run = started(tree);
  for (const event of FOR_EACH) tree.event("r1", event);
  tree.finish({ runId: "r1", status: "failed", output: "", error: "lait: step 'each': boom" });
  assert.deepEqual(outline(run), [
    "each | failed · 2.5s · 40 tokens | error",
    "  [1] each | for_each · failed · 2.0s · 40 tokens | error",
    "    item 1/2 |  | info",
    "    [2] shout_item | prompt · ok · 0.3s · 15 tokens | pass",
    '      tool tool__shout | {"text": "apple"} → APPLE | tools',
    "    item 2/2 |  | info",
    "    [3] shout_item | prompt · failed · 1.5s · 25 tokens | error",
    '      tool tool__shout failed | {"text": "pear"} → exit 1 | error',
    "      boom |  | error", // the error, once: under the innermost step that failed with it
  ]);
  assert.ok(changes >= FOR_EACH.length);
  const step = run.children[0]!.children[1]!;
  assert.deepEqual(show(step).place, { uri: URI, line: 5, character: 4, endLine: 8, endCharacter: 0 });
  assert.equal(show(step).context, "step.ok");
  assert.equal(show(run).context, "run.failed");
  // "Run again" gets the same request without the old run's ids.
  assert.deepEqual(run.params, { uri: URI, kind: "workflow", prompt: "go", runId: undefined, workDoneToken: undefined });
  assert.match(tree.outputText(run), /^==> each\n\[1\] each\n {4}-> item 1\/2\n\[2\] shout_item\n {4}-> tool tool__shout\({"text": "apple"}\)\n/);
  assert.match(tree.outputText(run), /\n==> failed: lait: step 'each': boom\n$/);
});

test("approvals show under the step that asked, with the answer once it comes", async () => {
  const tree = new RunTree();
  const run = started(tree);
  tree.event("r1", FOR_EACH[2]!);
  tree.event("r1", FOR_EACH[4]!);
  let answer: (d: { decision: "session" }) => void = () => undefined;
  tree.approval({ runId: "r1", tool: "tool__shout", stepId: "2" } as never, new Promise((resolve) => (answer = resolve)));
  const node = run.children[0]!.children[0]!.children[0]!;
  assert.deepEqual([show(node).label, show(node).description], ["approval asked: tool__shout", "waiting for an answer"]);
  answer({ decision: "session" });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(show(node).description, "allowed for this session");
  tree.approval({ runId: "other", tool: "x" });
  assert.equal(tree.runs.length, 1);
});

test("cancelled runs mark their running steps cancelled; steps without ids go under the run", () => {
  const tree = new RunTree();
  const run = started(tree);
  tree.event("r1", { type: "stepStarted", label: "a", kind: "run", n: 1 });
  tree.event("r1", { type: "toolDenied", callId: "d1", name: "rm", reason: "tool_policy" });
  tree.finish({ runId: "r1", status: "cancelled", output: "" });
  assert.deepEqual(outline(run), ["each.yml | cancelled | circle-slash", "  [1] a | run · cancelled | circle-slash", "  tool rm denied |  → tool_policy | circle-slash"]);
  tree.clear();
  assert.equal(tree.runs.length, 0);
});

test("older finished runs are dropped, running ones kept", () => {
  const tree = new RunTree();
  for (let i = 0; i < 25; i += 1) {
    tree.start(`r${i}`, `run ${i}`, { uri: URI, kind: "workflow" });
    if (i > 0) tree.finish({ runId: `r${i}`, status: "ok", output: "" });
  }
  assert.equal(tree.runs.length, 20);
  assert.ok(tree.run("r0") !== undefined && tree.run("r24") !== undefined && tree.run("r5") === undefined);
});

test("a trace file becomes a run: steps by label, model calls with tokens, tool calls", () => {
  const tree = new RunTree();
  const lines = [
    { seq: 0, operation: "chat", label: "work", start: "2026-12-01T10:00:00.000000Z", end: "2026-12-01T10:00:01.000000Z", duration_ms: 1000, attributes: { "gen_ai.request.model": "m", "lait.source": "replay", "gen_ai.usage.input_tokens": 7, "gen_ai.usage.output_tokens": 3 } },
    { seq: 1, operation: "execute_tool", label: "work", start: "2026-12-01T10:00:01.000000Z", end: "2026-12-01T10:00:01.500000Z", duration_ms: 500, attributes: { "gen_ai.tool.name": "tool__shout", "gen_ai.tool.call.id": "c1", "gen_ai.tool.arguments": '{"text":"hi"}', "lait.tool.decision": "allow" } },
    { seq: 2, operation: "execute_tool", label: "other", start: "2026-12-01T10:00:02.000000Z", end: "2026-12-01T10:00:03.000000Z", duration_ms: 10, attributes: { "gen_ai.tool.name": "rm", "lait.tool.denial_reason": "policy" } },
  ];
  const text = [...lines.map((l) => JSON.stringify(l)), "not json", ""].join("\n");
  const run = tree.addTrace("/w/t.jsonl", "t.jsonl", text);
  assert.deepEqual(outline(run), [
    "t.jsonl | trace · ok · 3.0s · 10 tokens | pass",
    "  work | model · ok · 1.5s · 10 tokens | pass",
    "    model m (replay): 10 tokens in 1.0s |  | info",
    '    tool tool__shout | {"text":"hi"} | tools',
    "  other | ok · 0.0s | pass",
    "    tool rm denied |  → policy | circle-slash",
    "  1 line(s) skipped: line 4: not a JSON object |  | warning",
  ]);
  assert.equal(show(run).context, "run.ok.trace");
  tree.addTrace("/w/t.jsonl", "t.jsonl", "");
  assert.equal(tree.runs.length, 1);
});

test("a failure's quoted stderr shows line by line; a cancelled run's tools and steps are cancelled, not failed", () => {
  const tree = new RunTree();
  const failed = tree.start("r2", "mcp", { uri: URI, kind: "workflow" });
  const error =
    "lait: MCP server 'notes': could not connect: the server process exited (exit status: 1); its stderr ended with:\n" +
    "    notes server starting\n    Traceback (most recent call last):\n    ModuleNotFoundError: No module named 'mcp'";
  tree.finish({ runId: "r2", status: "failed", output: "", error });
  assert.deepEqual(outline(failed).slice(1), [
    "  lait: MCP server 'notes': could not connect: the server process exited (exit status: 1); its stderr ended with: |  | error",
    "  notes server starting |  | error",
    "  Traceback (most recent call last): |  | error",
    "  ModuleNotFoundError: No module named 'mcp' |  | error",
  ]);
  const cancelled = tree.start("r3", "slow", { uri: URI, kind: "workflow" });
  tree.event("r3", { type: "stepStarted", label: "wait", kind: "prompt", n: 1, stepId: "1", parentStepId: null });
  tree.event("r3", { type: "toolCall", callId: "t1", name: "tool__sleepy", arguments: "{}", stepId: "1" });
  tree.finish({ runId: "r3", status: "cancelled", output: "" });
  assert.deepEqual(outline(cancelled), [
    "slow | cancelled | circle-slash",
    "  [1] wait | prompt · cancelled | circle-slash",
    "    tool tool__sleepy cancelled | {} | circle-slash",
  ]);
});
