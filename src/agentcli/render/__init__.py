"""Renderers: they subscribe to engine events and show them (Rich panels, plain text, JSON lines)."""

from __future__ import annotations

from typing import IO, Protocol

from agentcli.events import Event


class Renderer(Protocol):
    """Shows events as they come. `close` ends anything still live (a spinner, a streaming panel)."""

    def handle(self, event: Event) -> None: ...

    def close(self) -> None: ...


def make_renderer(kind: str, out: IO[str], err: IO[str], *, judge_hint: bool = True, in_chat: bool = False) -> Renderer:
    """`rich`, `plain` or `json`; the answer goes to `out`, everything else to `err` (JSON lines all to `out`).
    `judge_hint`: the first passing verdict says how to turn the judge off (chat says it once a session).
    `in_chat`: a turn of `agent chat`, where an interrupted turn is taken back, so no `agent resume` for it."""
    if kind == "json":
        from agentcli.render.jsonl import JsonLinesRenderer

        return JsonLinesRenderer(out)
    if kind == "plain":
        from agentcli.render.plain import PlainRenderer

        return PlainRenderer(out, err, judge_hint=judge_hint, in_chat=in_chat)
    from agentcli.render.pretty import RichRenderer

    return RichRenderer(out, err, judge_hint=judge_hint, in_chat=in_chat)
