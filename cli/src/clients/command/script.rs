//! The adapters of the built-in command clients, one per language (`adapters/`), compiled into the binary so an
//! installed `httpbench` needs no file beside it, and how each reaches its runtime (the shared table's
//! [`Handover`]): on the command line; as a file written once into httpbench's cache folder (Java's source
//! launcher wants a file); or compiled once there into a program of its own (Go). Cached files are named by a
//! hash of what made them, so a new adapter or a new compiler makes new ones and two runs never share a
//! half-written one. Which client runs which adapter is the shared client table's (`Made::Command`).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use httpbench_shared::protocol::{Adapter, Handover, Script};

/// How long building an adapter (Go's, from a cold build cache) may take before it is given up.
const BUILD_LIMIT: Duration = Duration::from_secs(300);

/// The source of `script`'s adapter.
pub fn source(script: Script) -> &'static str {
    match script {
        Script::Perl => include_str!("../../../../adapters/perl.pl"),
        Script::Python => include_str!("../../../../adapters/python.py"),
        Script::Node => include_str!("../../../../adapters/node.mjs"),
        Script::Bun | Script::Deno => include_str!("../../../../adapters/fetch.mjs"),
        Script::Java => include_str!("../../../../adapters/Java.java"),
        Script::Go => include_str!("../../../../adapters/go.go"),
    }
}

/// The command that starts `adapter`: its runtime with the source (or the program built from it) and the
/// argument that picks the client. An error is one line for the case's reason: `unavailable: ...` when the
/// runtime is not installed, or why the adapter's file could not be written or built.
pub fn command(adapter: &Adapter) -> Result<Command, String> {
    let (script, runtime) = (adapter.script, adapter.script.runtime());
    let mut cmd = match script.handover() {
        Handover::Inline(flags) => {
            let mut c = Command::new(runtime);
            c.args(flags).arg(source(script));
            c
        }
        Handover::File(name) => {
            let mut c = Command::new(runtime);
            c.arg(cached_source(script, name, "")?);
            c
        }
        Handover::Built(name) => Command::new(built(adapter, name)?),
    };
    cmd.arg(adapter.arg);
    Ok(cmd)
}

/// What to say when `adapter`'s runtime is not installed.
pub fn unavailable(adapter: &Adapter) -> String {
    format!("unavailable: {} is not on PATH; install: {}", adapter.script.runtime(), adapter.install)
}

/// The folder of httpbench's cached adapters: `$XDG_CACHE_HOME/httpbench/adapters`, else
/// `$HOME/.cache/httpbench/adapters`.
fn cache_folder() -> Result<PathBuf, String> {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").filter(|v| !v.is_empty()).map(|h| PathBuf::from(h).join(".cache")))
        .ok_or("neither XDG_CACHE_HOME nor HOME is set: httpbench has no cache folder for its adapters")?;
    let folder = base.join("httpbench").join("adapters");
    std::fs::create_dir_all(&folder).map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
    Ok(folder)
}

