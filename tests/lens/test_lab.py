"""A real head taken into the lab computes what the model computes for it."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from attn_explorer.engine import compute
from attn_explorer.engine.given import ArrayRows, GivenWeights
from attn_explorer.lens.capture import forward, run
from attn_explorer.lens.heads import head_arrays
from attn_explorer.lens.lab import head_config
from tests.lens.conftest import TEXT


@pytest.mark.parametrize(("layer", "head"), [(0, 0), (1, 3), (2, 1)])
def test_a_gpt2_heads_lab_trace_equals_the_models_own(gpt2, layer, head):
    _check(gpt2, layer, head)


@pytest.mark.parametrize(("layer", "head"), [(0, 2), (1, 0)])
def test_a_bert_heads_lab_trace_equals_the_models_own(bert, layer, head):
    _check(bert, layer, head)


def _check(loaded, layer, head):
    model_run = run(loaded, TEXT)
    _, _, attentions = forward(loaded, TEXT)
    config = head_config(model_run, layer, head)
    assert (config.d_in, config.d_out, config.heads) == (loaded.d_model, loaded.d_head, 1)
    assert config.causal == (loaded.family == "gpt2")
    trace = compute(config)
    own = attentions[layer][0, head].numpy()
    np.testing.assert_allclose(trace.weights[0], own, atol=1e-5, rtol=0)
    arrays = head_arrays(model_run, layer, head)
    for name, mine in (("queries", arrays.queries), ("keys", arrays.keys)):
        np.testing.assert_allclose(trace[name][0], mine, atol=1e-5)
    np.testing.assert_allclose(trace.head_contexts[0], arrays.output, atol=1e-5)
    np.testing.assert_allclose(trace.scores[0], arrays.scores, atol=1e-4)


def test_the_controls_act_on_the_real_head(gpt2):
    config = head_config(run(gpt2, TEXT), 1, 1)
    hotter = compute(dataclasses.replace(config, temperature=2.0)).weights[0]
    plain = compute(config).weights[0]
    assert not np.allclose(hotter, plain)
    # Without the mask the first query looks at every token, as a BERT head would.
    unmasked = compute(dataclasses.replace(config, causal=False)).weights[0]
    assert unmasked[0, -1] > 0 and plain[0, -1] == 0


def test_a_config_the_given_weights_do_not_fit_is_refused_in_words(gpt2):
    config = head_config(run(gpt2, TEXT), 0, 0)
    wider = dataclasses.replace(config, d_out=9)
    assert [p.message for p in wider.problems()] == [
        "The given weights make heads 8 wide: set d_out to 8."
    ]
    two = dataclasses.replace(config, num_heads=2)
    assert two.problems()[0].field == "num_heads"
    narrow = dataclasses.replace(config, embeddings=tuple(row[:-1] for row in config.embeddings))
    assert "read 32-wide embeddings but these are 31 wide" in narrow.problems()[0].message
    # Another projection leaves the given weights aside: the seed draws again.
    drawn = dataclasses.replace(config, projection="rand")
    assert drawn.problems() == [] and drawn.seed_draws and not config.seed_draws


def test_heads_of_one_layer_share_its_rows_which_equal_the_plain_table(gpt2):
    model_run = run(gpt2, TEXT)
    first, second = head_config(model_run, 1, 0), head_config(model_run, 1, 3)
    assert first.embeddings is second.embeddings  # made once per layer, not per head
    plain = tuple(map(tuple, model_run.inputs[1].astype(np.float64).tolist()))
    assert first.embeddings == plain and hash(first.embeddings) == hash(plain)
    assert dataclasses.replace(first, embeddings=plain) == first
    assert first.problems() == []


def test_a_layers_rows_are_read_from_their_array_and_turned_into_floats_only_when_read(gpt2):
    """A layer's rows keep their float64 array: its shape, its numbers as an array and the
    config's check read no Python float; a row read, a slice or a walk gives the plain
    table's tuples, and a data export writes the same plain numbers."""
    from attn_explorer.io.data_export import config_to_dict

    model_run = run(gpt2, TEXT)
    config = head_config(model_run, 1, 0)
    rows = config.embeddings
    plain = tuple(map(tuple, model_run.inputs[1].astype(np.float64).tolist()))
    assert (len(rows), config.d_in, config.problems()) == (len(plain), 32, [])
    assert np.array(rows).dtype == np.float64 and np.array_equal(np.asarray(rows), plain)
    assert rows.converted == 0  # nothing above made a Python float of a row
    assert rows[2] == plain[2] and rows[-1] == plain[-1] and type(rows[0][0]) is float
    assert rows[1:3] == plain[1:3] and list(rows) == list(plain)
    with pytest.raises(IndexError):
        rows[len(plain)]
    assert config_to_dict(config)["embeddings"] == [list(row) for row in plain]
    other = head_config(model_run, 2, 0).embeddings
    assert other != rows and other != plain and plain != other
    changed = (*plain[:1], (9.0, *plain[1][1:]), *plain[2:])
    assert rows != changed and changed != rows


