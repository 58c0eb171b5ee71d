"""The toolchains and caches a sandboxed command still sees, read-only, in a home folder it otherwise sees empty.

In ``workspace-write`` and ``read-only`` the home is an empty private folder inside the sandbox (see
:mod:`engine.sandbox.home`). Builds still need the language runtimes and the package caches people
keep there, so the folders of :data:`TOOLCHAINS` are shown again, read-only, when they exist. Each
entry names its usual place under the home; an environment variable that moves it wins when it is
set to an absolute path (``$CARGO_HOME`` over ``~/.cargo``). Only parts of a toolchain's folder are
shown where the rest holds credentials (``~/.cargo/credentials.toml`` stays hidden: only ``bin``,
``registry``, ``git`` and ``env`` are shown), and the credential files that live *inside* a shown
folder (a global ``npmrc`` of a node version manager, ``~/.gem/credentials``) are hidden again.

Writes to a shown folder fail (caches are read-only): a build works offline from what is already
fetched, and a download lands in the empty home, gone after the command. ``sandbox.read_paths`` in
the user's settings shows more.
"""

from __future__ import annotations

import glob
import os
import threading
import time
from collections.abc import Mapping
from pathlib import Path

from msgspec import Struct


class Toolchain(Struct, frozen=True, kw_only=True):
    """One toolchain's folder under the home, the parts of it shown, and the secrets inside them kept hidden."""

    name: str
    place: str = ""
    """Its usual folder, relative to the home (``.cargo``); empty when only ``moved_by`` can name it."""
    moved_by: tuple[tuple[str, str], ...] = ()
    """``(VARIABLE, suffix)``: the first variable set to an absolute path names the folder instead
    (the suffix appended, ``("XDG_CACHE_HOME", "pip")``)."""
    parts: tuple[str, ...] = ("",)
    """What is shown, relative to the folder (``""`` is the folder itself)."""
    secrets: tuple[str, ...] = ()
    """Globs relative to the folder of credential files kept hidden inside the shown parts."""


def _cache(name: str, variable: str = "") -> Toolchain:
    moved = ((variable, ""),) if variable else ()
    return Toolchain(name=name, place=f".cache/{name}", moved_by=(*moved, ("XDG_CACHE_HOME", name)))


def _data(name: str, variable: str = "", parts: tuple[str, ...] = ("",)) -> Toolchain:
    moved = ((variable, ""),) if variable else ()
    return Toolchain(name=name, place=f".local/share/{name}", moved_by=(*moved, ("XDG_DATA_HOME", name)), parts=parts)


def _moved(name: str, variable: str) -> Toolchain:
    """A folder known only by its variable (``$VIRTUAL_ENV``), shown when it lies in the home."""
    return Toolchain(name=name, moved_by=((variable, ""),))


_NPMRC_OF_EACH_NODE = "*/etc/npmrc"

