//! The few XML-RPC pieces GBXRemote needs: a `methodCall` with string and integer
//! parameters, and a `methodResponse` holding one value or a fault.
//!
//! Read with quick-xml's pull parser into a flat list of tokens, then descended: no tree of
//! borrowed nodes, no DTD (a `<!DOCTYPE` is refused, so no entity can be declared), no entity
//! but XML's five and character references, at most [`MAX_DEPTH`] elements deep and
//! [`MAX_TOKENS`] tokens long. The reply's size is capped by the framing.

use quick_xml::events::Event;
use quick_xml::Reader;

use crate::protocol::DecodeError;

/// Elements nested deeper than this are refused (a player list is 9 deep).
pub const MAX_DEPTH: usize = 32;
/// Tokens (start tags, end tags, texts) one document may hold; a 250-player list takes about
/// 25,000.
pub const MAX_TOKENS: usize = 262_144;

/// An XML-RPC value, as far as GBXRemote's answers need one.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Int(i64),
    Bool(bool),
    Double(f64),
    Str(String),
    Array(Vec<Value>),
    Struct(Vec<(String, Value)>),
    /// `base64`, `dateTime.iso8601`, `nil`: read past, not kept.
    Other,
}

impl Value {
    /// A struct's member `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        match self {
            Value::Struct(m) => m.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }
}

/// A call's parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Param<'a> {
    Str(&'a str),
    Int(i32),
}

/// What a `methodResponse` held. A fault's string is read only to tell a refusal of rights
/// from other faults and then dropped: servers quote what they were sent (a password) in it.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    Value(Value),
    Fault(Fault),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    pub code: i64,
    /// The fault string speaks of permission or authentication.
    pub denied: bool,
}

/// Escapes text for element content (`&`, `<`, `>`).
pub fn escape_into(text: &str, out: &mut Vec<u8>) {
    for c in text.chars() {
        match c {
            '&' => out.extend_from_slice(b"&amp;"),
            '<' => out.extend_from_slice(b"&lt;"),
            '>' => out.extend_from_slice(b"&gt;"),
            c => {
                let mut b = [0u8; 4];
                out.extend_from_slice(c.encode_utf8(&mut b).as_bytes());
            }
        }
    }
}

