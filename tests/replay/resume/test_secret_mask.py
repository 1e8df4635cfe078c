"""`SecretMask` hides every configured secret; header checks never quote the value."""

from __future__ import annotations

import io

import pytest

from replay.resume.secret_mask import MaskedWriter, SecretMask, check_header
from replay.wire.errors import InvalidRequest


def test_the_token_of_an_authorization_value_is_masked_alone_and_whole() -> None:
    mask = SecretMask.of(["Bearer abc123", None, ""])
    assert mask.apply("sent Bearer abc123; server saw abc123") == "sent ***; server saw ***"


def test_a_secret_containing_another_is_masked_whole() -> None:
    mask = SecretMask.of(["abc", "abcdef"])
    assert mask.apply("abcdef abc") == "*** ***"


def test_very_short_values_are_not_masked() -> None:
    assert SecretMask.of(["on", "1"]).apply("on 1") == "on 1"


def test_the_masked_writer_masks_what_rich_writes() -> None:
    out = io.StringIO()
    MaskedWriter(out, SecretMask.of(["s3cret"])).write("a s3cret b")
    assert out.getvalue() == "a *** b"


@pytest.mark.parametrize("value", ["x\ry", "x\ny", "x\x00y", "x\x7fy", "xéy"])
def test_unsendable_values_are_refused_without_quoting_them(value: str) -> None:
    with pytest.raises(InvalidRequest) as caught:
        check_header("X-Key", value, "-H X-Key")
    assert value not in str(caught.value)
    assert str(caught.value).startswith("-H X-Key: the value holds")


def test_printable_ascii_and_tabs_pass() -> None:
    check_header("X-Key", "Bearer a.b-c_d~e+f/g= \th", "-H X-Key")
