from ledger.base import Lookup, Service


class Posting:
    pass


class PostingService(Lookup[Posting, int], Service[Posting]):
    pass
