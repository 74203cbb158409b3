//! `--clients` and `--client-cmd`, checked: the names of the client table (libraries and command clients) and
//! the user's own command clients, each with the HTTP versions it speaks.

use httpbench_shared::model::HttpVersion;
use httpbench_shared::protocol::{
    check_name, client, native_clients, parse_client_list, shown, HttpChoice, Made, GROUPS,
};
use httpbench_shared::EnvironmentKind;

use crate::clients::command::{Program, Spec};
use crate::clients::{library, Client};
use crate::usage::{usage, Usage};

/// The client of the table named `name`, as the run drives it: a library by its module, a command client by
/// its adapter. `None` for a name beyond the table, or a library row this build has no module for.
fn of_table(name: &str) -> Option<Client> {
    let info = client(EnvironmentKind::Native, name)?;
    match &info.made {
        Made::Library { .. } => library(name).map(|lib| Client::Lib(info, lib)),
        Made::Command(adapter) => Some(Client::Command(Spec {
            name: info.name.into(),
            program: Program::Builtin(adapter),
            versions: info.versions.to_vec(),
        })),
        Made::Browser { .. } => None,
    }
}

/// `--clients`, by the client table and `own` (from `--client-cmd`); without the flag, the table's default
/// selection and `own`. A command client defined but left out of the list is an error: it was surely meant
/// to run.
pub(super) fn parse_clients(list: Option<&str>, own: &[Spec]) -> Result<Vec<Client>, Usage> {
    let Some(list) = list else {
        let defaults = native_clients().filter(|c| c.default).filter_map(|c| of_table(c.name));
        return Ok(defaults.chain(own.iter().cloned().map(Client::Command)).collect());
    };
    let mut names: Vec<&str> = native_clients().map(|c| c.name).collect();
    names.extend(own.iter().map(|s| s.name.as_str()));
    let chosen =
        parse_client_list(EnvironmentKind::Native, list, &names).map_err(|e| Usage(format!("--clients: {e}")))?;
    if let Some(unused) = own.iter().find(|s| !chosen.contains(&s.name.as_str())) {
        return usage(format!(
            "--client-cmd {}: not in --clients {list}; add {} to the list or drop the --client-cmd",
            unused.name, unused.name
        ));
    }
    // Every chosen name is one of `names`: of the table, or one of `own`.
    Ok(chosen
        .iter()
        .filter_map(|n| of_table(n).or_else(|| own.iter().find(|s| s.name == *n).cloned().map(Client::Command)))
        .collect())
}

/// Each `--client-cmd NAME[@VERSIONS]=COMMAND`: a name no other client has (the shared rule: up to 64 letters,
/// digits, `.`, `_`, `-`), the HTTP versions it speaks as `--http` takes them (HTTP/1.1 when none are given),
/// and a command.
pub(super) fn parse_client_cmds(given: &[String]) -> Result<Vec<Spec>, Usage> {
    let mut specs: Vec<Spec> = Vec::new();
    for g in given {
        let Some((named, command)) = g.split_once('=') else {
            return usage(format!(
                "--client-cmd '{}': expected NAME=COMMAND or NAME@VERSIONS=COMMAND, e.g. mine='python3 my_adapter.py' \
                 or mine@1.1,2='./my-client'",
                shown(g)
            ));
        };
        let (name, versions) = match named.split_once('@') {
            Some((name, versions)) => (name.trim(), declared(g, versions)?),
            None => (named.trim(), vec![HttpVersion::Http11]),
        };
        let command = command.trim();
        // The shared rule, so a name that runs is one a result file may carry; `all` means every client.
        let checked = if GROUPS.iter().any(|g| g.name == name) {
            Err(format!("'{name}' cannot name a client: it names a group of clients"))
        } else {
            check_name(name)
        };
        if let Err(e) = checked {
            return usage(format!("--client-cmd '{}': {e}", shown(g)));
        }
        if client(EnvironmentKind::Native, name).is_some() || specs.iter().any(|s| s.name == name) {
            let g = shown(g);
            return usage(format!("--client-cmd '{g}': a client named '{name}' exists already; choose another name"));
        }
        if command.is_empty() {
            return usage(format!("--client-cmd '{}': no command after '='", shown(g)));
        }
        specs.push(Spec { name: name.into(), program: Program::Shell(command.into()), versions });
    }
    Ok(specs)
}

