//! The part numbers a file states, as keys a view can carry: a drawing's title block and a
//! model's product data name a part the same way when a company numbers its parts, so a drawing
//! that names the part number of the model searched by is the same part's drawing.

/// Most part-number keys a view carries.
pub const MOST_PART_NUMBERS: usize = 4;

/// The keys of the part numbers among a file's extracted attributes (`part_number=…` and
/// `drawing_number=…`, each value of a `|`-joined list): each value upper-cased with all but its
/// letters and digits left out, kept when it has at least four characters and a digit (so a
/// `Part` or a `1` is no part number), hashed (FNV-1a, 64 bits); sorted, at most
/// [`MOST_PART_NUMBERS`]. A drawing's title block and a STEP file's product data name a part
/// the same way when a company numbers its parts: `PN 10-2234` and `10-2234` have one key.
pub fn part_number_keys(attributes: &[String]) -> Vec<u64> {
    let mut keys: Vec<u64> = attributes
        .iter()
        .filter_map(|attribute| attribute.split_once('='))
        .filter(|(name, _)| matches!(name.trim(), "part_number" | "drawing_number"))
        .flat_map(|(_, values)| values.split('|'))
        .filter_map(|value| {
            let value = value.trim();
            let value = value
                .strip_prefix("PN ")
                .or_else(|| value.strip_prefix("P/N "))
                .unwrap_or(value);
            let normalised: String = value
                .chars()
                .filter(char::is_ascii_alphanumeric)
                .map(|c| c.to_ascii_uppercase())
                .collect();
            (normalised.len() >= 4 && normalised.chars().any(|c| c.is_ascii_digit()))
                .then(|| fnv1a_64(normalised.as_bytes()))
        })
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys.truncate(MOST_PART_NUMBERS);
    keys
}

/// FNV-1a, 64 bits: the part-number keys (and the corpus's halves, `samples::corpus_halves`).
pub(crate) fn fnv1a_64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |hash, &byte| {
        (hash ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn part_numbers_are_keyed_whatever_their_spelling_and_words_are_not_part_numbers() {
        let key = |attribute: &str| part_number_keys(&[attribute.to_owned()]);
        assert_eq!(key("part_number=PN 10-2234"), key("drawing_number=10 2234"));
        assert_eq!(key("part_number=pn-10.2234").len(), 1);
        assert!(key("part_number=Part").is_empty());
        assert!(key("part_number=7").is_empty());
        assert!(key("title=10-2234").is_empty());
        assert_eq!(
            key("part_number=A-100|B-200|C-300|D-400|E-500").len(),
            MOST_PART_NUMBERS
        );
    }
}