/// A short hash of `parts`, to name what they made.
fn hash_of(parts: &[&[u8]]) -> String {
    let mut ctx = ring::digest::Context::new(&ring::digest::SHA256);
    for part in parts {
        ctx.update(&(part.len() as u64).to_le_bytes());
        ctx.update(part);
    }
    ctx.finish().as_ref()[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// `script`'s source as the file `name` in a folder of the cache named by its hash (and `salt`), written once,
/// atomically (a temporary file renamed into place); its path.
fn cached_source(script: Script, name: &str, salt: &str) -> Result<PathBuf, String> {
    cached_source_in(&cache_folder()?, script, name, salt)
}

/// [`cached_source`] in the cache folder `cache`.
fn cached_source_in(cache: &Path, script: Script, name: &str, salt: &str) -> Result<PathBuf, String> {
    let text = source(script);
    let folder = cache.join(format!("{}-{}", script.runtime(), hash_of(&[text.as_bytes(), salt.as_bytes()])));
    let path = folder.join(name);
    if std::fs::read(&path).is_ok_and(|b| b == text.as_bytes()) {
        return Ok(path);
    }
    std::fs::create_dir_all(&folder).map_err(|e| format!("cannot create {}: {e}", folder.display()))?;
    let write = || -> std::io::Result<()> {
        let mut file = tempfile::NamedTempFile::new_in(&folder)?;
        std::io::Write::write_all(&mut file, text.as_bytes())?;
        file.persist(&path).map(drop).map_err(|e| e.error)
    };
    write().map_err(|e| format!("cannot write the adapter {}: {e}", path.display()))?;
    Ok(path)
}

/// `adapter`'s program, built once from its source file `name` by its runtime's compiler (`go build`) into the
/// cache folder, named by the hash of the source and of the compiler's version (a new Go builds anew).
fn built(adapter: &Adapter, name: &str) -> Result<PathBuf, String> {
    let compiler = adapter.script.runtime();
    let version = Command::new(compiler).arg("version").stdin(Stdio::null()).output();
    let version = match version {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_string(),
        Ok(out) => return Err(format!("{compiler} version failed: {}", String::from_utf8_lossy(&out.stderr).trim())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Err(unavailable(adapter)),
        Err(e) => return Err(format!("cannot run {compiler}: {e}")),
    };
    let src = cached_source(adapter.script, name, &version)?;
    let folder = src.parent().ok_or("the adapter's file has no folder")?;
    let program = folder.join(format!("{compiler}-adapter"));
    if program.is_file() {
        return Ok(program);
    }
    let partial = tempfile::Builder::new()
        .prefix(".build-")
        .tempfile_in(folder)
        .map_err(|e| format!("cannot build in {}: {e}", folder.display()))?
        .into_temp_path();
    let mut build = Command::new(compiler);
    build.arg("build").arg("-o").arg(&*partial).arg(&src).current_dir(folder);
    if std::env::var_os("GOCACHE").is_none() {
        // Go's own cache lives under HOME; beside the adapter when there is none.
        build.env("GOCACHE", folder.join("go-build"));
    }
    run_bounded(&mut build, &src)?;
    partial.persist(&program).map_err(|e| format!("cannot keep the built adapter {}: {e}", program.display()))?;
    Ok(program)
}

/// Run a build to its end within [`BUILD_LIMIT`]; its error output explains a failure.
fn run_bounded(build: &mut Command, src: &Path) -> Result<(), String> {
    let log = tempfile::tempfile().map_err(|e| format!("cannot keep the build's output: {e}"))?;
    let mut child = build
        .stdin(Stdio::null())
        .stdout(log.try_clone().map_err(|e| e.to_string())?)
        .stderr(log.try_clone().map_err(|e| e.to_string())?)
        .spawn()
        .map_err(|e| format!("cannot build {}: {e}", src.display()))?;
    let started = Instant::now();
    let status = loop {
        match child.try_wait().map_err(|e| e.to_string())? {
            Some(status) => break status,
            None if started.elapsed() > BUILD_LIMIT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("building {} took over {} s; given up", src.display(), BUILD_LIMIT.as_secs()));
            }
            None => std::thread::sleep(Duration::from_millis(50)),
        }
    };
    if status.success() {
        return Ok(());
    }
    let mut text = String::new();
    let mut log = log;
    let _ = std::io::Seek::rewind(&mut log).and_then(|()| std::io::Read::read_to_string(&mut log, &mut text));
    let first = text.lines().take(3).collect::<Vec<_>>().join(" / ");
    Err(format!("building {} failed ({status}): {first}", src.display()))
}

#[cfg(test)]
mod tests {
    use httpbench_shared::protocol::{commands, Made};

    use super::*;

    #[test]
    fn every_command_row_has_an_adapter_that_knows_its_argument() {
        for info in commands() {
            let Made::Command(adapter) = info.made else { panic!("{} is a command row", info.name) };
            assert!(source(adapter.script).contains(adapter.arg), "{}: the adapter knows '{}'", info.name, adapter.arg);
        }
        let lwp = commands().find(|c| c.name == "perl-lwp").map(|c| c.made);
        let Some(Made::Command(lwp)) = lwp else { panic!("perl-lwp is a command row") };
        let cmd = command(&lwp).unwrap();
        let args: Vec<_> = cmd.get_args().collect();
        assert_eq!((cmd.get_program(), args[0], args[2]), ("perl".as_ref(), "-e".as_ref(), "lwp".as_ref()));
    }

    #[test]
    fn a_cached_source_is_written_once_whole_and_named_by_its_hash() {
        let cache = tempfile::tempdir().unwrap();
        let a = cached_source_in(cache.path(), Script::Java, "Java.java", "").unwrap();
        std::fs::write(&a, "half written").unwrap();
        let b = cached_source_in(cache.path(), Script::Java, "Java.java", "").unwrap();
        let c = cached_source_in(cache.path(), Script::Java, "Java.java", "another compiler").unwrap();
        assert_eq!(a, b);
        assert_ne!(a.parent(), c.parent(), "a salt names another folder");
        assert_eq!(std::fs::read_to_string(&a).unwrap(), source(Script::Java), "a damaged file is written anew");
        assert_eq!(std::fs::read_dir(a.parent().unwrap()).unwrap().count(), 1, "no temporary file is left");
    }
}
