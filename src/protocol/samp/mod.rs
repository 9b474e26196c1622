//! SA:MP and open.mp query. Server behaviour beyond the layout (code pages, the 100-player
//! list limit, open.mp's exact request lengths) is in `docs/protocols/samp.md`.
//!
//! # Format
//! Every request is an 11-byte header, and every reply starts by echoing it:
//! ```text
//! "SAMP" | IPv4 octets (4) | port (u16 LE) | opcode (1) [| 4 payload bytes for `p`]
//! ```
//! open.mp answers `i`, `c`, `r` and `o` only to requests of exactly 11 bytes, and `p` only
//! with exactly 4 payload bytes, so the encoders write exactly that.
//!
//! Strings are raw bytes in a legacy code page chosen by the operator (Windows-1252 by
//! default, Windows-1251 on Russian servers): decoders take the [`Encoding`] and never fail on
//! bytes it cannot map (they become U+FFFD).

mod dialect;
pub mod exchange;
mod info;
mod lists;
pub mod spec;

pub use dialect::Dialect;
pub use info::{
    decode_info, decode_info_in, decode_open_mp, encode_info, encode_info_in, encode_open_mp, Info,
    OpenMp,
};
pub use lists::{
    decode_clients, decode_clients_in, decode_detailed, decode_rules, encode_clients,
    encode_clients_in, encode_detailed, encode_rules, Client, Detailed,
};

use std::net::Ipv4Addr;

use encoding_rs::Encoding;

use super::{DecodeError, Reader};

pub const MAGIC: &[u8; 4] = b"SAMP";
/// Length of the header every request carries and every reply echoes.
pub const HEADER_LEN: usize = 11;

/// The server address a request names; the reply must echo it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Header {
    pub ip: Ipv4Addr,
    pub port: u16,
}

/// The query opcodes we speak (`x`, RCON, deliberately not).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Opcode {
    /// `i`: password flag, player counts, hostname, gamemode, language.
    Info,
    /// `r`: rules (name/value pairs).
    Rules,
    /// `c`: player names and scores.
    Clients,
    /// `d`: player ids, names, scores and pings (classic SA:MP only; open.mp has none).
    Detailed,
    /// `p`: echoes 4 bytes.
    Ping,
    /// `o`: open.mp extra info (discord link, banner and logo URLs); identifies open.mp.
    OpenMp,
}

impl Opcode {
    pub const ALL: [Opcode; 6] = [
        Opcode::Info,
        Opcode::Rules,
        Opcode::Clients,
        Opcode::Detailed,
        Opcode::Ping,
        Opcode::OpenMp,
    ];

    pub fn byte(self) -> u8 {
        match self {
            Opcode::Info => b'i',
            Opcode::Rules => b'r',
            Opcode::Clients => b'c',
            Opcode::Detailed => b'd',
            Opcode::Ping => b'p',
            Opcode::OpenMp => b'o',
        }
    }

    pub fn from_byte(b: u8) -> Option<Opcode> {
        Opcode::ALL.into_iter().find(|o| o.byte() == b)
    }
}

/// A request as a server sees it (the simulator decodes these).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Request {
    pub header: Header,
    pub opcode: Opcode,
    /// The 4 bytes a `p` request carries.
    pub payload: Option<[u8; 4]>,
    /// The datagram length: open.mp ignores requests of any other length than the exact one.
    pub len: usize,
}

fn encode_header(header: &Header, opcode: Opcode, out: &mut Vec<u8>) {
    encode_header_as(MAGIC, header, opcode, out);
}

/// The 11-byte header behind `magic` (a request's or a reply's, by dialect).
fn encode_header_as(magic: &[u8; 4], header: &Header, opcode: Opcode, out: &mut Vec<u8>) {
    out.extend_from_slice(magic);
    out.extend_from_slice(&header.ip.octets());
    out.extend_from_slice(&header.port.to_le_bytes());
    out.push(opcode.byte());
}

/// Writes the exactly-11-byte request for any opcode but `p` (use [`encode_ping`]).
pub fn encode_request(header: &Header, opcode: Opcode, out: &mut Vec<u8>) {
    encode_request_in(&Dialect::SAMP, header, opcode, out);
}

/// [`encode_request`] in `dialect` (its request magic).
pub fn encode_request_in(dialect: &Dialect, header: &Header, opcode: Opcode, out: &mut Vec<u8>) {
    encode_header_as(&dialect.request_magic, header, opcode, out);
}

/// Writes a `p` request: the header plus exactly 4 payload bytes.
pub fn encode_ping(header: &Header, payload: [u8; 4], out: &mut Vec<u8>) {
    encode_header(header, Opcode::Ping, out);
    out.extend_from_slice(&payload);
}

/// Decodes a request (server side). Unknown opcodes are [`DecodeError::UnexpectedType`].
pub fn decode_request(datagram: &[u8]) -> Result<Request, DecodeError> {
    decode_request_in(&Dialect::SAMP, datagram)
}

