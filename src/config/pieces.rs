//! A large configuration file parsed in pieces of a few hundred targets.
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
//! instead.
//!
//! Two paths, tried in this order:
//! - [`load_in_pieces`] / [`validate_in_pieces`]: each piece read (from the file) or cut
//!   (from the text), parsed and validated into targets before the next, so neither the
//!   whole text nor the raw form of the whole fleet is ever held: at 100,000 targets a load
//!   peaks at ~30 MB of heap for a 24.5 MB result, and a reload at ~7 MB over the running
//!   daemon (was ~98 MB for both). It steps aside (`None`) for anything unusual and for any
//!   error, so that:
//! - [`decode`] then `validate` take the file as before: every raw target first, then
//!   validation; their errors are the reference. Whenever a piece does not parse, or two
//!   pieces define `[exporter]`, the whole file is parsed at once, so errors read exactly
//!   as they always have; so is a file containing a multi-line string, in which a
//!   `[[target]]` line could be text. Files pulled in by `include` are parsed whole: a
//!   fleet split over several files already comes in pieces.

use std::collections::BTreeMap;

use toml::Spanned;

use super::include::{self, Include, Origin};
use super::location::Ctx;
use super::model::{Config, ConfigError};
use super::module::{self, Module};
use super::reuse::Running;
use super::schema::{self, RawFile, RawTarget};
use super::validate::{self, Targets};

/// Targets per piece: a piece costs one parse's set-up, and toml holds its token list
/// (reserved at one token per input byte, ~24 bytes each: ~0.4 MB for 250 targets) and its
/// tree while the piece is parsed. 5,000 behind whole-file padding peaked at ~98 MB of heap
/// for a 100,000-target file (benches/RESULTS.md, r3-reload).
pub(super) const PIECE_TARGETS: usize = 250;

/// The file's targets and `[exporter]`, as a whole-file parse would give them.
pub(super) fn decode(file: &str, text: &str, per_piece: usize) -> Result<RawFile, ConfigError> {
    let starts = piece_starts(text, per_piece);
    if starts.len() < 2 {
        return schema::decode(file, text);
    }
    // Room for every target at once: growing the list by doubling kept the old and the new
    // array alive together at each step (~100 MB at 100,000 targets, ~530 bytes a raw
    // target), the exporter's peak heap at start. A `[[target]]` line is at least 11 bytes,
    // which bounds the reservation by the file's size.
    let expected = count_targets(text);
    let mut merged: Option<RawFile> = None;
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(text.len());
        let Ok(mut piece) = toml::from_str::<RawFile>(&text[start..end]) else {
            return schema::decode(file, text);
        };
        if start > 0 && (piece.exporter.is_some() || !piece.module.is_empty()) {
            // `[exporter]` or a `[module.NAME]` after the targets (rare): their spans are
            // placed by parsing the piece behind padding that keeps the whole file's offsets.
            let mut padded = String::with_capacity(end);
            padded.push('#');
            padded.extend(std::iter::repeat_n(' ', start.saturating_sub(2)));
            padded.push('\n');
            padded.push_str(&text[start..end]);
            let Ok(p) = toml::from_str::<RawFile>(&padded) else {
                return schema::decode(file, text);
            };
            piece = p;
        } else if start > 0 {
            // Parsed on its own, without the text before it (a padded copy was the size of
            // the whole file, and toml reserves a token per input byte): its spans are moved
            // to the piece's place in the file.
            piece.target = shifted(piece.target, start);
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
                        return schema::decode(file, text);
                    }
                    m.exporter = piece.exporter;
                }
                for (name, module) in piece.module {
                    if m.module.contains_key(&name) {
                        // A table defined twice: toml's own message, from the whole file.
                        return schema::decode(file, text);
                    }
                    m.module.insert(name, module);
                }
                m.target.extend(piece.target);
            }
        }
    }
    merged.map_or_else(|| schema::decode(file, text), Ok)
}

/// An included file's targets (`[[target]]` tables only), parsed in pieces like the main
/// file's: parsed whole, one 100,000-target included file peaked at ~280 MB of heap. Anything
/// but targets in it, and any error, is left to the whole-file parse for its message.
pub(super) fn decode_included(
    file: &str,
    text: &str,
    per_piece: usize,
) -> Result<Vec<Spanned<RawTarget>>, ConfigError> {
    if piece_starts(text, per_piece).len() > 1 {
        if let Ok(RawFile {
            exporter: None,
            target,
            module,
        }) = decode(file, text, per_piece)
        {
            if module.is_empty() {
                return Ok(target);
            }
        }
    }
    schema::decode::<super::include::RawTargets>(file, text).map(|r| r.target)
}

