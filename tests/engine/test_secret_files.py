"""One list of secret files: what read_file asks about or refuses is exactly what the sandbox's walk hides."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.events import ToolCall
from engine.policy.config import default_permissions
from engine.policy.permissions import PermissionPolicy
from engine.sandbox.scan import ProjectScanner
from engine.secret_files import SECRET_DENIES, is_secret_file, is_secret_folder
from engine.tools.base import ToolContext

SECRET = (
    *(".env", ".env.local", "config/.envrc", "server.pem", "certs/SERVER.PEM", "tls.key", "id_rsa", "id_rsa.pub"),
    *("keys/id_ed25519", ".netrc", "_netrc", ".npmrc", "web/.npmrc", ".pypirc", ".yarnrc.yml", "credentials"),
    *("credentials.json", "config/Credentials-prod.json", "gcp/service-account-ci.json", "secrets.yaml"),
    *("deploy/secrets.yml", ".dev.vars", "kubeconfig", "terraform.tfstate", "infra/terraform.tfstate.backup"),
    *(".terraformrc", ".my.cnf", ".htpasswd", ".git-credentials", ".pgpass", "vault.kdbx", ".vault-token"),
    *("secrets/token", "a/secrets/b/c.txt", ".aws/credentials", ".aws/config", ".ssh/known_hosts"),
    *("fixtures/.gnupg/pubring.kbx", ".docker/config.json", ".kube/config", "home/.config/gh/hosts.yml"),
    *(".config/gcloud/adc.json", ".azure/profile.json", "app/keystore.jks", "release.keystore", "cert.p12"),
    "cert.pfx",
)
ORDINARY = (
    *("src/app.py", "src/credentials.py", "src/CredentialsManager.java", "README.md", "docs/secrets.md"),
    *("config/settings.yaml", ".docker/daemon.json", ".kube/cache/discovery.json", "package.json", "Cargo.toml"),
    *("env.py", "src/environment.ts", "keys.txt", "secret_sauce.c"),
)


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    for relative in (*SECRET, *ORDINARY):
        (project / relative).parent.mkdir(parents=True, exist_ok=True)
        (project / relative).write_text("x\n")
    return project


def read_verdict(project: Path, relative: str) -> str:
    policy = PermissionPolicy(default_permissions())
    call = ToolCall(id="r", name="read_file", arguments={"path": relative})
    return policy.judge_call(call, ToolContext(cwd=project, data_dir=project / ".hive")).verdict


def hidden_by_the_walk(project: Path) -> set[str]:
    """Every file the sandbox's walk hides: the secret files, and everything inside the secret folders."""
    scan = ProjectScanner(project).scan()
    hidden = {str(path.relative_to(project)) for path in scan.paths("secret_file")}
    for folder in scan.paths("secret_dir"):
        hidden |= {str(path.relative_to(project)) for path in folder.rglob("*") if path.is_file()}
    return hidden


def test_the_walk_hides_exactly_what_read_file_would_not_show_unasked(tree: Path) -> None:
    not_allowed = {relative for relative in (*SECRET, *ORDINARY) if read_verdict(tree, relative) != "allow"}
    assert not_allowed == set(SECRET)
    assert hidden_by_the_walk(tree) == not_allowed


@pytest.mark.parametrize("relative", SECRET)
def test_each_secret_is_named_by_the_list(relative: str) -> None:
    path = f"/somewhere/{relative}"
    assert is_secret_file(path) or any(is_secret_folder(str(parent)) for parent in Path(path).parents)


@pytest.mark.parametrize("relative", ORDINARY)
def test_ordinary_files_are_not(relative: str) -> None:
    assert not is_secret_file(f"/somewhere/{relative}")


def test_the_refused_files_are_refused_by_read_file(tree: Path) -> None:
    for relative in ("id_rsa", ".netrc", "secrets/token", ".aws/credentials", ".git-credentials"):
        assert read_verdict(tree, relative) == "deny", relative
    assert "**/secrets/**" in SECRET_DENIES