/// [`decode_request`] in `dialect`: its request magic, or [`DecodeError::Invalid`].
pub fn decode_request_in(dialect: &Dialect, datagram: &[u8]) -> Result<Request, DecodeError> {
    let mut r = Reader::new(datagram);
    let (header, byte) = read_header(&mut r, &dialect.request_magic)?;
    let opcode = Opcode::from_byte(byte).ok_or(DecodeError::UnexpectedType {
        what: "SA:MP opcode",
        found: byte.into(),
    })?;
    let payload = match opcode {
        Opcode::Ping => Some(r.array::<4>()?),
        _ => None,
    };
    Ok(Request {
        header,
        opcode,
        payload,
        len: datagram.len(),
    })
}

fn read_header(r: &mut Reader<'_>, magic: &[u8; 4]) -> Result<(Header, u8), DecodeError> {
    if r.bytes(4)? != magic {
        return Err(DecodeError::Invalid("SA:MP magic"));
    }
    let ip = Ipv4Addr::from(r.array::<4>()?);
    let port = r.u16_le()?;
    let opcode = r.u8()?;
    Ok((Header { ip, port }, opcode))
}

/// Checks that `datagram` echoes the header of our `opcode` request, and returns a reader
/// positioned after it.
///
/// Anything that does not (too short to hold a header, other magic, address, port or opcode)
/// is [`DecodeError::Mismatch`]: such a datagram is not an answer to this request, and the
/// caller may keep waiting for the one that is.
pub fn check_header<'a>(
    datagram: &'a [u8],
    expect: &Header,
    opcode: Opcode,
) -> Result<Reader<'a>, DecodeError> {
    check_header_in(&Dialect::SAMP, datagram, expect, opcode)
}

/// [`check_header`] in `dialect` (its reply magic).
pub fn check_header_in<'a>(
    dialect: &Dialect,
    datagram: &'a [u8],
    expect: &Header,
    opcode: Opcode,
) -> Result<Reader<'a>, DecodeError> {
    let mut want = Vec::with_capacity(HEADER_LEN);
    encode_header_as(&dialect.reply_magic, expect, opcode, &mut want);
    if datagram.len() < HEADER_LEN || datagram[..HEADER_LEN] != want[..] {
        return Err(DecodeError::Mismatch("SA:MP reply header"));
    }
    let mut r = Reader::new(datagram);
    r.skip(HEADER_LEN)?;
    Ok(r)
}

/// Decodes a `p` reply: our header and our 4 bytes echoed, or [`DecodeError::Mismatch`].
pub fn decode_ping(datagram: &[u8], expect: &Header, payload: [u8; 4]) -> Result<(), DecodeError> {
    let mut r = check_header(datagram, expect, Opcode::Ping)?;
    if r.array::<4>()? != payload {
        return Err(DecodeError::Mismatch("SA:MP ping payload"));
    }
    Ok(())
}

/// Writes a `p` reply (server side): the request echoed.
pub fn encode_ping_reply(header: &Header, payload: [u8; 4], out: &mut Vec<u8>) {
    encode_ping(header, payload, out);
}

/// Text in the server's code page; bytes it cannot map become U+FFFD, never an error.
fn text(bytes: &[u8], encoding: &'static Encoding) -> String {
    encoding.decode_without_bom_handling(bytes).0.into_owned()
}

/// A string behind a u8 length.
fn read_str8(r: &mut Reader<'_>, encoding: &'static Encoding) -> Result<String, DecodeError> {
    let len = r.u8()?;
    Ok(text(r.bytes(len.into())?, encoding))
}

/// A string behind a u32 length; the length is checked against what arrived before any
/// allocation (the reader refuses to read past the end).
fn read_str32(r: &mut Reader<'_>, encoding: &'static Encoding) -> Result<String, DecodeError> {
    let len = r.u32_le()?;
    let len = usize::try_from(len).unwrap_or(usize::MAX);
    Ok(text(r.bytes(len)?, encoding))
}

/// A count read from the wire, refused when more entries are announced than the rest of the
/// datagram could hold at `min_entry` bytes each; only then is it safe to reserve for.
fn read_count(
    r: &mut Reader<'_>,
    what: &'static str,
    min_entry: usize,
) -> Result<usize, DecodeError> {
    let count = usize::from(r.u16_le()?);
    let fits = r.remaining() / min_entry;
    if count > fits {
        return Err(DecodeError::Overrun {
            what,
            value: count as u64,
            fits: fits as u64,
        });
    }
    Ok(count)
}

fn encoded(s: &str, encoding: &'static Encoding) -> Vec<u8> {
    encoding.encode(s).0.into_owned()
}

/// Writes a string behind a u8 length, cut at 255 bytes (the most the field can say).
fn write_str8(s: &str, encoding: &'static Encoding, out: &mut Vec<u8>) {
    let bytes = encoded(s, encoding);
    let bytes = &bytes[..bytes.len().min(255)];
    out.push(bytes.len() as u8);
    out.extend_from_slice(bytes);
}

