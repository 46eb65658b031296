"""``python -m duplicate`` is the ``duplicate`` command."""

from duplicate.cli import main

if __name__ == "__main__":  # not when a worker process of the server's robots imports it
    raise SystemExit(main())
