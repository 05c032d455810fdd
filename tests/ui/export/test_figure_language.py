"""Figures in the user's language, in the shipped font: a Vietnamese figure's words are the
catalogue's, every letter is drawn from DejaVu Sans (resources/fonts) whatever the window's
font, and a pseudo-translated figure has no English a translator could not reach."""

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from pypdf import PdfReader
from PySide6.QtGui import QFont, QFontDatabase, QGuiApplication, QImage, QRawFont
from PySide6.QtWidgets import QGraphicsTextItem

from attn_explorer.engine import step_keys
from attn_explorer.text.i18n import TRANSLATIONS
from attn_explorer.text.summaries import config_summary
from attn_explorer.text.titles import array_title
from attn_explorer.ui.export.dialogs import ExportFigureDialog
from attn_explorer.ui.export.figures import (
    Canvas,
    FigureError,
    FigureSpec,
    build_figure,
    check_size,
    export_figure,
    figure_title,
)
from attn_explorer.ui.export.fonts import FAMILY, FONT_FILES, FONTS, figure_font

SVG = "{http://www.w3.org/2000/svg}"
# Every letter of Vietnamese: the vowels with their marks and each of the five tones.
VIETNAMESE = "aàáảãạăằắẳẵặâầấẩẫậeèéẻẽẹêềếểễệiìíỉĩịoòóỏõọôồốổỗộơờớởỡợuùúủũụưừứửữựyỳýỷỹỵđ"
# Where the words drawn in a figure are translated: the figure's own, the stage's, the
# heatmap's and the matrices', and the words about the computation.
FIGURE_CATALOGUES = ("ui.export", "ui.steps", "ui.heatmap", "ui.matrices", "text", "engine")


def shipped(bold: bool = False) -> QRawFont:
    font = QRawFont(str(FONTS / FONT_FILES[1 if bold else 0]), 12)
    assert font.isValid()
    return font


@pytest.fixture
def serif_window(qapp):
    """The window in another family than the figures' (a desktop whose font is not DejaVu
    Sans): what an export writes must not depend on it."""
    if "DejaVu Serif" not in QFontDatabase.families():
        pytest.skip("needs a second family installed: DejaVu Serif")
    before = QFont(QGuiApplication.font())
    font = QFont(before)
    font.setFamilies(["DejaVu Serif"])
    QGuiApplication.setFont(font)
    yield font
    QGuiApplication.setFont(before)


def svg_texts(path: Path) -> list[str]:
    return ["".join(t.itertext()) for t in ET.parse(path).getroot().iter(f"{SVG}text")]


def lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def test_the_shipped_font_has_every_vietnamese_letter_and_every_translated_figure_word(qapp):
    """A letter missing from the font would be drawn from whatever the machine has, or as
    an empty box where it has none."""
    from attn_explorer.text.catalogues import read

    words = [VIETNAMESE, VIETNAMESE.upper()]
    for part in FIGURE_CATALOGUES:
        path = TRANSLATIONS / "vi" / f"{part}.po"
        if path.exists():
            for message in read(path):
                if message.id:  # a plural's translation is a tuple of its forms
                    strings = message.string
                    words += list(strings) if isinstance(strings, tuple) else [strings]
    assert len(words) > 100  # ui.export's, at least
    characters = {c for word in words for c in word if not c.isspace()}
    for bold in (False, True):
        font = shipped(bold)
        missing = sorted(c for c in characters if not font.supportsCharacter(ord(c)))
        assert missing == [], f"{FONT_FILES[bold]} lacks {missing}"


def test_a_vietnamese_svg_writes_the_title_and_caption_in_the_shipped_family(
    vietnamese, serif_window, trace, tmp_path
):
    spec = FigureSpec("array", "weights", head=None)
    path = export_figure(trace, spec, tmp_path / "w.svg")
    text = "".join(svg_texts(path))
    weights = array_title(trace.config, "weights")
    assert f"{weights} · cả 2 đầu · {config_summary(trace.config)}" in text
    assert "Hàng: query · cột: key · ▭ query đang theo dõi 2 “journey”" in text
    assert "gạch chéo: bị che bởi mặt nạ causal" in text
    assert f"Thanh màu: {lower_first(weights)}, một thang chung cho mọi đầu" in text
    families = set(re.findall(r'font-family="([^"]*)"', path.read_text(encoding="utf-8")))
    assert families == {f"{FAMILY}, sans-serif"}  # not the window's DejaVu Serif
    assert QGuiApplication.font().family() == "DejaVu Serif"  # the window's font is back


