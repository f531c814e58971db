//! Sources: where a pipeline's elements come from. Every source reads lazily, when an epoch is
//! iterated, and reports a file it cannot read or parse as an `Err` element naming the file and
//! the cause (and, for CSV, the line and column).

use super::{Dataset, Features, HostArray, Slices, Stream};
use crate::checkpoint::npz;
use crate::checkpoint::stored::Entry;
use crate::error::{Error, Result};
use std::collections::{BTreeMap, VecDeque};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
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
        Dataset::from_vec(
            paths
                .into_iter()
                .map(|p| p.as_ref().to_path_buf())
                .collect(),
        )
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
                    p.is_file()
                        && p.file_name()
                            .is_some_and(|n| n.to_string_lossy().ends_with(&suffix))
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
    /// header). Fields may be quoted (`"1,5"` with a `,` delimiter is one field; `""` inside
    /// quotes is a quote) and are trimmed; empty lines are skipped. The file is read row by
    /// row as the epoch is iterated. A field that is not a number, or a row with the wrong
    /// number of fields, is an `Err` element naming the file, line and column, and the rows
    /// after it still come; an unreadable file is one `Err` element.
    ///
    /// ```
    /// use systolic::data::{CsvOptions, Dataset};
    /// let dir = tempfile::tempdir().unwrap();
    /// let path = dir.path().join("t.csv");
    /// std::fs::write(&path, "x,\"y\"\n1.5,2\n-3,\" 4 \"\n7,oops\n").unwrap();
    /// let rows: Vec<_> = Dataset::from_csv(&path, CsvOptions::default()).iter().collect();
    /// let second = rows[1].as_ref().unwrap();
    /// assert_eq!(second["x"].to_vec::<f32>().unwrap(), vec![-3.0]);
    /// assert_eq!(second["y"].to_vec::<f32>().unwrap(), vec![4.0]);
    /// let err = rows[2].as_ref().unwrap_err().to_string();
    /// assert!(err.contains("line 4, column 2 (`y`)") && err.contains("`oops`"), "{err}");
    /// ```
    pub fn from_csv(path: impl AsRef<Path>, options: CsvOptions) -> Dataset<Features> {
        let path = path.as_ref().to_path_buf();
        Dataset::from_make(move |_| match CsvRows::open(&path, &options) {
            Ok(rows) => Box::new(rows),
            Err(e) => Box::new(std::iter::once(Err(e))),
        })
    }
}

/// How [`Dataset::from_csv`] reads a file.
#[derive(Clone, Debug)]
pub struct CsvOptions {
    /// The first line names the columns.
    pub header: bool,
    /// The field separator: an ASCII character.
    pub delimiter: char,
    /// The dtype of every column (f32 by default; an integer dtype parses integers, bool
    /// `0`/`1`/`true`/`false`).
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

/// The stream of a CSV file's rows, parsed one record at a time (the `csv` crate does the
/// quoting; positions come from its records).
struct CsvRows {
    reader: csv::Reader<Counting<std::fs::File>>,
    newlines: Newlines,
    path: PathBuf,
    /// The column names: the header's, or numbers taken from the first row's width.
    names: Option<Arc<Vec<String>>>,
    dtype: DType,
    record: csv::StringRecord,
    /// After an I/O error nothing more is read (the position is lost).
    failed: bool,
}

impl CsvRows {
    fn open(path: &Path, options: &CsvOptions) -> Result<CsvRows> {
        let fail = |m: String| Error::op("data.from_csv", format!("{}: {m}", path.display()));
        let delimiter = u8::try_from(options.delimiter)
            .ok()
            .filter(u8::is_ascii)
            .ok_or_else(|| {
                fail(format!(
                    "the delimiter {:?} is not ASCII",
                    options.delimiter
                ))
            })?;
        let file = std::fs::File::open(path).map_err(|e| fail(format!("cannot read: {e}")))?;
        let newlines = Newlines::default();
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(options.header)
            .delimiter(delimiter)
            .flexible(true)
            .trim(csv::Trim::All)
            .from_reader(Counting {
                inner: file,
                newlines: newlines.clone(),
            });
        let names = if options.header {
            let header = reader
                .headers()
                .map_err(|e| fail(csv_error(&e, &newlines)))?;
            if header.is_empty() {
                return Err(fail("has no header line".into()));
            }
            let names: Vec<String> = header.iter().map(str::to_string).collect();
            if let Some((k, dup)) = names
                .iter()
                .enumerate()
                .find(|(k, n)| names[..*k].contains(n))
            {
                return Err(fail(format!(
                    "column {} repeats the header name `{dup}`",
                    k + 1
                )));
            }
            Some(Arc::new(names))
        } else {
            None
        };
        Ok(CsvRows {
            reader,
            path: path.to_path_buf(),
            names,
            dtype: options.dtype,
            record: csv::StringRecord::new(),
            failed: false,
            newlines,
        })
    }

