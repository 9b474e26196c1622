//! A large configuration file parsed in pieces of a few thousand targets.
//!
//! toml builds a token list and a document tree of the whole text before serde sees any of
//! it: at 100,000 targets (a 7.5 MB file) that was ~230 MB, the exporter's peak memory at
//! start and again at every reload, on top of the running targets. A piece's tree is freed
//! before the next is built, so the peak is one piece's.
//!
//! A piece starts at a line that is exactly `[[target]]`, so each is valid TOML on its own
//! and means what it meant in the whole file. Each piece is parsed on its own, from a slice
//! of the text, and the spans of its targets (which every error message is located by) are
//! then moved by the piece's offset, so they are those of the whole file; a later piece with
//! `[exporter]` in it is parsed behind a comment line as long as everything before it
//! instead. Whenever a piece does not parse, or
//! two pieces define `[exporter]`, the whole file is parsed instead, so errors read exactly
//! as before; so is a file containing a multi-line string, in which a `[[target]]` line
//! could be text. Files pulled in by `include` are parsed whole: a fleet split over several
//! files already comes in pieces.

use toml::Spanned;

use super::schema::RawFile;
use super::ConfigError;

/// Targets per piece: a piece costs one parse's set-up, and toml holds its token list
/// (reserved at one token per input byte, ~24 bytes each: ~1.7 MB for 1,000 targets) and its
/// tree while the piece is parsed. 5,000 behind whole-file padding peaked at ~98 MB of heap
/// for a 100,000-target file (benches/RESULTS.md, r3-reload).
pub(super) const PIECE_TARGETS: usize = 1_000;

/// The file's targets and `[exporter]`, as a whole-file parse would give them.
pub(super) fn decode(file: &str, text: &str, per_piece: usize) -> Result<RawFile, ConfigError> {
    let starts = piece_starts(text, per_piece);
    if starts.len() < 2 {
        return super::decode(file, text);
    }
    // Room for every target at once: growing the list by doubling kept the old and the new
    // array alive together at each step (~100 MB at 100,000 targets, ~530 bytes a raw
    // target), the exporter's peak heap at start. A `[[target]]` line is at least 11 bytes,
    // which bounds the reservation by the file's size.
    let expected = text
        .split_inclusive('\n')
        .filter(|l| l.trim_end() == "[[target]]")
        .count();
    let mut merged: Option<RawFile> = None;
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(text.len());
        let Ok(mut piece) = toml::from_str::<RawFile>(&text[start..end]) else {
            return super::decode(file, text);
        };
        if start > 0 && piece.exporter.is_some() {
            // `[exporter]` after the targets (rare): its spans are placed by parsing the piece
            // behind padding that keeps the whole file's offsets.
            let mut padded = String::with_capacity(end);
            padded.push('#');
            padded.extend(std::iter::repeat_n(' ', start.saturating_sub(2)));
            padded.push('\n');
            padded.push_str(&text[start..end]);
            let Ok(p) = toml::from_str::<RawFile>(&padded) else {
                return super::decode(file, text);
            };
            piece = p;
        } else if start > 0 {
            // Parsed on its own, without the text before it (a padded copy was the size of
            // the whole file, and toml reserves a token per input byte): its spans are moved
            // to the piece's place in the file.
            piece.target = piece
                .target
                .into_iter()
                .map(|t| {
                    let outer = t.span();
                    Spanned::new(
                        outer.start + start..outer.end + start,
                        t.into_inner().shifted(start),
                    )
                })
                .collect();
        }
        match &mut merged {
            None => {
                let mut piece = piece;
                piece
                    .target
                    .reserve_exact(expected.saturating_sub(piece.target.len()));
                merged = Some(piece)
            }
            Some(m) => {
                if piece.exporter.is_some() {
                    if m.exporter.is_some() {
                        return super::decode(file, text);
                    }
                    m.exporter = piece.exporter;
                }
                m.target.extend(piece.target);
            }
        }
    }
    merged.map_or_else(|| super::decode(file, text), Ok)
}

