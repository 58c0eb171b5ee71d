"""Images reach the request in each client's format: ``hive run --image``, read_file on an image, a resumed session.

Every test drives the real ``hive`` program against the suite's scripted server (or the Anthropic cassette
replay) and judges what went over the wire: the image parts, their size after downscaling, and that a model
without vision gets a message instead of a request.
"""

from __future__ import annotations

import base64
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from tests.support.cassettes import CASSETTE_DIR, ReplayServer
from tests.support.cli import run_hive
from tests.support.llm_server import LLMServer, call, text, tool_calls

VISION_MODEL = "openai/test-model"


def allow_vision(*models: str) -> None:
    """The user's settings say these models take images (the table does not list the suite's model)."""
    folder = Path(os.environ["HIVE_HOME"]) / "config"
    folder.mkdir(parents=True, exist_ok=True)
    listed = "".join(f"    {model}: true\n" for model in models)
    (folder / "settings.yaml").write_text(f"images:\n  vision:\n{listed}")


def picture(path: Path, size: tuple[int, int], colour: tuple[int, int, int] = (200, 30, 30), **save: Any) -> Path:
    Image.new("RGB", size, colour).save(path, **save)
    return path


def noisy_screenshot(path: Path) -> Path:
    """A large screenshot whose PNG is over 10 MB: noise does not compress."""
    Image.effect_noise((3000, 2000), 60).convert("RGB").save(path)
    assert path.stat().st_size > 10_000_000
    return path


def run(server: Any, workdir: Path, task: str, *extra: str, model: str = VISION_MODEL, **env: str) -> Any:
    base = server.base_url if model.startswith("openai/") else server.url
    args = ["run", task, "--yes", "-o", "json", "--model", model, "--api-base", base, "--api-key", "sk-test"]
    return run_hive(*args, "-C", str(workdir), *extra, **env)


def decoded(url: str) -> tuple[str, Image.Image, bytes]:
    """A data URL's media type, the image it holds and its bytes."""
    head, data = url.split(",", 1)
    raw = base64.b64decode(data)
    return head.removeprefix("data:").removesuffix(";base64"), Image.open(io.BytesIO(raw)), raw


def image_parts(message: dict[str, Any]) -> list[str]:
    return [p["image_url"]["url"] for p in message["content"] if isinstance(p, dict) and p["type"] == "image_url"]


def test_an_image_reaches_the_openai_chat_request_as_an_image_url_part(llm_server: LLMServer, tmp_path: Path) -> None:
    allow_vision(VISION_MODEL)
    picture(tmp_path / "red.png", (40, 30))
    llm_server.script(text("It is red."))
    done = run(llm_server, tmp_path, "what colour is it?", "--image", "red.png")

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["text"] == "It is red."
    user = llm_server.chat_requests[0].messages[-1]
    assert user["content"][0]["type"] == "text" and user["content"][0]["text"].startswith("what colour is it?")
    assert "red.png is attached as an image: 40×30 PNG" in user["content"][0]["text"]
    (url,) = image_parts(user)
    media_type, image, _ = decoded(url)
    assert media_type == "image/png" and image.size == (40, 30) and image.getpixel((5, 5)) == (200, 30, 30)


def test_a_large_screenshot_is_downscaled_before_it_is_sent(llm_server: LLMServer, tmp_path: Path) -> None:
    allow_vision(VISION_MODEL)
    noisy_screenshot(tmp_path / "shot.png")
    llm_server.script(text("A screenshot."))
    done = run(llm_server, tmp_path, "look", "--image", "shot.png")

    assert done.returncode == 0, done.stderr
    (url,) = image_parts(llm_server.chat_requests[0].messages[-1])
    _, image, raw = decoded(url)
    assert max(image.size) <= 1568 and image.size[0] / image.size[1] == pytest.approx(1.5, rel=0.01)
    assert len(raw) <= 3_750_000


def test_a_jpeg_loses_its_exif_and_a_bmp_becomes_a_png(llm_server: LLMServer, tmp_path: Path) -> None:
    allow_vision(VISION_MODEL)
    exif = Image.Exif()
    exif[0x010F] = "SecretCameraMaker"
    picture(tmp_path / "photo.jpg", (64, 48), exif=exif)
    picture(tmp_path / "old.bmp", (10, 10))
    assert b"SecretCameraMaker" in (tmp_path / "photo.jpg").read_bytes()
    llm_server.script(text("Two."))
    done = run(llm_server, tmp_path, "compare", "--image", "photo.jpg", "--image", "old.bmp")

    assert done.returncode == 0, done.stderr
    jpeg, bmp = (decoded(url) for url in image_parts(llm_server.chat_requests[0].messages[-1]))
    assert jpeg[0] == "image/jpeg" and b"SecretCameraMaker" not in jpeg[2] and not jpeg[1].getexif()
    assert bmp[0] == "image/png" and bmp[1].format == "PNG"


def test_a_model_without_vision_gets_a_message_and_no_request(llm_server: LLMServer, tmp_path: Path) -> None:
    picture(tmp_path / "red.png", (40, 30))
    done = run(llm_server, tmp_path, "what colour?", "--image", "red.png")

    assert done.returncode == 2
    assert "the model openai/test-model does not take images" in done.stderr
    assert "images.vision" in done.stderr and "Traceback" not in done.stderr
    assert not llm_server.chat_requests


