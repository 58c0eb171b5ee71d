"""A project's settings, reduced to what it may change: only what tightens, until the person trusts the project.

A cloned repository's ``.ironhive/settings.yaml`` is text its author chose. Untrusted, it may make a session
stricter (fewer turns, plan mode, no private URLs) but never looser, and never choose where the conversation
is sent, which variable is sent as a key, or which commands run on events. Trusted, it may set anything
except raise a ceiling the user's own file set. :data:`RULES` declares, for every field of the settings
records, how a project's value relates to the user's (a test fails when a field has none); a key the table
does not know is ignored. The ``sandbox`` section passes through: ``engine.sandbox.options.layered_options``
already refuses a looser sandbox, and says what it refused.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import Any, Literal

import msgspec
import msgspec.structs
from msgspec import Struct

from engine.config.validation import Invalid, convert
from engine.skills.options import DEFAULT_MAX_METADATA_CHARACTERS
from engine.trust.orders import (
    Order,
    earlier_in,
    fewer_names,
    inside,
    inside_or_yours,
    is_names,
    lower,
    more_names,
    same,
    tightest_is,
)

Given = dict[str, Any]
"""A settings file's data as read (the same shape as ``engine.config.settings.Given``): the keys it sets, and only those."""


class Ignored(Struct, frozen=True):
    """A setting the project asked for in vain."""

    key: str
    """Dotted: ``api_base``, ``research.allow_private_urls``, ``hooks``, ``max_turns``."""
    shown: str
    """One line for a person, with the value the project asked for: ``max_turns: 500 (yours: 50)``."""


Relation = Literal["ignore", "tighten", "intersect", "union", "inside_root", "sandbox"]
"""What an untrusted project's value becomes: ``ignore`` (dropped); ``tighten`` (kept when the field's order
puts it at or below the user's effective value); ``intersect`` / ``union`` (names narrowed with the user's);
``inside_root`` (only folders inside the project); ``sandbox`` (kept: the sandbox judges itself)."""


class Rule(Struct, frozen=True, kw_only=True):
    """How one setting of a project relates to the user's."""

    relation: Relation
    order: Order | None
    """Which of two values is tighter; None only for the sandbox, whose own layering judges it."""
    unset: Any = None
    """What None means where the field's default leaves the choice to the code (``skills.bundled``: true)."""
    binds_trusted: bool = False
    """A value the user's file sets bounds even a trusted project, under ``order``."""
    shows_yours: bool = False
    """A refusal says the user's value too (``max_turns: 500 (yours: 50)``)."""

    def holds(self, value: Any, than: Any, root: Path) -> bool:
        """Whether ``value`` is at least as tight as ``than``; a value that cannot be compared never is."""
        value, than = self.meant(value), self.meant(than)
        if self.order is None or value is _UNCOMPARABLE or than is _UNCOMPARABLE:
            return False
        return self.order(value, than, root)

    def meant(self, value: Any) -> Any:
        """``value``, with None read as what it means for this field."""
        return self.unset if value is None else value


# ---- rules

IGNORE = Rule(relation="ignore", order=same)
SANDBOX = Rule(relation="sandbox", order=None)


def at_most(order: Order = lower, unset: Any = None) -> Rule:
    """A bound: the project may lower it; the user's own value bounds a trusted project too."""
    return Rule(relation="tighten", order=order, unset=unset, binds_trusted=True, shows_yours=True)


def only(tightest: Any, unset: Any = None) -> Rule:
    """A switch the project may only turn to ``tightest``."""
    return Rule(relation="tighten", order=tightest_is(tightest), unset=unset)


def ignored_and_bound(order: Order) -> Rule:
    """Ignored untrusted; trusted, the user's own value still bounds it under ``order``."""
    return Rule(relation="ignore", order=order, binds_trusted=True, shows_yours=True)


