"""How a hand was won (hostd.hand.win): combinations that cannot happen are refused."""
import pytest

from hostd.hand import HandError, parse_call
from hostd.hand.win import make_win


def test_a_win_with_winds_and_flags():
    w = make_win(win="0p", tsumo=True, seat_wind="West", round_wind="south", riichi=True,
                 ippatsu=True)
    assert (w.tile, w.face, w.seat, w.round) == ("0p", 13, 2, 1)
    assert w.in_riichi and not w.dealer


def test_double_riichi_is_riichi():
    assert make_win(win="1m", double_riichi=True, ippatsu=True).in_riichi


@pytest.mark.parametrize("kw, words", [
    ({"open_riichi": True}, "open riichi needs riichi"),
    ({"haitei": True}, "haitei (a win on the last draw) is a tsumo"),
    ({"chankan": True, "tsumo": True}, "chankan (robbing a kan) is a ron"),
    ({"haitei": True, "rinshan": True, "tsumo": True}, "haitei and rinshan cannot both be"),
    ({"chankan": True, "houtei": True}, "chankan and houtei cannot both be"),
    ({"chiihou": True, "tsumo": True}, "chiihou is a non-dealer's tsumo"),
    ({"renhou": True}, "renhou is a non-dealer's ron"),
    ({"nagashi": True}, "no situation 'nagashi'; accepted: riichi"),
    ({"round_wind": 1}, "round_wind 1: one of east"),
])
def test_impossible_wins_are_refused(kw, words):
    with pytest.raises(HandError) as e:
        make_win(**{"win": "1m", **kw})
    assert words in str(e.value)


def test_first_draw_wins_have_no_calls():
    with pytest.raises(HandError, match="tenhou is a win before any call"):
        make_win(win="1m", tsumo=True, tenhou=True, calls=[parse_call("ankan:1111z")])


def test_rinshan_needs_a_kan_and_riichi_a_closed_hand():
    assert make_win(win="1m", tsumo=True, rinshan=True, calls=[parse_call("kan:1111z")]).rinshan
    with pytest.raises(HandError, match="riichi needs a closed hand .* called: chi:123m"):
        make_win(win="1m", riichi=True, calls=[parse_call("chi:123m")])
