//! Reading a file someone named on the command line (a result file, `--cacert`, `serve --cert/--key`, the
//! page's files): one reader for all of them, so each refuses the same things the same way. `/dev/zero` is
//! endless and its `metadata().len()` is 0, a FIFO blocks on open until a writer comes, a directory reads
//! as an error deep inside a parser: the file is opened without blocking, checked to be a regular file
//! *after* opening (the checked file is the one read), and read with its cap counted while reading.

use std::io::Read;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::Path;

/// Why a file could not be read, for a message that names it.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum FileError {
    /// It cannot be opened or read.
    #[error("cannot read it ({0})")]
    Unreadable(String),
    /// It is a directory, a device, a FIFO or a socket.
    #[error("is {0}, not a regular file; give the path of a file")]
    NotRegular(&'static str),
    /// It holds more than the cap.
    #[error("is too large: more than {0} bytes; is it the right file?")]
    TooLarge(u64),
}

/// The bytes of the regular file at `path`, at most `cap` of them.
pub(crate) fn read_capped(path: &Path, cap: u64) -> Result<Vec<u8>, FileError> {
    let unreadable = |e: std::io::Error| FileError::Unreadable(e.to_string());
    // O_NONBLOCK: opening a FIFO returns at once instead of waiting for a writer; regular files ignore it.
    let file = std::fs::OpenOptions::new().read(true).custom_flags(libc::O_NONBLOCK).open(path).map_err(unreadable)?;
    let kind = file.metadata().map_err(unreadable)?.file_type();
    let what = if kind.is_file() {
        None
    } else if kind.is_dir() {
        Some("a directory")
    } else if kind.is_fifo() {
        Some("a FIFO (named pipe)")
    } else if kind.is_char_device() || kind.is_block_device() {
        Some("a device")
    } else {
        Some("a socket or other special file")
    };
    if let Some(what) = what {
        return Err(FileError::NotRegular(what));
    }
    let mut bytes = Vec::new();
    // One byte past the cap tells a file of exactly the cap from a larger one.
    file.take(cap.saturating_add(1)).read_to_end(&mut bytes).map_err(unreadable)?;
    if bytes.len() as u64 > cap {
        return Err(FileError::TooLarge(cap));
    }
    Ok(bytes)
}

/// [`read_capped`], as UTF-8 text.
pub(crate) fn read_text(path: &Path, cap: u64) -> Result<String, FileError> {
    String::from_utf8(read_capped(path, cap)?).map_err(|e| FileError::Unreadable(format!("not UTF-8 text: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_within_the_cap_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("r.json");
        std::fs::write(&file, "0123456789").unwrap();
        assert_eq!(read_capped(&file, 10).unwrap(), b"0123456789");
        assert_eq!(read_capped(&file, 9), Err(FileError::TooLarge(9)));
        assert_eq!(read_capped(dir.path(), 10), Err(FileError::NotRegular("a directory")));
        assert_eq!(read_capped(Path::new("/dev/zero"), 10), Err(FileError::NotRegular("a device")));
        assert!(matches!(read_capped(&dir.path().join("nope"), 10), Err(FileError::Unreadable(_))));
        std::fs::write(&file, [0xff, 0xfe]).unwrap();
        assert!(read_text(&file, 10).unwrap_err().to_string().contains("not UTF-8"));
    }

    /// A FIFO with no writer: a blocking open would wait for ever; this returns at once.
    #[test]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe");
        let path = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo reads the NUL-terminated path and creates a file; nothing else.
        assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o600) }, 0);
        let t = std::time::Instant::now();
        assert_eq!(read_capped(&fifo, 10), Err(FileError::NotRegular("a FIFO (named pipe)")));
        assert!(t.elapsed() < std::time::Duration::from_secs(1));
    }
}
