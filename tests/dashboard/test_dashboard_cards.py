"""Card faces: escaping, colours, trump marks and evidence highlights."""

from chaodipi.dashboard.cards import STYLE, card_html, cards_html, legend_html


def test_red_suits_are_red_and_black_suits_are_not() -> None:
    assert 'class="cdp-card red"' in card_html("HA", lang="en")
    assert 'class="cdp-card red"' in card_html("D5", lang="en")
    assert 'class="cdp-card"' in card_html("SA", lang="en")
    assert 'class="cdp-card"' in card_html("CK", lang="en")


def test_ten_reads_10_and_suit_symbol_shown() -> None:
    html = card_html("ST", lang="en")
    assert "<b>10</b>" in html and "<i>♠</i>" in html and 'data-card="ST"' in html


def test_jokers() -> None:
    assert 'title="big joker"' in card_html("BJ", lang="en") and "red" in card_html("BJ", lang="en")
    little = card_html("LJ", lang="en")
    assert 'title="little joker"' in little and "red" not in little and "<b>JOKER</b>" in little


def test_jokers_read_big_and_little_king_in_chinese() -> None:
    big, little = card_html("BJ", lang="zh"), card_html("LJ", lang="zh")
    assert "<b>大王</b>" in big and 'title="大王"' in big and "red" in big and "cjk" in big
    assert "<b>小王</b>" in little and "red" not in little
    assert "(主)" in card_html("S2", lang="zh", trump=True)


def test_trump_marker_and_title() -> None:
    html = card_html("S2", lang="en", trump=True)
    assert "trump" in html.split('"')[1] and "(trump)" in html


def test_unreadable_token_is_escaped() -> None:
    html = card_html("<script>", lang="en")
    assert "<script>" not in html and "&lt;SCRIPT&gt;" in html


def test_marks_apply_to_one_copy_per_listed_token() -> None:
    html = cards_html(["HA", "HA", "SK"], lang="en", marks={"alt": ["HA"], "beat": ["SK"]})
    assert html.count("alt") == 1 and html.count("beat") == 1


def test_unknown_mark_is_ignored() -> None:
    assert "evil" not in cards_html(["HA"], lang="en", marks={"evil": ["HA"]})


def test_trumps_marked_in_rows() -> None:
    html = cards_html(["S2", "H3"], lang="en", trumps={"S2"})
    assert html.count("cdp-card trump") == 1


def test_style_and_legend() -> None:
    assert STYLE.startswith("<style>") and STYLE.count("<style>") == 1
    legend = legend_html("en")
    for words in ("beats the throw", "legal alternative", "trump"):
        assert words in legend
    assert "压住甩牌的牌" in legend_html("zh") and "主牌" in legend_html("zh")
