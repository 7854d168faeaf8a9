"""``lait/run`` of a test or eval file (the "▶ Run test" / "▶ Run eval" lenses).

The run goes through ``lait_core.testing`` exactly as ``lait test FILE`` / ``lait eval FILE`` runs it
(a test replays its cassette; an eval calls the live model ``repeat`` times per case), with the
editor's interaction: the workflow's own events arrive as ``lait/runEvent`` like any run's, then one
``testResult`` event per test file or one ``evalCase`` event per eval case, in report order. The
result's ``output`` is the text report when everything passed; otherwise the run ends ``failed``
with the report as its error.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lait_ls import protocol
    from lait_ls.interaction import EditorInteraction
    from lait_ls.run import RunState
    from lait_ls.server import LaitServer


async def run_test_or_eval(
    ls: LaitServer,
    state: RunState,
    interaction: EditorInteraction,
    path: Path,
    kind: str,
    params: protocol.RunParams,
) -> str:
    """The passing report; raises :class:`~lait_ls.run_common.RunFailed` with the report when anything failed."""
    from lait_ls.run_common import RunFailed, load_run_config, notify

    config, config_dir = load_run_config(path)
    spawned = state.children.setdefault(interaction.run_id, set())
    approve = state.approve_tools == "always"
    if kind == "test":
        from lait_core.testing.suite_runner import run_file, text_report

        result = await run_file(
            path, config, config_dir, approve, interaction=interaction, on_spawn=spawned.add
        )
        notify(ls, interaction.run_id, {"type": "testResult", **result.as_json()})
        report = text_report([result])
        passed = result.passed
    else:
        from lait_core.testing.definition import load_eval
        from lait_core.testing.eval_run import EvalRunner
        from lait_core.testing.eval_run import text_report as eval_report

        definition, diagnostics = load_eval(path)
        if definition is None:
            lines = [
                f"{path}:{d.range.start.line + 1}:{d.range.start.character + 1}: {d.message}"
                for d in diagnostics
            ]
            raise RunFailed("\n".join(lines) or f"'{path}' is not an eval file")
        runner = EvalRunner(
            definition,
            path.parent,
            config,
            config_dir,
            approve_tools=approve,
            interaction=interaction,
            on_spawn=spawned.add,
        )
        cases = await runner.run(params.repeat)
        for case in cases:
            notify(ls, interaction.run_id, {"type": "evalCase", **_camel(case.as_json())})
        report = eval_report(cases)
        passed = all(case.fully_passed for case in cases)
    if not passed:
        raise RunFailed(report.rstrip("\n"))
    return report


def _camel(value: dict[str, Any]) -> dict[str, Any]:
    return {("successRate" if k == "success_rate" else k): v for k, v in value.items()}
