#!/usr/bin/env bash
# The crate graph is the architecture: fail when a crate reaches where it must not.
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
forbid() { # crate, then the crates it must not depend on (directly or not)
  local crate=$1; shift
  local tree
  tree=$(cargo tree --locked -p "$crate" -e normal --prefix none --format '{p}' | awk '{print $1}' | sort -u)
  for banned in "$@"; do
    if grep -qx "$banned" <<<"$tree"; then
      echo "crate graph: $crate depends on $banned, which it must not" >&2
      status=1
    fi
  done
}

forbid ulias-antispam tokio sqlx teloxide reqwest anyhow ulias-core ulias-agents ulias-bot
forbid ulias-core teloxide reqwest anyhow ulias-antispam ulias-agents ulias-bot
forbid ulias-agents teloxide anyhow ulias-antispam ulias-bot

[ "$status" -eq 0 ] && echo "crate graph: ok (antispam and core depend on nothing of ours; only bot uses anyhow)"
exit "$status"
