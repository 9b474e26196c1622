//! The running exporter, [`Daemon`]: configuration, scheduler and state tied together. The
//! HTTP side, `/probe`, the signal handlers and [`crate::serve::run`] all hold one; it lives
//! below `http` (and apart from `serve`, which starts both) so that the two never import
//! each other.
//!
//! A file that must be reloaded together with the configuration (the web config file of
//! `http`) joins as a [`Companion`]: this module defines what a reload asks of it, and the
//! HTTP side implements it, so `daemon` never names `http`.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, RwLock};
use std::time::SystemTime;

use tokio::runtime::Handle;

use crate::config::{self, Config, ConfigError};
use crate::scheduler::poller::PollerThread;
use crate::scheduler::{Diff, Permits, Prober, Scheduler};
use crate::shard::{self, Elsewhere, Shard};
use crate::state::State;
use crate::sync::lock;

/// A file reloaded together with the configuration (`--web.config.file`): on every reload it
/// is re-read and checked first, and put in force only when the configuration is good too.
pub trait Companion: Send + Sync {
    /// Re-reads and checks the file without applying it. What it returns puts the checked
    /// file in force when called; a companion without a file returns one that does nothing.
    fn prepare(&self) -> Result<Install<'_>, String>;
}

/// Puts a checked [`Companion`] file in force.
pub type Install<'a> = Box<dyn FnOnce() + 'a>;

/// Shared by the HTTP handlers, the signal handlers and the scheduler.
pub struct Daemon {
    state: Arc<State>,
    /// The configuration in force, its targets cut down to this replica's shard.
    config: RwLock<Arc<Config>>,
    /// Fixed at start: `--shard` (or the environment) must survive a reload of a file that
    /// says otherwise, and moving targets between live replicas has no safe order anyway.
    shard: Shard,
    /// The other shards' targets, so `/probe` can name their owner.
    elsewhere: RwLock<Arc<Elsewhere>>,
    config_path: Option<PathBuf>,
    scheduler: Mutex<Scheduler>,
    /// `--web.config.file` (TLS and basic auth), reloaded with the main configuration; `None`
    /// when the exporter runs without one.
    companion: Option<Arc<dyn Companion>>,
    /// The thread the poll tasks run on; declared after the scheduler, so dropping a daemon
    /// aborts the tasks before their runtime stops. `None` if it could not be started: the
    /// tasks then share the caller's runtime.
    _poller: Option<PollerThread>,
}

impl Daemon {
    /// Starts polling every target of `config` that belongs to `config.exporter.shard` (all of
    /// them without one). `config_path` is what a reload re-reads; without one, a reload is
    /// refused. Must run inside a tokio runtime.
    pub fn start(
        config: Config,
        config_path: Option<PathBuf>,
        prober: Arc<dyn Prober>,
    ) -> Arc<Daemon> {
        Daemon::start_with_companion(config, config_path, None, prober)
    }

    /// [`Daemon::start`] with a file reloaded together with the configuration (the web
    /// config: TLS, basic auth).
    pub fn start_with_companion(
        mut config: Config,
        config_path: Option<PathBuf>,
        companion: Option<Arc<dyn Companion>>,
        prober: Arc<dyn Prober>,
    ) -> Arc<Daemon> {
        let shard = config.exporter.shard.unwrap_or_default();
        let elsewhere = keep_share(&mut config, shard);
        let state: Arc<State> = Arc::default();
        let poller = PollerThread::start()
            .map_err(|e| tracing::warn!(error = %e, "cannot start the poller thread; polling on the main runtime"))
            .ok();
        let runtime = poller
            .as_ref()
            .map_or_else(Handle::current, |p| p.handle().clone());
        let mut scheduler = Scheduler::on(
            runtime,
            prober,
            state.clone(),
            config.exporter.max_concurrent_polls,
        );
        scheduler.apply(&mut config.targets, config.exporter.max_concurrent_polls);
        Arc::new(Daemon {
            state,
            config: RwLock::new(Arc::new(config)),
            shard,
            elsewhere: RwLock::new(Arc::new(elsewhere)),
            config_path,
            scheduler: Mutex::new(scheduler),
            companion,
            _poller: poller,
        })
    }

    pub fn state(&self) -> &Arc<State> {
        &self.state
    }

    /// The configuration in force.
    pub fn config(&self) -> Arc<Config> {
        self.config
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// The share of the targets this replica polls.
    pub fn shard(&self) -> Shard {
        self.shard
    }

    /// The shard owning `name` if it is a configured target of another replica.
    pub fn owner_elsewhere(&self, name: &str) -> Option<Shard> {
        let elsewhere = self
            .elsewhere
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        elsewhere
            .contains(name)
            .then(|| self.shard.owner_shard(name))
    }

    pub fn prober(&self) -> Arc<dyn Prober> {
        self.scheduler().prober()
    }

    pub fn permits(&self) -> Permits {
        self.scheduler().permits()
    }

    fn scheduler(&self) -> std::sync::MutexGuard<'_, Scheduler> {
        // apply() cannot leave the task table half-updated in a way a retry would not fix.
        lock(&self.scheduler)
    }

