"""``neardup evaluate``: methods x thresholds against a gold standard (issue 7).

Usage::

    neardup evaluate DOCS... --gold gold.jsonl [--methods a,b] [--thresholds 0.5:1.0:0.1]
        [--scope all|labelled] [--measure resemblance|containment] [--decision own|verified]
        [-w N] [--param [METHOD:]KEY=VALUE] [--html report.html] [--json]
    neardup evaluate --pairs DEDUP_OUT_DIR --gold gold.jsonl [--thresholds ...]
    neardup evaluate DOCS... --gold gold.jsonl --table2        # Zagorulko et al. 2013, Table 2
    neardup evaluate --table2 SET_DIR...   # Table 2 over several labelled sets, with the total
                                           # row (each SET_DIR has docs.jsonl and gold.jsonl)
    neardup evaluate --from-json saved.json --html report.html  # re-render, no runs
    neardup evaluate DOCS... --passages gold.jsonl [--json] [--html report.html]
        # text alignment: PAN's precision, recall, granularity, plagdet (issue 19)
    neardup evaluate --passages PAN_CORPUS_DIR [--jobs 2] [--json]
        # a PAN text-alignment corpus folder (pairs, susp/, src/, XML truth per type):
        # the same measures per obfuscation type and overall (issue 32)

Exit codes: 0 ok; 1 failure (unreadable gold, no document, every run failed, no matplotlib
for ``--html``); 2 usage error (bad ``--thresholds``, unknown method or parameter...).
"""

from __future__ import annotations

import dataclasses
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from neardup.cli.shared_options import (
    CONTENT_TYPE,
    ID_FIELD,
    MEASURE,
    MIN_TOKENS,
    TEXT_FIELD,
    ContentTypeOpt,
    DecisionOpt,
    IdFieldOpt,
    MeasureOpt,
    MinTokensOpt,
    NoStopOpt,
    PresetOpt,
    StopOpt,
    StopSymOpt,
    TextFieldOpt,
    check_fields,
)
from neardup.errors import InputError, NeardupError, ParameterError, UsageError, check_int

if TYPE_CHECKING:
    from rich.console import Console

_WIDE = 180
#: Skipped inputs and missing gold ids named on stderr (the rest are counted).
_SHOWN = 10


def _split_param(item: str) -> tuple[str | None, str, str]:
    """``[METHOD:]KEY=VALUE`` -> ``(method or None, normalized key, "KEY=VALUE")``."""
    head, sep, _ = item.partition("=")
    if not sep:
        raise ParameterError("--param", item, "[METHOD:]KEY=VALUE")
    method, colon, key = head.rpartition(":")
    body = item[len(method) + 1 :] if colon else item
    return (method.strip() or None) if colon else None, key.strip().replace("-", "_"), body


def collect_params(
    methods: tuple[str, ...],
    shingle_size: int | None,
    params: list[str] | None,
    stop_words: bool | tuple[str, ...] | None,
    morphology: str | None,
    stop_symbols: str | None = None,
    preset: str | None = None,
    *,
    defaults: dict[str, dict[str, Any]] | None = None,
) -> dict[str, dict[str, Any]]:
    """Per-method ``dedup`` parameters from the common options.

    ``--shingle-size`` and unscoped ``--param KEY=VALUE`` go to every method that has that
    parameter; ``--param METHOD:KEY=VALUE`` to that method only. ``stop_words`` and
    ``morphology`` replace those fields of each method's default canonical form (``None``:
    keep the method's default, e.g. SpotSigs keeps stop words, TF-RIDF stems; a tuple is a
    user's stop-word list); ``stop_symbols`` and ``preset`` as in
    :func:`neardup.cli.main.method_params`. ``defaults`` (Table 2's ``m``, ``n``, ``w``) come
    first, then the preset, then the options.

    Raises:
        ParameterError: a malformed ``--param``, a parameter no selected method has, or a
            scoped parameter for a method not selected.
    """
    from neardup.cli.common import method_params
    from neardup.methods.registry import method_class

    split = [_split_param(p) for p in params or []]
    used: set[int] = set()
    out: dict[str, dict[str, Any]] = {}
    for m in methods:
        fields = {f.name for f in dataclasses.fields(method_class(m)) if f.init}
        mine = []
        for i, (scope, key, body) in enumerate(split):
            if (scope == m) or (scope is None and key in fields):
                mine.append(body)
                used.add(i)
        size = shingle_size if shingle_size is not None and "shingle_size" in fields else None
        built = method_params(
            m, size, mine, stop_words, morphology, stop_symbols=stop_symbols, preset=preset
        )
        out[m] = {**(defaults or {}).get(m, {}), **built}
    for i, (scope, _key, _) in enumerate(split):
        if i not in used:
            where = f"method {scope}" if scope else "any selected method"
            raise ParameterError("--param", params[i], f"a parameter of {where}")  # type: ignore[index]
    return out


