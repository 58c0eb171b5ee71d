"""The scripted research model in its own process: a standard-depth run judged 0.4, then 0.6, then 0.85.

python benchmarks/support/research_server.py   # prints the base URL, serves until stdin closes
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.support.llm_server import LLMServer
from tests.support.research_model import ResearchScript

PLANS = (
    '["Tessel Glacier retreat rate", "Harrow Institute survey"]',
    '["Tessel Glacier ice cores", "Carrow Pass temperature"]',
    '["Lune river summer flow", "glacier tourism trail"]',
)
JUDGES = (
    '{"score": 0.4, "gaps": ["causes"], "next_queries": ["glacier temperature"]}',
    '{"score": 0.6, "gaps": ["effects downstream"], "next_queries": ["Lune river"]}',
    '{"score": 0.85, "gaps": [], "next_queries": []}',
)
REPORT = (
    "The Tessel Glacier has retreated 1.8 kilometres since 1962 [1], faster after 1990 [2]. "
    "Summer temperature at Carrow Pass rose 1.6 degrees Celsius [3]."
)


def start() -> tuple[subprocess.Popen[str], str]:
    """Start the server process; returns it and the base URL. Close its stdin to stop it."""
    process = subprocess.Popen([sys.executable, __file__], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


def main() -> None:
    with LLMServer() as server:
        ResearchScript(plans=PLANS, judges=JUDGES, report=REPORT).install(server, 400)
        print(server.base_url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