    /// Re-reads the configuration file and the web config file (if any) and applies them,
    /// the targets by diff. Both are checked before either is applied; if one is bad, both
    /// running ones stay and `gameserver_config_last_reload_successful` drops to 0.
    pub fn reload(&self) -> Result<Diff, ConfigError> {
        let Some(path) = &self.config_path else {
            let e = ConfigError("no configuration file to reload".into());
            self.state.set_reload(false, SystemTime::now());
            return Err(e);
        };
        let install = match self
            .companion
            .as_deref()
            .map(Companion::prepare)
            .transpose()
        {
            Ok(i) => i,
            Err(e) => {
                tracing::error!(error = %e, "web config reload refused; keeping the running configuration");
                self.state.set_reload(false, SystemTime::now());
                return Err(ConfigError(e));
            }
        };
        // The running targets are shared by the new config wherever they are equal: a reload
        // builds new copies only of what changed.
        let running = self.config();
        let loaded = config::reload(path, &running.targets);
        drop(running);
        match loaded {
            Ok(c) => {
                if let Some(install) = install {
                    install();
                }
                let diff = self.apply(c);
                tracing::info!(
                    added = diff.added.len(),
                    changed = diff.changed.len(),
                    removed = diff.removed.len(),
                    kept = diff.kept,
                    "configuration reloaded"
                );
                Ok(diff)
            }
            Err(e) => {
                tracing::error!(error = %e, "configuration reload refused; keeping the running one");
                self.state.set_reload(false, SystemTime::now());
                Err(e)
            }
        }
    }

    /// Applies a validated configuration by diff, keeping this replica's shard.
    pub fn apply(&self, mut config: Config) -> Diff {
        if let Some(s) = config.exporter.shard.filter(|s| *s != self.shard) {
            tracing::warn!(
                file = %s,
                running = %self.shard,
                "exporter.shard differs from the running shard, which is kept: the shard is \
                 fixed at start (--shard and GAMESERVER_EXPORTER_SHARD override the file)"
            );
        }
        let elsewhere = keep_share(&mut config, self.shard);
        *self.elsewhere.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(elsewhere);
        let old = self.config();
        if old.exporter.listen != config.exporter.listen {
            tracing::warn!(
                old = %old.exporter.listen,
                new = %config.exporter.listen,
                "exporter.listen changes take effect at the next restart"
            );
        }
        let diff = self
            .scheduler()
            .apply(&mut config.targets, config.exporter.max_concurrent_polls);
        *self.config.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(config);
        self.state.set_reload(true, SystemTime::now());
        diff
    }

    /// Stops polling every target.
    pub fn shutdown(&self) {
        self.scheduler().shutdown();
    }
}

/// Cuts `config.targets` down to `shard`'s share and records the shard in force.
fn keep_share(config: &mut Config, shard: Shard) -> Elsewhere {
    config.exporter.shard = Some(shard);
    let (mine, elsewhere) = shard::split(shard, std::mem::take(&mut config.targets));
    config.targets = mine;
    if shard != Shard::ALL {
        tracing::info!(
            %shard,
            targets = config.targets.len(),
            elsewhere = elsewhere.len(),
            "polling this shard's targets only"
        );
    }
    elsewhere
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use super::*;
    use crate::scheduler::QueryProber;

    /// A companion whose check passes or fails on demand and which counts its installs.
    #[derive(Default)]
    struct Fake {
        bad: AtomicBool,
        installs: AtomicUsize,
    }

    impl Companion for Fake {
        fn prepare(&self) -> Result<Install<'_>, String> {
            if self.bad.load(Ordering::SeqCst) {
                return Err("companion is bad".into());
            }
            Ok(Box::new(|| {
                self.installs.fetch_add(1, Ordering::SeqCst);
            }))
        }
    }

    /// Both files are checked before either is applied: a bad companion refuses the reload
    /// with the main configuration untouched, a bad configuration leaves the companion
    /// uninstalled, and either drops the reload gauge to 0.
    #[tokio::test]
    async fn companion_installed_only_when_both_are_good() {
        let path = std::env::temp_dir().join(format!("gse-handles-{}.toml", std::process::id()));
        // No targets: nothing is polled, so the prober is never called.
        std::fs::write(&path, "").unwrap();
        let config = config::load(&path).unwrap();
        let fake = Arc::new(Fake::default());
        let companion: Arc<dyn Companion> = fake.clone();
        let daemon = Daemon::start_with_companion(
            config,
            Some(path.clone()),
            Some(companion),
            Arc::new(QueryProber),
        );
        let ok = |d: &Daemon| d.state().reload_info().successful;

        assert!(daemon.reload().is_ok());
        assert_eq!(fake.installs.load(Ordering::SeqCst), 1);
        assert!(ok(&daemon));

        fake.bad.store(true, Ordering::SeqCst);
        let e = daemon.reload().unwrap_err();
        assert_eq!(e.0, "companion is bad");
        assert_eq!(fake.installs.load(Ordering::SeqCst), 1);
        assert!(!ok(&daemon));

        fake.bad.store(false, Ordering::SeqCst);
        std::fs::write(&path, "this is not toml [").unwrap();
        assert!(daemon.reload().is_err());
        assert_eq!(fake.installs.load(Ordering::SeqCst), 1);
        assert!(!ok(&daemon));

        std::fs::write(&path, "").unwrap();
        assert!(daemon.reload().is_ok());
        assert_eq!(fake.installs.load(Ordering::SeqCst), 2);
        assert!(ok(&daemon));

        daemon.shutdown();
        let _ = std::fs::remove_file(&path);
    }
}