/// `targets`, parsed from a piece of the file on its own, as they read at the piece's place
/// in the file (`by` bytes in).
fn shifted(targets: Vec<Spanned<RawTarget>>, by: usize) -> Vec<Spanned<RawTarget>> {
    targets
        .into_iter()
        .map(|t| {
            let outer = t.span();
            Spanned::new(outer.start + by..outer.end + by, t.into_inner().shifted(by))
        })
        .collect()
}

/// The file validated a piece at a time: each piece's raw targets become targets and are
/// dropped before the next piece is parsed, so the raw form of the whole fleet (~25 MB at
/// 100,000 targets) is never alive at once. `None` whenever this cannot give exactly what
/// [`decode`] and `validate` would: a file of one piece, `[exporter]` outside the first piece,
/// `include` (its files are read whole anyway), or any piece that does not parse or
/// validate. The caller then takes that path, so every error reads as it always has.
pub(super) fn validate_in_pieces(
    file: &str,
    text: &str,
    per_piece: usize,
    running: &Running,
) -> Option<Config> {
    let starts = piece_starts(text, per_piece);
    if starts.len() < 2 {
        return None;
    }
    let mut pieces = InPieces::new(file, count_targets(text), running);
    for (k, &start) in starts.iter().enumerate() {
        let end = starts.get(k + 1).copied().unwrap_or(text.len());
        pieces.piece(start, &text[start..end])?;
    }
    pieces.finish()
}

/// [`validate_in_pieces`] reading the file a piece at a time: the whole text (7 MB at
/// 100,000 targets) is not held either. The file is read twice: once to count its targets
/// (room for them is reserved once) and to rule out multi-line strings, once to validate.
/// `None` as for [`validate_in_pieces`], and when the file cannot be read or is not UTF-8:
/// the caller reads it whole and reports what is wrong.
pub(super) fn load_in_pieces(
    path: &std::path::Path,
    file: &str,
    per_piece: usize,
    running: &Running,
) -> Option<Config> {
    use std::io::{BufRead, BufReader};
    let open = || std::fs::File::open(path).ok().map(BufReader::new);
    let mut line = String::new();
    let (mut reader, mut targets) = (open()?, 0usize);
    loop {
        line.clear();
        if reader.read_line(&mut line).ok()? == 0 {
            break;
        }
        if line.contains("\"\"\"") || line.contains("'''") {
            return None;
        }
        targets += usize::from(line.trim_end() == "[[target]]");
    }
    if per_piece == 0 {
        return None;
    }
    let mut pieces = InPieces::new(file, targets, running);
    pieces.may_include = true;
    pieces.per_piece = per_piece;
    pieces.dir = path
        .parent()
        .unwrap_or(std::path::Path::new(""))
        .to_path_buf();
    let (mut reader, mut piece) = (open()?, String::new());
    let (mut start, mut at, mut seen) = (0usize, 0usize, 0usize);
    loop {
        line.clear();
        let n = reader.read_line(&mut line).ok()?;
        if n == 0 {
            break;
        }
        // Cut where `piece_starts` cuts.
        if line.trim_end() == "[[target]]" {
            if seen > 0 && seen % per_piece == 0 && at >= 2 {
                pieces.piece(start, &piece)?;
                piece.clear();
                start = at;
            }
            seen += 1;
        }
        piece.push_str(&line);
        at += n;
    }
    pieces.piece(start, &piece)?;
    drop(piece);
    pieces.include(Origin {
        dir: path.parent().unwrap_or(std::path::Path::new("")),
        main: Some(path),
    })?;
    pieces.finish()
}

/// The pieces validated so far.
struct InPieces<'r> {
    file: &'r str,
    expected: usize,
    running: &'r Running<'r>,
    /// From the first piece on, which holds `[exporter]` if the file has one.
    targets: Option<Targets<'r>>,
    validated: usize,
    /// Whether `[exporter] include` can be followed (the file's place is known).
    may_include: bool,
    per_piece: usize,
    /// What relative secret file paths are relative to (the main file's directory).
    dir: std::path::PathBuf,
    /// `[exporter] include`, from the first piece.
    patterns: Vec<Spanned<String>>,
    includes: Vec<Include>,
    /// `[module.NAME]` sections, from whichever pieces hold them.
    modules: BTreeMap<String, Module>,
}

