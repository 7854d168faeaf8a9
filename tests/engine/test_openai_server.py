"""The scripted server's command-line mode (for manual runs against lait)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]


def test_command_line_mode_serves_a_script_file(tmp_path: Path) -> None:
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [{"message": {"content": "scripted hello"}}]}))
    log = tmp_path / "requests.jsonl"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "tests.peers.openai_server",
            "--script",
            str(script),
            "--port",
            "0",
            "--log",
            str(log),
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        banner = proc.stdout.readline()
        assert banner.startswith("listening on http://127.0.0.1:") and "(1 scripted responses)" in banner
        url = banner.split()[2]
        body = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
        answer = httpx.post(f"{url}/chat/completions", json=body, timeout=5).json()
        assert answer["choices"][0]["message"]["content"] == "scripted hello"
        assert httpx.get(f"{url}/models", timeout=5).json()["data"][0]["id"] == "scripted-model"
        exhausted = httpx.post(f"{url}/chat/completions", json=body, timeout=5)
        assert exhausted.status_code == 400 and "no scripted response left" in exhausted.text
        logged = [json.loads(line) for line in log.read_text().splitlines()]
        assert logged[0] == {"method": "POST", "path": "/v1/chat/completions", "body": body}
    finally:
        proc.terminate()
        proc.wait(5)
