//! The token estimate itself: std only, so a measurement harness can
//! include this file and compare it with a real tokeniser.

/// Tokens of `text`, estimated.
pub fn tokens(text: &str) -> usize {
    let mut n = 0usize;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_alphabetic() {
            // camelCase humps start new pieces; a long piece is split.
            let mut piece = 1usize;
            let mut prev_lower = c.is_ascii_lowercase();
            while let Some(&d) = chars.peek() {
                if !d.is_ascii_alphabetic() {
                    break;
                }
                if d.is_ascii_uppercase() && prev_lower {
                    n += piece.div_ceil(10);
                    piece = 0;
                }
                prev_lower = d.is_ascii_lowercase();
                piece += 1;
                chars.next();
            }
            n += piece.div_ceil(10);
        } else if c.is_ascii_digit() {
            let mut len = 1usize;
            while chars.peek().is_some_and(char::is_ascii_digit) {
                len += 1;
                chars.next();
            }
            n += len.div_ceil(3);
        } else if c == ' ' {
            // Joins the piece after it (" the", " (" are one token).
        } else if c.is_whitespace() {
            while chars.peek().is_some_and(|d| d.is_whitespace()) {
                chars.next();
            }
            n += 1;
        } else if c.is_ascii() {
            let mut len = 1usize;
            while chars.peek().is_some_and(char::is_ascii_punctuation) {
                len += 1;
                chars.next();
            }
            n += len.div_ceil(4);
        } else if is_wide(c) {
            // Common pairs of ideographs are one token: about 0.7 each.
            let mut run = 1usize;
            while chars.peek().is_some_and(|d| is_wide(*d)) {
                run += 1;
                chars.next();
            }
            n += (run * 7).div_ceil(10);
        } else {
            // Accented letters and other scripts: about two bytes a token.
            n += c.len_utf8().div_ceil(2);
        }
    }
    n
}

/// CJK ideographs, kana, hangul and full-width forms.
fn is_wide(c: char) -> bool {
    matches!(c as u32, 0x3040..=0x30FF | 0x3400..=0x4DBF | 0x4E00..=0x9FFF | 0xAC00..=0xD7AF | 0xF900..=0xFAFF | 0xFF00..=0xFFEF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cost_what_bpe_charges_roughly() {
        assert_eq!(tokens(""), 0);
        assert_eq!(tokens("the"), 1);
        assert_eq!(tokens("read the file"), 3);
        assert_eq!(tokens("getWeather"), 2);
        assert_eq!(tokens("12345"), 2);
        assert_eq!(tokens("北京"), 2);
        assert!(tokens(r#"{"type":"object","properties":{}}"#) >= 8);
    }
}
