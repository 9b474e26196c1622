//! Reassembly: fragments in, one message out, with every count and size capped.

use std::borrow::Cow;
use std::collections::VecDeque;
use std::io::Read;

use super::super::crc32::crc32;
use super::super::{DecodeError, Reader, SINGLE_HEADER, SPLIT_HEADER};
use super::fragment::{detect, parse, Format, Fragment, BZIP2_MAGIC, COMPRESSED_BIT};

/// Split replies with distinct ids being assembled at once. A server answers one request with
/// one id; a few more slots tolerate late fragments of an older reply and foreign ids, while a
/// server sending fresh ids forever only ever holds this many.
pub const MAX_IN_FLIGHT: usize = 4;
/// Completed ids remembered, so late duplicates of a finished reply are dropped silently.
const DONE_MEMORY: usize = 8;
/// Caps on one reassembled reply.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Fragments a reply may announce.
    pub max_packets: u8,
    /// Bytes buffered, and bytes after decompression.
    pub max_bytes: usize,
}

#[derive(Debug)]
struct Partial {
    id: u32,
    parts: Vec<Option<Vec<u8>>>,
    received: usize,
    bytes: usize,
    compressed: Option<(u32, u32)>,
}

/// Reassembles split replies; see the module documentation for how to drive it.
///
/// The fragments' bookkeeping is boxed and made at the first split datagram: every A2S poll
/// holds a reassembler, inline in its future (which the scheduler moves into a box on every
/// poll), and nearly every reply comes in one datagram (benches/RESULTS.md, "A2S poll
/// future").
#[derive(Debug)]
pub struct Reassembler {
    limits: Limits,
    split: Option<Box<Split>>,
}

impl Reassembler {
    pub fn new(limits: Limits) -> Reassembler {
        Reassembler {
            limits,
            split: None,
        }
    }

    /// The fragment layout, once a packet 0 has shown it.
    pub fn format(&self) -> Option<Format> {
        self.split.as_ref().and_then(|s| s.format)
    }

    /// Whether fragments of an unfinished reply are held.
    pub fn is_pending(&self) -> bool {
        self.split.as_ref().is_some_and(|s| s.is_pending())
    }

    /// Forgets unfinished replies (kept: the layout and the completed ids), so that leftovers
    /// of one exchange do not make the next one look `incomplete`.
    pub fn discard_pending(&mut self) {
        if let Some(s) = self.split.as_mut() {
            s.discard_pending();
        }
    }

    /// Feeds one datagram. See the module documentation for what the results mean.
    ///
    /// An unsplit datagram (every steady-state A2S reply) is its own message and is lent back
    /// as it is: copying it cost one allocation per reply.
    pub fn handle_datagram<'d>(
        &mut self,
        datagram: &'d [u8],
    ) -> Result<Option<Cow<'d, [u8]>>, DecodeError> {
        if datagram.starts_with(&SINGLE_HEADER) {
            return Ok(Some(Cow::Borrowed(datagram)));
        }
        let limits = self.limits;
        self.split
            .get_or_insert_with(|| Box::new(Split::new(limits)))
            .handle_datagram(datagram)
    }
}

/// What a [`Reassembler`] keeps once split datagrams arrive.
#[derive(Debug)]
struct Split {
    limits: Limits,
    format: Option<Format>,
    /// Fragments seen before the layout was known.
    unparsed: VecDeque<Vec<u8>>,
    partials: VecDeque<Partial>,
    done: VecDeque<u32>,
}

impl Split {
    fn new(limits: Limits) -> Split {
        Split {
            limits,
            format: None,
            unparsed: VecDeque::new(),
            partials: VecDeque::new(),
            done: VecDeque::new(),
        }
    }

    fn is_pending(&self) -> bool {
        !self.partials.is_empty() || !self.unparsed.is_empty()
    }

    fn discard_pending(&mut self) {
        self.unparsed.clear();
        self.partials.clear();
    }

