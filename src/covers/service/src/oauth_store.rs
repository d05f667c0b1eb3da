//! The OAuth records of the cover service, in its redb file (tables `covers.oauth_*`): clients,
//! authorization codes, tokens and the approvals ("grants") an account gave to an app. Codes
//! and tokens are kept under the SHA-256 of their secret only. Every step that must be exact
//! under races (redeeming a code once, rotating a refresh token, revoking a family) is one
//! write transaction.

use redb::{ReadableTable, TableDefinition};
use serde::{Deserialize, Serialize};
use service_kit::db::DbError;

use crate::store::Store;

/// Clients: key the client id, value the JSON of [`Client`].
pub(crate) const CLIENTS: TableDefinition<&str, &[u8]> = TableDefinition::new("covers.oauth_clients");
/// Authorization codes: key the SHA-256 of the code, value the JSON of [`Code`].
pub(crate) const CODES: TableDefinition<&str, &[u8]> = TableDefinition::new("covers.oauth_codes");
/// Access and refresh tokens: key the SHA-256 of the token, value the JSON of [`Token`].
pub(crate) const TOKENS: TableDefinition<&str, &[u8]> = TableDefinition::new("covers.oauth_tokens");
/// Approvals: key `account|client`, value the JSON of [`Grant`].
pub(crate) const GRANTS: TableDefinition<&str, &[u8]> = TableDefinition::new("covers.oauth_grants");

/// A registered client (RFC 7591) or one known by its metadata document (CIMD).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Client {
    /// `cli_…` for registered clients, the document's https URL otherwise.
    pub client_id: String,
    /// The app's name as it gave it.
    pub client_name: String,
    /// Redirect URIs, matched exactly.
    pub redirect_uris: Vec<String>,
    /// `registered` or `metadata-document`.
    pub kind: String,
    /// When it was registered or its document fetched, Unix seconds.
    pub created_at: u64,
}

/// An authorization code.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Code {
    /// The client it was issued to.
    pub client_id: String,
    /// The approving account.
    pub account_id: String,
    /// The redirect URI of the authorization request.
    pub redirect_uri: String,
    /// PKCE S256 challenge.
    pub code_challenge: String,
    /// Granted scopes.
    pub scopes: Vec<String>,
    /// The resource (audience) of the tokens.
    pub resource: String,
    /// The token family the code starts (revoked together).
    pub family: String,
    /// Expiry, Unix seconds.
    pub expires_at: u64,
    /// Redeemed already.
    pub used: bool,
}

/// An access or refresh token.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Token {
    /// `access` or `refresh`.
    pub kind: String,
    /// The client.
    pub client_id: String,
    /// The account.
    pub account_id: String,
    /// Scopes.
    pub scopes: Vec<String>,
    /// Audience.
    pub resource: String,
    /// The family (one authorization and its refreshes).
    pub family: String,
    /// Expiry, Unix seconds.
    pub expires_at: u64,
    /// A refresh token already exchanged.
    pub used: bool,
    /// Revoked.
    pub revoked: bool,
}

/// An account's approval of an app, so it is asked once.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Grant {
    /// The account.
    pub account_id: String,
    /// The client.
    pub client_id: String,
    /// The app's name when approved.
    pub client_name: String,
    /// Approved scopes.
    pub scopes: Vec<String>,
    /// When, Unix seconds.
    pub approved_at: u64,
}

/// What redeeming a code found.
#[derive(Debug, Clone, PartialEq)]
pub enum Redeemed {
    /// The code, now marked used.
    Fresh(Code),
    /// Used before: its family has been revoked.
    Reused,
    /// Unknown or expired.
    Invalid,
}

/// What exchanging a refresh token found.
#[derive(Debug, Clone, PartialEq)]
pub enum Rotated {
    /// The old token, now used; the new pair is stored.
    Fresh(Token),
    /// Used before: the whole family is revoked.
    Reused,
    /// Unknown, expired or revoked.
    Invalid,
}

