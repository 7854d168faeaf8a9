"""Lint a file of another tool against its own format (LAIT801-LAIT804, and LAIT210 for host limits).

A Markdown format's frontmatter, or a JSON format's whole text, is read into the same located tree
lait files use (JSON is YAML), then checked field by field against :mod:`lait_core.documents.foreign_formats`:
unknown keys (with a "did you mean" fix), wrong types and values, names that resolve to nothing
(Claude Code tools and models, MCP servers, VS Code agents, ``${input:id}``), and relative links and
paths that lead nowhere.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote

from lait_core.documents import foreign_names as n
from lait_core.documents.foreign_formats import Field, Format, FormatSpec
from lait_core.documents.validate import suggest
from lait_core.rules.agents.context_budget import CODE as BUDGET
from lait_core.rules.foreign.foreign_broken_link import CODE as BROKEN_LINK
from lait_core.rules.foreign.foreign_invalid_value import CODE as INVALID_VALUE
from lait_core.rules.foreign.foreign_unknown_key import CODE as UNKNOWN_KEY
from lait_core.rules.foreign.foreign_unknown_name import CODE as UNKNOWN_NAME
from lait_core.syntax.bounded_read import Loaded, read_source
from lait_core.syntax.diagnostics import Diagnostic, Fix, Severity, same_word
from lait_core.syntax.frontmatter import split_frontmatter, starts_with_frontmatter
from lait_core.syntax.positions import Position, Range
from lait_core.syntax.yaml.parse import parse_yaml
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode, SourceText, retarget

W = Severity.WARNING
_LINK = re.compile(r"!?\[[^\]\n]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"\n]*\")?\s*\)")
_FENCE = re.compile(r"^\s{0,3}(```|~~~)")
_INLINE_CODE = re.compile(r"`[^`\n]*`")
_INPUT_REF = re.compile(r"\$\{input:([^}]+)\}")
_SKILL_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_FRONT_NAME = re.compile(r"^name:\s*['\"]?([^'\"\n#]+?)['\"]?\s*$", re.MULTILINE)


def normalized(word: str) -> str:
    return word.lower().replace("-", "").replace("_", "")


def replacement_fix(node: Node, old: str, new: str) -> Fix:
    """A "did you mean" fix; safe when the two differ only in case, ``-`` or ``_`` (the same word
    written another way), unsafe otherwise (a guess)."""
    return Fix(f"Replace with '{new}'", node.range, new, safe=same_word(old, new))


@dataclass(slots=True)
class Project:
    """Where the file's host looks for the other files the file names (read lazily, bounded)."""

    root: Path
    reader: Callable[[Path], Loaded]
    _cache: dict[str, object] = field(default_factory=dict)

    def _json_keys(self, rel: str, section: str) -> set[str] | None:
        key = f"{rel}#{section}"
        if key not in self._cache:
            self._cache[key] = None
            loaded = self.reader(self.root / rel)
            if loaded.text is not None:
                parsed = parse_yaml(blank_comments(loaded.text))
                root = parsed.root
                if parsed.ok and isinstance(root, MappingNode) and isinstance(root.get(section), MappingNode):
                    section_node = root.get(section)
                    assert isinstance(section_node, MappingNode)
                    self._cache[key] = {str(k) for k in section_node}
                elif parsed.ok:
                    self._cache[key] = set()
        value = self._cache[key]
        return value if isinstance(value, set) else None

    def claude_servers(self) -> set[str] | None:
        return self._json_keys(".mcp.json", "mcpServers")

    def vscode_servers(self) -> set[str] | None:
        return self._json_keys(".vscode/mcp.json", "servers")

    def vscode_agents(self) -> set[str] | None:
        if "agents" not in self._cache:
            folder = self.root / ".github" / "agents"
            found: set[str] | None = None
            if folder.is_dir():
                found = set()
                try:
                    entries = sorted(os.scandir(folder), key=lambda e: e.name)[:500]
                except OSError:
                    entries = []
                for entry in entries:
                    if not entry.name.endswith(".md") or not entry.is_file(follow_symlinks=False):
                        continue
                    stem = (
                        entry.name[: -len(".agent.md")]
                        if entry.name.endswith(".agent.md")
                        else entry.name[:-3]
                    )
                    found.add(stem)
                    loaded = self.reader(Path(entry.path))
                    if loaded.text and starts_with_frontmatter(loaded.text):
                        match = _FRONT_NAME.search(loaded.text[:4096])
                        if match:
                            found.add(match.group(1).strip())
            self._cache["agents"] = found
        value = self._cache["agents"]
        return value if isinstance(value, set) else None

    def claude_skills(self) -> set[str] | None:
        folder = self.root / ".claude" / "skills"
        if not folder.is_dir():
            return None
        try:
            return {e.name for e in os.scandir(folder) if e.is_dir(follow_symlinks=False)}
        except OSError:
            return None


