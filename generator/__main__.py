"""``python -m generator`` is the ``statedoc`` console script."""

from generator.cli import main

raise SystemExit(main())
