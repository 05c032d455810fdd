"""Data export: every format reads back to the trace's own arrays, with the tokens as labels."""

import csv
import io
import json
import re
from dataclasses import fields, replace

import numpy as np
import pytest

from attn_explorer.engine import ARRAY_INFO, PRESETS, AttentionConfig, compute, preset
from attn_explorer.io.data_export import (
    config_from_dict,
    config_to_dict,
    stream_npz,
    write_csv,
    write_json,
    write_npy,
    write_npz,
)


@pytest.fixture(params=["causal", "mha", "cross", "dropout"])
def trace(request):
    return compute(preset(request.param).config)


@pytest.fixture
def odd_trace():
    """Tokens that break naive CSV: commas, quotes, newlines, emoji, right-to-left text."""
    return compute(
        AttentionConfig(
            tokens=("a,b", 'say "hi"', "two\nlines", "😀", "مرحبا"),
            embeddings=((0.1, 0.2), (0.3, 0.4), (0.5, 0.6), (0.7, 0.8), (0.9, 1.0)),
            causal=True,
        )
    )


def heads_of(trace, name):
    return range(trace[name].shape[0]) if ARRAY_INFO[name].per_head else [None]


def read_csv(path):
    with open(path, newline="", encoding="utf-8-sig") as file:
        return list(csv.reader(file))


def refuse_constant(literal):
    raise AssertionError(f"not strict JSON: {literal}")


# ---------------------------------------------------------------------------- CSV


def test_csv_has_one_file_per_matrix_and_head(trace, tmp_path):
    written = write_csv(trace, tmp_path / "out")
    expected = [
        f"{name}.csv" if head is None else f"{name}_head{head + 1}.csv"
        for name in trace.names
        for head in heads_of(trace, name)
    ]
    assert [p.name for p in written] == [*expected, "config.json"]
    assert all(p.parent == tmp_path / "out" for p in written)


def test_csv_reads_back_as_the_trace(trace, tmp_path):
    write_csv(trace, tmp_path)
    for name in trace.names:
        info = ARRAY_INFO[name]
        for head in heads_of(trace, name):
            stem = name if head is None else f"{name}_head{head + 1}"
            header, *body = read_csv(tmp_path / f"{stem}.csv")
            assert header == ["", *trace.axis_labels(info.cols)]
            labels = [row[0] for row in body]
            assert labels == ([name] if info.rows is None else list(trace.axis_labels(info.rows)))
            values = np.array([[float(cell) for cell in row[1:]] for row in body], np.float32)
            expected = trace.matrix(name, head or 0).astype(np.float32)
            np.testing.assert_array_equal(values, expected, err_msg=stem)  # exact, −∞ too


def test_csv_writes_the_shortest_exact_decimals(trace, tmp_path):
    write_csv(trace, tmp_path)
    rows = read_csv(tmp_path / "x.csv")
    assert rows[2][0] == trace.q_tokens[1]
    assert rows[2][1:] == [str(np.float32(v)) for v in trace.x[1]]
    assert all(len(cell) <= 16 for row in rows[1:] for cell in row[1:])


def test_csv_writes_minus_inf_and_booleans_as_a_spreadsheet_reads_them(tmp_path):
    trace = compute(preset("causal").config)
    write_csv(trace, tmp_path)
    masked = read_csv(tmp_path / "masked_scores_head1.csv")
    assert masked[0] == ["", "Your", "journey", "starts", "with", "one", "step"]
    assert masked[2][0] == "journey" and masked[2][3:] == ["-inf"] * 4
    mask = read_csv(tmp_path / "mask.csv")
    assert mask[2] == ["journey", "0", "0", "1", "1", "1", "1"]
    weights = read_csv(tmp_path / "weights_head1.csv")
    assert [round(float(v), 4) for v in weights[2][1:3]] == [0.5517, 0.4483]  # tutorial 000
    assert weights[2][3:] == ["0.0"] * 4


def test_csv_vectors_are_one_row_named_after_the_array(tmp_path):
    trace = compute(preset("mha").config)
    write_csv(trace, tmp_path)
    header, row = read_csv(tmp_path / "b_out.csv")
    assert header == ["", "1", "2"]
    assert row[0] == "b_out"
    assert np.array([float(v) for v in row[1:]], np.float32).tolist() == trace.b_out.tolist()
    concat = read_csv(tmp_path / "concat.csv")
    assert concat[0] == ["", "h1.1", "h2.1"]  # which head each column came from


