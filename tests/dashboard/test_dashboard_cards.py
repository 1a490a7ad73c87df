"""Card faces: escaping, colours, trump marks and evidence highlights."""

from chaodipi.dashboard.cards import STYLE, card_html, cards_html, legend_html


def test_red_suits_are_red_and_black_suits_are_not() -> None:
    assert 'class="cdp-card red"' in card_html("HA")
    assert 'class="cdp-card red"' in card_html("D5")
    assert 'class="cdp-card"' in card_html("SA")
    assert 'class="cdp-card"' in card_html("CK")


def test_ten_reads_10_and_suit_symbol_shown() -> None:
    html = card_html("ST")
    assert "<b>10</b>" in html and "<i>♠</i>" in html and 'data-card="ST"' in html


def test_jokers() -> None:
    assert 'title="big joker"' in card_html("BJ") and "red" in card_html("BJ")
    assert 'title="little joker"' in card_html("LJ") and "red" not in card_html("LJ")


def test_trump_marker_and_title() -> None:
    html = card_html("S2", trump=True)
    assert "trump" in html.split('"')[1] and "(trump)" in html


def test_unreadable_token_is_escaped() -> None:
    html = card_html("<script>")
    assert "<script>" not in html and "&lt;SCRIPT&gt;" in html


def test_marks_apply_to_one_copy_per_listed_token() -> None:
    html = cards_html(["HA", "HA", "SK"], marks={"alt": ["HA"], "beat": ["SK"]})
    assert html.count("alt") == 1 and html.count("beat") == 1


def test_unknown_mark_is_ignored() -> None:
    assert "evil" not in cards_html(["HA"], marks={"evil": ["HA"]})


def test_trumps_marked_in_rows() -> None:
    html = cards_html(["S2", "H3"], trumps={"S2"})
    assert html.count("cdp-card trump") == 1


def test_style_and_legend() -> None:
    assert STYLE.startswith("<style>") and STYLE.count("<style>") == 1
    legend = legend_html()
    for words in ("beats the throw", "legal alternative", "trump"):
        assert words in legend
