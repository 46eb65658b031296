"""Redis, the only store: match configs, seat tokens, event logs and hidden results.

Keys of a match share the hash tag ``{m:ID}`` (Redis Cluster ready):

- ``{m:ID}:config``     the organiser's setup (JSON), deals included; never sent to clients
- ``{m:ID}:tN:events``  table N's log (stream), one per table of the movement
- ``{m:ID}:watch``      every table event tagged with its table, and the comparisons (stream)
- ``{m:ID}:results``    each play's result per board (see :func:`play_field`), hidden until
  every play of the board is in; the director's fix of a board (void, artificial score);
  which boards are compared (hash)
- ``{m:ID}:swings``     each board's comparison once every play of it is in (stream)
- ``{m:ID}:seats``      each seat's token key (to revoke it when the director substitutes)
- ``{m:ID}:robots``     a nonce per seat the server's robots play: the server derives the
  robot's token from it and the organiser key, so no usable token is stored

and, outside any match, ``duplicate:matches`` (set of match ids), ``duplicate:robot-matches``
(the matches with robots to reseat after a restart) and ``duplicate:token:SHA256`` (what a
link's token speaks for; the token itself is not stored).

Every accepted action goes through one Lua script, :data:`APPEND_SCRIPT`, that appends it to
its table's log and the watchers' log, stores the table's result when the table is done
with a board (its review over) and, only when every other play of the board (at any
number of tables, in any round) has its result there, appends the comparison to every
table's log, the watchers' log and the swings: published exactly once, however close
together the tables finish, because the script runs atomically. The director's assigned results and fixes go through the same script, which
publishes the board's comparison again when they change a compared board.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any, Literal, cast

from redis.asyncio import Redis

from server.state import MatchConfig, StoredEvent

__all__ = ["APPEND_SCRIPT", "Appended", "Grant", "Store"]

MATCHES_KEY = "duplicate:matches"
TOKEN_PREFIX = "duplicate:token:"
ROBOT_MATCHES_KEY = "duplicate:robot-matches"

# KEYS: 1 watchers' log, 2 results, 3 swings, 3 + n table n's log (tables 1..N)
# ARGV: 1 table ("1".."N"; "0" for none), 2 the table's event JSON ("" for none),
#       3 what happens to a result: "" nothing, "commit" (a table is done with a board:
#       store its result, maybe compare), "assign" (the director replaced a stored result),
#       "fix" (the director voided the board or gave it an artificial score),
#       4 the board number, 5 the result JSON (commit, assign) or the fix JSON ("" for
#       none), 6 the boards to start next: JSON [[table, start event JSON], ...],
#       7 number of boards, 8 the results field of the play committed or assigned,
#       9 how many plays the board has, then for each: its results field, round, table
APPEND_SCRIPT = """
local watch, results, swings = KEYS[1], KEYS[2], KEYS[3]
local table_no, op, board, payload = ARGV[1], ARGV[3], ARGV[4], ARGV[5]
local mine, plays = ARGV[8], tonumber(ARGV[9])
local function add(where, event)
  if where == '0' then
    for i = 4, #KEYS do redis.call('XADD', KEYS[i], '*', 'e', event) end
  else
    redis.call('XADD', KEYS[3 + tonumber(where)], '*', 'e', event)
  end
  redis.call('XADD', watch, '*', 't', where, 'e', event)
end
local function play(i) return ARGV[7 + 3 * i], ARGV[8 + 3 * i], ARGV[9 + 3 * i] end
local compared, finished = '', 0
local function compare()
  local parts = {}
  for i = 1, plays do
    local field, round_no, at = play(i)
    parts[i] = '{"round": ' .. round_no .. ', "table": ' .. at .. ', "result": ' ..
      (redis.call('HGET', results, field) or 'null') .. '}'
  end
  local fix = redis.call('HGET', results, board .. ':fix') or 'null'
  compared = '{"type": "compared", "board": ' .. board .. ', "plays": [' ..
    table.concat(parts, ', ') .. '], "fix": ' .. fix .. '}'
  add('0', compared)
  redis.call('XADD', swings, '*', 'e', compared)
  if redis.call('HSETNX', results, board .. ':done', 1) == 1 then
    if redis.call('HINCRBY', results, 'compared', 1) == tonumber(ARGV[7]) then
      finished = 1
      add('0', '{"type": "finished"}')
    end
  end
end
local function all_in()
  for i = 1, plays do
    local field = play(i)
    if redis.call('HEXISTS', results, field) == 0 then return false end
  end
  return true
end
if ARGV[2] ~= '' then add(table_no, ARGV[2]) end
if op == 'commit' then
  if redis.call('HSETNX', results, mine, payload) == 1 then
    if redis.call('HEXISTS', results, board .. ':done') == 1 or all_in() then compare() end
  end
elseif op == 'assign' then
  if redis.call('HEXISTS', results, mine) == 1 then
    redis.call('HSET', results, mine, payload)
    if redis.call('HEXISTS', results, board .. ':done') == 1 then compare() end
  end
elseif op == 'fix' then
  redis.call('HSET', results, board .. ':fix', payload)
  compare()
