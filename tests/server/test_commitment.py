"""Deals nobody can doubt, on a real server: every viewer holds the commitment from its
first view; the deal set (and its salt) is published in the record when the match ends,
never before; the record then verifies, with the command line too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from bridge.commitment import DealSet, VerificationFailed, seeded_deal, verify_record
from clients.client import Client, ClientError, Link
from protocol.codec import encode
from protocol.errors import ErrorCode
from protocol.messages import MatchSummary
from server.app import Server
from tests.conftest import ORGANISER_KEY
from tests.server.harness import create


def verify_command(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "duplicate", "verify", *args],
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.asyncio
async def test_the_deals_played_are_the_ones_committed_to(server: Server, tmp_path: Path) -> None:
    created = await create(server, boards=3, robots=["t1", "t2"], spectators="live")
    commitment = created.deals_commitment
    config = (await server.runtime(created.match_id)).config
    deals = config.deal_set()
    assert deals is not None
    assert deals.commitment() == commitment
    salt = deals.salt

    director = await Client.connect(created.director)
    assert created.spectator is not None
    spectator = await Client.connect(created.spectator)
    for client in (director, spectator):
        first = client.view
        assert first is not None
        assert first.match.deals_commitment == commitment

    early = await director.record()
    assert commitment in early
    assert salt not in early
    with pytest.raises(VerificationFailed, match="when the match ends"):
        verify_record(early)

    final = await director.wait_for(lambda v: v if v.match.finished else None, timeout=120)
    await spectator.wait_for(lambda v: v if v.match.finished else None, timeout=30)
    # No frame before the end (nor after it: the views never carry it) holds the salt.
    for client in (director, spectator):
        for message in client.received:
            assert salt.encode() not in encode(message)
    summary: MatchSummary = final.match
    assert summary.deals_commitment == commitment

    text = await spectator.record()
    checked = verify_record(text, expected=commitment)
    assert (checked.boards, checked.games) == (3, 6)
    assert DealSet.parse(deals.text()) == deals

    path = tmp_path / "match.pbn"
    path.write_text(text, encoding="utf-8")
    done = verify_command(str(path), "--commitment", commitment)
    assert done.returncode == 0, done.stderr
    assert f"the 3 boards committed to (sha256 {commitment})" in done.stdout

    # The same record with one card moved between two hands of a played deal: refused.
    first_deal = deals.boards[0][3].to_pbn()
    north, east, *rest = first_deal[2:].split(" ")
    tampered_deal = "N:" + " ".join([east, north, *rest])
    assert f'[Deal "{first_deal}"]' in text
    tampered = text.replace(f'[Deal "{first_deal}"]', f'[Deal "{tampered_deal}"]')
    assert tampered != text
    path.write_text(tampered, encoding="utf-8")
    refused = verify_command(str(path))
    assert refused.returncode == 2
    assert "board 1 was played with another deal" in refused.stderr

    # Given another commitment than the record's: refused.
    path.write_text(text, encoding="utf-8")
    other = verify_command(str(path), "--commitment", "0" * 64)
    assert other.returncode == 2
    assert "not the one given" in other.stderr
    await director.close()
    await spectator.close()


@pytest.mark.asyncio
async def test_boards_drawn_from_a_sealed_seed_and_a_public_value(server: Server) -> None:
    organiser = await Client.connect(Link(server.ws_url, ORGANISER_KEY))
    sealed = await organiser.seal_deals()
    assert len(sealed.seed_commitment) == 64
    # Announced after the seed's commitment was published: nobody could have chosen it.
    public = "Dice thrown at the club, 1 Dec 2026: 3 6 1 4 4 2"
    created = await organiser.create_match(
        boards=2, robots=["t1", "t2"], seal=sealed.seal, public_value=public, review_seconds=0
    )
    # A seal is good for one match only.
    with pytest.raises(ClientError) as again:
        await organiser.create_match(boards=2, seal=sealed.seal, public_value=public)
    assert again.value.code == ErrorCode.INVALID_MESSAGE
    assert "no such seal" in again.value.message
    director = await Client.connect(created.director)
    assert director.view is not None
    summary = director.view.match
    assert (summary.deals_seed_commitment, summary.deals_public_value) == (
        sealed.seed_commitment,
        public,
    )
    assert f"% deal seed commitment sha256 {sealed.seed_commitment}" in await director.record()
    await director.wait_for(lambda v: v if v.match.finished else None, timeout=120)
    record = await director.record()
    checked = verify_record(record, created.deals_commitment, sealed.seed_commitment)
    assert (checked.seed_commitment, checked.public) == (sealed.seed_commitment, public)
    deals = (await server.runtime(created.match_id)).config.deal_set()
    assert deals is not None
    assert deals.seed is not None
    for number, _, _, deal in deals.boards:
        assert deal == seeded_deal(deals.seed, public, number)
    await director.close()
    await organiser.close()


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"seal": "x"}, "needs its public value"),
        ({"public_value": "x"}, "needs its public value"),
        ({"seal": "x", "public_value": "y", "deals_pbn": '[Board "1"]'}, "not both"),
        ({"seal": "never-given", "public_value": "y"}, "no such seal"),
    ],
)
@pytest.mark.asyncio
async def test_a_seal_refused(server: Server, options: dict[str, str], says: str) -> None:
    organiser = await Client.connect(Link(server.ws_url, ORGANISER_KEY))
    with pytest.raises(ClientError) as refused:
        await organiser.create_match(boards=1, **options)  # type: ignore[arg-type]
    assert refused.value.code == ErrorCode.INVALID_MESSAGE
    assert says in refused.value.message
    await organiser.close()


@pytest.mark.asyncio
async def test_only_the_organiser_seals(server: Server) -> None:
    created = await create(server, boards=1)
    player = await Client.connect(next(s.link for s in created.seats if s.link))
    with pytest.raises(ClientError) as refused:
        await player.seal_deals()
    assert refused.value.code == ErrorCode.FORBIDDEN
    await player.close()


@pytest.mark.asyncio
async def test_a_seal_never_starts_with_a_dash(server: Server) -> None:
    # The organiser types it after --seal; one that began with "-" was taken for an option
    # (a URL-safe token does one time in 64: over 300 seals, all but certainly once).
    organiser = await Client.connect(Link(server.ws_url, ORGANISER_KEY))
    seals = [(await organiser.seal_deals()).seal for _ in range(300)]
    await organiser.close()
    assert len(set(seals)) == 300
    assert not [seal for seal in seals if seal.startswith("-")]
