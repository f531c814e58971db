//! Tokens of MLIR text.
//!
//! The lexer is a cursor over the source bytes that produces one token at a time on demand, so
//! that the parser can also step into "raw" mode where MLIR's grammar is not token based: the
//! dimension list of `tensor<2x3xf32>` (where `2x3xf32` is not a sequence of ordinary tokens) and
//! the balanced `<…>` body of an attribute kept verbatim. Positions are byte offsets; line and
//! column are computed only when a diagnostic or an op span needs them.

use crate::diag::Diagnostic;
use crate::module::Span;
use std::cell::Cell;

/// What kind of token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Tok {
    /// `%name`, `%0`, optionally followed directly by `#N` (kept in the text).
    ValueId,
    /// `@name` or `@"quoted name"`.
    SymbolRef,
    /// `^bb0`.
    BlockId,
    /// `#name` / `#dialect.name` (an alias or the start of a dialect attribute).
    HashId,
    /// `!name` / `!dialect.name` (a dialect type).
    BangId,
    /// A bare identifier or keyword: `func.func`, `tensor`, `f32`, `stablehlo.add`.
    Ident,
    /// An integer literal (decimal or `0x…` hex), without sign.
    Int,
    /// A floating-point literal, without sign.
    Float,
    /// A string literal (the token text includes the quotes).
    Str,
    /// A punctuation mark: `( ) [ ] { } < > , : = ? * + - ...` and `->`, `::`.
    Punct,
    /// End of input.
    Eof,
}

/// One token: its kind, and where its text is in the source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Token {
    /// Kind.
    pub kind: Tok,
    /// Byte offset of the first character.
    pub start: usize,
    /// Byte offset after the last character.
    pub end: usize,
}

/// A cursor over MLIR text.
pub(crate) struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// Byte offsets where lines start, for turning offsets into line:col.
    line_starts: Vec<usize>,
    /// The last (offset, line index, column) [`Lexer::span_at`] computed.
    last_span: Cell<(usize, usize, usize)>,
    peeked: Option<Token>,
}

/// True for characters that may continue a bare identifier.
fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.' | b'-')
}

/// True for characters that may continue a bare identifier (no `-`).
fn is_bare_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.')
}

impl<'a> Lexer<'a> {
    /// A lexer at the start of `src`.
    pub fn new(src: &'a str) -> Self {
        let bytes = src.as_bytes();
        let mut line_starts = vec![0];
        line_starts.extend(memchr::memchr_iter(b'\n', bytes).map(|i| i + 1));
        // A UTF-8 byte order mark is not part of the text.
        let pos = if src.starts_with('\u{FEFF}') { 3 } else { 0 };
        Lexer {
            src,
            bytes,
            pos,
            line_starts,
            last_span: Cell::new((0, 0, 1)),
            peeked: None,
        }
    }

