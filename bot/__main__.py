"""``python -m bot`` is the ``boardroom`` command."""

from bot.cli import main

raise SystemExit(main())
