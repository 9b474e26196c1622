//! `--web.config.file`: TLS and basic authentication the exporter-toolkit way (the YAML file
//! node_exporter and blackbox_exporter read), plus gzip for scrapes.
//!
//! - [`config`]: the file's schema and validation.
//! - [`tls`]: certificates, keys and client certificate policy into a rustls acceptor.
//! - [`auth`]: bcrypt users with a cache of verified credentials.
//! - [`gzip`]: `Accept-Encoding` negotiation and the response wrapper.
//! - [`streamed`]: a response body rendered while it is sent (`/metrics`).
//!
//! [`Web`] holds what is in force. It is re-read on every reload together with the main
//! configuration, as the daemon's [`Companion`]: both are validated before either is applied, so a bad web config is refused
//! and the running one kept (and `gameserver_config_last_reload_successful` drops to 0). New
//! TLS settings apply to connections accepted afterwards.
//!
//! As in the toolkit, authentication applies to every path, `/-/healthy` and `/-/ready`
//! included: a load balancer probing them needs the credentials (or a client certificate
//! policy that lets it through, if it speaks TLS).

pub mod auth;
pub mod config;
pub mod gzip;
pub mod streamed;
pub mod tls;

use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use tokio_rustls::TlsAcceptor;

use crate::daemon::{Companion, Install};

pub use config::{WebConfig, WebConfigError};

/// One loaded web config, ready to serve.
#[derive(Default)]
pub struct Active {
    /// `None`: plain HTTP.
    pub tls: Option<TlsAcceptor>,
    /// `None`: no authentication.
    pub users: Option<Arc<auth::Users>>,
}

impl Active {
    /// Reads the certificates and prepares the users of `c`. `path` is for error messages.
    pub fn build(c: &WebConfig, path: &Path) -> Result<Active, WebConfigError> {
        let fail = |msg: String| WebConfigError(format!("web config {}: {msg}", path.display()));
        let tls = c
            .tls
            .as_ref()
            .map(tls::acceptor)
            .transpose()
            .map_err(fail)?;
        let users = if c.users.is_empty() {
            None
        } else {
            Some(Arc::new(auth::Users::new(c.users.clone()).map_err(fail)?))
        };
        Ok(Active { tls, users })
    }
}

/// The web config file and what was last loaded from it.
#[derive(Default)]
pub struct Web {
    path: Option<PathBuf>,
    active: RwLock<Arc<Active>>,
}

impl Web {
    /// No file: plain HTTP without authentication, as before the option existed.
    pub fn none() -> Web {
        Web::default()
    }

    /// Loads `path`; an error is fatal at start-up.
    pub fn load(path: PathBuf) -> Result<Web, WebConfigError> {
        let c = config::load(&path)?;
        let active = Active::build(&c, &path)?;
        Ok(Web {
            path: Some(path),
            active: RwLock::new(Arc::new(active)),
        })
    }

    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// What is in force now.
    pub fn current(&self) -> Arc<Active> {
        self.active
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Re-reads the file without applying it; `Ok(None)` when there is no file.
    pub fn prepare(&self) -> Result<Option<Active>, WebConfigError> {
        let Some(path) = &self.path else {
            return Ok(None);
        };
        let c = config::load(path)?;
        Active::build(&c, path).map(Some)
    }

    /// Puts a prepared config in force.
    pub fn install(&self, active: Active) {
        *self.active.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(active);
    }
}

/// The daemon re-reads the web config on every reload and installs it only if the main
/// configuration is good too.
impl Companion for Web {
    fn prepare(&self) -> Result<Install<'_>, String> {
        match Web::prepare(self) {
            Ok(Some(active)) => Ok(Box::new(move || self.install(active))),
            Ok(None) => Ok(Box::new(|| {})),
            Err(e) => Err(e.0),
        }
    }
}
