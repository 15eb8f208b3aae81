"""``python -m generator`` is the ``statedoc`` console script."""

from generator.cli.main import main

raise SystemExit(main())
