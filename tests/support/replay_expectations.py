"""What replaying each recording in tests/fixtures/provider_cassettes through `LiteLLMClient` must produce.

Written by reading each recorded response body (text, reasoning, tool calls, finish reason, usage), not by running
the adapter; `tests/engine/model/test_cassette_replay.py` replays the files and checks them against `EXPECTED`.

Conventions: Anthropic `prompt_tokens` is input + cache writes + cache reads, as litellm reports it (notes §5), and
an Anthropic reply without thinking reports 0 reasoning tokens (litellm fills the count in); `openai/` models served
from a custom api_base are never priced (`is_priced_endpoint`), so their cost is None; Anthropic models are priced
from litellm's bundled table when it knows them (`Prices` holds the rates read from that table). A `note` explains
an outcome shaped by a server quirk, a litellm limitation or a known engine bug.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.errors import ErrorCategory
from engine.model.failures import RetryPolicy
from tests.support.agents import FAST_RETRY

ONE_ATTEMPT = RetryPolicy(max_attempts=1)


@dataclass(frozen=True)
class Prices:
    """USD per token of a model in litellm's bundled price table (LITELLM_LOCAL_MODEL_COST_MAP)."""

    input: float
    output: float
    cache_read: float = 0.0
    cache_write: float = 0.0

    def cost(self, uncached: int, output: int, *, cache_read: int = 0, cache_write: int = 0) -> float:
        return (
            uncached * self.input + output * self.output + cache_read * self.cache_read + cache_write * self.cache_write
        )


HAIKU_4_5 = Prices(input=1e-6, output=5e-6, cache_read=1e-7, cache_write=1.25e-6)
"""anthropic/claude-haiku-4-5 (and its dated name claude-haiku-4-5-20251001)."""
SONNET_4_5 = Prices(input=3e-6, output=1.5e-5, cache_read=3e-7, cache_write=3.75e-6)
"""anthropic/claude-sonnet-4-5-20250929."""


@dataclass(frozen=True)
class Long:
    """A long text, checked by its start, its end and its exact length."""

    start: str
    end: str
    length: int

    def matches(self, text: str) -> bool:
        return text.startswith(self.start) and text.endswith(self.end) and len(text) == self.length


Text = str | Long


@dataclass(frozen=True)
class Call:
    """A tool call the reply must carry; `id=None`: the server sent no usable id, so hive generates a `call_` id."""

    name: str
    arguments: dict[str, Any]
    id: str | None


@dataclass(frozen=True)
class Tokens:
    """Expected usage counts; None means "not reported"."""

    prompt: int | None
    completion: int | None
    cached_read: int | None = None
    cache_write: int | None = None
    reasoning: int | None = None


NOT_REPORTED = Tokens(None, None)


@dataclass(frozen=True)
class Signed:
    """A thinking block whose text is the reply's reasoning and whose signature must be sent back unchanged."""

    signature: Long


@dataclass(frozen=True)
class Redacted:
    """A redacted_thinking block whose opaque data must be sent back unchanged."""

    data: Long


@dataclass(frozen=True)
class Reply:
    """A successful exchange: the `ModelReply` the adapter must assemble from the recorded response."""

    text: Text
    finish: str
    tokens: Tokens
    cost: float | None = None
    """Expected `usage.cost_usd`; None when hive cannot price the model at this endpoint."""
    reasoning: Text = ""
    calls: tuple[Call, ...] = ()
    thinking: tuple[Signed | Redacted, ...] = ()
    note: str = ""
    litellm_tokens: Tokens | None = None
    """What litellm reports instead of ``tokens``, where it fills in counts the server did not send."""
    litellm_unpriced: bool = False
    """litellm replays the recording as an ``openai/`` model at a custom base, which it does not price."""

    def cost_for(self, direct: bool) -> float | None:
        """The cost the client (litellm's, or hive's own when ``direct``) must report."""
        return None if self.litellm_unpriced and not direct else self.cost

    def tokens_for(self, direct: bool) -> Tokens:
        """The counts the client (litellm's, or hive's own when ``direct``) must report."""
        return self.litellm_tokens if self.litellm_tokens is not None and not direct else self.tokens


