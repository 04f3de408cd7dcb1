"""What a server's error says, read from its words: the context is full, tools are refused, the request is invalid;
`answered` makes the words the one error they are.

Servers word these differently and share one status (400, or 500 for llama.cpp), so the words decide. The
order matters: OpenAI's context-length message ends "reduce the length of the messages or functions", which
names functions without refusing them, so a full context is recognised first, and tools count as refused only
on words that refuse something.
"""

from __future__ import annotations

import re
from typing import Any

from agentcli.errors import ContextLengthError, LLMError, RequestRejectedError, ToolsUnsupportedError
from agentcli.llm.sanitize import clean_text
from agentcli.llm.types import ChatRequest

TOOLS_REJECTED_STATUSES = {400, 404, 422, 500, 501}
"""Statuses with which servers refuse `tools` (llama.cpp without --jinja answers 500)."""
WORDS_READ = 20_000
"""Characters of a server's error message read for a diagnosis (pydantic puts the point past the first 300)."""

_CONTEXT_CODES = frozenset({"context_length_exceeded", "exceed_context_size_error", "context_window_exceeded"})
"""OpenAI, vLLM, llama-cpp-python, DeepSeek and Groq use the first code; llama.cpp's server the second."""

_CONTEXT_WORDS = re.compile(
    r"maximum context length"  # OpenAI, vLLM, llama-cpp-python, DeepSeek: "This model's maximum context length is"
    r"|context (?:length|window|size)"  # vLLM "longer than the model's context length", llama.cpp "context size"
    r"|exceeds? the available context"  # llama.cpp: "the request exceeds the available context size"
    r"|maximum model length|max_model_len"  # vLLM: "is longer than the maximum model length of 4096"
    r"|prompt is too long|input (?:is )?too long"  # Anthropic-compatible gateways, TGI
    r"|range of input length",  # Qwen (DashScope): "Range of input length should be [1, 30720]"
    re.IGNORECASE,
)

_TOOL_WORDS = ("tool", "function")
_REFUSAL_WORDS = (
    "not supported",
    "unsupported",
    "does not support",
    "doesn't support",
    "cannot",
    "can't",
    "not implemented",
    "not enabled",
    "not allowed",
    "not permitted",
    "requires",  # llama.cpp: "tools param requires --jinja flag"; vLLM: "auto" tool choice requires --enable-...
    "unknown parameter",
    "unrecognized",
    "unexpected keyword",
)

_VALIDATION = re.compile(r"\b\d+ validation errors?\b|\bvalidation errors? for\b|'loc': [(\[]", re.IGNORECASE)
"""pydantic's words, as FastAPI servers (llama-cpp-python) pass them on in a 500 or a 422."""
_PYDANTIC_ERROR = re.compile(r"'loc': [(\[](?P<loc>[^)\]]*)[)\]], 'msg': (?P<quote>['\"])(?P<msg>.*?)(?P=quote)")


def says_context_is_full(message: str, code: str = "") -> bool:
    """The server refused the request because the conversation does not fit the model's context window."""
    return code.lower() in _CONTEXT_CODES or _CONTEXT_WORDS.search(message) is not None


def context_full_message(answered: str) -> str:
    """What a ContextLengthError says: what happened, then what the user can do (`answered`: the server's words)."""
    return (
        f"The conversation no longer fits the model's context window ({answered}). Start a new session "
        "(or /reset in a chat), or ask for less at once: read a smaller file, or a part of one."
    )


_STATED_SIZES = (
    # llama-cpp-python: "Requested tokens (5000) exceed context window of 2048"
    re.compile(r"requested tokens \((?P<tokens>\d+)\) exceed context window of (?P<window>\d+)"),
    # llama.cpp's server: "request (5000 tokens) exceeds the available context size (2048 tokens)"
    re.compile(r"request \((?P<tokens>\d+) tokens\) exceeds the available context size \((?P<window>\d+) tokens\)"),
    # OpenAI and vLLM: "maximum context length is 4096 tokens. However, your messages resulted in 5000 tokens" /
    # "... you requested 5000 tokens (4000 in the messages, 1000 in the completion)" / "your request has 5000 input
    # tokens"
    # vLLM: "Input prompt (5000 tokens) is longer than the model's context length (4096 tokens)" /
    # "The decoder prompt (length 5000) is longer than the maximum model length of 4096"
    re.compile(r"prompt \((?P<tokens>\d+) tokens\) is longer than the model's context length \((?P<window>\d+) tokens"),
    re.compile(r"prompt \(length (?P<tokens>\d+)\) is longer than the maximum model length of (?P<window>\d+)"),
    re.compile(
        r"maximum context length is (?P<window>\d+) tokens.{0,80}?"
        r"(?:(?P<messages>\d+) in the messages|(?:resulted in|has) (?P<tokens>\d+)(?: input)? tokens)"
    ),
    re.compile(r"maximum context length is (?P<window>\d+) tokens"),  # the window alone
)