def project_root(path: Path) -> Path:
    """The folder a host reads the file's project from: above ``.claude``/``.github``/``.vscode``/
    ``.agents``, else the nearest folder with one of those or ``.git``, else the file's folder."""
    here = Path(os.path.abspath(path))
    for parent in here.parents:
        if parent.name in (".claude", ".github", ".vscode", ".agents"):
            return parent.parent
    for parent in here.parents:
        if any((parent / marker).exists() for marker in (".git", ".github", ".vscode", ".claude")):
            return parent
    return here.parent.parent if here.parent.name == "agents" else here.parent


def blank_comments(text: str) -> str:
    """JSON with comments as plain JSON: ``//`` and ``/* */`` comments outside strings turned into
    spaces (newlines kept, so every position stays where it was)."""
    if "/" not in text:
        return text
    out = list(text)
    i, size = 0, len(text)
    in_string = False
    while i < size:
        c = text[i]
        if in_string:
            if c == "\\":
                i += 2
                continue
            if c == '"':
                in_string = False
        elif c == '"':
            in_string = True
        elif c == "/" and i + 1 < size and text[i + 1] in "/*":
            end = text.find("\n", i) if text[i + 1] == "/" else text.find("*/", i + 2)
            end = size if end == -1 else end + (0 if text[i + 1] == "/" else 2)
            for j in range(i, end):
                if out[j] != "\n":
                    out[j] = " "
            i = end
            continue
        i += 1
    return "".join(out)


