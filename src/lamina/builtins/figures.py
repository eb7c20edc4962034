"""Figure builtins: plot, scatter, hist, bar, figure, savefig, show (drawing is in lamina.stats.figures)."""
from __future__ import annotations

from ..stats import figures as FG
from .registry import Shape, builtin

CATEGORY = "Figures"
COMMON = ("Every drawing builtin adds to the current figure (starting one if there is none) and "
          "takes label, title, xlabel and ylabel (each at most 1,000 characters); a legend "
          "appears once something has a label. A drawing's default axis labels (hist's \"count\", "
          "a loss history's \"epoch\" and \"loss\") go only on an axis that has no label yet. "
          "savefig writes the figure and starts afresh. matplotlib draws, imported by the first "
          "drawing call, with the headless Agg backend unless a display exists.")
OPTIONS = "label = \"...\", title = \"...\", xlabel = \"...\", ylabel = \"...\""
X_KINDS = ("x may be dates or date-times (a date column, t.day): they go on a date axis whose "
           "ticks read as ISO dates (2024-03, 2024-03-15, 2024-03-15 06:00 as the span needs). x may "
           "be a category: each cell is drawn at its level's position (0 for the first level, 1 for "
           "the next ...), in the level order, with the level names as the ticks; a level no cell "
           "holds keeps its place. A missing date or cell is left out, with its y. Text x is an "
           "error: make it a category (category(x), or with levels = [...] for their order). One "
           "figure's x axis holds one kind, numbers, dates or the levels of one category; drawing "
           "another kind on it is a TypeError (start another with figure()).")


@builtin("plot", tracked="constant", category=CATEGORY,
         probes=["plot(p)", "plot(p, p .* 2)"],
         shapes=[Shape("plot(y)", "vector (or matrix)", "no output", "A line through y[i] at x = i (one line per column of a matrix of several rows)."),
                 Shape("plot(x, y)", "vector, vector or matrix", "no output", "A line through the points (x[i], y[i])."),
                 Shape("plot(days, y)", "dates (or date-times), vector", "no output",
                       "A line over a date axis, its ticks ISO dates."),
                 Shape("plot(c, y)", "category, vector", "no output",
                       "Each y at its cell's level, the levels in their order along x."),
                 Shape(f"plot(x, y, style = \"o--\", {OPTIONS})", "the same, strings", "no output",
                       "matplotlib's format string, and labels."),
                 Shape("plot(model)", "a value with a loss_history field", "no output",
                       "The loss per epoch (and validation loss, when the model has val_loss_history)."),
                 Shape("plot(fit)", "a linear model or GLM", "no output",
                       "R's four diagnostic panels: residuals vs fitted, normal Q-Q, scale-location, "
                       "residuals vs leverage."),
                 Shape("plot(d)", "distribution", "no output", "Its density (or probability mass)."),
                 Shape("plot(t, name)", "a sweep's table, column name", "no output",
                       "The column against a swept parameter, one line per setting of the others.")],
         summary="Draws lines: y against x, a fitted model's loss history, a distribution's density, "
                 "or a sweep's metric against a swept parameter.",
         examples=['x = linspace(0, 2, 21)\nplot(x, x .^ 2, label = "x^2")\nplot(x, x .^ 3, style = "--", label = "x^3", title = "powers")\n'
                   'savefig("plot.png")\nprint("saved")',
                   'X = [0.5; 1.0; 1.5; 2.0; 2.5; 3.0]\nfit = logreg(X, [0, 0, 1, 0, 1, 1])\nplot(fit)\n'
                   'savefig("plot_loss.png")\nprint(length(fit.loss_history) > 1)',
                   't = table({day = date(["2024-03-01", "2024-03-08", "2024-03-15", "2024-03-29"]), '
                   'sales = [12, 15, 11, 18]})\nplot(t.day, t.sales, style = "o-", ylabel = "sales")\n'
                   'savefig("plot_dates.png")\nprint(t.day[3] - t.day[0], "days")',
                   'x = [1.2, 2.0, 2.9, 4.1, 5.0, 6.2, 6.8, 8.1, 9.0, 9.8]\n'
                   'fit = linreg(x, [2.3, 3.1, 5.8, 6.2, 8.9, 9.7, 12.8, 13.1, 15.9, 16.2])\n'
                   'plot(fit, title = "y ~ x")\nsavefig("plot_fit.png")\nprint(round(fit.r2, 4))'],
         notes="plot(fit) of a linear model (linreg) or GLM (glm) draws R's plot.lm panels in a "
               "figure of their own (2 x 2), as R's plot starts a new page (a figure drawn before it and not saved is dropped, with a warning): residuals against fitted "
               "values (a GLM's deviance residuals against its linear predictor), the normal Q-Q plot "
               "of the standardized residuals, the square root of their size against the fitted "
               "values, and the standardized residuals (a GLM's standardized Pearson residuals) "
               "against the leverage with Cook's distance 0.5 and 1 dashed; each with R's lowess "
               "smooth in red where R draws one, and the three most extreme points labelled by "
               "their row number (from 0). title = \"...\" titles the figure; influence(fit) gives "
               "the numbers. plot(model) reads loss_history (and val_loss_history if present) from a model "
               "value or any record with those fields, labels the axes epoch and loss, and uses a "
               "log scale when the loss falls by more than a factor of 100. plot(t, \"loss\") of a "
               "table from sweep draws that column against the swept parameter with the most numeric "
               "values (the first of equals; a parameter set to a single value when none varies), a point "
               "per configuration, one line per setting of the "
               "other swept parameters, on a log axis when the values span a factor of 10 or more "
               "(learning rates); for another table, against the row number. " + X_KINDS + " " + COMMON)
