"""What a request sends of the log, made to fit the session's context budget (budget.py).

Past COMPACT_AT of the window, what is sent is compacted, cheapest first, and only what is sent: the log keeps
every message.
  1. results of tool calls before the latest turn become one-line stubs (tool, arguments, size, how to get
     them again);
  2. if that is not enough, the turns before the current run are replaced by a summary the model writes
     (summary.py), followed by a reminder that it is one and by the task record (every question the user
     asked, verbatim, and the plan); the summary is kept in the budget and stands for those turns in every
     later view, so it is written again only when newer turns have to go too;
  3. where no summary can be had (no summarizer, the model failed to write one), the answers and tool calls
     of earlier runs are left out instead; every question stays, verbatim, and a note says what was left out.
The latest turn (the question of the run, and its newest tool results) is never cut, the question of the run is
the last user message, and the pairing rule holds in every compacted view: a call and its result are stubbed or
left out together.

`next_request` is what a step asks: its request, and what fitting it did (the Compacted event, the usage of the
summary requests) as data for the engine to report.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agentcli.adapters.base import View
from agentcli.engine.budget import Budget, size_before, size_of
from agentcli.engine.conversation import check_pairing
from agentcli.engine.session import Session
from agentcli.engine.summary import Summary, summarize, summary_block, task_record
from agentcli.errors import LLMError
from agentcli.events import Compacted
from agentcli.llm.types import ChatRequest, Completion, Message, Usage

COMPACT_AT = 0.8
LATEST_SHARE = 0.25
"""When the server said the context is full, the newest tool results keep at most this share of the window;
when they overflow it even so, half of that, and so on down to MIN_KEEP characters."""
MIN_KEEP = 256
SUMMARIZE_FROM = 0.1
"""A new summary is asked for only when the turns it would replace take this share of the window (stubbed):
fewer stay as they are, so a chat that keeps the window full does not pay a summary request every question."""

NOTE = (
    "[Earlier answers and tool results of this conversation were left out to fit the model's context window; "
    "every earlier question is kept above, verbatim. Ask again for what you need.]"
)


@dataclass(frozen=True)
class Fitted:
    """A view made to fit, the request that sends it, and what it took."""

    view: View
    request: ChatRequest
    size: int
    """The request's UTF-8 bytes (what the estimate divides, and what reported usage calibrates)."""
    tokens_before: int
    tokens_after: int
    how: str
    """"" (nothing new was done), "stubs", "stubs and summary" or "stubs and earlier turns"."""
    summary: Summary | None = None
    """The summary this view sends for the earlier turns (a new one when `how` says "summary")."""


Build = Callable[[View], ChatRequest]
"""A view as the request the run's protocol sends: its system prompt and the tools offered with it."""
Summarizer = Callable[[Summary | None, View, int], Summary]
"""Writes the summary of a view's entries before a log id, from the previous summary (if any) on; raises
LLMError when the model cannot."""


def fit(
    view: View,
    build: Build,
    budget: Budget,
    *,
    turn_start: int,
    force: bool = False,
    summarizer: Summarizer | None = None,
    task: str = "",
    replaced: int = 0,
) -> Fitted:
    """`view` as it fits under COMPACT_AT of the budget's window (or compacted as far as it goes, when `force` or
    the budget's `compact_next`). `turn_start` is the log id of the current run's question: nothing from it on
    but old tool results is cut. The budget's summary (if any) stands for the entries before its `before`;
    `summarizer` writes a new one when the turns before `turn_start` must go; `task` (the task record) follows
    every summary sent. `replaced`: the bytes of the log entries the summary stands for, when `view` leaves them
    out already (so a long session's steps cost what is sent, not the whole log); they count in `tokens_before`
    only. The budget is read, not changed."""
    limit = budget.window * COMPACT_AT
    force = force or budget.compact_next

    def sized(candidate: View) -> tuple[ChatRequest, int, int]:
        request = build(candidate)
        size = size_of(request)
        return request, size, budget.tokens(size) + 1

    summary = budget.summary
    if summary is not None and summary.before > turn_start:
        summary = None  # a summary of a log that was cut back (a run taken out) does not stand
    if summary is None:
        base = view
        request, size, before = sized(view)
        after = before
    else:
        base = _with_summary(view, summary, task)
        request, size, after = sized(base)
        replaced += size_before(view, summary.before)
        before = after + budget.tokens(replaced - size_of(base.messages[0]))
    if after <= limit and not force:
        return Fitted(base, request, size, before, after, "", summary)
    keep = budget.chars(LATEST_SHARE)
    stubbed = _stub_old_results(base, turn_start, keep=keep if force else None)
    request, size, after = sized(stubbed)
    if after <= limit and not force:
        return Fitted(stubbed, request, size, before, after, "stubs", summary)
    how, kept = "stubs and earlier turns", summary
    shorter: View | None = None
    pending = budget.tokens(size_before(stubbed, turn_start))
    enough = pending >= budget.window * SUMMARIZE_FROM
    if summarizer is not None and pending and (force or enough):
        try:
            written = summarizer(summary, base, turn_start)
        except LLMError:
            written = None  # the turns are left out instead: the run goes on
        if written is not None:
            summarised = _stub_old_results(_with_summary(view, written, task), turn_start, keep=keep if force else None)
            if size_of(build(summarised)) < size:  # a summary (with the task record) longer than the turns is none
                how, kept, shorter = "stubs and summary", written, summarised
    if shorter is None and summarizer is not None and not enough and not force:
        shorter = stubbed  # too little to summarise again: those turns stay, stubbed, beside the summary
        how = "stubs"
    if shorter is None:
        shorter = _drop_earlier_turns(stubbed, turn_start)
    request, size, after = sized(shorter)
    cut = shorter
    while after > limit and keep >= MIN_KEEP:  # the newest results overflow: cut them, rather than be refused
        cut = _stub_old_results(shorter, turn_start, keep=keep)
        request, size, after = sized(cut)
        keep //= 2
    return Fitted(cut, request, size, before, after, how, kept)


