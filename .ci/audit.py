"""Dependency audit (``make audit``): pip-audit over the virtualenv, fatal on a vulnerability.

Runs ``pip-audit --format json --skip-editable`` with the environment's Python and reads
its report:

* a known vulnerability in any installed distribution: exit 1, each one listed with its
  id, the installed version and the fixed versions;
* the vulnerability service cannot be reached (no network: connection, proxy, DNS or
  timeout errors): a warning, exit 0; CI without network still passes, CI with network
  never skips the audit silently;
* a dependency pip-audit skipped as "not found on PyPI" (an index or proxy that answers
  ``/pypi/NAME/json`` but not the per-version ``/pypi/NAME/VERSION/json`` pip-audit asks
  for) is looked up once more in ``/pypi/NAME/json``: when the installed version is the
  latest release, that record's ``vulnerabilities`` (the same PyPI/OSV data pip-audit
  reads) audit it; otherwise it is listed as not audited.

Exit codes: 0 clean (or no network), 1 vulnerabilities found, 2 pip-audit failed otherwise.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.error
import urllib.request
from importlib import metadata
from pathlib import Path

INDEX = "https://pypi.org/pypi"
_OFFLINE = (
    "ConnectionError",
    "ProxyError",
    "NameResolutionError",
    "Max retries exceeded",
    "Temporary failure in name resolution",
    "Network is unreachable",
    "timed out",
    "ConnectTimeout",
    "ReadTimeout",
)


def main() -> int:
    exe = Path(sys.executable).with_name("pip-audit")
    cmd = [str(exe), "--format", "json", "--progress-spinner", "off", "--skip-editable"]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, check=False)
    except subprocess.TimeoutExpired:
        print("audit: WARNING: pip-audit timed out (network?); not audited", file=sys.stderr)
        return 0
    try:
        report = json.loads(proc.stdout)
    except ValueError:
        if any(marker in proc.stderr for marker in _OFFLINE):
            last = proc.stderr.strip().splitlines()[-1][:300] if proc.stderr.strip() else ""
            print(f"audit: WARNING: vulnerability service unreachable, not audited: {last}")
            return 0
        print(proc.stderr[-3000:], file=sys.stderr)
        print("audit: pip-audit failed", file=sys.stderr)
        return 2
    return _judge(report["dependencies"])


def _judge(deps: list[dict]) -> int:
    found: list[str] = []
    audited = latest = 0
    not_audited: list[str] = []
    offline = False
    for dep in deps:
        name = dep["name"]
        if "skip_reason" not in dep:
            audited += 1
            found += [_line(name, dep["version"], v) for v in dep.get("vulns", [])]
            continue
        version = _installed(name)
        if version is None or "not found on PyPI" not in dep["skip_reason"]:
            not_audited.append(f"{name}: {dep['skip_reason']}")
            continue
        try:
            record = _latest_record(name)
        except OSError as exc:
            offline = True
            not_audited.append(f"{name} {version}: {exc}")
            continue
        if record is None or record["info"]["version"] != version:
            have = "no record" if record is None else f"latest is {record['info']['version']}"
            not_audited.append(f"{name} {version}: only the latest release is answered ({have})")
            continue
        latest += 1
        audited += 1
        vulns = [v for v in record.get("vulnerabilities", []) if not v.get("withdrawn")]
        found += [_line(name, version, _osv(v)) for v in vulns]
    print(
        f"audit: {audited} of {len(deps)} distributions audited "
        f"({latest} through the latest-release record), {len(found)} known vulnerabilities"
    )
    for line in not_audited:
        print(f"audit: not audited: {line}")
    if offline and not found:
        print("audit: WARNING: PyPI unreachable for some lookups")
    for line in found:
        print(f"audit: VULNERABLE {line}")
    return 1 if found else 0


def _installed(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def _latest_record(name: str) -> dict | None:
    try:
        with urllib.request.urlopen(f"{INDEX}/{name}/json", timeout=60) as resp:
            return json.load(resp)  # type: ignore[no-any-return]
    except urllib.error.HTTPError as exc:
        if exc.code == 404:
            return None
        raise


def _osv(v: dict) -> dict:
    return {"id": v.get("id"), "fix_versions": v.get("fixed_in", []), "aliases": v.get("aliases")}


def _line(name: str, version: str, vuln: dict) -> str:
    fixes = ", ".join(vuln.get("fix_versions") or []) or "no fix yet"
    return f"{name} {version}: {vuln.get('id')} (fixed in {fixes})"


if __name__ == "__main__":
    sys.exit(main())
