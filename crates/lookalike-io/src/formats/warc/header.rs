//! Header blocks: contract: "give me the start of a WARC or HTTP header, I tell you where it ends
//! and give you its first line and its `Name: value` fields".

/// The end of a header block (after its empty line), if it is in `window`.
pub(super) fn header_end(window: &[u8]) -> Option<usize> {
    memchr::memchr_iter(b'\n', window).find_map(|nl| match window.get(nl + 1) {
        Some(b'\n') => Some(nl + 2),
        Some(b'\r') if window.get(nl + 2) == Some(&b'\n') => Some(nl + 3),
        _ => None,
    })
}

/// `Name: value` lines after a first line, names lower-cased; folded lines are joined.
pub(super) fn header_lines(block: &[u8]) -> (String, Vec<(String, String)>) {
    let mut lines = block.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l));
    let first = String::from_utf8_lossy(lines.next().unwrap_or_default()).trim().to_owned();
    let mut fields: Vec<(String, String)> = Vec::new();
    for line in lines {
        if line.is_empty() {
            continue;
        }
        if line[0] == b' ' || line[0] == b'\t' {
            if let Some((_, value)) = fields.last_mut() {
                value.push(' ');
                value.push_str(String::from_utf8_lossy(line).trim());
            }
            continue;
        }
        let Some(colon) = memchr::memchr(b':', line) else { continue };
        let name = String::from_utf8_lossy(&line[..colon]).trim().to_ascii_lowercase();
        let value = String::from_utf8_lossy(&line[colon + 1..]).trim().to_owned();
        fields.push((name, value));
    }
    (first, fields)
}
