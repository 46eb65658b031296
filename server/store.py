"""Redis, the only store: match configs, seat tokens, event logs and hidden results.

Keys of a match share the hash tag ``{m:ID}`` (Redis Cluster ready):

- ``{m:ID}:config``     the organiser's setup (JSON), deals included; never sent to clients
- ``{m:ID}:tN:events``  table N's log (stream), one per table of the movement
- ``{m:ID}:watch``      every table event tagged with its table, and the comparisons (stream)
- ``{m:ID}:results``    each play's result per board (see :func:`play_field`), hidden until
  every play of the board is in; the director's fix of a board (void, artificial score);
  which boards are compared; ``finished`` once every board is (hash)
- ``{m:ID}:swings``     each board's comparison once every play of it is in (stream)
- ``{m:ID}:seats``      each seat's token key (to revoke it when the director substitutes)
- ``{m:ID}:robots``     a nonce per seat the server's robots play: the server derives the
  robot's token from it and the organiser key, so no usable token is stored
- ``{m:ID}:links``      a nonce per link (``"1N"``, ``"spectator"``, ``"director"``): the
  server derives the link's token from it and the organiser key, to give the organiser
  the links again (``get_links``) while no usable token is stored
- ``{m:ID}:source``     the vugraph (LIN) file an imported match came from: its LIN record
  gives back the file's header, results and commentary

and, outside any match, ``duplicate:matches`` (set of match ids), ``duplicate:archived``
(the matches the organiser put away), ``duplicate:robot-matches`` (the matches with robots
to reseat after a restart), ``duplicate:token:SHA256`` (what a link's token speaks for; the
token itself is not stored) and ``duplicate:session:SHA256`` (an organiser's session: when
it expires; it expires with it).

Every accepted action goes through one Lua script, :data:`APPEND_SCRIPT`, that appends it to
its table's log and the watchers' log, stores the table's result when the table is done
with a board (its review over) and, only when every other play of the board (at any
number of tables, in any round) has its result there, appends the comparison to every
table's log, the watchers' log and the swings: published exactly once, however close
together the tables finish, because the script runs atomically. The director's assigned results and fixes go through the same script, which
publishes the board's comparison again when they change a compared board.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, cast

from redis.asyncio import Redis
from redis.asyncio.cluster import RedisCluster
from redis.commands.core import AsyncScript

from server.config import MatchConfig
from server.script_line import ScriptLine
from server.state import StoredEvent

__all__ = ["APPEND_SCRIPT", "Appended", "Grant", "Store", "StoreClient"]

StoreClient = Redis | RedisCluster
"""A client of one Redis, or of a Redis Cluster: a match's keys share a hash slot, and no
command or transaction spans two matches or a match and a token."""

MATCHES_KEY = "duplicate:matches"
PROCESSES_KEY = "duplicate:processes"
TOKEN_PREFIX = "duplicate:token:"
SEAL_PREFIX = "duplicate:seal:"
CREATION_PREFIX = "duplicate:creation:"
ROBOT_MATCHES_KEY = "duplicate:robot-matches"
ARCHIVED_KEY = "duplicate:archived"
SESSION_PREFIX = "duplicate:session:"
EVENTS_KEY = "duplicate:events"
"""Every event stored."""
EVENT_TOKEN_PREFIX = "duplicate:event-token:"
"""An event's results link's token (by its SHA-256) -> the event."""
PLAYING_EVENTS_KEY = "duplicate:events:playing"
"""The events not ended yet: what every process looks after (``server.events``)."""

# KEYS: 1 watchers' log, 2 results, 3 swings, 4 the match's news channel (a shard channel:
#       named as a key so that a cluster runs the script where the match lives), 4 + n
#       table n's log (tables 1..N)
# ARGV: 1 table ("1".."N"; "0" for none), 2 the table's event JSON ("" for none),
#       3 what happens to a result: "" nothing, "commit" (a table is done with a board:
#       store its result, maybe compare), "assign" (the director replaced a stored result),
#       "fix" (the director voided the board or gave it an artificial score),
#       4 the board number, 5 the result JSON (commit, assign) or the fix JSON ("" for
#       none), 6 the boards to start next: JSON [[table, start event JSON], ...],
#       7 number of boards, 8 the results field of the play committed or assigned,
#       9 how many plays the board has, 10 the length of the watchers' log the caller
#       checked the action against, 11 "1" if the caller listens to the news channel
#       (its subscription confirmed: it needs no news of its own append), else "0", then
#       for each play: its results field, round, table
# Returns {comparison JSON or '', 1 if the match finished, the watchers' log's length, the
# id of its last entry}; or, when the log is no longer at the length the caller checked
# against (another process appended meanwhile), {'', -1, its length, ''}, appending nothing.
APPEND_SCRIPT = """
local watch, results, swings, news = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local table_no, op, board, payload = ARGV[1], ARGV[3], ARGV[4], ARGV[5]
local mine, plays = ARGV[8], tonumber(ARGV[9])
local length = redis.call('XLEN', watch)
if length ~= tonumber(ARGV[10]) then return {'', -1, length, ''} end
local last = ''
local function add(where, event)
  if where == '0' then
    for i = 5, #KEYS do redis.call('XADD', KEYS[i], '*', 'e', event) end
  else
    redis.call('XADD', KEYS[4 + tonumber(where)], '*', 'e', event)
  end
  last = redis.call('XADD', watch, '*', 't', where, 'e', event)
  length = length + 1
