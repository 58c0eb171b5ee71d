"""Usage arithmetic keeps 'not reported' apart from zero."""

from __future__ import annotations

from engine.events import Usage


def test_adding_an_unreported_count_keeps_the_reported_one() -> None:
    total = Usage(prompt_tokens=10, cached_read_tokens=None, calls=1) + Usage(
        prompt_tokens=None, cached_read_tokens=4, calls=1
    )
    assert (total.prompt_tokens, total.cached_read_tokens, total.calls) == (10, 4, 2)


def test_two_unreported_counts_stay_unreported_and_zero_stays_zero() -> None:
    total = Usage(reasoning_tokens=None, cost_usd=0.0) + Usage(reasoning_tokens=None, cost_usd=None)
    assert total.reasoning_tokens is None
    assert total.cost_usd == 0.0
    assert Usage().total_tokens is None
    assert Usage(prompt_tokens=0).total_tokens == 0


def test_the_protocol_module_loads_only_the_standard_library_msgspec_and_its_three_value_modules() -> None:
    import subprocess
    import sys

    probe = (
        "import sys; import engine.events; "
        "print(sorted(m for m in sys.modules if m.startswith('engine'))); "
        "print(sorted({m.split('.')[0] for m in sys.modules} - set(sys.stdlib_module_names) - {'engine', '__main__'}"
        " - {m for m in sys.modules if m.startswith(('_distutils', '__editable'))}))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    project, third_party = done.stdout.splitlines()
    assert project == "['engine', 'engine.errors', 'engine.events', 'engine.reports', 'engine.usage']"
    assert third_party == "['msgspec', 'typing_extensions']"
