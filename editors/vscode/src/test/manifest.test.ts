import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";

import * as protocol from "../protocol";

const root = path.join(__dirname, "..", "..");
const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as {
  main: string;
  contributes: { commands: Array<{ command: string }>; configuration: { properties: Record<string, { default?: unknown }> } };
  dependencies: Record<string, string>;
};
const protocolDoc = fs.readFileSync(path.join(root, "PROTOCOL.md"), "utf8");

test("the lens commands of PROTOCOL.md are contributed and registered", () => {
  const contributed = manifest.contributes.commands.map((c) => c.command);
  const extension = fs.readFileSync(path.join(root, "src", "extension.ts"), "utf8");
  for (const command of ["lait.runWorkflow", "lait.runAgent", "lait.dryRun", "lait.runTest", "lait.runEval"]) {
    assert.ok(contributed.includes(command), command);
    assert.ok(protocolDoc.includes(`\`${command}\``), command);
    assert.ok(extension.includes(`registerCommand("${command}"`), command);
  }
  for (const command of contributed) {
    assert.ok(extension.includes(`registerCommand("${command}"`), `${command} is contributed but not registered`);
  }
});

test("every method the extension uses is specified in PROTOCOL.md", () => {
  for (const method of [protocol.RUN, protocol.RUN_EVENT, protocol.STATUS, protocol.APPROVE_TOOL_CALL, protocol.ELICIT, protocol.ASK]) {
    assert.ok(protocolDoc.includes(`\`${method}\``), method);
  }
  assert.deepEqual(protocol.CLIENT_CAPABILITY.requests, ["lait/approveToolCall", "lait/elicit", "lait/ask"]);
});

test("settings: lait.server.path (default: search), lait.approveTools (default: always ask), lait.diagnostics.workspace (default: on)", () => {
  const properties = manifest.contributes.configuration.properties;
  assert.equal(properties["lait.server.path"]?.default, "");
  assert.equal(properties["lait.approveTools"]?.default, "always");
  // Pull diagnostics (the Problems panel lists closed files too) unless switched off.
  assert.equal(properties["lait.diagnostics.workspace"]?.default, true);
  const extension = fs.readFileSync(path.join(root, "src", "extension.ts"), "utf8");
  assert.match(extension, /diagnostics: workspaceDiagnostics\(\) \? "pull" : "push"/);
  assert.equal(manifest.main, "./dist/extension.js"); // bundled from out/extension.js by tools/bundle.js
  assert.ok(fs.existsSync(path.join(root, "out", "extension.js")));
  assert.ok("vscode-languageclient" in manifest.dependencies);
});

test("workspace trust: limited support, the server path a restricted configuration", () => {
  const capabilities = (manifest as unknown as {
    capabilities: { untrustedWorkspaces: { supported: string | boolean; description: string; restrictedConfigurations: string[] } };
  }).capabilities;
  assert.equal(capabilities.untrustedWorkspaces.supported, "limited");
  assert.deepEqual(capabilities.untrustedWorkspaces.restrictedConfigurations, ["lait.server.path", "lait.server.args"]);
  assert.match(capabilities.untrustedWorkspaces.description, /Restricted Mode/);
});