def test_csv_keeps_tokens_with_commas_quotes_and_newlines(odd_trace, tmp_path):
    write_csv(odd_trace, tmp_path)
    rows = read_csv(tmp_path / "weights_head1.csv")
    assert rows[0][1:] == list(odd_trace.k_tokens)
    assert [row[0] for row in rows[1:]] == list(odd_trace.q_tokens)
    assert len(rows) == 6


def test_csv_config_json_rebuilds_the_config(trace, tmp_path):
    write_csv(trace, tmp_path)
    data = json.loads((tmp_path / "config.json").read_text("utf-8"), parse_constant=refuse_constant)
    assert config_from_dict(data) == trace.config


# ---------------------------------------------------------------------------- NumPy


def test_npz_holds_every_array_the_tokens_and_the_config(trace, tmp_path):
    path = write_npz(trace, tmp_path / "trace.npz")
    assert path == tmp_path / "trace.npz"
    with np.load(path, allow_pickle=False) as data:
        assert set(data.files) == {*trace.names, "q_tokens", "k_tokens", "config_json"}
        for name in trace.names:
            assert data[name].dtype == trace[name].dtype, name
            np.testing.assert_array_equal(data[name], trace[name], err_msg=name)
        assert data["q_tokens"].tolist() == list(trace.q_tokens)
        assert data["k_tokens"].tolist() == list(trace.k_tokens)
        assert data["config_json"].shape == ()
        config = config_from_dict(json.loads(str(data["config_json"])))
    assert config == trace.config


def test_npz_is_written_at_the_exact_path_given(tmp_path):
    path = write_npz(compute(preset("v1").config), tmp_path / "no_suffix")
    assert path == tmp_path / "no_suffix" and path.exists()
    assert not (tmp_path / "no_suffix.npz").exists()
    with np.load(path) as data:
        assert data["weights"].shape == (1, 6, 6)


def test_npz_keeps_odd_tokens(odd_trace, tmp_path):
    with np.load(write_npz(odd_trace, tmp_path / "odd.npz")) as data:
        assert data["q_tokens"].tolist() == list(odd_trace.q_tokens)


def test_npy_writes_one_file_per_array(trace, tmp_path):
    written = write_npy(trace, tmp_path / "npy")
    names = [p.name for p in written]
    assert names == [*(f"{n}.npy" for n in trace.names), "tokens.json", "config.json"]
    for name in trace.names:
        loaded = np.load(tmp_path / "npy" / f"{name}.npy", allow_pickle=False)
        assert loaded.dtype == trace[name].dtype
        np.testing.assert_array_equal(loaded, trace[name], err_msg=name)
    tokens = json.loads((tmp_path / "npy" / "tokens.json").read_text("utf-8"))
    assert tokens == {"q_tokens": list(trace.q_tokens), "k_tokens": list(trace.k_tokens)}
    config = json.loads((tmp_path / "npy" / "config.json").read_text("utf-8"))
    assert config_from_dict(config) == trace.config


# ---------------------------------------------------------------------------- JSON


def from_json(data):
    """A JSON array back to float64, null read as −∞ (what the file's notes say)."""
    return np.array(json.loads(json.dumps(data).replace("null", "-Infinity")), dtype=np.float64)


def test_json_is_strict_and_complete(trace, tmp_path):
    path = write_json(trace, tmp_path / "trace.json")
    doc = json.loads(path.read_text("utf-8"), parse_constant=refuse_constant)
    assert list(doc) == ["config", "q_tokens", "k_tokens", "arrays", "notes"]
    assert doc["notes"].startswith("null stands for -inf (a masked score)")
    assert config_from_dict(doc["config"]) == trace.config
    assert doc["q_tokens"] == list(trace.q_tokens)
    assert doc["k_tokens"] == list(trace.k_tokens)
    assert list(doc["arrays"]) == list(trace.names)
    for name in trace.names:
        entry, info = doc["arrays"][name], ARRAY_INFO[name]
        assert entry["shape"] == list(trace[name].shape)
        assert (entry["rows"], entry["cols"], entry["per_head"]) == (
            info.rows,
            info.cols,
            info.per_head,
        )
        if trace[name].dtype == bool:
            assert entry["data"] == trace[name].tolist()  # true/false, not 1/0
        else:
            values = from_json(entry["data"]).astype(np.float32)
            np.testing.assert_array_equal(values, trace[name], err_msg=name)


