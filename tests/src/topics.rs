//! The topics the app must show, read from the same content file the app compiles in.

use serde::Deserialize;

#[derive(Debug, Clone, Deserialize)]
pub struct Topic {
    pub path: String,
    pub title: String,
    pub group: String,
    pub summary: String,
    /// The interactive view above the page's text, if it has one.
    #[serde(default)]
    pub view: Option<String>,
}

impl Topic {
    /// A file-name-safe name for the topic: its path without slashes, `overview` for `/`.
    pub fn slug(&self) -> String {
        match self.path.trim_matches('/') {
            "" => "overview".to_string(),
            path => path.replace('/', "-"),
        }
    }
}

#[derive(Deserialize)]
struct TopicsFile {
    topic: Vec<Topic>,
}

pub fn all() -> Vec<Topic> {
    let path = crate::repo_root().join("content/topics.toml");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let file: TopicsFile =
        toml::from_str(&text).unwrap_or_else(|e| panic!("{} is not valid: {e}", path.display()));
    file.topic
}
