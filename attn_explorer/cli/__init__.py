"""The command lines: the window's (`attn-explorer [options]`) and `attn-explorer export`."""

from attn_explorer.cli.window import main

__all__ = ["main"]