# Where the workspace-trust design's per-setting table is silent, decided here:
#   research.depth                      at most: a deeper run searches, fetches and spends more
#   research.sufficiency_threshold      ignored: it tunes the user's research and bounds nothing
#   research.min_sources_before_report  ignored: likewise
#   delegation.max_output_characters    at most, as the rest of delegation.*
#   advisor.model                       ignored (a model choice); trusted, the user's own choice stands
#   tool_retrieval.max_tools            ignored; trusted, the user's own value is a ceiling
#   tool_retrieval.enabled              ignored; trusted, the user's explicit true stands
#   checkpoints.max_count, max_bytes    ignored, as keep_days: the undo history is the person's safety net
#   stores.sessions_*                   ignored: the sessions folder holds every project's sessions
#   stores.outputs_*, output_file_*     at most: the project's own .hive/outputs/, a cap it may only lower
RULES: dict[str, Rule] = {
    "model": IGNORE,  # endpoints, key variables, model choices: where the conversation goes, what is sent as a key
    "api_base": IGNORE,
    "api_key_env": IGNORE,
    "provider_client": IGNORE,
    "tool_calls_in_text": only(False),
    "max_turns": at_most(),
    "request_timeout": at_most(),
    "mode": only("plan"),
    "limits.max_total_tokens": at_most(),
    "limits.max_cost_usd": at_most(),
    "skills.enabled": Rule(relation="intersect", order=fewer_names),
    "skills.exclude": Rule(relation="union", order=more_names),
    "skills.unknown_fields": only("reject", unset="reject"),
    "skills.max_metadata_characters": at_most(unset=DEFAULT_MAX_METADATA_CHARACTERS),
    "skills.roots": Rule(relation="inside_root", order=inside_or_yours),
    "skills.bundled": only(False, unset=True),
    "mcp.enabled": only(False),
    "mcp.startup_timeout": at_most(),
    "mcp.tool_timeout": at_most(),
    "mcp.hot_reload": only(False),
    "context.context_window": IGNORE,
    "context.guessed_window": IGNORE,
    "context.unknown_window_compaction": IGNORE,
    "context.compact_at": IGNORE,
    "context.fixed_part_share": IGNORE,
    "context.observation_masking_protected_rounds": IGNORE,
    "context.observation_masking_batch_rounds": IGNORE,
    "context.observation_masking_min_chars": IGNORE,
    "context.prompt_caching": IGNORE,
    "context.goal_reminder_after_rounds": IGNORE,
    "context.max_tool_result_chars": IGNORE,
    "research.provider": IGNORE,
    "research.searxng_url": IGNORE,
    "research.model": IGNORE,
    "research.depth": at_most(order=earlier_in("quick", "standard", "deep")),
    "research.sufficiency_threshold": IGNORE,
    "research.min_sources_before_report": IGNORE,
    "research.max_search_retries_per_iteration": at_most(),
    "research.max_iterations": at_most(),  # None: the depth's preset, which caps any number too
    "research.allow_private_urls": only(False),
    "research.max_total_tokens": at_most(),
    "research.max_cost_usd": at_most(),
    "delegation.max_depth": at_most(),
    "delegation.max_concurrency": at_most(),
    "delegation.max_tool_turns": at_most(),
    "delegation.max_output_characters": at_most(),
    "advisor.model": ignored_and_bound(same),
    "advisor.max_calls": at_most(),
    "checkpoints.enabled": only(True),
    "checkpoints.max_file_bytes": IGNORE,
    "checkpoints.keep_days": IGNORE,
    "checkpoints.max_count": IGNORE,
    "checkpoints.max_bytes": IGNORE,
    "stores.sessions_keep_days": IGNORE,
    "stores.sessions_max_count": IGNORE,
    "stores.sessions_max_bytes": IGNORE,
    "stores.outputs_keep_days": at_most(),
    "stores.outputs_max_count": at_most(),
    "stores.outputs_max_bytes": at_most(),
    "stores.output_file_max_bytes": at_most(),
    "webhooks.endpoints": IGNORE,
    "webhooks.timeout": IGNORE,
    "webhooks.max_attempts": IGNORE,
    "webhooks.drain_timeout": IGNORE,
    "memory.enabled": only(False),
    "memory.embedding_model": IGNORE,
    "memory.path": IGNORE,
    "images.vision": IGNORE,
    "tool_retrieval.enabled": ignored_and_bound(tightest_is(True)),
    "tool_retrieval.max_tools": ignored_and_bound(lower),
    "tool_retrieval.min_relevance_score": IGNORE,
    "tool_retrieval.always_include": IGNORE,
    "tool_retrieval.min_scored_slots": IGNORE,
    "tool_retrieval.embedding_model": IGNORE,
    "repo_map.budget_tokens": at_most(),
    "repo_map.in_first_request": only(False),
    "repo_map.max_files": at_most(),
    "sandbox.mode": SANDBOX,
    "sandbox.network": SANDBOX,
    "sandbox.writable_roots": SANDBOX,
    "sandbox.read_paths": SANDBOX,
    "sandbox.env": SANDBOX,
    "sandbox.allow_unix_sockets": SANDBOX,
    "hooks": IGNORE,
}
"""Every setting's rule, by dotted key."""

