//! Attributes: `attributes` (the company's list), `attrs set`, `attrs clear` and `values NAME`.

use clap::{Args, Subcommand};
use serde::Serialize;

use super::error::CliError;
use super::files::file_ref;
use super::output::print_json;
use super::session::Session;
use partlens_api::{Attribute, FileRef, FileUid};

/// Arguments of `attrs`.
#[derive(Debug, Args)]
pub struct AttrsArgs {
    /// What to do with the attributes.
    #[command(subcommand)]
    pub action: AttrsAction,
}

/// The `attrs` subcommands.
#[derive(Debug, Subcommand)]
pub enum AttrsAction {
    /// Set attributes on a file (replacing all of them unless --keep-existing).
    #[command(long_about = SET_HELP)]
    Set(SetArgs),
    /// Remove every attribute of a file.
    #[command(long_about = CLEAR_HELP)]
    Clear(ClearArgs),
}

/// The long help of `attrs set` (shown by `--help`).
pub const SET_HELP: &str = "Set attributes on a file (PUT /api/FileAttributes) and print {\"ok\": true}.\n\n\
Name the file by UID (the first argument) or by --name PATH (its full stored path). Each attribute is \
NAME=VALUE; a unit rides in the name (weight(kg)=12.3); several values are joined with | \
(region=EU|US, quoted in a shell: 'region=EU|US'), and a single value can never contain |. By default the list replaces every \
attribute of the file; --keep-existing adds to them instead.";

/// Arguments of `attrs set`.
#[derive(Debug, Args)]
#[command(
    override_usage = "partlens-cli attrs set <UID> <NAME=VALUE>... [--keep-existing]\n       \
partlens-cli attrs set --name <PATH> <NAME=VALUE>... [--keep-existing]"
)]
pub struct SetArgs {
    /// The file's UID followed by the attributes, or only the attributes when --name is given.
    #[arg(value_name = "UID|NAME=VALUE", required = true, num_args = 1..)]
    pub items: Vec<String>,
    /// The file's full stored path (<folder>/<name>.<ext>) instead of its UID.
    #[arg(long, value_name = "PATH")]
    pub name: Option<String>,
    /// Add to the file's attributes instead of replacing them all (deleteExisting=false).
    #[arg(long)]
    pub keep_existing: bool,
}

/// The long help of `clear` (shown by `--help`).
pub const CLEAR_HELP: &str =
    "Remove every attribute of a file (DELETE /api/FileAttributes) and print {\"ok\": true}.";

/// Arguments of `attrs clear`.
#[derive(Debug, Args)]
pub struct ClearArgs {
    /// The file's UID (a GUID).
    pub uid: String,
}

/// The long help of `values` (shown by `--help`).
pub const VALUES_HELP: &str = "List the distinct values of one attribute in your company with how many files hold \
each (GET /api/AttributeValues): the AttributeValue list ([{\"Name\": ..., \"Count\": ...}]) as the \
service gives it. The name is matched case-insensitively.";

/// Arguments of `values`.
#[derive(Debug, Args)]
pub struct ValuesArgs {
    /// The attribute name.
    pub name: String,
}

/// The JSON line of `attrs set` and `attrs clear`.
#[derive(Debug, Serialize)]
struct OkLine {
    ok: bool,
}

/// The file and the attributes of `attrs set`, read from its arguments.
pub fn set_target(args: &SetArgs) -> Result<(FileRef, Vec<Attribute>), CliError> {
    let (file, texts) = match &args.name {
        Some(name) => (file_ref(None, Some(name))?, &args.items[..]),
        None => {
            let Some((uid, rest)) = args.items.split_first() else {
                return Err(CliError::Usage(
                    "name the file by UID or --name PATH, then the attributes".into(),
                ));
            };
            (file_ref(Some(uid), None)?, rest)
        }
    };
    if texts.is_empty() {
        return Err(CliError::Usage(
            "give at least one NAME=VALUE attribute (to remove them all use `attrs clear`)".into(),
        ));
    }
    let attributes = texts
        .iter()
        .map(|text| {
            let attribute = Attribute::parse(text)?;
            attribute.validate()?;
            Ok(attribute)
        })
        .collect::<Result<Vec<_>, CliError>>()?;
    Ok((file, attributes))
}

/// Runs `attributes`.
pub async fn run_attributes(session: &mut Session) -> Result<(), CliError> {
    let client = session.client().await?;
    print_json(&client.company_attributes_json().await?)
}

/// Runs `attrs set` or `attrs clear`.
pub async fn run(args: AttrsArgs, session: &mut Session) -> Result<(), CliError> {
    let ok = match args.action {
        AttrsAction::Set(args) => {
            let (file, attributes) = set_target(&args)?;
            let client = session.client().await?;
            client
                .set_attributes(&file, &attributes, !args.keep_existing)
                .await?
        }
        AttrsAction::Clear(args) => {
            let uid = FileUid::parse(&args.uid)?;
            let client = session.client().await?;
            client.clear_attributes(&uid).await?
        }
    };
    print_json(&OkLine { ok })?;
    if ok {
        Ok(())
    } else {
        Err(CliError::Local(
            "the service answered false: the attributes were not changed".into(),
        ))
    }
}

/// Runs `values`.
pub async fn run_values(args: ValuesArgs, session: &mut Session) -> Result<(), CliError> {
    if args.name.trim().is_empty() {
        return Err(CliError::Usage("give an attribute name".into()));
    }
    let client = session.client().await?;
    print_json(&client.attribute_values_json(&args.name).await?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set_args(items: &[&str], name: Option<&str>) -> SetArgs {
        SetArgs {
            items: items.iter().map(|item| (*item).to_owned()).collect(),
            name: name.map(str::to_owned),
            keep_existing: false,
        }
    }

    #[test]
    fn first_item_is_the_uid_unless_a_name_is_given() {
        let (file, attributes) = set_target(&set_args(
            &["3f2504e0-4f89-41d3-9a0c-0305e82c3301", "region=EU|US"],
            None,
        ))
        .unwrap();
        assert!(matches!(file, FileRef::Uid(_)));
        assert_eq!(attributes[0].values, vec!["EU", "US"]);
        let (file, attributes) =
            set_target(&set_args(&["a=1", "b=2"], Some("Design/x.png"))).unwrap();
        assert_eq!(file, FileRef::Name("Design/x.png".into()));
        assert_eq!(attributes.len(), 2);
    }

    #[test]
    fn bad_input_is_refused() {
        assert!(set_target(&set_args(&["3f2504e0-4f89-41d3-9a0c-0305e82c3301"], None)).is_err());
        assert!(set_target(&set_args(&["not-a-uid", "a=1"], None)).is_err());
        assert!(
            set_target(&set_args(
                &["3f2504e0-4f89-41d3-9a0c-0305e82c3301", "material"],
                None
            ))
            .is_err()
        );
    }
}
