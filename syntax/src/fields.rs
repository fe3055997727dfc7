//! The grammar's field ids, looked up by name once. `Node::child_by_field_name`
//! resolves the name on every call by comparing it with the grammar's field
//! names one by one (`strncmp`: 4.7% of `nilc check` of a 20,000-statement
//! function); the lowering asks for a field of nearly every node.

use std::sync::OnceLock;

use rustc_hash::FxHashMap;
use tree_sitter::Node;

fn ids() -> &'static FxHashMap<String, u16> {
    static IDS: OnceLock<FxHashMap<String, u16>> = OnceLock::new();
    IDS.get_or_init(|| {
        let language: tree_sitter::Language = tree_sitter_nilang::LANGUAGE.into();
        (1..=language.field_count() as u16)
            .filter_map(|id| Some((language.field_name_for_id(id)?.to_string(), id)))
            .collect()
    })
}

/// A node's child by field name, through the field's id.
pub(crate) trait Field<'t> {
    /// The first child in the field `name` (`None` for a name the grammar
    /// does not have, as `child_by_field_name` answers).
    fn field(&self, name: &str) -> Option<Node<'t>>;
}

impl<'t> Field<'t> for Node<'t> {
    fn field(&self, name: &str) -> Option<Node<'t>> {
        self.child_by_field_id(*ids().get(name)?)
    }
}
