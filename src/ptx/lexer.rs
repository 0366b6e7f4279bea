//! Lexer for the PTX subset (logos).
//!
//! The token set is deliberately coarse: an opcode together with its
//! modifiers (`ld.global.v4.f32`), a register (`%rd12`), a special register
//! (`%tid.x`), a label (`$L__BB0_3`) and a symbol are all one [`TokenKind::Word`];
//! a leading-dot word (`.reg`, `.u32`) is a [`TokenKind::Directive`]. The parser
//! and the lowering pass give words their meaning, which keeps the lexer a
//! single DFA pass over the bytes.

use logos::Logos;

use crate::ptx::diagnostics::{Diagnostic, Span};

/// The kind of a token. The text is recovered from the token's span.
#[derive(Logos, Clone, Copy, Debug, PartialEq, Eq)]
#[logos(skip r"[ \t\r\n\f]+")]
// Line comments, and nvopencc's debug sections (`@@DWARF .byte 0x01, …`),
// which are not PTX statements.
#[logos(skip(r"//[^\n]*|@@DWARF[^\n]*", allow_greedy = true))]
#[logos(skip r"/\*([^*]|\*+[^*/])*\*+/")]
pub enum TokenKind {
    /// A dot-prefixed word such as `.reg`, `.entry`, `.u32`.
    #[regex(r"\.[A-Za-z_][A-Za-z0-9_]*")]
    Directive,
    /// An identifier, register, opcode with modifiers, or label name.
    #[regex(r"[A-Za-z_$%][A-Za-z0-9_$]*(\.[A-Za-z0-9_]+)*")]
    Word,
    /// A decimal, hexadecimal, octal or binary integer literal (optional `U`).
    #[regex(r"[0-9]+U?")]
    #[regex(r"0[xX][0-9a-fA-F]+U?")]
    #[regex(r"0[bB][01]+U?")]
    Int,
    /// `0fXXXXXXXX`: a single-precision float given by its bits.
    #[regex(r"0[fF][0-9a-fA-F]{8}")]
    HexF32,
    /// `0dXXXXXXXXXXXXXXXX`: a double-precision float given by its bits.
    #[regex(r"0[dD][0-9a-fA-F]{16}")]
    HexF64,
    /// A decimal floating-point literal (`1.5`, `2e-3`).
    #[regex(r"[0-9]+\.[0-9]*([eE][+-]?[0-9]+)?")]
    #[regex(r"[0-9]+[eE][+-]?[0-9]+")]
    Float,
    /// A double-quoted string (only in `.file`).
    #[regex(r#""([^"\\\n]|\\.)*""#)]
    Str,
    /// `,`
    #[token(",")]
    Comma,
    /// `;`
    #[token(";")]
    Semi,
    /// `:`
    #[token(":")]
    Colon,
    /// `{`
    #[token("{")]
    LBrace,
    /// `}`
    #[token("}")]
    RBrace,
    /// `[`
    #[token("[")]
    LBracket,
    /// `]`
    #[token("]")]
    RBracket,
    /// `(`
    #[token("(")]
    LParen,
    /// `)`
    #[token(")")]
    RParen,
    /// `<`
    #[token("<")]
    Lt,
    /// `>`
    #[token(">")]
    Gt,
    /// `+`
    #[token("+")]
    Plus,
    /// `-`
    #[token("-")]
    Minus,
    /// `!`
    #[token("!")]
    Bang,
    /// `@`
    #[token("@")]
    At,
    /// `|`
    #[token("|")]
    Pipe,
    /// `=`
    #[token("=")]
    Eq,
}

impl TokenKind {
    /// How the token kind is named in "expected …" messages.
    pub fn describe(self) -> &'static str {
        match self {
            TokenKind::Directive => "a directive",
            TokenKind::Word => "a name",
            TokenKind::Int => "an integer",
            TokenKind::HexF32 | TokenKind::HexF64 | TokenKind::Float => "a float literal",
            TokenKind::Str => "a string",
            TokenKind::Comma => "`,`",
            TokenKind::Semi => "`;`",
            TokenKind::Colon => "`:`",
            TokenKind::LBrace => "`{`",
            TokenKind::RBrace => "`}`",
            TokenKind::LBracket => "`[`",
            TokenKind::RBracket => "`]`",
            TokenKind::LParen => "`(`",
            TokenKind::RParen => "`)`",
            TokenKind::Lt => "`<`",
            TokenKind::Gt => "`>`",
            TokenKind::Plus => "`+`",
            TokenKind::Minus => "`-`",
            TokenKind::Bang => "`!`",
            TokenKind::At => "`@`",
            TokenKind::Pipe => "`|`",
            TokenKind::Eq => "`=`",
        }
    }
}

