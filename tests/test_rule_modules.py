"""Every rule lives in one module of ``lait_core/rules/<family>/``: the module defines the rule's
``CODE`` (the only place its code is written as a string), registers its doc and examples, and the
code is raised through that ``CODE``: by the module's own check, or by a loader that imports it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from lait_core.rules.registry import all_rules

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("lait_core", "lait_cli", "lait_ls")
RULES_DIR = REPO / "lait_core" / "rules"
A_CODE = re.compile(r"LAIT\d{3}")


def _modules() -> dict[Path, ast.Module]:
    return {
        path: ast.parse(path.read_text(encoding="utf-8"), str(path))
        for package in PACKAGES
        for path in sorted((REPO / package).rglob("*.py"))
    }


MODULES = _modules()


def _dotted(path: Path) -> str:
    return ".".join(path.relative_to(REPO).with_suffix("").parts)


def _code_definitions(tree: ast.Module) -> list[str]:
    """The codes of ``CODE = "LAIT..."`` assignments at the module's top level."""
    return [
        node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and [getattr(t, "id", None) for t in node.targets] == ["CODE"]
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        and A_CODE.fullmatch(node.value.value)
    ]


def _definitions() -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {}
    for path, tree in MODULES.items():
        for code in _code_definitions(tree):
            found.setdefault(code, []).append(path)
    return found


DEFINITIONS = _definitions()


def _uses_own_code(tree: ast.Module) -> bool:
    """The module reads ``CODE`` somewhere other than in registering its rule (``rule(CODE, ...)``)."""
    registering: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "rule" and node.args:
            registering.add(id(node.args[0]))
    return any(
        isinstance(node, ast.Name)
        and node.id == "CODE"
        and isinstance(node.ctx, ast.Load)
        and id(node) not in registering
        for node in ast.walk(tree)
    )


def _code_readers() -> dict[str, set[Path]]:
    """For each module name, the modules that import ``CODE`` from it, or import it and read its
    ``CODE`` (``from package import module`` ... ``module.CODE``)."""
    readers: dict[str, set[Path]] = {}
    for path, tree in MODULES.items():
        imported: dict[str, str] = {}  # local name -> module it names
        attributes: set[str] = set()  # local names whose .CODE is read
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module is not None:
                for alias in node.names:
                    if alias.name == "CODE":
                        readers.setdefault(node.module, set()).add(path)
                    else:
                        imported[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            elif isinstance(node, ast.Attribute) and node.attr == "CODE" and isinstance(node.value, ast.Name):
                attributes.add(node.value.id)
        for local in attributes & set(imported):
            readers.setdefault(imported[local], set()).add(path)
    return readers


CODE_READERS = _code_readers()


CODES = [rule.code for rule in all_rules()]


def test_every_registered_rule_is_enumerated() -> None:
    assert len(CODES) >= 75
    assert sorted(DEFINITIONS) == CODES


@pytest.mark.parametrize("code", CODES)
def test_a_rule_is_defined_in_exactly_one_module_of_its_family(code: str) -> None:
    paths = DEFINITIONS.get(code, [])
    assert len(paths) == 1, f"{code} defined in {paths}"
    path = paths[0]
    assert path.parent.parent == RULES_DIR, f"{code}: {path} is not lait_core/rules/<family>/<rule>.py"
    (rule,) = [r for r in all_rules() if r.code == code]
    registered = [
        node
        for node in ast.walk(MODULES[path])
        if isinstance(node, ast.Call)
        and getattr(node.func, "id", None) == "rule"
        and node.args
        and getattr(node.args[0], "id", None) == "CODE"
    ]
    assert len(registered) == 1, f"{path} does not register its rule with rule(CODE, ...)"
    assert path.stem == rule.name.replace("-", "_") or path.parent.name == "testfiles", path


@pytest.mark.parametrize("code", CODES)
def test_a_rule_module_raises_its_code_or_a_loader_imports_it(code: str) -> None:
    (path,) = DEFINITIONS[code]
    module = _dotted(path)
    importers = CODE_READERS.get(module, set()) - {path}
    assert _uses_own_code(MODULES[path]) or importers, f"nothing raises {code} through {module}.CODE"


def test_no_code_is_written_as_a_bare_string_outside_its_rule_module() -> None:
    """A diagnostic's code is never a string literal: only the ``CODE = "..."`` of its rule module is."""
    bare: list[str] = []
    for path, tree in MODULES.items():
        definitions = {
            id(node.value)
            for node in tree.body
            if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["CODE"]
        }
        for node in ast.walk(tree):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and A_CODE.fullmatch(node.value)
                and id(node) not in definitions
            ):
                bare.append(f"{path.relative_to(REPO)}:{node.lineno}: {node.value!r}")
    assert bare == []
