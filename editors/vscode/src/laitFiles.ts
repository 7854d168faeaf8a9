// Whether lait applies here: a workspace with a lait.config.yml, or an open file lait recognises by
// its content (a workflow's top-level `steps:`, a test or eval file's keys, an agent's frontmatter
// in an agents/ folder). The extension starts lait-ls only then (or when `lait.enable` is
// "always"), so a folder with a README.md and a CI workflow never sees lait. No `vscode` import.

import * as path from "node:path";

export type Enable = "auto" | "always" | "never";

/** Only the head of a file is looked at: the keys that tell are at the top. */
const HEAD_CHARS = 64 * 1024;

const CONFIG_NAME = "lait.config.yml";
const TOP_KEY = /^([A-Za-z_]+)[ \t]*:/gm;
/** The dot-folders whose `workflows/` or `agents/` belong to another tool (CI services, assistants). */
const OTHER_TOOLS = new Set([".github", ".gitea", ".forgejo", ".claude", ".vscode", ".agents"]);

export function enableSetting(value: unknown): Enable {
  return value === "always" || value === "never" ? value : "auto";
}

function topKeys(text: string): Set<string> {
  const keys = new Set<string>();
  for (const match of text.slice(0, HEAD_CHARS).matchAll(TOP_KEY)) keys.add(match[1] ?? "");
  return keys;
}

function underOtherTool(file: string): boolean {
  return path
    .dirname(file)
    .split(/[\\/]/)
    .some((part) => OTHER_TOOLS.has(part));
}

/** Whether Markdown text starts with YAML frontmatter (`---` on its first line). */
export function hasFrontmatter(text: string): boolean {
  return /^\uFEFF?---[ \t]*\r?\n/.test(text);
}

/** Whether the file at `file` (a path) with the text `text` is one that lait-ls treats as lait's own. */
export function isLaitFile(file: string, languageId: string, text: string): boolean {
  const name = path.basename(file);
  if (name === CONFIG_NAME) return true;
  if (languageId === "yaml" || /\.ya?ml$/i.test(name)) {
    const keys = topKeys(text);
    if (keys.has("steps") || keys.has("nodes")) return true; // a workflow, wherever it lives
    if (underOtherTool(file)) return false; // .github/workflows/ci.yml: GitHub Actions' steps are nested
    if (keys.has("replay") || (keys.has("workflow") && keys.has("assert"))) return true; // a test file
    return keys.has("target") && keys.has("cases"); // an eval file
  }
  if (languageId === "markdown" || /\.md$/i.test(name)) {
    if (!hasFrontmatter(text) || underOtherTool(file)) return false;
    return path.basename(path.dirname(file)) === "agents" || name === "SKILL.md";
  }
  return false;
}

/** Whether to start lait-ls: the setting, a lait.config.yml in the workspace, or an open lait file. */
export function shouldStart(enable: Enable, workspaceHasConfig: boolean, openFiles: ReadonlyArray<{ file: string; languageId: string; text: string }>): boolean {
  if (enable === "never") return false;
  if (enable === "always" || workspaceHasConfig) return true;
  return openFiles.some((f) => isLaitFile(f.file, f.languageId, f.text));
}