/// The versions after `@` in `--client-cmd` `given`, read as `--http` reads them.
fn declared(given: &str, versions: &str) -> Result<Vec<HttpVersion>, Usage> {
    versions
        .trim()
        .parse::<HttpChoice>()
        .map(|c| c.versions())
        .map_err(|e| Usage(format!("--client-cmd '{}': the HTTP versions after '@': {e}", shown(given))))
}

#[cfg(test)]
mod tests {
    use httpbench_shared::protocol::libraries;

    use super::*;

    fn names(clients: &[Client]) -> Vec<&str> {
        clients.iter().map(|c| c.name()).collect()
    }

    fn table_libraries() -> Vec<&'static str> {
        libraries().map(|c| c.name).collect()
    }

    #[test]
    fn clients_by_the_table_in_the_order_given() {
        assert_eq!(names(&parse_clients(Some("curl, raw,curl"), &[]).unwrap()), ["curl", "raw"]);
        assert_eq!(names(&parse_clients(Some("all"), &[]).unwrap()), table_libraries());
        assert!(parse_clients(Some("wget"), &[]).unwrap_err().0.contains("'wget'"));
        assert!(parse_clients(Some(","), &[]).is_err());
        let defaults: Vec<&str> = native_clients().filter(|c| c.default).map(|c| c.name).collect();
        assert_eq!(names(&parse_clients(None, &[]).unwrap()), defaults);
    }

    #[test]
    fn command_clients_by_name_and_your_own_by_client_cmd() {
        let own = parse_client_cmds(&["mine=python3 my_adapter.py".into()]).unwrap();
        let chosen = parse_clients(Some("perl-lwp,all,mine"), &own).unwrap();
        let mut expected = vec!["perl-lwp"];
        expected.extend(table_libraries());
        expected.push("mine");
        assert_eq!(names(&chosen), expected);
        assert!(
            matches!(&chosen[0], Client::Command(Spec { program: Program::Builtin(b), .. }) if b.script.runtime() == "perl")
        );
        let mine = Spec {
            name: "mine".into(),
            program: Program::Shell("python3 my_adapter.py".into()),
            versions: vec![HttpVersion::Http11],
        };
        assert_eq!(chosen.last(), Some(&Client::Command(mine)));
        let e = parse_clients(Some("curl"), &own).unwrap_err().0;
        assert!(e.contains("--client-cmd mine: not in --clients curl"), "{e}");
        for (bad, says) in [
            ("mine", "expected NAME=COMMAND"),
            ("=x", "'' cannot name a client"),
            ("my client=x", "'my client' cannot name"),
            ("curl=x", "'curl' exists already"),
            ("perl-lwp=x", "'perl-lwp' exists already"),
            ("all=x", "'all' cannot name"),
            ("mine= ", "no command after"),
            ("mine@4=x", "the HTTP versions after '@'"),
        ] {
            let e = parse_client_cmds(&[bad.into()]).unwrap_err().0;
            assert!(e.contains(says), "{bad}: {e}");
        }
        let e = parse_client_cmds(&["a=x".into(), "a=y".into()]).unwrap_err().0;
        assert!(e.contains("'a' exists already"), "{e}");
    }

    #[test]
    fn a_command_client_declares_its_versions_and_the_table_knows_the_built_in_ones() {
        let own = parse_client_cmds(&["mine@1.1,2=./client".into(), "quic@3=./q".into()]).unwrap();
        assert_eq!(own[0].versions, [HttpVersion::Http11, HttpVersion::Http2]);
        assert_eq!((own[0].name.as_str(), own[1].versions.as_slice()), ("mine", &[HttpVersion::Http3][..]));
        let aioquic = parse_clients(Some("python-aioquic"), &[]).unwrap();
        assert_eq!(aioquic[0].declared_versions(), Some(&[HttpVersion::Http3][..]));
    }
}
