import assert from "node:assert/strict";
import { test } from "node:test";

import { errorSummary, runNotice } from "../runNotice";

const MCP_ERROR =
  "lait: MCP server 'notes': could not connect: the server process exited (exit status: 1); its stderr ended with:\n" +
  "    notes server starting\n    Traceback (most recent call last):\n    ModuleNotFoundError: No module named 'mcp'";

test("a failed run's notice names the cause: the last line of the stderr it quotes", () => {
  const notice = runNotice("triage", false, "failed", 1.2, MCP_ERROR);
  assert.equal(notice.severity, "error");
  assert.equal(
    notice.message,
    "lait: triage failed: MCP server 'notes': could not connect: the server process exited (exit status: 1); its stderr ended with: ModuleNotFoundError: No module named 'mcp'",
  );
  assert.equal(errorSummary("step 'x': boom\nmore detail"), "step 'x': boom");
  assert.ok(errorSummary("x".repeat(1000)).length <= 300);
});

test("ok and cancelled runs are not failures", () => {
  assert.deepEqual(runNotice("each-fruit", false, "ok", 2.25, undefined), { severity: "info", message: "lait: each-fruit finished in 2.3s" });
  assert.deepEqual(runNotice("slow", false, "cancelled", undefined, "cancelled"), { severity: "info", message: "lait: slow was cancelled" });
  assert.equal(runNotice("triage", true, "ok", undefined, undefined).message, "lait: dry run of triage finished");
});
