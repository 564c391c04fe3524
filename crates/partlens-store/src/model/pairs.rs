//! Candidate duplicates: for each company database file, the files its ranking by its own views
//! found (its best few) that may be the same part, with the same-part score the service gave the
//! pair. The service decides what a pair is and writes a file's pairs when it is indexed
//! (`partlens-service`'s `pairing.rs`); the store keeps them, forgets a file's pairs (both sides)
//! when it is indexed again, and loses them with either file.

/// One pair as stored: the file whose ranking found it, the file found, and the score.
#[derive(Clone, Debug, PartialEq)]
pub struct FilePair {
    /// The file whose ranking found the pair.
    pub file_uid: String,
    /// The file it found.
    pub other_uid: String,
    /// The same-part score (0..1), to the millionth (see [`stored_score`]).
    pub score: f32,
}

/// A score as stored: millionths, as an integer (both engines' one numeric type).
pub fn stored_score(score: f32) -> i64 {
    (f64::from(score.clamp(0.0, 1.0)) * 1e6).round() as i64
}

/// A stored score read back ([`stored_score`]'s inverse, to the millionth).
pub fn score_of(stored: i64) -> f32 {
    (stored as f64 / 1e6) as f32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_score_is_kept_to_the_millionth_within_0_to_1() {
        assert_eq!(stored_score(0.885), 885_000);
        assert!((score_of(stored_score(0.912_345_6)) - 0.912_346).abs() < 1e-6);
        assert_eq!(stored_score(1.5), 1_000_000);
        assert_eq!(stored_score(f32::NAN), 0);
    }
}
