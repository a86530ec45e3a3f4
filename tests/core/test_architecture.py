"""Guards for the package's shape: the public names, and which way the data flows.

The layers (docs/architecture.md draws them), from the bottom up::

    leaves      models, limits, errors, cache, schema, atomic: import nothing of ours
                safe_text                            (cache: atomic, how it writes a file)
    sandbox     menace_course.sandbox                 itself and the leaves only
    lesson      menace_course.lesson                  itself and the leaves only (no grader)
    grader      catalog, course, checking, grading, feedback, exports, authoring, autograders, ...
    top         commands (and cli), service           nothing below imports them

Every import counts, also those inside functions (lazy imports are still dependencies).
"""

import ast
import sys
from pathlib import Path

import pytest

import menace_course

PACKAGE = Path(menace_course.__file__).parent

LEAVES = (
    "menace_course.models",
    "menace_course.limits",
    "menace_course.errors",
    "menace_course.cache",
    "menace_course.schema",
    "menace_course.safe_text",
    "menace_course.atomic",
)
#: The words a student reads: the table keyed by the report's vocabulary (``wording``, which
#: imports only ``models``) and the language chosen (``language``, the standard library only).
WORDS = ("menace_course.wording", "menace_course.language")


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(module_path: Path) -> set[str]:
    """Every module ``module_path`` imports, relative imports resolved, at any depth of the file."""
    tree = ast.parse(module_path.read_text())
    package = module_name(module_path)
    if module_path.name != "__init__.py":
        package = package.rpartition(".")[0]
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                module = f"{base}.{node.module}" if node.module else base
            else:
                module = node.module or ""
            names.add(module)
            # ``from menace_course.sandbox import wire`` imports the module ``...sandbox.wire``
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def our_modules() -> dict[str, set[str]]:
    """Each module of the package and the modules of ours it imports."""
    graph = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if "_course" in path.relative_to(PACKAGE).parts:
            continue
        known = {n for n in imports_of(path) if n.startswith("menace_course.")}
        graph[module_name(path)] = known
    return graph


GRAPH = our_modules()


