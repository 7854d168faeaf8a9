"""Details of the step order and kinds (docs/workflows.md) that the other workflow test files leave out:
the backoff factor and the
3600 s cap on each retry wait, `default.retry`/`default.timeout` on `agent` steps, the effective
`schema_name` (explicit, else `structured_output` for an inline schema), `images` and PDF `files`
as content parts, non-UTF-8 `files`, and child-workflow cycles found through a symlinked path
(canonical paths)."""

from __future__ import annotations

import asyncio
import base64
import time

import pytest

from lait_core.engine.run.interaction import StepRetrying
from lait_core.engine.workflow import StepFailed
from tests.peers.openai_server import call, text, tool_calls
from tests.workflow.conftest import Harness

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


async def test_backoff_multiplies_each_wait(wf: Harness) -> None:
    counter = wf.root / "count"
    wf.write(
        "w.yml",
        f"""
        steps:
          - id: flaky
            run: [sh, -c, 'n=$(cat {counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > {counter};
                  [ $n -ge 3 ] || exit 1; echo done']
            retry: {{max_attempts: 3, delay_seconds: 1, backoff: 0.5}}
        """,
    )
    started = time.monotonic()
    assert (await wf.run("w.yml", "x")).value == "done"
    elapsed = time.monotonic() - started
    assert wf.last is not None
    assert [r.delay for r in wf.last.of_type(StepRetrying)] == [1.0, 0.5]
    assert 1.5 <= elapsed < 20
    assert (
        "    -> attempt 2/3 failed: command 'sh' failed (exit status: 1); retrying in 0.5s" in wf.progress()
    )


