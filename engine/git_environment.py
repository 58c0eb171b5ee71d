"""The environment that switches off, for every git a command of hive's starts, the programs a repository names
by a fixed key.

git reads configuration given in the environment (``GIT_CONFIG_COUNT``, ``GIT_CONFIG_KEY_<n>``,
``GIT_CONFIG_VALUE_<n>``) as if given with ``git -c``: above the repository's own ``.git/config``.
:data:`NEUTRAL_GIT_CONFIG` sets there the keys whose neutral value costs nothing in a command that has
no terminal and no one to type: no file-system monitor program (``core.fsmonitor``), no pager, no
editor (``:``, git's own "none"). ``GIT_PAGER=cat`` also outranks a per-command ``pager.<cmd>``.

The other keys that run programs cannot be switched off this way: their names are the repository's
choice (``diff.<driver>.textconv``, ``filter.<driver>.clean``), or no value means "none"
(``diff.external``), or the user needs them (``gpg.program`` to sign, ``credential.helper`` to push).
For those, a git command asks (:mod:`engine.policy.git_config_risk`). ``core.hooksPath`` is left as
the repository sets it: hooks running inside the sandbox on ``git commit`` are the repository's, as
its tests are.
"""

from __future__ import annotations

from collections.abc import Mapping

NEUTRAL_GIT_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.pager", "cat"),
    ("core.editor", ":"),
    ("sequence.editor", ":"),
)
"""``(key, value)`` given to every git hive's commands start, over the repository's configuration."""
NEUTRAL_GIT_VARIABLES: dict[str, str] = {"GIT_PAGER": "cat", "GIT_TERMINAL_PROMPT": "0"}
"""Variables set as they are (they outrank ``core.pager``, ``pager.<cmd>`` and credential prompts)."""


def with_neutral_git(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` with :data:`NEUTRAL_GIT_CONFIG` added after any ``GIT_CONFIG_*`` entries it has (the last wins).

    Adding twice changes nothing: a key whose last entry already holds the neutral value is not added again.
    """
    out = {**env, **NEUTRAL_GIT_VARIABLES}
    entries = _config_entries(env)
    last = {key.lower(): value for key, value in entries}  # the neutral keys have no subsection: case does not count
    entries += [(key, value) for key, value in NEUTRAL_GIT_CONFIG if last.get(key.lower()) != value]
    for name in [name for name in out if name.startswith(("GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"))]:
        del out[name]
    out["GIT_CONFIG_COUNT"] = str(len(entries))
    for index, (key, value) in enumerate(entries):
        out[f"GIT_CONFIG_KEY_{index}"] = key
        out[f"GIT_CONFIG_VALUE_{index}"] = value
    return out


def _config_entries(env: Mapping[str, str]) -> list[tuple[str, str]]:
    """The ``(key, value)`` pairs ``env`` already gives git (none when its count is not a number, as git fails then)."""
    try:
        count = int(env.get("GIT_CONFIG_COUNT", "0"))
    except ValueError:
        return []
    entries: list[tuple[str, str]] = []
    for index in range(max(count, 0)):
        key = env.get(f"GIT_CONFIG_KEY_{index}")
        value = env.get(f"GIT_CONFIG_VALUE_{index}")
        if key is None or value is None:  # git refuses a count with a missing pair: start afresh, as it would fail
            return []
        entries.append((key, value))
    return entries
