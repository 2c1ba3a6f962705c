//! The zone's record for a site: a proxied CNAME `<host>` →
//! `<project>.pages.dev`, created once; a record of that name that points
//! elsewhere is never overwritten.

use reqwest::Method;
use serde::Deserialize;
use serde_json::{Value, json};

use super::{Cloudflare, CloudflareError};

#[derive(Deserialize)]
struct Record {
    #[serde(default)]
    content: String,
}

impl Cloudflare {
    /// Points `host` at `target`, unless it already does.
    pub async fn ensure_cname(&self, host: &str, target: &str) -> Result<(), CloudflareError> {
        let path = format!("zones/{}/dns_records", self.account.zone_id);
        let existing: Vec<Record> = self
            .call(
                self.request(Method::GET, &path)
                    .query(&[("type", "CNAME"), ("name", host)]),
                "read the zone's records",
            )
            .await?;
        if let Some(record) = existing.first() {
            if record.content.eq_ignore_ascii_case(target) {
                return Ok(());
            }
            return Err(CloudflareError::RecordTaken {
                name: host.to_owned(),
                current: record.content.clone(),
                wanted: target.to_owned(),
            });
        }
        let _: Value = self
            .call(
                self.request(Method::POST, &path).json(&json!({
                    "type": "CNAME",
                    "name": host,
                    "content": target,
                    "proxied": true,
                    "ttl": 1,
                    "comment": "Ulias: the operation's site",
                })),
                "create the DNS record",
            )
            .await?;
        Ok(())
    }
}
