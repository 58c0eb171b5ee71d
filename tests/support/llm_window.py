"""A scripted server's window: what it says it serves (llama.cpp, LM Studio, Ollama, vLLM) and how it overflows.

    server.serve_window(ServedWindow(2048, kind="llama.cpp"))

answers llama.cpp's ``GET /props`` with the window, and answers every chat request that does not fit it
(its JSON estimated at four characters a token) as llama.cpp's servers do: a ``200`` event stream with no
event when the request streams, the ``400`` naming the window when it does not. Such a request takes no
scripted reply from the queue.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from tests.support.local_http import RecordedRequest, ResponseWriter

ServerKind = Literal["llama.cpp", "lmstudio", "ollama", "vllm", "silent"]
CHARS_PER_TOKEN = 4


@dataclass
class ServedWindow:
    """The window a scripted server serves, the kind of server that says so, and the overflows it answered."""

    window: int
    kind: ServerKind = "llama.cpp"
    model: str = "test-model"
    num_ctx_set: bool = True
    """Ollama: whether the model's parameters set ``num_ctx`` (else Ollama serves its default)."""
    trained: int = 131_072
    """What the model could take (Ollama's ``context_length``, LM Studio's ``max_context_length``)."""
    overflows: list[bool] = field(default_factory=list)
    """One entry per chat request refused as too long: whether it asked to stream."""

    def answer(self, request: RecordedRequest, writer: ResponseWriter) -> bool:
        """Answer ``request`` if it is this window's to answer (an info endpoint, or an overflow)."""
        route = request.path.split("?", 1)[0].rstrip("/")
        info = self._info(request.method, route, request.json)
        if info is not None:
            writer.send_json(200, info)
            return True
        if request.method == "POST" and route.endswith("/chat/completions") and isinstance(request.json, dict):
            return self._overflowed(request.json, writer)
        return False

    def _info(self, method: str, route: str, body: Any) -> dict[str, Any] | None:
        if self.kind == "llama.cpp" and (method, route) == ("GET", "/props"):
            return {"default_generation_settings": {"n_ctx": self.window}, "total_slots": 1}
        if self.kind == "lmstudio" and (method, route) == ("GET", "/api/v0/models"):
            entry = {"id": self.model, "state": "loaded", "max_context_length": self.trained}
            return {"object": "list", "data": [entry | {"loaded_context_length": self.window}]}
        if self.kind == "ollama" and (method, route) == ("POST", "/api/show"):
            parameters = f"num_ctx                        {self.window}" if self.num_ctx_set else 'stop "<|im_end|>"'
            return {"parameters": parameters, "model_info": {"qwen2.context_length": self.trained}}
        if self.kind == "vllm" and (method, route) == ("GET", "/v1/models"):
            return {"object": "list", "data": [{"id": self.model, "object": "model", "max_model_len": self.window}]}
        return None

    def _overflowed(self, body: dict[str, Any], writer: ResponseWriter) -> bool:
        used = estimated_tokens(body)
        if used <= self.window:
            return False
        streamed = bool(body.get("stream"))
        self.overflows.append(streamed)
        if streamed:
            writer.start_chunked(200, (("Content-Type", "text/event-stream"),))
            writer.end_chunked()
        else:
            message = "the request exceeds the available context size, try increasing it"
            error = {"code": 400, "message": message, "type": "exceed_context_size_error"}
            writer.send_json(400, {"error": error | {"n_prompt_tokens": used, "n_ctx": self.window}})
        return True


def estimated_tokens(body: dict[str, Any]) -> int:
    """The request's tokens as this server counts them: its messages' and tools' JSON, four characters a token."""
    return len(json.dumps(body.get("messages", [])) + json.dumps(body.get("tools", []))) // CHARS_PER_TOKEN
