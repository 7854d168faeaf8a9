import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test } from "node:test";

import { candidates, findServer, type ServerSearch } from "../serverPath";

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function executable(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, "#!/bin/sh\n", { mode: 0o755 });
  return file;
}

function search(root: string, extra: Partial<ServerSearch> = {}): ServerSearch {
  return { configured: "", workspaceFolders: [path.join(root, "ws")], env: { PATH: path.join(root, "path-bin") }, platform: "linux", home: path.join(root, "home"), isExecutable, ...extra };
}

test("order: workspace .venv, venv, the Python interpreter's folder, then PATH", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "lait-vscode-"));
  try {
    const onPath = executable(path.join(root, "path-bin", "lait-ls"));
    assert.deepEqual(findServer(search(root)), { command: onPath, source: "PATH" });
    const interp = executable(path.join(root, "py", "bin", "lait-ls"));
    assert.deepEqual(findServer(search(root, { pythonInterpreter: path.join(root, "py", "bin", "python3") })), { command: interp, source: "the selected Python interpreter" });
    const venv = executable(path.join(root, "ws", "venv", "bin", "lait-ls"));
    assert.deepEqual(findServer(search(root)), { command: venv, source: "the workspace's venv" });
    const dotVenv = executable(path.join(root, "ws", ".venv", "bin", "lait-ls"));
    assert.deepEqual(findServer(search(root)), { command: dotVenv, source: "the workspace's .venv" });
    // A file that is not executable is skipped.
    fs.chmodSync(dotVenv, 0o644);
    assert.equal((findServer(search(root)) as { command: string }).command, venv);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test("lait.server.path wins; ~ and ${workspaceFolder} expand; a missing file is a clear error", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "lait-vscode-"));
  try {
    executable(path.join(root, "ws", ".venv", "bin", "lait-ls"));
    const custom = executable(path.join(root, "home", "bin", "my-lait-ls"));
    assert.deepEqual(findServer(search(root, { configured: "~/bin/my-lait-ls" })), { command: custom, source: "lait.server.path" });
    const inWs = executable(path.join(root, "ws", "tools", "lait-ls"));
    assert.deepEqual(findServer(search(root, { configured: "${workspaceFolder}/tools/lait-ls" })), { command: inWs, source: "lait.server.path" });
    assert.deepEqual(findServer(search(root, { configured: "tools/lait-ls" })), { command: inWs, source: "lait.server.path" });
    assert.deepEqual(findServer(search(root, { configured: "lait-ls" })), { command: "lait-ls", source: "lait.server.path" });
    const missing = findServer(search(root, { configured: "/nope/lait-ls" }));
    assert.deepEqual(missing, { error: "lait.server.path is '/nope/lait-ls', but /nope/lait-ls is not an executable file", tried: ["/nope/lait-ls"] });
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test("nothing found: the error says where it looked and what to do", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "lait-vscode-"));
  try {
    const found = findServer(search(root));
    assert.ok("error" in found);
    assert.match(found.error, /set lait.server.path/);
    assert.equal(found.tried[0], path.join(root, "ws", ".venv", "bin", "lait-ls"));
    assert.equal(found.tried.at(-1), path.join(root, "path-bin", "lait-ls"));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test("Windows layout: Scripts\\lait-ls.exe and ; in PATH", () => {
  const list = candidates({ configured: "", workspaceFolders: ["/w"], env: { PATH: "/a;/b" }, platform: "win32", home: "/h", isExecutable: () => false });
  assert.ok(list.some((c) => c.file === path.join("/w", ".venv", "Scripts", "lait-ls.exe")));
  assert.deepEqual(list.filter((c) => c.source === "PATH").map((c) => c.file), [path.join("/a", "lait-ls.exe"), path.join("/b", "lait-ls.exe")]);
});
