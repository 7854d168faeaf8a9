"""Acceptance (issue 14): `lait eval` against the real small model (SmolLM2-135M-Instruct via
llama-cpp-python, see ``tests/llm/conftest.py``) with ``--repeat 3`` prints the case's pass rate.
One short case with a model target. The model's wording is not asserted -- only the report's
structure and that it agrees with itself and with the exit code. (``llm_judge`` is not used here:
llama-cpp-python's server refuses ``response_format: json_schema``, which the judge sends as
docs/testing.md asks; the judge is tested against the scripted server.)"""

from __future__ import annotations

import re
from pathlib import Path

from tests.cli.conftest import clean_env, run_lait
from tests.peers.llm_server import LlamaServer

EVAL = """\
target:
  model: small
  prompt: 'Name one colour. Input: {{ input }}'
cases:
  - input: sky
    assert:
      - type: jq
        expr: 'length > 0'
      - type: contains
        value: blue
"""


def test_eval_repeat_3_prints_the_case_rate(real_llm: LlamaServer, tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    (work / "lait.config.yml").write_text(
        f"""\
models:
  small:
    - provider: {{base_url: "{real_llm.url}", api_key: none}}
      model_id: {real_llm.model}
default:
  model: small
  temperature: 0
  max_tokens: 48
""",
        encoding="utf-8",
    )
    (work / "colour.yml").write_text(EVAL, encoding="utf-8")
    env = clean_env(tmp_path / "xdg", tmp_path / "home")
    for key in [k for k in env if k.startswith(("OPENAI_", "LLM_"))]:
        del env[key]
    text = run_lait(["eval", "colour.yml", "--repeat", "3"], cwd=work, env=env, timeout=600)
    assert text.returncode in (0, 1), text.stderr
    lines = text.stdout.splitlines()
    head = re.fullmatch(r"case 1: ([0-3])/3 \((\d+)%\) (PASS|FAIL)", lines[0])
    assert head is not None, text.stdout
    passed = int(head.group(1))
    assert int(head.group(2)) == round(passed * 100 / 3)
    assert head.group(3) == ("PASS" if passed == 3 else "FAIL")
    failing = [line for line in lines[1:-1] if not line.startswith("    ")]  # a failure's own lines
    assert all(re.match(r"  run [123]: assertion [12]: ", line) for line in failing), text.stdout
    assert len({line.split(":", 1)[0] for line in failing}) == 3 - passed
    assert lines[-1] == f"{int(passed == 3)} of 1 case(s) fully passed"
    assert text.returncode == (0 if passed == 3 else 1)
    assert text.stderr.splitlines()[-1] == f"case 1: {passed}/3 runs passed"
