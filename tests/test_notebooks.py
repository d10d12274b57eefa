"""The notebooks in notebooks/ run top to bottom (executed with nbclient, not just stored).

Each notebook asserts its own answers (revenues, validator agreement); here a failing cell fails
the test with the cell's error. The corpus tour also runs once without the corpus, to show it
skips gracefully.
"""

from __future__ import annotations

import nbformat
import pytest
from conftest import REPO_ROOT, corpus_missing
from nbclient import NotebookClient

NOTEBOOKS = REPO_ROOT / "notebooks"


def execute(name: str) -> nbformat.NotebookNode:
    path = NOTEBOOKS / name
    book = nbformat.read(path, as_version=4)
    NotebookClient(book, timeout=300, kernel_name="python3",
                   resources={"metadata": {"path": str(NOTEBOOKS)}}).execute()
    return book


def outputs(book: nbformat.NotebookNode) -> str:
    text = []
    for cell in book.cells:
        for out in cell.get("outputs", ()):
            text.append(out.get("text", ""))
            text.extend(str(v) for k, v in out.get("data", {}).items() if k == "text/plain")
    return "\n".join(text)


def has_picture(book: nbformat.NotebookNode, mime: str) -> bool:
    return any(mime in out.get("data", {}) for cell in book.cells for out in cell.get("outputs", ()))


def test_notebooks_are_stored_without_outputs():
    for path in sorted(NOTEBOOKS.glob("*.ipynb")):
        book = nbformat.read(path, as_version=4)
        nbformat.validate(book)
        assert all(not c.get("outputs") for c in book.cells if c.cell_type == "code"), path.name


def test_quick_start():
    book = execute("quick-start.ipynb")
    text = outputs(book)
    assert "total 480" in text and "validator agrees: 480" in text
    assert has_picture(book, "image/svg+xml")


def test_corpus_tour():
    book = execute("corpus-tour.ipynb")
    text = outputs(book)
    if corpus_missing():
        assert "not found" in text
    else:
        assert "positions solved" in text and has_picture(book, "image/png")


def test_corpus_tour_without_corpus(monkeypatch, tmp_path):
    monkeypatch.setenv("HEXRAIL_CORPUS", str(tmp_path / "nowhere"))
    text = outputs(execute("corpus-tour.ipynb"))
    assert "not found" in text and "no corpus: no plots" in text


def test_benchmark():
    book = execute("benchmark.ipynb")
    text = outputs(book)
    assert "cold start" in text and "demo, median" in text
    if not corpus_missing():
        assert "corpus positions" in text and has_picture(book, "image/png")


@pytest.mark.parametrize("path", sorted(NOTEBOOKS.glob("*.ipynb")), ids=lambda p: p.stem)
def test_every_notebook_is_tested(path):
    assert path.name in {"quick-start.ipynb", "corpus-tour.ipynb", "benchmark.ipynb"}
