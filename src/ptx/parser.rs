//! Parser: nom combinators over the logos token stream, producing the
//! [`ast`](crate::ptx::ast) with a span on every node.
//!
//! nom 8 implements its `Input` trait only for `&str` and `&[u8]`, so
//! [`Tokens`] wraps a token slice (and the source text, to read names) and
//! implements it. Grammar pieces (operands, addresses, declarations,
//! parameter lists) are nom parsers; the statement loop around them is plain
//! code, because it does error recovery: a bad statement becomes a
//! diagnostic and parsing resumes at the next statement, so one run reports
//! every error of a file.

use std::borrow::Cow;

use nom::error::{ErrorKind, ParseError};
use nom::{IResult, Input, Needed, Parser as _};

use crate::ptx::ast::*;
use crate::ptx::diagnostics::{Diagnostic, Span};
use crate::ptx::lexer::{Token, TokenKind};

mod call;

/// A token slice plus the source it came from: nom's input type here.
#[derive(Clone, Copy, Debug)]
pub struct Tokens<'a> {
    toks: &'a [Token],
    src: &'a str,
    /// Index of `toks[0]` in the whole token stream.
    offset: usize,
}

impl<'a> Tokens<'a> {
    /// Wraps the whole token stream of `src`.
    pub fn new(toks: &'a [Token], src: &'a str) -> Tokens<'a> {
        Tokens {
            toks,
            src,
            offset: 0,
        }
    }

    fn first(&self) -> Option<&'a Token> {
        self.toks.first()
    }

    fn text(&self, t: &Token) -> &'a str {
        &self.src[t.span.range()]
    }
}

impl<'a> Input for Tokens<'a> {
    type Item = &'a Token;
    type Iter = std::slice::Iter<'a, Token>;
    type IterIndices = std::iter::Enumerate<std::slice::Iter<'a, Token>>;

    fn input_len(&self) -> usize {
        self.toks.len()
    }
    fn take(&self, index: usize) -> Self {
        Tokens {
            toks: &self.toks[..index],
            src: self.src,
            offset: self.offset,
        }
    }
    fn take_from(&self, index: usize) -> Self {
        Tokens {
            toks: &self.toks[index..],
            src: self.src,
            offset: self.offset + index,
        }
    }
    fn take_split(&self, index: usize) -> (Self, Self) {
        (self.take_from(index), self.take(index))
    }
    fn position<P>(&self, predicate: P) -> Option<usize>
    where
        P: Fn(Self::Item) -> bool,
    {
        self.toks.iter().position(predicate)
    }
    fn iter_elements(&self) -> Self::Iter {
        self.toks.iter()
    }
    fn iter_indices(&self) -> Self::IterIndices {
        self.toks.iter().enumerate()
    }
    fn slice_index(&self, count: usize) -> Result<usize, Needed> {
        if self.toks.len() >= count {
            Ok(count)
        } else {
            Err(Needed::new(count - self.toks.len()))
        }
    }
}

/// A parse failure: the token index where it happened and what was expected
/// there. Alternatives keep the furthest failure (and merge equal ones).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PErr {
    at: usize,
    expected: Cow<'static, str>,
}

impl<'a> ParseError<Tokens<'a>> for PErr {
    fn from_error_kind(input: Tokens<'a>, _kind: ErrorKind) -> Self {
        PErr {
            at: input.offset,
            expected: Cow::Borrowed("something else"),
        }
    }
    fn append(_input: Tokens<'a>, _kind: ErrorKind, other: Self) -> Self {
        other
    }
    fn or(self, other: Self) -> Self {
        match self.at.cmp(&other.at) {
            std::cmp::Ordering::Greater => self,
            std::cmp::Ordering::Less => other,
            std::cmp::Ordering::Equal => {
                if self.expected == other.expected || self.expected.contains(&*other.expected) {
                    self
                } else {
                    PErr {
                        at: self.at,
                        expected: Cow::Owned(format!("{} or {}", self.expected, other.expected)),
                    }
                }
            }
        }
    }
}

type PResult<'a, T> = IResult<Tokens<'a>, T, PErr>;

fn fail<T>(input: Tokens<'_>, expected: impl Into<Cow<'static, str>>) -> PResult<'_, T> {
    Err(nom::Err::Error(PErr {
        at: input.offset,
        expected: expected.into(),
    }))
}

/// One token of the given kind.
fn tok<'a>(kind: TokenKind) -> impl Fn(Tokens<'a>) -> PResult<'a, Token> {
    move |i: Tokens<'a>| match i.first() {
        Some(t) if t.kind == kind => Ok((i.take_from(1), *t)),
        _ => fail(i, kind.describe()),
    }
}

/// A word token as an identifier.
fn word(i: Tokens<'_>) -> PResult<'_, Ident<'_>> {
    match i.first() {
        Some(t) if t.kind == TokenKind::Word => Ok((
            i.take_from(1),
            Ident {
                text: i.text(t),
                span: t.span,
            },
        )),
        _ => fail(i, "a name"),
    }
}

/// Any directive token as an identifier.
fn any_directive(i: Tokens<'_>) -> PResult<'_, Ident<'_>> {
    match i.first() {
        Some(t) if t.kind == TokenKind::Directive => Ok((
            i.take_from(1),
            Ident {
                text: i.text(t),
                span: t.span,
            },
        )),
        _ => fail(i, "a directive"),
    }
}

