"""The words the model reads. Kept short: every token here is paid on every step."""

from __future__ import annotations

BASE_SYSTEM_PROMPT = (
    "You are agentcli, a careful coding assistant working inside the user's workspace. "
    "Use the tools when they help; never guess a file's content or a calculation's result. "
    "When you have what the task needs, give the final answer in plain words."
)

TOOLS_HEADER = "Tools:"
"""Heads the one-line-per-tool list of the text protocols (react, json)."""

REACT_PROTOCOL = (
    "To use a tool, reply with exactly:\n"
    "Thought: <your reasoning>\n"
    "Action: <one tool name>\n"
    "Action Input: <its parameters as one JSON object>\n"
    'Then stop. The result comes back as "Observation: ...". One Action per reply; '
    "never write an Observation yourself.\n"
    "When you can answer, reply with:\n"
    "Final Answer: <the answer for the user>"
)
"""The react protocol, after the tool list."""

JSON_PROTOCOL = (
    "Reply with one JSON object and nothing else. To use a tool:\n"
    '{"thought": "<your reasoning>", "action": "<one tool name>", "params": {<its parameters>}}\n'
    'The result comes back as "Observation: ...". When you can answer:\n'
    '{"final_answer": "<the answer for the user>"}'
)
"""The json protocol, after the tool list. It must name JSON: the API requires the word with json_object."""

JSON_NO_TOOLS = 'Reply with one JSON object and nothing else: {"final_answer": "<the answer for the user>"}'
"""The json protocol when there are no tools."""

REACT_FORMAT_REMINDER = (
    "Use this format:\n"
    "Thought: <your reasoning>\n"
    "Action: <one tool name>\n"
    "Action Input: <JSON object>\n"
    "or, to finish:\n"
    "Final Answer: <the answer>"
)
"""Ends every react format-error hint: the exact format expected."""

JSON_FORMAT_REMINDER = (
    'Reply with one JSON object: {"thought": "...", "action": "<tool name>", "params": {...}} '
    'or {"final_answer": "..."}.'
)
"""Ends every json format-error hint: the exact format expected."""
