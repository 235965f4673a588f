//! The index against the batch pipeline, its storage against crashes.

mod corpus;
mod crash;
mod same_answers;