@dataclass(frozen=True)
class Outgoing:
    """A step's request, fitted to the budget, with what fitting it did for the engine to report."""

    request: ChatRequest
    size: int
    """The request's bytes: what the reply's usage calibrates, or an overflow corrects."""
    compacted: Compacted | None
    """What compacting did to it; None when it went as the log stands."""
    spent: tuple[Usage, ...] = ()
    """The usage of each summary request written for it."""


Complete = Callable[[ChatRequest], Completion]
"""Asks the model once, without streaming: how summaries are written."""


def next_request(session: Session, build: Build, *, turn_start: int, step: int, complete: Complete) -> Outgoing:
    """The request of step `step` of the run whose question has id `turn_start`: fitted to the session's budget,
    with a summary written by `complete` where earlier turns must go. The budget keeps that summary, clears
    `compact_next` and notes whether earlier turns were replaced."""
    budget, spent = session.budget, list[Usage]()
    fitted = fit_session(session, build, turn_start, summarizer=_summarizer(budget, complete, spent))
    written = fitted.summary if fitted.summary is not budget.summary else None
    budget.summary, budget.compact_next = fitted.summary, False
    budget.turns_replaced = fitted.summary is not None or fitted.how == "stubs and earlier turns"
    check_pairing(fitted.view.messages)
    compacted = None
    if fitted.how:
        compacted = Compacted(
            step=step,
            tokens_before=fitted.tokens_before,
            tokens_after=fitted.tokens_after,
            window=budget.window,
            how=fitted.how,
            summary=written.text if written is not None else "",
            summary_before=written.before if written is not None else 0,
        )
    return Outgoing(fitted.request, fitted.size, compacted, tuple(spent))


def compact_now(session: Session, build: Build, complete: Complete) -> tuple[Fitted, tuple[Usage, ...]]:
    """Compact what the next question sends, now (chat's /compact): the model summarises the turns so far, and
    every later view sends that summary instead of them, so what this reports is what the next request sends
    (with its question). Kept only where it makes the request smaller; returns the fitted view of the log as
    it stands and the usage of the summary requests. Raises LLMError when the model could not write one."""
    budget, spent, failed = session.budget, list[Usage](), list[LLMError]()
    summarize = _summarizer(budget, complete, spent)

    def summarizer(previous: Summary | None, view: View, before: int) -> Summary:
        try:
            return summarize(previous, view, before)
        except LLMError as exc:  # a run goes on without a summary; asked for one, the user is told why not
            failed.append(exc)
            raise

    fitted = fit_session(session, build, session.conversation.next_id, force=True, summarizer=summarizer)
    if failed:
        raise failed[0]
    if fitted.how == "stubs and summary":
        budget.summary = fitted.summary
    return fitted, tuple(spent)