/// Writes a `methodCall`.
pub fn encode_call(method: &str, params: &[Param<'_>], out: &mut Vec<u8>) {
    out.extend_from_slice(b"<?xml version=\"1.0\" encoding=\"utf-8\" ?>\n<methodCall><methodName>");
    escape_into(method, out);
    out.extend_from_slice(b"</methodName><params>");
    for p in params {
        out.extend_from_slice(b"<param><value>");
        match p {
            Param::Str(s) => {
                out.extend_from_slice(b"<string>");
                escape_into(s, out);
                out.extend_from_slice(b"</string>");
            }
            Param::Int(i) => out.extend_from_slice(format!("<i4>{i}</i4>").as_bytes()),
        }
        out.extend_from_slice(b"</value></param>");
    }
    out.extend_from_slice(b"</params></methodCall>");
}

/// Writes a value (the simulator's side).
pub fn encode_value(v: &Value, out: &mut Vec<u8>) {
    out.extend_from_slice(b"<value>");
    match v {
        Value::Int(i) => out.extend_from_slice(format!("<i4>{i}</i4>").as_bytes()),
        Value::Bool(b) => {
            out.extend_from_slice(format!("<boolean>{}</boolean>", u8::from(*b)).as_bytes())
        }
        Value::Double(d) => out.extend_from_slice(format!("<double>{d}</double>").as_bytes()),
        Value::Str(s) => {
            out.extend_from_slice(b"<string>");
            escape_into(s, out);
            out.extend_from_slice(b"</string>");
        }
        Value::Array(items) => {
            out.extend_from_slice(b"<array><data>");
            for i in items {
                encode_value(i, out);
            }
            out.extend_from_slice(b"</data></array>");
        }
        Value::Struct(members) => {
            out.extend_from_slice(b"<struct>");
            for (k, v) in members {
                out.extend_from_slice(b"<member><name>");
                escape_into(k, out);
                out.extend_from_slice(b"</name>");
                encode_value(v, out);
                out.extend_from_slice(b"</member>");
            }
            out.extend_from_slice(b"</struct>");
        }
        Value::Other => out.extend_from_slice(b"<nil/>"),
    }
    out.extend_from_slice(b"</value>");
}

const PROLOG: &[u8] = b"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";

/// Writes a `methodResponse` holding `v` (the simulator's side).
pub fn encode_response(v: &Value, out: &mut Vec<u8>) {
    out.extend_from_slice(PROLOG);
    out.extend_from_slice(b"<methodResponse><params><param>");
    encode_value(v, out);
    out.extend_from_slice(b"</param></params></methodResponse>");
}

/// Writes a fault (the simulator's side).
pub fn encode_fault(code: i32, text: &str, out: &mut Vec<u8>) {
    out.extend_from_slice(PROLOG);
    out.extend_from_slice(b"<methodResponse><fault>");
    let v = Value::Struct(vec![
        ("faultCode".into(), Value::Int(code.into())),
        ("faultString".into(), Value::Str(text.into())),
    ]);
    encode_value(&v, out);
    out.extend_from_slice(b"</fault></methodResponse>");
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Open(String),
    Close,
    Text(String),
}

const BAD_XML: DecodeError = DecodeError::Invalid("XML-RPC document");

/// The document as tokens: adjacent texts, references and CDATA joined into one text;
/// comments, processing instructions and the declaration dropped.
fn tokens(xml: &[u8]) -> Result<Vec<Tok>, DecodeError> {
    let text = std::str::from_utf8(xml).map_err(|_| DecodeError::Invalid("XML-RPC not UTF-8"))?;
    let mut reader = Reader::from_str(text);
    let mut toks = Vec::new();
    let mut depth = 0usize;
    let push = |toks: &mut Vec<Tok>, t: Tok| -> Result<(), DecodeError> {
        if toks.len() >= MAX_TOKENS {
            return Err(DecodeError::TooLarge {
                what: "XML-RPC token count",
                value: toks.len() as u64 + 1,
                limit: MAX_TOKENS as u64,
            });
        }
        toks.push(t);
        Ok(())
    };
    let add_text = |toks: &mut Vec<Tok>, s: &str| -> Result<(), DecodeError> {
        if let Some(Tok::Text(t)) = toks.last_mut() {
            t.push_str(s);
            return Ok(());
        }
        push(toks, Tok::Text(s.to_string()))
    };
    loop {
        match reader.read_event().map_err(|_| BAD_XML)? {
            Event::Start(e) => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(DecodeError::TooLarge {
                        what: "XML-RPC element depth",
                        value: depth as u64,
                        limit: MAX_DEPTH as u64,
                    });
                }
                let qname = e.name();
                let name: &str = qname.as_ref();
                let name = name.to_string();
                push(&mut toks, Tok::Open(name))?;
            }
            Event::Empty(e) => {
                let qname = e.name();
                let name: &str = qname.as_ref();
                let name = name.to_string();
                push(&mut toks, Tok::Open(name))?;
                push(&mut toks, Tok::Close)?;
            }
            Event::End(_) => {
                depth = depth.saturating_sub(1);
                push(&mut toks, Tok::Close)?;
            }
            Event::Text(t) => add_text(&mut toks, &t.xml10_content())?,
            Event::CData(t) => add_text(&mut toks, &t.xml10_content())?,
            Event::GeneralRef(r) => match r.resolve_char_ref() {
                Ok(Some(c)) => add_text(&mut toks, c.encode_utf8(&mut [0u8; 4]))?,
                _ => match quick_xml::escape::resolve_predefined_entity(&r) {
                    Some(s) => add_text(&mut toks, s)?,
                    None => return Err(DecodeError::Invalid("XML-RPC entity reference")),
                },
            },
            Event::DocType(_) => return Err(DecodeError::Invalid("XML-RPC with a DOCTYPE")),
            Event::Eof => break,
            _ => {}
        }
    }
    if depth != 0 {
        return Err(DecodeError::Invalid("XML-RPC document cut off"));
    }
    Ok(toks)
}

