"""The assembler's line parser: labels, statements, operand shapes and their columns, and where it stops."""
import pytest

from mtiacc.asm.syntax import Label, Statement, SyntaxProblem, parse


def shapes(text):
    """Each item as a tuple: a label's name and column, a statement's name, column and operands."""
    out = []
    for item in parse(text):
        if isinstance(item, Label):
            out.append(("label", item.name, item.line, item.col))
        else:
            assert isinstance(item, Statement)
            out.append((item.name, item.line, item.col, item.end_col,
                        [(n.kind, n.terms, n.base, n.text, n.col, n.end_col) for n in item.nodes],
                        [n.col for n in item.bare]))
    return out


def test_labels_then_a_statement_with_a_signed_memory_offset():
    assert shapes("a: b :\tlw a0, -8 + N(sp) # comment, (not an operand)") == [
        ("label", "a", 1, 1), ("label", "b", 1, 4),
        ("lw", 1, 8, 10, [("expr", ((1, "a0"),), None, "a0", 11, 13),
                          ("mem", ((-1, 8), (1, "N")), "sp", "-8 + N(sp)", 15, 25)], [])]


def test_semicolons_separate_statements_and_strings_keep_hash_and_semicolon():
    (file, loc) = shapes('  .file 1 "k#;.py"; .loc 1 12 5 prologue_end')
    assert file == (".file", 1, 3, 8, [("expr", ((1, 1),), None, "1", 9, 10),
                                       ("str", (), None, '"k#;.py"', 11, 19)], [11])
    assert loc[:4] == (".loc", 1, 21, 25)
    assert [n[1] for n in loc[4]] == [((1, 1),), ((1, 12),), ((1, 5),), ((1, "prologue_end"),)]
    assert loc[5] == [28, 31, 33]   # the operands after blanks, not commas


def test_numbers_symbols_dot_at_and_bare_memory_base():
    (stmt,) = shapes("  beq a0, a1, .+0x10 - 010 + 0b11")
    assert stmt[4][2][1] == ((1, "."), (1, 16), (-1, 8), (1, 3))
    (stmt,) = shapes("  .type f, @function")
    assert stmt[4][1] == ("at", (), None, "function", 12, 21)
    (stmt,) = shapes("vle32.v v8, (a0)")
    assert stmt[4][1] == ("mem", (), "a0", "(a0)", 13, 17)


def test_lines_are_counted_and_empty_lines_and_comments_are_nothing():
    assert shapes("\n# only a comment\n\r\n  nop\n") == [("nop", 4, 3, 6, [], [])]


@pytest.mark.parametrize("text,line,col,end_col,message", [
    ('  .file 1 "abc', 1, 11, None, "unexpected character '\"'"),
    ("  lw a0, 8(a1) (a2)", 1, 16, 17, "syntax error: unexpected '('"),
    ("  \x0b", 1, 3, None, "unexpected character '\\x0b'"),
    ("nop\n  add a0, , a1", 2, 11, 12, "syntax error: unexpected ','"),
    ("  add a0, a1,; nop", 1, 14, None, "syntax error: unexpected end of line"),
    ("  add a0, a1 +\nnop", 1, 15, None, "syntax error: unexpected end of line"),
    ("  lw a0, 8(1)", 1, 12, 13, "syntax error: unexpected '1'"),
    ("  .type f, @", 1, 13, None, "syntax error: unexpected end of input"),
    ("1: nop", 1, 1, 2, "syntax error: unexpected '1'"),
    ("nop x: nop", 1, 6, 7, "syntax error: unexpected ':'"),
    ("  add a0, a1 %x", 1, 14, None, "unexpected character '%'"),
    ("  add a0, a1, a2 ) %", 1, 18, 19, "syntax error: unexpected ')'"),   # the first problem on the line
])
def test_where_parsing_stops(text, line, col, end_col, message):
    with pytest.raises(SyntaxProblem) as info:
        parse(text)
    e = info.value
    assert (e.message, e.line, e.col, e.end_col) == (message, line, col, end_col)
