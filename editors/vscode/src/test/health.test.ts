import assert from "node:assert/strict";
import { test } from "node:test";

import { CrashPolicy, healthView, menuItems, startFailure, StderrTail } from "../health";

const TRACEBACK = `lait-ls starting
Traceback (most recent call last):
  File "<string>", line 1, in <module>
ModuleNotFoundError: No module named 'lait_ls'
`;

test("each state has its own text; only ready shows a version", () => {
  const folders = ["/p"];
  assert.equal(healthView({ state: "starting" }, folders, undefined).text, "$(sync~spin) lait starting");
  assert.doesNotMatch(healthView({ state: "starting" }, folders, undefined).tooltip, /\d+\.\d+\.\d+/);
  const ready = healthView({ state: "ready", version: "0.1.0", status: { version: "0.1.0", configFile: "/p/lait.config.yml" } }, folders, undefined);
  assert.equal(ready.text, "$(check) lait 0.1.0 · lait.config.yml");
  assert.equal(ready.tone, undefined);
  const degraded = healthView({ state: "ready", version: "0.1.0", status: { version: "0.1.0", configFile: "/p/lait.config.yml", configError: "bad" } }, folders, undefined);
  assert.equal(degraded.degraded, true);
  assert.equal(degraded.tone, "warning");
  const stopped = healthView({ state: "stopped", reason: "it ended 5 times" }, folders, undefined);
  assert.equal(stopped.text, "$(debug-stop) lait stopped");
  assert.equal(stopped.tone, "error");
  assert.match(stopped.tooltip, /Restart/);
  assert.equal(healthView({ state: "notFound", reason: "x" }, folders, undefined).text, "$(warning) lait-ls not found");
  assert.equal(healthView({ state: "stopped", reason: "x" }, folders, "restricted").text, "$(debug-stop) lait stopped · $(shield) restricted");
});

test("a failed start names the cause from stderr", () => {
  const tail = new StderrTail();
  for (const piece of TRACEBACK.match(/.{1,7}/gs) ?? []) tail.push(piece); // in arbitrary chunks
  assert.equal(tail.cause(), "ModuleNotFoundError: No module named 'lait_ls'");
  assert.equal(
    startFailure("/venv/bin/lait-ls", { code: 1, signal: null }, tail),
    "/venv/bin/lait-ls did not start: ModuleNotFoundError: No module named 'lait_ls' (exit status 1)",
  );
  const quiet = new StderrTail();
  assert.equal(startFailure("lait-ls", { code: null, signal: "SIGKILL" }, quiet), "lait-ls did not start (killed by SIGKILL), and wrote nothing on stderr");
  assert.equal(startFailure("lait-ls", undefined, quiet, "spawn lait-ls EACCES"), "lait-ls did not start: spawn lait-ls EACCES");
  const other = new StderrTail();
  other.push("something odd\nthe last words\n");
  assert.equal(other.cause(), "the last words");
});

test("the stderr tail is bounded", () => {
  const tail = new StderrTail(100);
  for (let i = 0; i < 1000; i++) tail.push(`line ${i}\n`);
  assert.ok(tail.lines().join("\n").length <= 100);
  assert.equal(tail.lines().at(-1), "line 999");
});

test("a crashing server is restarted four times in three minutes, then given up on", () => {
  const policy = new CrashPolicy();
  const start = 1_000_000;
  assert.deepEqual([0, 1, 2, 3, 4].map((i) => policy.crashed(start + i * 1000)), [true, true, true, true, false]);
  assert.equal(policy.count(), 5);
  assert.equal(policy.crashed(start + 10 * 60_000), true); // long after: counted afresh
  policy.reset();
  assert.equal(policy.count(), 0);
});

test("the status menu: Restart, Show output, Open settings; Trust only when untrusted", () => {
  assert.deepEqual(menuItems(true).map((i) => i.action), ["restart", "output", "settings"]);
  assert.deepEqual(menuItems(false).map((i) => i.action), ["restart", "output", "settings", "trust"]);
});
