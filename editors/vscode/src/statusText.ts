// The status bar item: the server's version and the config file in use. No `vscode` import.

import * as path from "node:path";
import type { StatusResult } from "./protocol";

export interface StatusView {
  text: string;
  tooltip: string;
  warning: boolean;
}

export function statusView(version: string | undefined, status: StatusResult | undefined, workspaceFolders: readonly string[] = []): StatusView {
  const v = status?.version ?? version;
  const head = `lait ${v ?? "(version unknown)"}`;
  if (status === undefined) {
    return { text: `$(check) ${head}`, tooltip: `lait-ls ${v ?? ""}`.trim(), warning: false };
  }
  if (status.configError) {
    return {
      text: `$(warning) ${head} · config error`,
      tooltip: `lait-ls ${v ?? ""}\n${status.configFile ?? "lait.config.yml"}: ${status.configError}`,
      warning: true,
    };
  }
  if (!status.configFile) {
    return { text: `$(check) ${head} · no config`, tooltip: `lait-ls ${v ?? ""}\nno lait.config.yml above this file`, warning: false };
  }
  let shown = path.basename(status.configFile);
  for (const folder of workspaceFolders) {
    const rel = path.relative(folder, status.configFile);
    if (!rel.startsWith("..") && !path.isAbsolute(rel)) {
      shown = rel;
      break;
    }
  }
  return { text: `$(check) ${head} · ${shown}`, tooltip: `lait-ls ${v ?? ""}\nconfig: ${status.configFile}`, warning: false };
}
