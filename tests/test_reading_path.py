"""The reading path (design.md section 4): short paragraphs in the main text, little visible code."""
import textwrap

import pytest

import reading_path

PAGE = textwrap.dedent(
    """\
    # Title

    {words_a}

    - {words_b}
    - short item

    :::{{admonition}} Kept open
    {words_c}
    :::

    :::{{admonition}} Folded
    :class: dropdown
    {words_long}
    :::

    ```{{code-cell}} ipython3
    x = 1
    y = 2
    ```

    ```{{code-cell}} ipython3
    :tags: [remove-input]
    hidden = 1
    ```

    ```{{code-cell}} ipython3
    ---
    tags: [hide-input]
    mystnb:
      figure:
        name: fig-a
    ---
    folded = 1
    ```

    ```{{code-cell}} ipython3
    ---
    mystnb:
      figure:
        name: fig-b
    ---
    shown = 1
    ```

    ## How the checks decide

    {words_long}

    ## After
    {words_d}
    """
)


@pytest.fixture()
def page(tmp_path):
    path = tmp_path / "page.md"
    path.write_text(PAGE.format(words_a="a " * 10, words_b="b " * 20, words_c="c " * 30,
                                words_long="z " * 400, words_d="d " * 40))
    return path


def test_main_text_paragraphs_are_counted_and_folded_text_is_not(page):
    words = sorted(p.words for p in reading_path.paragraphs(page))
    assert words == [2, 10, 20, 30, 40]  # "short item", a, b, c, d: no 400-word block


def test_only_unhidden_code_lines_are_visible(page):
    assert reading_path.visible_code_lines(page) == 3


@pytest.mark.parametrize("path", reading_path.pages(), ids=lambda p: p.name)
def test_every_page_keeps_the_reading_path(path):
    long = [p for p in reading_path.paragraphs(path) if p.words > reading_path.MAX_WORDS]
    assert not long, "\n".join(f"line {p.line}: {p.words} words: {p.start}..." for p in long)
    lines = reading_path.visible_code_lines(path)
    assert lines <= reading_path.MAX_CODE_LINES, f"{lines} visible code lines"
