"""Which addresses the crawler may fetch (server-side request forgery protection).

A library's URL comes from a user, so the crawler must not become a way to reach the
machine's own network. Rules (``allow_private=False``, the default):

* only ``http`` and ``https`` URLs with a host, no ``user:password@``;
* no host that is, or resolves to, a non-public address: private (RFC 1918, ``fc00::/7``),
  loopback, link-local (``169.254.0.0/16``, cloud metadata), shared (``100.64.0.0/10``),
  multicast, unspecified, reserved or documentation ranges; ``localhost`` and other
  forms of IPv4 (``2130706433``, ``0x7f.1``) and IPv4-mapped IPv6 are recognised;
* no IPv6 address that carries a non-public IPv4 address a relay or translator would
  reach: 6to4 (``2002::/16``, ``http://[2002:7f00:1::]/`` is 127.0.0.1), NAT64
  (``64:ff9b::/96`` and the local-use ``64:ff9b:1::/48``), Teredo (``2001::/32``, server
  and client address) and IPv4-compatible (``::a.b.c.d``) addresses are checked on the
  IPv4 address they carry;
* the check is made on the URL's literal host (:func:`check_url`), on every address the
  host resolves to (:func:`check_addresses`, resolver injectable) and again on every
  redirect hop (the crawler follows redirects itself).

``allow_private=True`` lifts the address rules (the scheme rules stay); ``allow_hosts``
lists host names or IP networks allowed anyway (e.g. a loopback test site) while every
other private address is still refused.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from collections.abc import Callable, Iterable
from urllib.parse import SplitResult, quote, urlsplit, urlunsplit

from neardup.errors import InputError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
Resolver = Callable[[str], list[str]]

MAX_URL_CHARS = 2000
_SCHEMES = ("http", "https")
_DEFAULT_PORTS = {"http": 80, "https": 443}
_IPV4_FORMS = re.compile(r"[0-9a-fx.]+", re.IGNORECASE)
_LOCAL_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback")
_SHARED = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))
_PATH_SAFE = "/%:@!$&'()*+,;=-._~"
_QUERY_SAFE = _PATH_SAFE + "?"


class UnsafeURLError(InputError):
    """A URL the crawler refuses to fetch; the message says why (scheme, address, redirect).

    Attributes:
        url, reason: the URL and why. private: refused for a non-public address only (the
            setting ``allow_private``, ``--allow-private`` on the command line, lifts it).
    """

    def __init__(self, url: str, reason: str, *, private: bool = False) -> None:
        self.url = url
        self.reason = reason
        self.private = private
        super().__init__(f"refused {url!r}: {reason}")


def check_url(url: str, *, allow_private: bool, allow_hosts: Iterable[str] = ()) -> str:
    """Validate and normalise a URL the crawler is asked to fetch (no DNS lookup).

    Normalisation: scheme and host lower-cased, IDNA host, default port dropped, empty path
    -> ``/``, fragment dropped.

    Args:
        url: the URL.
        allow_private: allow non-public literal addresses and ``localhost``.
        allow_hosts: host names or IP networks allowed anyway.

    Returns:
        The normalised URL.

    Raises:
        UnsafeURLError: not http(s), no host, credentials in the URL, too long, or a host
            that is a non-public address (or ``localhost``) while not allowed.
    """
    if not isinstance(url, str) or not url.strip():
        raise UnsafeURLError(str(url), "empty URL")
    raw = url.strip()
    if len(raw) > MAX_URL_CHARS:
        raise UnsafeURLError(raw[:80] + "...", f"longer than {MAX_URL_CHARS} characters")
    try:
        parts = urlsplit(raw)
        port = parts.port
    except ValueError as exc:
        raise UnsafeURLError(raw, f"malformed URL ({exc})") from None
    scheme = parts.scheme.lower()
    if scheme not in _SCHEMES:
        shown = f"scheme {scheme}:// is not allowed" if scheme else "no scheme"
        raise UnsafeURLError(raw, f"{shown}; only http:// and https:// URLs are crawled")
    if parts.username is not None or parts.password is not None:
        raise UnsafeURLError(raw, "user name or password in the URL is not allowed")
    host = _host(raw, parts)
    if not allow_private and not _allowed(host, allow_hosts):
        reason = address_problem(host)
        if reason:
            raise UnsafeURLError(raw, reason, private=True)
    return _rebuild(scheme, host, port, parts)


def check_addresses(
    url: str,
    host: str,
    addresses: Iterable[str],
    *,
    allow_private: bool,
    allow_hosts: Iterable[str] = (),
) -> None:
    """Refuse a host whose resolved addresses include a non-public one.

    Raises:
        UnsafeURLError: no address, or a non-public address while not allowed.
    """
    found = list(addresses)
    if not found:
        raise UnsafeURLError(url, f"{host} does not resolve to any address")
    if allow_private or _allowed(host, allow_hosts):
        return
    for addr in found:
        if _allowed(addr, allow_hosts):
            continue
        ip = literal_ip(addr)
        kind = "unparsable" if ip is None else _kind(ip)
        if kind:
            raise UnsafeURLError(
                url, f"{host} resolves to {addr}, a {kind} address", private=kind != "unparsable"
            )


def address_problem(host: str) -> str:
    """Why ``host`` (a name or a literal address) is not public, or ``""`` when it is."""
    name = host.lower().rstrip(".")
    if name in _LOCAL_NAMES or name.endswith(".localhost"):
        return f"host {host} is the local machine (loopback)"
    ip = literal_ip(name)
    if ip is None:
        return ""
    kind = _kind(ip)
    return f"host {host} is a {kind} address" if kind else ""


def literal_ip(host: str) -> IPAddress | None:
    """The IP address ``host`` denotes literally (any IPv4 form, IPv6, IPv4-mapped), or None."""
    text = host.strip("[]")
    try:
        ip: IPAddress = ipaddress.ip_address(text)
    except ValueError:
        if not _IPV4_FORMS.fullmatch(text) or not any(c.isdigit() for c in text):
            return None
        try:
            ip = ipaddress.IPv4Address(socket.inet_aton(text))
        except OSError:
            return None
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    return ip


def default_resolver(host: str) -> list[str]:
    """Every address ``host`` resolves to (``socket.getaddrinfo``), ``[]`` when it does not."""
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return []
    return sorted({str(info[4][0]).split("%")[0] for info in infos})


def embedded_ipv4(ip: IPAddress) -> list[ipaddress.IPv4Address]:
    """The IPv4 addresses an IPv6 address carries for a relay or translator to reach:
    6to4 (RFC 3056), Teredo server and client (RFC 4380), NAT64 (RFC 6052, RFC 8215: the
    last 32 bits) and IPv4-compatible (``::a.b.c.d``); ``[]`` for other addresses."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return []
    found: list[ipaddress.IPv4Address] = []
    if ip.sixtofour is not None:
        found.append(ip.sixtofour)
    if ip.teredo is not None:
        found.extend(ip.teredo)
    value = int(ip)
    if any(ip in net for net in _NAT64) or (value >> 32 == 0 and value > 0xFFFF):
        found.append(ipaddress.IPv4Address(value & 0xFFFFFFFF))
    return found


