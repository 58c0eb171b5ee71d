"""Token counting: litellm's tokenizer, the bundled cl100k_base before litellm loads, each message counted once."""

from __future__ import annotations

import subprocess
import sys

from engine.context.bundled_tokenizer import cl100k_counter
from engine.context.tokens import MESSAGE_OVERHEAD, REPLY_PRIMING, TokenCounter
from engine.model import litellm_import
from tests.support.cli import hive_env


def loaded_counter(model: str = "openai/gpt-4o") -> TokenCounter:
    litellm_import.load()
    return TokenCounter(model)


def test_text_is_counted_with_the_models_tokenizer_offline() -> None:
    counter = loaded_counter()
    assert counter.exact
    assert counter.text("hello world") == 2
    assert counter.text("") == 0


def test_a_message_costs_its_content_plus_the_chat_overhead() -> None:
    counter = loaded_counter()
    message = {"role": "user", "content": "hello world"}
    assert counter.message(message) == MESSAGE_OVERHEAD + 2
    assert counter.request([message]) == MESSAGE_OVERHEAD + 2 + REPLY_PRIMING


def test_tool_calls_and_tool_definitions_are_counted() -> None:
    counter = loaded_counter()
    call = {"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": '{"path": "src/a.py"}'}}
    bare = counter.message({"role": "assistant", "content": None})
    assert counter.message({"role": "assistant", "content": None, "tool_calls": [call]}) > bare + 5
    tool = {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object"}}}
    assert counter.tools([tool]) > 5 and counter.tools([]) == 0


def test_a_history_is_counted_once_and_then_only_its_new_messages() -> None:
    counter = loaded_counter()
    history = [{"role": "tool", "tool_call_id": f"c{i}", "content": f"line {i}\n" * 200} for i in range(50)]
    first = counter.messages(history)
    assert counter.counted == 50
    history.append({"role": "user", "content": "and now?"})
    assert counter.messages(history) == first + counter.message(history[-1])
    assert counter.counted == 51


def test_a_changed_message_is_counted_again() -> None:
    counter = loaded_counter()
    short = counter.message({"role": "user", "content": "one"})
    longer = counter.message({"role": "user", "content": "one two three four five"})
    assert longer > short and counter.counted == 2


def test_before_litellm_is_loaded_the_bundled_cl100k_file_counts_without_importing_it() -> None:
    script = (
        "import sys\n"
        "from engine.context.tokens import TokenCounter\n"
        "c = TokenCounter('openai/gpt-4o')\n"
        "print(c.exact, c.source, c.text('hello world'), 'litellm' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], env=hive_env(), capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["True", "cl100k_base", "2", "False"]


def test_counts_agree_with_litellms_tokenizer_once_it_is_loaded() -> None:
    text = "def load_config(path: str) -> dict:\n    return yaml.safe_load(open(path)) or {}\n"
    bundled = cl100k_counter()
    assert bundled is not None
    counter = loaded_counter()
    assert counter.source == "litellm" and counter.text(text) == bundled(text)
