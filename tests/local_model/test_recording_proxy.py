"""The recording proxy of the local model check, in front of the scripted server (runs in `make test`).

The real check (test_llama_cpp_e2e.py) judges hive only through what this proxy recorded, so the proxy must
relay streams and whole answers unchanged, and record statuses, empty streams and cut answers as they were.
"""

from __future__ import annotations

import http.client
import json
from pathlib import Path

from tests.local_model.recording_proxy import RecordingProxy
from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, call, raw_sse, server_error, stream_cut, text, tool_calls


def post_chat(proxy: RecordingProxy, *, stream: bool) -> tuple[int, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", proxy.port, timeout=30)
    body = {"model": "test-model", "stream": stream, "messages": [{"role": "user", "content": "hi"}]}
    try:
        connection.request("POST", "/v1/chat/completions", json.dumps(body), {"Content-Type": "application/json"})
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def test_a_real_hive_run_through_the_proxy_is_relayed_and_recorded(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(tool_calls(call("write_file", {"path": "hello.txt", "content": "hello\n"})), text("Done."))
    with RecordingProxy(llm_server.url) as proxy:
        args = [
            "--model",
            "openai/test-model",
            "--api-base",
            proxy.base_url,
            "--api-key",
            "sk-test",
            "-C",
            str(tmp_path),
        ]
        done = run_hive("run", "write hello.txt", "--yes", "-o", "json", *args)

    assert done.returncode == 0, done.stderr
    assert (tmp_path / "hello.txt").read_text() == "hello\n"
    chats = proxy.chat_exchanges()
    assert [(e.status, e.streamed, e.failed) for e in chats] == [(200, True, False), (200, True, False)]
    assert chats[0].reply_tool_calls() == ["write_file"] and chats[1].reply_text() == "Done."
    assert "write_file" in chats[0].tool_names
    assert [m["role"] for m in chats[1].payload["messages"]][-2:] == ["assistant", "tool"]
    assert [request.json for request in llm_server.chat_requests] == [e.request.json for e in chats]


def test_an_empty_stream_a_refusal_and_a_cut_stream_are_recorded_as_such(llm_server: LLMServer) -> None:
    llm_server.script(raw_sse(done=False), server_error(500, "boom"), stream_cut("partial answer", after=2))
    with RecordingProxy(llm_server.url) as proxy:
        empty = post_chat(proxy, stream=True)
        refused = post_chat(proxy, stream=False)
        try:
            post_chat(proxy, stream=True)
        except http.client.HTTPException:
            pass  # the cut reaches the client as a cut

    assert empty == (200, b"") and refused[0] == 500 and b"boom" in refused[1]
    first, second, third = proxy.chat_exchanges()
    assert first.empty_stream and not first.cut
    assert second.failed and second.status == 500 and "boom" in second.error_text()
    assert third.cut and third.failed and not third.empty_stream
    assert third.reply_text() and "partial answer".startswith(third.reply_text())
