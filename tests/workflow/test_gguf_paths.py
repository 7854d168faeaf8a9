"""A workflow's own `models:` with `provider.gguf`: a relative path is relative to the workflow's
folder (as in lait.config.yml, where it is relative to the config file), not to the working
directory."""

from __future__ import annotations

import pytest

from lait_core.engine.workflow import StepFailed
from tests.workflow.conftest import Harness


async def test_relative_gguf_in_a_workflow_resolves_against_its_folder(wf: Harness) -> None:
    path = wf.write(
        "flows/w.yml",
        """
        models:
          small:
            - provider: {gguf: models/missing.gguf}
              model_id: small
        steps:
          - id: ask
            model: small
            prompt: hi
        """,
    )
    with pytest.raises(StepFailed) as info:
        await wf.run(path, "x")
    message = str(info.value)
    assert str(wf.root / "flows" / "models" / "missing.gguf") in message, message
