"""The command line: exit codes (0 ok, 1 nothing readable, 2 usage), JSON output, bad input."""

from __future__ import annotations

import gzip
import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from neardup.cli.main import app

runner = CliRunner()
STORY = (
    "Через базарную площадь идет полицейский надзиратель Очумелов в новой шинели и с узелком "
    "в руке. За ним шагает рыжий городовой с решетом, доверху наполненным конфискованным "
    "крыжовником. Кругом тишина... На площади ни души... Открытые двери лавок и кабаков "
    "глядят на свет божий уныло, как голодные пасти; около них нет даже нищих."
)


def _run(*args: str) -> Result:
    return runner.invoke(app, list(args), catch_exceptions=False)


def _bad_tree(root: Path) -> Path:
    root.mkdir()
    (root / "story.txt").write_text(STORY, encoding="utf-8")
    (root / "copy.txt.gz").write_bytes(gzip.compress(STORY.replace("новой", "старой").encode()))
    (root / "empty.txt").write_bytes(b"")
    (root / "binary.txt").write_bytes(bytes(range(256)) * 4)
    (root / "cp1251.txt").write_bytes(STORY.encode("cp1251"))
    (root / "broken.html").write_text("<html><body><p>" + STORY + "<div><p>unclosed", "utf-8")
    with (root / "huge.txt").open("wb") as fh:
        fh.truncate(50 * 1024 * 1024)
        fh.seek(0)
        fh.write(b"word " * 1000)
    return root


def test_dedup_bad_input_is_reported_and_the_job_goes_on(tmp_path: Path) -> None:
    root = _bad_tree(tmp_path / "in")
    out = tmp_path / "out"
    res = _run("dedup", str(root), "--out", str(out), "--json")
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)["summary"]
    assert summary["documents"] == 4  # story, copy.txt.gz, cp1251, broken.html
    assert summary["skipped_by_reason"] == {"binary": 1, "empty": 1, "oversize": 1}
    skipped = [json.loads(x) for x in (out / "skipped.jsonl").read_text().splitlines()]
    assert {s["id"] for s in skipped} == {"empty.txt", "binary.txt", "huge.txt"}
    pairs = [json.loads(x) for x in (out / "pairs.jsonl").read_text().splitlines()]
    ids = {frozenset((p["a"], p["b"])) for p in pairs}
    assert frozenset(("story.txt", "cp1251.txt")) in ids  # the cp1251 file decoded right
    assert frozenset(("story.txt", "copy.txt.gz")) in ids


