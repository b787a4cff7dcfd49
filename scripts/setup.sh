#!/usr/bin/env bash
# Shared by scripts/run and scripts/check: create .venv and install the project into it.
# Usage: scripts/setup.sh [dev]   ("dev" adds the test and lint tools and redis-server)
set -euo pipefail
cd "$(dirname "$0")/.."

extra=""
[ "${1:-}" = "dev" ] && extra="[dev]"

if [ ! -x .venv/bin/python ]; then
  "${PYTHON:-python3}" -m venv .venv
fi

# Reinstall only when pyproject.toml (the dependency list) changed since the last install.
stamp=".venv/.installed${extra}"
want="$(sha256sum pyproject.toml | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  # The project is installed with uv, itself installed into .venv by pip first: on a fresh
  # machine that takes about 7 s where pip alone takes about 18 (it resolves and unpacks the
  # same releases, one at a time). Where uv cannot be had, pip does it all.
  # The installers' chatter goes to a log that is shown only when the install fails.
  if ! {
    if [ -x .venv/bin/uv ] || .venv/bin/python -m pip install --quiet uv; then
      .venv/bin/uv pip install --quiet --python .venv/bin/python -e ".${extra}"
    else
      .venv/bin/python -m pip install --quiet -e ".${extra}"
    fi
  } > .venv/install.log 2>&1; then
    cat .venv/install.log >&2
    exit 1
  fi
  echo "$want" > "$stamp"
fi

# The storage and authority tests start their own redis-server on a free loopback port.
if [ -n "$extra" ] && ! command -v redis-server >/dev/null 2>&1; then
  echo "redis-server is missing: installing Debian's redis-server package" >&2
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq redis-server >/dev/null
fi

# The pictures lay text out with Pillow's raqm (Arabic letters joined, right to left; Indic
# scripts shaped), which loads FriBiDi from the system: Debian's libfribidi0.
if ! .venv/bin/python -c 'from PIL import features; raise SystemExit(not features.check("raqm"))' 2>/dev/null; then
  if command -v apt-get >/dev/null 2>&1; then
    echo "FriBiDi is missing (Pillow's raqm layout needs it): installing Debian's libfribidi0" >&2
    sudo=""
    [ "$(id -u)" -ne 0 ] && sudo="sudo"
    { $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq libfribidi0 >/dev/null; } \
      || { [ -z "$extra" ] && echo "Could not install libfribidi0: pictures will draw Arabic unjoined." >&2; } \
      || exit 1
  elif [ -n "$extra" ]; then
    echo "FriBiDi (libfribidi) is missing and apt-get is not here: install it to run the checks." >&2
    exit 1
  fi
fi
