#!/usr/bin/env bash
# Every check, as CI runs it: formatting, lints, the crate graph, all tests.
# The PostgreSQL half of the store suite runs when ULIAS_TEST_POSTGRES_URL
# is set (e.g. postgres://postgres@127.0.0.1:5432/test); SQLite always runs.
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

step "all checks passed"
