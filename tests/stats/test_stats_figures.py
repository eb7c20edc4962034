"""Figures are real images; the docs build writes an example's figure beside its page."""
import subprocess
import sys

import numpy as np
import pytest

from lamina.builtins.registry import load_all
from lamina.docs import build
from lamina.docs.pages import page
from lamina.stats import figures
from lamina.values import Record

image = pytest.importorskip("matplotlib.image")


def check_png(path, min_size=(200, 200)):
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = image.imread(str(path))
    h, w = pixels.shape[:2]
    assert h >= min_size[0] and w >= min_size[1]
    rgb = pixels[..., :3]
    not_white = (rgb < 0.95).any(axis=2).mean()
    assert 0.01 < not_white < 0.9, not_white            # something drawn, not a blank or filled canvas
    assert len(np.unique(rgb.reshape(-1, 3), axis=0)) > 5   # more than a couple of colors
    return pixels


@pytest.mark.parametrize("program", [
    'x = linspace(0, 3, 30)\nplot(x, x .^ 2, label = "sq", title = "t", xlabel = "x", ylabel = "y")',
    'seed(1)\nscatter(randn(50), randn(50), color = randint(0, 3, 50))',
    'seed(1)\nhist(randn(500), 20)',
    'bar(["a", "b", "c"], [3, 1, 2])',
    'plot(normal(0, 1))\nplot(poisson(3))',
    'plot([1, 2; 2, 3; 3, 5])',
    'plot(date(["2024-01-01", "2024-01-09", "2024-03-01"]), [3, 1, 2], style = "o-")',
    'c = category(["hi", "lo", "lo"], levels = ["lo", "hi"])\nbar(c)\nscatter(c, [3, 1, 2], color = "red")',
])
def test_drawings_are_real_images(lam, tmp_path, program):
    path = tmp_path / "fig.png"
    lam.run(program + "\nsavefig(path)", path=str(path))
    check_png(path)


def test_plot_of_a_model_draws_its_loss_history(lam, tmp_path):
    history = Record({"loss_history": np.exp(-np.arange(50) / 5.0), "val_loss_history": np.exp(-np.arange(50) / 6.0) + 0.01})
    path = tmp_path / "loss.png"
    lam.run("plot(net)\nsavefig(path, dpi = 50)", net=history, path=str(path))
    check_png(path, (100, 150))
    lam.run("fit = logreg([1, 2, 3, 4, 5, 6], [0, 0, 1, 0, 1, 1])\nplot(fit)\nsavefig(path)", path=str(path))
    check_png(path)
    err = lam.error("plot({a = 1})")
    assert err.kind == "TypeError" and "loss_history" in err.message


def test_figure_errors(lam, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)          # nothing may land in the working tree, even on failure
    assert lam.error('savefig("x.png")').message.startswith("savefig has no figure to save")
    assert lam.error('plot([1, 2])\nsavefig("x.txt")').message.startswith("savefig writes .png")
    err = lam.error('plot([1, 2])\nsavefig(p)', p=str(tmp_path / "nope" / "x.png"))
    assert err.kind == "ValueError" and "does not exist" in err.message
    assert lam.error("plot([1, 2, 3], [1, 2])").kind == "ShapeError"
    assert lam.error("scatter([1, 2], [1, 2], color = [1])").kind == "ShapeError"
    assert lam.error("figure(0, 3)").kind == "ValueError"
    assert lam.error('scatter([1], [1], color = "notacolor")').message.startswith('scatter\'s color "notacolor" is not a color')


def test_show_without_a_display_says_so(lam, capsys):
    lam.run("plot([1, 2])\nshow()")
    assert "no display" in capsys.readouterr().err


