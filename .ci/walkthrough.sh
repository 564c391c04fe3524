#!/usr/bin/env bash
# The issue-50 walkthrough of the real window, as a user does it: under Xvfb on a fresh data folder
# (the local workspace: the service in-process on 127.0.0.1), 20 real files of ../shared/realworld
# given on the command line, then upload, Jobs, Library, search by a STEP ("More like this" on its
# card), detail, compare, duplicates, one search by keyboard only and the F1 sheet, a screenshot of
# the window (1120×720, its default size) after each step. Pointer positions are those of the default
# window; docs/WALKTHROUGH.md says what each screenshot shows. Not part of .ci/run: the screenshots
# are to be looked at.
# Usage: .ci/walkthrough.sh PATH_TO_PARTLENS OUTPUT_DIR [REALWORLD_DIR]
# Needs xvfb, xdotool and imagemagick.
set -euo pipefail
app=$(realpath "$1")
out=$(mkdir -p "$2" && realpath "$2")
realworld=$(realpath "${3:-../shared/realworld}")
files=(
  step/freecadlib__Bolts_Screws__ISO4762_Hex_Socket_Head_Cap_Screw_M3x10.step
  mesh/freecadlib__Bolts_Screws__ISO4762_Hex_Socket_Head_Cap_Screw_M3x10.stl
  step/freecadlib__Bolts_Screws__ISO4762_Hex_Socket_Head_Cap_Screw_M4x20.step
  mesh/freecadlib__Bolts_Screws__ISO4762_Hex_Socket_Head_Cap_Screw_M4x20.stl
  step/voron0__HotendMount_FanSaver__FS_Hotend_Mount_Dragon.step
  mesh/voron0__HotendMount_FanSaver__a_FS_Hotend_Mount_Dragon.stl
  step/voron0__HotendMount_FanSaver__FS_Hotend_Mount_Revo_Voron.step
  mesh/voron0__HotendMount_FanSaver__a_FS_Hotend_Mount_Revo_Voron.stl
  step/prusa_i3__fs-lever.stp
  mesh/prusa_i3__fs-lever.stl
  step/prusa_i3__extruder-idler.stp
  mesh/prusa_i3__extruder-idler.stl
  step/thor__Art2MotorGear.step
  mesh/thor__Art2MotorGear.stl
  iges/bladex__root.iges
  iges/dealii__side.iges
  dxf/trimesh__ae.r12a.dxf
  dxf/trimesh__ae.r2013a.dxf
  pdf/voron0__Hotend_Mount_Dimensions.pdf
  pdf/voron0__Bottom_Panel.pdf
)
work=$(mktemp -d)
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT
fail() { echo "walkthrough: $*"; tail -n 20 "$work/app.log" 2>/dev/null; exit 1; }

Xvfb -displayfd 3 -screen 0 1280x800x24 -nolisten tcp 3>"$work/display" 2>"$work/xvfb.log" &
pids+=($!)
for _ in $(seq 100); do [ -s "$work/display" ] && break; sleep 0.1; done
[ -s "$work/display" ] || fail "Xvfb did not start"
export DISPLAY=":$(cat "$work/display")"
unset WAYLAND_DISPLAY WAYLAND_SOCKET
mkdir -p -m 700 "$work/xdg"
export XDG_RUNTIME_DIR="$work/xdg" XDG_DATA_HOME="$work/share" PARTLENS_DATA_DIR="$work/data"

# The screenshot of the window's 1120×720 at the top left of the screen.
shot() { sleep "${2:-1}"; import -window root -crop 1120x720+0+0 +repage "$out/walkthrough-$1.png"; echo "walkthrough: $1"; }
click() { xdotool mousemove "$1" "$2" click 1; }
scroll_down() { xdotool mousemove "$1" "$2"; for _ in $(seq 10); do xdotool click 5; done; }

(cd "$realworld" && exec "$app" "${files[@]}") >"$work/app.log" 2>&1 &
pids+=($!)
for _ in $(seq 150); do
  xdotool search --name '^partlens$' >/dev/null 2>&1 && break
  sleep 0.2
done
window=$(xdotool search --name '^partlens$' 2>/dev/null | head -1 || true)
[ -n "$window" ] || fail "the window never appeared"
shot 01-upload-form 6
# Without a window manager the keyboard goes to the focused window: give it the focus (once it is
# mapped).
xdotool windowfocus --sync "$window"
# The sample library in before the upload, as in the recorded run: the Library lists newest first,
# and the clicks below are on the cards where the 20 files then are.
for _ in $(seq 600); do
  grep -qE 'added ([1-9][0-9]*) of \1 sample parts' "$work/app.log" && break
  sleep 0.5
done
scroll_down 500 500
shot 02-upload-form-bottom
click 36 606 # Company database file
scroll_down 900 500
shot 03-upload-company
click 70 693 # Upload 20 files
shot 04-jobs 2
# Indexing the 20 files took about 40 s on a busy 2-core machine (the log names failed jobs only);
# the Library below must hold all 42 files.
shot 05-jobs-later 60
xdotool mousemove 620 360 # over the reason of a failed job
shot 06-jobs-hover 1.5
xdotool mousemove 560 60 key ctrl+l
shot 07-library 2
click 74 378 # More like this on the first card (prusa_i3__extruder-idler.stp)
shot 08-search-by-step 5
click 114 360 # its first result
shot 09-detail 4
xdotool key BackSpace
sleep 1.5
click 192 514 # tick the first two results
click 396 514
click 663 260 # Compare (2)
shot 10-compare 4
xdotool key Escape
sleep 1
xdotool key ctrl+shift+d
shot 11-duplicates 6
# One search by keyboard only.
xdotool mousemove 1110 710 key ctrl+f
sleep 1
xdotool type --delay 60 "fs-lever"
shot 12-keyboard-typed 0.5
xdotool key Return
shot 13-keyboard-results 4
xdotool key Down Right
shot 14-keyboard-cursor
xdotool key Return
shot 15-keyboard-detail 3
xdotool key BackSpace
shot 16-keyboard-back 1.5
xdotool key F1
shot 17-shortcuts-sheet
xdotool key Escape ctrl+l
sleep 1.5
click 726 225 # the fourth card of the Library (voron0__Hotend_Mount_Dimensions.pdf)
shot 18-detail-pdf 4
kill -0 "${pids[1]}" 2>/dev/null || fail "the app exited"
echo "walkthrough: screenshots in $out"