/// A token: its kind, its byte span, and whether it is the first token on
/// its source line (statements such as `.loc` end at the line's end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// What the token is.
    pub kind: TokenKind,
    /// Byte range in the source.
    pub span: Span,
    /// True when no earlier token shares this token's line.
    pub line_start: bool,
}

/// Splits `src` into tokens. Bytes that start no token become diagnostics
/// (`gpusim::parse::bad_character`, `gpusim::parse::unterminated_comment`);
/// lexing continues after them so every problem of the file is reported.
pub fn lex(src: &str) -> (Vec<Token>, Vec<Diagnostic>) {
    let mut tokens = Vec::with_capacity(src.len() / 4);
    let mut errors = Vec::new();
    let mut lexer = TokenKind::lexer(src);
    let bytes = src.as_bytes();
    let mut prev_end = 0usize;
    let mut first = true;
    while let Some(result) = lexer.next() {
        let range = lexer.span();
        let line_start = first || bytes[prev_end..range.start].contains(&b'\n');
        match result {
            Ok(kind) => {
                tokens.push(Token {
                    kind,
                    span: Span::new(range.start, range.end),
                    line_start,
                });
                first = false;
            }
            Err(()) => {
                if src[range.start..].starts_with("/*") {
                    errors.push(
                        Diagnostic::new(
                            "gpusim::parse::unterminated_comment",
                            "unterminated block comment",
                        )
                        .label(
                            Span::new(range.start, range.start + 2),
                            "comment starts here",
                        )
                        .help("close it with `*/`"),
                    );
                    break;
                }
                let ch = src[range.start..].chars().next().unwrap_or('?');
                errors.push(
                    Diagnostic::new(
                        "gpusim::parse::bad_character",
                        format!("unexpected character `{}`", shown_char(ch)),
                    )
                    .label(
                        Span::new(range.start, range.end),
                        "not part of any PTX token",
                    ),
                );
            }
        }
        prev_end = range.end;
    }
    (tokens, errors)
}

/// A character as a message shows it: ASCII control characters (binary
/// garbage) as `\xNN`, like the source snippet; other characters as they
/// are, or as `\u{…}` when they would not print.
fn shown_char(ch: char) -> String {
    if ch.is_ascii_control() {
        format!("\\x{:02x}", ch as u32)
    } else if ch.is_control() {
        ch.escape_unicode().to_string()
    } else {
        ch.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn garbage_characters_are_shown_escaped() {
        assert_eq!(shown_char('\u{1}'), "\\x01");
        assert_eq!(shown_char('\u{7f}'), "\\x7f");
        assert_eq!(shown_char('\u{85}'), "\\u{85}");
        assert_eq!(shown_char('§'), "§");
    }

    fn kinds(src: &str) -> Vec<TokenKind> {
        let (t, e) = lex(src);
        assert!(e.is_empty(), "{e:?}");
        t.into_iter().map(|t| t.kind).collect()
    }

    #[test]
    fn opcode_with_modifiers_is_one_word() {
        use TokenKind::*;
        assert_eq!(
            kinds("@%p1 ld.global.v4.f32 {%f1, %f2}, [%rd3+-8];"),
            vec![
                At, Word, Word, LBrace, Word, Comma, Word, RBrace, Comma, LBracket, Word, Plus,
                Minus, Int, RBracket, Semi
            ]
        );
    }

    #[test]
    fn literals() {
        use TokenKind::*;
        assert_eq!(
            kinds("0f3F800000 0d3FF0000000000000 0x1F 17 0b101 1.5 2e3 6.0"),
            vec![HexF32, HexF64, Int, Int, Int, Float, Float, Float]
        );
    }

    #[test]
    fn comments_and_line_starts() {
        let (t, e) = lex("a // x\n/* y\n z */ b c\n d");
        assert!(e.is_empty());
        let starts: Vec<bool> = t.iter().map(|t| t.line_start).collect();
        assert_eq!(starts, vec![true, true, false, true]);
    }

    #[test]
    fn bad_characters_are_reported_and_skipped() {
        let (t, e) = lex("add # sub ~");
        assert_eq!(t.len(), 2);
        assert_eq!(e.len(), 2);
        assert_eq!(e[0].code, "gpusim::parse::bad_character");
    }

    #[test]
    fn unterminated_comment() {
        let (_, e) = lex("add /* never closed");
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].code, "gpusim::parse::unterminated_comment");
    }
}
