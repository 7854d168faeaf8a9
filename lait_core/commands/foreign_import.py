"""`lait import PATH`: another tool's agent or MCP config as lait files.

* A Claude Code subagent (``.claude/agents/*.md``) or a VS Code / Copilot custom agent
  (``*.agent.md``, ``.github/agents/*.md``) becomes ``agents/<name>.md`` in the lait project: its
  name, description and body carry over (``{{`` in the body is escaped, since a lait body is a
  template), MCP servers it names become ``mcp:`` (and their definitions ``mcp_servers:`` entries),
  Claude Code's ``maxTurns`` becomes ``max_tool_rounds`` and ``effort`` ``reasoning_effort``.
* An ``.mcp.json`` or ``.vscode/mcp.json`` becomes ``mcp_servers:`` entries of lait.config.yml.

Everything without a lait counterpart (Claude Code's and VS Code's own tool names, host model
aliases, hooks, handoffs, permission modes, sandboxes, ``${input:...}`` prompts, ...) is listed, one
line each, as not carried over. The lait project is the folder of the nearest lait.config.yml above
the file's project (created there when there is none).

``--check`` (CI): the import would write nothing new and lose nothing. It fails (exit 1) when an
output file is missing or differs from what the import would write, or when anything could not be
carried over, so a kept-in-sync copy breaks the build as soon as the original changes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lait_core.documents import foreign_names as n
from lait_core.documents.foreign_formats import Format, foreign_format
from lait_core.lint.foreign_check import blank_comments, project_root
from lait_core.syntax.bounded_read import Loaded, read_source
from lait_core.syntax.frontmatter import split_frontmatter, starts_with_frontmatter
from lait_core.syntax.yaml.parse import parse_yaml
from lait_core.syntax.yaml.tree import MappingNode

CONFIG = "lait.config.yml"
_EFFORT = {"low": "low", "medium": "medium", "high": "high", "xhigh": "xhigh", "max": "xhigh"}
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(:-[^}]*)?\}")
_INPUT = re.compile(r"\$\{input:([^}]+)\}")
_WORKSPACE = re.compile(r"\$\{(?:workspaceFolder|CLAUDE_PROJECT_DIR)\}")


class ImportError_(Exception):
    """The file cannot be imported (not a supported format, unreadable, not parsable)."""


@dataclass(slots=True)
class PlannedFile:
    path: Path
    text: str
    old: str | None

    @property
    def changes(self) -> bool:
        return self.text != self.old


@dataclass(slots=True)
class Plan:
    source: Path
    project: Path
    files: list[PlannedFile] = field(default_factory=list)
    lost: list[str] = field(default_factory=list)
    servers: list[str] = field(default_factory=list)
    """MCP servers the config gains."""

    @property
    def up_to_date(self) -> bool:
        return not self.lost and not any(f.changes for f in self.files)


def _read(path: Path, reader: Callable[[Path], Loaded]) -> str:
    loaded = reader(path)
    if loaded.text is None:
        raise ImportError_(loaded.problem.message if loaded.problem else f"cannot read '{path}'")
    return loaded.text


def _json_object(path: Path, text: str, comments: bool) -> dict[str, Any]:
    body = blank_comments(text) if comments else text
    parsed = parse_yaml(body, str(path))
    if not parsed.ok or not isinstance(parsed.root, MappingNode):
        problem = parsed.problems[0] if parsed.problems else None
        where = (
            f"{path}:{problem.range.start.line + 1}:{problem.range.start.character + 1}: "
            if problem
            else f"{path}: "
        )
        raise ImportError_(where + (problem.message if problem else "not a JSON object"))
    value = parsed.root.to_python()
    assert isinstance(value, dict)
    return value


def _frontmatter(path: Path, text: str) -> tuple[dict[str, Any], str]:
    if not starts_with_frontmatter(text):
        return {}, text
    split = split_frontmatter(text)
    if not hasattr(split, "yaml_text"):
        raise ImportError_(f"{path}:1:1: {getattr(split, 'message', 'frontmatter does not close')}")
    parsed = parse_yaml(split.yaml_text, str(path))  # type: ignore[union-attr]
    if not parsed.ok:
        d = parsed.problems[0]
        raise ImportError_(f"{path}:{d.range.start.line + 1}:{d.range.start.character + 1}: {d.message}")
    data = parsed.root.to_python() if parsed.root is not None else None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ImportError_(f"{path}:2:1: the frontmatter is not a mapping")
    return data, split.body  # type: ignore[union-attr]


def lait_project(path: Path) -> Path:
    """The lait project a foreign file is imported into."""
    root = project_root(path)
    here = Path(path).absolute().parent
    for folder in (here, *here.parents):
        if (folder / CONFIG).is_file():
            return folder
    return root


class _Importer:
    def __init__(self, source: Path, reader: Callable[[Path], Loaded]) -> None:
        self.source = source
        self.reader = reader
        self.root = project_root(source)
        self.project = lait_project(source)
        self.plan = Plan(source, self.project)
        self.servers: dict[str, dict[str, Any]] = {}
        self.skills: dict[str, str] = {}
        config_path = self.project / CONFIG
        self.config_text: str | None = None
        loaded = reader(config_path)
        if loaded.text is not None:
            self.config_text = loaded.text
        self.config_data: dict[str, Any] = {}
        if self.config_text:
            parsed = parse_yaml(self.config_text, str(config_path))
            if parsed.ok and isinstance(parsed.root, MappingNode):
                self.config_data = parsed.root.to_python()

    def lose(self, what: str) -> None:
        self.plan.lost.append(what)

    # -- MCP servers -------------------------------------------------------------------------------
    def _host_servers(self, rel: str, section: str, comments: bool) -> dict[str, Any]:
        path = self.root / rel
        loaded = self.reader(path)
        if loaded.text is None:
            return {}
        try:
            data = _json_object(path, loaded.text, comments)
        except ImportError_:
            return {}
        servers = data.get(section)
        return servers if isinstance(servers, dict) else {}

    def server(self, name: str, config: object, origin: str) -> bool:
        """Add server ``name`` (a host's config) to the plan; False when nothing usable came of it."""
        if not isinstance(config, dict):
            self.lose(f"{origin}: MCP server '{name}' is not a mapping")
            return False
        out: dict[str, Any] = {}
        kind = config.get("type", "stdio")
        where = f"{origin}: MCP server '{name}'"
        if kind in ("stdio", "local", None) and isinstance(config.get("command"), str):
            out["command"] = self.value(config["command"], where)
            args = config.get("args")
            if isinstance(args, list):
                out["args"] = [self.value(str(a), where) for a in args]
            env = config.get("env")
            if isinstance(env, dict):
                out["env"] = {str(k): self.value(str(v), where) for k, v in env.items()}
            if isinstance(config.get("cwd"), str):
                out["cwd"] = self.value(config["cwd"], where)
        elif kind in ("http", "sse", "streamable-http") and isinstance(config.get("url"), str):
            out["url"] = self.value(config["url"], where)
            headers = config.get("headers")
            if isinstance(headers, dict):
                out["headers"] = {str(k): self.value(str(v), where) for k, v in headers.items()}
            if kind == "sse":
                self.lose(
                    f"{where}: 'type: sse'; lait speaks Streamable HTTP, which an SSE-only server may not"
                )
        else:
            self.lose(f"{where}: neither a stdio 'command' nor an http 'url'; not imported")
            return False
        for key in config:
            if key not in ("type", "command", "args", "env", "cwd", "url", "headers"):
                self.lose(f"{where}: '{key}' has no lait counterpart")
        if kind == "local":
            pass  # GitHub's name for stdio
        tools = config.get("tools")
        if isinstance(tools, list) and tools not in (["*"],) and all(isinstance(t, str) for t in tools):
            out["allowed_tools"] = tools
        existing = (self.config_data.get("mcp_servers") or {}).get(name)
        if existing is not None and existing != out:
            self.lose(f"{where}: lait.config.yml already defines '{name}' otherwise; left as it is")
            return True
        self.servers[name] = out
        return True

    def value(self, text: str, where: str) -> str:
        """A host's string with its placeholders in lait's form (``${VAR}``)."""

        def var(match: re.Match[str]) -> str:
            if match.group(2):
                self.lose(
                    f"{where}: '{match.group(0)}' has a default; lait's ${{VAR}} has none (kept as ${{{match.group(1)}}})"
                )
            return "${" + match.group(1) + "}"

        def input_var(match: re.Match[str]) -> str:
            env = re.sub(r"[^A-Za-z0-9]+", "_", match.group(1)).upper().strip("_") or "INPUT"
            self.lose(
                f"{where}: '{match.group(0)}' (VS Code asks for it) became ${{{env}}}; set that variable"
            )
            return "${" + env + "}"

        out = _WORKSPACE.sub(".", text)
        if out != text:
            self.lose(
                f"{where}: the workspace folder variable became '.' (the MCP server's working directory)"
            )
        return _VAR.sub(var, _INPUT.sub(input_var, out))

    # -- agents ------------------------------------------------------------------------------------
    def agent(self, fmt: Format) -> None:
        text = _read(self.source, self.reader)
        front, body = _frontmatter(self.source, text)
        origin = str(self.source)
        stem = self.source.name
        for suffix in (".agent.md", ".chatmode.md", ".md"):
            if stem.endswith(suffix):
                stem = stem[: -len(suffix)]
                break
        name = front.get("name") if isinstance(front.get("name"), str) else stem
        if "name" in front and not isinstance(front.get("name"), str):
            self.lose(f"{origin}: 'name' is not a string; the file name '{stem}' is used")
        file_name = re.sub(r"[^a-z0-9_-]+", "-", str(name).lower()).strip("-") or "agent"
        out: dict[str, Any] = {"name": name}
        if isinstance(front.get("description"), str):
            out["description"] = front["description"]
        mcp: list[str] = []
        if fmt is Format.CLAUDE_AGENT:
            self._claude_agent(front, out, mcp, origin)
        else:
            self._vscode_agent(front, out, mcp, origin)
        if mcp:
            out["mcp"] = sorted(set(mcp), key=mcp.index)
        if "{{" in body:
            body = body.replace("{{", "\\{{")
        agent_path = self.project / "agents" / f"{file_name}.md"
        text_out = "---\n" + emit(out) + "---\n" + body.lstrip("\n")
        if not text_out.endswith("\n"):
            text_out += "\n"
        old = self.reader(agent_path).text if agent_path.exists() else None
        self.plan.files.append(PlannedFile(agent_path, text_out, old))

    def _claude_agent(self, front: dict[str, Any], out: dict[str, Any], mcp: list[str], origin: str) -> None:
        host = self._host_servers(".mcp.json", "mcpServers", False)
        model = front.get("model")
        if model is not None:
            self.lose(
                f"{origin}: 'model: {model}' is a Claude Code model; the lait agent uses default.model"
                " (set 'model:' to an alias from 'models:')"
            )
        tools = n.split_names(front.get("tools")) or []
        for key in ("tools", "skills"):
            if front.get(key) is not None and n.split_names(front.get(key)) is None:
                self.lose(f"{origin}: '{key}' is neither a comma-separated string nor a list of names")
        turns, effort_value = front.get("maxTurns"), front.get("effort")
        if turns is not None and (not isinstance(turns, int) or isinstance(turns, bool)):
            self.lose(f"{origin}: 'maxTurns: {turns}' is not an integer")
        if effort_value is not None and effort_value not in _EFFORT:
            self.lose(f"{origin}: 'effort: {effort_value}' is not a Claude Code effort level")
        own = []
        for entry in tools:
            _tool, server = n.claude_tool(entry)
            if server is not None:
                if server in host and self.server(server, host[server], ".mcp.json"):
                    mcp.append(server)
                else:
                    self.lose(
                        f"{origin}: tool '{entry}' names MCP server '{server}', which .mcp.json does not define"
                    )
            else:
                own.append(entry)
        if own:
            self.lose(
                f"{origin}: tools {', '.join(repr(t) for t in own)} are Claude Code's own; a lait agent has no"
                " built-in tools (give it shell tools under 'tools:' or MCP servers)"
            )
        if "tools" not in front and host:
            self.lose(
                f"{origin}: without 'tools' the subagent had every tool; the lait agent gets only the MCP servers it names"
            )
        servers = front.get("mcpServers")
        if isinstance(servers, list):
            for item in servers:
                if isinstance(item, str):
                    if item in host and self.server(item, host[item], ".mcp.json"):
                        mcp.append(item)
                    else:
                        self.lose(f"{origin}: MCP server '{item}' is not defined in .mcp.json")
                elif isinstance(item, dict):
                    for key, config in item.items():
                        if self.server(str(key), config, origin):
                            mcp.append(str(key))
                else:
                    self.lose(f"{origin}: 'mcpServers' item {item!r} is neither a name nor a mapping")
        elif servers is not None:
            self.lose(f"{origin}: 'mcpServers' is not a list")
        if isinstance(front.get("maxTurns"), int) and not isinstance(front.get("maxTurns"), bool):
            out["max_tool_rounds"] = max(1, front["maxTurns"])
        effort = front.get("effort")
        if isinstance(effort, str) and effort in _EFFORT:
            out["reasoning_effort"] = _EFFORT[effort]
            if effort == "max":
                self.lose(f"{origin}: 'effort: max' became reasoning_effort: xhigh (lait's highest)")
        skills = n.split_names(front.get("skills")) or []
        kept = []
        for skill in skills:
            folder = self.root / ".claude" / "skills" / skill
            if (folder / "SKILL.md").is_file():
                self.skills[skill] = (
                    folder.relative_to(self.project).as_posix()
                    if folder.is_relative_to(self.project)
                    else str(folder)
                )
                kept.append(skill)
            else:
                self.lose(f"{origin}: skill '{skill}' has no .claude/skills/{skill}/SKILL.md")
        if kept:
            out["skills"] = kept
        handled = {"name", "description", "model", "tools", "mcpServers", "maxTurns", "effort", "skills"}
        for key in front:
            if key not in handled:
                self.lose(f"{origin}: '{key}' has no lait counterpart")

    def _vscode_agent(self, front: dict[str, Any], out: dict[str, Any], mcp: list[str], origin: str) -> None:
        host = self._host_servers(".vscode/mcp.json", "servers", True)
        if front.get("model") is not None:
            self.lose(f"{origin}: 'model' names a VS Code model; the lait agent uses default.model")
        own = []
        for entry in n.split_names(front.get("tools")) or []:
            server, sep, _rest = entry.partition("/")
            if sep and server in host:
                if self.server(server, host[server], ".vscode/mcp.json"):
                    mcp.append(server)
                if _rest != "*":
                    self.lose(f"{origin}: tool '{entry}': the lait agent gets every tool of '{server}'")
            else:
                own.append(entry)
        if own:
            self.lose(
                f"{origin}: tools {', '.join(repr(t) for t in own)} are VS Code's or Copilot's own; a lait agent has no built-in tools"
            )
        servers = front.get("mcp-servers")
        if isinstance(servers, dict):
            for key, config in servers.items():
                if self.server(str(key), config, origin):
                    mcp.append(str(key))
        handled = {"name", "description", "model", "tools", "mcp-servers"}
        for key in front:
            if key not in handled:
                self.lose(f"{origin}: '{key}' has no lait counterpart")

    # -- MCP configs ---------------------------------------------------------------------------------
    def mcp_config(self, fmt: Format) -> None:
        text = _read(self.source, self.reader)
        data = _json_object(self.source, text, fmt is Format.VSCODE_MCP)
        section = "servers" if fmt is Format.VSCODE_MCP else "mcpServers"
        servers = data.get(section)
        if not isinstance(servers, dict):
            raise ImportError_(f"{self.source}: no '{section}' object")
        for name, config in servers.items():
            self.server(str(name), config, str(self.source))
        for key in data:
            if key not in (section, "inputs"):
                self.lose(f"{self.source}: '{key}' has no lait counterpart")

    # -- the config ----------------------------------------------------------------------------------
    def finish(self) -> Plan:
        if self.servers or self.skills:
            path = self.project / CONFIG
            text = self.config_text or ""
            have_servers = self.config_data.get("mcp_servers") or {}
            have_skills = self.config_data.get("skills") or {}
            new_servers = {k: v for k, v in self.servers.items() if have_servers.get(k) != v}
            new_skills = {k: v for k, v in self.skills.items() if k not in have_skills}
            text = add_entries(text, "mcp_servers", new_servers)
            text = add_entries(text, "skills", new_skills)
            self.plan.files.append(PlannedFile(path, text, self.config_text))
            self.plan.servers = sorted(self.servers)
        return self.plan


def _claude_by_content(path: Path, reader: Callable[[Path], Loaded]) -> Format | None:
    """A Markdown file elsewhere whose frontmatter is in Claude Code's format (what LAIT209 reports)."""
    if path.suffix != ".md":
        return None
    loaded = reader(path)
    if loaded.text is None or not starts_with_frontmatter(loaded.text):
        return None
    split = split_frontmatter(loaded.text)
    if not hasattr(split, "yaml_text"):
        return None
    parsed = parse_yaml(split.yaml_text)  # type: ignore[union-attr]
    if not parsed.ok or not isinstance(parsed.root, MappingNode):
        return None
    from lait_core.documents.foreign_agent import claude_code_agent

    return Format.CLAUDE_AGENT if claude_code_agent(parsed.root, str(path)) is not None else None


def plan_import(path: Path, reader: Callable[[Path], Loaded] | None = None) -> Plan:
    """What importing ``path`` would write and lose (nothing is written)."""
    fmt = foreign_format(path) or _claude_by_content(path, reader or read_source)
    importer = _Importer(path, reader or read_source)
    if fmt in (Format.CLAUDE_AGENT, Format.VSCODE_AGENT):
        importer.agent(fmt)
    elif fmt in (Format.CLAUDE_MCP, Format.VSCODE_MCP):
        importer.mcp_config(fmt)
    else:
        kind = fmt.value if fmt else "not another tool's agent or MCP file"
        raise ImportError_(
            f"cannot import '{path}' ({kind}); lait imports Claude Code subagents (.claude/agents/*.md), VS Code"
            " agents (*.agent.md, .github/agents/*.md), .mcp.json and .vscode/mcp.json"
        )
    return importer.finish()


# -- writing YAML ----------------------------------------------------------------------------------
def scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    text = str(value)
    if (
        text
        and text == text.strip()
        and "\n" not in text
        and not text.startswith(
            ("[", "{", "&", "*", "!", "|", ">", "'", '"', "%", "@", "`", "#", "-", "?", ":", ",")
        )
    ):
        parsed = parse_yaml(f"k: {text}\n")
        if parsed.ok and isinstance(parsed.root, MappingNode) and parsed.root.to_python() == {"k": text}:
            return text
    return json.dumps(text, ensure_ascii=False)


def emit(data: dict[str, Any], indent: int = 0) -> str:
    """``data`` as block YAML (mappings and lists of scalars; empty ones in flow style)."""
    pad = " " * indent
    lines = []
    for key, value in data.items():
        k = scalar(key)
        if isinstance(value, dict):
            lines.append(f"{pad}{k}:" + (" {}" if not value else ""))
            if value:
                lines.append(emit(value, indent + 2).rstrip("\n"))
        elif isinstance(value, list):
            if not value:
                lines.append(f"{pad}{k}: []")
            else:
                lines.append(f"{pad}{k}: [" + ", ".join(scalar(v) for v in value) + "]")
        else:
            lines.append(f"{pad}{k}: {scalar(value)}")
    return "\n".join(lines) + "\n"


def add_entries(text: str, section: str, entries: dict[str, Any]) -> str:
    """``text`` (a lait.config.yml) with ``entries`` added to its block mapping ``section`` (created at
    the end when absent); existing entries and comments are kept."""
    if not entries:
        return text
    parsed = parse_yaml(text) if text.strip() else None
    root = parsed.root if parsed is not None and parsed.ok else None
    node = root.get(section) if isinstance(root, MappingNode) else None
    if isinstance(node, MappingNode) and node.pairs and not node.flow:
        column = node.pairs[0][0].range.start.character
        end = node.pairs[-1][1].range.end
        lines = text.splitlines(keepends=True)
        cut = sum(len(line) for line in lines[: end.line if end.character == 0 else end.line + 1])
        head, tail = text[:cut], text[cut:]
        if head and not head.endswith("\n"):
            head += "\n"
        return head + emit(entries, column) + tail
    if node is not None and not (isinstance(node, MappingNode) and not node.pairs):
        raise ImportError_(f"lait.config.yml: '{section}' is not a block mapping; add the entries by hand")
    if isinstance(node, MappingNode):  # `section: {}`: replace the empty mapping
        lines = text.splitlines(keepends=True)
        line = node.range.start.line
        key_line = lines[line]
        lines[line] = key_line[: key_line.index(section)] + f"{section}:\n" + emit(entries, 2)
        return "".join(lines)
    sep = "" if not text or text.endswith("\n") else "\n"
    return text + sep + f"{section}:\n" + emit(entries, 2)
