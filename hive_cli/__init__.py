"""hive's terminal program: click commands, output renderers and the REPL.

The commands are click, not Typer: Typer's import costs about 100 ms on every start, and hive is meant to be
fast to start (the commands import their work only when they run: see hive_cli/app.py and hive_cli/main.py).
"""