impl<'r> InPieces<'r> {
    fn new(file: &'r str, expected: usize, running: &'r Running<'r>) -> Self {
        InPieces {
            file,
            expected,
            running,
            targets: None,
            validated: 0,
            may_include: false,
            per_piece: PIECE_TARGETS,
            dir: std::path::PathBuf::new(),
            patterns: Vec::new(),
            includes: Vec::new(),
            modules: BTreeMap::new(),
        }
    }

    /// The piece `text`, `start` bytes into the file.
    fn piece(&mut self, start: usize, text: &str) -> Option<()> {
        let piece: RawFile = toml::from_str(text).ok()?;
        // Errors only make this path step aside, so the piece alone locates them well enough.
        let ctx = Ctx {
            file: self.file,
            text,
        };
        let list = if start == 0 {
            let mut ex = piece.exporter.unwrap_or_default();
            if let Some(patterns) = ex.include.take() {
                if !self.may_include {
                    return None;
                }
                self.patterns = patterns;
            }
            let exporter = validate::exporter(ex, &ctx).ok()?;
            self.targets = Some(
                Targets::new_unchecked(exporter, self.expected, self.running).within(&self.dir),
            );
            piece.target
        } else {
            if piece.exporter.is_some() {
                return None;
            }
            shifted(piece.target, start)
        };
        let targets = self.targets.as_mut()?;
        if !piece.module.is_empty() {
            if piece.module.keys().any(|k| self.modules.contains_key(k)) {
                return None;
            }
            let modules = module::validate(&ctx, targets.exporter(), &piece.module).ok()?;
            self.modules.extend(modules);
        }
        targets.add(&[&ctx], 0, self.validated, &list).ok()?;
        self.validated += list.len();
        Some(())
    }

    /// Every included file's targets, after the main file's, as `parse_in` takes them: files
    /// in pattern order, each validated a piece at a time like the main file. An included
    /// file may hold `[[target]]` tables only: `[exporter]` in one steps aside, and the whole
    /// path's [`decode_included`] says what is wrong.
    fn include(&mut self, origin: Origin) -> Option<()> {
        if self.patterns.is_empty() {
            return Some(());
        }
        // Errors only make this path step aside.
        let ctx = Ctx {
            file: self.file,
            text: "",
        };
        let (files, includes) = include::read(&ctx, &self.patterns, Some(origin)).ok()?;
        let targets = self.targets.as_mut()?;
        targets.reserve(files.iter().map(|f| count_targets(&f.text)).sum());
        let mut total = self.validated;
        for f in &files {
            let ctx = Ctx {
                file: &f.name,
                text: &f.text,
            };
            let starts = piece_starts(&f.text, self.per_piece);
            let mut validated = 0;
            for (k, &start) in starts.iter().enumerate() {
                let end = starts.get(k + 1).copied().unwrap_or(f.text.len());
                let piece: RawFile = toml::from_str(&f.text[start..end]).ok()?;
                if piece.exporter.is_some() || !piece.module.is_empty() {
                    return None;
                }
                let list = shifted(piece.target, start);
                total += list.len();
                include::check_total(&ctx, self.patterns[0].span(), total).ok()?;
                targets.add(&[&ctx], 0, validated, &list).ok()?;
                validated += list.len();
            }
        }
        self.includes = includes;
        Some(())
    }

    /// The config, if every name is unique (a duplicate's message comes from the whole-file
    /// path, which knows where each name was first used).
    fn finish(self) -> Option<Config> {
        let targets = self.targets?;
        let (includes, modules) = (self.includes, self.modules);
        targets.unique().then(|| Config {
            includes,
            modules,
            ..targets.finish()
        })
    }
}

