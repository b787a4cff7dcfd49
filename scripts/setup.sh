#!/usr/bin/env bash
# Shared by scripts/run and scripts/check: create .venv and install the project into it, at the
# versions uv.lock pins (the lock the Dockerfile installs from too).
# Usage: scripts/setup.sh [dev]   ("dev" adds the test and lint tools and redis-server)
set -euo pipefail
cd "$(dirname "$0")/.."

dev=""
[ "${1:-}" = "dev" ] && dev="dev"

if [ ! -x .venv/bin/python ]; then
  "${PYTHON:-python3}" -m venv .venv
fi

# Reinstall only when the dependency list or the lock changed since the last install.
stamp=".venv/.installed${dev:+[dev]}"
want="$(cat pyproject.toml uv.lock | sha256sum | cut -d' ' -f1)"
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  # uv, itself installed into .venv by pip first, installs exactly what uv.lock pins (about 7 s
  # on a fresh machine, where pip alone takes about 18). --locked: a pyproject.toml changed
  # without `uv lock` fails here, rather than installing what the lock does not say;
  # --inexact: what else .venv holds (uv itself) stays. Where uv cannot be had, pip installs
  # the same pins, read from uv.lock as constraints.
  # The installers' chatter goes to a log that is shown only when the install fails.
  if ! {
    if [ -x .venv/bin/uv ] || .venv/bin/python -m pip install --quiet uv; then
      .venv/bin/uv sync --quiet --locked --inexact --python .venv/bin/python ${dev:+--extra dev}
    else
      .venv/bin/python - > .venv/constraints.txt <<'PY'
import tomllib

with open("uv.lock", "rb") as lock:
    for package in tomllib.load(lock)["package"]:
        if "registry" in package.get("source", {}):
            print(f"{package['name']}=={package['version']}")
PY
      .venv/bin/python -m pip install --quiet -c .venv/constraints.txt -e ".${dev:+[dev]}"
    fi
  } > .venv/install.log 2>&1; then
    cat .venv/install.log >&2
    exit 1
  fi
  echo "$want" > "$stamp"
fi

# The storage and authority tests start their own redis-server on a free loopback port.
if [ -n "$dev" ] && ! command -v redis-server >/dev/null 2>&1; then
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
      || { [ -z "$dev" ] && echo "Could not install libfribidi0: pictures will draw Arabic unjoined." >&2; } \
      || exit 1
  elif [ -n "$dev" ]; then
    echo "FriBiDi (libfribidi) is missing and apt-get is not here: install it to run the checks." >&2
    exit 1
  fi
fi
