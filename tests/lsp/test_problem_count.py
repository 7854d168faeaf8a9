"""One count of a workflow's problems everywhere (issue 25): a workflow with 3 errors (two that stop
it from loading, one that only lint finds) and 1 warning is "3 errors and 1 warning" in `lait lint`'s
summary, in its dependants' messages (a `workflow:` step: LAIT320; a test file: LAIT703; in the CLI
and in lait-ls), in `lait graph` and ``lait/graph``, and in the refusal of `lait run` and ``lait/run``."""

from __future__ import annotations

from pathlib import Path

from tests.cli.conftest import clean_env, run_lait
from tests.lsp.conftest import diagnostics_for, open_doc
from tests.lsp.run_support import run_client

TRIAGE = """inputs:
  repo: string
steps:
  - id: classify
    prompt: "Classify this issue of {{ inputs.rpo }}"
    temperature: 3
  - id: details
    when: '$steps.clasify.kind == "bug"'
    jq: '.'
  - jq: '$steps.classify |'
"""
COUNT = "3 errors and 1 warning"


def project(root: Path) -> None:
    (root / "lait.config.yml").write_text("base_url: http://127.0.0.1:9/v1\n", encoding="utf-8")
    (root / "triage.yml").write_text(TRIAGE, encoding="utf-8")
    (root / "parent.yml").write_text("steps:\n  - workflow: ./triage.yml\n", encoding="utf-8")
    (root / "tape").mkdir()
    (root / "tape" / ".keep").write_text("", encoding="utf-8")
    (root / "triage.test.yml").write_text(
        "workflow: triage.yml\nreplay: tape\nassert:\n  - type: contains\n    value: hi\n", encoding="utf-8"
    )


def test_the_cli_counts_a_workflow_the_same_everywhere(tmp_path: Path) -> None:
    project(tmp_path)
    env = clean_env(tmp_path / "xdg", tmp_path / "home")
    own = run_lait(["lint", "triage.yml"], cwd=tmp_path, env=env)
    assert own.returncode == 3
    assert own.stderr == f"lait: {COUNT} in 2 files\n"  # lait.config.yml is checked too, clean
    dependants = run_lait(["lint", "parent.yml", "triage.test.yml"], cwd=tmp_path, env=env)
    assert (
        f"parent.yml:2:15: LAIT320 error: step-1 (workflow) runs workflow './triage.yml', which has {COUNT};"
        in dependants.stdout
    ), dependants.stdout
    assert (
        f"triage.test.yml:1:11: LAIT703 error: the workflow 'triage.yml' does not load ({COUNT}); `lait lint` it"
        in dependants.stdout
    ), dependants.stdout
    for args in (["graph", "triage.yml"], ["run", "triage.yml", "x", "--input", "repo=r"]):
        refused = run_lait(args, cwd=tmp_path, env=env)
        assert refused.returncode == 3, refused
        lines = refused.stderr.splitlines()
        assert lines[-1] == f"lait: 'triage.yml' is not a valid workflow ({COUNT})", lines
        assert [line.split(" ")[1] for line in lines[:-1]] == ["LAIT403", "LAIT310", "LAIT404", "LAIT402"]


async def test_lait_ls_counts_a_workflow_the_same_everywhere(tmp_path: Path) -> None:
    project(tmp_path)
    triage = tmp_path / "triage.yml"
    async with run_client(tmp_path) as client:
        own = await diagnostics_for(client, open_doc(client, triage))
        assert sorted(d.code for d in own) == ["LAIT310", "LAIT402", "LAIT403", "LAIT404"]  # type: ignore[type-var]
        parent = await diagnostics_for(client, open_doc(client, tmp_path / "parent.yml"))
        assert [d.message.split(";")[0] for d in parent] == [
            f"step-1 (workflow) runs workflow './triage.yml', which has {COUNT}"
        ]
        test = await diagnostics_for(client, open_doc(client, tmp_path / "triage.test.yml"))
        assert [d.message for d in test if d.code == "LAIT703"] == [
            f"the workflow 'triage.yml' does not load ({COUNT}); `lait lint` it"
        ]
        graph = await client.protocol.send_request_async("lait/graph", {"uri": triage.as_uri()})
        assert graph["error"].startswith(f"lait: '{triage}' is not a valid workflow ({COUNT}):\n"), graph
        assert f"{triage}:6:18: LAIT310 error: 'temperature' is 3" in graph["error"]
        run = await client.protocol.send_request_async(
            "lait/run", {"uri": triage.as_uri(), "kind": "workflow", "prompt": "x", "inputs": {"repo": "r"}}
        )
        assert run["status"] == "failed", run
        assert run["error"].startswith(f"lait: '{triage}' is not a valid workflow ({COUNT}):\n"), run
