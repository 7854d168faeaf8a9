import assert from "node:assert/strict";
import { test } from "node:test";

import { ask } from "../ask";
import { CancelSource } from "../ui";
import { ESC, ScriptedUi } from "./scriptedUi";

test("an input box with the default pre-filled", async () => {
  const ui = new ScriptedUi(["main"]);
  assert.deepEqual(await ask(ui, { runId: "r", question: "Which branch?", default: "dev" }), { answer: "main" });
  assert.equal(ui.calls[0]?.method, "input");
  assert.equal(ui.calls[0]?.prompt, "Which branch?");
  assert.equal(ui.calls[0]?.value, "dev");
});

test("choices: a quick pick with the default first and marked", async () => {
  const ui = new ScriptedUi(["yes"]);
  assert.deepEqual(await ask(ui, { question: "Ship it?", choices: ["no", "maybe", "yes"], default: "maybe" }), { answer: "yes" });
  assert.deepEqual(ui.calls[0]?.labels, ["maybe", "no", "yes"]);
  assert.deepEqual(ui.calls[0]?.descriptions, ["default", undefined, undefined]);
  assert.equal(ui.calls[0]?.placeholder, "Ship it?");
});

test("dismissed = null (input box and quick pick), also when the run was cancelled", async () => {
  assert.equal(await ask(new ScriptedUi([ESC]), { question: "q" }), null);
  assert.equal(await ask(new ScriptedUi([ESC]), { question: "q", choices: ["a"] }), null);
  const source = new CancelSource();
  source.cancel();
  assert.equal(await ask(new ScriptedUi(["a"]), { question: "q" }, source.token), null);
});

test("multiline: \\n typed in the box becomes a new line; an empty answer is an answer", async () => {
  const ui = new ScriptedUi(["line 1\\nline 2"]);
  assert.deepEqual(await ask(ui, { question: "Notes", multiline: true }), { answer: "line 1\nline 2" });
  assert.match(ui.calls[0]?.prompt ?? "", /\\n for a new line/);
  assert.deepEqual(await ask(new ScriptedUi([""]), { question: "q" }), { answer: "" });
});
