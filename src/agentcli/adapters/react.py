"""React mode: the Thought / Action / Action Input / Observation / Final Answer protocol as text.

The request has no `tools`; `stop` ends the reply before a made-up Observation. The adapter is the shared
TextAdapter (text_protocol.py); the reply is decoded by react_parser.py.
"""

from __future__ import annotations

from collections.abc import Sequence

from agentcli.adapters.folding import WrittenCall
from agentcli.adapters.prompts import REACT_PROTOCOL
from agentcli.adapters.react_parser import parse_react
from agentcli.adapters.text_protocol import TextProtocol

STOP_SEQUENCES = ("\nObservation:", "\nObservation：", "\n**Observation", "\nobservation:")
"""Where the server ends a react reply (at most 4: the API's limit); the parser cuts the same lines."""


def write_react_calls(thought: str, calls: Sequence[WrittenCall]) -> str:
    """An assistant turn with tool calls, as react text (several calls: one Action block each)."""
    lines = [f"Thought: {thought.strip()}"] if thought.strip() else []
    lines += [f"Action: {name}\nAction Input: {arguments.strip() or '{}'}" for name, arguments in calls]
    return "\n".join(lines)


REACT = TextProtocol(
    name="react",
    parse=parse_react,
    write_calls=write_react_calls,
    instructions=REACT_PROTOCOL,
    without_tools="",  # nothing to call: any plain reply is the answer
    request_extras={"stop": list(STOP_SEQUENCES)},
)