def test_neither_matplotlib_nor_scipy_stats_load_at_start_up():
    code = ("import sys\nfrom lamina.interpreter import Interpreter\n"
            "Interpreter().run('x = median([1, 2, 3])\\ny = normal(0, 1)\\nt = table({a = [1]})')\n"
            "print('matplotlib' in sys.modules, 'scipy.stats' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.stdout.split() == ["False", "False"], out.stderr


def test_a_page_shows_the_figure_its_example_saved():
    spec = load_all()["hist"]
    figures = {}
    text = page(spec, figures=figures)
    assert "![figure](hist.png)" in text and set(figures) == {"hist.png"}
    assert figures["hist.png"][:4] == b"\x89PNG"


def test_the_docs_build_writes_figures_beside_the_pages(tmp_path, monkeypatch):
    # The build of this category's pages (the full build also runs every other category's examples).
    from lamina.docs import pages
    mine = {n: s for n, s in load_all().items() if s.category == "Figures"}
    monkeypatch.setattr(pages, "load_all", lambda: mine)
    out = tmp_path / "builtins"
    assert build.main(["build", str(out)]) == 0
    for name in ("plot.png", "plot_loss.png", "plot_dates.png", "scatter.png", "scatter_dose.png", "hist.png",
                 "bar.png", "bar_levels.png"):
        check_png(out / name, (100, 100))
    assert "![figure](scatter.png)" in (out / "scatter.md").read_text()
    assert build.main(["build", str(out), "--check"]) == 0
    (out / "hist.png").unlink()
    assert build.main(["build", str(out), "--check"]) == 1


@pytest.mark.parametrize("program, words", [
    ("scatter([1, 2], [1, 2], size = -5)", "scatter's size is a marker's area in points squared, a finite "
                                           "number at least 0, not -5."),
    ("scatter([1, 2], [1, 2], size = 0 / 0)", "not NaN."),
    ("bar([1, 1 / 0])", "bar's heights must be finite numbers, but one is Inf"),
    ("bar([0 / 0, 1])", "but one is NaN"),
])
def test_what_matplotlib_would_take_and_then_fail_to_save_is_refused_at_once(lam, program, words):
    # a negative size used to leave a figure that no savefig could write, and a NaN bar vanished
    err = lam.error(program)
    assert err.kind == "ValueError" and words in err.message


def test_bars_with_the_same_label_are_two_bars(lam, tmp_path):
    lam.run('bar(["a", "a", "b"], [1, 2, 3])')
    from lamina.stats import figures
    ax = figures.axes()
    assert [p.get_height() for p in ax.patches] == [1.0, 2.0, 3.0]
    assert [p.get_x() + p.get_width() / 2 for p in ax.patches] == [0.0, 1.0, 2.0]   # not stacked
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "a", "b"]
    figures.close()


def test_a_discrete_distribution_with_a_vast_support_is_drawn_at_2001_values(lam, tmp_path):
    # plot(poisson(1e11)) was an InternalError (arange of 600,000 values is fine, of more is not)
    path = tmp_path / "p.png"
    lam.run("plot(poisson(1e11))\nsavefig(path)", path=str(path))
    check_png(path)


