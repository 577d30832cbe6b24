"""Every location idemlint names is built from the one setting, ``idemlint.urls``.

pyproject's ``[project.urls]``, the README (PyPI's description of the
package, read without the repository's files beside it), the other
Markdown files and the reports' links must agree with ``REPOSITORY``; a link
to a file of the repository must name a file that exists, and a link to a
README heading a heading that exists.  Whether ``REPOSITORY`` itself is
reachable is not something a test without a network can tell.
"""

from __future__ import annotations

import json
import pathlib
import re
import sys
from typing import Iterator, List, Set

import pytest
from conftest import RunCli
from readme import README, ROOT

from idemlint.report.meta import UNUSED_NOQA
from idemlint.rules import RULES
from idemlint.urls import PROJECT_URLS, REPOSITORY, file_url, rule_url

if sys.version_info >= (3, 11):
    import tomllib
else:
    import tomli as tomllib

URL = re.compile(r"""[a-z][a-z0-9+.-]*://[^\s<>()\[\]"'`]+""", re.I)
# A Markdown link's target: [text](target) or a [label]: target definition.
LINK = re.compile(r"\]\(\s*<?([^\s)>]+)|^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
HTML_LINK = re.compile(r"""\b(?:href|src)\s*=\s*["']([^"']+)""", re.I)
MARKDOWN = sorted(
    path
    for path in (ROOT / "README.md", ROOT / "CHANGELOG.md", *(ROOT / "docs").rglob("*.md"), ROOT / "examples" / "README.md")
    if path.is_file()
)


def without_blocks(markdown: str) -> str:
    return re.sub(r"^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$", "", markdown, flags=re.M | re.S)


def prose(markdown: str) -> str:
    """The Markdown without its fenced blocks and code spans: where links are."""
    return re.sub(r"(`+)(?!`).*?(?<!`)\1(?!`)", "", without_blocks(markdown), flags=re.S)


def link_targets(markdown: str) -> List[str]:
    text = prose(markdown)
    return [a or b for a, b in LINK.findall(text)] + HTML_LINK.findall(text)


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def headings(markdown: str) -> Set[str]:
    return {slug(match) for match in re.findall(r"^#{1,6} (.+)$", without_blocks(markdown), re.M)}


def repository_file(url: str) -> Iterator[pathlib.Path]:
    """The file a URL under ``file_url`` names (none for other URLs)."""
    base = file_url("")
    if url.startswith(base):
        yield ROOT / url[len(base):].split("#")[0].split("?")[0]


def test_pyproject_urls_are_the_settings() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["urls"] == PROJECT_URLS, "pyproject.toml's [project.urls] must spell out idemlint.urls.PROJECT_URLS"


def test_project_and_report_urls_name_files_that_exist() -> None:
    urls = [*PROJECT_URLS.values(), UNUSED_NOQA.help_url, *(rule_url(rule.code) for rule in RULES)]
    assert all(url == REPOSITORY or url.startswith(REPOSITORY + "/") for url in urls)
    for url in urls:
        for path in repository_file(url):
            assert path.is_file(), f"{url} names {path.relative_to(ROOT)}, which does not exist"
    page, _, anchor = UNUSED_NOQA.help_url.partition("#")
    assert page == file_url("README.md") and anchor in headings(README)


def test_links_are_found_outside_code_only() -> None:
    text = (
        "See [a](docs/a.md), [b](#b) and <a href='c.html'>c</a>, not `x[k](v)`.\n\n"
        "```python\nHANDLERS[kind](order)\n```\n[d]: docs/d.md\n"
    )
    assert link_targets(text) == ["docs/a.md", "#b", "docs/d.md", "c.html"]
    assert headings("## Unused suppressions\n### The CLI: `check`\n") == {"unused-suppressions", "the-cli-check"}


def test_readme_has_no_relative_link() -> None:
    # PyPI shows the README without the repository: a relative link is broken there.
    relative = [t for t in link_targets(README) if not t.startswith("#") and not URL.match(t)]
    assert relative == [], f"README.md links {relative}: build them from {file_url('')}"


def test_readme_anchors_name_its_headings() -> None:
    anchors = {target[1:] for target in link_targets(README) if target.startswith("#")}
    assert anchors and anchors <= headings(README), sorted(anchors - headings(README))


@pytest.mark.parametrize("path", MARKDOWN, ids=lambda path: str(path.relative_to(ROOT)))
def test_markdown_names_the_repository_only_as_the_setting(path: pathlib.Path) -> None:
    text = path.read_text(encoding="utf-8")
    ours = [url.replace("git+", "", 1) for url in URL.findall(text) if "idemlint" in url.lower()]
    other = [url for url in ours if not re.match(re.escape(REPOSITORY) + r"(?:$|[/@#?]|\.git\b)", url)]
    assert other == [], f"{path.name} names {other}, not {REPOSITORY} (idemlint.urls)"
    for url in ours:
        for file in repository_file(url.rstrip(".,;:")):
            assert file.is_file(), f"{path.name} links {url}, and {file.relative_to(ROOT)} does not exist"


def test_readme_links_the_setting() -> None:
    assert rule_url("IDM001") in README and REPOSITORY in README


def test_reports_link_the_setting(tmp_path: pathlib.Path, run_cli: RunCli, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "tasks.py").write_text(
        "import requests\nfrom celery import shared_task\n\n@shared_task\ndef notify(order_id):\n"
        "    requests.post('https://partner.example/o', json={'id': order_id})  # noqa: IDM001\n"
    )
    monkeypatch.chdir(tmp_path)
    status, out, _ = run_cli("check", "--format", "sarif", "--show-unused-noqa", "--no-cache", "tasks.py")
    assert status == 1
    driver = json.loads(out)["runs"][0]["tool"]["driver"]
    assert driver["informationUri"] == REPOSITORY
    help_uris = {rule["id"]: rule["helpUri"] for rule in driver["rules"]}
    assert help_uris == {
        **{rule.code: rule_url(rule.code) for rule in RULES},
        UNUSED_NOQA.code: UNUSED_NOQA.help_url,
    }
    status, out, _ = run_cli("check", "--format", "rdjson", "--no-cache", "tasks.py")
    document = json.loads(out)
    assert document["source"]["url"] == REPOSITORY
    assert [d["code"]["url"] for d in document["diagnostics"]] == [rule_url("IDM002")]
