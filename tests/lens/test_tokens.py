from attn_explorer.lens.tokens import _byte_decoder, byte_level_piece, readable


def _pieces(text: str) -> str:
    """`text` as GPT-2's byte-level tokenizer spells it."""
    encoder = {b: ch for ch, b in _byte_decoder().items()}
    return "".join(encoder[b] for b in text.encode("utf-8"))


def test_byte_level_pieces_show_their_space_and_newline():
    assert byte_level_piece("Ġcat") == "␣cat"
    assert byte_level_piece("Ċ") == "↵"
    assert byte_level_piece("<|endoftext|>") == "<|endoftext|>"


def test_a_byte_that_is_part_of_a_letter_is_written_as_its_number():
    # "ạ" is E1 BA A1 in UTF-8; GPT-2 may cut it after its first byte.
    assert byte_level_piece(_pieces("ạ")[:1]) == "<E1>"
    assert byte_level_piece(_pieces(" bạn")) == "␣bạn"
    assert byte_level_piece(_pieces("bạ")[:2]) == "b<E1>"


def test_wordpiece_tokens_stay_as_they_are():
    assert readable(["[CLS]", "journey", "##s"], "bert") == ("[CLS]", "journey", "##s")
