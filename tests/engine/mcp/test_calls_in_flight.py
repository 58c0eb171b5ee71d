"""What a server asks on behalf of its tool is taken only while one of its calls runs, and dropped when the last ends."""

from __future__ import annotations

import asyncio

from engine.mcp.calls_in_flight import CallsInFlight


def test_outside_any_call_the_work_never_runs() -> None:
    ran: list[str] = []

    async def work() -> str:
        ran.append("work")
        return "answer"

    answer = asyncio.run(CallsInFlight().while_calling(work(), lambda started: f"refused, started={started}"))
    assert answer == "refused, started=False" and ran == []


def test_during_a_call_the_work_answers() -> None:
    async def scenario() -> str:
        calls = CallsInFlight()

        async def work() -> str:
            return "answer"

        async with calls.calling():
            return await calls.while_calling(work(), lambda started: "refused")

    assert asyncio.run(scenario()) == "answer"


def test_when_the_last_call_ends_first_the_work_is_cancelled_before_the_call_ends() -> None:
    events: list[str] = []

    async def scenario() -> str:
        calls = CallsInFlight()
        running, asking = asyncio.Event(), asyncio.Event()

        async def work() -> str:
            asking.set()
            try:
                await asyncio.Event().wait()  # a person who never answers
            except asyncio.CancelledError:
                events.append("question withdrawn")
                raise
            return "answer"

        async def two_calls_then_none() -> None:
            async with calls.calling():
                async with calls.calling():
                    running.set()
                    await asking.wait()
                for _ in range(5):
                    await asyncio.sleep(0)  # the loop runs whatever the first call's end set off
                events.append("one call ended")  # one still runs: the work goes on
            events.append("last call ended")

        ending = asyncio.create_task(two_calls_then_none())
        await running.wait()
        answer = await calls.while_calling(work(), lambda started: f"refused, started={started}")
        await ending
        return answer

    assert asyncio.run(scenario()) == "refused, started=True"
    # the last call's end waits for the question to be taken down (a run never ends with one on screen)
    assert events == ["one call ended", "question withdrawn", "last call ended"]
