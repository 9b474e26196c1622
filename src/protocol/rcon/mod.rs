//! Source RCON, the codec: the packet layout every RCON server shares (SRCDS, Minecraft Java,
//! Factorio, ...), bytes <-> values. The dialogue (login, commands, replies split over several
//! packets) is [`exchange`].
//!
//! A packet is `size: i32 LE` (the bytes after it), `id: i32 LE`, `type: i32 LE`, the body
//! and two NULs (the body's terminator and an empty string). Types: 3 is a login
//! (SERVERDATA_AUTH), 2 a command from us (SERVERDATA_EXECCOMMAND) and the login answer from
//! the server (SERVERDATA_AUTH_RESPONSE), 0 a command's answer (SERVERDATA_RESPONSE_VALUE).
//! A refused login is answered with id -1. What real servers do beyond this layout:
//! docs/protocols/factorio.md.

pub mod exchange;

use crate::protocol::DecodeError;

/// SERVERDATA_AUTH.
pub const TYPE_AUTH: i32 = 3;
/// SERVERDATA_EXECCOMMAND, and SERVERDATA_AUTH_RESPONSE from the server.
pub const TYPE_EXEC: i32 = 2;
/// SERVERDATA_AUTH_RESPONSE (the same number as a command, from the other side).
pub const TYPE_AUTH_RESPONSE: i32 = 2;
/// SERVERDATA_RESPONSE_VALUE.
pub const TYPE_RESPONSE: i32 = 0;
/// The id a server answers a refused login with.
pub const AUTH_REFUSED_ID: i32 = -1;

/// The smallest `size`: id, type and the two NULs.
pub const MIN_SIZE: usize = 10;
/// The smallest `size` read: a body's NUL without the empty string's after it (opengsq
/// writes packets so, and SRCDS reads them).
pub const MIN_READ_SIZE: usize = 9;
/// The largest `size` we read: SRCDS and Minecraft send at most 4096 body bytes per packet,
/// Factorio somewhat more for long lists; anything past this is not an RCON reply.
pub const MAX_SIZE: usize = 64 * 1024;
/// The longest command or password we write: servers refuse longer ones (Minecraft: 1446).
pub const MAX_REQUEST_BODY: usize = 1400;

/// One packet as it came.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Packet {
    pub id: i32,
    pub kind: i32,
    pub body: Vec<u8>,
}

/// Writes a packet. Bodies longer than [`MAX_REQUEST_BODY`] are cut (callers write only
/// short commands and passwords).
pub fn encode(id: i32, kind: i32, body: &[u8], out: &mut Vec<u8>) {
    let body = &body[..body.len().min(MAX_REQUEST_BODY)];
    // At most 1410: fits an i32.
    let size = (body.len() + MIN_SIZE) as i32;
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(&id.to_le_bytes());
    out.extend_from_slice(&kind.to_le_bytes());
    out.extend_from_slice(body);
    out.extend_from_slice(&[0, 0]);
}

/// The first packet in `buf`, and the bytes it took; `None` until it is complete.
pub fn decode(buf: &[u8]) -> Result<Option<(Packet, usize)>, DecodeError> {
    let Some(head) = buf.get(..4) else {
        return Ok(None);
    };
    let size = i32::from_le_bytes([head[0], head[1], head[2], head[3]]);
    if size < MIN_READ_SIZE as i32 {
        return Err(DecodeError::Invalid("RCON packet size below 9"));
    }
    let size = size as usize;
    if size > MAX_SIZE {
        return Err(DecodeError::TooLarge {
            what: "RCON packet size",
            value: size as u64,
            limit: MAX_SIZE as u64,
        });
    }
    let Some(packet) = buf.get(4..4 + size) else {
        return Ok(None);
    };
    let int = |at: usize| {
        i32::from_le_bytes([packet[at], packet[at + 1], packet[at + 2], packet[at + 3]])
    };
    let (id, kind) = (int(0), int(4));
    // The body ends at its NUL; servers send the empty string's NUL after it.
    let rest = &packet[8..];
    if rest[rest.len() - 1] != 0 {
        return Err(DecodeError::Unterminated {
            offset: 4 + size - 1,
        });
    }
    let body_end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len() - 1);
    let body = rest[..body_end].to_vec();
    Ok(Some((Packet { id, kind, body }, 4 + size)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A login packet, byte for byte.
    #[test]
    fn encodes_auth() {
        let mut out = Vec::new();
        encode(7, TYPE_AUTH, b"pw", &mut out);
        assert_eq!(out, [12, 0, 0, 0, 7, 0, 0, 0, 3, 0, 0, 0, b'p', b'w', 0, 0]);
        assert_eq!(
            decode(&out).unwrap(),
            Some((
                Packet {
                    id: 7,
                    kind: TYPE_AUTH,
                    body: b"pw".to_vec()
                },
                16
            ))
        );
    }

    /// Incomplete input waits; bad sizes and a missing terminator are errors; two packets in
    /// one buffer come one at a time.
    #[test]
    fn decodes() {
        let mut two = Vec::new();
        encode(1, TYPE_RESPONSE, b"", &mut two);
        encode(-1, TYPE_AUTH_RESPONSE, b"x", &mut two);
        let (p, used) = decode(&two).unwrap().unwrap();
        assert_eq!((p.id, p.body.len(), used), (1, 0, 14));
        let (p, _) = decode(&two[used..]).unwrap().unwrap();
        assert_eq!((p.id, p.kind, p.body), (-1, 2, b"x".to_vec()));
        for cut in 0..14 {
            assert_eq!(decode(&two[..cut]).unwrap(), None, "{cut}");
        }
        let mut small = 8i32.to_le_bytes().to_vec();
        small.extend_from_slice(&[0; 8]);
        assert!(matches!(decode(&small), Err(DecodeError::Invalid(_))));
        assert!(matches!(
            decode(&(-5i32).to_le_bytes()),
            Err(DecodeError::Invalid(_))
        ));
        let huge = (MAX_SIZE as i32 + 1).to_le_bytes();
        assert!(matches!(decode(&huge), Err(DecodeError::TooLarge { .. })));
        let max = i32::MAX.to_le_bytes();
        assert!(matches!(decode(&max), Err(DecodeError::TooLarge { .. })));
        let mut open = Vec::new();
        encode(1, 0, b"ab", &mut open);
        let n = open.len();
        open[n - 1] = b'!';
        assert!(matches!(
            decode(&open),
            Err(DecodeError::Unterminated { .. })
        ));
    }

    proptest::proptest! {
        /// Whatever the bytes, decoding never panics, and what it takes fits the input.
        #[test]
        fn arbitrary_bytes(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..64)) {
            if let Ok(Some((_, used))) = decode(&bytes) {
                proptest::prop_assert!(used <= bytes.len());
            }
        }

        /// Any short body round-trips.
        #[test]
        fn round_trip(id in proptest::num::i32::ANY, body in "[a-z /]{0,100}") {
            let mut out = Vec::new();
            encode(id, TYPE_EXEC, body.as_bytes(), &mut out);
            let (p, used) = decode(&out).unwrap().unwrap();
            proptest::prop_assert_eq!((p.id, p.kind, p.body, used), (id, TYPE_EXEC, body.into_bytes(), out.len()));
        }
    }
}