/// The directive `name` (e.g. `.align`).
fn directive<'a>(name: &'static str) -> impl Fn(Tokens<'a>) -> PResult<'a, Ident<'a>> {
    move |i: Tokens<'a>| match i.first() {
        Some(t) if t.kind == TokenKind::Directive && i.text(t) == name => Ok((
            i.take_from(1),
            Ident {
                text: i.text(t),
                span: t.span,
            },
        )),
        _ => fail(i, format!("`{name}`")),
    }
}

/// Value of an integer literal's text (`17`, `0x1F`, `0b101`, `017`, with an
/// optional `U`), or `None` if it does not fit in 64 bits.
pub fn int_value(text: &str) -> Option<u64> {
    let t = text.strip_suffix('U').unwrap_or(text);
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u64::from_str_radix(h, 16).ok()
    } else if let Some(b) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        u64::from_str_radix(b, 2).ok()
    } else if t.len() > 1 && t.starts_with('0') && t.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        u64::from_str_radix(&t[1..], 8).ok()
    } else {
        t.parse().ok()
    }
}

/// An unsigned integer literal.
fn uint(i: Tokens<'_>) -> PResult<'_, (u64, Span)> {
    let (rest, t) = tok(TokenKind::Int)(i)?;
    match int_value(i.text(&t)) {
        Some(v) => Ok((rest, (v, t.span))),
        None => fail(i, "an integer that fits in 64 bits"),
    }
}

fn uint32(i: Tokens<'_>) -> PResult<'_, u32> {
    let (rest, (v, _)) = uint(i)?;
    match u32::try_from(v) {
        Ok(v) => Ok((rest, v)),
        Err(_) => fail(i, "an integer below 2^32"),
    }
}

/// A literal, with an optional leading `-`.
fn literal(i: Tokens<'_>) -> PResult<'_, (Literal, Span)> {
    let (i2, minus) = nom::combinator::opt(tok(TokenKind::Minus)).parse(i)?;
    let Some(t) = i2.first() else {
        return fail(i, "an operand");
    };
    let text = i2.text(t);
    let negative = minus.is_some();
    let lit = match t.kind {
        TokenKind::Int => match int_value(text) {
            Some(magnitude) => Literal::Int {
                magnitude,
                negative,
            },
            None => return fail(i2, "an integer that fits in 64 bits"),
        },
        TokenKind::HexF32 => {
            let bits = u32::from_str_radix(&text[2..], 16).unwrap_or(0);
            Literal::F32Bits(if negative { bits ^ 0x8000_0000 } else { bits })
        }
        TokenKind::HexF64 => {
            let bits = u64::from_str_radix(&text[2..], 16).unwrap_or(0);
            Literal::F64Bits(if negative { bits ^ (1 << 63) } else { bits })
        }
        TokenKind::Float => {
            let v: f64 = text.parse().unwrap_or(0.0);
            Literal::Float(if negative { -v } else { v })
        }
        _ => return fail(i, "an operand"),
    };
    let start = minus.map(|m| m.span).unwrap_or(t.span);
    Ok((i2.take_from(1), (lit, start.join(t.span))))
}

/// `[base]`, `[base+imm]`, `[base+-imm]`, `[base-imm]`, `[imm]`.
fn address(i: Tokens<'_>) -> PResult<'_, Operand<'_>> {
    let (i, open) = tok(TokenKind::LBracket)(i)?;
    let (i, base) = nom::combinator::opt(word).parse(i)?;
    let (i, offset) = if base.is_some() {
        let (i, sign) = nom::combinator::opt(nom::branch::alt((
            tok(TokenKind::Plus),
            tok(TokenKind::Minus),
        )))
        .parse(i)?;
        match sign {
            None => (i, 0i64),
            Some(s) => {
                let (i, (lit, _)) = literal(i)?;
                let v = match lit {
                    Literal::Int {
                        magnitude,
                        negative,
                    } if magnitude <= i64::MAX as u64 => {
                        let m = magnitude as i64;
                        if negative { -m } else { m }
                    }
                    _ => return fail(i, "an integer offset"),
                };
                (
                    i,
                    if s.kind == TokenKind::Minus {
                        v.wrapping_neg()
                    } else {
                        v
                    },
                )
            }
        }
    } else {
        let (i2, (lit, _)) = literal(i)?;
        match lit {
            Literal::Int {
                magnitude,
                negative: false,
            } if magnitude <= i64::MAX as u64 => (i2, magnitude as i64),
            _ => return fail(i, "a register, a variable or an address"),
        }
    };
    let (i, close) = tok(TokenKind::RBracket)(i)?;
    Ok((
        i,
        Operand::Address {
            base,
            offset,
            span: open.span.join(close.span),
        },
    ))
}

/// `[texref, {x}]` / `[texref, {x, y}]`: a texture fetch's operand.
fn tex_address(i: Tokens<'_>) -> PResult<'_, Operand<'_>> {
    let (i, open) = tok(TokenKind::LBracket)(i)?;
    let (i, tex) = word(i)?;
    let (i, _) = tok(TokenKind::Comma)(i)?;
    let (i, v) = vector(i)?;
    let (i, close) = tok(TokenKind::RBracket)(i)?;
    let Operand::Vector(coords, _) = v else {
        return fail(i, "coordinates in braces");
    };
    Ok((
        i,
        Operand::TexAddr {
            tex,
            coords,
            span: open.span.join(close.span),
        },
    ))
}

/// `{%f1, %f2, _}`
fn vector(i: Tokens<'_>) -> PResult<'_, Operand<'_>> {
    let (i, open) = tok(TokenKind::LBrace)(i)?;
    let (i, names) = nom::multi::separated_list1(tok(TokenKind::Comma), word).parse(i)?;
    let (i, close) = tok(TokenKind::RBrace)(i)?;
    Ok((i, Operand::Vector(names, open.span.join(close.span))))
}

/// `!%p`
fn negated(i: Tokens<'_>) -> PResult<'_, Operand<'_>> {
    let (i, _) = tok(TokenKind::Bang)(i)?;
    let (i, w) = word(i)?;
    Ok((i, Operand::Not(w)))
}

/// `name` or `a|b`.
fn name_or_pair(i: Tokens<'_>) -> PResult<'_, Operand<'_>> {
    let (i, a) = word(i)?;
    if let Ok((i2, _)) = tok(TokenKind::Pipe)(i) {
        let (i2, b) = word(i2)?;
        return Ok((i2, Operand::Pair(a, b)));
    }
    Ok((i, Operand::Name(a)))
}

/// Any instruction operand.
fn operand(i: Tokens<'_>) -> PResult<'_, Operand<'_>> {
    nom::branch::alt((
        tex_address,
        address,
        vector,
        negated,
        name_or_pair,
        nom::combinator::map(literal, |(l, s)| Operand::Literal(l, s)),
    ))
    .parse(i)
}

/// Operands up to (not including) the `;`.
fn operands(i: Tokens<'_>) -> PResult<'_, Vec<Operand<'_>>> {
    nom::multi::separated_list0(tok(TokenKind::Comma), operand).parse(i)
}

/// `@p` / `@!p`
fn guard(i: Tokens<'_>) -> PResult<'_, (bool, Ident<'_>)> {
    let (i, _) = tok(TokenKind::At)(i)?;
    let (i, neg) = nom::combinator::opt(tok(TokenKind::Bang)).parse(i)?;
    let (i, w) = word(i)?;
    Ok((i, (neg.is_some(), w)))
}

/// `.align N`
fn align(i: Tokens<'_>) -> PResult<'_, u32> {
    let (i, _) = directive(".align")(i)?;
    uint32(i)
}

/// `[N]` or `[]`
fn dim(i: Tokens<'_>) -> PResult<'_, Option<u64>> {
    let (i, _) = tok(TokenKind::LBracket)(i)?;
    let (i, n) = nom::combinator::opt(uint).parse(i)?;
    let (i, _) = tok(TokenKind::RBracket)(i)?;
    Ok((i, n.map(|n| n.0)))
}

/// A `.param` in an entry's parameter list (or a `.reg` parameter of a
/// `.func`, as old PTX writes them).
fn param(i: Tokens<'_>) -> PResult<'_, ParamDecl<'_>> {
    let (mut i, kw) = nom::branch::alt((directive(".param"), directive(".reg"))).parse(i)?;
    let is_reg = kw.text == ".reg";
    let mut ty: Option<Ident<'_>> = None;
    let mut al = None;
    // Type, `.ptr`, state-space and `.align N` annotations in any order.
    loop {
        if let Ok((i2, a)) = align(i) {
            al = Some(a);
            i = i2;
            continue;
        }
        match any_directive(i) {
            Ok((i2, d)) => {
                if !matches!(d.text, ".ptr" | ".global" | ".shared" | ".const" | ".local")
                    && ty.is_none()
                {
                    ty = Some(d);
                }
                i = i2;
            }
            Err(_) => break,
        }
    }
    let Some(ty) = ty else {
        return fail(i, "a parameter type such as `.u64`");
    };
    let (i, name) = word(i)?;
    let (i, array) = nom::combinator::opt(dim).parse(i)?;
    let end = name.span;
    Ok((
        i,
        ParamDecl {
            ty,
            align: al,
            name,
            array: array.flatten(),
            is_reg,
            span: kw.span.join(end),
        },
    ))
}

/// A variable declaration after its state space has been read, up to `;`.
fn var_rest<'a>(
    i: Tokens<'a>,
    space: Ident<'a>,
    linkage: Option<Ident<'a>>,
) -> PResult<'a, VarDecl<'a>> {
    let (i, al1) = nom::combinator::opt(align).parse(i)?;
    let (i, _vec) =
        nom::combinator::opt(nom::branch::alt((directive(".v2"), directive(".v4")))).parse(i)?;
    let (i, ty) = any_directive(i)?;
    let (i, al2) = nom::combinator::opt(align).parse(i)?;
    let (i, name) = word(i)?;
    let (i, dims) = nom::multi::many0(dim).parse(i)?;
    let (i, init) = nom::combinator::opt(|i| {
        let (i, _) = tok(TokenKind::Eq)(i)?;
        initializer(i)
    })
    .parse(i)?;
    let (i, semi) = tok(TokenKind::Semi)(i)?;
    let start = linkage.map(|l| l.span).unwrap_or(space.span);
    Ok((
        i,
        VarDecl {
            space,
            linkage,
            align: al1.or(al2),
            ty,
            name,
            dims,
            init,
            span: start.join(semi.span),
        },
    ))
}

/// `= 5` or `= {1, 2, {3, 4}}` (nested braces flattened).
fn initializer(i: Tokens<'_>) -> PResult<'_, Vec<Operand<'_>>> {
    initializer_nested(i, 0)
}

/// Deepest `{…}` nesting accepted (in initializers and bodies): bounds the
/// recursion so hostile input cannot overflow the stack.
const MAX_NESTING: usize = 32;

fn initializer_nested(i: Tokens<'_>, depth: usize) -> PResult<'_, Vec<Operand<'_>>> {
    if let Ok((i2, _)) = tok(TokenKind::LBrace)(i) {
        if depth >= MAX_NESTING {
            return fail(i, "an initializer nested at most 32 deep");
        }
        let i = i2;
        let (i, items) = nom::multi::separated_list0(tok(TokenKind::Comma), |i| {
            initializer_nested(i, depth + 1)
        })
        .parse(i)?;
        let (i, _) = tok(TokenKind::RBrace)(i)?;
        return Ok((i, items.into_iter().flatten().collect()));
    }
    let (i, op) = nom::branch::alt((
        nom::combinator::map(literal, |(l, s)| Operand::Literal(l, s)),
        nom::combinator::map(word, Operand::Name),
    ))
    .parse(i)?;
    Ok((i, vec![op]))
}

/// `.reg .b32 %r<6>, %x;` after the `.reg` keyword.
fn reg_rest<'a>(i: Tokens<'a>, kw: Span) -> PResult<'a, RegDecl<'a>> {
    let (i, _vec) =
        nom::combinator::opt(nom::branch::alt((directive(".v2"), directive(".v4")))).parse(i)?;
    let (i, ty) = any_directive(i)?;
    let one = |i| {
        let (i, name) = word(i)?;
        let (i, n) = nom::combinator::opt(|i| {
            let (i, _) = tok(TokenKind::Lt)(i)?;
            let (i, n) = uint32(i)?;
            let (i, _) = tok(TokenKind::Gt)(i)?;
            Ok((i, n))
        })
        .parse(i)?;
        Ok((i, (name, n)))
    };
    let (i, names) = nom::multi::separated_list1(tok(TokenKind::Comma), one).parse(i)?;
    let (i, semi) = tok(TokenKind::Semi)(i)?;
    Ok((
        i,
        RegDecl {
            ty,
            names,
            span: kw.join(semi.span),
        },
    ))
}

/// Directives accepted at module scope, for the "unknown directive" help.
const MODULE_DIRECTIVES: &[&str] = &[
    ".version",
    ".target",
    ".address_size",
    ".file",
    ".loc",
    ".pragma",
    ".visible",
    ".extern",
    ".weak",
    ".entry",
    ".func",
    ".global",
    ".shared",
    ".const",
    ".texref",
    ".samplerref",
    ".surfref",
    ".tex",
];
/// Directives accepted inside a function body.
const BODY_DIRECTIVES: &[&str] = &[
    ".reg",
    ".shared",
    ".local",
    ".global",
    ".const",
    ".param",
    ".callprototype",
    ".loc",
    ".pragma",
];

/// The parser's running state: position, diagnostics.
struct StmtParser<'a> {
    src: &'a str,
    toks: &'a [Token],
    pos: usize,
    diags: Vec<Diagnostic>,
    /// Set after a nesting overflow: the enclosing blocks stay quiet.
    gave_up: bool,
}

impl<'a> StmtParser<'a> {
    fn input(&self) -> Tokens<'a> {
        Tokens {
            toks: &self.toks[self.pos..],
            src: self.src,
            offset: self.pos,
        }
    }

    fn peek(&self) -> Option<&'a Token> {
        self.toks.get(self.pos)
    }

    fn peek_text(&self) -> &'a str {
        self.peek().map(|t| &self.src[t.span.range()]).unwrap_or("")
    }

    fn eof_span(&self) -> Span {
        Span::new(self.src.len(), self.src.len())
    }

    fn span_at(&self, idx: usize) -> Span {
        self.toks
            .get(idx)
            .map(|t| t.span)
            .unwrap_or_else(|| self.eof_span())
    }

    /// Runs a nom parser at the current position; on success advances.
    fn run<T>(&mut self, p: impl Fn(Tokens<'a>) -> PResult<'a, T>) -> Result<T, PErr> {
        match p(self.input()) {
            Ok((rest, v)) => {
                self.pos = rest.offset;
                Ok(v)
            }
            Err(nom::Err::Error(e)) | Err(nom::Err::Failure(e)) => Err(e),
            Err(nom::Err::Incomplete(_)) => Err(PErr {
                at: self.toks.len(),
                expected: Cow::Borrowed("more input"),
            }),
        }
    }

    /// Reports a nom failure as `gpusim::parse::unexpected_token`.
    fn report(&mut self, e: PErr) {
        let (found, span) = match self.toks.get(e.at) {
            Some(t) => (format!("`{}`", &self.src[t.span.range()]), t.span),
            None => ("end of file".to_string(), self.eof_span()),
        };
        self.diags.push(
            Diagnostic::new(
                "gpusim::parse::unexpected_token",
                format!("expected {}, found {}", e.expected, found),
            )
            .label(span, format!("expected {} here", e.expected)),
        );
    }

    /// Skips to just after the next `;` (or to a `}` / end of file).
    fn recover(&mut self) {
        while let Some(t) = self.peek() {
            match t.kind {
                TokenKind::Semi => {
                    self.pos += 1;
                    return;
                }
                TokenKind::RBrace => return,
                _ => self.pos += 1,
            }
        }
    }

    /// Skips the rest of the current source line (`.loc`, `.file`).
    fn skip_line(&mut self) {
        self.pos += 1;
        while let Some(t) = self.peek() {
            if t.line_start {
                return;
            }
            self.pos += 1;
        }
    }

    fn unknown_directive(&mut self, allowed: &[&str], where_: &str) {
        let t = self.peek().copied().expect("caller checked");
        let text = &self.src[t.span.range()];
        let mut d = Diagnostic::new(
            "gpusim::parse::unknown_directive",
            format!("unknown directive `{text}` {where_}"),
        )
        .label(t.span, "not a directive gpusim knows here");
        d = match crate::ptx::suggest::closest(text, allowed.iter().copied()) {
            Some(s) => d.help(format!("did you mean `{s}`?")),
            None => d.help(format!("accepted here: {}", allowed.join(" "))),
        };
        self.diags.push(d);
        self.skip_statement_or_line();
    }

    /// After a bad directive: skip to `;`, or to the end of the line when the
    /// statement has no `;` there.
    fn skip_statement_or_line(&mut self) {
        let start = self.pos;
        self.pos += 1;
        while let Some(t) = self.peek() {
            match t.kind {
                TokenKind::Semi => {
                    self.pos += 1;
                    return;
                }
                TokenKind::RBrace | TokenKind::LBrace => return,
                _ if t.line_start && self.pos > start => return,
                _ => self.pos += 1,
            }
        }
    }

    fn module(&mut self) -> Module<'a> {
        let mut m = Module::default();
        while let Some(t) = self.peek() {
            let text = self.peek_text();
            match (t.kind, text) {
                (TokenKind::Directive, ".version") => {
                    self.pos += 1;
                    match self.peek() {
                        Some(v) if matches!(v.kind, TokenKind::Float | TokenKind::Int) => {
                            m.version = Some(Ident {
                                text: &self.src[v.span.range()],
                                span: v.span,
                            });
                            self.pos += 1;
                        }
                        _ => {
                            self.report(PErr {
                                at: self.pos,
                                expected: Cow::Borrowed("a version such as `7.0`"),
                            });
                            self.skip_statement_or_line();
                        }
                    }
                }
                (TokenKind::Directive, ".target") => {
                    self.pos += 1;
                    match self
                        .run(|i| nom::multi::separated_list1(tok(TokenKind::Comma), word).parse(i))
                    {
                        Ok(ts) => m.target = ts,
                        Err(e) => {
                            self.report(e);
                            self.skip_statement_or_line();
                        }
                    }
                }
                (TokenKind::Directive, ".address_size") => {
                    self.pos += 1;
                    match self.run(uint) {
                        Ok((v, s)) => m.address_size = Some((v as u32, s)),
                        Err(e) => {
                            self.report(e);
                            self.skip_statement_or_line();
                        }
                    }
                }
                (TokenKind::Directive, ".file" | ".loc") => self.skip_line(),
                (TokenKind::Directive, ".pragma") => self.skip_statement_or_line(),
                (TokenKind::Directive, ".visible" | ".extern" | ".weak" | ".entry" | ".func") => {
                    self.linked_item(&mut m)
                }
                (TokenKind::Directive, ".global")
                    if matches!(
                        self.text_at(self.pos + 1),
                        ".texref" | ".samplerref" | ".surfref"
                    ) =>
                {
                    self.pos += 1;
                    self.texture_decl(&mut m);
                }
                (TokenKind::Directive, ".texref" | ".samplerref" | ".surfref" | ".tex") => {
                    self.texture_decl(&mut m)
                }
                (TokenKind::Directive, ".global" | ".shared" | ".const" | ".local") => {
                    self.linked_item(&mut m)
                }
                (TokenKind::Directive, _) => {
                    self.unknown_directive(MODULE_DIRECTIVES, "at module scope")
                }
                _ => {
                    let d = Diagnostic::new(
                        "gpusim::parse::unexpected_token",
                        format!("expected a directive at module scope, found `{text}`"),
                    )
                    .label(t.span, "instructions belong inside an `.entry` body")
                    .help("a kernel is `.visible .entry name(params) { … }`");
                    self.diags.push(d);
                    self.recover();
                    if self.peek().map(|t| t.kind) == Some(TokenKind::RBrace) {
                        self.pos += 1;
                    }
                }
            }
        }
        m
    }

    /// The text of token `idx` (empty past the end).
    fn text_at(&self, idx: usize) -> &'a str {
        self.toks.get(idx).map_or("", |t| &self.src[t.span.range()])
    }

    /// `.texref a, b;`, `.samplerref s;`, `.surfref s;`, PTX 1.x `.tex .u32 t;`
    /// (the parser stands on the kind directive).
    fn texture_decl(&mut self, m: &mut Module<'a>) {
        let Some(&kt) = self.peek() else { return };
        let kind = Ident {
            text: &self.src[kt.span.range()],
            span: kt.span,
        };
        self.pos += 1;
        if kind.text == ".tex" && matches!(self.text_at(self.pos), ".u32" | ".u64") {
            self.pos += 1;
        }
        match self.run(|i| {
            let (i, names) = nom::multi::separated_list1(tok(TokenKind::Comma), word).parse(i)?;
            let (i, _) = tok(TokenKind::Semi)(i)?;
            Ok((i, names))
        }) {
            Ok(names) => m
                .textures
                .extend(names.into_iter().map(|name| TexDecl { kind, name })),
            Err(e) => {
                self.report(e);
                self.skip_statement_or_line();
            }
        }
    }

    /// `.visible .entry …`, `.extern .shared …`, `.global …`.
    fn linked_item(&mut self, m: &mut Module<'a>) {
        let mut linkage = None;
        while matches!(self.peek_text(), ".visible" | ".extern" | ".weak") {
            let t = self.peek().copied().expect("peeked");
            linkage = Some(Ident {
                text: &self.src[t.span.range()],
                span: t.span,
            });
            self.pos += 1;
        }
        match self.peek_text() {
            ".entry" | ".func" => {
                let is_extern = linkage.is_some_and(|l| l.text == ".extern");
                if let Some(mut f) = self.function() {
                    f.is_extern = is_extern;
                    m.functions.push(f);
                }
            }
            ".global" | ".shared" | ".const" | ".local" => {
                let t = self.peek().copied().expect("peeked");
                let space = Ident {
                    text: &self.src[t.span.range()],
                    span: t.span,
                };
                self.pos += 1;
                match self.run(|i| var_rest(i, space, linkage)) {
                    Ok(v) => m.globals.push(v),
                    Err(e) => {
                        self.report(e);
                        self.recover();
                    }
                }
            }
            _ => {
                self.report(PErr {
                    at: self.pos,
                    expected: Cow::Borrowed("`.entry`, `.func` or a variable"),
                });
                self.skip_statement_or_line();
            }
        }
    }

    /// `.entry name (params) perf* { body }` (also `.func`, parsed so that
    /// lowering can reject it with a precise message).
    fn function(&mut self) -> Option<Function<'a>> {
        let kw_tok = *self.peek()?;
        let is_entry = self.peek_text() == ".entry";
        self.pos += 1;
        // `.func (.param .b32 ret) name (…)`: an optional return list first.
        let mut rets = Vec::new();
        if !is_entry && self.peek().map(|t| t.kind) == Some(TokenKind::LParen) {
            match self.run(param_list) {
                Ok(r) => rets = r,
                Err(e) => {
                    self.report(e);
                    self.skip_function();
                    return None;
                }
            }
        }
        let name = match self.run(word) {
            Ok(n) => n,
            Err(e) => {
                self.report(e);
                self.skip_function();
                return None;
            }
        };
        let params = if self.peek().map(|t| t.kind) == Some(TokenKind::LParen) {
            match self.run(param_list) {
                Ok(p) => p,
                Err(e) => {
                    self.report(e);
                    self.skip_function();
                    return None;
                }
            }
        } else {
            Vec::new()
        };
        let mut f = Function {
            is_entry,
            keyword: kw_tok.span,
            name,
            params,
            rets,
            is_extern: false,
            maxntid: None,
            reqntid: None,
            maxnreg: None,
            body: None,
            span: kw_tok.span.join(name.span),
        };
        // Performance-tuning directives.
        loop {
            match self.peek_text() {
                ".maxntid" | ".reqntid" => {
                    let which = self.peek_text();
                    self.pos += 1;
                    match self.run(|i| {
                        nom::multi::separated_list1(tok(TokenKind::Comma), uint32).parse(i)
                    }) {
                        Ok(v) => {
                            let mut dims = [1u32; 3];
                            for (d, x) in dims.iter_mut().zip(v) {
                                *d = x;
                            }
                            if which == ".maxntid" {
                                f.maxntid = Some(dims)
                            } else {
                                f.reqntid = Some(dims)
                            }
                        }
                        Err(e) => self.report(e),
                    }
                }
                ".maxnreg" => {
                    self.pos += 1;
                    match self.run(uint32) {
                        Ok(n) => f.maxnreg = Some(n),
                        Err(e) => self.report(e),
                    }
                }
                ".minnctapersm" | ".maxnctapersm" | ".maxclusterrank" => {
                    self.pos += 1;
                    if let Err(e) = self.run(uint32) {
                        self.report(e);
                    }
                }
                ".noreturn" => self.pos += 1,
                ".pragma" => self.skip_statement_or_line(),
                _ => break,
            }
        }
        match self.peek().map(|t| t.kind) {
            Some(TokenKind::Semi) => {
                self.pos += 1;
            }
            Some(TokenKind::LBrace) => {
                let open = self.span_at(self.pos);
                self.pos += 1;
                let body = self.block(open, 0);
                f.span = f.span.join(self.span_at(self.pos.saturating_sub(1)));
                f.body = Some(body);
            }
            _ => {
                self.report(PErr {
                    at: self.pos,
                    expected: Cow::Borrowed("`{` or `;`"),
                });
                self.skip_function();
            }
        }
        Some(f)
    }

    /// After an unparseable function header: skip to the next module-level
    /// `.entry`/`.func`/`.visible` or past a balanced body.
    fn skip_function(&mut self) {
        let mut depth = 0usize;
        while let Some(t) = self.peek() {
            match t.kind {
                TokenKind::LBrace => depth += 1,
                TokenKind::RBrace => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        self.pos += 1;
                        return;
                    }
                }
                TokenKind::Directive
                    if depth == 0
                        && matches!(self.peek_text(), ".visible" | ".entry" | ".func") =>
                {
                    return;
                }
                _ => {}
            }
            self.pos += 1;
        }
    }

    /// Statements up to the `}` matching `open` (consumed).
    fn block(&mut self, open: Span, depth: usize) -> Vec<Stmt<'a>> {
        let mut out = Vec::new();
        loop {
            let Some(t) = self.peek().copied() else {
                self.unterminated(open);
                return out;
            };
            let text = self.peek_text();
            match t.kind {
                TokenKind::RBrace => {
                    self.pos += 1;
                    return out;
                }
                TokenKind::LBrace => {
                    self.pos += 1;
                    if depth >= MAX_NESTING {
                        self.diags.push(
                            Diagnostic::new(
                                "gpusim::parse::nesting_too_deep",
                                "blocks are nested too deeply",
                            )
                            .label(t.span, format!("more than {MAX_NESTING} levels of `{{`")),
                        );
                        self.skip_function();
                        self.gave_up = true;
                        return out;
                    }
                    let inner = self.block(t.span, depth + 1);
                    out.push(Stmt::Block(inner));
                }
                TokenKind::Directive => match text {
                    ".reg" => {
                        self.pos += 1;
                        match self.run(|i| reg_rest(i, t.span)) {
                            Ok(r) => out.push(Stmt::Reg(r)),
                            Err(e) => {
                                self.report(e);
                                self.recover();
                            }
                        }
                    }
                    ".shared" | ".local" | ".global" | ".const" => {
                        let space = Ident { text, span: t.span };
                        self.pos += 1;
                        match self.run(|i| var_rest(i, space, None)) {
                            Ok(v) => out.push(Stmt::Var(v)),
                            Err(e) => {
                                self.report(e);
                                self.recover();
                            }
                        }
                    }
                    ".param" => {
                        // A call-site parameter (`.param .b32 param0;`).
                        let space = Ident { text, span: t.span };
                        self.pos += 1;
                        match self.run(|i| var_rest(i, space, None)) {
                            Ok(v) => out.push(Stmt::Var(v)),
                            Err(e) => {
                                self.report(e);
                                self.recover();
                            }
                        }
                    }
                    ".callprototype" => {
                        let label = match out.last() {
                            Some(Stmt::Label(l)) => Some(*l),
                            _ => None,
                        };
                        if label.is_some() {
                            out.pop();
                        }
                        if let Some(p) = self.prototype(label, t.span) {
                            out.push(Stmt::Prototype(p));
                        }
                    }
                    ".loc" | ".file" => self.skip_line(),
                    ".pragma" => self.skip_statement_or_line(),
                    ".visible" | ".entry" | ".func" | ".extern" | ".version" | ".target" => {
                        // A module-level item inside a body: the body was never closed.
                        self.unterminated(open);
                        return out;
                    }
                    _ => {
                        // Report, then read a near-miss of `.reg` as `.reg`
                        // so its registers do not cascade into more errors.
                        let guess = crate::ptx::suggest::closest(text, [".reg"]);
                        let save = self.pos;
                        self.unknown_directive(BODY_DIRECTIVES, "in a function body");
                        if guess.is_some() {
                            let end = self.pos;
                            self.pos = save + 1;
                            match self.run(|i| reg_rest(i, t.span)) {
                                Ok(r) => out.push(Stmt::Reg(r)),
                                Err(_) => self.pos = end,
                            }
                        }
                    }
                },
                TokenKind::Word
                    if self.toks.get(self.pos + 1).map(|n| n.kind) == Some(TokenKind::Colon) =>
                {
                    out.push(Stmt::Label(Ident { text, span: t.span }));
                    self.pos += 2;
                }
                TokenKind::Word | TokenKind::At if self.at_call() => {
                    if let Some(c) = self.call() {
                        out.push(Stmt::Call(c));
                    }
                }
                TokenKind::Word | TokenKind::At => {
                    if let Some(inst) = self.instruction() {
                        out.push(Stmt::Inst(inst));
                    }
                }
                _ => {
                    self.report(PErr {
                        at: self.pos,
                        expected: Cow::Borrowed("an instruction, a label or a declaration"),
                    });
                    self.recover();
                }
            }
        }
    }

    fn unterminated(&mut self, open: Span) {
        if self.gave_up {
            return;
        }
        self.diags.push(
            Diagnostic::new(
                "gpusim::parse::unterminated_block",
                "unterminated block: `{` is never closed",
            )
            .label(open, "this `{` has no matching `}`")
            .help("add `}` where the block ends"),
        );
    }

    /// A statement's optional `@p`/`@!p` guard and its opcode (the start of
    /// instructions and calls); reports and recovers on errors.
    pub(super) fn statement_head(&mut self) -> Option<(Option<(bool, Ident<'a>)>, Ident<'a>)> {
        let head = self.run(|i| {
            let (i, g) = nom::combinator::opt(guard).parse(i)?;
            let (i, op) = word(i)?;
            Ok((i, (g, op)))
        });
        match head {
            Ok(h) => Some(h),
            Err(e) => {
                self.report(e);
                self.recover();
                None
            }
        }
    }

    /// `@p opcode operands ;`
    fn instruction(&mut self) -> Option<Instruction<'a>> {
        let start = self.pos;
        let (g, opcode) = self.statement_head()?;
        let ops = match self.run(operands) {
            Ok(o) => o,
            Err(e) => {
                self.report(e);
                self.recover();
                return None;
            }
        };
        let last = self.span_at(self.pos.saturating_sub(1));
        match self.peek() {
            Some(t) if t.kind == TokenKind::Semi => {
                self.pos += 1;
                Some(Instruction {
                    guard: g,
                    opcode,
                    operands: ops,
                    span: self.span_at(start).join(t.span),
                })
            }
            Some(t) if !t.line_start && t.kind != TokenKind::RBrace => {
                self.report(PErr {
                    at: self.pos,
                    expected: Cow::Borrowed("`,` or `;`"),
                });
                self.recover();
                None
            }
            _ => {
                // Missing `;`: the statement ended at the line's end (or at `}`).
                self.diags.push(
                    Diagnostic::new(
                        "gpusim::parse::missing_semicolon",
                        "expected `;` after this instruction",
                    )
                    .label(last.after(), "`;` missing here")
                    .help("every PTX statement ends with `;`"),
                );
                Some(Instruction {
                    guard: g,
                    opcode,
                    operands: ops,
                    span: self.span_at(start).join(last),
                })
            }
        }
    }
}

