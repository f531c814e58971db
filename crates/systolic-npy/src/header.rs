//! The `.npy` header: the magic string, the format version, and the Python dict literal that
//! describes the array (`{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`).
//!
//! The format is numpy's `numpy.lib.format`: version 1.0 stores the header length in 2 bytes,
//! 2.0 and 3.0 in 4 bytes (3.0 allows UTF-8 in the header). The dict is parsed with a small
//! literal parser rather than string matching so that key order and spacing do not matter.

use crate::descr::ElementType;
use crate::error::NpyErrorKind;

/// The six bytes every `.npy` file starts with.
pub const MAGIC: &[u8; 6] = b"\x93NUMPY";

/// What the header says about the array that follows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    /// The element type (`descr`).
    pub element: ElementType,
    /// True when multi-byte elements are stored big-endian (`'>f4'`).
    pub big_endian: bool,
    /// True when the data is stored column-major.
    pub fortran_order: bool,
    /// Dimension sizes, outermost first; empty for a scalar.
    pub shape: Vec<usize>,
}

/// Where the header dict starts (after the magic string, version and length) and whether it
/// may be UTF-8, from the file's first bytes.
fn dict_start(bytes: &[u8]) -> Result<(usize, bool), NpyErrorKind> {
    if bytes.len() < MAGIC.len() + 2 || &bytes[..MAGIC.len()] != MAGIC {
        return Err(NpyErrorKind::NotNpy);
    }
    let (major, minor) = (bytes[6], bytes[7]);
    match major {
        1 => Ok((10, false)),
        2 => Ok((12, false)),
        3 => Ok((12, true)),
        _ => Err(NpyErrorKind::UnsupportedVersion { major, minor }),
    }
}

/// The most bytes [`data_start`] needs to see: the magic string, the version and a 4-byte
/// header length.
pub const PREFIX_LEN: usize = 12;

/// The offset where the data starts, from the file's first bytes (at least the magic string,
/// the version and the header length; [`PREFIX_LEN`] always suffice): what a reader must read
/// before it can [`parse`] the header without reading the data.
pub fn data_start(prefix: &[u8]) -> Result<usize, NpyErrorKind> {
    let (dict_start, _) = dict_start(prefix)?;
    let len_start = MAGIC.len() + 2;
    if prefix.len() < dict_start {
        return Err(NpyErrorKind::Truncated("the header length"));
    }
    let mut len = [0u8; 4];
    len[..dict_start - len_start].copy_from_slice(&prefix[len_start..dict_start]);
    // At most 12 + 2^32 − 1: no overflow on 64-bit targets; checked for the others.
    dict_start
        .checked_add(u32::from_le_bytes(len) as usize)
        .ok_or(NpyErrorKind::Truncated("the header"))
}

/// Splits a file's bytes into its header and the offset where the data starts.
pub fn parse(bytes: &[u8]) -> Result<(Header, usize), NpyErrorKind> {
    let data_start = data_start(bytes)?;
    if data_start > bytes.len() {
        return Err(NpyErrorKind::Truncated("the header"));
    }
    let (dict_start, utf8) = dict_start(bytes)?;
    let raw = &bytes[dict_start..data_start];
    let text = if utf8 {
        std::str::from_utf8(raw).map_err(|_| bad_header("the header is not valid UTF-8"))?
    } else {
        if !raw.is_ascii() {
            return Err(bad_header(
                "the header of a version 1.0/2.0 file must be ASCII",
            ));
        }
        std::str::from_utf8(raw).map_err(|_| bad_header("the header is not ASCII"))?
    };
    Ok((parse_dict(text)?, data_start))
}

