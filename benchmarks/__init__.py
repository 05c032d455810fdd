"""The benchmark scripts: they print figures; they are not tests. Run from a checkout as
`python -m benchmarks.bench`.

They measure the window offscreen unless QT_QPA_PLATFORM says otherwise; set here, before any
of them imports Qt.
"""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
