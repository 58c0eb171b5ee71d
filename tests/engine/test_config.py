"""One configuration loader: settings files, environment and flags merged once, every default in one place."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.config.defaults import DEFAULT_MAX_TURNS, DEFAULT_REQUEST_TIMEOUT_S
from engine.config.loader import Overrides, SessionConfig, load_config
from engine.config.settings import SettingsFile
from engine.errors import ConfigError
from engine.model.litellm_client import ModelSettings
from engine.run.loop import LoopOptions
from tests.support.trust import trust

MODEL = Overrides(model="openai/test-model")


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def project_settings(cwd: Path, text: str) -> Path:
    return write(cwd / ".ironhive" / "settings.yaml", text)


def user_settings(home: Path, text: str) -> Path:
    return write(home / "config" / "settings.yaml", text)


def test_with_no_files_every_value_is_the_single_default(tmp_path: Path) -> None:
    config = load_config(tmp_path, MODEL)
    assert (config.max_turns, config.request_timeout_s, config.mode) == (
        DEFAULT_MAX_TURNS,
        DEFAULT_REQUEST_TIMEOUT_S,
        "work",
    )
    assert LoopOptions().max_turns == SettingsFile().max_turns == DEFAULT_MAX_TURNS
    assert ModelSettings(model="m").timeout_s == SettingsFile().request_timeout == DEFAULT_REQUEST_TIMEOUT_S
    assert config.context.compact_at == 0.92 and config.delegation.max_depth == 2 and config.advisor.max_calls == 5
    assert config.research.sufficiency_threshold == 0.7 and config.research.min_sources_before_report == 5
    assert config.permissions.uses_defaults and config.sources == ()


def test_the_mode_key_is_used_and_the_flag_wins_over_it(tmp_path: Path) -> None:
    project_settings(tmp_path, "mode: plan\n")
    assert load_config(tmp_path, MODEL).mode == "plan"
    assert load_config(tmp_path, Overrides(model="m", mode="work")).mode == "work"


def test_flags_beat_the_project_which_beats_the_user_key_by_key_inside_sections(
    tmp_path: Path, isolated_hive: Path
) -> None:
    user_settings(
        isolated_hive,
        "max_turns: 9\nrequest_timeout: 30\ncontext:\n  compact_at: 0.5\n  context_window: 1000\n"
        "delegation:\n  max_depth: 4\nadvisor:\n  model: anthropic/strong\n",
    )
    project_settings(tmp_path, "max_turns: 7\ncontext:\n  compact_at: 0.8\ndelegation:\n  max_concurrency: 2\n")
    trust(tmp_path)
    config = load_config(tmp_path, MODEL)
    assert (config.max_turns, config.request_timeout_s) == (7, 30)
    assert (config.context.compact_at, config.context.context_window) == (0.8, 1000)
    assert (config.delegation.max_depth, config.delegation.max_concurrency) == (4, 2)
    assert config.advisor.model == "anthropic/strong"
    assert load_config(tmp_path, Overrides(model="m", max_turns=3)).max_turns == 3
    assert len(config.sources) == 2


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("mcp:\n  startup_timout: 5\n", "settings.yaml:2: mcp.startup_timout: unknown key"),
        (
            "webhooks:\n  endpoints:\n    - url: ftp://x\n",
            "settings.yaml:3: webhooks.endpoints.0: 'ftp://x' is not a URL",
        ),
        ("mode: dance\n", "settings.yaml:1: mode: should be 'plan' or 'work', not 'dance'"),
        ("research:\n  depth: bottomless\n", "settings.yaml:2: research.depth"),
        ("checkpoints:\n  enabled: maybe\n", "settings.yaml:2: checkpoints.enabled"),
        ("memory:\n  path: notes.db\n", "settings.yaml:1: memory: path: must be an absolute path"),
        ("sandbox:\n  network: often\n", "settings.yaml:2: sandbox.network: should be true or false"),
    ],
)
def test_a_bad_key_or_value_in_any_section_is_an_error_naming_the_file_and_line(
    tmp_path: Path, text: str, expected: str
) -> None:
    project_settings(tmp_path, text)
    with pytest.raises(ConfigError, match=expected.replace(".", r"\.")):
        load_config(tmp_path, MODEL)


def test_values_read_as_the_types_they_stand_for(tmp_path: Path) -> None:
    project_settings(
        tmp_path, "memory:\n  path: ~/notes.db\nsandbox: read-only\ntool_retrieval:\n  always_include: [a, b]\n"
    )
    trust(tmp_path)
    config = load_config(tmp_path, MODEL)
    assert config.memory.path == Path("~/notes.db")
    assert config.sandbox.mode == "read-only"
    assert config.tool_retrieval.always_include == ("a", "b")


def test_a_broken_permissions_file_fails_the_load_instead_of_falling_back(tmp_path: Path) -> None:
    write(tmp_path / ".ironhive" / "permissions.yaml", "permissions:\n  bash: [{pattern: 'x', action: maybe}]\n")
    with pytest.raises(ConfigError, match="permissions.yaml"):
        load_config(tmp_path, MODEL)


def test_the_config_is_frozen(tmp_path: Path) -> None:
    config = load_config(tmp_path, MODEL)
    with pytest.raises(AttributeError):
        config.max_turns = 3  # type: ignore[misc]
    assert isinstance(config, SessionConfig)


def test_errors_speak_of_mappings_and_point_to_where_a_misplaced_key_belongs(tmp_path: Path) -> None:
    project_settings(tmp_path, "mcp_servers:\n  docs: {}\ncontext: 3\n")
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path, MODEL)
    message = str(caught.value)
    assert "settings.yaml:1: mcp_servers: MCP servers are not settings: they go in .ironhive/plugins.yaml" in message
    assert "settings.yaml:3: context: should be a mapping" in message
    assert "Options" not in message and "instance of" not in message
