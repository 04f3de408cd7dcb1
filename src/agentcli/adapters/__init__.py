"""Protocol adapters: how a Conversation and the tools become a request, and a reply becomes a ModelTurn."""

from __future__ import annotations

from collections.abc import Callable

from agentcli.adapters.base import Adapter, ModelTurn
from agentcli.adapters.native import NativeAdapter
from agentcli.errors import ConfigError
from agentcli.modes import MODES, ModeName
from agentcli.tools.core.registry import ToolRegistry

__all__ = ["MODES", "Adapter", "ModelTurn", "NativeAdapter", "make_adapter"]


def _react(tools: ToolRegistry) -> Adapter:
    from agentcli.adapters.react import REACT  # text modes are imported only when chosen
    from agentcli.adapters.text_protocol import TextAdapter

    return TextAdapter(REACT, tools)


def _json(tools: ToolRegistry) -> Adapter:
    from agentcli.adapters.json_mode import JSON
    from agentcli.adapters.text_protocol import TextAdapter

    return TextAdapter(JSON, tools)


_FACTORIES: dict[ModeName, Callable[[ToolRegistry], Adapter]] = {
    "native": lambda tools: NativeAdapter(),
    "react": _react,
    "json": _json,
    "auto": lambda tools: NativeAdapter(),  # the engine switches to FALLBACKS["auto"] when tools are refused
}

if tuple(_FACTORIES) != MODES:  # pragma: no cover - fails at import, so no mode can lack an adapter
    raise ImportError(f"adapters for {tuple(_FACTORIES)} but modes {MODES}")


def make_adapter(mode: ModeName, tools: ToolRegistry) -> Adapter:
    """The adapter of a mode; "auto" is native that falls back to react when the server rejects `tools`."""
    factory = _FACTORIES.get(mode)
    if factory is None:  # a caller that bypassed the type
        raise ConfigError(f"Unknown mode {mode!r}; choose one of {', '.join(MODES)}.")
    return factory(tools)
