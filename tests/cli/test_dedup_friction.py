"""``neardup dedup`` as a data engineer meets it: skipped inputs summed up per reason (not a
line per file), and output paths that cannot be written refused before any input is read."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner, Result

from neardup.cli.main import app
from neardup.cli.results import skipped_lines
from neardup.text.types import Skipped, SkipReason

CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"
runner = CliRunner()


def _run(*args: str) -> Result:
    return runner.invoke(app, list(args), catch_exceptions=False)


def _skip(id_: str, reason: SkipReason) -> Skipped:
    return Skipped(id=id_, source=id_, reason=reason, detail="")


def test_skipped_lines_count_each_reason_with_examples() -> None:
    skipped = [_skip(f"b{i}.bin", "binary") for i in range(5)] + [_skip("e.txt", "empty")]
    assert skipped_lines(skipped, "out", examples=2) == [
        "skipped 6 input(s):",
        "  binary: 5 (e.g. b0.bin, b1.bin, ...)",
        "  empty: 1 (e.g. e.txt)",
        "  every skipped input with its reason: out/skipped.jsonl",
    ]
    assert skipped_lines([], None) == []


def test_many_skipped_files_give_a_few_lines_not_one_each(tmp_path: Path) -> None:
    for i in range(40):
        (tmp_path / f"empty{i:02}.txt").write_text("")
    (tmp_path / "a.txt").write_text("one two three four five six seven eight nine ten")
    res = _run("dedup", str(tmp_path), "-q")
    assert res.exit_code == 0, res.output
    lines = [x for x in res.stderr.splitlines() if x.strip()]
    assert "skipped 40 input(s):" in lines
    assert any(x.strip().startswith("empty: 40 (e.g. empty00.txt") for x in lines)
    assert sum("empty" in x for x in lines) <= 2  # not one line per file


def test_out_path_that_is_a_file_is_refused_before_reading(tmp_path: Path) -> None:
    blocker = tmp_path / "out"
    blocker.write_text("a file")
    res = _run("dedup", str(tmp_path / "missing-input"), "--out", str(blocker))
    assert res.exit_code == 2
    assert "--out" in res.stderr and "a file of that name exists" in res.stderr
    assert "Traceback" not in res.output


def test_kept_in_a_missing_folder_is_refused_before_reading(tmp_path: Path) -> None:
    res = _run("dedup", str(CORPUS), "-q", "--kept", str(tmp_path / "nowhere" / "k.jsonl"))
    assert res.exit_code == 2
    assert "--kept" in res.stderr and "nowhere" in res.stderr
    assert "documents" not in res.stdout  # refused before the job ran


def test_kept_that_is_a_directory_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "removed.jsonl"
    folder.mkdir()
    res = _run("dedup", str(CORPUS), "-q", "--removed", str(folder))
    assert res.exit_code == 2
    assert "--removed" in res.stderr and "not a directory" in res.stderr


def test_config_file_gives_options_and_the_command_line_wins(tmp_path: Path) -> None:
    config = tmp_path / "run.toml"
    config.write_text(
        f'inputs = ["{CORPUS}"]\nmethod = "minhash-lsh"\nthreshold = 0.7\n'
        'param = ["num_perm=64"]\nmin-tokens = 5\n\n[compare]\nmethod = "simhash"\n',
        encoding="utf-8",
    )
    res = _run("dedup", "--config", str(config), "--dry-run", "--json", "-t", "0.9")
    assert res.exit_code == 0, res.output
    plan = json.loads(res.stdout)
    assert plan["method"] == "minhash-lsh" and plan["params"] == {"num_perm": 64}
    assert plan["options"]["threshold"] == 0.9  # the command line wins
    assert plan["options"]["min_tokens"] == 5
    files = [p for p in CORPUS.rglob("*") if p.is_file()]
    size = sum(p.stat().st_size for p in files)
    assert plan["inputs"] == [{"input": str(CORPUS), "files": len(files), "bytes": size}]


def test_config_file_with_an_unknown_option_is_a_usage_error(tmp_path: Path) -> None:
    config = tmp_path / "run.toml"
    config.write_text("thresh = 0.7\n", encoding="utf-8")
    res = _run("dedup", "x", "--config", str(config))
    assert res.exit_code == 2
    assert "unknown option 'thresh'" in res.output and "threshold" in res.output


def test_dry_run_reads_and_writes_nothing(tmp_path: Path) -> None:
    out = tmp_path / "out"
    res = _run("dedup", str(CORPUS), "--out", str(out), "--dry-run")
    assert res.exit_code == 0, res.output
    files = sum(1 for p in CORPUS.rglob("*") if p.is_file())
    assert "nothing is read or written" in res.stdout and f"{files} file(s)" in res.stdout
    assert not out.exists()


def test_dry_run_refuses_a_missing_input(tmp_path: Path) -> None:
    # issue 41, item 8: the plan said "missing" and exited 0; the run exits 1
    missing = tmp_path / "no-such-folder"
    res = _run("dedup", str(CORPUS), str(missing), "--dry-run")
    assert res.exit_code == 1, res.output
    assert f"input '{missing}' does not exist" in " ".join(res.stderr.split())
    assert "nothing is read or written" not in res.stdout


def test_dry_run_counts_the_files_include_selects() -> None:
    # issue 41, item 8: --include was ignored in the count (36 files, not the 20 .txt)
    txt = [p for p in CORPUS.rglob("*.txt") if p.is_file()]
    res = _run("dedup", str(CORPUS), "--include", "*.txt", "--dry-run", "--json")
    assert res.exit_code == 0, res.output
    size = sum(p.stat().st_size for p in txt)
    assert json.loads(res.stdout)["inputs"] == [
        {"input": str(CORPUS), "files": len(txt), "bytes": size}
    ]
    res = _run(
        "dedup", str(CORPUS), "--exclude", "*.txt", "--no-recursive", "--dry-run", "-f", "json"
    )
    assert json.loads(res.stdout)["inputs"][0]["files"] == 0  # the corpus root holds folders only


def _shards(tmp_path: Path) -> Path:
    """Three JSONL shards of Chekhov's stories whose ids restart (0, 1 in each)."""
    stories = sorted((CORPUS / "chekhov").glob("*.txt"))[:6]
    folder = tmp_path / "shards"
    folder.mkdir()
    for k in range(3):
        rows = [{"id": i, "text": stories[2 * k + i].read_text("utf-8")} for i in range(2)]
        body = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
        (folder / f"shard{k}.jsonl").write_text(body, encoding="utf-8")
    return folder