    /// The current record as a row.
    fn row(&mut self) -> Result<Features> {
        let line = self
            .record
            .position()
            .map_or(0, |p| self.newlines.line_of(p.byte()));
        let at = |m: String| {
            Error::op(
                "data.from_csv",
                format!("{} line {line}: {m}", self.path.display()),
            )
        };
        let names = self
            .names
            .get_or_insert_with(|| {
                Arc::new((0..self.record.len()).map(|i| i.to_string()).collect())
            })
            .clone();
        if self.record.len() != names.len() {
            return Err(at(format!(
                "{} fields, but the file has {} columns",
                self.record.len(),
                names.len()
            )));
        }
        let ty = TensorType::scalar(self.dtype);
        let mut row = BTreeMap::new();
        for (k, (name, text)) in names.iter().zip(self.record.iter()).enumerate() {
            let value = parse_field(text, self.dtype).ok_or_else(|| {
                Error::op(
                    "data.from_csv",
                    format!(
                        "{} line {line}, column {} (`{name}`): cannot parse `{text}` as {}",
                        self.path.display(),
                        k + 1,
                        self.dtype.numpy_name()
                    ),
                )
            })?;
            let tensor = Tensor::new(ty.clone(), value).map_err(|e| at(e.to_string()))?;
            row.insert(name.clone(), HostArray::from_tensor(&tensor));
        }
        Ok(row)
    }
}

impl Iterator for CsvRows {
    type Item = Result<Features>;

    fn next(&mut self) -> Option<Result<Features>> {
        if self.failed {
            return None;
        }
        match self.reader.read_record(&mut self.record) {
            Ok(false) => None,
            Ok(true) => Some(self.row()),
            Err(e) => {
                // A record that is not UTF-8 leaves the reader where it was: skip it. Anything
                // else (an I/O error) ends the stream after reporting it.
                self.failed = !matches!(e.kind(), csv::ErrorKind::Utf8 { .. });
                Some(Err(Error::op(
                    "data.from_csv",
                    format!("{}: {}", self.path.display(), csv_error(&e, &self.newlines)),
                )))
            }
        }
    }
}

/// Where a file's line ends are, recorded as the `csv` reader reads it. The reader's own line
/// numbers do not count the empty lines it skips, and a record's byte offset is where the
/// reader started looking for it (before the empty lines it skipped), so a record's line in
/// the file is found from that offset and the line ends right after it. Only the line ends read
/// ahead of the last record asked about are kept.
#[derive(Clone, Default)]
struct Newlines(Arc<Mutex<NewlineState>>);

#[derive(Default)]
struct NewlineState {
    /// Bytes read so far.
    read: u64,
    /// Whether the last byte read was `\r` (a `\r\n` split between two reads).
    after_cr: bool,
    /// The line ends not yet counted: where each starts (its `\r` or `\n`) and ends.
    pending: VecDeque<(u64, u64)>,
    /// Line ends counted (before the last record asked about).
    before: u64,
}

impl Newlines {
    /// The 1-based line of the record the reader started looking for at byte `offset`
    /// (asked in increasing order): past the line ends before it and the empty lines at it.
    /// A line end inside a quoted field counts as the record's own line, so a multi-line
    /// record is named by its first line.
    fn line_of(&self, offset: u64) -> u64 {
        let mut s = self.0.lock().unwrap_or_else(|p| p.into_inner());
        // Line ends starting at or before the cursor are behind the record; one starting at
        // the cursor is an empty line the reader skipped (or the `\n` of a `\r\n` the offset
        // points into), so the record starts after it.
        let mut cursor = offset;
        while let Some(&(start, end)) = s.pending.front() {
            if start > cursor {
                break;
            }
            s.pending.pop_front();
            s.before += 1;
            cursor = cursor.max(end);
        }
        s.before + 1
    }
}

/// A reader that records the line ends (`\n` or `\r\n`) passing through it.
struct Counting<R> {
    inner: R,
    newlines: Newlines,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut s = self.newlines.0.lock().unwrap_or_else(|p| p.into_inner());
        let base = s.read;
        for (i, &b) in buf[..n].iter().enumerate() {
            let at = base + i as u64;
            if b == b'\n' {
                let start = if s.after_cr { at - 1 } else { at };
                s.pending.push_back((start, at + 1));
            }
            s.after_cr = b == b'\r';
        }
        s.read += n as u64;
        Ok(n)
    }
}

/// A `csv` error in this module's words, with its line when it has one.
fn csv_error(e: &csv::Error, newlines: &Newlines) -> String {
    match e.kind() {
        csv::ErrorKind::Utf8 { pos, err } => {
            let line = pos.as_ref().map_or(0, |p| newlines.line_of(p.byte()));
            format!("line {line}, column {}: not UTF-8 text", err.field() + 1)
        }
        csv::ErrorKind::Io(io) => format!("cannot read: {io}"),
        _ => e.to_string(),
    }
}

/// One field as a value of `dtype`, or `None` when it is not one (an integer out of the
/// dtype's range included: it is refused, not wrapped).
fn parse_field(text: &str, dtype: DType) -> Option<Data> {
    let bits = dtype.bit_width();
    Some(match dtype.kind() {
        DTypeKind::Float => Data::Float(vec![text.parse::<f64>().ok()?]),
        DTypeKind::Signed => {
            let v = text.parse::<i64>().ok()?;
            let fits = bits >= 64 || (-(1i64 << (bits - 1))..(1i64 << (bits - 1))).contains(&v);
            Data::Int(vec![fits.then_some(v)?])
        }
        DTypeKind::Unsigned => {
            let v = text.parse::<u64>().ok()?;
            Data::UInt(vec![(bits >= 64 || v < (1u64 << bits)).then_some(v)?])
        }
        DTypeKind::Bool => Data::Bool(vec![match text {
            "1" | "true" | "True" => true,
            "0" | "false" | "False" => false,
            _ => return None,
        }]),
        // A text field has no complex spelling here.
        DTypeKind::Complex => return None,
    })
}
