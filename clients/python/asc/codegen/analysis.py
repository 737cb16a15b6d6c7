"""Syntactic analyses the tracer needs before it walks a region."""
import ast
from typing import Iterable, Set

_SCOPE_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
                ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def assigned_names(stmts: Iterable[ast.stmt]) -> Set[str]:
    """Names bound anywhere in `stmts` (nested regions included): the candidates for values
    carried out of a runtime loop or if."""
    names: Set[str] = set()
    stack = list(stmts)
    while stack:
        node = stack.pop()
        if isinstance(node, _SCOPE_NODES):
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        stack.extend(ast.iter_child_nodes(node))
    return names
