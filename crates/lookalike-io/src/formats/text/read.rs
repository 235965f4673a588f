//! Reading a text or HTML file: contract: "give me a (decompressed) stream, I give you its bytes as
//! one record, or an error naming the file when it is too large or cannot be read".

use std::io::Read;
use std::sync::Arc;

use crate::error::InputError;
use crate::format::Format;
use crate::record::{RawRecord, read_error_message};
use crate::sniff::Stream;

/// The whole of `stream` (named `name`, in `format`) as one record, up to `max` bytes;
/// `compressed` says read errors are gzip errors.
pub(crate) fn read_whole(
    name: Arc<str>,
    stream: Stream,
    format: Format,
    max: u64,
    compressed: bool,
) -> Result<RawRecord, InputError> {
    let fail = |e: std::io::Error| {
        InputError::new(&name, None, read_error_message(&e, compressed)).losing_input()
    };
    let mut bytes = Vec::new();
    stream.take(max.saturating_add(1)).read_to_end(&mut bytes).map_err(fail)?;
    if bytes.len() as u64 > max {
        let message = format!("document is larger than the {max}-byte limit; skipped");
        return Err(InputError::new(&name, None, message).losing_input());
    }
    Ok(RawRecord { source: name, line: None, format, bytes, warc: None })
}
