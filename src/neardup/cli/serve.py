"""``neardup serve``: the web UI and the REST service (FastAPI under uvicorn; OpenAPI at
``/docs``), with the crawl dispatcher of Romanov 2019 running in the same process."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from neardup.cli.shared_options import DbOpt
from neardup.errors import NeardupError

#: Seconds of CPU-bound work per request (``neardup.service.limits.DEFAULT_BUDGET``; not
#: imported from there: ``neardup --help`` does not load the service).
DEFAULT_BUDGET = 30.0

if TYPE_CHECKING:
    from neardup.service.api import ServiceConfig

#: environment variable carrying the settings to ``--workers`` processes (JSON)
_WORKER_CONFIG = "_NEARDUP_SERVE_CONFIG"
_FACTORY = "neardup.cli.serve:worker_app"


def serve(
    db: DbOpt = None,
    host: Annotated[str, typer.Option(help="Interface to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            envvar="NEARDUP_TOKEN",
            help="API token required by write routes (an empty one is a usage error). "
            "Prefer $NEARDUP_TOKEN or --token-file: a --token value on the command line is "
            "visible to local users until the server starts (it is then blanked out of the "
            "process title, /proc/PID/cmdline, with a warning).",
        ),
    ] = None,
    token_file: Annotated[
        Path | None,
        typer.Option(
            "--token-file",
            help="Read the API token from this file (first line; not shown in the process "
            "list). Cannot be combined with --token or $NEARDUP_TOKEN.",
        ),
    ] = None,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-host",
            help="A Host name the service answers to (repeatable; '*.example.org' for "
            "subdomains, '*' for any). Always allowed: the --host address and localhost "
            "names (bound to 0.0.0.0: also this machine's names and IP addresses). Other "
            "Hosts get 421, a guard against DNS rebinding.",
        ),
    ] = None,
    header_timeout: Annotated[
        float,
        typer.Option(help="Seconds a connection may take to send a request's headers."),
    ] = 10.0,
    body_timeout: Annotated[
        float, typer.Option(help="Seconds a request body may take to arrive (408 after).")
    ] = 60.0,
    max_connections: Annotated[
        int | None,
        typer.Option(
            help="Open connections at most; past it the oldest idle one is closed "
            "(default: 512 or half the open-file limit, whichever is lower)."
        ),
    ] = None,
    max_body_bytes: Annotated[int, typer.Option(help="Largest request body or upload, bytes.")] = 10
    * 1024
    * 1024,
    crawl: Annotated[
        bool,
        typer.Option(
            "--crawl/--no-crawl",
            help="Crawl queued libraries in this process (--no-crawl: only show and edit "
            "the queue; `neardup crawl` does the work).",
        ),
    ] = True,
    parallel: Annotated[
        int, typer.Option(help="Libraries crawled at once by the dispatcher (1-64).")
    ] = 1,
    allow_private: Annotated[
        bool,
        typer.Option(
            "--allow-private",
            help="Allow library addresses on private, loopback and link-local networks "
            "(off: refused, as a guard against SSRF).",
        ),
    ] = False,
    workers: Annotated[
        int,
        typer.Option(
            help="Server processes (uvicorn workers, 1-64), each with its own database "
            "connections; more than 1 needs --no-crawl (run `neardup crawl` for the queue).",
        ),
    ] = 1,
    trusted_proxy: Annotated[
        list[str] | None,
        typer.Option(
            "--trusted-proxy",
            envvar="NEARDUP_TRUSTED_PROXIES",
            help="Address or network of a reverse proxy whose X-Forwarded-For and "
            "X-Forwarded-Proto are believed (repeatable; the variable takes a comma-separated "
            "list; '*' trusts every peer). Default: none, the client is the TCP peer, so a "
            "forged X-Forwarded-For changes neither the token-guessing limit nor the log.",
        ),
    ] = None,
    cpu_budget: Annotated[
        float,
        typer.Option(
            help="Seconds a request's CPU-bound work (reading an upload, marking passages) "
            "may take in a worker process; past it the request gets 422.",
        ),
    ] = DEFAULT_BUDGET,
) -> None:
    """Serve the web UI (crawl queue, document checks, collection stats; http://HOST:PORT/)
    and the REST API (/docs) over HTTP.

    Example: NEARDUP_TOKEN=$(cat token.txt) neardup serve --db sqlite:///c.db --port 8000
    """
    import uvicorn

    from neardup.cli.common import fail
    from neardup.crawl import CrawlSettings
    from neardup.service.api import ServiceConfig, create_app

    if port < 1 or port > 65535 or max_body_bytes < 1:
        raise typer.BadParameter("port must be 1-65535 and max-body-bytes >= 1")
    if workers < 1 or workers > 64:
        raise typer.BadParameter(f"--workers {workers}: allowed 1-64")
    if workers > 1 and crawl:
        raise typer.BadParameter(
            f"--workers {workers} needs --no-crawl: each worker would run its own crawl "
            "dispatcher (run `neardup crawl` beside the server instead)"
        )
    if max_connections is None:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        max_connections = 512 if soft == resource.RLIM_INFINITY else max(16, min(512, soft // 2))
    if header_timeout <= 0 or body_timeout <= 0 or max_connections < 1:
        raise typer.BadParameter(
            "--header-timeout and --body-timeout must be > 0 s, --max-connections >= 1"
        )
    if cpu_budget <= 0:
        raise typer.BadParameter(f"--cpu-budget {cpu_budget}: must be > 0 seconds")
    proxies = _trusted_proxies(trusted_proxy)
    if token is not None and hide_token_argument(sys.argv):
        typer.echo(
            "warning: --token on the command line is visible to every local user in the "
            "process list until now (it was blanked out of /proc/PID/cmdline); use "
            "$NEARDUP_TOKEN or --token-file instead",
            err=True,
        )
    if token is None and os.environ.get("NEARDUP_TOKEN") is not None:
        token = os.environ["NEARDUP_TOKEN"]  # Click drops an empty variable: refuse it below
    if token_file is not None:
        token = _read_token_file(token_file, given=token)
    from neardup.service.limits import default_allowed_hosts, guarded_protocol

    protocol = guarded_protocol(header_timeout=header_timeout, max_connections=max_connections)
    try:
        settings = CrawlSettings(parallel=parallel, allow_private=allow_private)
        config = ServiceConfig(
            db=db,
            token=token,
            max_body_bytes=max_body_bytes,
            crawl=crawl,
            crawl_settings=settings,
            allowed_hosts=default_allowed_hosts(host, allowed_host or ()),
            body_timeout=body_timeout,
            cpu_budget=cpu_budget,
        )
        if workers > 1:
            _run_workers(
                config, host=host, port=port, workers=workers, http=protocol, proxies=proxies
            )
            return
        app = create_app(config)
    except NeardupError as exc:
        raise fail(exc) from None
    uvicorn.run(app, host=host, port=port, http=protocol, **proxy_options(proxies))


def _trusted_proxies(given: list[str] | None) -> tuple[str, ...]:
    """The ``--trusted-proxy`` values (each may be a comma-separated list, as
    ``$NEARDUP_TRUSTED_PROXIES`` gives them), checked.

    Raises:
        typer.BadParameter: a value is neither an IP address, a network nor ``*``.
    """
    import ipaddress

    out: list[str] = []
    for value in given or ():
        for item in (v.strip() for v in value.split(",")):
            if not item:
                continue
            if item != "*":
                try:
                    ipaddress.ip_network(item, strict=False)
                except ValueError:
                    raise typer.BadParameter(
                        f"--trusted-proxy {item!r}: an IP address, a network (10.0.0.0/8) or '*'"
                    ) from None
            out.append(item)
    return tuple(dict.fromkeys(out))


def proxy_options(proxies: tuple[str, ...]) -> dict[str, Any]:
    """uvicorn's settings for proxy headers: believed only from ``proxies`` (uvicorn's own
    default believes ``X-Forwarded-For`` from 127.0.0.1, so any local client could forge
    its address, dodge the token-guessing limit and write what it liked into the access
    log: issue 41)."""
    if not proxies:
        return {"proxy_headers": False}
    return {"proxy_headers": True, "forwarded_allow_ips": ",".join(proxies)}


def hide_token_argument(argv: list[str]) -> bool:
    """Blank the value of ``--token`` out of ``argv`` and out of the process title (what
    other users read in ``/proc/PID/cmdline`` and ``ps``), with :mod:`setproctitle`.

    Returns:
        Whether ``argv`` held a ``--token`` value.
    """
    shown: list[str] = []
    hidden = False
    for i, arg in enumerate(argv):
        if arg == "--":  # what follows is no option
            shown += argv[i:]
            break
        if i > 0 and argv[i - 1] == "--token" and shown[-1] == "--token":
            shown.append("***")
            hidden = True
        elif arg.startswith("--token="):
            shown.append("--token=***")
            hidden = True
        else:
            shown.append(arg)
    if not hidden:
        return False
    import setproctitle

    argv[:] = shown
    setproctitle.setproctitle(" ".join(shown))
    return True


def _read_token_file(path: Path, *, given: str | None) -> str:
    """The token in ``path`` (its first line, stripped).

    Raises:
        typer.BadParameter: a token was also given, or the file is unreadable or empty.
    """
    if given is not None:
        raise typer.BadParameter("--token-file cannot be combined with --token or $NEARDUP_TOKEN")
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise typer.BadParameter(f"--token-file {path}: cannot read it ({exc})") from None
    token = lines[0].strip() if lines else ""
    if not token:
        raise typer.BadParameter(f"--token-file {path}: the first line is empty")
    return token


def _run_workers(
    config: ServiceConfig,
    *,
    host: str,
    port: int,
    workers: int,
    http: str,
    proxies: tuple[str, ...] = (),
) -> None:
    """Serve with ``workers`` uvicorn processes (each builds its app in :func:`worker_app`).

    Raises:
        UsageError, StoreError: the database URL is bad or the database cannot be opened.
    """
    import uvicorn

    from neardup.store import Store

    Store(config.db).close()  # check and migrate the database once, before the workers race
    shared = {
        "db": config.db,
        "token": config.token,
        "max_body_bytes": config.max_body_bytes,
        "allow_private": config.crawl_settings.allow_private if config.crawl_settings else False,
        "allowed_hosts": config.allowed_hosts,
        "body_timeout": config.body_timeout,
        "cpu_budget": config.cpu_budget,
    }
    import json  # here: `neardup --help` does not load json

    os.environ[_WORKER_CONFIG] = json.dumps(shared)
    uvicorn.run(
        _FACTORY,
        factory=True,
        host=host,
        port=port,
        workers=workers,
        http=http,
        **proxy_options(proxies),
    )


def worker_app() -> Any:
    """The ASGI app of one ``--workers`` process (a uvicorn factory; the settings come from
    the parent in ``$_NEARDUP_SERVE_CONFIG``). No crawl dispatcher runs in a worker.

    Raises:
        UsageError, StoreError: the database cannot be opened.
    """
    import json

    from neardup.crawl import CrawlSettings
    from neardup.service.api import ServiceConfig, create_app

    shared = json.loads(os.environ[_WORKER_CONFIG])
    settings = CrawlSettings(allow_private=bool(shared["allow_private"]))
    return create_app(
        ServiceConfig(
            db=shared["db"],
            token=shared["token"],
            max_body_bytes=int(shared["max_body_bytes"]),
            crawl=False,
            crawl_settings=settings,
            allowed_hosts=tuple(shared["allowed_hosts"]),
            body_timeout=float(shared["body_timeout"]),
            cpu_budget=float(shared["cpu_budget"]),
        )
    )


def register(app: typer.Typer) -> None:
    """Add ``serve`` to the ``neardup`` app."""
    app.command("serve")(serve)
