from chain.mixed_hops import second


def relay(address):
    _prepare(address)


def _prepare(address):
    # A function of the same module is no hop.
    second.relay(address.strip())