def test_rows_from_an_array_with_an_infinity_are_refused_as_a_table_would_be(gpt2):
    config = head_config(run(gpt2, TEXT), 0, 0)
    values = np.array(config.embeddings)
    values[2, 5] = np.inf
    bad = dataclasses.replace(config, embeddings=ArrayRows.of(values))
    plain = dataclasses.replace(config, embeddings=tuple(map(tuple, values.tolist())))
    assert [p.message for p in bad.problems()] == [p.message for p in plain.problems()]
    assert "infinite" in bad.problems()[0].message


def test_given_weights_from_float32_arrays_equal_those_written_as_numbers(gpt2):
    """What a session reads back (float64 numbers) is the config the lab made from the
    model's float32 arrays: equal, hashed alike, shapes checked the same way."""
    given = head_config(run(gpt2, TEXT), 1, 2).given
    arrays = given.arrays()
    assert arrays["w_query"].dtype == np.float32
    written = GivenWeights(**{name: a.astype(np.float64).tolist() for name, a in arrays.items()})
    assert written == given and hash(written) == hash(given)
    assert given.w_key.dtype == np.float64 and not given.w_key.flags.writeable
    assert type(given.lists("w_key")[0][0][0]) is float  # what a session writes
    assert given.lists("w_key") == arrays["w_key"].tolist()  # float32 numbers, exactly
    with pytest.raises(ValueError, match="b_value must be"):
        GivenWeights(**{**arrays, "b_value": arrays["b_value"][:, :-1]})


def test_a_layer_made_ready_on_its_thread_is_the_one_its_heads_open_with(gpt2):
    from attn_explorer.lens.lab import layer_rows, prepare

    model_run = run(gpt2, TEXT)
    gpt2._weights.clear()
    prepare(model_run, [2, 5, -1])  # layers the model lacks are left alone
    ready = model_run.rows_cache[2].result(timeout=30)
    assert sorted(model_run.rows_cache) == [2]
    assert head_config(model_run, 2, 1).embeddings is ready is layer_rows(model_run, 2)
    assert ready == tuple(map(tuple, model_run.inputs[2].astype(np.float64).tolist()))
    assert not gpt2._weights  # a head's weights are read from its own columns instead


def test_a_run_keeps_the_rows_of_its_newest_layers_only(gpt2, monkeypatch):
    from attn_explorer.lens import lab

    monkeypatch.setattr(lab, "KEPT_LAYERS", 2)
    model_run = run(gpt2, TEXT)
    first = lab.layer_rows(model_run, 0)
    lab.layer_rows(model_run, 1)
    lab.layer_rows(model_run, 2)
    assert list(model_run.rows_cache) == [1, 2]
    again = lab.layer_rows(model_run, 0)  # made anew, equal
    assert again is not first and again == first


def test_a_layer_whose_making_failed_is_made_again_when_opened(gpt2):
    from concurrent.futures import Future

    from attn_explorer.lens.lab import layer_rows

    model_run = run(gpt2, TEXT)
    failed: Future = Future()
    failed.set_exception(MemoryError())
    model_run.rows_cache[1] = failed
    assert layer_rows(model_run, 1) == tuple(
        map(tuple, model_run.inputs[1].astype(np.float64).tolist())
    )