def _methods(text: str | None) -> tuple[str, ...]:
    from neardup.methods.registry import method_class, method_names

    if not text:
        return method_names()
    names = tuple(dict.fromkeys(n.strip() for n in text.split(",") if n.strip()))
    if not names:
        raise ParameterError("--methods", text, "a comma list of method names")
    for n in names:
        method_class(n)  # raises ParameterError naming the known methods
    return names


def _read_docs(inputs: list[Path], read_opts: dict[str, Any], err: Console) -> list[Any]:
    from neardup.errors import InputError
    from neardup.text.read import read_corpus
    from neardup.text.types import Document

    check_fields(inputs, read_opts)  # a field a named record file lacks: exit 2
    docs, skipped = [], []
    for item in read_corpus([str(p) for p in inputs], **read_opts):
        if isinstance(item, Document):
            docs.append(item)
        else:
            skipped.append(item)
    if skipped:
        from neardup.cli.common import escape

        err.print(f"[yellow]skipped[/yellow] {len(skipped)} input(s) not read:", highlight=False)
        for s in skipped[:_SHOWN]:
            err.print(f"  {escape(s.id)}: {s.reason} ({escape(s.detail)})", highlight=False)
        if len(skipped) > _SHOWN:
            err.print(f"  ... and {len(skipped) - _SHOWN} more", highlight=False)
    if not docs:
        raise InputError("no document could be read")
    return docs


def _check_gold_ids(gold: Any, docs: list[Any], err: Console) -> None:
    """Warn, naming the count and the first ids, when some document ids of the gold standard
    are not in the corpus (their pairs count as missed).

    Raises:
        InputError: none of them is (:func:`neardup.evaluate.run.missing_gold_ids`).
    """
    from neardup.cli.common import escape
    from neardup.evaluate.run import missing_gold_ids

    missing = missing_gold_ids(gold, docs)
    if missing:
        shown = ", ".join(missing[:_SHOWN]) + (", ..." if len(missing) > _SHOWN else "")
        err.print(
            f"[bold yellow]warning:[/bold yellow] {len(missing)} of the {len(gold.ids)} "
            f"document ids of the gold standard are not in the corpus ({escape(shown)}): "
            "their duplicate pairs count as missed",
            highlight=False,
            soft_wrap=True,
        )


def _progress(err: Console, silent: bool) -> Any:
    if silent:
        return None

    def on_row(row: Any) -> None:
        if row.error is not None:
            err.print(f"[red]{row.method} t={row.threshold:g}: {row.error}[/red]")
            return
        secs = f"{row.usage.seconds:.2f} s" if row.usage else ""
        tag = " (reused)" if row.reused else ""
        err.print(
            f"{row.method} t={row.threshold:g}: {row.found} pairs, F1 {row.scores.f1:.3f}, "
            f"{secs}{tag}"
        )

    return on_row


def _make_config(
    methods: str | None,
    thresholds: str | None,
    table2: bool,
    common: dict[str, Any],
    mparams: tuple[Any, ...],
) -> Any:
    from neardup.evaluate import table2 as t2
    from neardup.evaluate.run import EvalConfig
    from neardup.evaluate.thresholds import parse_thresholds

    if table2:
        if methods:
            raise ParameterError("--methods", methods, "no --methods with --table2")
        base = t2.table2_config(**common)
        defaults = {m: dict(p) for m, p in base.method_params.items()}
        params = collect_params(base.methods, *mparams, defaults=defaults)
        ts = parse_thresholds(thresholds) if thresholds else base.thresholds
        return dataclasses.replace(base, method_params=params, thresholds=ts)
    names = _methods(methods)
    ts = parse_thresholds(thresholds or "0.5:1.0:0.1")
    params = collect_params(names, *mparams)
    return EvalConfig(methods=names, thresholds=ts, method_params=params, **common)


