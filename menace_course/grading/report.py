"""``report.html``: the class at a glance, in one self-contained file.

It shows how the scores spread, how many submissions pass each test, which groups of
submissions fail exactly the same tests (often one misunderstanding each, worth a word
in class), how many could not run and why, and the slowest submissions. The pictures are
inline SVG from :mod:`~menace_course.grading.plots`; the words and layout are the course's
template ``feedback_templates/class_report.html.j2``, rendered with autoescaping, so a
student's name can never become markup.
"""

from __future__ import annotations

from pathlib import Path

import jinja2
import markupsafe

from menace_course.errors import CourseError
from menace_course.feedback import environment
from menace_course.grading import plots
from menace_course.grading.stats import ClassStats

TEMPLATE = "class_report.html.j2"


def render_class_report(stats: ClassStats, templates: Path, title: str, challenge: str) -> str:
    """The class report as HTML text.

    Raises:
        CourseError: the course has no class report template.
    """
    env = environment(templates, "html")
    try:
        template = env.get_template(TEMPLATE)
    except jinja2.TemplateNotFound as error:
        raise CourseError(f"{templates / TEMPLATE} is missing: the class report cannot be written") from error
    return template.render(
        stats=stats,
        title=title,
        challenge=challenge,
        titles={t.name: t.title for t in stats.tests},
        score_plot=markupsafe.Markup(plots.score_distribution(stats)),
        pass_rate_plot=markupsafe.Markup(plots.pass_rates(stats)),
    )
