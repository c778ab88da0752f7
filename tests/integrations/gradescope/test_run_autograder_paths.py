"""run-autograder takes each path option as a TA passes it, or says why in one line (issue 27).

`--results DIR` (Gradescope's own layout is a results folder) writes DIR/results.json, as
`--metadata DIR` reads DIR/submission_metadata.json; what cannot be used is one line and exit
2, before anything is graded, never a traceback.

The paths are the engine's: the small ``vectors`` test bundle (``tests/bundles``) is graded
here. Which assignment is chosen when none is named is the package's (H2, the one bundle it
holds), as is the list an unknown name is answered with.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys

import pytest

from autograder.integrations.gradescope import run
from autograder.spec import SpecError
from tests.bundles import students
from tests.support.h2 import SPEC

SECOND = students.assignment()  # vectors: 10 points, no evidence file
VECTORS = (SECOND.name, "--assignments", str(students.BUNDLES))  # run-autograder's naming of it


def parsed(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    run.add_arguments(parser)
    return parser.parse_args(list(argv))


def run_autograder(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "autograder", "run-autograder", *argv],
                          capture_output=True, text=True, timeout=300, check=False)


def test_a_results_folder_gets_results_json_inside(tmp_path):
    (tmp_path / "out").mkdir()
    args = parsed("--submission", str(tmp_path), "--results", str(tmp_path / "out"))
    run.resolve_paths(args, SECOND)
    assert args.results == tmp_path / "out" / "results.json"


def test_a_new_folder_given_with_a_slash_gets_results_json_inside(tmp_path):
    args = parsed("--submission", str(tmp_path), "--results", f"{tmp_path / 'new'}/")
    run.resolve_paths(args, SECOND)
    assert args.results == tmp_path / "new" / "results.json"


def test_a_results_file_is_used_as_it_is(tmp_path):
    args = parsed("--submission", str(tmp_path), "--results", str(tmp_path / "r" / "mine.json"))
    run.resolve_paths(args, SECOND)
    assert args.results == tmp_path / "r" / "mine.json"


def test_a_metadata_folder_is_read_inside(tmp_path):
    (tmp_path / "submission_metadata.json").write_text(json.dumps({"users": [{"sid": "s7"}]}))
    args = parsed("--submission", str(tmp_path), "--metadata", str(tmp_path))
    run.resolve_paths(args, SECOND)
    assert run.student_from_metadata(args.metadata) == "s7"


@pytest.mark.parametrize("case", ["no submission", "submission is a file",
                                  "results under a file", "no metadata"])
def test_an_unusable_path_is_one_line_before_grading(tmp_path, case):
    folder = tmp_path / "submission"
    folder.mkdir()
    (tmp_path / "a-file").write_text("x")
    argv = {
        "no submission": ["--submission", str(tmp_path / "missing")],
        "submission is a file": ["--submission", str(tmp_path / "a-file")],
        "results under a file": ["--submission", str(folder),
                                 "--results", str(tmp_path / "a-file" / "results.json")],
        "no metadata": ["--submission", str(folder), "--metadata", str(tmp_path / "none.json")],
    }[case]
    if "--results" not in argv:
        argv += ["--results", str(tmp_path / "out")]
    done = run_autograder(*VECTORS, *argv)
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("error: --") and done.stderr.count("\n") == 1, done.stderr
    assert "Traceback" not in done.stderr and not (tmp_path / "out").exists()


@pytest.mark.slow
def test_results_and_metadata_folders_as_gradescope_lays_them_out(tmp_path):
    folder = students.write_submission(tmp_path / "course" / "submitted" / "s042" / SECOND.name)
    results_dir = tmp_path / "results"
    results_dir.mkdir()
    (tmp_path / "submission_metadata.json").write_text(json.dumps({"users": [{"sid": "s042"}]}))
    done = run_autograder(*VECTORS, "--submission", str(folder), "--results", str(results_dir),
                          "--metadata", str(tmp_path))
    assert done.returncode == 0, done.stderr[-2000:]
    data = json.loads((results_dir / "results.json").read_text())
    assert data["extra_data"]["student"] == "s042"
    assert data["score"] == data["max_score"] == SECOND.total_points
    assert (results_dir / "feedback.html").is_file()
    assert str(results_dir / "results.json") in done.stdout
    assert SECOND.name in data["extra_data"]["assignment"]


# ------------------------------------------------------------------ which assignment


def test_the_assignment_comes_from_the_name_then_the_config_then_the_one_there_is(tmp_path):
    assert run.chosen_assignment(parsed()) is SPEC  # the package holds one bundle
    config = tmp_path / "source" / run.CONFIG_JSON
    (tmp_path / "source" / "assignments").mkdir(parents=True)
    shutil.copytree(students.BUNDLES / students.NAME,
                    tmp_path / "source" / "assignments" / students.NAME)
    config.write_text(json.dumps({"assignment": students.NAME, "assignments": ["assignments"]}))
    chosen = run.chosen_assignment(parsed("--config", str(config)))
    assert chosen.name == students.NAME
    assert chosen.root == tmp_path / "source" / "assignments" / students.NAME
    named = run.chosen_assignment(parsed(SPEC.name, "--config", str(config)))
    assert named is SPEC  # a name given wins over the zip's


@pytest.mark.parametrize("text", ["{", '{"name": "x"}', '{"assignment": 3}', "[]"])
def test_a_config_that_is_not_the_zips_is_one_line(tmp_path, text):
    config = tmp_path / run.CONFIG_JSON
    config.write_text(text)
    with pytest.raises(SpecError, match="gradescope build"):
        run.chosen_assignment(parsed("--config", str(config)))
    done = run_autograder("--config", str(config), "--submission", str(tmp_path))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert done.stderr.startswith(f"error: --config {config}:")


def test_an_unknown_assignment_is_one_line_naming_those_there_are(tmp_path):
    done = run_autograder("no_such_assignment", "--submission", str(tmp_path))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert SPEC.name in done.stderr and "no_such_assignment" in done.stderr