def stated_sizes(message: str) -> tuple[int | None, int | None]:
    """The request's size in tokens and the window, as a "context length exceeded" message states them (None:
    not stated). Only the prompt's tokens count: a completion's share that a server adds in is left out."""
    lowered = message.lower().replace(",", "")
    for pattern in _STATED_SIZES:
        found = pattern.search(lowered)
        if found:
            sizes = found.groupdict()
            tokens = sizes.get("tokens") or sizes.get("messages")  # a pattern without them has no such group
            return (int(tokens) if tokens else None), int(sizes["window"])
    return None, None


def says_tools_are_refused(message: str) -> bool:
    """The server refused `tools` (or function calling) itself, in words that say so."""
    lowered = message.lower()
    return any(w in lowered for w in _TOOL_WORDS) and any(w in lowered for w in _REFUSAL_WORDS)


def says_cannot_stream(message: str) -> bool:
    """The server cannot stream this request (llama-cpp-python: "Automatic streaming tool choice is not supported")."""
    lowered = message.lower()
    cannot = ("not supported", "unsupported", "cannot", "can't", "not implemented")
    return "stream" in lowered and any(w in lowered for w in _TOOL_WORDS) and any(w in lowered for w in cannot)


def validation_problem(message: str) -> str | None:
    """The request-validation error a server reports, shortened to its point; None if the message is not one.

    pydantic reports a message that matches no member of a union once per member: a wrong `role` for the
    members of other roles, then the real problem in the member of the right role. The first error of a
    member whose `role` was accepted is the one that says what was wrong.
    """
    if _VALIDATION.search(message) is None:
        return None
    errors = [(_location(m["loc"]), m["msg"]) for m in _PYDANTIC_ERROR.finditer(message)]
    if not errors:  # pydantic's own text form ("1 validation error for X\n  field\n    Input should be ...")
        words = " ".join(message.split())
        return words if len(words) <= 200 else words[:200] + "…"
    wrong_role = {where[:-1] for where, _ in errors if where and where[-1] == "role"}
    relevant = [(w, msg) for w, msg in errors if not any(w[:n] in wrong_role for n in range(1, len(w)))]
    where, msg = (relevant or errors)[0]
    return f"{_path(where)}: {msg}"


def _location(loc: str) -> tuple[str, ...]:
    """pydantic's `loc` as text (`'body', 'messages', 1, 'ChatCompletionRequestAssistantMessage', 'content'`)."""
    return tuple(part.strip().strip("'\"") for part in loc.split(",") if part.strip())


def _path(where: tuple[str, ...]) -> str:
    """`messages[1].content`: the body's path without `body` and without the union members' names."""
    path = ""
    for part in where:
        if part == "body" or part[:1].isupper() or "[" in part:
            continue
        path += f"[{part}]" if part.isdigit() else f".{part}" if path else part
    return path or "the request"


def missing_v1_hint(base_url: str | None, status: int | None) -> str:
    """For a 404 from a base URL whose path does not end in a version (`/v1`): the form to try, as a sentence
    to add to the error; "" otherwise. OpenAI-compatible servers (OpenAI, DeepSeek, vLLM, llama.cpp, Ollama,
    LM Studio) serve `/v1/chat/completions`; a base URL of just the host asks for `/chat/completions`."""
    if status != 404 or not base_url:
        return ""
    from urllib.parse import urlsplit

    parts = urlsplit(base_url)
    path = parts.path.rstrip("/")
    if re.search(r"/v\d+(?:beta\d*|alpha\d*)?$", path) or path.endswith("/openai"):
        return ""
    suggested = parts._replace(path=f"{path}/v1").geturl()
    return f" The base URL {base_url} has no /v1: most OpenAI-compatible servers answer at {suggested}."


