"""Figures: what is drawn is what was asked for, and a failed call changes nothing."""
import pytest

from lamina.stats import figures

pytest.importorskip("matplotlib")


def drawn_lines():
    return [line.get_xydata().tolist() for line in figures.axes().lines]


def legend_texts():
    return [t.get_text() for t in figures.axes().get_legend().get_texts()]


@pytest.mark.parametrize("program, kind", [
    ("plot([1, 2], [1, 2, 3])", "ShapeError"),
    ('plot([1, 2], style = "zz")', "ValueError"),
    ('plot(normal(0, 1), style = "zz")', "ValueError"),
    ('plot(poisson(2), style = "zz")', "ValueError"),
    ('bar(["a", "b"], [1])', "ShapeError"),
    ("scatter([1, 2], [1, 2, 3])", "ShapeError"),
    ("hist(float32([1, 1.0000001]), 10)", "ValueError"),
])
def test_a_failed_drawing_leaves_no_blank_figure_for_savefig(lam, tmp_path, program, kind):
    # the figure started for the call stayed: savefig wrote a blank image, a notebook showed one
    path = tmp_path / "x.png"
    assert lam.error(program).kind == kind
    err = lam.error("savefig(p)", p=str(path))
    assert err.message.startswith("savefig has no figure to save")
    assert not path.exists()
    lam.run("plot([1, 2])")                  # a figure drawn before is kept as it was
    assert lam.error(program).kind == kind
    assert drawn_lines() == [[[0.0, 1.0], [1.0, 2.0]]] and not figures.axes().collections


def test_figure_of_a_bad_size_keeps_the_current_figure(lam):
    # figure(0, 3) threw the unsaved figure away before refusing the size
    lam.run("plot([1, 2])")
    err = lam.error("figure(0, 3)")
    assert err.kind == "ValueError" and err.message == "figure's width and height are inches, from 0 to 50."
    assert drawn_lines() == [[[0.0, 1.0], [1.0, 2.0]]]


def test_scatter_refuses_a_dot_too_big_to_save(lam):
    # size = 1e30 was taken, and savefig then ran for hours
    err = lam.error("scatter([1, 2], [3, 4], size = 1e30)")
    assert err.kind == "ValueError" and err.message == (
        "scatter's size is a marker's area in points squared, at most 1,000,000 (a dot about 14 "
        "inches across), not 1e+30.")
    lam.run("scatter([1, 2], [3, 4], size = 1e6)")
    assert figures.axes().collections[0].get_sizes().tolist() == [1e6]


def test_hist_of_bins_finer_than_the_values_says_so_not_1e308(lam):
    # the message blamed "values near the largest float (about 1e308)"
    err = lam.error("hist(float32([1, 1.0000001]), 10)")
    assert err.kind == "ValueError" and err.message == (
        "hist cannot make equal bins over these values (Too many bins for data range. Cannot "
        "create 10 finite-sized bins.); scale the data first.")


def test_plot_of_a_table_column_takes_its_label(lam):
    # the label was dropped: no legend
    lam.run('t = table({a = [1, 2, 3]})\nplot(t, "a", label = "q")')
    assert drawn_lines() == [[[0.0, 1.0], [1.0, 2.0], [2.0, 3.0]]]
    assert legend_texts() == ["q"]
    lam.run('function f(c)\n  return {loss = c.lr * c.b}\nend function\n'
            'figure()\nt = sweep(f, {lr = [0.01, 0.1, 1], b = [1, 2]})\nplot(t, "loss", label = "run")')
    assert legend_texts() == ["run, b = 1", "run, b = 2"]
    assert drawn_lines()[1] == [[0.01, 0.02], [0.1, 0.2], [1.0, 2.0]]


def test_plot_of_a_table_without_a_column_name_says_to_give_one(lam):
    err = lam.error("plot(table({a = [1, 2]}))")
    assert err.kind == "TypeError" and err.message == (
        'plot of a table needs the name of a numeric column to draw: plot(t, "loss").')


