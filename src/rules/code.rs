//! The words the rules on code share with the front-ends
//! ([`crate::model::words`]), under the name the rules use.

pub use crate::model::words::*;
