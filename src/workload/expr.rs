//! The small arithmetic a `buffers` manifest may write where a number goes:
//! `"$n"`, `"$n - 1"`, `"($rows + 255) / 256"`, `"$t * 4"`. Names are
//! `[args]` values (constant for the run, so `--arg n=…` changes them) or
//! the counters of enclosing host loops (known only while the loop runs).
//!
//! Grammar: `expr = term (("+" | "-") term)*`, `term = atom (("*" | "/" |
//! "%") atom)*`, `atom = integer | float | "$" name | "(" expr ")" | "-"
//! atom | ("min" | "max") "(" expr "," expr ")"`. Integers stay 64-bit integers (division truncates; dividing by
//! zero or overflowing is an error); any float operand makes the result a
//! float.

use crate::workload::host::WorkloadError;

/// A number: integer or float.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
}

impl Num {
    /// The value as a float.
    pub fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }
}

/// A parsed expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A constant (numbers and `[args]` values, folded when parsed).
    Const(Num),
    /// The counter of the enclosing loop with this name.
    Counter(String),
    /// `a op b` (`+ - * / %`; `<` is `min(a, b)`, `>` is `max(a, b)`).
    Bin(char, Box<Expr>, Box<Expr>),
}

impl Expr {
    /// A TOML value as an expression: a number, or a string to parse.
    /// `arg` gives `[args]` values; `counters` the loop counters in scope.
    pub fn from_toml(
        v: &toml::Value,
        what: &str,
        arg: &mut dyn FnMut(&str) -> Result<Option<Num>, WorkloadError>,
        counters: &[String],
    ) -> Result<Expr, WorkloadError> {
        match v {
            toml::Value::Integer(i) => Ok(Expr::Const(Num::Int(*i))),
            toml::Value::Float(f) => Ok(Expr::Const(Num::Float(*f))),
            toml::Value::String(s) => Expr::parse(s, what, arg, counters),
            other => Err(WorkloadError::Args(format!(
                "{what}: expected a number or an expression such as \"$n\", got {other}"
            ))),
        }
    }

    /// Parses `text` (see the module documentation).
    pub fn parse(
        text: &str,
        what: &str,
        arg: &mut dyn FnMut(&str) -> Result<Option<Num>, WorkloadError>,
        counters: &[String],
    ) -> Result<Expr, WorkloadError> {
        let mut p = Parser {
            s: text.as_bytes(),
            pos: 0,
            text,
            what,
            arg,
            counters,
        };
        let e = p.expr()?;
        p.skip_ws();
        if p.pos != p.s.len() {
            return Err(p.error("unexpected text"));
        }
        Ok(e)
    }

    /// Evaluates with `counter` giving loop counters' current values.
    pub fn eval(&self, counter: &dyn Fn(&str) -> Option<i64>) -> Result<Num, WorkloadError> {
        match self {
            Expr::Const(n) => Ok(*n),
            Expr::Counter(c) => counter(c).map(Num::Int).ok_or_else(|| {
                WorkloadError::Args(format!("loop counter `${c}` used outside its loop"))
            }),
            Expr::Bin(op @ ('<' | '>'), a, b) => {
                let (a, b) = (a.eval(counter)?, b.eval(counter)?);
                let first = match (a, b) {
                    (Num::Int(x), Num::Int(y)) => (x < y) == (*op == '<'),
                    _ => (a.as_f64() < b.as_f64()) == (*op == '<'),
                };
                Ok(if first { a } else { b })
            }
            Expr::Bin(op, a, b) => {
                let (a, b) = (a.eval(counter)?, b.eval(counter)?);
                let overflow = || WorkloadError::Args(format!("`{a:?} {op} {b:?}` overflows"));
                match (a, b) {
                    (Num::Int(x), Num::Int(y)) => Ok(Num::Int(match op {
                        '+' => x.checked_add(y).ok_or_else(overflow)?,
                        '-' => x.checked_sub(y).ok_or_else(overflow)?,
                        '*' => x.checked_mul(y).ok_or_else(overflow)?,
                        '/' | '%' if y == 0 => {
                            return Err(WorkloadError::Args(format!(
                                "division by zero in `{x} {op} {y}`"
                            )));
                        }
                        '/' => x.checked_div(y).ok_or_else(overflow)?,
                        _ => x.checked_rem(y).ok_or_else(overflow)?,
                    })),
                    (a, b) => {
                        let (x, y) = (a.as_f64(), b.as_f64());
                        Ok(Num::Float(match op {
                            '+' => x + y,
                            '-' => x - y,
                            '*' => x * y,
                            '/' => x / y,
                            _ => x % y,
                        }))
                    }
                }
            }
        }
    }