_SECTIONS = frozenset(key.split(".")[0] for key in RULES if "." in key)


def tighten_settings(project: Given, user: Given, root: Path, *, trusted: bool) -> tuple[Given, tuple[Ignored, ...]]:
    """The project's settings data reduced to what it may change, and what it asked for in vain.

    The result overlays the user's data as the project's did; with it, no setting is looser than the
    user's alone (untrusted), or above a ceiling the user's file set (trusted).
    """
    kept, ignored = _section(project, user, "", root, trusted)
    return kept, tuple(ignored)


def loosenings(project: Given, user: Given, root: Path) -> tuple[Ignored, ...]:
    """What the project's settings would change beyond tightening: what trusting the project grants."""
    return tighten_settings(project, user, root, trusted=False)[1]


_DROP = object()  # a value the project does not get
_UNCOMPARABLE = object()
_Verdict = tuple[Any, list[Ignored]]


def _section(given: Given, yours: Given, prefix: str, root: Path, trusted: bool) -> tuple[Given, list[Ignored]]:
    kept: Given = {}
    ignored: list[Ignored] = []
    for name, value in given.items():
        key = f"{prefix}{name}"
        if key in _SECTIONS and isinstance(value, dict):
            theirs = yours.get(name)
            inner, refused = _section(value, theirs if isinstance(theirs, dict) else {}, f"{key}.", root, trusted)
            verdict: _Verdict = (inner or _DROP), refused
        else:
            verdict = _setting(key, value, yours, str(name), root, trusted)
        if verdict[0] is not _DROP:
            kept[name] = verdict[0]
        ignored += verdict[1]
    return kept, ignored


def _setting(key: str, value: Any, yours: Given, name: str, root: Path, trusted: bool) -> _Verdict:
    rule = RULES.get(key)
    if rule is None:  # a key no rule covers is never trusted
        return _DROP, _described(key, value)
    if trusted:
        return _bound_when_trusted(rule, key, value, yours, name, root)
    effective = yours[name] if name in yours else _default(key)
    return _RELATIONS[rule.relation](rule, key, value, effective, root)


def _bound_when_trusted(rule: Rule, key: str, value: Any, yours: Given, name: str, root: Path) -> _Verdict:
    if not rule.binds_trusted or name not in yours:
        return value, []
    return _tighten(rule, key, value, yours[name], root)


def _ignore(rule: Rule, key: str, value: Any, yours: Any, root: Path) -> _Verdict:
    return _DROP, _described(key, value)


def _tighten(rule: Rule, key: str, value: Any, yours: Any, root: Path) -> _Verdict:
    if rule.holds(_typed(key, value), _typed(key, yours), root):
        return value, []
    suffix = f" (yours: {_shown(rule.meant(yours))})" if rule.shows_yours else ""
    return _DROP, [Ignored(key, f"{key}: {_shown(value)}{suffix}")]


