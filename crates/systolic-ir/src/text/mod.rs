//! MLIR text: the parser (pretty and generic op forms, as JAX and the StableHLO interpreter
//! tests write them) and the printer (pretty form; its output parses back to the same module).

mod lexer;
mod op_schema;
mod parse_attrs;
mod parse_build;
mod parse_dense;
mod parse_generic_module;
mod parse_loc;
mod parse_ops;
mod parse_pretty;
pub mod parse_sharding;
mod parse_stablehlo_attrs;
mod parse_types;
mod parser;
mod print_attrs;
mod print_check;
mod print_conv;
mod print_dense;
mod print_float;
mod print_names;
mod print_op_attrs;
mod print_ops;
mod print_region_ops;
mod print_sharding;
mod print_value;
mod printer;
mod resolve_dynamic;
mod sharding_per_value;

pub use parser::{parse_module, parse_tensor_list};
pub use print_value::{format_value, format_value_dense};
pub use printer::{print_func, print_module};
pub use sharding_per_value::{read_sharding_per_value, sharding_per_value_attr};
