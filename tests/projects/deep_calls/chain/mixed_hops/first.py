from chain.mixed_hops import second


def relay(address):
    second.relay(address.strip())
