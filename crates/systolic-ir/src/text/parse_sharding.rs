//! Sharding annotations: Shardy's `#sdy.sharding<@mesh, [{"x"}, {}]>` and `sdy.mesh`, and the
//! HLO sharding strings of `mhlo.sharding = "{devices=[2,1]0,1}"`.
//!
//! Both arrive as text (the body of a `#sdy.sharding<…>` attribute, the value of a string
//! attribute), so these are small string parsers with their own cursor; their errors are
//! plain messages that the caller locates.

use super::lexer::{unescape, Tok};
use super::parser::Parser;
use crate::diag::Diagnostic;
use crate::sharding::{AxisRef, DimSharding, HloSharding, SdyMesh, SdySharding};

/// The most devices a tiled HLO sharding may name (far beyond any real slice; it bounds the
/// memory a short `<=[…]` iota string can ask for).
const MAX_DEVICES: i64 = 1 << 20;

/// Nesting limit for HLO tuple shardings.
const MAX_TUPLE_DEPTH: usize = 64;

/// A cursor over a short text.
struct Cur<'a> {
    s: &'a str,
    i: usize,
}

impl<'a> Cur<'a> {
    fn new(s: &'a str) -> Self {
        Cur { s, i: 0 }
    }

    fn ws(&mut self) {
        while self
            .s
            .as_bytes()
            .get(self.i)
            .is_some_and(u8::is_ascii_whitespace)
        {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.s.as_bytes().get(self.i).copied()
    }

    fn at_end(&mut self) -> bool {
        self.peek().is_none()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn eat_word(&mut self, w: &str) -> bool {
        self.ws();
        if self.s[self.i..].starts_with(w) {
            self.i += w.len();
            true
        } else {
            false
        }
    }

    fn found(&mut self) -> String {
        match self.peek() {
            None => "the end".to_string(),
            Some(_) => {
                let rest: String = self.s[self.i..].chars().take(20).collect();
                format!("'{rest}'")
            }
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(format!("expected '{}', found {}", c as char, self.found()))
        }
    }

    fn int(&mut self) -> Result<i64, String> {
        self.ws();
        let start = self.i;
        if self.s.as_bytes().get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        while self
            .s
            .as_bytes()
            .get(self.i)
            .is_some_and(u8::is_ascii_digit)
        {
            self.i += 1;
        }
        self.s[start..self.i].parse().map_err(|_| {
            format!("expected an integer, found {}", {
                self.i = start;
                self.found()
            })
        })
    }

    fn string(&mut self) -> Result<String, String> {
        self.ws();
        if self.s.as_bytes().get(self.i) != Some(&b'"') {
            return Err(format!(
                "expected a quoted axis name, found {}",
                self.found()
            ));
        }
        // The closing quote is the first one not escaped; the body is decoded as every MLIR
        // string is (`\\`, `\"`, hex escapes), so a name printed with escapes reads back.
        let start = self.i + 1;
        let bytes = self.s.as_bytes();
        let mut end = start;
        while end < bytes.len() && bytes[end] != b'"' {
            end += if bytes[end] == b'\\' { 2 } else { 1 };
        }
        if end >= bytes.len() {
            return Err("unterminated string".to_string());
        }
        self.i = end + 1;
        unescape(&self.s[start..end])
    }

    fn ident(&mut self) -> String {
        self.ws();
        let start = self.i;
        while self
            .s
            .as_bytes()
            .get(self.i)
            .is_some_and(|c| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'$'))
        {
            self.i += 1;
        }
        self.s[start..self.i].to_string()
    }

    /// A `[a, b, …]` list of integers.
    fn int_list(&mut self) -> Result<Vec<i64>, String> {
        self.expect(b'[')?;
        let mut out = Vec::new();
        if self.eat(b']') {
            return Ok(out);
        }
        loop {
            out.push(self.int()?);
            if self.eat(b']') {
                return Ok(out);
            }
            self.expect(b',')?;
        }
    }
}

/// Parses a set of mesh axis names, `{"x", "y"}` or `{}` (`manual_axes=` of
/// `sdy.manual_computation`).
pub(crate) fn parse_axis_names(text: &str) -> Result<Vec<String>, String> {
    let mut c = Cur::new(text);
    c.expect(b'{')?;
    let mut out = Vec::new();
    if !c.eat(b'}') {
        loop {
            let name = c.string()?;
            if out.contains(&name) {
                return Err(format!("axis \"{name}\" is named twice"));
            }
            out.push(name);
            if c.eat(b'}') {
                break;
            }
            c.expect(b',')?;
        }
    }
    if !c.at_end() {
        return Err(format!("unexpected {} after the axes", c.found()));
    }
    Ok(out)
}

/// Parses the body of `#sdy.sharding<…>` (without the angle brackets).
pub(crate) fn parse_sdy_sharding_body(body: &str) -> Result<SdySharding, String> {
    let mut c = Cur::new(body);
    let mesh = if c.eat(b'@') {
        let name = c.ident();
        if name.is_empty() {
            return Err("expected a mesh name after '@'".to_string());
        }
        name
    } else if c.peek() == Some(b'<') || c.s[c.i..].starts_with("mesh<") {
        // An inline mesh: kept as its text.
        let start = c.i;
        let mut depth = 0i32;
        while let Some(&b) = c.s.as_bytes().get(c.i) {
            c.i += 1;
            match b {
                b'<' => depth += 1,
                b'>' => {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                _ => {}
            }
        }
        if depth != 0 {
            return Err("unterminated inline mesh".to_string());
        }
        c.s[start..c.i].to_string()
    } else {
        return Err(format!(
            "expected '@mesh' or an inline mesh, found {}",
            c.found()
        ));
    };
    c.expect(b',')?;
    c.expect(b'[')?;
    let mut dims = Vec::new();
    if !c.eat(b']') {
        loop {
            dims.push(parse_dim_sharding(&mut c)?);
            if c.eat(b']') {
                break;
            }
            c.expect(b',')?;
        }
    }
    let mut replicated = Vec::new();
    let mut unreduced = Vec::new();
    while c.eat(b',') {
        let key = c.ident();
        c.expect(b'=')?;
        let axes = parse_axis_set(&mut c)?;
        match key.as_str() {
            "replicated" => replicated = axes,
            "unreduced" => unreduced = axes,
            _ => return Err(format!("unknown sharding field '{key}'")),
        }
    }
    if !c.at_end() {
        return Err(format!("unexpected {} in sharding", c.found()));
    }
    Ok(SdySharding {
        mesh,
        dims,
        replicated,
        unreduced,
    })
}

/// `{"x", "y":(1)2, ?}p3`.
fn parse_dim_sharding(c: &mut Cur) -> Result<DimSharding, String> {
    c.expect(b'{')?;
    let mut axes = Vec::new();
    let mut closed = true;
    if !c.eat(b'}') {
        loop {
            if c.eat(b'?') {
                closed = false;
                c.expect(b'}')?;
                break;
            }
            axes.push(parse_axis_ref(c)?);
            if c.eat(b'}') {
                break;
            }
            c.expect(b',')?;
        }
    }
    let priority = if c.s.as_bytes().get(c.i) == Some(&b'p') {
        c.i += 1;
        Some(c.int()?)
    } else {
        None
    };
    Ok(DimSharding {
        axes,
        closed,
        priority,
    })
}

/// `"x"` or `"x":(pre)size`.
fn parse_axis_ref(c: &mut Cur) -> Result<AxisRef, String> {
    let name = c.string()?;
    let sub_axis = if c.eat(b':') {
        c.expect(b'(')?;
        let pre = c.int()?;
        c.expect(b')')?;
        let size = c.int()?;
        Some((pre, size))
    } else {
        None
    };
    Ok(AxisRef { name, sub_axis })
}

/// `{"x", "y"}`.
fn parse_axis_set(c: &mut Cur) -> Result<Vec<AxisRef>, String> {
    c.expect(b'{')?;
    let mut axes = Vec::new();
    if c.eat(b'}') {
        return Ok(axes);
    }
    loop {
        axes.push(parse_axis_ref(c)?);
        if c.eat(b'}') {
            return Ok(axes);
        }
        c.expect(b',')?;
    }
}

/// Parses an HLO sharding string such as `{devices=[2,1]0,1}`, `{replicated}`,
/// `{devices=[2,4]<=[8]}`, `{devices=[1,4,2]<=[2,4]T(1,0) last_tile_dim_replicate}` or a tuple
/// `{{replicated}, {maximal device=0}}`.
pub fn parse_hlo_sharding(s: &str) -> Result<HloSharding, String> {
    let mut c = Cur::new(s);
    let sharding = parse_hlo_sharding_at(&mut c, 0)?;
    if !c.at_end() {
        return Err(format!("unexpected {} after the sharding", c.found()));
    }
    Ok(sharding)
}

fn parse_hlo_sharding_at(c: &mut Cur, depth: usize) -> Result<HloSharding, String> {
    if depth > MAX_TUPLE_DEPTH {
        return Err("tuple sharding nested too deeply".to_string());
    }
    c.expect(b'{')?;
    if c.peek() == Some(b'{') || c.peek() == Some(b'}') {
        let mut elems = Vec::new();
        if c.eat(b'}') {
            return Ok(HloSharding::Tuple(elems));
        }
        loop {
            elems.push(parse_hlo_sharding_at(c, depth + 1)?);
            if c.eat(b'}') {
                return Ok(HloSharding::Tuple(elems));
            }
            c.expect(b',')?;
        }
    }
    let word = c.ident();
    let sharding = match word.as_str() {
        "replicated" => HloSharding::Replicated,
        "manual" => HloSharding::Manual,
        "unknown" => HloSharding::Unknown,
        "maximal" => {
            if !c.eat_word("device") {
                return Err(format!(
                    "expected 'device=' after 'maximal', found {}",
                    c.found()
                ));
            }
            c.expect(b'=')?;
            HloSharding::Maximal { device: c.int()? }
        }
        "devices" => parse_tiled(c)?,
        "" => return Err(format!("expected a sharding kind, found {}", c.found())),
        other => return Err(format!("unknown sharding kind '{other}'")),
    };
    skip_metadata(c)?;
    c.expect(b'}')?;
    Ok(sharding)
}

/// After `devices`: `=[dims]` then device ids (a list or the iota form), then modifiers.
fn parse_tiled(c: &mut Cur) -> Result<HloSharding, String> {
    c.expect(b'=')?;
    let tile_dims = c.int_list()?;
    if tile_dims.iter().any(|&d| d <= 0) {
        return Err(format!(
            "tile dimensions must be positive, found {tile_dims:?}"
        ));
    }
    let count = tile_dims
        .iter()
        .try_fold(1i64, |acc, &d| acc.checked_mul(d))
        .filter(|&n| n <= MAX_DEVICES)
        .ok_or_else(|| format!("more than {MAX_DEVICES} tiles"))?;
    let devices = if c.eat_word("<=") {
        let reshape = c.int_list()?;
        let perm = if c.eat(b'T') {
            c.expect(b'(')?;
            let mut perm = Vec::new();
            loop {
                perm.push(c.int()?);
                if c.eat(b')') {
                    break;
                }
                c.expect(b',')?;
            }
            Some(perm)
        } else {
            None
        };
        iota_devices(&reshape, perm.as_deref(), count)?
    } else {
        let mut ids = vec![c.int()?];
        while c.eat(b',') {
            ids.push(c.int()?);
        }
        ids
    };
    if devices.len() as i64 != count {
        return Err(format!(
            "{} device ids for a {tile_dims:?} tiling of {count} tiles",
            devices.len()
        ));
    }
    let mut last_tile_dim_replicate = false;
    let mut last_tile_dims = Vec::new();
    loop {
        if c.eat_word("last_tile_dim_replicate") {
            last_tile_dim_replicate = true;
        } else if c.eat_word("last_tile_dims") {
            c.expect(b'=')?;
            c.expect(b'{')?;
            loop {
                let kind = c.ident();
                if kind.is_empty() {
                    return Err(format!("expected a subgroup kind, found {}", c.found()));
                }
                last_tile_dims.push(kind);
                if c.eat(b'}') {
                    break;
                }
                c.expect(b',')?;
            }
        } else {
            break;
        }
    }
    Ok(HloSharding::Tiled {
        tile_dims,
        devices,
        last_tile_dim_replicate,
        last_tile_dims,
    })
}

/// Expands `<=[reshape]T(perm)`: iota over the product, reshaped, transposed, flattened.
fn iota_devices(reshape: &[i64], perm: Option<&[i64]>, count: i64) -> Result<Vec<i64>, String> {
    let total = reshape
        .iter()
        .try_fold(
            1i64,
            |acc, &d| if d > 0 { acc.checked_mul(d) } else { None },
        )
        .ok_or_else(|| format!("bad iota reshape {reshape:?}"))?;
    if total != count {
        return Err(format!(
            "iota reshape {reshape:?} has {total} devices; the tiling needs {count}"
        ));
    }
    let rank = reshape.len();
    let perm: Vec<usize> = match perm {
        None => (0..rank).collect(),
        Some(p) => {
            let mut seen = vec![false; rank];
            let mut out = Vec::with_capacity(rank);
            for &d in p {
                let ok = d >= 0 && (d as usize) < rank && !seen[d as usize];
                if !ok || p.len() != rank {
                    return Err(format!("T{p:?} is not a permutation of {rank} dimensions"));
                }
                seen[d as usize] = true;
                out.push(d as usize);
            }
            out
        }
    };
    // Strides of the reshaped iota, then walk the transposed shape in row-major order.
    let mut strides = vec![1i64; rank];
    for i in (0..rank.saturating_sub(1)).rev() {
        strides[i] = strides[i + 1] * reshape[i + 1];
    }
    let tshape: Vec<i64> = perm.iter().map(|&p| reshape[p]).collect();
    let tstrides: Vec<i64> = perm.iter().map(|&p| strides[p]).collect();
    let mut out = Vec::with_capacity(total as usize);
    let mut idx = vec![0i64; rank];
    for _ in 0..total {
        out.push(idx.iter().zip(&tstrides).map(|(i, s)| i * s).sum());
        for d in (0..rank).rev() {
            idx[d] += 1;
            if idx[d] < tshape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
    Ok(out)
}

/// Skips a trailing `metadata={…}` (op metadata that some exporters attach).
fn skip_metadata(c: &mut Cur) -> Result<(), String> {
    if !c.eat_word("metadata") {
        return Ok(());
    }
    c.expect(b'=')?;
    c.expect(b'{')?;
    let mut depth = 1;
    while depth > 0 {
        match c.s.as_bytes().get(c.i) {
            None => return Err("unterminated metadata".to_string()),
            Some(b'{') => depth += 1,
            Some(b'}') => depth -= 1,
            _ => {}
        }
        c.i += 1;
    }
    Ok(())
}

impl Parser<'_> {
    /// `sdy.mesh @name = <["x"=2, "y"=4], device_ids=[…]> {attrs}` (the word is next).
    pub fn parse_sdy_mesh(&mut self) -> Result<SdyMesh, Diagnostic> {
        self.expect_keyword("sdy.mesh")?;
        let name = self.expect_symbol("a mesh name '@name'")?;
        self.expect_punct("=")?;
        let open = self.peek()?;
        if !(open.kind == Tok::Punct && self.text(open) == "<") {
            return Err(self.expected("'<' (the mesh axes)"));
        }
        let end = self.lx.balanced_angle_end(open.start)?;
        let body = &self.lx.src()[open.start + 1..end - 1];
        self.lx.set_pos(end);
        let (axes, device_ids) = parse_mesh_body(body)
            .map_err(|m| self.err_at(open, format!("malformed sdy.mesh: {m}")))?;
        if self.is_punct("{")? {
            // Exporter metadata such as `{stablehlo.mesh = …}` repeats the axes; not kept.
            self.parse_attr_dict()?;
        }
        self.parse_optional_loc()?;
        Ok(SdyMesh {
            name,
            axes,
            device_ids,
        })
    }
}

/// `["x"=2, "y"=4], device_ids=[…]`, `[]`, or `device_ids=[0]`.
type MeshBody = (Vec<(String, i64)>, Option<Vec<i64>>);

fn parse_mesh_body(body: &str) -> Result<MeshBody, String> {
    let mut c = Cur::new(body);
    let mut axes = Vec::new();
    if c.eat(b'[') && !c.eat(b']') {
        loop {
            let name = c.string()?;
            c.expect(b'=')?;
            let size = c.int()?;
            if size <= 0 {
                return Err(format!("axis \"{name}\" has size {size}"));
            }
            axes.push((name, size));
            if c.eat(b']') {
                break;
            }
            c.expect(b',')?;
        }
    }
    c.eat(b',');
    let device_ids = if c.eat_word("device_ids") {
        c.expect(b'=')?;
        Some(c.int_list()?)
    } else {
        None
    };
    if !c.at_end() {
        return Err(format!("unexpected {}", c.found()));
    }
    Ok((axes, device_ids))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iota_with_transpose() {
        // <=[2,2]T(1,0): iota [[0,1],[2,3]] transposed → [[0,2],[1,3]].
        assert_eq!(
            iota_devices(&[2, 2], Some(&[1, 0]), 4).unwrap(),
            vec![0, 2, 1, 3]
        );
        assert_eq!(iota_devices(&[4], None, 4).unwrap(), vec![0, 1, 2, 3]);
        assert!(iota_devices(&[2, 2], Some(&[0, 0]), 4).is_err());
    }

    #[test]
    fn sdy_dims() {
        let s = parse_sdy_sharding_body(r#"@mesh, [{"x", ?}, {}p1, {"y":(1)2}], replicated={"z"}"#)
            .unwrap();
        assert_eq!(s.mesh, "mesh");
        assert!(!s.dims[0].closed);
        assert_eq!(s.dims[1].priority, Some(1));
        assert_eq!(s.dims[2].axes[0].sub_axis, Some((1, 2)));
        assert_eq!(s.replicated[0].name, "z");
    }
}
