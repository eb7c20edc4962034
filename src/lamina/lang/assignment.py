"""Compiling `=` and `op=`: a name is bound; an element or a field is written into its
container and the container back into its own, up to the variable the target starts from.
On a variable the write goes through a `_..._var` helper (lang/stores.py), which may write in
place when nothing else holds the value; each index of `a[i] op= v` or `L[i].x = v` is
evaluated once."""
from __future__ import annotations

import ast as py

from . import ast as A
from .pycode import const, helper
from .scope import mangle


class AssignmentCompiler:
    """The Compiler's statements that store (a mixin: `self` is the Compiler)."""

    def s_Assign(self, node: A.Assign, top: bool):
        if node.op is not None:
            return self.compound_assign(node)
        before: list[py.stmt] = []
        target = node.target
        if self.appends_to_itself(node):
            # `v = append(v, x)`, the way a loop builds a list or vector: v may grow in place
            call = node.value
            value = helper("_append_var", self.expr(call.callee), self.expr(call.args[0]),
                           self.expr(call.args[1]))
            return [py.Assign([py.Name(mangle(target.name), py.Store())], self.at(value, call))]
        if isinstance(target, (A.Index, A.Field)) and not isinstance(target.target, A.Name):
            # `L[i].x = v` reads L[i] and writes it back: its indices are evaluated once
            target = self.settled(target, before)
        return before + self.store(target, self.expr(node.value))

    @staticmethod
    def appends_to_itself(node: A.Assign) -> bool:
        call = node.value
        return (isinstance(node.target, A.Name) and isinstance(call, A.Call) and not call.kwargs
                and isinstance(call.callee, A.Name) and call.callee.name == "append"
                and len(call.args) == 2 and isinstance(call.args[0], A.Name)
                and call.args[0].name == node.target.name)

    def store(self, target: A.Node, value: py.expr) -> list[py.stmt]:
        """`target = value`: a name is bound; an element or field is written into its container,
        which is written into its own, up to the name the target starts from."""
        if isinstance(target, A.Field) and isinstance(target.target, A.Name):
            # `r.x = v` and `r.v[i] = x` on a variable: an unshared record changes in place
            value = helper("_set_field_var", self.expr(target.target), const(target.name), value)
            return [py.Assign([py.Name(mangle(target.target.name), py.Store())], self.at(value, target))]
        if isinstance(target, A.Index) and isinstance(target.target, A.Field) \
                and isinstance(target.target.target, A.Name):
            record = target.target
            inner = self.at(helper("_field", self.expr(record.target), const(record.name)), record)
            value = helper("_set_field_index_var", self.expr(record.target), const(record.name), inner,
                           self.index_items(target.items), value)
            return [py.Assign([py.Name(mangle(record.target.name), py.Store())], self.at(value, target))]
        while not isinstance(target, A.Name):
            container = self.expr(target.target)
            if isinstance(target, A.Field):
                value = helper("_set_field", container, const(target.name), value)
            else:
                if (isinstance(target.target, A.Name) and len(target.items) == 1
                        and not isinstance(target.items[0], A.Slice)):
                    # `v[i] = x` on a variable, the store loops are made of: no index tuple
                    value = helper("_set_item_var", container, self.expr(target.items[0]), value)
                else:
                    fn = "_set_index_var" if isinstance(target.target, A.Name) else "_set_index"
                    value = helper(fn, container, self.index_items(target.items), value)
            value = self.at(value, target)
            target = target.target
        return [py.Assign([py.Name(mangle(target.name), py.Store())], value)]

    def compound_assign(self, node: A.Assign) -> list[py.stmt]:
        """`target op= value`: each index of the target is evaluated once, into a temporary,
        then `target = target op value` reads and writes the element through them."""
        before: list[py.stmt] = []
        target = self.settled(node.target, before)
        # a name is read by the `op=` itself: an undefined one is reported there
        read = A.Name(node.span, target.name) if isinstance(target, A.Name) else target
        return before + self.store(target, self.expr(A.Binary(node.span, node.op, read, node.value)))

    def settled(self, target: A.Node, before: list[py.stmt]) -> A.Node:
        """`target` with each index that is not a name or a literal evaluated into a temporary
        by a statement appended to `before`, so that reading and writing it evaluate it once."""
        def settle(expr: A.Node | None):
            if expr is None or isinstance(expr, (A.Number, A.Name, A.String)):
                return expr
            name = self.temp()
            before.append(self.at(py.Assign([py.Name(name, py.Store())], self.expr(expr)), expr))
            return A.Temp(expr.span, name)

        if isinstance(target, A.Field):
            return A.Field(target.span, self.settled(target.target, before), target.name)
        if isinstance(target, A.Index):
            inner = self.settled(target.target, before)       # left to right: its indices first
            items = [A.Slice(i.span, settle(i.start), settle(i.stop)) if isinstance(i, A.Slice)
                     else settle(i) for i in target.items]
            return A.Index(target.span, inner, items)
        return target
