"""The gradebook imports nbgrader.api without nbgrader's Jupyter server extensions, and the
package is still whole for whoever wants the rest of it (each case in a fresh interpreter)."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


# As the grader's processes start: no rfc3987_syntax parsers (0.9 s).
STARTUP = "from autograder.startup import prepare_process; prepare_process()\n"


def _run(code: str) -> dict:
    result = subprocess.run(
        [sys.executable, "-c", STARTUP + textwrap.dedent(code)], cwd=REPO, capture_output=True,
        text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_gradebook_opens_without_the_jupyter_server(tmp_path: Path) -> None:
    seen = _run(f"""
        import json, sys
        from pathlib import Path
        from autograder.base.course import Course
        from autograder.views import gradebook
        from tests.support.vectors import VECTORS
        gradebook._open(Course(Path({str(tmp_path)!r}), "a1"), "a1", VECTORS).close()
        import nbgrader, nbgrader._version
        from nbgrader.api import Gradebook
        with Gradebook(Course(Path({str(tmp_path)!r}), "a1").db_url) as book:
            names = [a.name for a in book.assignments]
        print(json.dumps({{
            "server": "jupyter_server" in sys.modules,
            "version": nbgrader.__version__ == nbgrader._version.__version__,
            "assignments": names,
        }}))
    """)
    assert seen == {"server": False, "version": True, "assignments": ["a1"]}


PUBLIC_NAMES = textwrap.dedent("""
    import json, types, nbgrader
    names = sorted(n for n, v in vars(nbgrader).items()
                   if not isinstance(v, types.ModuleType) and not n.startswith("__"))
    print(json.dumps(names))
""")


def test_the_package_completes_on_demand_as_a_plain_import_makes_it() -> None:
    plain = _run(PUBLIC_NAMES)
    completed = _run("""
        import json
        from autograder.views.nbgrader_package import is_complete, light_import
        package = light_import()
        from nbgrader import utils  # a submodule: not a reason to run __init__
        light = is_complete(package)
        points = package._jupyter_server_extension_points()  # what Jupyter asks for
        from nbgrader.apps import NbGraderApp  # nbgrader's apps read nbgrader.__version__
        print(json.dumps({"light": light, "complete": is_complete(package), "points": points,
                          "app": NbGraderApp.name}))
    """)
    assert completed == {"light": False, "complete": True, "points": [{"module": "nbgrader"}],
                         "app": "nbgrader"}
    after = _run(textwrap.dedent("""
        from autograder.views.nbgrader_package import light_import
        light_import().load_assignments  # any package-level name completes it
    """) + PUBLIC_NAMES)
    assert after == plain and "load_assignments" in plain


def test_a_process_that_imported_nbgrader_keeps_its_module() -> None:
    seen = _run("""
        import json, nbgrader
        from autograder.views.nbgrader_package import is_complete, light_import
        print(json.dumps({"same": light_import() is nbgrader, "complete": is_complete(nbgrader)}))
    """)
    assert seen == {"same": True, "complete": True}
