//! File attributes: `name=value`, several values joined with `|`, a unit in the name (`weight(kg)=12.3`).
//!
//! Every surface of the interface carries attributes as these strings; this type is the one place that
//! splits and joins them, so that call sites never do string surgery.

use super::error::ApiError;

/// The reserved delimiter between the values of a multi-valued attribute.
pub const VALUE_DELIMITER: char = '|';

/// One attribute of a file: a name, an optional unit and one or more values.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Attribute {
    /// The attribute name without its unit (`weight`).
    pub name: String,
    /// The unit written in parentheses after the name (`kg`), if any.
    pub unit: Option<String>,
    /// The values; several for a multi-valued attribute. A value never contains `|`.
    pub values: Vec<String>,
}

impl Attribute {
    /// Builds an attribute from its parts, refusing what the wire form cannot carry: an empty name, a
    /// name with `=`, `|` or parentheses, or a value containing the `|` delimiter.
    pub fn new(
        name: impl Into<String>,
        unit: Option<String>,
        values: impl IntoIterator<Item = impl Into<String>>,
    ) -> Result<Self, ApiError> {
        let attribute = Self {
            name: name.into().trim().to_owned(),
            unit: unit
                .map(|unit| unit.trim().to_owned())
                .filter(|unit| !unit.is_empty()),
            values: values.into_iter().map(Into::into).collect(),
        };
        attribute.validate()?;
        Ok(attribute)
    }

    /// Parses the wire form `name=value`, `name=v1|v2` or `name(unit)=value`. The value is everything
    /// after the first `=`; a string without `=` is refused.
    pub fn parse(text: &str) -> Result<Self, ApiError> {
        let Some((name_part, value_part)) = text.split_once('=') else {
            return Err(ApiError::InvalidInput(format!(
                "attribute \"{text}\" has no \"=\": write it as name=value"
            )));
        };
        let name_part = name_part.trim();
        let (name, unit) = split_unit(name_part);
        if name.is_empty() {
            return Err(ApiError::InvalidInput(format!(
                "attribute \"{text}\" has no name before \"=\""
            )));
        }
        let values = if value_part.is_empty() {
            Vec::new()
        } else {
            value_part
                .split(VALUE_DELIMITER)
                .map(str::to_owned)
                .collect()
        };
        Ok(Self {
            name: name.to_owned(),
            unit: unit.map(str::to_owned),
            values,
        })
    }

    /// Checks the rules of the wire form; see [`Attribute::new`].
    pub fn validate(&self) -> Result<(), ApiError> {
        if self.name.is_empty() {
            return Err(ApiError::InvalidInput("an attribute needs a name".into()));
        }
        if self.name.contains(['=', VALUE_DELIMITER, '(', ')']) {
            return Err(ApiError::InvalidInput(format!(
                "attribute name \"{}\" may not contain '=', '|' or parentheses",
                self.name
            )));
        }
        if let Some(unit) = &self.unit
            && unit.contains(['=', VALUE_DELIMITER, '(', ')'])
        {
            return Err(ApiError::InvalidInput(format!(
                "unit \"{unit}\" of attribute \"{}\" may not contain '=', '|' or parentheses",
                self.name
            )));
        }
        if let Some(value) = self
            .values
            .iter()
            .find(|value| value.contains(VALUE_DELIMITER))
        {
            return Err(ApiError::InvalidInput(format!(
                "value \"{value}\" of attribute \"{}\" contains '|', which separates values: \
                 enter each value separately",
                self.name
            )));
        }
        Ok(())
    }

    /// The name as it goes on the wire, with the unit in parentheses (`weight(kg)`).
    pub fn wire_name(&self) -> String {
        match &self.unit {
            Some(unit) => format!("{}({unit})", self.name),
            None => self.name.clone(),
        }
    }

    /// The values joined with `|`, as they go on the wire.
    pub fn joined_values(&self) -> String {
        self.values.join(&VALUE_DELIMITER.to_string())
    }
}

impl std::fmt::Display for Attribute {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}={}", self.wire_name(), self.joined_values())
    }
}

