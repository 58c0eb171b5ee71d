"""Serving the protocol on stdin and stdout until the editor closes them."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import IO, cast

from acp import Agent, run_agent

from engine.config.loader import Overrides
from hive_cli.acp.agent import HiveAgent
from hive_cli.acp.channel import protocol_streams, take_stdout


def serve(overrides: Overrides, offered_models: Sequence[str] = ()) -> int:
    """Answer the editor until it closes stdin; every session closed at the end. The exit status."""
    channel = take_stdout()
    asyncio.run(_serve(HiveAgent(overrides, offered_models), channel))
    return 0


async def _serve(agent: HiveAgent, channel: IO[bytes]) -> None:
    reader, writer = await protocol_streams(channel)
    try:
        # the methods hive leaves out (session/list, fork, ...) the SDK answers with "method not found"
        await run_agent(cast(Agent, agent), writer, reader)
    finally:
        await agent.close()
