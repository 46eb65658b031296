"""Redis, the only store: match configs, seat tokens, event logs and hidden results.

Keys of a match share the hash tag ``{m:ID}`` (Redis Cluster ready):

- ``{m:ID}:config``     the organiser's setup (JSON), deals included; never sent to clients
- ``{m:ID}:t1:events``  table 1's log (stream); ``{m:ID}:t2:events`` table 2's
- ``{m:ID}:watch``      every table event tagged with its table, and the comparisons (stream)
- ``{m:ID}:results``    each table's result per board, hidden until both are in; the
  director's fix of a board (void, artificial score); which boards are compared (hash)
- ``{m:ID}:swings``     each board's comparison once both tables are done with it (stream)
- ``{m:ID}:seats``      each seat's token key (to revoke it when the director substitutes)
- ``{m:ID}:robots``     a nonce per seat the server's robots play: the server derives the
  robot's token from it and the organiser key, so no usable token is stored

and, outside any match, ``duplicate:matches`` (set of match ids), ``duplicate:robot-matches``
(the matches with robots to reseat after a restart) and ``duplicate:token:SHA256`` (what a
link's token speaks for; the token itself is not stored).

Every accepted action goes through one Lua script, :data:`APPEND_SCRIPT`, that appends it to
its table's log and the watchers' log, stores the table's result when the table is done
with a board (its review over) and, only when the other table's result is already there,
appends the comparison to both tables' logs, the watchers' log and the swings: published
exactly once, however close together the tables finish, because the script runs
atomically. The director's assigned results and fixes go through the same script, which
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

# KEYS: 1 table-1 log, 2 table-2 log, 3 watchers' log, 4 results, 5 swings
# ARGV: 1 table ("1", "2"; "0" for none), 2 the table's event JSON ("" for none),
#       3 what happens to a result: "" nothing, "commit" (the table is done with a board:
#       store its result, maybe compare), "assign" (the director replaced a stored result),
#       "fix" (the director voided the board or gave it an artificial score),
#       4 the board number, 5 the result JSON (commit, assign) or the fix JSON ("" for
#       none), 6 the next board's start event JSON ("" if none), 7 number of boards
APPEND_SCRIPT = """
local t1, t2, watch, results, swings = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local table_no, op, board, payload = ARGV[1], ARGV[3], ARGV[4], ARGV[5]
local function add(where, event)
  if where == '0' then
    redis.call('XADD', t1, '*', 'e', event)
    redis.call('XADD', t2, '*', 'e', event)
  else
    redis.call('XADD', (where == '1') and t1 or t2, '*', 'e', event)
  end
  redis.call('XADD', watch, '*', 't', where, 'e', event)
end
local compared, finished = '', 0
local function compare()
  local r1 = redis.call('HGET', results, board .. ':1') or 'null'
  local r2 = redis.call('HGET', results, board .. ':2') or 'null'
  local fix = redis.call('HGET', results, board .. ':fix') or 'null'
  compared = '{"type": "compared", "board": ' .. board .. ', "table1": ' .. r1 ..
    ', "table2": ' .. r2 .. ', "fix": ' .. fix .. '}'
  add('0', compared)
  redis.call('XADD', swings, '*', 'e', compared)
  if redis.call('HSETNX', results, board .. ':done', 1) == 1 then
    if redis.call('HINCRBY', results, 'compared', 1) == tonumber(ARGV[7]) then
      finished = 1
      add('0', '{"type": "finished"}')
    end
  end
end
if ARGV[2] ~= '' then add(table_no, ARGV[2]) end
local mine = board .. ':' .. table_no
if op == 'commit' then
  if redis.call('HSETNX', results, mine, payload) == 1 then
    local other = board .. ':' .. ((table_no == '1') and '2' or '1')
    if redis.call('HEXISTS', results, board .. ':done') == 1
        or redis.call('HEXISTS', results, other) == 1 then
      compare()
    end
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
if ARGV[6] ~= '' then add(table_no, ARGV[6]) end
return {compared, finished}
"""

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


@dataclass(frozen=True, slots=True)
class Appended:
    """What one append put in the logs, in order: the event, then maybe the comparison and
    the end of the match, then maybe the next board's start."""

    table: int
    event: StoredEvent | None
    compared: StoredEvent | None
    finished: bool
    start: StoredEvent | None


