from chain.far_hops import second


def relay(address):
    second.relay(address)
