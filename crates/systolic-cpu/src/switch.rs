//! Process-wide switches read from environment variables: `auto` (or unset) lets the backend
//! decide from the machine, a named choice fixes the decision, anything else is reported on
//! stderr and treated as `auto`. `SYSTOLIC_CPU_GEMM` and `SYSTOLIC_CPU_HUGE_PAGES` are read
//! this way, once per process by their callers.

/// The value of the environment variable `var`: the choice it names in `choices` (trimmed,
/// case-insensitive), else `automatic()`.
pub fn from_env<T: Copy>(var: &str, choices: &[(&str, T)], automatic: impl Fn() -> T) -> T {
    let value = std::env::var(var).ok();
    choose(value.as_deref(), choices, &automatic).unwrap_or_else(|| {
        let names: Vec<&str> = choices.iter().map(|&(name, _)| name).collect();
        eprintln!(
            "warning: {var}={:?} is not one of auto, {}; using auto",
            value.unwrap_or_default(),
            names.join(", ")
        );
        automatic()
    })
}

/// The choice for `value` (`None`: unset), `automatic` deciding for `auto` and the empty
/// string; `None` for a value that is not one of the choices.
fn choose<T: Copy>(
    value: Option<&str>,
    choices: &[(&str, T)],
    automatic: impl Fn() -> T,
) -> Option<T> {
    match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        None | Some("" | "auto") => Some(automatic()),
        Some(v) => choices
            .iter()
            .find(|&&(name, _)| name == v)
            .map(|&(_, t)| t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_choice_overrides_the_automatic_one() {
        let on_off = [("on", true), ("off", false)];
        assert_eq!(choose(None, &on_off, || true), Some(true));
        assert_eq!(choose(Some("auto"), &on_off, || false), Some(false));
        assert_eq!(choose(Some(" ON "), &on_off, || false), Some(true));
        assert_eq!(choose(Some("off"), &on_off, || true), Some(false));
        assert_eq!(choose(Some("sometimes"), &on_off, || true), None);
    }
}
