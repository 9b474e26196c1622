//! Build and Shoot's status JSON against the simulator through the real poll path:
//! piqueserver's page and the by-team layout, names with `players`, every broken page ending
//! in its reason, and `/probe?module=bas` (and `aosc`, `buildandshoot`).

use std::time::Duration;

use crate::support::json_page::{catalogue_holds, world};
use gameserver_exporter::query::{self, Request};
use gameserver_exporter::simulate::buildandshoot::{spawn, BasConfig};
use gameserver_exporter::target::{Address, Protocol};

#[tokio::test]
async fn both_layouts() {
    for teams in [false, true] {
        let config = BasConfig {
            teams,
            ..BasConfig::default()
        };
        let server = spawn(world("aos ctf"), config).await.unwrap();
        let mut req = Request::new(
            Protocol::Buildandshoot,
            Address::parse(&server.addr.to_string()).unwrap(),
        );
        req.timeout = Duration::from_secs(2);
        req.players = true;
        let s = query::poll(&req).await.unwrap();
        assert_eq!((s.online, s.max), (2, 16), "teams {teams}");
        assert_eq!(s.name, "aos ctf");
        assert_eq!(s.map.as_deref(), Some("interop-map"));
        assert_eq!(s.version.as_deref(), Some("1.0"));
        let names: Vec<String> = s.players.unwrap().into_iter().map(|p| p.name).collect();
        assert_eq!(names, ["alice", "bob"], "teams {teams}");
    }
}

#[tokio::test]
async fn hostile_pages() {
    catalogue_holds(Protocol::Buildandshoot).await;
}