@dataclass(frozen=True)
class Fails:
    """A failed exchange: the one-line `ProviderError` the adapter must raise."""

    category: ErrorCategory
    message: str
    """The provider's own error message, which the one-line error must contain."""
    status: int | None
    after_output: bool = False
    retry_after_s: float | None = None
    """The wait the provider asked for (Retry-After or "try again in"), if any."""
    attempts: int = 1
    """Recorded exchanges this one call consumes (hive's own retries included)."""
    streamed_reasoning: str = ""
    """Reasoning that streamed before the failure."""
    note: str = ""
    direct_status: int | None = 0
    """The status hive's own client reports, where it is truer than litellm's (0: the same as ``status``)."""

    def status_for(self, direct: bool) -> int | None:
        """The status the client (litellm's, or hive's own when ``direct``) must report."""
        return self.direct_status if direct and self.direct_status != 0 else self.status


Expectation = Reply | Fails


@dataclass(frozen=True)
class Recording:
    """The expectations for every exchange of one file, in order, and the retry policy to replay it with."""

    exchanges: tuple[Expectation, ...]
    retry: RetryPolicy = ONE_ATTEMPT

    @property
    def consumed(self) -> int:
        """How many recorded exchanges replaying these expectations uses up."""
        return sum(e.attempts if isinstance(e, Fails) else 1 for e in self.exchanges)


GEMINI_2_5_FLASH = Prices(input=3e-7, output=2.5e-6)
"""gemini/gemini-2.5-flash."""
AZURE_GPT_4O = Prices(input=2.5e-6, output=1e-5, cache_read=1.25e-6)
"""azure/gpt-4o."""
MISTRAL_LARGE = Prices(input=5e-7, output=1.5e-6)
"""mistral/mistral-large-latest."""
_GEMINI_VIA_OPENAI = "litellm replays it as openai/gemini-2.5-flash at the recording's endpoint: unpriced there"

