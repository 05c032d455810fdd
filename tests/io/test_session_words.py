"""A session the loader refuses is explained in the learner's language, with the same line,
column, field and numbers as in English; so are a cell typed wrong and a file not written."""

import errno
import json
import re

import pytest

from attn_explorer.io.errors import cannot_write, impossible_path, missing_folder
from attn_explorer.io.session import (
    SessionError,
    document_to_state,
    load_session,
    loads,
    state_to_document,
)
from attn_explorer.io.session_check import TOP_FIELDS, VIEW_FIELDS
from attn_explorer.io.textinput import InputError, UnclosedQuoteError, parse_number, split_block
from attn_explorer.model.state import Controls
from attn_explorer.text import i18n
from tests.io.conftest import preset_state
from tests.io.test_session_refusals import REJECTIONS, bad_bytes_cases
from tests.text.test_problems import WordsDropped


def refusal(text: str, name: str = "s.json") -> str:
    with pytest.raises(SessionError) as caught:
        loads(text, name=name)
    return str(caught.value)


def session_text(**controls) -> str:
    doc = state_to_document(preset_state("causal"))
    doc["controls"].update(controls)
    return json.dumps(doc)


def test_a_nan_is_placed_at_its_line_and_column(vietnamese):
    assert refusal('{"x": [1,\n  NaN]}') == (
        "s.json không phải phiên làm việc hợp lệ: nó chứa NaN ở dòng 2, cột 3, trong khi mọi "
        "giá trị phải là số hữu hạn."
    )


def test_a_field_named_twice_is_named(vietnamese):
    text = session_text().replace('"seed": ', '"seed": 5, "seed": ', 1)
    assert refusal(text) == (
        's.json không phải phiên làm việc hợp lệ: controls có trường "seed" nhiều hơn một lần.'
    )
    top = '{"format": "attn_explorer.session", "format": 1}'
    assert refusal(top) == (
        's.json không phải phiên làm việc hợp lệ: nó có trường "format" nhiều hơn một lần.'
    )


def test_a_setting_out_of_its_range_keeps_its_numbers(vietnamese):
    assert refusal(session_text(dropout=0.95)) == (
        "s.json không phải phiên làm việc hợp lệ: controls.dropout là 0.95, nằm ngoài khoảng "
        "0 đến 0.9."
    )
    assert refusal(session_text(projection="conv")) == (
        's.json không phải phiên làm việc hợp lệ: controls.projection là văn bản "conv"; hãy '
        'chọn "none", "rand" hoặc "linear".'
    )
    assert refusal(session_text(temperature=[1, 2])) == (
        "s.json không phải phiên làm việc hợp lệ: controls.temperature phải là một số, không "
        "phải một danh sách 2 phần tử."
    )


def test_what_json_itself_says_is_translated_too(vietnamese):
    assert refusal('{\n "a": 1,\n "b" 2}') == (
        "s.json không phải JSON hợp lệ: cần dấu phân cách ':' ở dòng 3, cột 6."
    )
    assert refusal('{"format": "attn_explorer.sess') == (
        "s.json không phải JSON hợp lệ: có chuỗi chưa được đóng, bắt đầu ở dòng 1, cột 12 (tệp "
        "kết thúc quá sớm: phải chăng tệp đã bị cắt mất phần cuối?)."
    )


def test_a_newer_format_and_a_default_name(vietnamese):
    doc = state_to_document(preset_state("causal"))
    doc["version"] = 6
    with pytest.raises(SessionError) as caught:
        document_to_state(doc)
    assert str(caught.value) == (
        "Tài liệu do một bản attn_explorer mới hơn lưu (định dạng 6); bản này đọc được các "
        "định dạng từ 1 đến 5."
    )


def test_rows_and_tokens_counted_in_vietnamese(vietnamese):
    doc = state_to_document(preset_state("causal"))
    doc["queries"]["embeddings"] = doc["queries"]["embeddings"][:1]
    assert refusal(json.dumps(doc)) == (
        "s.json không phải phiên làm việc hợp lệ: queries có 6 token nhưng có 1 hàng embedding: "
        "mỗi token cần đúng một hàng."
    )


