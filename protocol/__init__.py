"""The wire protocol between clients and the server: typed messages and their codec."""

from protocol.codec import decode_client, decode_server, encode, json_schema
from protocol.errors import ErrorCode, ProtocolError
from protocol.messages import PROTOCOL_VERSION, ClientMessage, ServerMessage

__all__ = [
    "PROTOCOL_VERSION",
    "ClientMessage",
    "ErrorCode",
    "ProtocolError",
    "ServerMessage",
    "decode_client",
    "decode_server",
    "encode",
    "json_schema",
]