def evaluate(
    gold: Annotated[
        Path | None,
        typer.Option(
            "--gold", help="Gold standard: pairs {a,b,label} or clusters {id,cluster}, JSONL/CSV."
        ),
    ] = None,
    inputs: Annotated[
        list[Path] | None,
        typer.Argument(help="Corpus files or directories (as for `neardup dedup`)."),
    ] = None,
    methods: Annotated[
        str | None, typer.Option("--methods", help="Comma list of methods (default: all).")
    ] = None,
    thresholds: Annotated[
        str | None,
        typer.Option(
            "--thresholds", help="START:STOP:STEP (inclusive) or a comma list; default 0.5:1.0:0.1."
        ),
    ] = None,
    scope: Annotated[
        str, typer.Option(help="all (unlisted pairs are negatives) | labelled (gold pairs only).")
    ] = "all",
    measure: MeasureOpt = MEASURE,
    decision: DecisionOpt = None,
    shingle_size: Annotated[
        int | None,
        typer.Option("--shingle-size", "-w", help="Words per shingle, for methods that have it."),
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option("--param", "-p", help="[METHOD:]KEY=VALUE method parameter (repeatable)."),
    ] = None,
    stop_words: StopOpt = None,
    no_stop_words: NoStopOpt = False,
    stop_symbols: StopSymOpt = None,
    preset: PresetOpt = None,
    morphology: Annotated[
        str | None,
        typer.Option(help="none | stem | lemma (default: each method's own setting)."),
    ] = None,
    min_tokens: MinTokensOpt = MIN_TOKENS,
    table2: Annotated[
        bool,
        typer.Option(
            "--table2", help="Table 2 of Zagorulko et al. 2013: shingles mod/min/full, w=4."
        ),
    ] = False,
    table3: Annotated[
        bool,
        typer.Option(
            "--table3",
            help="Table 3 of Zagorulko et al. 2013: type-II error % of shingles mod/min/full "
            "at t = 0.5, 0.6 on a sample of judged texts of each SET_DIR (--sample).",
        ),
    ] = False,
    sample: Annotated[
        int, typer.Option("--sample", help="--table3: texts sampled per collection.")
    ] = 25,
    pairs: Annotated[
        Path | None, typer.Option("--pairs", help="Score an existing `dedup --out` directory.")
    ] = None,
    passages: Annotated[
        Path | None,
        typer.Option(
            "--passages",
            help="Passage gold (JSONL {a,b,a_offset,a_length,b_offset,b_length} or PAN XML), "
            "or a PAN text-alignment corpus folder (pairs, susp/, src/; no INPUTS): score "
            "align_passages with PAN's measures (Potthast et al. 2010), per type for a folder. "
            "Example: neardup evaluate --passages pan13-test/ --jobs 2",
        ),
    ] = None,
    jobs: Annotated[
        int, typer.Option("--jobs", "-j", help="Worker processes for --passages DIR (>= 1).")
    ] = 1,
    from_json: Annotated[
        Path | None,
        typer.Option("--from-json", help="Re-render a saved `--json` report (no runs)."),
    ] = None,
    html_out: Annotated[
        Path | None, typer.Option("--html", help="Write an HTML report with plots here.")
    ] = None,
    title: Annotated[str, typer.Option(help="Title of the HTML report.")] = "neardup evaluate",
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
    memory: Annotated[
        str, typer.Option(help="Peak memory per run: rss | tracemalloc | off.")
    ] = "rss",
    bootstrap: Annotated[int, typer.Option(help="Bootstrap replicates for the CIs.")] = 1000,
    seed: Annotated[int, typer.Option(help="Bootstrap seed.")] = 0,
    reuse: Annotated[
        bool,
        typer.Option("--reuse/--no-reuse", help="Reuse one run across thresholds where exact."),
    ] = True,
    id_field: IdFieldOpt = ID_FIELD,
    text_field: TextFieldOpt = TEXT_FIELD,
    content_type: ContentTypeOpt = CONTENT_TYPE,
    quiet: Annotated[
        bool, typer.Option("--quiet", "-q", help="No per-run progress lines.")
    ] = False,
) -> None:
    """Score methods x thresholds against a gold standard: precision, recall, F1, errors."""
    from neardup.cli.common import err, fail, out, stop_words_choice
    from neardup.evaluate import report
    from neardup.evaluate.gold import load_gold
    from neardup.evaluate.run import evaluate_corpus, evaluate_pairs_dir
    from neardup.evaluate.thresholds import parse_thresholds

    if passages is not None:
        from neardup.evaluate.pan import is_pan_corpus

        if is_pan_corpus(passages):
            try:
                from neardup.job.prepare_pool import MAX_JOBS

                check_int("--jobs", jobs, low=1, high=MAX_JOBS)
            except NeardupError as exc:
                raise fail(exc) from None
            _evaluate_pan_corpus(passages, inputs, jobs, as_json, html_out, title, quiet)
            return
        read_opts = {"id_field": id_field, "text_field": text_field}
        ctype = "text" if content_type == "auto" else content_type  # offsets refer to raw text
        _evaluate_passages(
            passages, inputs, {**read_opts, "content_type": ctype}, as_json, html_out, title
        )
        return
    if table3:
        words = stop_words_choice(stop_words, no_stop_words)
        mparams = (shingle_size, param, words, morphology, stop_symbols, preset)
        read_opts = {"id_field": id_field, "text_field": text_field, "content_type": content_type}
        common = {"scope": "labelled", "memory": memory, "replicates": bootstrap, "seed": seed}
        try:
            rows = _table3_sets(list(inputs or []), sample, common, mparams, read_opts)
        except NeardupError as exc:
            raise fail(exc) from None
        _emit_table3(rows, sample, as_json)
        return
    try:
        if html_out is not None:
            report.require_matplotlib()  # before any run, not after
        if sum((pairs is not None, bool(inputs), from_json is not None)) != 1:
            raise UsageError("give corpus INPUTS, --pairs DIR or --from-json FILE (one of them)")
        if table2 and gold is None and inputs and pairs is None:
            words = stop_words_choice(stop_words, no_stop_words)
            mparams = (shingle_size, param, words, morphology, stop_symbols, preset)
            changes = {"measure": measure, "min_tokens": min_tokens, "reuse": reuse}
            read_opts = {"id_field": id_field, "text_field": text_field}
            read_opts["content_type"] = content_type
            common = {"scope": scope, "memory": memory, "replicates": bootstrap, "seed": seed}
            on_row = _progress(err, quiet or as_json)
            results = _table2_sets(
                list(inputs), thresholds, common, mparams, changes, read_opts, on_row
            )
            _emit_sets(results, as_json, html_out, title)
            return
        if gold is None and from_json is None:
            raise UsageError(
                "--gold FILE is required (except with --from-json, or --table2 over "
                "labelled-set folders)"
            )
        standard = load_gold(gold) if gold is not None else None
        common = {"scope": scope, "memory": memory, "replicates": bootstrap, "seed": seed}
        if from_json is not None:
            result = _load_report(from_json)
        elif pairs is not None:
            assert standard is not None  # --gold is required without --from-json (above)
            ts = parse_thresholds(thresholds) if thresholds else None
            result = evaluate_pairs_dir(
                pairs,
                standard,
                thresholds=ts,
                scope=scope,  # type: ignore[arg-type]
                replicates=bootstrap,
                seed=seed,
            )
        else:
            words = stop_words_choice(stop_words, no_stop_words)
            mparams = (shingle_size, param, words, morphology, stop_symbols, preset)
            config = _make_config(methods, thresholds, table2, common, mparams)
            changes = {"measure": measure, "min_tokens": min_tokens, "reuse": reuse}
            config = dataclasses.replace(
                config, **changes, **({} if table2 else {"decision": decision})
            )
            read_opts = {"id_field": id_field, "text_field": text_field}
            docs = _read_docs(list(inputs or []), {**read_opts, "content_type": content_type}, err)
            _check_gold_ids(standard, docs, err)
            on_row = _progress(err, quiet or as_json)
            result = evaluate_corpus(docs, standard, config, on_row=on_row)  # type: ignore[arg-type]
            from neardup.evaluate.table2 import with_expected_recall  # mega-shingles run

            result = with_expected_recall(result, docs, standard, config)  # type: ignore[arg-type]
    except NeardupError as exc:
        raise fail(exc) from None
    _emit(result, as_json, table2, out)  # the scores first: a failing report loses nothing
    if html_out is not None:
        _write_report(result, html_out, title, table2, quiet=as_json)
    if result.rows and all(r.error is not None for r in result.rows):
        err.print("[red]error:[/red] every run failed")
        raise typer.Exit(1)


