//! What `ast_search` and `repo_map` look for in Rust.

use super::lang::SyntaxKind;

/// Definitions: each pattern captures the item as its kind and its `@name`.
/// A function directly inside an `impl` or a trait becomes a method.
pub const DEFINITIONS: &str = r#"
(function_item name: (identifier) @name) @function
(function_signature_item name: (identifier) @name) @function
(struct_item name: (type_identifier) @name) @struct
(union_item name: (type_identifier) @name) @struct
(enum_item name: (type_identifier) @name) @enum
(trait_item name: (type_identifier) @name) @trait
(type_item name: (type_identifier) @name) @type
(const_item name: (identifier) @name) @const
(static_item name: (identifier) @name) @const
(impl_item type: (_) @name) @impl
(mod_item name: (identifier) @name) @module
"#;

/// Call sites: plain, path (`a::b()`) and method (`x.b()`) calls, and macros.
pub const CALLS: &str = r#"
(call_expression function: (identifier) @name) @call
(call_expression function: (scoped_identifier name: (identifier) @name)) @call
(call_expression function: (field_expression field: (field_identifier) @name)) @call
(call_expression function: (generic_function function: (identifier) @name)) @call
(call_expression function: (generic_function function: (scoped_identifier name: (identifier) @name))) @call
(call_expression function: (generic_function function: (field_expression field: (field_identifier) @name))) @call
(macro_invocation macro: (identifier) @name) @call
(macro_invocation macro: (scoped_identifier name: (identifier) @name)) @call
"#;

/// How `repo_map` names a kind of item.
pub fn keyword(kind: SyntaxKind) -> &'static str {
    match kind {
        SyntaxKind::Function | SyntaxKind::Method => "fn",
        SyntaxKind::Struct | SyntaxKind::Class => "struct",
        SyntaxKind::Enum => "enum",
        SyntaxKind::Trait | SyntaxKind::Interface => "trait",
        SyntaxKind::Type => "type",
        SyntaxKind::Const => "const",
        SyntaxKind::Impl => "impl",
        SyntaxKind::Module => "mod",
        SyntaxKind::Call => "call",
    }
}
