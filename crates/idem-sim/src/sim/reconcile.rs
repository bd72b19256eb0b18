//! The shop's reconciliation job: at its time it compares the processor's ledger with what
//! the shop believes of each order, and puts right what it can, one tick per action.

use super::config::Unconfirmed;
use super::fact::Fact;
use super::money::Cents;
use super::state::{Belief, ChargeId, Refund, RefundReason};
use super::time::Instant;
use super::trace::{Actor, IntentReconcile, ReconcileOutcome, TickKind};
use super::world::{TickDraft, World};

/// One thing the job does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Action {
    Refund {
        intent: usize,
        charge: ChargeId,
        amount: Cents,
        charged_at: Instant,
        why: RefundReason,
    },
    MarkPaid {
        intent: usize,
        charge: ChargeId,
    },
    Alert {
        intent: usize,
    },
}

impl World<'_> {
    /// Runs the job: one tick for the comparison, then one for each action it takes.
    pub(super) fn on_reconcile(&mut self, policy: Unconfirmed) {
        let mut actions = Vec::new();
        let (mut orders, mut pending) = (0, 0);
        for intent in 0..self.clients.len() {
            let belief = self.clients[intent].belief;
            if matches!(belief, Belief::Waiting | Belief::NotStarted) {
                pending += 1;
                continue;
            }
            orders += 1;
            let refunded: Vec<ChargeId> = self
                .refunds
                .iter()
                .filter(|r| r.intent == intent)
                .map(|r| r.charge)
                .collect();
            let charges: Vec<(ChargeId, Cents, Instant)> = self
                .ledger
                .iter()
                .filter(|c| c.intent == intent && !refunded.contains(&c.id))
                .map(|c| (c.id, c.amount, c.at))
                .collect();
            let Some(&(first, first_amount, first_at)) = charges.first() else {
                if belief == Belief::Paid {
                    actions.push(Action::Alert { intent });
                }
                continue;
            };
            for &(charge, amount, charged_at) in &charges[1..] {
                actions.push(Action::Refund {
                    intent,
                    charge,
                    amount,
                    charged_at,
                    why: RefundReason::Duplicate,
                });
            }
            if belief != Belief::Paid {
                actions.push(match policy {
                    Unconfirmed::Refund => Action::Refund {
                        intent,
                        charge: first,
                        amount: first_amount,
                        charged_at: first_at,
                        why: RefundReason::Unconfirmed,
                    },
                    Unconfirmed::MarkPaid => Action::MarkPaid {
                        intent,
                        charge: first,
                    },
                });
            }
        }
        self.record(TickDraft::new(
            Actor::Checkout,
            TickKind::Reconcile,
            Fact::Reconcile {
                orders,
                pending,
                charges: self.ledger.len(),
                actions: actions.len(),
            },
        ));
        for action in actions {
            self.act(action);
        }
    }

    fn act(&mut self, action: Action) {
        let draft = match action {
            Action::Refund {
                intent,
                charge,
                amount,
                charged_at,
                why,
            } => {
                let refund = Refund {
                    charge,
                    amount,
                    order: self.clients[intent].order.clone(),
                    intent,
                    why,
                    at: self.now,
                    charged_at,
                };
                self.add_refund(refund);
                TickDraft::new(
                    Actor::Checkout,
                    TickKind::Refund,
                    Fact::Refund {
                        charge,
                        why,
                        charged_at,
                    },
                )
                .of(intent, None)
            }
            Action::MarkPaid { intent, charge } => {
                self.client_mut(intent).marked_paid = true;
                TickDraft::new(
                    Actor::Checkout,
                    TickKind::MarkPaid,
                    Fact::MarkPaid { charge },
                )
                .of(intent, None)
            }
            Action::Alert { intent } => {
                self.client_mut(intent).alerted = true;
                TickDraft::new(Actor::Checkout, TickKind::Alert, Fact::ShippedUnpaid)
                    .of(intent, None)
            }
        };
        self.record(draft);
    }

    /// What the job did for one order, once the run is over.
    pub(super) fn reconciled(&self, intent: usize) -> IntentReconcile {
        let charged: i64 = self
            .ledger
            .iter()
            .filter(|c| c.intent == intent)
            .map(|c| c.amount.0)
            .sum();
        let mine = || self.refunds.iter().filter(move |r| r.intent == intent);
        let refunded: i64 = mine().map(|r| r.amount.0).sum();
        IntentReconcile {
            refunds: mine().count(),
            refunded_cents: Cents(refunded),
            net_cents: Cents(charged - refunded),
            unowed_ms: mine().map(|r| r.at.0.saturating_sub(r.charged_at.0)).max(),
            marked_paid: self.clients[intent].marked_paid,
            alert: self.clients[intent].alerted,
        }
    }

    /// What the job did over the whole run.
    pub(super) fn reconcile_outcome(&self, at: Instant) -> ReconcileOutcome {
        let per: Vec<IntentReconcile> = (0..self.clients.len())
            .map(|i| self.reconciled(i))
            .collect();
        let refunded: i64 = self.refunds.iter().map(|r| r.amount.0).sum();
        let charged: i64 = self.ledger.iter().map(|c| c.amount.0).sum();
        ReconcileOutcome {
            at,
            refunds: self.refunds.len(),
            refunded_cents: Cents(refunded),
            net_cents: Cents(charged - refunded),
            marked_paid: per.iter().filter(|p| p.marked_paid).count(),
            alerts: per.iter().filter(|p| p.alert).count(),
            unowed_ms: per.iter().filter_map(|p| p.unowed_ms).max(),
        }
    }
}
