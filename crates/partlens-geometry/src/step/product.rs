//! What a STEP file says about the part in words, read from its header and product data: part
//! numbers (`PRODUCT.id`), names and descriptions, revisions, materials, the application protocol,
//! the CAD system, author and organisation; and the length unit its coordinates are in, so
//! measurements come out in millimetres. Strings are decoded from Part 21's escapes (`\X2\…\X0\`,
//! `\X\hh`, `\S\c`); values are one line, at most [`MAX_VALUE_CHARS`] characters and never hold the
//! `|` that separates multiple values; the free text is at most [`MAX_TEXT_BYTES`].

use ruststep::ast::{Name, Parameter, Record};

use super::instances::Instances;
use super::text::QUOTE_IN_STRING;
use crate::ModelDescription;

/// Longest attribute value or line of text kept, in characters.
pub const MAX_VALUE_CHARS: usize = 200;
/// Largest free text kept, in bytes.
pub const MAX_TEXT_BYTES: usize = 16 * 1024;
/// Most values one attribute keeps (an assembly has a part number a part).
const MAX_VALUES: usize = 50;

/// The header and product data of a file as a description.
pub fn describe(header: &[Record], instances: &Instances<'_>) -> ModelDescription {
    let mut found = Found::default();
    for record in header {
        match record.name.as_str() {
            "FILE_DESCRIPTION" => found.text_from(first_strings(&record.parameter, 0)),
            "FILE_NAME" => {
                found.text_from(first_strings(&record.parameter, 0));
                found.add("author", first_strings(&record.parameter, 2));
                found.add("organization", first_strings(&record.parameter, 3));
                let mut systems = first_strings(&record.parameter, 5);
                if systems.is_empty() {
                    systems = first_strings(&record.parameter, 4);
                }
                found.add("cad_system", systems);
            }
            "FILE_SCHEMA" => {
                let protocols = first_strings(&record.parameter, 0)
                    .into_iter()
                    .map(|schema| application_protocol(&schema))
                    .collect();
                found.add("step_schema", protocols);
            }
            _ => {}
        }
    }
    for (_, product) in instances.named("PRODUCT") {
        let [id, name, description] = [0, 1, 2].map(|at| first_strings(&product.parameter, at));
        found.text_from(id.iter().chain(&name).chain(&description).cloned());
        found.add("part_number", id.clone());
        found.add(
            "product_name",
            name.into_iter().filter(|name| !id.contains(name)).collect(),
        );
        found.add("product_description", description);
    }
    for formation in [
        "PRODUCT_DEFINITION_FORMATION",
        "PRODUCT_DEFINITION_FORMATION_WITH_SPECIFIED_SOURCE",
    ] {
        for (_, record) in instances.named(formation) {
            let revisions = first_strings(&record.parameter, 0)
                .into_iter()
                .filter(|revision| !matches!(revision.to_lowercase().as_str(), "none" | "any"))
                .collect();
            found.add("revision", revisions);
        }
    }
    for (_, definition) in instances.named("PRODUCT_DEFINITION") {
        found.text_from(first_strings(&definition.parameter, 1));
    }
    for (_, material) in instances.named("MATERIAL_DESIGNATION") {
        let names = first_strings(&material.parameter, 0);
        found.text_from(names.iter().cloned());
        found.add("material", names);
    }
    found.into_description()
}