def test_plot_of_a_distribution_takes_its_style(lam):
    # style was ignored: a solid blue line
    lam.run('plot(normal(0, 1), style = "r--")')
    line = figures.axes().lines[0]
    assert line.get_color() == "r" and line.get_linestyle() == "--"
    lam.run('figure()\nplot(poisson(2), style = "gs")')
    markers = figures.axes().lines[0]
    assert markers.get_color() == "g" and markers.get_marker() == "s"
    assert markers.get_xydata()[:3, 0].tolist() == [0.0, 1.0, 2.0]


def test_plot_of_a_row_vector_is_one_line(lam):
    # a 1 x 3 matrix was three lines of one point each: nothing visible
    lam.run("plot(reshape([1, 2, 4], 1, 3))")
    assert drawn_lines() == [[[0.0, 1.0], [1.0, 2.0], [2.0, 4.0]]]
    lam.run("figure()\nplot([10, 20, 30], reshape([1, 2, 4], 1, 3))")
    assert drawn_lines() == [[[10.0, 1.0], [20.0, 2.0], [30.0, 4.0]]]
    lam.run("figure()\nplot([5], reshape([1, 2], 1, 2))")       # one x: a point per column, as before
    assert drawn_lines() == [[[5.0, 1.0]], [[5.0, 2.0]]]


def test_a_label_that_starts_with_an_underscore_is_in_the_legend(lam):
    # matplotlib leaves such labels out: no legend at all
    lam.run('plot([1, 2], label = "_x")\nbar([1, 2], label = "_b")')
    assert [t.lstrip("\u200b") for t in legend_texts()] == ["_x", "_b"]


def test_bar_of_mixed_labels_says_what_it_takes(lam):
    err = lam.error('bar(["a", 1], [1, 2])')
    assert err.kind == "TypeError" and err.message == "bar's labels must be all strings or all numbers, not a mix."


def test_scatter_draws_a_dot_whose_color_value_is_nan_gray(lam):
    # matplotlib's "bad" color is transparent: the dot vanished
    lam.run("scatter([1, 2, 3], [1, 2, 3], color = [1, 0 / 0, 1 / 0])")
    figures.axes().figure.canvas.draw()
    faces = figures.axes().collections[0].get_facecolors()
    assert faces[1].tolist() == faces[2].tolist() == [128 / 255, 128 / 255, 128 / 255, 1.0]
    assert faces[0][3] == 1.0


def test_a_title_with_an_odd_number_of_dollar_signs_is_plain_text(lam, tmp_path):
    # matplotlib typesets math only between an even number of $; three were refused as bad math
    path = tmp_path / "d.png"
    lam.run('plot([1, 2], title = "$5, $6 or $7", xlabel = "$a$ and $")')
    assert figures.axes().get_title() == "$5, $6 or $7"
    lam.run("savefig(p)", p=str(path))
    assert path.read_bytes()[:4] == b"\x89PNG"
    err = lam.error('plot([1, 2], title = "$x^$ and $y$")')
    assert err.kind == "ValueError" and err.message.startswith(
        "A figure's title \"$x^$ and $y$\" has math between $ signs that matplotlib cannot typeset")


def test_savefig_refuses_a_raster_image_of_more_than_100_million_pixels(lam, tmp_path):
    # dpi 5000 ran for minutes and then ran out of memory; an .svg has no pixels to count
    path = str(tmp_path / "y.png")
    err = lam.error('plot([1, 2])\nsavefig(path, dpi = 5000)', path=path)
    assert (err.kind, err.message) == ("ValueError", "savefig at dpi 5000 would make a 32,000 x 24,000 pixel "
                                       "image, more than 100,000,000 pixels; use a lower dpi, or .svg or .pdf.")
    lam.run('plot([1, 2])\nsavefig(path, dpi = 5000)', path=str(tmp_path / "y.svg"))
    assert (tmp_path / "y.svg").stat().st_size > 0 and not (tmp_path / "y.png").exists()
