from ledger.services import PostingService


class RefundService(PostingService):
    pass