/// Formats a header for an array: version 1.0 when the dict fits in 65535 bytes, else 2.0;
/// padded with spaces and a newline so the data starts at a multiple of 64 bytes, as numpy does.
pub fn format(header: &Header) -> Vec<u8> {
    let shape = match header.shape.as_slice() {
        [] => "()".to_string(),
        [d] => format!("({d},)"),
        dims => format!(
            "({})",
            dims.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let dict = format!(
        "{{'descr': '{}', 'fortran_order': {}, 'shape': {}, }}",
        header.element.descr(),
        if header.fortran_order {
            "True"
        } else {
            "False"
        },
        shape
    );
    let build = |len_bytes: usize, major: u8| {
        let unpadded = MAGIC.len() + 2 + len_bytes + dict.len() + 1;
        let padding = unpadded.next_multiple_of(64) - unpadded;
        let dict_len = dict.len() + padding + 1;
        let mut out = Vec::with_capacity(unpadded + padding);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&[major, 0]);
        out.extend_from_slice(&(dict_len as u32).to_le_bytes()[..len_bytes]);
        out.extend_from_slice(dict.as_bytes());
        out.extend(std::iter::repeat_n(b' ', padding));
        out.push(b'\n');
        (out, dict_len)
    };
    let (v1, dict_len) = build(2, 1);
    if dict_len <= u16::MAX as usize {
        v1
    } else {
        build(4, 2).0
    }
}

fn bad_header(why: impl Into<String>) -> NpyErrorKind {
    NpyErrorKind::BadHeader(why.into())
}

/// A value of the Python literal subset `.npy` headers use.
#[derive(Debug, PartialEq)]
enum Literal {
    Str(String),
    Bool(bool),
    Int(usize),
    Tuple(Vec<Literal>),
    /// A list or a dict we do not interpret (structured dtypes); kept only to report it.
    Other(&'static str),
}

/// How deep tuples may nest in a header: a shape is one level; numpy writes no deeper than
/// a structured dtype's few. Deeper is malformed (and would exhaust the stack).
const MAX_TUPLE_DEPTH: usize = 16;

impl Literal {
    /// What the literal is, short enough for an error message whatever its size: a string
    /// or an integer as written (strings cut to 40 characters), otherwise its kind.
    fn describe(&self) -> String {
        match self {
            Literal::Str(s) if s.chars().count() > 40 => {
                format!("'{}…'", s.chars().take(40).collect::<String>())
            }
            Literal::Str(s) => format!("'{s}'"),
            Literal::Bool(b) => if *b { "True" } else { "False" }.to_string(),
            Literal::Int(n) => n.to_string(),
            Literal::Tuple(items) if items.len() == 1 => "a tuple of 1 item".to_string(),
            Literal::Tuple(items) => format!("a tuple of {} items", items.len()),
            Literal::Other(what) => what.to_string(),
        }
    }
}

fn parse_dict(text: &str) -> Result<Header, NpyErrorKind> {
    let mut p = LiteralParser {
        chars: text.trim_end().chars().collect(),
        pos: 0,
        depth: 0,
    };
    p.expect('{')?;
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    loop {
        p.skip_space();
        if p.eat('}') {
            break;
        }
        let key = match p.value()? {
            Literal::Str(s) => s,
            other => {
                return Err(bad_header(format!(
                    "a dict key must be a string, got {}",
                    other.describe()
                )))
            }
        };
        p.expect(':')?;
        let value = p.value()?;
        match key.as_str() {
            "descr" => descr = Some(value),
            "fortran_order" => fortran = Some(value),
            "shape" => shape = Some(value),
            other => return Err(bad_header(format!("unexpected key '{other}'"))),
        }
        p.skip_space();
        if !p.eat(',') {
            p.expect('}')?;
            break;
        }
    }
    p.skip_space();
    if p.pos != p.chars.len() {
        return Err(bad_header("text after the closing '}'"));
    }
    let (element, big_endian) = match descr {
        Some(Literal::Str(s)) => ElementType::from_descr(&s)?,
        Some(Literal::Other(what)) => {
            return Err(NpyErrorKind::UnsupportedDescr(format!(
                "a structured dtype ({what})"
            )))
        }
        Some(v) => {
            return Err(bad_header(format!(
                "'descr' must be a string, got {}",
                v.describe()
            )))
        }
        None => return Err(bad_header("the key 'descr' is missing")),
    };
    let fortran_order = match fortran {
        Some(Literal::Bool(b)) => b,
        Some(v) => {
            return Err(bad_header(format!(
                "'fortran_order' must be True or False, got {}",
                v.describe()
            )))
        }
        None => return Err(bad_header("the key 'fortran_order' is missing")),
    };
    let shape = match shape {
        Some(Literal::Tuple(items)) => items
            .into_iter()
            .map(|d| match d {
                Literal::Int(n) => Ok(n),
                v => Err(bad_header(format!(
                    "'shape' must hold non-negative integers, got {}",
                    v.describe()
                ))),
            })
            .collect::<Result<Vec<_>, _>>()?,
        Some(v) => {
            return Err(bad_header(format!(
                "'shape' must be a tuple, got {}",
                v.describe()
            )))
        }
        None => return Err(bad_header("the key 'shape' is missing")),
    };
    Ok(Header {
        element,
        big_endian,
        fortran_order,
        shape,
    })
}

struct LiteralParser {
    chars: Vec<char>,
    pos: usize,
    /// Tuples open around the current position.
    depth: usize,
}

impl LiteralParser {
    fn skip_space(&mut self) {
        while self.chars.get(self.pos).is_some_and(|c| c.is_whitespace()) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_space();
        if self.chars.get(self.pos) == Some(&c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<(), NpyErrorKind> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(bad_header(format!(
                "expected '{c}' at character {} of the header",
                self.pos + 1
            )))
        }
    }

    fn value(&mut self) -> Result<Literal, NpyErrorKind> {
        self.skip_space();
        match self.chars.get(self.pos).copied() {
            Some(q @ ('\'' | '"')) => {
                self.pos += 1;
                let start = self.pos;
                while self.chars.get(self.pos).is_some_and(|&c| c != q) {
                    self.pos += 1;
                }
                if self.pos >= self.chars.len() {
                    return Err(bad_header("a string is not closed"));
                }
                let s: String = self.chars[start..self.pos].iter().collect();
                self.pos += 1;
                Ok(Literal::Str(s))
            }
            Some('(') => {
                if self.depth >= MAX_TUPLE_DEPTH {
                    return Err(bad_header(format!(
                        "tuples nest deeper than {MAX_TUPLE_DEPTH} levels at character {}",
                        self.pos + 1
                    )));
                }
                self.pos += 1;
                self.depth += 1;
                let mut items = vec![];
                let tuple = loop {
                    if self.eat(')') {
                        break Literal::Tuple(items);
                    }
                    items.push(self.value()?);
                    if !self.eat(',') {
                        self.expect(')')?;
                        break Literal::Tuple(items);
                    }
                };
                self.depth -= 1;
                Ok(tuple)
            }
            Some(open @ ('[' | '{')) => {
                let close = if open == '[' { ']' } else { '}' };
                let mut depth = 0usize;
                while let Some(&c) = self.chars.get(self.pos) {
                    self.pos += 1;
                    if c == open {
                        depth += 1;
                    } else if c == close {
                        depth -= 1;
                        if depth == 0 {
                            return Ok(Literal::Other(if open == '[' {
                                "a list"
                            } else {
                                "a dict"
                            }));
                        }
                    }
                }
                Err(bad_header(format!("'{open}' is not closed")))
            }
            Some(c) if c.is_ascii_digit() => {
                let start = self.pos;
                while self.chars.get(self.pos).is_some_and(|c| c.is_ascii_digit()) {
                    self.pos += 1;
                }
                // Python 2 era writers appended `L` to longs.
                if self.chars.get(self.pos) == Some(&'L') {
                    self.pos += 1;
                }
                let digits: String = self.chars[start..self.pos]
                    .iter()
                    .filter(|c| c.is_ascii_digit())
                    .collect();
                digits
                    .parse()
                    .map(Literal::Int)
                    .map_err(|_| bad_header(format!("dimension {digits} is too large")))
            }
            Some(c) if c.is_ascii_alphabetic() => {
                let start = self.pos;
                while self
                    .chars
                    .get(self.pos)
                    .is_some_and(|c| c.is_ascii_alphanumeric())
                {
                    self.pos += 1;
                }
                let word: String = self.chars[start..self.pos].iter().collect();
                match word.as_str() {
                    "True" => Ok(Literal::Bool(true)),
                    "False" => Ok(Literal::Bool(false)),
                    _ => Err(bad_header(format!("unexpected word '{word}'"))),
                }
            }
            Some('-') => Err(bad_header("negative numbers are not valid here")),
            Some(c) => Err(bad_header(format!(
                "unexpected '{c}' at character {} of the header",
                self.pos + 1
            ))),
            None => Err(bad_header("the header ends early")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use systolic_ir::DType;

    fn with_magic(version: u8, dict: &str) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&[version, 0]);
        if version == 1 {
            out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
        } else {
            out.extend_from_slice(&(dict.len() as u32).to_le_bytes());
        }
        out.extend_from_slice(dict.as_bytes());
        out
    }

    #[test]
    fn parses_numpy_headers_of_every_version() {
        let dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }   \n";
        for version in [1, 2, 3] {
            let bytes = with_magic(version, dict);
            let (h, start) = parse(&bytes).unwrap();
            assert_eq!(h.element, ElementType::DType(DType::F32));
            assert!(!h.fortran_order);
            assert_eq!(h.shape, vec![2, 3]);
            assert_eq!(start, bytes.len());
        }
    }

    #[test]
    fn key_order_scalar_and_one_dim_shapes() {
        let bytes = with_magic(1, "{'shape': (), 'fortran_order': True, 'descr': '|b1'}\n");
        let (h, _) = parse(&bytes).unwrap();
        assert_eq!(h.shape, Vec::<usize>::new());
        assert!(h.fortran_order);
        let bytes = with_magic(
            1,
            "{\"descr\": \"<i8\", \"fortran_order\": False, \"shape\": (7,)}",
        );
        assert_eq!(parse(&bytes).unwrap().0.shape, vec![7]);
    }

    #[test]
    fn format_matches_numpy_layout() {
        let h = Header {
            element: ElementType::DType(DType::F32),
            big_endian: false,
            fortran_order: false,
            shape: vec![2, 3],
        };
        let bytes = format(&h);
        // What `np.save` writes for np.zeros((2, 3), np.float32).
        let mut expected =
            b"\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"
                .to_vec();
        expected.resize(127, b' ');
        expected.push(b'\n');
        assert_eq!(bytes, expected);
        assert_eq!(parse(&bytes).unwrap(), (h, 128));
    }

    #[test]
    fn rejects_bad_headers() {
        assert_eq!(parse(b"PK\x03\x04 not npy"), Err(NpyErrorKind::NotNpy));
        assert!(matches!(
            parse(&with_magic(4, "{}")),
            Err(NpyErrorKind::UnsupportedVersion { major: 4, .. })
        ));
        let structured = with_magic(
            1,
            "{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (1,)}",
        );
        assert!(matches!(
            parse(&structured),
            Err(NpyErrorKind::UnsupportedDescr(_))
        ));
        let missing = with_magic(1, "{'descr': '<f4', 'shape': (1,)}");
        assert!(
            matches!(parse(&missing), Err(NpyErrorKind::BadHeader(m)) if m.contains("fortran_order"))
        );
        let mut cut = with_magic(1, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,)}");
        cut.truncate(20);
        assert_eq!(parse(&cut), Err(NpyErrorKind::Truncated("the header")));
    }

    /// Issue 20, item 3: a shape nesting 30000 parentheses overflowed the stack, and at
    /// 1000-20000 levels the error was 9-180 KB long. Nesting is bounded and every message
    /// stays one short line.
    #[test]
    fn deeply_nested_headers_are_a_short_error() {
        for levels in [17, 1000, 30000] {
            let dict = format!(
                "{{'descr': '<f4', 'fortran_order': False, 'shape': {}1{}}}",
                "(".repeat(levels),
                ",)".repeat(levels)
            );
            match parse(&with_magic(2, &dict)) {
                Err(NpyErrorKind::BadHeader(m)) => {
                    assert!(m.contains("nest deeper than 16"), "{levels}: {m}");
                    assert!(m.len() < 200, "{levels}: {} bytes", m.len());
                }
                other => panic!("{levels}: {other:?}"),
            }
        }
        // Within the bound, a wrongly nested shape says what it got, briefly.
        let dict = format!(
            "{{'descr': '<f4', 'fortran_order': False, 'shape': {}1{}}}",
            "(".repeat(16),
            ",)".repeat(16)
        );
        match parse(&with_magic(2, &dict)) {
            Err(NpyErrorKind::BadHeader(m)) => {
                assert!(m.contains("got a tuple of 1 item"), "{m}");
                assert!(m.len() < 200, "{m}");
            }
            other => panic!("{other:?}"),
        }
    }
}