end
local function play(i) return ARGV[9 + 3 * i], ARGV[10 + 3 * i], ARGV[11 + 3 * i] end
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
      redis.call('HSET', results, 'finished', 1)
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
if last ~= '' then
  -- Sharded where the server has it (Redis 7: a cluster needs it), else plain (Redis 6.2).
  -- Not announced when no one but the caller listens: the caller folded it already.
  local said = length .. ' ' .. last
  local counted, listeners = pcall(redis.call, 'PUBSUB', 'SHARDNUMSUB', news)
  if not counted or tonumber(listeners[2]) > tonumber(ARGV[11]) then
    if not pcall(redis.call, 'SPUBLISH', news, said) then redis.call('PUBLISH', news, said) end
  end
end
return {compared, finished, length, last}
"""


RENEW_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 0
"""
"""Extend a lease (KEYS[1]) by ARGV[2] ms if process ARGV[1] holds it."""
CLAIM_SCRIPT = """
local holder = redis.call('GET', KEYS[1])
if holder == ARGV[1] then return 1 end
if holder == ':logged' then return 0 end
if holder then
  for i = 3, #ARGV do
    if ARGV[i] == holder then return 0 end
  end
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
"""
"""Take a lease (KEYS[1]) for process ARGV[1], for ARGV[2] ms, unless a process alive
(ARGV[3..]) other than itself holds it (a lease that stands while its holder lives), or it
says that what it was for is done (:data:`LOGGED`)."""
LOGGED = ":logged"
"""What an analysis lease says once its holder logged the analysis, for a while: a process
that waited for it and has not read the analysis yet does not take the lease and work it
out again. (A process id never has a colon.)"""
LOGGED_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return 0
"""
"""Have a lease (KEYS[1]) that process ARGV[1] holds say ARGV[2] for ARGV[3] ms."""
RELEASE_SCRIPT = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""

EVENT_APPEND_SCRIPT = """
if redis.call('LLEN', KEYS[1]) ~= tonumber(ARGV[1]) then return 0 end
for i = 2, #ARGV do redis.call('RPUSH', KEYS[1], ARGV[i]) end
return 1
"""
"""Append entries (ARGV[2..]) to an event's log (KEYS[1]) only if it holds ARGV[1] entries:
of two processes that saw the same log, one appends what comes next."""


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
    the end of the match, then the boards started next (table, start event); and where the
    watchers' log stands after it: its length and the id of its last entry."""

    table: int
    event: StoredEvent | None
    compared: StoredEvent | None
    finished: bool
    starts: tuple[tuple[int, StoredEvent], ...] = ()
    length: int = 0
    last_id: str = ""


class Conflict(Exception):
    """The match's log grew since the caller read it (another process appended): nothing
    was appended; read the new entries, check again."""

    def __init__(self, length: int) -> None:
        super().__init__(f"the match's log is at {length} entries now")
        self.length = length


