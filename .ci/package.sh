#!/usr/bin/env bash
# CI for the packages (issue 12). Builds the Debian package from the binaries the test build made (no
# release build: packaging/build-deb --prebuilt), checks it (lintian, desktop-file-validate,
# appstreamcli, systemd-analyze), installs it with dpkg, runs the installed programs (--version of
# all three; partlens-service on a fresh data folder, against which the installed partlens-cli logs
# in, uploads a sample and finds it; the installed partlens under Xvfb, with its screenshot kept in
# TARGET_DIR/ci-artifacts/, its window class, icon and remembered geometry), then purges it again.
# Usage: .ci/package.sh TARGET_DIR   (the cargo target folder whose debug/ holds the binaries)
set -euo pipefail
cd "$(dirname "$0")/.."
target_dir=${1:-${CARGO_TARGET_DIR:-target}}
artifacts=$target_dir/ci-artifacts
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"

# 1. System packages, idempotent: apt runs only when something is missing. dpkg-dev computes the
#    dependencies; the checkers; x11-utils (xprop) reads the window's class and icon;
#    libwayland-egl1 is the one dependency of the package that the base image lacks (dpkg -i does
#    not fetch dependencies).
PKGS=(dpkg-dev lintian desktop-file-utils appstream man-db xvfb xauth xdotool imagemagick x11-utils
      libwayland-egl1)
missing=()
for p in "${PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# 2. cargo-deb, pinned (about 2 min of compiling on 2 cores when it is not there yet).
if ! cargo deb --version >/dev/null 2>&1; then
  started=$SECONDS
  cargo install --locked --quiet cargo-deb@3.8.0
  echo "package: cargo-deb installed in $((SECONDS - started)) s"
fi

# 3. The desktop files as committed.
desktop-file-validate packaging/linux/*.desktop
appstreamcli validate --no-net packaging/linux/io.github.partlens.Partlens.metainfo.xml

# 4. Build and check the .deb.
deb=$(packaging/build-deb --prebuilt "$target_dir/debug" --output "$target_dir/debian" | tail -n 1)
echo "package: built $deb ($(du -h "$deb" | cut -f1))"
lintian --fail-on error,warning "$deb"

# 5. Install it; purge it again at the end, with the system user it created.
if dpkg-query -W -f='${Status}' partlens 2>/dev/null | grep -q 'install ok installed'; then
  echo "package: partlens is installed on this machine already; remove it first (dpkg -P partlens)"
  exit 1
fi
user_existed=""; getent passwd partlens >/dev/null && user_existed=yes
work=$(mktemp -d)
service_pid=""
cleanup() {
  [ -n "$service_pid" ] && kill "$service_pid" 2>/dev/null || true
  $SUDO dpkg --purge partlens >/dev/null 2>&1 || true
  if [ -z "$user_existed" ] && getent passwd partlens >/dev/null; then $SUDO userdel partlens || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
$SUDO dpkg -i "$deb"

# 6. What the package installed.
for file in /usr/share/applications/io.github.partlens.Partlens.desktop \
            /usr/share/applications/io.github.partlens.Partlens.search.desktop; do
  desktop-file-validate "$file"
done
appstreamcli validate --no-net /usr/share/metainfo/io.github.partlens.Partlens.metainfo.xml
for page in partlens partlens-cli partlens-service; do
  man -w "$page" >/dev/null || { echo "package: no man page $page"; exit 1; }
done
getent passwd partlens >/dev/null || { echo "package: the system user partlens was not created"; exit 1; }
if command -v systemd-analyze >/dev/null; then
  systemd-analyze verify /usr/lib/systemd/system/partlens-service.service
fi
[ -f /etc/default/partlens-service ] || { echo "package: /etc/default/partlens-service is missing"; exit 1; }

# 7. Every installed program answers --version with the package's version.
version=$(dpkg-deb -f "$deb" Version | sed 's/-[^-]*$//')
for program in partlens partlens-cli partlens-service; do
  answer=$(/usr/bin/$program --version)
  [ "$answer" = "$program $version" ] || { echo "package: $program --version said '$answer'"; exit 1; }
done

# 8. The installed service on a fresh data folder, on an ephemeral loopback port; the installed CLI
#    logs in, uploads a sample into the company database and finds it by a photo of the part.
data=$(mktemp -d -p "$work")
password=ci-$RANDOM$RANDOM
/usr/bin/partlens-service --data "$data" user add --company CI --user ci --admin --password-stdin <<<"$password" >/dev/null
/usr/bin/partlens-service --data "$data" serve --addr 127.0.0.1:0 >"$work/service.out" 2>"$work/service.log" &
service_pid=$!
url=""
for _ in $(seq 150); do
  url=$(sed -n '1s/^listening on //p' "$work/service.out")
  [ -n "$url" ] && break
  kill -0 "$service_pid" 2>/dev/null || break
  sleep 0.2
done
[ -n "$url" ] || { echo "package: the installed service did not start"; cat "$work/service.log"; exit 1; }
cli() { PARTLENS_PASSWORD=$password /usr/bin/partlens-cli --service "$url" --user ci "$@"; }
uploaded=$(cli upload assets/samples/flange.png --database CI/flange.png --attr material=steel)
echo "package: upload -> $uploaded"
grep -q '"state":"completed"' <<<"$uploaded" || { echo "package: the upload did not complete"; exit 1; }
# The package is built with OpenCASCADE: an IGES model (which only OpenCASCADE reads) and a FreeCAD
# STEP file with PCURVEs (a DIN 471 retaining ring) are indexed with a picture.
for model in ../shared/realworld/iges/occt__hammer.iges \
             ../shared/realworld/step/freecadlib__RetainingRings__DIN471_CLASS_A_M10RetainingRings.step; do
  uploaded=$(cli upload "$model" --database "CI/$(basename "$model")")
  grep -q '"state":"completed"' <<<"$uploaded" || { echo "package: $model was not indexed: $uploaded"; exit 1; }
  uid=$(sed -n 's/.*"uid": *"\([^"]*\)".*/\1/p' <<<"$uploaded")
  record=$(cli file "$uid")
  grep -q '"HasThumbnail": *true' <<<"$record" || { echo "package: $model has no picture: $record"; exit 1; }
done
echo "package: the installed service read an IGES model and a DIN 471 STEP with OpenCASCADE"
found=$(cli search assets/samples/views/flange-a.png)
grep -q '"DisplayName":"flange.png"' <<<"$found" || { echo "package: the search did not find the sample: $found"; exit 1; }
kill "$service_pid"
wait "$service_pid" || { echo "package: the service did not stop cleanly"; cat "$work/service.log"; exit 1; }
service_pid=""
echo "package: installed partlens-service served $url; partlens-cli logged in, uploaded and found the sample"

# 9. The installed app under Xvfb: window, local workspace with the installed sample library,
#    screenshot; then its class, icon and remembered size and position.
bash .ci/smoke-window.sh /usr/bin/partlens "$artifacts/window-installed.png" /usr/bin/../share/partlens/samples
bash .ci/window-desktop.sh /usr/bin/partlens

# 10. Purged without leftovers.
$SUDO dpkg --purge partlens >/dev/null
[ ! -e /usr/bin/partlens ] && [ ! -e /etc/default/partlens-service ] ||
  { echo "package: files left after dpkg --purge"; exit 1; }
echo "package: built, checked, installed, ran and purged $(basename "$deb")"
