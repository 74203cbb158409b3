//! The built-in command clients: each runs one of the adapters in `adapters/` (one file per language, the
//! client chosen by an argument) with the interpreter it needs. The adapters are compiled into the binary and
//! handed to the interpreter on its command line, so an installed `httpbench` needs no file beside it.

use httpbench_shared::model::HttpVersion;

/// One built-in command client.
#[derive(Debug, PartialEq, Eq)]
pub struct Builtin {
    /// The client's name on the command line and in reports.
    pub name: &'static str,
    /// The interpreter, looked up on PATH.
    pub interpreter: &'static str,
    /// The interpreter's flags before the adapter's source (which follows them as one argument).
    pub flags: &'static [&'static str],
    /// The adapter's source.
    pub source: &'static str,
    /// The argument that picks the client in the adapter.
    pub arg: &'static str,
    /// How to install what it needs on Debian, for the "unavailable" note.
    pub install: &'static str,
    /// The HTTP versions it speaks, when not HTTP/1.1 alone.
    pub versions: Option<&'static [HttpVersion]>,
}

const PERL: &str = include_str!("../../../../adapters/perl.pl");
const PYTHON: &str = include_str!("../../../../adapters/python.py");
const NODE: &str = include_str!("../../../../adapters/node.mjs");

const fn perl(name: &'static str, arg: &'static str, install: &'static str) -> Builtin {
    Builtin { name, interpreter: "perl", flags: &["-e"], source: PERL, arg, install, versions: None }
}

const fn python(name: &'static str, arg: &'static str, install: &'static str) -> Builtin {
    Builtin { name, interpreter: "python3", flags: &["-c"], source: PYTHON, arg, install, versions: None }
}

const fn node(name: &'static str, arg: &'static str) -> Builtin {
    let install = "apt install nodejs (Node 18 or later)";
    Builtin {
        name,
        interpreter: "node",
        flags: &["--input-type=module", "-e"],
        source: NODE,
        arg,
        install,
        versions: None,
    }
}

/// Every built-in command client, in the order `--help` lists them.
pub const BUILTINS: [Builtin; 8] = [
    // The seed's three (www_bench.pl).
    perl("perl-lwp", "lwp", "apt install libwww-perl"),
    perl("perl-lite", "lite", "apt install libhttp-lite-perl"),
    perl("perl-curl", "curl", "apt install libwww-curl-perl"),
    python("python-urllib", "urllib", "apt install python3"),
    python("python-requests", "requests", "pip install requests, or apt install python3-requests"),
    // HTTP/3 on aioquic, a QUIC stack independent of quinn (scripts/setup.sh installs it from PyPI).
    Builtin {
        versions: Some(httpbench_shared::protocol::HTTP3_ONLY),
        ..python("python-aioquic", "aioquic", "pip install aioquic (scripts/setup.sh does)")
    },
    node("node-fetch", "fetch"),
    node("node-http", "http"),
];

/// The built-in command client named `name`.
pub fn builtin(name: &str) -> Option<&'static Builtin> {
    BUILTINS.iter().find(|b| b.name == name)
}

impl Builtin {
    /// The program and arguments that start it.
    pub fn argv(&self) -> Vec<&'static str> {
        let mut argv = vec![self.interpreter];
        argv.extend(self.flags);
        argv.extend([self.source, self.arg]);
        argv
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_none_is_an_in_process_client() {
        for (i, b) in BUILTINS.iter().enumerate() {
            assert!(BUILTINS[..i].iter().all(|o| o.name != b.name), "{} twice", b.name);
            assert!(httpbench_shared::protocol::native_clients().all(|c| c.name != b.name));
            assert!(b.source.contains(b.arg), "{}: the adapter knows '{}'", b.name, b.arg);
        }
        assert_eq!(builtin("perl-lwp").unwrap().argv()[..2], ["perl", "-e"]);
        assert_eq!(builtin("node-fetch").unwrap().argv().last(), Some(&"fetch"));
    }
}
