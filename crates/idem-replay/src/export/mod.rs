//! The handouts that need no terminal: the Markdown one. The drawn ones (SVG frames, the
//! asciinema recording) are drawn with the replay's own frames, in `idem-tui`.

pub mod markdown;
