"""`python -m hostd.cli`: the `jantaku` command."""
import sys

from hostd.cli.main import main

sys.exit(main())
