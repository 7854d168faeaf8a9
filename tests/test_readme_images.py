"""Every picture the READMEs and docs/ pages show exists in the repository (docs/images/ is written by
the VS Code end-to-end tests with LAIT_UPDATE_IMAGES=1)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
READMES = [
    ROOT / "README.md",
    ROOT / "editors" / "vscode" / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
]
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)\s]+)[^)]*\)|<img\s[^>]*src=\"([^\"]+)\"")


def images(readme: Path) -> list[str]:
    return [a or b for a, b in IMAGE.findall(readme.read_text(encoding="utf-8"))]


@pytest.mark.parametrize("readme", READMES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_image_a_readme_names_exists(readme: Path) -> None:
    missing = [
        name
        for name in images(readme)
        if not name.startswith(("http://", "https://")) and not (readme.parent / name).is_file()
    ]
    assert missing == [], f"{readme.relative_to(ROOT)} shows images that do not exist: {missing}"


def test_the_editor_pages_show_the_vscode_pictures() -> None:
    assert "docs/images/vscode-approval.png" in images(ROOT / "README.md")
    shown = set(images(ROOT / "docs" / "editors.md"))
    assert {
        "images/vscode-quick-fix.png",
        "images/vscode-approval.png",
        "images/vscode-run-view.png",
    } <= shown


def test_the_check_finds_a_missing_image(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text('![a](docs/a.png)\n<img src="b.png" width="10">\n', encoding="utf-8")
    assert images(readme) == ["docs/a.png", "b.png"]
