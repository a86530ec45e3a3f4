"""The warm checker: ``menace check`` without paying for Python's imports each time.

A check spends most of its time before it checks anything: starting Python and importing
click, jinja2, rich and this package (about 0.1 s of a 0.2 s check). The warm checker is a
background process of the student's own user that has all of that imported already. For
each ``menace check`` it forks a copy of itself; the copy takes the command's terminal
(its stdin, stdout and stderr, passed over a Unix socket), its folder, its environment and
its arguments, runs exactly what ``menace check`` would run in-process, and reports the exit
code. The sandbox, the tests and the feedback are the same code either way; only the start
is shared. ``mypy``'s ``dmypy`` and Gradle's daemon do the same for the same reason.

How a check finds it, and when it does not::

    menace check FILE ──client──▶ stamp (python, sys.path, environment, this package's files)
        │  socket <cache>/warm/<stamp's checksum>.sock answers?
        ├─ yes: send argv, folder, environment, fds 0-2 ──▶ warm checker forks ──▶ exit code
        └─ no:  check in this process, as always; start a warm checker for the next time

* Only ``menace check`` goes through it, and only when ``menace`` was started plainly (the
  console script or ``python -m menace_course``, no interpreter options).
* A stamp covers everything that could make the warm checker's imports differ from the
  client's: the machine, the interpreter, ``sys.path`` and the time each of its folders
  last changed (an install or upgrade), the ``PYTHON*``/``LC_*``/``LANG`` variables, and
  the size and time of every ``.py`` file of this package (an edit). A changed stamp means
  another socket, so an outdated warm checker is never asked; it stops on its own after its
  idle time.
* The socket sits in the user's private cache folder (:func:`menace_course.cache.trusted_folder`),
  and the warm checker also refuses a connection from any other user (``SO_PEERCRED``).
* Ctrl-C (and SIGTERM, SIGHUP) at the client is passed on to the check; a client that goes
  away stops its check. The warm checker stops after ``MENACE_WARM_IDLE`` seconds (900 by
  default) without a check; ``menace warm stop`` stops it now; ``MENACE_WARM=off`` never
  starts one (the test suite sets it, and its own tests start one on purpose).

Modules: :mod:`~menace_course.warm.stamp` (the stamp and the socket's place),
:mod:`~menace_course.warm.messages` (the framed messages with fds),
:mod:`~menace_course.warm.client` (the ``menace`` command's front door),
:mod:`~menace_course.warm.server` (the warm checker and the forked check).
"""
