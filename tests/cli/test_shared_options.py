"""The database, --json and read options are one definition (neardup.cli.shared_options) shared by
every command: the same flags, help, defaults and environment variable everywhere, and the
same reading behaviour in ``add`` and ``check``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer import _click as click  # typer's own click, the one get_command builds
from typer.core import TyperOption
from typer.testing import CliRunner

from neardup.cli.main import app
from neardup.cli.shared_options import MAX_BYTES, read_options

runner = CliRunner()
CORPUS = Path(__file__).resolve().parents[2] / "examples" / "corpus"


def _commands() -> dict[str, click.Command]:
    """Every leaf command by its full name (``collection add``, ``check``...)."""
    out: dict[str, click.Command] = {}

    def walk(cmd: click.Command, prefix: str) -> None:
        if hasattr(cmd, "commands"):
            for name, sub in cmd.commands.items():
                walk(sub, f"{prefix} {name}".strip())
        else:
            out[prefix] = cmd

    walk(typer.main.get_command(app), "")
    return out


def _option(cmd: click.Command, flag: str) -> TyperOption | None:
    return next((p for p in cmd.params if isinstance(p, TyperOption) and flag in p.opts), None)


def _signature(opt: TyperOption | None) -> tuple[object, ...]:
    assert opt is not None
    return (tuple(opt.opts), opt.help, opt.default, opt.envvar)


def test_db_option_is_one_definition() -> None:
    with_db = {name: _option(cmd, "--db") for name, cmd in _commands().items()}
    with_db = {name: opt for name, opt in with_db.items() if opt is not None}
    expected = {"add", "check", "remove", "collection add", "collection check", "serve", "crawl"}
    assert expected <= set(with_db)
    assert {_signature(opt) for opt in with_db.values()} == {
        (("--db",), "Database URL (sqlite:///FILE, postgresql://...).", None, "NEARDUP_DB")
    }


@pytest.mark.parametrize("flag", ["--id-field", "--text-field", "--content-type", "--max-bytes"])
def test_read_options_are_one_definition(flag: str) -> None:
    readers = ["add", "check", "collection add", "collection check", "dedup"]
    commands = _commands()
    found = {_signature(_option(commands[name], flag)) for name in readers}
    assert len(found) == 1, found
    if flag == "--max-bytes":
        assert next(iter(found))[2] == MAX_BYTES == 20_000_000


def test_json_option_is_one_definition() -> None:
    commands = _commands()
    names = ["methods", "collection list", "collection stats", "collection add", "add"]
    assert len({_signature(_option(commands[n], "--json")) for n in names}) == 1


def test_read_options_mapping() -> None:
    assert read_options(id_field="key", text_field="body", content_type="text") == {
        "id_field": "key",
        "text_field": "body",
        "content_type": "text",
    }
    assert (
        read_options(id_field="id", text_field="t", content_type="auto", max_bytes=9)["max_bytes"]
        == 9
    )


def test_add_and_check_read_records_alike(tmp_path: Path) -> None:
    """The same --id-field/--text-field: add stores the record under its id, and check then
    finds that very id for the same record."""
    vanka = (CORPUS / "chekhov" / "Ванька.txt").read_text(encoding="utf-8")
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps({"key": "vanka-1886", "body": vanka}, ensure_ascii=False) + "\n")
    db = ["--db", f"sqlite:///{tmp_path / 'c.db'}"]
    fields = ["--id-field", "key", "--text-field", "body"]
    assert runner.invoke(app, ["collection", "create", "s", *db]).exit_code == 0
    added = runner.invoke(app, ["add", "s", str(path), *fields, *db, "--json", "-q"])
    assert added.exit_code == 0 and json.loads(added.stdout)["added"] == 1
    checked = runner.invoke(app, ["check", "s", str(path), *fields, *db, "--json"])
    assert checked.exit_code == 1
    row = json.loads(checked.stdout)
    assert row["id"] == "vanka-1886" and row["matches"][0]["id"] == "vanka-1886"


class _Stop(Exception):
    """Raised by the recording stand-ins: the command has handed its method over."""


@pytest.mark.parametrize(
    "flags",
    [
        ["--method", "shingles-full", "--shingle-size", "4", "--morphology", "stem"],
        ["--preset", "zagorulko-2013", "--stop-symbols", ",;", "--param", "m=40"],
        ["--method", "tf-ridf", "--no-stop-words"],
        ["--preset", "rodnenko-2009", "--stop-words", "STOP"],
    ],
)
def test_dedup_and_compare_build_the_same_method_from_the_same_flags(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, flags: list[str]
) -> None:
    """``dedup`` and ``compare`` read --method, --preset, the canonical-form flags,
    --shingle-size and --param through one builder (``cli.common.method_choice``): the same
    flags hand the library the same method, parameters and canonical form."""
    from neardup.methods.registry import make_method

    stop = tmp_path / "stop.txt"
    stop.write_text("the\nof\nand\n", encoding="utf-8")
    flags = [str(stop) if f == "STOP" else f for f in flags]
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("The old house of the river stood by the mill and the bridge.\n", "utf-8")
    b.write_text("The old house of the river stood by the mill and the road.\n", "utf-8")
    seen: dict[str, tuple[str, dict[str, object]]] = {}

    def record(command: str):  # type: ignore[no-untyped-def]
        def stand_in(*args: object, method: str, **kwargs: object) -> None:
            keep = ("options", "read_options", "executor", "progress", "corpus")
            seen[command] = (method, {k: v for k, v in kwargs.items() if k not in keep})
            raise _Stop

        return stand_in

    monkeypatch.setattr("neardup.job.pipeline.dedup", record("dedup"))
    monkeypatch.setattr("neardup.job.compare.compare", record("compare"))
    for args in (["dedup", str(a), str(b), "-q"], ["compare", str(a), str(b)]):
        result = runner.invoke(app, [*args, *flags])
        assert isinstance(result.exception, _Stop), result.output
    assert seen["dedup"] == seen["compare"]
    method, params = seen["dedup"]
    meth = make_method(method, **params)
    canonical = meth.canonical
    if "--morphology" in flags:
        assert (method, params["shingle_size"], canonical.morphology) == (
            "shingles-full",
            4,
            "stem",
        )
    if "zagorulko-2013" in flags:
        assert method == "shingles-mod" and params["m"] == 40
        assert canonical.stop_symbols == ",;"
    if "--no-stop-words" in flags:
        assert method == "tf-ridf" and canonical.stop_words is False
    if str(stop) in flags:
        assert method == "shingles-dice" and canonical.stop_word_list is not None
        assert set(canonical.stop_word_list) == {"the", "of", "and"}


def test_a_conflict_in_the_shared_flags_exits_2_alike(tmp_path: Path) -> None:
    """--stop-words with --no-stop-words is refused by the one builder, for every command."""
    a = tmp_path / "a.txt"
    a.write_text("one two three four five six seven\n", encoding="utf-8")
    conflict = ["--stop-words", "snowball", "--no-stop-words"]
    for args in (["dedup", str(a)], ["compare", str(a), str(a)]):
        result = runner.invoke(app, [*args, *conflict])
        assert result.exit_code == 2 and "--no-stop-words" in result.output, result.output
