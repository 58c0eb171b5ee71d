"""``@shot.png`` and a pasted image path at the REPL send the image; a model without vision is told, not sent it."""

from __future__ import annotations

import io
import os
from pathlib import Path

from PIL import Image

from tests.support.llm_server import LLMServer, text
from tests.support.terminal import PROMPT, leave_repl, model_args, send_line, spawn_hive, spawn_repl


def allow_vision() -> None:
    folder = Path(os.environ["HIVE_HOME"]) / "config"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "settings.yaml").write_text("images:\n  vision:\n    openai/test-model: true\n")


def image_sizes(message: dict[str, object]) -> list[str]:
    content = message["content"]
    assert isinstance(content, list)
    return [part["image_url"]["url"][:22] for part in content if part["type"] == "image_url"]


def test_a_mentioned_image_and_a_pasted_image_path_are_sent_as_images(llm_server: LLMServer, tmp_path: Path) -> None:
    allow_vision()
    Image.new("RGB", (40, 30), (0, 200, 0)).save(tmp_path / "green.png")
    Image.new("RGB", (30, 40), (0, 0, 200)).save(tmp_path / "blue shot.jpg")
    llm_server.script(text("Green it is."), text("Blue it is."))
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "what colour is @green.png")
    child.expect("Green it is.")
    child.expect(PROMPT)
    send_line(child, f"'{tmp_path}/blue shot.jpg'")
    child.expect("Blue it is.")
    child.expect(PROMPT)
    assert leave_repl(child) == 0

    first, second = (request.messages[-1] for request in llm_server.chat_requests)
    assert first["content"][0]["text"].startswith("what colour is @green.png")
    assert "[green.png is attached as an image: 40×30 PNG" in first["content"][0]["text"]
    assert image_sizes(first) == ["data:image/png;base64,"]
    assert image_sizes(second) == ["data:image/jpeg;base64"]


def test_a_model_without_vision_is_told_and_the_text_goes_without_the_image(
    llm_server: LLMServer, tmp_path: Path
) -> None:
    Image.new("RGB", (40, 30)).save(tmp_path / "shot.png")
    llm_server.script(text("No picture here."))
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "look at @shot.png")
    child.expect("not attached")
    child.expect("does not take images")
    child.expect("No picture here.")
    child.expect(PROMPT)
    assert leave_repl(child) == 0
    assert llm_server.chat_requests[0].messages[-1]["content"] == "look at @shot.png"


def test_a_resumed_session_shows_an_image_as_a_marker_not_its_data(llm_server: LLMServer, tmp_path: Path) -> None:
    allow_vision()
    Image.new("RGB", (40, 30), (0, 200, 0)).save(tmp_path / "green.png")
    llm_server.script(text("Green it is."))
    child = spawn_repl(llm_server, tmp_path)
    send_line(child, "what colour is @green.png")
    child.expect("Green it is.")
    child.expect(PROMPT)
    assert leave_repl(child) == 0

    resumed = spawn_hive(*model_args(llm_server, tmp_path), "--continue")
    shown = io.StringIO()
    resumed.logfile_read = shown
    resumed.expect(r"\[image\]")
    resumed.expect("Green it is.")
    resumed.expect(PROMPT)
    assert leave_repl(resumed) == 0
    assert "what colour is @green.png" in shown.getvalue()
    assert "base64" not in shown.getvalue() and "image_url" not in shown.getvalue()
