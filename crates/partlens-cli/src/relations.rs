//! `where-used FILE` (the assemblies that use a file, up to the top ones) and `components FILE`
//! (an assembly's components, down to the leaf parts): the file's assembly relations walked
//! through its records ([`partlens_api::relation_walk`]), printed as one JSON tree.

use clap::Args;
use serde_json::{Map, Value, json};

use super::error::CliError;
use super::output::print_json;
use super::session::Session;
use partlens_api::{
    FileRef, FileUid, RelationNode, RelationTree, WalkDirection, WalkLimits, WalkStop,
};

/// The long help of `where-used` (shown by `--help`).
pub const WHERE_USED_HELP: &str = "Print where a file is used: the assemblies of the company that \
hold it (its AssemblyParents), theirs, and so on up to the top assemblies, read record by record \
(GET /api/File). The file is named by UID or by full stored path.\n\n\
Output: {\"UID\", \"FileName\", \"DisplayName\", \"UsedIn\": [{\"UID\", \"FileName\", \"DisplayName\", \
\"Quantity\" (of the file below in this assembly, where the service says), \"UsedIn\": [...]}], \
\"TopAssemblies\": [{\"UID\", \"FileName\", \"DisplayName\"}] (each once), \"RecordsRead\", \
\"CutShort\" (true when a limit or a cycle stopped the walk)}. An entry that was not followed says \
why in \"Stopped\": \"cycle\", \"depth\", \"records\" or \"missing\" (a relation to a deleted file). \
Limits: --depth levels (16 by default) and 500 records.";

/// The long help of `components` (shown by `--help`).
pub const COMPONENTS_HELP: &str = "Print an assembly's components: its AssemblyChildren, theirs, and \
so on down to the leaf parts, read record by record (GET /api/File). The file is named by UID or by \
full stored path.\n\n\
Output: {\"UID\", \"FileName\", \"DisplayName\", \"Components\": [{\"UID\", \"FileName\", \"DisplayName\", \
\"Quantity\", \"ReferenceDesignator\" (where given), \"Components\": [...]}], \"RecordsRead\", \"CutShort\"}; \
\"Stopped\" as for where-used. Limits: --depth levels (16 by default) and 500 records.";

/// Arguments of `where-used` and `components`.
#[derive(Debug, Args)]
pub struct RelationArgs {
    /// The file: its UID (a GUID) or its full stored path (<folder>/<name>.<ext>).
    pub file: String,
    /// The most levels to follow.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u16).range(1..=64))]
    pub depth: u16,
}

impl RelationArgs {
    /// The file the argument names: a GUID is a UID, anything else a stored path.
    pub fn file_ref(&self) -> Result<FileRef, CliError> {
        let text = self.file.trim();
        if let Ok(uid) = FileUid::parse(text) {
            return Ok(FileRef::Uid(uid));
        }
        let file = FileRef::Name(text.to_owned());
        file.validate()?;
        Ok(file)
    }
}

/// Runs `where-used` (`direction` [`WalkDirection::UsedIn`]) or `components`.
pub async fn run(
    args: RelationArgs,
    direction: WalkDirection,
    session: &mut Session,
) -> Result<(), CliError> {
    let file = args.file_ref()?;
    let limits = WalkLimits {
        max_depth: usize::from(args.depth),
        ..WalkLimits::default()
    };
    let client = session.client().await?;
    let tree = client.relation_tree(&file, direction, limits).await?;
    print_json(&tree_json(&tree, direction))
}

/// The JSON of a walk (the shapes the help texts give).
pub fn tree_json(tree: &RelationTree, direction: WalkDirection) -> Value {
    let key = relation_key(direction);
    let mut root = node_json(&tree.root, key);
    if let Value::Object(fields) = &mut root {
        if direction == WalkDirection::UsedIn {
            fields.insert("TopAssemblies".into(), top_assemblies(&tree.root));
        }
        fields.insert("RecordsRead".into(), json!(tree.records_read));
        fields.insert("CutShort".into(), json!(tree.cut_short));
    }
    root
}

