"""`replay.reports`: the JUnit report groups findings per recording, in linear time."""

from __future__ import annotations

import time
from xml.etree import ElementTree

import pytest
from hypothesis import given
from hypothesis import strategies as st

from replay.runs.reports import junit_report
from replay.wire.problems import Location, Problem, Severity


def _finding(source: str, number: int, severity: Severity) -> Problem:
    return Problem(
        "unknown-message-id",
        severity,
        f"TEXT_MESSAGE_CONTENT names messageId 'm{number}', never started",
        Location(source, 2 * number + 1, 100 * number, number),
    )


def test_findings_go_to_the_recording_or_har_entry_that_holds_them() -> None:
    found = [
        _finding("a.sse", 1, Severity.ERROR),
        _finding("b.har#entry3", 2, Severity.WARNING),
        _finding("b.har#entry4", 3, Severity.ERROR),
        _finding("x#y.sse", 4, Severity.NOTICE),
        _finding("elsewhere.sse", 5, Severity.ERROR),
    ]
    root = ElementTree.fromstring(junit_report(found, ["a.sse", "b.har", "x#y.sse"]))
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert list(cases) == ["a.sse", "b.har", "x#y.sse", "elsewhere.sse"]
    assert cases["a.sse"].find("failure").get("message") == "1 error"  # type: ignore[union-attr]
    har_failure = cases["b.har"].find("failure")
    assert har_failure is not None
    assert "'m3'" in (har_failure.text or "")
    har_out = cases["b.har"].find("system-out")
    assert har_out is not None
    assert (har_out.text or "").startswith("warning: b.har#entry3:5: event 2:")
    assert cases["x#y.sse"].find("failure") is None
    assert root.find("testsuite").get("failures") == "3"  # type: ignore[union-attr]


def test_a_hundred_thousand_findings_take_linear_time() -> None:
    # Was quadratic (a list membership test per finding): 10k findings took 24 s.
    found = [
        _finding("big.sse", n, Severity.ERROR if n % 3 else Severity.WARNING)
        for n in range(100_000)
    ]
    started = time.perf_counter()
    report = junit_report(found, ["big.sse"])
    assert time.perf_counter() - started < 15
    assert report.count("\n") > 100_000
    assert 'message="66666 errors"' in report


def test_findings_are_never_compared_with_each_other(monkeypatch: pytest.MonkeyPatch) -> None:
    compared = [0]
    original = Problem.__eq__

    def counting(self: Problem, other: object) -> bool:
        compared[0] += 1
        return original(self, other)

    monkeypatch.setattr(Problem, "__eq__", counting)
    found = [_finding("big.sse", n, Severity(("error", "warning")[n % 2])) for n in range(3000)]
    junit_report(found, ["big.sse"])
    assert compared[0] == 0


def test_characters_xml_cannot_carry_are_shown_as_escapes() -> None:
    # A message quotes the recording (a legacy tool name under --native, say): one raw ESC
    # made the whole report unreadable to every JUnit consumer.
    found = [
        Problem(
            "translated",
            Severity.ERROR,
            "tool 'a\x1b[2Jb' \x00\ud800 \ufffe",
            Location("s\x07.sse"),
        ),
        Problem("lost", Severity.NOTICE, "kept\ttab\r\nand é", Location("s\x07.sse")),
    ]
    root = ElementTree.fromstring(junit_report(found, ["s\x07.sse"]))
    case = root.find("testsuite/testcase")
    assert case is not None
    assert case.get("name") == "s\\x07.sse"
    failure = case.find("failure")
    assert failure is not None
    assert failure.text == "s\\x07.sse: tool 'a\\x1b[2Jb' \\x00\\ud800 \\ufffe [translated]"
    out = case.find("system-out")
    assert out is not None
    assert out.text == "notice: s\\x07.sse: kept\ttab\nand é [lost]"  # XML reads CR LF as LF


@given(st.text(), st.text(min_size=1))
def test_any_message_and_source_make_well_formed_xml(message: str, source: str) -> None:
    found = [Problem("unknown-event", Severity.ERROR, message, Location(source, 1, 0, 0))]
    root = ElementTree.fromstring(junit_report(found, [source]).encode("utf-8", "surrogatepass"))
    assert root.find("testsuite").get("failures") == "1"  # type: ignore[union-attr]


def test_a_failure_counts_what_fails_the_case_and_strict_counts_warnings_too() -> None:
    found = [
        _finding("a.sse", 1, Severity.ERROR),
        _finding("a.sse", 2, Severity.WARNING),
        _finding("a.sse", 3, Severity.ERROR),
    ]
    for strict, message, listed in ((False, "2 errors", 2), (True, "3 errors", 3)):
        root = ElementTree.fromstring(junit_report(found, ["a.sse"], strict=strict))
        failure = root.find("testsuite/testcase/failure")
        assert failure is not None
        assert failure.get("message") == message
        assert len((failure.text or "").splitlines()) == listed
        output = root.find("testsuite/testcase/system-out")
        assert (output is None) == strict
