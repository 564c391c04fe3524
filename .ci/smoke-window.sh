#!/usr/bin/env bash
# Headless smoke test of the real window: starts `partlens` under Xvfb on a fresh data folder, waits for
# its window and for the local workspace to be created, takes a screenshot and checks it is not blank.
# Usage: .ci/smoke-window.sh PATH_TO_PARTLENS OUTPUT_PNG [SAMPLES_DIR]
# With SAMPLES_DIR it also checks that the sample library came from that folder (an installed
# package's own copy rather than the source tree's).
set -euo pipefail
app=$1
shot=$2
samples_dir=${3:-}
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$work/display" 2>"$work/xvfb.log" &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/display" ] && break; sleep 0.1; done
[ -s "$work/display" ] || { echo "smoke: Xvfb did not start"; cat "$work/xvfb.log"; exit 1; }
export DISPLAY=":$(cat "$work/display")"
unset WAYLAND_DISPLAY WAYLAND_SOCKET
mkdir -p -m 700 "$work/xdg"
export XDG_RUNTIME_DIR="$work/xdg" XDG_DATA_HOME="$work/share" PARTLENS_DATA_DIR="$work/data"

"$app" >"$work/app.log" 2>&1 &
pids+=($!)
window=""
for _ in $(seq 150); do
  window=$(xdotool search --name '^partlens$' 2>/dev/null | head -1 || true)
  [ -n "$window" ] && break
  sleep 0.2
done
[ -n "$window" ] || { echo "smoke: the window never appeared"; cat "$work/app.log"; exit 1; }

# The local workspace opens logged in, then the sample library is added to it.
for _ in $(seq 300); do
  grep -q 'sample parts are in' "$work/app.log" && break
  sleep 0.2
done
grep -q 'local workspace open at' "$work/app.log" || { echo "smoke: the local workspace did not open"; cat "$work/app.log"; exit 1; }
grep -qE '([1-9][0-9]*) of \1 sample parts are in \(0 left' "$work/app.log" || { echo "smoke: the sample library was not added whole"; cat "$work/app.log"; exit 1; }
if [ -n "$samples_dir" ]; then
  grep -qE "sample library \(\w+\) of [0-9]+ parts from $samples_dir\$" "$work/app.log" ||
    { echo "smoke: the sample library did not come from $samples_dir"; grep 'sample parts' "$work/app.log"; exit 1; }
fi
sleep 2
mkdir -p "$(dirname "$shot")"
import -window root "$shot"
spread=$(convert "$shot" -colorspace Gray -format '%[fx:standard_deviation]' info:)
awk -v s="$spread" 'BEGIN { exit !(s > 0.02) }' || { echo "smoke: the screenshot looks blank ($spread)"; cat "$work/app.log"; exit 1; }
if ! kill -0 "${pids[1]}" 2>/dev/null; then echo "smoke: the app exited"; cat "$work/app.log"; exit 1; fi
echo "smoke: window up, local workspace created, screenshot $shot"
