"""A FastMCP server over a folder of Markdown notes."""
from pathlib import Path

from fastmcp import FastMCP

mcp = FastMCP("notes")

NOTES = Path.home() / "notes"
MAX_RESULTS = 20
MAX_CHARS = 8_000


@mcp.tool(name="notes.search")
def search(query: str, limit: int = 10, tag: str = "") -> str:
    """Find notes whose text contains a word, best matches first.

    Args:
        query: Word or phrase to look for.
        limit: How many notes to list.
        tag: Only notes with this tag.
    """
    limit = min(limit, MAX_RESULTS)
    hits = [p.name for p in sorted(NOTES.glob("*.md")) if query in p.read_text(encoding="utf-8")]
    return "\n".join(hits[:limit]) or "no notes found"


@mcp.tool()
def read_note(name: str) -> str:
    """Return the text of one note, by its file name."""
    text = (NOTES / name).read_text(encoding="utf-8")
    return text[:MAX_CHARS]


@mcp.tool()
def list_notes(folder: str = "") -> str:
    """List the notes of the notes folder (or of a subfolder), newest first."""
    names = sorted(NOTES.glob("**/*.md"), key=lambda p: p.stat().st_mtime, reverse=True)
    lines = [p.name for p in names]
    if len(lines) > 200:
        lines = lines[:200] + [f"… {len(lines) - 200} more"]
    return "\n".join(lines)