/// Millimetres a unit of the file's lengths: the length unit its geometry context assigns
/// (`GLOBAL_UNIT_ASSIGNED_CONTEXT`), else its first length unit; an `SI_UNIT` with a prefix or a
/// conversion-based unit such as the inch. 1 when it states none or one not understood.
pub fn millimetres_per_unit(instances: &Instances<'_>) -> f64 {
    let assigned = instances
        .named("GLOBAL_UNIT_ASSIGNED_CONTEXT")
        .into_iter()
        .flat_map(|(_, context)| match &context.parameter {
            Parameter::List(items) => match items.first() {
                Some(Parameter::List(units)) => units.clone(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        })
        .filter_map(|unit| match unit {
            Parameter::Ref(Name::Entity(id)) => Some(id),
            _ => None,
        })
        .filter(|&id| instances.record(id, "LENGTH_UNIT").is_some());
    let any = instances.named("LENGTH_UNIT").into_iter().map(|(id, _)| id);
    assigned
        .chain(any)
        .find_map(|id| unit_in_millimetres(instances, id, 0))
        .unwrap_or(1.0)
}

/// The size of length unit `#id` in millimetres; `hops` bounds how far conversions are followed.
pub(super) fn unit_in_millimetres(instances: &Instances<'_>, id: u64, hops: usize) -> Option<f64> {
    if let Some(si) = instances.record(id, "SI_UNIT") {
        let Parameter::List(items) = &si.parameter else {
            return None;
        };
        let prefix = match items.first() {
            Some(Parameter::Enumeration(prefix)) => prefix.as_str(),
            _ => "",
        };
        let metre_in_prefix = match prefix {
            "" => 1.0,
            "KILO" => 1e3,
            "HECTO" => 1e2,
            "DECA" => 1e1,
            "DECI" => 1e-1,
            "CENTI" => 1e-2,
            "MILLI" => 1e-3,
            "MICRO" => 1e-6,
            "NANO" => 1e-9,
            _ => return None,
        };
        return Some(metre_in_prefix * 1000.0);
    }
    let converted = instances.record(id, "CONVERSION_BASED_UNIT")?;
    if let Some(name) = first_strings(&converted.parameter, 0).first() {
        match name.to_lowercase().as_str() {
            "inch" => return Some(25.4),
            "foot" => return Some(304.8),
            _ => {}
        }
    }
    if hops > 4 {
        return None;
    }
    // conversion_factor: a measure with unit, LENGTH_MEASURE(25.4) of another unit.
    let Parameter::List(items) = &converted.parameter else {
        return None;
    };
    let Some(Parameter::Ref(Name::Entity(measure))) = items.get(1) else {
        return None;
    };
    let measure = instances.get(*measure)?.first()?;
    let Parameter::List(parts) = &measure.parameter else {
        return None;
    };
    let factor = match parts.first()? {
        Parameter::Typed { parameter, .. } => number(parameter)?,
        other => number(other)?,
    };
    let Some(Parameter::Ref(Name::Entity(base))) = parts.get(1) else {
        return None;
    };
    let size = factor * unit_in_millimetres(instances, *base, hops + 1)?;
    (size.is_finite() && size > 0.0).then_some(size)
}

pub(super) fn number(parameter: &Parameter) -> Option<f64> {
    match parameter {
        Parameter::Real(value) => Some(*value),
        Parameter::Integer(value) => Some(*value as f64),
        _ => None,
    }
}

/// `AP214` for `AUTOMOTIVE_DESIGN { 1 0 10303 214 … }`, and so on; other schemas by their name.
fn application_protocol(schema: &str) -> String {
    let name = schema
        .split(|c: char| c.is_whitespace() || c == '{')
        .next()
        .unwrap_or_default()
        .to_uppercase();
    let protocol = match name.as_str() {
        "CONFIG_CONTROL_DESIGN" => "AP203",
        "AP203_CONFIGURATION_CONTROLLED_3D_DESIGN_OF_MECHANICAL_PARTS_AND_ASSEMBLIES_MIM_LF" => {
            "AP203e2"
        }
        "AUTOMOTIVE_DESIGN" | "AUTOMOTIVE_DESIGN_CC2" => "AP214",
        _ if name.starts_with("AP242") => "AP242",
        _ => return name,
    };
    protocol.to_owned()
}

/// The strings of parameter `at` of a record: itself if it is a string, the strings of its list
/// if it is a list; decoded, one line each, empty ones left out.
pub(super) fn first_strings(parameter: &Parameter, at: usize) -> Vec<String> {
    let Parameter::List(items) = parameter else {
        return Vec::new();
    };
    let strings: Vec<&String> = match items.get(at) {
        Some(Parameter::String(text)) => vec![text],
        Some(Parameter::List(list)) => list
            .iter()
            .filter_map(|item| match item {
                Parameter::String(text) => Some(text),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    };
    strings
        .into_iter()
        .map(|text| one_line(&decode(text)))
        .filter(|text| !text.is_empty())
        .collect()
}

/// A value on one line, trimmed and cut to [`MAX_VALUE_CHARS`].
fn one_line(text: &str) -> String {
    let joined = text.split_whitespace().collect::<Vec<_>>().join(" ");
    joined.chars().take(MAX_VALUE_CHARS).collect()
}

/// Decodes Part 21's string escapes; an escape that does not decode is kept as written.
pub fn decode(raw: &str) -> String {
    let mut decoded = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(at) = rest.find(['\\', QUOTE_IN_STRING]) {
        decoded.push_str(&rest[..at]);
        rest = &rest[at..];
        if let Some(after) = rest.strip_prefix(QUOTE_IN_STRING) {
            decoded.push('\'');
            rest = after;
        } else if let Some(after) = rest.strip_prefix("\\\\") {
            decoded.push('\\');
            rest = after;
        } else if let Some((text, after)) = wide(rest, "\\X2\\", 4) {
            decoded.push_str(&text);
            rest = after;
        } else if let Some((text, after)) = wide(rest, "\\X4\\", 8) {
            decoded.push_str(&text);
            rest = after;
        } else if let Some(byte) = rest
            .strip_prefix("\\X\\")
            .and_then(|hex| hex.get(..2))
            .and_then(|hex| u8::from_str_radix(hex, 16).ok())
        {
            decoded.push(char::from(byte));
            rest = &rest[5..];
        } else if let Some(high) = rest
            .strip_prefix("\\S\\")
            .and_then(|after| after.chars().next())
            .filter(char::is_ascii)
        {
            decoded.push(char::from(high as u8 + 128));
            rest = &rest[4..];
        } else if let Some(after) = rest
            .strip_prefix("\\P")
            .and_then(|after| after.get(2..))
            .filter(|_| rest.get(3..4) == Some("\\"))
        {
            // A code page switch (`\PA\`): the characters after it are plain.
            rest = after;
        } else {
            decoded.push('\\');
            rest = &rest[1..];
        }
    }
    decoded.push_str(rest);
    decoded
}

/// `\X2\00E9\X0\` (UTF-16, `digits` = 4) or `\X4\0001F600\X0\` (UTF-32, `digits` = 8).
fn wide<'a>(text: &'a str, opening: &str, digits: usize) -> Option<(String, &'a str)> {
    let body = text.strip_prefix(opening)?;
    let end = body.find("\\X0\\")?;
    let hex = &body[..end];
    if hex.is_empty() || hex.len() % digits != 0 || !hex.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let units: Vec<u32> = (0..hex.len())
        .step_by(digits)
        .filter_map(|at| u32::from_str_radix(&hex[at..at + digits], 16).ok())
        .collect();
    let decoded = if digits == 4 {
        let units: Vec<u16> = units.iter().map(|&unit| unit as u16).collect();
        String::from_utf16_lossy(&units)
    } else {
        units
            .iter()
            .map(|&unit| char::from_u32(unit).unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect()
    };
    Some((decoded, &body[end + 4..]))
}

/// Attributes and text gathered so far, without repeats.
#[derive(Default)]
struct Found {
    attributes: Vec<(&'static str, Vec<String>)>,
    text: Vec<String>,
    text_bytes: usize,
}

impl Found {
    fn add(&mut self, name: &'static str, values: Vec<String>) {
        let index = match self.attributes.iter().position(|(known, _)| *known == name) {
            Some(index) => index,
            None => {
                self.attributes.push((name, Vec::new()));
                self.attributes.len() - 1
            }
        };
        let kept = &mut self.attributes[index].1;
        for value in values {
            let value = value.replace('|', "/");
            if kept.len() < MAX_VALUES && !kept.contains(&value) {
                kept.push(value);
            }
        }
    }

    fn text_from(&mut self, lines: impl IntoIterator<Item = String>) {
        for line in lines {
            if self.text.contains(&line) || self.text_bytes + line.len() + 1 > MAX_TEXT_BYTES {
                continue;
            }
            self.text_bytes += line.len() + 1;
            self.text.push(line);
        }
    }

    fn into_description(self) -> ModelDescription {
        ModelDescription {
            text: self.text.join("\n"),
            attributes: self
                .attributes
                .into_iter()
                .filter(|(_, values)| !values.is_empty())
                .map(|(name, values)| format!("{name}={}", values.join("|")))
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn describe_text(header: &str, data: &str) -> (ModelDescription, f64) {
        let text = super::super::text::prepare(
            format!("ISO-10303-21;\nHEADER;\n{header}\nENDSEC;\nDATA;\n{data}\nENDSEC;\nEND-ISO-10303-21;\n")
                .as_bytes(),
        )
        .unwrap();
        let exchange = ruststep::parser::parse(&text).unwrap();
        let instances =
            Instances::new(exchange.data.iter().flat_map(|section| &section.entities)).unwrap();
        (
            describe(&exchange.header, &instances),
            millimetres_per_unit(&instances),
        )
    }

    const HEADER: &str = "FILE_DESCRIPTION(('Flange DN50, cast'),'2;1');
FILE_NAME('flange.step','2026-01-02T03:04:05',('J. M\\X2\\00FC\\X0\\ller'),('Acme | Works'),'ST-DEVELOPER','partlens sample generator','');
FILE_SCHEMA(('AUTOMOTIVE_DESIGN { 1 0 10303 214 1 1 1 1 }'));";

    #[test]
    fn header_and_product_data_become_attributes_and_text() {
        let (description, unit) = describe_text(
            HEADER,
            "#1=PRODUCT('PL-1002','Flange','Weld neck flange, Bob''s design',(#9));
#2=PRODUCT_DEFINITION_FORMATION('B','',#1);
#3=PRODUCT_DEFINITION('design','as machined',#2,#8);
#4=MATERIAL_DESIGNATION('stainless steel',(#3));
#5=(LENGTH_UNIT()NAMED_UNIT(*)SI_UNIT(.MILLI.,.METRE.));",
        );
        assert_eq!(
            description.attributes,
            [
                "author=J. Müller",
                "organization=Acme / Works",
                "cad_system=partlens sample generator",
                "step_schema=AP214",
                "part_number=PL-1002",
                "product_name=Flange",
                "product_description=Weld neck flange, Bob's design",
                "revision=B",
                "material=stainless steel",
            ]
        );
        for line in ["Flange DN50, cast", "flange.step", "PL-1002", "as machined"] {
            assert!(
                description.text.lines().any(|l| l == line),
                "{line}: {}",
                description.text
            );
        }
        assert_eq!(unit, 1.0);
    }

    #[test]
    fn lengths_in_metres_and_inches_are_converted_to_millimetres() {
        let metres = describe_text(HEADER, "#5=(LENGTH_UNIT()NAMED_UNIT(*)SI_UNIT($,.METRE.));").1;
        assert_eq!(metres, 1000.0);
        let inches = describe_text(
            HEADER,
            "#1=(LENGTH_UNIT()NAMED_UNIT(*)SI_UNIT(.MILLI.,.METRE.));
#2=LENGTH_MEASURE_WITH_UNIT(LENGTH_MEASURE(25.4),#1);
#3=(CONVERSION_BASED_UNIT('INCH',#2)LENGTH_UNIT()NAMED_UNIT(#4));
#5=(GEOMETRIC_REPRESENTATION_CONTEXT(3)GLOBAL_UNIT_ASSIGNED_CONTEXT((#3,#6))REPRESENTATION_CONTEXT('',''));",
        )
        .1;
        assert_eq!(inches, 25.4);
        let by_factor = describe_text(
            HEADER,
            "#1=(LENGTH_UNIT()NAMED_UNIT(*)SI_UNIT(.MILLI.,.METRE.));
#2=LENGTH_MEASURE_WITH_UNIT(LENGTH_MEASURE(2.0),#1);
#3=(CONVERSION_BASED_UNIT('double millimetre',#2)LENGTH_UNIT()NAMED_UNIT(#4));
#5=(GEOMETRIC_REPRESENTATION_CONTEXT(3)GLOBAL_UNIT_ASSIGNED_CONTEXT((#3))REPRESENTATION_CONTEXT('',''));",
        )
        .1;
        assert_eq!(by_factor, 2.0);
        assert_eq!(describe_text(HEADER, "").1, 1.0);
    }

    #[test]
    fn escapes_decode_and_values_stay_short_single_lines() {
        assert_eq!(
            decode("\\X\\E9t\\X2\\00E9\\X0\\ \\S\\i \\\\ \\X4\\0001F600\\X0\\"),
            "été é \\ 😀"
        );
        assert_eq!(decode("\\PA\\plain"), "plain");
        assert_eq!(decode("broken \\X2\\12\\X0\\"), "broken \\X2\\12\\X0\\");
        let long = format!("{}\n{}", "x".repeat(300), "y");
        assert_eq!(one_line(&long).chars().count(), MAX_VALUE_CHARS);
        assert_eq!(
            application_protocol(
                "AP242_MANAGED_MODEL_BASED_3D_ENGINEERING_MIM_LF { 1 0 10303 442 1 1 4 }"
            ),
            "AP242"
        );
        assert_eq!(application_protocol("CONFIG_CONTROL_DESIGN"), "AP203");
    }
}