def answered(
    whole: str, status: int | None, code: str, *, server: str, request: ChatRequest, base_url: str | None
) -> LLMError:
    """The error a server's answer to `request` is: `whole` its words (cleaned of the key), `status` and `code`
    (its error's `code` or `type`) what it said beside them; `server` names it ("the server at HOST")."""
    message, capital = clipped(whole), "T" + server[1:]
    if status != 429 and says_context_is_full(whole, code):  # before tools: see the module's docstring
        tokens, window = stated_sizes(whole)
        said = f"{server} answered {status or 'with an error'}: {message}"
        return ContextLengthError(context_full_message(said), status=status, prompt_tokens=tokens, window=window)
    if status is None:
        return LLMError(f"{capital} failed: {message}")
    if "tools" in request and status in TOOLS_REJECTED_STATUSES and says_tools_are_refused(whole):
        return ToolsUnsupportedError(f"{capital} rejected tool calling ({status}): {message}", status=status)
    problem = validation_problem(whole)
    if problem is not None:
        return RequestRejectedError(
            f"{capital} refused the request as invalid ({status}: {problem}); asking again would not "
            "help. A server stricter than the API, or a bug in agentcli: please report it.",
            status=status,
        )
    said = f"{capital} answered {status}: {message}"
    hint = missing_v1_hint(base_url, status) or advice(status, code, whole)  # "404 Invalid URL" says not what to fix
    stop = "" if not hint or said.endswith(".") else "."
    return LLMError(said + stop + hint, status=status, resumable=not hint)


KEY_ADVICE = (
    " Check the API key: LLM_API_KEY, --api-key or the variable the config file's api_key_env names "
    "(`agent config show` says which is used)."
)
MODEL_ADVICE = (
    " Check the model name: --model, LLM_MODEL_NAME or the config file's model (`agent config show` says which "
    "is used)."
)
URL_ADVICE = (
    " Check the base URL (--base-url, LLM_BASE_URL) and the model name (--model, LLM_MODEL_NAME): "
    "`agent config show` says which are used."
)
_MODEL_WORDS = re.compile(r"\bmodel\b.{0,80}?\b(?:not (?:be )?found|does ?n[o']t exist|not exist|unknown|invalid)"
                          r"|\b(?:unknown|invalid|no such) model\b", re.IGNORECASE | re.DOTALL)  # fmt: skip
"""OpenAI "The model `x` does not exist", Ollama 'model "x" not found, try pulling it first', vLLM "The model
`x` does not exist.", DeepSeek "Model Not Exist", LM Studio "Invalid model identifier"."""


def advice(status: int | None, code: str, whole: str) -> str:
    """What the user must change for an error that asking again cannot mend, as a sentence to add ("" when
    the words say nothing certain): the key for 401 and 403, the model name for a model the server does not
    have, else for a 404 the URL and the model. Such an error is not `resumable`: `agent resume` would fail
    the same way until it is changed."""
    if status in (401, 403):
        return KEY_ADVICE
    if code.lower() in ("model_not_found", "invalid_model") or (status in (400, 404) and _MODEL_WORDS.search(whole)):
        return MODEL_ADVICE
    return URL_ADVICE if status == 404 else ""


def server_message(exc: Any, limit: int) -> str:
    """The words of an SDK error (`openai.APIError`): its body's `error.message`, else its own message."""
    body: Any = exc.body
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and inner.get("message"):
            return clipped(str(inner["message"]), limit)
        if isinstance(inner, str):
            return clipped(inner, limit)
    if exc.__cause__ is not None:  # connection errors keep the socket error here
        return f"{exc.message} ({exc.__cause__})"
    return clipped(str(exc.message), limit)


def server_code(exc: Any) -> str:
    """An SDK error's `code`, else its `type` (llama.cpp puts `exceed_context_size_error` there), or ""."""
    body: Any = exc.body
    inner = body.get("error", body) if isinstance(body, dict) else None
    if not isinstance(inner, dict):
        return ""
    for key in ("code", "type"):
        if isinstance(inner.get(key), str) and inner[key]:
            return str(inner[key])
    return ""


def clipped(text: str, limit: int = 300) -> str:
    """A server's words, clipped: an error page can be megabytes."""
    text = clean_text(text)
    return text if len(text) <= limit else text[:limit] + "…"
