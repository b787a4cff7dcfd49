"""The card catalogue: the 54 printed cards, spelling decisions, the safe deck, product text."""

from __future__ import annotations

from core.games.bigidea.cards import (
    DESCRIPTION,
    ITEM,
    catalogue,
    deck_ids,
    is_product,
    product_name,
    product_sentence,
)


def test_54_cards_27_of_each_type() -> None:
    cards = list(catalogue().values())
    assert len(cards) == 54
    assert sum(c.type == ITEM for c in cards) == 27
    assert sum(c.type == DESCRIPTION for c in cards) == 27
    assert len({c.id for c in cards}) == 54
    assert len({c.name for c in cards}) == 54


def test_printed_sentences_kept() -> None:
    cat = catalogue()
    assert cat["cat"].text == "It's like a cat..."
    assert cat["com"].name == ".com"
    assert cat["frozen"].text == "...that's frozen in a block of ice!"
    assert cat["crystal"].name == "crystal-"
    assert all(c.text.startswith("It's like ") for c in cat.values() if c.is_item)
    assert all(c.text.startswith("...") for c in cat.values() if not c.is_item)


def test_misspelled_titles_corrected_and_printed_kept() -> None:
    cat = catalogue()
    assert (cat["addictive"].name, cat["addictive"].printed) == ("addictive", "addicitive")
    assert (cat["disposable"].name, cat["disposable"].printed) == ("disposable", "disposible")
    assert (cat["mentholated"].name, cat["mentholated"].printed) == ("mentholated", "metholated")
    assert sum(c.printed is not None for c in cat.values()) == 3


def test_safe_for_work_deck_leaves_out_the_marked_cards() -> None:
    assert len(deck_ids(False)) == 54
    safe = deck_ids(True)
    assert len(safe) == 51
    assert {"erotic", "unholy", "smokes"}.isdisjoint(safe)
    assert {"evil", "beer", "dangerous", "addictive"} <= set(safe)
    assert {c.id for c in catalogue().values() if c.nsfw} == {"erotic", "unholy", "smokes"}


def test_product_sentence_and_name() -> None:
    assert product_sentence(["cat", "frozen"]) == (
        "It's like a cat... that's frozen in a block of ice!"
    )
    # The description may be listed first; the item always leads.
    assert product_sentence(["frozen", "cat"]) == product_sentence(["cat", "frozen"])
    assert product_name(["cat", "frozen"]) == "frozen cat"
    assert product_name(["cat", "frozen", "cyber"]) == "frozen cyber-cat"
    assert product_name(["umbrella", "dangerous", "love"]) == "dangerous love umbrella"


def test_larger_product_sentences() -> None:
    assert product_sentence(["cat", "frozen", "gigantic"]) == (
        "It's like a cat... that's frozen in a block of ice... but it's huge!"
    )
    assert product_sentence(["umbrella"]) == "It's like an umbrella!"
    assert product_name(["umbrella"]) == "umbrella"


def test_is_product_needs_exactly_one_item() -> None:
    assert is_product(["cat", "frozen"])
    assert is_product(["cat"])
    assert is_product(["cat", "frozen", "zen", "love"])
    assert not is_product(["cat", "hat"])
    assert not is_product(["frozen", "zen"])
    assert not is_product(["cat", "hat", "zen"])