def _table2_sets(
    folders: list[Path],
    thresholds: str | None,
    common: dict[str, Any],
    mparams: tuple[Any, ...],
    changes: dict[str, Any],
    read_opts: dict[str, Any],
    on_row: Any,
) -> list[tuple[str, Any]]:
    """Table 2's runs on each labelled-set folder (``docs.jsonl`` and ``gold.jsonl`` in it,
    the layout of ``../shared/data``): ``(folder name, Evaluation)`` in the given order.

    Raises:
        UsageError: a folder without ``docs.jsonl`` or ``gold.jsonl``, or a name given twice.
    """
    from neardup.cli.common import err
    from neardup.evaluate import table2 as t2
    from neardup.evaluate.gold import load_gold
    from neardup.evaluate.run import evaluate_corpus

    names = [f.resolve().name for f in folders]
    if len(set(names)) != len(names):
        raise UsageError(f"--table2: two collections have the same folder name ({names})")
    for folder in folders:
        missing = [n for n in ("docs.jsonl", "gold.jsonl") if not (folder / n).is_file()]
        if missing:
            raise UsageError(
                f"--table2 without --gold takes labelled-set folders (docs.jsonl and "
                f"gold.jsonl in each); {folder} has no {' or '.join(missing)}"
            )
    out = []
    for folder, name in zip(folders, names, strict=True):
        config = _make_config(None, thresholds, True, common, mparams)
        config = dataclasses.replace(config, **changes)
        docs = _read_docs([folder / "docs.jsonl"], read_opts, err)
        if on_row is not None:
            err.print(f"[bold]{name}[/bold]: {len(docs)} documents")
        gold = load_gold(folder / "gold.jsonl")
        _check_gold_ids(gold, docs, err)
        result = evaluate_corpus(docs, gold, config, on_row=on_row)
        out.append((name, t2.with_expected_recall(result, docs, gold, config)))
    return out