fn backend(e: impl std::fmt::Display) -> DbError {
    DbError::Backend(e.to_string())
}

fn grant_key(account: &str, client: &str) -> String {
    format!("{account}|{client}")
}

impl Store {
    /// Keeps a client.
    pub fn put_client(&self, client: &Client) -> Result<(), DbError> {
        self.put_json(CLIENTS, &client.client_id, client)
    }

    /// A client by id.
    pub fn client(&self, id: &str) -> Result<Option<Client>, DbError> {
        self.get_json(CLIENTS, id)
    }

    /// Keeps a new authorization code under its hash.
    pub fn put_code(&self, hash: &str, code: &Code) -> Result<(), DbError> {
        self.put_json(CODES, hash, code)
    }

    /// Redeems a code once: a fresh code is marked used; a used one revokes its family.
    pub fn redeem_code(&self, hash: &str, now: u64) -> Result<Redeemed, DbError> {
        let txn = self.db().begin_write().map_err(backend)?;
        let outcome = {
            let mut codes = txn.open_table(CODES).map_err(backend)?;
            let found: Option<Code> = match codes.get(hash).map_err(backend)? {
                Some(v) => Some(serde_json::from_slice(v.value()).map_err(backend)?),
                None => None,
            };
            match found {
                None => Redeemed::Invalid,
                Some(code) if code.used => {
                    revoke_family_in(&txn, &code.family)?;
                    Redeemed::Reused
                }
                Some(code) if now > code.expires_at => Redeemed::Invalid,
                Some(mut code) => {
                    code.used = true;
                    let bytes = serde_json::to_vec(&code).map_err(backend)?;
                    codes.insert(hash, bytes.as_slice()).map_err(backend)?;
                    Redeemed::Fresh(code)
                }
            }
        };
        txn.commit().map_err(backend)?;
        Ok(outcome)
    }

    /// Stores tokens (hash, token) in one transaction.
    pub fn put_tokens(&self, tokens: &[(String, Token)]) -> Result<(), DbError> {
        let txn = self.db().begin_write().map_err(backend)?;
        {
            let mut table = txn.open_table(TOKENS).map_err(backend)?;
            for (hash, token) in tokens {
                let bytes = serde_json::to_vec(token).map_err(backend)?;
                table.insert(hash.as_str(), bytes.as_slice()).map_err(backend)?;
            }
        }
        txn.commit().map_err(backend)
    }

    /// A token by the hash of its secret.
    pub fn token(&self, hash: &str) -> Result<Option<Token>, DbError> {
        self.get_json(TOKENS, hash)
    }

    /// Exchanges a refresh token of `client` once: the old one is marked used and `new` stored;
    /// a token used before revokes its whole family (reuse means it leaked).
    pub fn rotate_refresh(
        &self,
        hash: &str,
        client: &str,
        now: u64,
        new: impl FnOnce(&Token) -> Vec<(String, Token)>,
    ) -> Result<Rotated, DbError> {
        let txn = self.db().begin_write().map_err(backend)?;
        let outcome = {
            let found: Option<Token> = {
                let table = txn.open_table(TOKENS).map_err(backend)?;
                let v = table.get(hash).map_err(backend)?;
                match v {
                    Some(v) => Some(serde_json::from_slice(v.value()).map_err(backend)?),
                    None => None,
                }
            };
            match found {
                Some(t) if t.kind == "refresh" && t.client_id == client && t.used && !t.revoked => {
                    revoke_family_in(&txn, &t.family)?;
                    Rotated::Reused
                }
                Some(mut t) if t.kind == "refresh" && t.client_id == client && !t.revoked && now <= t.expires_at => {
                    t.used = true;
                    let mut table = txn.open_table(TOKENS).map_err(backend)?;
                    let bytes = serde_json::to_vec(&t).map_err(backend)?;
                    table.insert(hash, bytes.as_slice()).map_err(backend)?;
                    for (h, token) in new(&t) {
                        let bytes = serde_json::to_vec(&token).map_err(backend)?;
                        table.insert(h.as_str(), bytes.as_slice()).map_err(backend)?;
                    }
                    Rotated::Fresh(t)
                }
                _ => Rotated::Invalid,
            }
        };
        txn.commit().map_err(backend)?;
        Ok(outcome)
    }

