"""Per-key rate limits (per client IP, per account) with the ``limits`` library's moving
windows, in this process's memory: the API runs as one process. The library keeps each key
only while its longest window lasts and drops expired keys by itself."""

from __future__ import annotations

import math
import time

from limits import RateLimitItem, parse_many
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter


class RateLimits:
    """Named rules ("5/minute;30/hour") applied to keys (an IP address, an account name)."""

    def __init__(self) -> None:
        self.limiter = MovingWindowRateLimiter(MemoryStorage())
        self.parsed: dict[str, list[RateLimitItem]] = {}

    def _items(self, rule: str) -> list[RateLimitItem]:
        if rule not in self.parsed:
            self.parsed[rule] = parse_many(rule) if rule.strip() else []
        return self.parsed[rule]

    def wait(self, rule: str, *key: str) -> int:
        """Seconds until ``key`` may act again under ``rule`` (0: it may now)."""
        waits = [self._reset_in(item, key) for item in self._items(rule)
                 if not self.limiter.test(item, *key)]
        return max(waits, default=0)

    def hit(self, rule: str, *key: str) -> int:
        """Count one action of ``key``; 0 if allowed, else the seconds to wait (not counted)."""
        wait = self.wait(rule, *key)
        if wait:
            return wait
        for item in self._items(rule):
            self.limiter.hit(item, *key)
        return 0

    def delay(self, rule: str, max_s: float, *key: str) -> float:
        """A delay that grows as ``key`` spends ``rule``: none in the first half of any window,
        then doubling with each further action, ``max_s`` once a window is spent (never more)."""
        worst = 0.0
        for item in self._items(rule):
            remaining = self.limiter.get_window_stats(item, *key).remaining
            used = item.amount - remaining
            if used > item.amount / 2:
                worst = max(worst, max_s * 2.0 ** min(0, used - item.amount))
        return worst

    def _reset_in(self, item: RateLimitItem, key: tuple[str, ...]) -> int:
        reset = self.limiter.get_window_stats(item, *key).reset_time
        return max(1, math.ceil(reset - time.time()))
