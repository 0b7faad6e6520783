mod cli;
mod fixtures;
mod meta;
mod output;
mod robustness;
mod util;
