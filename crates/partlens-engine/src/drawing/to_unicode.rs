//! A font's `/ToUnicode` CMap read leniently: only its `bfchar` and `bfrange` entries and the code
//! width of its code space. lopdf's own CMap parser refuses whole maps over a stray token (AutoCAD's
//! PDF writer puts `/CMapName /Adobe-Identity-UCS (def)` in them, measured on the Voron panels) and
//! then falls back to the standard encoding, which turns two-byte codes into control characters:
//! the drawing's numbers vanish. poppler reads such maps; so does this.
//!
//! Limits: at most [`MAX_MAPPINGS`] codes are mapped (a range counts each code), codes are 1 to 4
//! bytes.

use std::collections::HashMap;

/// Most codes one map may define (a CID font has at most 65,536).
pub const MAX_MAPPINGS: usize = 65_536;

/// Codes to text, and how many bytes a code takes.
#[derive(Debug, Default)]
pub struct UnicodeMap {
    code_bytes: usize,
    map: HashMap<u32, String>,
}

/// One token of a CMap: a hex string's bytes, an array bracket, or a word.
#[derive(Debug, PartialEq)]
enum Token {
    Hex(Vec<u8>),
    Open,
    Close,
    Word(String),
}

fn tokens(source: &[u8]) -> Vec<Token> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < source.len() {
        match source[i] {
            b'<' => {
                let end = source[i..].iter().position(|&b| b == b'>').map(|p| i + p);
                let Some(end) = end else { break };
                let digits: Vec<u8> = source[i + 1..end]
                    .iter()
                    .filter_map(|&b| (b as char).to_digit(16))
                    .map(|d| d as u8)
                    .collect();
                let bytes = digits
                    .chunks(2)
                    .map(|pair| pair[0] * 16 + pair.get(1).copied().unwrap_or(0))
                    .collect();
                out.push(Token::Hex(bytes));
                i = end + 1;
            }
            b'[' => {
                out.push(Token::Open);
                i += 1;
            }
            b']' => {
                out.push(Token::Close);
                i += 1;
            }
            b if b.is_ascii_whitespace() => i += 1,
            _ => {
                let start = i;
                while i < source.len()
                    && !source[i].is_ascii_whitespace()
                    && !matches!(source[i], b'<' | b'[' | b']')
                {
                    i += 1;
                }
                out.push(Token::Word(
                    String::from_utf8_lossy(&source[start..i]).into_owned(),
                ));
            }
        }
    }
    out
}

fn code_of(bytes: &[u8]) -> u32 {
    bytes
        .iter()
        .take(4)
        .fold(0, |code, &byte| (code << 8) | u32::from(byte))
}

/// UTF-16BE bytes as text (a lone surrogate is dropped).
fn utf16(bytes: &[u8]) -> String {
    let units: Vec<u16> = bytes
        .chunks(2)
        .map(|pair| u16::from_be_bytes([pair[0], pair.get(1).copied().unwrap_or(0)]))
        .collect();
    char::decode_utf16(units).filter_map(Result::ok).collect()
}

/// `text` with its last UTF-16 unit advanced by `offset` (a bfrange's destination for its n-th code).
fn advanced(bytes: &[u8], offset: u32) -> String {
    let mut units: Vec<u16> = bytes
        .chunks(2)
        .map(|pair| u16::from_be_bytes([pair[0], pair.get(1).copied().unwrap_or(0)]))
        .collect();
    if let Some(last) = units.last_mut() {
        *last = last.wrapping_add(u16::try_from(offset).unwrap_or(0));
    }
    char::decode_utf16(units).filter_map(Result::ok).collect()
}

impl UnicodeMap {
    /// Reads a CMap's text; `None` when it maps no code.
    pub fn parse(source: &[u8]) -> Option<Self> {
        let tokens = tokens(source);
        let mut map = HashMap::new();
        let mut code_bytes = 0;
        let mut section = "";
        let mut i = 0;
        while i < tokens.len() && map.len() < MAX_MAPPINGS {
            match &tokens[i] {
                Token::Word(word) if word.starts_with("begin") => {
                    section = match word.as_str() {
                        "begincodespacerange" => "space",
                        "beginbfchar" => "char",
                        "beginbfrange" => "range",
                        _ => "",
                    };
                    i += 1;
                }
                Token::Word(word) if word.starts_with("end") => {
                    section = "";
                    i += 1;
                }
                Token::Hex(low) if section == "space" => {
                    if code_bytes == 0 {
                        code_bytes = low.len();
                    }
                    i += 2;
                }
                Token::Hex(source) if section == "char" => {
                    if let Some(Token::Hex(target)) = tokens.get(i + 1) {
                        map.insert(code_of(source), utf16(target));
                    }
                    i += 2;
                }
                Token::Hex(low) if section == "range" => {
                    let (Some(Token::Hex(high)), Some(target)) =
                        (tokens.get(i + 1), tokens.get(i + 2))
                    else {
                        break;
                    };
                    let (low, high) = (code_of(low), code_of(high));
                    let count = high.saturating_sub(low).min(MAX_MAPPINGS as u32);
                    match target {
                        Token::Hex(start) => {
                            for offset in 0..=count {
                                map.insert(low + offset, advanced(start, offset));
                            }
                            i += 3;
                        }
                        Token::Open => {
                            let mut j = i + 3;
                            let mut offset = 0;
                            while let Some(Token::Hex(each)) = tokens.get(j) {
                                map.insert(low + offset, utf16(each));
                                offset += 1;
                                j += 1;
                            }
                            i = j + 1;
                        }
                        _ => i += 3,
                    }
                }
                _ => i += 1,
            }
        }
        if map.is_empty() {
            return None;
        }
        Some(Self {
            code_bytes: if (1..=4).contains(&code_bytes) {
                code_bytes
            } else {
                2
            },
            map,
        })
    }

    /// The text of a shown string: each code by the map; a code the map lacks is left out.
    pub fn decode(&self, bytes: &[u8]) -> String {
        bytes
            .chunks(self.code_bytes)
            .filter_map(|code| self.map.get(&code_of(code)))
            .map(String::as_str)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_autocad_map_with_stray_tokens_is_read() {
        // The shape of the ToUnicode map of the corpus's voron2__Bottom_Panel.pdf.
        let source = b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n\
            /CMapName  /Adobe-Identity-UCS (def)\n /CMapType (2) def\n\
            1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n\
            3 beginbfchar\n<0015> <0032>\n<0011> <002e>\n<0019> <0036>\nendbfchar\n\
            1 beginbfrange\n<0040> <0042> <0041>\nendbfrange\n\
            2 beginbfrange\n<0050> <0051> [<00D8> <00B1>]\nendbfrange\nendcmap";
        let map = UnicodeMap::parse(source).unwrap();
        assert_eq!(map.decode(&[0, 0x15, 0, 0x11, 0, 0x19]), "2.6");
        assert_eq!(map.decode(&[0, 0x40, 0, 0x42]), "AC");
        assert_eq!(map.decode(&[0, 0x50, 0, 0x51, 0, 0x99]), "Ø±");
    }

    #[test]
    fn a_map_without_entries_is_none() {
        assert!(UnicodeMap::parse(b"begincmap endcmap").is_none());
        assert!(UnicodeMap::parse(b"").is_none());
    }
}
