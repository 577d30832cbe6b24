from chain.mixed_hops import fourth


def relay(address):
    fourth.relay(address)
