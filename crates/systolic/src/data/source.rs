//! Sources: where a pipeline's elements come from. Every source reads lazily, when an epoch is
//! iterated, and reports a file it cannot read or parse as an `Err` element naming the file and
//! the cause (and, for CSV, the line and column).

use super::{Dataset, Features, HostArray, Slices, Stream};
use crate::checkpoint::npz;
use crate::checkpoint::stored::Entry;
use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use systolic_ir::{DType, DTypeKind, Data, Tensor, TensorType};

/// The stream of the slices of `source` (which may have failed to load).
fn slices<S: Slices>(source: Result<Arc<S>>) -> Stream<S::Item> {
    let source = match source {
        Ok(s) => s,
        Err(e) => return Box::new(std::iter::once(Err(e))),
    };
    match source.num_slices() {
        Ok(n) => Box::new((0..n).map(move |i| source.slice(i))),
        Err(e) => Box::new(std::iter::once(Err(e))),
    }
}

impl<T: Send + 'static> Dataset<T> {
    /// The examples of in-memory arrays, cut along their leading axis (tf.data's
    /// `from_tensor_slices`): a [`HostArray`], a [`Features`] map or a tuple of them, whose
    /// leaves must share the leading dimension.
    ///
    /// ```
    /// use systolic::data::{Dataset, HostArray};
    /// let x = HostArray::from_vec(vec![1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0], &[3, 2]).unwrap();
    /// let y = HostArray::from_vec(vec![0i32, 1, 0], &[3]).unwrap();
    /// let (x1, y1) = Dataset::from_tensor_slices((x, y)).skip(1).iter().next().unwrap().unwrap();
    /// assert_eq!(x1.to_vec::<f32>().unwrap(), vec![3.0, 4.0]);
    /// assert_eq!(y1.to_vec::<i32>().unwrap(), vec![1]);
    /// ```
    pub fn from_tensor_slices<S: Slices<Item = T>>(source: S) -> Dataset<T> {
        let source = Arc::new(source);
        Dataset::from_make(move |_| slices(Ok(source.clone())))
    }
}

impl<T: Send + 'static> Dataset<T> {
    /// The elements of the iterator `make` returns, once per epoch (tf.data's
    /// `from_generator`): any Rust iterator. `make` is called again for each epoch, so it
    /// must give the same elements each time for the pipeline to be deterministic.
    ///
    /// ```
    /// use systolic::data::Dataset;
    /// let ds = Dataset::from_generator(|| (0..3).map(|i| i * i));
    /// assert_eq!(ds.iter().collect::<systolic::Result<Vec<_>>>().unwrap(), vec![0, 1, 4]);
    /// ```
    pub fn from_generator<I>(make: impl Fn() -> I + Send + Sync + 'static) -> Dataset<T>
    where
        I: IntoIterator<Item = T>,
        I::IntoIter: Send + 'static,
    {
        Dataset::from_make(move |_| Box::new(make().into_iter().map(Ok)))
    }
}

impl Dataset<PathBuf> {
    /// A list of files, in the given order: the usual input of
    /// [`interleave`](Dataset::interleave) with a per-file source.
    pub fn from_files<P: AsRef<Path>>(paths: impl IntoIterator<Item = P>) -> Dataset<PathBuf> {
        Dataset::from_vec(paths.into_iter().map(|p| p.as_ref().to_path_buf()).collect())
    }

    /// The files of `dir` whose names end with `suffix` (`".npy"`), sorted by name so the order
    /// does not depend on the file system (tf.data's `list_files(…, shuffle=False)`); shuffle
    /// them with [`shuffle`](Dataset::shuffle). An unreadable directory is an `Err` element.
    pub fn list_files(dir: impl AsRef<Path>, suffix: &str) -> Dataset<PathBuf> {
        let dir = dir.as_ref().to_path_buf();
        let suffix = suffix.to_string();
        Dataset::from_make(move |_| {
            let listed = std::fs::read_dir(&dir).and_then(|entries| {
                let mut files = entries
                    .map(|e| e.map(|e| e.path()))
                    .collect::<std::io::Result<Vec<_>>>()?;
                files.retain(|p| {
                    p.is_file() && p.file_name().is_some_and(|n| n.to_string_lossy().ends_with(&suffix))
                });
                files.sort();
                Ok(files)
            });
            match listed {
                Ok(files) => Box::new(files.into_iter().map(Ok)),
                Err(e) => Box::new(std::iter::once(Err(Error::op(
                    "data.list_files",
                    format!("cannot list {}: {e}", dir.display()),
                )))),
            }
        })
    }
}

/// Reads a whole `.npy` file.
fn read_npy(path: &Path) -> Result<HostArray> {
    systolic_npy::read_raw(path, None)
        .map(HostArray::from_raw)
        .map_err(|e| Error::op("data.from_npy", e.to_string()))
}

/// Reads every member of an `.npz` file.
fn read_npz(path: &Path) -> Result<Features> {
    let fail = |m: String| Error::op("data.from_npz", format!("{}: {m}", path.display()));
    let bytes = std::fs::read(path).map_err(|e| fail(format!("cannot read: {e}")))?;
    let contents = npz::read(&bytes).map_err(fail)?;
    contents
        .tensors
        .into_iter()
        .map(|(key, entry)| {
            let array = match entry {
                Entry::Npy(data) => systolic_npy::decode(data, None)
                    .map(HostArray::from_raw)
                    .map_err(|e| fail(format!("member `{key}`: {e}")))?,
                Entry::Dense { ty, bytes } => HostArray::from_le_bytes(ty, bytes)?,
            };
            Ok((key, array))
        })
        .collect()
}

