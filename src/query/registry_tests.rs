//! The registry's promises: every spec is consistent with what the config checks, and an
//! A2S poll's future stays small.

mod specs {
    use crate::query::registry::*;
    use crate::target::Protocol;

    /// Every protocol's spec carries its own id, once.
    #[test]
    fn every_protocol_has_its_spec() {
        let mut ids = std::collections::BTreeSet::new();
        for p in Protocol::ALL {
            assert_eq!(Protocol::from_name(p.spec().id), Some(p));
            assert!(ids.insert(p.spec().id), "{p} twice");
        }
        assert_eq!(Protocol::Minecraft.spec().link, Link::Tcp);
    }

    /// What the config checks the `tls*` keys against says what the link does: every HTTP
    /// API takes them, no plain UDP or TCP protocol does, and of the UDP-then-HTTP ones those
    /// whose API is HTTPS (Satisfactory; FiveM's `/players.json` is plain HTTP).
    #[test]
    fn http_matches_links() {
        for p in Protocol::ALL {
            let want = match p.spec().link {
                Link::Http => true,
                Link::UdpThenHttp => p == Protocol::Satisfactory,
                _ => false,
            };
            assert_eq!(p.http().is_some(), want, "{p}");
        }
    }

    /// Only what travels over UDP and only datagram replies are resent by the driver.
    #[test]
    fn self_paced_protocols_are_not_resent() {
        for p in Protocol::ALL {
            let spec = p.spec();
            assert_eq!(pacing(spec).resends == 0, spec.self_paced, "{p}");
        }
    }
}

mod future_size {
    use std::net::SocketAddr;

    use tokio::time::Instant;

    use crate::protocol::a2s::exchange::A2s;
    use crate::query::health;
    use crate::query::registry::*;
    use crate::query::request::{Request, Session};
    use crate::secret::Secret;
    use crate::status::Status;
    use crate::target::Protocol;
    use crate::target::{Address, Target};

    /// An A2S poll's future is moved into the scheduler's box on every poll, so what it holds
    /// is paid per poll (benches/RESULTS.md, "A2S poll future"). Sizes in the test profile
    /// (`--nocapture` prints them): the RCON health query, boxed, no longer sizes every poll,
    /// and the A2S exchange keeps no split bookkeeping inline.
    #[tokio::test]
    async fn a2s_poll_future() {
        let target = Target::new("t", Protocol::A2s, Address::new("127.0.0.1", Some(27015)));
        let req = Request::from(&target);
        let mut session = Session::default();
        let deadline = Instant::now();
        let spec = Protocol::A2s.spec();
        let run = run::<A2s>(spec, &req, &mut session, deadline, None);
        let run_size = std::mem::size_of_val(&run);
        drop(run);
        let peer = SocketAddr::from(([127, 0, 0, 1], 27015));
        let mut start = Start {
            params: req.params(),
            host: &req.address.host,
            peer,
            local_port: None,
            min_gap: spec.min_gap,
            deadline: deadline.into_std(),
            voice_port: None,
            credentials: None,
            game: None,
        };
        let link = poll_link::<A2s>(spec, &req, &mut start, &mut session, deadline, None);
        let link_size = std::mem::size_of_val(&link);
        drop(link);
        let secret = Secret::new(String::new());
        let health = health::add(
            Status::default(),
            peer,
            secret,
            Box::new(crate::protocol::a2s::health::Script),
            crate::target::Console::Source,
            req.params(),
            deadline,
            None,
        );
        let health_size = std::mem::size_of_val(&health);
        drop(health);
        let exchange = std::mem::size_of::<A2s>();
        eprintln!(
            "run {run_size}, poll_link {link_size}, health::add {health_size}, A2s {exchange}"
        );
        // `run` holds the link's future and the few values it keeps across it, no more.
        assert!(
            run_size <= link_size + 512,
            "run {run_size}, poll_link {link_size}"
        );
        // 440 before A2S_PLAYER was pipelined; its remembered list challenge and the request
        // sent ahead add the rest.
        assert!(exchange <= 512, "A2s is {exchange} bytes");
    }
}
