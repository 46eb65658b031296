"""The screens a table is measured on, and what is measured there: the helpers of the
layout tests at every size (``test_browser_sizes_*.py``).

A page is measured as it is drawn, at each of :data:`SCREENS` in turn (the page is resized,
not reloaded), and its screenshot kept as ``artifacts/screenshots/sizes/{name}-{w}x{h}.png``.
What must hold at every size (:func:`layout_faults` finds what does not):

- nothing is clipped: no element's content is wider than its box (``scrollWidth`` within
  ``clientWidth``), nothing runs off the screen's sides, and the page never scrolls sideways;
- every seat's tag, hand, the table's middle and its corners keep apart, and each name
  shown at a seat lies whole inside its tag;
- a hand on the table shows one suit a line;
- on a player's page: the player's hand, the bidding box and the table's controls keep
  apart from the table and from each other; the messages never cover the hand or the
  bidding box; on the player's turn what they must act on is in view (the page scrolls it
  there, below the header, when the turn comes and when the screen changes size); and the
  turn and the contract stay in view wherever the page is scrolled.
"""

from __future__ import annotations

from typing import Any

from playwright.async_api import Page

from tests.clients.test_browser import SCREENSHOTS

SCREENS = [
    (360, 640),
    (375, 667),
    (390, 844),
    (412, 915),
    (740, 360),
    (768, 1024),
    (1366, 768),
]
"""Phones (the smallest first), a phone held sideways, a tablet, a laptop."""

FAULTS = r"""({player}) => {
    const faults = [];
    const W = innerWidth;
    // Hidden, or for screen readers only (a box of a pixel, clipped on purpose).
    const tiny = e => { const r = e.getBoundingClientRect(); return r.width <= 1 && r.height <= 1; };
    const hidden = e => e.closest(".visually-hidden, [hidden], select") !== null || tiny(e);
    const shown = e => e.getClientRects().length > 0 && !hidden(e);
    const box = e => e.getBoundingClientRect();
    const name = e => {
        const id = e.id ? "#" + e.id : "";
        const cls = typeof e.className === "string" && e.className ? "." + e.className.trim().split(/\s+/).join(".") : "";
        const data = [...e.attributes].filter(a => a.name.startsWith("data-")).slice(0, 2)
            .map(a => `[${a.name}="${a.value}"]`).join("");
        return e.tagName.toLowerCase() + id + cls + data;
    };
    const where = e => {
        const table = e.closest("[data-table]");
        return (table && table !== e ? `table ${table.dataset.table}: ` : "") + name(e);
    };
    const overlap = (a, b) =>
        Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1
        && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1;

    // Nothing clipped, nothing off the sides.
    if (document.scrollingElement.scrollWidth > W) {
        faults.push(`the page scrolls sideways: ${document.scrollingElement.scrollWidth} > ${W}`);
    }
    for (const e of document.querySelectorAll("body *")) {
        if (!shown(e)) continue;
        if (e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1 && !["INPUT", "TEXTAREA"].includes(e.tagName)) {
            faults.push(`clipped: ${where(e)} holds ${e.scrollWidth} px in ${e.clientWidth}`);
        }
        const r = box(e);
        if (r.width > 0 && (r.left < -1 || r.right > W + 1)) {
            faults.push(`off the screen: ${where(e)} spans ${Math.round(r.left)}..${Math.round(r.right)} of ${W}`);
        }
    }

    // Each compass: its parts apart, names whole in their tags, one suit a line.
    for (const grid of document.querySelectorAll(".compass-grid")) {
        if (!shown(grid)) continue;
        const parts = [...grid.querySelectorAll(
            ":scope > .board-info, :scope > .contract-info, :scope > .centre, .seat-tag, .hand-rows")]
            .filter(shown);
        for (let i = 0; i < parts.length; i++) {
            for (let j = i + 1; j < parts.length; j++) {
                if (parts[i].contains(parts[j]) || parts[j].contains(parts[i])) continue;
                if (overlap(box(parts[i]), box(parts[j]))) {
                    faults.push(`overlap: ${where(parts[i])} and ${name(parts[j])}`);
                }
            }
        }
        for (const tag of grid.querySelectorAll(".seat-tag")) {
            const t = box(tag);
            for (const part of tag.children) {
                if (!shown(part)) continue;
                for (const line of part.getClientRects()) {
                    if (line.left < t.left - 1 || line.right > t.right + 1 || line.top < t.top - 1 || line.bottom > t.bottom + 1) {
                        faults.push(`outside its tag: ${where(part)} "${part.textContent}"`);
                        break;
                    }
                }
            }
        }
        for (const row of grid.querySelectorAll(".suit-row")) {
            if (!shown(row)) continue;
            const tops = [...row.children].filter(shown).map(c => box(c).top);
            if (Math.max(...tops) - Math.min(...tops) > 4) {
                faults.push(`a suit on two lines: ${where(row)} "${row.textContent}"`);
            }
        }
    }

    if (!player) return faults;
    // The player's page: the hand, the bidding box, the controls apart from the table.
    const own = ["#hand .card", "#bidding-box", "#table-controls", "#compass .compass-grid"];
    const ownBoxes = own.map(s => [...document.querySelectorAll(s)].filter(shown).map(e => [s, box(e)]));
    for (let i = 0; i < ownBoxes.length; i++) {
        for (let j = i + 1; j < ownBoxes.length; j++) {
            for (const [s, a] of ownBoxes[i]) {
                for (const [o, b] of ownBoxes[j]) {
                    if (overlap(a, b)) faults.push(`overlap: ${s} and ${o}`);
                }
            }
        }
    }
    // The player's turn: what they must act on is in view, below the header. In the
    // auction: Pass and the lowest open level; in the play: every card they may play.
    if (document.querySelector("#turn.mine") !== null) {
        const below = document.querySelector("#header").getBoundingClientRect().bottom;
        const box_ = document.querySelector("#bidding-box");
        const needed = shown(box_)
            ? [box_.querySelector('button[data-call="P"]'), box_.querySelector(".level:not([hidden])")]
            : [...document.querySelectorAll("#hand button[data-card]:enabled, #compass button[data-card]:enabled")];
        for (const e of needed) {
            if (e === null) continue;
            const r = box(e);
            if (r.top < below - 1 || r.bottom > innerHeight + 1) {
                faults.push(`out of view on the player's turn: ${where(e)} at ${Math.round(r.top)}..${Math.round(r.bottom)} (the header ends at ${Math.round(below)})`);
            }
        }
    }
    // The messages never cover the hand or the bidding box: what shows of them below the
    // header (the page scrolls under it).
    const headerEnd = document.querySelector("#header").getBoundingClientRect().bottom;
    const showing = e => { const r = box(e); return {left: r.left, right: r.right, top: Math.max(r.top, headerEnd), bottom: r.bottom}; };
    const covered = [...document.querySelectorAll("#hand .card, #bidding-box button, #bidding-box input")].filter(shown);
    for (const message of document.querySelectorAll("#messages .message")) {
        if (!shown(message)) continue;
        for (const under of covered) {
            if (overlap(box(message), showing(under))) {
                faults.push(`a message covers ${name(under)}: "${message.textContent}"`);
                break;
            }
        }
    }
    return faults;
}"""

