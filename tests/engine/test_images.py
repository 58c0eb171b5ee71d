"""engine/images.py: images read safely, downscaled, re-encoded without metadata; and what one counts in the window."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from PIL import Image

from engine.context.tokens import TokenCounter
from engine.images import IMAGE_TOKENS, MAX_SIDE, ImageError, image_from_bytes, load_image, looks_like_image
from engine.model.vision import accepts_images
from hive_cli.image_files import pasted_image


def encoded(image: Image.Image, fmt: str, **save: object) -> bytes:
    out = io.BytesIO()
    image.save(out, format=fmt, **save)
    return out.getvalue()


def test_a_tall_image_keeps_its_aspect_ratio_and_a_small_one_its_size() -> None:
    tall = image_from_bytes(encoded(Image.new("RGB", (1000, 4000)), "PNG"))
    small = image_from_bytes(encoded(Image.new("RGB", (300, 200)), "PNG"))

    assert (tall.width, tall.height) == (MAX_SIDE // 4, MAX_SIDE)
    assert (tall.original_width, tall.original_height) == (1000, 4000)
    assert "scaled from 1000×4000" in tall.describe()
    assert (small.width, small.height) == (300, 200) and "scaled" not in small.describe()


def test_tiff_gif_and_webp_become_png_and_transparency_survives() -> None:
    for fmt in ("TIFF", "GIF", "WEBP"):
        image = image_from_bytes(encoded(Image.new("RGBA", (20, 10), (0, 0, 255, 128)), fmt))
        assert image.media_type == "image/png", fmt
    png = image_from_bytes(encoded(Image.new("RGBA", (20, 10), (0, 0, 255, 128)), "PNG"))
    assert Image.open(io.BytesIO(__import__("base64").b64decode(png.data))).mode == "RGBA"


def test_an_unreadable_or_truncated_file_and_a_decompression_bomb_are_refused() -> None:
    whole = encoded(Image.new("RGB", (200, 200), (9, 9, 9)), "PNG")
    with pytest.raises(ImageError, match="not an image hive can read"):
        image_from_bytes(b"GIF89a and then nothing sensible")
    with pytest.raises(ImageError, match="not an image hive can read"):
        image_from_bytes(whole[: len(whole) // 2])
    bomb = encoded(Image.new("1", (12_000, 12_000)), "PNG")  # 144 million pixels in a few kilobytes
    assert len(bomb) < 100_000
    with pytest.raises(ImageError, match="more than 100,000,000 pixels"):
        image_from_bytes(bomb)


def test_a_fifo_a_link_out_and_a_missing_file_are_refused_by_the_safe_reader(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe.png")
    outside = tmp_path / "outside"
    outside.mkdir()
    Image.new("RGB", (4, 4)).save(outside / "real.png")
    project = tmp_path / "project"
    project.mkdir()
    (project / "link.png").symlink_to(outside / "real.png")

    with pytest.raises(ImageError, match="FIFO"):
        load_image(tmp_path / "pipe.png")
    with pytest.raises(ImageError, match="outside"):
        load_image(project / "link.png", within=project)
    with pytest.raises(ImageError):
        load_image(tmp_path / "missing.png")


def test_an_image_counts_a_fixed_number_of_tokens_whatever_its_base64() -> None:
    counter = TokenCounter("openai/test-model")
    big = "data:image/png;base64," + "A" * 3_000_000
    with_image = {
        "role": "user",
        "content": [{"type": "text", "text": "look"}, {"type": "image_url", "image_url": {"url": big}}],
    }
    without = {"role": "user", "content": [{"type": "text", "text": "look"}]}

    assert counter.message(with_image) - counter.message(without) == IMAGE_TOKENS


def test_the_settings_decide_vision_over_the_table_and_an_unknown_model_has_none() -> None:
    assert accepts_images("openai/gpt-4o")
    assert not accepts_images("openai/gpt-4o", {"openai/gpt-4o": False})
    assert not accepts_images("openai/my-local-vlm")
    assert accepts_images("openai/my-local-vlm", {"my-local-vlm": True})


def test_a_pasted_line_is_an_image_only_when_all_of_it_names_an_existing_image_file(tmp_path: Path) -> None:
    Image.new("RGB", (4, 4)).save(tmp_path / "my shot.png")
    Image.new("RGB", (4, 4)).save(tmp_path / "a.png")

    assert pasted_image("a.png", tmp_path) == "a.png"
    assert pasted_image(f"'{tmp_path}/my shot.png'", tmp_path) == f"{tmp_path}/my shot.png"
    assert pasted_image(f"{tmp_path}/my\\ shot.png ", tmp_path) == f"{tmp_path}/my shot.png"
    assert pasted_image(f"file://{tmp_path}/a.png", tmp_path) == f"{tmp_path}/a.png"
    assert pasted_image("look at a.png", tmp_path) is None
    assert pasted_image("missing.png", tmp_path) is None
    assert pasted_image("notes.txt", tmp_path) is None
    assert looks_like_image("X.JPEG") and not looks_like_image("x.svg")
