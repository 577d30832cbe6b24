from chain.far_hops import sixth


def relay(address):
    sixth.relay(address)
