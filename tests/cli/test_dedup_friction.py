"""``neardup dedup`` as a data engineer meets it: skipped inputs summed up per reason (not a
line per file), and output paths that cannot be written refused before any input is read."""

from __future__ import annotations

import gc
import json
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from neardup.cli.dedup_output import skipped_lines
from neardup.cli.main import app
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


def _toml(value: object) -> str:
    """``value`` (str, bool, int, float, list) as a TOML value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, float):
        return {"inf": "inf", "-inf": "-inf", "nan": "nan"}.get(repr(value), repr(value))
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return str(value)


def test_config_values_of_any_type_are_usage_errors_not_tracebacks(tmp_path: Path) -> None:
    # issue 41, item 24: kept = 5, jobs = 1e20, jobs = 10**20 and deep nesting ended in
    # tracebacks (TypeError, OverflowError, RecursionError)
    cases = {
        "kept = 5": "'--kept': Input should be a path (a string), not 5 (int)",
        "jobs = 1e20": "'--jobs' / '-j': Input should be a valid integer, not 1e+20 (float)",
        "jobs = 99999999999999999999": "not 99999999999999999999 (int)",
        "method = [1, 2]": "'--method' / '-m': Input should be a valid string, not [1, 2]",
        "threshold = " + "[" * 2000 + "]" * 2000: "nested too deep",
        "out = " + "[" * 2000 + "]" * 2000: "nested too deep",
    }
    config = tmp_path / "run.toml"
    for line, message in cases.items():
        config.write_text(line + "\n", encoding="utf-8")
        # garbage of earlier tests on this worker (a psycopg connection left open) collected
        # here, not at the parser's depth: a ResourceWarning formatted there failed this
        # test with a RecursionError (1 full run in 3, 2026-12-03)
        gc.collect()
        res = runner.invoke(app, ["dedup", str(CORPUS), "--config", str(config), "-q"])
        assert res.exit_code == 2, (line, res.output)
        assert message in " ".join(res.stderr.split()), (line, res.stderr)


def test_an_empty_out_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # --out "" (or out = "" in --config) wrote pairs.jsonl... into the working folder
    monkeypatch.chdir(tmp_path)
    res = runner.invoke(app, ["dedup", str(CORPUS / "chekhov"), "--out", "", "-q"])
    assert res.exit_code == 2, res.output
    assert "--out='' is not allowed: a directory path (not empty)" in res.stderr
    assert list(tmp_path.iterdir()) == []


def test_integer_options_out_of_range_are_usage_errors() -> None:
    # issue 41, item 24: --jobs 99999999999999999999 (and 3e9: the pool's C int) tracebacks
    for jobs in ("99999999999999999999", "-99999999999999999999"):
        res = runner.invoke(app, ["dedup", str(CORPUS), "--jobs", jobs, "-q"])
        assert res.exit_code == 2, res.output
        message = " ".join(res.stderr.split())
        assert "Invalid value for '--jobs'" in message
        assert f"Input should be an integer from {-(2**63)} to {2**63 - 1}, not {jobs}" in message
    res = runner.invoke(app, ["dedup", str(CORPUS), "--jobs", "3000000000", "-q"])
    assert res.exit_code == 2, res.output
    assert "jobs=3000000000 is not allowed: an integer in [1, 4096]" in res.stderr
    res = runner.invoke(app, ["dedup", str(CORPUS), "--top", str(2**70), "-q"])
    assert res.exit_code == 2 and "'--top'" in res.stderr


_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(alphabet="ab*-./:", max_size=6),
    lambda inner: st.lists(inner, max_size=3),
    max_leaves=6,
).filter(lambda v: v is not None)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(key=st.sampled_from(["jobs", "top", "kept", "out", "threshold", "min-tokens", "include",
                            "limit", "memory-mib", "method", "inputs", "max-bytes", "mark"]),
       value=_VALUES)  # fmt: skip
@example(key="kept", value=5)
@example(key="jobs", value=10**20)
@example(key="include", value=[[["*.txt"]]])
def test_any_config_value_ends_in_an_exit_code(key: str, value: object) -> None:
    # the job runs (no --dry-run) on one short text, in a folder of its own
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        story = Path(folder) / "story.txt"
        story.write_text("the old doctor walked slowly along the river bank", encoding="utf-8")
        config = Path(folder) / "run.toml"
        config.write_text(f"{key} = {_toml(value)}\n", encoding="utf-8")
        here = os.getcwd()
        os.chdir(folder)  # an output named by a relative path lands in the temporary folder
        try:
            res = runner.invoke(app, ["dedup", str(story), "--config", str(config), "-q"])
        finally:
            os.chdir(here)
    assert res.exit_code in (0, 1, 2), (key, value, res.output)
    assert res.exception is None or isinstance(res.exception, SystemExit), (key, value)


def test_config_paths_are_relative_to_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 41, item 15: a run.toml beside its data read the paths from the working folder
    folder = _shards(tmp_path)
    (folder / "sub").mkdir()
    config = folder / "sub" / "run.toml"
    config.write_text(
        'inputs = ["../shard*.jsonl", "-"]\nkept = "kept.jsonl"\nout = "out"\n'
        'against = ["../shard0.jsonl"]\nstop-words = "snowball"\ninclude = "*.jsonl"\n',
        encoding="utf-8",
    )
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    res = _run("dedup", "--config", str(config), "--dry-run", "--json")
    assert res.exit_code == 0, res.output
    plan = json.loads(res.stdout)
    sub = folder / "sub"
    assert [row["input"] for row in plan["inputs"]] == [str(folder / "shard*.jsonl"), "-"]
    assert plan["inputs"][0]["files"] == 3
    assert plan["outputs"] == {"out": str(sub / "out"), "kept": str(sub / "kept.jsonl"),
                               "removed": None}  # fmt: skip
    assert plan["against"] == [str(folder / "shard0.jsonl")]
