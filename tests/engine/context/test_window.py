"""The context window: the setting, else litellm's model info, else a conservative guess."""

from __future__ import annotations

import subprocess
import sys

from engine.context.window import GUESSED_WINDOW, Windows, breakdown, percent_used, window_for
from engine.model import litellm_import
from engine.skills.selection import SECTION_HEADER
from engine.tools.builtin import builtin_tools
from engine.tools.todo import TodoStore


def test_a_known_models_window_comes_from_litellms_model_info() -> None:
    litellm_import.load()
    window = window_for("openai/gpt-4o")
    assert (window.tokens, window.source, window.known) == (128_000, "model info", True)
    assert percent_used("openai/gpt-4o", 64_000, window) == 50


def test_the_setting_overrides_the_model_info() -> None:
    window = window_for("openai/gpt-4o", 16_000)
    assert (window.tokens, window.source) == (16_000, "setting")
    assert percent_used("openai/gpt-4o", 4_000, window) == 25


def test_an_unknown_model_gets_a_conservative_guess_that_defers_compaction() -> None:
    litellm_import.load()
    window = window_for("openai/some-local-model")
    assert (window.tokens, window.source, window.known) == (GUESSED_WINDOW, "guess", False)
    assert percent_used("openai/some-local-model", 1_000, window) is None
    assert window_for("openai/some-local-model", 8_192).known


def test_the_guess_is_a_setting_and_stays_a_guess() -> None:
    windows = Windows(guess=8_192)
    window = windows.of("openai/some-local-model-nobody-lists")
    assert (window.tokens, window.source, window.known) == (8_192, "guess", False)
    assert Windows(4_096, guess=8_192).of("openai/some-local-model-nobody-lists").source == "setting"


def test_the_breakdown_counts_each_part_against_the_configured_window() -> None:
    litellm_import.load()
    tools = [tool.spec for tool in builtin_tools(TodoStore())]
    view = [{"role": "user", "content": "hello there"}, {"role": "assistant", "content": "Hi! How can I help?"}]
    context = breakdown("openai/gpt-4o", "You are hive.", tools, view, window_for("openai/gpt-4o", 10_000))
    rows = dict(context.rows)
    assert context.exact and context.window.source == "setting"
    assert rows["your messages"] == 3 + 2 and rows["tool definitions"] > 200
    assert context.percent == 100 * context.total / 10_000


def test_without_litellm_loaded_the_window_comes_from_its_table_read_as_data() -> None:
    probe = (
        "import sys; from engine.context.window import window_for; "
        "w = window_for('anthropic/claude-haiku-4-5'); print(w.tokens, w.known, 'litellm' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60)
    tokens, known, imported = done.stdout.split()
    assert int(tokens) >= 100_000 and known == "True" and imported == "False"


def test_a_window_a_provider_named_in_an_overflow_wins_from_then_on() -> None:
    windows = Windows(configured=200_000)
    assert windows.of("openai/local").source == "setting"
    learned = windows.learn("openai/local", 8_192)
    assert (learned.tokens, learned.known) == (8_192, True)
    assert windows.of("openai/local") == learned and windows.of("openai/other").tokens == 200_000
    assert Windows(configured=200_000).of("openai/local").source == "setting"  # learned by one agent only


def test_the_breakdown_counts_the_skills_section_apart_and_what_is_free() -> None:
    skills = f"{SECTION_HEADER}\n\n- review: Review a change for bugs."
    instructions = f"You are hive.\n\n{skills}\n\n# Memory\n\nThe user prefers pytest."
    context = breakdown("openai/gpt-4o", instructions, [], [], window_for("openai/gpt-4o", 10_000))
    rows = dict(context.rows)
    assert rows["skills section"] > 40 and rows["system prompt"] > 5
    assert rows["system prompt"] + rows["skills section"] >= context.total - 10
    assert context.free == 10_000 - context.total
    plain = breakdown("openai/gpt-4o", "You are hive.", [], [], window_for("openai/gpt-4o", 10_000))
    assert dict(plain.rows)["skills section"] == 0
