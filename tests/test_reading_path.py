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
    assert reading_path.visible_code_lines(page) == 2


def test_yaml_options_of_a_code_cell_are_read_and_not_counted(tmp_path):
    path = tmp_path / "page.md"
    path.write_text("```{code-cell} ipython3\n---\ntags: [hide-input]\nmystnb:\n  figure:\n    name: a\n---\nx = 1\n```\n\n"
                    "```{code-cell} ipython3\n---\nmystnb:\n  figure:\n    name: b\n---\nx = 1\ny = 2\n```\n")
    assert reading_path.visible_code_lines(path) == 2