def test_the_rows_of_a_dropped_layer_or_run_are_let_go(gpt2, monkeypatch):
    """A dropped layer's or a forgotten run's rows are freed once no config holds them."""
    import gc
    import weakref

    from attn_explorer.lens import lab

    monkeypatch.setattr(lab, "KEPT_LAYERS", 1)
    model_run = run(gpt2, TEXT)
    first = weakref.ref(lab.layer_rows(model_run, 0).array)
    second = weakref.ref(lab.layer_rows(model_run, 1).array)  # layer 0 dropped
    gc.collect()
    assert first() is None and list(model_run.rows_cache) == [1]
    lab.forget(model_run)
    gc.collect()
    assert second() is None and not model_run.rows_cache


def test_a_real_head_saved_as_a_session_reads_back_the_same_numbers_and_trace(gpt2):
    """The layer's rows and the head's weights are written as the float32 numbers they are
    (widened exactly), and the session read back is the same config, computing the same."""
    from attn_explorer.io.session import dumps, loads
    from attn_explorer.model.state import ExplorerState

    model_run = run(gpt2, TEXT)
    config = head_config(model_run, 1, 2)
    back = loads(dumps(ExplorerState.from_config(config))).config()
    assert back == config and hash(back.given) == hash(config.given)
    assert back.embeddings == tuple(map(tuple, model_run.inputs[1].tolist()))
    w_q = gpt2.layer_weights(1)[0][2]
    assert (back.given.w_query[0] == w_q).all() and back.given.w_query.dtype == np.float64
    assert (compute(back).weights == compute(config).weights).all()


def test_a_heads_trace_computed_before_the_click_is_taken_once_for_its_own_config(gpt2):
    """engine.ready hands the engine's thread a trace computed on the preparer's thread, only
    for an equal config (a real head's: given weights), with the masking comparison when
    asked for it, and only once."""
    from attn_explorer.engine import preset, ready
    from attn_explorer.lens.lab import _thread, prepare_head

    model_run = run(gpt2, TEXT)
    ready.clear()
    prepare_head(model_run, 1, 2)
    prepare_head(model_run, 1, 7)  # no head 8: nothing computed
    _thread().submit(lambda: None).result(timeout=30)  # after what was queued before
    config = head_config(model_run, 1, 2)
    assert ready.take(head_config(model_run, 1, 3), True) is None  # another head
    assert ready.take(dataclasses.replace(config, temperature=2.0), True) is None
    assert ready.take(preset("mha").config, False) is None  # a toy config: never
    trace, seconds = ready.take(config, True)
    assert trace.config == config and seconds > 0
    np.testing.assert_array_equal(trace.weights, compute(config).weights)
    assert ready.take(config, True) is None  # taken once
    ready.offer(trace, False, seconds)  # computed without the masking comparison
    assert ready.take(config, True) is None and ready.take(config, False)[0] is trace


def test_a_heads_given_weights_are_one_object_read_from_its_own_columns(gpt2, bert):
    """head_config reads one head's columns without splitting the layer, the same numbers
    as the layer split into heads; the object is kept per head (the last KEPT_HEADS), so the
    config computed ahead and the one a click loads hold the same weights object."""
    from attn_explorer.lens import lab

    for loaded in (bert, gpt2):
        model_run = run(loaded, TEXT)
        loaded._weights.clear()
        loaded.given_cache.clear()
        given = head_config(model_run, 1, 2).given
        assert not loaded._weights  # the layer was not split
        split = loaded.layer_weights(1)
        for name, whole in zip(
            ("w_query", "w_key", "w_value", "b_query", "b_key", "b_value"), split, strict=True
        ):
            np.testing.assert_array_equal(getattr(given, name)[0], whole[2], err_msg=name)
        assert head_config(model_run, 1, 2).given is given
    others = [(layer, head) for layer in range(3) for head in range(4) if (layer, head) != (1, 2)]
    assert len(others) > lab.KEPT_HEADS
    for layer, head in others:  # the tiny GPT-2's 11 other heads: (1, 2) is let go
        head_config(model_run, layer, head)
    assert len(gpt2.given_cache) == lab.KEPT_HEADS
    again = head_config(model_run, 1, 2).given
    assert again is not given and again == given