def test_empty_directory_exits_1(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    res = _run("dedup", str(tmp_path / "empty"), "--quiet")
    assert res.exit_code == 1
    assert "no document" in res.stderr


def test_missing_input_exits_1(tmp_path: Path) -> None:
    res = _run("dedup", str(tmp_path / "nope"), "--quiet")
    assert res.exit_code == 1
    assert "nope" in res.stderr


@pytest.mark.parametrize(
    "args",
    [
        ["dedup", ".", "--frobnicate"],
        ["dedup", ".", "--threshold", "1.5"],
        ["dedup", ".", "--method", "nope"],
        ["dedup", ".", "--param", "bogus=1"],
        ["dedup", ".", "--keep", "random"],
        ["compare", "a"],
    ],
)
def test_usage_errors_exit_2(args: list[str]) -> None:
    res = _run(*args)
    assert res.exit_code == 2, res.output


def test_compare_json_gives_exact_values(tmp_path: Path) -> None:
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("Кот сидел на окне и смотрел на улицу.", encoding="utf-8")
    b.write_text("Кот сидел на окне и смотрел на улицу долго!", encoding="utf-8")
    res = _run("compare", str(a), str(b), "--shingle-size", "3", "--json")
    assert res.exit_code == 0
    row = json.loads(res.stdout)
    assert (row["shared"], row["size_a"], row["size_b"]) == (3, 3, 4)
    assert row["resemblance"] == 0.75 and row["containment_ab"] == 1.0


def test_methods_json_lists_parameters_and_sources() -> None:
    res = _run("methods", "--json")
    rows = {r["name"]: r for r in json.loads(res.stdout)}
    assert {"shingles-full", "shingles-mod", "shingles-min", "minhash-lsh"} <= set(rows)
    assert rows["shingles-mod"]["parameters"]["m"]["default"] == 25
    assert "Zagorulko et al. 2013" in rows["shingles-min"]["source"]


def test_version() -> None:
    res = _run("--version")
    assert res.exit_code == 0 and res.stdout.startswith("neardup ")


def test_compare_passages_select_the_quoted_paragraphs() -> None:
    corpus = Path(__file__).resolve().parents[2] / "examples" / "corpus"
    story = corpus / "chekhov" / "Смерть чиновника.txt"
    page = corpus / "web" / "zametki-chitatelya.html"
    res = _run("compare", str(story), str(page), "--passages", "--json")
    assert res.exit_code == 0, res.output
    passages = json.loads(res.stdout)["passages"]
    assert len(passages) == 1  # the two quoted paragraphs are adjacent in both texts
    text = story.read_text(encoding="utf-8")
    paragraphs = [p.strip() for p in text.splitlines() if p.strip()]
    start, end = passages[0]["a_start"], passages[0]["a_end"]
    assert start == text.index(paragraphs[2])
    found = re.search(r"\w(?=\W*$)", paragraphs[3])
    assert found is not None
    last_word_end = found.end()  # ...надо». -> надо
    assert end == text.index(paragraphs[3]) + last_word_end


def test_compare_passages_tiles_is_the_named_option_for_exact_tiles() -> None:
    """`compare --passages` reports align_passages' passages (seeds); `--tiles` the exact
    tiles of matched_passages (tokens); `--tiles` alone is a usage error."""
    corpus = Path(__file__).resolve().parents[2] / "examples" / "corpus"
    story = corpus / "chekhov" / "Смерть чиновника.txt"
    page = corpus / "web" / "zametki-chitatelya.html"
    aligned = json.loads(_run("compare", str(story), str(page), "--passages", "--json").stdout)
    tiles = _run("compare", str(story), str(page), "--passages", "--tiles", "--json")
    assert tiles.exit_code == 0, tiles.output
    assert all("seeds" in p and "tokens" not in p for p in aligned["passages"])
    assert tiles and all("tokens" in p for p in json.loads(tiles.stdout)["passages"])
    assert _run("compare", str(story), str(page), "--tiles").exit_code == 2


def test_engine_options_are_validated() -> None:
    assert _run("dedup", ".", "--engine", "spark").exit_code == 2
    assert _run("dedup", ".", "--workers", "2").exit_code == 2  # --workers needs --engine dask
    # --out is required with a scheduler (its workers write there), not with a LocalCluster
    assert _run("dedup", ".", "--engine", "dask", "--scheduler", "tcp://h:1").exit_code == 2


CHEKHOV = Path(__file__).resolve().parents[2] / "examples" / "corpus" / "chekhov"


def _one_line(text: str) -> str:
    return " ".join(text.split())


@pytest.mark.parametrize("method", ["tf-ridf", "imatch", "megashingles", "simhash"])
def test_threshold_a_method_does_not_use_warns(method: str) -> None:
    # issue 41, item 19: -t with a method whose own rule takes no threshold was silent
    res = runner.invoke(app, ["dedup", str(CHEKHOV), "-m", method, "-t", "0.8", "-q"])
    assert res.exit_code == 0, res.output
    warning = _one_line(res.stderr)
    assert f"warning: -t/--threshold 0.8 is not used: {method} decides by its own rule" in warning
    assert "--decision verified" in warning
    for quiet in (["-q"], ["-q", "-t", "0.8", "--decision", "verified"]):
        res = runner.invoke(app, ["dedup", str(CHEKHOV), "-m", method, *quiet])
        assert res.exit_code == 0 and "threshold" not in res.stderr, res.output
    res = runner.invoke(app, ["dedup", str(CHEKHOV), "-m", "minhash-lsh", "-t", "0.8", "-q"])
    assert "threshold" not in res.stderr  # a method that takes it


def test_threshold_warning_in_collection_create(tmp_path: Path) -> None:
    db = ["--db", f"sqlite:///{tmp_path / 'lib.db'}"]
    res = runner.invoke(app, ["collection", "create", "a", "-m", "tf-ridf", "-t", "0.7", *db])
    assert res.exit_code == 0, res.output
    assert "-t/--threshold 0.7 is not used: tf-ridf" in _one_line(res.stderr)
    res = runner.invoke(app, ["collection", "create", "b", "-m", "minhash-lsh", "-t", "0.7", *db])
    assert res.exit_code == 0 and "warning" not in res.stderr


def test_compare_of_a_lexical_method_without_corpus_warns() -> None:
    # issue 41, item 19: TF-RIDF's signature from the two texts' statistics alone, silently
    a, b = CHEKHOV / "Ванька.txt", CHEKHOV.parent / "web" / "vanka.html"
    res = runner.invoke(app, ["compare", str(a), str(b), "-m", "tf-ridf", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["method"] == "tf-ridf"
    assert "without --corpus they are those of A and B alone" in _one_line(res.stderr)
    res = runner.invoke(app, ["compare", str(a), str(b), "-m", "tf-ridf", "--corpus", str(CHEKHOV)])
    assert res.exit_code == 0 and "warning" not in res.stderr, res.output
    res = runner.invoke(app, ["compare", str(a), str(b), "-m", "shingles-full"])
    assert res.exit_code == 0 and "warning" not in res.stderr
