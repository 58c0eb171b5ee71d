"""The rule table covers every setting, and under each setting's declared order the result never loosens.

The property runs the real settings records: generated user and project data (valid values for a
representative set of fields), the project's tightened, overlaid on the user's as the loader does, and
converted into ``SettingsFile``; then each field is compared with the user's alone under the order the
table declares next to its relation.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import msgspec
import msgspec.structs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.config.settings import SettingsFile, overlay
from engine.config.validation import convert
from engine.trust.tighten import RULES, Given, tighten_settings


def setting_keys(record: type[msgspec.Struct], prefix: str = "") -> Iterator[str]:
    """Every leaf field of ``record`` by dotted key, recursing into section records."""
    for field in msgspec.structs.fields(record):
        key = f"{prefix}{field.encode_name}"
        if isinstance(field.type, type) and issubclass(field.type, msgspec.Struct):
            yield from setting_keys(field.type, f"{key}.")
        else:
            yield key


def test_every_setting_has_a_rule_and_every_rule_a_setting() -> None:
    keys = set(setting_keys(SettingsFile))
    assert {"limits.max_cost_usd", "skills.roots", "sandbox.mode", "hooks", "webhooks.endpoints"} <= keys
    assert sorted(keys - RULES.keys()) == [], "settings with no rule: add each to engine.trust.tighten.RULES"
    assert sorted(RULES.keys() - keys) == [], "rules for settings that do not exist"


def test_every_rule_but_the_sandboxs_declares_an_order() -> None:
    without = sorted(key for key, rule in RULES.items() if rule.order is None)
    assert without == [
        "sandbox.allow_unix_sockets",
        "sandbox.env",
        "sandbox.mode",
        "sandbox.network",
        "sandbox.read_paths",
        "sandbox.writable_roots",
    ]
    assert {rule.relation for key, rule in RULES.items() if key.startswith("sandbox.")} == {"sandbox"}


def test_the_table_is_imported_without_the_settings_module_so_settings_can_call_it() -> None:
    code = "import sys, engine.trust.tighten; print('engine.config.settings' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"


# ---- generated settings data

NAMES = st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=3, unique=True)
ROOTS = st.lists(st.sampled_from(["~", "skills", "../outside", "/etc", "escape", "skills/../..", "."]), max_size=3)
POSITIVE = st.integers(min_value=1, max_value=1000)
SECONDS = st.floats(min_value=0.5, max_value=1000, allow_nan=False)


def optional(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.none() | strategy


SECTIONS: dict[str, dict[str, st.SearchStrategy[Any]]] = {
    "limits": {"max_total_tokens": optional(POSITIVE), "max_cost_usd": optional(SECONDS)},
    "skills": {
        "enabled": optional(NAMES),
        "exclude": optional(NAMES),
        "unknown_fields": optional(st.sampled_from(["reject", "accept"])),
        "max_metadata_characters": optional(st.integers(min_value=0, max_value=30_000)),
        "roots": optional(ROOTS),
        "bundled": optional(st.booleans()),
    },
    "mcp": {"enabled": st.booleans(), "tool_timeout": SECONDS, "hot_reload": st.booleans()},
    "research": {
        "depth": st.sampled_from(["quick", "standard", "deep"]),
        "allow_private_urls": st.booleans(),
        "max_iterations": optional(POSITIVE),
        "max_cost_usd": optional(SECONDS),
        "searxng_url": st.sampled_from(["http://localhost:8080", "https://x.example"]),
        "model": st.sampled_from(["a/m", "b/m"]),
    },
    "delegation": {"max_depth": st.integers(min_value=0, max_value=5), "max_concurrency": POSITIVE},
    "advisor": {"model": optional(st.sampled_from(["a/m", "b/m"])), "max_calls": st.integers(0, 10)},
    "checkpoints": {"enabled": st.booleans(), "keep_days": POSITIVE},
    "webhooks": {
        "endpoints": st.lists(st.fixed_dictionaries({"url": st.sampled_from(["https://x.example/h", "http://a/b"])})),
        "timeout": SECONDS,
    },
    "memory": {"enabled": st.booleans(), "path": st.sampled_from(["/tmp/m.sqlite3", "~/m.sqlite3"])},
    "tool_retrieval": {"enabled": st.booleans(), "max_tools": POSITIVE, "always_include": NAMES},
    "context": {"compact_at": st.floats(min_value=0.1, max_value=1), "prompt_caching": st.booleans()},
    "sandbox": {"mode": st.sampled_from(["read-only", "workspace-write", "off"]), "network": st.booleans()},
}
TOP: dict[str, st.SearchStrategy[Any]] = {
    "model": st.sampled_from(["a/m", "b/m"]),
    "api_base": st.sampled_from(["https://x.example", "http://localhost:1"]),
    "api_key_env": st.sampled_from(["GITHUB_TOKEN", "MY_KEY"]),
    "max_turns": POSITIVE | POSITIVE.map(str),
    "request_timeout": SECONDS,
    "mode": st.sampled_from(["plan", "work"]),
    "provider_client": st.sampled_from(["auto", "litellm"]),
    "tool_calls_in_text": st.booleans(),
    "hooks": st.lists(
        st.fixed_dictionaries(
            {"event": st.sampled_from(["user_prompt", "stop"]), "command": st.sampled_from(["cat ~/.ssh/id_rsa", "ls"])}
        ),
        max_size=2,
    ),
}
SETTINGS_DATA = st.fixed_dictionaries(
    {},
    optional={**TOP, **{name: st.fixed_dictionaries({}, optional=fields) for name, fields in SECTIONS.items()}},
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A project with a skills folder inside and a link that leads out of it."""
    project = tmp_path / "project"
    (project / "skills").mkdir(parents=True)
    (project / "escape").symlink_to(tmp_path)
    return project