async def test_each_wait_is_capped_at_3600_seconds(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - id: f
            run: [sh, -c, 'exit 1']
            retry: {max_attempts: 2, delay_seconds: 90000}
        """,
    )
    task = asyncio.create_task(wf.run("w.yml", "x"))
    retries: list[StepRetrying] = []
    for _ in range(200):
        await asyncio.sleep(0.02)
        if wf.last is not None and (retries := wf.last.of_type(StepRetrying)):
            break
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [(r.attempt, r.delay) for r in retries] == [(1, 3600.0)]


async def test_default_retry_and_timeout_apply_to_agent_steps(wf_llm: Harness) -> None:
    server = wf_llm.server
    assert server is not None
    server.push(text("slow", delay=3), text("fast"))
    wf_llm.write(
        "w.yml",
        """
        agents:
          helper:
            system: 'Help.'
        default:
          retry: {max_attempts: 2}
          timeout: 1
        steps:
          - id: a
            agent: helper
        """,
    )
    assert (await wf_llm.run("w.yml", "x")).value == "fast"
    assert (
        "    -> attempt 1/2 failed: step 'a' timed out after 1s (attempt 1/2); retrying in 0.0s"
        in wf_llm.progress()
    )


async def test_effective_schema_name(wf_llm: Harness) -> None:
    server = wf_llm.server
    assert server is not None
    server.push(text('{"a": 1}'), text('{"a": 2}'), text('{"a": 3}'))
    wf_llm.write(
        "w.yml",
        """
        schemas:
          named: {type: object}
        steps:
          - prompt: 'one'
            output_schema: {type: object}
          - prompt: 'two'
            output_schema: named
            schema_name: explicit-name
          - prompt: 'three'
            output_schema: named
          - jq: '.a'
        """,
    )
    assert (await wf_llm.run("w.yml", "x")).value == 3
    names = [b["response_format"]["json_schema"]["name"] for b in server.bodies]
    assert names == ["structured_output", "explicit-name", "named"]


async def test_images_and_pdf_files_become_content_parts(wf_llm: Harness) -> None:
    server = wf_llm.server
    assert server is not None
    server.push(text("seen"))
    (wf_llm.root / "pic-1.png").write_bytes(PNG)
    (wf_llm.root / "doc.pdf").write_bytes(b"%PDF-1.4\n%%EOF\n")
    (wf_llm.root / "notes.txt").write_text("plain notes")
    wf_llm.write(
        "w.yml",
        """
        steps:
          - prompt: 'look at {{ input }}'
            images: ['pic-{{ input }}.png', 'https://example.invalid/x.png']
            files: [notes.txt, doc.pdf]
        """,
    )
    assert (await wf_llm.run("w.yml", "1")).value == "seen"
    content = server.bodies[0]["messages"][-1]["content"]
    assert isinstance(content, list)
    kinds = [part["type"] for part in content]
    assert kinds == ["text", "image_url", "image_url", "file"]
    assert content[0]["text"].startswith("look at 1\n\n") and "plain notes" in content[0]["text"]
    assert content[1]["image_url"]["url"] == "data:image/png;base64," + base64.b64encode(PNG).decode()
    assert content[2]["image_url"]["url"] == "https://example.invalid/x.png"
    assert content[3]["file"]["filename"] == "doc.pdf"


async def test_files_must_be_utf8(wf_llm: Harness) -> None:
    server = wf_llm.server
    assert server is not None
    (wf_llm.root / "bin.dat").write_bytes(b"\xff\xfe\x00bad")
    wf_llm.write("w.yml", "steps:\n  - id: p\n    prompt: 'x'\n    files: [bin.dat]\n")
    with pytest.raises(StepFailed, match=r"^step 'p': .*bin\.dat.*UTF-8"):
        await wf_llm.run("w.yml", "x")
    assert server.bodies == []


async def test_child_cycle_through_a_symlinked_path(wf: Harness) -> None:
    wf.write("flows/a.yml", "steps:\n  - id: to_b\n    workflow: b.yml\n")
    wf.write("flows/b.yml", "steps:\n  - id: back\n    workflow: ../alias/a.yml\n")
    (wf.root / "alias").symlink_to(wf.root / "flows", target_is_directory=True)
    with pytest.raises(StepFailed) as info:
        await wf.run("flows/a.yml", "x")
    assert str(info.value) == "step 'to_b': step 'back': 'workflow: ../alias/a.yml' would create a cycle"


async def test_prompt_step_subagents_get_no_workflow_defaults_and_skills_follow_the_system(
    wf_llm: Harness,
) -> None:
    server = wf_llm.server
    assert server is not None
    wf_llm.write(
        "agents/helper.md", "---\ndescription: Helps.\n---\nHelper for {{ input }}; steps: {{ json steps }}\n"
    )
    wf_llm.write("skills/tone/SKILL.md", "---\ndescription: Be brief.\n---\nShort sentences.\n")
    wf_llm.config_data = {
        "base_url": server.url,
        "default": {"model": "config-model"},
        "agents": {"helper": "agents/helper.md"},
        "skills": {"tone": "skills/tone"},
    }
    wf_llm.write(
        "w.yml",
        """
        default:
          model: workflow-model
          temperature: 0.7
          system: 'Lead.'
        steps:
          - id: before
            jq: '"b"'
          - prompt: 'delegate {{ input }}'
            subagents: [helper]
            skills: [tone]
        """,
    )
    server.push(
        tool_calls(call("agent__helper", {"input": "sub task"}, id="c1")),
        text("helper answer"),
        text("final"),
    )
    assert (await wf_llm.run("w.yml", "x")).value == "final"
    lead, sub, last = server.bodies
    assert (lead["model"], lead["temperature"]) == ("workflow-model", 0.7)
    assert lead["messages"][0]["content"] == "Lead.\n\n---\n\n## Skill: tone\n\nBe brief.\n\nShort sentences."
    assert [t["function"]["name"] for t in lead["tools"]] == ["agent__helper"]
    assert lead["tools"][0]["function"]["description"] == "Helps."
    # the subagent: its own frontmatter, then lait.config.yml default: (no workflow default:, empty steps)
    assert sub["model"] == "config-model" and "temperature" not in sub
    assert sub["messages"] == [
        {"role": "system", "content": "Helper for sub task; steps: {}"},
        {"role": "user", "content": "sub task"},
    ]
    assert last["messages"][-1] == {"role": "tool", "tool_call_id": "c1", "content": "helper answer"}


async def test_child_inherits_the_callers_aliases_with_env_expansion(
    wf_llm: Harness, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = wf_llm.server
    assert server is not None
    monkeypatch.setenv("LAIT_AUDIT_BASE", server.url)
    wf_llm.config_data = {"base_url": "http://127.0.0.1:9/v1", "default": {"model": "unused"}}
    server.push(text("from child"))
    wf_llm.write("child.yml", "steps:\n  - prompt: 'in child'\n    model: remote\n")
    wf_llm.write(
        "main.yml",
        """
        models:
          remote:
            - provider: {base_url: '${LAIT_AUDIT_BASE}'}
              model_id: caller-remote
        steps:
          - workflow: child.yml
        """,
    )
    assert (await wf_llm.run("main.yml", "x")).value == "from child"
    assert server.bodies[0]["model"] == "caller-remote"
    monkeypatch.delenv("LAIT_AUDIT_BASE")
    with pytest.raises(StepFailed, match="LAIT_AUDIT_BASE"):
        await wf_llm.run("main.yml", "x")
