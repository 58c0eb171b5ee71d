# hive: `make run` installs and starts hive; `make test` installs and runs the checks and the tests.
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin
STAMP = $(VENV)/.installed-stamp
# Two workers: the suite spends most of its time waiting on subprocesses and servers.
PYTEST_ARGS ?= -n 2

.PHONY: install run test lint typecheck pytest bench clean mcp-servers codex test-local-model

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

# The MCP reference servers the tests and benchmarks run, pinned by tests/mcp_servers/package-lock.json.
MCP_SERVERS = tests/mcp_servers
MCP_STAMP = $(MCP_SERVERS)/node_modules/.installed-stamp

$(MCP_STAMP): $(MCP_SERVERS)/package.json $(MCP_SERVERS)/package-lock.json
	npm ci --prefix $(MCP_SERVERS) --no-audit --no-fund --loglevel=error
	@touch $(MCP_STAMP)

mcp-servers: $(MCP_STAMP)

run: install
	$(BIN)/hive $(ARGS)

lint: install
	$(BIN)/ruff check engine hive_cli tests benchmarks scripts
	$(BIN)/ruff format --check engine hive_cli scripts

typecheck: install
	$(BIN)/mypy engine hive_cli scripts

pytest: install mcp-servers
	$(BIN)/pytest $(PYTEST_ARGS)

test: lint typecheck pytest

# OpenAI's Codex CLI, which benchmarks/run_e2e.py compares hive with. Failing soft: without npm or the
# registry the benchmark says codex is not available and goes on.
CODEX_VERSION ?= 0.171.0
CODEX_DIR = benchmarks/support/codex
CODEX_STAMP = $(CODEX_DIR)/node_modules/.installed-$(CODEX_VERSION)

$(CODEX_STAMP):
	@mkdir -p $(CODEX_DIR)
	@npm install --prefix $(CODEX_DIR) --no-audit --no-fund --loglevel=error @openai/codex@$(CODEX_VERSION) \
		>$(CODEX_DIR)/install.log 2>&1 && touch $@ \
		|| echo "codex: not available (npm install @openai/codex@$(CODEX_VERSION) failed; see $(CODEX_DIR)/install.log)"

codex: $(CODEX_STAMP)

# Every script directly in benchmarks/ is a benchmark; shared helpers live in benchmarks/support/.
bench: install mcp-servers codex
	for b in benchmarks/*.py; do [ "$$(basename $$b)" = __init__.py ] || $(BIN)/python $$b || exit 1; done

# The real local model check, not part of `make test`: the real hive against llama-cpp-python's server and the
# SmolLM2-135M GGUF on a 2048-token window (tests/local_model/). The server is built from source once, into a
# venv cached outside the checkout (scripts/local_model_venv.sh); the check ends with a summary of the wire.
LOCAL_MODEL_SUMMARY = $(VENV)/local-model-summary.txt

test-local-model: install
	@python=$$(scripts/local_model_venv.sh) || exit 1; \
	rm -f $(LOCAL_MODEL_SUMMARY); status=0; \
	HIVE_LOCAL_MODEL_PYTHON="$$python" HIVE_LOCAL_MODEL_SUMMARY="$(abspath $(LOCAL_MODEL_SUMMARY))" \
		$(BIN)/pytest -rfE --tb=short tests/local_model || status=$$?; \
	echo "== local model check (llama-cpp-python, SmolLM2-135M, 2048-token window): what the wire showed"; \
	cat $(LOCAL_MODEL_SUMMARY) 2>/dev/null || echo "(no summary: the check did not get to run hive)"; \
	exit $$status

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