def value_at(settings_file: SettingsFile, key: str) -> Any:
    value: Any = settings_file
    for name in key.split("."):
        value = getattr(value, name)
    return value


def given_at(data: Given, key: str) -> tuple[bool, Any]:
    """Whether ``data`` sets ``key``, and to what."""
    *sections, name = key.split(".")
    for section in sections:
        data = data.get(section, {})
    return name in data, data.get(name)


PROPERTY = settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck), database=None)


@PROPERTY
@given(user=SETTINGS_DATA, project=SETTINGS_DATA)
def test_an_untrusted_project_never_loosens_a_setting(root: Path, user: Given, project: Given) -> None:
    mine = convert(user, SettingsFile)
    convert(project, SettingsFile)  # the generated project data is valid too
    kept, ignored = tighten_settings(project, user, root, trusted=False)
    merged = convert(overlay(kept, user), SettingsFile)
    for key, rule in RULES.items():
        if rule.order is not None:
            assert rule.holds(value_at(merged, key), value_at(mine, key), root), key
    assert kept.get("sandbox") == (project.get("sandbox") or None)
    assert {item.key for item in ignored} <= RULES.keys()


@PROPERTY
@given(user=SETTINGS_DATA, project=SETTINGS_DATA)
def test_a_trusted_project_keeps_all_but_a_raised_ceiling_the_user_set(root: Path, user: Given, project: Given) -> None:
    mine = convert(user, SettingsFile)
    kept, ignored = tighten_settings(project, user, root, trusted=True)
    merged = convert(overlay(kept, user), SettingsFile)
    for key, rule in RULES.items():
        if rule.binds_trusted and given_at(user, key)[0]:
            assert rule.holds(value_at(merged, key), value_at(mine, key), root), key
    refused = {item.key for item in ignored}
    assert all(RULES[key].binds_trusted and given_at(user, key)[0] for key in refused)
    for key in RULES:
        asked, value = given_at(project, key)
        assert given_at(kept, key) == ((True, value) if asked and key not in refused else (False, None)), key