/// Byte offsets where pieces start: 0, then every `per_piece`th `[[target]]` line. Only 0
/// when the file has a multi-line string.
fn piece_starts(text: &str, per_piece: usize) -> Vec<usize> {
    let mut starts = vec![0];
    if per_piece == 0 || text.contains("\"\"\"") || text.contains("'''") {
        return starts;
    }
    let (mut at, mut seen) = (0usize, 0usize);
    for line in text.split_inclusive('\n') {
        if line.trim_end() == "[[target]]" {
            // At least one line precedes it, so the padding (`#`, spaces, newline) fits.
            if seen > 0 && seen % per_piece == 0 && at >= 2 {
                starts.push(at);
            }
            seen += 1;
        }
        at += line.len();
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{parse, validate, Config};

    /// Parses `text` in pieces of `n` targets the way the real parse does.
    fn in_pieces(text: &str, n: usize) -> Result<Config, ConfigError> {
        let raw = decode("exporter.toml", text, n)?;
        let ctx = crate::config::location::Ctx {
            file: "exporter.toml",
            text,
        };
        validate::validate(
            raw.exporter.unwrap_or_default(),
            &[(ctx, raw.target.as_slice())],
            &crate::config::reuse::Running::none(),
        )
    }

    fn targets(n: usize) -> String {
        (0..n)
            .map(|i| {
                format!(
                    "[[target]]\nname = \"t{i}\"\nprotocol = \"a2s\"\naddress = \"127.0.0.1:{}\"\n\n",
                    1000 + i
                )
            })
            .collect()
    }

    /// Pieces of 2 give the same config as one parse, with `[exporter]` before the targets,
    /// after them, or with labels tables inside a piece.
    #[test]
    fn same_config_as_whole() {
        let labelled = "[[target]]\nname = \"l\"\nprotocol = \"a2s\"\naddress = \"127.0.0.2\"\n[target.labels]\nregion = \"eu\"\n";
        for text in [
            format!("[exporter]\ninterval = \"30s\"\n{}", targets(7)),
            format!("{}{labelled}[exporter]\ntimeout = \"3s\"\n", targets(5)),
            format!("# a comment\n{}{labelled}{}", targets(3), targets(0)),
        ] {
            assert!(piece_starts(&text, 2).len() > 1, "{text}");
            let whole = parse("exporter.toml", &text).unwrap();
            assert_eq!(in_pieces(&text, 2).unwrap(), whole);
        }
    }

    /// Errors in a later piece name the same line and target index as a whole parse: a
    /// validation error, a duplicate name across pieces, a TOML syntax error, two
    /// `[exporter]` tables in different pieces.
    #[test]
    fn same_errors_as_whole() {
        let base = targets(6);
        for text in [
            base.replace("address = \"127.0.0.1:1004\"", "address = \"\""),
            format!(
                "{base}[[target]]\nname = \"t1\"\nprotocol = \"a2s\"\naddress = \"127.0.0.3\"\n"
            ),
            base.replace("name = \"t5\"", "name = \"t5"),
            format!("[exporter]\ninterval = \"30s\"\n{base}[exporter]\ntimeout = \"1s\"\n"),
        ] {
            let whole = parse("exporter.toml", &text).unwrap_err();
            assert_eq!(in_pieces(&text, 2).unwrap_err(), whole, "{text}");
        }
    }

    /// A multi-line string could hold a `[[target]]` line as text: such a file is one piece.
    #[test]
    fn multiline_strings_not_cut() {
        let text = format!("{}x = \"\"\"\n[[target]]\n\"\"\"\n", targets(4));
        assert_eq!(piece_starts(&text, 1), vec![0]);
        assert_eq!(piece_starts(&targets(4), 1).len(), 4);
        assert_eq!(piece_starts(&targets(4), 0), vec![0]);
    }
}
