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
    assert.ok(found.tried.includes(path.join(root, "path-bin", "lait-ls")));
    assert.equal(found.tried.at(-1), path.join(root, "home", ".local", "bin", "lait-ls"));
    assert.equal(
      found.error,
      "lait-ls was not found in the workspace's .venv, the workspace's venv, the workspace's env, the workspace's .env, PATH, pipx and uv tool; install lait there (python3 -m pip install lait, pipx install lait) or set lait.server.path",
    );
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test("Windows layout: Scripts\\lait-ls.exe and ; in PATH", () => {
  const list = candidates({ configured: "", workspaceFolders: ["/w"], env: { PATH: "/a;/b" }, platform: "win32", home: "/h", isExecutable: () => false });
  assert.ok(list.some((c) => c.file === path.join("/w", ".venv", "Scripts", "lait-ls.exe")));
  assert.deepEqual(list.filter((c) => c.source === "PATH").map((c) => c.file), [path.join("/a", "lait-ls.exe"), path.join("/b", "lait-ls.exe")]);
});

test("places are tried once each: PATH twice, the login shell's PATH, ~/.local/bin on both", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "lait-vscode-"));
  try {
    const local = path.join(root, "home", ".local", "bin");
    const found = findServer(
      search(root, {
        env: { PATH: [path.join(root, "a"), local, path.join(root, "a")].join(":"), PIPX_BIN_DIR: local },
        loginPath: [path.join(root, "a"), path.join(root, "login")].join(":"),
      }),
    );
    assert.ok("error" in found);
    assert.equal(new Set(found.tried).size, found.tried.length);
    assert.deepEqual(found.tried.slice(-3), [path.join(root, "a", "lait-ls"), path.join(local, "lait-ls"), path.join(root, "login", "lait-ls")]);
    assert.match(found.error, /not found in the workspace's \.venv, .*, PATH, the login shell's PATH;/);
    // Found on the login shell's PATH only (VS Code started the extension host with another PATH).
    const login = executable(path.join(root, "login", "lait-ls"));
    assert.deepEqual(findServer(search(root, { loginPath: path.join(root, "login") })), { command: login, source: "the login shell's PATH" });
    const uv = executable(path.join(root, "uv-bin", "lait-ls"));
    assert.deepEqual(findServer(search(root, { env: { UV_TOOL_BIN_DIR: path.join(root, "uv-bin") } })), { command: uv, source: "uv tool" });
    const pipx = executable(path.join(local, "lait-ls"));
    assert.deepEqual(findServer(search(root, { env: {} })), { command: pipx, source: "pipx and uv tool" });
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});

test("Restricted Mode: nothing inside the workspace runs; lint still gets a server from outside", () => {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "lait-vscode-"));
  try {
    const ws = path.join(root, "ws");
    const venv = executable(path.join(ws, ".venv", "bin", "lait-ls"));
    executable(path.join(ws, "bin", "lait-ls"));
    const onPath = executable(path.join(root, "path-bin", "lait-ls"));
    const untrusted = (extra: Partial<ServerSearch> = {}): ServerSearch => search(root, { trusted: false, ...extra });
    assert.deepEqual(findServer(search(root)), { command: venv, source: "the workspace's .venv" });
    assert.deepEqual(findServer(untrusted()), { command: onPath, source: "PATH" });
    // The Python interpreter is not asked, and PATH entries in the workspace (or relative) are skipped.
    const env = { PATH: [".", "bin", path.join(ws, "bin"), path.join(root, "path-bin")].join(":") };
    const list = candidates(untrusted({ env, pythonInterpreter: path.join(ws, ".venv", "bin", "python") }));
    assert.ok(list.every((c) => !c.file.startsWith(ws) && path.isAbsolute(c.file)), JSON.stringify(list));
    assert.deepEqual(findServer(untrusted({ env })), { command: onPath, source: "PATH" });
    // A bare name is looked up on PATH here, outside the workspace.
    assert.deepEqual(findServer(untrusted({ env, configured: "lait-ls" })), { command: onPath, source: "lait.server.path" });
    // A user setting that points into the workspace is refused with the reason.
    for (const configured of ["${workspaceFolder}/.venv/bin/lait-ls", ".venv/bin/lait-ls", path.join(ws, "bin", "lait-ls")]) {
      const refused = findServer(untrusted({ configured }));
      assert.ok("error" in refused, configured);
      assert.match(refused.error, /inside the workspace \(Restricted Mode: /);
    }
    // Nothing outside: the error says why the workspace's own lait-ls was not used.
    fs.rmSync(onPath);
    const none = findServer(untrusted());
    assert.ok("error" in none);
    assert.match(none.error, /^lait-ls was not found in PATH, pipx and uv tool \(Restricted Mode: lait-ls is not taken from the workspace/);
    assert.ok(!none.tried.includes(venv));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
