"""Syntax highlighting with Pygments: the `lamina` lexer.

Registered through the `pygments.lexers` entry point (pyproject.toml), so `pygmentize -l
lamina`, Sphinx, MkDocs, nbconvert and rich highlight `.lam` files and ```lamina blocks.
The words come from the language's own lexer and parser (keywords, the blocks `end` closes,
the `for` header's `to`, `step`, `in`, the import's `as`) and the builtin registry (builtins,
read on first use), so no second list of names exists. `%` is an operator. Text the language would reject (a character it does not know, a string left open
at the end of its line, an unknown escape, a number run into a name) is an Error token.
"""
from __future__ import annotations

from pygments.lexer import RegexLexer, bygroups, include, words
from pygments.token import (
    Comment,
    Error,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Text,
    Whitespace,
)

from .lang.lexer import FOR_WORDS, IMPORT_WORDS, KEYWORDS, NUMBER
from .lang.parser import BLOCK_KEYWORDS

CONSTANTS = ("true", "false", "none")
WORD_OPERATORS = ("and", "or", "not")
PLAIN_KEYWORDS = tuple(sorted(KEYWORDS - set(CONSTANTS) - set(WORD_OPERATORS) - {"for", "function", "import"}))
NAME = r"[A-Za-z_][A-Za-z0-9_]*"

_builtins: frozenset[str] | None = None


def builtin_names() -> frozenset[str]:
    global _builtins
    if _builtins is None:
        from .builtins.registry import load_all
        from .lang.scope import CONSTANTS
        _builtins = frozenset(load_all()) | frozenset(CONSTANTS)
    return _builtins


class LaminaLexer(RegexLexer):
    """Lamina, a small array language for statistics and machine learning."""
    name = "Lamina"
    aliases = ["lamina"]
    filenames = ["*.lam"]
    mimetypes = ["text/x-lamina"]

    # The format spec of `{x:.2f}`: a ':' then text up to the closing brace (no ']' or ')', so
    # that the ':' of a slice, `{v[1:3]}`, stays punctuation).
    FORMAT_SPEC = r':[^}"\n\])]*(?=\})'

    tokens = {
        "root": [
            (r"\n", Whitespace),
            (r"[ \t\r]+", Whitespace),
            (r"\\\n", Text),                                   # a line continued
            (r"#.*?$", Comment.Single),
            (r'"', String.Double, "string"),
            (r"(end)([ \t]+)(%s)\b" % "|".join(BLOCK_KEYWORDS), bygroups(Keyword, Whitespace, Keyword)),
            (r"(function)([ \t]+)(%s)" % NAME, bygroups(Keyword, Whitespace, Name.Function)),
            (r"for\b", Keyword, "for-header"),
            (r"import\b", Keyword, "import-header"),
            (words(CONSTANTS, suffix=r"\b"), Keyword.Constant),
            (words(WORD_OPERATORS, suffix=r"\b"), Operator.Word),
            (words(PLAIN_KEYWORDS + ("function",), suffix=r"\b"), Keyword),
            (NAME, Name),
            (r"(?>%s)[A-Za-z_]\w*" % NUMBER.pattern, Error),     # a malformed number: 1_000, 0x10
            (NUMBER.pattern, Number.Float),
            (r"\|>|->|==|!=|<=|>=|\.\*|\./|\.\^|[-+*/]=|[-+*/^@<>=%\\']", Operator),
            (r"[()\[\]{},;:.]", Punctuation),
        ],
        # `for i = a to b step s` / `for x in xs`: here `to`, `step` and `in` are keywords.
        "for-header": [
            (r"\n", Whitespace, "#pop"),
            (r";", Punctuation, "#pop"),
            (words(FOR_WORDS, suffix=r"\b"), Keyword),
            include("root"),
        ],
        # `import helpers as h`: here `as` is a keyword.
        "import-header": [
            (r"\n", Whitespace, "#pop"),
            (r";", Punctuation, "#pop"),
            (words(IMPORT_WORDS, suffix=r"\b"), Keyword),
            include("root"),
        ],
        "string": [
            (r'\\[ntr"\\{}]', String.Escape),
            (r"\{\{|\}\}", String.Escape),
            (r"\{", String.Interpol, "interpolation"),
            (r'"', String.Double, "#pop"),
            (r'[^"\\{}\n]+', String.Double),
            (r"\n", Error, "#pop"),                            # strings end on their line
            (r"\\.?|\}", Error),
        ],
        "interpolation": [
            (r"\}", String.Interpol, "#pop"),
            (FORMAT_SPEC, String.Interpol),                    # {x:.2f}
            (r"\{", Punctuation, "braces"),
            include("root"),
        ],
        "braces": [                                            # a record literal inside `{...}`
            (r"\}", Punctuation, "#pop"),
            (r"\{", Punctuation, "#push"),
            include("root"),
        ],
    }

    def get_tokens_unprocessed(self, text, stack=("root",)):
        """Names of builtins as Name.Builtin; a name after `.` as Name.Attribute (a field)."""
        builtins = builtin_names()
        after_dot = False
        for index, token, value in super().get_tokens_unprocessed(text, stack):
            if token is Name:
                if after_dot:
                    token = Name.Attribute
                elif value in builtins:
                    token = Name.Builtin
            if token not in (Whitespace, Text):
                after_dot = token is Punctuation and value == "."
            yield index, token, value
