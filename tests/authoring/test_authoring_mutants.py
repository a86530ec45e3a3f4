"""Mutants are made from a reference's code: each operator, where it applies, and nothing else."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from menace_course.authoring.mutants import generate_mutants

REPO = Path(__file__).resolve().parents[2]


def mutants_of(code: str, only: tuple[str, ...] = ()) -> dict[str, str]:
    """id -> description of every mutant of ``code``."""
    return {m.id: m.description for m in generate_mutants(textwrap.dedent(code), only)}


def operators_of(code: str) -> set[str]:
    return {m.operator for m in generate_mutants(textwrap.dedent(code))}


SAMPLE = '''
    """A sample reference."""
    import copy

    REWARD = {"win": 3, "loss": -1}


    def learn(beads, square, result, boxes):
        """Every operator has something to change here."""
        new = list(beads)
        also = beads[:]
        more = beads.copy()
        deep = copy.deepcopy(boxes)
        total = 0
        for i in range(9):
            if new[i] < 4 and not result == "draw":
                total += new[i] * 2
        new[square] = max(0, new[square] + REWARD[result])
        return new, also, more, deep, total


    if __name__ == "__main__":
        print(learn([1] * 9, 0, "win", {}))
'''


def test_the_sample_gets_every_kind_of_change():
    assert operators_of(SAMPLE) >= {
        "arith_sub",  # new[square] + REWARD[result]
        "arith_div",  # new[i] * 2
        "aug_sub",  # total += ...
        "aug_to_assign",
        "cmp_lte",  # new[i] < 4
        "cmp_gt",
        "cmp_noteq",  # result == "draw"
        "boolop_or",
        "not_removed",
        "const_plus1",
        "const_minus1",
        "const_zero",
        "str_swap1",
        "max_removed",
        "copy_removed",
        "range_short",
        "if_negated",
        "return_none",
        "stmt_removed",
    }


def test_a_floor_at_zero_is_removed():
    found = mutants_of("def f(n):\n    return max(0, n - 1)\n")
    assert found["max_removed@2:12"] == "`max(0, n - 1)` → `n - 1`"


def test_every_copy_becomes_the_original():
    found = [d for i, d in mutants_of(SAMPLE).items() if i.startswith("copy_removed")]
    assert sorted(found) == sorted(
        [
            "`list(beads)` → `beads`",
            "`beads[:]` → `beads`",
            "`beads.copy()` → `beads`",
            "`copy.deepcopy(boxes)` → `boxes`",
        ]
    )


def test_numbers_become_their_neighbours_and_zero():
    found = mutants_of("def f():\n    return 3\n")
    assert {found[f"{op}@2:12"] for op in ("const_plus1", "const_minus1", "const_zero")} == {
        "`3` → `4`",
        "`3` → `2`",
        "`3` → `0`",
    }


def test_a_constant_range_is_shortened_once_not_twice():
    found = mutants_of("def f():\n    return [i for i in range(9)]\n")
    shortened = [d for d in found.values() if "range(8)" in d or "`9` → `8`" in d]
    assert len(shortened) == 1  # range(9) -> range(8) is the same program as 9 -> 8


def test_strings_become_other_strings_of_the_module():
    found = mutants_of("def f(r):\n    return r == 'win' or r == 'draw'\n")
    assert found["str_swap1@2:17"] == "`'win'` → `'draw'`"


def test_docstrings_error_messages_and_the_main_block_are_left_alone():
    code = '''
        def f(n):
            """Twice n."""
            if n < 0:
                raise ValueError(f"no negative numbers: {n}")
            return 2 * n


        if __name__ == "__main__":
            print(f(3))
    '''
    by_line: dict[int, set[str]] = {}
    for mutant in generate_mutants(textwrap.dedent(code)):
        by_line.setdefault(mutant.line, set()).add(mutant.operator)
    assert 3 not in by_line  # the docstring
    assert by_line[5] == {"stmt_removed"}  # the raise may go, its message is not changed
    assert not {line for line in by_line if line >= 9}  # the main block never runs


def test_a_final_return_none_is_not_removed():
    found = mutants_of("def f(box):\n    box.clear()\n    return None\n")
    assert [i for i in found if i.startswith("stmt_removed")] == ["stmt_removed@2:5"]


def test_only_the_named_functions_and_assignments_change():
    code = "A = 1\nB = 2\n\ndef f():\n    return A\n\ndef g():\n    return B\n"
    lines = {int(i.split("@")[1].split(":")[0]) for i in mutants_of(code, ("f", "B"))}
    assert lines == {2, 5}


def test_every_mutant_compiles_differs_and_has_a_unique_id():
    mutants = generate_mutants(textwrap.dedent(SAMPLE))
    original = ast.unparse(ast.parse(textwrap.dedent(SAMPLE)))
    assert len({m.id for m in mutants}) == len(mutants)
    assert len({m.source for m in mutants}) == len(mutants)
    for mutant in mutants:
        compile(mutant.source, mutant.id, "exec")
        assert mutant.source != original
        assert mutant.id == f"{mutant.operator}@{mutant.line}:{mutant.column}" or "#" in mutant.id


def test_mutants_are_ordered_by_where_the_change_is():
    mutants = generate_mutants(textwrap.dedent(SAMPLE))
    assert [(m.line, m.column) for m in mutants] == sorted((m.line, m.column) for m in mutants)


@pytest.mark.parametrize("reference", sorted(p.name for p in (REPO / "reference").glob("*.py")))
def test_every_reference_of_the_course_has_mutants(reference):
    assert len(generate_mutants((REPO / "reference" / reference).read_text())) >= 6


def test_a_reference_that_is_not_python_raises_a_syntax_error():
    with pytest.raises(SyntaxError):
        generate_mutants("def f(:\n")
