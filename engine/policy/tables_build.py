"""Test and build tools, as hive's defaults see them: npm, yarn, pnpm, cargo, dotnet, pytest, make, go.

Running tests or a build runs the project's own code (test files, package scripts, build scripts,
configuration files that name programs), which the agent may just have written: allowed only when
the sandbox contains it, asked otherwise. Installing packages, publishing, and options that name
another program, configuration or the global install ask; options that name files are judged.
"""

from __future__ import annotations

from engine.policy.argspec import PROJECT_CODE_REASON, Operands, Opt, Sub, ToolTable, opt

PROJECT_CODE = PROJECT_CODE_REASON
READ = "it only reads the project"
WRITE = "it changes files inside the project only"
INSTALL = "it downloads packages (and may run their install scripts)"
NETWORK = "it reaches outside the project (network, registries, accounts)"
ANY_COMMAND = "it runs any command, not just the project's"
RUNS = "it names a program or code the tool runs"


def _code(*options: Opt, operands: Operands = "none", deletes: bool = False) -> Sub:
    return Sub(cls="project_code", reason=PROJECT_CODE, options=options, operands=operands, deletes=deletes)


def _ask(reason: str) -> Sub:
    return Sub(cls="ask", reason=reason)


def _all(names: str, sub: Sub) -> dict[str, Sub]:
    return dict.fromkeys(names.split(), sub)


_NPM_OPTIONS = (
    opt("--prefix -C", "required", path="dir"),
    opt(
        "--userconfig --globalconfig",
        "required",
        path="read",
        ask="it makes npm read another configuration file, which can name programs npm runs",
    ),
    opt("--script-shell --shell --node-options --git --editor --browser --viewer --init-module", "required", ask=RUNS),
    opt("-c --call", "required", ask=ANY_COMMAND),
    opt("-g --global", ask="it works on the packages installed for the whole user or system"),
    opt("--location", "required", ask="it works on the packages installed for the whole user or system"),
    opt("--cache", "required", path="edit"),
    opt("-w --workspace --loglevel --registry --tag", "required"),
)
NPM = ToolTable(
    name="npm",
    options=_NPM_OPTIONS,
    options_anywhere=True,
    main=Sub(cls="read", reason="it prints npm's help or version"),
    subcommands={
        **_all("test t tst run run-script rum urn start stop restart pack version", _code()),
        **_all("ls list ll la explain why query prefix root", Sub(cls="read", reason=READ)),
        **_all("install i in add ci update up uninstall un remove rm r rebuild dedupe prune", _ask(INSTALL)),
        **_all("audit fund outdated view info show search publish unpublish deprecate dist-tag", _ask(NETWORK)),
        **_all("owner login logout adduser whoami token access org team star doctor ping", _ask(NETWORK)),
        **_all("exec x explore", _ask(ANY_COMMAND)),
        **_all("config c get set", _ask("it reads or changes npm's configuration, tokens included")),
        **_all("init create", _ask("it runs a package initializer downloaded from the registry")),
        **_all("link ln", _ask("it links packages into the user's global folder")),
        **_all("edit help help-search", _ask("it opens an editor, a pager or a browser")),
        "cache": _ask("it changes npm's download cache outside the project"),
    },
)
NPX = ToolTable(name="npx", main=_ask(ANY_COMMAND))
YARN = ToolTable(
    name="yarn",
    options=(opt("--cwd", "required", path="dir"),),
    options_anywhere=True,
    main=_ask(INSTALL),
    subcommands={
        **_all("test run start", _code()),
        **_all("install add up upgrade remove global link unlink npm publish create", _ask(INSTALL)),
        **_all("dlx exec", _ask(ANY_COMMAND)),
        **_all("config", _ask("it reads or changes yarn's configuration, tokens included")),
    },
)
PNPM = ToolTable(
    name="pnpm",
    options=(
        opt("-C --dir", "required", path="dir"),
        opt("-g --global", ask="it works on the packages installed for the whole user or system"),
    ),
    options_anywhere=True,
    main=Sub(cls="read", reason="it prints pnpm's help"),
    subcommands={
        **_all("test t run start", _code()),
        **_all("ls list why", Sub(cls="read", reason=READ)),
        **_all("install i add update up remove rm link publish create setup", _ask(INSTALL)),
        **_all("exec dlx x", _ask(ANY_COMMAND)),
        **_all("config", _ask("it reads or changes pnpm's configuration, tokens included")),
    },
)

CARGO = ToolTable(
    name="cargo",
    options=(
        opt("-C", "required", path="dir"),
        opt("--manifest-path", "required", path="read"),
        opt("--target-dir --artifact-dir --out-dir --lockfile-path", "required", path="edit"),
        opt(
            "--config",
            "required",
            ask="it sets cargo configuration, which names programs cargo runs (rustc-wrapper, runners)",
        ),
        opt("-Z", "required", ask="unstable options change how cargo builds and what it runs"),
        opt(
            "--color --message-format -p --package --target --features -F -j --jobs --profile --bin --example "
            "--test --bench --exclude --explain",
            "required",
        ),
        opt("--timings", "optional"),
    ),
    options_anywhere=True,
    abbreviations=False,
    main=Sub(cls="read", reason="it prints cargo's help, version or commands"),
    subcommands={
        **_all("build b check c test t bench run r doc d clippy fmt metadata tree rustc rustdoc fix", _code()),
        **_all("locate-project pkgid verify-project read-manifest help", _code()),
        "clean": _code(deletes=True),
        **_all("install uninstall publish login logout owner yank search", _ask(NETWORK)),
        **_all("add remove update fetch generate-lockfile vendor package", _ask(INSTALL)),
        **_all("new init", _ask("it creates a new package (and may run git init) where it is told")),
    },
)

