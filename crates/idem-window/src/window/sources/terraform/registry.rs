//! The registry module `terraform-aws-modules/sqs/aws`, the most common way to make a queue in
//! Terraform, read as its own `main.tf` and `variables.tf` make the queue (its source is not
//! downloaded; what it does with the inputs that bear on retries is written down here):
//!
//! - v4.0.0 to v5.2.1 (the newest this reader knows; a call without `version` is read so): the
//!   queue takes `visibility_timeout_seconds`, `message_retention_seconds`, `delay_seconds` and
//!   `fifo_queue` (each `null` by default, so SQS's own default applies); with
//!   `create_dlq = true` it makes a dead-letter queue and a redrive policy of
//!   `maxReceiveCount = 5` merged with the map `redrive_policy`; the dead-letter queue takes
//!   `dlq_message_retention_seconds` (else the queue's retention) and
//!   `dlq_visibility_timeout_seconds`. Without `create_dlq`, a non-empty `redrive_policy` map
//!   is the queue's policy as given. `create = false` makes nothing.
//! - v3.x and before: `redrive_policy` is JSON text, used as written; no `create_dlq`.
//!
//! Its outputs `queue_arn`, `queue_id`, `queue_url` and `dead_letter_queue_*` name the queues
//! for the queue reader; its other outputs are unknown.

use std::collections::BTreeMap;

use super::value::{Input, Tv, queue_object, shown_value};

/// The newest version whose defaults this reader holds.
pub const NEWEST: &str = "5.2.1";

/// The module's major version when `source` is the registry SQS module, from `version`.
pub fn known(source: &str, version: Option<&str>) -> Option<u32> {
    let source = source
        .trim_start_matches("registry.terraform.io/")
        .split("//")
        .next()
        .unwrap_or("");
    let registry = source == "terraform-aws-modules/sqs/aws";
    let github = source.contains("github.com/terraform-aws-modules/terraform-aws-sqs");
    if !registry && !github {
        return None;
    }
    let pinned = version.or_else(|| {
        source
            .split("?ref=v")
            .nth(1)
            .or(source.split("?ref=").nth(1))
    });
    let major = pinned
        .and_then(|v| {
            let digits: String = v
                .chars()
                .skip_while(|c| !c.is_ascii_digit())
                .take_while(char::is_ascii_digit)
                .collect();
            digits.parse::<u32>().ok()
        })
        .unwrap_or(5);
    Some(major)
}

/// One instance of a call to the module.
pub struct SqsModule {
    pub address: String,
    pub major: u32,
    pub version: Option<String>,
    pub inputs: BTreeMap<String, Input>,
    /// Where the call is written, for the notes.
    pub place: String,
    /// The file and place of the call, where its queues are said to be declared.
    pub file: String,
    pub at: (usize, usize),
}

/// A queue the module makes: its address, and its settings by CloudFormation's names.
pub struct MadeQueue {
    pub id: String,
    pub props: Vec<(&'static str, Tv)>,
    pub notes: Vec<String>,
}

impl SqsModule {
    pub fn new(
        address: String,
        major: u32,
        version: Option<String>,
        inputs: BTreeMap<String, Input>,
        (file, at): (String, (usize, usize)),
    ) -> Self {
        Self {
            address,
            major,
            version,
            inputs,
            place: format!("{file}:{}", at.0),
            file,
            at,
        }
    }

    fn input(&self, name: &str) -> Tv {
        self.inputs.get(name).map_or(Tv::Null, |i| i.value.clone())
    }

    fn dlq_id(&self) -> String {
        format!("{}.dlq", self.address)
    }

    fn creates(&self) -> bool {
        self.input("create").to_bool() != Some(false)
    }

    fn creates_dlq(&self) -> bool {
        self.major >= 4 && self.input("create_dlq").to_bool() == Some(true)
    }

