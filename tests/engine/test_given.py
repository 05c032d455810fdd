"""Given weights (a real head's) are kept as arrays and compare by value, as tuples would."""

import dataclasses

import numpy as np
import pytest

from attn_explorer.engine.given import GivenWeights

rng = np.random.default_rng(3)
W = {role: rng.normal(size=(2, 4, 3)).astype(np.float32) for role in ("query", "key", "value")}
B = {role: rng.normal(size=(2, 3)).astype(np.float32) for role in ("query", "key", "value")}


def _given(**changes) -> GivenWeights:
    fields = {f"w_{r}": W[r] for r in W} | {f"b_{r}": B[r] for r in B}
    return GivenWeights(**(fields | changes))


def test_weights_from_float32_arrays_equal_the_same_numbers_as_lists():
    from_arrays = _given()
    as_lists = GivenWeights(
        **{name: array.tolist() for name, array in from_arrays.arrays().items()}
    )
    assert as_lists == from_arrays and hash(as_lists) == hash(from_arrays)
    assert as_lists.arrays()["w_key"].dtype == np.float32
    assert (as_lists.arrays()["w_key"] == W["key"]).all()


def test_one_number_changed_or_a_bias_missing_makes_another_head():
    changed = W["value"].copy()
    changed[1, 2, 0] += 0.5
    assert _given(w_value=changed) != _given()
    assert _given(b_key=None, b_query=None, b_value=None) != _given()
    assert _given() != "weights"


def test_minus_zero_equals_zero_and_hashes_alike_as_in_a_tuple():
    zero, minus = np.zeros((1, 2, 2)), -np.zeros((1, 2, 2))
    a = GivenWeights(w_query=zero, w_key=zero, w_value=zero)
    b = GivenWeights(w_query=minus, w_key=zero, w_value=zero)
    assert a == b and hash(a) == hash(b)


def test_the_weights_are_a_copy_that_cannot_change():
    source = W["query"].copy()
    given = _given(w_query=source)
    source[0, 0, 0] = 99.0
    assert given.w_query[0, 0, 0] == W["query"][0, 0, 0]
    with pytest.raises(ValueError):
        given.w_query[0, 0, 0] = 1.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        given.w_query = W["key"]  # type: ignore[misc]


def test_what_a_session_writes_is_the_numbers_as_plain_floats():
    written = _given().lists("w_query")
    assert type(written[0][0][0]) is float and written == W["query"].tolist()
    assert (
        GivenWeights(w_query=W["query"], w_key=W["key"], w_value=W["value"]).lists("b_key") is None
    )


@pytest.mark.parametrize(
    "bad",
    [
        {"w_key": rng.normal(size=(2, 4, 2))},  # not the shape of W_q
        {"w_value": [[1.0, 2.0]]},  # two axes
        {"b_value": rng.normal(size=(2, 2))},  # not (heads, d_head)
        {"w_query": [[[1.0, "x"]]]},  # not a number
    ],
)
def test_weights_of_the_wrong_shape_or_kind_are_refused(bad):
    with pytest.raises(ValueError):
        _given(**bad)


def test_weights_differing_only_after_the_numbers_compared_first_are_another_head():
    from attn_explorer.engine.given import EARLY

    big = rng.normal(size=(1, 48, 8))  # 384 numbers: more than EARLY
    changed = big.copy()
    changed.reshape(-1)[EARLY + 100] += 1e-3
    assert GivenWeights(big, big, big) == GivenWeights(big.copy(), big.copy(), big.copy())
    assert GivenWeights(big, big, changed) != GivenWeights(big, big, big)


@pytest.mark.parametrize(
    ("value", "bounded"),
    [
        (0.5, True),
        (-3.4e38, True),
        (3.5e38, False),
        (-3.5e38, False),
        (np.inf, False),
        (np.nan, False),
    ],
)
def test_a_table_is_bounded_only_when_every_number_fits_a_float32(value, bounded):
    from attn_explorer.engine.given import ArrayRows

    rows = np.zeros((5, 3))
    rows[3, 1] = value
    assert ArrayRows.of(rows).bounded is bounded
    assert ArrayRows.of(np.zeros((0, 3))).bounded