fn write_str32(s: &str, encoding: &'static Encoding, out: &mut Vec<u8>) {
    let bytes = encoded(s, encoding);
    out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
    out.extend_from_slice(&bytes);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const H: Header = Header {
        ip: Ipv4Addr::new(127, 0, 0, 1),
        port: 7777,
    };

    /// The request is "SAMP", the IPv4 octets, the port little-endian, the opcode: 11 bytes.
    #[test]
    fn request_layout() {
        let mut out = Vec::new();
        encode_request(&H, Opcode::Info, &mut out);
        assert_eq!(out, b"SAMP\x7f\x00\x00\x01\x61\x1ei");
        assert_eq!(out.len(), HEADER_LEN);
        out.clear();
        encode_ping(&H, *b"abcd", &mut out);
        assert_eq!(out, b"SAMP\x7f\x00\x00\x01\x61\x1epabcd");
    }

    /// The simulator reads back every request we send, with its exact length.
    #[test]
    fn request_round_trip() {
        for op in Opcode::ALL {
            let mut out = Vec::new();
            if op == Opcode::Ping {
                encode_ping(&H, [1, 2, 3, 4], &mut out);
            } else {
                encode_request(&H, op, &mut out);
            }
            let req = decode_request(&out).unwrap();
            assert_eq!((req.header, req.opcode, req.len), (H, op, out.len()));
            assert_eq!(req.payload.is_some(), op == Opcode::Ping);
        }
        assert!(matches!(
            decode_request(b"SAMP\x7f\x00\x00\x01\x61\x1ex"),
            Err(DecodeError::UnexpectedType { .. })
        ));
    }

    /// A reply for another address, port or opcode, or too short to echo, is a mismatch.
    #[test]
    fn header_echo_checked() {
        let mut ok = Vec::new();
        encode_request(&H, Opcode::Info, &mut ok);
        assert!(check_header(&ok, &H, Opcode::Info).is_ok());
        assert!(matches!(
            check_header(&ok, &H, Opcode::Rules),
            Err(DecodeError::Mismatch(_))
        ));
        let other = Header { port: 7778, ..H };
        assert!(matches!(
            check_header(&ok, &other, Opcode::Info),
            Err(DecodeError::Mismatch(_))
        ));
        assert!(matches!(
            check_header(&ok[..10], &H, Opcode::Info),
            Err(DecodeError::Mismatch(_))
        ));
        let mut bad_magic = ok.clone();
        bad_magic[0] = b'X';
        assert!(check_header(&bad_magic, &H, Opcode::Info).is_err());
    }

    /// The ping reply must carry our 4 bytes back; others are a mismatch, a short one too.
    #[test]
    fn ping_echo() {
        let mut reply = Vec::new();
        encode_ping_reply(&H, *b"wxyz", &mut reply);
        assert_eq!(decode_ping(&reply, &H, *b"wxyz"), Ok(()));
        assert_eq!(
            decode_ping(&reply, &H, *b"wxya"),
            Err(DecodeError::Mismatch("SA:MP ping payload"))
        );
        assert!(matches!(
            decode_ping(&reply[..13], &H, *b"wxyz"),
            Err(DecodeError::Truncated { .. })
        ));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// Arbitrary bytes never panic the request or ping decoders.
        #[test]
        fn request_and_ping_decoders_survive_noise(bytes in proptest::collection::vec(any::<u8>(), 0..64)) {
            let _ = decode_request(&bytes);
            let _ = decode_ping(&bytes, &H, [0; 4]);
        }

        /// Any ping payload round-trips through request and reply.
        #[test]
        fn ping_round_trip(payload in any::<[u8; 4]>(), port in any::<u16>(), ip in any::<[u8; 4]>()) {
            let h = Header { ip: Ipv4Addr::from(ip), port };
            let mut out = Vec::new();
            encode_ping(&h, payload, &mut out);
            let req = decode_request(&out).unwrap();
            prop_assert_eq!(req.payload, Some(payload));
            prop_assert_eq!(req.header, h);
            out.clear();
            encode_ping_reply(&h, payload, &mut out);
            prop_assert_eq!(decode_ping(&out, &h, payload), Ok(()));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Every non-ping request, to any address and port, decodes to what was encoded,
        /// with its exact 11-byte length.
        #[test]
        fn request_round_trip_any_header(op in 0usize..Opcode::ALL.len(), port in any::<u16>(), ip in any::<[u8; 4]>()) {
            let op = Opcode::ALL[op];
            prop_assume!(op != Opcode::Ping);
            let h = Header { ip: Ipv4Addr::from(ip), port };
            let mut out = Vec::new();
            encode_request(&h, op, &mut out);
            prop_assert_eq!(decode_request(&out), Ok(Request { header: h, opcode: op, payload: None, len: HEADER_LEN }));
        }
    }
}