    /// [`Reassembler::handle_datagram`] of a datagram that may be a fragment.
    fn handle_datagram<'d>(
        &mut self,
        datagram: &'d [u8],
    ) -> Result<Option<Cow<'d, [u8]>>, DecodeError> {
        let mut r = Reader::new(datagram);
        let header = r.array::<4>()?;
        if header == SINGLE_HEADER {
            return Ok(Some(Cow::Borrowed(datagram)));
        }
        if header != SPLIT_HEADER {
            return Err(DecodeError::UnexpectedType {
                what: "packet header",
                found: u32::from_le_bytes(header),
            });
        }
        let id = r.u32_le()?;
        r.u8()?;
        if self.done.contains(&id) {
            return Ok(None);
        }
        let format = match self.format {
            Some(f) => f,
            None => match detect(datagram) {
                Some(f) => {
                    self.format = Some(f);
                    return Ok(self.replay(datagram, f)?.map(Cow::Owned));
                }
                None => {
                    self.keep_unparsed(datagram);
                    return Ok(None);
                }
            },
        };
        let fragment = parse(datagram, format, self.limits)?;
        Ok(self.insert(fragment)?.map(Cow::Owned))
    }

    /// Handles the packet 0 that revealed the layout, then everything held before it.
    fn replay(&mut self, first: &[u8], format: Format) -> Result<Option<Vec<u8>>, DecodeError> {
        let mut complete = self.insert(parse(first, format, self.limits)?)?;
        let held = std::mem::take(&mut self.unparsed);
        for raw in held {
            let outcome = parse(&raw, format, self.limits).and_then(|f| self.insert(f));
            match outcome {
                Ok(Some(msg)) if complete.is_none() => complete = Some(msg),
                Err(e @ DecodeError::TooLarge { .. }) => return Err(e),
                // Held fragments that turn out malformed are dropped like any other garbage.
                _ => {}
            }
        }
        Ok(complete)
    }

    fn keep_unparsed(&mut self, datagram: &[u8]) {
        let cap = usize::from(self.limits.max_packets) * MAX_IN_FLIGHT;
        while self.unparsed.len() >= cap.max(1)
            || self.held_bytes() + datagram.len() > self.limits.max_bytes
        {
            if self.unparsed.pop_front().is_none() {
                return;
            }
        }
        self.unparsed.push_back(datagram.to_vec());
    }

    fn held_bytes(&self) -> usize {
        self.unparsed.iter().map(Vec::len).sum::<usize>()
            + self.partials.iter().map(|p| p.bytes).sum::<usize>()
    }

    fn insert(&mut self, f: Fragment<'_>) -> Result<Option<Vec<u8>>, DecodeError> {
        if self.done.contains(&f.id) {
            return Ok(None);
        }
        let at = match self.partials.iter().position(|p| p.id == f.id) {
            Some(at) => at,
            None => {
                if self.partials.len() >= MAX_IN_FLIGHT {
                    self.partials.pop_front();
                }
                self.partials.push_back(Partial {
                    id: f.id,
                    parts: vec![None; usize::from(f.total)],
                    received: 0,
                    bytes: 0,
                    compressed: None,
                });
                self.partials.len() - 1
            }
        };
        let partial = &mut self.partials[at];
        if partial.parts.len() != usize::from(f.total) {
            return Err(DecodeError::Invalid("split total changed within one reply"));
        }
        let slot = &mut partial.parts[usize::from(f.number)];
        if slot.is_some() {
            return Ok(None);
        }
        let bytes = partial.bytes + f.payload.len();
        if bytes > self.limits.max_bytes {
            return Err(DecodeError::TooLarge {
                what: "split reply bytes",
                value: bytes as u64,
                limit: self.limits.max_bytes as u64,
            });
        }
        *slot = Some(f.payload.to_vec());
        partial.bytes = bytes;
        partial.received += 1;
        if f.compressed.is_some() {
            partial.compressed = f.compressed;
        }
        let complete = partial.received == partial.parts.len();
        if !complete {
            self.evict_over_budget(f.id);
            return Ok(None);
        }
        let Some(partial) = self.partials.remove(at) else {
            return Ok(None);
        };
        if self.done.len() >= DONE_MEMORY {
            self.done.pop_front();
        }
        self.done.push_back(partial.id);
        assemble(partial, self.limits).map(Some)
    }

    /// Drops other replies (oldest first) while everything held exceeds the byte cap.
    fn evict_over_budget(&mut self, keep: u32) {
        while self.held_bytes() > self.limits.max_bytes {
            if self.unparsed.pop_front().is_some() {
                continue;
            }
            match self.partials.iter().position(|p| p.id != keep) {
                Some(i) => {
                    self.partials.remove(i);
                }
                None => return,
            }
        }
    }
}

