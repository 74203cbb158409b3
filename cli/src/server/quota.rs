//! The caps on what one server writes into its results folder: at most [`MAX_FILES`] result files and
//! [`MAX_BYTES`] in all over its life, counted as it writes them. A page posts one file per run; a folder
//! filling by the thousand means something posts in a loop, and the disk is the user's.

use std::sync::Mutex;

/// Most result files one server saves.
pub(super) const MAX_FILES: u64 = 1000;
/// Most bytes of result files one server saves, in all (32 of the largest accepted files).
pub(super) const MAX_BYTES: u64 = 256 * 1024 * 1024;

/// What the server saved so far, against its caps.
#[derive(Debug)]
pub(crate) struct Quota {
    max_files: u64,
    max_bytes: u64,
    used: Mutex<Used>,
}

#[derive(Debug, Default)]
struct Used {
    files: u64,
    bytes: u64,
}

/// Why a file is not saved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum Full {
    /// The server has saved its most files.
    #[error("this server has saved {0} result files, the most it saves; restart it to save more")]
    Files(u64),
    /// The file would take the server past its total.
    #[error("this file ({size} bytes) would take this server's saved results past {max} bytes in all; restart it to save more")]
    Bytes {
        /// The file's size.
        size: u64,
        /// The cap.
        max: u64,
    },
}

impl Default for Quota {
    fn default() -> Self {
        Quota::new(MAX_FILES, MAX_BYTES)
    }
}

impl Quota {
    /// A quota of `max_files` files and `max_bytes` bytes.
    pub(crate) fn new(max_files: u64, max_bytes: u64) -> Self {
        Quota { max_files, max_bytes, used: Mutex::default() }
    }

    /// Take room for a file of `size` bytes, before writing it (two posts at once cannot both take the last
    /// room); [`Quota::release`] gives it back if the write fails.
    pub(crate) fn reserve(&self, size: u64) -> Result<(), Full> {
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        if used.files >= self.max_files {
            return Err(Full::Files(self.max_files));
        }
        if used.bytes.saturating_add(size) > self.max_bytes {
            return Err(Full::Bytes { size, max: self.max_bytes });
        }
        used.files += 1;
        used.bytes += size;
        Ok(())
    }

    /// Give back the room of a file of `size` bytes that was not written.
    pub(crate) fn release(&self, size: u64) {
        let mut used = self.used.lock().unwrap_or_else(|e| e.into_inner());
        used.files = used.files.saturating_sub(1);
        used.bytes = used.bytes.saturating_sub(size);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_and_bytes_are_capped_and_a_failed_write_gives_its_room_back() {
        let quota = Quota::new(3, 100);
        assert_eq!(quota.reserve(60), Ok(()));
        assert_eq!(quota.reserve(41), Err(Full::Bytes { size: 41, max: 100 }));
        assert_eq!(quota.reserve(40), Ok(()));
        quota.release(40);
        assert_eq!(quota.reserve(40), Ok(()));
        assert_eq!(quota.reserve(0), Ok(()));
        assert_eq!(quota.reserve(0), Err(Full::Files(3)));
        assert!(Full::Files(3).to_string().contains("saved 3 result files"));
    }
}
