"""The command line (Typer): ``neardup dedup``, ``compare``, ``check``, ``collection``, ...

One module a command group over the shared helpers of :mod:`neardup.cli.common`.
"""
