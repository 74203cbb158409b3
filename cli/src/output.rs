//! Getting reports out: print to stdout, and write files (exports, the server's saved results) without ever
//! destroying what is at the path. A regular file (or a symbolic link to one, written through: the link
//! stays) is written atomically, a temporary file beside it then a rename, so it is complete or absent,
//! never half written. Anything else is never replaced (run as root, a rename over `/dev/null` or
//! `/dev/stdout` would replace that entry of `/dev` for the whole machine): a FIFO or a character device
//! (`/dev/null`, a terminal) is written into, and so is what `/dev/stdout` and `/proc/self/fd/N` name (an
//! open file of this process: a pipe, a terminal, or a file appended to), each wait on a reader bounded by
//! [`PEER_WAIT`]; a directory, a socket or a block device (a disk) is refused, naming it. Files are created
//! with the user's umask (mode 0666 less the umask, 0644 usually), as `cp` or a shell redirection would make
//! them: a report is written to be published or attached, and a web server must be able to read it (the
//! temporary file's own default, 0600, is for secrets). What reaches the terminal has its control characters
//! escaped: labels and reasons in it may come from someone else's result file.

use std::fs::{File, FileType, OpenOptions};
use std::io::{self, Write};
use std::os::fd::AsRawFd;
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use httpbench_shared::render::escape_controls;

/// How long writing into a FIFO waits for a reader to open it, and for its reader to take each piece: a FIFO
/// nobody reads must not hold the run forever.
pub(crate) const PEER_WAIT: Duration = Duration::from_secs(5);
/// Symbolic links followed at most (the kernel's own limit), so a loop of links is an error, not a hang.
const MAX_LINKS: usize = 40;

/// Print `text` on stdout, control characters escaped (JSON has none: serde escapes them).
pub(crate) fn print(text: &str) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    out.write_all(escape_controls(text).as_bytes())?;
    out.flush()
}

/// [`print`] a text report, in colour where stdout takes it ([`crate::colour`]); styled after escaping, so
/// its styles are the only control sequences.
pub(crate) fn print_report(text: &str) -> std::io::Result<()> {
    if !crate::colour::wanted() {
        return print(text);
    }
    let mut out = std::io::stdout().lock();
    out.write_all(crate::colour::paint(&escape_controls(text)).as_bytes())?;
    out.flush()
}

/// What a path names, for writing.
enum Target {
    /// A regular file, or nothing yet: this path (a link's target) is replaced atomically.
    File(PathBuf),
    /// Something else that is there, written into.
    Into { at: PathBuf, kind: FileType },
}

/// Write `text` to `path`: atomically for a regular file or a new one, into what is there otherwise (see the
/// module's doc). Errors name `path` as given.
pub(crate) fn write_atomic(path: &Path, text: &str) -> anyhow::Result<()> {
    let name = path.display();
    match resolve(path).with_context(|| format!("cannot write {name}"))? {
        Target::File(at) => replace(&at, text).with_context(|| format!("cannot write {name}")),
        Target::Into { at, kind } => write_into(&at, kind, text).with_context(|| format!("cannot write {name}")),
    }
}

/// Follow `path`'s symbolic links to what is there. A link in `/proc` (`/dev/stdout` is `/proc/self/fd/1`)
/// names an open file, not a path to rename over: it is written into whatever it is.
fn resolve(path: &Path) -> anyhow::Result<Target> {
    let mut at = path.to_path_buf();
    for _ in 0..MAX_LINKS {
        let meta = match std::fs::symlink_metadata(&at) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Target::File(at)),
            other => other?,
        };
        let kind = meta.file_type();
        if kind.is_file() {
            return Ok(Target::File(at));
        }
        if !kind.is_symlink() {
            return Ok(Target::Into { at, kind });
        }
        let link = std::fs::read_link(&at)?;
        let dir = at.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let in_proc = |p: &Path| p.canonicalize().is_ok_and(|p| p.starts_with("/proc"));
        if link.starts_with("/proc") || in_proc(dir) {
            let kind = std::fs::metadata(&at)?.file_type();
            return Ok(Target::Into { at, kind });
        }
        at = dir.join(link);
    }
    bail!("more than {MAX_LINKS} symbolic links in a row (a loop?)")
}