    /// Evaluates to an integer in `lo..=hi`, or an error naming `what`.
    pub fn int_in(
        &self,
        counter: &dyn Fn(&str) -> Option<i64>,
        what: &str,
        lo: i64,
        hi: i64,
    ) -> Result<i64, WorkloadError> {
        match self.eval(counter)? {
            Num::Int(i) if (lo..=hi).contains(&i) => Ok(i),
            n => Err(WorkloadError::Args(format!(
                "{what} = {} must be an integer in {lo}..={hi}",
                match n {
                    Num::Int(i) => i.to_string(),
                    Num::Float(f) => f.to_string(),
                }
            ))),
        }
    }
}

struct Parser<'a, 'b> {
    s: &'a [u8],
    pos: usize,
    text: &'a str,
    what: &'a str,
    arg: &'b mut dyn FnMut(&str) -> Result<Option<Num>, WorkloadError>,
    counters: &'a [String],
}

impl Parser<'_, '_> {
    fn error(&self, why: &str) -> WorkloadError {
        WorkloadError::Args(format!(
            "{}: {why} at column {} of \"{}\" (expressions: numbers, $name, + - * / %, min(a, b), max(a, b) and parentheses)",
            self.what,
            self.pos + 1,
            self.text
        ))
    }

    fn skip_ws(&mut self) {
        while self.s.get(self.pos).is_some_and(u8::is_ascii_whitespace) {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_ws();
        self.s.get(self.pos).copied()
    }

    fn expr(&mut self) -> Result<Expr, WorkloadError> {
        let mut e = self.term()?;
        while let Some(c @ (b'+' | b'-')) = self.peek() {
            self.pos += 1;
            e = fold(c as char, e, self.term()?)?;
        }
        Ok(e)
    }

    fn term(&mut self) -> Result<Expr, WorkloadError> {
        let mut e = self.atom()?;
        while let Some(c @ (b'*' | b'/' | b'%')) = self.peek() {
            self.pos += 1;
            e = fold(c as char, e, self.atom()?)?;
        }
        Ok(e)
    }

    fn atom(&mut self) -> Result<Expr, WorkloadError> {
        match self.peek() {
            Some(b'(') => {
                self.pos += 1;
                let e = self.expr()?;
                if self.peek() != Some(b')') {
                    return Err(self.error("expected `)`"));
                }
                self.pos += 1;
                Ok(e)
            }
            Some(b'-') => {
                self.pos += 1;
                fold('-', Expr::Const(Num::Int(0)), self.atom()?)
            }
            Some(b'm') => {
                let op = if self.text[self.pos..].starts_with("min") {
                    '<'
                } else if self.text[self.pos..].starts_with("max") {
                    '>'
                } else {
                    return Err(self.error("expected a number, `$name`, `min(`, `max(` or `(`"));
                };
                self.pos += 3;
                if self.peek() != Some(b'(') {
                    return Err(self.error("expected `(`"));
                }
                self.pos += 1;
                let a = self.expr()?;
                if self.peek() != Some(b',') {
                    return Err(self.error("expected `,`"));
                }
                self.pos += 1;
                let b = self.expr()?;
                if self.peek() != Some(b')') {
                    return Err(self.error("expected `)`"));
                }
                self.pos += 1;
                fold(op, a, b)
            }
            Some(b'$') => {
                self.pos += 1;
                let start = self.pos;
                while self
                    .s
                    .get(self.pos)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'_')
                {
                    self.pos += 1;
                }
                let name = &self.text[start..self.pos];
                if name.is_empty() {
                    return Err(self.error("expected a name after `$`"));
                }
                if self.counters.iter().any(|c| c == name) {
                    return Ok(Expr::Counter(name.to_string()));
                }
                match (self.arg)(name)? {
                    Some(n) => Ok(Expr::Const(n)),
                    None => Err(WorkloadError::Args(format!(
                        "{}: `${name}` is neither an `[args]` value nor the counter of an enclosing loop",
                        self.what
                    ))),
                }
            }
            Some(c) if c.is_ascii_digit() || c == b'.' => {
                let start = self.pos;
                while self
                    .s
                    .get(self.pos)
                    .is_some_and(|c| c.is_ascii_alphanumeric() || *c == b'.' || *c == b'_')
                {
                    self.pos += 1;
                }
                let t = self.text[start..self.pos].replace('_', "");
                if let Ok(i) = t.parse::<i64>() {
                    Ok(Expr::Const(Num::Int(i)))
                } else if let Ok(f) = t.parse::<f64>() {
                    Ok(Expr::Const(Num::Float(f)))
                } else {
                    self.pos = start;
                    Err(self.error("not a number"))
                }
            }
            _ => Err(self.error("expected a number, `$name` or `(`")),
        }
    }
}

