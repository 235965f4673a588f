//! The index against the batch pipeline, its storage against crashes.

mod corpus;
mod crash;
mod engines;
mod format;
mod same_answers;
mod verify;