@dataclass(frozen=True, slots=True)
class MatchLogs:
    """Everything stored about a match, read back in order."""

    config: MatchConfig
    tables: dict[int, list[StoredEvent]]
    watch: list[tuple[int, StoredEvent]]
    last_id: str = "0-0"
    """The id of the watchers' log's last entry read (to read on from there)."""


def _seal_key(seal: str) -> str:
    return SEAL_PREFIX + hashlib.sha256(seal.encode()).hexdigest()


def _creation_key(request_id: str) -> str:
    return CREATION_PREFIX + hashlib.sha256(request_id.encode()).hexdigest()


def token_key(token: str) -> str:
    """The key of a token's grant: its SHA-256, so the store never holds a usable token."""
    return TOKEN_PREFIX + _digest(token)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value


def _keys(match_id: str, tables: tuple[int, ...]) -> list[str]:
    """The keys the append script touches: the watchers' log, the results, the swings and
    each table's log (tables numbered from 1)."""
    tag = f"{{m:{match_id}}}"
    return [f"{tag}:watch", f"{tag}:results", f"{tag}:swings", news_channel(match_id)] + [
        _table_key(match_id, table) for table in tables
    ]


def news_channel(match_id: str) -> str:
    """The shard channel on which every append to the match is announced (``LENGTH ID``: the
    watchers' log's length and last entry after it), in the match's hash slot."""
    return f"{{m:{match_id}}}:news"


def _robot_lease(match_id: str, seat: str) -> str:
    return f"{{m:{match_id}}}:robot:{seat}"


def _analysis_lease(match_id: str) -> str:
    return f"{{m:{match_id}}}:analysis"


def _table_key(match_id: str, table: int) -> str:
    return f"{{m:{match_id}}}:t{table}:events"


def _dumps(event: StoredEvent) -> str:
    return json.dumps(event, separators=(",", ":"))


def _untimed(_seconds: float) -> None:
    """Records nothing (a store without metrics)."""