end
for _, start in ipairs(cjson.decode(ARGV[6])) do add(tostring(start[1]), start[2]) end
return {compared, finished}
"""


def play_field(board: int, round_number: int, table: int) -> str:
    """The results field of a board's play: ``board:table``, and ``:round`` after it past
    round 1 (so matches stored before movements read the same)."""
    return f"{board}:{table}" if round_number == 1 else f"{board}:{table}:{round_number}"


Role = Literal["player", "spectator", "director", "revoked"]


@dataclass(frozen=True, slots=True)
class Grant:
    """What a token speaks for: a seat at a table, or watching, or directing a match;
    ``revoked``: a seat's old link after the director gave the seat a new player."""

    match_id: str
    role: Role
    table: int | None = None
    seat: str | None = None


@dataclass(frozen=True, slots=True)
class ResultChange:
    """What an append does to the hidden results (see :data:`APPEND_SCRIPT`): ``commit`` a
    table's result of a board (``table`` is done with it), ``assign`` (the director replaced
    a stored result) or ``fix`` (the director voided the board or gave it an artificial
    score: ``payload`` is ``{"kind": "void"}`` or ``{"kind": "artificial", "imps_a": 3}``)."""

    kind: Literal["commit", "assign", "fix"]
    board: int
    payload: dict[str, Any]
    plays: tuple[tuple[int, int], ...]
    """The (round, table) of every play of the board: compared once all have a result."""
    play: tuple[int, int] | None = None
    """The play whose result is committed or assigned."""


@dataclass(frozen=True, slots=True)
class Appended:
    """What one append put in the logs, in order: the event, then maybe the comparison and
    the end of the match, then the boards started next (table, start event)."""

    table: int
    event: StoredEvent | None
    compared: StoredEvent | None
    finished: bool
    starts: tuple[tuple[int, StoredEvent], ...] = ()


@dataclass(frozen=True, slots=True)
class MatchLogs:
    """Everything stored about a match, read back in order."""

    config: MatchConfig
    tables: dict[int, list[StoredEvent]]
    watch: list[tuple[int, StoredEvent]]


def token_key(token: str) -> str:
    """The key of a token's grant: its SHA-256, so the store never holds a usable token."""
    return TOKEN_PREFIX + hashlib.sha256(token.encode()).hexdigest()


def _keys(match_id: str, tables: tuple[int, ...]) -> list[str]:
    """The keys the append script touches: the watchers' log, the results, the swings and
    each table's log (tables numbered from 1)."""
    tag = f"{{m:{match_id}}}"
    return [f"{tag}:watch", f"{tag}:results", f"{tag}:swings"] + [
        _table_key(match_id, table) for table in tables
    ]


def _table_key(match_id: str, table: int) -> str:
    return f"{{m:{match_id}}}:t{table}:events"


def _dumps(event: StoredEvent) -> str:
    return json.dumps(event, separators=(",", ":"))


