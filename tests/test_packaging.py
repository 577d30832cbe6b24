"""The distributions, built as a release builds them, and the sdist's tests run.

``python -m build`` makes the sdist from a copy of this tree, then the
wheel from that sdist (in isolated environments: setuptools comes from the
package index, as for anyone building the sdist), and ``twine check
--strict`` reads both.  The sdist must hold every file git tracks; the
wheel, ``py.typed`` and the license.  Then the unpacked sdist's own tests
(the fixtures, the generated docs, the README's snippets and links, the
pre-commit module, which must skip there for want of git) run in a fresh
virtual environment holding the wheel and its ``test`` extra, with the
sdist's ``idemlint/`` removed so that nothing can import the package from
anywhere but the wheel.
"""

from __future__ import annotations

import email
import os
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from typing import Dict, List, NamedTuple

import pytest

import idemlint
from idemlint.urls import PROJECT_URLS

ROOT = pathlib.Path(__file__).resolve().parent.parent
NAME = f"idemlint-{idemlint.__version__}"
# Files of the tree that building it or working in it leaves, not sources.
LEFT_BY_WORK = shutil.ignore_patterns("__pycache__", "*.py[cod]", ".hypothesis", ".pytest_cache")
LEFT_AT_THE_TOP = {".git", "build", "dist", ".idemlint_cache", ".mypy_cache", f"{idemlint.__name__}.egg-info"}
# What the sdist's tests read besides the package (grep tests/ for ROOT).
NEEDED_BY_THE_TESTS = [
    "pyproject.toml", "README.md", "CHANGELOG.md", "LICENSE", "Makefile", ".pre-commit-hooks.yaml",
    "tests/conftest.py", "tests/expectations.py", "tests/readme.py", "tests/data/sarif-schema-2.1.0.json",
    "tests/fixtures/clean", "tests/fixtures/hostile", "tests/projects/shop", "tests/fixes",
    "docs/rules/IDM001.md", "docs/catalogue.md", "examples/shop", "bench/performance.py",
]
# Run from the unpacked sdist: quick, and between them they read every kind
# of file the sdist holds for the tests.
SDIST_TESTS = [
    "tests/test_fixtures.py", "tests/test_docs.py", "tests/test_readme_integrations.py",
    "tests/test_urls.py", "tests/test_changelog.py", "tests/test_precommit.py",
]

pytestmark = pytest.mark.slow


class Dists(NamedTuple):
    sdist: pathlib.Path
    wheel: pathlib.Path
    work: pathlib.Path


def run(command: List[str], cwd: pathlib.Path, timeout: int = 600, **kwargs: object) -> subprocess.CompletedProcess:
    completed = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, **kwargs)
    assert completed.returncode == 0, f"{command}:\n{completed.stdout}\n{completed.stderr}"
    return completed


def ignored(directory: str, names: List[str]) -> List[str]:
    top = pathlib.Path(directory) == ROOT
    return [
        name
        for name in names
        if name in LEFT_BY_WORK(directory, names) or (top and (name in LEFT_AT_THE_TOP or name.startswith(".venv")))
    ]


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> Dists:
    work = tmp_path_factory.mktemp("packaging")
    # A copy: building in the checkout would leave idemlint.egg-info there,
    # whose SOURCES.txt later sdists would add to whatever MANIFEST.in says.
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=ignored, symlinks=True)
    run([sys.executable, "-m", "build", "--outdir", str(work / "dist"), str(source)], cwd=work)
    [sdist] = (work / "dist").glob("*.tar.gz")
    [wheel] = (work / "dist").glob("*.whl")
    assert sdist.name == f"{NAME}.tar.gz" and wheel.name == f"{NAME}-py3-none-any.whl"
    return Dists(sdist, wheel, work)


def test_twine_check_passes_on_both(dists: Dists) -> None:
    completed = run([sys.executable, "-m", "twine", "check", "--strict", str(dists.sdist), str(dists.wheel)], cwd=dists.work)
    assert completed.stdout.count("PASSED") == 2, completed.stdout


def test_the_wheel_holds_the_package_its_types_and_its_license(dists: Dists) -> None:
    with zipfile.ZipFile(dists.wheel) as wheel:
        names = set(wheel.namelist())
        metadata = email.message_from_bytes(wheel.read(f"{NAME}.dist-info/METADATA"))
    assert {"idemlint/__init__.py", "idemlint/py.typed", "idemlint/rules/__init__.py", "idemlint/report/sarif.py"} <= names
    assert f"{NAME}.dist-info/licenses/LICENSE" in names
    assert {name.split("/")[0] for name in names} == {"idemlint", f"{NAME}.dist-info"}  # no tests, docs or bench
    assert metadata["License-Expression"] == "MIT" and metadata.get_all("License-File") == ["LICENSE"]
    assert metadata["License"] is None  # the expression replaces the old free-text field
    urls: Dict[str, str] = dict(line.split(", ", 1) for line in metadata.get_all("Project-URL"))
    assert urls == PROJECT_URLS
    assert "Typing :: Typed" in metadata.get_all("Classifier")
    assert metadata["Description-Content-Type"] == "text/markdown"


def test_the_sdist_holds_what_the_tests_read(dists: Dists) -> None:
    with tarfile.open(dists.sdist) as sdist:
        members = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    for needed in NEEDED_BY_THE_TESTS:
        assert needed in members, f"the sdist lacks {needed}"
    assert not any("__pycache__" in name or name.endswith(".pyc") for name in members)
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True, text=True)
    if listed.returncode != 0:
        pytest.skip("not a git work tree: which files are sources is not known here")
    tracked = {name for name in listed.stdout.split("\0") if name and (ROOT / name).exists()}
    assert sorted(tracked - members) == [], "MANIFEST.in leaves tracked files out of the sdist"


def test_the_sdist_tests_run_against_the_wheel(dists: Dists) -> None:
    unpacked = dists.work / "unpacked"
    with tarfile.open(dists.sdist) as sdist:
        if hasattr(tarfile, "data_filter"):  # Python 3.12, and security releases of 3.9 to 3.11
            sdist.extractall(unpacked, filter="data")
        else:
            sdist.extractall(unpacked)  # our own archive, just built
    tree = unpacked / NAME
    shutil.rmtree(tree / "idemlint")
    venv = dists.work / "venv"
    run([sys.executable, "-m", "venv", str(venv)], cwd=dists.work)
    python = venv / "bin" / "python"
    run([str(python), "-m", "pip", "install", "--quiet", f"{dists.wheel}[test]"], cwd=dists.work, timeout=900)
    where = run([str(python), "-c", "import idemlint; print(idemlint.__file__)"], cwd=dists.work)
    assert pathlib.Path(where.stdout.strip()).resolve().is_relative_to(venv.resolve()), where.stdout
    environment = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    completed = subprocess.run(
        [str(venv / "bin" / "pytest"), "-p", "no:cacheprovider", "-q", "-rs",
         "--basetemp", str(dists.work / "pytest"), *SDIST_TESTS],
        cwd=tree, capture_output=True, text=True, timeout=900, env=environment,
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output
    summary = output.strip().splitlines()[-1]
    passed = re.search(r"(\d+) passed", summary)
    assert passed and int(passed.group(1)) > 150 and "failed" not in summary and "error" not in summary, summary
    assert "an unpacked source distribution" in output  # test_precommit.py skipped, and said why