    pub fn outputs(&self) -> Tv {
        let mut out = BTreeMap::new();
        if self.creates() {
            if let Tv::Map(q) = queue_object(&self.address) {
                out.insert("queue_arn".to_owned(), q["arn"].clone());
                out.insert("queue_id".to_owned(), q["id"].clone());
                out.insert("queue_url".to_owned(), q["url"].clone());
            }
            if self.creates_dlq()
                && let Tv::Map(q) = queue_object(&self.dlq_id())
            {
                out.insert("dead_letter_queue_arn".to_owned(), q["arn"].clone());
                out.insert("dead_letter_queue_id".to_owned(), q["id"].clone());
                out.insert("dead_letter_queue_url".to_owned(), q["url"].clone());
            }
        }
        let mut m = match queue_object(&self.address) {
            Tv::Map(m) => m,
            _ => BTreeMap::new(),
        };
        m.retain(|k, _| k.starts_with('\u{1}'));
        m.extend(out);
        Tv::Map(m)
    }

    /// The queues the call makes, with what was read said.
    pub fn queues(&self) -> Vec<MadeQueue> {
        if !self.creates() {
            return Vec::new();
        }
        let which = match &self.version {
            Some(v) => format!(
                "version {} (read by the v{} rules of terraform-aws-modules/sqs/aws)",
                crate::text::sanitize_line(v),
                if self.major >= 4 {
                    "4.0.0–5.2.1".to_owned()
                } else {
                    "3".to_owned()
                }
            ),
            None => format!(
                "no version pinned, read as terraform-aws-modules/sqs/aws v{NEWEST}, the newest this reader knows"
            ),
        };
        let mut notes = vec![format!(
            "{} ({}) is the registry SQS module, {which}",
            self.address, self.place
        )];
        let mut props: Vec<(&'static str, Tv)> = Vec::new();
        for (tf, cfn) in [
            ("visibility_timeout_seconds", "VisibilityTimeout"),
            ("message_retention_seconds", "MessageRetentionPeriod"),
            ("delay_seconds", "DelaySeconds"),
            ("fifo_queue", "FifoQueue"),
        ] {
            let v = self.input(tf);
            if v != Tv::Null {
                notes.push(format!("{}: {tf} = {}", self.address, shown_value(&v)));
                props.push((cfn, v));
            }
        }
        let redrive = self.input("redrive_policy");
        let mut made = Vec::new();
        if self.creates_dlq() {
            let mut policy = BTreeMap::new();
            policy.insert(
                "deadLetterTargetArn".to_owned(),
                Tv::Str(format!("{}.Arn", self.dlq_id())),
            );
            policy.insert("maxReceiveCount".to_owned(), Tv::Num(5.0));
            match &redrive {
                Tv::Map(given) => policy.extend(given.clone()),
                Tv::Null => {}
                Tv::Unknown(why) => {
                    policy.insert("maxReceiveCount".to_owned(), Tv::Unknown(why.clone()));
                }
                _ => {}
            }
            notes.push(format!(
                "{}: create_dlq = true, so a dead-letter queue and maxReceiveCount {} (the module's 5 unless redrive_policy sets it)",
                self.address,
                shown_value(&policy["maxReceiveCount"])
            ));
            props.push(("RedrivePolicy", Tv::Map(policy)));
            let mut dlq_props: Vec<(&'static str, Tv)> = Vec::new();
            let retention = match self.input("dlq_message_retention_seconds") {
                Tv::Null => self.input("message_retention_seconds"),
                v => v,
            };
            if retention != Tv::Null {
                dlq_props.push(("MessageRetentionPeriod", retention));
            }
            if self.input("fifo_queue") != Tv::Null {
                dlq_props.push(("FifoQueue", self.input("fifo_queue")));
            }
            made.push(MadeQueue {
                id: self.dlq_id(),
                props: dlq_props,
                notes: Vec::new(),
            });
        } else {
            match redrive {
                Tv::Null => {}
                Tv::Str(s) if s.is_empty() => {}
                Tv::Map(m) if m.is_empty() => {}
                v => props.push(("RedrivePolicy", v)),
            }
            if self.major < 4 && self.inputs.contains_key("create_dlq") {
                notes.push(format!(
                    "{}: create_dlq is not an input before v4 of the module, so it changes nothing",
                    self.address
                ));
            }
        }
        made.insert(
            0,
            MadeQueue {
                id: self.address.clone(),
                props,
                notes,
            },
        );
        made
    }
}