def _in(module: str, *prefixes: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


def _existing(names: set[str]) -> set[str]:
    """Drop names that are attributes, not modules (``from x import some_function``)."""
    return {n for n in names if n in GRAPH}


def violations(importers: tuple[str, ...], allowed: tuple[str, ...]) -> dict[str, set[str]]:
    found = {}
    for module, imported in GRAPH.items():
        if not _in(module, *importers):
            continue
        bad = {n for n in _existing(imported) if n != "menace_course" and not _in(n, *allowed)}
        if bad:
            found[module] = bad
    return found


def test_the_public_names_are_sorted_and_all_resolve():
    assert menace_course.__all__ == sorted(menace_course.__all__)
    for name in menace_course.__all__:
        assert getattr(menace_course, name) is not None


def test_the_import_graph_sees_the_package():
    # The rules below mean nothing if the graph is empty or misses lazy imports.
    assert "menace_course.checking.pipeline" in GRAPH
    assert "menace_course.sandbox.child" in GRAPH["menace_course.checking.pipeline"]
    assert "menace_course.sandbox.launch" in GRAPH["menace_course.commands.authoring"]  # inside a function


@pytest.mark.parametrize("leaf", LEAVES)
def test_the_leaves_import_nothing_of_ours(leaf):
    # ``language`` imports only the standard library (below): an error is worded where it is made.
    # The cache writes what it keeps the one way menace replaces a file (``atomic``, a leaf too).
    allowed = ("menace_course.language", "menace_course.atomic") if leaf == "menace_course.cache" else ()
    assert violations((leaf,), ("menace_course.language", *allowed)) == {}


def test_the_words_import_only_the_reports_vocabulary():
    assert violations(WORDS, ("menace_course.models",)) == {}


def test_the_results_model_needs_only_the_standard_library():
    third_party = (
        {name.split(".")[0] for name in imports_of(PACKAGE / "models.py")}
        - set(sys.stdlib_module_names)
        - {"__future__"}
    )
    assert third_party == set()


def test_the_sandbox_imports_only_itself_and_the_leaves():
    assert violations(("menace_course.sandbox",), ("menace_course.sandbox", *LEAVES)) == {}


def test_the_lesson_imports_nothing_of_the_grader():
    assert violations(("menace_course.lesson",), ("menace_course.lesson", *LEAVES)) == {}


def test_challenges_are_read_without_the_sandbox():
    # The catalog parses challenge.toml; Limits lives in a leaf so that it need not import the sandbox.
    assert (
        violations(
            ("menace_course.catalog", "menace_course.course"), ("menace_course.course", *LEAVES, *WORDS)
        )
        == {}
    )


@pytest.mark.parametrize("top", ["menace_course.commands", "menace_course.service", "menace_course.warm"])
def test_commands_the_service_and_the_warm_checker_sit_on_top(top):
    importers = {
        module
        for module, imported in GRAPH.items()
        if any(_in(n, top) for n in imported)
        and not _in(module, top, "menace_course.cli", "menace_course.__main__")
    }
    if top in ("menace_course.service", "menace_course.warm"):  # commands start them
        importers = {m for m in importers if not _in(m, "menace_course.commands")}
    if top == "menace_course.commands":  # the warm checker runs the command line, as the client does
        importers = {m for m in importers if not _in(m, "menace_course.warm")}
    assert importers == set()


def test_only_commands_speak_click():
    speakers = {
        module
        for path in PACKAGE.rglob("*.py")
        if "click" in {n.split(".")[0] for n in imports_of(path)}
        and not _in(module := module_name(path), "menace_course.commands", "menace_course.cli")
    }
    assert speakers == set()


def test_exports_hold_exports_only():
    # No command line and no runtime that grades: those are commands/ and autograders/.
    assert (
        violations(
            ("menace_course.exports",),
            (
                "menace_course.exports",
                "menace_course.autograders",
                "menace_course.catalog",
                "menace_course.course",
                "menace_course.checking.suite",
                "menace_course.checking.testing",
                "menace_course.checking.compare",
                "menace_course.feedback",
                "menace_course.student_view",
                "menace_course.grading",
                "menace_course.kit",
                "menace_course.bundle",
                "menace_course.pins",
                *LEAVES,
            ),
        )
        == {}
    )


@pytest.mark.parametrize(
    "module", ["sandbox/wire.py", "sandbox/harness.py", "lesson/noughts.py", "lesson/pixels.py"]
)
def test_files_copied_elsewhere_import_only_the_standard_library(module):
    names = {name.split(".")[0] for name in imports_of(PACKAGE / module)}
    assert names - set(sys.stdlib_module_names) - {"__future__", "wire"} == set()


def test_feedback_reads_reports_and_never_reaches_back_into_the_grader():
    # student_view is a function of a report alone: what a student may see of it.
    allowed = ("menace_course.cache", "menace_course.student_view", *WORDS, *LEAVES)
    assert violations(("menace_course.feedback",), allowed) == {}


def _calls(path: Path) -> set[str]:
    """``module.function`` for every call of an attribute of a plain name in a file."""
    tree = ast.parse(path.read_text())
    return {
        f"{node.func.value.id}.{node.func.attr}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
    }


@pytest.mark.parametrize(
    ("job", "calls", "home"),
    [
        ("replacing a file", {"os.replace", "os.rename"}, "atomic.py"),
        (
            "importing a file as a module",
            {"importlib.util.spec_from_file_location", "util.spec_from_file_location"},
            "checking/importing.py",
        ),
    ],
)
def test_each_shared_job_has_one_helper(job, calls, home):
    doing_it = {
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "_course" not in path.parts
        and (
            _calls(path) & calls or any(c in path.read_text() for c in calls if "." in c and c.count(".") > 1)
        )
    }
    assert doing_it <= {home}, f"{job} is done outside {home}: {sorted(doing_it - {home})}"


def test_only_the_one_submission_path_starts_a_sandboxed_child():
    # check, grade, the Gradescope runner, validate, the hidden tests' conftest, the service
    # and the lesson's programs all open a submission with checking.pipeline.open_submission,
    # which starts the child (the proxy only holds it, as a Worker): none starts a Child of its own.
    starters = {
        module
        for module, imported in GRAPH.items()
        if "menace_course.sandbox.child.Child" in imported and not _in(module, "menace_course.sandbox")
    }
    assert starters == {"menace_course.checking.pipeline"}


#: What gets a challenge's tests afresh (checking/suite.py): kept only by ``suite.Suites``.
SUITE_LOADERS = {"collect", "load_suite"}


def _called_names(tree: ast.AST) -> set[str]:
    """The name of every function called in ``tree``, plain (``f()``) or an attribute (``m.f()``)."""
    return {
        node.func.id if isinstance(node.func, ast.Name) else node.func.attr
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute)
    }


