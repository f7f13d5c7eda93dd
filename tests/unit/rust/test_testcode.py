"""Test code: which attributes mark a test, and that reading them stays linear."""

from __future__ import annotations

import subprocess
import sys

import pytest

from panic_lens.rust import testcode


@pytest.mark.parametrize(
    ("attribute", "test_only"),
    [
        ("#[test]", True),
        ("#[tokio::test]", True),
        ('#[cfg(all(test, feature = "x"))]', True),
        ('#[cfg(feature = "x")]\n#[cfg_attr(test, allow(unused))]', False),
        ("#[bench]", True),
        ('#[cfg(feature = "tests")]', False),
        ("#[cfg(x)]\n// test\n", False),
        ("#[inline]", False),
    ],
)
def test_test_attributes_are_recognised(attribute: str, test_only: bool) -> None:
    assert (testcode.TEST_ATTRIBUTE.search(attribute) is not None) == test_only


def test_test_attribute_check_is_linear_on_a_long_attribute() -> None:
    # Tried from every `cfg(`, `cfg\(.*\btest\b` took 6 s on 56 KB and minutes on this; a
    # child process bounds the test by a generous limit instead of hanging the suite.
    code = (
        "from panic_lens.rust import testcode as r\n"
        "print(r.TEST_ATTRIBUTE.search('#[cfg(' + 'cfg(x),' * 40_000 + ')]') is None)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.stdout.strip() == "True", proc.stderr
