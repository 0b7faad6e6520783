mod baseline;
mod cli;
mod config;
mod fixtures;
mod meta;
mod output;
mod robustness;
mod util;
