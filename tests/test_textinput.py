import math

import pytest

from attn_explorer.textinput import InputError, join_block, parse_number, split_block


@pytest.mark.parametrize(
    ("text", "value"),
    [("0.55", 0.55), (" -1e-3 ", -0.001), ("0,5", 0.5), ("\u22122", -2.0), ("3", 3.0)],
)
def test_numbers(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize(
    "text", ["", "x", "nan", "NaN", "inf", "-Infinity", "1e39", "1,2,3", "1.2.3"]
)
def test_refused(text):
    with pytest.raises(InputError):
        parse_number(text)


@pytest.mark.parametrize("text", ["-0", "-0.0", "\u22120", "-1e-400"])
def test_minus_zero_is_zero(text):
    value = parse_number(text)
    assert value == 0 and math.copysign(1, value) == 1  # shown "0", not "-0"


def test_float32_limit_is_inclusive():
    assert math.isclose(parse_number("3.4e38"), 3.4e38)


def test_blocks():
    assert split_block("a\tb\n1\t2\n\n") == [["a", "b"], ["1", "2"]]
    assert split_block("1,2\r\n3,4") == [["1", "2"], ["3", "4"]]
    assert split_block("1;2") == [["1", "2"]]
    assert split_block("1 2   3") == [["1", "2", "3"]]
    assert split_block("\n \n") == []


def test_quoted_cells_keep_their_tabs_line_breaks_and_quotes():
    rows = [["a\tb", "1"], ["new\nline", "2"], ['"q"', "3"], [" the", "4"]]
    assert join_block(rows) == '"a\tb"\t1\n"new\nline"\t2\n"""q"""\t3\n the\t4'
    assert split_block(join_block(rows)) == rows


def test_spreadsheet_blocks_keep_spaces_typed_ones_do_not():
    assert split_block(" the\t1\n") == [[" the", "1"]]
    assert split_block("1, 2; 3\n") == [["1, 2", "3"]]
    assert split_block("1, 2\n3 ,4") == [["1", "2"], ["3", "4"]]
    assert split_block("x\n\n1") == [["x"], [""], ["1"]]


def test_a_column_with_decimal_commas_is_one_column_where_the_language_writes_them():
    """A cell or a column copied from a spreadsheet in a decimal-comma language: "0,55" was
    pasted as the two cells 0 and 55, while typing it gives 0.55."""
    assert split_block("0,55\n", decimal_comma=True) == [["0,55"]]
    rows = split_block("0,55\r\n-1,25\r\n\r\n2\r\n", decimal_comma=True)
    assert rows == [["0,55"], ["-1,25"], [""], ["2"]]  # a blank line is an empty cell
    assert [parse_number(row[0]) for row in rows if row[0]] == [0.55, -1.25, 2.0]
    assert split_block("1, 2\n0.5,1,x", decimal_comma=True) == [["1", "2"], ["0.5", "1", "x"]]
    assert split_block("0,5;1,5", decimal_comma=True) == [["0,5", "1,5"]]
    assert split_block("1,0\n0,1") == [["1", "0"], ["0", "1"]]  # elsewhere: two cells