impl std::str::FromStr for Attribute {
    type Err = ApiError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Self::parse(text)
    }
}

/// Splits `weight(kg)` into (`weight`, `kg`); a name without a trailing `(…)` has no unit.
pub fn split_unit(name_part: &str) -> (&str, Option<&str>) {
    if let Some(without_close) = name_part.strip_suffix(')')
        && let Some(open) = without_close.rfind('(')
    {
        let name = without_close[..open].trim_end();
        let unit = without_close[open + 1..].trim();
        if !name.is_empty() {
            return (name, (!unit.is_empty()).then_some(unit));
        }
    }
    (name_part, None)
}

/// Parses a list of wire strings, keeping the ones that parse and reporting the first that does not.
pub fn parse_all<'a>(texts: impl IntoIterator<Item = &'a str>) -> Result<Vec<Attribute>, ApiError> {
    texts.into_iter().map(Attribute::parse).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_value_round_trips() {
        let attribute = Attribute::parse("material=steel").unwrap();
        assert_eq!(
            attribute,
            Attribute::new("material", None, ["steel"]).unwrap()
        );
        assert_eq!(attribute.to_string(), "material=steel");
    }

    #[test]
    fn pipe_joined_values_are_split_and_joined() {
        let attribute = Attribute::parse("region=North America|Europe").unwrap();
        assert_eq!(attribute.values, vec!["North America", "Europe"]);
        assert_eq!(attribute.to_string(), "region=North America|Europe");
        assert_eq!(
            Attribute::parse("region=EU|US|APAC").unwrap().values.len(),
            3
        );
    }

    #[test]
    fn unit_rides_in_the_name() {
        let attribute = Attribute::parse("weight(kg)=12.3").unwrap();
        assert_eq!(attribute.name, "weight");
        assert_eq!(attribute.unit.as_deref(), Some("kg"));
        assert_eq!(attribute.values, vec!["12.3"]);
        assert_eq!(attribute.to_string(), "weight(kg)=12.3");
        assert_eq!(attribute.wire_name(), "weight(kg)");
    }

    #[test]
    fn value_may_contain_equals_signs() {
        let attribute = Attribute::parse("formula=a=b").unwrap();
        assert_eq!(attribute.values, vec!["a=b"]);
        assert_eq!(attribute.to_string(), "formula=a=b");
    }

    #[test]
    fn empty_value_means_no_values_and_round_trips() {
        let attribute = Attribute::parse("note=").unwrap();
        assert!(attribute.values.is_empty());
        assert_eq!(attribute.to_string(), "note=");
    }

    #[test]
    fn text_without_equals_is_refused() {
        assert!(matches!(
            Attribute::parse("material"),
            Err(ApiError::InvalidInput(_))
        ));
        assert!(matches!(
            Attribute::parse("=steel"),
            Err(ApiError::InvalidInput(_))
        ));
    }

    #[test]
    fn pipe_inside_one_value_is_refused() {
        let error = Attribute::new("region", None, ["EU|US"]).unwrap_err();
        assert!(error.to_string().contains("'|'"), "{error}");
    }

    #[test]
    fn bad_names_are_refused() {
        assert!(Attribute::new("", None, ["x"]).is_err());
        assert!(Attribute::new("a=b", None, ["x"]).is_err());
        assert!(Attribute::new("w", Some("k(g)".into()), ["x"]).is_err());
    }

    #[test]
    fn parse_and_format_round_trip_for_every_form() {
        for text in [
            "a=1",
            "a=1|2|3",
            "weight(kg)=12.3",
            "size(mm)=10|20",
            "x=",
            "name with space=v w",
        ] {
            assert_eq!(Attribute::parse(text).unwrap().to_string(), text);
        }
    }

    #[test]
    fn parentheses_inside_a_name_without_unit_position_stay_in_the_name() {
        assert_eq!(split_unit("weight(kg)"), ("weight", Some("kg")));
        assert_eq!(split_unit("(kg)"), ("(kg)", None));
        assert_eq!(split_unit("weight()"), ("weight", None));
    }
}
