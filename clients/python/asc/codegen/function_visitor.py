"""Trace a kernel's Python AST into kernel IR (asc-api.md 1.3).

Each statement is either evaluated in Python at trace time (compile-time values) or emitted as IR
(traced values). Runtime `for`/`if` become ForOp/IfOp regions; names re-assigned inside them are
carried out as loop iter_args or if results. Sub-kernel calls are inlined.
"""
from __future__ import annotations

import ast
import builtins
import contextlib
import dataclasses
import enum
import numbers
import operator
from typing import Any, Dict, List

from asc.codegen.analysis import assigned_names
from asc.codegen import mutable
from asc.codegen.builder import IRBuilder
from asc.codegen.errors import CodegenError, UnsupportedSyntaxError
from asc.codegen.source import FunctionSource
from asc.language.core.constexpr import (ConstExpr, constexpr_types, is_constexpr_annotation,
                                        required_error)
from asc.language.core.dtype import DataType, KnownTypes
from asc.language.core.ir_value import (PlainValue, const, is_runtime_int, logical, python_dtype,
                                        select, to_bool, to_value)
from asc.language.core.utils import range as asc_range
from asc.language.core.utils import static_range


@dataclasses.dataclass(frozen=True)
class CodegenOptions:
    """Tracing options (asc-api.md 1.1), given as `asc.jit` keywords.

    With capture_exceptions a tracing failure is raised as a CodegenError at the kernel's
    source line; ir_multithreading is pyasc's and unused here."""

    capture_exceptions: bool = True
    ir_multithreading: bool = True


_BUILTINS = {name: getattr(builtins, name) for name in (
    "dict", "float", "int", "isinstance", "issubclass", "len", "list", "range", "repr", "str",
    "tuple", "type")}

_BINOPS = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
    ast.Pow: operator.pow, ast.LShift: operator.lshift, ast.RShift: operator.rshift,
    ast.BitAnd: operator.and_, ast.BitOr: operator.or_, ast.BitXor: operator.xor,
}
_CMPOPS = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}

_MAX_INLINE_DEPTH = 64


def _is_python_number(x) -> bool:
    return isinstance(x, numbers.Number) and not isinstance(x, enum.Enum)


def _is_carryable(x) -> bool:
    return hasattr(x, "_ir_fields") and hasattr(x, "_ir_rebuild")


