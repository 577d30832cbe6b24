from chain.far_hops import third


def relay(address):
    third.relay(address)
