"""A model spec: the input's shape and the layers, before compile gives it weights.

`input(n)` starts one whose examples are rows of n numbers; `input(steps, features)`
one whose examples are sequences, steps x features (X is the m x steps x features array,
or the matrix of its rows, each `steps` steps of `features` numbers one after another);
`input(28, 28, 1)` one whose examples are images, height x width x channels (X is the
m x 28 x 28 x 1 array, or the m x 784 matrix of its rows), and so on for any rank.
The shape of one example (a tuple, layer.DataShape) is what the layers are asked about. Each layer builtin (`dense(spec, units, ...)`, `dropout(spec, rate)`,
`gru`, `embedding`, `layer_norm`) returns a new spec with one more layer (specs are
immutable values, so a spec can be the start of several models). Everything about
the layers is asked through the layer protocol (layer.py).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

from ..errors import LaminaError
from ..printing import html_table
from ..values import LibObject, Record, as_int, describe
from .layer import DataShape, Layer, steps_text


@dataclass(frozen=True, eq=False)
class ModelSpec(LibObject):
    example: tuple                # one example's shape: (n,), (steps, features), (28, 28, 1)
    layers: tuple = ()

    type_name = "model spec"

    def field_names(self) -> list[str]:
        return ["inputs", "outputs", "layers"]

    def get(self, name: str):
        if name == "inputs":
            return float(self.inputs)
        if name == "outputs":
            return float(self.outputs)
        if name == "layers":
            return [Record(layer.record_fields()) for layer in self.layers]
        return super().get(name)

    def with_layer(self, layer: Layer) -> ModelSpec:
        """The spec with `layer` appended; the layer's LaminaError when it cannot take the data."""
        layer.output(self.shapes[-1])
        return ModelSpec(self.example, self.layers + (layer,))

    @property
    def inputs(self) -> int:
        """The numbers in one example (X's columns when X is given as a matrix of rows)."""
        return self.shapes[0].width

    @property
    def steps(self) -> int | None:
        """For sequence input (an example of rank 2), the number of steps."""
        return self.shapes[0].steps

    @cached_property
    def shapes(self) -> list[DataShape]:
        """The shape of the data before the first layer and after each layer."""
        out = [DataShape(self.example)]
        for layer in self.layers:
            out.append(layer.output(out[-1]))
        return out

    @property
    def outputs(self) -> int:
        """The width of the last layer's output (one column of Y per unit)."""
        return self.shapes[-1].width

    def widths(self) -> list[int]:
        return [s.width for s in self.shapes]

    def parameter_shapes(self) -> list[dict]:
        """Each layer's {name: shape} of weights, in order."""
        return [layer.parameters(data) for layer, data in zip(self.layers, self.shapes)]

    @cached_property
    def parameter_slices(self) -> tuple[slice, ...]:
        """Each layer's slice of the model's flat weight list (fit splits it on every batch)."""
        slices, start = [], 0
        for shapes in self.parameter_shapes():
            slices.append(slice(start, start + len(shapes)))
            start += len(shapes)
        return tuple(slices)

    def buffer_shapes(self) -> list[dict]:
        """Each layer's {name: shape} of buffers (running statistics), in order; {} for most."""
        return [layer.buffers(data) for layer, data in zip(self.layers, self.shapes)]

    @cached_property
    def buffer_slices(self) -> tuple[slice, ...]:
        """Each layer's slice of the model's flat buffer list."""
        slices, start = [], 0
        for shapes in self.buffer_shapes():
            slices.append(slice(start, start + len(shapes)))
            start += len(shapes)
        return tuple(slices)

    def parameter_counts(self) -> list[int]:
        return [sum(math.prod(shape) for shape in shapes.values()) for shapes in self.parameter_shapes()]

    def buffer_counts(self) -> list[int]:
        return [sum(math.prod(shape) for shape in shapes.values()) for shapes in self.buffer_shapes()]

    def input_text(self) -> str:
        """`2 inputs`, `160 inputs (20 steps of 8)` for sequences, `784 inputs (28 x 28 x 1)`."""
        text = f"{self.inputs} input{'s' * (self.inputs != 1)}"
        if self.steps:
            return text + f" ({steps_text(self.steps)} of {self.inputs // self.steps})"
        return text + (f" ({' x '.join(map(str, self.example))})" if len(self.example) > 2 else "")

    def describe(self) -> str:
        return self.summary().describe()

    def html(self) -> str:
        return self.summary().html()

    def summary(self) -> Summary:
        return Summary(self, f"Model spec: {self.input_text()} (not compiled yet)", "")


