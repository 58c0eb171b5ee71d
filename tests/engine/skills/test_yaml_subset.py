"""The fast frontmatter reader agrees with strictyaml whenever it answers, and answers for the usual shapes."""

from __future__ import annotations

import strictyaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.skills.yaml_subset import parse_simple_mapping

ALPHABET = list("abcdefxyz  ") * 4 + list("-:#'\",[]{}.!?&*%@`|>\\") + ["\xa0", "é", "数", "'' ", ": ", " #", "\t"]
WORD = st.lists(st.sampled_from(ALPHABET), max_size=10).map("".join)
KEY = st.sampled_from(["name", "description", "metadata", "a", "b-c", "1", "null", "x_y", "k.v", "-k", "k k", "K", "-"])
SEP = st.sampled_from([": ", ":", ":  "])
SCALAR = st.one_of(WORD, WORD.map(lambda w: f"'{w}'"), WORD.map(lambda w: f'"{w}"'))
INDENT = st.sampled_from(["  ", "   ", "    ", " ", "", "      "])
LINE = st.tuples(INDENT, WORD).map("".join)
PLAIN = st.tuples(KEY, SEP, SCALAR, st.lists(LINE, max_size=3), st.sampled_from(["", " "])).map(
    lambda t: t[0] + t[1] + t[2] + t[4] + "".join("\n" + c for c in t[3])
)
BLOCK = st.tuples(
    KEY,
    st.sampled_from([": |", ": >", ": |-", ": >-", ": |+", ": >2"]),
    st.lists(st.one_of(LINE, st.just("")), max_size=5),
).map(lambda t: t[0] + t[1] + "".join("\n" + c for c in t[2]))
NESTED = st.tuples(KEY, st.lists(st.tuples(INDENT, KEY, SEP, SCALAR).map("".join), min_size=1, max_size=4)).map(
    lambda t: t[0] + ":" + "".join("\n" + c for c in t[1])
)
ITEM = st.one_of(
    st.tuples(INDENT, st.sampled_from(["- ", "-  ", "-"]), SCALAR).map("".join),
    st.tuples(
        INDENT,
        st.sampled_from(["- ", "-  "]),
        KEY,
        SEP,
        SCALAR,
        st.lists(st.tuples(INDENT, KEY, SEP, SCALAR).map("".join), max_size=2),
    ).map(lambda t: "".join(t[:5]) + "".join("\n" + c for c in t[5])),
    st.just(""),
)
SEQUENCE = st.tuples(KEY, st.lists(ITEM, min_size=1, max_size=4)).map(
    lambda t: t[0] + ":" + "".join("\n" + c for c in t[1])
)
MISC = st.sampled_from(["", " ", "# c", "  # c", "...", "- a", "  - b"])
DOCUMENT = st.lists(st.one_of(PLAIN, PLAIN, BLOCK, NESTED, SEQUENCE, SEQUENCE, MISC), min_size=1, max_size=6).map(
    lambda entries: "\n" + "\n".join(entries) + "\n"
)


def strictyaml_data(text: str) -> object:
    try:
        return strictyaml.load(text).data
    except Exception as exc:
        return exc


@settings(max_examples=500, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(DOCUMENT)
def test_whenever_the_fast_reader_answers_strictyaml_gives_the_same_mapping(text: str) -> None:
    got = parse_simple_mapping(text)
    if got is not None:
        assert strictyaml_data(text) == got


TYPICAL = [
    "\nname: pdf-tools\ndescription: Extract text from PDF files. Use when the user asks about PDFs\n",
    "\nname: x\ndescription: 'It''s quoted: with a colon'\nlicense: MIT\n",
    '\nname: x\ndescription: "double quoted #not-a-comment"\n',
    "\nname: x\ndescription: |-\n  First line.\n    indented line\n\n  Third line.\nlicense: MIT\n",
    "\nname: x\ndescription: >\n  Folded\n  lines\n\n  paragraph\n",
    "\nname: x\ndescription: a plain\n  scalar over\n  three lines\n",
    '\nname: x\nmetadata:\n  author: someone\n  version: "1.0"\nallowed-tools:\n  - Read\n  - Grep\n',
    "\nname: x\nauthors:\n  - name: A\n    github: a\n  - name: B\n    github: b\n",
    "\n# a comment\nname: x\n\ndescription: 数据 and café\n",
]


def test_the_usual_frontmatter_shapes_are_read_without_strictyaml() -> None:
    for text in TYPICAL:
        got = parse_simple_mapping(text)
        assert got is not None, text
        assert got == strictyaml.load(text).data


def test_anything_unusual_is_left_to_strictyaml() -> None:
    for text in [
        "\nname: [a, b]\n",
        "\nname: &a x\n",
        "\nname: x # comment\n",
        "\nname: x\nname: y\n",
        "\n  name: x\n",
        "\nname:\tx\n",
        '\nname: "esc\\x61ped"\n',
        " yaml\nname: x\n",
        "\nname: x",
        "\n\n",
        "\nm:\n  a: b\nn:\n    c: d\n",
    ]:
        assert parse_simple_mapping(text) is None, text
