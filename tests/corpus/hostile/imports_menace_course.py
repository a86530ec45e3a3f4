# Hostile: imports the grader's own package to find the answers.
from menace_course.checking.testing import reference

after_game = reference('after_game')