/// `a op b`, folded when both are constants.
fn fold(op: char, a: Expr, b: Expr) -> Result<Expr, WorkloadError> {
    let e = Expr::Bin(op, Box::new(a), Box::new(b));
    if let Expr::Bin(_, a, b) = &e
        && matches!(**a, Expr::Const(_))
        && matches!(**b, Expr::Const(_))
    {
        return Ok(Expr::Const(e.eval(&|_| None)?));
    }
    Ok(e)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(text: &str, n: i64, t: i64) -> Result<Num, WorkloadError> {
        let mut arg = |k: &str| Ok((k == "n").then_some(Num::Int(n)));
        let e = Expr::parse(text, "x", &mut arg, &["t".to_string()])?;
        e.eval(&|c| (c == "t").then_some(t))
    }

    #[test]
    fn precedence_parentheses_counters_and_args() {
        assert_eq!(eval("$n - 1", 16, 0).unwrap(), Num::Int(15));
        assert_eq!(eval("($n + 255) / 256", 1000, 0).unwrap(), Num::Int(4));
        assert_eq!(eval("2 + 3 * $t", 0, 4).unwrap(), Num::Int(14));
        assert_eq!(eval("$t % 2", 0, 7).unwrap(), Num::Int(1));
        assert_eq!(eval("-$t + 1", 0, 3).unwrap(), Num::Int(-2));
        assert_eq!(eval("$n / 2.0", 5, 0).unwrap(), Num::Float(2.5));
        // Pathfinder's MIN(pyramid, rows - t - 1) with rows = 10, t = 8.
        assert_eq!(eval("min(2, $n - $t - 1)", 10, 8).unwrap(), Num::Int(1));
        assert_eq!(eval("max($t, 3) * 2", 0, 5).unwrap(), Num::Int(10));
        assert_eq!(eval("min(1.5, $t)", 0, 5).unwrap(), Num::Float(1.5));
    }

    #[test]
    fn errors_name_the_problem() {
        let e = eval("$m + 1", 1, 0).unwrap_err().to_string();
        assert!(e.contains("`$m` is neither"), "{e}");
        let e = eval("$n / ($t - 1)", 1, 1).unwrap_err().to_string();
        assert!(e.contains("division by zero"), "{e}");
        let e = eval("mux(1, 2)", 1, 0).unwrap_err().to_string();
        assert!(e.contains("column 1"), "{e}");
        let e = eval("$n +", 1, 0).unwrap_err().to_string();
        assert!(e.contains("column 5"), "{e}");
        let e = eval("9223372036854775807 + $t", 0, 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("overflows"), "{e}");
    }
}
