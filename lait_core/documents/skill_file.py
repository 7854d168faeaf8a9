"""SKILL.md files: optional frontmatter (`name`, `description`) and a Markdown body (not templated).

The original linter checked SKILL.md as if it were an agent and failed on skill keys; lait
checks it as what it is.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from lait_core.documents.document_models import SkillFrontmatter
from lait_core.documents.validate import Codes, validate_mapping
from lait_core.rules.agents.skill_frontmatter import CODE as SKILL_FRONTMATTER
from lait_core.rules.agents.skill_without_description import CODE as CODE_NO_DESCRIPTION
from lait_core.syntax.diagnostics import Diagnostic, Severity
from lait_core.syntax.frontmatter import split_frontmatter, starts_with_frontmatter
from lait_core.syntax.positions import Range
from lait_core.syntax.yaml.parse import parse_yaml
from lait_core.syntax.yaml.tree import MappingNode, SourceText, retarget

CODES = Codes(unknown=SKILL_FRONTMATTER, invalid=SKILL_FRONTMATTER)


@dataclass(slots=True)
class SkillDocument:
    path: str
    source: SourceText
    frontmatter: SkillFrontmatter | None = None
    body: str = ""
    diagnostics: list[Diagnostic] = field(default_factory=list)


def is_skill_path(name: str) -> bool:
    return name == "SKILL.md"


def parse_skill(text: str, path: str = "") -> SkillDocument:
    source = SourceText(text, path)
    doc = SkillDocument(path, source, body=text.strip())  # trimmed, as after frontmatter
    if not starts_with_frontmatter(text):
        doc.frontmatter = SkillFrontmatter()
        return doc
    split = split_frontmatter(text)
    if isinstance(split, Diagnostic):
        doc.diagnostics.append(split)
        return doc
    doc.body = split.body.strip()
    parsed = parse_yaml(split.yaml_text, path)
    doc.diagnostics.extend(parsed.problems)
    if not parsed.ok:
        return doc
    retarget(parsed.root, source)
    root = parsed.root
    out = doc.diagnostics
    model = (
        validate_mapping(root, SkillFrontmatter, CODES, out, where="the skill frontmatter") if root else None
    )
    if root is None:
        model = SkillFrontmatter()
    if model is not None and not model.description:
        rng = root.range if isinstance(root, MappingNode) else Range.at(0, 0, 0, 3)
        if isinstance(root, MappingNode) and root.pairs:
            rng = root.pairs[0][0].range
        out.append(
            Diagnostic(
                CODE_NO_DESCRIPTION,
                "skill has no 'description'; the model relies on it to decide when to use the skill",
                rng,
                Severity.WARNING,
            )
        )
    doc.frontmatter = model
    return doc
