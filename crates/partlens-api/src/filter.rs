//! `filterStr`: the nested query string of both search endpoints, built and parsed in one place.
//!
//! Inner form: `fileUID=<uid>[,<uid>…]&FT=<expression>&FT=<expression>…`. An expression is free text
//! (`pump housing`), a regular term (`name=value`), an exact term (`name=[value]`), a prefix term
//! (`name=AX-*`) or a numeric range term (`name=40..60 mm`, see [`crate::range`]); one FT part may
//! join several conditions with `&`.
//!
//! Encoding: an FT value holding `=` or `&` is percent-encoded on its own first (so its `&` does not
//! split the outer list), then the whole inner string is percent-encoded as the parameter value. The
//! spec's third example shows single metadata terms sent without the first round; the spec allows both
//! ("may additionally be percent-encoded"), and the parser here reads both.

use super::encoding::{decode_component_strict, encode_component};
use super::range::{LengthUnit, parse_range, range_value};
use super::uid::FileUid;

/// One condition inside an FT expression.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum FilterTerm {
    /// Free text searched in names, attributes and extracted text (`FT=pump housing`).
    Text(String),
    /// Regular metadata search (`FT=document_number=AX-1000`).
    Regular {
        /// Attribute name (a unit may ride in it: `weight(kg)`).
        name: String,
        /// The value searched for.
        value: String,
    },
    /// Exact match of one whole value (`FT=document_number=[AX-1000]`).
    Exact {
        /// Attribute name.
        name: String,
        /// The whole value that must match.
        value: String,
    },
    /// Prefix (wildcard) match on the start of a value (`FT=document_number=AX-*`).
    Prefix {
        /// Attribute name.
        name: String,
        /// The start of the value.
        prefix: String,
    },
    /// A numeric range, both ends included (`FT=length=40..60 mm`, `FT=weight(kg)=..2,5`): for the
    /// size names (`length`, `width`, `thickness`, see [`crate::range::SizeExtent`]) an extent of
    /// the model's size, otherwise some numeric value of the attribute.
    Range {
        /// Attribute or size name.
        name: String,
        /// The lowest value kept (a finite number), `None` for no lower end.
        low: Option<f64>,
        /// The highest value kept (a finite number), `None` for no upper end.
        high: Option<f64>,
        /// The length unit the ends are written in, if any.
        unit: Option<LengthUnit>,
    },
}

// The bounds of a range are finite numbers (parsing never yields a NaN), so equality is reflexive.
impl Eq for FilterTerm {}

impl FilterTerm {
    /// The expression text of this condition (`name=[value]`, …).
    pub fn expression(&self) -> String {
        match self {
            Self::Text(words) => words.clone(),
            Self::Regular { name, value } => format!("{name}={value}"),
            Self::Exact { name, value } => format!("{name}=[{value}]"),
            Self::Prefix { name, prefix } => format!("{name}={prefix}*"),
            Self::Range {
                name,
                low,
                high,
                unit,
            } => format!("{name}={}", range_value(*low, *high, *unit)),
        }
    }

    /// The condition as a person reads it: a range in words (`length 40–60 mm`, `weight(kg) ≤ 2.5`),
    /// anything else as its [expression](Self::expression).
    pub fn label(&self) -> String {
        match self {
            Self::Range {
                name,
                low,
                high,
                unit,
            } => crate::range::range_label(name, *low, *high, *unit),
            _ => self.expression(),
        }
    }

    /// Reads one condition: `name=[v]` exact, `name=v*` prefix, `name=a..b` range (numbers, an
    /// optional length unit), `name=v` regular, otherwise free text.
    pub fn parse(expression: &str) -> Self {
        match expression.split_once('=') {
            Some((name, value)) if !name.trim().is_empty() => {
                let name = name.trim().to_owned();
                let value = value.trim();
                if value.len() >= 2 && value.starts_with('[') && value.ends_with(']') {
                    Self::Exact {
                        name,
                        value: value[1..value.len() - 1].to_owned(),
                    }
                } else if let Some(prefix) = value.strip_suffix('*') {
                    Self::Prefix {
                        name,
                        prefix: prefix.to_owned(),
                    }
                } else if let Some((low, high, unit)) = parse_range(value) {
                    Self::Range {
                        name,
                        low,
                        high,
                        unit,
                    }
                } else {
                    Self::Regular {
                        name,
                        value: value.to_owned(),
                    }
                }
            }
            _ => Self::Text(expression.trim().to_owned()),
        }
    }
}

