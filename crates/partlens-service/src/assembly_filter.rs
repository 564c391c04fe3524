//! The `is_assembly` filter: `FT=is_assembly=[true]` keeps the assemblies, `FT=is_assembly=[false]`
//! the single parts. The engine extracts `is_assembly=true|false` from every model whose shape it
//! read ([`partlens_engine::mesh::ASSEMBLY_ATTRIBUTE`]: true when the reader's product tree places
//! at least two parts); extracted attributes are searched as text, not kept as attribute values, so
//! an exact term on that name is read as the free-text word `is_assembly=<value>`, which the
//! record's search text holds exactly when the extracted (or a saved) attribute says so. Pictures,
//! drawings, `.zip` bundles and `textOnly` models have no such attribute and match neither.

use partlens_api::{FilterTerm, SearchFilter};
use partlens_engine::mesh::ASSEMBLY_ATTRIBUTE;

/// Reads an inner `filterStr` as the service searches it: the interface's filter, with exact
/// `is_assembly=[…]` terms read as described in the module doc.
pub fn parse_filter(inner: &str) -> SearchFilter {
    let mut filter = SearchFilter::parse_inner(inner);
    for term in filter.ft_parts.iter_mut().flatten() {
        if let FilterTerm::Exact { name, value } = term
            && name.eq_ignore_ascii_case(ASSEMBLY_ATTRIBUTE)
        {
            let word = format!("{ASSEMBLY_ATTRIBUTE}={}", value.trim().to_lowercase());
            *term = FilterTerm::Text(word);
        }
    }
    filter
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_exact_is_assembly_term_is_its_extracted_word() {
        let filter = parse_filter("FT=IS_ASSEMBLY%3D%5BTrue%5D&FT=material=[steel]");
        assert_eq!(
            filter.ft_parts,
            [
                vec![FilterTerm::Text("is_assembly=true".into())],
                vec![FilterTerm::parse("material=[steel]")]
            ]
        );
    }
}