def fit_session(
    session: Session, build: Build, turn_start: int, *, force: bool = False, summarizer: Summarizer | None = None
) -> Fitted:
    """What the next request of `session` sends of its log, made to fit its budget (chat's /context and /compact
    ask it too). Without a `summarizer` nothing is asked of the model: turns that would be summarised are left
    out instead (an estimate)."""
    summary = session.budget.summary
    since = summary.before if summary is not None and summary.before <= turn_start else 0
    replaced = session.replaced_bytes(since) if since else 0
    task = task_of(session)
    return fit(session.view(since), build, session.budget, turn_start=turn_start, force=force,
               summarizer=summarizer, task=task, replaced=replaced)  # fmt: skip


def task_of(session: Session) -> str:
    """The task record of `session`: its questions verbatim and the latest run's plan."""
    plan = [(item.step, item.status) for item in session.runs[-1].plan] if session.runs else []
    budget = session.budget
    return task_record(session.questions(), plan, window=budget.window, chars_per_token=budget.chars_per_token)


def _summarizer(budget: Budget, complete: Complete, spent: list[Usage]) -> Summarizer:
    """Writes summaries with `complete` (no tools); what they cost is added to `spent`."""

    def ask(request: ChatRequest) -> str:
        completion = complete(request)
        spent.append(completion.usage)
        return completion.content

    def write(previous: Summary | None, view: View, before: int) -> Summary:
        start = previous.before if previous is not None else 0
        messages = [m for m, mid in zip(view.messages, view.ids, strict=True) if start <= mid < before]
        earlier = previous.text if previous is not None else ""
        text = summarize(earlier, messages, ask, window=budget.window, chars_per_token=budget.chars_per_token)
        if not text.strip():
            raise LLMError("The model wrote an empty summary.")
        return Summary(text, before)

    return write


def _with_summary(view: View, summary: Summary, task: str) -> View:
    """The view with its entries before `summary.before` replaced by the summary, its reminder and the task record."""
    block = summary_block(summary) + (f"\n\n{task}" if task else "")
    messages: list[Message] = [{"role": "user", "content": block}]
    ids = [-1]
    for message, mid in zip(view.messages, view.ids, strict=True):
        if mid >= summary.before:
            messages.append(message)
            ids.append(mid)
    return View(messages, ids)


def _stub_old_results(view: View, turn_start: int, keep: int | None = None) -> View:
    """Every tool result of an earlier run, or before the newest assistant turn of the view, becomes a one-line
    stub; with `keep` (the server said the context is full), the newest results are cut to that many characters."""
    last_calls = max((i for i, m in enumerate(view.messages) if m.get("tool_calls")), default=-1)
    calls = _calls_by_id(view.messages)
    messages: list[Message] = []
    for index, (message, mid) in enumerate(zip(view.messages, view.ids, strict=True)):
        if message.get("role") == "tool":
            content = str(message.get("content") or "")
            if index < last_calls or mid < turn_start:
                message = {**message, "content": _stub(calls.get(str(message.get("tool_call_id"))), content)}
            elif keep is not None and len(content) > keep:
                cut = f"\n[cut to fit the context window: {keep:,} of {len(content):,} characters; ask for less]"
                message = {**message, "content": content[:keep] + cut}
        messages.append(message)
    return View(messages, list(view.ids))


def _drop_earlier_turns(view: View, turn_start: int) -> View:
    """Before the current run, only the user's questions stay (verbatim), then a note says what was left out."""
    kept: list[Message] = []
    ids: list[int] = []
    dropped = False
    for message, mid in zip(view.messages, view.ids, strict=True):
        earlier = mid < turn_start
        if earlier and message.get("role") != "user":
            dropped = True
            continue
        if earlier and str(message.get("content") or "").startswith("[Judge feedback]"):
            dropped = True
            continue
        if not earlier and dropped and not any(i >= turn_start for i in ids):
            kept.append({"role": "user", "content": NOTE})
            ids.append(-1)
        kept.append(message)
        ids.append(mid)
    return View(kept, ids)


def _calls_by_id(messages: Sequence[Message]) -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for message in messages:
        for call in message.get("tool_calls") or ():
            function = call.get("function", {})
            found[str(call.get("id"))] = {
                "name": str(function.get("name")),
                "arguments": str(function.get("arguments")),
            }
    return found


def _stub(call: dict[str, str] | None, content: str) -> str:
    what = "this tool call" if call is None else f"{call['name']} {_short(call['arguments'])}"
    return (
        f"[left out to fit the context window: the result of {what}, {len(content):,} characters; "
        "call it again if you need it]"
    )


def _short(arguments: str) -> str:
    return arguments if len(arguments) <= 200 else arguments[:199] + "…"
