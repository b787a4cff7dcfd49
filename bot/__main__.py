"""``python -m bot`` is the ``boardroom`` command."""

from bot.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
