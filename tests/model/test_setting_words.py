"""A setting refused on the command line or in a session is said in the learner's language with
the numbers that were given: the engine's reason in Vietnamese, the session's field and range
in Vietnamese, with a decimal point and no comma in any number."""

import json

import pytest

from attn_explorer.io.session import SessionError, document_to_state, state_to_document
from attn_explorer.model.state import default_state
from attn_explorer.text.problems import GROUP
from tests.cli.conftest import export_here


def test_a_set_value_the_other_settings_refuse_gives_the_engines_reason_in_vietnamese(
    tmp_path, capsys, vietnamese
):
    out = tmp_path / "x.json"
    status, _, err = export_here(
        capsys, "--lang", "vi", "--preset", "causal", "--set", "valid_len=10", "-o", out
    )
    assert status == 2
    assert (
        "Độ dài hợp lệ 10 nằm ngoài khoảng 1 đến 6: phải có ít nhất một key không bị che, và "
        "chỉ có 6 key;"
    ) in err
    status, _, err = export_here(
        capsys, "--lang", "vi", "--preset", "mha", "--set", "num_heads=3", "-o", out
    )
    assert status == 2
    assert "Không thể chia d_out 2 thành 3 đầu: với bố trí split, d_out phải là bội số" in err
    assert not out.exists()


def test_a_count_too_big_is_grouped_without_a_comma(tmp_path, capsys, vietnamese):
    args = ["--lang", "vi", "--preset", "wrapper", "--tokens", "4096", "--set", "num_heads=16"]
    status, _, err = export_here(capsys, *args, "-o", tmp_path / "x.json")
    assert status == 2
    g = GROUP
    assert (
        f"16 đầu × 4096 query × 4096 key là 268{g}435{g}456 trọng số attention, nhiều hơn mức "
        f"33{g}554{g}432 mà chương trình này tính được"
    ) in err


def test_a_session_setting_out_of_its_range_is_said_with_its_range(vietnamese):
    doc = state_to_document(default_state())
    doc["controls"]["temperature"] = 250.5
    with pytest.raises(SessionError) as caught:
        document_to_state(json.loads(json.dumps(doc)), name="s.json")
    assert str(caught.value) == (
        "s.json không phải phiên làm việc hợp lệ: controls.temperature là 250.5, nằm ngoài "
        "khoảng 0.01 đến 100."
    )
