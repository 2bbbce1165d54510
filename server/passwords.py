"""How easy a password is to guess: zxcvbn's estimate, the one rule that sign-up enforces and
that the sign-up form shows live through ``POST /api/auth/password-check`` (docs/server.md,
"Password strength"). zxcvbn words its advice in English only; each of its fixed messages has a
stable code here, which the web app shows in the learner's language."""

from __future__ import annotations

from dataclasses import dataclass

from zxcvbn import zxcvbn

MIN_LENGTH = 8
MAX_LENGTH = 256
#: zxcvbn reads this many characters: its time grows with the length, and 4.5 refuses (raises)
#: a password of more than 72
ESTIMATED = 72

#: zxcvbn 4.5's advice (zxcvbn/feedback.py), each message with the code the web app translates
ADVICE = {
    "Use a few words, avoid common phrases.": "few_words",
    "No need for symbols, digits, or uppercase letters.": "no_symbols_needed",
    "Add another word or two. Uncommon words are better.": "add_word",
    "Straight rows of keys are easy to guess.": "key_rows",
    "Short keyboard patterns are easy to guess.": "key_pattern",
    "Use a longer keyboard pattern with more turns.": "longer_key_pattern",
    'Repeats like "aaa" are easy to guess.': "repeats",
    'Repeats like "abcabcabc" are only slightly harder to guess than "abc".': "repeated_words",
    "Avoid repeated words and characters.": "avoid_repeats",
    'Sequences like "abc" or "6543" are easy to guess.': "sequences",
    "Avoid sequences.": "avoid_sequences",
    "Recent years are easy to guess.": "recent_years",
    "Avoid recent years.": "avoid_recent_years",
    "Avoid years that are associated with you.": "avoid_your_years",
    "Dates are often easy to guess.": "dates",
    "Avoid dates and years that are associated with you.": "avoid_your_dates",
    "This is a top-10 common password.": "top10",
    "This is a top-100 common password.": "top100",
    "This is a very common password.": "very_common",
    "This is similar to a commonly used password.": "similar_common",
    "A word by itself is easy to guess.": "single_word",
    "Names and surnames by themselves are easy to guess.": "names",
    "Common names and surnames are easy to guess.": "common_names",
    "Capitalization doesn't help very much.": "capitalization",
    "All-uppercase is almost as easy to guess as all-lowercase.": "all_uppercase",
    "Reversed words aren't much harder to guess.": "reversed",
    "Predictable substitutions like '@' instead of 'a' don't help very much.": "substitutions",
}


@dataclass(frozen=True)
class Strength:
    """The verdict on one password: whether sign-up takes it, and zxcvbn's advice (English)."""

    acceptable: bool
    too_short: bool
    score: int  # zxcvbn's 0-4
    warning: str  # "" when zxcvbn has none
    suggestions: tuple[str, ...]

    def reason(self) -> str:
        """Why sign-up refuses it, in English (for the 422's ``feedback``)."""
        if self.too_short:
            return f"at least {MIN_LENGTH} characters"
        return self.warning or " ".join(self.suggestions) or "too easy to guess"


def strength(username: str, password: str, min_score: int) -> Strength:
    """The strength of ``password`` for the account ``username`` (its name counts as guessable)."""
    if not password:  # zxcvbn 4.5 fails on the empty string
        return Strength(acceptable=False, too_short=True, score=0, warning="", suggestions=())
    estimate = zxcvbn(password[:ESTIMATED], user_inputs=[username] if username else [])
    feedback = estimate.get("feedback") or {}
    score = int(estimate["score"])
    too_short = len(password) < MIN_LENGTH
    return Strength(acceptable=not too_short and score >= min_score, too_short=too_short,
                    score=score, warning=feedback.get("warning") or "",
                    suggestions=tuple(feedback.get("suggestions") or ()))
