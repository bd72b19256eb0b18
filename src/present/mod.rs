//! Teaching a room: the presenter's screen, and the link that lets `idem notes` in a second
//! terminal follow the presenter over a local Unix socket.

pub mod link;
pub mod notes;
