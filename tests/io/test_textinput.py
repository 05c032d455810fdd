import math

import pytest

from attn_explorer.io.textinput import (
    InputError,
    UnclosedQuoteError,
    join_block,
    parse_number,
    split_block,
)


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


@pytest.mark.parametrize(
    "rows",
    [
        [["a\nb"], ["c"]],  # pasted back as the tokens '"a' and 'b"', over an extra row
        [['"quoted"'], ["x"]],  # came back as '"""quoted"""'
        [["New York"], ["Paris"]],  # refused: "Row 2 has 1 cell but row 1 has 2"
        [['say "hi"'], ["x\ty"], [" the"]],
    ],
)
def test_a_copied_column_of_names_pastes_back_whole(rows):
    """One column has no tab, and its lines were read as space-separated values."""
    assert split_block(join_block(rows)) == rows


def test_a_separator_inside_a_quoted_name_does_not_choose_the_separator():
    """One ';' inside a quoted name made the block semicolon-separated: 'a;b,1,2' one cell."""
    assert split_block('"a;b",1,2\nc,3,4') == [["a;b", "1", "2"], ["c", "3", "4"]]
    assert split_block('"a\tb",1\nc,2') == [["a\tb", "1"], ["c", "2"]]


@pytest.mark.parametrize(
    ("text", "row", "column"),
    [
        ('"Your\t0.1\t0.2\nam\t0.3\t0.4\n', 1, 1),  # a partial cell copied
        ('a\t1\n"b\t2\nc\t3', 2, 1),
        ('"x\ny"\t1\nz\t"2', 2, 2),  # a quoted line break does not start a row
        ('a,1\nb,"2\nc,3', 2, 2),
        ('"a""b\t1', 1, 1),  # a doubled quote does not close the cell
    ],
)
def test_a_quote_that_never_closes_is_refused_where_it_opens(text, row, column):
    """It used to swallow the rest of the block: the whole paste became one token name."""
    with pytest.raises(UnclosedQuoteError) as caught:
        split_block(text)
    assert (caught.value.row, caught.value.column) == (row, column)
    assert str(caught.value).startswith(f"Row {row}, column {column} of the block starts with")


def test_quotes_that_open_no_cell_are_kept():
    assert split_block('say "hi\t1') == [['say "hi', "1"]]  # a quote inside a cell is text
    assert split_block('"a"b\t1') == [["ab", "1"]]  # as before: text after the closing quote
    assert split_block('"a"\t"b\nc"') == [["a", "b\nc"]]
    assert split_block('"Your') == [['"Your']]  # one word: not read as csv at all


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
