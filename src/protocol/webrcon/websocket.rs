//! The WebSocket under WebRCON (RFC 6455), client side, bytes <-> values: the upgrade
//! request and its answer, and frames. tungstenite does the framing (its header parser, with
//! the 16- and 64-bit lengths, and its writer, which masks) and the `Sec-WebSocket-Accept`
//! derivation (SHA-1); the randomness (the key, each frame's mask) is the caller's, so every
//! byte here is reproducible in tests.
//!
//! Facepunch's server takes the password as the URL path (`ws://host:port/<password>`), so
//! the upgrade request carries a secret: the exchange sends it as one.

use std::io::Cursor;

use base64::Engine;
use tungstenite::protocol::frame::coding::{CloseCode, Control, Data, OpCode};
use tungstenite::protocol::frame::{Frame as TFrame, FrameHeader};

use crate::protocol::DecodeError;

/// The longest upgrade answer we read (status line and headers); real ones are ~200 bytes.
pub const MAX_HEAD: usize = 8 * 1024;

/// The upgrade request for `password` at `host` (the `Host` header's value), with the
/// 16 random bytes of `key`. Returns the request and the key as sent (base64), which the
/// answer must hash back ([`decode_upgrade`]).
///
/// The password goes into the path as it is, as every WebRCON client writes it (the server
/// compares the path with `/` + password, undecoded), except for the bytes a request line
/// cannot carry (controls, space, non-ASCII) and `%`, `?`, `#`, which are percent-encoded.
pub fn upgrade_request(host: &str, password: &str, key: [u8; 16]) -> (Vec<u8>, String) {
    let key = base64::engine::general_purpose::STANDARD.encode(key);
    let mut path = String::with_capacity(password.len() + 1);
    path.push('/');
    for &b in password.as_bytes() {
        match b {
            b'!'..=b'~' if !matches!(b, b'%' | b'?' | b'#') => path.push(char::from(b)),
            _ => path.push_str(&format!("%{b:02X}")),
        }
    }
    let request = format!(
        "GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\
         Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    (request.into_bytes(), key)
}

/// How the server answered the upgrade.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Upgrade {
    /// 101 with the right `Sec-WebSocket-Accept`: frames follow.
    Accepted,
    /// Another HTTP status (401/403: a server in front that checks the password itself).
    Status(u16),
}

/// The upgrade answer at the start of `buf`, and the bytes it took (frames may follow in
/// the same chunk); `None` until its blank line has come. A 101 whose accept value is not
/// `key`'s, or that does not upgrade to `websocket`, is an error.
pub fn decode_upgrade(buf: &[u8], key: &str) -> Result<Option<(Upgrade, usize)>, DecodeError> {
    let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
        if buf.len() >= MAX_HEAD {
            return Err(DecodeError::TooLarge {
                what: "WebSocket upgrade answer bytes",
                value: buf.len() as u64,
                limit: MAX_HEAD as u64,
            });
        }
        return Ok(None);
    };
    let used = end + 4;
    let head = std::str::from_utf8(&buf[..end])
        .map_err(|_| DecodeError::Invalid("WebSocket upgrade answer (not text)"))?;
    let mut lines = head.split("\r\n");
    let status_line = lines.next().unwrap_or_default();
    let mut words = status_line.split(' ');
    let status = match (words.next(), words.next()) {
        (Some(v), Some(code)) if v.starts_with("HTTP/1.") => code
            .parse::<u16>()
            .map_err(|_| DecodeError::Invalid("WebSocket upgrade answer (status)"))?,
        _ => return Err(DecodeError::Invalid("WebSocket upgrade answer (not HTTP)")),
    };
    if status != 101 {
        return Ok(Some((Upgrade::Status(status), used)));
    }
    let header = |name: &str| {
        head.split("\r\n").skip(1).find_map(|line| {
            let (n, v) = line.split_once(':')?;
            n.trim().eq_ignore_ascii_case(name).then(|| v.trim())
        })
    };
    if !header("Upgrade").is_some_and(|v| v.eq_ignore_ascii_case("websocket")) {
        return Err(DecodeError::Invalid(
            "WebSocket upgrade answer (no Upgrade: websocket)",
        ));
    }
    let expected = tungstenite::handshake::derive_accept_key(key.as_bytes());
    if header("Sec-WebSocket-Accept") != Some(expected.as_str()) {
        return Err(DecodeError::Mismatch("Sec-WebSocket-Accept"));
    }
    Ok(Some((Upgrade::Accepted, used)))
}

