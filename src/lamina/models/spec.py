"""A model spec: the input width and the layers, before compile gives it weights.

`input(n)` starts one; `dense(spec, units, ...)` and `dropout(spec, rate)`
return a new spec with one more layer (specs are immutable values, so a spec can
be the start of several models).
"""
from __future__ import annotations

from dataclasses import dataclass

from ..values import LibObject, Record, as_int


@dataclass(frozen=True, eq=False)
class ModelSpec(LibObject):
    inputs: int
    layers: tuple = ()

    type_name = "model spec"

    def field_names(self) -> list[str]:
        return ["inputs", "outputs", "layers"]

    def get(self, name: str):
        if name == "inputs":
            return float(self.inputs)
        if name == "outputs":
            return float(self.widths()[-1])
        if name == "layers":
            return layer_records(self.layers)
        return super().get(name)

    def with_layer(self, layer) -> ModelSpec:
        return ModelSpec(self.inputs, self.layers + (layer,))

    def widths(self) -> list[int]:
        """The width of the data before the first layer and after each layer."""
        out = [self.inputs]
        for layer in self.layers:
            out.append(layer.out_units(out[-1]))
        return out

    def parameter_counts(self) -> list[int]:
        widths = self.widths()
        return [(widths[i] + 1) * layer.units if layer.kind == "dense" else 0
                for i, layer in enumerate(self.layers)]

    def describe(self) -> str:
        return "\n".join([f"Model spec: {self.inputs} input{'s' * (self.inputs != 1)} "
                          f"(not compiled yet)", *summary_table(self)])


def layer_records(layers) -> list:
    return [Record(layer.as_record_fields()) for layer in layers]


def summary_table(spec: ModelSpec) -> list[str]:
    """The layer table of describe(), like Keras's summary: layer, output width, parameters."""
    widths = spec.widths()
    counts = spec.parameter_counts()
    rows = [("#", "layer", "output", "parameters"), ("", "input", str(spec.inputs), "0")]
    for i, layer in enumerate(spec.layers):
        rows.append((str(i), layer.label(), str(widths[i + 1]), str(counts[i])))
    size = [max(len(r[k]) for r in rows) for k in range(4)]
    lines = ["  " + "  ".join(r[k].ljust(size[k]) if k < 2 else r[k].rjust(size[k]) for k in range(4))
             for r in rows]
    lines.insert(1, "  " + "-" * (len(lines[0]) - 2))
    lines.append(f"  total parameters: {sum(counts)}")
    return lines


def input_spec(n) -> ModelSpec:
    """`input(n)`: a model spec whose examples have n features (X has n columns)."""
    return ModelSpec(as_int(n, "input's width", minimum=1))
