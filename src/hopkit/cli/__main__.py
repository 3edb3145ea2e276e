"""``python -m hopkit.cli``: the ``hopkit`` command."""

from hopkit.cli import main

raise SystemExit(main())
