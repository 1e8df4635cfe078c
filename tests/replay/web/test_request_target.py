"""`sent_path` keeps the request target's bytes, percent-encoding any that are not visible
ASCII, and encodes the decoded path when a server gives no `raw_path`."""

from __future__ import annotations

from urllib.parse import unquote_to_bytes

from hypothesis import given
from hypothesis import strategies as st

from replay.web.request_target import sent_path


def test_the_raw_path_is_kept_as_sent() -> None:
    assert sent_path({"path": "/ab", "raw_path": b"/a%0D%0Ab"}) == "/a%0D%0Ab"
    assert sent_path({"path": "/a b", "raw_path": b"/a b\xc3\xa9\x00"}) == "/a%20b%C3%A9%00"


def test_without_a_raw_path_the_decoded_path_is_encoded() -> None:
    assert sent_path({"path": "/a\r\nb/é"}) == "/a%0D%0Ab/%C3%A9"
    assert sent_path({"path": "/x", "raw_path": None}) == "/x"


@given(st.binary(max_size=40))
def test_a_logged_path_is_visible_ascii_and_decodes_to_the_sent_bytes(raw: bytes) -> None:
    target = b"/" + raw.replace(b"%", b"%25")  # a target whose bytes are all literal
    logged = sent_path({"path": "", "raw_path": target})
    assert logged.isascii()
    assert logged.isprintable()
    assert " " not in logged
    assert unquote_to_bytes(logged) == b"/" + raw


@given(st.text(alphabet=st.characters(exclude_categories=()), max_size=20))
def test_any_decoded_path_is_logged_as_visible_ascii(path: str) -> None:
    # Lone surrogates included: a server may decode undecodable bytes to them.
    logged = sent_path({"path": "/" + path})
    assert logged.isascii()
    assert logged.isprintable()
    assert unquote_to_bytes(logged) == ("/" + path).encode("utf-8", "surrogatepass")


def test_a_lone_surrogate_in_a_decoded_path_is_percent_encoded() -> None:
    assert sent_path({"path": "/a\udc80"}) == "/a%ED%B2%80"
