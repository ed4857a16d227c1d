"""``python -m tarot_env.cli``: the ``tarot`` command without its installed script."""

import sys

from tarot_env.cli import main

sys.exit(main())
