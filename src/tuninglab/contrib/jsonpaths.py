"""Walking a result document and naming a place in it as data.check's lines do: points/0/runs/1,
(top) for the document itself."""

from tuninglab.results.result import Result


def walk(value, path=()):
    """(path, value) of every value in document order, iteratively: a deeply nested file must
    not overflow the stack."""
    stack = [(tuple(path), value)]
    while stack:
        path, value = stack.pop()
        yield path, value
        if isinstance(value, dict):
            stack += reversed([((*path, k), v) for k, v in value.items()])
        elif isinstance(value, list):
            stack += reversed([((*path, i), v) for i, v in enumerate(value)])


def runs(doc: dict):
    """(its path, the run) of every run of every point."""
    for i, point in enumerate(Result(doc).points):
        for j, run in enumerate(point.runs):
            yield ("points", i, "runs", j), run


def fmt(path) -> str:
    """A JSON path as document.validate writes it: points/0/runs/1, (top) for the document."""
    if isinstance(path, str):
        return path
    return "/".join(map(str, path)) or "(top)"


def at(path, message: str) -> str:
    return f"{fmt(path)}: {message}"


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)