TOOLCHAINS: tuple[Toolchain, ...] = (
    # rust
    Toolchain(name="cargo", place=".cargo", moved_by=(("CARGO_HOME", ""),), parts=("bin", "registry", "git", "env")),
    Toolchain(name="rustup", place=".rustup", moved_by=(("RUSTUP_HOME", ""),)),
    # node
    Toolchain(
        name="npm cache",
        place=".npm",
        moved_by=(("npm_config_cache", ""), ("NPM_CONFIG_CACHE", "")),
        parts=("_cacache",),
    ),
    Toolchain(name="nvm", place=".nvm", moved_by=(("NVM_DIR", ""),), secrets=(f"versions/node/{_NPMRC_OF_EACH_NODE}",)),
    Toolchain(name="volta", place=".volta", moved_by=(("VOLTA_HOME", ""),), secrets=("tools/image/node/*/etc/npmrc",)),
    Toolchain(
        name="fnm",
        place=".local/share/fnm",
        moved_by=(("FNM_DIR", ""), ("XDG_DATA_HOME", "fnm")),
        secrets=("node-versions/*/installation/etc/npmrc",),
    ),
    Toolchain(name="fnm (old place)", place=".fnm", secrets=("node-versions/*/installation/etc/npmrc",)),
    _data("pnpm", "PNPM_HOME"),
    _cache("pnpm"),
    _cache("yarn", "YARN_CACHE_FOLDER"),
    Toolchain(name="yarn berry cache", place=".yarn/berry/cache"),
    Toolchain(name="corepack", place=".cache/node/corepack", moved_by=(("COREPACK_HOME", ""),)),
    # python
    Toolchain(name="pyenv", place=".pyenv", moved_by=(("PYENV_ROOT", ""),)),
    Toolchain(
        name="uv pythons",
        place=".local/share/uv/python",
        moved_by=(("UV_PYTHON_INSTALL_DIR", ""), ("XDG_DATA_HOME", "uv/python")),
    ),
    Toolchain(
        name="uv tools", place=".local/share/uv/tools", moved_by=(("UV_TOOL_DIR", ""), ("XDG_DATA_HOME", "uv/tools"))
    ),
    _cache("uv", "UV_CACHE_DIR"),
    _cache("pip", "PIP_CACHE_DIR"),
    _cache("pypoetry", "POETRY_CACHE_DIR"),
    _data("pypoetry", "POETRY_HOME"),
    _data("pipx", "PIPX_HOME"),
    Toolchain(name="pipx (old place)", place=".local/pipx"),
    Toolchain(name="user programs", place=".local/bin"),
    Toolchain(name="user libraries", place=".local/lib"),
    Toolchain(name="virtualenvwrapper", place=".virtualenvs", moved_by=(("WORKON_HOME", ""),)),
    *(Toolchain(name=name, place=name, secrets=(".condarc",)) for name in ("miniconda3", "anaconda3", "miniforge3")),
    Toolchain(name="conda environments", place=".conda/envs"),
    _moved("the active virtual environment", "VIRTUAL_ENV"),
    _moved("the active conda environment", "CONDA_PREFIX"),
    # go
    Toolchain(name="go", place="go", moved_by=(("GOPATH", ""),), parts=("bin", "pkg/mod")),
    _moved("go module cache", "GOMODCACHE"),
    _moved("go programs", "GOBIN"),
    _moved("go root", "GOROOT"),
    Toolchain(name="go versions", place="sdk"),
    # jvm
    Toolchain(
        name="gradle",
        place=".gradle",
        moved_by=(("GRADLE_USER_HOME", ""),),
        parts=("caches", "wrapper/dists", "jdks"),
    ),
    Toolchain(name="maven", place=".m2", parts=("repository", "wrapper")),
    Toolchain(name="sdkman", place=".sdkman", moved_by=(("SDKMAN_DIR", ""),), parts=("candidates",)),
    Toolchain(name="downloaded JDKs", place=".jdks"),
    _moved("java home", "JAVA_HOME"),
    Toolchain(name="ivy", place=".ivy2", parts=("cache", "local")),
    Toolchain(name="sbt", place=".sbt", parts=("boot",)),
    _cache("coursier", "COURSIER_CACHE"),
    # ruby
    Toolchain(name="gems", place=".gem", secrets=("credentials",)),
    _data("gem"),
    _moved("gem home", "GEM_HOME"),
    Toolchain(name="rbenv", place=".rbenv", moved_by=(("RBENV_ROOT", ""),)),
    Toolchain(name="rvm", place=".rvm", moved_by=(("rvm_path", ""),)),
    Toolchain(name="bundler cache", place=".bundle/cache"),
    # native, dotnet, others
    Toolchain(name="ccache", place=".ccache", moved_by=(("CCACHE_DIR", ""),)),
    _cache("ccache"),
    _cache("deno", "DENO_DIR"),
    Toolchain(name="deno", place=".deno", moved_by=(("DENO_INSTALL", ""),), parts=("bin",)),
    Toolchain(name="bun", place=".bun", moved_by=(("BUN_INSTALL", ""),), parts=("bin", "install/cache")),
    Toolchain(
        name="dotnet",
        place=".dotnet",
        moved_by=(("DOTNET_ROOT", ""),),
        parts=("dotnet", "sdk", "shared", "host", "packs", "templates", "sdk-manifests", "metadata", "tools"),
    ),
    Toolchain(name="nuget packages", place=".nuget/packages", moved_by=(("NUGET_PACKAGES", ""),)),
    Toolchain(name="ghcup", place=".ghcup", parts=("bin", "ghc")),
    Toolchain(name="cabal", place=".cabal", parts=("packages", "store", "bin")),
    Toolchain(name="hex packages", place=".hex/packages"),
    Toolchain(name="mix", place=".mix"),
    Toolchain(name="julia", place=".julia", moved_by=(("JULIA_DEPOT_PATH", ""),), parts=("packages", "artifacts")),
    Toolchain(name="juliaup", place=".juliaup"),
    Toolchain(
        name="asdf",
        place=".asdf",
        moved_by=(("ASDF_DATA_DIR", ""),),
        parts=("installs", "shims", "plugins", "bin", "lib"),
    ),
    Toolchain(name="asdf versions", place=".tool-versions"),
    _data("mise", "MISE_DATA_DIR", ("installs", "shims")),
    Toolchain(name="nix profile", place=".nix-profile"),
    # git's global ignore and attributes files (its configuration is shown as a filtered copy)
    Toolchain(name="git ignore", place=".config/git/ignore", moved_by=(("XDG_CONFIG_HOME", "git/ignore"),)),
    Toolchain(name="git attributes", place=".config/git/attributes", moved_by=(("XDG_CONFIG_HOME", "git/attributes"),)),
)
"""The allow-list, in the order docs/sandbox.md lists them (rust, node, python, go, jvm, ruby, others)."""