fn relation_key(direction: WalkDirection) -> &'static str {
    match direction {
        WalkDirection::Components => "Components",
        WalkDirection::UsedIn => "UsedIn",
    }
}

fn node_json(node: &RelationNode, key: &str) -> Value {
    let mut fields = Map::new();
    fields.insert("UID".into(), json!(node.uid.as_str()));
    fields.insert("FileName".into(), json!(node.file_name));
    fields.insert("DisplayName".into(), json!(node.display_name));
    if let Some(quantity) = node.quantity {
        fields.insert("Quantity".into(), json!(quantity));
    }
    if let Some(designator) = &node.reference_designator {
        fields.insert("ReferenceDesignator".into(), json!(designator));
    }
    if let Some(stop) = node.stop {
        fields.insert("Stopped".into(), json!(stop_word(stop)));
    }
    let related = node
        .related
        .iter()
        .map(|child| node_json(child, key))
        .collect();
    fields.insert(key.into(), Value::Array(related));
    Value::Object(fields)
}

fn stop_word(stop: WalkStop) -> &'static str {
    match stop {
        WalkStop::Cycle => "cycle",
        WalkStop::Depth => "depth",
        WalkStop::Records => "records",
        WalkStop::Missing => "missing",
    }
}

/// The assemblies at the top of an upward walk (used by nothing above them), each once, in the
/// order the walk met them; none when the file itself is used nowhere.
fn top_assemblies(root: &RelationNode) -> Value {
    let mut seen: Vec<&FileUid> = Vec::new();
    let mut tops = Vec::new();
    for (depth, node) in root.flatten() {
        if depth == 0
            || !node.related.is_empty()
            || node.stop.is_some()
            || seen.contains(&&node.uid)
        {
            continue;
        }
        seen.push(&node.uid);
        tops.push(json!({
            "UID": node.uid.as_str(),
            "FileName": node.file_name,
            "DisplayName": node.display_name,
        }));
    }
    Value::Array(tops)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(uid: &str, related: Vec<RelationNode>) -> RelationNode {
        RelationNode {
            uid: FileUid::from_reply(uid),
            file_name: format!("Parts/{uid}.step"),
            display_name: String::new(),
            thumbnail_url: String::new(),
            quantity: Some(2),
            reference_designator: None,
            related,
            stop: None,
        }
    }

    #[test]
    fn where_used_names_each_top_assembly_once() {
        let top = node("top", vec![]);
        let tree = RelationTree {
            root: node(
                "nut",
                vec![
                    node("bolt-set", vec![node("bracket-set", vec![top.clone()])]),
                    node("rod-set", vec![top.clone()]),
                ],
            ),
            records_read: 5,
            cut_short: false,
        };
        let printed = tree_json(&tree, WalkDirection::UsedIn);
        assert_eq!(printed["TopAssemblies"].as_array().map(Vec::len), Some(1));
        assert_eq!(printed["TopAssemblies"][0]["UID"], "top");
        assert_eq!(printed["UsedIn"][0]["UsedIn"][0]["Quantity"], 2);
        assert_eq!(printed["CutShort"], false);
        let components = tree_json(&tree, WalkDirection::Components);
        assert!(components.get("TopAssemblies").is_none());
        assert_eq!(components["Components"][1]["UID"], "rod-set");
    }

    #[test]
    fn a_guid_is_a_uid_and_anything_else_a_stored_path() {
        let args = |file: &str| RelationArgs {
            file: file.into(),
            depth: 16,
        };
        assert!(matches!(
            args("9a1b2c3d-4f89-41d3-9a0c-0305e82c3302").file_ref(),
            Ok(FileRef::Uid(_))
        ));
        assert!(matches!(
            args("Parts/as1/nut.step").file_ref(),
            Ok(FileRef::Name(name)) if name == "Parts/as1/nut.step"
        ));
        assert!(args("  ").file_ref().is_err());
    }
}