    /// The whole source text.
    pub fn src(&self) -> &'a str {
        self.src
    }

    /// The text of a token.
    pub fn text(&self, t: Token) -> &'a str {
        &self.src[t.start..t.end]
    }

    /// Line and column (1-based) of a byte offset. Columns count characters; the last answer
    /// is remembered so that asking in increasing order along one long line stays linear.
    pub fn span_at(&self, offset: usize) -> Span {
        let offset = offset.min(self.src.len());
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line];
        let (last_offset, last_line, last_col) = self.last_span.get();
        let col = if last_line == line && last_offset <= offset && last_offset >= start {
            last_col + self.src[last_offset..offset].chars().count()
        } else {
            self.src[start..offset].chars().count() + 1
        };
        self.last_span.set((offset, line, col));
        Span {
            line: line as u32 + 1,
            col: col as u32,
        }
    }

    /// An error at a byte offset.
    pub fn error_at(&self, offset: usize, msg: impl Into<String>) -> Diagnostic {
        Diagnostic::new(msg).at(Some(self.span_at(offset)))
    }

    /// The current byte offset (after any peeked token is given back).
    pub fn pos(&self) -> usize {
        self.peeked.map_or(self.pos, |t| t.start)
    }

    /// Moves the cursor to a byte offset (forgetting a peeked token).
    pub fn set_pos(&mut self, pos: usize) {
        self.peeked = None;
        self.pos = pos;
    }

    /// Skips whitespace and `//` comments, then returns the next byte without consuming it.
    pub fn peek_byte(&mut self) -> Option<u8> {
        if let Some(t) = self.peeked.take() {
            self.pos = t.start;
        }
        self.skip_trivia();
        self.bytes.get(self.pos).copied()
    }

    /// Consumes one raw byte (used in raw mode after [`Lexer::peek_byte`]).
    pub fn bump_byte(&mut self) {
        self.peeked = None;
        if self.pos < self.bytes.len() {
            self.pos += 1;
        }
    }

    /// Reads a run of ASCII digits at the cursor (no trivia skipping), returning its text.
    pub fn raw_digits(&mut self) -> &'a str {
        self.peeked = None;
        let start = self.pos;
        while self.pos < self.bytes.len() && self.bytes[self.pos].is_ascii_digit() {
            self.pos += 1;
        }
        &self.src[start..self.pos]
    }

    /// Returns the next token without consuming it.
    pub fn peek(&mut self) -> Result<Token, Diagnostic> {
        if let Some(t) = self.peeked {
            return Ok(t);
        }
        let t = self.lex()?;
        self.peeked = Some(t);
        Ok(t)
    }

    /// Consumes and returns the next token.
    pub fn next_token(&mut self) -> Result<Token, Diagnostic> {
        if let Some(t) = self.peeked.take() {
            self.pos = t.end;
            return Ok(t);
        }
        let t = self.lex()?;
        self.pos = t.end;
        Ok(t)
    }

    fn skip_trivia(&mut self) {
        let b = self.bytes;
        loop {
            while self.pos < b.len() && b[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            }
            if self.pos + 1 < b.len() && b[self.pos] == b'/' && b[self.pos + 1] == b'/' {
                while self.pos < b.len() && b[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else {
                return;
            }
        }
    }

    /// Finds the end of a balanced `<…>` body starting at `open` (which holds `<`), honouring
    /// nested `<>`, `()`, `[]`, `{}` and string literals. Returns the offset after the closing `>`.
    pub fn balanced_angle_end(&self, open: usize) -> Result<usize, Diagnostic> {
        let b = self.bytes;
        let mut stack: Vec<u8> = Vec::new();
        let mut i = open;
        while i < b.len() {
            match b[i] {
                b'"' => i = closing_quote(b, i + 1),
                b'<' => stack.push(b'>'),
                b'(' => stack.push(b')'),
                b'[' => stack.push(b']'),
                b'{' => stack.push(b'}'),
                b'-' if b.get(i + 1) == Some(&b'>') => i += 1,
                c @ (b'>' | b')' | b']' | b'}') => {
                    if stack.pop() != Some(c) {
                        return Err(self.error_at(i, format!("unbalanced '{}'", c as char)));
                    }
                    if stack.is_empty() {
                        return Ok(i + 1);
                    }
                }
                _ => {}
            }
            if stack.len() > super::parser::MAX_NESTING {
                return Err(self.error_at(
                    i,
                    format!("nesting deeper than {} levels", super::parser::MAX_NESTING),
                ));
            }
            i += 1;
        }
        Err(self.error_at(open, "unterminated '<'"))
    }

    fn lex(&mut self) -> Result<Token, Diagnostic> {
        self.skip_trivia();
        let b = self.bytes;
        let start = self.pos;
        let tok = |kind, end| Ok(Token { kind, start, end });
        let Some(&c) = b.get(start) else {
            return tok(Tok::Eof, start);
        };
        let ident_end = |mut i: usize, pred: fn(u8) -> bool| {
            while i < b.len() && pred(b[i]) {
                i += 1;
            }
            i
        };
        match c {
            b'%' => {
                let mut end = ident_end(start + 1, is_ident_char);
                if end == start + 1 {
                    return Err(self.error_at(start, "expected a value name after '%'"));
                }
                if b.get(end) == Some(&b'#') && b.get(end + 1).is_some_and(u8::is_ascii_digit) {
                    end = ident_end(end + 1, |c| c.is_ascii_digit());
                }
                tok(Tok::ValueId, end)
            }
            b'@' => {
                if b.get(start + 1) == Some(&b'"') {
                    let end = self.string_end(start + 1)?;
                    return tok(Tok::SymbolRef, end);
                }
                let end = ident_end(start + 1, is_ident_char);
                if end == start + 1 {
                    return Err(self.error_at(start, "expected a symbol name after '@'"));
                }
                tok(Tok::SymbolRef, end)
            }
            b'^' => {
                let end = ident_end(start + 1, is_ident_char);
                if end == start + 1 {
                    return Err(self.error_at(start, "expected a block name after '^'"));
                }
                tok(Tok::BlockId, end)
            }
            b'#' | b'!' => {
                let end = ident_end(start + 1, is_bare_ident_char);
                if end == start + 1 {
                    return Err(self.error_at(
                        start,
                        format!("expected an identifier after '{}'", c as char),
                    ));
                }
                tok(if c == b'#' { Tok::HashId } else { Tok::BangId }, end)
            }
            b'"' => {
                let end = self.string_end(start)?;
                tok(Tok::Str, end)
            }
            b'0'..=b'9' => {
                if c == b'0'
                    && b.get(start + 1) == Some(&b'x')
                    && b.get(start + 2).is_some_and(u8::is_ascii_hexdigit)
                {
                    let end = ident_end(start + 2, |c| c.is_ascii_hexdigit());
                    return tok(Tok::Int, end);
                }
                let mut i = ident_end(start, |c| c.is_ascii_digit());
                let mut float = false;
                if b.get(i) == Some(&b'.') {
                    float = true;
                    i = ident_end(i + 1, |c| c.is_ascii_digit());
                }
                // An exponent makes a float, with or without a fraction (`1e5` is accepted
                // although MLIR itself always writes the dot).
                if matches!(b.get(i), Some(b'e' | b'E')) {
                    let mut j = i + 1;
                    if matches!(b.get(j), Some(b'+' | b'-')) {
                        j += 1;
                    }
                    if b.get(j).is_some_and(u8::is_ascii_digit) {
                        i = ident_end(j, |c| c.is_ascii_digit());
                        float = true;
                    }
                }
                tok(if float { Tok::Float } else { Tok::Int }, i)
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let end = ident_end(start, is_bare_ident_char);
                tok(Tok::Ident, end)
            }
            b'-' if b.get(start + 1) == Some(&b'>') => tok(Tok::Punct, start + 2),
            b':' if b.get(start + 1) == Some(&b':') => tok(Tok::Punct, start + 2),
            b'.' if b.get(start + 1) == Some(&b'.') && b.get(start + 2) == Some(&b'.') => {
                tok(Tok::Punct, start + 3)
            }
            b'(' | b')' | b'[' | b']' | b'{' | b'}' | b'<' | b'>' | b',' | b':' | b'=' | b'?'
            | b'*' | b'+' | b'-' | b'|' => tok(Tok::Punct, start + 1),
            _ => {
                let ch = self.src[start..].chars().next().unwrap_or('?');
                // A control or invisible character (NUL, a zero-width space) would print as
                // nothing: name it by its code point too.
                let shown = if ch.is_control()
                    || ch.is_whitespace()
                    || matches!(ch, '\u{200B}'..='\u{200F}' | '\u{2060}' | '\u{FEFF}')
                {
                    format!("'{}' (U+{:04X})", ch.escape_default(), ch as u32)
                } else {
                    format!("'{ch}'")
                };
                Err(self.error_at(start, format!("unexpected character {shown}")))
            }
        }
    }

    /// Offset after the closing quote of a string starting at `open`.
    fn string_end(&self, open: usize) -> Result<usize, Diagnostic> {
        let close = closing_quote(self.bytes, open + 1);
        if close < self.bytes.len() {
            Ok(close + 1)
        } else {
            Err(self.error_at(open, "unterminated string literal"))
        }
    }
}

/// The offset of the quote closing a string whose body starts at `from` (escaped quotes
/// skipped), or `b.len()` when there is none. Found with `memchr`: hex constants are strings of
/// tens of megabytes.
fn closing_quote(b: &[u8], from: usize) -> usize {
    let mut i = from;
    while let Some(k) = b
        .get(i..)
        .and_then(|rest| memchr::memchr2(b'"', b'\\', rest))
    {
        i += k;
        if b[i] == b'"' {
            return i;
        }
        i += 2;
    }
    b.len()
}

/// Decodes the body of an MLIR string literal (the text between the quotes): `\"`, `\\`, `\n`,
/// `\t` and two-digit hex escapes `\0A`.
pub(crate) fn unescape(body: &str) -> Result<String, String> {
    if !body.contains('\\') {
        return Ok(body.to_string());
    }
    let mut bytes = Vec::with_capacity(body.len());
    let b = body.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            bytes.push(b[i]);
            i += 1;
            continue;
        }
        match b.get(i + 1) {
            Some(b'"') => bytes.push(b'"'),
            Some(b'\\') => bytes.push(b'\\'),
            Some(b'n') => bytes.push(b'\n'),
            Some(b't') => bytes.push(b'\t'),
            Some(&h1) if h1.is_ascii_hexdigit() => {
                let h2 = b.get(i + 2).copied().filter(u8::is_ascii_hexdigit);
                let Some(h2) = h2 else {
                    return Err(format!("bad escape in string \"{body}\""));
                };
                let hex = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
                bytes.push(hex(h1) * 16 + hex(h2));
                i += 3;
                continue;
            }
            _ => return Err(format!("bad escape in string \"{body}\"")),
        }
        i += 2;
    }
    String::from_utf8(bytes).map_err(|_| format!("string \"{body}\" is not valid UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(src: &str) -> Vec<(Tok, String)> {
        let mut lx = Lexer::new(src);
        let mut out = vec![];
        loop {
            let t = lx.next_token().unwrap();
            if t.kind == Tok::Eof {
                return out;
            }
            out.push((t.kind, lx.text(t).to_string()));
        }
    }

    #[test]
    fn tokens_of_an_op() {
        let toks = kinds("%0:2 = stablehlo.add %a#1, @f -> 1.5e-3 // comment\n 0x7FC00000");
        let expect = [
            (Tok::ValueId, "%0"),
            (Tok::Punct, ":"),
            (Tok::Int, "2"),
            (Tok::Punct, "="),
            (Tok::Ident, "stablehlo.add"),
            (Tok::ValueId, "%a#1"),
            (Tok::Punct, ","),
            (Tok::SymbolRef, "@f"),
            (Tok::Punct, "->"),
            (Tok::Float, "1.5e-3"),
            (Tok::Int, "0x7FC00000"),
        ];
        let got: Vec<(Tok, &str)> = toks.iter().map(|(k, s)| (*k, s.as_str())).collect();
        assert_eq!(got, expect);
    }

    #[test]
    fn spans_are_line_col() {
        let mut lx = Lexer::new("a\n  bc");
        lx.next_token().unwrap();
        let t = lx.next_token().unwrap();
        assert_eq!(lx.span_at(t.start), Span { line: 2, col: 3 });
    }

    #[test]
    fn unescapes_strings() {
        assert_eq!(unescape(r#"a\"b\\c\0A"#).unwrap(), "a\"b\\c\n");
        assert!(unescape(r"\q").is_err());
    }

    #[test]
    fn unterminated_string_is_an_error() {
        let mut lx = Lexer::new("\"abc");
        let e = lx.next_token().unwrap_err();
        assert!(e.message.contains("unterminated"), "{e}");
    }
}
