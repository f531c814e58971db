//! Errors of reading and writing `.npy` files. Every error names the file.

use systolic_ir::DType;

/// What is wrong with a `.npy` file or buffer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NpyErrorKind {
    /// The file could not be read or written.
    #[error("{0}")]
    Io(String),
    /// The file does not start with numpy's magic string.
    #[error("not a .npy file (it does not start with \\x93NUMPY)")]
    NotNpy,
    /// A format version this reader does not know.
    #[error(".npy format version {major}.{minor} is not supported (1.0, 2.0 and 3.0 are)")]
    UnsupportedVersion {
        /// Major version byte.
        major: u8,
        /// Minor version byte.
        minor: u8,
    },
    /// The file ends in the middle of something.
    #[error("the file is truncated: it ends inside {0}")]
    Truncated(&'static str),
    /// The header dict is malformed.
    #[error("malformed .npy header: {0}")]
    BadHeader(String),
    /// The element type is not one Systolic has.
    #[error("unsupported element type: {0}")]
    UnsupportedDescr(String),
    /// The data part has the wrong size for the header's shape and element type.
    #[error(
        "the header promises {expected} bytes of data ({shape:?} of {descr}), the file has {got}"
    )]
    DataLength {
        /// Shape from the header.
        shape: Vec<usize>,
        /// Element type string from the header.
        descr: String,
        /// Bytes the header promises.
        expected: usize,
        /// Bytes present.
        got: usize,
    },
    /// The shape's element count overflows.
    #[error("shape {0:?} is too large")]
    TooLarge(Vec<usize>),
    /// A sub-byte integer element whose byte holds no value of its type (an int4 byte is
    /// its low four bits, or them sign-extended: 0x7F is neither).
    #[error("element {index} is the byte 0x{byte:02X}, which holds no {dtype} value")]
    SubByteOutOfRange {
        /// Its position in the data, in file order.
        index: usize,
        /// The byte.
        byte: u8,
        /// The element type (`int4`).
        dtype: String,
    },
    /// Raw void elements whose dtype cannot be decided.
    #[error("{}", ambiguous_message(*.width, *.expected))]
    AmbiguousRaw {
        /// Bytes per element.
        width: usize,
        /// The dtype the caller expected, if any.
        expected: Option<DType>,
    },
}

fn ambiguous_message(width: usize, expected: Option<DType>) -> String {
    let what = match width {
        2 => "bfloat16",
        _ => "int4/uint4/int2/uint2 or float8/float6/float4 types",
    };
    match expected {
        Some(d) => format!(
            "the file holds raw {width}-byte elements ('<V{width}', as np.save writes ml_dtypes' \
             {what}), which cannot be read as {}",
            d.numpy_name()
        ),
        None => format!(
            "the file holds raw {width}-byte elements ('<V{width}', as np.save writes ml_dtypes' \
             {what}); say which dtype they are"
        ),
    }
}

/// An error about one file.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{file}: {kind}")]
pub struct NpyError {
    /// The file (or buffer name) concerned.
    pub file: String,
    /// What is wrong.
    pub kind: NpyErrorKind,
}