def _kind(ip: IPAddress) -> str:
    """Which non-public range ``ip`` is in (``""`` for a public address); an IPv6 address
    carrying a non-public IPv4 address (:func:`embedded_ipv4`) is refused as that."""
    for inner in embedded_ipv4(ip):
        kind = _kind(inner)
        if kind:
            return f"{kind} (IPv4 {inner} inside)"
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip.is_unspecified:
        return "unspecified"
    if ip.is_multicast:
        return "multicast"
    if isinstance(ip, ipaddress.IPv4Address) and ip in _SHARED:
        return "shared (carrier-grade NAT)"
    if ip.is_private:
        return "private"
    if ip.is_reserved or not ip.is_global:
        return "reserved"
    return ""


def _allowed(host: str, allow_hosts: Iterable[str]) -> bool:
    name = host.lower().strip("[]").rstrip(".")
    ip = literal_ip(name)
    for item in allow_hosts:
        entry = item.lower().strip("[]").rstrip(".")
        if entry == name:
            return True
        if ip is not None:
            try:
                if ip in ipaddress.ip_network(entry, strict=False):
                    return True
            except ValueError:
                continue
    return False


def _host(raw: str, parts: SplitResult) -> str:
    host = parts.hostname
    if not host:
        raise UnsafeURLError(raw, "no host name")
    if ":" in host:  # IPv6 literal
        return host.lower()
    try:
        return host.encode("idna").decode("ascii").lower()
    except UnicodeError:
        raise UnsafeURLError(raw, f"host name {host!r} is not a valid domain name") from None


def _rebuild(scheme: str, host: str, port: int | None, parts: SplitResult) -> str:
    netloc = f"[{host}]" if ":" in host else host
    if port is not None and port != _DEFAULT_PORTS[scheme]:
        netloc = f"{netloc}:{port}"
    path = quote(parts.path or "/", safe=_PATH_SAFE)
    query = quote(parts.query, safe=_QUERY_SAFE)
    return urlunsplit((scheme, netloc, path, query, ""))
