"""Real builds still work in the default sandbox, with the home hidden and toolchains from the allow-list.

They use the real home of the account running the tests: the Python that runs them (a pyenv or uv
one lives in the home) and npm's cache, which ``make mcp-servers`` fills before the tests run.
"""

from __future__ import annotations

import base64
import hashlib
import json
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.engine.sandbox.helpers import Runner, make_repo

MCP_LOCK = Path(__file__).parents[2] / "mcp_servers" / "package-lock.json"


@pytest.fixture
def build_project() -> Iterator[Path]:
    base = Path(tempfile.mkdtemp(dir="/var/tmp", prefix="hive-build-test-"))
    yield make_repo(base / "project")
    shutil.rmtree(base, ignore_errors=True)


def test_a_python_venv_installs_a_local_wheel_offline_and_runs_it(build_project: Path) -> None:
    _wheel(build_project / "dist", "tinypkg", "1.0", "def answer():\n    return 42\n")
    command = (
        f"{sys.executable} -m venv build-env && build-env/bin/python -m pip install -q --no-index "
        "--find-links dist tinypkg && build-env/bin/python -c 'import tinypkg; print(\"answer\", tinypkg.answer())'"
    )
    result = Runner(build_project, build_project.parent / "data")(command, timeout=300)
    assert result.success is True, result.output
    assert "answer 42" in result.output


def test_npm_ci_offline_from_the_read_only_cache_and_npm_test(build_project: Path) -> None:
    npm = shutil.which("npm")
    assert npm is not None, "npm is needed (make mcp-servers uses it too)"
    name = "bytes"  # a package without dependencies, in the cache once the MCP servers are installed
    entry = json.loads(MCP_LOCK.read_text())["packages"][f"node_modules/{name}"]
    registry = subprocess.run([npm, "config", "get", "registry"], capture_output=True, text=True, check=True)
    resolved = f"{registry.stdout.strip().rstrip('/')}/{name}/-/{name}-{entry['version']}.tgz"
    test = (
        "node -e \"const b = require('bytes'); if (b(1024) !== '1KB') process.exit(1); console.log('works', b(1024))\""
    )
    manifest = {"name": "tiny", "version": "1.0.0", "private": True, "dependencies": {name: entry["version"]}}
    (build_project / "package.json").write_text(json.dumps({**manifest, "scripts": {"test": test}}))
    lock = {
        "name": "tiny",
        "version": "1.0.0",
        "lockfileVersion": 3,
        "requires": True,
        "packages": {
            "": {"name": "tiny", "version": "1.0.0", "dependencies": manifest["dependencies"]},
            f"node_modules/{name}": {
                "version": entry["version"],
                "resolved": resolved,
                "integrity": entry["integrity"],
            },
        },
    }
    (build_project / "package-lock.json").write_text(json.dumps(lock))
    result = Runner(build_project, build_project.parent / "data")(
        "npm ci --offline --no-audit --no-fund && npm test", timeout=300
    )
    assert result.success is True, result.output
    assert "works 1KB" in result.output


def _wheel(folder: Path, name: str, version: str, code: str) -> Path:
    """A pure-Python wheel made by hand (nothing to download to build one)."""
    info = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": code,
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: hive-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = [f"{path},sha256={_digest(text)},{len(text.encode())}" for path, text in files.items()]
    files[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,"]) + "\n"
    folder.mkdir(parents=True)
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return wheel


def _digest(text: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