/// `( .param …, .param … )`
fn param_list(i: Tokens<'_>) -> PResult<'_, Vec<ParamDecl<'_>>> {
    let (i, _) = tok(TokenKind::LParen)(i)?;
    let (i, ps) = nom::multi::separated_list0(tok(TokenKind::Comma), param).parse(i)?;
    let (i, _) = tok(TokenKind::RParen)(i)?;
    Ok((i, ps))
}

/// Parses a token stream into a module. Always returns a module (possibly
/// partial) together with every syntax error found.
pub fn parse<'a>(src: &'a str, toks: &'a [Token]) -> (Module<'a>, Vec<Diagnostic>) {
    let mut p = StmtParser {
        src,
        toks,
        pos: 0,
        diags: Vec::new(),
        gave_up: false,
    };
    let m = p.module();
    (m, p.diags)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ptx::lexer::lex;

    fn parse_ok(src: &str) -> Module<'_> {
        let (toks, e) = lex(src);
        assert!(e.is_empty());
        let toks: &'static [Token] = Box::leak(toks.into_boxed_slice());
        let (m, d) = parse(src, toks);
        assert!(d.is_empty(), "{d:?}");
        m
    }

    #[test]
    fn entry_with_params_and_body() {
        let src = ".version 7.0\n.target sm_70\n.address_size 64\n\
            .visible .entry k(.param .u64 .ptr .global .align 4 k_p0, .param .u32 k_p1)\n.maxntid 128, 1, 1\n{\n\
            .reg .b32 %r<4>;\n\
            ld.param.u32 %r1, [k_p1];\n\
            $L__BB0_1:\n\
            @!%p1 bra $L__BB0_1;\n\
            st.global.v2.f32 [%rd1+-8], {%f1, %f2};\n\
            ret;\n}\n";
        let m = parse_ok(src);
        assert_eq!(m.version.unwrap().text, "7.0");
        assert_eq!(m.address_size.unwrap().0, 64);
        let f = &m.functions[0];
        assert!(f.is_entry);
        assert_eq!(f.name.text, "k");
        assert_eq!(f.params.len(), 2);
        assert_eq!(f.params[0].ty.text, ".u64");
        assert_eq!(f.params[0].align, Some(4));
        assert_eq!(f.maxntid, Some([128, 1, 1]));
        let body = f.body.as_ref().unwrap();
        assert_eq!(body.len(), 6);
        match &body[3] {
            Stmt::Inst(i) => {
                assert!(i.guard.unwrap().0);
                assert_eq!(i.opcode.text, "bra");
            }
            s => panic!("{s:?}"),
        }
        match &body[4] {
            Stmt::Inst(i) => {
                assert_eq!(i.operands.len(), 2);
                assert!(matches!(i.operands[0], Operand::Address { offset: -8, .. }));
                assert!(matches!(&i.operands[1], Operand::Vector(v, _) if v.len() == 2));
            }
            s => panic!("{s:?}"),
        }
    }

    #[test]
    fn recovers_and_reports_every_error() {
        let src = ".visible .entry k()\n{\n add.s32 %r1, %r2 %r3;\n mov.u32 %r1, 1\n ret;\n .bogus 3;\n}\n";
        let (toks, _) = lex(src);
        let (_, d) = parse(src, &toks);
        let codes: Vec<_> = d.iter().map(|d| d.code).collect();
        assert_eq!(
            codes,
            vec![
                "gpusim::parse::unexpected_token",
                "gpusim::parse::missing_semicolon",
                "gpusim::parse::unknown_directive"
            ]
        );
    }

    #[test]
    fn int_values() {
        assert_eq!(int_value("0x1F"), Some(31));
        assert_eq!(int_value("017"), Some(15));
        assert_eq!(int_value("0b101"), Some(5));
        assert_eq!(int_value("42U"), Some(42));
        assert_eq!(int_value("0"), Some(0));
        assert_eq!(int_value("99999999999999999999"), None);
    }
}
