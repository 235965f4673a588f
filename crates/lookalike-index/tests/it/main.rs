//! The index against the batch pipeline, its storage against crashes.

mod corpus;
mod crash;
mod engines;
mod same_answers;
mod verify;
