"""Shared test setup: Qt runs offscreen, and settings (recent files) go to a throwaway folder,
both before anything imports Qt."""

import contextlib
import os
import tempfile

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="attn-explorer-tests-")


@pytest.fixture
def disk_full_after():
    """`with disk_full_after(n):` every write past byte n of a file fails with "File too
    large" (EFBIG), as a full disk fails a write half-way; Python ignores the SIGXFSZ."""
    resource = pytest.importorskip("resource")

    @contextlib.contextmanager
    def limit(nbytes: int):
        soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (nbytes, hard))
        try:
            yield
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))

    return limit
