"""``python -m duplicate`` is the ``duplicate`` command."""

from duplicate.cli import main

raise SystemExit(main())
