import assert from "node:assert/strict";
import { test } from "node:test";

import { eventLine, RunLog } from "../events";

test("progress lines as lait run prints them", () => {
  assert.equal(eventLine({ type: "runStarted", uri: "file:///w/triage.yml", kind: "workflow", name: "triage" }), undefined);
  assert.equal(eventLine({ type: "workflowStarted", name: "triage", description: "sort issues", depth: 0, prefix: "" }), "==> triage: sort issues");
  assert.equal(eventLine({ type: "workflowStarted", name: "child", description: null, depth: 1, prefix: "    " }), "    -> child");
  assert.equal(eventLine({ type: "stepProgress", label: "loop", message: "item 1/3", prefix: "[b] " }), "[b]     -> item 1/3");
  assert.equal(eventLine({ type: "stepStarted", label: "classify", kind: "prompt", n: 1 }), "[1] classify");
  assert.equal(eventLine({ type: "stepStarted", label: "step-2 (run)", kind: "run", n: 2, prefix: "[a] " }), "[a] [2] step-2 (run)");
  assert.equal(eventLine({ type: "stepFinished", label: "x", status: "skipped", n: 3 }), "[3] x (skipped)");
  assert.equal(eventLine({ type: "stepFinished", label: "x", status: "ok", seconds: 1 }), undefined);
  assert.equal(eventLine({ type: "stepFinished", label: "x", status: "failed", seconds: 1.25, error: "boom" }), "    -> x failed in 1.3s: boom");
  assert.equal(
    eventLine({ type: "stepRetrying", label: "x", attempt: 1, maxAttempts: 3, error: "timeout", delaySeconds: 2 }),
    "    -> attempt 1/3 failed: timeout; retrying in 2.0s",
  );
  assert.equal(eventLine({ type: "toolCall", callId: "c1", name: "notes__save", arguments: '{"t":1}' }), '    -> tool notes__save({"t":1})');
  assert.equal(eventLine({ type: "toolResult", callId: "c1", name: "notes__save", result: "saved\nid 4", isError: false }), "    <- notes__save: saved …");
  assert.equal(eventLine({ type: "toolResult", callId: "c1", name: "grep", result: "exit 2", isError: true }), "    <- grep failed: exit 2");
  assert.equal(eventLine({ type: "toolDenied", callId: "c1", name: "grep", reason: "denied by the user" }), "    -> tool grep denied: denied by the user");
  assert.equal(eventLine({ type: "usage", promptTokens: 10, completionTokens: 5, totalTokens: 15 }), "usage: 10 prompt + 5 completion = 15 tokens");
  assert.equal(eventLine({ type: "warning", message: "w" }), "warning: w");
  assert.equal(eventLine({ type: "note", message: "n" }), "note: n");
  assert.equal(eventLine({ type: "compacted", round: 3, messagesBefore: 40, messagesAfter: 12 }), "    -> compacted history: 40 -> 12 messages");
  assert.equal(eventLine({ type: "runFinished", status: "ok", seconds: 2 }), "==> ok in 2.0s");
  assert.equal(eventLine({ type: "runFinished", status: "failed", error: "lait: x" }), "==> failed: lait: x");
  assert.equal(eventLine({ type: "testResult", file: "t.test.yml", status: "pass", failures: [] }), "t.test.yml: PASS");
  assert.equal(
    eventLine({ type: "testResult", file: "t.test.yml", status: "fail", failures: ["assertion 1: a", "assertion 3: b"] }),
    "t.test.yml: FAIL\n  assertion 1: a\n  assertion 3: b",
  );
  assert.equal(
    eventLine({ type: "evalCase", case: 2, input: "x", passed: 2, total: 3, successRate: 2 / 3, runs: [] }),
    "case 2: 2/3 (67%) FAIL",
  );
  assert.equal(eventLine({ type: "evalCase", case: 1, input: "x", passed: 3, total: 3, successRate: 1, runs: [] }), "case 1: 3/3 (100%) PASS");
  assert.equal(eventLine({ type: "round", round: 1 }), undefined);
  assert.equal(eventLine({ type: "somethingNew", a: 1 }), 'somethingNew: {"a":1}');
  const long = eventLine({ type: "toolResult", name: "t", result: "y".repeat(500), isError: false }) ?? "";
  assert.ok(long.length < 220 && long.endsWith("…"));
});

test("RunLog: streamed text is written as it comes; a progress line breaks the line first", () => {
  let out = "";
  const log = new RunLog((text) => (out += text));
  log.event("r", { type: "runStarted", uri: "file:///w/a.yml", kind: "workflow", name: "a" });
  log.event("r", { type: "workflowStarted", name: "a", description: null, depth: 0, prefix: "" });
  log.event("r", { type: "stepStarted", label: "write", kind: "prompt", n: 1 });
  log.event("r", { type: "text", text: "Hel" });
  log.event("r", { type: "text", text: "lo" });
  log.event("r", { type: "toolCall", callId: "1", name: "t", arguments: "{}" });
  log.event("r", { type: "text", text: " world" });
  log.event("r", { type: "streamEnded", final: true });
  log.event("r", { type: "reasoning", text: "hidden" });
  log.event("r", { type: "runFinished", status: "ok", seconds: 1.5 });
  log.finished({ runId: "r", status: "ok", output: "Hello world" });
  assert.equal(out, "==> a\n[1] write\nHello\n    -> tool t({})\n world\n==> ok in 1.5s\n");
});

test("RunLog: the output of a run that did not stream, failures and cancellations", () => {
  let out = "";
  const log = new RunLog((text) => (out += text));
  log.finished({ runId: "a", status: "ok", output: '{"label":"bug"}\n' });
  log.finished({ runId: "b", status: "failed", output: "", error: "lait: missing required input 'repo'" });
  log.finished({ runId: "c", status: "cancelled", output: "" });
  log.note("approval needed: tool x");
  assert.equal(out, `{"label":"bug"}\n==> ok\n==> failed: lait: missing required input 'repo'\n==> cancelled\napproval needed: tool x\n`);
});
