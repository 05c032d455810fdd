"""`attn-explorer check`: Ngày 43's numbers checked from files, as text and as JSON; exit 0
whatever the verdicts, 2 for arguments, 1 for a file that cannot be read, in one line."""

import json

import pytest

from attn_explorer.cli.window import main as window_main
from attn_explorer.engine import preset
from attn_explorer.io.session import save_session
from attn_explorer.model.state import ExplorerState

WEIGHTS = ",I,am,happy\nI,0.30,0.33,0.37\nam,0.26,0.37,0.37\nhappy,0.25,0.36,0.39\n"
CONTEXT = (
    "tensor([[0.42, 0.53, 0.62],\n        [0.433, 0.533, 0.633],\n        [0.442, 0.542, 0.642]])\n"
)


@pytest.fixture
def files(tmp_path):
    weights, context = tmp_path / "weights.csv", tmp_path / "context.txt"
    weights.write_text(WEIGHTS, encoding="utf-8")
    context.write_text(CONTEXT, encoding="utf-8")
    return weights, context


def check_here(capsys, *args):
    try:
        status = window_main(["check", *map(str, args)])
    except SystemExit as exit:  # argparse's refusals end the process, as for export
        status = exit.code
    out, err = capsys.readouterr()
    return status, out, err


def test_json_names_every_cell_from_1(capsys, files):
    weights, context = files
    status, out, err = check_here(
        capsys,
        "--preset",
        "happy",
        "--values",
        f"context={context}",
        "--values",
        f"weights={weights}",
        "--format",
        "json",
    )
    assert (status, err) == (0, "")
    data = json.loads(out)
    cells = data["cells"]
    assert len(cells) == 18
    assert cells[0] == {
        "array": "weights",
        "row": 1,
        "col": 1,
        "given": 0.3,
        "expected": 0.299353,
        "verdict": "right",
        "decimals": 2,
    }
    wrong = [(c["array"], c["row"], c["col"]) for c in cells if c["verdict"] == "wrong"]
    assert wrong == [("weights", r, c) for r in (2, 3) for c in (1, 2, 3)]
    follows = [(c["row"], c["col"]) for c in cells if c["verdict"] == "follows"]
    assert follows == [(r, c) for r in (2, 3) for c in (1, 2, 3)]
    rounding = next(c for c in cells if c["array"] == "context" and (c["row"], c["col"]) == (1, 2))
    assert rounding["verdict"] == "right" and rounding["rounding"] is True
    summary = data["summary"]
    assert summary["first_slip"] == {"array": "weights", "row": 2, "col": 1}
    assert summary["follow_rows"] == {"context": [2, 3]}
    assert (summary["right"], summary["follows"], summary["wrong"], summary["missing"]) == (
        6,
        6,
        6,
        0,
    )
    assert summary["head"] == 1


def test_text_says_the_first_slip_and_what_follows(capsys, files, tmp_path):
    weights, context = files
    session = tmp_path / "happy.json"
    save_session(session, ExplorerState.from_config(preset("happy").config))
    status, out, _err = check_here(
        capsys, session, "--values", f"weights={weights}", "--values", f"context={context}"
    )
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == (
        "Checked 18 cells: 6 right, 6 following from an earlier slip, 6 wrong, 0 not given."
    )
    assert lines[1] == "The first slip: Attention weights α, row 2 (am), column 1 (I)."
    assert lines[2] == "Context (output): rows 2 (am), 3 (happy) only follow from an earlier slip."
    assert (
        "✗ Attention weights α, row 2 (am), column 1 (I): you wrote 0.26; the exact value is "
        "0.2514 (0.25 to 2 decimals)." in lines
    )


def test_vietnamese(capsys, files):
    weights, context = files
    status, out, _err = check_here(
        capsys,
        "--lang",
        "vi",
        "--preset",
        "happy",
        "--values",
        f"weights={weights}",
        "--values",
        f"context={context}",
    )
    assert status == 0
    lines = out.splitlines()
    assert lines[:3] == [
        "Đã kiểm tra 18 ô: 6 đúng, 6 là hệ quả của một lỗi tính tay trước đó, 6 sai, 0 bỏ trống.",
        "Lỗi tính tay đầu tiên: Trọng số attention α, hàng 2 (am), cột 1 (I).",
        "Context vector (đầu ra): hàng 2 (am), 3 (happy) chỉ là hệ quả của một lỗi tính tay "
        "trước đó.",
    ]
    assert (
        "✗ Trọng số attention α, hàng 2 (am), cột 1 (I): bạn viết 0.26; giá trị chính xác là "
        "0.2514 (0.25 khi làm tròn đến 2 chữ số thập phân)." in lines
    )
    assert (
        "↳ Context vector (đầu ra), hàng 2 (am), cột 1: bạn viết 0.433, đúng bằng kết quả từ các "
        "số trước đó của chính bạn (0.4330); giá trị chính xác là 0.4514. Bước này bạn làm đúng: "
        "lỗi tính tay nằm ở bước trước." in lines
    )


@pytest.mark.parametrize(
    ("args", "status", "said"),
    [
        (["--values", "weights=W"], 2, "give a session file, --preset NAME or --tokens N"),
        (["--preset", "happy"], 2, "give at least one --values ARRAY=FILE"),
        (["--preset", "happy", "--values", "weights"], 2, "--values needs ARRAY=FILE"),
        (["--preset", "happy", "--values", "mask=W"], 2, "'mask' cannot be checked here"),
        (["--preset", "happy", "--values", "weights=W", "--head", "2"], 2, "from 1 to 1, not 2"),
        (["--preset", "happy", "--values", "weights=W", "--format", "xml"], 2, "invalid choice"),
        (["--preset", "happy", "--values", "weights=missing.csv"], 1, "Cannot read missing.csv"),
        (["--preset", "happy", "--values", "weights=BAD"], 1, "Row 1, column 2: “x” is not"),
        (["--preset", "happy", "--values", "weights=BIG"], 1, "has 3 rows and 3 columns, but"),
    ],
)
def test_refusals_in_one_line(capsys, tmp_path, monkeypatch, args, status, said):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "W").write_text(WEIGHTS, encoding="utf-8")
    (tmp_path / "BAD").write_text("0.1,x\n", encoding="utf-8")
    (tmp_path / "BIG").write_text("0.1,0.2,0.3,0.4\n", encoding="utf-8")
    got, out, err = check_here(capsys, *args)
    assert got == status
    assert out == ""
    assert err.startswith("attn-explorer check: ") and err.count("\n") == 1
    assert said in err


def test_a_refusal_in_vietnamese(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    status, _out, err = check_here(capsys, "--lang", "vi", "--preset", "happy")
    assert status == 2
    assert err == "attn-explorer check: hãy đưa ít nhất một --values MẢNG=TỆP\n"


def test_a_printout_from_standard_input_for_the_second_head(capsys, monkeypatch):
    import io

    from attn_explorer.engine import compute

    trace = compute(preset("mha").config)
    weights = trace.matrix("weights", 1)
    printout = (
        "tensor(["
        + ",\n".join("[" + ", ".join(f"{v:.4f}" for v in row) + "]" for row in weights)
        + "])"
    )
    monkeypatch.setattr("sys.stdin", io.StringIO(printout))
    status, out, err = check_here(
        capsys, "--preset", "mha", "--head", "2", "--values", "weights=-", "--format", "json"
    )
    assert (status, err) == (0, "")
    summary = json.loads(out)["summary"]
    assert (summary["head"], summary["right"], summary["wrong"]) == (2, 36, 0)
