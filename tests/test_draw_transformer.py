"""The architecture diagram: what it draws, in which order, with which masks, and its errors."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from helpers.plots import DIAGRAM_HIGHLIGHTS, draw_transformer  # noqa: E402


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def kinds(diagram, stack):
    return [box.kind for box in diagram["boxes"] if box.stack == stack]


def box(diagram, name):
    (found,) = [b for b in diagram["boxes"] if b.name == name]
    return found


POST_LN_ENCODER = [
    "input", "embedding", "positional", "dropout",
    "self_attention", "dropout", "add_norm",
    "feed_forward", "dropout", "add_norm",
]  # fmt: skip
PRE_LN_ENCODER = [
    "input", "embedding", "positional", "dropout",
    "layer_norm", "self_attention", "dropout", "add",
    "layer_norm", "feed_forward", "dropout", "add",
    "layer_norm",
]  # fmt: skip


def test_encoder_decoder_post_ln_order():
    diagram = draw_transformer()
    assert kinds(diagram, "encoder") == POST_LN_ENCODER
    assert kinds(diagram, "decoder") == [
        "input", "embedding", "positional", "dropout",
        "masked_self_attention", "dropout", "add_norm",
        "cross_attention", "dropout", "add_norm",
        "feed_forward", "dropout", "add_norm",
        "output_projection", "softmax",
    ]  # fmt: skip
    assert diagram["variant"] == "encoder-decoder" and diagram["norm_first"] is False


def test_pre_ln_puts_layer_norm_before_each_sublayer_and_one_at_the_end():
    diagram = draw_transformer(norm_first=True)
    assert kinds(diagram, "encoder") == PRE_LN_ENCODER
    decoder = kinds(diagram, "decoder")
    for sublayer in ("masked_self_attention", "cross_attention", "feed_forward"):
        i = decoder.index(sublayer)
        assert decoder[i - 1 : i + 3] == ["layer_norm", sublayer, "dropout", "add"]
    assert decoder[-3:] == ["layer_norm", "output_projection", "softmax"]
    assert "add_norm" not in decoder


def test_boxes_are_stacked_bottom_to_top_without_overlap():
    for diagram in (draw_transformer(), draw_transformer("decoder-only", norm_first=True)):
        for stack in ("encoder", "decoder"):
            column = [b for b in diagram["boxes"] if b.stack == stack]
            for below, above in zip(column, column[1:], strict=False):
                assert above.y > below.y + below.height
                assert above.x == below.x


def test_every_attention_names_its_mask():
    diagram = draw_transformer()
    masks = {b.kind: b.mask for b in diagram["boxes"] if b.mask is not None}
    assert masks == {
        "self_attention": "source padding",
        "masked_self_attention": "target padding + causal",
        "cross_attention": "source padding",
    }
    for b in diagram["boxes"]:
        if b.mask:
            assert b.label.endswith(f"mask: {b.mask}")
    only = draw_transformer("decoder-only")
    assert [b.mask for b in only["boxes"] if b.mask] == ["padding + causal"]


def test_decoder_only_has_one_stack_and_no_cross_attention():
    diagram = draw_transformer("decoder-only")
    assert {b.stack for b in diagram["boxes"]} == {"decoder"}
    assert "cross_attention" not in kinds(diagram, "decoder")
    assert "self_attention" not in kinds(diagram, "decoder")
    assert all(arrow.kind != "memory" for arrow in diagram["arrows"])
    assert box(diagram, "decoder.tokens").label == "tokens"


def test_arrows_flow_up_have_one_residual_per_sublayer_and_memory_feeds_cross_attention():
    for norm_first in (False, True):
        diagram = draw_transformer(norm_first=norm_first)
        names = {b.name for b in diagram["boxes"]}
        assert all(a.start in names and a.end in names for a in diagram["arrows"])
        residual = [a for a in diagram["arrows"] if a.kind == "residual"]
        assert len(residual) == 5  # 2 encoder sublayers + 3 decoder sublayers
        for arrow in residual:
            # the skip path starts below the sublayer (and below its LayerNorm in pre-LN)
            assert box(diagram, arrow.start).kind in ("dropout", "add", "add_norm")
            assert box(diagram, arrow.end).kind in ("add", "add_norm")
        (memory,) = [a for a in diagram["arrows"] if a.kind == "memory"]
        assert memory.end == "decoder.cross_attention" and memory.label == "keys, values"
        top = "encoder.final_norm" if norm_first else "encoder.feed_forward.add_norm"
        assert memory.start == top
    flows = [a for a in draw_transformer()["arrows"] if a.kind == "flow"]
    assert ("encoder.embedding", "encoder.positional") in {(a.start, a.end) for a in flows}


def test_highlight_marks_exactly_the_named_part():
    expected = {
        "positional": {"encoder.positional", "decoder.positional"},
        "cross_attention": {"decoder.cross_attention"},
        "masks": {
            "encoder.self_attention",
            "decoder.masked_self_attention",
            "decoder.cross_attention",
        },
        "output": {"decoder.output_projection", "decoder.softmax"},
    }
    for part, names in expected.items():
        diagram = draw_transformer(highlight=part)
        assert {b.name for b in diagram["boxes"] if b.highlighted} == names
        assert diagram["highlight"] == part
    assert not any(b.highlighted for b in draw_transformer()["boxes"])
    for part in DIAGRAM_HIGHLIGHTS:  # every documented part lights up at least one box
        assert any(b.highlighted for b in draw_transformer(highlight=part)["boxes"])
    dropout = draw_transformer(highlight="dropout")
    assert sum(b.highlighted for b in dropout["boxes"]) == 7  # 2 inputs + 5 sublayers


def test_draws_on_a_given_axes():
    fig, ax = plt.subplots()
    diagram = draw_transformer(ax=ax)
    assert len(ax.patches) >= len(diagram["boxes"])
    assert "Encoder-decoder" in ax.get_title()
    labels = {text.get_text() for text in ax.texts}
    assert "Cross-attention\nmask: source padding" in labels


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"variant": "encoder-only"}, ValueError, "variant must be one of"),
        ({"variant": 3}, TypeError, "variant must be a string"),
        ({"norm_first": "yes"}, TypeError, "norm_first must be a bool"),
        ({"norm_first": 1}, TypeError, "norm_first must be a bool"),
        ({"highlight": "positions"}, ValueError, "highlight must be one of"),
        ({"highlight": ["masks"]}, TypeError, "highlight must be a string"),
        ({"variant": "decoder-only", "highlight": "cross_attention"}, ValueError, "decoder-only"),
        ({"num_layers": 0}, ValueError, "num_layers must be a positive integer"),
        ({"num_layers": 2.5}, TypeError, "num_layers must be an integer"),
        ({"ax": "axes"}, TypeError, "ax must be a matplotlib Axes"),
    ],
)
def test_bad_arguments_name_the_argument(kwargs, error, words):
    with pytest.raises(error, match=words):
        draw_transformer(**kwargs)