def test_json_nulls_are_exactly_the_masked_scores(trace, tmp_path):
    doc = json.loads(write_json(trace, tmp_path / "t.json").read_text("utf-8"))
    data = doc["arrays"]["masked_scores"]["data"]
    nulls = np.array([[[v is None for v in row] for row in head] for head in data])
    np.testing.assert_array_equal(nulls, np.isneginf(trace.masked_scores))
    assert nulls.any() == trace.config.has_mask
    # Masked before scaling (tutorial 000's order), the scaled scores hold −∞ too.
    with_neg_inf = ("masked_scores", "scaled_scores") if trace.config.mask_first else ()
    for name, entry in doc["arrays"].items():
        if name in with_neg_inf:
            assert np.isneginf(trace[name]).any(), name
        elif name != "masked_scores":
            assert "null" not in json.dumps(entry["data"]), name


def test_json_dropout_keep_mask_is_boolean(tmp_path):
    trace = compute(preset("dropout").config)
    doc = json.loads(write_json(trace, tmp_path / "t.json").read_text("utf-8"))
    keep = doc["arrays"]["dropout_keep"]["data"]
    assert keep == trace.dropout_keep.tolist()
    assert {type(v) for v in np.ravel(keep).tolist()} == {bool}
    dropped = np.array(doc["arrays"]["weights_dropped"]["data"])
    weights = trace.weights.astype(np.float64)
    np.testing.assert_allclose(dropped, np.where(keep, 2 * weights, 0.0), rtol=1e-6)


# ---------------------------------------------------------------------------- config helpers


@pytest.mark.parametrize("name", list(PRESETS))
def test_config_dict_round_trips(name):
    config = PRESETS[name].config
    data = config_to_dict(config)
    assert json.loads(json.dumps(data, allow_nan=False)) == data
    assert config_from_dict(json.loads(json.dumps(data))) == config
    assert isinstance(data["embeddings"], list) and isinstance(data["embeddings"][0], list)


def test_config_from_dict_refuses_unknown_fields():
    data = config_to_dict(preset("v1").config) | {"colour": "red"}
    with pytest.raises(ValueError, match="unknown config field"):
        config_from_dict(data)


def test_config_dict_spells_out_every_field():
    config = preset("dropout").config
    data = config_to_dict(config)
    assert data["dropout"] == 0.5 and data["temperature"] == 1.0
    assert data["valid_len"] is None and data["kv_tokens"] is None
    assert list(data) == [f.name for f in fields(AttentionConfig)]


@pytest.mark.parametrize("writer", [write_csv, write_npy])
def test_a_second_export_into_a_folder_leaves_one_computation_there(writer, tmp_path):
    """Two heads with dropout, then one head without: the first export's head-2 and dropout
    files stayed beside the second one's config.json."""
    writer(compute(replace(preset("mha").config, dropout=0.5)), tmp_path)
    (tmp_path / "notes.txt").write_text("mine")  # the learner's own, beside the export
    second = writer(compute(preset("v1").config), tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [p.name for p in second] + ["notes.txt"]
    )


@pytest.mark.parametrize("writer", [write_csv, write_npy])
def test_a_folder_of_other_files_is_refused_and_left_as_it_was(writer, tmp_path):
    """Exporting into a teacher's folder deleted their scores.csv (named like an array) and
    overwrote their config.json, unasked."""
    course = tmp_path / "course"
    course.mkdir()
    own = {"scores.csv": "student,grade\n", "config.json": '{"my": 1}\n', "x.npy": "mine"}
    for name, text in own.items():
        (course / name).write_text(text)
    with pytest.raises(FileExistsError, match="already holds other files"):
        writer(compute(preset("causal").config), course)
    assert {p.name: p.read_text() for p in course.iterdir()} == own


@pytest.mark.parametrize("writer", [write_csv, write_npy])
def test_an_earlier_export_or_an_empty_folder_is_written_into(writer, tmp_path):
    folder = tmp_path / "lesson"
    folder.mkdir()
    first = writer(compute(preset("dropout").config), folder)  # empty: fine
    second = writer(compute(preset("causal").config), folder)  # no dropout arrays
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in second)
    assert len(first) > len(second)