@dataclass(frozen=True, slots=True)
class MatchLogs:
    """Everything stored about a match, read back in order."""

    config: MatchConfig
    tables: dict[int, list[StoredEvent]]
    watch: list[tuple[int, StoredEvent]]


def token_key(token: str) -> str:
    """The key of a token's grant: its SHA-256, so the store never holds a usable token."""
    return TOKEN_PREFIX + hashlib.sha256(token.encode()).hexdigest()


def _keys(match_id: str) -> list[str]:
    tag = f"{{m:{match_id}}}"
    return [
        f"{tag}:t1:events",
        f"{tag}:t2:events",
        f"{tag}:watch",
        f"{tag}:results",
        f"{tag}:swings",
    ]


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
        first_board: StoredEvent,
        robot_nonces: dict[str, str] | None = None,
        robot_table: tuple[list[StoredEvent], dict[int, dict[str, Any]]] | None = None,
    ) -> None:
        """Store a new match in one transaction: its config, its tokens' grants, the first
        board's start at both tables, the nonces of its robots' seats (``"1N"`` -> nonce)
        and, for the robot-table format, table 2's whole log and results: kept in table 2's
        log and the hidden results only, so that nobody sees a board of it until table 1
        has finished that board and the comparison is published."""
        keys = _keys(config.match_id)
        tag = f"{{m:{config.match_id}}}"
        start = _dumps(first_board)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(f"{tag}:config", config.to_json())
            for token, grant in grants.items():
                pipe.set(token_key(token), json.dumps(grant_to_json(grant)))
            pipe.xadd(keys[0], {"e": start})
            pipe.xadd(keys[2], {"t": "1", "e": start})
            if robot_table is None:
                pipe.xadd(keys[1], {"e": start})
                pipe.xadd(keys[2], {"t": "2", "e": start})
            else:
                events, results = robot_table
                for event in events:
                    pipe.xadd(keys[1], {"e": _dumps(event)})
                for board, result in results.items():
                    pipe.hset(keys[3], f"{board}:2", _dumps(result))
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
        next_start: StoredEvent | None,
        boards: int,
    ) -> Appended:
        """Append a table's event (or none) atomically with what it entails for the hidden
        results and the next board (see :data:`APPEND_SCRIPT`)."""
        reply = await self._append(
            keys=_keys(match_id),
            args=[
                str(table),
                "" if event is None else _dumps(event),
                "" if change is None else change.kind,
                "" if change is None else str(change.board),
                "" if change is None else _dumps(change.payload),
                "" if next_start is None else _dumps(next_start),
                str(boards),
            ],
        )
        compared_raw, finished = reply
        if isinstance(compared_raw, bytes):
            compared_raw = compared_raw.decode()
        compared = json.loads(compared_raw) if compared_raw else None
        return Appended(table, event, compared, bool(finished), next_start)

    async def load(self, match_id: str) -> MatchLogs | None:
        """Read a match back: its config and its three logs, in order. (In a robot-table
        match, table 2's log holds the robots' whole table from the start.)"""
        tag = f"{{m:{match_id}}}"
        raw = await self.redis.get(f"{tag}:config")
        if raw is None:
            return None
        config = MatchConfig.from_json(raw)
        keys = _keys(match_id)
        tables = {}
        for number, key in ((1, keys[0]), (2, keys[1])):
            tables[number] = [json.loads(fields[b"e"]) for fields in await self._entries(key)]
        watch = [
            (int(fields[b"t"]), json.loads(fields[b"e"])) for fields in await self._entries(keys[2])
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
