import sys

from attn_explorer.cli.window import main

sys.exit(main())
