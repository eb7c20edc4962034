"""Figures are real images; the docs build writes an example's figure beside its page."""
import subprocess
import sys

import numpy as np
import pytest

from lamina.builtins.registry import load_all
from lamina.docs import build
from lamina.docs.pages import page
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
    for name in ("plot.png", "plot_loss.png", "scatter.png", "hist.png", "bar.png"):
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
