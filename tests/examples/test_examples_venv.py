"""The example project works from a venv install with no extra step (issue 25): lait is installed from
this checkout into a fresh venv (`python3 -m venv`, pip with `--no-index`: no network), and `lait run
triage` from that venv -- whose reviewer agent uses the `notes` MCP server, started with
`${LAIT_PYTHON}` -- succeeds against the scripted model server while the `python3` on PATH has no
`mcp` package. The same run with the server started as `python3` fails, and says why.

The wheel is put together here (a zip of the three packages with their metadata): the build backend's
`bdist_wheel` needs the `wheel` package, which this machine's setuptools lacks; pip installs the wheel
as any other (console scripts included)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from tests.examples.test_examples_run import LOCAL_URL
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def build_wheel(out: Path) -> Path:
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    name, version = project["name"], project["version"]
    dist = f"{name}-{version}.dist-info"
    files: dict[str, bytes] = {}
    for package in ("lait_core", "lait_cli", "lait_ls"):
        for path in sorted((ROOT / package).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
                files[path.relative_to(ROOT).as_posix()] = path.read_bytes()
    files[f"{dist}/METADATA"] = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode()
    files[f"{dist}/WHEEL"] = b"Wheel-Version: 1.0\nGenerator: lait-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    scripts = "".join(f"{k} = {v}\n" for k, v in project["scripts"].items())
    files[f"{dist}/entry_points.txt"] = f"[console_scripts]\n{scripts}".encode()
    record = []
    for rel, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{rel},sha256={digest},{len(data)}")
    record.append(f"{dist}/RECORD,,")
    files[f"{dist}/RECORD"] = ("\n".join(record) + "\n").encode()
    wheel = out / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        for rel, data in files.items():
            zf.writestr(rel, data)
    return wheel


def test_the_example_runs_from_a_fresh_venv_whose_python3_on_path_lacks_mcp(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LAIT_", "PYTHON", "VIRTUAL_ENV"))}
    # lait's venv: its dependencies from this machine's Python (no network), lait from this checkout
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", venv], check=True)
    wheel = build_wheel(tmp_path)
    subprocess.run(
        [venv / "bin" / "python", "-m", "pip", "install", "-q", "--no-index", "--no-deps", wheel],
        check=True,
        env=env,
        cwd=tmp_path,
    )
    lait = venv / "bin" / "lait"
    where = subprocess.run(
        [venv / "bin" / "python", "-c", "import lait_core; print(lait_core.__file__)"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
        cwd=tmp_path,
    )
    assert where.stdout.startswith(str(venv)), where.stdout  # the installed copy, not this checkout
    # the python3 on PATH: another venv, without lait's packages
    bare = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", bare], check=True)
    env["PATH"] = f"{bare / 'bin'}:/usr/bin:/bin"
    env["HOME"] = str(tmp_path / "home")
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    probe = subprocess.run(["python3", "-c", "import mcp"], env=env, capture_output=True, text=True)
    assert "No module named 'mcp'" in probe.stderr

    with ScriptedOpenAIServer() as llm:
        root = tmp_path / "examples"
        shutil.copytree(EXAMPLES, root, ignore=shutil.ignore_patterns(".lait", "__pycache__", "release-*.md"))
        config = root / "lait.config.yml"
        shipped = config.read_text(encoding="utf-8").replace(LOCAL_URL, llm.url)
        assert "command: ${LAIT_PYTHON}" in shipped
        argv = [lait, "run", "triage", "The app crashes on start", "--input", "repo=lait"]

        # the server started as `python3` (the example before): it fails, and the message says why
        config.write_text(shipped.replace("command: ${LAIT_PYTHON}", "command: python3"), encoding="utf-8")
        llm.push(text('{"kind": "bug", "summary": "crashes on start"}'))
        before = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=120)
        assert before.returncode == 1, before
        assert "MCP server 'notes'" in before.stderr
        assert before.stderr.rstrip().endswith("ModuleNotFoundError: No module named 'mcp'"), before.stderr

        # the example as shipped
        config.write_text(shipped, encoding="utf-8")
        llm.push(
            text('{"kind": "bug", "summary": "crashes on start"}'),
            tool_calls(call("notes__add_note", {"text": "check startup"})),
            text("I would revise it."),
            text('{"verdict": "revise", "problems": ["startup path unchecked"]}'),
            text("Thanks, we are on it."),
        )
        run = subprocess.run(argv, cwd=root, env=env, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0, run.stderr
        assert json.loads(run.stdout) == {"reply": "Thanks, we are on it.", "kind": "bug"}
        review = llm.bodies[-3]
        results = [m["content"] for m in review["messages"] if m["role"] == "tool"]
        assert results and results[0].startswith("noted (1 notes)"), review
        lint = subprocess.run([lait, "lint", "."], cwd=root, env=env, capture_output=True, text=True)
        assert lint.returncode == 0 and "LAIT112" not in lint.stdout, lint
