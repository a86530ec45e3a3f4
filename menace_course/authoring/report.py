"""``menace validate`` in words: one table of checks per challenge, then the survivors.

Rendering returns a string (rich draws it into a buffer), so the command prints it and
tests compare it; colour is used only when asked for (the command asks when stdout is
a terminal).
"""

from __future__ import annotations

import io

from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from menace_course.authoring.results import ChallengeResult, CourseResult

PASS, FAIL = "✓", "✗"


def render_text(result: CourseResult, colour: bool = False, width: int = 100) -> str:
    """The whole validation as text: a table per challenge, survivors, problems, a summary."""
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=colour, no_color=not colour, highlight=False)
    for challenge in result.challenges:
        _render_challenge(console, challenge)
    good = sum(c.ok for c in result.challenges)
    total = len(result.challenges)
    where = " (submissions ran in a plain process, not isolated)" if result.sandbox == "process" else ""
    if result.ok:
        console.print(Text(f"{PASS} all {total} challenge(s) validate{where}", style="bold green"))
    else:
        failing = ", ".join(c.slug for c in result.challenges if not c.ok)
        console.print(
            Text(
                f"{FAIL} {total - good} of {total} challenge(s) do not validate: {failing}{where}",
                style="bold red",
            )
        )
    return "".join(line.rstrip() + "\n" for line in buffer.getvalue().splitlines())


def _mark(ok: bool) -> Text:
    return Text(PASS if ok else FAIL, style="green" if ok else "bold red")


def _rows(c: ChallengeResult) -> list[tuple[str, bool, str]]:
    rows = [
        (
            "reference passes every test",
            c.reference_passes,
            "all pass" if c.reference_passes else f"fails {', '.join(c.reference_failures) or 'to load'}",
        ),
        ("hidden tests exist", c.hidden_tests > 0, f"{c.hidden_tests} hidden test(s)"),
        ("starter fails", c.starter_fails, "" if c.starter_fails else "the starter passes"),
        ("examples agree with the reference", c.examples_agree, ""),
        (
            "every hint has a template",
            not c.hints_missing,
            f"missing: {', '.join(c.hints_missing)}" if c.hints_missing else "",
        ),
        (
            "wrong solutions are caught",
            c.wrong_caught,
            f"{sum(w.ok for w in c.wrong)} of {len(c.wrong)}" if c.wrong else "none in wrong/",
        ),
        ("no points for nothing", c.free_ok, _free_detail(c)),
        ("the suite is deterministic", c.deterministic, ""),
        (
            "the suite runs within its budget",
            c.within_budget,
            f"{c.seconds:.2f} s of {c.budget_seconds:g} s" if c.seconds else "not measured",
        ),
    ]
    if c.mutants is None:
        rows.append(("mutants are killed", False, "not run"))
    else:
        m = c.mutants
        rows.append(
            (
                "mutants are killed",
                m.passes,
                f"{m.killed} of {m.total} ({m.percent:.0f} %, needs {m.threshold:.0%})"
                + (f"; {len(m.equivalent)} equivalent" if m.equivalent else ""),
            )
        )
    return rows


def _free_detail(c: ChallengeResult) -> str:
    nothing = [f for f in c.free if f.kind == "does_nothing"]
    printed = [f for f in c.free if f.kind == "examples_only"]
    parts = []
    if nothing:
        parts.append(f"doing nothing: {max(f.score for f in nothing):g}")
    if printed:
        best = max(printed, key=lambda f: f.score)
        parts.append(f"printed answers only: {best.score:g} of {best.max_score:g}")
    return ", ".join(parts)


def _render_challenge(console: Console, c: ChallengeResult) -> None:
    table = Table(
        title=Text(f"{c.slug}: {c.title}", style="bold"),
        title_justify="left",
        show_header=False,
        box=None,
        pad_edge=False,
    )
    table.add_column(width=1)
    table.add_column()
    table.add_column(style="dim")
    for label, ok, detail in _rows(c):
        table.add_row(_mark(ok), Text(label), Text(detail))
    console.print(table)
    if c.mutants and c.mutants.survivors:
        console.print(Text("  Surviving mutants: wrong programs that pass every test", style="bold"))
        survivors = Table(box=None, pad_edge=False, header_style="dim")
        survivors.add_column("id", no_wrap=True)
        survivors.add_column("change")
        for s in c.mutants.survivors:
            survivors.add_row(Text(s.id), Text(s.description))
        console.print(Padding(survivors, (0, 0, 0, 4)))
    if c.mutants and any(e.killed for e in c.mutants.equivalent):
        for e in c.mutants.equivalent:
            if e.killed:
                console.print(Text(f"  note: {e.id} is listed as equivalent but a test kills it; remove it"))
    for problem in c.problems:
        console.print(Text(f"  {FAIL} {problem}", style="red"))
    if c.public_passing:
        console.print(Text("  Files students receive that earn more than a third of it:", style="bold"))
        for public in c.public_passing:
            verdict = "passes every check" if public.passes else f"{public.score:g} of {public.max_score:g}"
            console.print(Text(f"    {public.file}: {verdict}"))
    console.print()
