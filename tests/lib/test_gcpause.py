"""lib/gcpause.py holds the collector off for a block and leaves it as it found it."""

from __future__ import annotations

import gc

import pytest

from lib import gcpause


def test_the_collector_is_off_in_the_block_and_on_after_it():
    assert gc.isenabled()
    with gcpause.paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_it_is_on_again_after_the_block_raised():
    with pytest.raises(ValueError), gcpause.paused():
        raise ValueError("content")
    assert gc.isenabled()


def test_a_collector_off_before_stays_off():
    gc.disable()
    try:
        with gcpause.paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    finally:
        gc.enable()