class ShownFolders(Struct, frozen=True):
    """What the allow-list shows under the homes: the paths shown read-only, and the secrets inside them."""

    shown: tuple[Path, ...] = ()
    secrets: tuple[Path, ...] = ()


def toolchain_folders(homes: tuple[Path, ...], env: Mapping[str, str]) -> ShownFolders:
    """The existing toolchain paths under ``homes`` (as seen under each home, links not resolved).

    A toolchain moved by its variable is looked for there alone; otherwise at its usual place in each
    home (``$HOME`` and the account's own home may differ, and both are hidden).
    """
    shown: list[str] = []
    secrets: list[str] = []
    names = {home: _names_in(home) for home in homes}
    for toolchain in TOOLCHAINS:
        for folder in _folders(toolchain, homes, env, names):
            parts = [os.path.join(folder, part) if part else folder for part in toolchain.parts]
            present = [path for path in parts if os.path.exists(path)]
            shown += present
            if present:
                secrets += _secrets_inside(folder, toolchain.secrets, present)
    return ShownFolders(tuple(map(Path, dict.fromkeys(shown))), tuple(map(Path, dict.fromkeys(secrets))))


def _folders(
    toolchain: Toolchain, homes: tuple[Path, ...], env: Mapping[str, str], names: dict[Path, frozenset[str]]
) -> list[str]:
    """The toolchain's folders that lie inside a home (elsewhere it is visible as it is)."""
    for variable, suffix in toolchain.moved_by:
        value = env.get(variable, "").split(os.pathsep)[0]  # GOPATH and JULIA_DEPOT_PATH may be lists
        if value and os.path.isabs(value):
            folder = os.path.normpath(os.path.join(value, suffix))
            return [folder] if _strictly_inside(folder, homes) else []
    if not toolchain.place:
        return []
    first = toolchain.place.split("/", 1)[0]
    return [os.path.join(home, toolchain.place) for home in homes if first in names[home]]


def _strictly_inside(path: str, homes: tuple[Path, ...]) -> bool:
    return any(path.startswith(str(home).rstrip("/") + "/") for home in homes)


def _secrets_inside(folder: str, patterns: tuple[str, ...], shown: list[str]) -> list[str]:
    prefixes = tuple(os.path.join(part, "") for part in shown)
    found = []
    for pattern in patterns:
        for match in glob.glob(glob.escape(folder) + "/" + pattern):
            if match in shown or match.startswith(prefixes):
                found.append(match)
    return found


# A folder's timestamp has a coarse granularity: one that changed this recently is listed again.
_RACY_NS = 2_000_000_000
_listed: dict[str, tuple[int, int, frozenset[str]]] = {}
_listed_lock = threading.Lock()


def _names_in(home: Path) -> frozenset[str]:
    """The names in ``home`` (listed again only when it changed): most toolchains are absent, one lookup says so."""
    key = str(home)
    try:
        st = os.stat(key)
    except OSError:
        return frozenset()
    with _listed_lock:
        earlier = _listed.get(key)
        if earlier is not None and earlier[:2] == (st.st_mtime_ns, st.st_ino):
            return earlier[2]
    try:
        names = frozenset(os.listdir(key))
    except OSError:
        return frozenset()
    if time.time_ns() - st.st_mtime_ns > _RACY_NS:
        with _listed_lock:
            _listed[key] = (st.st_mtime_ns, st.st_ino, names)
    return names
