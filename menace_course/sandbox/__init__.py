"""Running untrusted submissions: the child process, its sandbox and the wire between them.

* :mod:`~menace_course.sandbox.wire`: the tagged JSON that is the only thing crossing;
* :mod:`~menace_course.sandbox.harness`: the trusted program inside the sandbox;
* :mod:`~menace_course.sandbox.launch`: how the child is started (bubblewrap or a plain
  process) and what limits it gets;
* :mod:`~menace_course.sandbox.child`: the grader's side: one child per submission,
  calls with deadlines, restarts after a timeout, crash or garbled reply.
"""
