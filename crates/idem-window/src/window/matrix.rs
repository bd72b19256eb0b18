//! The attempts matrix: how fast attempts multiply when every layer of a
//! stack retries the same number of times.
//!
//! Rows are stacks of 1 to 4 layers, columns are 2 to 5 attempts per layer,
//! and each cell holds `attempts ^ layers`, rated `normal` below 16, `amber`
//! from 16 and `red` from 64. This module only provides the data; drawing it
//! is up to the caller (the TUI, for instance).

use serde::Serialize;

/// Layer counts shown as rows.
pub const MATRIX_LAYERS: [u32; 4] = [1, 2, 3, 4];

/// Attempts per layer shown as columns.
pub const MATRIX_ATTEMPTS: [u64; 4] = [2, 3, 4, 5];

/// Totals from this value on are rated amber.
pub const AMBER_FROM: u64 = 16;

/// Totals from this value on are rated red.
pub const RED_FROM: u64 = 64;

/// How worrying a number of attempts per intent is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Below 16 attempts.
    Normal,
    /// 16 to 63 attempts.
    Amber,
    /// 64 attempts or more.
    Red,
}

impl Level {
    /// The rating of `attempts` attempts per intent.
    pub fn of(attempts: u64) -> Self {
        if attempts >= RED_FROM {
            Self::Red
        } else if attempts >= AMBER_FROM {
            Self::Amber
        } else {
            Self::Normal
        }
    }

    /// "normal", "amber" or "red".
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Normal => "normal",
            Self::Amber => "amber",
            Self::Red => "red",
        }
    }
}

/// One cell of the matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct MatrixCell {
    /// Number of layers (the row).
    pub layers: u32,
    /// Attempts made by each layer (the column).
    pub attempts_per_layer: u64,
    /// `attempts_per_layer ^ layers`, saturating at `u64::MAX`.
    pub attempts: u64,
    /// The rating of `attempts`.
    pub level: Level,
}

impl MatrixCell {
    /// The cell for a stack of `layers` layers each making `attempts_per_layer` tries.
    pub fn new(layers: u32, attempts_per_layer: u64) -> Self {
        let attempts = attempts_per_layer.saturating_pow(layers);
        Self {
            layers,
            attempts_per_layer,
            attempts,
            level: Level::of(attempts),
        }
    }
}

/// The whole grid, row by row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AttemptsMatrix {
    /// Row headers: number of layers.
    pub layer_counts: Vec<u32>,
    /// Column headers: attempts per layer.
    pub attempt_counts: Vec<u64>,
    /// `rows[r][c]` is the cell for `layer_counts[r]` and `attempt_counts[c]`.
    pub rows: Vec<Vec<MatrixCell>>,
}

impl AttemptsMatrix {
    /// The cell for `layers` and `attempts_per_layer`, if it is in the grid.
    pub fn cell(&self, layers: u32, attempts_per_layer: u64) -> Option<&MatrixCell> {
        let row = self.layer_counts.iter().position(|&l| l == layers)?;
        let column = self
            .attempt_counts
            .iter()
            .position(|&a| a == attempts_per_layer)?;
        self.rows.get(row)?.get(column)
    }
}

/// The standard grid: 1–4 layers by 2–5 attempts per layer.
pub fn attempts_matrix() -> AttemptsMatrix {
    attempts_matrix_for(&MATRIX_LAYERS, &MATRIX_ATTEMPTS)
}

/// A grid for any row and column headers.
pub fn attempts_matrix_for(layer_counts: &[u32], attempt_counts: &[u64]) -> AttemptsMatrix {
    let rows = layer_counts
        .iter()
        .map(|&layers| {
            attempt_counts
                .iter()
                .map(|&a| MatrixCell::new(layers, a))
                .collect()
        })
        .collect();
    AttemptsMatrix {
        layer_counts: layer_counts.to_vec(),
        attempt_counts: attempt_counts.to_vec(),
        rows,
    }
}