def _suite_keepers() -> dict[str, set[str]]:
    """Each module but checking/suite.py that keeps suites of its own, and how."""
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if "_course" in path.parts or path == PACKAGE / "checking" / "suite.py":
            continue
        tree = ast.parse(path.read_text())
        how = set()
        if "Suites" in _called_names(tree):
            how.add("makes a Suites of its own")
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                cached = {ast.unparse(d).split("(")[0].rsplit(".")[-1] for d in node.decorator_list}
                if cached & {"cache", "lru_cache", "cached_property"} and (
                    _called_names(node) & SUITE_LOADERS or "Suite" in ast.unparse(node.returns or ast.Pass())
                ):
                    how.add(f"{node.name} caches a suite for ever")
        loads_suites = "menace_course.checking.suite" in " ".join(GRAPH.get(module_name(path), ()))
        if (
            module_name(path).startswith("menace_course.service.")
            and loads_suites
            and _called_names(tree) & SUITE_LOADERS
        ):
            how.add("a long-running process loads a suite without suite.SUITES")
        if how:
            found[module_name(path)] = how
    return found


def test_one_suite_source_only_checking_suite_keeps_suites_and_their_maxima():
    # A long-running process (the service's graders, its web process and so LTI passback)
    # asks suite.SUITES, kept by content: an edited hidden test is used at the next check
    # and its points in the next maximum sent to the LMS. A pool's worker asks
    # suite.RUN_SUITES (one run, one suite). Nothing else keeps a suite or numbers from one.
    assert _suite_keepers() == {}


def test_a_challenge_is_made_only_from_its_challenge_toml_and_nothing_fabricates_one():
    # The pipeline opens a submission for a narrow pipeline.Target (slug, function,
    # parameters, limits), so a program that is no challenge (the lesson page's) makes a
    # Target, and no module defines or builds a Challenge of its own.
    makers, definers = set(), set()
    for path in PACKAGE.rglob("*.py"):
        if "_course" in path.parts:
            continue
        tree = ast.parse(path.read_text())
        if "Challenge" in _called_names(tree) and path != PACKAGE / "catalog.py":
            makers.add(module_name(path))
        if any(isinstance(n, ast.ClassDef) and n.name == "Challenge" for n in ast.walk(tree)):
            definers.add(module_name(path))
    assert makers == set()
    assert definers == {"menace_course.catalog"}


def _reaches(start: str, goal: str) -> bool:
    """True when ``start`` imports ``goal``, directly or through other modules of ours."""
    seen, todo = set(), [start]
    while todo:
        module = todo.pop()
        for imported in _existing(GRAPH.get(module, set())):
            if imported == goal:
                return True
            if imported not in seen:
                seen.add(imported)
                todo.append(imported)
    return False


def test_the_proxy_and_the_authors_api_import_no_circle():
    # The failures both raise live in a leaf (issue 21, item 10): the proxy never reaches
    # the author's API, and the leaf reaches only the vocabulary (models, itself a leaf).
    assert not _reaches("menace_course.checking.proxy", "menace_course.checking.testing")
    assert _existing(GRAPH["menace_course.checking.failures"]) <= {"menace_course.models"}
    assert "menace_course.checking.failures" in GRAPH["menace_course.checking.proxy"]


SERVICE = PACKAGE / "service"
#: The one module that makes an error answer (``service.refusal``).
REFUSAL_HOME = SERVICE / "refusal.py"


def _base_names(node: ast.ClassDef) -> set[str]:
    return {
        b.id if isinstance(b, ast.Name) else b.attr
        for b in node.bases
        if isinstance(b, ast.Name | ast.Attribute)
    }


def _sets_status(node: ast.ClassDef) -> bool:
    """Does the class keep an HTTP status (``self.status = ...``, or a ``status`` field)?"""
    for item in ast.walk(node):
        targets = item.targets if isinstance(item, ast.Assign) else []
        for target in targets:
            for name in ast.walk(target):
                if isinstance(name, ast.Attribute) and name.attr in ("status", "status_code"):
                    return True
    return False


