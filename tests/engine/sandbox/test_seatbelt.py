"""The macOS profile generator (sandbox-exec cannot run here; the text is checked)."""

from __future__ import annotations

from pathlib import Path

from engine.sandbox.profile import Mount, Profile
from engine.sandbox.seatbelt import seatbelt_profile


def test_the_profile_follows_the_mounts() -> None:
    project = Path("/Users/me/pro ject")
    profile = Profile(
        mode="workspace-write",
        network=False,
        cwd=project,
        project=project,
        mounts=(
            Mount("writable", project),
            Mount("pin", project / ".git"),
            Mount("read-only", project / ".git" / "config", directory=False),
            Mount("guard", project / ".ironhive"),
            Mount("hide", Path("/Users/me/.ssh")),
            Mount("hide", project / '.env"x', directory=False),
        ),
        watch=(project / ".git" / "commondir",),
    )
    assert seatbelt_profile(profile, Path("/private/var/folders/t")) == (
        "(version 1)\n"
        "(allow default)\n"
        "(deny file-write*)\n"
        "(allow file-write*\n"
        '  (subpath "/private/var/folders/t")\n'
        '  (literal "/dev/null")\n'
        '  (literal "/dev/zero")\n'
        '  (literal "/dev/dtracehelper")\n'
        '  (regex #"^/dev/tty")\n'
        '  (subpath "/Users/me/pro ject"))\n'
        "(deny file-write*\n"
        '  (literal "/Users/me/pro ject/.git")\n'
        '  (literal "/Users/me/pro ject/.git/config")\n'
        '  (subpath "/Users/me/pro ject/.ironhive")\n'
        '  (literal "/Users/me/pro ject/.git/commondir"))\n'
        "(deny file-read* file-write*\n"
        '  (subpath "/Users/me/.ssh")\n'
        '  (literal "/Users/me/pro ject/.env\\"x"))\n'
        "(deny network-outbound (remote ip))\n"
    )


def test_the_network_rule_goes_when_the_network_is_on() -> None:
    profile = Profile(mode="read-only", network=True, cwd=Path("/p"), project=Path("/p"), mounts=())
    assert "network" not in seatbelt_profile(profile, Path("/t"))
