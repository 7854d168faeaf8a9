"""The layout of the packages (CONTRIBUTING.md, "Layout"): lait_core grouped by role, one module per
command in lait_cli/commands/, unique module names, no import cycles, no private names across
modules. Read from the source files with ``ast``; nothing is imported."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("lait_core", "lait_cli", "lait_ls")

CORE_ROLES = {
    "syntax": "text -> located trees: YAML, frontmatter, Handlebars templates, jq; positions; bounded reads",
    "documents": "the typed models of every file kind, their loaders, ${VAR}, .env, other tools' files",
    "rules": "one module per lint rule (its CODE, doc, examples and check), grouped by family",
    "lint": "the linter: discovery, the checks per file kind, suppressions, fixes, output formats",
    "language": "the editor's knowledge: completion, hover, navigation, outline, tokens, ...",
    "engine": "running: the model client, the tool loop, tools, MCP, workflows, records",
    "serve": "lait serve --mcp",
    "testing": "lait test, lait eval, the pytest plugin",
    "commands": "the work of single commands (doctor, compare, graph, import, init, sessions)",
    "support": "small infrastructure every role uses: cancellation, redaction, user data, ...",
}
"""The role folders of lait_core (CONTRIBUTING.md); every module lives in one of them."""


@dataclass(frozen=True)
class Module:
    name: str
    path: Path
    is_package: bool


def modules(*packages: str) -> list[Module]:
    found = []
    for package in packages:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            if is_package:
                parts = parts[:-1]
            found.append(Module(".".join(parts), path, is_package))
    return found


@dataclass(frozen=True)
class ImportOf:
    target: str
    """The module of ours the import loads."""
    name: str | None
    """The name taken from it (``from target import name``), when that is not a module itself."""
    line: int
    deferred: bool
    """Inside a function: runs when the function is first called, not when the module loads."""


def _type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _run_as_script(test: ast.expr) -> bool:
    """``__name__ == "__main__"``: true only when the module runs as ``python -m``, never on import."""
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators)
    )


def imports_of(module: Module, known: set[str]) -> Iterator[ImportOf]:
    """The imports of our packages that run on import (``if TYPE_CHECKING:`` and
    ``if __name__ == "__main__":`` blocks do not)."""
    base = module.name if module.is_package else module.name.rpartition(".")[0]

    def ours(name: str) -> str | None:
        while name and name not in known:
            name = name.rpartition(".")[0]
        return name or None

    def walk(node: ast.AST, deferred: bool) -> Iterator[ImportOf]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and (_type_checking(child.test) or _run_as_script(child.test)):
                for item in child.orelse:
                    yield from walk_one(item, deferred)
                continue
            yield from walk_one(child, deferred)

    def walk_one(node: ast.AST, deferred: bool) -> Iterator[ImportOf]:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if (target := ours(alias.name)) is not None:
                    yield ImportOf(target, None, node.lineno, deferred)
        elif isinstance(node, ast.ImportFrom):
            source = node.module or ""
            if node.level:
                package = base
                for _ in range(node.level - 1):
                    package = package.rpartition(".")[0]
                source = f"{package}.{source}" if source else package
            if source.split(".")[0] not in PACKAGES:
                return
            for alias in node.names:
                if f"{source}.{alias.name}" in known:
                    yield ImportOf(f"{source}.{alias.name}", None, node.lineno, deferred)
                elif (target := ours(source)) is not None:
                    yield ImportOf(target, alias.name, node.lineno, deferred)
        inner = deferred or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        if not isinstance(node, ast.Import | ast.ImportFrom):
            yield from walk(node, inner)

    yield from walk(ast.parse(module.path.read_text(encoding="utf-8")), False)


def cycles(*, deferred: bool) -> list[list[str]]:
    """The strongly connected components (more than one module) of the import graph."""
    every = modules(*PACKAGES)
    known = {m.name for m in every}
    graph: dict[str, set[str]] = {m.name: set() for m in every}
    for m in every:
        for i in imports_of(m, known):
            if i.target != m.name and (deferred or not i.deferred):
                graph[m.name].add(i.target)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's algorithm; the graph is a few hundred modules deep at most
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_every_core_module_is_in_a_role_folder() -> None:
    top = ROOT / "lait_core"
    loose = sorted(p.name for p in top.glob("*.py") if p.name != "__init__.py")
    assert loose == [], f"modules of lait_core/ outside a role folder: {loose}"
    folders = sorted(p.name for p in top.iterdir() if p.is_dir() and (p / "__init__.py").exists())
    assert folders == sorted(CORE_ROLES), (
        "lait_core/'s folders are its roles (CORE_ROLES and CONTRIBUTING.md)"
    )
    engine = sorted(p.name for p in (top / "engine").glob("*.py") if p.name != "__init__.py")
    assert engine == [], f"modules of lait_core/engine/ outside its sub-folders: {engine}"


def test_every_folder_is_a_package() -> None:
    missing = [
        str(folder.relative_to(ROOT))
        for package in PACKAGES
        for folder in [ROOT / package, *(ROOT / package).rglob("*")]
        if folder.is_dir() and folder.name != "__pycache__" and any(folder.glob("*.py"))
        if not (folder / "__init__.py").exists()
    ]
    assert missing == []


BARE_CHAT = "lait_cli.commands.single_shot"
"""Bare ``lait [PROMPT]``: the command without a name."""


def test_lait_cli_commands_hold_one_module_per_command() -> None:
    from lait_cli.command_table import COMMANDS

    outside = {
        name: e.module for name, e in COMMANDS.items() if e.module.rpartition(".")[0] != "lait_cli.commands"
    }
    assert outside == {}, "every command is defined in lait_cli/commands/<name>.py"
    registered = {e.module for e in COMMANDS.values()} | {BARE_CHAT}
    helpers = sorted(
        m.name
        for m in modules("lait_cli")
        if m.name.startswith("lait_cli.commands.") and m.name not in registered
    )
    assert helpers == [], "lait_cli/commands/ holds commands only; what they share goes to lait_cli/support/"


def test_module_names_are_unique() -> None:
    """A file name says what the module is, once: in lait_core and lait_cli together, and in lait_ls
    (whose features/<name>.py present lait_core/language/<name>.py, so it is checked on its own)."""
    for group in (("lait_core", "lait_cli"), ("lait_ls",)):
        seen: dict[str, list[str]] = {}
        for m in modules(*group):
            if not m.is_package and m.path.name != "__main__.py":
                seen.setdefault(m.path.name, []).append(str(m.path.relative_to(ROOT)))
        assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}


def test_no_import_cycle() -> None:
    assert cycles(deferred=False) == []


KNOWN_DEFERRED_CYCLES = [
    # a subagent tool runs an agent, whose conversation offers subagent tools again: the recursion
    # an agent may have (docs/workflows.md), closed by the deferred import in tools/subagent.py
    [
        "lait_core.engine.llm.conversation",
        "lait_core.engine.run.agent_run",
        "lait_core.engine.tools.subagent",
    ],
]
"""The cycles that only deferred imports close, each on purpose. A new one fails the test below; so
does breaking this one without removing it here."""


def test_no_import_cycle_through_a_deferred_import() -> None:
    """An import inside a function keeps start-up light; it must not hide a new cycle."""
    assert sorted(cycles(deferred=True)) == sorted(KNOWN_DEFERRED_CYCLES)


def test_no_private_name_imported_from_another_module() -> None:
    every = modules(*PACKAGES)
    known = {m.name for m in every}
    private = [
        f"{m.path.relative_to(ROOT)}:{i.line}: {i.name} from {i.target}"
        for m in every
        for i in imports_of(m, known)
        if i.name is not None
        and i.name.startswith("_")
        and not i.name.startswith("__")
        and i.target != m.name
    ]
    assert private == []
