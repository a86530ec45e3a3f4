"""The lesson itself: noughts and crosses, MENACE, its pictures and its experiments.

* :mod:`~menace_course.lesson.noughts`: the board and two players (Perfect and Random);
* :mod:`~menace_course.lesson.engine`: MENACE, the matchbox learner;
* :mod:`~menace_course.lesson.pixels`: the lesson's pictures of games;
* :mod:`~menace_course.lesson.experiments`: the page's Step programs and its questions.

Nothing here imports the grader: the lesson is what the grader's challenges are about.
"""
