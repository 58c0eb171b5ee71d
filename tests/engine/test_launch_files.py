"""Which project files a command runs or reads as it starts, and a digest of each that changes when they do."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest

from engine.file_digest import FOLDER_BYTES, FOLDER_FILES
from engine.launch_files import NamedFile, command_line_files, launch_files, short_digest
from engine.python_imports import module_names_digest


def sha256(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def named(argv: list[str], root: Path, cwd: Path | None = None) -> dict[str, str]:
    return {file.path: file.digest for file in launch_files(argv, cwd or root, root)}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    return project


def test_a_script_is_named_with_the_hash_of_its_bytes_and_the_hash_follows_its_content(root: Path) -> None:
    (root / "srv.py").write_text("print('v1')\n")

    first = named(["python3", "srv.py"], root)
    assert first == {"srv.py": sha256(b"print('v1')\n"), "*.py": module_names_digest(root)}

    (root / "srv.py").write_text("print('v2')\n")
    assert named(["python3", "srv.py"], root)["srv.py"] != first["srv.py"]


def test_an_interpreters_script_that_does_not_exist_yet_is_named_absent(root: Path) -> None:
    for argv in (["python3", "-u", "srv.py"], ["node", "--require", "./x.js", "srv.js"], ["bash", "-e", "run.sh"]):
        script = argv[-1]
        assert named(argv, root) == {script: "absent"}, argv
    assert named(["uv", "run", "--with", "httpx", "tool.py"], root)["tool.py"] == "absent"


def test_every_argument_naming_a_project_file_is_named_options_values_too(root: Path) -> None:
    (root / "tools").mkdir()
    (root / "tools" / "run.js").write_text("run")
    (root / "conf.json").write_text("{}")

    found = named(["node", "tools/run.js", "--config=conf.json", "--port", "3000", "not-a-file"], root)

    assert found == {"tools/run.js": sha256(b"run"), "conf.json": sha256(b"{}")}


def test_paths_are_judged_from_the_working_folder_and_shown_from_the_root(root: Path) -> None:
    (root / "tools").mkdir()
    (root / "tools" / "srv.js").write_text("x")
    (root / "shared.js").write_text("y")

    found = named(["node", "srv.js", "../shared.js"], root, cwd=root / "tools")

    assert set(found) == {"tools/srv.js", "shared.js"}


def test_files_outside_the_project_are_the_users_and_are_not_named(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.py"
    outside.write_text("print()")

    assert named(["python3", str(outside)], root) == {}
    assert named(["python3", "../elsewhere.py"], root) == {}


def test_python_dash_m_names_the_top_level_package_folder_and_follows_any_file_in_it(root: Path) -> None:
    package = root / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "srv.py").write_text("from pkg import helper\n")
    (package / "helper.py").write_text("X = 1\n")

    first = named(["python3", "-m", "pkg.srv"], root)
    assert list(first) == ["*.py", "pkg/"] and first["pkg/"].startswith("sha256:")
    assert named(["python3", "-Bm", "pkg.srv"], root) == first  # -m inside a cluster of flags

    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "helper.cpython-311.pyc").write_bytes(b"\0compiled")
    assert named(["python3", "-m", "pkg.srv"], root) == first  # what the interpreter writes as it runs

    (package / "sub" / "new.py").write_text("")
    second = named(["python3", "-m", "pkg.srv"], root)
    assert second != first
    (package / "helper.py").write_text("X = 2\n")
    assert named(["python3", "-m", "pkg.srv"], root) not in (first, second)


def test_python_dash_m_names_a_single_module_file_or_where_one_would_shadow_an_installed_module(root: Path) -> None:
    (root / "srv.py").write_text("print()")

    assert named(["python3", "-m", "srv"], root) == {"srv.py": sha256(b"print()"), "*.py": module_names_digest(root)}
    assert named(["python3", "-m", "installed_elsewhere"], root) == {"installed_elsewhere": "absent"}
    assert named(["python3", "-c", "import srv"], root) == {}  # inline code: already in the command line


def test_launchers_name_the_manifests_they_read(root: Path) -> None:
    local = {"node_modules/.bin/some-server": "absent"}  # what npx would run in place of the package
    assert named(["npx", "-y", "some-server"], root) == {"package.json": "absent", **local}
    (root / "package.json").write_text('{"name": "x"}')
    assert named(["npx", "-y", "some-server"], root) == {"package.json": sha256(b'{"name": "x"}'), **local}
    assert named(["make", "serve"], root) == {"Makefile": "absent"}
    assert named(["uvx", "some-tool"], root) == {"pyproject.toml": "absent"}
    assert named(["uv", "run", "python", "-m", "pkg"], root) == {"pyproject.toml": "absent", "pkg": "absent"}


def test_a_link_is_pinned_by_its_link_text_and_its_targets_bytes(root: Path) -> None:
    (root / "a.js").write_text("same")
    (root / "b.js").write_text("same")
    (root / "srv.js").symlink_to("a.js")
    through_a = named(["node", "srv.js"], root)["srv.js"]

    (root / "srv.js").unlink()
    (root / "srv.js").symlink_to("b.js")
    through_b = named(["node", "srv.js"], root)["srv.js"]

    assert through_a.startswith("sha256:") and through_b.startswith("sha256:")
    assert through_a != through_b and through_a != sha256(b"same")


def test_a_link_that_leaves_the_project_is_not_pinned_and_says_where_it_goes(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.js"
    outside.write_text("x")
    (root / "srv.js").symlink_to(outside)

    found = launch_files(["node", "srv.js"], root, root)

    assert found == (NamedFile("srv.js", f"unpinned: leaves the project (links to {outside})"),)
    assert not found[0].pinned


def test_a_fifo_is_not_read_and_does_not_block(root: Path) -> None:
    os.mkfifo(root / "pipe")

    assert named(["python3", "pipe"], root) == {"pipe": "unpinned: is a FIFO, not a regular file"}


def test_a_folder_over_the_caps_cannot_be_pinned(root: Path) -> None:
    many = root / "many"
    many.mkdir()
    for index in range(FOLDER_FILES + 1):
        (many / f"f{index}").write_text("")
    large = root / "large"
    large.mkdir()
    (large / "blob").write_bytes(b"x" * (FOLDER_BYTES // 2 + 1))
    (large / "blob2").write_bytes(b"x" * (FOLDER_BYTES // 2 + 1))

    found = named(["server", "many", "large"], root)

    assert found["many/"] == f"unpinned: too large to pin (over {FOLDER_FILES} files)"
    assert found["large/"] == "unpinned: too large to pin (over 2 MiB in its files)"


def test_a_folder_with_a_link_out_of_the_project_cannot_be_pinned(root: Path, tmp_path: Path) -> None:
    (root / "tools").mkdir()
    (root / "tools" / "secrets").symlink_to(tmp_path)

    assert named(["server", "tools"], root)["tools/"].startswith("unpinned: secrets in it leaves the project")


def test_the_project_folder_itself_is_named_but_not_pinned(root: Path) -> None:
    assert named(["mcp-server-filesystem", "."], root) == {".": "unpinned: the whole project folder"}


def test_a_program_inside_the_project_that_links_out_of_it_is_named_unpinned(root: Path, tmp_path: Path) -> None:
    (root / ".venv" / "bin").mkdir(parents=True)
    interpreter = tmp_path / "python3.11"
    interpreter.write_text("#!")
    (root / ".venv" / "bin" / "python").symlink_to(interpreter)
    (root / "srv.py").write_text("")

    found = named([".venv/bin/python", "srv.py"], root)

    assert found[".venv/bin/python"] == f"unpinned: leaves the project (links to {interpreter})"
    assert found["srv.py"] == sha256(b"")


def test_a_shell_command_line_names_each_commands_files_but_not_what_it_writes(root: Path) -> None:
    (root / "tools").mkdir()
    (root / "tools" / "srv.py").write_text("a")
    (root / "input.txt").write_text("b")
    (root / "out.log").write_text("c")

    found = command_line_files("cd tools && MODE=x python3 srv.py < ../input.txt > ../out.log; echo done", root, root)

    assert {file.path for file in found} == {"tools/srv.py", "tools/", "input.txt"}
    assert {file.path for file in launch_files(["sh", "-c", "node tools/srv.py"], root, root)} == {"tools/srv.py"}
    (root / "ok.py").write_text("d")
    unbalanced = command_line_files("python3 ok.py 'unbalanced", root, root)  # best effort, never an error
    assert "ok.py" in {file.path for file in unbalanced}


def test_a_short_digest_is_for_people() -> None:
    assert short_digest(sha256(b"")) == "sha256:e3b0c44298fc"
    assert short_digest("absent") == "absent"
    assert short_digest("unpinned: too large to pin") == "unpinned: too large to pin"


def test_a_bare_command_found_on_path_inside_the_project_is_named(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bin_folder = root / "node_modules" / ".bin"
    bin_folder.mkdir(parents=True)
    (bin_folder / "project-server").write_text("#!/bin/sh\n")
    (bin_folder / "project-server").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_folder}{os.pathsep}{os.environ['PATH']}")

    assert named(["project-server", "--stdio"], root) == {"node_modules/.bin/project-server": sha256(b"#!/bin/sh\n")}
    assert named(["ls"], root) == {}  # the system's programs are the user's