class Store:
    """The match store over one Redis connection pool."""

    def __init__(self, redis: Redis) -> None:
        self.redis = redis
        self._append = redis.register_script(APPEND_SCRIPT)

    async def create_match(
        self,
        config: MatchConfig,
        grants: dict[str, Grant],
        starts: list[tuple[int, StoredEvent]],
        robot_nonces: dict[str, str] | None = None,
        robot_table: tuple[list[StoredEvent], dict[int, dict[str, Any]]] | None = None,
    ) -> None:
        """Store a new match in one transaction: its config, its tokens' grants, the first
        board's start at each table (``starts``: table, event), the nonces of its robots' seats (``"1N"`` -> nonce)
        and, for the robot-table format, table 2's whole log and results: kept in table 2's
        log and the hidden results only, so that nobody sees a board of it until table 1
        has finished that board and the comparison is published."""
        match_id = config.match_id
        tag = f"{{m:{match_id}}}"
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(f"{tag}:config", config.to_json())
            for token, grant in grants.items():
                pipe.set(token_key(token), json.dumps(grant_to_json(grant)))
            for table, start in starts:
                pipe.xadd(_table_key(match_id, table), {"e": _dumps(start)})
                pipe.xadd(f"{tag}:watch", {"t": str(table), "e": _dumps(start)})
            if robot_table is not None:
                events, results = robot_table
                for event in events:
                    pipe.xadd(_table_key(match_id, 2), {"e": _dumps(event)})
                for board, result in results.items():
                    pipe.hset(f"{tag}:results", play_field(board, 1, 2), _dumps(result))
            for token, grant in grants.items():
                if grant.role == "player":
                    pipe.hset(f"{tag}:seats", f"{grant.table}{grant.seat}", token_key(token))
            if robot_nonces:
                for seat, nonce in robot_nonces.items():
                    pipe.hset(f"{tag}:robots", seat, nonce)
                pipe.sadd(ROBOT_MATCHES_KEY, config.match_id)
            pipe.sadd(MATCHES_KEY, config.match_id)
            await pipe.execute()

    async def substitute(
        self, match_id: str, table: int, seat: str, token: str, robot_nonce: str | None
    ) -> None:
        """Give a seat a new token, in one transaction: the old token's grant becomes
        ``revoked``, the new one speaks for the seat; a seat given to the server's robot
        keeps its nonce (from which the server derives the robot's token), and a seat given
        to a person loses it."""
        tag = f"{{m:{match_id}}}"
        key = f"{table}{seat}"
        old = await self.redis.hget(f"{tag}:seats", key)
        revoked = Grant(match_id, "revoked", table, seat)
        async with self.redis.pipeline(transaction=True) as pipe:
            if old is not None:
                old_key = old.decode() if isinstance(old, bytes) else str(old)
                pipe.set(old_key, json.dumps(grant_to_json(revoked)))
            pipe.set(
                token_key(token), json.dumps(grant_to_json(Grant(match_id, "player", table, seat)))
            )
            pipe.hset(f"{tag}:seats", key, token_key(token))
            if robot_nonce is not None:
                pipe.hset(f"{tag}:robots", key, robot_nonce)
                pipe.sadd(ROBOT_MATCHES_KEY, match_id)
            else:
                pipe.hdel(f"{tag}:robots", key)
            await pipe.execute()

    async def robot_matches(self) -> dict[str, dict[str, str]]:
        """The robots' seat nonces (``"1N"`` -> nonce) of every match with robots not over."""
        found: dict[str, dict[str, str]] = {}
        for raw in await self.redis.smembers(ROBOT_MATCHES_KEY):
            match_id = raw.decode() if isinstance(raw, bytes) else str(raw)
            tag = f"{{m:{match_id}}}"
            last = cast(
                list[tuple[bytes, dict[bytes, bytes]]],
                await self.redis.xrevrange(f"{tag}:t1:events", count=1),
            )
            if last and json.loads(last[0][1][b"e"])["type"] == "finished":
                await self.redis.srem(ROBOT_MATCHES_KEY, match_id)
                continue
            tokens = cast(dict[bytes, bytes], await self.redis.hgetall(f"{tag}:robots"))
            found[match_id] = {k.decode(): v.decode() for k, v in tokens.items()}
        return found

    async def grant(self, token: str) -> Grant | None:
        """What ``token`` speaks for, or None for an unknown token."""
        raw = await self.redis.get(token_key(token))
        if raw is None:
            return None
        data = json.loads(raw)
        return Grant(data["match_id"], data["role"], data.get("table"), data.get("seat"))

    async def match_ids(self) -> list[str]:
        """Every match stored."""
        members = await self.redis.smembers(MATCHES_KEY)
        return sorted(m.decode() if isinstance(m, bytes) else m for m in members)

    async def append(
        self,
        match_id: str,
        table: int,
        event: StoredEvent | None,
        change: ResultChange | None,
        starts: list[tuple[int, StoredEvent]],
        boards: int,
        tables: tuple[int, ...],
    ) -> Appended:
        """Append a table's event (or none) atomically with what it entails for the hidden
        results and the boards to start next (see :data:`APPEND_SCRIPT`)."""
        plays: list[str] = []
        if change is not None:
            for round_number, at in change.plays:
                plays += [play_field(change.board, round_number, at), str(round_number), str(at)]
        reply = await self._append(
            keys=_keys(match_id, tables),
            args=[
                str(table),
                "" if event is None else _dumps(event),
                "" if change is None else change.kind,
                "" if change is None else str(change.board),
                "" if change is None else _dumps(change.payload),
                json.dumps([[at, _dumps(start)] for at, start in starts]),
                str(boards),
                ""
                if change is None or change.play is None
                else play_field(change.board, *change.play),
                str(len(plays) // 3),
                *plays,
            ],
        )
        compared_raw, finished = reply
        if isinstance(compared_raw, bytes):
            compared_raw = compared_raw.decode()
        compared = json.loads(compared_raw) if compared_raw else None
        return Appended(table, event, compared, bool(finished), tuple(starts))

    async def load(self, match_id: str) -> MatchLogs | None:
        """Read a match back: its config and its three logs, in order. (In a robot-table
        match, table 2's log holds the robots' whole table from the start.)"""
        tag = f"{{m:{match_id}}}"
        raw = await self.redis.get(f"{tag}:config")
        if raw is None:
            return None
        config = MatchConfig.from_json(raw)
        tables = {}
        for number in config.tables:
            key = _table_key(match_id, number)
            tables[number] = [json.loads(fields[b"e"]) for fields in await self._entries(key)]
        watch = [
            (int(fields[b"t"]), json.loads(fields[b"e"]))
            for fields in await self._entries(f"{{m:{match_id}}}:watch")
        ]
        return MatchLogs(config, tables, watch)

    async def _entries(self, key: str) -> list[dict[bytes, bytes]]:
        entries = cast(list[tuple[bytes, dict[bytes, bytes]]], await self.redis.xrange(key))
        return [fields for _, fields in entries]


def grant_to_json(grant: Grant) -> dict[str, Any]:
    return {
        "match_id": grant.match_id,
        "role": grant.role,
        "table": grant.table,
        "seat": grant.seat,
    }
