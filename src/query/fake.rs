//! An in-memory transport for testing exchanges and the driver without sockets: a scripted
//! server answers each request at once (or never), and tests run under tokio's paused clock,
//! so a wait that nothing ends passes in no real time.

use std::collections::VecDeque;
use std::sync::Arc;

use tokio::time::Instant;

use super::transport::{Recv, Sent, Transport};
use crate::net::NetError;

/// What the scripted server does in answer to a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// A datagram, or a chunk of the stream.
    Bytes(Vec<u8>),
    /// Closes the stream.
    Close,
    /// Resets the connection.
    Reset,
}

/// The scripted server: `(connection number, request number on it, request) -> answers`.
/// Connection numbers start at 1 for streams and stay 0 for datagrams.
pub type Script = dyn FnMut(usize, usize, &[u8]) -> Vec<Answer> + Send;

/// An in-memory transport; `DATAGRAMS` picks UDP (resends) or stream behaviour.
pub struct Fake<const DATAGRAMS: bool> {
    script: Box<Script>,
    inbox: VecDeque<Answer>,
    /// Every request sent, resends included, with the connection it went on.
    pub sent: Vec<(usize, Vec<u8>)>,
    pub connections: usize,
    requests_on_connection: usize,
}

impl<const DATAGRAMS: bool> Fake<DATAGRAMS> {
    pub fn new(
        script: impl FnMut(usize, usize, &[u8]) -> Vec<Answer> + Send + 'static,
    ) -> Fake<DATAGRAMS> {
        Fake {
            script: Box::new(script),
            inbox: VecDeque::new(),
            sent: Vec::new(),
            connections: 0,
            requests_on_connection: 0,
        }
    }
}

impl<const DATAGRAMS: bool> Transport for Fake<DATAGRAMS> {
    const DATAGRAMS: bool = DATAGRAMS;

    async fn connect(&mut self, _until: Instant) -> Result<(), NetError> {
        if !DATAGRAMS {
            self.connections += 1;
            self.requests_on_connection = 0;
            self.inbox.clear();
        }
        Ok(())
    }

    async fn send(&mut self, bytes: &[u8], _until: Instant) -> Result<Sent, NetError> {
        self.sent.push((self.connections, bytes.to_vec()));
        let n = self.requests_on_connection;
        self.requests_on_connection += 1;
        let answers = (self.script)(self.connections, n, bytes);
        self.inbox.extend(answers);
        Ok(None)
    }

    async fn recv(&mut self, until: Instant) -> Result<Recv, NetError> {
        match self.inbox.pop_front() {
            Some(Answer::Bytes(b)) => Ok(Recv::Bytes(b, None)),
            Some(Answer::Close) => Ok(Recv::Closed),
            Some(Answer::Reset) => Err(NetError::Io(Arc::new(std::io::Error::from(
                std::io::ErrorKind::ConnectionReset,
            )))),
            None => {
                tokio::time::sleep_until(until).await;
                Ok(Recv::Timeout)
            }
        }
    }
}
