#!/usr/bin/env bash
# The app's window as a desktop sees it, under Xvfb on a fresh data folder: its WM_CLASS class is
# the application id of the .desktop file (StartupWMClass), it carries the packaging icon (_NET_WM_ICON), and
# it opens again at the size and position it was given in the previous run (eframe keeps them in
# app.ron, saved every few seconds while the app runs).
# Usage: .ci/window-desktop.sh PATH_TO_PARTLENS
# Needs xvfb, xdotool and x11-utils (xprop).
set -euo pipefail
app=$1
app_id=io.github.partlens.Partlens
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "window-desktop: $*"; cat "$work"/app*.log 2>/dev/null | tail -n 20; exit 1; }

Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$work/display" 2>"$work/xvfb.log" &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/display" ] && break; sleep 0.1; done
[ -s "$work/display" ] || fail "Xvfb did not start"
export DISPLAY=":$(cat "$work/display")"
unset WAYLAND_DISPLAY WAYLAND_SOCKET
mkdir -p -m 700 "$work/xdg"
export XDG_RUNTIME_DIR="$work/xdg" XDG_DATA_HOME="$work/share" PARTLENS_DATA_DIR="$work/data"

# Starts the app (run number $1) and sets `window` once its window is mapped, found by its class:
# the app id.
start_app() {
  "$app" >"$work/app$1.log" 2>&1 &
  app_pid=$!
  pids+=("$app_pid")
  window=""
  for _ in $(seq 150); do
    window=$(xdotool search --onlyvisible --class "^$app_id\$" 2>/dev/null | head -1 || true)
    [ -n "$window" ] && break
    sleep 0.2
  done
  [ -n "$window" ] || fail "no window with the class $app_id appeared (run $1)"
}

geometry() { xdotool getwindowgeometry --shell "$1" | grep -E '^(X|Y|WIDTH|HEIGHT)=' | tr '\n' ' '; }

start_app 1
xprop -id "$window" WM_CLASS | grep -q "\"$app_id\"" || fail "WM_CLASS is not $app_id: $(xprop -id "$window" WM_CLASS)"
# _NET_WM_ICON is width, height, then ARGB pixels: the packaging icon is 256 px (eframe's own
# default is 512) and its background at (20, 128) is #1f3b63.
xprop -id "$window" -f _NET_WM_ICON 32c _NET_WM_ICON | cut -d= -f2 | tr -d ' ' | tr ',' '\n' >"$work/icon"
[ "$(sed -n 1,2p "$work/icon" | tr '\n' x)" = 256x256x ] || fail "the window's icon is not the 256 px packaging icon"
[ "$(sed -n "$((3 + 128 * 256 + 20))p" "$work/icon")" = $((0xff1f3b63)) ] || fail "the window's icon is not the packaging icon"

# Give the window a size and place of its own, then wait until the app has saved them. Moving the
# pointer over it makes frames, and a frame is when eframe's auto-save runs.
xdotool windowmove "$window" 130 70
xdotool windowsize "$window" 900 610
saved=""
for i in $(seq 120); do
  xdotool mousemove --window "$window" $((200 + i % 2 * 10)) 200
  if grep -q 'inner_size_points:(x:900.0,y:610.0)' "$work/data/app.ron" 2>/dev/null &&
     grep -q 'outer_position_pixels:Some((x:130.0,y:70.0))' "$work/data/app.ron"; then
    saved=yes
    break
  fi
  sleep 0.25
done
[ -n "$saved" ] || fail "the window's size and position were never saved to app.ron"
kill "$app_pid"
wait "$app_pid" 2>/dev/null || true

start_app 2
for _ in $(seq 50); do
  [ "$(geometry "$window")" = "X=130 Y=70 WIDTH=900 HEIGHT=610 " ] && break
  sleep 0.1
done
[ "$(geometry "$window")" = "X=130 Y=70 WIDTH=900 HEIGHT=610 " ] ||
  fail "the window did not open where it was left: $(geometry "$window")"
echo "window-desktop: class $app_id, icon set, size and position restored ($(geometry "$window"))"
