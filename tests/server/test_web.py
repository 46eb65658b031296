"""The server serves the browser table's files, and nothing else from the disk."""

from __future__ import annotations

import urllib.request

import pytest

from server.app import Server
from server.web import web_file


@pytest.mark.parametrize("path", ["/play", "/watch", "/direct", "/play/"])
def test_links_open_the_table_page(path: str) -> None:
    page = web_file(path)
    assert page is not None
    content_type, body = page
    assert content_type.startswith("text/html")
    assert b"<html" in body.lower()


@pytest.mark.parametrize(
    "path",
    [
        "/web/../../server/app.py",
        "/web/../index.html/..",
        "/web/%2e%2e/server/app.py",
        "/etc/passwd",
        "/web/",
    ],
)
def test_nothing_outside_the_web_folder(path: str) -> None:
    assert web_file(path) is None


@pytest.mark.asyncio
async def test_pages_over_http(server: Server) -> None:
    def get(path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(f"{server.public_url}{path}", timeout=10) as response:
                return response.status, response.headers["Content-Type"]
        except urllib.error.HTTPError as error:
            return error.code, error.headers["Content-Type"]

    import asyncio

    assert await asyncio.to_thread(get, "/play") == (200, "text/html; charset=utf-8")
    assert (await asyncio.to_thread(get, "/health"))[0] == 200
    assert (await asyncio.to_thread(get, "/web/../server/app.py"))[0] == 404
