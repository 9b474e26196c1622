use super::DecodeError;

/// A bounds-checked cursor over a received packet. Every read either returns a value that was
/// really there or a [`DecodeError::Truncated`] naming the offset; nothing here panics.
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    pub fn new(buf: &'a [u8]) -> Self {
        Reader { buf, pos: 0 }
    }

    /// Offset of the next byte, from the start of the input.
    pub fn position(&self) -> usize {
        self.pos
    }

    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    /// The unread bytes, without consuming them.
    pub fn rest(&self) -> &'a [u8] {
        &self.buf[self.pos..]
    }

    pub fn bytes(&mut self, n: usize) -> Result<&'a [u8], DecodeError> {
        if n > self.remaining() {
            return Err(DecodeError::Truncated {
                offset: self.pos,
                needed: n,
                available: self.remaining(),
            });
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    pub fn skip(&mut self, n: usize) -> Result<(), DecodeError> {
        self.bytes(n).map(|_| ())
    }

    pub fn array<const N: usize>(&mut self) -> Result<[u8; N], DecodeError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.bytes(N)?);
        Ok(out)
    }

    pub fn u8(&mut self) -> Result<u8, DecodeError> {
        Ok(self.array::<1>()?[0])
    }

    pub fn u16_le(&mut self) -> Result<u16, DecodeError> {
        Ok(u16::from_le_bytes(self.array()?))
    }

    pub fn u16_be(&mut self) -> Result<u16, DecodeError> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    pub fn i16_le(&mut self) -> Result<i16, DecodeError> {
        Ok(i16::from_le_bytes(self.array()?))
    }

    pub fn u32_le(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_le_bytes(self.array()?))
    }

    pub fn u32_be(&mut self) -> Result<u32, DecodeError> {
        Ok(u32::from_be_bytes(self.array()?))
    }

    pub fn i32_le(&mut self) -> Result<i32, DecodeError> {
        Ok(i32::from_le_bytes(self.array()?))
    }

    pub fn i32_be(&mut self) -> Result<i32, DecodeError> {
        Ok(i32::from_be_bytes(self.array()?))
    }

    pub fn u64_le(&mut self) -> Result<u64, DecodeError> {
        Ok(u64::from_le_bytes(self.array()?))
    }

    pub fn i64_be(&mut self) -> Result<i64, DecodeError> {
        Ok(i64::from_be_bytes(self.array()?))
    }

    pub fn f32_le(&mut self) -> Result<f32, DecodeError> {
        Ok(f32::from_le_bytes(self.array()?))
    }

    /// Bytes up to a NUL, which is consumed but not returned.
    pub fn cstr(&mut self) -> Result<&'a [u8], DecodeError> {
        let rest = self.rest();
        match rest.iter().position(|&b| b == 0) {
            Some(end) => {
                self.pos += end + 1;
                Ok(&rest[..end])
            }
            None => Err(DecodeError::Unterminated { offset: self.pos }),
        }
    }

    /// A NUL-terminated string as text; invalid UTF-8 becomes U+FFFD rather than an error,
    /// because servers send whatever their operators typed.
    pub fn cstring(&mut self) -> Result<String, DecodeError> {
        let bytes = self.cstr()?;
        // Valid UTF-8 (nearly every string) is checked by `from_utf8`, which skips ASCII a
        // word at a time; the lossy path walks byte by byte and is kept for the rest. Four or
        // five strings per A2S reply: this was a visible share of a poll's decoding.
        Ok(match std::str::from_utf8(bytes) {
            Ok(s) => s.to_owned(),
            Err(_) => String::from_utf8_lossy(bytes).into_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads past the end report where and how much was missing, and consume nothing.
    #[test]
    fn truncated_reads_are_errors() {
        let mut r = Reader::new(&[1, 2, 3]);
        assert_eq!(r.u16_le(), Ok(0x0201));
        assert_eq!(
            r.u32_le(),
            Err(DecodeError::Truncated {
                offset: 2,
                needed: 4,
                available: 1
            })
        );
        assert_eq!(r.u8(), Ok(3));
        assert!(r.is_empty());
    }

    /// A string without its NUL is an error, and lossy decoding keeps invalid bytes visible.
    #[test]
    fn cstrings() {
        let mut r = Reader::new(b"ab\0\xffc\0de");
        assert_eq!(r.cstring().as_deref(), Ok("ab"));
        assert_eq!(r.cstring().as_deref(), Ok("\u{fffd}c"));
        assert_eq!(r.cstr(), Err(DecodeError::Unterminated { offset: 6 }));
    }
}
