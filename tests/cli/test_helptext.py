"""Every command's help reads as a command-line tool's: ``--method METHOD``, ``INPUTS...``,
never Typer's Python types (``<str>``, ``<list[str]>``) or braces (``{inputs}``)."""

from __future__ import annotations

import re

from neardup.cli.helptext import placeholder
from neardup.cli.reference import commands, help_text


def test_placeholders_by_type_and_name() -> None:
    assert placeholder("str", "--id-field") == "ID_FIELD"
    assert placeholder("list[str]", "--param") == "PARAM"
    assert placeholder("int", "--jobs") == "INTEGER"
    assert placeholder("float", "--threshold") == "FLOAT"
    assert placeholder("path", "--kept") == "PATH"
    assert placeholder("own|verified", "--decision") == "[own|verified]"


def test_no_command_help_shows_python_types_or_braces() -> None:
    raw = re.compile(r"<(?:str|int|float|path|bool|list\[[^\]]*\])>|\{[a-z_]+\}")
    for path in commands():
        text = help_text(path)
        assert not raw.search(text), (path, raw.search(text))
    usage = help_text(("dedup",)).splitlines()[0]
    assert usage == "Usage: neardup dedup [OPTIONS] INPUTS..."