def test_a_quoted_glob_reads_what_the_shell_would_expand(tmp_path: Path) -> None:
    # issue 41, item 9: 'shard*.jsonl' (quoted) got "input does not exist" and no hint
    folder = _shards(tmp_path)
    listed = [str(p) for p in sorted(folder.glob("shard*.jsonl"))]
    expanded = _run("dedup", *listed, "-f", "json")
    quoted = _run("dedup", str(folder / "shard*.jsonl"), "-f", "json")
    assert quoted.exit_code == expanded.exit_code == 0, quoted.output
    assert json.loads(quoted.stdout)["summary"]["documents"] == 6
    assert json.loads(quoted.stdout)["pairs"] == json.loads(expanded.stdout)["pairs"]
    kept = tmp_path / "kept.jsonl"  # the records are read again through the pattern
    res = _run("dedup", str(folder / "shard[01].jsonl"), "-q", "--kept", str(kept))
    assert res.exit_code == 0, res.output
    assert len(kept.read_text("utf-8").splitlines()) == 4
    plan = _run("dedup", str(folder / "shard*.jsonl"), "--dry-run", "--json")
    assert json.loads(plan.stdout)["inputs"][0]["files"] == 3


def test_a_glob_matching_nothing_says_so(tmp_path: Path) -> None:
    folder = _shards(tmp_path)
    res = _run("dedup", str(folder / "part*.jsonl"), "-q")
    assert res.exit_code == 1
    message = " ".join(res.stderr.split())
    assert "does not exist, and no path matches it as a glob pattern" in message
    assert "the shell left alone" in message
    plain = _run("dedup", str(folder / "part0.jsonl"), "-q")
    assert plain.exit_code == 1 and "glob pattern" not in plain.stderr
