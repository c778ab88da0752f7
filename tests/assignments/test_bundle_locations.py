"""Where a bundle's source notebook, release and canonical schema are: the spec's ``source``
and ``release`` (relative to the bundle, by default its own ``source/`` and ``release/``) and
its ``data/`` copy of the schema, wherever the bundle lives. H2 names its checkout's folders;
a location that generating a release would wreck is refused in one line; the grading key does
not depend on where the folders are; the Gradescope zip leaves them out."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.assignments.bundle import open_bundle
from autograder.assignments.grading_key import grading_key
from autograder.integrations.gradescope.build import package_files
from autograder.spec import REPO, SPEC_FILE, SpecError, parse_spec
from tests.bundles.students import BUNDLES
from tests.support.cli import one_line_error
from tests.support.h2 import H2

MINIMAL = ('name = "tiny"\nnotebook = "tiny.ipynb"\ngrade_cell_prefix = "check_"\ntotal = 3\n'
           '{extra}\n[[parts]]\nname = "f"\nkind = "function"\npoints = 3\n')


def bundle_copy(tmp_path: Path, name: str = "averages", extra: str = "") -> Path:
    """A copy of a test bundle in ``tmp_path/bundles`` with ``extra`` lines atop its spec."""
    bundle = tmp_path / "bundles" / name
    shutil.copytree(BUNDLES / name, bundle, ignore=shutil.ignore_patterns("__pycache__"))
    spec = bundle / SPEC_FILE
    spec.write_text(extra + "\n" + spec.read_text(encoding="utf-8"), encoding="utf-8")
    return bundle


def opened(bundle: Path, *, package: str = "_locations_test"):
    return open_bundle(bundle, origin=str(bundle.parent), package=f"{package}_{bundle.name}")


def test_by_default_source_and_release_are_folders_of_the_bundle(tmp_path):
    spec = parse_spec(MINIMAL.format(extra=""))
    assert (spec.source, spec.release) == ("source", "release")
    bundle = bundle_copy(tmp_path)
    assignment = opened(bundle)
    assert assignment.source_dir == bundle.resolve() / "source"
    assert assignment.source_notebook.is_file()  # averages keeps its source notebook there
    assert assignment.release_dir == bundle.resolve() / "release"
    assert assignment.schema_path == bundle / "data" / "averages_evidence.schema.json"
    assert assignment.shipped_schema == bundle.resolve() / "source" / assignment.schema


def test_the_spec_names_them_relative_to_the_bundle(tmp_path):
    bundle = bundle_copy(tmp_path, extra='source = "../authored/averages"\n'
                                          'release = "../handed-out/averages"')
    assignment = opened(bundle, package="_locations_named")
    assert assignment.source_dir == (tmp_path / "bundles" / "authored" / "averages").resolve()
    assert assignment.release_dir == (tmp_path / "bundles" / "handed-out" / "averages").resolve()


def test_h2_names_its_checkouts_folders_and_its_schema_is_schemas_copy():
    assert H2.source_dir == REPO / "source" / H2.name
    assert H2.release_dir == REPO / "release" / H2.name
    assert H2.schema_path.parent == H2.root / "data"
    assert H2.schema_path.read_bytes() == (REPO / "schemas" / H2.schema).read_bytes()
    assert str(H2.source_dir) in H2.private_folders  # the solutions stay hidden from workers


@pytest.mark.parametrize(("extra", "complaint"), [
    ("source = 3", "source must be a folder's path relative to the bundle, got 3"),
    ('release = ""', "release must be a folder's path relative to the bundle"),
    ('release = "./"', "release = './' is the bundle's own folder"),
    ('source = "out"\nrelease = "./out"', "source and release are the same folder ('out')"),
])
def test_a_location_that_is_not_a_folder_of_its_own_is_refused(extra, complaint):
    with pytest.raises(SpecError, match=complaint.replace("(", r"\(").replace(")", r"\)")):
        parse_spec(MINIMAL.format(extra=extra))


@pytest.mark.parametrize(("release", "clash"), [
    ("..", "the bundle's own folder or one holding it"),
    ("data", "the bundle's data/ folder"),
    ("checks", "the bundle's checks/ folder"),
    ("source/out", "in or around the source folder"),
])
def test_a_release_folder_that_would_replace_the_bundles_files_is_refused(tmp_path, release,
                                                                          clash):
    bundle = bundle_copy(tmp_path, extra=f'release = "{release}"')
    with pytest.raises(SpecError) as refused:
        opened(bundle, package="_locations_clash")
    line = str(refused.value)
    assert line.startswith(f"the assignment spec {bundle / SPEC_FILE}: release = {release!r} is "
                           f"{clash}")
    assert "\n" not in line


def test_the_grading_key_does_not_depend_on_where_the_folders_are(tmp_path):
    plain = opened(bundle_copy(tmp_path / "a"), package="_locations_key_a")
    moved = opened(bundle_copy(tmp_path / "b", extra='source = "../src"\nrelease = "../out"'),
                   package="_locations_key_b")
    assert grading_key(plain) == grading_key(moved)


def test_the_gradescope_zip_leaves_the_source_and_the_release_out(tmp_path):
    bundle = bundle_copy(tmp_path)
    (bundle / "release").mkdir()
    (bundle / "release" / "averages.ipynb").write_text("{}")
    names = [name for _, name in package_files(opened(bundle, package="_locations_zip"))]
    assert "assignments/averages/assignment.toml" in names
    assert "assignments/averages/data/averages.ipynb" in names
    assert not [name for name in names if "/source/" in name or "/release/" in name]


def test_generate_release_refuses_a_folder_that_holds_something_else(tmp_path):
    bundle = bundle_copy(tmp_path)
    elsewhere = tmp_path / "notes"
    elsewhere.mkdir()
    (elsewhere / "todo.txt").write_text("keep me")
    done = subprocess.run([sys.executable, "-m", "autograder", "generate-release", "averages",
                           "--assignments", str(bundle.parent), "--out", str(elsewhere)],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False)
    assert one_line_error(done) == (
        f"error: cannot write the release into {elsewhere}: it holds other files and no "
        "averages.ipynb of an earlier release; name a folder of its own (--out DIR, or "
        '`release = "..."` in the bundle\'s spec)')
    assert (elsewhere / "todo.txt").read_text() == "keep me"