/// One frame from the server.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    pub fin: bool,
    pub kind: Kind,
    pub payload: Vec<u8>,
}

/// What a frame carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    Binary,
    /// The rest of a fragmented message.
    Continue,
    Close,
    Ping,
    Pong,
}

/// The frame at the start of `buf`, and the bytes it took; `None` until it is complete. A
/// length above `cap` is an error as soon as the header is read, before anything waits for
/// its payload (a header claiming 2^31-1 bytes ends the poll at once). Servers never mask;
/// a masked frame, reserved bits or a reserved opcode are errors.
pub fn decode_frame(buf: &[u8], cap: usize) -> Result<Option<(Frame, usize)>, DecodeError> {
    let mut cursor = Cursor::new(buf);
    let (header, len) = match FrameHeader::parse(&mut cursor) {
        Ok(Some(h)) => h,
        Ok(None) => return Ok(None),
        Err(_) => return Err(DecodeError::Invalid("WebSocket frame header")),
    };
    if len > cap as u64 {
        return Err(DecodeError::TooLarge {
            what: "WebSocket frame length",
            value: len,
            limit: cap as u64,
        });
    }
    if header.mask.is_some() {
        return Err(DecodeError::Invalid(
            "WebSocket frame (masked by the server)",
        ));
    }
    if header.rsv1 || header.rsv2 || header.rsv3 {
        return Err(DecodeError::Invalid("WebSocket frame (reserved bits)"));
    }
    let kind = match header.opcode {
        OpCode::Data(Data::Text) => Kind::Text,
        OpCode::Data(Data::Binary) => Kind::Binary,
        OpCode::Data(Data::Continue) => Kind::Continue,
        OpCode::Control(Control::Close) => Kind::Close,
        OpCode::Control(Control::Ping) => Kind::Ping,
        OpCode::Control(Control::Pong) => Kind::Pong,
        _ => return Err(DecodeError::Invalid("WebSocket frame (reserved opcode)")),
    };
    // `len` is at most `cap`, a usize.
    let start = cursor.position() as usize;
    let Some(payload) = buf.get(start..start + len as usize) else {
        return Ok(None);
    };
    let frame = Frame {
        fin: header.is_final,
        kind,
        payload: payload.to_vec(),
    };
    Ok(Some((frame, start + len as usize)))
}

/// A final text frame from the client, masked with `mask`, appended to `out`.
pub fn encode_text(text: &str, mask: [u8; 4], out: &mut Vec<u8>) {
    let frame = TFrame::message(text.as_bytes().to_vec(), OpCode::Data(Data::Text), true);
    write_masked(frame, mask, out);
}

/// A close frame from the client (1000, normal closure), masked with `mask`.
pub fn encode_close(mask: [u8; 4], out: &mut Vec<u8>) {
    let frame = TFrame::close(Some(tungstenite::protocol::CloseFrame {
        code: CloseCode::Normal,
        reason: "".into(),
    }));
    write_masked(frame, mask, out);
}

