//! Which endpoints the drill may send to: an `http` or `https` URL on the loopback
//! interface, or anywhere at all with `--allow-remote`.

use std::net::{IpAddr, ToSocketAddrs};

/// A URL the drill has checked it may send to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub url: String,
    /// Whether it is on this machine's loopback interface.
    pub loopback: bool,
}

/// The longest URL taken.
const MAX_URL: usize = 2048;

/// Checks `url` (named by `flag` in messages): its form, and that it is on loopback unless
/// `allow_remote`. A host name other than `localhost` is refused without being looked up.
pub fn check(url: &str, flag: &str, allow_remote: bool) -> Result<Target, String> {
    let shown = crate::text::shorten(&crate::text::sanitize_line(url), 80);
    if url.len() > MAX_URL {
        return Err(format!("{flag} is longer than {MAX_URL} bytes"));
    }
    let uri: ureq::http::Uri = url.parse().map_err(|_| {
        format!("{flag} `{shown}` is not a URL such as http://127.0.0.1:8080/charges")
    })?;
    let scheme = uri.scheme_str().unwrap_or("");
    if scheme != "http" && scheme != "https" {
        return Err(format!(
            "{flag} `{shown}` is not an http:// or https:// URL"
        ));
    }
    let Some(host) = uri.host() else {
        return Err(format!("{flag} `{shown}` names no host"));
    };
    // A port past 65535 is no port at all: said plainly, before anything is sent.
    if let Some(port) = uri
        .authority()
        .and_then(|a| a.as_str().rsplit_once(':'))
        .map(|(_, p)| p)
        .filter(|p| !p.is_empty() && !p.ends_with(']'))
        && port.parse::<u16>().is_err()
    {
        return Err(format!(
            "{flag} `{shown}` names the port {}, and ports run from 1 to 65535",
            crate::text::shorten(&crate::text::sanitize_line(port), 12)
        ));
    }
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = match bare.parse::<IpAddr>() {
        // An IPv4 address mapped into IPv6 is that IPv4 address.
        Ok(IpAddr::V6(v6)) => v6
            .to_ipv4_mapped()
            .map_or(v6.is_loopback(), |v4| v4.is_loopback()),
        Ok(ip) => ip.is_loopback(),
        Err(_) if bare.eq_ignore_ascii_case("localhost") => {
            let port = uri
                .port_u16()
                .unwrap_or(if scheme == "https" { 443 } else { 80 });
            match (bare, port).to_socket_addrs() {
                Ok(addrs) => {
                    let addrs: Vec<_> = addrs.collect();
                    !addrs.is_empty() && addrs.iter().all(|a| a.ip().is_loopback())
                }
                Err(_) => false,
            }
        }
        Err(_) => false,
    };
    if !loopback && !allow_remote {
        return Err(format!(
            "{flag} `{shown}` is not on this machine's loopback interface (127.0.0.1, [::1] or localhost); the drill sends charges, so it goes elsewhere only with --allow-remote"
        ));
    }
    Ok(Target {
        url: url.to_string(),
        loopback,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_only_unless_allowed() {
        for ok in [
            "http://127.0.0.1:8080/charges",
            "http://127.3.2.1/x",
            "http://[::1]:9/charges",
            "http://[::ffff:127.0.0.1]:9/charges",
            "https://127.0.0.1/charges",
        ] {
            assert!(check(ok, "URL", false).expect(ok).loopback, "{ok}");
        }
        for remote in [
            "http://10.0.0.1/charges",
            "http://192.168.1.2/charges",
            "https://api.example.com/charges",
            "http://[2001:db8::1]/x",
        ] {
            let err = check(remote, "URL", false).expect_err(remote);
            assert!(err.contains("--allow-remote"), "{err}");
            let allowed = check(remote, "URL", true).expect("allowed");
            assert!(!allowed.loopback);
        }
        for bad in [
            "ftp://127.0.0.1/x",
            "127.0.0.1:8080",
            "not a url",
            "http:///x",
        ] {
            assert!(check(bad, "URL", true).is_err(), "{bad}");
        }
        let err = check("http://127.0.0.1:99999/charges", "URL", false).expect_err("no port");
        assert!(err.contains("ports run from 1 to 65535"), "{err}");
    }
}
