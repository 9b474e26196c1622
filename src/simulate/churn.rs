//! Players who come and go, so `demo`'s dashboards move.

use std::future::Future;
use std::io;
use std::time::Duration;

use tokio::task::JoinHandle;

use super::{SimServer, World, WorldState};

/// What most simulators' `spawn_demo` is: `world` dressed as `state`, the server `serve`
/// starts on it (the simulator's `spawn` with its demo configuration), and players coming
/// and going on it ([`churn`] with `every`, `score` and `name`).
pub async fn demo<Fut>(
    world: World,
    state: WorldState,
    serve: impl FnOnce(World) -> Fut,
    every: Duration,
    score: i32,
    name: impl Fn(u32) -> String + Send + 'static,
) -> io::Result<SimServer>
where
    Fut: Future<Output = io::Result<SimServer>>,
{
    world.update(|w| *w = state);
    let mut server = serve(world.clone()).await?;
    server.tasks.push(churn(world, every, score, name));
    Ok(server)
}

/// Every `every`, alternately a player joins (named by `name` from a counter, with `score`)
/// and the longest-connected one leaves; a server left empty gets a join.
pub fn churn(
    world: World,
    every: Duration,
    score: i32,
    name: impl Fn(u32) -> String + Send + 'static,
) -> JoinHandle<()> {
    tokio::spawn(async move {
        let mut tick = 0u32;
        loop {
            tokio::time::sleep(every).await;
            tick += 1;
            world.update(|w| step(w, tick, score, &name));
        }
    })
}

fn step(w: &mut super::WorldState, tick: u32, score: i32, name: &dyn Fn(u32) -> String) {
    if tick.is_multiple_of(2) || w.players.is_empty() {
        w.players.push((name(tick), score, 0.0));
    } else {
        w.players.remove(0);
    }
}

#[cfg(test)]
mod tests {
    use super::super::WorldState;
    use super::*;

    /// Odd ticks remove the oldest player, even ticks (and an empty server) add one.
    #[test]
    fn joins_and_leaves_alternate() {
        let mut w = WorldState {
            players: vec![("a".into(), 1, 0.0)],
            ..WorldState::default()
        };
        let name = |t: u32| format!("p{t}");
        step(&mut w, 1, 7, &name);
        assert!(w.players.is_empty());
        step(&mut w, 3, 7, &name);
        assert_eq!(w.players, vec![("p3".to_string(), 7, 0.0)]);
        step(&mut w, 4, 7, &name);
        assert_eq!(w.players.len(), 2);
        assert_eq!(w.players[1].0, "p4");
    }
}
