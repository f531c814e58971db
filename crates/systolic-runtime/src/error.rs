//! Runtime errors: each says what was asked, of which executable, argument or buffer, and why.

/// Why a runtime call failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RuntimeError {
    /// Compiling (the passes or the lowering) failed; the message names the op and place.
    #[error("compile: {0}")]
    Compile(String),
    /// An argument of `execute` does not fit the executable.
    #[error("@{entry}: argument {index} must be {expected}, got {got}")]
    ArgumentType {
        /// The executable's entry function.
        entry: String,
        /// The argument's position.
        index: usize,
        /// The parameter type.
        expected: String,
        /// The argument's type.
        got: String,
    },
    /// `execute` got the wrong number of arguments.
    #[error("@{entry} expects {expected} arguments, got {got}")]
    ArgumentCount {
        /// The executable's entry function.
        entry: String,
        /// The number of parameters.
        expected: usize,
        /// The number of arguments given.
        got: usize,
    },
    /// A buffer was donated to an execution (or deleted) and cannot be used any more.
    #[error("buffer {buffer} was donated to an earlier execution and is no longer valid{place}")]
    Donated {
        /// The buffer's description (type and device).
        buffer: String,
        /// Where it was used again (`: argument 0 of @main`), or empty.
        place: String,
    },
    /// The buffer lives on another device than the executable.
    #[error("@{entry}: argument {index} is on {got}, the executable runs on {expected}")]
    WrongDevice {
        /// The executable's entry function.
        entry: String,
        /// The argument's position.
        index: usize,
        /// The executable's device.
        expected: String,
        /// The buffer's device.
        got: String,
    },
    /// The host→device transfer of a buffer failed.
    #[error("transfer to {device}: {message}")]
    Transfer {
        /// The destination device.
        device: String,
        /// What went wrong.
        message: String,
    },
    /// A device→host copy failed (it never ran: the transfer thread stopped).
    #[error("copy from {device} to the host: {message}")]
    ToHost {
        /// The device copied from.
        device: String,
        /// What went wrong.
        message: String,
    },
    /// Running the executable failed; the message names the op and place.
    #[error("execute @{entry}: {message}")]
    Execute {
        /// The executable's entry function.
        entry: String,
        /// What went wrong.
        message: String,
    },
    /// An SPMD executable got another number of argument lists than it has devices.
    #[error(
        "@{entry} runs on {expected} devices (one argument list each), got {got} argument lists"
    )]
    DeviceCount {
        /// The executable's entry function.
        entry: String,
        /// The number of devices.
        expected: usize,
        /// The number of argument lists given.
        got: usize,
    },
    /// What went wrong on one device of an SPMD executable (an argument of its list, say).
    #[error("{device} (SPMD device {position}): {error}")]
    OnDevice {
        /// The device's name.
        device: String,
        /// Its position in the executable's devices (the process it runs).
        position: usize,
        /// What went wrong there.
        error: Box<RuntimeError>,
    },
    /// A device name or index that does not exist.
    #[error("no device {name} (the client has: {available})")]
    NoDevice {
        /// The name asked for.
        name: String,
        /// The devices there are.
        available: String,
    },
}

/// Shorthand.
pub type Result<T> = std::result::Result<T, RuntimeError>;
