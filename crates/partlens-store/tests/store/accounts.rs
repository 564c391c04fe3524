//! Companies, users, client ids, tokens and secrets, alike on both engines.

use partlens_store::StoreError;
use partlens_store::model::credential_stamp;

use crate::support::stores;

#[test]
fn a_user_name_belongs_to_one_company_whatever_its_case() {
    for store in stores() {
        store.write(|tx| {
            let acme = tx.ensure_company("Acme")?;
            assert_eq!(tx.ensure_company("acme")?, acme, "{}", store.engine);
            let other = tx.ensure_company("Other")?;
            tx.upsert_user(&acme, "ann", "h1", false)?;
            tx.upsert_user(&acme, "ANN", "h2", true)?;
            let (id, hash) = tx.login_of("Ann")?.unwrap();
            assert_eq!(hash, "h2", "{}", store.engine);
            assert_eq!(
                tx.credential_of_user(id)?,
                Some((acme.clone(), credential_stamp("h2")))
            );
            assert!(
                matches!(
                    tx.upsert_user(&other, "ann", "h3", false),
                    Err(StoreError::Refused(_))
                ),
                "{}",
                store.engine
            );
            assert!(tx.login_of("nobody")?.is_none());
            Ok(())
        });
    }
}

#[test]
fn expired_tokens_and_those_of_a_reset_password_give_no_caller() {
    for store in stores() {
        store.write(|tx| {
            let acme = tx.ensure_company("Acme")?;
            tx.upsert_user(&acme, "ann", "h", true)?;
            let (user, _) = tx.login_of("ann")?.unwrap();
            tx.insert_token("live", user, "partlens", 200, 100)?;
            tx.insert_token("old", user, "partlens", 150, 100)?;
            let caller = tx.caller_of_token("live", 160)?.unwrap();
            assert!(caller.admin);
            assert_eq!(caller.company_id, acme);
            assert_eq!(caller.credential_stamp, credential_stamp("h"));
            assert!(
                tx.caller_of_token("old", 160)?.is_none(),
                "{}",
                store.engine
            );
            assert!(tx.caller_of_token("nope", 0)?.is_none());
            // A new password ends the sessions of the old one.
            tx.upsert_user(&acme, "ann", "h2", true)?;
            assert!(
                tx.caller_of_token("live", 160)?.is_none(),
                "{}",
                store.engine
            );
            Ok(())
        });
    }
}

#[test]
fn clients_are_registered_once_and_a_secret_is_made_once() {
    for store in stores() {
        store.write(|tx| {
            assert!(tx.client_exists("partlens")?, "the default client");
            assert!(!tx.client_exists("cli")?);
            tx.add_client("cli")?;
            tx.add_client("cli")?;
            assert!(tx.client_exists("cli")?);
            let first = tx.secret("images", &mut || vec![1, 2, 3])?;
            let second = tx.secret("images", &mut || vec![9])?;
            assert_eq!(first, vec![1, 2, 3], "{}", store.engine);
            assert_eq!(second, first);
            Ok(())
        });
    }
}
