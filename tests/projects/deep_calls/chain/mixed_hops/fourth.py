from chain.mixed_hops import fifth


class Mailer:
    def deliver(self, address: str) -> None:
        fifth.send_welcome(address)
