"""``python -m cya_bot``: the ``cya-bot`` command."""

from .cli import main

raise SystemExit(main())
