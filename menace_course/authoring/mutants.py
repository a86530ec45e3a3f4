"""Mutants of a reference solution: small, plausible mistakes made in its code with :mod:`ast`.

A good hidden suite fails every wrong solution a student might write. Nobody can list
those, but a close stand-in is every program that differs from the reference by one
small mistake: a ``+`` that should be ``-``, a ``<`` that should be ``<=``, a 3 that
should be 2, a forgotten line, a copy that is not made. Each such program is a
*mutant*; a suite that fails it has *killed* it. ``menace validate`` runs every mutant
as a submission and lists those that survive.

The operators (each mutant's id starts with one, then ``@line:column`` of the change):

=================  ===========================================================
``arith_*``        an arithmetic operator swapped (``+`` and ``-``, ``*`` to ``/`` ...)
``aug_*``          an augmented assignment changed (``+=`` to ``-=``, or to ``=``)
``cmp_*``          a comparison relaxed or flipped (``<`` to ``<=`` or ``>``, ``==`` to ``!=``)
``boolop_*``       ``and`` and ``or`` swapped
``not_removed``    ``not x`` becomes ``x`` (and ``neg_removed``: ``-x`` becomes ``x``)
``const_*``        a number n becomes n+1, n-1 or 0; ``True`` and ``False`` swapped
``str_swap*``      a string becomes another short string of the same module
``max_removed``    ``max(0, x)`` becomes ``x`` (``min_removed`` likewise)
``copy_removed``   ``list(x)``, ``x[:]``, ``x.copy()``, ``copy.deepcopy(x)`` ... become ``x``
``range_short``    ``range(n)`` becomes ``range(n - 1)``
``if_negated``     ``if c:`` becomes ``if not c:``
``return_none``    ``return x`` becomes ``return None``
``stmt_removed``   a statement becomes ``pass``
=================  ===========================================================

Docstrings, the text of error messages and f-strings, and the
``if __name__ == "__main__":`` block (which never runs in the sandbox) are left alone.

Example:
    >>> from menace_course.authoring.mutants import generate_mutants
    >>> mutants = generate_mutants("def double(n):\\n    return 2 * n\\n")
    >>> [m.id for m in mutants][:3]
    ['return_none@2:5', 'stmt_removed@2:5', 'arith_div@2:12']
    >>> mutants[2].description
    '`2 * n` → `2 / n`'
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass

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
_LONGEST_SWAPPED_STRING = 12
_UNMUTATED_STATEMENTS = (
    ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom,
    ast.Global, ast.Nonlocal, ast.Pass,
)  # fmt: skip


@dataclass(frozen=True)
class Mutant:
    """One small change to the reference, and the whole program it makes."""

    id: str  #: operator, line and column: ``cmp_le@12:9`` (stable while the code is)
    operator: str  #: what kind of change, e.g. ``cmp_le``
    line: int
    column: int  #: 1-based, as editors count
    description: str  #: the change in one line: ``\\`a < b\\` → \\`a <= b\\```
    source: str  #: the mutated module, ready to run as a submission


def generate_mutants(source: str, only: Collection[str] = ()) -> list[Mutant]:
    """Every compilable one-change mutant of ``source``, ordered by where the change is.

    ``only`` limits the changes to the named top-level functions and assignments
    (e.g. ``["play_game", "REWARD"]``); empty means the whole module. Mutants that do
    not compile, that change nothing, or that repeat an earlier one are left out.

    Raises:
        SyntaxError: ``source`` itself is not valid Python.
    """
    tree = ast.parse(source)
    original = ast.unparse(tree)
    eligible = _eligible(tree, set(only))
    strings = _string_pool(tree, eligible)
    parents = {id(child): parent for parent in ast.walk(tree) for child in ast.iter_child_nodes(parent)}
    seen_sources = {original}
    seen_ids: dict[str, int] = {}
    mutants = []
    for node in ast.walk(tree):
        if id(node) not in eligible:
            continue
        for operator, replacement in _changes(node, strings):
            text = _swap_and_unparse(tree, parents, node, replacement)
            if text is None or text in seen_sources:
                continue
            seen_sources.add(text)
            line, column = getattr(node, "lineno", 0), getattr(node, "col_offset", 0) + 1
            mutant_id = f"{operator}@{line}:{column}"
            seen_ids[mutant_id] = seen_ids.get(mutant_id, 0) + 1
            if seen_ids[mutant_id] > 1:
                mutant_id += f"#{seen_ids[mutant_id]}"
            description = _describe(node, replacement)
            mutants.append(Mutant(mutant_id, operator, line, column, description, text))
    return sorted(mutants, key=lambda m: (m.line, m.column))


# -- where changes may be made -----------------------------------------------------------


def _is_docstring(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
    )


def _is_main_block(node: ast.AST) -> bool:
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    return "__name__" in ast.unparse(node.test) and "__main__" in ast.unparse(node.test)


def _defines(node: ast.stmt, names: set[str]) -> bool:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return node.name in names
    targets: list[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        targets = [node.target]
    return any(isinstance(t, ast.Name) and t.id in names for t in targets)


def _eligible(tree: ast.Module, only: set[str]) -> set[int]:
    """Ids of the nodes a change may be made to."""
    roots = [s for s in tree.body if not only or _defines(s, only)]
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if _is_main_block(node) or isinstance(node, ast.JoinedStr):
            skipped.update(id(n) for n in ast.walk(node))
        elif _is_docstring(node):
            skipped.update(id(n) for n in ast.walk(node))
        elif isinstance(node, ast.Raise):  # the wording of an error is not behaviour
            skipped.update(id(n) for n in ast.walk(node) if n is not node)
    return {id(n) for root in roots for n in ast.walk(root) if id(n) not in skipped}


def _string_pool(tree: ast.Module, eligible: set[int]) -> list[str]:
    """Short strings of the module, in order of first appearance: plausible replacements."""
    pool: list[str] = []
    for node in ast.walk(tree):
        if (
            id(node) in eligible
            and isinstance(node, ast.Constant)
            and isinstance(node.value, str)
            and len(node.value) <= _LONGEST_SWAPPED_STRING
            and node.value not in pool
        ):
            pool.append(node.value)
    return pool


# -- the changes -------------------------------------------------------------------------


def _changes(node: ast.AST, strings: list[str]) -> Iterator[tuple[str, ast.AST]]:
    """Each (operator, replacement node) for one node."""
    if isinstance(node, ast.stmt):
        yield from _statement_changes(node)
    elif isinstance(node, ast.BinOp) and type(node.op) in ARITH:
        new_op = ARITH[type(node.op)]
        yield f"arith_{new_op.__name__.lower()}", _with(node, op=new_op())
    elif isinstance(node, ast.Compare):
        for position, op in enumerate(node.ops):
            for new_op in COMPARE.get(type(op), ()):
                ops = [*node.ops[:position], new_op(), *node.ops[position + 1 :]]
                yield f"cmp_{new_op.__name__.lower()}", _with(node, ops=ops)
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


def _with(node: ast.AST, **changes: object) -> ast.AST:
    """A copy of ``node`` with some fields replaced."""
    new = copy.copy(node)
    for field, value in changes.items():
        setattr(new, field, value)
    return new


# -- making the mutated program ------------------------------------------------------------


def _swap_and_unparse(
    tree: ast.Module, parents: dict[int, ast.AST], node: ast.AST, replacement: ast.AST
) -> str | None:
    """The module's text with ``node`` replaced, or None when that does not compile."""
    parent = parents.get(id(node))
    if parent is None:
        return None
    restore = _replace_in(parent, node, replacement)
    try:
        text = ast.unparse(tree)
    finally:
        restore()
    try:
        compile(text, "<mutant>", "exec")
    except (SyntaxError, ValueError):
        return None
    return text


def _replace_in(parent: ast.AST, old: ast.AST, new: ast.AST) -> Callable[[], None]:
    """Put ``new`` where ``old`` is under ``parent``; return what puts ``old`` back."""
    for field, value in ast.iter_fields(parent):
        if value is old:
            setattr(parent, field, new)
            return lambda: setattr(parent, field, old)
        if isinstance(value, list):
            for position, item in enumerate(value):
                if item is old:
                    value[position] = new
                    return lambda: value.__setitem__(position, old)
    raise LookupError("node not found under its parent")  # the parent map is built from the tree


def _short(node: ast.AST) -> str:
    """One line of code: a statement's first line, an expression in full (capped)."""
    text = " ".join(ast.unparse(node).splitlines()[0].split())
    return text if len(text) <= 60 else text[:57] + "..."


def _describe(node: ast.AST, replacement: ast.AST) -> str:
    if isinstance(node, ast.stmt) and isinstance(replacement, ast.Pass):
        return f"removed `{_short(node)}`"
    return f"`{_short(node)}` → `{_short(replacement)}`"