def test_a_file_that_is_no_image_or_a_denied_path_is_refused_before_any_request(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    allow_vision(VISION_MODEL)
    (tmp_path / "notes.png").write_text("not really a picture\n")
    broken = run(llm_server, tmp_path, "look", "--image", "notes.png")
    denied_rules = tmp_path / ".ironhive"
    denied_rules.mkdir()
    rules = "permissions:\n  include_defaults: true\n  read:\n    - {pattern: secret.png, action: deny}\n"
    (denied_rules / "permissions.yaml").write_text(rules)
    picture(tmp_path / "secret.png", (4, 4))
    denied = run(llm_server, tmp_path, "look", "--image", "secret.png", "--trust-project")

    assert broken.returncode == 2 and "--image notes.png: not attached (it is not an image" in broken.stderr
    assert denied.returncode == 2 and "--image secret.png: not attached (the read rules deny it" in denied.stderr
    assert not llm_server.chat_requests


def test_the_responses_api_gets_an_input_image(llm_server: LLMServer, tmp_path: Path) -> None:
    allow_vision("openai/responses/test-model")
    picture(tmp_path / "red.png", (40, 30))
    llm_server.script(text("Red."))
    done = run(llm_server, tmp_path, "colour?", "--image", "red.png", model="openai/responses/test-model")

    assert done.returncode == 0, done.stderr
    user = llm_server.responses_requests[0].json["input"][-1]
    kinds = [part["type"] for part in user["content"]]
    assert user["role"] == "user" and kinds == ["input_text", "input_image"]
    assert decoded(user["content"][1]["image_url"])[1].size == (40, 30)


def test_anthropic_gets_a_base64_image_block(tmp_path: Path) -> None:
    picture(tmp_path / "red.png", (40, 30))
    with ReplayServer(CASSETTE_DIR / "anthropic/stream_thinking_then_text_gzip.yaml") as server:
        done = run(server, tmp_path, "colour?", "--image", "red.png", model="anthropic/claude-haiku-4-5")
        sent = server.requests

    assert done.returncode == 0, done.stderr
    blocks = sent[0].json["messages"][-1]["content"]
    images = [block for block in blocks if block["type"] == "image"]
    assert len(images) == 1 and images[0]["source"]["type"] == "base64"
    assert images[0]["source"]["media_type"] == "image/png"
    assert Image.open(io.BytesIO(base64.b64decode(images[0]["source"]["data"]))).size == (40, 30)


def test_litellm_passes_the_image_part_through(llm_server: LLMServer, tmp_path: Path) -> None:
    allow_vision(VISION_MODEL)
    picture(tmp_path / "red.png", (40, 30))
    llm_server.script(text("Red."))
    done = run(llm_server, tmp_path, "colour?", "--image", "red.png", HIVE_PROVIDER_CLIENT="litellm")

    assert done.returncode == 0, done.stderr
    (url,) = image_parts(llm_server.chat_requests[0].messages[-1])
    assert decoded(url)[1].size == (40, 30)


def test_read_file_on_an_image_sends_it_after_the_tool_result(llm_server: LLMServer, tmp_path: Path) -> None:
    allow_vision(VISION_MODEL)
    noisy_screenshot(tmp_path / "shot.png")
    llm_server.script(tool_calls(call("read_file", {"path": "shot.png"}, id="r1")), text("Noise."))
    done = run(llm_server, tmp_path, "what is in shot.png?")

    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["tool_calls"][0]["success"] is True
    *_, result, images = llm_server.chat_requests[1].messages
    assert result["role"] == "tool" and result["tool_call_id"] == "r1"
    assert "shot.png: an image, 1568×1045 PNG" in result["content"] and "scaled from 3000×2000" in result["content"]
    assert "follows in the next message" in result["content"]
    assert images["role"] == "user" and images["content"][0]["text"] == "[The images the tool calls above returned]"
    (url,) = image_parts(images)
    assert decoded(url)[1].size == (1568, 1045)


def test_read_file_on_an_image_tells_a_model_without_vision(llm_server: LLMServer, tmp_path: Path) -> None:
    picture(tmp_path / "red.png", (40, 30))
    llm_server.script(tool_calls(call("read_file", {"path": "red.png"}, id="r1")), text("Cannot see it."))
    done = run(llm_server, tmp_path, "what is in red.png?")

    assert done.returncode == 0, done.stderr
    messages = llm_server.chat_requests[1].messages
    assert messages[-1]["role"] == "tool"
    assert "The image was not sent: the model openai/test-model does not take images" in messages[-1]["content"]
    assert not any(isinstance(m["content"], list) for m in messages)


def test_a_session_with_an_image_resumes_with_the_image(llm_server: LLMServer, tmp_path: Path) -> None:
    allow_vision(VISION_MODEL)
    picture(tmp_path / "red.png", (40, 30))
    llm_server.script(text("Red."), text("Still red."))
    first = run(llm_server, tmp_path, "colour?", "--image", "red.png")
    again = run(llm_server, tmp_path, "and now?", "--continue")

    assert first.returncode == 0, first.stderr
    assert again.returncode == 0, again.stderr
    sent_first, sent_again = (request.messages for request in llm_server.chat_requests)
    assert sent_again[1] == sent_first[1] and image_parts(sent_again[1])
    assert sent_again[-1] == {"role": "user", "content": "and now?"}
    saved = next((Path(os.environ["HIVE_HOME"]) / "data" / "sessions").glob("*.jsonl")).read_text()
    assert "data:image/png;base64," in saved and len(saved) < 50_000
