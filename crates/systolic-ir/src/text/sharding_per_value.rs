//! `sdy.sharding = #sdy.sharding_per_value<[<@mesh, [...]>, ...]>`: the per-result shardings
//! Shardy writes on an op after propagation. The parser keeps the attribute as checked text
//! (an `Attribute::Opaque`, printed back verbatim), so these two functions are how a pass
//! writes one and how a test or a later pass reads one, without a new attribute variant.

use super::parse_attrs::parse_sharding_list;
use super::print_sharding::write_sharding_list;
use crate::attrs::Attribute;
use crate::sharding::SdySharding;

/// The attribute `#sdy.sharding_per_value<[…]>` for one sharding per op result.
pub fn sharding_per_value_attr(shardings: &[SdySharding]) -> Attribute {
    let mut text = String::from("#sdy.sharding_per_value<");
    write_sharding_list(&mut text, shardings);
    text.push('>');
    Attribute::Opaque(text)
}

/// The shardings of a `#sdy.sharding_per_value<[…]>` attribute; `None` for any other
/// attribute.
pub fn read_sharding_per_value(attr: &Attribute) -> Option<Result<Vec<SdySharding>, String>> {
    let Attribute::Opaque(text) = attr else {
        return None;
    };
    let body = text
        .trim()
        .strip_prefix("#sdy.sharding_per_value<")?
        .strip_suffix('>')?;
    Some(parse_sharding_list(body))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{parse_module, print_module};

    #[test]
    fn written_attributes_print_parse_and_read_back() {
        let src = r#"module {
  sdy.mesh @mesh = <["x"=2, "y"=4]>
  func.func @main(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
    %0 = stablehlo.negate %arg0 : tensor<8x8xf32>
    return %0 : tensor<8x8xf32>
  }
}"#;
        let mut m = parse_module(src, "t.mlir").unwrap();
        let list = match read_sharding_per_value(&Attribute::Opaque(
            r#"#sdy.sharding_per_value<[<@mesh, [{"x"}, {"y":(1)2, ?}]>]>"#.into(),
        )) {
            Some(Ok(list)) => list,
            other => panic!("{other:?}"),
        };
        m.funcs[0].body.blocks[0].ops[0]
            .attrs
            .push(crate::NamedAttr::new(
                "sdy.sharding",
                sharding_per_value_attr(&list),
            ));
        let text = print_module(&m);
        assert!(
            text.contains(
                r#"{sdy.sharding = #sdy.sharding_per_value<[<@mesh, [{"x"}, {"y":(1)2, ?}]>]>}"#
            ),
            "{text}"
        );
        let back = parse_module(&text, "t.mlir").unwrap();
        let attr = &back.funcs[0].body.blocks[0].ops[0].attrs[0].value;
        assert_eq!(read_sharding_per_value(attr).unwrap().unwrap(), list);
        assert!(read_sharding_per_value(&Attribute::String("x".into())).is_none());
    }
}
