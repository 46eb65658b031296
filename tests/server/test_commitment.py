"""Deals nobody can doubt, on a real server: every viewer holds the commitment from its
first view; the deal set (and its salt) is published in the record when the match ends,
never before; the record then verifies, with the command line too."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from bridge import Seat, Vulnerability
from bridge.commitment import (
    DealSet,
    PublicForm,
    VerificationFailed,
    seed_commitment,
    seeded_deal,
    verify_record,
)
from clients.client import Client, ClientError, Link
from protocol.codec import encode
from protocol.errors import ErrorCode
from protocol.messages import DealsSealed, MatchSummary, SealDeals
from server.app import Server
from server.config import BoardSpec, MatchConfig
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
    sealed = await organiser.seal_deals("digits 6: six dice thrown at the club, left to right")
    assert len(sealed.seed_commitment) == 64
    assert sealed.public_form == "digits 6: six dice thrown at the club, left to right"
    # Announced after the seed's commitment was published: nobody could have chosen it.
    public = "Dice thrown at the club: 3 6 1 4 4 2"  # a date in it would be refused
    created = await organiser.create_match(
        boards=2, robots=["t1", "t2"], seal=sealed.seal, public_value=public, review_seconds=0
    )
    # A seal is good for one match only.
    with pytest.raises(ClientError) as again:
        await organiser.create_match(boards=2, seal=sealed.seal, public_value="361442")
    assert again.value.code == ErrorCode.INVALID_MESSAGE
    assert "no such seal" in again.value.message
    director = await Client.connect(created.director)
    assert director.view is not None
    summary = director.view.match
    # The boards were drawn with the value's canonical spelling in the form sealed.
    assert (summary.deals_seed_commitment, summary.deals_public_value) == (
        sealed.seed_commitment,
        "361442",
    )
    assert summary.deals_public_form == sealed.public_form
    assert f"% deal seed commitment sha256 {sealed.seed_commitment}" in await director.record()
    await director.wait_for(lambda v: v if v.match.finished else None, timeout=120)
    record = await director.record()
    checked = verify_record(
        record, created.deals_commitment, sealed.seed_commitment, public_value="3 6 1 4 4 2"
    )
    assert (checked.seed_commitment, checked.public) == (sealed.seed_commitment, "361442")
    deals = (await server.runtime(created.match_id)).config.deal_set()
    assert deals is not None
    assert deals.seed is not None
    assert seed_commitment(deals.seed, deals.form) == sealed.seed_commitment
    for number, _, _, deal in deals.boards:
        assert deal == seeded_deal(deals.seed, "361442", number)
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
async def test_spellings_of_one_roll_draw_the_same_boards(server: Server) -> None:
    """Whoever writes the public value cannot choose among its spellings (#23, item 14)."""
    organiser = await Client.connect(Link(server.ws_url, ORGANISER_KEY))
    deals = []
    for spelling in ("6 2 5 1 3", "dice: 6-2-5-1-3"):
        sealed = await organiser.seal_deals("digits 5")
        created = await organiser.create_match(boards=2, seal=sealed.seal, public_value=spelling)
        config = (await server.runtime(created.match_id)).config
        assert config.deals_public == "62513"
        assert config.deals_seed is not None
        assert [b.deal for b in config.boards] == [
            seeded_deal(config.deals_seed, "62513", n) for n in (1, 2)
        ]
        deals.append(config.deal_set())
    await organiser.close()
    assert all(d is not None and d.form == PublicForm("digits", 5) for d in deals)


@pytest.mark.asyncio
async def test_a_public_value_that_does_not_fit_is_refused_and_the_seal_kept(
    server: Server,
) -> None:
    organiser = await Client.connect(Link(server.ws_url, ORGANISER_KEY))
    sealed = await organiser.seal_deals("digits 5")
    with pytest.raises(ClientError) as refused:
        await organiser.create_match(boards=1, seal=sealed.seal, public_value="6 2 5 1")
    assert refused.value.code == ErrorCode.INVALID_MESSAGE
    assert "has 4 digits" in refused.value.message
    # The seal is not used up by a refused value: the mended one makes the match.
    created = await organiser.create_match(boards=1, seal=sealed.seal, public_value="6 2 5 1 3")
    assert len(created.deals_commitment) == 64
    await organiser.close()


@pytest.mark.asyncio
async def test_a_form_that_cannot_be_read_is_refused(server: Server) -> None:
    organiser = await Client.connect(Link(server.ws_url, ORGANISER_KEY))
    with pytest.raises(ClientError) as refused:
        await organiser.request(lambda ref: SealDeals(public_form="digits 500", ref=ref))
    assert refused.value.code == ErrorCode.INVALID_MESSAGE
    assert "1 to 200 digits" in refused.value.message
    await organiser.close()


@pytest.mark.parametrize("made", ["without a form", "before forms"])
@pytest.mark.asyncio
async def test_a_seal_without_a_form_is_served_and_says_so(server: Server, made: str) -> None:
    # A version-7 client that sends no form (the field came later within version 7), or a
    # seal kept from before forms: the match is made, with the value as written, and its
    # summary and deal set say that no form was sealed (duplicate verify warns of it).
    organiser = await Client.connect(Link(server.ws_url, ORGANISER_KEY))
    if made == "before forms":
        seal = "old-seal"
        await server.store.seal(seal, "ab" * 32, 60)  # as a server before forms kept it
    else:
        sealed = await organiser.request(lambda ref: SealDeals(ref=ref))
        assert isinstance(sealed, DealsSealed)
        assert sealed.public_form is None
        seal = sealed.seal
    created = await organiser.create_match(boards=1, seal=seal, public_value="Dice: 6 2 5 1 3")
    director = await Client.connect(created.director)
    assert director.view is not None
    summary = director.view.match
    assert (summary.deals_public_value, summary.deals_public_form) == ("Dice: 6 2 5 1 3", None)
    deals = (await server.runtime(created.match_id)).config.deal_set()
    assert deals is not None
    assert deals.form is None
    await director.close()
    await organiser.close()


def test_a_match_stored_before_forms_keeps_its_commitments() -> None:
    """A stored config without ``deals_form``: its deal set of version 1, its commitments
    the ones published when it was created."""
    seed, public = "cd" * 32, "dice 6 2 5 1 3"
    board = BoardSpec(1, Seat.NORTH, Vulnerability.NONE, seeded_deal(seed, public, 1))
    old = DealSet("ef" * 32, ((1, Seat.NORTH, Vulnerability.NONE, board.deal),), seed, public)
    stored = {
        "match_id": "0123456789abcdef", "team_a": "A", "team_b": "B",
        "boards": [board.to_json()], "spectators": "live",
        "deals_salt": old.salt, "deals_commitment": old.commitment(),
        "deals_seed": seed, "deals_public": public,
    }  # fmt: skip
    config = MatchConfig.from_json(json.dumps(stored))
    assert config.deal_set() == old
    assert config.deals_seed_commitment == seed_commitment(seed)  # version 1, no form


@pytest.mark.asyncio
async def test_only_the_organiser_seals(server: Server) -> None:
    created = await create(server, boards=1)
    player = await Client.connect(next(s.link for s in created.seats if s.link))
    with pytest.raises(ClientError) as refused:
        await player.seal_deals("digits 5")
    assert refused.value.code == ErrorCode.FORBIDDEN
    await player.close()


@pytest.mark.asyncio
async def test_a_seal_never_starts_with_a_dash(server: Server) -> None:
    # The organiser types it after --seal; one that began with "-" was taken for an option
    # (a URL-safe token does one time in 64: over 300 seals, all but certainly once).
    organiser = await Client.connect(Link(server.ws_url, ORGANISER_KEY))
    seals = [(await organiser.seal_deals("words")).seal for _ in range(300)]
    await organiser.close()
    assert len(set(seals)) == 300
    assert not [seal for seal in seals if seal.startswith("-")]
