//! Call syntax: `call`/`call.uni` statements and `.callprototype`
//! declarations (nvcc's call-sequence blocks).

use std::borrow::Cow;

use nom::Parser as _;

use super::{PErr, PResult, StmtParser, Tokens, param_list, tok, word};
use crate::ptx::ast::{CallStmt, Ident, Prototype};
use crate::ptx::diagnostics::Span;
use crate::ptx::lexer::TokenKind;

/// `( a, b, … )`: names (call-site parameters or registers).
fn name_list(i: Tokens<'_>) -> PResult<'_, Vec<Ident<'_>>> {
    let (i, _) = tok(TokenKind::LParen)(i)?;
    let (i, v) = nom::multi::separated_list0(tok(TokenKind::Comma), word).parse(i)?;
    let (i, _) = tok(TokenKind::RParen)(i)?;
    Ok((i, v))
}

/// Everything after the opcode: `(rets), target, (args), proto ;`.
type CallParts<'a> = (
    Vec<Ident<'a>>,
    Ident<'a>,
    Vec<Ident<'a>>,
    Option<Ident<'a>>,
    Span,
);

fn call_rest(i: Tokens<'_>) -> PResult<'_, CallParts<'_>> {
    let (i, rets) = nom::combinator::opt(|i| {
        let (i, r) = name_list(i)?;
        let (i, _) = tok(TokenKind::Comma)(i)?;
        Ok((i, r))
    })
    .parse(i)?;
    let (i, target) = word(i)?;
    let (i, args) = nom::combinator::opt(|i| {
        let (i, _) = tok(TokenKind::Comma)(i)?;
        name_list(i)
    })
    .parse(i)?;
    let (i, proto) = nom::combinator::opt(|i| {
        let (i, _) = tok(TokenKind::Comma)(i)?;
        word(i)
    })
    .parse(i)?;
    let (i, semi) = tok(TokenKind::Semi)(i)?;
    Ok((
        i,
        (
            rets.unwrap_or_default(),
            target,
            args.unwrap_or_default(),
            proto,
            semi.span,
        ),
    ))
}

/// `(rets)? _ (params) ;` after `.callprototype`.
type ProtoParts<'a> = (
    Vec<crate::ptx::ast::ParamDecl<'a>>,
    Vec<crate::ptx::ast::ParamDecl<'a>>,
    Span,
);

fn prototype_rest(i: Tokens<'_>) -> PResult<'_, ProtoParts<'_>> {
    let (i, rets) = nom::combinator::opt(param_list).parse(i)?;
    let (i, _) = word(i)?;
    let (i, params) = nom::combinator::opt(param_list).parse(i)?;
    let (i, semi) = tok(TokenKind::Semi)(i)?;
    Ok((
        i,
        (
            rets.unwrap_or_default(),
            params.unwrap_or_default(),
            semi.span,
        ),
    ))
}

impl<'a> StmtParser<'a> {
    /// True when the statement at the cursor is a `call` (after any guard).
    pub(super) fn at_call(&self) -> bool {
        let mut j = self.pos;
        let kind = |j: usize| self.toks.get(j).map(|t| t.kind);
        if kind(j) == Some(TokenKind::At) {
            j += 1;
            if kind(j) == Some(TokenKind::Bang) {
                j += 1;
            }
            j += 1;
        }
        match self.toks.get(j) {
            Some(t) if t.kind == TokenKind::Word => {
                let text = &self.src[t.span.range()];
                text == "call" || text.starts_with("call.")
            }
            _ => false,
        }
    }

    /// `@p call.uni (r), f, (a, b);` — reports and recovers on errors.
    pub(super) fn call(&mut self) -> Option<CallStmt<'a>> {
        let start = self.pos;
        let (g, opcode) = self.statement_head()?;
        match self.run(call_rest) {
            Ok((rets, target, args, proto, end)) => Some(CallStmt {
                guard: g,
                opcode,
                rets,
                target,
                args,
                proto,
                span: self.span_at(start).join(end),
            }),
            Err(e) => {
                let e = PErr {
                    at: e.at,
                    expected: Cow::Owned(format!(
                        "{} (the form is `call (ret), func, (arg, …);`)",
                        e.expected
                    )),
                };
                self.report(e);
                self.recover();
                None
            }
        }
    }

    /// `.callprototype …;` (the cursor is on the directive); `label` is the
    /// `name:` written before it.
    pub(super) fn prototype(
        &mut self,
        label: Option<Ident<'a>>,
        kw: Span,
    ) -> Option<Prototype<'a>> {
        self.pos += 1;
        let Some(name) = label else {
            self.report(PErr {
                at: self.pos.saturating_sub(1),
                expected: Cow::Borrowed(
                    "a label before `.callprototype` (`proto: .callprototype …`)",
                ),
            });
            self.recover();
            return None;
        };
        match self.run(prototype_rest) {
            Ok((rets, params, end)) => Some(Prototype {
                name,
                rets,
                params,
                span: name.span.join(kw).join(end),
            }),
            Err(e) => {
                self.report(e);
                self.recover();
                None
            }
        }
    }
}
