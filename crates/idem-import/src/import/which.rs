//! `--which`: the imported scenario simulated under each of the six designs, and held to what
//! the records show really happened (each order's charges, when known, and what the checkout
//! believed).

use crate::import::write::Facts;
use idem_core::sim::Design;
use std::fmt::Write;

/// One design's run beside the facts.
#[derive(Clone, Debug)]
pub struct Row {
    pub design: Design,
    pub charges: usize,
    pub beliefs: Vec<&'static str>,
    /// Whether it reproduces every known fact.
    pub reproduces: bool,
    /// What differs, when it does not.
    pub differs: Vec<String>,
}

/// Simulates the scenario `text` under every design.
pub fn which(text: &str, facts: &[Facts]) -> Result<Vec<Row>, String> {
    let scenario = idem_core::scenario::parse("imported.toml", "imported", text)
        .map_err(|e| format!("the imported scenario does not load: {}", e.one_line()))?;
    let mut rows = Vec::new();
    for design in Design::ALL {
        let trace = scenario
            .simulate(design)
            .map_err(|e| format!("{}: the simulation could not finish: {e}", design.id()))?;
        let o = &trace.outcome;
        let mut differs = Vec::new();
        let mut beliefs = Vec::new();
        for (i, f) in facts.iter().enumerate() {
            let Some(got) = o.intents.get(i) else {
                differs.push(format!("order {}: not simulated", f.order));
                continue;
            };
            let belief = got.client_view.label();
            beliefs.push(belief);
            if let Some(want) = f.charges
                && ((f.exact && got.charges != want) || (!f.exact && got.charges < want))
            {
                differs.push(format!(
                    "order {}: {} charges, the records {want}",
                    f.order, got.charges
                ));
            }
            if belief != f.belief.id() {
                differs.push(format!(
                    "order {}: the checkout believes {belief}, the records {}",
                    f.order,
                    f.belief.id()
                ));
            }
        }
        rows.push(Row {
            design,
            charges: o.charges,
            beliefs,
            reproduces: differs.is_empty(),
            differs,
        });
    }
    Ok(rows)
}

/// The table `--which` prints.
pub fn table(rows: &[Row], facts: &[Facts]) -> String {
    let mut t = String::new();
    let known: Vec<String> = facts
        .iter()
        .map(|f| {
            let charges = match f.charges {
                Some(n) if f.exact => format!("{n} charged"),
                Some(n) => format!("at least {n} charged"),
                None => "charges not known".to_string(),
            };
            format!(
                "order {}: {charges}, checkout believed {}",
                idem_core::text::sanitize_line(&f.order),
                f.belief.id()
            )
        })
        .collect();
    let _ = writeln!(t, "What the records show: {}", known.join("; "));
    let _ = writeln!(
        t,
        "{:<18} {:>7}  {:<10} reproduces",
        "design", "charges", "checkout"
    );
    for r in rows {
        let verdict = if r.reproduces {
            "yes".to_string()
        } else if r.differs.len() > 3 {
            format!(
                "no: {}; and {} more",
                r.differs[..3].join("; "),
                r.differs.len() - 3
            )
        } else {
            format!("no: {}", r.differs.join("; "))
        };
        // One word when every order ended alike.
        let beliefs = match r.beliefs.first() {
            Some(b) if r.beliefs.iter().all(|x| x == b) && r.beliefs.len() > 1 => {
                format!("{b} ×{}", r.beliefs.len())
            }
            _ => r.beliefs.join("/"),
        };
        let _ = writeln!(
            t,
            "{:<18} {:>7}  {:<10} {verdict}",
            r.design.id(),
            r.charges,
            beliefs
        );
    }
    let yes: Vec<&str> = rows
        .iter()
        .filter(|r| r.reproduces)
        .map(|r| r.design.id())
        .collect();
    if yes.is_empty() {
        let _ = writeln!(
            t,
            "No design reproduces it: the records may hold something the model leaves out (docs/import.md says what is read)."
        );
    } else {
        let _ = writeln!(t, "Reproduced by: {}", yes.join(", "));
    }
    t
}