/// `[[target]]` lines in `text`: at least one per 11 bytes, so room reserved for this many
/// is bounded by the file's size.
fn count_targets(text: &str) -> usize {
    text.split_inclusive('\n')
        .filter(|l| l.trim_end() == "[[target]]")
        .count()
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
    use std::sync::Arc;

    use crate::config::{module, parse, validate, Config};

    /// Parses `text` in pieces of `n` targets the way the real parse does.
    fn in_pieces(text: &str, n: usize) -> Result<Config, ConfigError> {
        let raw = decode("exporter.toml", text, n)?;
        let ctx = crate::config::location::Ctx {
            file: "exporter.toml",
            text,
        };
        let mut config = validate::validate(
            raw.exporter.unwrap_or_default(),
            &[(ctx, raw.target.as_slice())],
            &crate::config::reuse::Running::none(),
            std::path::Path::new(""),
        )?;
        let ctx = crate::config::location::Ctx {
            file: "exporter.toml",
            text,
        };
        config.modules = module::validate(&ctx, &config.exporter, &raw.module)?;
        Ok(config)
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

    /// A target with every optional key set: what each path reads of it must agree.
    const EVERY_KEY: &str = "[[target]]\nname = \"mc\"\nprotocol = \"minecraft\"\naddress = \"127.0.0.3\"\ninterval = \"20s\"\ntimeout = \"2s\"\nencoding = \"windows-1251\"\nmax_reply_bytes = 4096\nmax_split_packets = 4\nplayers = true\nrules = [\"x\"]\nproxy_protocol = \"v2\"\n[target.labels]\nregion = \"eu\"\n";

    /// Pieces of 2 give the same config as one parse, with `[exporter]` before the targets,
    /// after them, or with labels tables inside a piece.
    #[test]
    fn same_config_as_whole() {
        let labelled = "[[target]]\nname = \"l\"\nprotocol = \"a2s\"\naddress = \"127.0.0.2\"\n[target.labels]\nregion = \"eu\"\n";
        for text in [
            format!("[exporter]\ninterval = \"30s\"\n{}{EVERY_KEY}", targets(7)),
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
            base.replace(
                "address = \"127.0.0.1:1004\"",
                "address = \"127.0.0.1:1004\"\nproxy_protocol = \"v2\"",
            ),
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

    /// Validated a piece at a time, the config is the whole parse's; where that path cannot
    /// give the same (`[exporter]` in a later piece, `include`) or an error is found, it
    /// steps aside for the whole-file path, whose messages are the reference.
    #[test]
    fn validated_in_pieces_same_as_whole() {
        let labelled = "[[target]]\nname = \"l\"\nprotocol = \"a2s\"\naddress = \"127.0.0.2\"\n[target.labels]\nregion = \"eu\"\n";
        for text in [
            format!("[exporter]\ninterval = \"30s\"\n{}{EVERY_KEY}", targets(7)),
            format!("# a comment\n{}{labelled}", targets(5)),
        ] {
            let whole = parse("exporter.toml", &text).unwrap();
            assert_eq!(both(&text, 2), Some(whole));
        }
        let base = targets(6);
        for text in [
            format!("{}{labelled}[exporter]\ntimeout = \"3s\"\n", targets(5)),
            base.replace("address = \"127.0.0.1:1004\"", "address = \"\""),
            format!(
                "{base}[[target]]\nname = \"t1\"\nprotocol = \"a2s\"\naddress = \"127.0.0.3\"\n"
            ),
            base.replace("name = \"t5\"", "name = \"t5"),
            format!("[exporter]\ninterval = \"30s\"\n{base}[exporter]\ntimeout = \"1s\"\n"),
            format!("[exporter]\ninterval = \"1s\"\ntimeout = \"2s\"\n{base}"),
        ] {
            assert_eq!(both(&text, 2), None, "{text}");
        }
        // Too small to cut: one piece.
        assert_eq!(
            validate_in_pieces("exporter.toml", &targets(3), 5, &Running::none()),
            None
        );
        assert_eq!(
            both(&format!("{}x = \"\"\"\n\"\"\"\n", targets(6)), 2),
            None
        );
    }

    /// From a file, `include` is followed: the same config as the whole-file path, included
    /// files after the main one; a duplicate across files or a bad included file steps aside.
    #[test]
    fn loaded_in_pieces_follows_include() {
        let dir = std::env::temp_dir().join(format!("gse-pieces-inc-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("targets.d")).unwrap();
        let main = dir.join("main.toml");
        let text = format!(
            "[exporter]\ninterval = \"30s\"\ninclude = [\"targets.d/*.toml\", \"none/*.toml\"]\n{}",
            targets(3)
        );
        std::fs::write(&main, &text).unwrap();
        let more = |from: usize, n: usize| targets(from + n).split_off(targets(from).len());
        std::fs::write(dir.join("targets.d/a.toml"), more(3, 5)).unwrap();
        std::fs::write(dir.join("targets.d/b.toml"), more(8, 4)).unwrap();
        let none = Running::none();
        let origin = || crate::config::include::Origin {
            dir: &dir,
            main: Some(&main),
        };
        let whole = crate::config::parse_in("main.toml", &text, Some(origin()), &none).unwrap();
        assert_eq!(whole.targets.len(), 12);
        assert_eq!(whole.includes.len(), 2);
        assert_eq!(load_in_pieces(&main, "main.toml", 2, &none), Some(whole));
        // t0 again, in an included file: the whole-file path names both places.
        std::fs::write(dir.join("targets.d/c.toml"), more(0, 1)).unwrap();
        assert_eq!(load_in_pieces(&main, "main.toml", 2, &none), None);
        std::fs::write(dir.join("targets.d/c.toml"), "[exporter]\n").unwrap();
        assert_eq!(load_in_pieces(&main, "main.toml", 2, &none), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// [`validate_in_pieces`] of `text`, checked to be what [`load_in_pieces`] gives for a
    /// file holding it.
    fn both(text: &str, n: usize) -> Option<Config> {
        let none = Running::none();
        let path = std::env::temp_dir().join(format!(
            "gse-pieces-{}-{:?}.toml",
            std::process::id(),
            std::thread::current().id()
        ));
        std::fs::write(&path, text).unwrap();
        let from_file = load_in_pieces(&path, "exporter.toml", n, &none);
        std::fs::remove_file(&path).unwrap();
        let from_text = validate_in_pieces("exporter.toml", text, n, &none);
        assert_eq!(from_file, from_text, "{text}");
        from_text
    }

    /// With running targets given, every equal one is the running copy (a reload holds new
    /// copies of changed targets only); a changed one is new.
    #[test]
    fn validated_in_pieces_shares_running_targets() {
        let text = targets(7);
        let running = parse("exporter.toml", &text).unwrap().targets;
        let changed = text.replace("127.0.0.1:1003", "127.0.0.1:2003");
        let config =
            validate_in_pieces("exporter.toml", &changed, 2, &Running::new(&running)).unwrap();
        for (new, old) in config.targets.iter().zip(&running) {
            assert_eq!(Arc::ptr_eq(new, old), new.name != "t3", "{}", new.name);
        }
        assert_eq!(config.targets[3].address.to_string(), "127.0.0.1:2003");
    }

    /// An included file in pieces: the same targets (spans included) as parsed whole, and
    /// the whole parse's error for anything but targets.
    #[test]
    fn included_in_pieces() {
        let whole = |t: &str| {
            crate::config::schema::decode::<crate::config::include::RawTargets>("inc.toml", t)
        };
        let text = targets(7);
        let pieces = decode_included("inc.toml", &text, 2).unwrap();
        let reference = whole(&text).unwrap().target;
        assert_eq!(pieces.len(), 7);
        for (a, b) in pieces.iter().zip(&reference) {
            assert_eq!(a.span(), b.span());
            assert_eq!(a.get_ref().name, b.get_ref().name);
            assert_eq!(a.get_ref().address, b.get_ref().address);
        }
        for bad in [
            format!("{text}[exporter]\ninterval = \"30s\"\n"),
            format!("[exporter]\ninterval = \"30s\"\n{text}"),
            text.replace("name = \"t5\"", "name = \"t5"),
            format!("{text}x = 1\n"),
        ] {
            assert_eq!(
                decode_included("inc.toml", &bad, 2).err(),
                whole(&bad).err(),
                "{bad}"
            );
        }
    }

    /// `[module.NAME]` sections before, between and after the targets: both piece paths give
    /// the whole parse's config; a bad module or one defined twice in different pieces gets
    /// the whole parse's error (the validating path steps aside for it).
    #[test]
    fn modules_in_pieces() {
        let m = |n: &str| format!("[module.{n}]\nprotocol = \"samp\"\ntimeout = \"2s\"\n");
        for text in [
            format!("[exporter]\ntimeout = \"3s\"\n{}{}", m("first"), targets(6)),
            format!("{}{}", targets(6), m("last")),
            format!(
                "{}{}{}{}",
                m("a"),
                targets(3),
                m("b"),
                targets(6).split_off(targets(3).len())
            ),
        ] {
            let whole = parse("exporter.toml", &text).unwrap();
            assert_eq!(
                whole.modules.len(),
                text.matches("[module.").count(),
                "{text}"
            );
            assert_eq!(in_pieces(&text, 2).unwrap(), whole, "{text}");
            assert_eq!(both(&text, 2), Some(whole), "{text}");
        }
        for (text, want) in [
            (
                format!(
                    "{}[module.x]\ntimeout = \"0s\"\nprotocol = \"a2s\"\n",
                    targets(6)
                ),
                "exporter.toml:32: module.x.timeout: must be greater than zero",
            ),
            (
                format!("{}{}{}", m("a"), targets(6), m("a")),
                "exporter.toml:34: module.a: duplicate key",
            ),
        ] {
            let whole = parse("exporter.toml", &text).unwrap_err();
            assert_eq!(whole.0, want);
            assert_eq!(in_pieces(&text, 2).unwrap_err(), whole, "{text}");
            assert_eq!(both(&text, 2), None, "{text}");
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
