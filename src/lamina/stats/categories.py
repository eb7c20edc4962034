"""Categories: text from a fixed, ordered set of levels (R's factor, pandas' Categorical).

A `Categorical` holds a code per cell (the level's position; -1 where missing) and the levels in
their order: `category(["lo", "hi", "lo"], levels = ["lo", "mid", "hi"])`. The order is the one
group_by, count, sort_rows, linreg's indicator columns (the first level is the reference) and a
plot's categories follow; without levels it is the sorted order of the values, as in R. In a
table it is an Arrow dictionary column, so a Parquet file or a DuckDB result keeps it.
"""
from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import LaminaError
from ..lang.selection import index_one_axis, put_one_axis
from ..values import LibObject, describe


class Categorical(LibObject):
    type_name = "category"

    def __init__(self, codes: np.ndarray, levels: tuple):
        self.codes = codes              # int32, -1 where missing
        self.levels = levels

    def kind_text(self) -> str:
        n = len(self.codes)
        return f"a category of {n} cell{'s' * (n != 1)}"

    # -- the column protocol (columns.py) -------------------------------------------------
    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, i):
        if isinstance(i, (slice, np.ndarray, list)):
            return self.take(i)
        c = self.codes[i]
        return "" if c < 0 else self.levels[c]

    def take(self, rows) -> "Categorical":
        return Categorical(self.codes[rows].copy(), self.levels)

    def missing(self) -> np.ndarray:
        return self.codes < 0

    def to_arrow(self) -> pa.Array:
        return pa.DictionaryArray.from_arrays(pa.array(self.codes, mask=self.codes < 0, type=pa.int32()),
                                              pa.array(self.levels, type=pa.string()))

    def texts(self) -> list:
        return [None if c < 0 else self.levels[c] for c in self.codes.tolist()]

    def shown(self, i: int) -> str:
        c = self.codes[i]
        return "NA" if c < 0 else self.levels[c]

    def sort_key(self) -> pa.Array:
        """Numbers that sort as the levels are ordered, null where missing."""
        return pa.array(self.codes, mask=self.codes < 0, type=pa.int32())

    # -- a value ------------------------------------------------------------------------
    def field_names(self) -> list[str]:
        return ["levels"]

    def get(self, name: str):
        if name == "levels":
            return list(self.levels)
        return super().get(name)

    def describe(self) -> str:
        cells = ", ".join("NA" if c < 0 else f'"{self.levels[c]}"' for c in self.codes.tolist())
        return f"[{cells}] (levels: {', '.join(self.levels)})"

    def index_get(self, items: tuple):
        return index_one_axis(self, items, len(self.codes), self.take, self.__getitem__)

    def elements(self) -> list:
        return [self[i] for i in range(len(self.codes))]

    def index_put(self, items: tuple, value, owned: bool) -> "Categorical":
        return put_one_axis(self, items, value, len(self.codes), self.replaced)

    def operator(self, op: str, other, swapped: bool):
        if op not in ("==", "!="):
            return None
        if isinstance(other, str):
            same = self.codes == self.code_of(other, "==")
        elif isinstance(other, Categorical):
            if len(other) != len(self):
                raise LaminaError("ShapeError", f"Cannot compare {describe(self)} with {describe(other)}.")
            same = np.array(self.texts(), dtype=object) == np.array(other.texts(), dtype=object)
        else:
            return None
        same = same & ~self.missing()
        return same if op == "==" else ~same

    def code_of(self, text: str, doing: str) -> int:
        if text not in self.levels:
            raise LaminaError("ValueError", f"\"{text}\" is not a level of the category (its levels are "
                              f"{', '.join(self.levels)}); {doing} needs one of them.")
        return self.levels.index(text)

    def replaced(self, rows, texts: list) -> "Categorical":
        odd = next((t for t in texts if not isinstance(t, str)), None)
        if odd is not None:
            raise LaminaError("TypeError", f"A category holds text, one of its levels ({', '.join(self.levels)}): "
                              f"store a level or \"\" (missing), not {describe(odd)}.")
        codes = self.codes.copy()
        codes[rows] = [-1 if t == "" else self.code_of(t, "storing a cell") for t in texts]
        return Categorical(codes, self.levels)


def make(values, levels=None, who: str = "category") -> Categorical:
    """A category from strings (None or "" missing) and its levels (default: the sorted values),
    coded by Arrow (a hash of the values, then their positions among the levels)."""
    cells = values if isinstance(values, pa.Array) else pa.array([v or None for v in values], type=pa.string())
    cells = pc.if_else(pc.equal(cells, ""), pa.scalar(None, pa.string()), cells) if len(cells) else cells
    if levels is None:
        present = pc.unique(cells.drop_null())
        order = tuple(present.take(pc.sort_indices(present)).to_pylist())
    else:
        order = tuple(levels)
        if len(set(order)) < len(order):
            twice = next(x for x in order if order.count(x) > 1)
            raise LaminaError("ValueError", f"{who}: level \"{twice}\" is given twice.")
    found = pc.index_in(cells, value_set=pa.array(order, type=pa.string()))
    unknown = pc.and_(pc.is_null(found), pc.is_valid(cells))
    if len(cells) and pc.any(unknown).as_py():
        c = cells.filter(unknown)[0].as_py()
        raise LaminaError("ValueError", f"{who}: \"{c}\" is not one of the levels "
                          f"{', '.join(order)}; add it to levels, or make it missing first.")
    codes = pc.fill_null(found, -1).to_numpy(zero_copy_only=False).astype(np.int32)
    return Categorical(codes, order)


def from_arrow(arr) -> Categorical:
    """A dictionary Arrow array as a category whose levels are its dictionary, in its order."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.unify_dictionaries().combine_chunks() if arr.num_chunks else \
            pa.DictionaryArray.from_arrays(pa.array([], pa.int32()), pa.array([], pa.string()))
    levels = tuple(pc.cast(arr.dictionary, pa.string()).to_pylist())
    codes = pc.fill_null(arr.indices.cast(pa.int32()), -1).to_numpy(zero_copy_only=False).astype(np.int32)
    return Categorical(codes, levels)
