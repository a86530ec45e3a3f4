"""``python -m menace_course`` is the same as the ``menace`` command."""

from menace_course.warm.client import main

if __name__ == "__main__":
    main()
