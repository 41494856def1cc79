"""One registry of methods: every method has every field and a colour and marker of its own, and the figures draw it so."""
import dataclasses

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pytest
from matplotlib.colors import is_color_like, to_hex, to_rgb
from matplotlib.markers import MarkerStyle

from ikd.baselines import METHODS, Method, embed
from ikd.style import label, method_legend, method_style, plot_methods, sorted_methods


def is_grey(colour):
    "True for a grey (black and white aside): the look of a key that is not registered."
    red, green, blue = to_rgb(colour)
    return red == green == blue and 0 < red < 1


@pytest.mark.parametrize("key", list(METHODS))
def test_every_method_has_every_field(key):
    method = METHODS[key]
    assert method.key == key and callable(method.run)
    for field in ("name", "colour", "marker"):
        value = getattr(method, field)
        assert isinstance(value, str) and value.strip(), f"{key} lacks its {field}"
    assert is_color_like(method.colour), f"{key}: {method.colour!r} is no colour"
    MarkerStyle(method.marker)  # raises for a marker matplotlib does not know


def test_a_method_without_a_field_cannot_be_registered():
    fields = [f.name for f in dataclasses.fields(Method)]
    assert fields == ["key", "run", "name", "colour", "marker", "sparse", "precision", "seeds", "min_components"]
    with pytest.raises(TypeError): Method("new", lambda X, n_components, random_state: X, "new method", "#000080")
    with pytest.raises(dataclasses.FrozenInstanceError): METHODS["pca"].colour = "red"


def test_no_two_methods_share_a_colour_or_a_marker():
    colours = [to_hex(method.colour) for method in METHODS.values()]
    markers = [method.marker for method in METHODS.values()]
    assert len(set(colours)) == len(colours), "two methods share a colour"
    assert len(set(markers)) == len(markers), "two methods share a marker"
    assert not [method.key for method in METHODS.values() if is_grey(method.colour)], "grey is for unregistered keys"


@pytest.mark.parametrize("key", list(METHODS))
def test_style_draws_every_registered_method_in_its_own_colour_and_name(key):
    style = method_style(key)
    assert (style["color"], style["marker"], style["label"]) == (METHODS[key].colour, METHODS[key].marker, METHODS[key].name)
    assert not is_grey(style["color"]) and label(key) == METHODS[key].name != key


def test_a_key_the_registry_does_not_hold_is_grey_under_its_key():
    style = method_style("saul_lvm_s2")
    assert is_grey(style["color"]) and style["label"] == "saul_lvm_s2"


def test_sne_and_saul_lvm_appear_in_a_figure_under_their_names_and_colours():
    rows = [{"method": key, "n_components": M, "knn_5": 0.5} for key in METHODS for M in (2, 5)]
    fig, ax = plt.subplots()
    drawn = plot_methods(ax, rows, "n_components", "knn_5")
    method_legend(fig, drawn)
    assert drawn == list(METHODS)  # the registry's order, IKD first
    assert [(line.get_label(), line.get_color()) for line in ax.lines] == [(m.name, m.colour) for m in METHODS.values()]
    legend = [text.get_text() for text in fig.legends[0].get_texts()]
    assert "SNE" in legend and "Saul's LVM" in legend
    plt.close(fig)


def test_the_registry_order_is_every_figure_order():
    assert sorted_methods(reversed(list(METHODS))) == list(METHODS)
    assert sorted_methods(["vae", "a variant", "ikd"]) == ["ikd", "vae", "a variant"]


def test_adding_a_method_is_one_entry(monkeypatch):
    monkeypatch.setitem(METHODS, "first_columns", Method("first_columns", lambda X, n_components, random_state: X[:, :n_components],
                                                         "first columns", "#000080", "$f$"))
    assert embed("first_columns", [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], 2).tolist() == [[1.0, 2.0], [4.0, 5.0]]
    style = method_style("first_columns")
    assert (style["color"], style["marker"], style["label"]) == ("#000080", "$f$", "first columns")
    assert label("first_columns") == "first columns" and sorted_methods(["first_columns", "vae"]) == ["vae", "first_columns"]


@pytest.mark.parametrize("key", list(METHODS))
def test_every_method_declares_what_it_accepts(key):
    "embed checks X, n_components and random_state against these at its door (issue 44)."
    method = METHODS[key]
    assert isinstance(method.sparse, bool) and method.seeds in ("any", "integer")
    assert method.precision in (None, "float32", "float64") and isinstance(method.min_components, int) and method.min_components >= 1
