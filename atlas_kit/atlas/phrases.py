"""The phrases that state a fact or pass a failure on, for tickets' `facts` and `tell`: each a tuple of alternatives.

An answer passes an entry on when it contains any one of them (outcome.mentions, case-insensitive). They are
generous on purpose, since a paraphrase a list misses fails a right answer; the price is that an answer using
one of the words about something else passes. Used by tickets.py; taught in chapter 10.
"""
from __future__ import annotations

__all__ = ["ANOTHER_CUSTOMER", "CAP", "CHECK", "DELETED", "DOWN", "LATER", "NO_ACCOUNT", "PERSON", "SHIPPED", "WINDOW",
           "ZERO"]

ZERO = ("$0.00", "no unpaid invoices", "zero balance", "balance is zero", "nothing is owed", "owe nothing")
# What a `tell` asks the answer to pass on, each a set of alternative phrases (Outcome.tell requires every entry).
DOWN = ("not responding", "isn't responding", "wasn't responding", "didn't respond", "did not respond",
        "no response", "unavailable", "not available", "is down", "was down", "outage", "timed out", "couldn't",
        "could not", "unable", "not able", "try again later", "write again later", "ask again later")
PERSON = ("a person", "colleague", "someone", "a human", "member of our", "team", "specialist", "escalat",
          "hand this", "hand it", "pass this", "pass it", "passed it", "forward", "agent", "staff", "in touch",
          "contact you", "get back to you", "hear back", "reply within")
ANOTHER_CUSTOMER = ("another customer", "different customer", "other customer", "another organi", "different organi",
                    "someone else", "not yours", "isn't yours", "not your account", "isn't your account",
                    "not one of your", "isn't one of your", "not associated", "isn't associated", "not linked",
                    "isn't linked", "your own", "their own", "don't have access", "no access", "not permitted",
                    "not allowed", "can't access", "cannot access", "couldn't access", "unable to access",
                    "not able to access", "can't look", "cannot look", "couldn't look", "can't share",
                    "cannot share", "not able to share", "unable to share", "can't check", "cannot check",
                    "can't see", "cannot see", "can't discuss", "cannot discuss")
SHIPPED = ("shipped", "dispatched", "on its way", "in transit", "already left", "already been sent", "already sent",
           "out for delivery", "delivered")
DELETED = ("deleted", "no longer exist", "doesn't exist", "does not exist", "removed", "no longer in our system",
           "no longer on file", "not found", "couldn't find", "can't find", "cannot find")
CAP = ("capped", "cap ", "limit", "maximum", "max ", "at most", "no more than", "up to 50", "more than 50",
       "above 50", "over 50", "beyond 50", "exceed 50", "past 50", "50 units")
WINDOW = ("refund window", "window", "180 days", "six months", "too long ago", "too old")
NO_ACCOUNT = ("couldn't find", "could not find", "can't find", "cannot find", "not found", "no account",
              "doesn't exist", "does not exist", "no record", "no such", "couldn't locate", "unable to find",
              "not able to find", "didn't find", "no match", "don't see", "do not see", "can't see",
              "not in our system", "isn't in our system", "no trace")
# To come back later: what a give-up asks the customer to do when not even a person could take the case.
LATER = ("later", "write again", "try again", "ask again", "get back to us", "contact us again", "hear nothing",
         "don't hear", "do not hear", "check back", "tomorrow", "in a while")
CHECK = ("check", "confirm", "verify", "typo", "correct number", "right number", "send it again", "resend",
         "re-send", "look again", "make sure")
