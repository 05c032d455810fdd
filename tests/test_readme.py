"""The README's Python example runs and prints the numbers its comments promise: it is the
first code a newcomer copies."""

import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parents[1] / "README.md"


def test_the_readmes_python_example_runs():
    text = README.read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", text, re.S).group(1)
    namespace: dict = {}
    exec(compile(code, str(README), "exec"), namespace)
    weights = namespace["trace"].weights[0, 1]
    promised = re.search(r"journey's weights: ([0-9. ]+)", code).group(1).split()
    np.testing.assert_allclose(weights, [float(w) for w in promised], atol=5e-5)
    derivation = namespace["explain"](namespace["trace"], "scores", 0, 1, 0)
    assert derivation.startswith("ω[2,1] = q2·k1 = 0.4306×0.3669 + 1.4551×0.7646 = 1.2705\n")
