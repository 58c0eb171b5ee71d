# hive: `make run` installs and starts hive; `make test` installs and runs the checks and the tests.
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin
STAMP = $(VENV)/.installed-stamp
# Two workers: the suite spends most of its time waiting on subprocesses and servers.
PYTEST_ARGS ?= -n 2

.PHONY: install run test lint typecheck pytest bench clean mcp-servers ray-extra codex test-local-model test-conformance conformance conformance-node22

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

# The optional `ray` extra (about 240 MB), for tests/hive_cli/test_batch_ray.py's real local cluster; `make run` goes without.
RAY_STAMP = $(VENV)/.ray-extra-stamp

$(RAY_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[dev,ray]'
	@touch $(RAY_STAMP)

ray-extra: $(RAY_STAMP)

run: install
	$(BIN)/hive $(ARGS)

lint: install
	$(BIN)/ruff check engine hive_cli tests benchmarks scripts
	$(BIN)/ruff format --check engine hive_cli scripts

typecheck: install
	$(BIN)/mypy engine hive_cli scripts

pytest: install mcp-servers conformance ray-extra
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
bench: install mcp-servers ray-extra codex
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

# The MCP conformance suite's client scenarios against hive (tests/conformance, pinned by its lock). `make test`
# installs it (`conformance`) and runs each scenario as its own test (tests/conformance/test_client_scenarios.py);
# `make test-conformance` runs the whole suite at once and prints its table. For each scenario the suite starts its
# servers on localhost and runs tests/conformance/hive_client.py with the server's URL, which drives hive's own
# command line. It needs Node >= 22: where the system's node is older, a Node 22 binary is installed from
# tests/conformance/node22 (pinned the same way). Results per scenario (checks, hive's output) land in
# CONFORMANCE_RESULTS; the table and a count are printed; any failed scenario fails it.
CONFORMANCE = tests/conformance
CONFORMANCE_STAMP = $(CONFORMANCE)/node_modules/.installed-stamp
CONFORMANCE_NODE22 = $(CONFORMANCE)/node22/node_modules/.bin/node
CONFORMANCE_NODE22_STAMP = $(CONFORMANCE)/node22/node_modules/.installed-stamp
CONFORMANCE_RESULTS = $(VENV)/conformance-results
CONFORMANCE_SUITE ?= all

$(CONFORMANCE_STAMP): $(CONFORMANCE)/package.json $(CONFORMANCE)/package-lock.json
	npm ci --prefix $(CONFORMANCE) --no-audit --no-fund --loglevel=error
	@touch $@

$(CONFORMANCE_NODE22_STAMP): $(CONFORMANCE)/node22/package.json $(CONFORMANCE)/node22/package-lock.json
	npm ci --prefix $(CONFORMANCE)/node22 --no-audit --no-fund --loglevel=error
	@touch $@

conformance-node22: $(CONFORMANCE_NODE22_STAMP)

conformance: $(CONFORMANCE_STAMP)
	@[ "$$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -ge 22 ] \
		|| $(MAKE) --no-print-directory conformance-node22

test-conformance: install conformance
	@if [ "$$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -ge 22 ]; then node=node; \
	else node=$(abspath $(CONFORMANCE_NODE22)); fi; \
	rm -rf $(CONFORMANCE_RESULTS); mkdir -p $(CONFORMANCE_RESULTS); status=0; \
	client="$(abspath $(BIN)/python) $(abspath $(CONFORMANCE)/hive_client.py)"; \
	"$$node" $(CONFORMANCE)/node_modules/@modelcontextprotocol/conformance/dist/index.js client \
		--suite $(CONFORMANCE_SUITE) -o $(CONFORMANCE_RESULTS) --command "$$client" \
		--expected-failures $(CONFORMANCE)/expected-failures.yaml \
		>$(CONFORMANCE_RESULTS)/suite.log 2>&1 || status=$$?; \
	echo "== MCP conformance suite, client scenarios (details: $(CONFORMANCE_RESULTS)/)"; \
	sed -n '/=== SUITE SUMMARY ===/,$$p' $(CONFORMANCE_RESULTS)/suite.log | grep -q . \
		&& sed -n '/=== SUITE SUMMARY ===/,$$p' $(CONFORMANCE_RESULTS)/suite.log \
		|| { cat $(CONFORMANCE_RESULTS)/suite.log; status=1; }; \
	for scenario in $$(sed -n 's/^  - //p' $(CONFORMANCE)/expected-failures.yaml); do \
		"$$node" $(CONFORMANCE)/node_modules/conformance-fixed/dist/index.js client --scenario $$scenario \
			-o $(CONFORMANCE_RESULTS)/fixed --command "$$client" >$(CONFORMANCE_RESULTS)/fixed.log 2>&1 \
			&& echo "✓ $$scenario: passes against the suite's corrected mock (0.2.0-alpha.12; see expected-failures.yaml)" \
			|| { echo "✗ $$scenario: fails against the suite's corrected mock too ($(CONFORMANCE_RESULTS)/fixed.log)"; status=1; }; \
	done; \
	exit $$status

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