def plot(x, y=None, label=None, title=None, xlabel=None, ylabel=None, style="-"):
    FG.plot(x, y=y, label=label, title=title, xlabel=xlabel, ylabel=ylabel, style=style)


@builtin("scatter", tracked="constant", category=CATEGORY,
         probes=["scatter(p, p)"],
         shapes=[Shape("scatter(x, y)", "two vectors of n", "no output", "A dot at each (x[i], y[i])."),
                 Shape("scatter(x, y, color = labels)", "two vectors, vector of n", "no output",
                       "Dots colored by a value per point (cluster labels, say)."),
                 Shape("scatter(days, y)", "dates (or date-times), vector", "no output", "Dots over a date axis."),
                 Shape("scatter(c, y)", "category, vector", "no output",
                       "A column of dots at each level, in the level order."),
                 Shape(f"scatter(x, y, size = 5, {OPTIONS})", "the same, options", "no output", "Dot size and labels.")],
         summary="Draws a scatter plot of points, optionally colored by a value per point.",
         examples=["seed(0)\nX = vcat(randn(20, 2), randn(20, 2) + 4)\nr = kmeans(X, 2, seed = 0)\n"
                   "scatter(X[:, 0], X[:, 1], color = r.labels, title = \"two clusters\")\n"
                   "savefig(\"scatter.png\")\nprint(unique(r.labels))",
                   'dose = category(["high", "low", "mid", "low", "high"], levels = ["low", "mid", "high"])\n'
                   'scatter(dose, [7.1, 2.0, 4.2, 2.6, 6.5], xlabel = "dose", ylabel = "response")\n'
                   'savefig("scatter_dose.png")\nprint(levels(dose))'],
         notes="color may be one matplotlib color name for every dot or one number per dot, mapped "
               "through the viridis color map (a dot whose number is NaN or Inf is gray). size is "
               "each dot's area in points squared (20 by default), finite, at least 0 and at most "
               "1,000,000. " + X_KINDS + " " + COMMON)
def scatter(x, y, color=None, label=None, title=None, xlabel=None, ylabel=None, size=20.0):
    FG.scatter(x, y=y, color=color, label=label, title=title, xlabel=xlabel, ylabel=ylabel, size=size)


@builtin("hist", tracked="constant", category=CATEGORY,
         probes=["hist(p)"],
         shapes=[Shape("hist(x)", "tensor", "no output", "A histogram with 10 equal bins."),
                 Shape("hist(x, bins)", "tensor, count or edge vector", "no output", "With other bins."),
                 Shape(f"hist(x, bins, {OPTIONS})", "the same, options", "no output", "With labels.")],
         summary="Draws a histogram of the values of a tensor.",
         examples=["seed(0)\nx = normal(0, 1).sample(1000)\nhist(x, 30, title = \"1000 normal draws\", xlabel = \"x\")\n"
                   "savefig(\"hist.png\")\nprint(sum(histogram(x, 30).counts))"],
         notes="The bins are those histogram(x, bins) counts; NaNs are left out. More than 500 bins are "
               "drawn as one filled step curve, and at most 1,000,000 bins are drawn. " + COMMON)
def hist(x, bins=10.0, label=None, title=None, xlabel=None, ylabel=None):
    FG.hist(x, bins=bins, label=label, title=title, xlabel=xlabel, ylabel=ylabel)