SUMMARY_HEADER = ("#", "layer", "output shape", "parameters")


def batch_text(data: DataShape) -> str:
    """A batch's shape as Lamina writes shapes, m the number of examples: `m x 26 x 26 x 32`."""
    return " x ".join(["m", *map(str, data.shape)])


def summary_rows(spec: ModelSpec) -> tuple[list[tuple], str]:
    """The rows of the layer table (layer, the shape of a batch of m examples after it, its
    parameters, like Keras's summary) and the line with the total."""
    counts = spec.parameter_counts()
    rows = [("", f"input({', '.join(map(str, spec.example))})", batch_text(spec.shapes[0]), "0")]
    for i, layer in enumerate(spec.layers):
        rows.append((str(i), layer.label(), batch_text(spec.shapes[i + 1]), str(counts[i])))
    kept = sum(spec.buffer_counts())
    return rows, f"total parameters: {sum(counts)}" + (
        f" (and {kept} numbers of running statistics, not trained)" if kept else "")


def summary_table(spec: ModelSpec) -> list[str]:
    """The layer table of describe()."""
    body, total = summary_rows(spec)
    rows = [SUMMARY_HEADER] + body
    size = [max(len(r[k]) for r in rows) for k in range(4)]
    lines = ["  " + "  ".join(r[k].ljust(size[k]) if k < 3 else r[k].rjust(size[k]) for k in range(4))
             for r in rows]
    lines.insert(1, "  " + "-" * (len(lines[0]) - 2))
    lines.append(f"  {total}")
    return lines


def summary_html(spec: ModelSpec, head: str, tail: str) -> str:
    """The layer table as HTML, under `head` and above `tail`."""
    body, total = summary_rows(spec)
    return html_table(list(SUMMARY_HEADER), [list(r) for r in body], [False, False, False, True],
                      caption=head, footer=[total, tail])


@dataclass(frozen=True, eq=False)
class Summary(LibObject):
    """What summary(net) gives: prints as print(net) does (the heading, the layer table, the
    total), and holds the table's columns as fields."""
    spec: ModelSpec
    head: str
    tail: str

    type_name = "model summary"

    def field_names(self) -> list[str]:
        return ["layer", "output", "parameters", "total"]

    def get(self, name: str):
        import numpy as np
        counts = [0, *self.spec.parameter_counts()]
        if name == "layer":
            return [row[1] for row in summary_rows(self.spec)[0]]
        if name == "output":
            return [np.array(s.shape, dtype=float) for s in self.spec.shapes]
        if name == "parameters":
            return np.array(counts, dtype=float)
        if name == "total":
            return float(sum(counts))
        return super().get(name)

    def describe(self) -> str:
        return "\n".join([self.head, *summary_table(self.spec), *(["  " + self.tail] if self.tail else [])])

    def html(self) -> str:
        return summary_html(self.spec, self.head, self.tail)


def check_spec(spec, who: str) -> ModelSpec:
    """The model spec a layer builtin appends to, or a TypeError saying how to write it."""
    if not isinstance(spec, ModelSpec):
        raise LaminaError("TypeError", f"{who} adds a layer to a model spec (made by input(n) and "
                          f"layers), not to {describe(spec)}; write input(n) |> {who}(...).")
    return spec


def input_spec(*dims) -> ModelSpec:
    """`input(n)`: examples of n features (X has n columns). `input(steps, features)`:
    sequences of `steps` steps of `features` features (X is m x steps x features, or has
    steps * features columns). `input(height, width, channels)`, and any rank: examples of that
    shape (X is m x *shape, or the matrix of its rows)."""
    if not dims:
        raise LaminaError("TypeError", "input needs the shape of one example: input(n) for rows of n "
                          "numbers, input(steps, features) for sequences, input(height, width, "
                          "channels) for images.")
    names = DIM_NAMES.get(len(dims)) or [f"size {i}" for i in range(len(dims))]
    return ModelSpec(tuple(as_int(d, f"input's {name}", minimum=1) for d, name in zip(dims, names)))


DIM_NAMES = {1: ["width"], 2: ["steps", "features"], 3: ["height", "width", "channels"]}
