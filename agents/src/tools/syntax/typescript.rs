//! What `ast_search` and `repo_map` look for in TypeScript (and TSX, whose
//! grammar has the same node names).

use super::lang::SyntaxKind;

/// Definitions: each pattern captures the item as its kind and its `@name`.
/// `const f = () => …` is a function; the earlier pattern wins on a node.
pub const DEFINITIONS: &str = r#"
(function_declaration name: (identifier) @name) @function
(generator_function_declaration name: (identifier) @name) @function
(function_signature name: (identifier) @name) @function
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @function
(method_definition name: (_) @name) @method
(method_signature name: (_) @name) @method
(abstract_method_signature name: (_) @name) @method
(class_declaration name: (type_identifier) @name) @class
(abstract_class_declaration name: (type_identifier) @name) @class
(interface_declaration name: (type_identifier) @name) @interface
(enum_declaration name: (identifier) @name) @enum
(type_alias_declaration name: (type_identifier) @name) @type
(lexical_declaration kind: "const" (variable_declarator name: (identifier) @name) @const)
(internal_module name: (_) @name) @module
(module name: (identifier) @name) @module
"#;

/// Call sites: plain and member calls, and `new`.
pub const CALLS: &str = r#"
(call_expression function: (identifier) @name) @call
(call_expression function: (member_expression property: (_) @name)) @call
(new_expression constructor: (identifier) @name) @call
(new_expression constructor: (member_expression property: (_) @name)) @call
"#;

/// How `repo_map` names a kind of item; a method is shown by its name alone.
pub fn keyword(kind: SyntaxKind) -> &'static str {
    match kind {
        SyntaxKind::Function => "function",
        SyntaxKind::Method => "",
        SyntaxKind::Struct | SyntaxKind::Class | SyntaxKind::Impl => "class",
        SyntaxKind::Enum => "enum",
        SyntaxKind::Trait | SyntaxKind::Interface => "interface",
        SyntaxKind::Type => "type",
        SyntaxKind::Const => "const",
        SyntaxKind::Module => "namespace",
        SyntaxKind::Call => "call",
    }
}