@builtin("bar", tracked="constant", category=CATEGORY,
         probes=["bar(p)"],
         shapes=[Shape("bar(heights)", "vector", "no output", "One bar per element, labelled 0, 1, ..."),
                 Shape("bar(names, heights)", "list of strings (or vector), vector", "no output", "Bars with labels."),
                 Shape("bar(c)", "category", "no output", "The number of cells at each level, in the level order."),
                 Shape("bar(c, heights)", "category, vector", "no output",
                       "A bar per cell, labelled with its level, the bars in the level order."),
                 Shape(f"bar(names, heights, {OPTIONS})", "the same, options", "no output", "With titles.")],
         summary="Draws a bar chart.",
         examples=['bar(["setosa", "versicolor", "virginica"], [50, 48, 52], title = "counts")\nsavefig("bar.png")\nprint("saved")',
                   't = table({size = ["M", "S", "L", "M", "XL", "M", "S"]})\n'
                   't.size = category(t.size, levels = ["S", "M", "L", "XL"])\nbar(t.size, title = "orders by size")\n'
                   'savefig("bar_levels.png")\nn = count(group_by(t, "size"))\nprint(n)'],
         notes="Bars are drawn in the order given, one per height: a repeated label is a bar "
               "of its own. Heights must be finite (NaN or Inf is a ValueError). With more than "
               "50 bars, 11 of the labels are shown. A category is drawn in its level order, never "
               "sorted or in the order first seen: bar(c) counts the cells of each level (a level "
               "no cell holds is a bar of height 0, missing cells count nowhere) and sets the x axis "
               "to the levels, so plot(c, y) and scatter(c, y) draw on it at the same places; "
               "bar(c, heights) draws a bar per cell ordered by level (cells of one level in the "
               "order given, missing ones last, labelled NA), as for bar(n.g, n.n) of a count(...) "
               "table. " + COMMON)
def bar(x, heights=None, label=None, title=None, xlabel=None, ylabel=None):
    FG.bar(x, heights=heights, label=label, title=title, xlabel=xlabel, ylabel=ylabel)


@builtin("figure", tracked="constant", category=CATEGORY,
         probes="its arguments are a size in inches",
         shapes=[Shape("figure()", "no input", "no output", "Starts a new, empty figure (6.4 x 4.8 inches)."),
                 Shape("figure(width, height)", "two numbers (inches)", "no output", "Of another size.")],
         summary="Starts a new figure, discarding an unsaved current one; later drawing goes into it.",
         examples=['figure(8, 3)\nplot([1, 3, 2])\nsavefig("wide.png")\nprint("saved")'],
         notes="Drawing without figure() starts a default-sized figure; figure is needed only for "
               "another size or to throw away a figure that was not saved. " + COMMON)
def figure(width=6.4, height=4.8):
    FG.new_figure(width, height=height)


@builtin("savefig", tracked="constant", category=CATEGORY,
         probes="takes a path",
         shapes=[Shape("savefig(path)", "file path ending .png, .svg, .pdf or .jpg", "no output",
                       "Writes the current figure, then starts afresh."),
                 Shape("savefig(path, dpi = 150)", "path, whole number", "no output", "At another resolution.")],
         summary="Writes the current figure to an image file; the next drawing starts a new figure.",
         examples=['hist([1, 2, 2, 3, 3, 3])\nsavefig("counts.png")\nprint("saved")'],
         notes="The format follows the file's ending; dpi (100 by default) sets pixels per inch "
               "for .png and .jpg, whose image may hold at most 100 million pixels. The folder must exist; an existing file is replaced atomically "
               "(the image goes to a temporary file in the same folder first, so a crash leaves the "
               "old file or the new one). It is an error to save when nothing has been drawn. In a "
               "Jupyter notebook the saved figure is also shown in the cell's output. Under "
               "lamina --allow-write or --sandbox, a path outside the allowed folders is a "
               "PermissionError. " + COMMON)
def savefig(path, dpi=100.0):
    FG.savefig(path, dpi=dpi)


@builtin("show", tracked="constant", category=CATEGORY,
         probes="takes no argument",
         shapes=[Shape("show()", "no input", "no output", "Shows the current figure in a window, when a display exists.")],
         summary="Shows the current figure in a window when there is a display; otherwise says to use savefig.",
         examples=['plot([1, 2, 3])\nsavefig("line.png")\nprint("saved; show() would open a window on a desktop")'],
         notes="Without a display (a server, CI, a container) matplotlib runs headless and show "
               "prints a note to standard error instead of opening a window. In a Jupyter notebook "
               "show puts the figure in the cell's output at once; a figure still open when a cell "
               "ends is shown there too, and closed. " + COMMON)
def show():
    FG.show()