def test_a_file_in_another_encoding(vietnamese, tmp_path):
    path = tmp_path / "s.json"
    path.write_bytes('{"format": 3}'.encode("utf-16"))
    with pytest.raises(SessionError) as caught:
        load_session(path)
    assert str(caught.value) == (
        "s.json không phải phiên làm việc: đây là văn bản UTF-16; hãy lưu lại dưới dạng UTF-8."
    )


# ---------------------------------------------------------------------------- no English left

# What a refusal with its words dropped may still hold outside quotes: the fields it names,
# JSON's own words, the literal it refuses, the file's name and encoding.
FIELDS = {*TOP_FIELDS, *Controls.names(), *VIEW_FIELDS, "tokens", "embeddings"}
SYMBOLS = FIELDS | {"null", "true", "false", "NaN", "Infinity", "UTF", "session", "json"}


def unquoted_words(message: str) -> set[str]:
    bare = re.sub(r'"(?:[^"\\]|\\.)*"', "", message)  # a quoted field or value is a symbol
    words = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]+", bare)) - SYMBOLS
    return {w for w in words if not re.fullmatch("[0-9a-f]{2}", w)}  # a byte, 0xe9


@pytest.fixture
def words_dropped():
    i18n.use_translations(WordsDropped(), "pseudo")
    yield
    i18n.set_language("en")


@pytest.mark.parametrize(("mutation", "_phrase"), REJECTIONS)
def test_no_english_word_escapes_a_refused_document(mutation, _phrase, cross_doc, words_dropped):
    if isinstance(mutation, tuple):
        _, old, new = mutation
        text = json.dumps(cross_doc).replace(old, new, 1)
    else:
        mutation(cross_doc)
        text = json.dumps(cross_doc)
    said = refusal(text, name="session.json")
    assert said.startswith("⟪") and said.endswith("⟫")
    assert not unquoted_words(said), said


@pytest.mark.parametrize(("data", "_phrase"), bad_bytes_cases())
def test_no_english_word_escapes_refused_bytes(data, _phrase, tmp_path, words_dropped):
    path = tmp_path / "session.json"
    path.write_bytes(data)
    with pytest.raises(SessionError) as caught:
        load_session(path)
    said = str(caught.value)
    assert said.startswith("⟪") and said.endswith("⟫")
    assert not unquoted_words(said), said


# ---------------------------------------------------------------------------- cells and files


def test_a_cell_typed_wrong_is_said_in_vietnamese(vietnamese):
    cases = {
        "": "Ô đang trống: hãy nhập một số.",
        "abc": "“abc” không phải là số.",
        "nan": "Không được dùng NaN: hãy nhập một số hữu hạn.",
        "1e39": "1e+39 quá lớn đối với float32 (tối đa khoảng ±3.4e38).",
    }
    for text, said in cases.items():
        with pytest.raises(InputError) as caught:
            parse_number(text)
        assert str(caught.value) == said
    with pytest.raises(InputError) as caught:
        parse_number("1,000", thousands_comma=True)
    assert str(caught.value) == (
        "“1,000” có thể là 1000 hoặc 1.000: hãy nhập không có dấu phẩy, hoặc dùng dấu chấm "
        "thập phân."
    )
    with pytest.raises(UnclosedQuoteError) as caught:
        split_block('a\t1\n"b\t2')
    assert str(caught.value).startswith("Hàng 2, cột 1 của khối bắt đầu bằng một dấu ngoặc kép")


def test_a_file_not_written_is_said_in_vietnamese(vietnamese):
    error = FileExistsError(errno.EEXIST, "File exists", "/x/y")
    assert cannot_write(error) == "Không thể ghi /x/y: đã có một tệp trùng tên ở đó."
    assert missing_folder("/no/such/folder/s.json") == (
        "Không thể ghi /no/such/folder/s.json: thư mục /no/such/folder không tồn tại."
    )
    assert impossible_path("/x/a\x00b.json") == (
        "đường dẫn của nó chứa \\x00 (ký tự NUL), ký tự mà không đường dẫn nào được phép chứa"
    )
