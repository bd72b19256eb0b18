//! The errors `idem serve` answers, each as an `application/problem+json` body (RFC 9457)
//! whose `type` is a page the server itself serves, at `/problems/NAME`, in plain words.

use super::response::{PROBLEM, Response};
use serde_json::json;

/// One kind of problem: its name in the URL, status, title and what the page says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    pub name: &'static str,
    pub status: u16,
    pub title: &'static str,
    pub page: &'static str,
}

pub const KEY_MISSING: Kind = Kind {
    name: "key-missing",
    status: 400,
    title: "Idempotency-Key is missing",
    page: "POST /charges moves money, so this server takes it only with an Idempotency-Key header: \
one key per payment, minted before the first attempt and sent again, unchanged, with every retry. \
Nothing was charged.",
};

pub const KEY_INVALID: Kind = Kind {
    name: "key-invalid",
    status: 400,
    title: "Idempotency-Key is not one key",
    page: "The Idempotency-Key header holds one key: a Structured Field string (RFC 8941), printable \
ASCII between double quotes, as in Idempotency-Key: \"K7Q4\", or the same key bare, as client \
libraries send it (Idempotency-Key: K7Q4; letters, digits and !#$%&'*+-.^_`|~:/=), at most 255 \
characters, and only one such header per request. Nothing was charged.",
};

pub const KEY_IN_PROGRESS: Kind = Kind {
    name: "key-in-progress",
    status: 409,
    title: "A request with this Idempotency-Key is still being processed",
    page: "The first request carrying this key has not finished yet. Nothing new was done for this \
one: retry it later with the same key and the same body, and it will be answered with the first \
request's result.",
};

pub const KEY_REUSED: Kind = Kind {
    name: "key-reused",
    status: 422,
    title: "Idempotency-Key was first used for a different request",
    page: "This key belongs to an earlier request with a different body. A key stands for one \
payment: send a new key for a new payment. Nothing was charged for this request.",
};

pub const DUPLICATE_REQUEST: Kind = Kind {
    name: "duplicate-request",
    status: 400,
    title: "A request with this body was already charged",
    page: "This server runs the content-hash design: it remembers a hash of every charged body and \
refuses a repeat. It cannot tell a retry from a second purchase of the same items, and it says \
nothing about whether the first one was charged.",
};

pub const INVALID_BODY: Kind = Kind {
    name: "invalid-body",
    status: 400,
    title: "The body is not a charge",
    page: "POST /charges takes a JSON object such as {\"order\": \"5531\", \"amount\": \"$48.60\"}: \
order, a non-empty string (or a whole number); amount, dollars and cents as a string, or whole \
cents as a number; and optionally items, a list of strings. Nothing was charged.",
};

pub const BODY_TOO_LARGE: Kind = Kind {
    name: "body-too-large",
    status: 413,
    title: "The body is too large",
    page: "A charge is a few dozen bytes; this server reads at most 16 KiB of body.",
};

pub const HEADERS_TOO_LARGE: Kind = Kind {
    name: "headers-too-large",
    status: 431,
    title: "The request's headers are too large",
    page: "This server takes at most 8 KiB of headers and at most 64 header lines.",
};

pub const NOT_FOUND: Kind = Kind {
    name: "not-found",
    status: 404,
    title: "Nothing here",
    page: "This server answers POST /charges, GET /charges (?key=K for a lookup by key, ?order=O \
for one order's charges) and GET /problems/NAME.",
};

pub const METHOD: Kind = Kind {
    name: "method-not-allowed",
    status: 405,
    title: "Method not allowed",
    page: "/charges takes POST to charge and GET to read; the problem pages take GET.",
};

pub const STORE_FAILED: Kind = Kind {
    name: "store-failed",
    status: 500,
    title: "The database failed",
    page: "The processor could not read or write its SQLite database. Whatever the transaction \
held was rolled back.",
};

/// Every kind, for the pages.
pub const ALL: [Kind; 11] = [
    KEY_MISSING,
    KEY_INVALID,
    KEY_IN_PROGRESS,
    KEY_REUSED,
    DUPLICATE_REQUEST,
    INVALID_BODY,
    BODY_TOO_LARGE,
    HEADERS_TOO_LARGE,
    NOT_FOUND,
    METHOD,
    STORE_FAILED,
];

impl Kind {
    /// The page's path, which is also the problem's `type`.
    pub fn path(self) -> String {
        format!("/problems/{}", self.name)
    }

    /// The problem+json body, with a detail about this request.
    pub fn body(self, detail: &str) -> String {
        json!({
            "type": self.path(),
            "title": self.title,
            "status": self.status,
            "detail": detail,
        })
        .to_string()
    }

    /// The whole answer: the problem+json body, a `Link` to the page for the refusals a
    /// client can mend (400, 409, 422), and `Retry-After` for a request still in progress.
    pub fn response(self, detail: &str) -> Response {
        let mut response = Response::new(self.status, PROBLEM, self.body(detail));
        if matches!(self.status, 400 | 409 | 422) {
            response = response.with("Link", format!("<{}>; rel=\"describedby\"", self.path()));
        }
        if self.status == 409 {
            response = response.with("Retry-After", "1");
        }
        response
    }
}

/// The kind whose page is at `/problems/NAME`.
pub fn by_name(name: &str) -> Option<Kind> {
    ALL.into_iter().find(|k| k.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_problem_is_valid_json_with_its_status() {
        for k in ALL {
            let v: serde_json::Value = serde_json::from_str(&k.body("d")).expect("JSON");
            assert_eq!(v["status"], k.status);
            assert_eq!(v["type"], k.path());
            assert_eq!(by_name(k.name), Some(k));
            assert!((400..600).contains(&k.status));
        }
    }

    /// The pages about size limits give the limits the server enforces.
    #[test]
    fn the_limit_pages_give_the_servers_limits() {
        let limits = super::super::http::Limits::default();
        assert!(
            HEADERS_TOO_LARGE
                .page
                .contains(&format!("{} KiB of headers", limits.head / 1024)),
            "{}",
            HEADERS_TOO_LARGE.page
        );
        assert!(
            HEADERS_TOO_LARGE
                .page
                .contains(&format!("{} header lines", limits.headers)),
            "{}",
            HEADERS_TOO_LARGE.page
        );
        assert!(
            BODY_TOO_LARGE
                .page
                .contains(&format!("{} KiB of body", limits.body / 1024)),
            "{}",
            BODY_TOO_LARGE.page
        );
    }

    /// Every refusal a client can mend links to its page, wherever it is made.
    #[test]
    fn a_mendable_refusal_links_to_its_page() {
        for k in ALL {
            let r = k.response("d");
            let link = r.headers.iter().find(|(n, _)| *n == "Link");
            assert_eq!(
                link.is_some(),
                matches!(k.status, 400 | 409 | 422),
                "{}",
                k.name
            );
        }
    }
}
