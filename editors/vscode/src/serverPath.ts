// Which `lait-ls` to start: the `lait.server.path` setting, else the workspace's Python
// environment, else PATH. No `vscode` import (the file system is passed in).

import * as path from "node:path";

export interface ServerSearch {
  /** The `lait.server.path` setting ("" = not set). `~` and `${workspaceFolder}` are expanded. */
  configured: string;
  workspaceFolders: readonly string[];
  /** The Python interpreter the Python extension uses, when known. */
  pythonInterpreter?: string | undefined;
  env: { [key: string]: string | undefined };
  platform: NodeJS.Platform;
  home: string;
  isExecutable: (file: string) => boolean;
}

export type ServerFound = { command: string; source: string } | { error: string; tried: string[] };

const VENV_DIRS = [".venv", "venv", "env", ".env"];

function exeName(platform: NodeJS.Platform): string {
  return platform === "win32" ? "lait-ls.exe" : "lait-ls";
}

function binDir(platform: NodeJS.Platform): string {
  return platform === "win32" ? "Scripts" : "bin";
}

function expand(setting: string, search: ServerSearch): string {
  let value = setting.trim();
  const folder = search.workspaceFolders[0];
  if (folder !== undefined) {
    value = value.replace(/\$\{workspaceFolder\}/g, folder);
  }
  if (value === "~" || value.startsWith("~/")) {
    value = path.join(search.home, value.slice(1));
  }
  if (!path.isAbsolute(value) && value.includes("/") && folder !== undefined) {
    value = path.join(folder, value);
  }
  return value;
}

/** The candidates in order, with where each comes from. */
export function candidates(search: ServerSearch): Array<{ file: string; source: string }> {
  const exe = exeName(search.platform);
  const list: Array<{ file: string; source: string }> = [];
  for (const folder of search.workspaceFolders) {
    for (const venv of VENV_DIRS) {
      list.push({ file: path.join(folder, venv, binDir(search.platform), exe), source: `the workspace's ${venv}` });
    }
  }
  if (search.pythonInterpreter) {
    list.push({ file: path.join(path.dirname(search.pythonInterpreter), exe), source: "the selected Python interpreter" });
  }
  const sep = search.platform === "win32" ? ";" : ":";
  for (const dir of (search.env["PATH"] ?? "").split(sep)) {
    if (dir !== "") {
      list.push({ file: path.join(dir, exe), source: "PATH" });
    }
  }
  return list;
}

export function findServer(search: ServerSearch): ServerFound {
  if (search.configured.trim() !== "") {
    const file = expand(search.configured, search);
    if (!file.includes("/") && !file.includes("\\")) {
      // A bare command name: let the process search PATH for it.
      return { command: file, source: "lait.server.path" };
    }
    if (search.isExecutable(file)) {
      return { command: file, source: "lait.server.path" };
    }
    return { error: `lait.server.path is '${search.configured}', but ${file} is not an executable file`, tried: [file] };
  }
  const tried: string[] = [];
  for (const candidate of candidates(search)) {
    if (search.isExecutable(candidate.file)) {
      return { command: candidate.file, source: candidate.source };
    }
    tried.push(candidate.file);
  }
  return {
    error:
      "lait-ls was not found in the workspace's Python environment (.venv, venv) nor on PATH; " +
      "install lait there (python3 -m pip install lait) or set lait.server.path",
    tried,
  };
}
