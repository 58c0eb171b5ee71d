"""The research events are a protocol any host can load: standard library only, plus value modules."""

from __future__ import annotations

import subprocess
import sys


def test_the_research_events_load_only_the_standard_library_msgspec_and_value_modules() -> None:
    probe = (
        "import sys; import engine.research.events; "
        "print(sorted(m for m in sys.modules if m.startswith('engine'))); "
        "print(sorted({m.split('.')[0] for m in sys.modules} - set(sys.stdlib_module_names) - {'engine', '__main__'}"
        " - {m for m in sys.modules if m.startswith(('_distutils', '__editable'))}))"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    project, third_party = done.stdout.splitlines()
    assert (
        project
        == "['engine', 'engine.records', 'engine.research', 'engine.research.events', 'engine.research.result', 'engine.usage']"
    )
    assert third_party == "['msgspec', 'typing_extensions']"
