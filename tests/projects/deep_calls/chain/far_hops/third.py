from chain.far_hops import fourth


def relay(address):
    fourth.relay(address)