EXPECTED: dict[str, Recording] = {
    # OpenAI chat completions -------------------------------------------------------------------------------------
    "openai/error_400_unsupported_value.yaml": Recording(
        (Fails("bad_request", "Unsupported value: 'messages[0].role' does not support 'system' with this model.", 400),)
    ),
    "openai/error_401_invalid_api_key.yaml": Recording(
        (
            Fails(
                "auth",
                "Incorrect API key provided: <not-a-r****key>. You can find your API key at"
                " https://platform.openai.com/account/api-keys.",
                401,
            ),
        )
    ),
    "openai/error_404_model_not_found.yaml": Recording(
        (Fails("not_found", "The model `gpt-5.2-proo` does not exist or you do not have access to it.", 404),)
    ),
    "openai/nonstream_parallel_tool_calls.yaml": Recording(
        (
            Reply(
                text="",
                finish="tool_calls",
                tokens=Tokens(207, 46, cached_read=0, reasoning=0),
                calls=(
                    Call("get_weather", {"city": "San Francisco"}, "call_S1xa8vawU2HXSrvSeUcqSCZm"),
                    Call("get_population", {"city": "San Francisco"}, "call_ZfEORmbRGEJZ4b7dAuVSPnaf"),
                ),
            ),
        )
    ),
    "openai/nonstream_tool_call_round_trip.yaml": Recording(
        (
            Reply(
                text="",
                finish="tool_calls",
                tokens=Tokens(68, 12, cached_read=0, reasoning=0),
                calls=(Call("get_user_country", {}, "call_iXFttys57ap0o16JSlC8yhYo"),),
            ),
            Reply(
                text="",
                finish="tool_calls",
                tokens=Tokens(89, 36, cached_read=0, reasoning=0),
                calls=(
                    Call("final_result", {"city": "Mexico City", "country": "Mexico"}, "call_gmD2oUZUzSoCkmNmp3JPUF7R"),
                ),
            ),
        )
    ),
    "openai/nonstream_cached_tokens_second_call.yaml": Recording(
        (
            Reply(
                text="Whispers in the breeze,  \nAutumn leaves dance to the ground,  \nNature's quiet peace.  ",
                finish="stop",
                tokens=Tokens(1370, 22, cached_read=0, reasoning=0),
            ),
            Reply(
                text=Long(
                    "Upon the morning dew, the world doth wake,  \n",
                    "In every moment lies the heart's true dream.",
                    647,
                ),
                finish="stop",
                tokens=Tokens(1370, 155, cached_read=1280, reasoning=0),
            ),
        )
    ),
    "openai/stream_parallel_tool_calls_usage.sse": Recording(
        (
            Reply(
                text="",
                finish="tool_calls",
                tokens=Tokens(149, 60, reasoning=0),
                calls=(
                    Call(
                        "GetWeatherArgs",
                        {"city": "Edinburgh", "country": "GB", "units": "c"},
                        "call_JMW1whyEaYG438VE1OIflxA2",
                    ),
                    Call("get_stock_price", {"ticker": "AAPL", "exchange": "NASDAQ"}, "call_DNYTawLBoN8fj3KN6qU9N1Ou"),
                ),
            ),
        )
    ),
    "openai/stream_single_tool_call_usage.sse": Recording(
        (
            Reply(
                text="",
                finish="tool_calls",
                tokens=Tokens(44, 16, reasoning=0),
                calls=(Call("get_weather", {"city": "New York City"}, "call_4XzlGBLtUe9dy3GVNV4jhq7h"),),
            ),
        )
    ),
    "openai/stream_parallel_tool_calls_agent_loop.yaml": Recording(
        (
            Reply(
                text="",
                finish="tool_calls",
                tokens=Tokens(364, 40, cached_read=0, reasoning=0),
                calls=(
                    Call("get_country", {}, "call_q2UyBRP7eXNTzAoR8lEhjc9Z"),
                    Call("get_product_name", {}, "call_b51ijcpFkDiTQG1bQzsrmtW5"),
                ),
            ),
            Reply(
                text="",
                finish="tool_calls",
                tokens=Tokens(423, 15, cached_read=0, reasoning=0),
                calls=(Call("get_weather", {"city": "Mexico City"}, "call_LwxJUB9KppVyogRRLQsamRJv"),),
            ),
            Reply(
                text="",
                finish="tool_calls",
                tokens=Tokens(448, 62, cached_read=0, reasoning=0),
                calls=(
                    Call(
                        "final_result",
                        {
                            "answers": [
                                {"label": "Capital", "answer": "The capital of Mexico is Mexico City."},
                                {"label": "Weather", "answer": "The weather in Mexico City is currently sunny."},
                                {"label": "Product Name", "answer": "The product name is Pydantic AI."},
                            ]
                        },
                        "call_CCGIWaMeYWmxOQ91orkmTvzn",
                    ),
                ),
            ),
        )
    ),
    "openai/stream_text_cached_prompt_tokens.yaml": Recording(
        (
            Reply(
                text=Long(
                    "Structuring a database schema effectively is crucial for ensuring data integrity",
                    "For example, in an e-commerce application, entities might",
                    529,
                ),
                finish="length",
                tokens=Tokens(1420, 100, cached_read=1280, reasoning=0),
            ),
        )
    ),
    "openai/stream_tool_call_then_answer_include_usage.yaml": Recording(
        (
            Reply(
                text="",
                finish="tool_calls",
                tokens=Tokens(53, 15, cached_read=0, reasoning=0),
                calls=(Call("get_capital", {"country": "UK"}, "call_ZR5UUuTt3pf61kjwAJIYdVMj"),),
            ),
            Reply(
                text="The capital of the UK is London.", finish="stop", tokens=Tokens(78, 9, cached_read=0, reasoning=0)
            ),
        )
    ),
    # OpenAI-compatible servers ----------------------------------------------------------------------------------
    "openai_compatible/ollama_local_nonstream_structured_output.yaml": Recording(
        (
            Reply(
                text='{ "city": "Paris", "country": "France" }',
                reasoning=Long(
                    "Okay, the user is asking for the capital of France.",
                    "Yep, I'm confident the answer is Paris.\n",
                    508,
                ),
                finish="stop",
                tokens=Tokens(136, 15),
            ),
        )
    ),
    "openai_compatible/ollama_cloud_nonstream_tool_calls.yaml": Recording(
        (
            Reply(
                text="Paris.",
                reasoning=Long('We need to answer question: "What is the capital of France?"', "Just plain text.", 490),
                finish="stop",
                tokens=Tokens(134, 122),
            ),
            Reply(
                text="",
                reasoning=Long('The conversation: user asked "What is the capital of France?', "Let's do that.", 763),
                finish="tool_calls",
                tokens=Tokens(206, 194),
                calls=(Call("final_result", {"city": "Paris", "country": "France"}, "call_o2vnpxrw"),),
            ),
        )
    ),
    "openai_compatible/vllm_local_nonstream.yaml": Recording(
        (
            Reply(
                text=(
                    'Why did the OpenTelemetry metric go to therapy?\n\nBecause it was feeling a little "trapped" in'
                    ' its logging function, and wanted to "release" its stress.'
                ),
                finish="stop",
                tokens=Tokens(43, 36),
            ),
        )
    ),
    "openai_compatible/gemini_openai_compat_tool_call_empty_id.yaml": Recording(
        (
            Reply(
                text="",
                finish="tool_calls",
                tokens=Tokens(35, 12),
                calls=(Call("get_current_time", {}, None),),
                note='the server sent id "": hive generates a call_ id',
            ),
            Reply(text="The current time is Noon.", finish="stop", tokens=Tokens(66, 6)),
        )
    ),
    "openai_compatible/openrouter_error_429_upstream_rate_limited.yaml": Recording(
        (
            Fails(
                "rate_limit",
                "Provider returned error",
                429,
                attempts=3,
                note="no Retry-After header and no 'try again in' text: hive backs off (tiny delays here), then gives up",
            ),
        ),
        retry=FAST_RETRY,
    ),
    "openai_compatible/openrouter_stream_tool_call_kimi_k2.yaml": Recording(
        (
            Reply(
                text="",
                finish="tool_calls",
                tokens=Tokens(57, 17, cached_read=0, reasoning=0),
                calls=(Call("llm_version", {}, "0"),),
                note=(
                    "no chunk has a finish_reason: litellm raises MidStreamFallbackError at the end of the stream, which"
                    " hive accepts ([DONE] came); litellm holds back the chunk carrying usage (it has an empty delta),"
                    " but hive reads the usage as the server sent it off the wire"
                ),
            ),
            Reply(
                text="The current version of *llm* is **0.fixed-version**.",
                finish="stop",
                tokens=Tokens(107, 15, cached_read=0, reasoning=0),
            ),
        )
    ),
    "openai_compatible/groq_stream_error_event_midstream.yaml": Recording(
        (
            Fails(
                "transient",
                "Tool call validation failed: tool call validation failed: parameters for tool get_something_by_name"
                " did not match schema: errors: [missing properties: 'name', additionalProperties 'invalid_param' not"
                " allowed]",
                500,
                after_output=True,
                streamed_reasoning=(
                    "We need to call the tool with invalid parameters first, then second call with valid args. The user"
                    " wants us to test error handling. So first call should have wrong parameters (e.g., missing"
                    ' required "name" or extra param). The tool expects only "name". If we send extra property, that'
                    ' might cause error. Or missing "name". We\'ll do a call with missing name: {}. Then second call'
                    ' with name: "test". Let\'s do that.'
                ),
                direct_status=400,  # hive's own client reports the event's own code
                note=(
                    "`event: error` inside a 200 stream, after reasoning streamed: litellm raises MidStreamFallbackError"
                    " (status 500, not the event's 400) and hive does not retry because output was shown"
                ),
            ),
            Reply(
                text="",
                reasoning='We need to call the function with correct parameter "name". Provide a name, e.g., "example".',
                finish="tool_calls",
                tokens=Tokens(304, 49, reasoning=23),
                calls=(Call("get_something_by_name", {"name": "example"}, "fc_bfb39741-3748-4def-9886-a93fc9c64a90"),),
                note="Groq sends usage only under x_groq.usage in the finish chunk; litellm reads it from there",
            ),
            Reply(
                text="The tool returned the expected result for the valid call.",
                reasoning=(
                    "The user wants to test error handling by calling tool with non-existent parameters first (we did)"
                    " and then second try with valid args. We have succeeded. Now respond concisely."
                ),
                finish="stop",
                tokens=Tokens(339, 58, reasoning=38),
            ),
        )
    ),
    "openai_compatible/deepseek_stream_reasoning_content.yaml": Recording(
        (
            Reply(
                text="The product of 17 and 23 is 391.",
                reasoning=(
                    'We are asked: "What is 17 * 23?" This is a simple multiplication. 17 * 23 = 391.'
                    " I'll provide the answer."
                ),
                finish="stop",
                tokens=Tokens(17, 47, cached_read=0, reasoning=34),
            ),
        )
    ),
    # Anthropic /v1/messages ------------------------------------------------------------------------------------
    "anthropic/error_400_invalid_request.yaml": Recording(
        (Fails("bad_request", "messages.0: Input does not match the expected shape.", 400),)
    ),
    "anthropic/error_400_with_request_id.yaml": Recording(
        (
            Fails(
                "bad_request",
                "This model does not support effort level 'xhigh'. Supported levels: high, low, max, medium.",
                400,
            ),
        )
    ),
    "anthropic/error_401_authentication.yaml": Recording((Fails("auth", "invalid x-api-key", 401),)),
    "anthropic/error_404_model_not_found.yaml": Recording((Fails("not_found", "model: claude-sonet-4-5", 404),)),
    "anthropic/nonstream_parallel_tool_use.yaml": Recording(
        (
            Reply(
                text=(
                    "I'll help you find out who is the youngest by retrieving information about each family member."
                    " I'll retrieve their entity information to compare their ages."
                ),
                finish="tool_calls",
                tokens=Tokens(423, 202, cached_read=0, cache_write=0, reasoning=0),
                cost=HAIKU_4_5.cost(423, 202),
                calls=(
                    Call("retrieve_entity_info", {"name": "Alice"}, "toolu_0167cfEnoQaPviGdVXA95zcu"),
                    Call("retrieve_entity_info", {"name": "Bob"}, "toolu_01EEe2V5HD1Ac4rKiUR4HD2T"),
                    Call("retrieve_entity_info", {"name": "Charlie"}, "toolu_01XFyAjstT3966qvRynZyVPo"),
                    Call("retrieve_entity_info", {"name": "Daisy"}, "toolu_013mnQZbgtK2oe3Mo3XKJsx3"),
                ),
            ),
            Reply(
                text=Long(
                    "Based on the retrieved information, we can see the family relationships:\n- Alice and Bob are married",
                    "which indicates she is the youngest among the four family members.",
                    340,
                ),
                finish="stop",
                tokens=Tokens(771, 77, cached_read=0, cache_write=0, reasoning=0),
                cost=HAIKU_4_5.cost(771, 77),
            ),
        )
    ),
    "anthropic/nonstream_cache_write_then_read.yaml": Recording(
        (
            Reply(
                text=Long(
                    '# Major Themes in "Pride and Prejudice"\n\n## Pride and Prejudice\nThe title themes',
                    "while telling an engaging love story that continues to resonate with readers today.",
                    2611,
                ),
                finish="stop",
                tokens=Tokens(21 + 1733, 561, cached_read=0, cache_write=1733, reasoning=0),
                note="claude-3-7-sonnet-20250219 is not in litellm's price table",
            ),
            Reply(
                text=Long(
                    '# Major Themes in "Pride and Prejudice"\n\n## Pride and Prejudice\nThe novel\'s title',
                    "a rich social commentary that remains relevant beyond its Regency-era setting.",
                    2681,
                ),
                finish="stop",
                tokens=Tokens(21 + 1733, 568, cached_read=1733, cache_write=0, reasoning=0),
            ),
        )
    ),
    "anthropic/stream_text_then_two_tool_use.yaml": Recording(
        (
            Reply(
                text=(
                    "Certainly! I can help you with that information. To get the weather and current time in San"
                    " Francisco, I'll need to use two separate functions. Let me fetch that data for you."
                ),
                finish="tool_calls",
                tokens=Tokens(506, 153, cached_read=0, cache_write=0, reasoning=0),
                calls=(
                    Call(
                        "get_weather",
                        {"location": "San Francisco, CA", "unit": "celsius"},
                        "toolu_014x5X91kx3fvdhpLvwXZWE2",
                    ),
                    Call("get_time", {"timezone": "America/Los_Angeles"}, "toolu_0121kXsENLvoDZ72LCuAnCCz"),
                ),
                note="claude-3-5-sonnet-20240620 is retired from litellm's price table",
            ),
        )
    ),
    "anthropic/stream_parallel_tool_use.yaml": Recording(
        (
            Reply(
                text="",
                finish="tool_calls",
                tokens=Tokens(608, 94, cached_read=0, cache_write=0, reasoning=0),
                cost=HAIKU_4_5.cost(608, 94),
                calls=(
                    Call("favorite_color", {"_person": "Joe"}, "toolu_012gbTrV1LahNLtHdAwDnKPV"),
                    Call("favorite_color", {"_person": "Hadley"}, "toolu_016MfNFkQMqGdzDjXqKSAo6G"),
                ),
                note="message_delta repeats input_tokens 608: counted once",
            ),
            Reply(
                text="Joe: sage green, Hadley: red",
                finish="stop",
                tokens=Tokens(766, 13, cached_read=0, cache_write=0, reasoning=0),
                cost=HAIKU_4_5.cost(766, 13),
            ),
        )
    ),
    "anthropic/stream_tool_use_empty_input_gzip.yaml": Recording(
        (
            Reply(
                text="",
                finish="tool_calls",
                tokens=Tokens(543, 40, cached_read=0, cache_write=0, reasoning=0),
                cost=HAIKU_4_5.cost(543, 40),
                calls=(Call("pelican_name_generator", {}, "toolu_01CzN6riCPqw4pVSuTd9Dwn7"),),
            ),
        )
    ),
    "anthropic/stream_thinking_then_text.yaml": Recording(
        (
            Reply(
                text="The letter 'r' appears 3 times in the word \"strawberry\".",
                reasoning=Long(
                    "Let me count the occurrences of the letter 'r' in the word \"strawberry\".\n\n",
                    "So the letter 'r' appears 3 times in the word \"strawberry\".",
                    422,
                ),
                finish="stop",
                tokens=Tokens(52, 216, cached_read=0, cache_write=0, reasoning=None),
                thinking=(Signed(Long("ErUBCkYIARgCIkCe", "IJKnul7nuNx8Yg==", 248)),),
                note="no thinking_tokens on the wire (2025 format): the reasoning tokens are not reported",
            ),
        )
    ),
    "anthropic/stream_thinking_then_text_gzip.yaml": Recording(
        (
            Reply(
                text='1. **Pouch** - references their iconic bill pouch\n2. **Pelé** - playful take on "pelican"',
                reasoning=Long(
                    "The user wants two names for a pet pelican, and they want me to be brief.",
                    "Let me give two brief, catchy names:",
                    289,
                ),
                finish="stop",
                tokens=Tokens(46, 133, cached_read=0, cache_write=0, reasoning=None),
                note="no thinking_tokens on the wire: the reasoning tokens are not reported",
                cost=HAIKU_4_5.cost(46, 133),
                thinking=(Signed(Long("EuYDCmMIDBgCKkC0", "BeGcEZQ4FjZiGAE=", 656)),),
            ),
        )
    ),
    "anthropic/stream_thinking_tool_use_round_trip.yaml": Recording(
        (
            Reply(
                text="",
                reasoning=(
                    "The user wants me to:\n1. Use the fixed_version tool\n2. Tell them the version\n3. Make a short"
                    " joke about it\n\nLet me first call the fixed_version tool to see what version it returns."
                ),
                finish="tool_calls",
                tokens=Tokens(598, 92, cached_read=0, cache_write=0, reasoning=53),
                cost=HAIKU_4_5.cost(598, 92),
                calls=(Call("fixed_version", {}, "toolu_01825dXWLSoJwCst1qTsiWdb"),),
                thinking=(Signed(Long("EoQDCm0IDhgCKkCD", "VGhhANWRjSBwUxgB", 524)),),
            ),
            Reply(
                text=Long(
                    "The version is **0.32a0**.\n\nHere's a joke about it: \n\n",
                    "which means it's far from 1.0, so plenty of room to grow!)",
                    277,
                ),
                finish="stop",
                tokens=Tokens(707, 89, cached_read=0, cache_write=0, reasoning=0),
                cost=HAIKU_4_5.cost(707, 89),
            ),
        )
    ),
    "anthropic/stream_redacted_thinking.yaml": Recording(
        (
            Reply(
                text=Long(
                    "I notice that you've sent what appears to be some kind of test string or command.",
                    "How can I assist you today with a legitimate task or question?",
                    359,
                ),
                finish="stop",
                tokens=Tokens(92, 189, cached_read=0, cache_write=0, reasoning=None),
                note="the wire has no thinking count, so the reasoning tokens are not reported (None), not 0",
                cost=SONNET_4_5.cost(92, 189),
                thinking=(
                    Redacted(Long("EqkECkYIBxgCKkA8", "ot45vnBd4ewJ/hgB", 744)),
                    Redacted(Long("EtgBCkYIBxgCKkDQ", "DBV3yRYdZ1J0GAE=", 296)),
                ),
            ),
        )
    ),
    "anthropic/stream_cache_write_then_read.yaml": Recording(
        (
            Reply(
                text=Long(
                    "Here are concise summaries of the three articles:\n\n1. OpenLLMetry:",
                    "unit testing is a professional responsibility with long-term payoffs.",
                    913,
                ),
                finish="stop",
                tokens=Tokens(4 + 1165, 201, cached_read=0, cache_write=1165, reasoning=0),
            ),
            Reply(
                text=Long(
                    "Here are concise summaries of the three articles:\n\n1. OpenLLMetry:",
                    "crucial for professional software development and pays off in the long run.",
                    1016,
                ),
                finish="stop",
                tokens=Tokens(4 + 1165, 221, cached_read=1165, cache_write=0, reasoning=0),
            ),
        )
    ),
    "anthropic/stream_cache_read_stop_max_tokens.yaml": Recording(
        (
            Reply(
                text=Long(
                    "A **system** is an organized collection of interconnected components",
                    "- **Environment**: The external context in",
                    496,
                ),
                finish="length",
                tokens=Tokens(11 + 1031, 100, cached_read=1031, cache_write=0, reasoning=0),
                cost=None,
                note="litellm's table lists anthropic/claude-sonnet-4-20250514 at zero, a gap for a paid model: not priced",
            ),
        )
    ),
    # Gemini (its OpenAI-compatible endpoint), Azure OpenAI, Mistral: written from the providers' documentation
    # examples (tests/fixtures/provider_cassettes/SOURCES.md) -----------------------------------------------------
    "gemini/stream_text.yaml": Recording(
        (
            Reply(
                text="AI works by learning patterns from large amounts of data, then using those patterns to make"
                " predictions.",
                finish="stop",
                tokens=Tokens(13, 19),
                cost=GEMINI_2_5_FLASH.cost(13, 19),
                litellm_unpriced=True,
                note=_GEMINI_VIA_OPENAI,
            ),
        )
    ),
    "gemini/stream_tool_call_thought_signature.yaml": Recording(
        (
            Reply(
                text="",
                finish="tool_calls",
                tokens=Tokens(72, 18),
                calls=(Call("get_weather", {"location": "Chicago, IL"}, None),),
                cost=GEMINI_2_5_FLASH.cost(72, 18),
                litellm_unpriced=True,
                note='the whole call in one chunk, id "": hive generates a call_ id',
            ),
            Reply(
                text="It is sunny in Chicago today, at 24 °C.",
                finish="stop",
                tokens=Tokens(110, 14),
                cost=GEMINI_2_5_FLASH.cost(110, 14),
                litellm_unpriced=True,
            ),
        )
    ),
    "gemini/error_429_resource_exhausted.yaml": Recording(
        (
            Fails(
                "rate_limit",
                "You exceeded your current quota, please check your plan and billing details. For more information on"
                " this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.",
                429,
                note="Gemini's error body is a JSON list holding the error object; RESOURCE_EXHAUSTED: a rate limit,"
                " although its words are OpenAI's for an account out of credit",
            ),
        )
    ),
    "azure/stream_text_content_filter.yaml": Recording(
        (
            Reply(
                text="Yes, Azure OpenAI supports customer managed keys.",
                finish="stop",
                tokens=Tokens(29, 8, cached_read=0, reasoning=0),
                cost=AZURE_GPT_4O.cost(29, 8),
                note="a first chunk with no choices, only prompt_filter_results; content_filter_results on each choice",
            ),
        )
    ),
    "azure/stream_tool_call.yaml": Recording(
        (
            Reply(
                text="",
                finish="tool_calls",
                tokens=Tokens(81, 17, cached_read=0, reasoning=0),
                calls=(Call("get_current_weather", {"location": "San Francisco"}, "call_fNyYy1Yp8aWdEwqYQ8Rt1NLt"),),
                cost=AZURE_GPT_4O.cost(81, 17),
            ),
        )
    ),
    "azure/error_401_access_denied.yaml": Recording(
        (
            Fails(
                "auth",
                "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid"
                " key for an active subscription and use a correct regional API endpoint for your resource.",
                401,
            ),
        )
    ),
    "mistral/stream_text.yaml": Recording(
        (
            Reply(
                text="There are many excellent French cheeses; Comté is a favourite.",
                finish="stop",
                tokens=Tokens(10, 15),
                litellm_tokens=Tokens(10, 15, reasoning=0),
                cost=MISTRAL_LARGE.cost(10, 15),
                note="usage comes in the last chunk, with the finish_reason, unasked; litellm says 0 reasoning tokens",
            ),
        )
    ),
    "mistral/stream_tool_call_round_trip.yaml": Recording(
        (
            Reply(
                text="",
                finish="tool_calls",
                tokens=Tokens(92, 25),
                calls=(Call("retrieve_payment_status", {"transaction_id": "T1001"}, "D681PevKs"),),
                cost=MISTRAL_LARGE.cost(92, 25),
            ),
            Reply(
                text='The status of your transaction T1001 is "Paid".',
                finish="stop",
                tokens=Tokens(137, 13),
                litellm_tokens=Tokens(137, 13, reasoning=0),
                cost=MISTRAL_LARGE.cost(137, 13),
            ),
        )
    ),
    "mistral/error_401_unauthorized.yaml": Recording((Fails("auth", "Unauthorized", 401),)),
}
