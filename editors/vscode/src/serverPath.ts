// Which `lait-ls` to start: the `lait.server.path` setting, else the workspace's Python
// environment, the Python extension's interpreter, PATH, the login shell's PATH and the folders
// pipx and `uv tool` install into. In Restricted Mode (an untrusted workspace) nothing inside a
// workspace folder is ever run. No `vscode` import (the file system is passed in).

import * as path from "node:path";

export interface ServerSearch {
  /** The `lait.server.path` setting ("" = not set). `~` and `${workspaceFolder}` are expanded.
   * In Restricted Mode VS Code gives the user-scope value only (a restricted configuration). */
  configured: string;
  workspaceFolders: readonly string[];
  /** The Python interpreter the Python extension uses, when known. */
  pythonInterpreter?: string | undefined;
  env: { [key: string]: string | undefined };
  /** PATH as the user's login shell sets it (VS Code may start the extension host without it). */
  loginPath?: string | undefined;
  platform: NodeJS.Platform;
  home: string;
  isExecutable: (file: string) => boolean;
  /** false in Restricted Mode: no executable inside a workspace folder, no workspace interpreter. */
  trusted?: boolean;
}

export type ServerFound = { command: string; source: string } | { error: string; tried: string[] };

export interface Candidate {
  file: string;
  source: string;
}

const VENV_DIRS = [".venv", "venv", "env", ".env"];

export const RESTRICTED_NOTE =
  "Restricted Mode: lait-ls is not taken from the workspace (its virtual environments, its settings or files inside it); trust the workspace to use them";

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

/** Whether `file` is inside one of the workspace folders (or is not an absolute path at all). */
export function insideWorkspace(file: string, folders: readonly string[]): boolean {
  if (!path.isAbsolute(file)) {
    return true;
  }
  const resolved = path.resolve(file);
  return folders.some((folder) => {
    const rel = path.relative(path.resolve(folder), resolved);
    return rel === "" || (!rel.startsWith("..") && !path.isAbsolute(rel));
  });
}

function pathDirs(value: string | undefined, platform: NodeJS.Platform): string[] {
  return (value ?? "").split(platform === "win32" ? ";" : ":").filter((dir) => dir !== "");
}

/** The candidates in order, with where each comes from; each file once. */
export function candidates(search: ServerSearch): Candidate[] {
  const exe = exeName(search.platform);
  const trusted = search.trusted ?? true;
  const list: Candidate[] = [];
  if (trusted) {
    for (const folder of search.workspaceFolders) {
      for (const venv of VENV_DIRS) {
        list.push({ file: path.join(folder, venv, binDir(search.platform), exe), source: `the workspace's ${venv}` });
      }
    }
    if (search.pythonInterpreter) {
      list.push({ file: path.join(path.dirname(search.pythonInterpreter), exe), source: "the selected Python interpreter" });
    }
  }
  for (const dir of pathDirs(search.env["PATH"], search.platform)) {
    list.push({ file: path.join(dir, exe), source: "PATH" });
  }
  for (const dir of pathDirs(search.loginPath, search.platform)) {
    list.push({ file: path.join(dir, exe), source: "the login shell's PATH" });
  }
  if (search.platform !== "win32") {
    // pipx (PIPX_BIN_DIR, default ~/.local/bin) and `uv tool` (UV_TOOL_BIN_DIR, XDG_BIN_HOME, ~/.local/bin)
    for (const [dir, source] of [
      [search.env["PIPX_BIN_DIR"], "pipx"],
      [search.env["UV_TOOL_BIN_DIR"], "uv tool"],
      [search.env["XDG_BIN_HOME"], "uv tool"],
      [path.join(search.home, ".local", "bin"), "pipx and uv tool"],
    ] as const) {
      if (dir) list.push({ file: path.join(dir, exe), source });
    }
  }
  const seen = new Set<string>();
  return list.filter((candidate) => {
    const key = path.normalize(candidate.file);
    if (seen.has(key)) return false;
    seen.add(key);
    // In Restricted Mode a PATH entry such as `.` or one inside the workspace is skipped too.
    return trusted || !insideWorkspace(candidate.file, search.workspaceFolders);
  });
}

function notFound(search: ServerSearch, tried: Candidate[]): ServerFound {
  const sources: string[] = [];
  for (const candidate of tried) {
    if (!sources.includes(candidate.source)) sources.push(candidate.source);
  }
  const restricted = (search.trusted ?? true) ? "" : ` (${RESTRICTED_NOTE})`;
  return {
    error:
      `lait-ls was not found in ${sources.join(", ") || "any known place"}${restricted}; ` +
      "install lait there (python3 -m pip install lait, pipx install lait) or set lait.server.path",
    tried: tried.map((candidate) => candidate.file),
  };
}

export function findServer(search: ServerSearch): ServerFound {
  const trusted = search.trusted ?? true;
  if (search.configured.trim() !== "") {
    const file = expand(search.configured, search);
    if (!file.includes("/") && !file.includes("\\")) {
      if (trusted) {
        // A bare command name: let the process search PATH for it.
        return { command: file, source: "lait.server.path" };
      }
      // Restricted Mode: look it up here, outside the workspace only.
      const named = candidates({ ...search, configured: "" }).map((c) => ({ file: path.join(path.dirname(c.file), file), source: c.source }));
      const hit = named.find((c) => search.isExecutable(c.file));
      if (hit !== undefined) return { command: hit.file, source: "lait.server.path" };
      return { error: `lait.server.path is '${search.configured}', but no such executable is on PATH`, tried: named.map((c) => c.file) };
    }
    if (!trusted && insideWorkspace(file, search.workspaceFolders)) {
      return { error: `lait.server.path is '${search.configured}', which is inside the workspace (${RESTRICTED_NOTE})`, tried: [] };
    }
    if (search.isExecutable(file)) {
      return { command: file, source: "lait.server.path" };
    }
    return { error: `lait.server.path is '${search.configured}', but ${file} is not an executable file`, tried: [file] };
  }
  const tried: Candidate[] = [];
  for (const candidate of candidates(search)) {
    if (search.isExecutable(candidate.file)) {
      return { command: candidate.file, source: candidate.source };
    }
    tried.push(candidate);
  }
  return notFound(search, tried);
}