class Checker:
    def __init__(self, spec: FormatSpec, path: Path, text: str, project: Project) -> None:
        self.spec = spec
        self.path = path
        self.text = text
        self.project = project
        self.out: list[Diagnostic] = []
        self.where = f"the {spec.title}"

    # -- reading ---------------------------------------------------------------------------------
    def run(self) -> list[Diagnostic]:
        spec = self.spec
        if spec.markdown:
            root, body, body_start = self._frontmatter()
        else:
            root, body, body_start = self._json(), "", 0
        if root is not None:
            self._fields(root, spec.fields, self.where, top=True)
            self._format_rules(root)
        elif spec.markdown and self.spec.format in _NEEDS_FRONTMATTER and not self.out:
            self.out.append(
                Diagnostic(
                    INVALID_VALUE,
                    f"{self.where} has no frontmatter; its host needs at least 'name' and 'description'"
                    " between '---' lines, or drops the file",
                    Range.at(0, 0, 0, 0),
                )
            )
        if spec.markdown:
            self._links(body, body_start)
            self._budget(root, body)
        return self.out

    def _frontmatter(self) -> tuple[MappingNode | None, str, int]:
        text = self.text
        if not starts_with_frontmatter(text):
            return None, text, 0
        split = split_frontmatter(text)
        if isinstance(split, Diagnostic):
            self.out.append(split)
            return None, "", 0
        source = SourceText(text, str(self.path))
        parsed = parse_yaml(
            split.yaml_text, str(self.path), source=SourceText(split.yaml_text, str(self.path))
        )
        self.out.extend(parsed.problems)
        if not parsed.ok:
            return None, split.body, split.body_start
        root = parsed.root
        retarget(root, source)
        if root is None or (isinstance(root, ScalarNode) and root.value is None):
            return MappingNode(0, 0, Range.at(1, 0, 1, 0), source, pairs=[]), split.body, split.body_start
        if not isinstance(root, MappingNode):
            self.out.append(
                Diagnostic(INVALID_VALUE, f"{self.where} frontmatter must be a mapping", root.range)
            )
            return None, split.body, split.body_start
        return root, split.body, split.body_start

    def _json(self) -> MappingNode | None:
        text = blank_comments(self.text) if self.spec.json_comments else self.text
        if not self.spec.json_comments and text.strip():
            try:
                json.loads(text)
            except json.JSONDecodeError as exc:
                pos = Position(max(exc.lineno - 1, 0), max(exc.colno - 1, 0))
                self.out.append(
                    Diagnostic(
                        INVALID_VALUE,
                        f"not valid JSON: {exc.msg}; its host cannot read the file",
                        Range(pos, pos),
                    )
                )
                return None
        parsed = parse_yaml(text, str(self.path), source=SourceText(self.text, str(self.path)))
        self.out.extend(parsed.problems)
        if not parsed.ok:
            return None
        root = parsed.root
        if root is None or (isinstance(root, ScalarNode) and root.value is None):
            return None
        if not isinstance(root, MappingNode):
            self.out.append(Diagnostic(INVALID_VALUE, f"{self.where} must be a JSON object", root.range))
            return None
        return root

    # -- fields ----------------------------------------------------------------------------------
    def _fields(self, node: MappingNode, fields: tuple[Field, ...], where: str, *, top: bool = False) -> None:
        known = {f.name: f for f in fields}
        for key, key_node, value in node.items():
            spec_field = known.get(str(key))
            if spec_field is None:
                free = [k for k in known if k not in node]  # a guess never duplicates a key
                self._unknown(
                    str(key), key_node, free, list(known), where, open_keys=top and self.spec.open_keys
                )
                continue
            if spec_field.deprecated:
                self.out.append(
                    Diagnostic(
                        UNKNOWN_KEY,
                        f"'{key}' is retired in {where}: {spec_field.deprecated}",
                        key_node.range,
                        W,
                    )
                )
            self._value(spec_field, value, f"'{key}'")
        missing = [f.name for f in fields if f.required and f.name not in node]
        if missing:
            at = node.pairs[0][0].range if node.pairs else node.range
            what = ", ".join(f"'{m}'" for m in missing)
            self.out.append(
                Diagnostic(
                    INVALID_VALUE,
                    f"{where} is missing {what}, which its host requires (it drops the file or entry without it)",
                    at,
                )
            )

    def _unknown(
        self, key: str, key_node: Node, choices: list[str], listed: list[str], where: str, *, open_keys: bool
    ) -> None:
        guess = suggest(key, choices)
        near = guess is not None and (normalized(guess) == normalized(key) or _close(key, guess))
        if open_keys and not near:  # only near misses of the documented section are worth a word
            return
        message = f"unknown key '{key}' in {where}"
        fixes: tuple[Fix, ...] = ()
        if guess:
            message += f"; did you mean '{guess}'?"
            fixes = (replacement_fix(key_node, key, guess),)
        else:
            message += f"; it takes: {', '.join(listed)}"
        message += " (its host ignores unknown keys silently)"
        self.out.append(Diagnostic(UNKNOWN_KEY, message, key_node.range, W, fixes=fixes))

    def _value(self, f: Field, node: Node, label: str) -> None:
        value = node.to_python()
        t = f.type
        ok = {
            "string": isinstance(value, str),
            "bool": isinstance(value, bool),
            "int": isinstance(value, int) and not isinstance(value, bool),
            "names": n.split_names(value) is not None,
            "strings": isinstance(value, list) and all(isinstance(v, str) for v in value),
            "models": isinstance(value, str)
            or (isinstance(value, list) and all(isinstance(v, str) for v in value)),
            "mapping": isinstance(node, MappingNode),
            "map": isinstance(node, MappingNode),
            "list": isinstance(node, SequenceNode),
            "any": True,
        }[t]
        if not ok:
            self.out.append(
                Diagnostic(
                    INVALID_VALUE,
                    f"{label} must be {_EXPECTED[t]} (got {_describe(node)}); its host drops the file or ignores the key",
                    node.range,
                )
            )
            return
        if (
            f.values
            and not f.open_values
            and isinstance(node, ScalarNode)
            and isinstance(value, str)
            and value not in f.values
        ):
            guess = suggest(value, f.values)
            message = f"{label} must be one of {', '.join(f.values)} (got '{value}')"
            fixes: tuple[Fix, ...] = ()
            if guess:
                message += f"; did you mean '{guess}'?"
                fixes = (replacement_fix(node, value, guess),)
            self.out.append(Diagnostic(INVALID_VALUE, message, node.range, fixes=fixes))
            return
        if f.names:
            self._names(f, node, label)
        if t == "mapping" and f.children and isinstance(node, MappingNode):
            self._fields(node, f.children, label)
        elif t == "map" and isinstance(node, MappingNode):
            for key, _k, item in node.items():
                if isinstance(item, MappingNode):
                    self._fields(item, f.children, f"{label[:-1]}.{key}'")
                    self._server_rules(str(key), item, f"{label[:-1]}.{key}'")
                else:
                    self.out.append(
                        Diagnostic(
                            INVALID_VALUE,
                            f"{label[:-1]}.{key}' must be a mapping (got {_describe(item)})",
                            item.range,
                        )
                    )
        elif t == "list" and f.children and isinstance(node, SequenceNode):
            for i, item in enumerate(node.items):
                if isinstance(item, MappingNode):
                    self._fields(item, f.children, f"{label[:-1]}[{i}]'")
                else:
                    self.out.append(
                        Diagnostic(
                            INVALID_VALUE,
                            f"{label[:-1]}[{i}]' must be a mapping (got {_describe(item)})",
                            item.range,
                        )
                    )

    # -- names -----------------------------------------------------------------------------------
    def _name_nodes(self, node: Node) -> Iterator[tuple[str, Node]]:
        if isinstance(node, SequenceNode):
            for item in node.items:
                if isinstance(item, ScalarNode) and isinstance(item.value, str):
                    yield item.value, item
        elif isinstance(node, ScalarNode) and isinstance(node.value, str):
            value = node.value
            if "," not in value and " " not in value.strip():
                yield value, node
                return
            for match in re.finditer(r"[^,\s(]+(?:\([^)]*\))?", value):
                yield match.group(0), _sub(node, match.start(), match.end())

    def _names(self, f: Field, node: Node, label: str) -> None:
        kind = f.names
        for name, at in self._name_nodes(node):
            message = None
            fixes: tuple[Fix, ...] = ()
            if kind == "claude-tool":
                tool, server = n.claude_tool(name)
                if server is not None:
                    servers = self.project.claude_servers()
                    if servers is not None and server not in servers:
                        message = f"{label} names MCP server '{server}', which .mcp.json does not define"
                elif tool not in n.CLAUDE_TOOLS:
                    guess = suggest(tool, n.CLAUDE_TOOLS)
                    message = f"{label} names '{tool}', which is not a Claude Code tool"
                    if guess:
                        message += f"; did you mean '{guess}'?"
                        if tool == name:
                            fixes = (replacement_fix(at, tool, guess),)
            elif kind == "claude-model":
                if not n.is_claude_model(name):
                    message = (
                        f"{label} is '{name}', which is not a Claude Code model (sonnet, opus, haiku, inherit"
                        " or a claude-* model id)"
                    )
            elif kind == "mcp-server":
                servers = self.project.claude_servers()
                if servers is not None and name not in servers:
                    guess = suggest(name, sorted(servers))
                    message = f"{label} names MCP server '{name}', which .mcp.json does not define"
                    if guess:
                        message += f"; did you mean '{guess}'?"
                        fixes = (replacement_fix(at, name, guess),)
            elif kind == "vscode-tool":
                server, sep, rest = name.partition("/")
                if sep and rest == "*" and server not in n.VSCODE_BUILTIN_TOOLSETS and "." not in server:
                    servers = self.project.vscode_servers()
                    if servers is not None and server not in servers:
                        message = (
                            f"{label} names MCP server '{server}', which .vscode/mcp.json does not define"
                        )
            elif kind == "vscode-agent":
                if name == "*" or name in n.VSCODE_BUILTIN_AGENTS:
                    continue
                agents = self.project.vscode_agents()
                if agents is not None and name not in agents:
                    guess = suggest(name, sorted(agents))
                    message = f"{label} names agent '{name}', which no file in .github/agents defines"
                    if guess:
                        message += f"; did you mean '{guess}'?"
                        fixes = (replacement_fix(at, name, guess),)
            if message:
                self.out.append(Diagnostic(UNKNOWN_NAME, message, at.range, W, fixes=fixes))

    # -- format-specific rules ---------------------------------------------------------------------
    def _format_rules(self, root: MappingNode) -> None:
        fmt = self.spec.format
        if fmt in (Format.CLAUDE_SKILL, Format.COPILOT_SKILL, Format.AGENT_SKILL):
            self._skill_rules(root)
        if fmt is Format.VSCODE_MCP:
            self._input_refs(root)

    def _skill_rules(self, root: MappingNode) -> None:
        name = root.get("name")
        if isinstance(name, ScalarNode) and isinstance(name.value, str):
            value = name.value
            folder = self.path.parent.name
            if not _SKILL_NAME.fullmatch(value) or len(value) > 64:
                self.out.append(
                    Diagnostic(
                        INVALID_VALUE,
                        f"skill name '{value}' must be 1-64 lowercase letters, digits and single hyphens;"
                        " hosts silently skip a skill with another name",
                        name.range,
                    )
                )
            elif folder and value != folder:
                self.out.append(
                    Diagnostic(
                        INVALID_VALUE,
                        f"skill name '{value}' differs from its folder '{folder}'; the name must match the folder",
                        name.range,
                        fixes=(Fix(f"Replace with '{folder}'", name.range, folder),),
                    )
                )
        description = root.get("description")
        if (
            isinstance(description, ScalarNode)
            and isinstance(description.value, str)
            and len(description.value) > 1024
        ):
            self.out.append(
                Diagnostic(
                    INVALID_VALUE,
                    f"the skill's description is {len(description.value)} characters; at most 1024 are allowed",
                    description.range,
                )
            )

    def _server_rules(self, name: str, server: MappingNode, label: str) -> None:
        kind = server.get("type")
        transport = kind.value if isinstance(kind, ScalarNode) and isinstance(kind.value, str) else "stdio"
        if transport not in ("stdio", "http", "sse"):
            return  # reported as a wrong 'type'
        need = "url" if transport in ("http", "sse") else "command"
        if need not in server and (transport != "stdio" or "url" not in server):
            at = server.pairs[0][0].range if server.pairs else server.range
            self.out.append(
                Diagnostic(
                    INVALID_VALUE,
                    f"{label} needs '{need}' ({'a URL' if need == 'url' else 'the program to start'}"
                    f" for {'an' if transport == 'http' else 'a'} {transport} server)",
                    at,
                )
            )
        command = server.get("command")
        if isinstance(command, ScalarNode) and isinstance(command.value, str):
            value = command.value
            if (
                value.startswith(("./", "../"))
                and "${" not in value
                and not (self.project.root / value).exists()
            ):
                self.out.append(
                    Diagnostic(BROKEN_LINK, f"{label}: command '{value}' does not exist", command.range, W)
                )
        env_file = server.get("envFile")
        if isinstance(env_file, ScalarNode) and isinstance(env_file.value, str):
            value = env_file.value.replace("${workspaceFolder}", str(self.project.root))
            if "${" not in value:
                target = Path(value) if os.path.isabs(value) else self.project.root / value
                if not target.exists():
                    self.out.append(
                        Diagnostic(
                            BROKEN_LINK,
                            f"{label}: envFile '{env_file.value}' does not exist",
                            env_file.range,
                            W,
                        )
                    )

    def _input_refs(self, root: MappingNode) -> None:
        inputs = root.get("inputs")
        ids: set[str] = set()
        if isinstance(inputs, SequenceNode):
            for item in inputs.items:
                if isinstance(item, MappingNode):
                    ident = item.get("id")
                    if isinstance(ident, ScalarNode) and isinstance(ident.value, str):
                        ids.add(ident.value)
        servers = root.get("servers")
        if not isinstance(servers, MappingNode):
            return
        for scalar in _scalars(servers):
            assert isinstance(scalar.value, str)
            for match in _INPUT_REF.finditer(scalar.value):
                if match.group(1) not in ids:
                    guess = suggest(match.group(1), sorted(ids))
                    hint = f"; did you mean '{guess}'?" if guess else ""
                    self.out.append(
                        Diagnostic(
                            UNKNOWN_NAME,
                            f"'${{input:{match.group(1)}}}' names no entry of 'inputs'{hint}",
                            scalar.span(match.start(), match.end()),
                            W,
                        )
                    )

    # -- body ------------------------------------------------------------------------------------
    def _links(self, body: str, body_start: int) -> None:
        if "](" not in body:
            return
        folder = self.path.parent
        source = SourceText(self.text, str(self.path))
        offset = body_start
        fenced = False
        for line in body.splitlines(keepends=True):
            if _FENCE.match(line):
                fenced = not fenced
            elif not fenced and "](" in line:
                visible = _INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)
                for match in _LINK.finditer(visible):
                    target = match.group(1)
                    if _external(target):
                        continue
                    rel = unquote(target.split("#", 1)[0].split("?", 1)[0])
                    if not rel or (folder / rel).exists():
                        continue
                    start = offset + match.start(1)
                    self.out.append(
                        Diagnostic(
                            BROKEN_LINK,
                            f"link target '{target}' does not exist (relative to the file's folder)",
                            source.range(start, start + len(target)),
                            W,
                        )
                    )
            offset += len(line)

    def _budget(self, root: MappingNode | None, body: str) -> None:
        limit = self.spec.host_prompt_limit
        if not limit:
            return
        target = root.get("target") if root is not None else None
        if isinstance(target, ScalarNode) and target.value == "vscode":
            return
        size = len(body.strip())
        if size > limit:
            self.out.append(
                Diagnostic(
                    BUDGET,
                    f"the agent's prompt is {size:,} characters; GitHub's cloud agent takes at most {limit:,}"
                    " (set 'target: vscode' if the file is for VS Code only)",
                    Range.at(0, 0, 0, 3),
                    W,
                )
            )