def test_json_writes_method_1s_nan_as_null_instead_of_failing(tmp_path):
    """Where method 1 breaks down (every kept weight underflows: 0/0), the window's trace
    holds NaN, and Export Data as JSON raised "Out of range float values are not JSON
    compliant" with nothing written."""
    config = AttentionConfig(
        tokens=("a", "b", "c"),
        embeddings=((1.0, 0.0), (1000.0, 0.0), (2.0, 0.0)),
        projection="none",
        causal=True,
        temperature=0.01,
    )
    trace = compute(config, compare_mask_methods=True)
    broken = np.isnan(trace["weights_renormalize"])
    assert broken.any()
    doc = json.loads(
        write_json(trace, tmp_path / "t.json").read_text("utf-8"), parse_constant=refuse_constant
    )
    data = np.array(doc["arrays"]["weights_renormalize"]["data"], dtype=object)
    assert all(v is None for v in data[broken])
    assert "NaN" in doc["notes"]


# ---------------------------------------------------------------------------- failed writes


def _snapshot(path):
    """Every file under `path` (or `path` itself) with its bytes."""
    if path.is_file():
        return {path.name: path.read_bytes()}
    return {p.name: p.read_bytes() for p in sorted(path.iterdir())}


@pytest.mark.parametrize(
    ("writer", "name"),
    [(write_npz, "d.npz"), (write_json, "d.json"), (write_csv, "d"), (write_npy, "d")],
)
def test_an_export_that_fails_half_way_leaves_the_earlier_one_whole(
    writer, name, tmp_path, disk_full_after
):
    """A disk that filled during an export over an earlier one left a truncated archive (or a
    folder of new files beside old ones): the earlier export was lost and nothing replaced it."""
    config = replace(
        preset("mha").config,
        tokens=tuple(f"t{i}" for i in range(40)),
        embeddings=tuple(tuple((i * j % 7) / 7 for j in range(16)) for i in range(40)),
    )
    target = tmp_path / name
    writer(compute(config), target)
    before = _snapshot(target)
    second = compute(replace(config, seed=7))
    with disk_full_after(4096), pytest.raises(OSError, match="too large"):
        writer(second, target)
    assert _snapshot(target) == before
    assert not [p for p in tmp_path.rglob("*") if ".partial" in p.name], "a temporary file stayed"


@pytest.mark.parametrize("writer", [write_csv, write_npy])
def test_a_folder_export_that_fails_leaves_no_folder_it_made(writer, tmp_path, disk_full_after):
    """A full disk left the new, empty folder behind; a folder that was there (empty) stays."""
    trace = compute(preset("mha").config)
    with disk_full_after(512), pytest.raises(OSError, match="too large"):
        writer(trace, tmp_path / "data")
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "mine").mkdir()
    with disk_full_after(512), pytest.raises(OSError, match="too large"):
        writer(trace, tmp_path / "mine")
    assert [p.name for p in tmp_path.iterdir()] == ["mine"]
    assert list((tmp_path / "mine").iterdir()) == []


def test_a_token_ending_with_nul_is_refused_by_npz_not_read_back_as_another(tmp_path):
    """NumPy's text arrays drop trailing NUL characters: "a\\0" was read back as "a", and a
    token "\\0" as an empty name, without a word."""
    trace = compute(AttentionConfig(tokens=("a\0", "b"), embeddings=((0.1, 0.2), (0.3, 0.4))))
    with pytest.raises(ValueError) as caught:
        write_npz(trace, tmp_path / "t.npz")
    assert str(caught.value) == (
        f'Cannot write {tmp_path / "t.npz"}: the token "a\\u0000" ends with a NUL character '
        "(\\u0000), which a NumPy .npz archive drops; export as JSON, CSV or NPY, which keep "
        "it, or rename the token."
    )
    assert list(tmp_path.iterdir()) == []
    # The other formats keep it exactly; a NUL inside a name is kept by npz too.
    assert json.loads(write_json(trace, tmp_path / "t.json").read_text())["q_tokens"][0] == "a\0"
    inside = compute(AttentionConfig(tokens=("a\0b",), embeddings=((0.1, 0.2),)))
    with np.load(write_npz(inside, tmp_path / "i.npz")) as data:
        assert data["q_tokens"].tolist() == ["a\0b"]