def test_a_vietnamese_pdf_embeds_the_shipped_font_and_its_text_reads_back(
    vietnamese, serif_window, trace, tmp_path
):
    spec = FigureSpec("array", "weights", head=None)
    reader = PdfReader(export_figure(trace, spec, tmp_path / "w.pdf"))
    (page,) = reader.pages
    fonts = page["/Resources"]["/Font"]
    embedded = {str(fonts[key].get_object()["/BaseFont"]).split("+")[-1] for key in fonts}
    assert embedded == {"/DejaVuSans", "/DejaVuSans-Bold"}
    for key in fonts:  # the glyphs are in the file, not named for the viewer to find
        descriptor = fonts[key].get_object()["/DescendantFonts"][0].get_object()
        assert "/FontFile2" in descriptor["/FontDescriptor"]
    text = " ".join(page.extract_text().split())
    weights = array_title(trace.config, "weights")
    assert f"{weights} · cả 2 đầu · {config_summary(trace.config)}" in text
    assert f"Thanh màu: {lower_first(weights)}, một thang chung cho mọi đầu" in text
    assert reader.metadata.title == figure_title(trace, spec)


def test_a_vietnamese_png_draws_every_letter_of_its_words_from_the_shipped_font(
    vietnamese, serif_window, trace, tmp_path
):
    """What the PNG is painted from: every text item of the figure (title, head titles,
    caption) in DejaVu Sans, whose regular and bold faces have each of its characters."""
    spec = FigureSpec("array", "weights", head=None)
    path = export_figure(trace, spec, tmp_path / "w.png", size=(900, 800))
    assert QImage(str(path)).size().width() == 900
    texts, families = laid_out_texts(build_figure(trace, spec), (900, 800))
    assert any("cả 2 đầu" in text for text in texts)
    assert any("Thanh màu: " in text for text in texts)
    assert families == {FAMILY}
    characters = {c for text in texts for c in text if not c.isspace()}
    assert {"ả", "đ", "ầ", "ộ"} <= characters
    for bold in (False, True):
        font = shipped(bold)
        assert sorted(c for c in characters if not font.supportsCharacter(ord(c))) == []


def laid_out_texts(figure, size: tuple[int, int]) -> tuple[list[str], set[str]]:
    """The figure's text items' texts, laid out at `size` (a label not yet given its width
    is cut short), and their font families."""
    with figure_font():
        canvas = Canvas(figure, size)
        items = [i for i in _descendants(figure) if isinstance(i, QGraphicsTextItem)]
        texts = [item.toPlainText() for item in items]
        families = {item.font().family() for item in items}
        canvas.close()
    return texts, families


def _descendants(item):
    for child in item.childItems():
        yield child
        yield from _descendants(child)


def test_refusals_are_said_in_vietnamese_with_a_decimal_point(vietnamese, trace, tmp_path):
    with pytest.raises(FigureError) as small:
        export_figure(trace, FigureSpec("matrices"), tmp_path / "m.png", size=(400, 300))
    assert re.fullmatch(
        r"hình này cần ít nhất \d+×\d+ px mới vừa, không phải 400×300: "
        r"hãy chọn kích thước lớn hơn",
        str(small.value),
    )
    with pytest.raises(FigureError) as large:
        check_size((8000, 8000), 4)
    assert str(large.value) == (
        "một PNG 8000×8000 ở tỉ lệ 4× sẽ có 32000×32000 pixel (3.8 GB bộ nhớ); hãy chọn "
        "kích thước hoặc tỉ lệ nhỏ hơn (tối đa 134 triệu pixel)"
    )
    with pytest.raises(FigureError, match=r"^định dạng hình phải là png, svg hoặc pdf, không"):
        export_figure(trace, FigureSpec("array", "weights"), tmp_path / "w.gif")
    with pytest.raises(FigureError, match=r"^không có đầu 6: chỉ có 2 đầu$"):
        export_figure(trace, FigureSpec("array", "weights", head=5), tmp_path / "w.png")