_NEEDS_FRONTMATTER = frozenset(
    (Format.CLAUDE_AGENT, Format.CLAUDE_SKILL, Format.COPILOT_SKILL, Format.AGENT_SKILL)
)
_EXPECTED = {
    "string": "a string",
    "bool": "true or false",
    "int": "an integer",
    "names": "a comma-separated string or a list of strings",
    "strings": "a list of strings",
    "models": "a string or a list of strings",
    "mapping": "a mapping",
    "map": "a mapping",
    "list": "a list",
    "any": "anything",
}


def _close(a: str, b: str) -> bool:
    import difflib

    return difflib.SequenceMatcher(None, a.lower(), b.lower()).ratio() >= 0.85


def _describe(node: Node) -> str:
    if isinstance(node, MappingNode):
        return "a mapping"
    if isinstance(node, SequenceNode):
        return "a list" if node.items else "an empty list"
    value = node.to_python()
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"{str(value).lower()}"
    if isinstance(value, int | float):
        return f"the number {value}"
    return f"'{value}'"


def _external(target: str) -> bool:
    return (
        target.startswith(("#", "/", "~"))
        or bool(re.match(r"[A-Za-z][A-Za-z0-9+.\-]*:", target))
        or "${" in target
        or "{{" in target
    )


def _scalars(node: Node) -> Iterator[ScalarNode]:
    stack = [node]
    while stack:
        cur = stack.pop()
        if isinstance(cur, ScalarNode):
            if isinstance(cur.value, str):
                yield cur
        elif isinstance(cur, MappingNode):
            stack.extend(v for _k, v in cur.pairs)
        elif isinstance(cur, SequenceNode):
            stack.extend(cur.items)


def _sub(node: ScalarNode, start: int, end: int) -> Node:
    """A part of a scalar (one name of a comma-separated string), located, for ranges and fixes."""
    return ScalarNode(0, 0, node.span(start, end), None, value=node.text[start:end])


def check_foreign(
    text: str,
    path: Path,
    spec: FormatSpec,
    *,
    reader: Callable[[Path], Loaded] | None = None,
) -> list[Diagnostic]:
    """Every diagnostic of ``text``, a file at ``path`` in ``spec``'s format."""
    project = Project(project_root(path), reader or read_source)
    return Checker(spec, path, text, project).run()
