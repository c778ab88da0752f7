"""What a part or a check said, as one-line texts (``Message.flat``): for tests that look
for words; a test about what a message *means* reads its fields instead."""

from __future__ import annotations

from collections.abc import Iterable

from autograder.results.message import Message


def said(messages: Iterable[Message]) -> tuple[str, ...]:
    return tuple(message.flat() for message in messages)
