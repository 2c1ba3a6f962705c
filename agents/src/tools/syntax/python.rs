//! What `ast_search` and `repo_map` look for in Python.

use super::lang::SyntaxKind;

/// Definitions: each pattern captures the item as its kind and its `@name`.
/// A function directly in a class becomes a method; a constant is a
/// module-level assignment to an UPPER_CASE name.
pub const DEFINITIONS: &str = r#"
(function_definition name: (identifier) @name) @function
(class_definition name: (identifier) @name) @class
(type_alias_statement left: (type (identifier) @name)) @type
(module (expression_statement (assignment left: (identifier) @name) @const)
  (#match? @name "^[A-Z][A-Z0-9_]*$"))
"#;

/// Call sites: plain and attribute calls (`f()`, `obj.f()`).
pub const CALLS: &str = r#"
(call function: (identifier) @name) @call
(call function: (attribute attribute: (identifier) @name)) @call
"#;

/// How `repo_map` names a kind of item.
pub fn keyword(kind: SyntaxKind) -> &'static str {
    match kind {
        SyntaxKind::Function | SyntaxKind::Method => "def",
        SyntaxKind::Struct
        | SyntaxKind::Class
        | SyntaxKind::Impl
        | SyntaxKind::Trait
        | SyntaxKind::Interface
        | SyntaxKind::Enum => "class",
        SyntaxKind::Type => "type",
        SyntaxKind::Const => "const",
        SyntaxKind::Module => "module",
        SyntaxKind::Call => "call",
    }
}
