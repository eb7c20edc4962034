"""Data builtins on Apache Arrow and DuckDB: Parquet files and SQL queries over tables and files."""
from __future__ import annotations

from ..stats import parquet as PQ
from ..stats import sql as SQ
from .registry import Shape, builtin, refuse_tracked

CATEGORY = "Data"
SALES = ('write_parquet(table({shop = ["north", "south", "north", "east"], units = [12, 7, 9, 4], '
         'price = [2.5, 3.0, 2.5, 4.0]}), "sales.parquet")\n')
PERMISSIONS = ("Under lamina --allow-read or --sandbox, a file outside the allowed folders is a "
               "PermissionError.")


@builtin("read_parquet", pure="a table", tracked="constant", category=CATEGORY,
         probes="takes a path",
         shapes=[Shape("read_parquet(path)", "file path", "table", "Every column of the file."),
                 Shape("read_parquet(path, columns = [\"a\", \"b\"])", "path, column names", "table",
                       "Only those columns, in that order."),
                 Shape("read_parquet(path, where = \"y > 2\")", "path, SQL condition", "table",
                       "Only the rows where the condition holds, filtered as the file is read.")],
         summary="Reads a Parquet file into a table: numbers become numeric columns, text text "
                 "columns; some columns, or the rows a condition keeps.",
         examples=[SALES + 't = read_parquet("sales.parquet")\nprint(t)',
                   SALES + 'print(read_parquet("sales.parquet", columns = ["shop", "units"], '
                   'where = "units > 8 and shop = \'north\'"))'],
         notes="Numbers of any width become float64 columns (float32 stays float32), except whole "
               "numbers beyond 2^53, which a float64 cannot hold exactly: their column becomes text, "
               "each number written out in full. A boolean column becomes 0 and 1; text stays text; "
               "dates and timestamps become dates and date-times; a dictionary (categorical) column "
               "becomes a category with the dictionary's levels in order (through where too); times of day and "
               "other types become their text. A missing value (a null) is NaN in a numeric column "
               "and NA in any other. A column of lists "
               "or records is a ValueError naming it. where is a condition in DuckDB's SQL over the "
               "file's columns (y > 2, g = 'a', name like 'A%', x is not null): the file is read "
               "batch by batch, DuckDB deciding which rows each keeps, so only the rows kept are held, "
               "and only the columns asked for and those the condition names are read. A row where the "
               "condition is null is left out, as SQL's WHERE leaves it. A condition may not read files, "
               "and must give true or false (y + 1 is a ValueError). "
               "A file that is not Parquet, a column the file lacks, or a condition DuckDB cannot "
               "run is a ValueError naming the file. " + PERMISSIONS)
def read_parquet(path, columns=None, where=None):
    return PQ.read_parquet(path, columns=columns, where=where)


@builtin("write_parquet", tracked="constant", category=CATEGORY,
         probes=['write_parquet(q, "probe.parquet")'],
         shapes=[Shape("write_parquet(t, path)", "table, file path", "no output", "Writes the table."),
                 Shape("write_parquet(r, path)", "record of columns, path", "no output", "Each field a column."),
                 Shape("write_parquet(X, path, names = [...])", "matrix, path, column names", "no output",
                       "A matrix's columns (named x0, x1, ... without names).")],
         summary="Writes a table, a record of columns or a matrix to a Parquet file.",
         examples=[SALES + 'print(read_parquet("sales.parquet").units)',
                   'write_parquet([1, 2; 3, 4], "m.parquet", names = ["a", "b"])\nprint(read_parquet("m.parquet"))'],
         notes="Numeric columns are written as float64 (float32 as float32), text columns as UTF-8 "
               "strings; a missing value (NaN, or a missing text cell) is a null, which read_parquet, "
               "pandas, R's arrow and DuckDB read as missing. An existing file is replaced "
               "atomically: the data goes to a temporary file in the same folder, which then takes "
               "the file's place, so a crash leaves the old file or the new one, never half of one. "
               "Under lamina --allow-write or --sandbox, a path outside the allowed folders is a "
               "PermissionError.")
def write_parquet(x, path, names=None):
    PQ.write_parquet(x, path=path, names=names)


@builtin("sql", tracked="refuses", category=CATEGORY,
         probes=['sql("select * from t", t = table({a = [1, 2]}), x = p)'],
         float32_probes=['sql("select a, a + a as b from t", t = table({a = p}))'],
         shapes=[Shape("sql(query, t = t)", "SQL text, tables by name", "table",
                       "Runs the query on DuckDB over the tables, each by its name."),
                 Shape("sql(\"select ... from 'data.parquet'\")", "SQL naming files", "table",
                       "Reads files named in the query (Parquet, CSV, JSON), out of core."),
                 Shape("sql(query, memory_limit = \"500MB\", threads = n)", "SQL, DuckDB settings", "table",
                       "Bounds the memory DuckDB holds and the threads it runs.")],
         summary="Runs a SQL query on DuckDB over tables and files, and returns its result as a table.",
         examples=['sales = table({shop = ["north", "south", "north", "east"], units = [12, 7, 9, 4]})\n'
                   'print(sql("select shop, sum(units) as units from sales group by shop order by units desc", '
                   'sales = sales))',
                   SALES + 'shops = table({shop = ["north", "south"], manager = ["Ines", "Omar"]})\n'
                   'print(sql("select s.shop, manager, units * price as revenue from \'sales.parquet\' s '
                   'join shops using (shop) order by revenue", shops = shops))'],
         notes="Each table passed by name (t = t) is a table of the query, read by DuckDB through "
               "Apache Arrow without a copy: a NaN or missing text cell is NULL, so avg, sum and "
               "count leave it out. Files the query names ('data.parquet', 'logs/*.csv', "
               "read_csv('x.csv', delim = ';')) DuckDB reads itself, out of core: memory_limit "
               "(\"500MB\", \"4GB\") bounds what it holds, and what does not fit goes to a folder "
               "of its own under the system's temporary folder, removed when the program ends. The result "
               "comes back as read_parquet makes its columns (numbers, 0/1 for booleans, text, "
               "dates and date-times; a category column of a table comes back as text, since "
               "DuckDB gives its text: category(r.g, levels = ...) makes it one again); two result columns of one name, or a column of lists or records, is "
               "a ValueError. A query may hold several statements; the last one's result is "
               "returned. Queries that only read share a DuckDB database the program keeps for "
               "their settings (warm, as a connection held open); a query with other statements "
               "(CREATE, SET) runs in a database of its own, so nothing a query creates lasts. A query DuckDB refuses (a syntax error, a missing column or table) is a "
               "ValueError with DuckDB's message, pointing at the sql call. Under lamina "
               "--sandbox, --allow-read or --allow-write a query may only read (SELECT): COPY, "
               "ATTACH, INSTALL, LOAD, SET, PRAGMA, CREATE and EXPORT are PermissionErrors, and so "
               "is a file outside the allowed folders (a symlink leading out, each match of a glob), "
               "an http:// or s3:// address, or a path computed in the query, exactly as read_csv "
               "would refuse it.")
def sql(query, /, memory_limit=None, threads=None, **tables):
    refuse_tracked("sql", tuple(tables.values()))
    return SQ.sql(query, tables, memory_limit=memory_limit, threads=threads)
