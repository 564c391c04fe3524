//! A statement's arguments on PostgreSQL, numbered as they are pushed, so that a filter's SQL is
//! built piece by piece (`matching.rs`, `selection.rs`, `first_matches.rs`) with every value an
//! argument.

use r2d2_postgres::postgres::types::ToSql;

/// A statement's arguments, numbered in the order pushed. Every value of a statement is an
/// argument, so `$` followed by digits in its text is always a placeholder.
#[derive(Default)]
pub(crate) struct Arguments(Vec<Box<dyn ToSql + Sync>>);

impl Arguments {
    /// Adds an argument and returns its placeholder (`$n`).
    pub(crate) fn push(&mut self, value: impl ToSql + Sync + 'static) -> String {
        self.0.push(Box::new(value));
        format!("${}", self.0.len())
    }

    /// The arguments as the client takes them.
    pub(crate) fn as_params(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.0.iter().map(|value| value.as_ref()).collect()
    }

    /// Takes `other`'s arguments after these and returns `sql` (written with `other`'s
    /// placeholders) renumbered to where they now are.
    pub(crate) fn append(&mut self, other: Arguments, sql: &str) -> String {
        let shift = self.0.len();
        self.0.extend(other.0);
        let mut renumbered = String::with_capacity(sql.len() + 8);
        let mut rest = sql;
        while let Some(at) = rest.find('$') {
            renumbered.push_str(&rest[..=at]);
            rest = &rest[at + 1..];
            let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
            match rest[..digits].parse::<usize>() {
                Ok(number) => renumbered.push_str(&(number + shift).to_string()),
                Err(_) => renumbered.push_str(&rest[..digits]),
            }
            rest = &rest[digits..];
        }
        renumbered.push_str(rest);
        renumbered
    }
}
