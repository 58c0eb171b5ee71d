"""Settings files and model resolution: flag > environment > project > user > local server."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from msgspec import Struct

from engine.config.settings import load_settings
from engine.config.validation import convert
from engine.errors import ConfigError, UserError
from engine.model.resolve import NO_KEY, resolve_model
from tests.support.llm_server import LLMServer
from tests.support.trust import trust


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def resolve(cwd: Path, flag: str | None = None) -> str:
    return resolve_model(flag_model=flag, flag_api_base=None, flag_api_key=None, settings=load_settings(cwd)).model


def test_each_source_of_the_model_wins_over_the_ones_below_it(
    tmp_path: Path, isolated_hive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(isolated_hive / "config" / "settings.yaml", "model: user/model\n")
    assert resolve(tmp_path) == "user/model"
    write(tmp_path / ".ironhive" / "settings.yaml", "model: project/model\n")
    assert resolve(tmp_path) == "user/model"  # an untrusted project does not choose the model
    trust(tmp_path)
    assert resolve(tmp_path) == "project/model"
    monkeypatch.setenv("HIVE_MODEL", "env/model")
    assert resolve(tmp_path) == "env/model"
    assert resolve(tmp_path, flag="flag/model") == "flag/model"


def test_project_settings_are_found_from_a_subfolder_of_the_repository(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    write(tmp_path / ".ironhive" / "settings.yaml", "model: project/model\nmax_turns: 7\n")
    sub = tmp_path / "a" / "b"
    sub.mkdir(parents=True)
    trust(tmp_path)
    settings = load_settings(sub)
    assert settings.get("max_turns") == 7
    assert resolve(sub) == "project/model"


def test_an_api_key_is_read_from_the_variable_a_settings_file_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path / ".ironhive" / "settings.yaml", "model: openai/gpt-4o\napi_key_env: MY_GATEWAY_KEY\n")
    trust(tmp_path)
    monkeypatch.setenv("MY_GATEWAY_KEY", "sk-from-env")
    choice = resolve_model(flag_model=None, flag_api_base=None, flag_api_key=None, settings=load_settings(tmp_path))
    assert choice.api_key == "sk-from-env"


def test_a_custom_api_base_without_a_key_gets_a_placeholder_key(tmp_path: Path) -> None:
    choice = resolve_model(
        flag_model="openai/local",
        flag_api_base="http://127.0.0.1:9/v1",
        flag_api_key=None,
        settings=load_settings(tmp_path),
    )
    assert choice.api_key == NO_KEY


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("model: x\nlimits: [unclosed\n", ":3: invalid YAML"),
        ("model: x\nmax_turns: many\n", ":2: max_turns: should be an integer, not a string"),
        ("limits:\n  max_cost: 3\n", ":2: limits.max_cost: unknown key"),
        ("- just\n- a list\n", "(top level)"),
    ],
)
def test_a_broken_settings_file_is_an_error_naming_file_and_line(tmp_path: Path, text: str, expected: str) -> None:
    path = write(tmp_path / ".ironhive" / "settings.yaml", text)
    with pytest.raises(ConfigError) as caught:
        load_settings(tmp_path)
    assert str(path) in str(caught.value)
    assert expected in str(caught.value)


def test_an_empty_settings_file_is_fine(tmp_path: Path) -> None:
    write(tmp_path / ".ironhive" / "settings.yaml", "# nothing yet\n")
    assert load_settings(tmp_path).get("model") is None


def test_with_nothing_configured_a_local_server_is_used(
    tmp_path: Path, llm_server: LLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HIVE_LOCAL_SERVERS", f"http://127.0.0.1:9/v1, {llm_server.base_url}")
    choice = resolve_model(flag_model=None, flag_api_base=None, flag_api_key=None, settings=load_settings(tmp_path))
    assert (choice.model, choice.api_base) == ("openai/test-model", llm_server.base_url)
    assert choice.source.startswith("local server")


def test_with_nothing_configured_and_no_server_the_error_explains_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(UserError) as caught:
        resolve_model(flag_model=None, flag_api_base=None, flag_api_key=None, settings=load_settings(tmp_path))
    assert caught.value.exit_code == 2
    assert "HIVE_MODEL" in str(caught.value) and "ollama" in str(caught.value)


def test_the_defaults_of_every_section_are_what_an_empty_section_reads_as() -> None:
    from engine.config.settings import SettingsFile

    assert SettingsFile() == convert({}, SettingsFile)
    for name in SettingsFile.__struct_fields__:
        section = getattr(SettingsFile(), name)
        if isinstance(section, Struct):
            assert section == convert({}, type(section)), name
            assert convert({name: {}}, SettingsFile) == SettingsFile(), name


def test_reading_settings_does_not_import_pydantic(tmp_path: Path, isolated_hive: Path) -> None:
    probe = (
        "import sys; from pathlib import Path; from engine.config.settings import load_settings; "
        "merged = load_settings(Path(sys.argv[1])).merged(); "
        "print(merged.checkpoints.keep_days, 'pydantic' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["30", "False"]
    write(tmp_path / ".ironhive" / "settings.yaml", "checkpoints: {keep_days: 3}\n")
    trust(tmp_path)
    done = subprocess.run([sys.executable, "-c", probe, str(tmp_path)], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["3", "False"]
