from chain.far_hops import eighth


def relay(address):
    eighth.relay(address)