class FunctionVisitor:
    """Walks one function body; sub-kernels get their own visitor sharing the builder."""

    # Runtime regions carry the fields of in-place objects (codegen/mutable.py) the code may
    # change; library sequences only read them.
    carries_state = True

    def __init__(self, builder: IRBuilder, source: FunctionSource, scope: Dict[str, Any],
                 global_ns, options: CodegenOptions, is_kernel: bool, depth: int = 0):
        self.builder = builder
        self.src = source
        self.scope = scope
        self.global_ns = global_ns
        self.options = options
        self.is_kernel = is_kernel
        self.depth = depth
        self.returned = False
        self.return_value = None

    # ---- entry --------------------------------------------------------------------------------

    def run(self):
        if self.is_kernel:
            # Runtime scalar parameters by SSA id, for hints that name the one to annotate.
            self.builder.state["kernel_params"] = {
                value.id: name for name, value in self.scope.items()
                if isinstance(value, PlainValue)}
        self._body(self.src.fdef.body, allow_return=True)
        if self.is_kernel and self.return_value is not None:
            raise CodegenError(f"kernel '{self.src.fdef.name}' must not return a value",
                               self.src.filename, self.src.fdef.lineno)
        return self.return_value

    # ---- errors and locations -----------------------------------------------------------------

    def _error(self, cls, message, node):
        col = getattr(node, "col_offset", None)
        line = getattr(node, "lineno", None)
        return cls(message, self.src.filename, line,
                   None if col is None else col + self.src.col_shift,
                   self.src.line_text(line) if line else None)

    def _unsupported(self, node, what):
        return self._error(UnsupportedSyntaxError, f"UnsupportedSyntaxError: {what}", node)

    @contextlib.contextmanager
    def _capture(self, node):
        try:
            yield
        except CodegenError:
            raise
        except Exception as exc:  # noqa: BLE001 - every tracing failure gets the source line
            if not self.options.capture_exceptions:
                raise
            err = self._error(CodegenError, f"{type(exc).__name__}: {exc}", node)
            err.hint = getattr(exc, "hint", None)
            raise err from exc

    def _at(self, node):
        self.builder.set_loc(self.src.filename, node.lineno, node.col_offset + self.src.col_shift)

    # ---- statements ---------------------------------------------------------------------------

    def _body(self, stmts: List[ast.stmt], allow_return: bool):
        for stmt in stmts:
            if isinstance(stmt, ast.Return):
                if not allow_return:
                    raise self._unsupported(
                        stmt, "'return' is only allowed at the top level of a function body, "
                              "not inside a runtime if or loop")
                self._at(stmt)
                with self._capture(stmt):
                    self.return_value = None if stmt.value is None else self.expr(stmt.value)
                self.returned = True
                return
            self.stmt(stmt, allow_return)
            if self.returned:
                return

    def stmt(self, node: ast.stmt, allow_return: bool = False):
        self._at(node)
        method = getattr(self, "stmt_" + type(node).__name__, None)
        if method is None:
            raise self._unsupported(node, f"'{type(node).__name__}' statements are not supported "
                                          "in a kernel")
        with self._capture(node):
            if isinstance(node, ast.If):
                method(node, allow_return)
            else:
                method(node)

    def stmt_Expr(self, node):
        self.expr(node.value)

    def stmt_Pass(self, node):
        pass

    def stmt_Assign(self, node):
        if len(node.targets) != 1:
            raise self._unsupported(node, "assignment to more than one target")
        self.assign(node.targets[0], self.expr(node.value))

    def stmt_AnnAssign(self, node):
        if node.value is not None:
            self.assign(node.target, self.expr(node.value))

    def stmt_AugAssign(self, node):
        target = node.target
        op = _BINOPS.get(type(node.op))
        if isinstance(target, ast.Name):
            self.scope[target.id] = self._binop(op, self._lookup(target.id, target),
                                                self.expr(node.value))
        elif isinstance(target, ast.Subscript):
            obj, index = self.expr(target.value), self.expr(target.slice)
            obj[index] = self._binop(op, obj[index], self.expr(node.value))
        else:
            raise self._unsupported(node, "augmented assignment to an attribute; write "
                                          "'obj.attr = obj.attr op value'")

    def assign(self, target, value):
        if isinstance(target, ast.Name):
            namer = getattr(value, "_ir_name", None)
            if namer is not None and not isinstance(value, type):
                namer(target.id)  # framework objects are named after their first variable
            self.scope[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            if isinstance(value, PlainValue) or not hasattr(value, "__iter__"):
                raise TypeError(f"cannot unpack a {type(value).__name__}")
            values = list(value)
            if len(values) != len(target.elts):
                raise ValueError(f"expected {len(target.elts)} values to unpack, "
                                 f"got {len(values)}")
            for elt, v in zip(target.elts, values):
                self.assign(elt, v)
        elif isinstance(target, ast.Attribute):
            setattr(self.expr(target.value), target.attr, value)
        elif isinstance(target, ast.Subscript):
            self.expr(target.value)[self.expr(target.slice)] = value
        else:
            raise self._unsupported(target, f"assignment to '{type(target).__name__}'")

    def stmt_Assert(self, node):
        test = ConstExpr.unwrap(self.expr(node.test))
        if isinstance(test, PlainValue):
            raise self._unsupported(node, "assert needs a compile-time condition, got a traced "
                                          "value")
        if not test:
            message = None
            if node.msg is not None:
                try:
                    message = self.expr(node.msg)
                except TypeError:
                    # A message formatting traced values (pyasc's f"... {n}"): the assert fails
                    # at trace time all the same, so its source stands in for the values.
                    message = ast.unparse(node.msg)
            raise AssertionError(message) if message is not None else AssertionError()

    def stmt_With(self, node):
        if len(node.items) != 1:
            raise self._unsupported(node, "'with' with more than one item")
        item = node.items[0]
        manager = self.expr(item.context_expr)
        saved = dict(self.scope)
        entered = manager.__enter__()
        if item.optional_vars is not None:
            self.assign(item.optional_vars, entered)
        self._body(node.body, allow_return=False)
        manager.__exit__(None, None, None)
        self.scope = saved

    def stmt_While(self, node):
        raise self._unsupported(node, "'while' loops are not supported (kernel IR v1 has no "
                                      "while op); use a for loop over range()")

    def stmt_Break(self, node):
        raise self._unsupported(node, "'break' is not supported in a kernel")

    def stmt_Continue(self, node):
        raise self._unsupported(node, "'continue' is not supported in a kernel")

    # ---- if -----------------------------------------------------------------------------------

    def stmt_If(self, node, allow_return):
        cond = ConstExpr.unwrap(self.expr(node.test))
        if not isinstance(cond, PlainValue):
            self._body(node.body if cond else node.orelse, allow_return)
            return
        self._runtime_if(to_bool(cond), node)

    def _runtime_if(self, cond: PlainValue, node: ast.If):
        outer = self.scope
        if_op = self.builder.emit("if_op")
        if_op.cond = cond.id
        branch_scopes = []
        objects = mutable.live_objects() if self.carries_state else []
        before = [obj._ir_snapshot() for obj in objects]
        branch_states = []
        for stmts, region in ((node.body, if_op.then_region), (node.orelse, if_op.else_region)):
            self.scope = dict(outer)
            with self.builder.region(region):
                self._body(stmts, allow_return=False)
            branch_scopes.append(self.scope)
            branch_states.append([obj._ir_snapshot() for obj in objects])
            for obj, snapshot in zip(objects, before):
                obj._ir_restore(snapshot)
        self.scope = outer
        self._merge_state(if_op, objects, *branch_states)
        then_scope, else_scope = branch_scopes
        for name in sorted(assigned_names(node.body) | assigned_names(node.orelse)):
            if name in outer:
                then_v, else_v = then_scope.get(name, outer[name]), else_scope.get(name, outer[name])
            elif name in then_scope and name in else_scope:
                # Assigned on both paths: visible afterwards (pyasc would keep it local).
                then_v, else_v = then_scope[name], else_scope[name]
            else:
                continue
            self.scope[name] = self._merge_if(name, outer.get(name), then_v, else_v, if_op, node)

    def _merge_state(self, if_op, objects, then_states, else_states):
        """Fields of in-place objects (codegen/mutable.py) the branches left different."""
        for obj, then_s, else_s in zip(objects, then_states, else_states):
            names = obj._ir_changed(then_s, else_s)
            pairs = [(then_s[n], else_s[n], obj._ir_dtype(n)) for n in names]
            merged = dict(then_s)
            for name, value in zip(names, self._yield_if(if_op, pairs)):
                merged[name] = value
            obj._ir_restore(merged)

    def _merge_if(self, name, before, then_v, else_v, if_op, node):
        if then_v is else_v:
            return then_v
        scalar_like = (PlainValue, numbers.Number)
        if isinstance(then_v, scalar_like) and isinstance(else_v, scalar_like) and \
                not isinstance(then_v, enum.Enum) and not isinstance(else_v, enum.Enum):
            if not isinstance(then_v, PlainValue) and not isinstance(else_v, PlainValue) and \
                    type(then_v) is type(else_v) and then_v == else_v:
                return then_v
            dtype = self._merged_dtype(name, before, then_v, else_v)
            return self._yield_if(if_op, [(then_v, else_v, dtype)])[0]
        if _is_carryable(then_v) and _is_carryable(else_v):
            if then_v._ir_static() != else_v._ir_static():
                raise TypeError(f"'{name}' is assigned incompatible objects in the branches of "
                                f"a runtime if: {then_v!r} and {else_v!r}")
            pairs, keep = [], []
            for (tv, dtype), (ev, _) in zip(then_v._ir_fields(), else_v._ir_fields()):
                same = tv is ev or (not isinstance(tv, PlainValue) and
                                    not isinstance(ev, PlainValue) and tv == ev)
                keep.append(tv if same else None)
                if not same:
                    pairs.append((tv, ev, dtype))
            results = iter(self._yield_if(if_op, pairs))
            return then_v._ir_rebuild([k if k is not None else next(results) for k in keep])
        if type(then_v) is type(else_v) and _safe_equal(then_v, else_v):
            return then_v
        raise TypeError(f"'{name}' was re-assigned to an object with different type or "
                        f"compile-time value inside a runtime if ({then_v!r} vs {else_v!r})")

    @staticmethod
    def _merged_dtype(name, before, then_v, else_v) -> DataType:
        traced = [v for v in (before, then_v, else_v) if isinstance(v, PlainValue)]
        if traced:
            dtype = traced[0].dtype
            for v in (then_v, else_v):
                if isinstance(v, PlainValue) and v.dtype != dtype:
                    raise TypeError(f"'{name}' has dtype {v.dtype} in one branch of a runtime if "
                                    f"and {dtype} before or in the other")
            return dtype
        return python_dtype(then_v if not isinstance(then_v, bool) else else_v)

    def _yield_if(self, if_op, pairs):
        results = []
        for then_v, else_v, dtype in pairs:
            with self.builder.region(if_op.then_region):
                t = to_value(then_v, dtype).id
            with self.builder.region(if_op.else_region):
                e = to_value(else_v, dtype).id
            result = PlainValue(self.builder.new_value(), dtype)
            if_op.then_yields.append(t)
            if_op.else_yields.append(e)
            if_op.results.append(result.id)
            results.append(result)
        return results

    # ---- for ----------------------------------------------------------------------------------

    def stmt_For(self, node):
        if node.orelse:
            raise self._unsupported(node, "'for ... else' is not supported")
        kind, bounds = self._loop_bounds(node.iter)
        if kind == "static":
            for value in static_range(*bounds):
                self.assign(node.target, value)
                self._body(node.body, allow_return=False)
            return
        if not isinstance(node.target, ast.Name):
            raise self._unsupported(node.target, "the target of a runtime loop must be a name")
        self._runtime_for(node, bounds)

    def _loop_bounds(self, iter_node):
        if isinstance(iter_node, ast.Call):
            func = self.expr(iter_node.func)
            if func is builtins.range or func is asc_range or func is static_range:
                args, kwargs = self._call_args(iter_node)
                if kwargs:
                    raise TypeError("range() takes no keyword arguments")
                if not 1 <= len(args) <= 3:
                    raise TypeError(f"range expected 1 to 3 arguments, got {len(args)}")
                return ("static" if func is static_range else "runtime"), args
        value = self.expr(iter_node)
        if isinstance(value, static_range):
            return "static", value.bounds
        if isinstance(value, asc_range):
            return "runtime", value.bounds
        raise self._unsupported(iter_node, "a kernel loop must iterate over range(), asc.range() "
                                           "or asc.static_range()")

    def _runtime_for(self, node: ast.For, bounds):
        int32 = KnownTypes.int32
        bounds = [ConstExpr.unwrap(b) for b in bounds]
        for b in bounds:
            if not is_runtime_int(b) or (isinstance(b, PlainValue) and b.dtype.is_float()):
                raise TypeError(f"range() bounds must be integers, got {b!r}")
        if len(bounds) == 1:
            bounds = [0, bounds[0], 1]
        elif len(bounds) == 2:
            bounds = [bounds[0], bounds[1], 1]
        if isinstance(bounds[2], numbers.Integral) and bounds[2] == 0:
            raise ValueError("range() arg 3 must not be zero")
        # ForOp counts upward (iv < upper). A negative compile-time step runs over the trip
        # count instead, and the body sees lower + k * step. A traced step must be positive.
        descending = None
        if isinstance(bounds[2], numbers.Integral) and bounds[2] < 0:
            first, stride = bounds[0], int(bounds[2])
            trips = (bounds[0] - bounds[1] + (-stride - 1)) // (-stride)
            if isinstance(trips, numbers.Integral):
                trips = max(trips, 0)
            bounds = [0, trips, 1]
            descending = (first, stride)
        lower, upper, step = (to_value(b, int32).id for b in bounds)

        target = node.target.id

        def make_op():
            for_op = self.builder.emit("for_op")
            for_op.lower, for_op.upper, for_op.step = lower, upper, step
            for_op.dtype = int32.to_ir()
            for_op.induction = self.builder.new_value()
            return for_op

        def enter(scope, for_op):
            value = PlainValue(for_op.induction, int32)
            if descending is not None:
                value = to_value(descending[0], int32) + value * descending[1]
            scope[target] = value

        self._carried_loop(make_op, node.body, {target}, enter)

    def _carried_loop(self, make_op, body, exclude, enter=None, leave=None):
        """Trace `body` into the loop `make_op()` emits (a ForOp or WhileOp, emitted after the
        carried values' initial values), carrying the names it assigns that exist outside (but
        `exclude`) and the fields of in-place objects (codegen/mutable.py): iter_args in,
        yields out, results after. `enter(scope, op)` runs first inside the body region,
        `leave(op)` last (a while's condition)."""
        outer = self.scope
        carried = []      # (name, template object, [(init value, dtype)])
        fixed = []        # compile-time objects that must stay unchanged
        for name in sorted(assigned_names(body)):
            if name in exclude or name not in outer:
                continue
            value = outer[name]
            if isinstance(value, PlainValue):
                carried.append((name, value, [(value, value.dtype)]))
            elif _is_python_number(value):
                # Promote to a traced value so the loop computes with the carried value, not
                # with the constant it had before the loop (pyasc folds it; we do not).
                dtype = python_dtype(value)
                carried.append((name, to_value(value, dtype), [(value, dtype)]))
            elif _is_carryable(value):
                carried.append((name, value, value._ir_fields()))
            else:
                fixed.append(name)

        inits = [[to_value(v, dtype).id for v, dtype in fields] for _, _, fields in carried]
        objects = mutable.live_objects() if self.carries_state else []
        state_fields = mutable.carried_fields(objects)
        state_inits = [to_value(obj._get(name), obj._ir_dtype(name)).id
                       for obj, name in state_fields]
        loop_op = make_op()

        body_scope = dict(outer)
        iter_values = []
        for (name, template, fields), init_ids in zip(carried, inits):
            args = [PlainValue(self.builder.new_value(), dtype) for _, dtype in fields]
            loop_op.init.extend(init_ids)
            loop_op.iter_args.extend(a.id for a in args)
            body_scope[name] = _rebuild(template, args)
            iter_values.append(args)
        state_args = []
        for (obj, name), init_id in zip(state_fields, state_inits):
            arg = PlainValue(self.builder.new_value(), obj._ir_dtype(name))
            loop_op.init.append(init_id)
            loop_op.iter_args.append(arg.id)
            obj._put(name, arg)
            state_args.append(arg)

        self.scope = body_scope
        try:
            with self.builder.region(loop_op.body):
                if enter is not None:
                    enter(body_scope, loop_op)
                self._body(body, allow_return=False)
                for name, template, fields in carried:
                    loop_op.yields.extend(self._loop_yield(name, template, fields,
                                                           self.scope[name]))
                for obj, name in state_fields:
                    loop_op.yields.append(to_value(obj._get(name), obj._ir_dtype(name)).id)
                if leave is not None:
                    leave(loop_op)
        finally:
            body_scope = self.scope
            self.scope = outer
        for name in fixed:
            if not (body_scope[name] is outer[name] or _safe_equal(body_scope[name], outer[name])):
                raise TypeError(f"'{name}' holds a compile-time {type(outer[name]).__name__} and "
                                "cannot be re-assigned inside a runtime loop")
        for (name, template, fields), args in zip(carried, iter_values):
            results = [PlainValue(self.builder.new_value(), a.dtype) for a in args]
            loop_op.results.extend(r.id for r in results)
            self.scope[name] = _rebuild(template, results)
        for (obj, name), arg in zip(state_fields, state_args):
            result = PlainValue(self.builder.new_value(), arg.dtype)
            loop_op.results.append(result.id)
            obj._put(name, result)

    def _loop_yield(self, name, template, fields, new_value):
        if isinstance(template, PlainValue):
            dtype = fields[0][1]
            if isinstance(new_value, PlainValue):
                if new_value.dtype != dtype:
                    raise TypeError(f"'{name}' changes dtype from {dtype} to {new_value.dtype} "
                                    "inside a runtime loop; loop-carried values keep their dtype")
            elif not _is_python_number(new_value):
                raise TypeError(f"'{name}' was re-assigned to an object with different type "
                                f"inside a runtime loop ({type(new_value).__name__})")
            return [to_value(new_value, dtype).id]
        if not _is_carryable(new_value) or new_value._ir_static() != template._ir_static():
            raise TypeError(f"'{name}' was re-assigned to an incompatible object inside a "
                            f"runtime loop ({new_value!r})")
        return [to_value(v, dtype).id for v, dtype in new_value._ir_fields()]

    # ---- expressions --------------------------------------------------------------------------

    def expr(self, node: ast.expr):
        method = getattr(self, "expr_" + type(node).__name__, None)
        if method is None:
            raise self._unsupported(node, f"'{type(node).__name__}' expressions are not supported "
                                          "in a kernel")
        return method(node)

    def expr_Constant(self, node):
        return node.value

    def expr_Name(self, node):
        return self._lookup(node.id, node)

    def _lookup(self, name, node):
        if name in self.scope:
            return self.scope[name]
        if name in self.global_ns:
            return self.global_ns[name]
        if name in _BUILTINS:
            return _BUILTINS[name]
        exc = NameError(f"{name} is not defined")  # pyasc's text
        if name == "print":
            exc.hint = ("kernels print with asc.printf (pyasc's device print), e.g. "
                        'asc.printf("x = %d\\n", x)')
        elif hasattr(builtins, name):
            exc.hint = (f"Python's {name} is not visible in a kernel; its builtins are "
                        f"{', '.join(sorted(_BUILTINS))}")
        raise exc

    def expr_Attribute(self, node):
        return getattr(self.expr(node.value), node.attr)

    def expr_Subscript(self, node):
        return self.expr(node.value)[self.expr(node.slice)]

    def expr_Slice(self, node):
        def part(n):
            return None if n is None else self.expr(n)
        return slice(part(node.lower), part(node.upper), part(node.step))

    def _elements(self, elts):
        values = []
        for elt in elts:
            if isinstance(elt, ast.Starred):
                values.extend(self.expr(elt.value))
            else:
                values.append(self.expr(elt))
        return values

    def expr_Tuple(self, node):
        return tuple(self._elements(node.elts))

    def expr_List(self, node):
        return self._elements(node.elts)

    def expr_Dict(self, node):
        result = {}
        for key, value in zip(node.keys, node.values):
            if key is None:
                result.update(self.expr(value))
            else:
                result[self.expr(key)] = self.expr(value)
        return result

    def expr_JoinedStr(self, node):
        parts = []
        for value in node.values:
            v = self.expr(value)
            if isinstance(v, PlainValue):
                raise TypeError("f-strings may only format compile-time values")
            parts.append(str(v))
        return "".join(parts)

    def expr_FormattedValue(self, node):
        value = self.expr(node.value)
        if isinstance(value, PlainValue):
            raise TypeError("f-strings may only format compile-time values")
        if node.conversion == ord("r"):
            value = repr(value)
        elif node.conversion == ord("s"):
            value = str(value)
        elif node.conversion == ord("a"):
            value = ascii(value)
        spec = self.expr(node.format_spec) if node.format_spec is not None else ""
        return format(value, spec)

    def expr_BinOp(self, node):
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise self._unsupported(node, f"operator {type(node.op).__name__}")
        return self._binop(op, self.expr(node.left), self.expr(node.right))

    @staticmethod
    def _binop(op, lhs, rhs):
        return op(ConstExpr.unwrap(lhs), ConstExpr.unwrap(rhs))

    def expr_UnaryOp(self, node):
        value = ConstExpr.unwrap(self.expr(node.operand))
        if isinstance(node.op, ast.Not):
            return value.logical_not() if isinstance(value, PlainValue) else not value
        if isinstance(node.op, ast.USub):
            return -value
        if isinstance(node.op, ast.UAdd):
            return +value
        return ~value

    def expr_Compare(self, node):
        if len(node.ops) != 1:
            raise self._unsupported(node, "chained comparisons; write '(a < b) and (b < c)'")
        lhs = ConstExpr.unwrap(self.expr(node.left))
        rhs = ConstExpr.unwrap(self.expr(node.comparators[0]))
        op_type = type(node.ops[0])
        if op_type in (ast.In, ast.NotIn) and (isinstance(lhs, PlainValue) or
                                               isinstance(rhs, PlainValue)):
            raise TypeError("'in' needs compile-time operands")
        result = _CMPOPS[op_type](lhs, rhs)
        if result is NotImplemented:
            raise TypeError(f"cannot compare {type(lhs).__name__} and {type(rhs).__name__}")
        return result

    def expr_BoolOp(self, node):
        if len(node.values) != 2:
            raise self._unsupported(node, "'and'/'or' with more than two operands; write "
                                          "'(a and b) and c'")
        is_and = isinstance(node.op, ast.And)
        lhs = ConstExpr.unwrap(self.expr(node.values[0]))
        if not isinstance(lhs, PlainValue):
            # Python semantics (short circuit) while the left side is a compile-time value.
            if (is_and and not lhs) or (not is_and and lhs):
                return lhs
            return ConstExpr.unwrap(self.expr(node.values[1]))
        return logical(lhs, ConstExpr.unwrap(self.expr(node.values[1])), is_and)

    def expr_IfExp(self, node):
        cond = ConstExpr.unwrap(self.expr(node.test))
        if not isinstance(cond, PlainValue):
            return self.expr(node.body if cond else node.orelse)
        true_value, false_value = self.expr(node.body), self.expr(node.orelse)
        for v in (true_value, false_value):
            if not isinstance(v, (PlainValue, numbers.Number)):
                raise TypeError("a conditional expression with a traced condition must select "
                                f"between scalars, got {type(v).__name__}")
        return select(cond, true_value, false_value)

    def _call_args(self, node: ast.Call):
        args = self._elements(node.args)
        kwargs = {}
        for kw in node.keywords:
            if kw.arg is None:
                kwargs.update(self.expr(kw.value))
            else:
                kwargs[kw.arg] = self.expr(kw.value)
        return args, kwargs

    def expr_Call(self, node):
        with self._capture(node):
            func = self.expr(node.func)
            args, kwargs = self._call_args(node)
            from asc.runtime.jit import JITFunction
            if isinstance(func, JITFunction):
                return self._inline(func, args, kwargs, node)
            saved = self.builder.loc
            self._at(node)
            try:
                return func(*args, **kwargs)
            finally:
                self.builder.loc = saved

    # ---- sub-kernels --------------------------------------------------------------------------

    def _inline(self, jit_fn, args, kwargs, node):
        if self.depth >= _MAX_INLINE_DEPTH:
            raise RecursionError(f"sub-kernel calls nested deeper than {_MAX_INLINE_DEPTH} "
                                 "(recursive kernels are not supported)")
        signature = jit_fn.signature
        bound = signature.bind(*args, **kwargs)
        bound.apply_defaults()
        scope = {}
        for name, value in bound.arguments.items():
            param = signature.parameters[name]
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                raise TypeError("sub-kernels cannot take *args or **kwargs")
            if is_constexpr_annotation(param.annotation):
                scope[name] = check_constexpr(name, param.annotation, value)
            elif _is_python_number(value):
                scope[name] = const(value, python_dtype(value), "sub-kernel argument")
            else:
                scope[name] = ConstExpr.unwrap(value)
        saved = self.builder.loc
        visitor = type(self)(self.builder, jit_fn.source, scope, jit_fn.global_ns(),
                             self.options, is_kernel=False, depth=self.depth + 1)
        try:
            result = visitor.run()
        finally:
            self.builder.loc = saved
        return _materialize(result)


def _materialize(result):
    """Sub-kernel results become traced values (asc-api.md 1.3)."""
    if isinstance(result, tuple):
        return tuple(_materialize(r) for r in result)
    if isinstance(result, list):
        return [_materialize(r) for r in result]
    if _is_python_number(result):
        return const(result, python_dtype(result), "return")
    return result


def _rebuild(template, values):
    if isinstance(template, PlainValue):
        return values[0]
    return template._ir_rebuild(values)


def _safe_equal(a, b) -> bool:
    if isinstance(a, PlainValue) or isinstance(b, PlainValue):
        return a is b
    try:
        return bool(a == b)
    except Exception:  # noqa: BLE001 - objects without a usable == are simply different
        return False


def check_constexpr(name: str, annotation, value):
    """A ConstExpr argument's payload, checked against `ConstExpr[T...]` (asc-api.md 1.2)."""
    payload = ConstExpr.unwrap(value)
    types = constexpr_types(annotation)
    if types and not isinstance(payload, types):
        raise required_error(name, payload, types)
    return payload


class _LibraryVisitor(FunctionVisitor):
    """Traces a library sub-kernel (the instruction sequences behind asc.adv): its ops keep the
    location of the user's call, as a C++ library inlined into a kernel reports the kernel's
    line, and its exceptions reach the user's line unwrapped."""

    carries_state = False

    def _at(self, node):
        pass

    def stmt_While(self, node):
        """`while cond:` in library code (a message server's loop): a WhileOp whose body ends by
        evaluating `cond` again. The condition must hold on entry (a Python True or a traced
        value the code above made true): the loop is a do-while, as servers loop."""
        if node.orelse:
            raise self._unsupported(node, "'while ... else' is not supported")
        first = ConstExpr.unwrap(self.expr(node.test))
        if first is False:
            return

        def leave(while_op):
            cond = ConstExpr.unwrap(self.expr(node.test))
            while_op.cond = to_value(cond, KnownTypes.int1).id

        self._carried_loop(lambda: self.builder.emit("while_op"), node.body, set(),
                           leave=leave)


def inline_library(jit_fn, *args, **kwargs):
    """Emit the sub-kernel `jit_fn` (an @asc.jit function of the library) into the kernel being
    traced, at the current location."""
    from asc.codegen.builder import require_builder
    builder = require_builder(getattr(jit_fn, "__name__", "library"))
    visitor = _LibraryVisitor(builder, jit_fn.source, {}, jit_fn.global_ns(),
                              CodegenOptions(capture_exceptions=False), is_kernel=False, depth=1)
    return visitor._inline(jit_fn, args, kwargs, None)