def _intersect(rule: Rule, key: str, value: Any, yours: Any, root: Path) -> _Verdict:
    names, allowed = _typed(key, value), _typed(key, yours)
    if allowed is None and (names is None or is_names(names)):
        return value, []
    if not is_names(names) or not is_names(allowed):
        return _DROP, _described(key, value)
    outside = [name for name in names if name not in allowed]
    if not outside:
        return value, []
    shown = f"{key}: {', '.join(map(_shown, outside))} (not enabled in yours)"
    return [name for name in names if name in allowed], [Ignored(key, shown)]


def _union(rule: Rule, key: str, value: Any, yours: Any, root: Path) -> _Verdict:
    names, already = _typed(key, value), _typed(key, yours)
    if not is_names(names or ()) or not is_names(already or ()):
        return _DROP, _described(key, value)
    if names is None and already is None:
        return None, []
    return list(dict.fromkeys([*(already or ()), *(names or ())])), []


def _inside_root(rule: Rule, key: str, value: Any, yours: Any, root: Path) -> _Verdict:
    folders = _typed(key, value)
    if folders is None:
        return None, []
    if not is_names(folders):
        return _DROP, _described(key, value)
    outside = [raw for raw in folders if not inside(raw, root)]
    ignored = [Ignored(key, f"{key}: {_shown(raw)} (outside the project)") for raw in outside]
    return [raw for raw in folders if raw not in outside], ignored


def _sandbox(rule: Rule, key: str, value: Any, yours: Any, root: Path) -> _Verdict:
    return value, []


_RELATIONS: dict[Relation, Callable[[Rule, str, Any, Any, Path], _Verdict]] = {
    "ignore": _ignore,
    "tighten": _tighten,
    "intersect": _intersect,
    "union": _union,
    "inside_root": _inside_root,
    "sandbox": _sandbox,
}


# ---- the settings records: field types (to read a lax "5" as 5) and defaults


@cache
def _fields() -> dict[str, tuple[Any, Any]]:
    # engine.config.settings will call this module when it loads settings: imported at first use, so that
    # neither module's import waits on the other's
    from engine.config.settings import SettingsFile

    return dict(_walk(SettingsFile, ""))


def _walk(record: type[Struct], prefix: str) -> Iterable[tuple[str, tuple[Any, Any]]]:
    for field in msgspec.structs.fields(record):
        key = f"{prefix}{field.encode_name}"
        if isinstance(field.type, type) and issubclass(field.type, Struct):
            yield from _walk(field.type, f"{key}.")
            continue
        default = field.default_factory() if field.default is msgspec.NODEFAULT else field.default
        yield key, (field.type, default)


def _default(key: str) -> Any:
    return _fields()[key][1] if key in _fields() else _UNCOMPARABLE


def _typed(key: str, value: Any) -> Any:
    """``value`` as its field's type (as the settings loader reads it), or a marker that it cannot be compared."""
    if key not in _fields() or value is _UNCOMPARABLE:
        return _UNCOMPARABLE
    try:
        return convert(value, _fields()[key][0])
    except (Invalid, TypeError, ValueError):
        return _UNCOMPARABLE


# ---- small helpers


def _described(key: str, value: Any) -> list[Ignored]:
    """One line per thing asked: each hook and webhook on its own, any other value whole."""
    if key in ("hooks", "webhooks.endpoints") and isinstance(value, list | tuple):
        return [Ignored(key, _item(key, item)) for item in value]
    return [Ignored(key, f"{key}: {_shown(value)}")]


def _item(key: str, item: Any) -> str:
    if key == "hooks" and isinstance(item, dict) and "event" in item and "command" in item:
        return f"hook {_shown(item['event'])}: {_shown(item['command'])}"
    if key == "webhooks.endpoints" and isinstance(item, dict) and "url" in item:
        return f"webhook: {_shown(item['url'])}"
    return f"{key}: {_shown(item)}"


def _shown(value: Any) -> str:
    """A value as a settings file writes it, on one line (control and bidi characters as escapes)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_shown(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_shown(k)}: {_shown(v)}" for k, v in value.items()) + "}"
    return "".join(_escaped(character) for character in str(value))


def _escaped(character: str) -> str:
    if unicodedata.category(character) not in ("Cc", "Cf", "Zl", "Zp"):
        return character
    code = ord(character)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
