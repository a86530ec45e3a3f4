"""Experiments that answer the lesson's questions by running MENACE many times.

Each experiment is a module with a pure function that runs it and returns plain
data (a frozen dataclass), and a function that turns that data into the text
``menace experiment NAME`` prints:

========================  ==========================================================
``count``                 the lesson's counts: 549,946 boards in every game, 304
                          boxes, 2,201 without symmetry  (:mod:`.counting`)
``games``                 the page's widget game by game, with its settings: the
                          same seed gives the same games  (:mod:`.games`)
``no-refill``             Step 3 without the empty-box refill: how often does the
                          first box run out for good?  (:mod:`.no_refill`)
``replica``               the second account's program, without symmetry, exactly
                          as it was printed  (:mod:`.replica`)
``rewards``               "Change the rewards": do Michie's +3/+1/-1 matter?
                          (:mod:`.rewards`)
``two-learners``          both sides learn, as in Michie's computer version
                          (:mod:`.two_learners`)
========================  ==========================================================

:mod:`.page_steps` holds the lesson's Steps 1-4 written with the package's engine.
"""
