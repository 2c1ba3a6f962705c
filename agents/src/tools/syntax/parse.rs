//! Parsing one file with tree-sitter and running a language's queries:
//! what is defined where (and inside what), and where names are called.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use tree_sitter::{Node, Parser, Query, QueryCursor, StreamingIterator, Tree};

use super::SearchKind;
use super::lang::{Grammar, SyntaxKind};
use crate::tools::ToolError;

/// One definition or call found in a file.
#[derive(Debug, Clone)]
pub struct Found {
    pub kind: SyntaxKind,
    /// The name; an `impl`'s is its type without generics or path.
    pub name: String,
    /// The line of the name, from 0.
    pub row: usize,
    /// For an `impl Trait for Type`: the trait.
    pub implements: Option<String>,
    /// The definition this one lies in, by index (definitions only).
    pub parent: Option<usize>,
    start: usize,
    end: usize,
}

/// A parser and the compiled queries of each grammar met so far.
#[derive(Default)]
pub struct Parsers {
    loaded: HashMap<Grammar, Loaded>,
}

struct Loaded {
    parser: Parser,
    definitions: Query,
    calls: Query,
}

impl Parsers {
    /// The definitions in `text`, in source order, each with its parent;
    /// `None` when the file could not be parsed.
    pub fn definitions(
        &mut self,
        grammar: Grammar,
        text: &str,
    ) -> Result<Option<Vec<Found>>, ToolError> {
        self.find(grammar, text, SearchKind::Definition)
    }

    /// What `kind` asks for in `text` (definitions with their parents, call
    /// sites, or both), from one parse; `None` when it could not be parsed.
    pub fn find(
        &mut self,
        grammar: Grammar,
        text: &str,
        kind: SearchKind,
    ) -> Result<Option<Vec<Found>>, ToolError> {
        let loaded = self.load(grammar)?;
        let Some(tree) = loaded.parser.parse(text, None) else {
            return Ok(None);
        };
        let mut found = Vec::new();
        if kind != SearchKind::Call {
            found = run(&loaded.definitions, &tree, text);
            nest(&mut found);
        }
        if kind != SearchKind::Definition {
            found.extend(run(&loaded.calls, &tree, text));
        }
        Ok(Some(found))
    }

    fn load(&mut self, grammar: Grammar) -> Result<&mut Loaded, ToolError> {
        Ok(match self.loaded.entry(grammar) {
            Entry::Occupied(entry) => entry.into_mut(),
            Entry::Vacant(entry) => entry.insert(Loaded::new(grammar)?),
        })
    }
}

impl Loaded {
    fn new(grammar: Grammar) -> Result<Self, ToolError> {
        let language = grammar.tree_sitter();
        let mut parser = Parser::new();
        parser
            .set_language(&language)
            .map_err(|e| broken(grammar, &e))?;
        let (definitions, calls) = grammar.queries();
        Ok(Self {
            parser,
            definitions: Query::new(&language, definitions).map_err(|e| broken(grammar, &e))?,
            calls: Query::new(&language, calls).map_err(|e| broken(grammar, &e))?,
        })
    }
}

fn broken(grammar: Grammar, error: &dyn std::fmt::Display) -> ToolError {
    ToolError::Failed(format!(
        "the {grammar:?} syntax queries cannot load: {error}"
    ))
}

