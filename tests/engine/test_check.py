"""Check my numbers, the numbers: Ngày 43's own printouts give exactly its slips, its rounding
is no slip, and made-up answers with each kind of slip are named as that slip."""

import math

import numpy as np
import pytest

from attn_explorer.engine import PRESETS, compute
from attn_explorer.engine.check import CHECKABLE, CheckError, Given, check
from attn_explorer.text.lessons import TUTORIALS


@pytest.fixture(scope="module")
def happy():
    return compute(PRESETS["happy"].config)


@pytest.fixture(scope="module")
def v1():
    return compute(PRESETS["v1"].config)


@pytest.fixture(scope="module")
def causal():
    return compute(PRESETS["causal"].config)


def written(matrix, decimals=4, blank=()):
    """`matrix` as a learner writes it to `decimals` places; cells in `blank` left empty."""
    rows = []
    for r, row in enumerate(np.asarray(matrix, dtype=float)):
        cells = []
        for c, value in enumerate(row):
            cells.append(None if (r, c) in blank else (round(float(value), decimals), decimals))
        rows.append(cells)
    return Given.from_rows(rows)


def softmax(scores):
    e = np.exp(scores - np.max(np.where(np.isfinite(scores), scores, -np.inf), -1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def cells_of(result, verdict, array=None):
    return {
        (c.array, c.row, c.col)
        for c in result.cells
        if c.verdict == verdict and array in (None, c.array)
    }


def day_43_given():
    """What Ngày 43 wrote by hand (text.lessons keeps it), with its decimals."""
    day = next(t for t in TUTORIALS if t.key == "day-43")
    given = {}
    for section in day.sections:
        for printed in section.printed:
            if printed.array != "x" and printed.written is not None:
                given[printed.array] = Given.from_rows(
                    [
                        [(float(text), len(text.partition(".")[2])) for text in row]
                        for row in printed.written
                    ]
                )
    return given


def test_day_43_finds_exactly_its_slips_and_what_follows_from_them(happy):
    result = check(happy, day_43_given())
    assert result.arrays == ("queries", "scores", "scaled_scores", "weights", "context")
    # Its slips: the softmax rows of "am" and "happy", every cell of them.
    assert cells_of(result, "wrong") == {("weights", r, c) for r in (1, 2) for c in range(3)}
    # Its context rows for "am" and "happy" are their weights × V, done right.
    assert cells_of(result, "follows") == {("context", r, c) for r in (1, 2) for c in range(3)}
    assert result.follow_rows("context") == [1, 2]
    assert result.follow_rows("weights") == []
    assert result.first_slip.array == "weights"
    assert (result.first_slip.row, result.first_slip.col) == (1, 0)
    assert result.counts == {"right": 33, "follows": 6, "wrong": 6, "missing": 0}
    # 0.53 where the exact value is 0.5207: 0.30 × 0.2 + 0.33 × 0.5 + 0.37 × 0.8, each
    # product rounded: rounding, not a slip.
    cell = next(c for c in result.of("context") if (c.row, c.col) == (0, 1))
    assert cell.verdict == "right" and cell.rounding
    assert math.isclose(cell.expected, 0.5207, abs_tol=5e-5)
    follows = next(c for c in result.of("context") if (c.row, c.col) == (1, 0))
    assert math.isclose(follows.recomputed, 0.433, abs_tol=1e-6)
    assert math.isclose(follows.expected, 0.4514, abs_tol=5e-5)


def test_the_learners_rounding_is_respected_and_nothing_more(happy):
    def verdict(text):
        given = Given.from_rows([[(float(text), len(text.partition(".")[2])), None, None]])
        rows = Given(
            np.vstack([given.values, np.full((2, 3), np.nan)]),
            np.vstack([given.decimals, np.full((2, 3), -1)]),
        )
        return check(happy, {"weights": rows}).of("weights")[0].verdict

    # The exact weight is 0.2994.
    assert verdict("0.30") == "right"
    assert verdict("0.3") == "right"
    assert verdict("0.2994") == "right"
    assert verdict("0.29") == "wrong"
    assert verdict("0.2995") == "wrong"
    assert verdict("0.299") == "right"
    assert verdict("0.300") == "wrong"  # 0.30 is right, but three decimals say 0.299


def test_blank_cells_are_missing_and_filled_with_what_follows(happy):
    given = written(happy.matrix("weights"), 2, blank={(0, 0), (2, 2)})
    result = check(happy, {"weights": given})
    assert cells_of(result, "missing") == {("weights", 0, 0), ("weights", 2, 2)}
    assert result.counts["right"] == 7
    assert math.isnan(result.of("weights")[0].given)


def test_a_missing_division_by_root_d_k(v1):
    unscaled = softmax(v1.matrix("scores").astype(float))
    result = check(v1, {"weights": written(unscaled)})
    wrong = [c for c in result.cells if c.verdict == "wrong"]
    assert wrong and all(c.slip == "not_scaled" for c in wrong)
    scaled = check(v1, {"scaled_scores": written(v1.matrix("scores"))})
    assert {c.slip for c in scaled.cells if c.verdict == "wrong"} == {"not_scaled"}


def test_a_row_summed_over_the_masked_keys(causal):
    every_key = softmax(causal.matrix("scores").astype(float) / math.sqrt(2))
    mask = causal.matrix("mask")
    given = np.where(mask, 0.0, every_key)
    result = check(causal, {"weights": written(given)})
    wrong = [c for c in result.cells if c.verdict == "wrong"]
    # The last row hides no key: summed over every key, it is right.
    assert {(c.row, c.col) for c in wrong} == {
        (r, c) for r in range(5) for c in range(6) if not mask[r, c]
    }
    assert {c.slip for c in wrong} == {"masked_keys_summed"}
    assert all(c.verdict == "right" for c in result.cells if mask[c.row, c.col])


def test_the_exponent_of_the_wrong_score(v1):
    weights = v1.matrix("weights").astype(float).copy()
    weights[1, [0, 1]] = weights[1, [1, 0]]  # keys 1 and 2 of "journey" swapped
    result = check(v1, {"weights": written(weights)})
    wrong = [c for c in result.cells if c.verdict == "wrong"]
    assert [(c.row, c.col, c.slip, c.slip_key) for c in wrong] == [
        (1, 0, "wrong_score", 1),
        (1, 1, "wrong_score", 0),
    ]


def test_a_transposed_product(v1):
    q, k = v1.matrix("queries").astype(float), v1.matrix("keys").astype(float)
    result = check(v1, {"scores": written(k @ q.T)})
    wrong = [c for c in result.cells if c.verdict == "wrong"]
    assert wrong and {c.slip for c in wrong} == {"transposed"}
    # The diagonal is the same either way.
    assert all(c.verdict == "right" for c in result.cells if c.row == c.col)
    w, v = v1.matrix("weights").astype(float), v1.matrix("values").astype(float)
    contexts = check(v1, {"head_contexts": written(w.T @ v)})
    assert {c.slip for c in contexts.cells if c.verdict == "wrong"} == {"transposed"}


def test_a_slip_with_no_name_is_wrong_without_one(v1):
    scores = v1.matrix("scores").astype(float).copy()
    scores[2, 3] += 0.5
    result = check(v1, {"scores": written(scores)})
    [cell] = [c for c in result.cells if c.verdict == "wrong"]
    assert (cell.row, cell.col, cell.slip) == (2, 3, "")


def test_a_later_step_done_right_from_wrong_numbers_follows(v1):
    weights = v1.matrix("weights").astype(float).copy()
    weights[4] = weights[4][::-1]
    values = v1.matrix("values").astype(float)
    theirs = written(weights @ values)
    result = check(v1, {"weights": written(weights), "head_contexts": theirs})
    assert cells_of(result, "follows") == {("head_contexts", 4, 0), ("head_contexts", 4, 1)}
    assert result.follow_rows("head_contexts") == [4]
    # The right context from wrong weights was not computed from them: right, not follows.
    exact = check(
        v1, {"weights": written(weights), "head_contexts": written(v1.matrix("head_contexts"))}
    )
    assert cells_of(exact, "follows") == set()
    assert cells_of(exact, "wrong", "head_contexts") == set()


def test_slips_are_listed_in_the_computations_order(v1):
    scores = v1.matrix("scores").astype(float).copy()
    scores[5, 5] += 1
    weights = v1.matrix("weights").astype(float).copy()
    weights[0, 0] += 0.1
    # Given weights first: the order is the computation's, not the argument's.
    result = check(v1, {"weights": written(weights), "scores": written(scores)})
    assert result.arrays == ("scores", "weights")
    assert (result.first_slip.array, result.first_slip.row) == ("scores", 5)


def test_masked_scores_are_written_minus_infinity(causal):
    result = check(causal, {"masked_scores": written(causal.matrix("masked_scores"))})
    assert result.counts == {"right": 36, "follows": 0, "wrong": 0, "missing": 0}
    finite = np.nan_to_num(causal.matrix("masked_scores").astype(float), neginf=0.0)
    wrong = check(causal, {"masked_scores": written(finite)})
    assert cells_of(wrong, "wrong") == {
        ("masked_scores", r, c) for r in range(6) for c in range(6) if r < c
    }


def test_a_grid_of_another_shape_or_array_is_refused(v1):
    with pytest.raises(CheckError):
        check(v1, {"weights": written(np.zeros((2, 2)))})
    with pytest.raises(CheckError):
        check(v1, {"mask": written(np.zeros((6, 6)))})


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_array_of_every_example_written_to_4_decimals_is_right(name):
    trace = compute(PRESETS[name].config)
    for head in range(trace.heads):
        given = {
            array: written(trace.matrix(array, head if trace.info(array).per_head else 0))
            for array in CHECKABLE
            if array in trace
        }
        result = check(trace, given, head)
        assert {c.verdict for c in result.cells} == {"right"}, (name, head)
        assert not any(c.rounding for c in result.cells)


def test_dropped_weights_follow_from_the_learners_weights():
    trace = compute(PRESETS["dropout"].config)
    weights = trace.matrix("weights").astype(float).copy()
    weights[2, :3] = (0.5, 0.25, 0.25)  # a slip in the row of "starts"
    keep = trace.matrix("dropout_keep") * 2.0  # p = 0.5: kept weights doubled
    result = check(trace, {"weights": written(weights), "weights_dropped": written(weights * keep)})
    assert cells_of(result, "wrong") == {("weights", 2, c) for c in range(3)}
    followed = {(r, c) for _a, r, c in cells_of(result, "follows")}
    assert followed == {(2, c) for c in range(3) if keep[2, c]}