def test_every_refusal_of_the_service_is_one_refusal_type():
    """A class in service/ that carries an HTTP status derives from ``Refusal`` (the one base,
    answered by the one handler); none derives from Werkzeug's HTTPException."""
    wrong = []
    for path in sorted(SERVICE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = _base_names(node)
            exception = any(base.endswith(("Exception", "Error")) for base in bases)
            if "HTTPException" in bases or (path != REFUSAL_HOME and exception and _sets_status(node)):
                wrong.append(f"{path.relative_to(PACKAGE)}: {node.name}")
    assert not wrong, wrong


def _error_dicts(path: Path) -> list[int]:
    """Lines of dict literals with an ``"error"`` key that are made into a JSON answer there."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (
            isinstance(node, ast.Call)
            and getattr(node.func, "id", getattr(node.func, "attr", "")) == "jsonify"
        ):
            for arg in node.args:
                if isinstance(arg, ast.Dict) and any(
                    isinstance(k, ast.Constant) and k.value == "error" for k in arg.keys
                ):
                    lines.append(node.lineno)
    return lines


def test_no_route_of_the_service_answers_an_error_of_its_own_making():
    """Every error answer is made by ``service.refusal`` (raise a Refusal instead)."""
    found = {
        str(path.relative_to(PACKAGE)): lines
        for path in sorted(SERVICE.rglob("*.py"))
        if path != REFUSAL_HOME and (lines := _error_dicts(path))
    }
    assert not found, found


#: Who may start a process of its own: the pool (grader processes), the sandbox (the child)
#: and the warm checker's client (the warm checker).
PROCESS_STARTERS = {"pool.py", "sandbox/launch.py", "sandbox/child.py", "sandbox/zygote.py", "warm/client.py"}


def test_only_the_pool_starts_grader_processes():
    # One grader-process type and one retry/timeout policy (pool.GraderProcess, pool.Graders):
    # grade, validate, the autograders, the service's local graders and menace worker's use it.
    starting = {"subprocess.Popen", "multiprocessing.Process", "multiprocessing.get_context"}
    starters = {
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if _calls(path) & starting or "ProcessPoolExecutor" in path.read_text()
    }
    assert "pool.py" in starters and starters <= PROCESS_STARTERS, sorted(starters - PROCESS_STARTERS)
    makers = {
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Call) and "GraderProcess" in ast.unparse(node.func)
    }
    assert makers == {"pool.py"}


def test_a_lost_grader_is_told_by_its_reason_never_by_its_words():
    # pool.Lost says why (timeout, died, refused, raised); nothing matches a message's text.
    matching = {
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "no answer within" in path.read_text()
    }
    assert matching == set()


#: Where a check's report travels in the service, from the grader's pipe to the database column.
DISPATCH = ("menace_course.service.dispatch", "menace_course.service.state", "menace_course.service.intake")


def test_no_report_crosses_dispatch_as_a_dict():
    # The report is models.SubmissionReport all the way; only the pipe (pickled) and the
    # database column (db.attempts.record_result, Attempt.checked) see another form of it.
    untyped = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if not _in(module_name(path), *DISPATCH):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                typed = [(a.arg, a.annotation) for a in [*node.args.args, *node.args.kwonlyargs]]
                typed.append((node.name, node.returns))
                untyped += [
                    f"{module_name(path)}.{node.name}: {name}"
                    for name, annotation in typed
                    if "report" in name
                    and annotation is not None
                    and "SubmissionReport" not in ast.unparse(annotation)
                ]
            if isinstance(node, ast.Attribute) and node.attr in ("from_dict", "to_dict"):
                if "report" in ast.unparse(node.value).lower():
                    untyped.append(f"{module_name(path)}: {ast.unparse(node)}")
    assert untyped == []
    from menace_course.service.dispatch.base import Recorder

    assert "SubmissionReport" in str(Recorder.finished.__annotations__["report"])


def test_each_public_class_of_the_package_has_a_name_of_its_own():
    # Issue 21, item 7: a name means one thing. Two classes of the same name (there were
    # two Challenge, two Verdict, two Kind, two Attempt, two Limits, Worker for four
    # things) make a reader ask which one is meant; each concept gets one name instead.
    where: dict[str, list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if "_course" in path.parts:
            continue
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                where.setdefault(node.name, []).append(module_name(path))
    assert {name: modules for name, modules in where.items() if len(modules) > 1} == {}
