//! Small helpers for the sentences the task layer shows users.

/// `text` without surrounding space and a final full stop, to be embedded in a longer sentence
/// ("refused: The password is wrong. Check…" instead of "wrong.. Check…").
pub fn clause(text: &str) -> &str {
    text.trim().trim_end_matches('.').trim_end()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_final_full_stop_is_dropped() {
        assert_eq!(
            clause(" The password is incorrect. "),
            "The password is incorrect"
        );
        assert_eq!(clause("no stop"), "no stop");
        assert_eq!(clause("…"), "…");
    }
}
