"""The mutation operators: for one node of a reference's syntax tree, the small changes to try.

Each change is an ``(operator, replacement node)`` pair; :mod:`~menace_course.authoring.mutants`
puts the replacement in the tree, turns it back into code and keeps it if it compiles.
The operators are listed in that module's docstring.

Example:
    >>> import ast
    >>> node = ast.parse("a < b", mode="eval").body
    >>> [(op, ast.unparse(new)) for op, new in changes(node, [])]
    [('cmp_lte', 'a <= b'), ('cmp_gt', 'a > b')]
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Iterator

#: Each arithmetic operator and the one it is swapped for.
ARITH: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
    ast.BitAnd: ast.BitOr,
    ast.BitOr: ast.BitAnd,
    ast.LShift: ast.RShift,
    ast.RShift: ast.LShift,
}
#: Each comparison and what it is relaxed, tightened or flipped to.
COMPARE: dict[type[ast.cmpop], tuple[type[ast.cmpop], ...]] = {
    ast.Lt: (ast.LtE, ast.Gt),
    ast.LtE: (ast.Lt, ast.Gt),
    ast.Gt: (ast.GtE, ast.Lt),
    ast.GtE: (ast.Gt, ast.Lt),
    ast.Eq: (ast.NotEq,),
    ast.NotEq: (ast.Eq,),
    ast.In: (ast.NotIn,),
    ast.NotIn: (ast.In,),
    ast.Is: (ast.IsNot,),
    ast.IsNot: (ast.Is,),
}
_COPIERS = {"list", "dict", "set", "copy", "deepcopy"}
_COPIERS = {"list", "dict", "set", "copy", "deepcopy"}
_UNMUTATED_STATEMENTS = (
    ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom,
    ast.Global, ast.Nonlocal, ast.Pass,
)  # fmt: skip


def changes(node: ast.AST, strings: list[str]) -> Iterator[tuple[str, ast.AST]]:
    """Each (operator, replacement node) for one node."""
    if isinstance(node, ast.stmt):
        yield from _statement_changes(node)
    elif isinstance(node, ast.BinOp) and type(node.op) in ARITH:
        new_op = ARITH[type(node.op)]
        yield f"arith_{new_op.__name__.lower()}", _with(node, op=new_op())
    elif isinstance(node, ast.Compare):
        for position, op in enumerate(node.ops):
            for new_cmp in COMPARE.get(type(op), ()):
                ops = [*node.ops[:position], new_cmp(), *node.ops[position + 1 :]]
                yield f"cmp_{new_cmp.__name__.lower()}", _with(node, ops=ops)
    elif isinstance(node, ast.BoolOp):
        new_bool: ast.boolop = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        yield f"boolop_{type(new_bool).__name__.lower()}", _with(node, op=new_bool)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not | ast.USub):
        yield ("not_removed" if isinstance(node.op, ast.Not) else "neg_removed"), node.operand
    elif isinstance(node, ast.Constant):
        yield from _constant_changes(node, strings)
    elif isinstance(node, ast.Call):
        yield from _call_changes(node)
    elif isinstance(node, ast.Subscript) and _is_full_slice(node.slice):
        yield "copy_removed", node.value


def _statement_changes(node: ast.stmt) -> Iterator[tuple[str, ast.AST]]:
    if isinstance(node, ast.Return) and node.value is not None:
        if not (isinstance(node.value, ast.Constant) and node.value.value is None):
            yield "return_none", _with(node, value=ast.Constant(None))
    if isinstance(node, ast.If):
        yield "if_negated", _with(node, test=ast.UnaryOp(ast.Not(), node.test))
    if isinstance(node, ast.AugAssign) and type(node.op) in ARITH:
        new_op = ARITH[type(node.op)]
        yield f"aug_{new_op.__name__.lower()}", _with(node, op=new_op())
        yield "aug_to_assign", ast.Assign(targets=[node.target], value=node.value)
    if not isinstance(node, _UNMUTATED_STATEMENTS):
        yield "stmt_removed", ast.Pass()


def _constant_changes(node: ast.Constant, strings: list[str]) -> Iterator[tuple[str, ast.AST]]:
    value = node.value
    if isinstance(value, bool):
        yield "const_bool", ast.Constant(not value)
    elif isinstance(value, int | float):
        for operator, new in (("const_plus1", value + 1), ("const_minus1", value - 1), ("const_zero", 0)):
            if new != value:
                yield operator, ast.Constant(new)
    elif isinstance(value, str) and value in strings and len(strings) > 1:
        start = strings.index(value)
        others = [strings[(start + k) % len(strings)] for k in range(1, len(strings))]
        for number, other in enumerate(others[:2], start=1):
            yield f"str_swap{number}", ast.Constant(other)


def _call_changes(node: ast.Call) -> Iterator[tuple[str, ast.AST]]:
    function = node.func
    name = function.id if isinstance(function, ast.Name) else None
    method = function.attr if isinstance(function, ast.Attribute) else None
    args = node.args
    if name in ("max", "min") and len(args) == 2 and not node.keywords:
        for arg in args:
            if not isinstance(arg, ast.Constant):
                yield f"{name}_removed", arg
    elif name == "range" and args and not node.keywords:
        last = args[-1]
        shorter: ast.expr = (
            ast.Constant(last.value - 1)  # range(9) -> range(8), the same program as const_minus1
            if isinstance(last, ast.Constant) and type(last.value) is int
            else ast.BinOp(left=last, op=ast.Sub(), right=ast.Constant(1))
        )
        yield "range_short", _with(node, args=[*args[:-1], shorter] if len(args) > 1 else [shorter])
    elif (name in _COPIERS or method in _COPIERS - {"list", "dict", "set"}) and not node.keywords:
        if method == "copy" and not args and isinstance(function, ast.Attribute):
            yield "copy_removed", function.value  # x.copy() -> x
        elif len(args) == 1 and not isinstance(args[0], ast.Starred):
            yield "copy_removed", args[0]  # list(x), copy.deepcopy(x) -> x


def _is_full_slice(node: ast.AST) -> bool:
    return isinstance(node, ast.Slice) and node.lower is None and node.upper is None and node.step is None


def _with(node: ast.AST, **fields: object) -> ast.AST:
    """A copy of ``node`` with some fields replaced."""
    new = copy.copy(node)
    for field, value in fields.items():
        setattr(new, field, value)
    return new
