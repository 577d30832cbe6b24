from chain.far_hops import fifth


def relay(address):
    fifth.relay(address)
