//! The languages the syntax tools read, their grammars, and the kinds of
//! things found in them.

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{python, rust, typescript};

/// A language the syntax tools read, chosen by file extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// `.rs`
    Rust,
    /// `.ts`, `.tsx`, `.mts`, `.cts`
    Typescript,
    /// `.py`, `.pyi`
    Python,
}

/// What a match is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SyntaxKind {
    Function,
    /// A function directly inside an `impl`, trait, class or interface.
    Method,
    Struct,
    Class,
    Enum,
    Trait,
    Interface,
    /// A type alias.
    Type,
    /// A constant (or a Rust `static`).
    Const,
    /// A Rust `impl` block, named by its type.
    Impl,
    /// A Rust `mod` or a TypeScript namespace.
    Module,
    /// A call site.
    Call,
}

impl SyntaxKind {
    pub(super) fn from_capture(capture: &str) -> Option<Self> {
        Some(match capture {
            "function" => Self::Function,
            "method" => Self::Method,
            "struct" => Self::Struct,
            "class" => Self::Class,
            "enum" => Self::Enum,
            "trait" => Self::Trait,
            "interface" => Self::Interface,
            "type" => Self::Type,
            "const" => Self::Const,
            "impl" => Self::Impl,
            "module" => Self::Module,
            "call" => Self::Call,
            _ => return None,
        })
    }

    /// Whether a function directly inside it is a method.
    pub(super) fn holds_methods(self) -> bool {
        matches!(
            self,
            Self::Impl | Self::Trait | Self::Class | Self::Interface
        )
    }

    /// Whether `repo_map` lists what is directly inside it.
    pub fn has_members(self) -> bool {
        self.holds_methods() || self == Self::Module
    }
}

/// A grammar: TypeScript and TSX are two.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Grammar {
    Rust,
    TypeScript,
    Tsx,
    Python,
}

impl Grammar {
    /// Every grammar, for checks.
    #[cfg(test)]
    pub const ALL: [Self; 4] = [Self::Rust, Self::TypeScript, Self::Tsx, Self::Python];

    /// The grammar of `path`, by its extension.
    pub fn of(path: &Path) -> Option<Self> {
        match path.extension()?.to_str()? {
            "rs" => Some(Self::Rust),
            "ts" | "mts" | "cts" => Some(Self::TypeScript),
            "tsx" => Some(Self::Tsx),
            "py" | "pyi" => Some(Self::Python),
            _ => None,
        }
    }

    /// The language it reads.
    pub fn language(self) -> Language {
        match self {
            Self::Rust => Language::Rust,
            Self::TypeScript | Self::Tsx => Language::Typescript,
            Self::Python => Language::Python,
        }
    }

    /// How `repo_map` names `kind` in this language.
    pub fn keyword(self, kind: SyntaxKind) -> &'static str {
        match self.language() {
            Language::Rust => rust::keyword(kind),
            Language::Typescript => typescript::keyword(kind),
            Language::Python => python::keyword(kind),
        }
    }

    pub(super) fn tree_sitter(self) -> tree_sitter::Language {
        match self {
            Self::Rust => tree_sitter_rust::LANGUAGE.into(),
            Self::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Self::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Self::Python => tree_sitter_python::LANGUAGE.into(),
        }
    }

    pub(super) fn queries(self) -> (&'static str, &'static str) {
        match self.language() {
            Language::Rust => (rust::DEFINITIONS, rust::CALLS),
            Language::Typescript => (typescript::DEFINITIONS, typescript::CALLS),
            Language::Python => (python::DEFINITIONS, python::CALLS),
        }
    }
}
