"""Which addresses the crawler refuses (SSRF), without any network access."""

from __future__ import annotations

import pytest

from neardup.crawl import CrawlSettings, UnsafeURLError, check_url
from neardup.crawl.safety import address_problem, check_addresses, literal_ip
from neardup.errors import InputError, ParameterError


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("file:///etc/passwd", "scheme file:// is not allowed"),
        ("ftp://example.org/x", "scheme ftp:// is not allowed"),
        ("gopher://example.org/", "scheme gopher:// is not allowed"),
        ("example.org/post/1", "no scheme"),
        ("http:///post/1", "no host"),
        ("http://user:secret@example.org/", "password"),
        ("http://10.0.0.1/", "10.0.0.1 is a private address"),
        ("http://192.168.1.20:8080/", "private address"),
        ("http://127.0.0.1/", "loopback"),
        ("http://localhost:8000/", "local machine"),
        ("http://api.localhost/", "local machine"),
        ("http://169.254.169.254/latest/meta-data/", "link-local"),
        ("http://[::1]/", "loopback"),
        ("http://[fe80::1]/", "link-local"),
        ("http://[::ffff:10.0.0.1]/", "private"),
        ("http://2130706433/", "loopback"),  # 127.0.0.1 as one number
        ("http://0x7f.1/", "loopback"),
        ("http://0.0.0.0/", "unspecified"),
        ("http://100.64.0.1/", "shared"),
        ("http://224.0.0.1/", "multicast"),
    ],
)
def test_refused_with_a_clear_reason(url: str, reason: str) -> None:
    with pytest.raises(UnsafeURLError, match="refused") as info:
        check_url(url, allow_private=False)
    assert reason in str(info.value)
    assert isinstance(info.value, InputError)


def test_public_addresses_pass_normalised() -> None:
    assert check_url("HTTP://Example.ORG:80", allow_private=False) == "http://example.org/"
    assert check_url("https://example.org:443/a#frag", allow_private=False) == (
        "https://example.org/a"
    )
    assert check_url("http://8.8.8.8:8080/x?q=1", allow_private=False) == (
        "http://8.8.8.8:8080/x?q=1"
    )
    assert check_url("https://пример.рф/статья?id=1", allow_private=False) == (
        "https://xn--e1afmkfd.xn--p1ai/%D1%81%D1%82%D0%B0%D1%82%D1%8C%D1%8F?id=1"
    )


def test_allow_private_lifts_address_rules_only() -> None:
    assert check_url("http://127.0.0.1:5000/", allow_private=True) == "http://127.0.0.1:5000/"
    assert check_url("http://10.0.0.1/", allow_private=True) == "http://10.0.0.1/"
    with pytest.raises(UnsafeURLError, match="scheme file://"):
        check_url("file:///etc/passwd", allow_private=True)


def test_allow_hosts_allows_only_what_it_lists() -> None:
    hosts = ("127.0.0.1", "10.8.0.0/16")
    assert check_url("http://127.0.0.1:9/", allow_private=False, allow_hosts=hosts)
    assert check_url("http://10.8.3.4/", allow_private=False, allow_hosts=hosts)
    for other in ("http://127.0.0.2/", "http://10.9.0.1/", "http://169.254.169.254/"):
        with pytest.raises(UnsafeURLError):
            check_url(other, allow_private=False, allow_hosts=hosts)


def test_resolved_addresses_are_checked() -> None:
    url = "http://library.test/"
    check_addresses(url, "library.test", ["93.184.216.34"], allow_private=False)
    with pytest.raises(UnsafeURLError, match=r"library.test resolves to 10.0.0.7, a private"):
        check_addresses(url, "library.test", ["93.184.216.34", "10.0.0.7"], allow_private=False)
    with pytest.raises(UnsafeURLError, match="does not resolve"):
        check_addresses(url, "library.test", [], allow_private=False)
    check_addresses(url, "library.test", ["10.0.0.7"], allow_private=True)


def test_literal_forms() -> None:
    assert str(literal_ip("2130706433")) == "127.0.0.1"
    assert str(literal_ip("[::ffff:127.0.0.1]")) == "127.0.0.1"
    assert literal_ip("example.org") is None
    assert literal_ip("deadbeef.example") is None
    assert address_problem("example.org") == ""


def test_settings_are_validated() -> None:
    with pytest.raises(ParameterError, match="delay"):
        CrawlSettings(delay=-1)
    with pytest.raises(ParameterError, match="concurrency"):
        CrawlSettings(concurrency=0)
    with pytest.raises(ParameterError, match="allow_hosts"):
        CrawlSettings(allow_hosts=["127.0.0.1"])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        CrawlSettings(1.0)  # type: ignore[call-arg, arg-type]  # keyword-only
    assert CrawlSettings().user_agent.startswith("neardup/")


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://[2002:7f00:1::]/", "loopback (IPv4 127.0.0.1 inside)"),  # 6to4
        ("http://[2002:a9fe:a9fe::1]/", "link-local (IPv4 169.254.169.254 inside)"),
        ("http://[64:ff9b:1::a00:1]/", "private (IPv4 10.0.0.1 inside)"),  # local NAT64
        ("http://[2001:0:4136:e378:8000:63bf:80ff:fffe]/", "loopback (IPv4 127.0.0.1"),  # Teredo
        ("http://[::127.0.0.1]/", "loopback (IPv4 127.0.0.1 inside)"),  # IPv4-compatible
        ("http://[::ffff:7f00:1]/", "loopback"),  # IPv4-mapped, hex form
    ],
)
def test_ipv6_carrying_a_private_ipv4_address_is_refused(url: str, reason: str) -> None:
    """Issue 27: 6to4 of 127.0.0.1 passed the filter; every IPv6 form that carries an IPv4
    address for a relay to reach is checked on that address."""
    with pytest.raises(UnsafeURLError, match=r"\(IPv4|loopback") as info:
        check_url(url, allow_private=False)
    assert reason in str(info.value)
    host = url.split("[")[1].split("]")[0]
    with pytest.raises(UnsafeURLError):
        check_addresses(url, "example.org", [host], allow_private=False)


def test_ipv6_carrying_a_public_ipv4_address_passes() -> None:
    assert (
        check_url("http://[2002:808:808::1]/", allow_private=False) == "http://[2002:808:808::1]/"
    )
