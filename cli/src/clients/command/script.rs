//! The adapters of the built-in command clients, one per language (`adapters/`), compiled into the binary and
//! handed to the interpreter on its command line, so an installed `httpbench` needs no file beside it. Which
//! client runs which adapter is the shared client table's (`Made::Command`).

use httpbench_shared::protocol::{Adapter, Script};

/// The source of `script`'s adapter.
pub fn source(script: Script) -> &'static str {
    match script {
        Script::Perl => include_str!("../../../../adapters/perl.pl"),
        Script::Python => include_str!("../../../../adapters/python.py"),
        Script::Node => include_str!("../../../../adapters/node.mjs"),
    }
}

/// The program and arguments that start `adapter`: the interpreter, its flags, the adapter's source and the
/// argument that picks the client.
pub fn argv(adapter: &Adapter) -> Vec<&'static str> {
    let (interpreter, flags) = adapter.script.interpreter();
    let mut argv = vec![interpreter];
    argv.extend(flags);
    argv.extend([source(adapter.script), adapter.arg]);
    argv
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
            assert_eq!(argv(&adapter).len(), 3 + adapter.script.interpreter().1.len());
        }
        let lwp = commands().find(|c| c.name == "perl-lwp").map(|c| c.made);
        let Some(Made::Command(lwp)) = lwp else { panic!("perl-lwp is a command row") };
        assert_eq!(argv(&lwp)[..2], ["perl", "-e"]);
    }
}
