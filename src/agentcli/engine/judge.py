"""The finish guard: a separate completion, without tools, that checks a draft answers the question, and the
rejections that need no judge (an empty draft, plan steps left open)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from pydantic import BaseModel, ValidationError

from agentcli.engine.state import RunState
from agentcli.errors import LLMError
from agentcli.llm.types import ChatClient, ChatRequest, Usage
from agentcli.model_json import UnreadableJson, find_object
from agentcli.text import excerpt, quote

JUDGE_SYSTEM_PROMPT = (
    "You review a draft answer to a user's request. Pass it when it answers every part of the request; "
    'fail it when something is missing or wrong. Reply with JSON only: {"passed": true|false, '
    '"missing": "what is missing, or an empty string"}.'
)


JUDGE_TIMEOUT = 60.0
"""Seconds the judge may take, retries included (never more than LLM_TIMEOUT): a judge is a check, and a stuck
one must not hold back an answer that is already there; past this the answer passes unchecked (fail-open)."""
MISSING_CHARS = 1_000
"""How much of the judge's `missing` text goes into the conversation (and the events): it is re-sent every step."""

CONTEXT_EXCHANGES = 3
"""How many earlier question/answer pairs of a chat the judge sees, so "and divide them?" makes sense."""
CONTEXT_CHARS = 600


class _VerdictModel(BaseModel):
    passed: bool
    missing: str = ""


@dataclass(frozen=True)
class Verdict:
    passed: bool
    missing: str = ""
    note: str = ""
    """Set when the verdict is not the judge's own (trivial draft, fail-open)."""
    usage: Usage = field(default_factory=Usage)


def is_trivial(draft: str) -> bool:
    """Empty, or nothing but punctuation and spaces: not worth a judge's call."""
    return not any(char.isalnum() for char in draft)


def trivial_verdict(draft: str) -> Verdict | None:
    """The rejection of an empty or trivial draft, given without asking any judge; None for a real draft."""
    if is_trivial(draft):
        return Verdict(False, "The reply was empty. Answer the request.", note="trivial answer, judge not asked")
    return None


def verdict_without_judge(run: RunState, draft: str) -> Verdict | None:
    """The rejection of `draft` that needs no judge: an empty or trivial draft, a planning run's answer without
    a plan, an answer given while plan steps are open; None when the judge, if there is one, decides."""
    trivial = trivial_verdict(draft)
    if trivial is not None:
        return trivial
    if run.planning and not run.plan:
        return Verdict(False, "This is the planning run: make the plan with update_plan, then answer.")
    open_steps = [] if run.planning else run.open_steps()
    if open_steps:
        return Verdict(
            False,
            f"The plan has steps that are not completed: {listed(open_steps)}. Do them and mark them "
            "completed with update_plan (or update the plan if it changed), then answer.",
            note="plan steps open, judge not asked",
        )
    return None


def listed(steps: list[tuple[int, str]]) -> str:
    """Numbered plan steps on one line, as the user saw them numbered."""
    return "; ".join(f"{number}. {step}" for number, step in steps)


def judge_request(
    question: str,
    draft: str,
    earlier: Sequence[tuple[str, str]] = (),
    plan: Sequence[tuple[str, str]] = (),
    task: str = "",
) -> ChatRequest:
    """The judge's request: no tools, JSON object reply; `earlier` exchanges give a follow-up its context, the
    model's `plan` ((step, status) pairs) what the answer was meant to cover, and the `task` record (sent once the
    conversation was compacted: the user's questions, verbatim) lets it catch an answer to an older question."""
    context = "".join(
        f"User: {excerpt(asked, CONTEXT_CHARS)}\nAssistant: {excerpt(answered, CONTEXT_CHARS)}\n"
        for asked, answered in earlier[-CONTEXT_EXCHANGES:]
    )
    prefix = f"Earlier in this conversation:\n{context}\n" if context else ""
    if plan:
        steps = "".join(f"- [{status}] {excerpt(step, CONTEXT_CHARS)}\n" for step, status in plan)
        prefix += f"The assistant's plan for this request:\n{steps}\n"
    if task:
        prefix += (
            "The conversation was compacted to fit the model's context window; the assistant was sent this task "
            f"record:\n{task}\nA draft that answers an earlier question instead of the request below fails.\n\n"
        )
    return {
        "messages": [
            {"role": "system", "content": JUDGE_SYSTEM_PROMPT},
            {"role": "user", "content": f"{prefix}Request:\n{question}\n\nDraft answer:\n{draft}"},
        ],
        "response_format": {"type": "json_object"},
    }


class Judge:
    """Fail-open: a judge that errors, hangs or replies garbage lets the answer through, with a note."""

    def __init__(self, client: ChatClient, *, timeout: float | None = None) -> None:
        self._client = client
        self._timeout = timeout

    def review(
        self,
        question: str,
        draft: str,
        earlier: Sequence[tuple[str, str]] = (),
        plan: Sequence[tuple[str, str]] = (),
        task: str = "",
    ) -> Verdict:
        trivial = trivial_verdict(draft)
        if trivial is not None:
            return trivial
        try:
            request = judge_request(question, draft, earlier, plan, task)
            completion = self._client.complete(request, timeout=self._timeout or JUDGE_TIMEOUT)
        except LLMError as exc:
            return Verdict(True, note=f"judge unavailable, answer accepted unchecked: {exc}")
        try:
            found = find_object(completion.content, lambda value: "passed" in value)
            parsed = _VerdictModel.model_validate(found)
        except (UnreadableJson, ValidationError):
            shown = quote(completion.content, 120)
            return Verdict(
                True,
                note=f"judge replied {shown}, not a verdict; answer accepted unchecked",
                usage=completion.usage,
            )
        return Verdict(parsed.passed, _clip_missing(parsed.missing.strip()), usage=completion.usage)


def _clip_missing(text: str) -> str:
    """The judge's `missing`, cut; the model is told who wrote the rest and that it was left out."""
    cut = excerpt(text, MISSING_CHARS)
    return cut if cut == text else f"{cut} [the judge wrote {len(text):,} characters; the rest is left out]"