impl Dataset<HostArray> {
    /// The rows of a `.npy` file's array (its leading axis). The file is read when an epoch
    /// starts; a missing or malformed file is one `Err` element naming it.
    pub fn from_npy(path: impl AsRef<Path>) -> Dataset<HostArray> {
        let path = path.as_ref().to_path_buf();
        Dataset::from_make(move |_| slices(read_npy(&path).map(Arc::new)))
    }
}

impl Dataset<Features> {
    /// The examples of an `.npz` file (`np.savez(f, x=…, y=…)`): one [`Features`] per row,
    /// keyed by the member names, whose leading dimensions must agree.
    pub fn from_npz(path: impl AsRef<Path>) -> Dataset<Features> {
        let path = path.as_ref().to_path_buf();
        Dataset::from_make(move |_| slices(read_npz(&path).map(Arc::new)))
    }

    /// The rows of a CSV file of numeric columns: one [`Features`] per row, a scalar of
    /// `options.dtype` per column, keyed by the header's names (or `"0"`, `"1"`, … without a
    /// header). Empty lines are skipped; a field that is not a number is an `Err` element naming
    /// the file, line and column, and the rows after it still come.
    ///
    /// ```
    /// use systolic::data::{CsvOptions, Dataset};
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("t.csv");
    /// std::fs::write(&path, "x,y\n1.5,2\n-3,4\n").unwrap();
    /// let rows: Vec<_> = Dataset::from_csv(&path, CsvOptions::default()).iter().map(Result::unwrap).collect();
    /// assert_eq!(rows[1]["x"].to_vec::<f32>().unwrap(), vec![-3.0]);
    /// assert_eq!(rows[1]["y"].to_vec::<f32>().unwrap(), vec![4.0]);
    /// ```
    pub fn from_csv(path: impl AsRef<Path>, options: CsvOptions) -> Dataset<Features> {
        let path = path.as_ref().to_path_buf();
        Dataset::from_make(move |_| match read_csv_lines(&path, &options) {
            Ok((names, lines)) => {
                let options = options.clone();
                let path = path.clone();
                Box::new(lines.into_iter().map(move |(line_no, line)| {
                    parse_row(&path, &names, line_no, &line, &options)
                }))
            }
            Err(e) => Box::new(std::iter::once(Err(e))),
        })
    }
}

/// How [`Dataset::from_csv`] reads a file.
#[derive(Clone, Debug)]
pub struct CsvOptions {
    /// The first line names the columns.
    pub header: bool,
    /// The field separator.
    pub delimiter: char,
    /// The dtype of every column (f32 by default; an integer dtype parses integers).
    pub dtype: DType,
}

impl Default for CsvOptions {
    fn default() -> Self {
        CsvOptions {
            header: true,
            delimiter: ',',
            dtype: DType::F32,
        }
    }
}

/// Splits a line into trimmed fields, dropping the quotes around a quoted field.
fn fields(line: &str, delimiter: char) -> Vec<String> {
    line.split(delimiter)
        .map(|f| f.trim().trim_matches('"').trim().to_string())
        .collect()
}

/// The column names and the numbered non-empty data lines of a CSV file.
type CsvLines = (Arc<Vec<String>>, Vec<(usize, String)>);

fn read_csv_lines(path: &Path, options: &CsvOptions) -> Result<CsvLines> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Error::op("data.from_csv", format!("cannot read {}: {e}", path.display()))
    })?;
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.to_string()))
        .filter(|(_, l)| !l.trim().is_empty());
    let names = if options.header {
        let (_, first) = lines.next().ok_or_else(|| {
            Error::op("data.from_csv", format!("{} has no header line", path.display()))
        })?;
        fields(&first, options.delimiter)
    } else {
        Vec::new()
    };
    let rows: Vec<(usize, String)> = lines.collect();
    let names = if options.header {
        names
    } else {
        let n = rows.first().map_or(0, |(_, l)| fields(l, options.delimiter).len());
        (0..n).map(|i| i.to_string()).collect()
    };
    Ok((Arc::new(names), rows))
}

fn parse_row(
    path: &Path,
    names: &[String],
    line_no: usize,
    line: &str,
    options: &CsvOptions,
) -> Result<Features> {
    let at = |m: String| Error::op("data.from_csv", format!("{} line {line_no}: {m}", path.display()));
    let values = fields(line, options.delimiter);
    if values.len() != names.len() {
        return Err(at(format!(
            "{} fields, the header has {} columns",
            values.len(),
            names.len()
        )));
    }
    let ty = TensorType::scalar(options.dtype);
    let mut row = BTreeMap::new();
    for (name, text) in names.iter().zip(&values) {
        let bad = || at(format!("column `{name}`: cannot parse `{text}` as {}", options.dtype.numpy_name()));
        let data = match options.dtype.kind() {
            DTypeKind::Float => Data::Float(vec![text.parse::<f64>().map_err(|_| bad())?]),
            DTypeKind::Signed => Data::Int(vec![text.parse::<i64>().map_err(|_| bad())?]),
            DTypeKind::Unsigned => Data::UInt(vec![text.parse::<u64>().map_err(|_| bad())?]),
            DTypeKind::Bool => Data::Bool(vec![match text.as_str() {
                "1" | "true" | "True" => true,
                "0" | "false" | "False" => false,
                _ => return Err(bad()),
            }]),
        };
        let tensor = Tensor::new(ty.clone(), data).map_err(|e| at(e.to_string()))?;
        row.insert(name.clone(), HostArray::from_tensor(&tensor));
    }
    Ok(row)
}
