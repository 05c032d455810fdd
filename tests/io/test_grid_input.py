"""A learner's grid for Check my numbers: CSV with blanks and token labels, printed tensors,
the decimals each number was written with, and the cell that is no number named."""

import math

import pytest

from attn_explorer.io.grid_input import (
    GridError,
    decimals_of,
    fit_grid,
    grid_texts,
    read_grid,
    read_grid_file,
)
from attn_explorer.io.textinput import InputError


def test_a_csv_grid_with_blanks_and_the_exports_labels():
    text = "\ufeff,I,am,happy\nI,0.30,0.33,0.37\nam,,0.37,\nhappy,0.25,0.36,0.390\n"
    assert read_grid(text) == [
        [(0.30, 2), (0.33, 2), (0.37, 2)],
        [None, (0.37, 2), None],
        [(0.25, 2), (0.36, 2), (0.39, 3)],
    ]


def test_a_printed_tensor_with_minus_infinity():
    text = "tensor([[0.2994,   -inf],\n        [0.2514, 0.3260]], grad_fn=<SoftmaxBackward0>)"
    grid = read_grid(text)
    assert grid[0][0] == (0.2994, 4)
    assert grid[0][1] == (-math.inf, 0)
    assert grid[1] == [(0.2514, 4), (0.326, 4)]


def test_numpy_and_hand_written_rows():
    assert read_grid("[[0.1 0.2]\n [0.3 0.4]]") == [[(0.1, 1), (0.2, 1)], [(0.3, 1), (0.4, 1)]]
    assert read_grid("[0.30, 0.33, 0.37]\n[0.26, 0.37, 0.37]")[1] == [
        (0.26, 2),
        (0.37, 2),
        (0.37, 2),
    ]
    assert read_grid("0.1\t\t−∞")[0] == [(0.1, 1), None, (-math.inf, 0)]


def test_labels_that_read_as_numbers_are_still_labels():
    assert grid_texts(",1,2\n1,0.5,0.25\n2,0.1,0.2", labels=("1", "2")) == [
        ["0.5", "0.25"],
        ["0.1", "0.2"],
    ]


@pytest.mark.parametrize(
    ("text", "decimals"), [("0.30", 2), ("1", 0), ("2.994e-01", 4), ("1e3", 0), ("-0,5", 1)]
)
def test_decimals_written(text, decimals):
    assert decimals_of(text) == decimals


def test_the_cell_that_is_no_number_is_named():
    with pytest.raises(GridError) as caught:
        read_grid("0.1,0.2\n0.3,abc")
    assert (caught.value.row, caught.value.column) == (2, 2)
    assert str(caught.value) == "Row 2, column 2: “abc” is not a number."


def test_a_grid_larger_than_the_array_is_refused_a_smaller_one_padded():
    assert fit_grid([[(0.1, 1)]], (2, 2), "Attention weights") == [[(0.1, 1), None], [None, None]]
    with pytest.raises(InputError) as caught:
        fit_grid([[(0.1, 1)] * 3], (2, 2), "Attention weights")
    assert str(caught.value) == (
        "Attention weights has 2 rows and 2 columns, but the numbers given have 1 rows and 3 "
        "columns."
    )


def test_a_file(tmp_path):
    path = tmp_path / "w.csv"
    path.write_text("0.5,0.5\n", encoding="utf-8")
    assert read_grid_file(path) == [[(0.5, 1), (0.5, 1)]]
