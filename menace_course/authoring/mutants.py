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

Docstrings, the text of error messages and f-strings, a function's final ``return None``
and the ``if __name__ == "__main__":`` block (which never runs in the sandbox) are left
alone: changing them cannot change what the function does.

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
from collections.abc import Callable, Collection
from dataclasses import dataclass

from menace_course.authoring.operators import changes

_LONGEST_SWAPPED_STRING = 12


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
        for operator, replacement in changes(node, strings):
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


def _ends_bare(body: list[ast.stmt]) -> bool:
    last = body[-1]
    return isinstance(last, ast.Return) and (
        last.value is None or (isinstance(last.value, ast.Constant) and last.value.value is None)
    )


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
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _ends_bare(node.body):
            skipped.add(id(node.body[-1]))  # removing a final `return None` changes nothing
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


# -- making the mutated program ------------------------------------------------------------


def _swap_and_unparse(
    tree: ast.Module, parents: dict[int, ast.AST], node: ast.AST, replacement: ast.AST
) -> str | None:
    """The module's text with ``node`` replaced, or None when that does not compile."""
    parent = parents.get(id(node))
    if parent is None:
        return None
    if "lineno" in replacement._attributes and not hasattr(replacement, "lineno"):
        ast.fix_missing_locations(ast.copy_location(replacement, node))  # unparse reads lineno
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