def _table3_sets(
    folders: list[Path],
    sample: int,
    common: dict[str, Any],
    mparams: tuple[Any, ...],
    read_opts: dict[str, Any],
) -> list[dict[str, Any]]:
    """Table 3's rows over labelled-set folders (``docs.jsonl`` and ``gold.jsonl`` each).

    Raises:
        UsageError: no folder, or a folder without ``docs.jsonl`` or ``gold.jsonl``.
    """
    from neardup.cli.common import err
    from neardup.evaluate import table2 as t2
    from neardup.evaluate.gold import load_gold
    from neardup.evaluate.run import evaluate_corpus

    if not folders:
        raise UsageError("--table3 takes labelled-set folders (docs.jsonl and gold.jsonl)")
    results = []
    for folder in folders:
        if not ((folder / "docs.jsonl").is_file() and (folder / "gold.jsonl").is_file()):
            raise UsageError(f"--table3: {folder} has no docs.jsonl and gold.jsonl")
        base = t2.table3_config(**common)
        defaults = {m: dict(p) for m, p in base.method_params.items()}
        config = dataclasses.replace(
            base, method_params=collect_params(base.methods, *mparams, defaults=defaults)
        )
        docs = _read_docs([folder / "docs.jsonl"], read_opts, err)
        seed = int(common.get("seed", 0))
        chosen, gold = t2.table3_sample(
            docs, load_gold(folder / "gold.jsonl"), size=sample, seed=seed
        )
        results.append((folder.resolve().name, evaluate_corpus(chosen, gold, config)))
    return t2.table3_rows(results)