class Store:
    """The match store over one Redis connection pool (or a cluster's).

    ``timer(operation)``, if given, says what records how long each ``append``, ``load``,
    ``read`` (:meth:`entries_after`) and ``grant`` took, in seconds: the calls actions and
    joins wait on (:class:`server.metrics.Metrics`). A call that fails is not recorded."""

    def __init__(
        self, redis: StoreClient, *, timer: Callable[[str], Callable[[float], None]] | None = None
    ) -> None:
        self.redis = redis
        self._timed_append = _untimed if timer is None else timer("append")
        self._timed_load = _untimed if timer is None else timer("load")
        self._timed_read = _untimed if timer is None else timer("read")
        self._timed_grant = _untimed if timer is None else timer("grant")
        self._append: ScriptLine | AsyncScript = (
            redis.register_script(APPEND_SCRIPT)
            if isinstance(redis, RedisCluster)
            else ScriptLine(redis, APPEND_SCRIPT)
        )
        """Every accepted action's call: pipelined on a connection of its own
        (:mod:`server.script_line`), but for a cluster."""
        self._renew = redis.register_script(RENEW_SCRIPT)
        self._claim = redis.register_script(CLAIM_SCRIPT)
        self._logged = redis.register_script(LOGGED_SCRIPT)
        self._release = redis.register_script(RELEASE_SCRIPT)
        self._event_append = redis.register_script(EVENT_APPEND_SCRIPT)

    async def close(self) -> None:
        """Close the connection the appends are pipelined on (the client and its pool are
        their owner's to close)."""
        if isinstance(self._append, ScriptLine):
            await self._append.close()

    async def create_match(
        self,
        config: MatchConfig,
        grants: dict[str, Grant],
        starts: list[tuple[int, StoredEvent]],
        robot_nonces: dict[str, str] | None = None,
        robot_table: tuple[list[StoredEvent], dict[int, dict[str, Any]]] | None = None,
        link_nonces: dict[str, str] | None = None,
    ) -> None:
        """Store a new match in one transaction: its config, its tokens' grants, the first
        board's start at each table (``starts``: table, event), the nonces of its robots' seats (``"1N"`` -> nonce)
        and of its links (``"1N"``, ``"spectator"``, ``"director"`` -> nonce), and, for the robot-table format, table 2's whole log and results: kept in table 2's
        log and the hidden results only, so that nobody sees a board of it until table 1
        has finished that board and the comparison is published."""
        match_id = config.match_id
        tag = f"{{m:{match_id}}}"
        # The match's keys in one transaction (one hash slot), then what points to it: a
        # token never names a match that is not there.
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(f"{tag}:config", config.to_json())
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
            for seat, nonce in (robot_nonces or {}).items():
                pipe.hset(f"{tag}:robots", seat, nonce)
            for key, nonce in (link_nonces or {}).items():
                pipe.hset(f"{tag}:links", key, nonce)
            await pipe.execute()
        async with self.redis.pipeline(transaction=False) as pipe:
            for token, grant in grants.items():
                pipe.set(token_key(token), json.dumps(grant_to_json(grant)))
            if robot_nonces:
                pipe.sadd(ROBOT_MATCHES_KEY, config.match_id)
            pipe.sadd(MATCHES_KEY, config.match_id)
            await pipe.execute()

    async def substitute(
        self,
        match_id: str,
        table: int,
        seat: str,
        token: str,
        robot_nonce: str | None,
        link_nonce: str | None = None,
    ) -> None:
        """Give a seat a new token, in one transaction: the old token's grant becomes
        ``revoked``, the new one speaks for the seat; a seat given to the server's robot
        keeps its nonce (from which the server derives the robot's token), and a seat given
        to a person loses it, and keeps its link's nonce (``link_nonce``, from which the
        server derives the link's token) instead."""
        tag = f"{{m:{match_id}}}"
        key = f"{table}{seat}"
        old = await self.redis.hget(f"{tag}:seats", key)
        lease = _robot_lease(match_id, key)
        revoked = Grant(match_id, "revoked", table, seat)
        # The old token stops first; then the seat's keys (one hash slot) change together;
        # then the new token works.
        if old is not None:
            old_key = old.decode() if isinstance(old, bytes) else str(old)
            await self.redis.set(old_key, json.dumps(grant_to_json(revoked)))
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(f"{tag}:seats", key, token_key(token))
            pipe.delete(lease)  # whichever process plays the seat's robot now stops
            if robot_nonce is not None:
                pipe.hset(f"{tag}:robots", key, robot_nonce)
            else:
                pipe.hdel(f"{tag}:robots", key)
            if link_nonce is not None:
                pipe.hset(f"{tag}:links", key, link_nonce)
            else:
                pipe.hdel(f"{tag}:links", key)
            await pipe.execute()
        if robot_nonce is not None:
            await self.redis.sadd(ROBOT_MATCHES_KEY, match_id)
        await self.redis.set(
            token_key(token), json.dumps(grant_to_json(Grant(match_id, "player", table, seat)))
        )

    # -- processes and where players are connected ---------------------------------------

    async def heartbeat(self, process: str, now: float) -> None:
        """Note that ``process`` is alive at ``now`` (seconds since the epoch)."""
        await self.redis.zadd(PROCESSES_KEY, {process: now})

    async def processes(self, since: float) -> tuple[set[str], set[str]]:
        """The processes alive (their last heartbeat at ``since`` or later) and the dead
        (their last one in the hour before); those older still are forgotten."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zremrangebyscore(PROCESSES_KEY, "-inf", f"({since - 3600}")
            pipe.zrange(PROCESSES_KEY, 0, -1, withscores=True)
            _removed, beats = await pipe.execute()
        alive: set[str] = set()
        dead: set[str] = set()
        for name, beat in beats:
            process = name.decode() if isinstance(name, bytes) else str(name)
            (alive if beat >= since else dead).add(process)
        return alive, dead

    async def forget_process(self, process: str) -> None:
        """``process`` stopped: it is no longer alive."""
        await self.redis.zrem(PROCESSES_KEY, process)

    async def set_connections(
        self, match_id: str, player: int, process: str, connections: int, robots: int
    ) -> None:
        """Record how many connections ``player`` has on ``process`` (``robots`` of them
        programs playing by themselves)."""
        key, field = f"{{m:{match_id}}}:online", f"{player}:{process}"
        if connections:
            await self.redis.hset(key, field, f"{connections} {robots}")
        else:
            await self.redis.hdel(key, field)

    async def connections(self, match_id: str) -> dict[tuple[int, str], tuple[int, int]]:
        """Each (player, process)'s connections and robots' connections, as recorded."""
        raw = cast(dict[bytes, bytes], await self.redis.hgetall(f"{{m:{match_id}}}:online"))
        found = {}
        for field, value in raw.items():
            player, process = field.decode().split(":", 1)
            connections, robots = value.split()
            found[(int(player), process)] = (int(connections), int(robots))
        return found

    async def robot_matches(self) -> dict[str, dict[str, str]]:
        """The robots' seat nonces (``"1N"`` -> nonce) of every match with robots not over."""
        match_ids = sorted(
            raw.decode() if isinstance(raw, bytes) else str(raw)
            for raw in await self.redis.smembers(ROBOT_MATCHES_KEY)
        )
        async with self.redis.pipeline(transaction=False) as pipe:
            for match_id in match_ids:
                tag = f"{{m:{match_id}}}"
                pipe.hexists(f"{tag}:results", "finished")
                pipe.xrevrange(f"{tag}:t1:events", count=1)
                pipe.hgetall(f"{tag}:robots")
            read = await pipe.execute()
        found: dict[str, dict[str, str]] = {}
        for i, match_id in enumerate(match_ids):
            finished, last, tokens = read[3 * i : 3 * i + 3]
            # (A match stored before the results noted its end: its last entry says so,
            # unless a seat's presence was logged after it.)
            if finished or (last and json.loads(last[0][1][b"e"])["type"] == "finished"):
                await self.redis.srem(ROBOT_MATCHES_KEY, match_id)
                continue
            found[match_id] = {k.decode(): v.decode() for k, v in tokens.items()}
        return found

    async def claim_robot(self, match_id: str, seat: str, process: str, ttl: float) -> bool:
        """Take the lease on playing the robot of ``seat`` (``"1N"``) for ``ttl`` seconds, if
        no process holds it: the robot of a seat plays in one process at a time."""
        key = _robot_lease(match_id, seat)
        return bool(await self.redis.set(key, process, nx=True, px=int(ttl * 1000)))

    async def renew_robots(
        self, seats: list[tuple[str, str]], process: str, ttl: float
    ) -> list[bool]:
        """Extend the leases ``process`` holds on the robots of ``seats`` (match id, seat);
        False where it holds it no more (the seat was given away, or it expired)."""
        keys = [_robot_lease(match_id, seat) for match_id, seat in seats]
        return await self._renew_all(keys, process, ttl)

    async def _renew_all(self, keys: list[str], process: str, ttl: float) -> list[bool]:
        """Extend the leases ``keys`` that ``process`` holds by ``ttl`` seconds, all at once:
        in one pipeline, one round trip however many (a cluster runs no script in a
        pipeline: there each on its own, all at once); False where it holds one no more."""
        args: list[str | int] = [process, int(ttl * 1000)]
        if isinstance(self.redis, RedisCluster):
            done = await asyncio.gather(*(self._renew(keys=[key], args=args) for key in keys))
        else:
            async with self.redis.pipeline(transaction=False) as pipe:
                for key in keys:
                    await self._renew(keys=[key], args=args, client=pipe)
                done = await pipe.execute()
        return [bool(held) for held in done]

    async def release_robot(self, match_id: str, seat: str, process: str) -> None:
        """Give up the lease on a seat's robot (this process stops)."""
        await self._release(keys=[_robot_lease(match_id, seat)], args=[process])

    async def seal(self, seal: str, seed: str, ttl: float) -> None:
        """Keep a sealed deal seed for ``ttl`` seconds, under the hash of its seal."""
        await self.redis.set(_seal_key(seal), seed, ex=max(1, int(ttl)))

    async def keep_source(self, match_id: str, text: str) -> None:
        """Keep the LIN file the match was imported from."""
        await self.redis.set(f"{{m:{match_id}}}:source", text)

    async def source(self, match_id: str) -> str | None:
        """The LIN file the match was imported from (None: it was not)."""
        raw = await self.redis.get(f"{{m:{match_id}}}:source")
        return None if raw is None else raw.decode() if isinstance(raw, bytes) else str(raw)

    async def begin_creation(
        self, request_id: str, record: dict[str, Any], ttl: float
    ) -> dict[str, Any] | None:
        """Note that the organiser's creation ``request_id`` is under way, as ``record``
        says, for ``ttl`` seconds, unless one with that id was noted already: then its
        record (and nothing is written)."""
        key = _creation_key(request_id)
        if await self.redis.set(key, json.dumps(record), nx=True, ex=max(1, int(ttl))):
            return None
        return await self.creation(request_id) or {}

    async def creation(self, request_id: str) -> dict[str, Any] | None:
        """The record of the creation ``request_id`` (None: none, or forgotten)."""
        raw = await self.redis.get(_creation_key(request_id))
        return None if raw is None else cast(dict[str, Any], json.loads(raw))

    async def end_creation(self, request_id: str, record: dict[str, Any], ttl: float) -> None:
        """The creation ``request_id`` is done, as ``record`` says: kept ``ttl`` seconds."""
        await self.redis.set(_creation_key(request_id), json.dumps(record), ex=max(1, int(ttl)))

    async def forget_creation(self, request_id: str) -> None:
        """The creation ``request_id`` failed: the id may be used again."""
        await self.redis.delete(_creation_key(request_id))

    async def read_seal(self, seal: str) -> str | None:
        """What ``seal`` keeps, leaving it usable (None: unknown, expired or used)."""
        kept = await self.redis.get(_seal_key(seal))
        if kept is None:
            return None
        return kept.decode() if isinstance(kept, bytes) else str(kept)

    async def take_seal(self, seal: str) -> str | None:
        """The seed of ``seal``, which can then be used no more (None: unknown, expired or
        used)."""
        seed = await self.redis.getdel(_seal_key(seal))
        if seed is None:
            return None
        return seed.decode() if isinstance(seed, bytes) else str(seed)

    async def claim_analysis(
        self, match_id: str, process: str, alive: set[str], ttl: float
    ) -> bool:
        """Take the lease on working out the match's double-dummy analysis (or say that
        ``process`` holds it already), unless a process of ``alive`` holds it: one process
        analyses a match, whichever loaded it, and its lease stands while it lives, with
        nothing renewed. The store forgets it after ``ttl`` seconds all the same."""
        key = _analysis_lease(match_id)
        args: list[str | int] = [process, int(ttl * 1000), *sorted(alive)]
        return bool(await self._claim(keys=[key], args=args))

    async def release_analysis(self, match_id: str, process: str) -> None:
        """Give up the analysis lease (the analysis failed: another may try)."""
        await self._release(keys=[_analysis_lease(match_id)], args=[process])

    async def analysis_logged(self, match_id: str, process: str, ttl: float) -> None:
        """The analysis ``process`` held the lease for is logged: for ``ttl`` seconds the
        lease says so (:data:`LOGGED`), then the store forgets it."""
        args: list[str | int] = [process, LOGGED, int(ttl * 1000)]
        await self._logged(keys=[_analysis_lease(match_id)], args=args)

    async def grant(self, token: str) -> Grant | None:
        """What ``token`` speaks for, or None for an unknown token."""
        started = time.perf_counter()
        raw = await self.redis.get(token_key(token))
        self._timed_grant(time.perf_counter() - started)
        return None if raw is None else _grant_of(raw)

    async def link_nonces(self, match_id: str) -> dict[str, str]:
        """The nonce of each link of the match that the server can give again, by key
        (``"1N"``, ``"spectator"``, ``"director"``)."""
        found = await self.redis.hgetall(f"{{m:{match_id}}}:links")
        return {_text(k): _text(v) for k, v in found.items()}

    async def grants(self, tokens: list[str]) -> list[Grant | None]:
        """What each of ``tokens`` speaks for (None: unknown), in one round trip."""
        if not tokens:
            return []
        async with self.redis.pipeline(transaction=False) as pipe:
            for token in tokens:
                pipe.get(token_key(token))
            found = await pipe.execute()
        return [None if raw is None else _grant_of(raw) for raw in found]

    async def open_session(self, token: str, expires_at: int) -> None:
        """Keep an organiser's session until ``expires_at`` (ms since 1970)."""
        ttl = max(1, expires_at - int(time.time() * 1000))
        await self.redis.set(SESSION_PREFIX + _digest(token), str(expires_at), px=ttl)

    async def session(self, token: str) -> int | None:
        """When the organiser's session ``token`` expires (None: unknown, closed or
        expired)."""
        raw = await self.redis.get(SESSION_PREFIX + _digest(token))
        return None if raw is None else int(raw)

    async def close_session(self, token: str) -> None:
        await self.redis.delete(SESSION_PREFIX + _digest(token))

    async def archived(self) -> set[str]:
        """The matches the organiser put away."""
        return {_text(m) for m in await self.redis.smembers(ARCHIVED_KEY)}

    async def archive(self, match_id: str, archived: bool) -> None:
        if archived:
            await self.redis.sadd(ARCHIVED_KEY, match_id)
        else:
            await self.redis.srem(ARCHIVED_KEY, match_id)

    async def match_ids(self) -> list[str]:
        """Every match stored."""
        members = await self.redis.smembers(MATCHES_KEY)
        return sorted(m.decode() if isinstance(m, bytes) else m for m in members)

    # -- events --------------------------------------------------------------------------

    async def create_event(self, event_id: str, config: str, token: str) -> None:
        """Store a new event's ``config`` (JSON) and its results link's ``token`` (its hash
        only): it is played from now on."""
        await self.redis.set(f"{{e:{event_id}}}:config", config)
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.set(EVENT_TOKEN_PREFIX + _digest(token), event_id)
            pipe.sadd(EVENTS_KEY, event_id)
            pipe.sadd(PLAYING_EVENTS_KEY, event_id)
            await pipe.execute()

    async def event_of_token(self, token: str) -> str | None:
        """The event whose results link's token is ``token`` (None: none)."""
        raw = await self.redis.get(EVENT_TOKEN_PREFIX + _digest(token))
        return None if raw is None else _text(raw)

    async def event(self, event_id: str) -> tuple[str, list[dict[str, Any]], dict[str, str]] | None:
        """An event's config (JSON), its log and its matches (``"round:index"`` -> match
        id); None if there is no such event."""
        tag = f"{{e:{event_id}}}"
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.get(f"{tag}:config")
            pipe.lrange(f"{tag}:log", 0, -1)
            pipe.hgetall(f"{tag}:matches")
            config, entries, matches = await pipe.execute()
        if config is None:
            return None
        return (
            _text(config),
            [cast(dict[str, Any], json.loads(entry)) for entry in entries],
            {_text(key): _text(value) for key, value in matches.items()},
        )

    async def append_event(
        self, event_id: str, entries: list[dict[str, Any]], expected: int
    ) -> bool:
        """Append ``entries`` to the event's log if it holds ``expected`` entries (False:
        another one came first; read the log again)."""
        done = await self._event_append(
            keys=[f"{{e:{event_id}}}:log"],
            args=[expected, *(json.dumps(entry, sort_keys=True) for entry in entries)],
        )
        return bool(done)

    async def event_match(self, event_id: str, key: str, match_id: str) -> None:
        """The event's match ``key`` (``"round:index"``) is ``match_id``."""
        await self.redis.hset(f"{{e:{event_id}}}:matches", key, match_id)

    async def playing_events(self) -> list[str]:
        """The events not ended yet."""
        return sorted(_text(m) for m in await self.redis.smembers(PLAYING_EVENTS_KEY))

    async def event_ids(self) -> list[str]:
        """Every event stored."""
        return sorted(_text(m) for m in await self.redis.smembers(EVENTS_KEY))

    async def end_event(self, event_id: str) -> None:
        """The event has ended: no process looks after it any more."""
        await self.redis.srem(PLAYING_EVENTS_KEY, event_id)

    async def append(
        self,
        match_id: str,
        table: int,
        event: StoredEvent | None,
        change: ResultChange | None,
        starts: list[tuple[int, StoredEvent]],
        boards: int,
        tables: tuple[int, ...],
        expected: int,
        *,
        listening: bool = False,
    ) -> Appended:
        """Append a table's event (or none) atomically with what it entails for the hidden
        results and the boards to start next (see :data:`APPEND_SCRIPT`), if the watchers'
        log still has ``expected`` entries; else raise :class:`Conflict`, appending nothing.
        The append is announced on the match's news channel unless ``listening`` (the caller
        is subscribed to it) and no one else is."""
        plays: list[str] = []
        if change is not None:
            for round_number, at in change.plays:
                plays += [play_field(change.board, round_number, at), str(round_number), str(at)]
        started = time.perf_counter()
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
                str(expected),
                "1" if listening else "0",
                *plays,
            ],
        )
        self._timed_append(time.perf_counter() - started)
        compared_raw, finished, length, last_id = (
            item.decode() if isinstance(item, bytes) else item for item in reply
        )
        if finished == -1:
            raise Conflict(int(length))
        compared = json.loads(compared_raw) if compared_raw else None
        return Appended(
            table, event, compared, bool(finished), tuple(starts), int(length), str(last_id)
        )

    async def config(self, match_id: str) -> MatchConfig | None:
        """A match's config, or None for a match not stored."""
        raw = await self.redis.get(f"{{m:{match_id}}}:config")
        return None if raw is None else MatchConfig.from_json(raw)

    async def load(self, match_id: str) -> MatchLogs | None:
        """Read a match back: its config and its three logs, in order. (In a robot-table
        match, table 2's log holds the robots' whole table from the start.)"""
        tag = f"{{m:{match_id}}}"
        started = time.perf_counter()
        raw = await self.redis.get(f"{tag}:config")
        if raw is None:
            return None
        waited = time.perf_counter() - started  # the two round trips, not the parsing
        config = MatchConfig.from_json(raw)
        # One transaction: the logs as they stood at one moment (other processes append).
        async with self.redis.pipeline(transaction=True) as pipe:
            for number in config.tables:
                pipe.xrange(_table_key(match_id, number))
            pipe.xrange(f"{tag}:watch")
            started = time.perf_counter()
            read = cast(list[list[tuple[bytes, dict[bytes, bytes]]]], await pipe.execute())
        self._timed_load(waited + time.perf_counter() - started)
        tables = {
            number: [json.loads(fields[b"e"]) for _id, fields in entries]
            for number, entries in zip(config.tables, read, strict=False)
        }
        watch = read[-1]
        last_id = watch[-1][0].decode() if watch else "0-0"
        return MatchLogs(config, tables, _watch_entries(watch), last_id)

    async def entries_after(
        self, match_id: str, last_id: str
    ) -> tuple[list[tuple[int, StoredEvent]], str]:
        """The watchers' log's entries after the one with id ``last_id``, and the id of the
        last of them (``last_id`` when there is none)."""
        started = time.perf_counter()
        read = cast(
            list[tuple[bytes, dict[bytes, bytes]]],
            await self.redis.xrange(f"{{m:{match_id}}}:watch", min=f"({last_id}"),
        )
        self._timed_read(time.perf_counter() - started)
        return _watch_entries(read), read[-1][0].decode() if read else last_id

    async def log_lengths(self, match_ids: list[str]) -> list[int]:
        """How many entries each match's watchers' log has (one round trip for all)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for match_id in match_ids:
                pipe.xlen(f"{{m:{match_id}}}:watch")
            return [int(n) for n in await pipe.execute()]


def _watch_entries(
    read: list[tuple[bytes, dict[bytes, bytes]]],
) -> list[tuple[int, StoredEvent]]:
    return [(int(fields[b"t"]), json.loads(fields[b"e"])) for _id, fields in read]


def _grant_of(raw: bytes | str) -> Grant:
    data = json.loads(raw)
    return Grant(data["match_id"], data["role"], data.get("table"), data.get("seat"))


def grant_to_json(grant: Grant) -> dict[str, Any]:
    return {
        "match_id": grant.match_id,
        "role": grant.role,
        "table": grant.table,
        "seat": grant.seat,
    }
