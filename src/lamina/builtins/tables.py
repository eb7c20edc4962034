"""Table builtins: drop_missing, with_column, drop_columns, sort_rows, group_by, aggregate, merge
(with_column is in stats/table.py, as t.name = v needs it, the other operations in
stats/tableops.py; filter on tables is with filter in core.py)."""
from __future__ import annotations

from ..errors import LaminaError
from ..lang.runtime import call
from ..stats import table as TABLE
from ..stats import groups as GR
from ..stats import joins as JN
from ..stats import tableops as TO
from .registry import Shape, builtin, refuse_tracked

CATEGORY = "Data"
SALES = ('t = table({shop = ["north", "south", "north", "east", "south", "north"],\n'
         '           units = [12, 7, 9, 4, 11, 6], price = [2.5, 3.0, 2.5, 4.0, 3.0, 2.0]})\n')
TWICE = "A column named twice counts once, as in pandas."
NEW_TABLE = "Every table operation returns a new table; the one it was given is unchanged."


@builtin("drop_missing", elsewhere={"dropna": "pandas"},
         pure="a new table or tensor", tracked="refuses", category=CATEGORY,
         probes=["drop_missing(p)", "drop_missing(q)"],
         shapes=[Shape("drop_missing(t)", "table", "table", "The rows with no missing cell."),
                 Shape("drop_missing(t, [\"a\", \"b\"])", "table, column names", "table",
                       "The rows with no missing cell in those columns."),
                 Shape("drop_missing(X)", "vector or matrix", "vector or matrix",
                       "The elements (rows) without a NaN.")],
         summary="Removes the rows that have a missing value (NaN), as pandas' dropna and R's na.omit.",
         examples=['t = table({x = [1, 0 / 0, 3, 4], g = ["a", "b", "NA", "a"]})\nprint(drop_missing(t))\n'
                   'print(nrows(drop_missing(t, "x")))',
                   "print(drop_missing([1, 0 / 0; 3, 4; 5, 6]))"],
         notes="A numeric cell is missing when it is NaN (read_csv reads an empty cell, NA, NaN or "
               "N/A in a numeric column as NaN); a text cell when it is empty or one of those words. "
               "Rows keep their order. " + NEW_TABLE)
def drop_missing(x, columns=None):
    refuse_tracked("drop_missing", (x,))
    return TO.drop_missing(x, columns=columns)


@builtin("with_column", elsewhere={"mutate": "dplyr"},
         pure="a new table", tracked="refuses", category=CATEGORY,
         probes=['with_column(table({a = [1, 2, 3, 4]}), "b", p)'],
         float64_results=("a table's number columns are float64", ("result",)),
         shapes=[Shape("with_column(t, \"name\", v)", "table, column name, vector or list of strings",
                       "table", "The table with that column added (at the end) or replaced (in place)."),
                 Shape("with_column(t, \"name\", x)", "table, name, number or string", "table",
                       "A column holding x in every row.")],
         summary="Adds a column to a table, or replaces one; t.name = v does the same and binds the "
                 "new table to t.",
         examples=[SALES + "t = with_column(t, \"revenue\", t.units .* t.price)\nt.discounted = t.price * 0.9\n"
                   "print(head(t, 3))", 't = table({a = [1, 2]})\nt.label = "x"\nprint(t)'],
         notes="The column needs one value per row (a vector, an n x 1 matrix or a list of strings); "
               "a single number or string is repeated down the rows. An existing column keeps its "
               "place and gets the new values. " + NEW_TABLE + " t.name = v is an assignment to the "
               "variable t, as for records: other variables holding the old table still see it.")
def with_column(t, name, values):
    refuse_tracked("with_column", (values,))
    return TABLE.with_column(t, name=name, values=values)


@builtin("drop_columns", pure="a new table", tracked="constant", category=CATEGORY,
         probes="takes a table and column names",
         shapes=[Shape("drop_columns(t, \"name\")", "table, column name", "table", "Without that column."),
                 Shape("drop_columns(t, [\"a\", \"b\"])", "table, column names", "table", "Without those columns.")],
         summary="Removes columns from a table.",
         examples=[SALES + 'print(columns(drop_columns(t, "price")), columns(drop_columns(t, ["shop", "units"])))'],
         notes="An unknown column is a NameError naming the table's columns. To keep some columns "
               "instead, index them: t[:, [\"a\", \"b\"]]. Dropping every column keeps the rows, as in "
               "pandas and R: a table of n rows and no columns, to which t.name = v adds a column. " + TWICE + " " + NEW_TABLE)
def drop_columns(t, names):
    return TO.drop_columns(t, names=names)


@builtin("sort_rows", elsewhere={"arrange": "dplyr", "sort_values": "pandas"},
         pure="a new table or matrix", tracked="refuses", category=CATEGORY,
         probes=["sort_rows(q, 0)"],
         shapes=[Shape("sort_rows(t, \"col\")", "table, column name", "table", "Rows in increasing order of the column."),
                 Shape("sort_rows(t, [\"a\", \"b\"], descending = true)", "table, column names, bool", "table",
                       "By a, then b among equal a; in decreasing order."),
                 Shape("sort_rows(X, j)", "matrix, column index", "matrix", "A matrix's rows by column j.")],
         summary="Sorts the rows of a table (or matrix) by one or more columns.",
         examples=[SALES + 'print(sort_rows(t, "units", descending = true))\nprint(sort_rows(t, ["shop", "price"]).units)',
                   "print(sort_rows([3, 1; 1, 2; 2, 0], 0))"],
         notes="The sort is stable: rows with equal keys keep their order. Numbers sort by value and "
               "text by Unicode code point; missing values (NaN, and empty, NA or N/A text) come last "
               "in either direction, as in pandas and R. With several columns the first decides and "
               "the next ones break ties. sort_rows(X, [j, k]) sorts a matrix by several columns. "
               + TWICE + " " + NEW_TABLE)
def sort_rows(x, by, descending=False):
    refuse_tracked("sort_rows", (x,))
    return TO.sort_rows(x, by=by, descending=descending)


@builtin("group_by", elsewhere={"groupby": "pandas"},
         pure="a value", tracked="constant", category=CATEGORY,
         probes="takes a table and column names",
         shapes=[Shape("group_by(t, \"col\")", "table, column name", "grouped table",
                       "The rows divided into groups by the column's values."),
                 Shape("group_by(t, [\"a\", \"b\"])", "table, column names", "grouped table",
                       "One group per combination of values.")],
         summary="Divides the rows of a table into groups that share the values of some columns, "
                 "for aggregate.",
         examples=[SALES + 'g = group_by(t, "shop")\nprint(g)\nprint(g.sizes)\nprint(aggregate(g, mean))'],
         notes="Groups come in sorted order of their keys. The grouped table prints its groups and "
               "their sizes; its fields are by (the column names), keys (a table with one row per "
               "group), sizes and table. A missing value in a key column is a ValueError: "
               "drop_missing(t, \"col\") first. " + TWICE)
def group_by(t, by):
    return GR.group_by(t, by=by)


@builtin("aggregate", elsewhere={"summarise": "dplyr", "summarize": "dplyr"},
         pure="a table", tracked="constant", category=CATEGORY,
         probes="takes a grouped table and a function; a tracked result of the function is a TypeError",
         shapes=[Shape("aggregate(g, f)", "grouped table, function of a vector", "table",
                       "One row per group: the keys, then f of each other numeric column."),
                 Shape("aggregate(g, f, columns = [\"a\"])", "grouped table, function, column names", "table",
                       "Only those columns."),
                 Shape("aggregate(g, name = [\"col\", f], n = count, ...)", "grouped table, named results",
                       "table", "The keys, then one column per name: f of col's values in the group, or "
                       "the group's row count.")],
         summary="Summarizes each group of a grouped table with a function such as mean, median or "
                 "sum: one row per group.",
         examples=[SALES + 'g = group_by(t, "shop")\nprint(aggregate(g, sum, columns = ["units"]))\n'
                   'print(aggregate(g, x -> max(x) - min(x)))', SALES + 'print(aggregate(group_by(t, "shop"), length).units)',
                   SALES + 'g = group_by(t, "shop")\n'
                   'print(aggregate(g, mean_price = ["price", mean], most = ["units", max], n = count))'],
         notes="f receives the values of one column in one group, as a vector, and must return a "
               "number; builtins (mean, median, sum, std, length, ...) and your own functions both "
               "work. A column of dates, named, gives f the group's dates: f returns a date for each "
               "group (max: the latest) or a number (x -> max(x) - min(x): the days between). Text "
               "columns are left out unless named (then they are a TypeError); so are date columns "
               "unless named. The key "
               "columns come first, in the groups' sorted order, like pandas' groupby(...).agg and "
               "R's aggregate. With named results (pandas' named aggregation, dplyr's summarise) each "
               "name = [\"column\", f] makes a column of f of that column per group, in the order "
               "written, and name = count the number of rows of each group. The function's results "
               "are numbers: aggregate passes no gradient.")
def aggregate(g, f=None, /, columns=None, **named):
    if named:
        if f is not None or columns is not None:
            raise LaminaError("TypeError", "aggregate takes a function (and columns), or named results "
                              "such as mean_y = [\"y\", mean], not both.")
        return GR.aggregate_named(g, {k: GR.ROWS if v is count else v for k, v in named.items()}, call=call)
    if f is None:
        raise LaminaError("TypeError", "aggregate needs a function, aggregate(g, mean), or named "
                          "results, aggregate(g, mean_y = [\"y\", mean], n = count).")
    return GR.aggregate(g, f=f, columns=columns, call=call)


@builtin("count", pure="a table", tracked="constant", category=CATEGORY,
         probes="takes a grouped table",
         shapes=[Shape("count(g)", "grouped table", "table", "The keys of each group and n, its number of rows.")],
         summary="The number of rows in each group of a grouped table, as a table (pandas' size, "
                 "dplyr's count).",
         examples=[SALES + 'print(count(group_by(t, "shop")))'],
         notes="The groups come in their sorted order, as in aggregate; the count column is n (n_ when "
               "a key column is named n). Inside aggregate's named results, n = count adds the same "
               "column beside others.")
def count(g=None):
    if g is None:               # dplyr's n() and pandas' size() take nothing; count needs its groups
        raise LaminaError("TypeError", "count needs a grouped table: count(group_by(t, \"key\")). Inside "
                          "aggregate, name the function without calling it: aggregate(g, n = count).")
    return GR.count(g)


@builtin("merge", elsewhere={"left_join": "dplyr", "inner_join": "dplyr"},
         pure="a table", tracked="constant", category=CATEGORY,
         probes="takes tables and column names",
         shapes=[Shape("merge(t1, t2, on = \"key\")", "two tables, a column both have", "table",
                       "The rows of t1 joined with the rows of t2 that share the key (an inner join)."),
                 Shape("merge(t1, t2, on = [\"a\", \"b\"], how = \"left\")", "two tables, key columns, kind",
                       "table", "Every row of t1, with missing values where t2 has no match."),
                 Shape("merge(t1, t2, on = \"key\", how = \"outer\")", "two tables, key, kind", "table",
                       "Every row of both.")],
         summary="Joins two tables on key columns, as SQL's join, pandas' merge and R's merge.",
         examples=['people = table({id = [1, 2, 3], name = ["Ada", "Ben", "Cy"]})\n'
                   'visits = table({id = [2, 1, 2, 4], minutes = [30, 45, 15, 60]})\n'
                   'print(merge(people, visits, on = "id"))\nprint(merge(people, visits, on = "id", how = "left"))'],
         notes="Each row of t1 is paired with every row of t2 whose keys are equal, in t1's row order "
               "and then t2's (a key that occurs several times in both gives every pair). how = "
               "\"inner\" (the default) keeps the pairs only; \"left\" also keeps the rows of t1 "
               "without a match, and \"outer\" those of t2 too (at the end); the cells they lack are "
               "missing: NaN in a numeric column, \"\" in a text one. A missing key matches nothing. "
               "The key columns come first, then t1's other columns, then t2's; a name both tables "
               "use for another column gets _x (from t1) and _y (from t2). A key column must hold "
               "numbers in both tables or text in both. " + TWICE + " " + NEW_TABLE)
def merge(t1, t2, on, how="inner"):
    return JN.merge(t1, t2=t2, on=on, how=how)