fn assemble(partial: Partial, limits: Limits) -> Result<Vec<u8>, DecodeError> {
    let mut joined = Vec::with_capacity(partial.bytes);
    for part in partial.parts.into_iter().flatten() {
        joined.extend_from_slice(&part);
    }
    let msg = match partial.compressed {
        Some((size, crc)) => decompress(&joined, size, crc, limits)?,
        None if partial.id & COMPRESSED_BIT != 0 && joined.starts_with(BZIP2_MAGIC) => {
            return Err(DecodeError::Invalid(
                "compressed reply without its size header",
            ))
        }
        None => joined,
    };
    if !msg.starts_with(&SINGLE_HEADER) {
        return Err(DecodeError::Invalid(
            "reassembled reply lacks the -1 header",
        ));
    }
    Ok(msg)
}

/// Inflates at most `size` (already capped) + 1 bytes: a stream that inflates beyond what
/// packet 0 declared is refused without ever holding more than that.
fn decompress(data: &[u8], size: u32, crc: u32, limits: Limits) -> Result<Vec<u8>, DecodeError> {
    let size = (size as usize).min(limits.max_bytes);
    let mut out = Vec::with_capacity(size);
    bzip2::read::BzDecoder::new(data)
        .take(size as u64 + 1)
        .read_to_end(&mut out)
        .map_err(|_| DecodeError::Invalid("bzip2 stream"))?;
    if out.len() > size {
        return Err(DecodeError::TooLarge {
            what: "decompressed reply",
            value: out.len() as u64,
            limit: size as u64,
        });
    }
    if out.len() != size {
        return Err(DecodeError::Invalid(
            "decompressed size differs from packet 0",
        ));
    }
    let actual = crc32(&out);
    if actual != crc {
        return Err(DecodeError::Checksum {
            expected: crc,
            actual,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::{compress, encode_fragment, encode_split, SplitOptions};
    use super::*;
    use proptest::prelude::*;

    const LIMITS: Limits = Limits {
        max_packets: 32,
        max_bytes: 64 * 1024,
    };

    fn message(len: usize) -> Vec<u8> {
        let mut m = SINGLE_HEADER.to_vec();
        m.push(b'E');
        m.extend((0..len).map(|i| b'a' + (i % 26) as u8));
        m
    }

    fn feed(r: &mut Reassembler, frags: &[Vec<u8>]) -> Vec<Result<Option<Vec<u8>>, DecodeError>> {
        frags.iter().map(|f| owned(r, f)).collect()
    }

    /// The reassembler's answer with the message owned, as the assertions compare it.
    fn owned(r: &mut Reassembler, datagram: &[u8]) -> Result<Option<Vec<u8>>, DecodeError> {
        r.handle_datagram(datagram).map(|m| m.map(Cow::into_owned))
    }

    const SOURCE: Format = Format::Source { size_field: true };
    const OLD_SOURCE: Format = Format::Source { size_field: false };

    fn opts(format: Format, compress: bool) -> SplitOptions {
        SplitOptions {
            format,
            fragment_size: 100,
            compress,
        }
    }

    /// An unsplit datagram is a complete message at once, lent back without a copy.
    #[test]
    fn single_datagram() {
        let mut r = Reassembler::new(LIMITS);
        let m = message(3);
        assert_eq!(owned(&mut r, &m), Ok(Some(m.clone())));
        assert!(matches!(r.handle_datagram(&m), Ok(Some(Cow::Borrowed(b))) if b == &m[..]));
        assert!(!r.is_pending());
        assert!(matches!(
            owned(&mut r, &[0, 0, 0, 0, 0]),
            Err(DecodeError::UnexpectedType { .. })
        ));
        assert!(matches!(
            owned(&mut r, &[0xFF, 0xFF]),
            Err(DecodeError::Truncated { .. })
        ));
    }

    /// Fragments in reverse order, each duplicated, reassemble once into the message.
    #[test]
    fn reordered_and_duplicated() {
        for format in [SOURCE, OLD_SOURCE, Format::GoldSrc] {
            let m = message(350);
            let mut frags = encode_split(&m, 7, opts(format, false));
            assert_eq!(frags.len(), 4);
            frags.reverse();
            let doubled: Vec<Vec<u8>> = frags.iter().flat_map(|f| [f.clone(), f.clone()]).collect();
            let mut r = Reassembler::new(LIMITS);
            let results = feed(&mut r, &doubled);
            let complete: Vec<_> = results
                .iter()
                .filter_map(|x| x.clone().ok().flatten())
                .collect();
            assert_eq!(complete, vec![m], "{format:?}");
            assert!(results.iter().all(|x| x.is_ok()));
            assert_eq!(r.format(), Some(format));
            assert!(!r.is_pending());
        }
    }

    /// Fragments of a foreign id, interleaved, neither block nor corrupt the real reply.
    #[test]
    fn foreign_ids_ignored() {
        let m = message(250);
        let real = encode_split(&m, 1, opts(SOURCE, false));
        let other = encode_split(&message(250), 99, opts(SOURCE, false));
        let mut r = Reassembler::new(LIMITS);
        assert_eq!(owned(&mut r, &other[1]), Ok(None));
        assert_eq!(owned(&mut r, &other[0]), Ok(None));
        assert_eq!(owned(&mut r, &real[0]), Ok(None));
        assert_eq!(owned(&mut r, &real[1]), Ok(None));
        assert_eq!(owned(&mut r, &real[2]), Ok(Some(m)));
        assert!(r.is_pending());
    }

    /// The 2006-era header (no size field) is told apart from the current one by packet 0.
    #[test]
    fn old_header_detected() {
        let m = message(150);
        let frags = encode_split(&m, 3, opts(OLD_SOURCE, false));
        assert_eq!(frags[0][8..10], [2, 0]);
        assert_eq!(frags[0][10..14], SINGLE_HEADER);
        let mut r = Reassembler::new(LIMITS);
        assert_eq!(owned(&mut r, &frags[1]), Ok(None));
        assert_eq!(owned(&mut r, &frags[0]), Ok(Some(m)));
        assert_eq!(r.format(), Some(OLD_SOURCE));
    }

    /// GoldSrc fragments pack index and total in one byte.
    #[test]
    fn goldsrc_layout() {
        let m = message(150);
        let frags = encode_split(&m, 0x1234, opts(Format::GoldSrc, false));
        assert_eq!(frags[0][8], 0x02);
        assert_eq!(frags[1][8], 0x12);
        let mut r = Reassembler::new(LIMITS);
        assert_eq!(owned(&mut r, &frags[0]), Ok(None));
        assert_eq!(owned(&mut r, &frags[1]), Ok(Some(m)));
    }

    /// A bzip2 reply with the right CRC decompresses to the message, in either Source layout.
    #[test]
    fn bzip2_good_crc() {
        for format in [SOURCE, OLD_SOURCE] {
            let m = message(5000);
            let frags = encode_split(
                &m,
                5,
                SplitOptions {
                    fragment_size: 20,
                    ..opts(format, true)
                },
            );
            assert!(frags.len() > 1);
            assert_ne!(frags[0][7] & 0x80, 0);
            let mut r = Reassembler::new(LIMITS);
            let results = feed(&mut r, &frags);
            assert_eq!(results.last(), Some(&Ok(Some(m))), "{format:?}");
        }
    }

    fn bzip2_frags(m: &[u8], declared: u32, crc: u32) -> Vec<Vec<u8>> {
        let data = compress(m);
        let half = data.len() / 2;
        let mut a = Vec::new();
        encode_fragment(
            SOURCE,
            9 | COMPRESSED_BIT,
            2,
            0,
            Some((declared, crc)),
            &data[..half],
            &mut a,
        );
        let mut b = Vec::new();
        encode_fragment(
            SOURCE,
            9 | COMPRESSED_BIT,
            2,
            1,
            None,
            &data[half..],
            &mut b,
        );
        vec![a, b]
    }

    /// A wrong CRC is a checksum error.
    #[test]
    fn bzip2_bad_crc() {
        let m = message(500);
        let frags = bzip2_frags(&m, m.len() as u32, crc32(&m) ^ 1);
        let mut r = Reassembler::new(LIMITS);
        assert_eq!(owned(&mut r, &frags[0]), Ok(None));
        assert_eq!(
            owned(&mut r, &frags[1]),
            Err(DecodeError::Checksum {
                expected: crc32(&m) ^ 1,
                actual: crc32(&m)
            })
        );
    }

    /// A declared size above the cap is refused at packet 0, before anything is inflated.
    #[test]
    fn bzip2_size_above_cap() {
        let m = message(500);
        let frags = bzip2_frags(&m, 512 << 20, crc32(&m));
        let mut r = Reassembler::new(LIMITS);
        assert_eq!(
            owned(&mut r, &frags[0]),
            Err(DecodeError::TooLarge {
                what: "decompressed size",
                value: 512 << 20,
                limit: LIMITS.max_bytes as u64
            })
        );
    }

    /// A stream that inflates past the size packet 0 declared stops at size + 1 bytes.
    #[test]
    fn bzip2_inflating_past_cap() {
        let zeros = vec![0u8; 1 << 20];
        let mut m = SINGLE_HEADER.to_vec();
        m.extend_from_slice(&zeros);
        let frags = bzip2_frags(&m, 1000, crc32(&m));
        let mut r = Reassembler::new(LIMITS);
        assert_eq!(owned(&mut r, &frags[0]), Ok(None));
        assert_eq!(
            owned(&mut r, &frags[1]),
            Err(DecodeError::TooLarge {
                what: "decompressed reply",
                value: 1001,
                limit: 1000
            })
        );
    }

    /// A declared size larger than what inflates is malformed.
    #[test]
    fn bzip2_short_stream() {
        let m = message(100);
        let frags = bzip2_frags(&m, 200, crc32(&m));
        let mut r = Reassembler::new(LIMITS);
        owned(&mut r, &frags[0]).unwrap();
        assert_eq!(
            owned(&mut r, &frags[1]),
            Err(DecodeError::Invalid(
                "decompressed size differs from packet 0"
            ))
        );
    }

    /// A split that never completes keeps returning None and stays pending, holding at most
    /// MAX_IN_FLIGHT replies even when every fragment has a fresh id.
    #[test]
    fn never_completing() {
        let mut r = Reassembler::new(LIMITS);
        for id in 0..100u32 {
            let mut f = Vec::new();
            let mut payload = SINGLE_HEADER.to_vec();
            payload.extend_from_slice(b"Exyz");
            encode_fragment(SOURCE, id, 15, 0, None, &payload, &mut f);
            assert_eq!(owned(&mut r, &f), Ok(None));
            assert!(r.is_pending());
        }
        let held = r.split.as_ref().map_or(0, |s| s.partials.len());
        assert_eq!(held, MAX_IN_FLIGHT);
    }

    /// A total above max_packets is refused as too large.
    #[test]
    fn too_many_packets() {
        let m = message(500);
        let frags = encode_split(
            &m,
            1,
            SplitOptions {
                fragment_size: 10,
                ..opts(SOURCE, false)
            },
        );
        let mut r = Reassembler::new(Limits {
            max_packets: 8,
            ..LIMITS
        });
        assert_eq!(
            owned(&mut r, &frags[0]),
            Err(DecodeError::TooLarge {
                what: "split packet count",
                value: frags.len() as u64,
                limit: 8
            })
        );
    }

    /// Buffered bytes of one reply are capped.
    #[test]
    fn too_many_bytes() {
        let m = message(3000);
        let frags = encode_split(
            &m,
            1,
            SplitOptions {
                fragment_size: 1000,
                ..opts(SOURCE, false)
            },
        );
        let mut r = Reassembler::new(Limits {
            max_bytes: 1500,
            ..LIMITS
        });
        assert_eq!(owned(&mut r, &frags[0]), Ok(None));
        assert!(matches!(
            owned(&mut r, &frags[1]),
            Err(DecodeError::TooLarge {
                what: "split reply bytes",
                ..
            })
        ));
    }

    /// Zero totals and numbers beyond the total are malformed.
    #[test]
    fn bad_numbers() {
        let mut r = Reassembler::new(LIMITS);
        let m = message(150);
        let frags = encode_split(&m, 1, opts(SOURCE, false));
        assert_eq!(owned(&mut r, &frags[0]), Ok(None));
        let mut f = Vec::new();
        encode_fragment(SOURCE, 1, 0, 0, None, b"x", &mut f);
        assert_eq!(
            owned(&mut r, &f),
            Err(DecodeError::Invalid("split total of zero"))
        );
        let mut f = Vec::new();
        encode_fragment(SOURCE, 1, 2, 5, None, b"x", &mut f);
        assert_eq!(
            owned(&mut r, &f),
            Err(DecodeError::Invalid("split packet number beyond total"))
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]
        /// Arbitrary datagrams, split-headed or not, never panic the reassembler.
        #[test]
        fn arbitrary_never_panics(ds in proptest::collection::vec((any::<bool>(), proptest::collection::vec(any::<u8>(), 0..64)), 1..20)) {
            let mut r = Reassembler::new(LIMITS);
            for (split, body) in ds {
                let mut d = if split { SPLIT_HEADER.to_vec() } else { Vec::new() };
                d.extend_from_slice(&body);
                let _ = owned(&mut r, &d);
            }
        }

        /// Valid fragments with mutated bytes never panic, compressed or not.
        #[test]
        fn mutated_fragments_never_panic(len in 0usize..2000, compress in any::<bool>(), pos in any::<prop::sample::Index>(), byte in any::<u8>()) {
            let m = message(len);
            let mut frags = encode_split(&m, 3, SplitOptions { fragment_size: 200, ..opts(SOURCE, compress) });
            let f = pos.index(frags.len());
            let i = pos.index(frags[f].len());
            frags[f][i] = byte;
            let mut r = Reassembler::new(LIMITS);
            for d in &frags {
                let _ = owned(&mut r, d);
            }
        }

        /// Any message splits and reassembles in every layout, in any order.
        #[test]
        fn round_trip(len in 0usize..3000, layout in 0u8..3, compress in any::<bool>(), seed in any::<u64>()) {
            let format = [SOURCE, OLD_SOURCE, Format::GoldSrc][usize::from(layout)];
            let m = message(len);
            let mut frags = encode_split(&m, 77, SplitOptions { fragment_size: 300, ..opts(format, compress) });
            // A cheap deterministic shuffle.
            let n = frags.len();
            for i in 0..n {
                let j = (seed.rotate_left(i as u32) as usize) % n;
                frags.swap(i, j);
            }
            let mut r = Reassembler::new(LIMITS);
            let done: Vec<Vec<u8>> = frags.iter().filter_map(|f| owned(&mut r, f).ok().flatten()).collect();
            prop_assert_eq!(done, vec![m]);
        }
    }
}
