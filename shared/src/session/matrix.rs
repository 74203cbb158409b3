//! The dimensions of a run and the cases they make: every (client, mode, HTTP version) whose client can
//! speak that version, the others left out with why.

use super::CaseKey;
use crate::model::{EnvironmentKind, HttpVersion, Mode};
use crate::protocol::cannot_speak;

/// The dimensions of a run: every (client, mode, HTTP version) its clients can speak is a case, in that
/// nesting (clients outermost, in the order given).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Matrix {
    /// Where the clients run: the catalog of this environment says which speak HTTP/2.
    pub environment: EnvironmentKind,
    /// Client names.
    pub clients: Vec<String>,
    /// Connection modes.
    pub modes: Vec<Mode>,
    /// HTTP versions.
    pub http_versions: Vec<HttpVersion>,
    /// Whether the target is requested over TLS.
    pub tls: bool,
}

impl Matrix {
    /// `clients` × `modes` over plaintext HTTP/1.1.
    pub fn new(environment: EnvironmentKind, clients: Vec<String>, modes: Vec<Mode>) -> Self {
        Matrix { environment, clients, modes, http_versions: vec![HttpVersion::Http11], tls: false }
    }

    /// The cases to run, and those left out because their client cannot speak the version.
    pub(super) fn cases(&self) -> (Vec<CaseKey>, Vec<String>) {
        let (mut run, mut skipped) = (Vec::new(), Vec::new());
        for client in &self.clients {
            for &http in &self.http_versions {
                if let Some(reason) = cannot_speak(self.environment, client, http) {
                    skipped.push(format!("{client} over {http} ({reason})"));
                }
            }
            // Versions nest inside modes: curl/fresh/h1, curl/fresh/h2, curl/reuse/h1, ...
            for &mode in &self.modes {
                for &http in &self.http_versions {
                    if cannot_speak(self.environment, client, http).is_none() {
                        run.push(CaseKey { client: client.clone(), mode, http });
                    }
                }
            }
        }
        (run, skipped)
    }
}