/// A search filter: input UIDs plus FT parts; each FT part holds one or more conditions (all must hold).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SearchFilter {
    /// Search-input UIDs (`fileUID=a,b`), one per uploaded view.
    pub file_uids: Vec<FileUid>,
    /// FT parts, in order; each is a list of conditions joined with `&` inside one FT value.
    pub ft_parts: Vec<Vec<FilterTerm>>,
}

impl SearchFilter {
    /// An empty filter.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds search-input UIDs.
    pub fn with_uids(mut self, uids: impl IntoIterator<Item = FileUid>) -> Self {
        self.file_uids.extend(uids);
        self
    }

    /// Adds an FT part of free text (ignored when blank).
    pub fn text(mut self, words: &str) -> Self {
        if !words.trim().is_empty() {
            self.ft_parts
                .push(vec![FilterTerm::Text(words.trim().to_owned())]);
        }
        self
    }

    /// Adds an FT part with one condition.
    pub fn term(mut self, term: FilterTerm) -> Self {
        self.ft_parts.push(vec![term]);
        self
    }

    /// Adds one FT part whose conditions are joined with `&` (all must hold).
    pub fn all_of(mut self, terms: Vec<FilterTerm>) -> Self {
        if !terms.is_empty() {
            self.ft_parts.push(terms);
        }
        self
    }

    /// True when the filter has neither UIDs nor FT parts.
    pub fn is_empty(&self) -> bool {
        self.file_uids.is_empty() && self.ft_parts.is_empty()
    }

    /// Every condition of every FT part, in order.
    pub fn terms(&self) -> impl Iterator<Item = &FilterTerm> {
        self.ft_parts.iter().flatten()
    }

    /// The inner query string, before the whole is encoded as the `filterStr` value.
    pub fn inner(&self) -> String {
        let mut parts = Vec::new();
        if !self.file_uids.is_empty() {
            let uids: Vec<&str> = self.file_uids.iter().map(FileUid::as_str).collect();
            parts.push(format!("fileUID={}", uids.join(",")));
        }
        for ft in &self.ft_parts {
            let expression = ft
                .iter()
                .map(FilterTerm::expression)
                .collect::<Vec<_>>()
                .join("&");
            let value = if expression.contains(['=', '&', '%']) {
                encode_component(&expression)
            } else {
                expression
            };
            parts.push(format!("FT={value}"));
        }
        parts.join("&")
    }

    /// The `filterStr` parameter as it appears in the URL: the inner string percent-encoded once more.
    pub fn to_query_value(&self) -> String {
        encode_component(&self.inner())
    }

    /// Parses an inner filter string (the `filterStr` value after the URL's own decoding). FT values
    /// are decoded once more whether or not the sender pre-encoded them.
    pub fn parse_inner(inner: &str) -> Self {
        let mut filter = Self::default();
        for part in inner.split('&').filter(|part| !part.is_empty()) {
            let (key, value) = part.split_once('=').unwrap_or((part, ""));
            if key.eq_ignore_ascii_case("fileUID") {
                filter.file_uids.extend(
                    value
                        .split(',')
                        .map(|uid| decode_component_strict(uid.trim()))
                        .filter(|uid| !uid.is_empty())
                        .map(|uid| FileUid::from_reply(&uid)),
                );
            } else if key.eq_ignore_ascii_case("FT") {
                let expression = decode_component_strict(value);
                let conditions: Vec<&str> = split_conditions(&expression)
                    .into_iter()
                    .map(str::trim)
                    .filter(|condition| !condition.is_empty())
                    .collect();
                // `a=1&b=2` joins metadata conditions; free text such as `R&D flange` stays whole.
                let terms: Vec<FilterTerm> =
                    if conditions.len() > 1 && conditions.iter().all(|c| c.contains('=')) {
                        conditions.into_iter().map(FilterTerm::parse).collect()
                    } else if expression.trim().is_empty() {
                        Vec::new()
                    } else {
                        vec![FilterTerm::parse(&expression)]
                    };
                if !terms.is_empty() {
                    filter.ft_parts.push(terms);
                }
            }
            // Other inner keys (PS=, fileType=, …) are not part of this interface and are ignored.
        }
        filter
    }
}