def test_the_export_dialog_speaks_vietnamese(vietnamese, qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QMessageBox

    from attn_explorer.ui.export import dialogs

    asked = []
    monkeypatch.setattr(
        dialogs.QMessageBox,
        "question",
        lambda parent, title, text, *a: asked.append((title, text)) or QMessageBox.No,
    )
    d = ExportFigureDialog("trọng số", (820, 700), tmp_path, "attention", False, 1.0)
    qtbot.addWidget(d)
    assert d.windowTitle() == "Xuất hình"
    assert [d.format.itemText(i) for i in range(3)] == ["Ảnh PNG", "SVG (vector)", "PDF (vector)"]
    (tmp_path / "folder").mkdir()
    d.path.setText("folder")
    d.accept()
    assert d.problem.text() == "“folder” là một thư mục: hãy nhập tên tệp."
    (tmp_path / "a.png").write_bytes(b"")
    d.path.setText("a.png")
    d.accept()
    assert asked == [("Xuất hình", f"“a.png” đã tồn tại trong “{tmp_path}”. Thay thế tệp này?")]
    stages = ExportFigureDialog("các bước", (820, 700), tmp_path, "s", True, 1.0)
    qtbot.addWidget(stages)
    assert stages.windowTitle() == "Xuất mọi bước"
    assert stages.format.itemText(2) == "PDF, mỗi bước một trang"


# ---------------------------------------------------------------- pseudo-translation


def english_left(text: str, tokens: tuple[str, ...]) -> list[str]:
    """The words of `text` outside ⟪…⟫ (nested ones too) that are English: not a token's
    name, a symbol (W_q, d_k, Z_cat, out_proj, softmax, exp), a subscript (d_in, Z_cat
    are drawn as d, in and Z, cat) or PyTorch's True and False."""
    while True:
        stripped = re.sub(r"⟪[^⟪⟫]*⟫", " ", text)
        if stripped == text:
            break
        text = stripped
    allowed = {word for token in tokens for word in re.findall(r"[A-Za-z_]+", token)}
    allowed |= {"softmax", "exp", "True", "False", "in", "out", "cat", "nn", "Linear"}
    words = re.findall(r"[A-Za-z][A-Za-z_]*[A-Za-z]", text)
    return sorted({w for w in words if w not in allowed and not re.fullmatch(r"[A-Za-z]_\w+", w)})


def test_a_pseudo_translated_figure_leaves_no_english_in_its_own_words(pseudo, trace, tmp_path):
    """The words the figure code writes itself: the titles of the matrices and of every
    head, the caption, the file's title, the refusals."""
    tokens = trace.config.tokens
    for spec in (
        FigureSpec("array", "weights"),
        FigureSpec("array", "weights", head=None),
        FigureSpec("matrices"),
        FigureSpec("stage", "scores"),
    ):
        figure = build_figure(trace, spec)
        assert figure.caption, spec
        assert english_left("\n".join(figure.caption), tokens) == [], spec
        title = figure_title(trace, spec)
        if spec.kind == "matrices":  # the others' are the text layer's titles
            assert title.startswith("⟪"), title
    for spec in (FigureSpec("array", "weights", head=None), FigureSpec("matrices")):
        title = laid_out_texts(build_figure(trace, spec), spec.default_size(trace))[0][0]
        assert title.startswith("⟪") and title.endswith("⟫"), title
    for call in (
        lambda: check_size((10, 10)),
        lambda: check_size((8000, 8000), 4),
        lambda: export_figure(trace, FigureSpec("array", "weights"), tmp_path / "w.gif"),
        lambda: export_figure(trace, FigureSpec("array", "nope"), tmp_path / "w.png"),
        lambda: export_figure(trace, FigureSpec("stage", "nope"), tmp_path / "w.png"),
        lambda: export_figure(trace, FigureSpec("array", "weights", head=7), tmp_path / "w.png"),
    ):
        with pytest.raises(FigureError) as refused:
            call()
        assert english_left(str(refused.value), tokens) == [], str(refused.value)


def test_a_pseudo_translated_figure_of_every_kind_leaves_no_english(pseudo, trace, tmp_path):
    """Everything drawn, as the SVG writes it: every kind of figure, every stage."""
    specs = [
        FigureSpec("array", "weights"),
        FigureSpec("array", "weights", head=None),
        FigureSpec("matrices"),
        *(FigureSpec("stage", key) for key in step_keys(trace.config)),
    ]
    found = {}
    for index, spec in enumerate(specs):
        path = export_figure(trace, spec, tmp_path / f"{index}.svg", size=(1500, 1100))
        left = english_left("\n".join(svg_texts(path)), trace.config.tokens)
        if left:
            found[f"{spec.kind} {spec.name}"] = left
    assert found == {}