_DOTNET_OPTIONS = (
    opt("-o --output --results-directory --diag -d", "required", path="edit"),
    opt("-bl -binaryLogger -binarylogger -pp -preprocess", "optional", path="edit"),
    opt("--project --settings --configfile --runsettings", "required", path="read"),
    opt(
        "-c --configuration -f --framework -r --runtime -a --arch --os -v --verbosity --logger -l --filter "
        "--property -p -e --environment -s --source",
        "required",
    ),
)
DOTNET = ToolTable(
    name="dotnet",
    options=_DOTNET_OPTIONS,
    options_anywhere=True,
    abbreviations=False,
    msbuild_switches=True,
    main=Sub(cls="read", reason="it prints .NET's version, SDKs or runtimes"),
    subcommands={
        **_all("build test run pack publish format msbuild watch vstest", _code(operands="read")),
        "clean": _code(operands="read", deletes=True),
        "restore": _ask(INSTALL),
        **_all("tool workload nuget new add remove sln dev-certs", _ask(INSTALL)),
        "user-secrets": _ask("it prints or changes the project's stored secrets"),
    },
)

_PYTEST = Sub(
    cls="project_code",
    reason=PROJECT_CODE,
    operands="read",
    node_ids=True,
    options=(
        opt("--junit-xml --junitxml --log-file --report-log --html --json-report-file", "required", path="edit"),
        opt("--basetemp", "required", path="edit", ask="pytest empties the --basetemp folder first"),
        opt("--debug", "optional", path="edit"),
        opt("-o --override-ini", "required", ask="it overrides pytest's configuration (addopts, cache_dir, plugins)"),
        opt("-c --config-file --rootdir --confcutdir", "required", path="read"),
        opt("--pastebin", "required", ask=NETWORK),
        opt("--pdb --trace", ask="it starts an interactive debugger"),
        opt("--pdbcls", "required", ask="it imports the debugger class it is given"),
        opt(
            "-p -k -m -r --deselect --ignore --ignore-glob --maxfail -n --dist --tb --import-mode --durations -W "
            "--capture --log-level --log-cli-level --log-format --timeout --junit-prefix",
            "required",
        ),
        opt("--cov", "optional"),
    ),
)
PYTEST = ToolTable(name="pytest", main=_PYTEST)
PYTEST_ALIAS = ToolTable(name="py.test", main=_PYTEST)
PYTHON_M_PYTEST = ToolTable(name="python -m pytest", main=_PYTEST, entry=("python", "-m", "pytest"))
PYTHON3_M_PYTEST = ToolTable(name="python3 -m pytest", main=_PYTEST, entry=("python3", "-m", "pytest"))

MAKE = ToolTable(
    name="make",
    main=_code(
        opt("-C --directory", "required", path="dir"),
        opt("-f --file --makefile -I --include-dir", "required", path="read"),
        opt("-o --old-file --assume-old -W --what-if --new-file --assume-new -E --eval", "required"),
        opt("-j --jobs -l --load-average -O --output-sync -d --debug --jobserver-auth --shuffle", "optional"),
    ),
)

_GO_OPTIONS = (
    opt("-C", "required", path="dir"),
    opt(
        "-o -pkgdir -outputdir -coverprofile -cpuprofile -memprofile -blockprofile -mutexprofile -trace",
        "required",
        path="edit",
    ),
    opt("-modfile -overlay", "required", path="read"),
    opt("-toolexec -exec", "required", ask=RUNS),
    opt(
        "-ldflags -gcflags -asmflags -tags -run -bench -count -timeout -p -mod -buildmode -compiler -covermode "
        "-coverpkg -cpu -parallel -benchtime -shuffle -vet -skip -fuzz -fuzztime",
        "required",
    ),
)
GO = ToolTable(
    name="go",
    options=_GO_OPTIONS,
    options_anywhere=True,
    abbreviations=False,
    single_dash_long=True,
    main=Sub(cls="read", reason="it prints go's help"),
    subcommands={
        **_all("build test vet run generate list", _code()),
        "fmt": Sub(cls="write", reason=WRITE),
        **_all("version doc", Sub(cls="read", reason=READ)),
        "env": Sub(
            cls="read",
            reason=READ,
            options=(opt("-w -u", ask="it writes go's configuration for the user"),),
        ),
        **_all("get install mod work", _ask(INSTALL)),
        "tool": _ask(RUNS),
    },
)

BUILD_TABLES = (NPM, NPX, YARN, PNPM, CARGO, DOTNET, PYTEST, PYTEST_ALIAS, PYTHON_M_PYTEST, PYTHON3_M_PYTEST, MAKE, GO)
