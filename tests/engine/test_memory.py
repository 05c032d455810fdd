"""Freed memory goes back to the system where the C library allows it."""

import platform
import sys

from attn_explorer.engine.memory import release_freed_memory


def test_trims_on_glibc_and_says_so_elsewhere():
    glibc = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
    assert release_freed_memory() is glibc