fn write_masked(mut frame: TFrame, mask: [u8; 4], out: &mut Vec<u8>) {
    frame.header_mut().mask = Some(mask);
    // Writing into a Vec cannot fail.
    let _ = frame.format(out);
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: [u8; 16] = *b"the sample nonce";

    /// The upgrade request, byte for byte; RFC 6455's sample key and accept value.
    #[test]
    fn upgrade_bytes() {
        let (req, key) = upgrade_request("127.0.0.1:28016", "s3cr#t pw", KEY);
        assert_eq!(key, "dGhlIHNhbXBsZSBub25jZQ==");
        assert_eq!(
            String::from_utf8(req).unwrap(),
            "GET /s3cr%23t%20pw HTTP/1.1\r\nHost: 127.0.0.1:28016\r\nUpgrade: websocket\r\n\
             Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\
             Sec-WebSocket-Version: 13\r\n\r\n"
        );
        let answer = b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\
            Connection: Upgrade\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n\x81";
        let n = answer.len() - 1;
        assert_eq!(
            decode_upgrade(answer, &key).unwrap(),
            Some((Upgrade::Accepted, n))
        );
        for cut in 0..n {
            assert_eq!(decode_upgrade(&answer[..cut], &key).unwrap(), None);
        }
        let wrong = String::from_utf8_lossy(answer).replace("s3pP", "AAAA");
        assert!(matches!(
            decode_upgrade(wrong.as_bytes(), &key),
            Err(DecodeError::Mismatch(_))
        ));
        assert_eq!(
            decode_upgrade(b"HTTP/1.1 401 Unauthorized\r\n\r\n", &key).unwrap(),
            Some((Upgrade::Status(401), 29))
        );
        assert!(decode_upgrade(b"SSH-2.0-x\r\n\r\n", &key).is_err());
        assert!(decode_upgrade(&[b'a'; MAX_HEAD], &key).is_err());
        let no_upgrade =
            b"HTTP/1.1 101 x\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n";
        assert!(decode_upgrade(no_upgrade, &key).is_err());
    }

    /// Client frames, byte for byte (RFC 6455 5.7's masked "Hello").
    #[test]
    fn client_frames() {
        let mut out = Vec::new();
        encode_text("Hello", [0x37, 0xfa, 0x21, 0x3d], &mut out);
        assert_eq!(
            out,
            [0x81, 0x85, 0x37, 0xfa, 0x21, 0x3d, 0x7f, 0x9f, 0x4d, 0x51, 0x58]
        );
        out.clear();
        encode_close([0, 0, 0, 0], &mut out);
        assert_eq!(out, [0x88, 0x82, 0, 0, 0, 0, 0x03, 0xe8]);
    }

    /// Server frames: short, 16-bit and 64-bit lengths, fragments, control frames; what
    /// waits, what is refused.
    #[test]
    fn server_frames() {
        let hello = [0x81, 0x05, b'H', b'e', b'l', b'l', b'o'];
        let (f, used) = decode_frame(&hello, 100).unwrap().unwrap();
        assert_eq!(
            (f.fin, f.kind, f.payload.as_slice(), used),
            (true, Kind::Text, &b"Hello"[..], 7)
        );
        for cut in 0..hello.len() {
            assert_eq!(decode_frame(&hello[..cut], 100).unwrap(), None);
        }
        let first = [0x01, 0x03, b'H', b'e', b'l'];
        let (f, _) = decode_frame(&first, 100).unwrap().unwrap();
        assert_eq!((f.fin, f.kind), (false, Kind::Text));
        let (f, _) = decode_frame(&[0x80, 0x02, b'l', b'o'], 100)
            .unwrap()
            .unwrap();
        assert_eq!((f.fin, f.kind), (true, Kind::Continue));
        let mut mid = vec![0x81, 126, 0x01, 0x00];
        mid.extend_from_slice(&[b'x'; 256]);
        assert_eq!(decode_frame(&mid, 256).unwrap().unwrap().1, 260);
        assert!(matches!(
            decode_frame(&mid, 255),
            Err(DecodeError::TooLarge { .. })
        ));
        // 2^31-1 in the 64-bit length: refused from the header alone.
        let mut huge = vec![0x81, 127];
        huge.extend_from_slice(&(i32::MAX as u64).to_be_bytes());
        assert!(matches!(
            decode_frame(&huge, 1 << 20),
            Err(DecodeError::TooLarge { value, .. }) if value == i32::MAX as u64
        ));
        let max = [0x81, 127, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff];
        assert!(decode_frame(&max, 1 << 20).is_err());
        assert_eq!(
            decode_frame(&[0x89, 0x00], 10).unwrap().unwrap().0.kind,
            Kind::Ping
        );
        assert_eq!(
            decode_frame(&[0x88, 0x00], 10).unwrap().unwrap().0.kind,
            Kind::Close
        );
        assert!(decode_frame(&[0x81, 0x81, 1, 2, 3, 4, 5], 10).is_err());
        assert!(decode_frame(&[0xc1, 0x00], 10).is_err());
        assert!(decode_frame(&[0x83, 0x00], 10).is_err());
    }

    proptest::proptest! {
        /// Whatever the bytes, decoding never panics, and what it takes fits the input.
        #[test]
        fn arbitrary_bytes(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..80)) {
            if let Ok(Some((f, used))) = decode_frame(&bytes, 64) {
                proptest::prop_assert!(used <= bytes.len() && f.payload.len() <= 64);
            }
            if let Ok(Some((_, used))) = decode_upgrade(&bytes, "k") {
                proptest::prop_assert!(used <= bytes.len());
            }
        }

        /// A text frame we write is one the decoder reads back, unmasked (a server's view).
        #[test]
        fn round_trip(text in "\\PC{0,300}", mask in proptest::array::uniform4(proptest::num::u8::ANY)) {
            let mut out = Vec::new();
            encode_text(&text, mask, &mut out);
            // Our frames are masked, which a client refuses from a server.
            proptest::prop_assert!(decode_frame(&out, 1 << 16).is_err());
        }
    }
}
