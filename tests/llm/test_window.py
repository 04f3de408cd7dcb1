"""The window a server says it serves: vLLM's /models `max_model_len`, llama.cpp's /props `n_ctx`; asked once per
endpoint, and never failing the run (a server that says nothing, or nonsense, or is slow, leaves the table)."""

from __future__ import annotations

import json
import socket
import ssl
import threading
import time
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agentcli.llm import window
from agentcli.llm.window import served_window, window_in_models, window_in_props
from tests.support.scripted_server import ScriptedServer, raw

VLLM_MODELS = {
    "object": "list",
    "data": [{"id": "test-model", "object": "model", "owned_by": "vllm", "root": "/m", "max_model_len": 4096}],
}
LLAMA_MODELS = {
    "object": "list",
    "data": [{"id": "test-model", "object": "model", "owned_by": "llamacpp", "meta": {"n_ctx_train": 32768}}],
}
LLAMA_PROPS = {"default_generation_settings": {"n_ctx": 2048, "params": {}}, "total_slots": 1}


@pytest.fixture(autouse=True)
def _fresh() -> Iterator[None]:
    window.forget()
    yield
    window.forget()


def test_vllm_says_it_in_its_models_list(scripted_server: ScriptedServer) -> None:
    scripted_server.info["/v1/models"] = raw(json.dumps(VLLM_MODELS))
    assert served_window(scripted_server.base_url, "test-model") == 4096
    assert served_window(scripted_server.base_url, "test-model") == 4096
    assert scripted_server.asked == ["/v1/models"]  # once per endpoint, and /props is not asked of vLLM


def test_llama_cpp_says_it_in_props_beside_v1_not_its_training_window(scripted_server: ScriptedServer) -> None:
    scripted_server.info["/v1/models"] = raw(json.dumps(LLAMA_MODELS))
    scripted_server.info["/props"] = raw(json.dumps(LLAMA_PROPS))
    assert served_window(scripted_server.base_url, "test-model") == 2048
    assert scripted_server.asked == ["/v1/models", "/props"]


@pytest.mark.parametrize(
    "models",
    [
        None,  # 404, as OpenAI-compatible gateways without the endpoint
        raw("<html>not json</html>", content_type="text/html"),
        raw(json.dumps({"data": [{"id": "test-model", "max_model_len": "4096"}]})),  # not a number
        raw(json.dumps({"data": [{"id": "test-model", "max_model_len": True}]})),
        raw(json.dumps({"data": [{"id": "other", "max_model_len": 4096}, {"id": "more", "max_model_len": 8}]})),
        raw(json.dumps({"data": "nope"})),
        raw(json.dumps(VLLM_MODELS), status=500),
    ],
)
def test_a_server_that_does_not_say_leaves_it_to_the_table(scripted_server: ScriptedServer, models: object) -> None:
    if models is not None:
        scripted_server.info["/v1/models"] = models  # type: ignore[assignment]
    assert served_window(scripted_server.base_url, "test-model") is None


def test_a_slow_or_absent_server_is_not_waited_for(scripted_server: ScriptedServer, down_base_url: str) -> None:
    scripted_server.info["/v1/models"] = raw(json.dumps(VLLM_MODELS)).delayed(30)
    assert served_window(scripted_server.base_url, "test-model", timeout=0.2) is None
    assert served_window(down_base_url, "test-model", timeout=0.2) is None


def test_a_server_that_trickles_its_answer_is_given_up_on() -> None:
    """A timeout per read restarts with each byte: one byte every 50 ms would hold the run's start for as long as
    the server likes. The ask stops at its deadline, long before the 400 bytes promised have come."""
    listener = socket.create_server(("127.0.0.1", 0))
    sent = [0]

    def trickle() -> None:
        connection, _ = listener.accept()
        with connection:
            connection.recv(65536)
            try:
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 400\r\n\r\n")
                for _ in range(400):
                    connection.sendall(b" ")
                    sent[0] += 1
                    time.sleep(0.05)
            except OSError:
                pass  # the client gave up and closed

    worker = threading.Thread(target=trickle, daemon=True)
    worker.start()
    port = listener.getsockname()[1]
    assert served_window(f"http://127.0.0.1:{port}/v1", "test-model", timeout=0.3) is None
    assert sent[0] < 400
    listener.close()


KEYS = st.sampled_from(["data", "id", "max_model_len", "default_generation_settings", "n_ctx", "owned_by", "meta"])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=4),
    max_leaves=12,
)


@settings(deadline=None)
@given(JSON)
def test_any_json_gives_a_plausible_window_or_none(answer: object) -> None:
    for found in (window_in_models(answer, "test-model"), window_in_props(answer)):
        assert found is None or (isinstance(found, int) and 256 <= found <= 100_000_000)


def test_asking_shares_the_certificate_store_of_the_chat_client(
    scripted_server: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Loading the CA bundle costs ~30 ms of CPU: once per process, not once more per run's probe.
    from agentcli.llm.bounds import bounded_http_client

    loads: list[object] = []
    real = ssl.SSLContext.load_verify_locations

    def counted(context: ssl.SSLContext, *args: object, **kwargs: object) -> None:
        loads.append(context)
        real(context, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ssl.SSLContext, "load_verify_locations", counted)
    bounded_http_client().close()
    served_window(scripted_server.base_url, "test-model")
    window.forget()
    served_window(scripted_server.base_url, "test-model")
    assert len(loads) <= 1  # none if this process loaded it already
