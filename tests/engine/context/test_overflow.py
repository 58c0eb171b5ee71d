"""Reading the window out of each provider's context-overflow error."""

from __future__ import annotations

import pytest

from engine.context.overflow import window_after_refusal, window_in_error

MESSAGES = [
    ("This model's maximum context length is 16385 tokens. However, your messages resulted in 17000 tokens.", 16385),
    ("prompt is too long: 208,310 tokens > 200,000 maximum", 200_000),
    ("This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4000 in the", 4096),
    (
        "Trying to keep the first 9000 tokens when context the overflows. However, the model is loaded with "
        "context length of only 8192 tokens, which is not enough.",
        8192,
    ),
    ("The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", 1_048_576),
    ('{"code": 400, "message": "the request exceeds the available context size", "n_ctx": 4096}', 4096),
]


@pytest.mark.parametrize(("message", "window"), MESSAGES)
def test_each_providers_wording_names_the_window(message: str, window: int) -> None:
    assert window_in_error(message) == window


def test_an_error_that_names_no_window_is_taken_as_a_little_under_the_refused_request() -> None:
    wording = "Your input exceeds the context window of this model. Please adjust your input and try again."
    assert window_in_error(wording) is None
    assert window_after_refusal(wording, refused_tokens=10_000, current=32_768) == 9_000
    assert window_after_refusal(wording, refused_tokens=100_000, current=32_768) == 32_768
    assert window_after_refusal("maximum context length is 8192 tokens", 10_000, 32_768) == 8192