@pytest.mark.parametrize("writer", [write_csv, write_npy, write_npz, write_json])
def test_a_missing_folder_is_not_made_on_the_way(writer, tmp_path):
    """Every writer made the missing folders of a mistyped path ("gone/deeper/x.npz"), so
    whoever called it scattered new folders; the command line checked first, the window not."""
    target = tmp_path / "gone" / "deeper" / ("x" if writer in (write_csv, write_npy) else "x.f")
    with pytest.raises(FileNotFoundError):
        writer(compute(preset("causal").config), target)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("changes", "divisor"),
    [
        ({}, "sqrt(d_k)"),
        ({"temperature": 2.0}, "(sqrt(d_k) * T)"),
        ({"scale": False, "temperature": 2.0}, "T"),
    ],
)
def test_the_mask_first_note_names_what_divided_the_scores(tmp_path, changes, divisor):
    """With scaling off and T = 2 the note said "masked_scores / sqrt(d_k)" while the
    scaled scores were the masked ones halved (0.4656 -> 0.2328)."""
    config = replace(preset("causal").config, **changes)
    trace = compute(config)
    path = write_json(trace, tmp_path / "x.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert f"scaled_scores are masked_scores / {divisor}, what softmax reads" in data["notes"]
    masked, scaled = (
        data["arrays"][n]["data"][0][1][0] for n in ("masked_scores", "scaled_scores")
    )
    assert round(masked, 4) == 0.4656
    assert scaled == pytest.approx(masked / config.scale_divisor)


# ---------------------------------------------------------------------------- in other languages


def test_a_refused_folder_is_said_in_vietnamese(vietnamese, tmp_path):
    folder = tmp_path / "lớp học"
    folder.mkdir()
    for name in ("a.txt", "b.txt", "c.txt", "d.txt", "e.txt"):
        (folder / name).write_text("x")
    with pytest.raises(FileExistsError) as caught:
        write_csv(compute(preset("v1").config), folder)
    assert str(caught.value) == (
        f"Thư mục {folder} đã chứa các tệp khác (a.txt, b.txt, c.txt và 2 tệp khác) mà lần xuất "
        "này sẽ ghi đè: hãy chọn một thư mục mới hoặc trống, hoặc một thư mục do lần xuất trước "
        "ghi ra."
    )
    assert len(list(folder.iterdir())) == 5


def test_a_token_npz_cannot_hold_is_refused_in_vietnamese(vietnamese, tmp_path):
    trace = compute(AttentionConfig(tokens=("a\0", "b"), embeddings=((0.1, 0.2), (0.3, 0.4))))
    with pytest.raises(ValueError) as caught:
        write_npz(trace, tmp_path / "t.npz")
    assert str(caught.value) == (
        f'Không thể ghi {tmp_path / "t.npz"}: token "a\\u0000" kết thúc bằng ký tự NUL '
        "(\\u0000), ký tự mà tệp .npz của NumPy bỏ mất; hãy xuất dạng JSON, CSV hoặc NPY, vốn "
        "giữ được nó, hoặc đổi tên token."
    )
    with pytest.raises(ValueError, match=r"^Không thể ghi ra đầu ra chuẩn: token "):
        stream_npz(trace, io.BytesIO())
    assert list(tmp_path.iterdir()) == []


def test_the_refusals_of_a_data_export_go_through_the_catalogue(pseudo, tmp_path):
    """Pseudo-translated, a refusal shows no English word outside its marks but the file's
    own name and the format names it advises."""
    (tmp_path / "notes.txt").write_text("x")
    with pytest.raises(FileExistsError) as folder:
        write_npy(compute(preset("v1").config), tmp_path)
    trace = compute(AttentionConfig(tokens=("a\0",), embeddings=((0.1, 0.2),)))
    with pytest.raises(ValueError) as token:
        write_npz(trace, tmp_path / "t.npz")
    for said in (str(folder.value), str(token.value)):
        text = said.replace(str(tmp_path), " ")
        while (shorter := re.sub(r"⟪[^⟪⟫]*⟫", " ", text)) != text:
            text = shorter
        assert re.findall(r"[A-Za-z]{2,}", text.replace("notes.txt", " ")) == [], said


def test_the_notes_of_a_json_export_are_in_the_language_of_the_export(tmp_path):
    from attn_explorer.text import i18n
    from attn_explorer.text.data_notes import json_notes

    config = preset("causal").config
    english = json_notes(config)
    i18n.set_language("vi")
    try:
        path = write_json(compute(config), tmp_path / "x.json")
        notes = json.loads(path.read_text(encoding="utf-8"))["notes"]
        assert notes == json_notes(config)
    finally:
        i18n.set_language("en")
    assert notes != english and "null" in notes
