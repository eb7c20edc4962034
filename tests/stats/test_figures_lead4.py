"""plot(t, metric) of a sweep that set its parameters to one value each draws against one of them."""
from lamina.stats import figures


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
