"""Images for the model: a file read safely, downscaled to a size every provider takes, re-encoded, as a part.

A file is read like any other (``engine.safe_read``: judged as opened, no late link, at most
``MAX_SOURCE_BYTES``), decoded with Pillow (imported only here, when an image is loaded), scaled so its
long side is at most ``MAX_SIDE`` pixels, and encoded again: PNG stays PNG, JPEG stays JPEG, every other
format Pillow reads (GIF's first frame, BMP, TIFF, WebP...) becomes PNG. Re-encoding drops EXIF and every
other piece of metadata. An encoding over ``MAX_ENCODED_BYTES`` is made a JPEG, then smaller, until it fits.

The result is an OpenAI ``image_url`` part with a data URL; the model clients translate it for
Anthropic and the Responses API, and litellm for the rest.
"""

from __future__ import annotations

import base64
import io
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct

from engine.safe_read import TooLarge, UnsafeFile, read_bounded

if TYPE_CHECKING:
    from PIL.Image import Image as PillowImage

MAX_SIDE = 1568
"""The long side sent at most, in pixels: Anthropic's advice for no resizing on its side (about 1,600
tokens), well under OpenAI's 2,048 and every provider's hard limit (8,000; 2,000 with many images)."""
MAX_ENCODED_BYTES = 3_750_000
"""The encoded image at most: Anthropic refuses more than 5 MB of base64, which is 3.75 MB of bytes."""
MAX_SOURCE_BYTES = 50_000_000
"""The file read at most: a larger one is refused, not decoded."""
MAX_PIXELS = 100_000_000
"""The decoded image at most (a "decompression bomb" is a small file that decodes to gigabytes)."""
IMAGE_TOKENS = 1_600
"""What one image counts for in the context window: Anthropic's cost of a ``MAX_SIDE`` image (w×h/750)."""
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".gif", ".webp", ".bmp", ".tif", ".tiff"})
"""The names taken for images (``@shot.png``, a pasted path, read_file)."""
_KEPT_FORMATS = {"PNG": "image/png", "JPEG": "image/jpeg"}
_JPEG_QUALITY = 85


class ImageError(Exception):
    """An image could not be attached; ``str(error)`` says why, for the person or the model."""


class LoadedImage(Struct, frozen=True, kw_only=True):
    """An image ready for a request: its bytes (base64) and what was done to it."""

    media_type: str
    data: str
    """The encoded image, base64."""
    width: int
    height: int
    original_width: int
    original_height: int
    original_bytes: int

    @property
    def data_url(self) -> str:
        """The image as a ``data:`` URL."""
        return f"data:{self.media_type};base64,{self.data}"

    def part(self) -> dict[str, Any]:
        """The OpenAI ``image_url`` content part."""
        return {"type": "image_url", "image_url": {"url": self.data_url}}

    def describe(self) -> str:
        """One line: size, and the downscaling when there was one (e.g. ``1568×980 PNG, scaled from 3840×2400``)."""
        kind = self.media_type.removeprefix("image/").upper()
        size = f"{self.width}×{self.height} {kind}, {max(1, round(len(self.data) * 3 / 4 / 1024)):,} KB"
        if (self.width, self.height) != (self.original_width, self.original_height):
            size += f", scaled from {self.original_width}×{self.original_height}"
        return size


def looks_like_image(name: str) -> bool:
    """Whether the file name ends in an image suffix (``.png``, ``.jpg``...)."""
    return Path(name).suffix.lower() in IMAGE_SUFFIXES


def load_image(path: Path, *, within: Path | None = None) -> LoadedImage:
    """The image at ``path``, downscaled and re-encoded; raises :class:`ImageError` with the reason."""
    try:
        data = read_bounded(path, limit=MAX_SOURCE_BYTES, within=within)
    except TooLarge as refused:
        raise ImageError(f"it {refused.reason}") from None
    except UnsafeFile as refused:
        raise ImageError(f"it {refused.reason}") from None
    except OSError as error:
        raise ImageError(error.strerror or str(error)) from None
    return image_from_bytes(data)


def image_from_bytes(data: bytes) -> LoadedImage:
    """``data`` decoded, downscaled and re-encoded; raises :class:`ImageError` when Pillow cannot read it."""
    picture, source_format = _decoded(data)
    original = picture.size
    picture = _scaled(picture, MAX_SIDE)
    media_type, encoded = _encoded(picture, source_format)
    while len(encoded) > MAX_ENCODED_BYTES:
        picture = _scaled(picture, int(max(picture.size) * 0.75))
        media_type, encoded = "image/jpeg", _jpeg(picture)
    return LoadedImage(
        media_type=media_type,
        data=base64.b64encode(encoded).decode("ascii"),
        width=picture.width,
        height=picture.height,
        original_width=original[0],
        original_height=original[1],
        original_bytes=len(data),
    )


def _decoded(data: bytes) -> tuple[PillowImage, str]:
    from PIL import Image, UnidentifiedImageError

    Image.MAX_IMAGE_PIXELS = MAX_PIXELS  # Pillow refuses twice as many when it opens the file; hive, this many
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", Image.DecompressionBombWarning)
            opened = Image.open(io.BytesIO(data))
        with opened:
            if opened.width * opened.height > MAX_PIXELS:
                raise Image.DecompressionBombError("too many pixels")
            source_format = opened.format or ""
            opened.seek(0)  # an animation: its first frame
            picture = opened.copy()
            picture.load()
    except Image.DecompressionBombError:
        raise ImageError(f"it has more than {MAX_PIXELS:,} pixels") from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError):
        raise ImageError("it is not an image hive can read (PNG, JPEG, GIF, WebP, BMP or TIFF)") from None
    return picture, source_format


def _scaled(picture: PillowImage, side: int) -> PillowImage:
    """``picture`` with its long side at most ``side`` pixels (the aspect ratio kept)."""
    if max(picture.size) <= side:
        return picture
    from PIL import Image

    ratio = side / max(picture.size)
    size = (max(1, round(picture.width * ratio)), max(1, round(picture.height * ratio)))
    return picture.resize(size, Image.Resampling.LANCZOS, reducing_gap=3.0)


def _encoded(picture: PillowImage, source_format: str) -> tuple[str, bytes]:
    """The bytes to send: a JPEG as JPEG, everything else as PNG (no metadata either way)."""
    if _KEPT_FORMATS.get(source_format) == "image/jpeg":
        return "image/jpeg", _jpeg(picture)
    if picture.mode not in ("1", "L", "LA", "P", "RGB", "RGBA", "I", "I;16"):
        picture = picture.convert("RGBA")
    out = io.BytesIO()
    picture.save(out, format="PNG")
    return "image/png", out.getvalue()


def _jpeg(picture: PillowImage) -> bytes:
    from PIL import Image

    if picture.mode in ("RGBA", "LA", "P"):
        rgba = picture.convert("RGBA")
        flat = Image.new("RGB", rgba.size, (255, 255, 255))
        flat.paste(rgba, mask=rgba.getchannel("A"))
        picture = flat
    elif picture.mode != "RGB":
        picture = picture.convert("RGB")
    out = io.BytesIO()
    picture.save(out, format="JPEG", quality=_JPEG_QUALITY, optimize=True)
    return out.getvalue()
