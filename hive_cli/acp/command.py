"""``hive acp``: its signature only; the protocol's SDK is imported when the command runs."""

from __future__ import annotations

import click

from hive_cli.cli_base import exit_with, options
from hive_cli.cli_options import debug_option, max_turns_option, mode_option, model_options, sandbox_option
from hive_cli.errors import exit_on_error

acp_options = options(model_options, mode_option, max_turns_option, sandbox_option)


@click.command("acp")
@acp_options
@click.option(
    "--offer-model",
    "offered_models",
    metavar="MODEL",
    multiple=True,
    help="A model the editor's model menu offers besides the session's (repeat it for more).",
)
@debug_option
def acp_command(
    model: str | None,
    api_base: str | None,
    api_key: str | None,
    mode: str | None,
    max_turns: int | None,
    sandbox: str | None,
    offered_models: tuple[str, ...],
    debug: bool,
) -> None:
    """Serve an editor over the Agent Client Protocol on stdin and stdout (Zed, JetBrains, Neovim, Emacs)."""
    with exit_on_error(debug):
        from engine.config.loader import Overrides
        from hive_cli.acp.serve import serve
        from hive_cli.cli_options import sandbox_mode, working_mode

        overrides = Overrides(
            model=model,
            api_base=api_base,
            api_key=api_key,
            mode=working_mode(mode),
            max_turns=max_turns,
            sandbox=sandbox_mode(sandbox),
        )
        exit_with(serve(overrides, offered_models))
