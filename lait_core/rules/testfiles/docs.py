"""What each key of a test or eval file, and each assertion type, means (docs/testing.md).

One table for the JSON Schemas' descriptions, hover and completion documentation."""

from __future__ import annotations

TEST_KEYS: dict[str, str] = {
    "workflow": "Path of the workflow to run, relative to this file.",
    "input": "The workflow's input (any YAML value; a non-string is passed as JSON text), validated by its"
    " `input_schema`. Default null.",
    "inputs": "Values of the workflow's declared `inputs:` (name -> value).",
    "replay": "Cassette folder (relative to this file) the model answers are replayed from; the model is"
    " never called. Record it with `lait run WORKFLOW --record FOLDER`.",
    "assert": "Assertions on the run's output and trajectory, checked in order; the file fails when any fails.",
}

EVAL_KEYS: dict[str, str] = {
    "target": "What each case runs: `{workflow: path, inputs?: {...}}` or `{model: alias, prompt: template}`.",
    "cases": "The cases: `{input: string, assert: [...]}`; each runs `--repeat` times against the live model.",
}

EVAL_TARGET_KEYS: dict[str, str] = {
    "workflow": "Path of the workflow to run, relative to this file; each case's `input` is its PROMPT.",
    "inputs": "Values of the workflow's declared `inputs:` for every case.",
    "model": "Model alias for a single call (no system prompt).",
    "prompt": "Template of the single call; `{{ input }}` is the case's input (parsed as JSON when it is JSON).",
}

EVAL_CASE_KEYS: dict[str, str] = {
    "input": "The case's input text.",
    "assert": "Assertions every run of this case must pass.",
}

ASSERTION_TYPES: dict[str, str] = {
    "equals": "Passes when the output is exactly `value` (a non-string value compared as compact JSON).",
    "contains": "Passes when the output contains `value` as plain text.",
    "jq": "Passes when `expr` is truthy on the output (parsed as JSON when it is JSON, else a JSON string).",
    "llm_judge": "A model scores the output against `criteria` (0 to 1); passes at `threshold` or above."
    " Eval files only: in a test file it always fails.",
    "tool_called": "Passes when the run called the tool `name` between `min` and `max` times (and, with"
    " `args_jq`, some call's arguments satisfy it).",
    "usage": "Passes when the run's token totals (and cost, when a model has `pricing`) are within each bound.",
    "step_output": "The nested `assert` list is checked against the output of the step `id` (trajectory"
    " assertions still see the whole run).",
}

ASSERTION_KEYS: dict[str, str] = {
    "type": "The assertion type: " + ", ".join(f"`{t}`" for t in ASSERTION_TYPES) + ".",
    "value": "The expected text (`equals`: the whole output; `contains`: a part of it).",
    "expr": "A jq expression; the assertion passes when its result is truthy.",
    "criteria": "What the judge model checks, in words.",
    "model": "Model alias of the judge (default: the target's model).",
    "threshold": "Lowest passing score, 0 to 1 (default 0.7).",
    "name": "Qualified tool name: `tool__NAME` (shell tool), `SERVER__TOOL` (MCP), `agent__NAME`, `skill__NAME`.",
    "min": "Fewest calls (default 1; 0 with `max: 0` asserts the tool was not called).",
    "max": "Most calls (default: no limit).",
    "args_jq": "jq over a call's arguments (JSON); at least one call must satisfy it.",
    "max_prompt_tokens": "Bound on the run's prompt tokens.",
    "max_completion_tokens": "Bound on the run's completion tokens.",
    "max_total_tokens": "Bound on the run's total tokens.",
    "max_cost_usd": "Bound on the run's cost in USD (checked only when a model has `pricing`).",
    "id": "The `id` of a step of the target workflow.",
    "assert": "Assertions checked against that step's output.",
}