/// Splits an FT expression into its `&`-joined conditions, except at an `&` inside the brackets of an
/// exact value (`part=[R&D=1]` is one condition: an exact value may hold both `&` and `=`).
fn split_conditions(expression: &str) -> Vec<&str> {
    let mut conditions = Vec::new();
    let mut start = 0;
    let mut in_brackets = false;
    for (index, character) in expression.char_indices() {
        match character {
            // `[` opens an exact value only right after the name's `=`.
            '[' if expression[..index].ends_with('=') => in_brackets = true,
            ']' if in_brackets => {
                let rest = &expression[index + 1..];
                in_brackets = !(rest.is_empty() || rest.starts_with('&'));
            }
            '&' if !in_brackets => {
                conditions.push(&expression[start..index]);
                start = index + 1;
            }
            _ => {}
        }
    }
    conditions.push(&expression[start..]);
    conditions
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::encoding::{QueryString, decode_component};

    fn regular(name: &str, value: &str) -> FilterTerm {
        FilterTerm::Regular {
            name: name.into(),
            value: value.into(),
        }
    }

    fn exact(name: &str, value: &str) -> FilterTerm {
        FilterTerm::Exact {
            name: name.into(),
            value: value.into(),
        }
    }

    #[test]
    fn spec_example_plain_text() {
        let filter = SearchFilter::new().text("pump housing");
        assert_eq!(filter.inner(), "FT=pump housing");
        assert_eq!(filter.to_query_value(), "FT%3Dpump%20housing");
    }

    #[test]
    fn spec_example_text_with_equals_and_ampersand_is_pre_encoded() {
        let filter = SearchFilter::new().all_of(vec![
            regular("document_type", "Assembly"),
            regular("material", "Stainless Steel"),
        ]);
        assert_eq!(
            filter.inner(),
            "FT=document_type%3DAssembly%26material%3DStainless%20Steel"
        );
        assert_eq!(
            filter.to_query_value(),
            "FT%3Ddocument_type%253DAssembly%2526material%253DStainless%2520Steel"
        );
    }

    #[test]
    fn spec_example_repeated_exact_terms_parse_the_same_either_way() {
        // The spec writes this example without the inner round of encoding; both forms are accepted.
        let spec_value = "FT%3Ddocument_type%3D%5BAssembly%5D%26FT%3Dmaterial%3D%5BStainless%20Steel%5D%26FT%3Dregion%3D%5BNorth%20America%5D";
        let spec_inner = decode_component(spec_value);
        assert_eq!(
            spec_inner,
            "FT=document_type=[Assembly]&FT=material=[Stainless Steel]&FT=region=[North America]"
        );
        let ours = SearchFilter::new()
            .term(exact("document_type", "Assembly"))
            .term(exact("material", "Stainless Steel"))
            .term(exact("region", "North America"));
        assert_eq!(SearchFilter::parse_inner(&spec_inner), ours);
        assert_eq!(
            SearchFilter::parse_inner(&decode_component(&ours.to_query_value())),
            ours
        );
    }

    #[test]
    fn spec_term_forms_are_told_apart() {
        assert_eq!(
            FilterTerm::parse("document_number=AX-1000"),
            regular("document_number", "AX-1000")
        );
        assert_eq!(
            FilterTerm::parse("document_number=[AX-1000]"),
            exact("document_number", "AX-1000")
        );
        assert_eq!(
            FilterTerm::parse("document_number=AX-*"),
            FilterTerm::Prefix {
                name: "document_number".into(),
                prefix: "AX-".into()
            }
        );
        assert_eq!(
            FilterTerm::parse("pump housing"),
            FilterTerm::Text("pump housing".into())
        );
    }

    #[test]
    fn uid_list_comes_first_and_is_comma_joined() {
        let a = FileUid::parse("3f2504e0-4f89-41d3-9a0c-0305e82c3301").unwrap();
        let b = FileUid::parse("9a1b2c3d-4f89-41d3-9a0c-0305e82c3302").unwrap();
        let filter = SearchFilter::new()
            .with_uids([a.clone(), b.clone()])
            .text("bracket");
        assert_eq!(
            filter.inner(),
            "fileUID=3f2504e0-4f89-41d3-9a0c-0305e82c3301,9a1b2c3d-4f89-41d3-9a0c-0305e82c3302&FT=bracket"
        );
        let parsed = SearchFilter::parse_inner(&filter.inner());
        assert_eq!(parsed.file_uids, vec![a, b]);
    }

    #[test]
    fn the_filter_survives_the_query_string_round_trip() {
        let filter = SearchFilter::new()
            .with_uids([FileUid::parse("3f2504e0-4f89-41d3-9a0c-0305e82c3301").unwrap()])
            .text("R&D 50% flange")
            .term(FilterTerm::Prefix {
                name: "document_number".into(),
                prefix: "AX-".into(),
            })
            .term(regular("weight(kg)", "12.3"));
        let wire = format!("filterStr={}", filter.to_query_value());
        let received = QueryString::parse(&wire);
        let inner = received.get("filterStr").unwrap();
        assert_eq!(SearchFilter::parse_inner(inner), filter);
    }

    #[test]
    fn an_exact_value_holding_ampersand_and_equals_stays_one_condition() {
        let filter = SearchFilter::new()
            .term(exact("process", "R&D=1"))
            .term(exact("note", "a=[b]&c"))
            .term(regular("material", "steel"));
        let wire = format!("filterStr={}", filter.to_query_value());
        let received = QueryString::parse(&wire);
        assert_eq!(
            SearchFilter::parse_inner(received.get("filterStr").unwrap()),
            filter
        );
        // Several conditions in one FT part still split, exact ones included.
        let joined = SearchFilter::parse_inner("FT=process%3D%5BR%26D%3D1%5D%26material%3Dsteel");
        assert_eq!(
            joined.ft_parts,
            vec![vec![
                exact("process", "R&D=1"),
                regular("material", "steel")
            ]]
        );
    }

    #[test]
    fn range_terms_parse_and_survive_the_round_trip() {
        let range = |name: &str, low, high, unit| FilterTerm::Range {
            name: name.into(),
            low,
            high,
            unit,
        };
        assert_eq!(
            FilterTerm::parse("length=40..60 mm"),
            range(
                "length",
                Some(40.0),
                Some(60.0),
                Some(LengthUnit::Millimetre)
            )
        );
        assert_eq!(
            FilterTerm::parse("weight(kg)=..2,5"),
            range("weight(kg)", None, Some(2.5), None)
        );
        assert_eq!(
            FilterTerm::parse("thickness=0,25..\""),
            range("thickness", Some(0.25), None, Some(LengthUnit::Inch))
        );
        // Not of the numeric range shape: the terms they were before.
        assert_eq!(FilterTerm::parse("name=1..2x"), regular("name", "1..2x"));
        assert_eq!(
            FilterTerm::parse("version=1.2..3.4.5"),
            regular("version", "1.2..3.4.5")
        );
        assert_eq!(FilterTerm::parse("path=..*").expression(), "path=..*");
        let filter = SearchFilter::new()
            .term(range(
                "length",
                Some(40.0),
                Some(60.5),
                Some(LengthUnit::Millimetre),
            ))
            .all_of(vec![
                range("width", Some(1.0), None, Some(LengthUnit::Inch)),
                range("weight(kg)", None, Some(2.5), None),
                regular("material", "steel"),
            ]);
        assert_eq!(filter.ft_parts[0][0].expression(), "length=40..60.5mm");
        let wire = format!("filterStr={}", filter.to_query_value());
        let received = QueryString::parse(&wire);
        assert_eq!(
            SearchFilter::parse_inner(received.get("filterStr").unwrap()),
            filter
        );
        // Sent by hand without the inner round of encoding, with a space and a comma.
        assert_eq!(
            SearchFilter::parse_inner("FT=length=40..60 mm").ft_parts,
            vec![vec![range(
                "length",
                Some(40.0),
                Some(60.0),
                Some(LengthUnit::Millimetre)
            )]]
        );
    }

    #[test]
    fn blank_text_adds_nothing() {
        assert!(SearchFilter::new().text("   ").is_empty());
        assert_eq!(SearchFilter::new().inner(), "");
    }
}
