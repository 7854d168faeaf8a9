"""The project the VS Code end-to-end tests open: the example project with its model pointed at the
scripted server, a shell tool, the eliciting MCP server of tests/peers and two workflows to run; and a
`lait-ls` that runs this checkout's server."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


EXTRA_SERVERS = f"""mcp_servers:
  asker:  # tests/peers: save_note elicits a title and a priority
    command: {sys.executable}
    args: [-m, tests.peers.mcp_elicit_server]
    cwd: {ROOT}
    allow_elicitation: true
"""

EXTRA_TOOLS = f"""tools:
  shout:
    description: Print a text in capitals.
    command: [{sys.executable}, -c, "import sys; print(sys.argv[1].upper())", "{{{{ input.text }}}}"]
    parameters:
      type: object
      properties:
        text: {{type: string, pattern: '^[^-]'}}
      required: [text]
  upper:
    description: Print a text in capitals (the run view test's tool).
    command: [{sys.executable}, -c, "import sys; print(sys.argv[1].upper())", "{{{{ input.text }}}}"]
    parameters:
      type: object
      properties:
        text: {{type: string, pattern: '^[^-]'}}
      required: [text]
  sleepy:
    description: Start a child process, note both pids, and sleep.
    command: [{sys.executable}, "{{{{ input.script }}}}"]
    parameters:
      type: object
      properties:
        script: {{type: string, pattern: '^/'}}
      required: [script]
    timeout: 120
"""

SHOUT_FLOW = """name: shout-and-save
description: Shout and save notes, asking before each tool call.
steps:
  - id: work
    prompt: "{{ input }}"
    tools: [shout]
    mcp: [asker]
"""

SLOW_FLOW = """name: slow
description: Runs a tool that takes two minutes.
steps:
  - id: wait
    prompt: "{{ input }}"
    tools: [sleepy]
"""

EACH_FLOW = """name: each-fruit
description: Shouts each fruit with a shell tool.
steps:
  - id: each
    for_each: '[., "pear"]'
    steps:
      - id: shout_item
        prompt: "Shout {{ loop.item }}"
        tools: [upper]
"""

SLEEPY = """import os, subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
with open(os.path.join(os.path.dirname(__file__), "sleepy.pids"), "a") as f:
    f.write(f"{os.getpid()}\\n{child.pid}\\n")
time.sleep(120)
"""


def prepare_project(workspace: Path, llm_url: str) -> None:
    """The example project, its model pointed at ``llm_url``, with the test tools and workflows."""
    shutil.copytree(ROOT / "examples", workspace)
    config = workspace / "lait.config.yml"
    source = config.read_text(encoding="utf-8").replace("http://localhost:1234/v1", llm_url)
    assert source.count(llm_url) == 2
    source = source.replace("mcp_servers:\n", EXTRA_SERVERS, 1).replace("tools:\n", EXTRA_TOOLS, 1)
    config.write_text(source, encoding="utf-8")
    (workspace / "workflows" / "shout.yml").write_text(SHOUT_FLOW, encoding="utf-8")
    (workspace / "workflows" / "slow.yml").write_text(SLOW_FLOW, encoding="utf-8")
    (workspace / "workflows" / "each.yml").write_text(EACH_FLOW, encoding="utf-8")
    (workspace / "sleepy.py").write_text(SLEEPY, encoding="utf-8")


def lait_ls_wrapper(bin_dir: Path, marker: str, *, note: Path | None = None) -> Path:
    """A `lait-ls` in ``bin_dir`` that runs this checkout's server, its processes marked with ``marker``;
    with ``note``, it first appends its own path to that file."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    wrapper = bin_dir / "lait-ls"
    noting = f'echo "$0" >> {note}\n' if note else ""
    wrapper.write_text(
        f"#!/bin/sh\n{noting}export LAIT_TEST_MARKER={marker} PYTHONPATH={ROOT}\n"
        f'exec {sys.executable} -m lait_ls.server "$@"\n',
        encoding="utf-8",
    )
    wrapper.chmod(0o755)
    return wrapper
