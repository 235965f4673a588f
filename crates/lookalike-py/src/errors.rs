//! Rust errors as Python exceptions: bad settings are `ValueError`, I/O is `OSError`, both with
//! the Rust message.

use pyo3::PyErr;
use pyo3::exceptions::{PyOSError, PyValueError};

/// A library error as a Python exception: `ValueError` for a setting out of range, `OSError`
/// for the spill files.
pub fn lib_err(e: lookalike::Error) -> PyErr {
    match e {
        lookalike::Error::Config(c) => PyValueError::new_err(c.to_string()),
        lookalike::Error::Io(io) => PyOSError::new_err(io.to_string()),
        other => PyValueError::new_err(other.to_string()),
    }
}

/// An input error (a file that cannot be read, a bad glob) as `OSError`.
pub fn io_err(e: impl std::fmt::Display) -> PyErr {
    PyOSError::new_err(e.to_string())
}

/// A bad argument as `ValueError`.
pub fn value_err(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}

/// An Arrow failure (a column of another type, a broken stream) as `ValueError`.
pub fn arrow_err(e: arrow_schema::ArrowError) -> PyErr {
    PyValueError::new_err(e.to_string())
}
