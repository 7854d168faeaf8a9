import assert from "node:assert/strict";
import { test } from "node:test";

import { approvalDialog, approve, argumentsText, argvText, describeApproval, shellQuote } from "../approval";
import type { ApproveParams } from "../protocol";
import { CancelSource } from "../ui";
import { ESC, ScriptedUi } from "./scriptedUi";

const mcp: ApproveParams = { runId: "r", tool: "notes__save", server: "notes", kind: "mcp", arguments: '{"title":"a","body":"b"}' };
const shell: ApproveParams = { runId: "r", tool: "tool__grep", kind: "shell", arguments: '{"pattern":"TODO"}', command: ["grep", "-rn", "TODO it's", "src/"] };

test("each choice maps to its decision; Escape is deny", async () => {
  assert.deepEqual(await approve(new ScriptedUi(["Allow once"]), mcp), { decision: "once" });
  assert.deepEqual(await approve(new ScriptedUi(["Allow for this session"]), mcp), { decision: "session" });
  assert.deepEqual(await approve(new ScriptedUi(["Deny"]), mcp), { decision: "deny" });
  assert.deepEqual(await approve(new ScriptedUi([ESC]), mcp), { decision: "deny" });
});

test("a run cancelled while the dialog is open is deny", async () => {
  const source = new CancelSource();
  const ui = new ScriptedUi(["Allow once"]);
  const pick = ui.pick.bind(ui);
  ui.pick = async (items, options) => {
    source.cancel();
    return pick(items, options);
  };
  assert.deepEqual(await approve(ui, mcp, source.token), { decision: "deny" });
});

test("the dialog shows the tool, its server and the arguments", async () => {
  const ui = new ScriptedUi(["Allow once"]);
  await approve(ui, mcp);
  const call = ui.calls[0];
  assert.equal(call?.title, "lait: allow notes__save?");
  assert.deepEqual(call?.labels, ["Allow once", "Allow for this session", "Deny"]);
  assert.equal(call?.placeholder, `notes__save · MCP server 'notes' · arguments: {"title":"a","body":"b"}`);
  const dialog = approvalDialog(mcp);
  assert.equal(dialog.items[0]?.detail, `arguments: {"title":"a","body":"b"}`);
});

test("shell tools show the exact argv, quoted as a shell would need it", () => {
  const dialog = approvalDialog(shell);
  assert.equal(dialog.placeholder, `tool__grep · shell tool · runs: grep -rn 'TODO it'"'"'s' src/`);
  assert.deepEqual(describeApproval(shell), [
    "approval needed: tool tool__grep",
    `    argv: grep -rn 'TODO it'"'"'s' src/`,
    `    arguments: {"pattern":"TODO"}`,
  ]);
  assert.equal(shellQuote(""), "''");
  assert.equal(shellQuote("a b"), "'a b'");
  assert.equal(shellQuote("--x=1,2"), "--x=1,2");
  assert.equal(shellQuote("$HOME"), "'$HOME'");
  assert.equal(argvText(["echo", "a;b"]), "echo 'a;b'");
});

test("arguments: JSON text, objects, and text that is not JSON", () => {
  assert.equal(argumentsText('{ "a" : [1, 2] }'), '{"a":[1,2]}');
  assert.equal(argumentsText({ a: 1 }), '{"a":1}');
  assert.equal(argumentsText("{not json"), "{not json");
  assert.equal(argumentsText(undefined), "{}");
  assert.equal(argumentsText({ a: 1 }, true), '{\n  "a": 1\n}');
  const long = approvalDialog({ tool: "t", arguments: { text: "x".repeat(1000) } });
  assert.ok(long.placeholder.length < 220);
  assert.ok(long.placeholder.endsWith("…"));
});
