"""hive's terminal program: Typer commands, output renderers and (later) the REPL."""
