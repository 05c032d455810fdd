"""numpy's OpenBLAS starts on one thread for the window's start, and gets every core back."""

import os
import subprocess
import sys
import textwrap

import pytest

from attn_explorer.cli import blas_threads

pytestmark = pytest.mark.skipif(
    blas_threads.numpy_openblas() is None, reason="numpy has no OpenBLAS of its own here"
)


def run(code: str, **env: str) -> list[str]:
    """Run `code` in a fresh interpreter, where numpy is not imported yet; its printed lines."""
    clean = {k: v for k, v in os.environ.items() if k not in blas_threads._CHOICES}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**clean, **env},
        check=True,
    )
    return done.stdout.split()


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def test_importing_the_window_command_imports_neither_numpy_nor_qt():
    # What lets `main` limit the threads before numpy starts them.
    assert run(
        """
        import sys
        import attn_explorer.cli
        print("numpy" in sys.modules, "PySide6" in sys.modules)
        """
    ) == ["False", "False"]


def test_numpy_starts_on_one_thread_and_gets_one_per_core_back():
    lines = run(
        """
        import os
        from attn_explorer.cli import blas_threads
        print(blas_threads.limit())
        import numpy
        print(blas_threads.threads())
        blas_threads.restore()
        print(blas_threads.threads(), "OPENBLAS_NUM_THREADS" in os.environ)
        blas_threads.restore()  # once is enough
        print(blas_threads.threads())
        """
    )
    assert lines == ["True", "1", str(cores()), "False", str(cores())]


def test_a_thread_count_the_user_chose_is_kept():
    lines = run(
        """
        import os
        from attn_explorer.cli import blas_threads
        print(blas_threads.limit())
        import numpy
        blas_threads.restore()
        print(blas_threads.threads(), os.environ["OMP_NUM_THREADS"])
        """,
        OMP_NUM_THREADS="1",
    )
    assert lines == ["False", "1", "1"]


def test_nothing_is_limited_once_numpy_is_imported():
    lines = run(
        """
        import os
        import numpy
        from attn_explorer.cli import blas_threads
        print(blas_threads.limit(), "OPENBLAS_NUM_THREADS" in os.environ)
        """
    )
    assert lines == ["False", "False"]