/// A descent over the tokens.
struct Parser {
    toks: Vec<Tok>,
    at: usize,
}

impl Parser {
    fn skip_space(&mut self) {
        while let Some(Tok::Text(t)) = self.toks.get(self.at) {
            if !t.trim().is_empty() {
                return;
            }
            self.at += 1;
        }
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    /// Takes the start tag `name` (space before it skipped).
    fn open(&mut self, name: &'static str) -> Result<(), DecodeError> {
        self.skip_space();
        match self.toks.get(self.at) {
            Some(Tok::Open(n)) if n == name => {
                self.at += 1;
                Ok(())
            }
            _ => Err(DecodeError::Invalid(name)),
        }
    }

    /// Takes an end tag (space before it skipped).
    fn close(&mut self) -> Result<(), DecodeError> {
        self.skip_space();
        match self.toks.get(self.at) {
            Some(Tok::Close) => {
                self.at += 1;
                Ok(())
            }
            _ => Err(DecodeError::Invalid(
                "XML-RPC element holding more than expected",
            )),
        }
    }

    /// An element's text up to its end tag (empty if none).
    fn text(&mut self) -> Result<String, DecodeError> {
        let text = match self.toks.get_mut(self.at) {
            Some(Tok::Text(t)) => {
                let t = std::mem::take(t);
                self.at += 1;
                t
            }
            _ => String::new(),
        };
        match self.toks.get(self.at) {
            Some(Tok::Close) => {
                self.at += 1;
                Ok(text)
            }
            _ => Err(DecodeError::Invalid("XML-RPC scalar holding an element")),
        }
    }

    /// Skips an element whose start tag was taken, with everything inside it.
    fn skip_element(&mut self) -> Result<(), DecodeError> {
        let mut depth = 1usize;
        while depth > 0 {
            match self.toks.get(self.at) {
                Some(Tok::Open(_)) => depth += 1,
                Some(Tok::Close) => depth -= 1,
                Some(Tok::Text(_)) => {}
                None => return Err(BAD_XML),
            }
            self.at += 1;
        }
        Ok(())
    }

    /// A `<value>` whose start tag was taken, through its end tag.
    fn value_body(&mut self, depth: usize) -> Result<Value, DecodeError> {
        if depth > MAX_DEPTH {
            return Err(DecodeError::TooLarge {
                what: "XML-RPC value depth",
                value: depth as u64,
                limit: MAX_DEPTH as u64,
            });
        }
        // `<value>text</value>` is a string; space before a typed element is not.
        let is_plain = match self.toks.get(self.at) {
            Some(Tok::Close) => true,
            Some(Tok::Text(t)) => {
                !(t.trim().is_empty() && matches!(self.toks.get(self.at + 1), Some(Tok::Open(_))))
            }
            _ => false,
        };
        if is_plain {
            return self.text().map(Value::Str);
        }
        self.skip_space();
        let Some(Tok::Open(tag)) = self.peek() else {
            return Err(BAD_XML);
        };
        let tag = tag.clone();
        self.at += 1;
        let v = match tag.as_str() {
            "i4" | "int" | "i8" => {
                let t = self.text()?;
                Value::Int(
                    t.trim()
                        .parse()
                        .map_err(|_| DecodeError::Invalid("XML-RPC int"))?,
                )
            }
            "boolean" => match self.text()?.trim() {
                "0" => Value::Bool(false),
                "1" => Value::Bool(true),
                _ => return Err(DecodeError::Invalid("XML-RPC boolean")),
            },
            "double" => {
                let t = self.text()?;
                Value::Double(
                    t.trim()
                        .parse()
                        .map_err(|_| DecodeError::Invalid("XML-RPC double"))?,
                )
            }
            "string" => Value::Str(self.text()?),
            "array" => {
                self.open("data")?;
                let mut items = Vec::new();
                loop {
                    self.skip_space();
                    match self.peek() {
                        Some(Tok::Open(n)) if n == "value" => {
                            self.at += 1;
                            items.push(self.value_body(depth + 1)?);
                        }
                        _ => break,
                    }
                }
                self.close()?; // </data>
                self.close()?; // </array>
                Value::Array(items)
            }
            "struct" => {
                let mut members = Vec::new();
                loop {
                    self.skip_space();
                    match self.peek() {
                        Some(Tok::Open(n)) if n == "member" => self.at += 1,
                        _ => break,
                    }
                    self.open("name")?;
                    let name = self.text()?;
                    self.open("value")?;
                    let v = self.value_body(depth + 1)?;
                    self.close()?; // </member>
                    members.push((name, v));
                }
                self.close()?; // </struct>
                Value::Struct(members)
            }
            _ => {
                self.skip_element()?;
                Value::Other
            }
        };
        self.close()?; // </value>
        Ok(v)
    }

    /// Nothing but space may follow the document's root.
    fn end(&mut self) -> Result<(), DecodeError> {
        self.skip_space();
        match self.peek() {
            None => Ok(()),
            Some(_) => Err(DecodeError::Invalid("XML-RPC content after the root")),
        }
    }
}

/// Reads a `methodResponse`: one value, or a fault.
pub fn decode_response(xml: &[u8]) -> Result<Reply, DecodeError> {
    let mut p = Parser {
        toks: tokens(xml)?,
        at: 0,
    };
    p.open("methodResponse")
        .map_err(|_| DecodeError::Invalid("XML-RPC reply without methodResponse"))?;
    p.skip_space();
    let reply = match p.peek() {
        Some(Tok::Open(n)) if n == "fault" => {
            p.at += 1;
            p.open("value")?;
            let v = p.value_body(1)?;
            p.close()?; // </fault>
            let code = v.get("faultCode").and_then(Value::as_i64).unwrap_or(0);
            let text = v
                .get("faultString")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_ascii_lowercase();
            let denied = ["permission", "authenticat", "denied", "not allowed"]
                .iter()
                .any(|w| text.contains(w));
            Reply::Fault(Fault { code, denied })
        }
        _ => {
            p.open("params")?;
            p.open("param")?;
            p.open("value")?;
            let v = p.value_body(1)?;
            p.close()?; // </param>
            p.close()?; // </params>
            Reply::Value(v)
        }
    };
    p.close()?; // </methodResponse>
    p.end()?;
    Ok(reply)
}

/// Reads a `methodCall`: its method and parameters (the simulator's side).
pub fn decode_call(xml: &[u8]) -> Result<(String, Vec<Value>), DecodeError> {
    let mut p = Parser {
        toks: tokens(xml)?,
        at: 0,
    };
    p.open("methodCall")?;
    p.open("methodName")?;
    let method = p.text()?;
    let mut params = Vec::new();
    p.skip_space();
    if let Some(Tok::Open(n)) = p.peek() {
        if n == "params" {
            p.at += 1;
            loop {
                p.skip_space();
                match p.peek() {
                    Some(Tok::Open(n)) if n == "param" => p.at += 1,
                    _ => break,
                }
                p.open("value")?;
                params.push(p.value_body(1)?);
                p.close()?; // </param>
            }
            p.close()?; // </params>
        }
    }
    p.close()?; // </methodCall>
    p.end()?;
    Ok((method.trim().to_string(), params))
}

/// A name without Nadeo's formatting codes: `$` and three hex digits (a colour) or one
/// letter (bold, italic, links' `$l`, ...) are dropped, `$$` is a dollar sign.
pub fn strip_formatting(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '$' {
            out.push(c);
            continue;
        }
        match chars.peek().copied() {
            Some('$') => {
                chars.next();
                out.push('$');
            }
            Some(h) if h.is_ascii_hexdigit() => {
                // A colour: up to three hex digits.
                for _ in 0..3 {
                    match chars.peek() {
                        Some(d) if d.is_ascii_hexdigit() => {
                            chars.next();
                        }
                        _ => break,
                    }
                }
            }
            Some(l) if l.is_ascii_alphabetic() => {
                chars.next();
            }
            _ => {}
        }
    }
    out
}
