"""Putting a research run together from a session's configuration: providers, model client, guards.

The CLI (``hive research``) and the REPL (``/research``) both build their run here, so they search,
guard and call the model the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from msgspec.structs import asdict

from engine.agent import model_client
from engine.config.loader import SessionConfig
from engine.config.validation import Invalid, convert
from engine.errors import UserError
from engine.policy.compose import result_guards
from engine.policy.guards import ResultGuard
from engine.policy.injection import PromptInjectionGuard
from engine.research.options import ResearchOptions
from engine.research.pipeline import ResearchSetup
from engine.research.providers import ResearchConfigError, build_providers
from engine.research.sources import SearchError


def research_options(base: ResearchOptions, **changes: Any) -> ResearchOptions:
    """``base`` with the given settings changed (None leaves one as it is); ``UserError`` when one is invalid."""
    given = {name: value for name, value in changes.items() if value is not None}
    try:
        return convert({**asdict(base), **given}, ResearchOptions)
    except Invalid as error:
        raise UserError(f"research option {error}") from None


def research_guards(config: SessionConfig) -> list[ResultGuard]:
    """The guards fetched text passes: the configured ones, and the prompt-injection guard in any case.

    Research reads pages anyone can write, so the injection guard is on even where the permission files
    leave it off; unconfigured, it withholds.
    """
    guards = result_guards(config.permissions.guards)
    if not any(isinstance(guard, PromptInjectionGuard) for guard in guards):
        guards.append(PromptInjectionGuard(action="withhold"))
    return guards


def build_setup(
    config: SessionConfig,
    options: ResearchOptions,
    env: Mapping[str, str],
    *,
    docs_dir: Path | None,
    allow_private_urls: bool = False,
    verify: bool = False,
    model: str | None = None,
) -> ResearchSetup:
    """A run for ``config``'s model (or ``model``); ``UserError`` when no provider can be used."""
    if docs_dir is not None and not docs_dir.is_dir():
        raise UserError(f"--docs {docs_dir}: no such folder")
    try:
        private = allow_private_urls or options.allow_private_urls
        providers, fetcher = build_providers(options, env, docs_dir=docs_dir, allow_private_urls=private)
    except (SearchError, ResearchConfigError) as error:
        raise UserError(str(error)) from None
    return ResearchSetup(
        providers=providers,
        fetcher=fetcher,
        client=model_client(config, model),
        options=options,
        guards=research_guards(config),
        verify=verify,
    )
