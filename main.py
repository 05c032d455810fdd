"""Launch attn_explorer from a checkout: `python main.py [options]` (see --help)."""

import sys

from attn_explorer.cli.window import main

if __name__ == "__main__":
    sys.exit(main())
