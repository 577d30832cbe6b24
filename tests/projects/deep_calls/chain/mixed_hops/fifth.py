from chain.mixed_hops.sixth import post


def send_welcome(address: str) -> None:
    post(address)