    /// Revokes one token's whole family (RFC 7009: revoking a refresh token also ends the
    /// access tokens issued with it). `false` when no such token.
    pub fn revoke_token(&self, hash: &str, client: &str) -> Result<bool, DbError> {
        let Some(t) = self.token(hash)? else { return Ok(false) };
        if t.client_id != client {
            return Ok(false);
        }
        let txn = self.db().begin_write().map_err(backend)?;
        revoke_family_in(&txn, &t.family)?;
        txn.commit().map_err(backend)?;
        Ok(true)
    }

    /// Keeps (or widens) an account's approval of an app.
    pub fn put_grant(&self, grant: &Grant) -> Result<(), DbError> {
        self.put_json(GRANTS, &grant_key(&grant.account_id, &grant.client_id), grant)
    }

    /// The account's approval of an app.
    pub fn grant(&self, account: &str, client: &str) -> Result<Option<Grant>, DbError> {
        self.get_json(GRANTS, &grant_key(account, client))
    }

    /// The apps an account has approved, newest first.
    pub fn grants_of(&self, account: &str) -> Result<Vec<Grant>, DbError> {
        let mut all: Vec<Grant> = self.all_of(GRANTS, |g: &Grant| g.account_id == account)?;
        all.sort_by_key(|g| std::cmp::Reverse(g.approved_at));
        Ok(all)
    }

    /// Disconnects an app from an account: its approval and every token it holds for the
    /// account, in one transaction. `false` when it was not connected.
    pub fn disconnect(&self, account: &str, client: &str) -> Result<bool, DbError> {
        let txn = self.db().begin_write().map_err(backend)?;
        let had = {
            let mut grants = txn.open_table(GRANTS).map_err(backend)?;
            let had = grants.remove(grant_key(account, client).as_str()).map_err(backend)?.is_some();
            let mut tokens = txn.open_table(TOKENS).map_err(backend)?;
            let mut revoke = Vec::new();
            for entry in tokens.iter().map_err(backend)? {
                let (k, v) = entry.map_err(backend)?;
                let t: Token = serde_json::from_slice(v.value()).map_err(backend)?;
                if t.account_id == account && t.client_id == client && !t.revoked {
                    revoke.push((k.value().to_owned(), t));
                }
            }
            for (k, mut t) in revoke {
                t.revoked = true;
                let bytes = serde_json::to_vec(&t).map_err(backend)?;
                tokens.insert(k.as_str(), bytes.as_slice()).map_err(backend)?;
            }
            had
        };
        txn.commit().map_err(backend)?;
        Ok(had)
    }
}

/// Marks every token of a family revoked, inside `txn`.
fn revoke_family_in(txn: &redb::WriteTransaction, family: &str) -> Result<(), DbError> {
    let mut tokens = txn.open_table(TOKENS).map_err(backend)?;
    let mut revoke = Vec::new();
    for entry in tokens.iter().map_err(backend)? {
        let (k, v) = entry.map_err(backend)?;
        let t: Token = serde_json::from_slice(v.value()).map_err(backend)?;
        if t.family == family && !t.revoked {
            revoke.push((k.value().to_owned(), t));
        }
    }
    for (k, mut t) in revoke {
        t.revoked = true;
        let bytes = serde_json::to_vec(&t).map_err(backend)?;
        tokens.insert(k.as_str(), bytes.as_slice()).map_err(backend)?;
    }
    Ok(())
}