IN_VIEW = r"""() => {
    // Scrolled to the end of the page: are the turn and the contract still in view?
    const scrolled = document.scrollingElement;
    const before = scrolled.scrollTop;
    scrolled.scrollTop = scrolled.scrollHeight;
    const visible = selector => [...document.querySelectorAll(selector)].some(e => {
        if (e.getClientRects().length === 0) return false;
        const r = e.getBoundingClientRect();
        const top = document.elementFromPoint(Math.min(innerWidth - 1, Math.max(0, (r.left + r.right) / 2)), Math.max(0, r.top + 2));
        return r.top >= 0 && r.bottom <= innerHeight && (top === e || e.contains(top));
    });
    const found = {turn: visible("#turn"), contract: visible("[data-shown-contract]")};
    scrolled.scrollTop = before;
    return found;
}"""


async def layout_faults(page: Page, *, player: bool) -> list[str]:
    """What breaks the rules above on the page as it is drawn now."""
    faults: list[str] = await page.evaluate(FAULTS, {"player": player})
    return faults


async def measure(page: Page, name: str, *, player: bool, contract: bool = False) -> None:
    """Measure the page at every one of :data:`SCREENS` (and keep each screenshot): a
    fault at any size fails the test, with every fault found at every size. ``contract``:
    the board has one, which must stay in view (with the turn) when the page is scrolled."""
    original = page.viewport_size
    found: dict[str, list[str]] = {}
    folder = SCREENSHOTS / "sizes"
    folder.mkdir(parents=True, exist_ok=True)
    try:
        for width, height in SCREENS:
            size = f"{width}x{height}"
            await page.set_viewport_size({"width": width, "height": height})
            await settle(page)
            faults = await layout_faults(page, player=player)
            if player:
                in_view: dict[str, Any] = await page.evaluate(IN_VIEW)
                if not in_view["turn"]:
                    faults.append("the turn is out of view at the end of the page")
                if contract and not in_view["contract"]:
                    faults.append("the contract is out of view at the end of the page")
            await page.screenshot(path=folder / f"{name}-{size}.png")
            if faults:
                found[size] = faults
    finally:
        if original is not None:
            await page.set_viewport_size(original)
    assert not found, f"{name}: " + "; ".join(
        f"at {size}: {' | '.join(sorted(set(faults)))}" for size, faults in found.items()
    )


async def settle(page: Page) -> None:
    """Two frames: the page has been laid out again at its new size."""
    await page.evaluate(
        "new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )
