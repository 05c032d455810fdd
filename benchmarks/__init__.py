"""The benchmark scripts: they print figures; they are not tests. Run from a checkout as
`python -m benchmarks.bench`.

They measure the window offscreen unless QT_QPA_PLATFORM says otherwise; set here, before any
of them imports Qt.
"""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
# The latency, the burst and the soak measure windows at work, not their first picture: they
# neither restore nor keep traces (nor fill the user's cache). The startup turns it on again,
# with a cache folder of its own.
os.environ.setdefault("ATTN_EXPLORER_TRACE_CACHE", "off")
