//! The JSON Schemas of `docs/schema`, for the tests that validate real reports.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// `docs/schema` in the repository.
pub fn schema_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/schema")
}

/// A JSON file, parsed (panics with the file's name).
pub fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Finds the schemas' `$ref`s to each other in `docs/schema` (no network, no guessing).
struct LocalSchemas;

impl jsonschema::Retrieve for LocalSchemas {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        let name = uri
            .as_str()
            .rsplit('/')
            .next()
            .ok_or("a schema URI without a file name")?
            .to_string();
        Ok(read_json(&schema_dir().join(name)))
    }
}

/// The validator of `docs/schema/NAME.schema.json`.
pub fn validator(name: &str) -> jsonschema::Validator {
    let schema = read_json(&schema_dir().join(format!("{name}.schema.json")));
    jsonschema::options()
        .with_retriever(LocalSchemas)
        .build(&schema)
        .unwrap_or_else(|e| panic!("{name}.schema.json: {e}"))
}

/// Fails with every error when `report` does not follow `v`.
pub fn assert_valid(v: &jsonschema::Validator, report: &Value, what: &str) {
    let errors: Vec<String> = v.iter_errors(report).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{what}: {errors:?}\n{report}");
}
