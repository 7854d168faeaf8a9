"""Carry out a :class:`~.chatml.Plan` on a loaded model (blocking; runs in a worker thread).

``choose``/``required``: a grammar lets the model write only ``functions.<name>:`` for an offered
tool (or ``message:`` when it may answer), at temperature 0; a call's arguments are then generated
under a grammar made from the tool's JSON Schema, so they always parse and fit the schema (at least
:data:`ARGUMENT_TOKENS` are allowed for them). One call per turn; arguments are sampled greedily without a repetition penalty (a penalty makes
"add 2 and 2" come out as ``{"a": 2, "b": 1}``), and only when that runs away -- the text ends in a
short block repeated over and over, or the token limit is reached, as a small model does in a free
string -- they are generated again with :data:`ARGUMENT_RETRY_PENALTY`; a second runaway is an
:class:`LlmResponseError` (never cut-off JSON). An answer may stream; with a ``response_format`` it is constrained to JSON (to the
schema when there is one), otherwise it is sampled with a mild repetition penalty.
"""

from __future__ import annotations

import json
import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from lait_core.engine.embedded.chatml import CALL_PREFIX, END, MESSAGE_PREFIX, Plan, call_text
from lait_core.engine.embedded.runtime import Generated, Grammar, LocalModel
from lait_core.engine.llm.chat_types import LlmResponseError, ToolCall

DECISION_TOKENS = 64
ARGUMENT_TOKENS = 512
"""The least a call's arguments may use whatever ``max_tokens`` says: a cut-off call is unusable,
while ``max_tokens`` is usually set to keep answers short."""
ARGUMENT_RETRY_PENALTY = 1.1
"""The repetition penalty of the second try at a call's arguments."""
RUNAWAY_CHARS = 64
RUNAWAY_PERIOD = 40
TEXT_REPEAT_PENALTY = 1.1
"""For free-text answers (as llama-cpp-python's chat formats use): a small model otherwise loops on
one sentence. JSON and tool arguments are sampled without it."""


@dataclass(frozen=True, slots=True)
class Served:
    content: str | None
    calls: tuple[ToolCall, ...]
    finish_reason: str
    prompt_tokens: int
    completion_tokens: int


class _LeadingTrim:
    """Passes text on without the answer's leading whitespace (after ``message:``)."""

    def __init__(self, sink: Callable[[str], None] | None) -> None:
        self.sink = sink
        self.started = False

    def __call__(self, piece: str) -> None:
        if not self.started:
            piece = piece.lstrip()
            if not piece:
                return
            self.started = True
        if self.sink is not None:
            self.sink(piece)


def runaway(text: str) -> bool:
    """The text ends in a block of at most :data:`RUNAWAY_PERIOD` characters repeated over its last
    :data:`RUNAWAY_CHARS` characters (and at least 4 times)."""
    for period in range(1, RUNAWAY_PERIOD + 1):
        span = max(RUNAWAY_CHARS, 4 * period)
        if len(text) < span:
            continue
        tail = text[-span:]
        block = tail[-period:]
        if tail == (block * (span // period + 1))[-span:]:
            return True
    return False


def _choice_grammar(options: list[str]) -> Grammar:
    return Grammar(gbnf="root ::= " + " | ".join(json.dumps(o) for o in options) + "\n")


def serve(
    model: LocalModel, plan: Plan, cancel: threading.Event, on_text: Callable[[str], None] | None = None
) -> Served:
    s = plan.sampling
    stop = [END, *s.stop]
    used = 0

    def run(
        prompt: str,
        *,
        max_tokens: int,
        temperature: float,
        stop: list[str],
        grammar: Grammar | None,
        on_text: Callable[[str], None] | None = None,
        repeat_penalty: float = 1.0,
        halt: Callable[[str], bool] | None = None,
    ) -> Generated:
        nonlocal used
        done = model.generate(
            prompt,
            max_tokens=max_tokens,
            temperature=temperature,
            top_p=s.top_p,
            seed=s.seed,
            stop=stop,
            cancel=cancel,
            grammar=grammar,
            on_text=on_text,
            repeat_penalty=repeat_penalty,
            halt=halt,
        )
        used += done.tokens
        return done

    with model.exclusive(cancel):
        prompt_tokens = model.count_tokens(plan.prompt)
        prompt = plan.prompt
        name = plan.forced
        if plan.mode in ("choose", "required"):
            options = [f"{CALL_PREFIX}{t.name}:" for t in plan.tools]
            if plan.mode == "choose":
                options.append(MESSAGE_PREFIX)
            decision = run(
                prompt,
                max_tokens=DECISION_TOKENS,
                temperature=0.0,
                stop=[":"],
                grammar=_choice_grammar(options),
            )
            picked = decision.text.strip().removesuffix(":")
            if picked.startswith(CALL_PREFIX):
                name = picked[len(CALL_PREFIX) :]
            else:
                prompt += MESSAGE_PREFIX + "\n"
        if name is None:
            grammar = Grammar(schema=plan.answer_schema) if plan.answer_json else None
            answer = run(
                prompt,
                max_tokens=s.max_tokens,
                temperature=s.temperature,
                stop=stop,
                grammar=grammar,
                on_text=_LeadingTrim(on_text),
                repeat_penalty=1.0 if grammar is not None else TEXT_REPEAT_PENALTY,
            )
            text = answer.text.lstrip()  # exactly what was streamed
            return Served(text or None, (), answer.finish_reason, prompt_tokens, used)
        tool = next(t for t in plan.tools if t.name == name)
        limit = max(s.max_tokens, ARGUMENT_TOKENS)
        for penalty in (1.0, ARGUMENT_RETRY_PENALTY):
            arguments = run(
                prompt + call_text(name, ""),
                max_tokens=limit,
                temperature=s.temperature,
                stop=stop,
                grammar=Grammar(schema=tool.parameters),
                repeat_penalty=penalty,
                halt=runaway,
            )
            if arguments.finish_reason not in ("halted", "length"):
                break
        else:
            raise LlmResponseError(
                f"the embedded model did not finish the arguments of its call to '{name}' (twice it "
                f"repeated itself or reached {limit} tokens); rephrase the prompt, raise 'max_tokens' "
                "or use a larger model"
            )
        call = ToolCall(f"call_{uuid.uuid4().hex[:24]}", name, arguments.text.strip())
        return Served(None, (call,), "tool_calls", prompt_tokens, used)
