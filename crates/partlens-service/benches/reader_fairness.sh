#!/usr/bin/env bash
# Fairness and stopping of the reader pool, as a user sees them (issue 22): company Globex uploads a
# picture and searches by one, five times each, first on an idle service, then while company Acme's
# three reads that run to the time limit are under way; prints the medians and their ratio, then
# the time from SIGTERM to exit while Acme's reads run. Acme's files are a real STEP screw whose
# helical thread the pure-Rust reader meshes in about 18 s of CPU, read with `--reader-time-limit 8`
# so that each runs into the limit (until Nov 2026 the FreeCAD DIN 471 rings did that at the
# default limit; the reader now reads them in milliseconds). Uses the programs of a build (default:
# the debug build of a default `cargo build --workspace`, where truck reads STEP) and the
# real-world corpus beside the repository.
#
# Usage: crates/partlens-service/benches/reader_fairness.sh [TARGET_PROFILE_DIR]   (default target/debug)
set -euo pipefail
cd "$(dirname "$0")/../../.."
bin=${1:-${CARGO_TARGET_DIR:-target}/debug}
heavy=../shared/realworld/step/build123d__M6-1x12-countersunk-screw.step
[ -x "$bin/partlens-service" ] && [ -x "$bin/partlens-cli" ] || { echo "build first: cargo build --workspace" >&2; exit 1; }
[ -f "$heavy" ] || { echo "no real-world corpus at ../shared/realworld" >&2; exit 1; }
data=$(mktemp -d)
trap 'kill "$service" 2>/dev/null || true; rm -rf "$data"' EXIT
for account in ann:Acme gus:Globex; do
  echo pw | "$bin/partlens-service" --data "$data" user add --company "${account#*:}" --user "${account%%:*}" --password-stdin >/dev/null
done
"$bin/partlens-service" --data "$data" serve --addr 127.0.0.1:0 --reader-slots 2 --reader-time-limit 8 >"$data/out" 2>"$data/log" &
service=$!
url=""
for _ in $(seq 100); do url=$(sed -n '1s/^listening on //p' "$data/out"); [ -n "$url" ] && break; sleep 0.1; done
[ -n "$url" ] || { echo "the service did not start" >&2; exit 1; }
cli() { local user=$1; shift; PARTLENS_PASSWORD=pw "$bin/partlens-cli" --service "$url" --user "$user" "$@"; }
millis() { local start; start=$(date +%s%N); "$@" >/dev/null; echo $((($(date +%s%N) - start) / 1000000)); }
median_upload() { for i in 1 2 3 4 5; do millis cli gus upload assets/samples/flange.png --database "G/$1-$i.png"; done | sort -n | sed -n 3p; }
median_search() { for _ in 1 2 3 4 5; do millis cli gus search assets/samples/views/flange-a.png; done | sort -n | sed -n 3p; }
idle_upload=$(median_upload idle)
idle_search=$(median_search)
for copy in 1 2 3; do
  cli ann upload "$heavy" --database "A/screw-$copy.step" >/dev/null 2>&1 &
done
sleep 4
busy_upload=$(median_upload busy)
busy_search=$(median_search)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b / a }'; }
echo "| Globex's call | idle service | while Acme's three reads run | ratio |"
echo "|---|---|---|---|"
echo "| picture upload | $idle_upload ms | $busy_upload ms | $(ratio "$idle_upload" "$busy_upload")x |"
echo "| search by a picture | $idle_search ms | $busy_search ms | $(ratio "$idle_search" "$busy_search")x |"
workers=$(pgrep -f "$bin/partlens-service read-worker" | wc -l)
start=$(date +%s%N)
kill -TERM "$service"
status=0
wait "$service" || status=$?
echo "SIGTERM with $workers reads running: exited in $((($(date +%s%N) - start) / 1000000)) ms, status $status, $(pgrep -f "$bin/partlens-service read-worker" | wc -l) workers left"
wait
