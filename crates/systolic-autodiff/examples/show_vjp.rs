//! Prints the reverse-mode program of a StableHLO file: `cargo run -p systolic-autodiff
//! --example show_vjp -- file.mlir [wrt positions…]` (all parameters by default).

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let Some(path) = args.get(1) else {
        eprintln!("usage: show_vjp FILE.mlir [WRT...]");
        std::process::exit(2);
    };
    let text = std::fs::read_to_string(path).expect("read the file");
    let m = systolic_ir::text::parse_module(&text, path).expect("parse");
    let main = m
        .funcs
        .iter()
        .find(|f| f.name == "main")
        .unwrap_or(&m.funcs[0]);
    let wrt: Vec<usize> = if args.len() > 2 {
        args[2..]
            .iter()
            .map(|a| a.parse().expect("a position"))
            .collect()
    } else {
        (0..main.params().len()).collect()
    };
    match systolic_autodiff::vjp_in_module(&m, &main.name, &wrt) {
        Ok(f) => print!(
            "{}",
            systolic_ir::text::print_module(&systolic_ir::Module {
                funcs: vec![f],
                ..Default::default()
            })
        ),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1);
        }
    }
}