def _emit_table3(rows: list[dict[str, Any]], sample: int, as_json: bool) -> None:
    """Print Table 3 (type-II error % per method, collection and t), or its JSON rows."""
    from neardup.cli.common import out

    if as_json:
        import json  # here: `neardup --help` does not load json

        sys.stdout.write(json.dumps({"table3": rows}, ensure_ascii=False, indent=2) + "\n")
        return
    from rich.table import Table

    methods = [k for k in (rows[0] if rows else {}) if k not in ("t", "collection", "pairs")]
    table = Table(
        "t",
        "collection",
        "duplicate pairs",
        *methods,
        title="Table 3 (Zagorulko et al. 2013): type-II error %, "
        f"{sample} judged texts sampled per collection",
        caption="type-II % = share of the sample's duplicate pairs a method missed",
    )
    for row in rows:
        cells = [f"{row['t']:g}", row["collection"], str(row["pairs"])]
        cells += ["" if row[m] is None else f"{row[m]:g}" for m in methods]
        table.add_row(*cells)
    from rich.console import Console

    (out if out.is_terminal else Console(width=_WIDE)).print(table)


def _emit_sets(
    results: list[tuple[str, Any]], as_json: bool, html_out: Path | None, title: str
) -> None:
    """Print (and write as HTML) Table 2 over several collections; exit 1 if every run
    failed."""
    from neardup.cli.common import err, out
    from neardup.evaluate import report

    if as_json:
        data = report.table2_collections_dict(results)
        import json

        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
    else:
        from rich.console import Console

        console = out if out.is_terminal else Console(width=_WIDE)
        console.print(report.table2_collections_table(results))
        for name, ev in results:
            best = sorted(ev.best().values(), key=lambda r: -r.scores.f1)
            console.print(report.rows_table(best, f"{name}: best F1 per method"))
    if html_out is not None:
        try:
            html_out.parent.mkdir(parents=True, exist_ok=True)
            html_out.write_text(report.table2_collections_html(results, title=title), "utf-8")
        except OSError as exc:
            err.print(f"[red]error:[/red] HTML report not written: {exc}")
            raise typer.Exit(1) from None
    rows = [r for _, ev in results for r in ev.rows]
    if rows and all(r.error is not None for r in rows):
        err.print("[red]error:[/red] every run failed")
        raise typer.Exit(1)


def _evaluate_passages(
    gold_path: Path,
    inputs: list[Path] | None,
    read_opts: dict[str, Any],
    as_json: bool,
    html_out: Path | None,
    title: str,
) -> None:
    """``evaluate --passages``: align the gold's pairs, print PAN's measures."""
    from neardup.cli.common import err, fail, out
    from neardup.evaluate.pan import align_gold_pairs, html_report, load_passage_gold

    try:
        if not inputs:
            raise UsageError("--passages needs the documents as INPUTS")
        gold = load_passage_gold(gold_path)
        docs = _read_docs(list(inputs), read_opts, err)
        scores = align_gold_pairs({d.id: d.text for d in docs}, gold)
        if html_out is not None:
            try:
                html_out.write_text(html_report(scores, title=title), encoding="utf-8")
            except OSError as exc:
                raise InputError(f"{html_out}: cannot write ({exc})") from None
    except NeardupError as exc:
        raise fail(exc) from None
    if as_json:
        data = {"pairs": len(gold.pairs), **scores.as_dict(per_case=True)}
        import json

        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return
    out.print(
        f"{len(gold.pairs)} pairs, {scores.cases} cases, {scores.detections} detections "
        "(PAN measures, Potthast et al. 2010)"
    )
    out.print(
        f"precision {scores.precision:.3f}  recall {scores.recall:.3f}  "
        f"granularity {scores.granularity:.3f}  plagdet {scores.plagdet:.3f}"
    )
    if html_out is not None:
        err.print(f"HTML report: {html_out}")


