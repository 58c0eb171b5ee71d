"""`hive run --output-schema`: the real program against the scripted model; the answer is judged by the schema."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.cli import json_lines, run_hive
from tests.support.llm_server import LLMServer, text

SCHEMA = {
    "type": "object",
    "properties": {"files": {"type": "integer"}, "summary": {"type": "string"}},
    "required": ["files", "summary"],
    "additionalProperties": False,
}


def schema_file(folder: Path, schema: object = SCHEMA) -> Path:
    path = folder / "schema.json"
    path.write_text(json.dumps(schema))
    return path


def model_args(server: LLMServer, workdir: Path) -> list[str]:
    return ["--model", "openai/test-model", "--api-base", server.base_url, "--api-key", "sk-test", "-C", str(workdir)]


def test_a_valid_answer_is_parsed_into_structured(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text('```json\n{"files": 3, "summary": "three files"}\n```'))
    schema = schema_file(tmp_path)
    done = run_hive(
        "run", "count the files", "-o", "json", "--output-schema", str(schema), *model_args(llm_server, tmp_path)
    )

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["structured"] == {"files": 3, "summary": "three files"}
    assert result["exit_reason"] == "completed" and result["earlier_attempts"] == []
    [request] = llm_server.chat_requests
    told = request.messages[-1]["content"]
    assert told.startswith("count the files") and '"additionalProperties": false' in told


def test_an_invalid_answer_is_put_back_once_with_the_error_and_repaired(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text('{"files": "three"}'), text('{"files": 3, "summary": "fixed"}'))
    schema = schema_file(tmp_path)
    done = run_hive(
        "run", "count", "-o", "stream-json", "--output-schema", str(schema), *model_args(llm_server, tmp_path)
    )

    assert done.returncode == 0, done.stderr
    lines = json_lines(done.stdout)
    finished = lines[-1]
    assert finished["type"] == "session_finished" and finished["exit_reason"] == "completed"
    assert finished["structured"] == {"files": 3, "summary": "fixed"}
    assert len(finished["earlier_attempts"]) == 1
    repair = llm_server.chat_requests[1].messages[-1]["content"]
    assert "not accepted" in repair and "'three' is not of type 'integer'" in repair
    assert llm_server.chat_requests[1].messages[-2]["content"] == '{"files": "three"}'  # the same conversation


def test_an_answer_invalid_twice_ends_with_status_4(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("Three files."), text('{"files": 3}'))
    schema = schema_file(tmp_path)
    done = run_hive("run", "count", "-o", "json", "--output-schema", str(schema), *model_args(llm_server, tmp_path))

    assert done.returncode == 4, done.stderr
    result = json.loads(done.stdout)
    assert result["exit_reason"] == "schema_mismatch" and result["structured"] is None
    assert "'summary' is a required property" in result["error"] and result["fix"]
    assert "not JSON" in llm_server.chat_requests[1].messages[-1]["content"]
    assert len(llm_server.chat_requests) == 2


def test_text_output_says_why_the_answer_was_refused(llm_server: LLMServer, tmp_path: Path) -> None:
    llm_server.script(text("[]"), text("[]"))
    schema = schema_file(tmp_path)
    done = run_hive("run", "count", "--output-schema", str(schema), *model_args(llm_server, tmp_path))

    assert done.returncode == 4
    assert "not valid against --output-schema" in done.stderr and "Traceback" not in done.stderr


def test_a_bad_schema_file_is_a_config_error_before_anything_is_sent(llm_server: LLMServer, tmp_path: Path) -> None:
    cases = {
        "missing.json": "cannot read it",
        "not-json.json": "not JSON",
        "list.json": "a JSON Schema is an object",
        "bad-type.json": "not a valid JSON Schema at type",
    }
    (tmp_path / "not-json.json").write_text("{type: object")
    (tmp_path / "list.json").write_text("[]")
    (tmp_path / "bad-type.json").write_text(json.dumps({"type": "objekt"}))
    for name, said in cases.items():
        done = run_hive(
            "run", "x", "-o", "json", "--output-schema", str(tmp_path / name), *model_args(llm_server, tmp_path)
        )
        assert done.returncode == 2, (name, done.stderr)
        assert said in done.stderr and done.stderr.count("\n") == 1, (name, done.stderr)
        assert done.stdout == ""
    assert llm_server.chat_requests == []
