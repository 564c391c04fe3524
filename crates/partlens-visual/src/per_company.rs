//! One value per company, by company ID: the map the exact scan keeps its [`VisualIndex`]es in and
//! the approximate search its graphs.
//!
//! [`VisualIndex`]: partlens_engine::VisualIndex

use std::collections::HashMap;

/// A value for each company that has one (an index, a graph), looked up by company ID.
#[derive(Clone, Debug)]
pub struct PerCompany<T> {
    by_company: HashMap<String, T>,
}

impl<T> Default for PerCompany<T> {
    fn default() -> Self {
        Self {
            by_company: HashMap::new(),
        }
    }
}

impl<T> PerCompany<T> {
    /// No company yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// The company's value, if it has one.
    pub fn company(&self, company: &str) -> Option<&T> {
        self.by_company.get(company)
    }

    /// The company's value for changing, if it has one.
    pub fn company_mut(&mut self, company: &str) -> Option<&mut T> {
        self.by_company.get_mut(company)
    }

    /// The company's value for changing, made by `make` first when it has none.
    pub fn company_or_insert_with(&mut self, company: &str, make: impl FnOnce() -> T) -> &mut T {
        self.by_company
            .entry(company.to_owned())
            .or_insert_with(make)
    }

    /// Puts a company's value in place (replacing the one it had).
    pub fn set_company(&mut self, company: &str, value: T) {
        self.by_company.insert(company.to_owned(), value);
    }

    /// Takes a company's value out.
    pub fn take_company(&mut self, company: &str) -> Option<T> {
        self.by_company.remove(company)
    }

    /// The companies that have a value, in no particular order.
    pub fn companies(&self) -> impl Iterator<Item = &str> {
        self.by_company.keys().map(String::as_str)
    }

    /// Every company's value for changing, in no particular order.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.by_company.values_mut()
    }

    /// `measure` of the company's value, 0 when it has none (its files, its views).
    pub fn measure_of(&self, company: &str, measure: impl FnOnce(&T) -> usize) -> usize {
        self.company(company).map_or(0, measure)
    }

    /// `measure` summed over every company's value (heap bytes).
    pub fn measure_all(&self, measure: impl FnMut(&T) -> usize) -> usize {
        self.by_company.values().map(measure).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_company_holds_its_own_value() {
        let mut held: PerCompany<Vec<u8>> = PerCompany::new();
        assert_eq!(held.measure_of("A", Vec::len), 0);
        held.company_or_insert_with("A", Vec::new).push(1);
        held.company_or_insert_with("A", Vec::new).push(2);
        held.set_company("B", vec![7]);
        assert_eq!(held.company("A"), Some(&vec![1, 2]));
        assert_eq!(held.measure_of("A", Vec::len), 2);
        assert_eq!(held.measure_all(Vec::len), 3);
        if let Some(value) = held.company_mut("B") {
            value.push(8);
        }
        for value in held.values_mut() {
            value.push(0);
        }
        let mut companies: Vec<&str> = held.companies().collect();
        companies.sort_unstable();
        assert_eq!(companies, ["A", "B"]);
        assert_eq!(held.take_company("B"), Some(vec![7, 8, 0]));
        assert_eq!(held.take_company("B"), None);
        assert_eq!(held.company("B"), None);
    }
}
