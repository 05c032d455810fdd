"""Shared test setup: Qt runs offscreen, and settings (recent files) go to a throwaway folder,
both before anything imports Qt."""

import os
import tempfile

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="attn-explorer-tests-")
