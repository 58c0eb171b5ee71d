"""The cl100k_base tokenizer from the file bundled in litellm's wheel, loaded without importing litellm.

``import litellm`` takes seconds, and tiktoken on its own downloads its files at first use (and
fails offline). The bundled file is read here directly (tiktoken's format: a base64 token and its
rank per line), so hosts that never import litellm (a direct OpenAI-compatible client) still count
with a real tokenizer. Loading takes about a quarter of a second, once per process.
"""

from __future__ import annotations

import base64
import importlib.util
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

CL100K_FILE = "9b5ad71b2ce5302211f9c61530b329a4922fc6a4"
"""tiktoken's cache name for cl100k_base (the SHA-1 of its download URL), as litellm bundles it."""
CL100K_PATTERN = r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
CL100K_SPECIAL = {
    "<|endoftext|>": 100257,
    "<|fim_prefix|>": 100258,
    "<|fim_middle|>": 100259,
    "<|fim_suffix|>": 100260,
    "<|endofprompt|>": 100276,
}


def bundled_file() -> Path | None:
    """Where litellm's wheel keeps the cl100k_base file (found without importing litellm), if it does."""
    spec = importlib.util.find_spec("litellm")
    for root in (spec.submodule_search_locations or []) if spec else []:
        path = Path(root) / "litellm_core_utils" / "tokenizers" / CL100K_FILE
        if path.is_file():
            return path
    return None


@lru_cache(maxsize=1)
def cl100k_counter() -> Callable[[str], int] | None:
    """A function counting cl100k_base tokens, or None when the bundled file or tiktoken is missing."""
    path = bundled_file()
    if path is None:
        return None
    try:
        import tiktoken

        ranks = {base64.b64decode(token): int(rank) for token, rank in _pairs(path.read_bytes())}
        encoding = tiktoken.Encoding(
            name="cl100k_base", pat_str=CL100K_PATTERN, mergeable_ranks=ranks, special_tokens=CL100K_SPECIAL
        )
    except (ImportError, OSError, ValueError):
        return None

    def count(text: str) -> int:
        return len(encoding.encode(text, disallowed_special=())) if text else 0

    return count


def _pairs(contents: bytes) -> list[tuple[bytes, bytes]]:
    pairs = []
    for line in contents.splitlines():
        if line:
            token, rank = line.split()
            pairs.append((token, rank))
    return pairs