/// Runs `query`: one [`Found`] per matched node, the earliest pattern
/// winning where two match the same node; sorted by position.
fn run(query: &Query, tree: &Tree, text: &str) -> Vec<Found> {
    let names = query.capture_names();
    let mut by_node: HashMap<usize, (usize, Found)> = HashMap::new();
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(query, tree.root_node(), text.as_bytes());
    while let Some(found) = matches.next() {
        let mut item = None;
        let mut name = None;
        for capture in found.captures() {
            let label = names.get(capture.index as usize).copied().unwrap_or("");
            match SyntaxKind::from_capture(label) {
                Some(kind) => item = Some((kind, capture.node)),
                None if label == "name" => name = Some(capture.node),
                None => {}
            }
        }
        let (Some((kind, node)), Some(name)) = (item, name) else {
            continue;
        };
        let Some(found_here) = found_at(kind, node, name, text) else {
            continue;
        };
        let earlier = by_node
            .get(&node.id())
            .is_some_and(|(pattern, _)| *pattern <= found.pattern_index);
        if !earlier {
            by_node.insert(node.id(), (found.pattern_index, found_here));
        }
    }
    let mut all: Vec<Found> = by_node.into_values().map(|(_, found)| found).collect();
    all.sort_by(|a, b| (a.start, b.end).cmp(&(b.start, a.end)));
    all
}

fn found_at(kind: SyntaxKind, node: Node<'_>, name: Node<'_>, text: &str) -> Option<Found> {
    let source = text.as_bytes();
    let raw = name.utf8_text(source).ok()?;
    let implements = (kind == SyntaxKind::Impl)
        .then(|| node.child_by_field_name("trait"))
        .flatten()
        .and_then(|t| t.utf8_text(source).ok())
        .map(str::to_owned);
    Some(Found {
        kind,
        name: if kind == SyntaxKind::Impl {
            base_type_name(raw)
        } else {
            raw.to_owned()
        },
        // The name's line, not the item's: attributes and decorators come first.
        row: name.start_position().row,
        implements,
        parent: None,
        start: node.start_byte(),
        end: node.end_byte(),
    })
}

/// `a::Foo<T>` → `Foo`, `&'a Foo` → `Foo`.
fn base_type_name(text: &str) -> String {
    let plain = text.split('<').next().unwrap_or(text);
    let last = plain.rsplit("::").next().unwrap_or(plain);
    last.rsplit(|c: char| c.is_whitespace() || c == '&')
        .next()
        .unwrap_or(last)
        .trim()
        .to_owned()
}

/// Sets each definition's parent (the innermost one around it) and turns
/// functions directly inside an `impl`, trait or class into methods.
/// `found` is sorted by start, outer before inner.
fn nest(found: &mut [Found]) {
    let mut open: Vec<usize> = Vec::new();
    for index in 0..found.len() {
        let start = found[index].start;
        while open.last().is_some_and(|&top| found[top].end <= start) {
            open.pop();
        }
        if let Some(&parent) = open.last() {
            found[index].parent = Some(parent);
            if found[index].kind == SyntaxKind::Function && found[parent].kind.holds_methods() {
                found[index].kind = SyntaxKind::Method;
            }
        }
        open.push(index);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn every_grammar_loads_with_its_queries() {
        let mut parsers = Parsers::default();
        for grammar in Grammar::ALL {
            parsers.load(grammar).unwrap();
        }
    }

    #[test]
    fn an_impl_is_named_by_its_bare_type() {
        assert_eq!(base_type_name("crate::a::Foo<T>"), "Foo");
        assert_eq!(base_type_name("&'a mut Bar"), "Bar");
        assert_eq!(base_type_name("Baz"), "Baz");
    }

    #[test]
    fn a_function_in_an_impl_is_a_method_and_one_in_a_function_is_not() {
        let text = "impl A {\n    fn m() {\n        fn inner() {}\n    }\n}\nfn f() {}\n";
        let found = Parsers::default()
            .definitions(Grammar::Rust, text)
            .unwrap()
            .unwrap();
        let seen: Vec<(SyntaxKind, &str, Option<usize>)> = found
            .iter()
            .map(|f| (f.kind, f.name.as_str(), f.parent))
            .collect();
        assert_eq!(
            seen,
            [
                (SyntaxKind::Impl, "A", None),
                (SyntaxKind::Method, "m", Some(0)),
                (SyntaxKind::Function, "inner", Some(1)),
                (SyntaxKind::Function, "f", None),
            ]
        );
    }
}