/// Write `text` to a temporary file beside `at`, then rename it over `at`.
fn replace(at: &Path, text: &str) -> anyhow::Result<()> {
    let dir = match at.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut tmp = tempfile::Builder::new()
        .prefix(".httpbench-")
        .permissions(std::fs::Permissions::from_mode(0o666))
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a file in {}", dir.display()))?;
    tmp.write_all(text.as_bytes())?;
    tmp.as_file().sync_all()?;
    tmp.persist(at).map_err(|e| e.error)?;
    Ok(())
}

/// Write `text` into what is at `at` without replacing it: a FIFO or a character device, or a regular file
/// named by `/proc` (appended to: `--export-json /dev/stdout > out` keeps the report printed before it).
fn write_into(at: &Path, kind: FileType, text: &str) -> anyhow::Result<()> {
    let refuse = |what: &str| bail!("it is {what}; give the path of a file, a FIFO or a terminal");
    if kind.is_dir() {
        return refuse("a directory");
    }
    if kind.is_block_device() {
        return refuse("a block device (a disk), which httpbench never writes into");
    }
    if kind.is_socket() {
        return refuse("a socket");
    }
    let file = open_bounded(at, kind)?;
    write_bounded(&file, text.as_bytes())
}

/// Open `at` for writing without blocking: opening a FIFO waits for a reader, which is retried until
/// [`PEER_WAIT`] has passed.
fn open_bounded(at: &Path, kind: FileType) -> anyhow::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).append(kind.is_file()).custom_flags(libc::O_NONBLOCK);
    let until = Instant::now() + PEER_WAIT;
    loop {
        match options.open(at) {
            Ok(file) => return Ok(file),
            // ENXIO: a FIFO with no reader (open(2)).
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) && kind.is_fifo() => {
                if Instant::now() >= until {
                    bail!(
                        "it is a FIFO and nothing opened it for reading within {} s; start its reader first",
                        PEER_WAIT.as_secs()
                    );
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Write all of `bytes` to a non-blocking `file`, waiting at most [`PEER_WAIT`] for its reader to make room
/// each time it is full.
fn write_bounded(mut file: &File, bytes: &[u8]) -> anyhow::Result<()> {
    let mut rest = bytes;
    while !rest.is_empty() {
        match file.write(rest) {
            Ok(0) => bail!("it took no more bytes"),
            Ok(n) => rest = &rest[n..],
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if !writable_within(file, PEER_WAIT)? {
                    bail!(
                        "its reader took nothing for {} s; {} bytes were not written",
                        PEER_WAIT.as_secs(),
                        rest.len()
                    );
                }
            }
            Err(e) if e.kind() == io::ErrorKind::BrokenPipe => bail!("its reader went away before the end"),
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Whether `file` became writable within `wait`.
fn writable_within(file: &File, wait: Duration) -> io::Result<bool> {
    let until = Instant::now() + wait;
    loop {
        let left = until.saturating_duration_since(Instant::now());
        let mut pfd = libc::pollfd { fd: file.as_raw_fd(), events: libc::POLLOUT, revents: 0 };
        let ms = libc::c_int::try_from(left.as_millis()).unwrap_or(libc::c_int::MAX);
        // SAFETY: one valid pollfd for the duration of the call.
        match unsafe { libc::poll(&mut pfd, 1, ms) } {
            -1 if io::Error::last_os_error().kind() == io::ErrorKind::Interrupted => continue,
            -1 => return Err(io::Error::last_os_error()),
            // POLLERR (the reader left) is writable too: the next write says EPIPE.
            n => return Ok(n > 0),
        }
    }
}

/// Write each (path, text) with [`write_atomic`], control characters escaped as [`print`] does, saying on
/// stderr why one could not be written; whether all were. One failed file does not keep the others from
/// being written.
pub(crate) fn write_all(files: &[(&Path, String)]) -> bool {
    let mut all = true;
    for (path, text) in files {
        // Exports are read in terminals too (`cat today.md`); JSON and HTML hold no raw control characters.
        if let Err(e) = write_atomic(path, &escape_controls(text)) {
            eprintln!("httpbench: error: {e:#}");
            all = false;
        }
    }
    all
}

#[cfg(test)]
mod tests;
