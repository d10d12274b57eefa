"""The stop rules as columns (`Profile.stop_columns`, what the compiler reads) say what
`Profile.stop_rule` says node by node (`rules_columns`, their slow twin), on every profile, and
the trains lowered from either are the same."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from conftest import corpus_missing, corpus_positions, random_boards
from hypothesis import assume, given
from hypothesis import strategies as st
from strategies import positions
from test_g1817 import boards_1817
from test_g1831 import boards_1831
from test_g1862usa import boards_1862usa, salt_lake
from test_g18sj import E_LINE, E_TOKENS, OP, SJ_LINE, board, city, line
from test_g18usa import boards_18usa
from test_g1822 import boards_1822

from hexrail.errors import HexrailError
from hexrail.graph import trains as lowering
from hexrail.io.native import load_position
from hexrail.io.g18xx import position_from_18xx
from hexrail.rules.base import Profile, StopRule, register, ruled, stop_columns
from hexrail.rules.columns import rules_columns
from hexrail.solve import cached_track

ARRAYS = ("stop", "kind", "value", "subsidy", "count", "cost", "block", "may_end", "end_class",
          "anchor", "node_hex")


def assert_same_columns(pos) -> None:
    pos, profile = ruled(pos)
    for train in pos.trains:
        fast, slow = stop_columns(pos, train, profile), rules_columns(pos, train, profile)
        for name in ARRAYS:
            np.testing.assert_array_equal(getattr(fast, name), getattr(slow, name),
                                          err_msg=f"{profile.name}, train {train.id}: {name}")
        assert (fast.refs, fast.tallies, fast.groups) == (slow.refs, slow.tallies, slow.groups)
        graph = cached_track(pos, train.spec.track, profile.single_joins_double,
                             tuple(r.stop for r in profile.revisits(pos)))
        lowered = lowering.lower_train(pos, graph, profile, train)
        with mock.patch.object(lowering, "stop_columns", rules_columns):
            twin = lowering.lower_train(pos, graph, profile, train)
        assert lowered.key() == twin.key()
        np.testing.assert_array_equal(lowered.node_groups, twin.node_groups)


TITLES = ("generic", "1817", "1822", "1846", "1856", "1860", "1861", "1862", "1867", "1870",
          "1882", "18SJ", "18USA")


@pytest.mark.parametrize("title", TITLES)
def test_corpus_positions(title):
    """Every seventh shared position of each title."""
    reason = corpus_missing()
    if reason:
        pytest.skip(reason)
    for data in corpus_positions(title)[::7]:
        assert_same_columns(position_from_18xx(data))


@pytest.mark.parametrize("name", ["demo", "1831", "1862", "1862usa"])
def test_bundled_examples(name):
    import hexrail

    assert_same_columns(load_position(hexrail.example_path(name)))


@pytest.mark.parametrize("company", ["CPR", "UP", "Y"])
@pytest.mark.parametrize("blocked", [False, True])
def test_salt_lake_city(company, blocked):
    assert_same_columns(load_position(salt_lake(blocked, company)))


@pytest.mark.parametrize("trains", [["E"], ["D", "6"], ["E", "D"]])
@pytest.mark.parametrize("slots", [["SJ"], ["SJ", "XX"], [{"company": "SJ", "flag": "neutral"}],
                                   [{"company": "XX", "flag": "neutral"}], ["XX"]])
def test_18sj_electric_trains_and_full_cities(trains, slots):
    assert_same_columns(load_position(line(*E_LINE, trains=trains, tokens=E_TOKENS)))
    assert_same_columns(load_position(board(
        {"C1": city(20), "C3": city(30, len(slots)), "C5": city(40)}, ["C1-C3", "C3-C5"], trains,
        tokens={"C1": [OP], "C3": slots})))
    assert_same_columns(load_position(line(*SJ_LINE, trains=trains, tokens={"C1": [OP], "C3": slots[:1]},
                                           state={"electric_train_owned": True})))


SETTINGS = random_boards(60)


@SETTINGS
@given(doc=positions(), title=st.sampled_from(["1846", "1856", "1861", "1862", "1867", "1870",
                                               "1882"]))
def test_random_boards_under_other_titles(doc, title):
    """Random boards run under the rules of titles that read little state."""
    doc["rules"] = {"profile": title}
    try:
        pos = load_position(doc)
        ruled(pos)
    except HexrailError:
        assume(False)  # (a board the title refuses)
    assert_same_columns(pos)


# random boards of the titles with their own strategies (their test modules')
BOARDS = {"test-extras": positions(profile="test-extras"), "1860": positions(profile="1860"),
          "1862USA": boards_1862usa(), "1831": boards_1831(), "1817": boards_1817(),
          "18USA": boards_18usa(), "18USA switcher": boards_18usa(switcher=True),
          "1822": boards_1822()}


@pytest.mark.parametrize("name", sorted(BOARDS))
@SETTINGS
@given(data=st.data())
def test_random_boards(name, data):
    assert_same_columns(load_position(data.draw(BOARDS[name])))


@register
class _Plus5(Profile):
    """Changes `stop_rule` alone: its columns must come from it, node by node."""

    name = "test-plus5"

    def stop_rule(self, pos, train, hex_, node) -> StopRule:
        rule = super().stop_rule(pos, train, hex_, node)
        return rule._replace(value=rule.value + 5) if node.is_stop else rule


def test_a_profile_changing_only_stop_rule_is_asked_node_by_node():
    doc = {"format": "hexrail-position/1", "layout": "flat", "rules": {"profile": "test-plus5"},
           "company": "X", "companies": [{"id": "X", "home": "A1"}],
           "trains": [{"id": "2-0", "spec": "2"}],
           "hexes": {"A1": {"tile": "city=revenue:20,slots:1;path=a:3,b:_0", "tokens": ["X"]},
                     "A3": {"tile": "town=revenue:10;path=a:0,b:_0"}}}
    pos, profile = ruled(load_position(doc))
    cols = stop_columns(pos, pos.trains[0], profile)
    assert cols.value[cols.stop].tolist() == [25, 15]
