//! Teaching a room: the link that lets `idem notes` in a second terminal follow the
//! presenter over a local Unix socket. The screens on either end belong to the terminal UI.

pub mod link;