def test_savefig_of_a_name_that_is_only_an_ending_writes_that_file(lam, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    lam.run('plot([1, 2])\nsavefig(".png")')          # was "Format '' is not supported"
    assert (tmp_path / ".png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_histogram_of_many_bins_is_one_step_curve_with_numpys_counts(lam, tmp_path):
    # 100,000 bins were 100,000 patches: minutes to draw; 1e9 bins were killed for memory
    path = tmp_path / "h.png"
    lam.run("seed(3)\nx = randn(1000)\nhist(x, 100000)")
    from lamina.stats import figures
    ax = figures.axes()
    assert len(ax.patches) == 0 and len(ax.collections) == 1
    x = lam.interp.get("x")
    counts, _ = np.histogram(x, 100000)
    top = ax.collections[0].get_paths()[0].vertices[:, 1]
    assert top.max() == counts.max() and top.min() == 0
    lam.run("savefig(path)", path=str(path))
    check_png(path)
    err = lam.error("hist([1, 2, 3], 1e9)")
    assert err.kind == "ValueError" and err.message == (
        "hist draws at most 1,000,000 bins, not 1,000,000,000; histogram(x, bins) gives the counts of more.")


@pytest.mark.parametrize("program, xlabel, ylabel", [
    ('hist([1, 2, 2, 3], ylabel = "people")\nhist([2, 3, 3, 4])', "", "people"),
    ('hist([1, 2, 2, 3])\nhist([2, 3, 3, 4], ylabel = "people")', "", "people"),
    ('hist([1, 2, 2, 3])\nhist([2, 3, 3, 4])', "", "count"),
    ('plot(normal(0, 1), xlabel = "z", ylabel = "p")\nplot(normal(1, 1))', "z", "p"),
    ('t = table({a = [1, 2], b = [3, 4]})\nplot(t, "a", xlabel = "i", ylabel = "value")\nplot(t, "b")',
     "i", "value"),
])
def test_a_second_drawing_keeps_the_axis_labels_the_first_was_given(lam, program, xlabel, ylabel):
    # a second hist() replaced the first call's ylabel with its default "count"
    lam.run(program)
    from lamina.stats import figures
    ax = figures.axes()
    assert (ax.get_xlabel(), ax.get_ylabel()) == (xlabel, ylabel)
    figures.close()


def test_decorate_puts_a_drawing_s_default_axis_labels_only_where_none_is(lam):
    # the rule was written out in each of four drawings (a loss history, a distribution, a table
    # column, hist); decorate holds it now
    ax = figures.axes()
    figures.decorate(ax, ylabel="people", default=("epoch", "loss"))
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("epoch", "people")
    figures.decorate(ax, xlabel="", default=("x", "density"))        # labelled: kept
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("epoch", "people")
    figures.decorate(ax, xlabel="")                                   # no default: as given
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("", "people")
    figures.close()


def test_a_sweep_of_one_setting_is_drawn_against_its_parameter(lam):
    lam.run('t = sweep(c -> {loss = c.lr * 2}, {lr = [0.5], name = ["a"]}, seed = 0)\nplot(t, "loss")')
    ax = figures.axes()
    [line] = ax.get_lines()
    assert list(line.get_xdata()) == [0.5] and list(line.get_ydata()) == [1.0]
    assert ax.get_xlabel() == "lr"
    figures.close()


def test_text_varied_and_a_number_fixed_draws_one_line_per_text_at_the_number(lam):
    lam.run('t = sweep(c -> {loss = length(c.opt)}, {lr = [0.1], opt = ["sgd", "adam"]}, seed = 0)\n'
            'plot(t, "loss")')
    ax = figures.axes()
    assert [(line.get_label(), list(line.get_xdata())) for line in ax.get_lines()] == \
        [("opt = sgd", [0.1]), ("opt = adam", [0.1])]
    assert ax.get_xlabel() == "lr"
    figures.close()


def test_a_text_too_long_to_draw_is_refused_before_drawing(lam):
    # 10,000 characters made a 100,020-pixel-wide image in 6 s; 100,000 took 89 s
    err = lam.error('s = "aaaaaaaaaa"\nfor i = 1 to 3\n    s = s + s + s + s + s + s + s + s + s + s\nend for\n'
                    'plot([1, 2, 3], xlabel = s)')
    assert err.kind == "ValueError" and err.message.startswith(
        "A figure's x label is 10,000 characters long; a figure draws at most 1,000")
    assert figures.axes().get_lines() == []
    lam.run('plot([1, 2], title = "' + "t" * 1000 + '")')
    figures.close()


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


# -- dates on the x axis ---------------------------------------------------------------------

def tick_texts():
    ax = figures.axes()
    ax.figure.canvas.draw()                     # ticks are placed when the figure is drawn
    return [t.get_text() for t in ax.get_xticklabels()]


def test_plot_of_a_date_column_draws_on_a_date_axis_leaving_out_a_missing_date(lam, tmp_path):
    import datetime as dt
    from matplotlib.dates import date2num
    csv = tmp_path / "sales.csv"
    csv.write_text("day,sales\n2024-01-03,3\n2024-01-01,1\n,5\n2024-01-10,4\n")
    lam.run("t = read_csv(p)\nplot(t.day, t.sales)", p=str(csv))
    [line] = figures.axes().get_lines()
    days = [dt.date(2024, 1, 3), dt.date(2024, 1, 1), dt.date(2024, 1, 10)]
    assert line.get_xdata(orig=False).tolist() == date2num(days).tolist() == [19725.0, 19723.0, 19732.0]
    assert line.get_ydata().tolist() == [3.0, 1.0, 4.0]           # the row without a date is left out
    assert tick_texts() == [f"2024-01-{d:02d}" for d in range(1, 11)]
    path = tmp_path / "sales.png"
    lam.run("savefig(p)", p=str(path))
    check_png(path)


@pytest.mark.parametrize("days, ticks", [
    (["2024-01-01", "2024-12-31"], ["2024-01", "2024-03", "2024-05", "2024-07", "2024-09", "2024-11", "2025-01"]),
    (["2015-06-01", "2024-01-02"], [str(y) for y in range(2014, 2025)]),
    # two days apart: a tick a day, not one every few hours that all read the same date
    (["2024-01-01", "2024-01-02"], ["2024-01-01", "2024-01-02"]),
    # matplotlib's steps of 4 days ticked 2024-02-29 and 2024-03-01 side by side, labels overlapping
    (["2024-03-01", "2024-03-29"], ["2024-03-01", "2024-03-08", "2024-03-15", "2024-03-22"]),
    (["2024-02-20", "2024-03-03"], [f"2024-02-{d}" for d in range(20, 30)] + ["2024-03-01", "2024-03-02", "2024-03-03"]),
])
def test_a_date_axis_ticks_read_as_iso_dates(lam, days, ticks):
    lam.run(f"plot(date({days}), [1, 2])".replace("'", '"'))
    assert tick_texts() == ticks


def test_scatter_of_datetimes_places_each_at_its_moment(lam):
    import datetime as dt
    from matplotlib.dates import date2num
    lam.run('scatter(datetime(["2024-01-01T10:00", "", "2024-01-01T16:30"]), [1, 2, 3], color = [7, 8, 9])')
    dots = figures.axes().collections[0]
    moments = [dt.datetime(2024, 1, 1, 10), dt.datetime(2024, 1, 1, 16, 30)]
    assert dots.get_offsets().tolist() == [[x, y] for x, y in zip(date2num(moments), [1.0, 3.0])]
    assert dots.get_array().tolist() == [7.0, 9.0]          # the color of the dot left out goes too
    assert tick_texts() == [f"2024-01-01 {h}:00" for h in range(10, 17)]


def test_dates_and_numbers_do_not_share_an_x_axis(lam):
    # matplotlib reads numbers on a date axis as days since 1970, and puts dates on a number axis
    # without date ticks
    err = lam.error('plot([1, 2])\nplot(date(["2024-01-01", "2024-01-02"]), [1, 2])')
    assert (err.kind, err.message) == ("TypeError", "plot cannot draw dates on this figure, whose x axis "
                                       "holds numbers; start another with figure() first.")
    err = lam.error('figure()\nplot(date(["2024-01-01", "2024-01-02"]), [1, 2])\nhist([1, 2])')
    assert err.message == ("hist cannot draw numbers on this figure, whose x axis holds dates; start "
                           "another with figure() first.")
    lam.run('figure()\nplot(date(["2024-01-01", "2024-01-02"]), [1, 2])\n'
            'scatter(datetime(["2024-01-01T12:00"]), [3])\nfigure()\nplot([1, 2])')
    assert drawn_lines() == [[[0.0, 1.0], [1.0, 2.0]]]


def test_a_failed_drawing_leaves_the_axis_free_for_another_kind(lam):
    out = lam.run('figure()\ntry\n  plot(date(["2024-01-01", "2024-01-02"]), [1, 2], style = "zz")\n'
                  'catch e\n  print(e.kind)\nend try\nplot([1, 2])')
    assert out == ["ValueError"]
    assert drawn_lines() == [[[0.0, 1.0], [1.0, 2.0]]]


@pytest.mark.parametrize("program, kind, message", [
    ('plot(["a", "b"], [1, 2])', "TypeError", "plot's x values are text; make them a category to draw them "
                                              "at its levels, in their order: plot(category(x), y)."),
    ('scatter(table({g = ["a", "b"]}).g, [1, 2])', "TypeError", "scatter's x values are text; make them a "
                                                                "category to draw them at its levels, in their "
                                                                "order: scatter(category(x), y)."),
    ('plot(date(["2024-01-01", "2024-01-02"]))', "TypeError",
     "plot of dates needs the y values to draw at them: plot(x, y)."),
    ('plot(category(["a"]))', "TypeError", "plot of a category needs the y values to draw at them: plot(x, y)."),
    ('plot(date(["2024-01-01"]), [1, 2])', "ShapeError",
     "plot needs one x per y value (per row of a matrix), but got 1 x values and 2 y values."),
    ('plot(table({d = date(["2024-01-01"]), y = [1]}), "d")', "TypeError",
     "plot(t, \"d\") needs a numeric column, but 'd' holds dates."),
    ('bar(category(["a", "b"]), [1, 2, 3])', "ShapeError",
     "bar needs one cell of the category per bar, but got 2 cells and 3 heights."),
])
def test_what_a_figure_cannot_place_on_its_x_axis_is_a_clear_error(lam, program, kind, message):
    err = lam.error(program)
    assert (err.kind, err.message) == (kind, message)


# -- categories: the level order -------------------------------------------------------------

DOSE = 'dose = category(["high", "low", "mid", "", "low"], levels = ["low", "mid", "high"])\n'


def test_scatter_of_a_category_places_cells_at_their_levels_in_level_order(lam):
    # neither sorted (high, low, mid) nor first seen (high, low, mid): the levels' own order
    lam.run(DOSE + "scatter(dose, [5, 1, 3, 9, 2])")
    assert figures.axes().collections[0].get_offsets().tolist() == [[2, 5], [0, 1], [1, 3], [0, 2]]
    assert tick_texts() == ["low", "mid", "high"]
    lam.run(DOSE + 'figure()\nplot(dose, [5, 1, 3, 9, 2], style = "o")')
    assert drawn_lines() == [[[2.0, 5.0], [0.0, 1.0], [1.0, 3.0], [0.0, 2.0]]]
    assert tick_texts() == ["low", "mid", "high"]


def test_a_level_no_cell_holds_keeps_its_place(lam):
    lam.run('plot(category(["c", "a"], levels = ["a", "b", "c"]), [3, 1])')
    assert drawn_lines() == [[[2.0, 3.0], [0.0, 1.0]]]
    assert tick_texts() == ["a", "b", "c"]
    lo, hi = figures.axes().get_xlim()
    assert lo <= 0 and hi >= 2


def test_bar_of_a_category_counts_each_level_in_level_order(lam):
    lam.run(DOSE + 'bar(dose)\nplot(dose, [3, 1, 2, 0, 1.5], style = "o")')
    ax = figures.axes()
    assert [p.get_height() for p in ax.patches] == [2.0, 1.0, 1.0]         # low, mid, high; NA counted nowhere
    assert [p.get_x() + p.get_width() / 2 for p in ax.patches] == [0.0, 1.0, 2.0]
    assert tick_texts() == ["low", "mid", "high"]
    assert drawn_lines()[0][0] == [2.0, 3.0]                                # a plot on it meets its bars
    lam.run('figure()\nbar(category(["b", "b"], levels = ["a", "b"]))')
    assert [p.get_height() for p in figures.axes().patches] == [0.0, 2.0]


def test_bar_of_a_category_and_heights_draws_the_bars_in_level_order(lam):
    lam.run(DOSE + "bar(dose, [5, 1, 3, 9, 2])")
    ax = figures.axes()
    assert [p.get_height() for p in ax.patches] == [1.0, 2.0, 3.0, 5.0, 9.0]
    assert tick_texts() == ["low", "low", "mid", "high", "NA"]               # a missing cell last
    lam.run('figure()\nt = table({g = ["b", "a", "c", "a"], y = [1, 2, 3, 4]})\n'
            't.g = category(t.g, levels = ["c", "b", "a"])\nn = count(group_by(t, "g"))\nbar(n.g, n.n)')
    assert [p.get_height() for p in figures.axes().patches] == [1.0, 1.0, 2.0]
    assert tick_texts() == ["c", "b", "a"]


def test_categories_of_other_levels_do_not_share_an_x_axis(lam):
    err = lam.error('plot(category(["a", "b"]), [1, 2])\nscatter(category(["a", "c"]), [1, 2])')
    assert (err.kind, err.message) == ("TypeError", "scatter cannot draw a category of levels a, c on this "
                                       "figure, whose x axis holds a category of levels a, b; start "
                                       "another with figure() first.")
    err = lam.error('figure()\nbar([1, 2])\nplot(category(["a", "b"]), [1, 2])')
    assert err.message.startswith("plot cannot draw a category of levels a, b on this figure, whose x axis "
                                  "holds numbers")