def _evaluate_pan_corpus(
    folder: Path,
    inputs: list[Path] | None,
    jobs: int,
    as_json: bool,
    html_out: Path | None,
    title: str,
    quiet: bool,
) -> None:
    """``evaluate --passages PAN_DIR``: align every pair, print PAN's measures per type."""
    from neardup.cli.common import err, fail, out
    from neardup.evaluate.pan import evaluate_pan_corpus, html_report, load_pan_corpus

    try:
        if inputs:
            raise UsageError("--passages with a PAN corpus folder reads its own texts: no INPUTS")
        corpus = load_pan_corpus(folder)
        if quiet or as_json or not err.is_terminal:
            report = evaluate_pan_corpus(corpus, jobs=jobs)
        else:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

            with Progress(
                "aligning", BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(), console=err
            ) as bar:
                task = bar.add_task("pairs", total=len(corpus.pairs))
                report = evaluate_pan_corpus(
                    corpus, jobs=jobs, on_progress=lambda k, _n: bar.update(task, completed=k)
                )
        if html_out is not None:
            try:
                html_out.write_text(html_report(report.overall, title=title), encoding="utf-8")
            except OSError as exc:
                raise InputError(f"{html_out}: cannot write ({exc})") from None
    except NeardupError as exc:
        raise fail(exc) from None
    if as_json:
        data = {"corpus": str(folder), "aligner": "neardup.align_passages", **report.as_dict()}
        import json

        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return
    from rich.console import Console
    from rich.table import Table

    table = Table(title=f"{folder}: PAN measures (Potthast et al. 2010), align_passages")
    for col in ("type", "pairs", "cases", "detections", "flagged negatives"):
        table.add_column(col, justify="left" if col == "type" else "right")
    for col in ("precision", "recall", "granularity", "plagdet"):
        table.add_column(col, justify="right")
    rows = report.as_dict()["groups"]
    assert isinstance(rows, dict)
    for name, row in rows.items():
        table.add_row(
            name,
            str(row["pairs"]),
            str(row["cases"]),
            str(row["detections"]),
            f"{row['flagged_negative_pairs']}/{row['negative_pairs']}",
            *(f"{row[k]:.3f}" for k in ("precision", "recall", "granularity", "plagdet")),
        )
    console = out if out.is_terminal else Console(width=_WIDE)
    console.print(table)
    console.print(f"{report.seconds:.1f} s, {jobs} worker(s)")
    if html_out is not None:
        err.print(f"HTML report: {html_out}")


def _write_report(result: Any, path: Path, title: str, table2: bool, *, quiet: bool) -> None:
    """Write the HTML report; when that fails, save the scores as JSON beside it (to be
    re-rendered with ``--from-json``) and exit 1."""
    from neardup.cli.common import err, escape
    from neardup.evaluate import report

    try:
        report.write_html(result, path, title=title, table2=table2)
    except (NeardupError, OSError) as exc:
        saved = path.with_name(path.name + ".json")
        data = report.report_dict(result, table2=table2)
        try:
            import json

            saved.write_text(json.dumps(data, ensure_ascii=False, indent=2), encoding="utf-8")
            kept = f"the scores are saved in {saved} (re-render: neardup evaluate --from-json)"
        except OSError:
            kept = "the scores are printed above"
        err.print(f"[red]error:[/red] HTML report not written: {escape(str(exc))}; {escape(kept)}")
        raise typer.Exit(1) from None
    if not quiet:
        err.print(f"HTML report: {escape(str(path))}")


def _load_report(path: Path) -> Any:
    from neardup.errors import FormatError, InputError
    from neardup.evaluate.run import evaluation_from_dict

    try:
        import json

        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc})") from None
    except ValueError as exc:
        raise FormatError(f"{path}: malformed JSON ({exc})") from None
    return evaluation_from_dict(data)


def _emit(result: Any, as_json: bool, table2: bool, out: Console) -> None:
    from neardup.evaluate import report

    if as_json:
        data = report.report_dict(result, table2=table2)
        import json

        sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")
        return
    from rich.console import Console

    console = out if out.is_terminal else Console(width=_WIDE)
    report.print_report(result, console, table2=table2)


def register(app: typer.Typer) -> None:
    """Add the ``evaluate`` command to the ``neardup`` app."""
    app.command("evaluate")(evaluate)
