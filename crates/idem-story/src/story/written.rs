//! What the file's own words (a question, the trainer's narration) must say once the story
//! they sit in is no longer the one the file tells: what-ifs added, the keys sent another way.

/// What the file's own words (a question, the trainer's narration) must say once `changes`
/// (the what-ifs, the checkout's keys…) have made the story on screen another: they were
/// written for the story the file tells. `None` while nothing changed it.
pub fn written_for_the_file<S: AsRef<str>>(changes: &[S]) -> Option<String> {
    let changes: Vec<&str> = changes.iter().map(AsRef::as_ref).collect();
    (!changes.is_empty()).then(|| {
        format!(
            "written for the file's story; {} changed it here.",
            crate::text::and_list(&changes)
        )
    })
}

/// The line a tick's narration ends with when the trainer's words are part of it and the
/// story on screen is not the one they were written for (the words name the file's keys,
/// its faults): what the screen, the presenter and the notes all say.
pub fn trainer_written_for_the_file<S: AsRef<str>>(
    has_trainer_words: bool,
    changes: &[S],
) -> Option<String> {
    let caveat = written_for_the_file(changes)?;
    has_trainer_words.then(|| format!("The trainer's words at this moment were {caveat}"))
}
