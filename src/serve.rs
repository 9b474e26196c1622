//! The entry point [`run`] that `main` and the integration tests share (tests bind
//! `127.0.0.1:0` themselves and pass a fake or real [`Prober`]): start polling, serve HTTP
//! until told to stop, stop polling.

use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;

use tokio::net::TcpListener;

use crate::config::Config;
use crate::scheduler::Prober;

use crate::daemon::Daemon;
use crate::http::web::Web;

/// Runs the exporter on `listener` until `shutdown` resolves, then stops polling and lets
/// open HTTP connections finish (briefly).
pub async fn run(
    config: Config,
    config_path: Option<PathBuf>,
    prober: Arc<dyn Prober>,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    run_with_web(config, config_path, Web::none(), prober, listener, shutdown).await
}

/// [`run`] with a loaded web config (TLS, basic auth).
pub async fn run_with_web(
    config: Config,
    config_path: Option<PathBuf>,
    web: Web,
    prober: Arc<dyn Prober>,
    listener: TcpListener,
    shutdown: impl Future<Output = ()>,
) -> std::io::Result<()> {
    let web = Arc::new(web);
    let daemon = Daemon::start_with_companion(config, config_path, Some(web.clone()), prober);
    let result = crate::http::serve(daemon.clone(), web, listener, shutdown).await;
    daemon.shutdown();
    result
}
