//! TEMPORARY: knobs for descriptor experiments, read from PARTLENS_EXP ("key=value,key=value").
use std::collections::HashMap;
use std::sync::LazyLock;

static KNOBS: LazyLock<HashMap<String, String>> = LazyLock::new(|| {
    std::env::var("PARTLENS_EXP")
        .unwrap_or_default()
        .split(',')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
        .collect()
});

pub fn number(key: &str, default: f32) -> f32 {
    KNOBS.get(key).and_then(|v| v.parse().ok()).unwrap_or(default)
}

pub fn text(key: &str, default: &str) -> String {
    KNOBS.get(key).cloned().unwrap_or_else(|| default.to_owned())
}
