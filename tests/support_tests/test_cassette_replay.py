"""Every recording in the shared cassette folder loads, and the replay server sends back its exact bytes."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import httpx
import pytest

from tests.support.cassettes import CASSETTE_DIR, ReplayServer, cassette_files, load_cassette

FILES = cassette_files()
HTTP = httpx.Client(timeout=5)


def cassette(name: str) -> Path:
    return CASSETTE_DIR / name


def test_all_forty_three_cassettes_with_sixty_two_exchanges_are_found() -> None:
    # 34 recordings (51 exchanges), and 9 files (11 exchanges) written from the providers' documentation
    assert len(FILES) == 43
    assert sum(len(load_cassette(path)) for path in FILES) == 62


@pytest.mark.parametrize("path", FILES, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_replay_returns_each_recorded_status_and_body_in_order(path: Path) -> None:
    exchanges = load_cassette(path)
    with ReplayServer(exchanges) as server:
        for exchange in exchanges:
            target = exchange.request.path or "/v1/chat/completions"
            with HTTP.stream("POST", server.url + target, json=exchange.request.json or {}) as response:
                wire_bytes = b"".join(response.iter_raw())
            assert response.status_code == exchange.response.status
            assert wire_bytes == exchange.response.body
            assert server.last_request.path == target
        assert server.remaining == 0


@pytest.mark.parametrize(
    "name", ["anthropic/stream_tool_use_empty_input_gzip.yaml", "anthropic/stream_thinking_then_text_gzip.yaml"]
)
def test_a_client_gunzips_a_replayed_gzip_body_to_the_recorded_content(name: str) -> None:
    (exchange,) = load_cassette(cassette(name))
    with ReplayServer([exchange]) as server:
        response = HTTP.post(f"{server.url}/v1/messages", json={})
    assert response.headers["content-encoding"] == "gzip"
    assert response.headers["content-length"] == str(len(exchange.response.body))
    assert response.content == gzip.decompress(exchange.response.body) == exchange.response.content


def test_loaded_headers_drop_hop_by_hop_fields_and_recompute_content_length() -> None:
    for path in FILES:
        for exchange in load_cassette(path):
            names = [name.lower() for name, _ in exchange.response.headers]
            assert "transfer-encoding" not in names
            assert "connection" not in names
            assert exchange.response.header("content-length") == str(len(exchange.response.body))
            assert exchange.response.header("content-type")


def test_format_b_request_and_response_bodies_come_from_parsed_body() -> None:
    first = load_cassette(cassette("openai/stream_tool_call_then_answer_include_usage.yaml"))[0]
    assert first.request.json["stream_options"] == {"include_usage": True}
    assert first.request.path == "/v1/chat/completions"
    error = load_cassette(cassette("openai/error_404_model_not_found.yaml"))[0].response
    assert json.loads(error.body)["error"]["code"] == "model_not_found"


def test_format_c_keeps_the_gzip_bytes_and_their_content_encoding() -> None:
    response = load_cassette(cassette("anthropic/stream_tool_use_empty_input_gzip.yaml"))[0].response
    assert response.header("content-encoding") == "gzip"
    assert response.body.startswith(b"\x1f\x8b")
    assert response.content == gzip.decompress(response.body)
    assert response.content.startswith(b"event: message_start")
    assert response.is_sse


def test_format_d_reads_content_and_status_code_and_sends_plain_text() -> None:
    response = load_cassette(cassette("openai/error_401_invalid_api_key.yaml"))[0].response
    assert response.status == 401
    assert response.header("content-encoding") is None
    assert json.loads(response.body)["error"]["code"] == "invalid_api_key"


def test_format_e_is_one_streamed_exchange_without_a_request() -> None:
    (exchange,) = load_cassette(cassette("openai/stream_parallel_tool_calls_usage.sse"))
    assert (exchange.request.uri, exchange.request.json) == ("", None)
    assert exchange.response.is_sse
    assert exchange.response.body.rstrip().endswith(b"data: [DONE]")


def test_format_a_bodies_keep_their_significant_blank_lines() -> None:
    response = load_cassette(cassette("anthropic/stream_text_then_two_tool_use.yaml"))[0].response
    assert b"\n\nevent: content_block_start\n" in response.body


def test_replay_serves_the_anthropic_route_and_records_what_it_received() -> None:
    with ReplayServer(cassette("anthropic/error_401_authentication.yaml")) as server:
        response = HTTP.post(f"{server.url}/v1/messages", json={"model": "claude"}, headers={"x-api-key": "k"})
        assert response.json()["error"]["type"] == "authentication_error"
        assert server.last_request.path == "/v1/messages"
        assert server.last_request.json == {"model": "claude"}
        assert server.last_request.headers["x-api-key"] == "k"


def test_replay_answers_500_once_the_exchanges_are_used_up() -> None:
    with ReplayServer(cassette("openai/stream_single_tool_call_usage.sse")) as server:
        assert HTTP.post(f"{server.base_url}/chat/completions", json={}).status_code == 200
        exhausted = HTTP.post(f"{server.base_url}/chat/completions", json={})
    assert exhausted.status_code == 500
    assert "no recorded exchange left" in exhausted.json()["error"]["message"]
